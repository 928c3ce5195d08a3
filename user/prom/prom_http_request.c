// SPDX-License-Identifier: GPL-2.0
/*
 * One request of the /metrics endpoint, as libmicrohttpd hands it over
 * (prom_http_int.h): the client certificate and basic auth checked on
 * every request (a password nothing remembers by the checking thread,
 * prom_http_auth.c), then the route, the response queued under the lock
 * that publishing takes.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#ifdef VMAPSCOPE_TLS
#include <gnutls/gnutls.h>
#endif

#include "prom_accept.h"
#include "prom_expo.h"
#include "prom_http_int.h"
#include "prom_self.h"

struct MHD_Response *prom_text_response(const char *text, const char *content_type)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return NULL;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				content_type ? content_type : "text/plain; charset=utf-8");
	return r;
}

struct conn *prom_conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/*
 * Basic auth, when configured: checked on every request (Prometheus sends
 * the password each time), from what is remembered when that can tell,
 * else by the checking thread (prom_http_auth.c) while the connection is
 * suspended.
 */
static enum req_auth check_auth(struct prom_server *s, struct MHD_Connection *conn,
				struct prom_req *rq, bool *busy)
{
	enum req_auth verdict = RA_WRONG;
	char *pass = NULL, *user;
	int r;

	*busy = false;
	if (!s->authorize)
		return RA_RIGHT;
	user = MHD_basic_auth_get_username_password(conn, &pass);
	if (user && pass) {
		r = s->auth_cached ? s->auth_cached(s->auth_arg, user, pass) : -1;
		if (r > 0)
			verdict = RA_RIGHT;
		else if (r < 0 && prom_auth_submit(s, conn, rq, user, pass))
			verdict = RA_CHECKING;
		else if (r < 0)
			*busy = true;
	}
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return verdict;
}

static enum MHD_Result count_and_queue(struct prom_server *s, struct MHD_Connection *conn,
				       unsigned int status, struct MHD_Response *r,
				       uint64_t *counter)
{
	enum MHD_Result ret;

	pthread_mutex_lock(&s->lock);
	ret = MHD_queue_response(conn, status, r);
	if (ret == MHD_YES)
		(*counter)++;
	else
		s->stats.failed++;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* RequireAndVerifyClientCert: a client certificate the CA signed. */
static bool client_verified(struct prom_server *s, struct MHD_Connection *conn)
{
#ifdef VMAPSCOPE_TLS
	const union MHD_ConnectionInfo *ci;
	unsigned int status = 0, n = 0;

	if (!s->verify_client)
		return true;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session ||
	    !gnutls_certificate_get_peers(ci->tls_session, &n) || !n)
		return false;
	return gnutls_certificate_verify_peers2(ci->tls_session, &status) == 0 &&
	       status == 0;
#else
	return !s->verify_client;
#endif
}

/* A scrape's response: the exposition it sends, and the server's metrics behind it. */
struct scrape_resp {
	struct prom_server *s;
	struct expo *e;
	struct prom_buf self;
};

static void scrape_resp_free(void *arg)
{
	struct scrape_resp *sr = arg;

	pthread_mutex_lock(&sr->s->lock);
	prom_expo_put(sr->e);
	pthread_mutex_unlock(&sr->s->lock);
	prom_buf_free(&sr->self);
	free(sr);
}

/*
 * The latest exposition, then the server's own metrics (prom_self.h), in
 * the protobuf format if the scraper prefers it (prom_accept.h) and one
 * was published.
 */
static struct MHD_Response *scrape_response(struct prom_server *s, bool want_protobuf)
{
	struct scrape_resp *sr = calloc(1, sizeof(*sr));
	struct prom_server_stats st;
	struct MHD_IoVec iov[2];
	struct MHD_Response *r;
	bool pb;

	if (!sr)
		return NULL;
	sr->s = s;
	pthread_mutex_lock(&s->lock);
	sr->e = s->cur;
	sr->e->refs++;
	st = s->stats;
	pthread_mutex_unlock(&s->lock);
	pb = want_protobuf && sr->e->pb;
	if (pb)
		prom_buf_init_protobuf(&sr->self, false);
	else
		prom_buf_init(&sr->self);
	if (s->self_metrics) {
		prom_self_process(&sr->self);
		prom_self_http(&sr->self, &st);
		if (prom_buf_finish(&sr->self))
			prom_buf_reset(&sr->self);	/* the exposition alone, then */
	}
	iov[0] = pb ? (struct MHD_IoVec){ sr->e->pb, sr->e->pb_len } :
		      (struct MHD_IoVec){ sr->e->data, sr->e->len };
	iov[1] = (struct MHD_IoVec){ sr->self.data ? sr->self.data : "", sr->self.len };
	r = MHD_create_response_from_iovec(iov, 2, scrape_resp_free, sr);
	if (!r) {
		scrape_resp_free(sr);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				pb ? PROM_PROTOBUF_CONTENT_TYPE : PROM_CONTENT_TYPE);
	/* the answer depends on Accept: caches must not hand one to the other */
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT);
	return r;
}

