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

/* Upper bounds of the scrape duration histogram, in seconds (client_golang's defaults). */
#define PROM_SCRAPE_BOUNDS	{ 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 }
#define PROM_SCRAPE_NR_BOUNDS	11
/*
 * Native buckets of the scrape durations: scrape_native[j] counts those in
 * (2^(k-1), 2^k] s, k = PROM_SCRAPE_NATIVE_FIRST + j; the first and last
 * also take anything beyond them, which no clock here measures (2^-40 s
 * is a picosecond, 2^23 s three months).
 */
#define PROM_SCRAPE_NATIVE_FIRST	(-40)
#define PROM_SCRAPE_NATIVE_NR		64

/* Counters of what the server did (tests, diagnostics, prom_self.h). */
struct prom_server_stats {
	uint64_t ok;			/* 200 responses queued to scrapes */
	uint64_t landing;		/* 200: the landing page at / */
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
	/* scrapes by duration: not cumulative, the last one above every bound */
	uint64_t scrape_counts[PROM_SCRAPE_NR_BOUNDS + 1];
	double scrape_seconds;		/* their sum */
	/* the same as a native histogram of schema 0 (PROM_SCRAPE_NATIVE_FIRST) */
	uint64_t scrape_native[PROM_SCRAPE_NATIVE_NR];
	uint64_t scrape_zero;		/* scrapes that took no measurable time */
};

#endif /* VMAPSCOPE_PROM_HTTP_STATS_H */
