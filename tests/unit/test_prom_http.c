// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics server over real loopback sockets: status codes, content
 * type, publishing, HEAD, concurrent scrapes, clients that vanish
 * mid-response, half-open and stalled clients, "--listen" parsing.
 * Every connection goes to 127.0.0.1 only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "prom_http.h"
#ifdef VMAPSCOPE_TLS
#include "tls_certs.h"
#endif

static struct prom_server *srv;
static uint16_t port;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start srv with @o on a free port of 127.0.0.1. */
static int start_opts(struct prom_server_opts *o)
{
	char err[256];

	assert_int_equal(prom_listen_parse("127.0.0.1:0", &o->listen, err, sizeof(err)), 0);
	if (prom_server_start(o, &srv, err, sizeof(err)))
		fail_msg("server: %s", err);
	port = prom_server_port(srv);
	assert_int_not_equal(port, 0);
	return 0;
}

static int start_per_ip(unsigned int timeout_s, unsigned int max_conn,
			unsigned int per_ip)
{
	struct prom_server_opts o = { .timeout_s = timeout_s,
				      .max_connections = max_conn,
				      .max_per_ip = per_ip };

	return start_opts(&o);
}

static int start(unsigned int timeout_s, unsigned int max_conn)
{
	return start_per_ip(timeout_s, max_conn, 0);
}

static int setup(void **state)
{
	(void)state;
	return start(2, 0);
}

static int teardown(void **state)
{
	(void)state;
	prom_server_stop(srv);
	srv = NULL;
	return 0;
}

static int connect_lo(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		assert_true(w > 0);
		s += w;
		n -= (size_t)w;
	}
}

/* Read until EOF (the server closes: HTTP/1.0 style requests). */
static char *recv_all(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		r = recv(fd, buf + n, cap - n - 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* One request; returns the whole response (headers and body). */
static char *request(const char *method, const char *path, size_t *len)
{
	char req[512];
	char *resp;
	int fd = connect_lo();

	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Connection: close\r\n\r\n", method, path);
	send_all(fd, req);
	resp = recv_all(fd, len);
	close(fd);
	return resp;
}

static int status_of(const char *resp)
{
	int code = 0;

	sscanf(resp, "HTTP/1.%*d %d", &code);
	return code;
}

static const char *body_of(const char *resp)
{
	const char *p = strstr(resp, "\r\n\r\n");

	return p ? p + 4 : NULL;
}

static void test_get_metrics(void **state)
{
	static const char text[] = "# TYPE a_total counter\na_total 1\n";
	char *r;

	(void)state;
	/* before anything is published: 200 with an empty exposition */
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), "");
	free(r);

	assert_int_equal(prom_server_publish(srv, text, strlen(text)), 0);
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	assert_string_equal(body_of(r), text);
	free(r);

	/* a query string is still /metrics */
	r = request("GET", "/metrics?x=1", NULL);
	assert_int_equal(status_of(r), 200);
	free(r);

	assert_int_equal(prom_server_publish(srv, "b 2\n", 4), 0);
	r = request("GET", "/metrics", NULL);
	assert_string_equal(body_of(r), "b 2\n");
	free(r);
}

/* One request with an Accept header; returns the whole response. */
static char *request_accept(const char *method, const char *accept, size_t *len)
{
	char req[1024];
	char *resp;
	int fd = connect_lo();

	snprintf(req, sizeof(req), "%s /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Accept: %s\r\nConnection: close\r\n\r\n", method, accept);
	send_all(fd, req);
	resp = recv_all(fd, len);
	close(fd);
	return resp;
}

/*
 * With a protobuf exposition published, a scrape that prefers it gets it
 * (Content-Type, the bytes as published, Vary: Accept), every other one
 * the text; without one, every scrape gets the text.
 */
static void test_protobuf_negotiation(void **state)
{
	static const char text[] = "a_total 1\n";
	static const char pb[] = { 0x05, 0x0a, 0x00, 0x01, (char)0xff, 0x00 };	/* any bytes */
	static const char accept_pb[] =
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		"encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";
	size_t len;
	char *r;
	const char *body;

	assert_int_equal(prom_server_publish(srv, text, strlen(text)), 0);
	r = request_accept("GET", accept_pb, NULL);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4"));
	free(r);

	assert_int_equal(prom_server_publish_with_protobuf(srv, text, strlen(text), pb, sizeof(pb)), 0);
	r = request_accept("GET", accept_pb, &len);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Type: application/vnd.google.protobuf; "
			       "proto=io.prometheus.client.MetricFamily; encoding=delimited\r\n"));
	assert_non_null(strstr(r, "Vary: Accept\r\n"));
	body = body_of(r);
	assert_int_equal(len - (size_t)(body - r), sizeof(pb));
	assert_memory_equal(body, pb, sizeof(pb));
	free(r);

	r = request_accept("HEAD", accept_pb, NULL);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Type: application/vnd.google.protobuf"));
	assert_string_equal(body_of(r), "");
	free(r);

	/* curl's default, OpenMetrics only, malformed */
	r = request_accept("GET", "*/*", NULL);
	assert_string_equal(body_of(r), text);
	free(r);
	r = request_accept("GET", "application/openmetrics-text;version=1.0.0", NULL);
	assert_string_equal(body_of(r), text);
	free(r);
	r = request_accept("GET", "application/vnd.google.protobuf;q=oops;;=", NULL);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), text);
	free(r);
}

/* Read one response with a Content-Length body from a kept-alive socket. */
static int read_one_response(int fd, char *buf, size_t cap, const char **body)
{
	size_t n = 0, want = 0;
	char *hdr_end = NULL;
	long clen = -1;

	while (!hdr_end || n < want) {
		ssize_t r = recv(fd, buf + n, cap - n - 1, 0);

		if (r <= 0)
			return -1;
		n += (size_t)r;
		buf[n] = '\0';
		if (!hdr_end && (hdr_end = strstr(buf, "\r\n\r\n"))) {
			const char *cl = strstr(buf, "Content-Length: ");

			if (!cl || cl > hdr_end)
				return -1;
			clen = strtol(cl + 16, NULL, 10);
			want = (size_t)(hdr_end + 4 - buf) + (size_t)clen;
		}
	}
	*body = hdr_end + 4;
	return status_of(buf);
}

