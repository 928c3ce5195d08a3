/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmaptop row model: one row per (caller, api), computed from the
 * collector's samples (user/lib/rows.h): the cumulative sample gives
 * the set of rows (callers stay listed while idle, as processes do in
 * top), sample_delta() of two cumulative samples gives the interval's
 * counts, which become rates here.
 *
 * The model knows nothing about BPF or ncurses: the unit tests build
 * samples by hand.  Its output is a struct top_table that
 * user/top/top_format.c turns into text for both the batch mode and the
 * ncurses screen.
 */
#ifndef VMAPSCOPE_TOP_MODEL_H
#define VMAPSCOPE_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "vmapscope.h"

#include "rows.h"

#define TOP_SYM_LEN	sizeof(((struct vmapscope_row *)0)->sym)

/*
 * The granule columns.  Which mapping shift lands in which column depends
 * on the running kernel (page size, arm64 contiguous-PTE size): see
 * top_granule_shifts().  Bytes at any other shift count in the total but
 * in no column, so a row's shares can add up to less than 100 %.
 */
enum top_granule {
	TOP_G_PTE = 0,		/* one PTE per page (4K) */
	TOP_G_CONT,		/* arm64 contiguous-PTE block (64K with 4K pages) */
	TOP_G_PMD,		/* PMD block (2M with 4K pages) */
	TOP_G_PUD,		/* PUD block (1G with 4K pages) */
	TOP_G_NR,
};

/*
 * Column availability: TOP_NEED_<ID> for each feature of the collector's
 * feature table (feature_table.h, in its order), and /proc/vmallocinfo.
 */
#define TOP_NEED_ENUM(id, ...) TOP_NEED_##id,
enum top_need {
	TOP_NEED_NONE = 0,
	VMAPSCOPE_FEATURES(TOP_NEED_ENUM, TOP_NEED_ENUM)
	TOP_NEED_LIVE,		/* /proc/vmallocinfo readable */
	TOP_NEED_MAX,
};
#undef TOP_NEED_ENUM

struct top_avail {
	bool have[TOP_NEED_MAX];
	/* one line per missing feature, shown once under the header */
	char why[TOP_NEED_MAX][256];
	/* mapping shift per granule column; 0 = this kernel has no such granule */
	unsigned int shift[TOP_G_NR];
	/* "" or a line on how callers are named, when it is not as /proc/vmallocinfo does */
	char callers_note[200];
};

/*
 * What "mappings" counts.  The best source the kernel offers wins:
 * mapping calls (the series' vmap_mapped), else vmap areas allocated
 * (kernels without the series), else calls the entry-point probes saw
 * (--call-latency).  The header names the source.
 */
enum top_maps_src {
	TOP_MAPS_NONE = 0,
	TOP_MAPS_CALLS,
	TOP_MAPS_AREAS,
	TOP_MAPS_CHUNKS,
};

/* What "bytes" counts: mapped bytes (granule tracepoints) or area sizes. */
enum top_bytes_src {
	TOP_BYTES_NONE = 0,
	TOP_BYTES_MAPPED,
	TOP_BYTES_AREAS,
};

/* The percentile columns, one per line of VMAPSCOPE_TOP_COLUMNS (vmapscope.h). */
#define TOP_PCT_ENUM(id, ...) TOP_PCT_##id,
enum top_pct {
	VMAPSCOPE_TOP_COLUMNS(TOP_PCT_ENUM)
	TOP_PCT_MAX,
};
#undef TOP_PCT_ENUM

struct top_pct_col {
	size_t off;		/* of the HIST in struct vmapscope_stats */
	double p;
	const char *name, *hdr;
	int drop;
	enum top_need need;
	bool always;		/* a column even without its feature (n/a) */
};
extern const struct top_pct_col top_pct_cols[TOP_PCT_MAX];

struct top_row {
	uint64_t caller;
	int api;
	char sym[TOP_SYM_LEN];

	/* over the interval (or since start in cumulative mode) */
	uint64_t maps;			/* per maps_src */
	uint64_t bytes;			/* per bytes_src */
	double maps_rate;		/* per second; = maps in cumulative mode */
	double bytes_rate;
	uint64_t gran_bytes;		/* all mapped bytes (every shift) */
	double share[TOP_G_NR];		/* of gran_bytes, 0..1; NAN: nothing mapped */
	double chunk_mean;		/* pages per mapping call; NAN: no call */
	double fall_pct;		/* % of mapping calls that fell back; NAN: none */
	/* the percentile columns (top_pct_cols[]); NAN: nothing timed */
	double pct_ns[TOP_PCT_MAX];
	bool pct_open[TOP_PCT_MAX];	/* estimate fell in the open-ended last slot */
	uint64_t failed;		/* API calls that returned NULL */

	/* /proc/vmallocinfo, at the time of the sample; -1 = unknown */
	int64_t live_areas;
	int64_t live_bytes;

	bool active;			/* any activity in this interval */
};

