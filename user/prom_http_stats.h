/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the /metrics server counts (prom_server_stats() in prom_http.h).
 *
 * A header of its own because both halves of the server keep these
 * counters in their shared state (prom_http_int.h) and the public API
 * hands them out: the state sits below the API, and so does this.
 */
#ifndef VMAPSCOPE_PROM_HTTP_STATS_H
#define VMAPSCOPE_PROM_HTTP_STATS_H

#include <stdint.h>

/* Counters of what the server did (tests and diagnostics). */
struct prom_server_stats {
	uint64_t ok;			/* 200 responses queued */
	uint64_t not_found;		/* 404 */
	uint64_t bad_method;		/* 405 */
	uint64_t failed;		/* responses that could not be queued */
	uint64_t publishes;
	uint64_t bad_request;		/* 400: not an HTTP request line */
	uint64_t unauthorized;		/* 401 */
	uint64_t auth_busy;		/* 503: too many password checks pending */
	uint64_t auth_checks;		/* passwords checked by the checking thread */
	uint64_t forbidden;		/* 403: no verified client certificate */
	uint64_t evicted;		/* waiting connections closed for a newcomer */
	uint64_t deadline_closed;	/* waiting connections past their deadline */
	uint64_t refused;		/* newcomers refused: their address's limit */
};

#endif /* VMAPSCOPE_PROM_HTTP_STATS_H */
