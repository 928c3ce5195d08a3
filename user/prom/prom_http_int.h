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

#include "prom_http_stats.h"

enum conn_phase { C_PENDING, C_WAITING, C_ACTIVE };

struct conn {
	struct conn *prev, *next;
	int fd;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	enum conn_phase phase;
	bool closing;			/* shut down by us; libmicrohttpd closes it */
	double deadline;		/* PENDING / WAITING: when it is dropped */
	double since;			/* start of the current wait (eviction order) */
};

struct prom_server {
	struct MHD_Daemon *daemon;
	uint16_t port;
	char host[64];			/* for URLs: "127.0.0.1", "[::1]", "[::]" */
	bool tls;
	bool verify_client;		/* a CA-signed client certificate required */
	pthread_mutex_t lock;		/* current, stats */
	struct MHD_Response *current;	/* the latest exposition */
	struct MHD_Response *not_found;
	struct MHD_Response *bad_method;
	struct MHD_Response *unauthorized;
	struct MHD_Response *forbidden;
	struct prom_server_stats stats;
	void (*refresh)(void *arg);
	void *refresh_arg;
	int (*authorize)(void *arg, const char *user, const char *pass);
	void *auth_arg;

	/* the server thread's own (no lock: only that thread touches them) */
	pthread_t thread;
	bool thread_started;
	int listen_fd, epfd, wake_fd, mhd_epfd;
	bool listen_armed;
	struct conn conns;		/* list head */
	unsigned int live;		/* connections not closing */
	unsigned int max_conns, per_ip;
	double header_timeout, idle_timeout;
	struct conn *adding;		/* MHD_add_connection() in progress */
};

/* A plain-text response, never freed while the server runs. */
struct MHD_Response *prom_text_response(const char *text, bool exposition);
/* Our record of a connection libmicrohttpd serves (its socket context). */
struct conn *prom_conn_of(struct MHD_Connection *mc);
/* libmicrohttpd's access handler; cls is the struct prom_server. */
enum MHD_Result prom_handle(void *cls, struct MHD_Connection *conn,
			   const char *url, const char *method,
			   const char *version, const char *upload_data,
			   size_t *upload_data_size, void **con_cls);

#endif /* VMAPSCOPE_PROM_HTTP_INT_H */
