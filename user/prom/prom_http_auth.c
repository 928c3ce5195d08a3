// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics server's checking thread (prom_http_int.h): passwords that
 * only a slow check (bcrypt, tens of milliseconds at cost 10) can judge
 * are checked here, one at a time, while their connections are suspended
 * in libmicrohttpd.  The server thread goes on answering everyone else,
 * a scraper whose password is remembered included, so clients with wrong
 * passwords cannot delay a scrape; they cannot make the exporter use more
 * than this one thread's CPU either, nor hold more than
 * PROM_AUTH_MAX_PENDING connections waiting.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "prom_http_int.h"

static void forget_secret(char *p)
{
	if (p) {
		explicit_bzero(p, strlen(p));
		free(p);
	}
}

/* The job's outcome, then the connection goes back to libmicrohttpd. */
static void finish(struct prom_server *s, struct auth_job *j, bool right)
{
	forget_secret(j->user);
	forget_secret(j->pass);
	uint64_t one = 1;

	__atomic_store_n(&j->rq->auth, right ? RA_RIGHT : RA_WRONG, __ATOMIC_RELEASE);
	MHD_resume_connection(j->conn);
	/*
	 * libmicrohttpd's own wake-up does not reach the server thread's
	 * epoll without a listening socket of its own: ours does
	 */
	if (write(s->resume_fd, &one, sizeof(one)) != sizeof(one)) {
		/* the counter is already non-zero: the thread wakes anyway */
	}
}

static void *auth_thread(void *arg)
{
	struct prom_server *s = arg;

	pthread_mutex_lock(&s->auth_lock);
	for (;;) {
		struct auth_job j;
		bool right;

		while (!s->job_count && !s->auth_stopping)
			pthread_cond_wait(&s->auth_cond, &s->auth_lock);
		if (s->auth_stopping)
			break;
		j = s->jobs[s->job_head];
		s->job_head = (s->job_head + 1) % PROM_AUTH_MAX_PENDING;
		s->job_count--;
		pthread_mutex_unlock(&s->auth_lock);

		right = s->authorize(s->auth_arg, j.user, j.pass);
		pthread_mutex_lock(&s->lock);
		s->stats.auth_checks++;
		pthread_mutex_unlock(&s->lock);

		pthread_mutex_lock(&s->auth_lock);
		finish(s, &j, right);
		s->pending--;
	}
	pthread_mutex_unlock(&s->auth_lock);
	return NULL;
}

int prom_auth_start(struct prom_server *s)
{
	int rc;

	pthread_mutex_init(&s->auth_lock, NULL);
	pthread_cond_init(&s->auth_cond, NULL);
	rc = pthread_create(&s->auth_thread, NULL, auth_thread, s);
	if (rc) {
		pthread_cond_destroy(&s->auth_cond);
		pthread_mutex_destroy(&s->auth_lock);
		return rc;
	}
	s->auth_started = true;
	return 0;
}

bool prom_auth_submit(struct prom_server *s, struct MHD_Connection *conn,
		      struct prom_req *rq, const char *user, const char *pass)
{
	struct auth_job *j;
	bool queued = false;

	pthread_mutex_lock(&s->auth_lock);
	if (s->pending < PROM_AUTH_MAX_PENDING && !s->auth_stopping) {
		j = &s->jobs[(s->job_head + s->job_count) % PROM_AUTH_MAX_PENDING];
		j->conn = conn;
		j->rq = rq;
		j->user = strdup(user);
		j->pass = strdup(pass);
		if (j->user && j->pass) {
			rq->auth = RA_CHECKING;
			/* suspended before the thread can resume it */
			MHD_suspend_connection(conn);
			s->job_count++;
			s->pending++;
			queued = true;
			pthread_cond_signal(&s->auth_cond);
		} else {
			forget_secret(j->user);
			forget_secret(j->pass);
		}
	}
	pthread_mutex_unlock(&s->auth_lock);
	return queued;
}

void prom_auth_stop(struct prom_server *s)
{
	if (!s->auth_started)
		return;
	pthread_mutex_lock(&s->auth_lock);
	s->auth_stopping = true;
	pthread_cond_signal(&s->auth_cond);
	pthread_mutex_unlock(&s->auth_lock);
	pthread_join(s->auth_thread, NULL);
	/* libmicrohttpd must not be stopped with suspended connections */
	while (s->job_count) {
		finish(s, &s->jobs[s->job_head], false);
		s->job_head = (s->job_head + 1) % PROM_AUTH_MAX_PENDING;
		s->job_count--;
	}
	s->pending = 0;
	pthread_cond_destroy(&s->auth_cond);
	pthread_mutex_destroy(&s->auth_lock);
	s->auth_started = false;
}
