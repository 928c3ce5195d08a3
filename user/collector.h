/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapscope collector: open / attach / read / close.
 *
 * Every tool (vmapstat, vmaptop, the Prometheus exporter, the PMU report)
 * reads vmalloc/vmap/ioremap activity through this one API, so that the
 * BPF side, caller naming and "what is missing and why" exist once.
 *
 * collector_read() fills a struct vmapstat_sample (rows.h) with the
 * counters since the collector attached: one row per (caller, api), the
 * global counters (vmapscope.h), the feature table (which columns exist
 * on this kernel and, if not, why) and the symbol state.  What is done
 * with samples (their difference, the outputs) needs only rows.h.
 *
 * Threading: collector_read() may be called from any thread (the
 * exporter's HTTP thread); calls are serialized by an internal lock.
 */
#ifndef VMAPSCOPE_COLLECTOR_H
#define VMAPSCOPE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rows.h"

/* One call-latency probe target, as decided at attach time (for -v / JSON). */
struct vmapstat_probe_state {
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
	/* opt-in features asked for (feature_table.h): VMAPSTAT_FEAT_BIT(f) */
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

struct collector;
struct ksyms;
struct vmapstat_bpf;

/*
 * Load and attach.  Returns 0 and *out, or a negative errno with one
 * line describing the failure written to errbuf (e.g. "need root or
 * CAP_BPF+CAP_PERFMON", "kernel has no BTF (/sys/kernel/btf/vmlinux)").
 * Missing optional columns are NOT an error: the samples' feature table
 * (struct vmapstat_feature_state) says which and why.
 */
int collector_open(const struct collector_opts *opts, struct collector **out,
		   char *errbuf, size_t errlen);
void collector_close(struct collector *c);

/*
 * The current kallsyms table (also the audit's data symbols).  It is
 * replaced when modules change, by collector_read() and
 * collector_symbolize(): use it only while no other thread reads.
 */
const struct ksyms *collector_ksyms(struct collector *c);

/* The loaded BPF object (vmapstat.skel.h), for the PMU sampler. */
struct vmapstat_bpf *collector_bpf(struct collector *c);
bool collector_feature(const struct collector *c, enum vmapstat_feature f);
/* What names the callers ("vmap_mapped", "vm_struct", "stack", ...), "" if nothing. */
const char *collector_callers_how(const struct collector *c);

/* Latency probes as decided by collector_open(). */
size_t collector_probes(const struct collector *c,
			const struct vmapstat_probe_state **probes);

/*
 * The caller string of a kernel text address, as the rows name it
 * ("func+0x1a/0x80 [module]", ksyms.h), from the collector's one kallsyms
 * table (modules unloaded since included).
 */
void collector_symbolize(struct collector *c, uint64_t addr, char *buf, size_t len);

/*
 * Read all counters (cumulative since attach) into @s (caller frees
 * with sample_free()).  Returns 0 or negative errno.
 */
int collector_read(struct collector *c, struct vmapstat_sample *s);

/*
 * For --version: one line naming the BPF programs built into this binary's
 * collector object, by section (opened from the embedded object; nothing
 * is loaded, no privileges needed).
 */
void collector_describe_bpf(FILE *f);

#endif /* VMAPSCOPE_COLLECTOR_H */
