/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's metrics about itself, served after the exposition on
 * every scrape of --web.listen-address (never in --textfile or
 * --prometheus, whose readers export their own process metrics):
 *
 *   process_*   this process, under the names and meanings every
 *               Prometheus client library's process collector gives them
 *               (CPU seconds, resident and virtual memory, open and
 *               maximum file descriptors, start time)
 *   promhttp_metric_handler_requests_total{code}
 *               scrapes of the telemetry path answered, as client_golang's
 *               promhttp counts them (200; 500 and 503 stay 0: the
 *               exposition is rendered before a scrape comes)
 *   vmapscope_http_requests_total{code}
 *               every request the server answered, by status code
 *   vmapscope_scrape_duration_seconds
 *               histogram: complete request to answer queued, a scrape's
 *               reading of the counters (no INTERVAL) included
 */
#ifndef VMAPSCOPE_PROM_SELF_H
#define VMAPSCOPE_PROM_SELF_H

#include "prom_expo.h"
#include "prom_http_stats.h"

/* process_* from /proc/self; a family whose source cannot be read is left out. */
void prom_self_process(struct prom_buf *b);

/* The HTTP server's families from its counters. */
void prom_self_http(struct prom_buf *b, const struct prom_server_stats *st);

#endif /* VMAPSCOPE_PROM_SELF_H */
