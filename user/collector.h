/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapscope collector: open / attach / read-snapshot / close.
 *
 * Every tool (vmapstat, vmaptop, the Prometheus exporter, the PMU report)
 * reads vmalloc/vmap/ioremap activity through this one API, so that the
 * BPF side, caller symbolization and "what is missing and why" exist once.
 *
 * collector_read() fills a struct vmapstat_sample with cumulative
 * counters since the collector attached; sample_delta() turns two of
 * them into per-interval figures.  One row per (caller, api): bytes and
 * BPF events per mapping shift (granule), chunk-length and latency log2
 * histograms (hist.h), call / area counts; the global counters
 * (vmapscope.h), the feature table (which columns exist on this kernel
 * and, if not, why) and the symbol state come with it.
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
#include <time.h>

#include "vmapscope.h"
#include "vocab.h"

struct vmapstat_feature_state {
	bool available;
	/* how it is attached ("tp_btf", "raw_tp", "fentry", "kprobe", ...) */
	char how[64];
	/* when !available (or partly): one line saying what is missing and why */
	char why[256];
};

/* One latency probe target, as decided at attach time (for -v / JSON). */
struct vmapstat_probe_state {
	int api;		/* enum vmapscope_api */
	char func[64];		/* kernel function attached, "" if none */
	char how[16];		/* "fentry", "kprobe", or "" */
	char why[160];		/* why not attached (when how[0] == 0) */
};

/* One (caller, api) row.  Counters are raw BPF counters (vmapscope.h). */
struct vmapstat_row {
	uint64_t caller;	/* kernel text address, 0 = unknown */
	int api;		/* enum vmapscope_api or VMAPSCOPE_API_UNATTRIBUTED */
	/*
	 * Symbolized caller: "func+0x1a/0x80 [module]" style, the raw
	 * address "0xffffffff81234567" when kallsyms hides it, "?" for 0,
	 * "[unattributed]" for the unattributed bucket.
	 */
	char sym[128];
	struct vmapscope_stats st;
};

struct vmapstat_sample {
	struct timespec mono;		/* CLOCK_MONOTONIC when read */
	struct timespec wall;		/* CLOCK_REALTIME when read */
	double interval_s;		/* 0 for cumulative, else delta length */
	size_t nr_rows;
	struct vmapstat_row *rows;	/* sorted by caller, then api */
	uint64_t counters[VMAPSCOPE_CNT_MAX];
	uint32_t stats_max_entries;
	struct vmapstat_feature_state feat[VMAPSTAT_FEAT_MAX];
	/* false: kallsyms hid addresses (kptr_restrict); see ksyms_reason */
	bool symbols_ok;
	char ksyms_reason[160];
	/* kernel facts needed to label granules */
	char arch[16];			/* "x86_64", "arm64" (running kernel) */
	unsigned int page_shift;
	char kernel_release[65];
};

struct collector_opts {
	pid_t pid;			/* 0 = all; else this tgid only */
	unsigned int api_mask;		/* bit (1 << api); 0 = all APIs */
	const char *caller_filter;	/* substring of the caller symbol; NULL = all */
	bool want_latency;		/* attach entry-point probes */
	/*
	 * Also time vmap(), vm_map_ram(), vmap_pfn() and x86's ioremap*():
	 * their exit probes make the kernel record the probe trampoline as
	 * the caller of the areas they create (collector.c).
	 */
	bool latency_all;
	bool verbose;			/* libbpf debug output on stderr */
	uint32_t max_callers;		/* stats map size; 0 = default (2048) */
	/*
	 * Name the callers of areas by kernel stack (stack_callers.h) even
	 * where vmap_chunk or an entry-point probe could; without it the
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
 * Missing optional columns are NOT an error: the snapshots' feature table
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
 * Read all counters (cumulative since attach) into snap (caller frees
 * with sample_free()).  Returns 0 or negative errno.
 */
int collector_read(struct collector *c, struct vmapstat_sample *snap);

/*
 * out = cur - prev per (caller, api) row and counter; rows absent from
 * prev count from zero; rows with all-zero deltas are dropped.
 * interval_s is set from the monotonic stamps.  Returns 0 or -ENOMEM.
 */
int sample_delta(const struct vmapstat_sample *cur,
		   const struct vmapstat_sample *prev,
		   struct vmapstat_sample *out);

/*
 * Fold rows into one row per api (caller = 0, sym = API name): the
 * default "totals per API" view.  Returns 0 or -ENOMEM.
 */
int rows_by_api(const struct vmapstat_sample *in,
		    struct vmapstat_sample *out);

void sample_free(struct vmapstat_sample *snap);

/*
 * For --version: one line naming the BPF programs built into this binary's
 * collector object, by section (opened from the embedded object; nothing
 * is loaded, no privileges needed).
 */
void collector_describe_bpf(FILE *f);

/* libbpf's messages: on stderr when verbose, else kept for the error lines. */
void libbpf_messages(bool verbose);

/* Helpers over one row. */
uint64_t row_total_bytes(const struct vmapstat_row *r);
/* out += a, counter by counter (struct vmapscope_stats is only u64 counters). */
void stats_add(struct vmapscope_stats *out, const struct vmapscope_stats *a);
static inline uint64_t row_mappings(const struct vmapstat_row *r, unsigned int shift)
{
	return shift < VMAPSCOPE_NR_SHIFTS ? r->st.bytes[shift] >> shift : 0;
}

#endif /* VMAPSCOPE_COLLECTOR_H */
