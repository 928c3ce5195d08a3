// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics endpoint on libmicrohttpd (see prom_http.h).
 *
 * Each published exposition becomes one immutable MHD_Response that every
 * scrape queues; libmicrohttpd reference-counts responses, so replacing
 * it while slow clients are still receiving the old one is safe: the old
 * text is freed when its last connection is done (or gone).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "errbuf.h"
#include "prom_expo.h"
#include "prom_http.h"
#include "vocab.h"

struct prom_server {
	struct MHD_Daemon *daemon;
	uint16_t port;
	pthread_mutex_t lock;		/* current, stats */
	struct MHD_Response *current;	/* the latest exposition */
	struct MHD_Response *not_found;
	struct MHD_Response *bad_method;
	struct prom_server_stats stats;
	void (*refresh)(void *arg);
	void *refresh_arg;
};

int prom_listen_parse(const char *spec, struct prom_listen *out,
		      char *err, size_t errlen)
{
	char host[64] = PROM_DEFAULT_ADDR;
	const char *port_s = spec, *colon;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&out->addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out->addr;
	unsigned long port;
	bool v6 = false;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec) {
		errbuf_set(err, errlen, "--listen: empty address, expected [ADDR:]PORT");
		return -EINVAL;
	}
	if (strlen(spec) > 80) {
		errbuf_set(err, errlen, "--listen: '%.20s...' is too long for [ADDR:]PORT", spec);
		return -EINVAL;
	}
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':' ||
		    (size_t)(close - spec - 1) >= sizeof(host)) {
			errbuf_set(err, errlen,
				"--listen '%s': expected [IPv6]:PORT", spec);
			return -EINVAL;
		}
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port_s = close + 2;
		v6 = true;
	} else if ((colon = strrchr(spec, ':'))) {
		if (colon == spec || (size_t)(colon - spec) >= sizeof(host) ||
		    memchr(spec, ':', (size_t)(colon - spec))) {
			errbuf_set(err, errlen,
				"--listen '%s': expected ADDR:PORT (IPv6 as [ADDR]:PORT)",
				spec);
			return -EINVAL;
		}
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port_s = colon + 1;
	}
	if (parse_ulong(port_s, 65535, &port)) {
		errbuf_set(err, errlen, "--listen '%s': bad port '%s' (0-65535)",
			spec, port_s);
		return -EINVAL;
	}
	if (!v6 && !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	out->addr.ss_family = v6 ? AF_INET6 : AF_INET;
	if (inet_pton(out->addr.ss_family, host,
		      v6 ? (void *)&in6->sin6_addr : (void *)&in4->sin_addr) != 1) {
		errbuf_set(err, errlen, v6 ? "--listen '%s': bad IPv6 address '%s'" :
			   "--listen '%s': bad IPv4 address '%s' (use a numeric address or localhost)",
			   spec, host);
		return -EINVAL;
	}
	/* sin_port and sin6_port are at the same offset */
	in4->sin_port = htons((uint16_t)port);
	out->addrlen = v6 ? sizeof(*in6) : sizeof(*in4);
	snprintf(out->text, sizeof(out->text), v6 ? "[%s]:%lu" : "%s:%lu", host, port);
	return 0;
}

/*
 * Bind the socket ourselves: libmicrohttpd's own bind failure is a bare
 * NULL, and the user deserves "Address already in use".
 */
static int open_listen_socket(const struct prom_listen *l, uint16_t *port,
			      char *err, size_t errlen)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	int fd, one = 1, e;

	fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = errno;
		errbuf_set(err, errlen, "--listen %s: socket: %s", l->text, strerror(e));
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l->addr.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&l->addr, l->addrlen) ||
	    listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen)) {
		e = errno;
		errbuf_set(err, errlen, "--listen %s: %s", l->text, strerror(e));
		close(fd);
		return -e;
	}
	*port = ntohs(bound.ss_family == AF_INET6 ?
		      ((struct sockaddr_in6 *)&bound)->sin6_port :
		      ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
}

