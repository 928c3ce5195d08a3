/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Content negotiation of a scrape, as Prometheus does it: a scraper that
 * wants native histograms sends
 *
 *   Accept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;
 *           encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,...
 *
 * prom_accept_protobuf() says whether an Accept header's media ranges
 * prefer that protobuf format to the text format 0.0.4: the protobuf
 * range must name proto=io.prometheus.client.MetricFamily and
 * encoding=delimited (the only encoding served), and its q-value must be
 * above 0 and at least that of the best range the text format matches
 * (text/plain without a version or with version=0.0.4, the text
 * wildcard and the full wildcard).  Anything else, a missing, empty, malformed or hostile
 * header included, gets the text format, as client_golang falls back to
 * it: a scraper always gets an answer it can read.  A malformed media
 * range is skipped, the others still count.
 */
#ifndef VMAPSCOPE_PROM_ACCEPT_H
#define VMAPSCOPE_PROM_ACCEPT_H

#include <stdbool.h>

bool prom_accept_protobuf(const char *accept);

#endif /* VMAPSCOPE_PROM_ACCEPT_H */
