// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics endpoint on libmicrohttpd (see prom_http.h).
 *
 * Each published exposition becomes one immutable, reference-counted
 * text (struct expo); every scrape's response points into it (followed
 * by the server's own metrics, if asked), so replacing it while slow
 * clients are still receiving the old one is safe: the old text is freed
 * when the last response sending it is done (or gone).
 *
 * The server thread is ours, not libmicrohttpd's: it accepts the
 * connections itself, holds each one until its request line has arrived
 * (peeking, so libmicrohttpd later reads the request as sent), answers a
 * malformed one with 400 at once, then hands the socket to libmicrohttpd
 * (MHD_add_connection) and runs libmicrohttpd's event loop (MHD_run) in
 * the same thread.  Every callback, the deadline sweep and the eviction
 * of waiting connections therefore run in one thread: a socket can be
 * shut down without racing libmicrohttpd closing it.
 *
 * Connection states (struct conn):
 *   PENDING  accepted, request line not complete yet (ours)
 *   WAITING  in libmicrohttpd, no request being answered: the rest of the
 *            first request's header, or the next request on a kept-alive
 *            connection
 *   ACTIVE   a request is being answered (from its complete header to its
 *            last byte sent)
 * PENDING and WAITING connections have a deadline that trickling bytes do
 * not extend, and are what a newcomer evicts when the limits are reached;
 * only ACTIVE connections can fill the server (and they are served from
 * memory, or closed by the idle timeout when their client stops reading).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "errbuf.h"
#include "prom_expo.h"
#include "prom_http.h"
#include "prom_http_int.h"

double prom_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct expo *expo_new(const char *text, size_t len, const void *pb, size_t pb_len)
{
	struct expo *e = malloc(sizeof(*e) + len + 1 + (pb ? pb_len : 0));

	if (!e)
		return NULL;
	e->refs = 1;
	e->len = len;
	memcpy(e->data, text, len);
	e->data[len] = 0;
	e->pb = pb ? e->data + len + 1 : NULL;
	e->pb_len = pb ? pb_len : 0;
	if (pb)
		memcpy(e->data + len + 1, pb, pb_len);
	return e;
}

void prom_expo_put(struct expo *e)
{
	if (e && !--e->refs)
		free(e);
}

/* ---- connections: accounting, deadlines, eviction ---------------------- */

static void conn_unlink(struct conn *c)
{
	c->prev->next = c->next;
	c->next->prev = c->prev;
}

static void stat_inc(struct prom_server *s, uint64_t *counter)
{
	pthread_mutex_lock(&s->lock);
	(*counter)++;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Drop a connection that is not being answered.  A PENDING one is ours to
 * close; a WAITING one belongs to libmicrohttpd, which sees the shutdown
 * as the client's end and closes it in its next round (NOTIFY_CLOSED then
 * frees the record).  A PENDING record is freed only after the round of
 * events it was dropped in: an event of that round may still name it (a
 * newcomer evicted it while its own bytes were ready).
 */
static void conn_drop(struct prom_server *s, struct conn *c)
{
	if (c->closing || c->dropped)
		return;
	s->live--;
	if (c->phase == C_PENDING) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		conn_unlink(c);
		c->dropped = true;
		c->next = s->dropped;
		s->dropped = c;
		return;
	}
	c->closing = true;
	shutdown(c->fd, SHUT_RDWR);
}