static struct MHD_Response *text_response(const char *text, bool exposition)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return NULL;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				exposition ? PROM_CONTENT_TYPE :
				"text/plain; charset=utf-8");
	return r;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct prom_server *s = cls;
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;
	uint64_t *counter;
	bool scrape = !strcmp(url, "/metrics") &&
		      (!strcmp(method, MHD_HTTP_METHOD_GET) ||
		       !strcmp(method, MHD_HTTP_METHOD_HEAD));

	if (scrape) {
		/*
		 * Answer a scrape on the second call, once the request is
		 * complete: a response queued on the first call makes
		 * libmicrohttpd close the connection ("Connection: close"),
		 * and Prometheus keeps its scrape connections alive.
		 */
		if (!*con_cls) {
			*con_cls = s;
			return MHD_YES;
		}
		if (*upload_data_size) {
			*upload_data_size = 0;	/* a GET body: ignored */
			return MHD_YES;
		}
		if (s->refresh)
			s->refresh(s->refresh_arg);
	}

	pthread_mutex_lock(&s->lock);
	if (strcmp(url, "/metrics")) {
		r = s->not_found;
		status = MHD_HTTP_NOT_FOUND;
		counter = &s->stats.not_found;
	} else if (!scrape) {
		r = s->bad_method;
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		counter = &s->stats.bad_method;
	} else {
		r = s->current;
		status = MHD_HTTP_OK;
		counter = &s->stats.ok;
	}
	/*
	 * Queue under the lock: prom_server_publish() drops its reference
	 * to the old response under the same lock, and MHD_queue_response()
	 * takes the connection's reference, so the response cannot be freed
	 * in between.  Errors are queued on the first call (before any
	 * request body was read): libmicrohttpd then discards the body and
	 * closes the connection.
	 */
	ret = MHD_queue_response(conn, status, r);
	if (ret == MHD_YES)
		(*counter)++;
	else
		s->stats.failed++;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* libmicrohttpd's own messages (client resets, timeouts) are routine. */
static void quiet_logger(void *cls, const char *fmt, va_list ap)
{
}

int prom_server_start(const struct prom_server_opts *opts,
		      struct prom_server **out, char *err, size_t errlen)
{
	struct prom_server *s;
	int fd, rc;

	s = calloc(1, sizeof(*s));
	if (!s) {
		errbuf_set(err, errlen, "--listen: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->refresh = opts->refresh;
	s->refresh_arg = opts->refresh_arg;
	s->current = text_response("", true);
	s->not_found = text_response("404 not found: vmapscope serves /metrics\n", false);
	s->bad_method = text_response("405 method not allowed: use GET\n", false);
	if (!s->current || !s->not_found || !s->bad_method) {
		errbuf_set(err, errlen, "--listen: out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	MHD_add_response_header(s->bad_method, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");

	fd = open_listen_socket(&opts->listen, &s->port, err, errlen);
	if (fd < 0) {
		rc = fd;
		goto fail;
	}
	/*
	 * One internal polling thread (epoll where available) serves every
	 * connection from memory; that is plenty for scrapes and keeps a
	 * flood of clients from costing threads.
	 */
	s->daemon = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, handle, s,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)(opts->timeout_s ? opts->timeout_s :
			       PROM_DEFAULT_TIMEOUT_S),
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)(opts->max_connections ? opts->max_connections :
			       PROM_DEFAULT_MAX_CONNECTIONS),
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)PROM_PER_IP_CONNECTIONS,
		MHD_OPTION_EXTERNAL_LOGGER, quiet_logger, NULL,
		MHD_OPTION_END);
	if (!s->daemon) {
		close(fd);
		errbuf_set(err, errlen, "--listen %s: cannot start the HTTP server",
			opts->listen.text);
		rc = -EIO;
		goto fail;
	}
	*out = s;
	return 0;
fail:
	if (s->current)
		MHD_destroy_response(s->current);
	if (s->not_found)
		MHD_destroy_response(s->not_found);
	if (s->bad_method)
		MHD_destroy_response(s->bad_method);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return rc;
}

int prom_server_publish(struct prom_server *s, const char *text, size_t len)
{
	struct MHD_Response *r, *old;
	char *copy;

	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	r = MHD_create_response_from_buffer_with_free_callback(len, copy, free);
	if (!r) {
		free(copy);
		return -ENOMEM;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_CONTENT_TYPE);
	pthread_mutex_lock(&s->lock);
	old = s->current;
	s->current = r;
	s->stats.publishes++;
	/* Connections still sending @old hold their own references. */
	MHD_destroy_response(old);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

uint16_t prom_server_port(const struct prom_server *s)
{
	return s->port;
}

void prom_server_stats(struct prom_server *s, struct prom_server_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	pthread_mutex_unlock(&s->lock);
}

void prom_server_stop(struct prom_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);	/* closes the listen socket too */
	MHD_destroy_response(s->current);
	MHD_destroy_response(s->not_found);
	MHD_destroy_response(s->bad_method);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