/* Scrapes keep the connection alive (Prometheus reuses it). */
static void test_keep_alive(void **state)
{
	static char buf[8192];
	const char *body;
	int fd, i;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "k 1\n", 4), 0);
	fd = connect_lo();
	for (i = 0; i < 3; i++) {
		send_all(fd, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
		assert_int_equal(read_one_response(fd, buf, sizeof(buf), &body), 200);
		assert_null(strstr(buf, "Connection: close"));
		assert_string_equal(body, "k 1\n");
	}
	close(fd);
}

static void test_head(void **state)
{
	char *r;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "a 1\n", 4), 0);
	r = request("HEAD", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Length: 4\r\n"));
	assert_string_equal(body_of(r), "");
	free(r);
}

static void test_404_and_405(void **state)
{
	static const char *const paths[] = { "/index.html", "/metric", "/metrics/", "/x/metrics",
					     "/favicon.ico" };
	static const char *const methods[] = { "POST", "PUT", "DELETE", "OPTIONS", "PATCH" };
	struct prom_server_stats st;
	unsigned int i;
	char *r;

	(void)state;
	for (i = 0; i < 5; i++) {
		r = request("GET", paths[i], NULL);
		assert_int_equal(status_of(r), 404);
		free(r);
	}
	for (i = 0; i < 5; i++) {
		r = request(methods[i], "/metrics", NULL);
		assert_int_equal(status_of(r), 405);
		assert_non_null(strstr(r, "Allow: GET, HEAD\r\n"));
		free(r);
	}
	prom_server_stats(srv, &st);
	assert_int_equal(st.not_found, 5);
	assert_int_equal(st.bad_method, 5);
	assert_int_equal(st.ok, 0);
}

static void test_post_with_body_is_405(void **state)
{
	char *r;
	int fd;

	(void)state;
	fd = connect_lo();
	send_all(fd, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n"
		 "Content-Type: text/plain\r\n\r\nhello world");
	r = recv_all(fd, NULL);
	close(fd);
	assert_int_equal(status_of(r), 405);
	free(r);
}

#define SCRAPERS	16
#define SCRAPES		25

static char big[256 * 1024];

static void *scraper(void *arg)
{
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < SCRAPES; i++) {
		size_t len;
		char *r = request("GET", "/metrics", &len);
		const char *body = body_of(r);

		/* every response is one complete published text */
		if (status_of(r) == 200 && body &&
		    strlen(body) == sizeof(big) - 1 &&
		    body[0] == body[sizeof(big) - 3] && body[sizeof(big) - 2] == '\n')
			ok++;
		free(r);
	}
	return (void *)ok;
}

/* Many concurrent scrapes while the text is being replaced. */
static void test_concurrent_scrapes(void **state)
{
	pthread_t th[SCRAPERS];
	struct prom_server_stats st;
	long total = 0;
	int i;

	(void)state;
	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	assert_int_equal(prom_server_publish(srv, big, sizeof(big) - 1), 0);
	for (i = 0; i < SCRAPERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, scraper, NULL), 0);
	for (i = 0; i < 20; i++) {
		/* republish with another fill: a body must never mix the two */
		memset(big, i % 2 ? 'a' : 'b', sizeof(big) - 2);
		assert_int_equal(prom_server_publish(srv, big, sizeof(big) - 1), 0);
		usleep(5000);
	}
	for (i = 0; i < SCRAPERS; i++) {
		void *ok;

		pthread_join(th[i], &ok);
		total += (long)ok;
	}
	assert_int_equal(total, SCRAPERS * SCRAPES);
	prom_server_stats(srv, &st);
	assert_int_equal(st.ok, SCRAPERS * SCRAPES);
	assert_int_equal(st.failed, 0);
}

/*
 * Clients that read a little of a big response and vanish (plain close,
 * and reset with SO_LINGER 0): the server and later scrapes are fine,
 * and the process gets no SIGPIPE (it would die of it).
 */
static void test_client_disconnect_mid_response(void **state)
{
	static char huge[8 << 20];
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char tmp[1024];
	size_t len;
	char *r;
	int i;

	(void)state;
	memset(huge, 'z', sizeof(huge) - 1);
	huge[sizeof(huge) - 2] = '\n';
	assert_int_equal(prom_server_publish(srv, huge, sizeof(huge) - 1), 0);
	for (i = 0; i < 20; i++) {
		int fd = connect_lo();

		send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
		assert_true(recv(fd, tmp, sizeof(tmp), MSG_WAITALL) > 0);
		if (i % 2)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	/* and one that sends a request and closes before reading anything */
	for (i = 0; i < 5; i++) {
		int fd = connect_lo();

		send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	r = request("GET", "/metrics", &len);
	assert_int_equal(status_of(r), 200);
	assert_int_equal(strlen(body_of(r)), sizeof(huge) - 1);
	free(r);
}

/* Wait until the server closes fd (EOF or reset); seconds waited or -1. */
static double wait_closed(int fd, double limit_s)
{
	double t0 = now_s();
	char c[4096];

	while (now_s() - t0 < limit_s) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) > 0) {
			ssize_t r = recv(fd, c, sizeof(c), MSG_DONTWAIT);

			if (r == 0 || (r < 0 && errno != EAGAIN))
				return now_s() - t0;
		}
	}
	return -1;
}

/*
 * Half-open (connected, says nothing) and stalled (half a request line)
 * clients are closed after the timeout (2 s here); meanwhile other
 * scrapes are served at once.
 */