/* Whether two client addresses are the same host (the port differs). */
static bool same_host(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

/* The connection waiting longest (of host, if given), or NULL. */
static struct conn *oldest_waiting(struct prom_server *s,
				   const struct sockaddr_storage *host)
{
	struct conn *c, *best = NULL;

	for (c = s->conns.next; c != &s->conns; c = c->next) {
		if (c->closing || c->phase == C_ACTIVE)
			continue;
		if (host && !same_host(&c->addr, host))
			continue;
		if (!best || c->since < best->since)
			best = c;
	}
	return best;
}

static unsigned int host_conns(struct prom_server *s,
			       const struct sockaddr_storage *host)
{
	unsigned int n = 0;
	struct conn *c;

	for (c = s->conns.next; c != &s->conns; c = c->next)
		if (!c->closing && same_host(&c->addr, host))
			n++;
	return n;
}

/*
 * Make room for a connection from host: at the per-host or the total
 * limit, the connection (of that host, or any) waiting longest for its
 * request goes.  Returns false when every connection holding the limit is
 * being answered: the newcomer is then refused.
 */
static bool make_room(struct prom_server *s, const struct sockaddr_storage *host)
{
	struct conn *victim;

	if (host_conns(s, host) >= s->per_ip) {
		victim = oldest_waiting(s, host);
		if (!victim)
			return false;
		conn_drop(s, victim);
		stat_inc(s, &s->stats.evicted);
	}
	if (s->live >= s->max_conns) {
		victim = oldest_waiting(s, NULL);
		if (!victim)
			return false;
		conn_drop(s, victim);
		stat_inc(s, &s->stats.evicted);
	}
	return true;
}

/* Pending connections wake us up on new bytes only (edge triggered). */
static int watch_pending(struct prom_server *s, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET,
				  .data.ptr = c };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, c->fd, &ev);
}

