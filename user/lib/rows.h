/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The row table: what every output shows, and the arithmetic on it.
 *
 * A sample is one read of the collector's counters (collector_read(),
 * cumulative since it attached) or the difference of two (sample_delta(),
 * one interval).  It holds one row per (caller, api) with the BPF
 * counters of struct vmapscope_stats (vmapscope.h), the global counters,
 * the feature table (which columns this kernel can fill and, if not,
 * why) and the kernel facts that label granules.  The outputs (report.h,
 * prom_metrics.h, top_model.h, the PMU report) read samples and nothing
 * of the collector, so they and their tests need only this header.
 */
#ifndef VMAPSCOPE_ROWS_H
#define VMAPSCOPE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "vmapscope.h"
#include "vocab.h"

struct vmapscope_feature_state {
	bool available;
	/* how it is attached ("tp_btf", "raw_tp", "fentry", "kprobe", ...) */
	char how[64];
	/* when !available (or partly): one line saying what is missing and why */
	char why[256];
};

/* One (caller, api) row.  Counters are raw BPF counters (vmapscope.h). */
struct vmapscope_row {
	uint64_t caller;	/* kernel text address, 0 = unknown */
	int api;		/* enum vmapscope_api or VMAPSCOPE_API_UNATTRIBUTED */
	/*
	 * Symbolized caller: "func+0x1a/0x80 [module]" style, the raw
	 * address "0xffffffff81234567" when kallsyms hides it, "?" for 0,
	 * "[unattributed]" for the unattributed bucket.
	 */
	char sym[128];
	/*
	 * --by (sample.by): the raw label of the BPF key (cgroup id, or
	 * comm bytes), part of the row's identity, and its text: the cgroup
	 * v2 path (the id in decimal when unresolved) or the comm.  Zero and
	 * "" without --by.
	 */
	uint64_t label[2];
	char label_str[128];
	struct vmapscope_stats st;
};

struct vmapscope_sample {
	struct timespec mono;		/* CLOCK_MONOTONIC when read */
	int by;				/* enum vmapscope_by: the rows' label, 0 none */
	struct timespec wall;		/* CLOCK_REALTIME when read */
	double interval_s;		/* 0 for cumulative, else delta length */
	size_t nr_rows;
	struct vmapscope_row *rows;	/* sorted by row_cmp() */
	uint64_t counters[VMAPSCOPE_CNT_MAX];
	uint32_t stats_max_entries;
	struct vmapscope_feature_state feat[VMAPSCOPE_FEAT_MAX];
	/* false: kallsyms hid addresses (kptr_restrict); see ksyms_reason */
	bool symbols_ok;
	char ksyms_reason[160];
	/* kernel facts needed to label granules */
	char arch[16];			/* "x86_64", "arm64" (running kernel) */
	unsigned int page_shift;
	char kernel_release[65];
};

/*
 * The row field table: one entry per line of VMAPSCOPE_ROW_FIELDS
 * (vmapscope.h), in that order, which is the order of the JSON keys.
 * Every output walks it instead of naming fields.
 */
enum row_kind { ROW_SCALAR, ROW_GRANULE, ROW_HIST, ROW_REASON };
enum row_unit { ROW_UNIT_COUNT, ROW_UNIT_PAGES, ROW_UNIT_BYTES, ROW_UNIT_NS };

struct row_field {
	enum row_kind kind;
	enum row_unit unit;
	size_t off;		/* of the field in struct vmapscope_stats */
	size_t sum_off;		/* HIST: of its sum field; else = off */
	size_t above_off;	/* HIST: of field_above (vmapscope.h); else = off */
	const char *json;
	const char *prom;	/* NULL: no family of its own */
	const char *help;
	int text;		/* text report line, 0: none (vmapscope.h) */
	const char *label;
};

extern const struct row_field row_fields[];
extern const size_t nr_row_fields;

/*
 * A GRANULE BYTES field also counts page-table entries: bytes >> shift
 * at each shift.  Its names in JSON ("granules" entries), Prometheus and
 * the text report's granule table.
 */