static void test_idle_clients_time_out(void **state)
{
	int idle[4], i;
	double t0, waited;
	char *r;

	(void)state;
	for (i = 0; i < 4; i++) {
		idle[i] = connect_lo();
		if (i % 2)
			send_all(idle[i], "GET /metr");
	}
	t0 = now_s();
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	free(r);
	assert_true(now_s() - t0 < 1.0);
	for (i = 0; i < 4; i++) {
		waited = wait_closed(idle[i], 6.0);
		assert_true(waited >= 0);
		close(idle[i]);
	}
	/* closed around the 2 s timeout, not at once and not never */
	waited = now_s() - t0;
	assert_true(waited > 1.0 && waited < 6.0);
}

/*
 * A client that requests a big text and never reads: the server cannot
 * finish sending, and it drops the connection after the timeout rather
 * than hold it forever.  Other scrapes are not blocked meanwhile.
 */
static void test_stalled_reader_times_out(void **state)
{
	static char huge[8 << 20];
	int fd, rcv = 4096;
	double waited;
	char *r;

	(void)state;
	memset(huge, 'q', sizeof(huge) - 1);
	assert_int_equal(prom_server_publish(srv, huge, sizeof(huge) - 1), 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	}
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	sleep(1);
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	free(r);
	/* now drain: the stream must end well short of 8 MiB (dropped) */
	sleep(4);
	{
		size_t len;
		char *rest = recv_all(fd, &len);

		assert_true(len < sizeof(huge) - 1);
		free(rest);
	}
	waited = wait_closed(fd, 1.0);
	(void)waited;
	close(fd);
}

