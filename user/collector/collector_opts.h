/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's settings, as types only: what a front end asks the
 * collector to attach (struct collector_opts) and what collector_open()
 * made of each latency probe (struct vmapscope_probe_state).
 *
 * They stand apart from collector.h because three kinds of file need them
 * without the collector's functions: the option parsers that fill the
 * request (select_opts.h), the collector's own parts that keep it in their
 * shared state (collector_int.h), and the public API (collector.h).
 */
#ifndef VMAPSCOPE_COLLECTOR_OPTS_H
#define VMAPSCOPE_COLLECTOR_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One call-latency probe target, as decided at attach time (for -v / JSON). */
struct vmapscope_probe_state {
	int api;		/* enum vmapscope_api */
	char func[64];		/* kernel function attached, "" if none */
	char how[16];		/* "fentry", "kprobe", or "" */
	char why[160];		/* why not attached (when how[0] == 0) */
};

struct collector_opts {
	pid_t pid;			/* 0 = all; else this tgid only */
	unsigned int api_mask;		/* bit (1 << api); 0 = all APIs */
	const char *caller_filter;	/* substring of the caller symbol; NULL = all */
	/*
	 * What to attach beyond the default (vmalloc:vmap_mapped on a series
	 * kernel, alloc_vmap_area()'s exit elsewhere): one event per mapping
	 * call unless asked.
	 */
	bool no_map_latency;		/* skip vmap_mapped's mapping time */
	bool call_latency;		/* entry-point probes: whole-call latency */
	/*
	 * With call_latency, also time vmap(), vm_map_ram(), vmap_pfn() and
	 * x86's ioremap*(): their exit probes make the kernel record the
	 * probe trampoline as the caller of the areas they create
	 * (collector.c).
	 */
	bool latency_all;
	bool runs;			/* per-run events: runs per granule */
	bool areas;			/* areas allocated, lazy frees, purges */
	/* opt-in features asked for (feature_table.h): VMAPSCOPE_FEAT_BIT(f) */
	unsigned int optin;
	bool verbose;			/* libbpf debug output on stderr */
	uint32_t max_callers;		/* stats map size; 0 = default (2048) */
	int by;				/* --by: enum vmapscope_by, 0 = no label */
	/*
	 * Name the callers of areas by kernel stack (stack_callers.h) even
	 * where vmap_mapped or the area's vm_struct could; without it the
	 * stack method is used only where neither is available.
	 */
	bool stack_callers;
	/* Track live vmap areas for PMU sample attribution (bpf/area_track.h). */
	bool track_areas;
	/* Load the BPF object, attach nothing: tests feed it (BPF_PROG_TEST_RUN). */
	bool load_only;
};

#endif /* VMAPSCOPE_COLLECTOR_OPTS_H */
