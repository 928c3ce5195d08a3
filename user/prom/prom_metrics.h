/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat samples -> vmapscope_* Prometheus metrics (reference:
 * docs/prometheus.md).
 *
 * A prom_state accumulates the per-interval deltas that vmapstat hands its
 * hooks, so every counter in the exposition is exactly the sum of the
 * intervals vmapstat reported (with -j) since its first interval began;
 * nothing that happened before that, and no read of the BPF maps of its
 * own, so a scrape can be compared with the JSON of the same intervals.
 *
 * Caller cardinality is bounded: at most top_callers callers get their own
 * "caller" label value, all others are summed into caller="other".  The
 * named set is filled with the biggest callers (by bytes mapped, then
 * vmap area bytes, then calls) while it has room and then stays fixed for
 * the life of the exporter: a caller moving in and out of a re-ranked top
 * N would make caller="other" go down, which Prometheus takes for a
 * counter reset.
 */
#ifndef VMAPSCOPE_PROM_METRICS_H
#define VMAPSCOPE_PROM_METRICS_H

#include <stdint.h>

#include "rows.h"
#include "prom_expo.h"
#include "pmu_count.h"
#include "snapshot.h"

#define PROM_DEFAULT_TOP_CALLERS	20
#define PROM_MAX_TOP_CALLERS		10000
#define PROM_OTHER_CALLER		"other"

/*
 * Log2 histogram bounds as the BPF side counts (hist.h): slot i holds the
 * integers up to hist_slot_high(i) = 2^(i+1) - 1, so "le" of slot i is
 * that value divided by @div (1 for pages, 1e9 for ns -> seconds).  The
 * open-ended last slot has no finite bound: it is counted in "+Inf" only.
 * Fills le[0 .. VMAPSCOPE_HIST_SLOTS - 2].
 */
#define PROM_HIST_BOUNDS	(VMAPSCOPE_HIST_SLOTS - 1)
void prom_log2_bounds(double *le, double div);

struct prom_state;

struct prom_state *prom_state_new(unsigned int top_callers);
void prom_state_free(struct prom_state *st);

/*
 * Add one interval: @delta as vmapstat's interval hook receives it.
 * Returns 0 or -ENOMEM (the state is then unchanged).
 */
int prom_state_add(struct prom_state *st, const struct vmapscope_sample *delta);

/*
 * Take the non-counter facts (kernel, features, symbols) from a sample
 * without counting anything: used before the first interval.
 */
void prom_state_set_info(struct prom_state *st, const struct vmapscope_sample *s);

/*
 * Replace the live-mapping gauges (vmapscope_live_bytes, _live_areas)
 * with one page-table audit (snapshot.h).  Gauges may go down, so the
 * top_callers bound is applied afresh each time (by live bytes).  NULL
 * drops them (audit failed).  Returns 0 or -ENOMEM.
 */
int prom_state_set_live(struct prom_state *st, const struct snapshot *ls);

/*
 * Add one period of PMU counts (pmu_count.h): vmapscope_pmu_events_total
 * {event,pmu,cpu} sums the scaled per-CPU counts (per command, @res->task:
 * the command's count, cpu="command"), vmapscope_pmu_event_counted
 * {event,pmu} says whether the last period could count the event at all.
 * Returns 0 or -ENOMEM.
 */
int prom_state_add_pmu(struct prom_state *st, const struct pmu_results *res);

/* Intervals added so far. */
uint64_t prom_state_intervals(const struct prom_state *st);

/*
 * Render the whole exposition, in the buffer's format (prom_expo.h): in
 * the protobuf one every histogram is also a native histogram of schema
 * 0 (hist.h: exact, the slots being split at their edges).  Returns 0 or
 * the buffer's error.
 */
int prom_render(const struct prom_state *st, struct prom_buf *b);

#endif /* VMAPSCOPE_PROM_METRICS_H */