/* A connection from src (NULL: 127.0.0.1) with a small receive buffer. */
static int connect_from(const char *src, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (src) {
		assert_int_equal(inet_pton(AF_INET, src, &me.sin_addr), 1);
		assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Scrape from a given loopback source address; returns the status or 0. */
static int scrape_from(const char *src)
{
	int fd = connect_from(src, 0);
	char *r;
	int code;

	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	r = recv_all(fd, NULL);
	close(fd);
	code = status_of(r);
	free(r);
	return code;
}

/*
 * Clients that requested an 8 MiB exposition and do not read it (more
 * than the socket buffers hold): their requests are being answered, so
 * they hold their connections (until the idle timeout).
 */
static void open_stalled_readers(int *fds, int n, const char *src)
{
	static char big[8 << 20];
	int i;

	memset(big, 'q', sizeof(big) - 1);
	assert_int_equal(prom_server_publish(srv, big, sizeof(big) - 1), 0);
	for (i = 0; i < n; i++) {
		fds[i] = connect_from(src, 4096);
		send_all(fds[i], "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	}
	usleep(300000);
}

static bool served_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/*
 * max_connections idle clients do not lock a scraper out: the one that
 * has waited longest for its request is closed to make room.
 */
static void test_connection_limit_evicts_idle(void **state)
{
	struct prom_server_stats st;
	int idle[4], i, closed = 0;
	char *r;

	(void)state;
	prom_server_stop(srv);
	start(10, 4);
	for (i = 0; i < 4; i++) {
		idle[i] = connect_lo();
		usleep(20000);
	}
	usleep(200000);
	assert_int_equal(scrape_from(NULL), 200);
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	free(r);
	for (i = 0; i < 4; i++)
		if (wait_closed(idle[i], 0.5) >= 0)
			closed++;
	/* the oldest made room (one, or two if the scrapes overlapped) */
	assert_true(closed >= 1);
	assert_true(wait_closed(idle[0], 0.1) >= 0);
	prom_server_stats(srv, &st);
	assert_true(st.evicted >= 1);
	for (i = 0; i < 4; i++)
		close(idle[i]);
}

/*
 * With max_connections clients being answered (they do not read), a
 * further one waits in the listen backlog and is served as soon as a
 * slot frees up.
 */
static void test_connection_limit_recovers(void **state)
{
	int busy[4], i, fd;
	char *r;

	(void)state;
	prom_server_stop(srv);
	start(10, 4);
	open_stalled_readers(busy, 4, NULL);
	fd = connect_lo();
	send_all(fd, "GET /metrics HTTP/1.0\r\n\r\n");
	assert_false(served_within(fd, 1000));	/* not served: limit holds */
	for (i = 0; i < 4; i++)
		close(busy[i]);
	r = recv_all(fd, NULL);			/* served now, long before 10 s */
	close(fd);
	assert_int_equal(status_of(r), 200);
	free(r);
}

/*
 * One client address cannot take every connection: with its limit of
 * connections being answered from 127.0.0.1 (4 here, for the test's
 * memory; PROM_PER_IP_CONNECTIONS by default), another one from it is
 * refused, while 127.0.0.2 (another host, as far as the server knows) is
 * still served; idle connections from 127.0.0.1 at the limit make room
 * for a scrape from it.
 */
static void test_per_address_limit(void **state)
{
	int fds[PROM_PER_IP_CONNECTIONS], i;

	(void)state;
	prom_server_stop(srv);
	start_per_ip(10, 0, 4);
	open_stalled_readers(fds, 4, NULL);
	assert_int_equal(scrape_from("127.0.0.1"), 0);	/* closed unanswered */
	assert_int_equal(scrape_from("127.0.0.2"), 200);
	for (i = 0; i < 4; i++)
		close(fds[i]);
	usleep(300000);
	assert_int_equal(prom_server_publish(srv, "x 1\n", 4), 0);

	/* the default limit, held by idle connections */
	prom_server_stop(srv);
	start(10, 0);
	for (i = 0; i < PROM_PER_IP_CONNECTIONS; i++)
		fds[i] = connect_lo();
	usleep(300000);
	assert_int_equal(scrape_from("127.0.0.1"), 200);
	assert_int_equal(scrape_from("127.0.0.2"), 200);
	for (i = 0; i < PROM_PER_IP_CONNECTIONS; i++)
		close(fds[i]);
}

/*
 * A waiting connection evicted to make room while its own bytes are in
 * the same round of events as the newcomer's: the server must not look at
 * the record it dropped (under the sanitizer build, a use after free).
 * Bursts of newcomers from one host at its limit, each burst also sending
 * a byte on every connection it is about to displace, make such rounds
 * common; the server must then still answer a scrape.
 */
static void test_evicted_while_its_bytes_wait(void **state)
{
	int held[4], burst[4], round, i;
	struct prom_server_stats st;

	(void)state;
	prom_server_stop(srv);
	start_per_ip(10, 0, 4);
	for (i = 0; i < 4; i++)
		held[i] = connect_lo();
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 4; i++) {
			burst[i] = connect_lo();
			if (send(held[i], "G", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				/* evicted already: the server closed it */
			}
		}
		for (i = 0; i < 4; i++) {
			close(held[i]);
			held[i] = burst[i];
		}
	}
	for (i = 0; i < 4; i++)
		close(held[i]);
	usleep(200000);
	assert_int_equal(scrape_from("127.0.0.1"), 200);
	prom_server_stats(srv, &st);
	assert_true(st.evicted >= 200);
}

#define TRICKLERS	64

struct trickle {
	int fd[TRICKLERS];
	double closed_at[TRICKLERS];	/* when the server closed it, or 0 */
	double stop_at;
};

/* Send one byte of a request per 200 ms to every trickler, until stop_at. */
static void *trickle_thread(void *arg)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	struct trickle *t = arg;
	size_t k = 0;
	int i;

	while (now_s() < t->stop_at) {
		for (i = 0; i < TRICKLERS; i++) {
			if (t->closed_at[i])
				continue;
			if (send(t->fd[i], req + k % (sizeof(req) - 1), 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ||
			    (served_within(t->fd[i], 0) &&
			     recv(t->fd[i], (char[64]){ 0 }, 64, MSG_DONTWAIT) <= 0))
				t->closed_at[i] = now_s();
		}
		k++;
		usleep(200000);
	}
	return NULL;
}

/*
 * 64 connections from 127.0.0.1 trickling a request header a byte at a
 * time fill both limits; a scrape from 127.0.0.1 is still answered within
 * a second, and the tricklers are closed at their header deadline (2 s
 * here) although they never stop sending.
 */
static void test_tricklers_do_not_lock_out(void **state)
{
	struct trickle t = { .stop_at = now_s() + 6.0 };
	double t0;
	pthread_t th;
	int i, open_after;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "x 1\n", 4), 0);
	for (i = 0; i < TRICKLERS; i++)
		t.fd[i] = connect_lo();
	assert_int_equal(pthread_create(&th, NULL, trickle_thread, &t), 0);
	usleep(500000);
	t0 = now_s();
	assert_int_equal(scrape_from("127.0.0.1"), 200);
	assert_true(now_s() - t0 < 1.0);
	pthread_join(th, NULL);
	/* they were still trickling at 6 s: none may be open */
	for (i = 0, open_after = 0; i < TRICKLERS; i++) {
		if (!t.closed_at[i] && wait_closed(t.fd[i], 0.1) < 0)
			open_after++;
		close(t.fd[i]);
	}
	assert_int_equal(open_after, 0);
}

/*
 * A request line sent at once, then the header trickled (the connection
 * is libmicrohttpd's by then), and a kept-alive connection trickling its
 * second request: both closed at their deadlines (2 s header deadline,
 * 2 s --listen-timeout here) although they never stop sending.
 */
static void test_trickled_header_and_second_request(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	int a, b, i;
	double t0, closed_a = 0, closed_b = 0;
	char buf[4096];

	(void)state;
	a = connect_lo();
	send_all(a, "GET /metrics HTTP/1.1\r\n");
	b = connect_lo();
	send_all(b, req);
	/* b's answer: an empty exposition, kept alive */
	usleep(200000);
	assert_true(recv(b, buf, sizeof(buf), MSG_DONTWAIT) > 0);
	t0 = now_s();
	for (i = 0; i < 40 && (!closed_a || !closed_b); i++) {
		if (!closed_a && (send(a, "X", 1, MSG_NOSIGNAL) < 0 ||
				  (served_within(a, 0) && recv(a, buf, sizeof(buf), MSG_DONTWAIT) <= 0)))
			closed_a = now_s() - t0;
		if (!closed_b && (send(b, "G", 1, MSG_NOSIGNAL) < 0 ||
				  (served_within(b, 0) && recv(b, buf, sizeof(buf), MSG_DONTWAIT) <= 0)))
			closed_b = now_s() - t0;
		usleep(150000);
	}
	close(a);
	close(b);
	if (!closed_a || !closed_b)
		fail_msg("still open after 6 s of trickling: header %d, second request %d",
			 !closed_a, !closed_b);
	assert_true(closed_a > 1.0 && closed_a < 4.0);
	assert_true(closed_b > 1.0 && closed_b < 4.0);
}

/* A first line that is no request line: 400 at once, not a silent close. */
static void test_garbage_gets_400(void **state)
{
	static const char *const garbage[] = {
		"GARBAGE\r\n\r\n", "GET\r\n\r\n", "\x16\x03\x01\x02\xfc\x03\x03",
		"\x01\x02\x03 x y\r\n", "GET /metrics HTTP/1.1\x01\r\n\r\n",
	};
	struct prom_server_stats st;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		int fd = connect_lo();
		double t0 = now_s();
		char *r;

		send_all(fd, garbage[i]);
		r = recv_all(fd, NULL);
		close(fd);
		if (status_of(r) != 400 || !strstr(r, "not an HTTP request line"))
			fail_msg("request %zu: got '%.80s'", i, r);
		assert_true(now_s() - t0 < 0.5);
		free(r);
	}
	prom_server_stats(srv, &st);
	assert_int_equal(st.bad_request, sizeof(garbage) / sizeof(garbage[0]));
	/* and a real request after the garbage is still fine */
	assert_int_equal(scrape_from(NULL), 200);
}