static void count_scrape(struct prom_server *s, double seconds)
{
	static const double bounds[] = PROM_SCRAPE_BOUNDS;
	size_t i = 0;

	while (i < PROM_SCRAPE_NR_BOUNDS && seconds > bounds[i])
		i++;
	s->stats.scrape_counts[i]++;
	s->stats.scrape_seconds += seconds;
	if (seconds > 0) {
		/* bucket k of (2^(k-1), 2^k]: seconds = m * 2^e, 0.5 <= m < 1 */
		int e, k;
		double m = frexp(seconds, &e);

		k = m == 0.5 ? e - 1 : e;
		k -= PROM_SCRAPE_NATIVE_FIRST;
		k = k < 0 ? 0 : k >= PROM_SCRAPE_NATIVE_NR ? PROM_SCRAPE_NATIVE_NR - 1 : k;
		s->stats.scrape_native[k]++;
	} else {
		s->stats.scrape_zero++;
	}
}

enum MHD_Result prom_handle(void *cls, struct MHD_Connection *conn,
			   const char *url, const char *method,
			   const char *version, const char *upload_data,
			   size_t *upload_data_size, void **con_cls)
{
	struct prom_server *s = cls;
	struct prom_req *rq = *con_cls;
	enum req_auth a;
	struct MHD_Response *r = NULL;
	unsigned int status;
	enum MHD_Result ret;
	uint64_t *counter;
	bool metrics = !strcmp(url, s->path), landing = !strcmp(url, "/");
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);

	if (!rq) {
		/* the header is complete: no deadline while it is answered */
		struct conn *c = prom_conn_of(conn);
		bool busy;

		if (c)
			c->phase = C_ACTIVE;
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		rq->t0 = prom_now();
		*con_cls = rq;
		if (!client_verified(s, conn))
			return count_and_queue(s, conn, MHD_HTTP_FORBIDDEN, s->forbidden,
					       &s->stats.forbidden);
		a = check_auth(s, conn, rq, &busy);
		if (busy)
			return count_and_queue(s, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
					       s->auth_busy, &s->stats.auth_busy);
		/*
		 * Suspended until it is checked; the checking thread may
		 * have set rq->auth already, so this call must not
		 */
		if (a == RA_CHECKING)
			return MHD_YES;
		rq->auth = a;
	}
	/* anything but a right password is refused (the checking thread's verdict too) */
	if (__atomic_load_n(&rq->auth, __ATOMIC_ACQUIRE) != RA_RIGHT)
		/* libmicrohttpd then discards any body and closes */
		return count_and_queue(s, conn, MHD_HTTP_UNAUTHORIZED, s->unauthorized,
				       &s->stats.unauthorized);
	if (get && (metrics || landing)) {
		/*
		 * Answer on the second call, once the request is complete:
		 * a response queued on the first call makes libmicrohttpd
		 * close the connection ("Connection: close"), and
		 * Prometheus keeps its scrape connections alive.
		 */
		if (!rq->seen) {
			rq->seen = true;
			return MHD_YES;
		}
		if (*upload_data_size) {
			*upload_data_size = 0;	/* a GET body: ignored */
			return MHD_YES;
		}
	}
	if (get && metrics) {
		if (s->refresh)
			s->refresh(s->refresh_arg);
		r = scrape_response(s, prom_accept_protobuf(
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT)));
		if (!r) {
			pthread_mutex_lock(&s->lock);
			s->stats.failed++;
			pthread_mutex_unlock(&s->lock);
			return MHD_NO;
		}
		pthread_mutex_lock(&s->lock);
		ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
		if (ret == MHD_YES) {
			s->stats.ok++;
			count_scrape(s, prom_now() - rq->t0);
		} else {
			s->stats.failed++;
		}
		pthread_mutex_unlock(&s->lock);
		MHD_destroy_response(r);	/* the connection holds its own reference */
		return ret;
	}
	if (get && landing) {
		r = s->landing;
		status = MHD_HTTP_OK;
		counter = &s->stats.landing;
	} else if (metrics || landing) {
		r = s->bad_method;
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		counter = &s->stats.bad_method;
	} else {
		r = s->not_found;
		status = MHD_HTTP_NOT_FOUND;
		counter = &s->stats.not_found;
	}
	/*
	 * Errors are queued on the first call (before any request body was
	 * read): libmicrohttpd then discards the body and closes the
	 * connection.
	 */
	return count_and_queue(s, conn, status, r, counter);
}