struct row_entries {
	const char *json, *prom, *help, *label;
};
extern const struct row_entries row_granule_entries;

/*
 * The values of field @f in @st: 1, VMAPSCOPE_NR_SHIFTS, VMAPSCOPE_HIST_SLOTS
 * or VMAPSCOPE_NR_FALLBACKS of them.
 */
static inline const uint64_t *row_field_values(const struct vmapscope_stats *st,
					       const struct row_field *f)
{
	return (const uint64_t *)((const char *)st + f->off);
}

/* HIST: of each slot, the values above its native-histogram edge (hist.h). */
static inline const uint64_t *row_field_above(const struct vmapscope_stats *st,
					      const struct row_field *f)
{
	return (const uint64_t *)((const char *)st + f->above_off);
}

static inline uint64_t row_field_sum(const struct vmapscope_stats *st, const struct row_field *f)
{
	return *(const uint64_t *)((const char *)st + f->sum_off);
}

static inline unsigned int row_field_len(const struct row_field *f)
{
	return f->kind == ROW_GRANULE ? VMAPSCOPE_NR_SHIFTS :
	       f->kind == ROW_HIST ? VMAPSCOPE_HIST_SLOTS :
	       f->kind == ROW_REASON ? VMAPSCOPE_NR_FALLBACKS : 1;
}

/* The --by dimension's name: "cgroup", "comm", NULL for VMAPSCOPE_BY_NONE. */
/* One line of VMAPSCOPE_RUN_METRICS (vmapscope.h). */
enum run_metric_how { RUN_TOTAL, RUN_LARGE, RUN_MEAN };

struct run_metric {
	const char *name;
	const char *unit;
	size_t off;		/* of its row field in struct vmapscope_stats */
	enum run_metric_how how;
	int feature;		/* enum vmapscope_feature */
};

extern const struct run_metric run_metrics[];
extern const size_t nr_run_metrics;

/* The row field at offset off of struct vmapscope_stats, or NULL. */
const struct row_field *row_field_at(size_t off);

/*
 * Metric m of sample s (a run's delta) in *value: 0, or -1 when s has no
 * such figure (its feature is missing, or a MEAN of nothing).
 */
int run_metric_value(const struct vmapscope_sample *s, const struct run_metric *m,
		     double *value);

const char *by_name(int by);

/* The order of a sample's rows: by caller address, then api, then label (qsort/bsearch). */
int row_cmp(const void *a, const void *b);

/*
 * out = cur - prev per (caller, api) row and counter; rows absent from
 * prev count from zero; rows with all-zero deltas are dropped.
 * interval_s is set from the monotonic stamps.  Returns 0 or -ENOMEM.
 */
int sample_delta(const struct vmapscope_sample *cur,
		 const struct vmapscope_sample *prev,
		 struct vmapscope_sample *out);

/*
 * Fold rows into one row per api (caller = 0, sym = API name): the
 * default "totals per API" view.  With --by the label stays: one row per
 * (api, label), the label's totals per API.  Returns 0 or -ENOMEM.
 */
int rows_by_api(const struct vmapscope_sample *in, struct vmapscope_sample *out);

void sample_free(struct vmapscope_sample *s);

/* Helpers over one row. */
uint64_t row_total_bytes(const struct vmapscope_row *r);
/* Nothing counted: every counter of every field is zero. */
bool stats_zero(const struct vmapscope_stats *s);
/*
 * A row as the BPF map holds it -> as user space uses it: each HIST's
 * field[] counted only the values at or below each slot's edge, and
 * field_above[] those above it; after this field[] is the whole slot.
 */
void stats_from_bpf(struct vmapscope_stats *s);
/* out += a, counter by counter (struct vmapscope_stats is only u64 counters). */
void stats_add(struct vmapscope_stats *out, const struct vmapscope_stats *a);
static inline uint64_t row_mappings(const struct vmapscope_row *r, unsigned int shift)
{
	return shift < VMAPSCOPE_NR_SHIFTS ? r->st.bytes[shift] >> shift : 0;
}

#endif /* VMAPSCOPE_ROWS_H */