/*
 * A client that sends half a request line and then shuts down its side
 * will never finish it: the server lets go of it at once, not after the
 * request deadline.
 */
static void test_half_request_then_hangup(void **state)
{
	double waited;
	int fd;

	(void)state;
	fd = connect_lo();
	send_all(fd, "GET /metrics HTTP/1.1");
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	waited = wait_closed(fd, 6.0);
	close(fd);
	assert_true(waited >= 0 && waited < 1.0);
	assert_int_equal(scrape_from(NULL), 200);
}

/* Basic auth with one user: "prom" / "right" (plain compare: the server's part only). */
static int check_pass(void *arg, const char *user, const char *pass)
{
	(void)arg;
	return !strcmp(user, "prom") && !strcmp(pass, "right");
}

static int setup_auth(void **state)
{
	struct prom_server_opts o = { .timeout_s = 2, .authorize = check_pass };

	(void)state;
	return start_opts(&o);
}

/* How often @name starts a header line of @resp (case-insensitive). */
static int header_count(const char *resp, const char *name)
{
	const char *end = strstr(resp, "\r\n\r\n"), *p = resp;
	size_t n = strlen(name);
	int count = 0;

	while ((p = strstr(p, "\r\n")) && (!end || p < end)) {
		p += 2;
		if (!strncasecmp(p, name, n) && p[n] == ':')
			count++;
	}
	return count;
}

/*
 * Every rejected request gets a 401 of its own with one WWW-Authenticate
 * header, however many came before it: the 401 response is shared by
 * every connection, and must not collect a header per rejection.
 */
static void test_401_stays_one_response(void **state)
{
	/* "prom:wrong", and "prom:right" */
	static const char *const auth[] = { NULL, "Authorization: Basic cHJvbTp3cm9uZw==\r\n" };
	struct prom_server_stats st;
	char req[256], *r;
	int i, fd;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "a 1\n", 4), 0);
	for (i = 0; i < 2000; i++) {
		fd = connect_lo();
		snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n",
			 auth[i % 2] ? auth[i % 2] : "");
		send_all(fd, req);
		r = recv_all(fd, NULL);
		close(fd);
		if (status_of(r) != 401 || header_count(r, "WWW-Authenticate") != 1 ||
		    !strstr(r, "WWW-Authenticate: Basic realm=\"vmapscope\""))
			fail_msg("request %d: %d with %d WWW-Authenticate headers: '%.120s'", i,
				 status_of(r), header_count(r, "WWW-Authenticate"), r);
		free(r);
	}
	fd = connect_lo();
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
		 "Authorization: Basic cHJvbTpyaWdodA==\r\n\r\n");
	r = recv_all(fd, NULL);
	close(fd);
	assert_int_equal(status_of(r), 200);
	assert_int_equal(header_count(r, "WWW-Authenticate"), 0);
	assert_string_equal(body_of(r), "a 1\n");
	free(r);
	prom_server_stats(srv, &st);
	assert_int_equal(st.unauthorized, 2000);
}

/*
 * A slow password check (as bcrypt is) runs in the server's checking
 * thread, one at a time, for at most PROM_AUTH_MAX_PENDING requests:
 * 20 clients with wrong passwords at once get 401 (checked) or 503 with
 * Retry-After (beyond the bound, at once), and a scraper whose password
 * is remembered is answered meanwhile without waiting for any check.
 */
static int checks_now, checks_max;

static int slow_check(void *arg, const char *user, const char *pass)
{
	int n = __atomic_add_fetch(&checks_now, 1, __ATOMIC_SEQ_CST);

	(void)arg;
	if (n > __atomic_load_n(&checks_max, __ATOMIC_SEQ_CST))
		__atomic_store_n(&checks_max, n, __ATOMIC_SEQ_CST);
	usleep(100 * 1000);
	__atomic_sub_fetch(&checks_now, 1, __ATOMIC_SEQ_CST);
	return !strcmp(user, "prom") && !strcmp(pass, "right");
}

static int remembered(void *arg, const char *user, const char *pass)
{
	(void)arg;
	return !strcmp(user, "prom") && !strcmp(pass, "right") ? 1 : -1;
}

static int setup_slow_auth(void **state)
{
	struct prom_server_opts o = { .timeout_s = 5, .authorize = slow_check,
				      .auth_cached = remembered };

	(void)state;
	return start_opts(&o);
}

struct wrong_client {
	pthread_t t;
	int n, status, retry_after;
	double took;
};

