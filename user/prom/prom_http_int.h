/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /metrics server's state, shared by its two halves only:
 * prom_http.c runs the server thread (accepting, admitting and evicting
 * connections, libmicrohttpd's event loop), prom_http_request.c answers
 * each request.  Nothing else includes this.
 */
#ifndef VMAPSCOPE_PROM_HTTP_INT_H
#define VMAPSCOPE_PROM_HTTP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "prom_http.h"
#include "prom_http_stats.h"

enum conn_phase { C_PENDING, C_WAITING, C_ACTIVE };

struct conn {
	struct conn *prev, *next;
	int fd;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	enum conn_phase phase;
	bool closing;			/* shut down by us; libmicrohttpd closes it */
	bool dropped;			/* PENDING, closed: freed after this round */
	double deadline;		/* PENDING / WAITING: when it is dropped */
	double since;			/* start of the current wait (eviction order) */
};

/*
 * A published exposition: every scrape's response refers to it (and
 * adds the server's own metrics behind it), so it lives until the last
 * response sending it is done.  refs: under the server's lock.
 */
struct expo {
	unsigned int refs;
	size_t len;
	/* the same in the protobuf format (NULL: none, scrapes get the text) */
	const char *pb;
	size_t pb_len;
	char data[];		/* the text, then the protobuf */
};

/* A request, from its complete header to its answer (libmicrohttpd's con_cls). */
enum req_auth { RA_NONE, RA_CHECKING, RA_RIGHT, RA_WRONG };

struct prom_req {
	bool seen;			/* the handler ran for it before */
	double t0;			/* its header complete (CLOCK_MONOTONIC) */
	int auth;			/* enum req_auth; the checking thread writes it */
};

/* A password the checking thread is to check, for a suspended connection. */
struct auth_job {
	struct MHD_Connection *conn;
	struct prom_req *rq;
	char *user, *pass;
};

struct prom_server {
	struct MHD_Daemon *daemon;
	uint16_t port;
	char host[64];			/* for URLs: "127.0.0.1", "[::1]", "[::]" */
	bool tls;
	bool verify_client;		/* a CA-signed client certificate required */
	pthread_mutex_t lock;		/* cur, stats */
	struct expo *cur;		/* the latest exposition */
	char path[256];			/* the telemetry path, "/metrics" */
	bool self_metrics;		/* prom_self.h after the exposition */
	struct MHD_Response *landing;	/* GET / */
	char landing_text[768], not_found_text[320];
	struct MHD_Response *not_found;
	struct MHD_Response *bad_method;
	struct MHD_Response *unauthorized;
	struct MHD_Response *auth_busy;
	struct MHD_Response *forbidden;
	struct prom_server_stats stats;
	void (*refresh)(void *arg);
	void *refresh_arg;
	int (*authorize)(void *arg, const char *user, const char *pass);
	int (*auth_cached)(void *arg, const char *user, const char *pass);
	void *auth_arg;

	/* the checking thread (prom_http_auth.c); lock: auth_lock */
	pthread_t auth_thread;
	bool auth_started, auth_stopping;
	pthread_mutex_t auth_lock;
	pthread_cond_t auth_cond;
	struct auth_job jobs[PROM_AUTH_MAX_PENDING];
	unsigned int job_head, job_count;	/* queued, not yet taken */
	unsigned int pending;		/* queued + being checked */

	/* the server thread's own (no lock: only that thread touches them) */
	pthread_t thread;
	bool thread_started;
	int listen_fd, epfd, wake_fd, mhd_epfd;
	int resume_fd;			/* the checking thread resumed a connection */
	bool listen_armed;
	struct conn conns;		/* list head */
	struct conn *dropped;		/* closed this round, still named by its events */
	unsigned int live;		/* connections not closing */
	unsigned int max_conns, per_ip;
	double header_timeout, idle_timeout;
	struct conn *adding;		/* MHD_add_connection() in progress */
};

/*
 * The checking thread: start it (0 or an errno), hand it a suspended
 * connection's credentials (false when PROM_AUTH_MAX_PENDING are
 * pending: answer 503), stop it (every connection it holds is resumed,
 * refused).  Only the server thread submits; stop runs after it ended.
 */
int prom_auth_start(struct prom_server *s);
bool prom_auth_submit(struct prom_server *s, struct MHD_Connection *conn,
		      struct prom_req *rq, const char *user, const char *pass);
void prom_auth_stop(struct prom_server *s);

/* CLOCK_MONOTONIC in seconds. */
double prom_now(void);
/* Drop a reference to an exposition (under the server's lock). */
void prom_expo_put(struct expo *e);

/* A response from static text (content_type NULL: plain text), never freed while the server runs. */
struct MHD_Response *prom_text_response(const char *text, const char *content_type);
/* Our record of a connection libmicrohttpd serves (its socket context). */
struct conn *prom_conn_of(struct MHD_Connection *mc);
/* libmicrohttpd's access handler; cls is the struct prom_server. */
enum MHD_Result prom_handle(void *cls, struct MHD_Connection *conn,
			   const char *url, const char *method,
			   const char *version, const char *upload_data,
			   size_t *upload_data_size, void **con_cls);

#endif /* VMAPSCOPE_PROM_HTTP_INT_H */
