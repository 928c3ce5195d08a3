// SPDX-License-Identifier: GPL-2.0
/* vmaptop row model: rates, shares, percentiles, sort, filter (top_model.h). */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "granule.h"
#include "hist.h"
#include "top_model.h"

#define TOP_PCT_COL(id, field, p, name, hdr, drop, feat, shown)			\
	[TOP_PCT_##id] = { offsetof(struct vmapscope_stats, field), p, name, hdr, drop,	\
			   TOP_NEED_##feat, TOP_SHOWN_##shown },
#define TOP_SHOWN_ALWAYS	true
#define TOP_SHOWN_WITH_FEATURE	false
const struct top_pct_col top_pct_cols[TOP_PCT_MAX] = {
	VMAPSCOPE_TOP_COLUMNS(TOP_PCT_COL)
};
#undef TOP_PCT_COL
#undef TOP_SHOWN_ALWAYS
#undef TOP_SHOWN_WITH_FEATURE

/*
 * The features vmaptop reads, whose absence it explains: the sources of
 * "maps" and "bytes" (pick_maps_src()), the granule and chunk columns,
 * and each percentile column's.
 */
static bool top_reads(enum top_need n)
{
	int k;

	if (n == TOP_NEED_GRANULE || n == TOP_NEED_CHUNK || n == TOP_NEED_AREAS ||
	    n == TOP_NEED_CALL_LATENCY)
		return true;
	for (k = 0; k < TOP_PCT_MAX; k++)
		if (top_pct_cols[k].need == n)
			return true;
	return false;
}

void top_avail_from_sample(struct top_avail *av, const struct vmapscope_sample *snap,
			     const char *live_why)
{
	enum vs_arch arch = arch_from_machine(snap->arch);
	unsigned int shift;
	int f;

	memset(av, 0, sizeof(*av));
	av->have[TOP_NEED_NONE] = true;
	for (f = 0; f < VMAPSCOPE_FEAT_MAX; f++) {
		const struct vmapscope_feature_state *fs = &snap->feat[f];
		enum top_need n = TOP_NEED_NONE + 1 + f;

		av->have[n] = fs->available;
		if (!fs->available && top_reads(n))
			snprintf(av->why[n], sizeof(av->why[n]), "%s", fs->why);
	}
	/*
	 * The kernel stack names a caller by the first function outside the
	 * vmalloc internals; /proc/vmallocinfo, where the live columns and
	 * --all's live rows come from, may name the function one frame up
	 * (an inlined helper passes its caller's return address)
	 */
	if (snap->feat[VMAPSCOPE_FEAT_CALLERS].available &&
	    !strcmp(snap->feat[VMAPSCOPE_FEAT_CALLERS].how, "stack"))
		snprintf(av->callers_note, sizeof(av->callers_note),
			 "callers: named by kernel stack, where /proc/vmallocinfo may name one frame "
			 "up: such a caller's live areas show on a row of their own");
	av->have[TOP_NEED_LIVE] = !live_why;
	if (live_why)
		snprintf(av->why[TOP_NEED_LIVE], sizeof(av->why[TOP_NEED_LIVE]), "%s", live_why);

	/*
	 * Columns by what granule.h calls each shift on this arch and page
	 * size: the page size itself, "... cont", "... PMD", "... PUD".
	 */
	for (shift = snap->page_shift; shift < VMAPSCOPE_NR_SHIFTS; shift++) {
		char lab[48];
		const char *kind;

		granule_label(arch, snap->page_shift, shift, lab, sizeof(lab));
		kind = strchr(lab, ' ');
		if (shift == snap->page_shift)
			av->shift[TOP_G_PTE] = shift;
		else if (kind && !strcmp(kind, " cont"))
			av->shift[TOP_G_CONT] = shift;
		else if (kind && !strcmp(kind, " PMD"))
			av->shift[TOP_G_PMD] = shift;
		else if (kind && !strcmp(kind, " PUD"))
			av->shift[TOP_G_PUD] = shift;
	}
}

double top_hist_percentile(const __u64 *hist, unsigned int nr_slots,
			   double p, bool *open)
{
	uint64_t total = 0, cum = 0;
	unsigned int i;
	double rank;

	if (open)
		*open = false;
	for (i = 0; i < nr_slots; i++)
		total += hist[i];
	if (!total || p <= 0)
		return NAN;
	if (p > 1)
		p = 1;
	rank = p * (double)total;
	for (i = 0; i < nr_slots; i++) {
		double lo, width, frac;

		if (!hist[i] || (double)(cum + hist[i]) < rank) {
			cum += hist[i];
			continue;
		}
		lo = (double)hist_slot_low(i);
		if (hist_slot_high(i, nr_slots) == UINT64_MAX) {
			/* open-ended: no upper bound to interpolate towards */
			if (open)
				*open = true;
			return lo;
		}
		/* the slot covers [low, high + 1) */
		width = (double)hist_slot_high(i, nr_slots) + 1.0 - lo;
		frac = (rank - (double)cum) / (double)hist[i];
		return lo + frac * width;
	}
	return NAN;	/* not reached: cum reaches total >= rank */
}

static uint64_t row_maps(const struct vmapscope_stats *d, enum top_maps_src src)
{
	switch (src) {
	case TOP_MAPS_CHUNKS:	return d->chunks;
	case TOP_MAPS_AREAS:	return d->areas;
	case TOP_MAPS_CALLS:	return d->calls;
	default:		return 0;
	}
}

static void fill_shares(double share[TOP_G_NR], const __u64 *bytes, uint64_t total,
			const struct top_avail *av)
{
	unsigned int g;

	for (g = 0; g < TOP_G_NR; g++) {
		unsigned int s = av->shift[g];

		if (!total || !av->have[TOP_NEED_GRANULE])
			share[g] = NAN;
		else if (!s || s >= VMAPSCOPE_NR_SHIFTS)
			share[g] = 0;	/* granule this kernel cannot produce */
		else
			share[g] = (double)bytes[s] / (double)total;
	}
}

static enum top_maps_src pick_maps_src(const struct top_avail *av)
{
	if (av->have[TOP_NEED_CHUNK])
		return TOP_MAPS_CHUNKS;
	if (av->have[TOP_NEED_AREAS])
		return TOP_MAPS_AREAS;
	if (av->have[TOP_NEED_CALL_LATENCY])
		return TOP_MAPS_CALLS;
	return TOP_MAPS_NONE;
}

/*
 * A live area belongs to a row when caller and API agree: the collector
 * and /proc/vmallocinfo spell callers alike (ksyms.h).  vmallocinfo's
 * flags name the area type: percpu chunks are VM_ALLOC ("vmalloc") areas
 * that the collector files under "other".
 */
static bool live_matches(const struct top_live *l, int api, const char *sym)
{
	if (l->api != api &&
	    !(api == VMAPSCOPE_API_OTHER && l->api == VMAPSCOPE_API_VMALLOC))
		return false;
	return !strcmp(l->sym, sym);
}

static void row_live(struct top_row *r, const struct top_live *live, size_t nr_live,
		     bool have_live)
{
	size_t i;

	r->live_areas = have_live ? 0 : -1;
	r->live_bytes = have_live ? 0 : -1;
	if (!have_live)
		return;
	for (i = 0; i < nr_live; i++) {
		if (!live_matches(&live[i], r->api, r->sym))
			continue;
		r->live_areas += (int64_t)live[i].areas;
		r->live_bytes += (int64_t)live[i].bytes;
	}
}

void top_table_free(struct top_table *tab)
{
	free(tab->rows);
	tab->rows = NULL;
	tab->nr = tab->cap = 0;
}

int top_table_build(struct top_table *tab, const struct vmapscope_sample *cum,
		    const struct vmapscope_sample *delta, const struct top_avail *avail,
		    const struct top_live *live, size_t nr_live, bool cumulative,
		    bool live_rows)
{
	__u64 tot_bytes_by_shift[VMAPSCOPE_NR_SHIFTS] = { 0 };
	static const struct vmapscope_row zero_row;
	struct top_totals *tot = &tab->tot;
	const uint64_t *cnt;
	size_t i, want, nr_cum;
	double dt;

	want = cum->nr_rows + (live_rows && avail->have[TOP_NEED_LIVE] ? nr_live : 0);
	if (want > tab->cap) {
		struct top_row *rows = realloc(tab->rows, want * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		tab->rows = rows;
		tab->cap = want;
	}
	tab->nr = 0;
	tab->avail = *avail;
	tab->cumulative = cumulative;
	tab->maps_src = pick_maps_src(avail);
	tab->bytes_src = avail->have[TOP_NEED_GRANULE] ? TOP_BYTES_MAPPED :
			 avail->have[TOP_NEED_AREAS] ? TOP_BYTES_AREAS : TOP_BYTES_NONE;
	tab->wall = cum->wall.tv_sec;
	tab->interval_s = cumulative ? cum->interval_s : delta ? delta->interval_s : 0;
	/* per second over the interval; totals (and the empty first frame) as is */
	dt = !cumulative && delta && delta->interval_s > 0 ? delta->interval_s : 1;

	memset(tot, 0, sizeof(*tot));
	tot->live_areas = tot->live_bytes = avail->have[TOP_NEED_LIVE] ? 0 : -1;

	for (i = 0; i < cum->nr_rows; i++) {
		const struct vmapscope_row *c = &cum->rows[i], *d;
		struct top_row *r = &tab->rows[tab->nr++];
		unsigned int s;
		int k;

		if (cumulative)
			d = c;
		else if (delta && (d = bsearch(c, delta->rows, delta->nr_rows, sizeof(*c), row_cmp)))
			;
		else
			d = &zero_row;	/* idle in this interval (or no interval yet) */

		memset(r, 0, sizeof(*r));
		r->caller = c->caller;
		r->api = c->api;
		memcpy(r->sym, c->sym, sizeof(r->sym));
		r->sym[sizeof(r->sym) - 1] = 0;
		/* --by: the label as a suffix of the caller column */
		if (by_name(cum->by) && c->label_str[0])
			snprintf(r->sym + strlen(r->sym), sizeof(r->sym) - strlen(r->sym),
				 " @%s", c->label_str);
		r->active = !stats_zero(&d->st);

		r->maps = row_maps(&d->st, tab->maps_src);
		r->gran_bytes = row_total_bytes(d);
		r->bytes = tab->bytes_src == TOP_BYTES_MAPPED ? r->gran_bytes :
			   tab->bytes_src == TOP_BYTES_AREAS ? d->st.area_bytes : 0;
		r->maps_rate = (double)r->maps / dt;
		r->bytes_rate = (double)r->bytes / dt;
		fill_shares(r->share, d->st.bytes, r->gran_bytes, avail);
		r->chunk_mean = avail->have[TOP_NEED_CHUNK] && d->st.chunks ?
				(double)d->st.chunk_pages / (double)d->st.chunks : NAN;
		r->fall_pct = avail->have[TOP_NEED_FALLBACK] && d->st.chunks ?
			      100.0 * (double)d->st.fallback_calls / (double)d->st.chunks : NAN;
		for (k = 0; k < TOP_PCT_MAX; k++) {
			const struct top_pct_col *pc = &top_pct_cols[k];

			r->pct_ns[k] = avail->have[pc->need] ?
				top_hist_percentile((const __u64 *)((const char *)&d->st + pc->off),
						    VMAPSCOPE_HIST_SLOTS, pc->p, &r->pct_open[k]) :
				NAN;
		}
		/* failed mapping calls, else failed probed calls */
		r->failed = avail->have[TOP_NEED_CHUNK] ? d->st.map_failed : d->st.failed;
		row_live(r, live, nr_live, avail->have[TOP_NEED_LIVE]);

		tot->maps += r->maps;
		tot->bytes += r->bytes;
		tot->gran_bytes += r->gran_bytes;
		for (s = 0; s < VMAPSCOPE_NR_SHIFTS; s++)
			tot_bytes_by_shift[s] += d->st.bytes[s];
	}
	nr_cum = tab->nr;
	for (i = 0; live_rows && avail->have[TOP_NEED_LIVE] && i < nr_live; i++) {
		struct top_row *r;
		size_t k;
		int j;

		/* already shown as a row of the collector's? */
		for (k = 0; k < nr_cum; k++)
			if (live_matches(&live[i], tab->rows[k].api, tab->rows[k].sym))
				break;
		if (k < nr_cum)
			continue;
		r = &tab->rows[tab->nr++];
		memset(r, 0, sizeof(*r));
		r->api = live[i].api;
		memcpy(r->sym, live[i].sym, sizeof(r->sym));
		fill_shares(r->share, NULL, 0, avail);
		r->chunk_mean = NAN;
		r->fall_pct = NAN;
		for (j = 0; j < TOP_PCT_MAX; j++)
			r->pct_ns[j] = NAN;
		r->live_areas = (int64_t)live[i].areas;
		r->live_bytes = (int64_t)live[i].bytes;
	}

	tot->maps_rate = (double)tot->maps / dt;
	tot->bytes_rate = (double)tot->bytes / dt;
	fill_shares(tot->share, tot_bytes_by_shift, tot->gran_bytes, avail);
	/* live totals cover every area, including callers without a row */
	if (avail->have[TOP_NEED_LIVE]) {
		for (i = 0; i < nr_live; i++) {
			tot->live_areas += (int64_t)live[i].areas;
			tot->live_bytes += (int64_t)live[i].bytes;
		}
	}

	/* drops: of this interval, or since attach in cumulative mode */
	cnt = cumulative ? cum->counters : delta ? delta->counters : NULL;
	if (cnt) {
		tot->drops_full = cnt[VMAPSCOPE_CNT_STATS_FULL];
		tot->drops_unattr = cnt[VMAPSCOPE_CNT_UNATTRIBUTED];
		tot->drops_lat = cnt[VMAPSCOPE_CNT_LAT_NO_ENTRY] + cnt[VMAPSCOPE_CNT_LAT_NESTED];
		tot->filtered = cnt[VMAPSCOPE_CNT_FILTERED];
	}
	tot->map_full = cum->counters[VMAPSCOPE_CNT_STATS_FULL] > 0;
	return 0;
}

/* ---- sorting ---------------------------------------------------------- */

static double col_value(const struct top_row *r, enum top_col col)
{
	switch (col) {
	case TOP_COL_MAPS:	return r->maps_rate;
	case TOP_COL_BYTES:	return r->bytes_rate;
	case TOP_COL_G_PTE:	return r->share[TOP_G_PTE];
	case TOP_COL_G_CONT:	return r->share[TOP_G_CONT];
	case TOP_COL_G_PMD:	return r->share[TOP_G_PMD];
	case TOP_COL_G_PUD:	return r->share[TOP_G_PUD];
	case TOP_COL_CHUNK:	return r->chunk_mean;
	case TOP_COL_FALL:	return r->fall_pct;
	case TOP_COL_LIVE_AREAS: return r->live_areas < 0 ? NAN : (double)r->live_areas;
	case TOP_COL_LIVE_BYTES: return r->live_bytes < 0 ? NAN : (double)r->live_bytes;
	default:
		return top_col_pct(col) >= 0 ? r->pct_ns[top_col_pct(col)] : NAN;
	}
}

static enum top_col sort_col;
static bool sort_reverse;

static int cmp_names(const struct top_row *a, const struct top_row *b)
{
	int c = strcmp(a->sym, b->sym);

	if (c)
		return c;
	return (a->api > b->api) - (a->api < b->api);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int c;

	if (sort_col == TOP_COL_CALLER) {
		c = cmp_names(a, b);
		return sort_reverse ? -c : c;
	}
	if (sort_col == TOP_COL_API) {
		c = strcmp(api_name(a->api), api_name(b->api));
		if (sort_reverse)
			c = -c;
	} else {
		double va = col_value(a, sort_col), vb = col_value(b, sort_col);

		/* unknown sorts last whichever the direction */
		if (isnan(va) != isnan(vb))
			return isnan(va) ? 1 : -1;
		c = isnan(va) ? 0 : (va < vb) - (va > vb);	/* descending */
		if (sort_reverse)
			c = -c;
	}
	return c ? c : cmp_names(a, b);
}

void top_table_sort(struct top_table *tab, enum top_col col, bool reverse)
{
	/* qsort has no context argument in C11; vmaptop is single-threaded */
	sort_col = col;
	sort_reverse = reverse;
	if (tab->nr > 1)
		qsort(tab->rows, tab->nr, sizeof(*tab->rows), cmp_rows);
}

size_t top_table_filter(struct top_table *tab, const char *pattern)
{
	size_t i, kept = 0;

	if (!pattern || !*pattern)
		return tab->nr;
	for (i = 0; i < tab->nr; i++) {
		const struct top_row *r = &tab->rows[i];

		if (!strcasestr(r->sym, pattern) && !strcasestr(api_name(r->api), pattern))
			continue;
		if (kept != i)
			tab->rows[kept] = *r;
		kept++;
	}
	tab->nr = kept;
	return kept;
}

/* ---- column names ----------------------------------------------------- */

static const char *const col_names[TOP_COL_MAX] = {
	[TOP_COL_CALLER]	= "caller",
	[TOP_COL_API]		= "api",
	[TOP_COL_MAPS]		= "maps",
	[TOP_COL_BYTES]		= "bytes",
	[TOP_COL_G_PTE]		= "pte",
	[TOP_COL_G_CONT]	= "cont",
	[TOP_COL_G_PMD]		= "pmd",
	[TOP_COL_G_PUD]		= "pud",
	[TOP_COL_CHUNK]		= "chunk",
	[TOP_COL_FALL]		= "fall",
#define TOP_COL_NAME(id, field, p, name, ...) [TOP_COL_##id] = name,
	VMAPSCOPE_TOP_COLUMNS(TOP_COL_NAME)
#undef TOP_COL_NAME
	[TOP_COL_LIVE_AREAS]	= "areas",
	[TOP_COL_LIVE_BYTES]	= "live",
};

const char *top_col_name(enum top_col col)
{
	return col >= 0 && col < TOP_COL_MAX ? col_names[col] : "?";
}

int top_col_parse(const char *name)
{
	int i;

	for (i = 0; i < TOP_COL_MAX; i++)
		if (!strcasecmp(name, col_names[i]))
			return i;
	return -1;
}