static void *wrong_client(void *arg)
{
	struct wrong_client *w = arg;
	char req[256], tok[64], *r;
	double t0 = now_s();
	int fd = connect_lo();
	size_t i, k;
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char plain[32];
	unsigned char *p = (unsigned char *)plain;
	size_t n = (size_t)snprintf(plain, sizeof(plain), "prom:wrong%02d", w->n);

	for (i = 0, k = 0; i < n; i += 3) {
		unsigned int v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
				 (i + 2 < n ? p[i + 2] : 0);

		tok[k++] = b64[v >> 18 & 63];
		tok[k++] = b64[v >> 12 & 63];
		tok[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		tok[k++] = i + 2 < n ? b64[v & 63] : '=';
	}
	tok[k] = 0;
	snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Authorization: Basic %s\r\n\r\n", tok);
	send_all(fd, req);
	r = recv_all(fd, NULL);
	close(fd);
	w->status = status_of(r);
	w->retry_after = header_count(r, "Retry-After");
	w->took = now_s() - t0;
	free(r);
	return NULL;
}

static void test_slow_checks_are_bounded(void **state)
{
	struct wrong_client w[20];
	struct prom_server_stats st;
	int i, n401 = 0, n503 = 0, fd;
	double t0, took;
	char *r;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "a 1\n", 4), 0);
	for (i = 0; i < 20; i++) {
		w[i].n = i;
		assert_int_equal(pthread_create(&w[i].t, NULL, wrong_client, &w[i]), 0);
	}
	usleep(50 * 1000);
	t0 = now_s();
	fd = connect_lo();
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
		 "Authorization: Basic cHJvbTpyaWdodA==\r\n\r\n");
	r = recv_all(fd, NULL);
	close(fd);
	took = now_s() - t0;
	assert_int_equal(status_of(r), 200);
	free(r);
	/* behind 8 checks of 100 ms each it would have taken 0.8 s */
	if (took > 0.3)
		fail_msg("a remembered password waited %.3f s", took);
	for (i = 0; i < 20; i++) {
		pthread_join(w[i].t, NULL);
		if (w[i].status == 401) {
			n401++;
		} else if (w[i].status == 503) {
			n503++;
			assert_int_equal(w[i].retry_after, 1);
			assert_true(w[i].took < 0.3);
		} else {
			fail_msg("client %d: status %d", i, w[i].status);
		}
	}
	assert_true(n401 >= 1 && n401 <= 20 - 1);
	assert_true(n503 >= 20 - 2 * PROM_AUTH_MAX_PENDING);
	assert_int_equal(checks_max, 1);
	prom_server_stats(srv, &st);
	assert_int_equal(st.unauthorized, (uint64_t)n401);
	assert_int_equal(st.auth_busy, (uint64_t)n503);
	assert_int_equal(st.auth_checks, (uint64_t)n401);
}

/* Stopping the server while checks are pending resumes and closes them. */
static void test_stop_with_checks_pending(void **state)
{
	struct wrong_client w[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		w[i].n = i;
		assert_int_equal(pthread_create(&w[i].t, NULL, wrong_client, &w[i]), 0);
	}
	usleep(150 * 1000);
	prom_server_stop(srv);
	srv = NULL;
	for (i = 0; i < 4; i++) {
		pthread_join(w[i].t, NULL);
		assert_true(w[i].status == 401 || w[i].status == 0);
	}
}

/* GET / is a landing page linking to the telemetry path, as exporters serve. */
static void test_landing_page(void **state)
{
	struct prom_server_stats st;
	char *r;

	(void)state;
	r = request("GET", "/", NULL);
	assert_int_equal(status_of(r), 200);
	assert_non_null(strstr(r, "Content-Type: text/html; charset=utf-8\r\n"));
	assert_non_null(strstr(body_of(r), "<a href=\"/metrics\">Metrics</a>"));
	free(r);
	r = request("HEAD", "/", NULL);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), "");
	free(r);
	r = request("POST", "/", NULL);
	assert_int_equal(status_of(r), 405);
	free(r);
	prom_server_stats(srv, &st);
	assert_int_equal(st.landing, 2);
	assert_int_equal(st.ok, 0);
}

/*
 * --web.telemetry-path: scrapes go to the path given, /metrics is then
 * just another path (404), the landing page links to it, and the
 * server's own metrics follow the exposition.
 */
static int setup_path(void **state)
{
	struct prom_server_opts o = { .timeout_s = 2, .metrics_path = "/vmapscope/metrics",
				      .self_metrics = true };

	(void)state;
	return start_opts(&o);
}

static void test_telemetry_path_and_self_metrics(void **state)
{
	static const char text[] = "# TYPE a_total counter\na_total 1\n";
	const char *b;
	char *r;
	int i;

	(void)state;
	assert_int_equal(prom_server_publish(srv, text, strlen(text)), 0);
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 404);
	assert_non_null(strstr(body_of(r), "vmapscope serves /vmapscope/metrics"));
	free(r);
	r = request("GET", "/", NULL);
	assert_non_null(strstr(body_of(r), "<a href=\"/vmapscope/metrics\">"));
	free(r);
	for (i = 0; i < 3; i++) {
		r = request("GET", "/vmapscope/metrics", NULL);
		assert_int_equal(status_of(r), 200);
		b = body_of(r);
		/* the exposition first, as published, then the server's own */
		assert_memory_equal(b, text, strlen(text));
		assert_non_null(strstr(b, "\n# TYPE process_cpu_seconds_total counter\n"));
		assert_non_null(strstr(b, "\nprocess_resident_memory_bytes "));
		assert_non_null(strstr(b, "\nprocess_open_fds "));
		assert_non_null(strstr(b, "\nprocess_start_time_seconds "));
		if (i == 2) {
			/* the counts as of this scrape's start: two scrapes, one 404, two landing */
			assert_non_null(strstr(b, "\npromhttp_metric_handler_requests_total{code=\"200\"} 2\n"));
			assert_non_null(strstr(b, "\npromhttp_metric_handler_requests_total{code=\"503\"} 0\n"));
			assert_non_null(strstr(b, "\nvmapscope_http_requests_total{code=\"200\"} 3\n"));
			assert_non_null(strstr(b, "\nvmapscope_http_requests_total{code=\"404\"} 1\n"));
			assert_non_null(strstr(b, "\nvmapscope_scrape_duration_seconds_count 2\n"));
			assert_non_null(strstr(b, "\nvmapscope_scrape_duration_seconds_bucket{le=\"+Inf\"} 2\n"));
		}
		free(r);
	}
	/* HEAD: the length of what GET sends, no body */
	r = request("HEAD", "/vmapscope/metrics", NULL);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), "");
	free(r);
}

#ifdef VMAPSCOPE_TLS
/*
 * HTTPS (the build with VMAPSCOPE_TLS: the sanitizer build): a GnuTLS
 * client against the server with certificates made in memory; plain
 * HTTP to the TLS port gets a 400 at once; with a client CA, a request
 * needs a certificate it signed (403 otherwise).
 */
static struct test_cert srv_cert, ca_cert, client_cert, stranger_cert;