/* Totals over all rows (before filtering) and the global counters. */
struct top_totals {
	uint64_t maps, bytes, gran_bytes;
	double maps_rate, bytes_rate;
	double share[TOP_G_NR];
	int64_t live_areas, live_bytes;	/* -1 = unknown */
	/* interval deltas of the collector's global counters */
	uint64_t drops_full;		/* stats map full: events not counted */
	uint64_t drops_unattr;		/* mappings outside any chunk context */
	uint64_t drops_lat;		/* exit probe without entry + nested calls */
	uint64_t filtered;		/* dropped by --pid / --api in BPF */
	bool map_full;			/* the stats map is full (cumulative) */
};

struct top_table {
	struct top_row *rows;
	size_t nr, cap;
	double interval_s;		/* length of the interval the rates cover */
	time_t wall;			/* when the newest sample was read */
	bool cumulative;		/* rows show totals since start */
	enum top_maps_src maps_src;
	enum top_bytes_src bytes_src;
	struct top_avail avail;
	struct top_totals tot;
};

/* Live areas of one (caller symbol, api), from /proc/vmallocinfo. */
struct top_live {
	char sym[TOP_SYM_LEN];
	int api;
	uint64_t areas;
	uint64_t bytes;
};

/*
 * Which columns this kernel can fill, from the sample's feature table
 * (reasons included) and the granule geometry of its arch and page size.
 * live_why: NULL when /proc/vmallocinfo was read, else why not.  Every
 * API counts as timed when latency is available; refine av->timed from
 * collector_probes().
 */
void top_avail_from_sample(struct top_avail *av, const struct vmapscope_sample *snap,
			     const char *live_why);

/*
 * Build tab.  cum: cumulative sample (every caller since attach).
 * delta: sample_delta(cum, previous cumulative sample), or NULL
 * before there is a previous one (every row then shows zero).  In
 * cumulative mode delta is ignored and rows show cum's totals ("rates"
 * are totals).  live (may be NULL) fills live_areas / live_bytes of
 * the rows with the same caller symbol and API; with live_rows, callers
 * that only have live areas (no mapping seen since attach) get a row
 * too.  Returns 0 or -ENOMEM.
 */
int top_table_build(struct top_table *tab, const struct vmapscope_sample *cum,
		    const struct vmapscope_sample *delta, const struct top_avail *avail,
		    const struct top_live *live, size_t nr_live, bool cumulative,
		    bool live_rows);
void top_table_free(struct top_table *tab);

/*
 * Percentile p (0 < p <= 1) of a log2 histogram laid out as in hist.h
 * (slot 0: values 0 and 1; slot i: [2^i, 2^(i+1) - 1]).
 * The rank p * N is located in its slot and the value is interpolated
 * linearly inside the slot, i.e. values are assumed to spread evenly
 * over the slot.  The true percentile lies in the same slot, so the
 * estimate is off by less than a factor of two.  If the rank falls in
 * the last, open-ended slot, the slot's lower bound is returned and
 * *open is set.  Returns NAN for an empty histogram.
 */
double top_hist_percentile(const __u64 *hist, unsigned int nr_slots,
			   double p, bool *open);

/* Sort keys = the table's columns (top_format.c shows them in this order). */
enum top_col {
	TOP_COL_CALLER = 0,
	TOP_COL_API,
	TOP_COL_MAPS,
	TOP_COL_BYTES,
	TOP_COL_G_PTE,
	TOP_COL_G_CONT,
	TOP_COL_G_PMD,
	TOP_COL_G_PUD,
	TOP_COL_CHUNK,
	TOP_COL_FALL,
	/* the percentile columns: TOP_COL_PCT + enum top_pct */
#define TOP_COL_ENUM(id, ...) TOP_COL_##id,
	VMAPSCOPE_TOP_COLUMNS(TOP_COL_ENUM)
#undef TOP_COL_ENUM
	TOP_COL_LIVE_AREAS,
	TOP_COL_LIVE_BYTES,
	TOP_COL_MAX,
	TOP_COL_PCT = TOP_COL_FALL + 1,
};

/* The percentile of column @col, or -1 when it is none. */
static inline int top_col_pct(enum top_col col)
{
	return col >= TOP_COL_PCT && col < TOP_COL_PCT + TOP_PCT_MAX ? (int)(col - TOP_COL_PCT) : -1;
}

/*
 * Sort rows by col: numbers descending, names ascending (the natural
 * "top" order); reverse flips it.  Unknown values (NAN, -1) always sort
 * last.  Ties are broken by caller symbol then api, so the order is
 * stable from one refresh to the next.
 */
void top_table_sort(struct top_table *tab, enum top_col col, bool reverse);

/*
 * Keep only rows whose caller symbol or API name contains pattern
 * (case-insensitive); NULL or "" keeps all.  Returns the rows kept.
 */
size_t top_table_filter(struct top_table *tab, const char *pattern);

/* Column parsed from a name ("bytes", "p99", ...); -1 if unknown. */
int top_col_parse(const char *name);
const char *top_col_name(enum top_col col);

#endif /* VMAPSCOPE_TOP_MODEL_H */
