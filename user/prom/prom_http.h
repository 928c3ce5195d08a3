/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /metrics HTTP endpoint (libmicrohttpd).
 *
 * The server never renders anything itself: the collector side publishes
 * a finished exposition (prom_server_publish()) and every scrape is
 * answered from the latest published text.  With an interval, vmapstat
 * publishes once per interval: a scrape then costs no BPF map read and all
 * scrapes between two intervals see the same numbers.  Without one, the
 * server calls opts.refresh before answering a scrape, which reads the
 * counters and publishes them (cumulative at scrape time, as
 * node_exporter does).
 *
 * Requests: GET or HEAD /metrics (or the path given) -> 200, the latest
 * exposition and, if asked, the server's own metrics behind it, in the
 * protobuf format when the Accept header prefers it and one was
 * published, else in the text format; GET or
 * HEAD / -> 200, a landing page linking to it; any other path -> 404;
 * any other method on either -> 405 with "Allow: GET, HEAD"; a first line that
 * cannot be an HTTP request line -> 400 at once; with basic auth
 * configured, a request without the right user and password -> 401, and
 * one that would wait for a password check behind PROM_AUTH_MAX_PENDING
 * others -> 503.
 *
 * Connections: a connection must complete its first request line and
 * header within header_timeout_s of being accepted, and the next request
 * on a kept-alive connection within timeout_s of the previous answer;
 * trickling bytes does not extend either deadline.  A connection that
 * stops moving while it is answered (a client that does not read) is
 * closed after timeout_s of inactivity.  At most max_connections are
 * open, at most PROM_PER_IP_CONNECTIONS from one client address; when a
 * new connection would pass either limit, the connection that has waited
 * longest for its request (from that address, or any) is closed to make
 * room, so a scraper always gets through; only connections being
 * answered hold their place (beyond them, new connections wait in the
 * listen backlog, or are refused when their own address holds its limit).
 */
#ifndef VMAPSCOPE_PROM_HTTP_H
#define VMAPSCOPE_PROM_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "prom_http_stats.h"
#include "prom_listen.h"

#define PROM_DEFAULT_TIMEOUT_S		10
/* A new connection's request header must be complete within this. */
#define PROM_DEFAULT_HEADER_TIMEOUT_S	5
#define PROM_DEFAULT_MAX_CONNECTIONS	64
/* One client address may hold at most this many (so it cannot starve others). */
#define PROM_PER_IP_CONNECTIONS		32
/* Requests whose password awaits its (bcrypt) check, the one being checked included. */
#define PROM_AUTH_MAX_PENDING		8

struct prom_server_opts {
	struct prom_listen listen;
	/* the path scrapes GET (--web.telemetry-path); NULL = "/metrics" */
	const char *metrics_path;
	/* serve the exporter's own metrics after the exposition (prom_self.h) */
	bool self_metrics;
	unsigned int timeout_s;		/* 0 = PROM_DEFAULT_TIMEOUT_S */
	/* 0 = PROM_DEFAULT_HEADER_TIMEOUT_S; never more than timeout_s */
	unsigned int header_timeout_s;
	unsigned int max_connections;	/* 0 = PROM_DEFAULT_MAX_CONNECTIONS */
	unsigned int max_per_ip;	/* 0 = PROM_PER_IP_CONNECTIONS */
	/* NULL, or called (server thread) before each scrape is answered */
	void (*refresh)(void *arg);
	void *refresh_arg;
	/*
	 * HTTPS (libmicrohttpd's GnuTLS): PEM texts, NULL = plain HTTP.
	 * tls_client_ca_pem: every request needs a client certificate that
	 * verifies against it (403 otherwise);
	 * tls_priorities: a GnuTLS priority string (minimum version).
	 */
	const char *tls_cert_pem;
	const char *tls_key_pem;
	const char *tls_client_ca_pem;
	const char *tls_priorities;
	/*
	 * NULL, or basic auth: non-zero when user and password are right.
	 * It may be slow (bcrypt): it runs in a checking thread of the
	 * server's own, one check at a time, for at most
	 * PROM_AUTH_MAX_PENDING requests (waiting or being checked); a
	 * request beyond them is answered 503 with "Retry-After: 1" at once.
	 * auth_cached, if given, is asked first in the server thread and
	 * must be fast: 1 right, 0 wrong, -1 only authorize can say.
	 */
	int (*authorize)(void *arg, const char *user, const char *pass);
	int (*auth_cached)(void *arg, const char *user, const char *pass);
	void *auth_arg;
};

struct prom_server;

/*
 * Bind, listen and start the server thread.  Until the first
 * prom_server_publish() scrapes get an empty (valid) exposition.
 * Returns 0, or a negative errno with one line in err (such as
 * "--listen 127.0.0.1:9100: Address already in use").
 */
int prom_server_start(const struct prom_server_opts *opts,
		      struct prom_server **out, char *err, size_t errlen);

/* Replace the served exposition (copied).  Returns 0 or -ENOMEM. */
int prom_server_publish(struct prom_server *s, const char *text, size_t len);

/*
 * The same with the exposition in the protobuf format too (prom_expo.h),
 * which scrapes asking for it get (prom_accept.h), with the server's own
 * metrics in that format behind it; the others get the text.
 */
int prom_server_publish_with_protobuf(struct prom_server *s, const char *text, size_t len,
				      const void *pb, size_t pb_len);

/* The bound port (useful with port 0). */
uint16_t prom_server_port(const struct prom_server *s);

/* The bound address as a URL host: "127.0.0.1", "[::1]", "[::]". */
const char *prom_server_host(const struct prom_server *s);

void prom_server_stats(struct prom_server *s, struct prom_server_stats *st);

/* Stop the thread, close every connection, free everything. */
void prom_server_stop(struct prom_server *s);

#endif /* VMAPSCOPE_PROM_HTTP_H */