static int tls_start(bool verify_client)
{
	struct prom_server_opts o = { .timeout_s = 2 };
	time_t now = time(NULL);

	assert_int_equal(test_cert_make(&srv_cert, "127.0.0.1", now - 3600, now + 86400, NULL), 0);
	assert_int_equal(test_cert_make(&ca_cert, "test CA", now - 3600, now + 86400, NULL), 0);
	assert_int_equal(test_cert_make(&client_cert, "scraper", now - 3600, now + 86400,
					&ca_cert), 0);
	assert_int_equal(test_cert_make(&stranger_cert, "stranger", now - 3600, now + 86400,
					NULL), 0);
	o.tls_cert_pem = srv_cert.cert_pem;
	o.tls_key_pem = srv_cert.key_pem;
	o.tls_client_ca_pem = verify_client ? ca_cert.cert_pem : NULL;
	return start_opts(&o);
}

static int setup_tls(void **state)
{
	(void)state;
	return tls_start(false);
}

static int setup_mtls(void **state)
{
	(void)state;
	return tls_start(true);
}

static int teardown_tls(void **state)
{
	teardown(state);
	test_cert_free(&srv_cert);
	test_cert_free(&ca_cert);
	test_cert_free(&client_cert);
	test_cert_free(&stranger_cert);
	return 0;
}

/* One request over TLS; the whole answer in a malloc'ed string ("" when the handshake fails). */
static char *tls_request(const char *req, const struct test_cert *client)
{
	gnutls_certificate_credentials_t cred;
	gnutls_session_t ss;
	size_t cap = 1 << 16, n = 0;
	char *buf = calloc(1, cap);
	int fd = connect_lo(), rc;

	assert_non_null(buf);
	assert_int_equal(gnutls_certificate_allocate_credentials(&cred), 0);
	if (client) {
		gnutls_datum_t c = { (unsigned char *)client->cert_pem,
				     (unsigned int)strlen(client->cert_pem) };
		gnutls_datum_t k = { (unsigned char *)client->key_pem,
				     (unsigned int)strlen(client->key_pem) };

		assert_int_equal(gnutls_certificate_set_x509_key_mem(cred, &c, &k,
								     GNUTLS_X509_FMT_PEM), 0);
	}
	assert_int_equal(gnutls_init(&ss, GNUTLS_CLIENT), 0);
	assert_int_equal(gnutls_set_default_priority(ss), 0);
	assert_int_equal(gnutls_credentials_set(ss, GNUTLS_CRD_CERTIFICATE, cred), 0);
	gnutls_transport_set_int(ss, fd);
	gnutls_handshake_set_timeout(ss, 5000);
	do
		rc = gnutls_handshake(ss);
	while (rc < 0 && !gnutls_error_is_fatal(rc));
	if (!rc) {
		assert_true(gnutls_record_send(ss, req, strlen(req)) == (ssize_t)strlen(req));
		for (;;) {
			ssize_t r = gnutls_record_recv(ss, buf + n, cap - n - 1);

			if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
				continue;
			if (r <= 0)
				break;
			n += (size_t)r;
			assert_true(n + 1 < cap);
		}
	}
	buf[n] = 0;
	gnutls_deinit(ss);
	gnutls_certificate_free_credentials(cred);
	close(fd);
	return buf;
}

static void test_tls_scrape(void **state)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
	double t0;
	char *r;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "t 1\n", 4), 0);
	r = tls_request(get, NULL);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), "t 1\n");
	free(r);
	/* plain HTTP to the HTTPS port: a 400 that says so, at once */
	t0 = now_s();
	r = request("GET", "/metrics", NULL);
	assert_int_equal(status_of(r), 400);
	assert_non_null(strstr(body_of(r), "this is an HTTPS server"));
	assert_true(now_s() - t0 < 1.0);
	free(r);
	/* 22 and then no TLS record: dropped at once, not at the header deadline */
	{
		static const char *const junk[] = { "\x16GARBAGE\r\n\r\n", "\x16\x03\x09xx",
						    "\x16\x03\x01\xff\xffxx", "\x16\x03\x01\x01\x10\x02" };
		size_t i;

		for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
			int fd = connect_lo();

			t0 = now_s();
			send_all(fd, junk[i]);
			free(recv_all(fd, NULL));
			close(fd);
			if (now_s() - t0 > 0.5)
				fail_msg("junk %zu on the TLS port held %.2f s", i, now_s() - t0);
		}
	}
	/* a request line libmicrohttpd parses as malformed: a 400 over TLS too */
	r = tls_request("\x01\x02 x y\r\n\r\n", NULL);
	assert_int_equal(status_of(r), 400);
	free(r);
	r = tls_request(get, NULL);
	assert_int_equal(status_of(r), 200);
	free(r);
}

static void test_tls_client_certificates(void **state)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
	struct prom_server_stats st;
	char *r;

	(void)state;
	assert_int_equal(prom_server_publish(srv, "m 1\n", 4), 0);
	r = tls_request(get, &client_cert);
	assert_int_equal(status_of(r), 200);
	assert_string_equal(body_of(r), "m 1\n");
	free(r);
	r = tls_request(get, NULL);
	assert_int_equal(status_of(r), 403);
	free(r);
	r = tls_request(get, &stranger_cert);
	assert_int_equal(status_of(r), 403);
	free(r);
	prom_server_stats(srv, &st);
	assert_int_equal(st.ok, 1);
	assert_int_equal(st.forbidden, 2);
}
#endif

static void parse_ok(const char *spec, const char *text)
{
	struct prom_listen l;
	char err[256] = "";

	assert_int_equal(prom_listen_parse(spec, &l, err, sizeof(err)), 0);
	assert_string_equal(l.text, text);
}