static void accept_all(struct prom_server *s)
{
	for (;;) {
		struct sockaddr_storage a;
		socklen_t alen = sizeof(a);
		struct conn *c;
		int fd;

		/* full of connections being answered: leave it to the backlog */
		if (s->live >= s->max_conns && !oldest_waiting(s, NULL))
			return;
		fd = accept4(s->listen_fd, (struct sockaddr *)&a, &alen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;		/* EAGAIN, or an aborted connection */
		if (!make_room(s, &a)) {
			close(fd);	/* this host holds the limit with requests */
			stat_inc(s, &s->stats.refused);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->addr = a;
		c->addrlen = alen;
		c->phase = C_PENDING;
		c->since = prom_now();
		c->deadline = c->since + s->header_timeout;
		c->next = s->conns.next;
		c->prev = &s->conns;
		s->conns.next->prev = c;
		s->conns.next = c;
		s->live++;
		if (watch_pending(s, c)) {
			s->live--;
			conn_unlink(c);
			close(fd);
			free(c);
		}
	}
}

static bool tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

enum line_verdict { LINE_INCOMPLETE, LINE_OK, LINE_BAD };

/*
 * The first bytes of a request: a method token, a space, then printable
 * text up to the end of the line.  Anything else cannot become a request:
 * answered with 400 before libmicrohttpd sees it (which would close such
 * a connection unanswered, or wait for a line end until the timeout).
 * Leading empty lines are allowed, as RFC 9112 asks.
 */
static enum line_verdict check_request_line(const unsigned char *p, size_t n)
{
	size_t i = 0;
	bool method = true;

	while (i < n && (p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i == n)
		return LINE_INCOMPLETE;
	if (!tchar(p[i]))
		return LINE_BAD;
	for (; i < n; i++) {
		unsigned char ch = p[i];

		if (method) {
			if (ch == ' ') {
				method = false;
				continue;
			}
			if (!tchar(ch))
				return LINE_BAD;
			continue;
		}
		if (ch == '\n')
			return LINE_OK;
		if (ch == '\r' && i + 1 < n && p[i + 1] != '\n')
			return LINE_BAD;
		if (ch < 0x20 && ch != '\t' && ch != '\r')
			return LINE_BAD;
		if (ch == 0x7f)
			return LINE_BAD;
	}
	return LINE_INCOMPLETE;
}

/*
 * The first bytes on the HTTPS port: a TLS record header (handshake, 22;
 * version 3.x, x up to 4; a length a ClientHello can have), then the
 * handshake type ClientHello (1).  What cannot become one is dropped at
 * once, instead of waiting for libmicrohttpd's handshake to time out.
 */
static enum line_verdict check_client_hello(const unsigned char *p, size_t n)
{
	size_t len;

	if (n >= 2 && p[1] != 3)
		return LINE_BAD;
	if (n >= 3 && p[2] > 4)
		return LINE_BAD;
	if (n < 5)
		return LINE_INCOMPLETE;
	len = (size_t)p[3] << 8 | p[4];
	if (len < 4 || len > 16384)
		return LINE_BAD;
	if (n < 6)
		return LINE_INCOMPLETE;
	return p[5] == 1 ? LINE_OK : LINE_BAD;
}

static void reply_and_close(struct prom_server *s, struct conn *c,
			    const char *body)
{
	char resp[512], sink[4096];
	int len;

	/* read what was sent, so that closing does not reset the answer */
	while (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	len = snprintf(resp, sizeof(resp),
		       "HTTP/1.1 400 Bad Request\r\n"
		       "Content-Type: text/plain; charset=utf-8\r\n"
		       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		       strlen(body), body);
	stat_inc(s, &s->stats.bad_request);	/* before the client can see it */
	if (send(c->fd, resp, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* the client is gone or not reading: nothing to tell it */
	}
	shutdown(c->fd, SHUT_WR);
	conn_drop(s, c);
}

/* Hand a connection to libmicrohttpd; the record follows it (socket_context). */
static void hand_over(struct prom_server *s, struct conn *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->phase = C_WAITING;
	s->adding = c;
	if (MHD_add_connection(s->daemon, c->fd, (struct sockaddr *)&c->addr,
			       c->addrlen) != MHD_YES) {
		/* the socket is closed either way; NOTIFY_CLOSED may have run */
		if (s->adding) {
			s->live--;
			conn_unlink(c);
			free(c);
		}
	}
	s->adding = NULL;
}

#define PEEK_MAX	8192

static void check_pending(struct prom_server *s, struct conn *c, uint32_t events)
{
	unsigned char buf[PEEK_MAX];
	ssize_t n;

	n = recv(c->fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_drop(s, c);	/* gone before it asked anything */
		return;
	}
	if (s->tls) {
		/* a TLS handshake starts with a handshake record (22) */
		if (buf[0] == 0x16) {
			switch (check_client_hello(buf, (size_t)n)) {
			case LINE_OK:
				hand_over(s, c);
				break;
			case LINE_BAD:
				/* no TLS: not even an alert can be understood */
				stat_inc(s, &s->stats.bad_request);
				conn_drop(s, c);
				break;
			case LINE_INCOMPLETE:
				if (events & (EPOLLRDHUP | EPOLLHUP))
					conn_drop(s, c);
				break;
			}
		} else if (tchar(buf[0]))
			reply_and_close(s, c, "400 bad request: this is an HTTPS server, "
					"use https://\n");
		else
			conn_drop(s, c);
		return;
	}
	switch (check_request_line(buf, (size_t)n)) {
	case LINE_OK:
		hand_over(s, c);
		break;
	case LINE_BAD:
		reply_and_close(s, c, "400 bad request: not an HTTP request line\n");
		break;
	case LINE_INCOMPLETE:
		if (n == sizeof(buf))
			reply_and_close(s, c, "400 bad request: request line too long\n");
		else if (events & (EPOLLRDHUP | EPOLLHUP))
			conn_drop(s, c);	/* hung up half way: nothing more comes */
		break;
	}
}

static void notify_connection(void *cls, struct MHD_Connection *mc,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct prom_server *s = cls;
	struct conn *c;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = s->adding;
		s->adding = NULL;
		return;
	}
	c = *socket_context;
	if (!c)
		return;
	if (!c->closing)
		s->live--;
	conn_unlink(c);
	free(c);
	*socket_context = NULL;
}

/* A request was answered (or abandoned): the connection waits again. */
static void request_completed(void *cls, struct MHD_Connection *mc,
			      void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct prom_server *s = cls;
	struct conn *c = prom_conn_of(mc);

	free(*con_cls);
	*con_cls = NULL;
	if (!c || c->phase != C_ACTIVE)
		return;
	c->phase = C_WAITING;
	c->since = prom_now();
	c->deadline = c->since + s->idle_timeout;
}

/*
 * Drop what waited past its deadline; returns ms until the next one, or
 * -1 when nothing waits (an idle server sleeps until something happens).
 */
static long sweep(struct prom_server *s)
{
	double now = prom_now(), next = now + 3600.0;
	struct conn *c, *n;

	for (c = s->conns.next; c != &s->conns; c = n) {
		n = c->next;
		if (c->closing || c->phase == C_ACTIVE)
			continue;
		if (c->deadline <= now) {
			stat_inc(s, &s->stats.deadline_closed);
			conn_drop(s, c);
		} else if (c->deadline < next) {
			next = c->deadline;
		}
	}
	if (next >= now + 3600.0)
		return -1;
	return (long)((next - now) * 1000) + 1;
}

static void arm_listen(struct prom_server *s)
{
	bool want = s->live < s->max_conns || oldest_waiting(s, NULL);
	struct epoll_event ev = { .events = want ? EPOLLIN : 0,
				  .data.ptr = &s->listen_fd };

	if (want != s->listen_armed) {
		epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->listen_fd, &ev);
		s->listen_armed = want;
	}
}

/* The records dropped in the round of events just handled. */
static void free_dropped(struct prom_server *s)
{
	struct conn *c;

	while ((c = s->dropped)) {
		s->dropped = c->next;
		free(c);
	}
}

static void *server_thread(void *arg)
{
	struct prom_server *s = arg;
	struct epoll_event evs[64];

	for (;;) {
		MHD_UNSIGNED_LONG_LONG mhd_ms;
		long wait_ms = sweep(s);
		int i, n;

		if (MHD_get_timeout(s->daemon, &mhd_ms) == MHD_YES &&
		    (wait_ms < 0 || mhd_ms < (MHD_UNSIGNED_LONG_LONG)wait_ms))
			wait_ms = mhd_ms > 3600000 ? 3600000 : (long)mhd_ms;
		arm_listen(s);
		n = epoll_wait(s->epfd, evs, 64, (int)wait_ms);
		for (i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &s->wake_fd)
				return NULL;
			if (p == &s->resume_fd) {
				uint64_t n;

				if (read(s->resume_fd, &n, sizeof(n)) < 0) {
					/* EAGAIN: read by an earlier round */
				}
				continue;	/* MHD_run() below takes them back */
			}
			if (p == &s->listen_fd)
				accept_all(s);
			else if (p != &s->mhd_epfd && !((struct conn *)p)->dropped)
				check_pending(s, p, evs[i].events);
		}
		free_dropped(s);
		MHD_run(s->daemon);
	}
	return NULL;
}

/* libmicrohttpd's own messages (client resets, timeouts) are routine. */
static void quiet_logger(void *cls, const char *fmt, va_list ap)
{
}

static void server_free(struct prom_server *s)
{
	struct conn *c, *n;

	/*
	 * The checking thread resumes what it holds, which libmicrohttpd
	 * must see (one more round) before it may stop.
	 */
	prom_auth_stop(s);
	if (s->daemon) {
		MHD_run(s->daemon);
		MHD_stop_daemon(s->daemon);	/* NOTIFY_CLOSED for its own */
	}
	for (c = s->conns.next; c && c != &s->conns; c = n) {
		n = c->next;			/* still pending: ours */
		close(c->fd);
		free(c);
	}
	free_dropped(s);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	if (s->resume_fd >= 0)
		close(s->resume_fd);
	prom_expo_put(s->cur);
	if (s->landing)
		MHD_destroy_response(s->landing);
	if (s->not_found)
		MHD_destroy_response(s->not_found);
	if (s->bad_method)
		MHD_destroy_response(s->bad_method);
	if (s->unauthorized)
		MHD_destroy_response(s->unauthorized);
	if (s->auth_busy)
		MHD_destroy_response(s->auth_busy);
	if (s->forbidden)
		MHD_destroy_response(s->forbidden);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int epoll_add(int epfd, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int prom_server_start(const struct prom_server_opts *opts,
		      struct prom_server **out, char *err, size_t errlen)
{
	unsigned int timeout_s = opts->timeout_s ? opts->timeout_s : PROM_DEFAULT_TIMEOUT_S;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET | MHD_ALLOW_SUSPEND_RESUME;
	const union MHD_DaemonInfo *di;
	struct prom_server *s;
	const char *path;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s) {
		errbuf_set(err, errlen, "--web.listen-address: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->listen_fd = s->epfd = s->wake_fd = s->resume_fd = -1;
	s->conns.next = s->conns.prev = &s->conns;
	s->refresh = opts->refresh;
	s->refresh_arg = opts->refresh_arg;
	s->authorize = opts->authorize;
	s->auth_cached = opts->auth_cached;
	s->auth_arg = opts->auth_arg;
	s->max_conns = opts->max_connections ? opts->max_connections :
		       PROM_DEFAULT_MAX_CONNECTIONS;
	s->per_ip = opts->max_per_ip ? opts->max_per_ip : PROM_PER_IP_CONNECTIONS;
	if (s->per_ip > s->max_conns)
		s->per_ip = s->max_conns;
	s->idle_timeout = timeout_s;
	s->header_timeout = opts->header_timeout_s ? opts->header_timeout_s :
			    PROM_DEFAULT_HEADER_TIMEOUT_S;
	if (s->header_timeout > timeout_s)
		s->header_timeout = timeout_s;
	path = opts->metrics_path ? opts->metrics_path : "/metrics";
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->self_metrics = opts->self_metrics;
	s->cur = expo_new("", 0, NULL, 0);
	snprintf(s->not_found_text, sizeof(s->not_found_text),
		 "404 not found: vmapscope serves %s\n", s->path);
	snprintf(s->landing_text, sizeof(s->landing_text),
		 "<!DOCTYPE html>\n<html>\n<head><title>vmapscope exporter</title></head>\n"
		 "<body>\n<h1>vmapscope exporter</h1>\n"
		 "<p>vmalloc, vmap and ioremap page-table mappings, per caller.</p>\n"
		 "<p><a href=\"%s\">Metrics</a></p>\n</body>\n</html>\n", s->path);
	s->landing = prom_text_response(s->landing_text, "text/html; charset=utf-8");
	s->not_found = prom_text_response(s->not_found_text, NULL);
	s->bad_method = prom_text_response("405 method not allowed: use GET\n", NULL);
	s->unauthorized = prom_text_response("401 unauthorized\n", NULL);
	s->auth_busy = prom_text_response("503 service unavailable: too many password checks "
					  "waiting, retry\n", NULL);
	s->forbidden = prom_text_response("403 forbidden: a client certificate signed by the "
				     "configured CA is required\n", NULL);
	if (!s->cur || !s->landing || !s->not_found || !s->bad_method || !s->unauthorized ||
	    !s->auth_busy || !s->forbidden ||
	    MHD_add_response_header(s->auth_busy, MHD_HTTP_HEADER_RETRY_AFTER, "1") != MHD_YES) {
		errbuf_set(err, errlen, "--web.listen-address: out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	MHD_add_response_header(s->bad_method, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	/*
	 * The challenge is part of the one shared 401 response, added once
	 * here: MHD_queue_basic_auth_fail_response() would add another
	 * header to that response at every rejected request.
	 */
	if (MHD_add_response_header(s->unauthorized, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				    "Basic realm=\"vmapscope\", charset=\"UTF-8\"") != MHD_YES) {
		errbuf_set(err, errlen, "--web.listen-address: out of memory");
		rc = -ENOMEM;
		goto fail;
	}

	rc = prom_listen_open(&opts->listen, &s->port, s->host, sizeof(s->host), err, errlen);
	if (rc < 0)
		goto fail;
	s->listen_fd = rc;
	if (opts->tls_cert_pem) {
		flags |= MHD_USE_TLS;
		s->tls = true;
		s->verify_client = opts->tls_client_ca_pem != NULL;
	}
	/*
	 * libmicrohttpd without threads of its own: server_thread() runs
	 * its loop (epoll) with ours.  Our limits are enforced before a
	 * connection reaches it, so its own only guard against a bug.
	 */
	{
		struct MHD_OptionItem o[16];
		int k = 0;

#define OPT(opt, v, p) (o[k++] = (struct MHD_OptionItem){ (opt), (intptr_t)(v), (p) })
		OPT(MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, NULL);
		OPT(MHD_OPTION_CONNECTION_LIMIT, 4 * s->max_conns + 16, NULL);
		OPT(MHD_OPTION_NOTIFY_CONNECTION, notify_connection, s);
		OPT(MHD_OPTION_NOTIFY_COMPLETED, request_completed, s);
		OPT(MHD_OPTION_EXTERNAL_LOGGER, quiet_logger, NULL);
		if (s->tls) {
			OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)opts->tls_cert_pem);
			OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)opts->tls_key_pem);
			if (opts->tls_client_ca_pem)
				OPT(MHD_OPTION_HTTPS_MEM_TRUST, 0,
				    (void *)opts->tls_client_ca_pem);
			if (opts->tls_priorities)
				OPT(MHD_OPTION_HTTPS_PRIORITIES, 0,
				    (void *)opts->tls_priorities);
		}
		OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
		s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, prom_handle, s,
					     MHD_OPTION_ARRAY, o, MHD_OPTION_END);
	}
	if (!s->daemon) {
		errbuf_set(err, errlen, s->tls ?
			   "--web.listen-address %s: cannot start the HTTPS server (certificate, key or TLS settings refused by GnuTLS)" :
			   "--web.listen-address %s: cannot start the HTTP server",
			   opts->listen.text);
		rc = -EIO;
		goto fail;
	}
	di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	s->mhd_epfd = di ? di->epoll_fd : -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->resume_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->mhd_epfd < 0 || s->epfd < 0 || s->wake_fd < 0 || s->resume_fd < 0 ||
	    epoll_add(s->epfd, s->listen_fd, &s->listen_fd) ||
	    epoll_add(s->epfd, s->wake_fd, &s->wake_fd) ||
	    epoll_add(s->epfd, s->resume_fd, &s->resume_fd) ||
	    epoll_add(s->epfd, s->mhd_epfd, &s->mhd_epfd)) {
		rc = -errno;
		errbuf_set(err, errlen, "--web.listen-address %s: epoll: %s", opts->listen.text,
			   strerror(errno));
		goto fail;
	}
	s->listen_armed = true;
	if (s->authorize) {
		rc = prom_auth_start(s);
		if (rc) {
			errbuf_set(err, errlen, "--web.listen-address %s: cannot start a thread: %s",
				   opts->listen.text, strerror(rc));
			rc = -rc;
			goto fail;
		}
	}
	rc = pthread_create(&s->thread, NULL, server_thread, s);
	if (rc) {
		errbuf_set(err, errlen, "--web.listen-address %s: cannot start a thread: %s",
			   opts->listen.text, strerror(rc));
		rc = -rc;
		goto fail;
	}
	s->thread_started = true;
	*out = s;
	return 0;
fail:
	server_free(s);
	return rc;
}

int prom_server_publish(struct prom_server *s, const char *text, size_t len)
{
	return prom_server_publish_with_protobuf(s, text, len, NULL, 0);
}

int prom_server_publish_with_protobuf(struct prom_server *s, const char *text, size_t len,
				      const void *pb, size_t pb_len)
{
	struct expo *e = expo_new(text, len, pb, pb_len), *old;

	if (!e)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	old = s->cur;
	s->cur = e;
	s->stats.publishes++;
	/* Responses still sending @old hold their own references. */
	prom_expo_put(old);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

uint16_t prom_server_port(const struct prom_server *s)
{
	return s->port;
}

const char *prom_server_host(const struct prom_server *s)
{
	return s->host;
}

void prom_server_stats(struct prom_server *s, struct prom_server_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	pthread_mutex_unlock(&s->lock);
}

void prom_server_stop(struct prom_server *s)
{
	uint64_t one = 1;

	if (!s)
		return;
	if (s->thread_started) {
		if (write(s->wake_fd, &one, sizeof(one)) != sizeof(one)) {
			/* an eventfd write cannot fail short of overflow */
		}
		pthread_join(s->thread, NULL);
	}
	server_free(s);
}
