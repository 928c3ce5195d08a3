/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PMU sample attribution to vmap areas and their callers
 * (bpf/area_track.h, part of the collector's BPF object, does the work in
 * the kernel; its maps and counters are in include/vmapscope.h).
 */
#ifndef VMAPSCOPE_PMU_SAMPLE_H
#define VMAPSCOPE_PMU_SAMPLE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmu_events.h"
#include "vmapscope.h"

struct collector;

struct pmu_sample_opts {
	const struct pmu_event *ev;	/* the event to sample */
	uint64_t period;		/* sample every N events; 0 = 10000 */
	const char *cpu_list;		/* NULL = all online CPUs */
	/*
	 * Open no event: areas and samples come only from pmu_sample_feed()
	 * (unit tests of the attribution, on a load_only collector).
	 */
	bool test_only;
};

struct pmu_sample_row {
	uint64_t caller;
	uint32_t api;
	uint64_t samples;
};

struct pmu_sample_report {
	uint64_t counters[PMU_SAMPLE_CNT_MAX];
	size_t nr;
	struct pmu_sample_row *rows;	/* most samples first */
	bool chunk_attached;		/* callers known (vmap_mapped or the areas' vm_struct) */
};

struct pmu_sample;

/*
 * Open the sampling event on each CPU with the perf_event program of @c,
 * a collector opened with track_areas (its tracepoint programs track the
 * areas).  CPUs where the event cannot be opened are reported on @msgs;
 * fails (-1, @err) when it opens nowhere.  The events are disabled:
 * nothing is sampled before pmu_sample_start(), so the caller's own
 * setup is not sampled; and opening loads no BPF program (the collector
 * would see the vmap areas of that load).
 */
int pmu_sample_open(const struct pmu_sample_opts *opts, struct collector *c,
		    struct pmu_sample **out, FILE *msgs, char *err, size_t errlen);
/* Sample from now on / no more (until the next start). */
void pmu_sample_start(struct pmu_sample *s);
void pmu_sample_stop(struct pmu_sample *s);
/* Test path: run one operation through the same BPF code. */
int pmu_sample_feed(struct pmu_sample *s, enum pmu_sample_op op, uint64_t addr,
		    uint64_t size, uint64_t caller, uint32_t api);
int pmu_sample_read(struct pmu_sample *s, struct pmu_sample_report *rep);
void pmu_sample_report_free(struct pmu_sample_report *rep);
/*
 * Per-caller table; says so when the PMU gave no addresses (then only the
 * counts per CPU and per period mean anything).  Callers are named by
 * collector_symbolize(); @c NULL prints raw addresses.
 */
void pmu_sample_report_print(FILE *out, const struct pmu_sample_report *rep,
			     const char *event, struct collector *c);
void pmu_sample_close(struct pmu_sample *s);

#endif /* VMAPSCOPE_PMU_SAMPLE_H */