static void parse_bad(const char *spec, const char *needle)
{
	struct prom_listen l;
	char err[256] = "";

	assert_int_equal(prom_listen_parse(spec, &l, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("'%s': error '%s' lacks '%s'", spec, err, needle);
	assert_null(strchr(err, '\n'));
}

static void test_listen_parse(void **state)
{
	struct prom_listen l;
	char err[256];

	(void)state;
	parse_ok("9100", "127.0.0.1:9100");
	/* an address alone: the default port */
	parse_ok("127.0.0.1", "127.0.0.1:" PROM_DEFAULT_PORT_S);
	parse_ok("0.0.0.0", "0.0.0.0:" PROM_DEFAULT_PORT_S);
	parse_ok("localhost", "127.0.0.1:" PROM_DEFAULT_PORT_S);
	parse_ok("[::1]", "[::1]:" PROM_DEFAULT_PORT_S);
	parse_bad("1.2.3", "bad IPv4 address");
	parse_ok("0", "127.0.0.1:0");
	parse_ok("127.0.0.2:65535", "127.0.0.2:65535");
	parse_ok("localhost:9100", "127.0.0.1:9100");
	parse_ok("0.0.0.0:80", "0.0.0.0:80");
	parse_ok("[::1]:9100", "[::1]:9100");
	parse_ok("[::]:9100", "[::]:9100");
	assert_int_equal(prom_listen_parse("9100", &l, err, sizeof(err)), 0);
	assert_int_equal(l.addr.ss_family, AF_INET);
	assert_int_equal(ntohl(((struct sockaddr_in *)&l.addr)->sin_addr.s_addr),
			 INADDR_LOOPBACK);
	assert_int_equal(ntohs(((struct sockaddr_in *)&l.addr)->sin_port), 9100);
	assert_false(l.any);

	/* ":PORT": every address, IPv6 [::] that takes IPv4 too */
	assert_int_equal(prom_listen_parse(":9465", &l, err, sizeof(err)), 0);
	assert_string_equal(l.text, ":9465");
	assert_true(l.any);
	assert_int_equal(l.addr.ss_family, AF_INET6);
	assert_int_equal(l.addrlen, sizeof(struct sockaddr_in6));
	assert_memory_equal(&((struct sockaddr_in6 *)&l.addr)->sin6_addr, &in6addr_any,
			    sizeof(struct in6_addr));
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&l.addr)->sin6_port), 9465);
	parse_ok(":0", ":0");

	/* IPv6 with a port */
	assert_int_equal(prom_listen_parse("[::1]:80", &l, err, sizeof(err)), 0);
	assert_false(l.any);
	assert_int_equal(l.addr.ss_family, AF_INET6);
	assert_memory_equal(&((struct sockaddr_in6 *)&l.addr)->sin6_addr, &in6addr_loopback,
			    sizeof(struct in6_addr));
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&l.addr)->sin6_port), 80);

	parse_bad("", "empty");
	parse_bad("abc", "bad port");
	parse_bad("65536", "bad port");
	parse_bad("-1", "bad port");
	parse_bad("+80", "bad port");
	parse_bad("127.0.0.1:", "bad port");
	parse_bad(":", "bad port");
	parse_bad(":abc", "bad port");
	parse_bad(":65536", "bad port");
	parse_bad("::80", "IPv6 as [ADDR]:PORT");
	parse_bad("1.2.3.4:80:80", "expected ADDR:PORT");
	parse_bad("1.2.3:80", "bad IPv4 address");
	parse_bad("example.com:80", "bad IPv4 address");
	parse_bad("::1:80", "IPv6 as [ADDR]:PORT");
	parse_bad("[::1]80", "expected [IPv6]:PORT");
	parse_bad("[zz]:80", "bad IPv6 address");
	parse_bad("99999999999999999999999", "bad port");
	{
		char longspec[300];

		memset(longspec, '1', sizeof(longspec) - 4);
		strcpy(longspec + sizeof(longspec) - 4, ":80");
		parse_bad(longspec, "too long");
		longspec[0] = '[';
		memcpy(longspec + sizeof(longspec) - 5, "]:80", 5);
		parse_bad(longspec, "too long");
		/* just under the limit: still rejected by the address part */
		longspec[70] = '\0';
		memcpy(longspec + 66, "]:80", 5);
		parse_bad(longspec, "expected [IPv6]:PORT");
	}
}

static void test_bind_error_is_one_line(void **state)
{
	struct prom_server_opts o = { 0 };
	struct prom_server *second;
	char err[256] = "", spec[32];

	(void)state;
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
	assert_int_equal(prom_listen_parse(spec, &o.listen, err, sizeof(err)), 0);
	assert_int_equal(prom_server_start(&o, &second, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "Address already in use"));
	assert_non_null(strstr(err, spec));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test_setup_teardown(test_get_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protobuf_negotiation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_alive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_404_and_405, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post_with_body_is_405, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_scrapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_disconnect_mid_response, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_clients_time_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_reader_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_limit_evicts_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_limit_recovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tricklers_do_not_lock_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trickled_header_and_second_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_gets_400, setup, teardown),
		cmocka_unit_test_setup_teardown(test_half_request_then_hangup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_address_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evicted_while_its_bytes_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_error_is_one_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_401_stays_one_response, setup_auth, teardown),
		cmocka_unit_test_setup_teardown(test_landing_page, setup, teardown),
#ifdef VMAPSCOPE_TLS
		cmocka_unit_test_setup_teardown(test_tls_scrape, setup_tls, teardown_tls),
		cmocka_unit_test_setup_teardown(test_tls_client_certificates, setup_mtls, teardown_tls),
#endif
		cmocka_unit_test_setup_teardown(test_telemetry_path_and_self_metrics, setup_path,
						teardown),
		cmocka_unit_test_setup_teardown(test_slow_checks_are_bounded, setup_slow_auth, teardown),
		cmocka_unit_test_setup_teardown(test_stop_with_checks_pending, setup_slow_auth, teardown),
	};

	return cmocka_run_group_tests_name("prom_http", tests, NULL, NULL);
}
