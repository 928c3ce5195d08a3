// SPDX-License-Identifier: GPL-2.0
/* vmaptop text formatting (top_format.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "granule.h"
#include "top_format.h"

struct colspec {
	const char *hdr;	/* NULL: built from the granule size */
	const char *hdr_cum;	/* header in cumulative mode, NULL = same */
	int width;		/* fixed width; the caller column is flexible */
	bool left;		/* left-aligned */
	enum top_need need;	/* feature without which the column is n/a */
	int drop;		/* 0 = never dropped; else lower drops first */
	bool with_need;		/* a column only when its feature is there */
};

static const struct colspec fixed_cols[TOP_COL_MAX] = {
	[TOP_COL_CALLER]	= { "CALLER", NULL, 0, true, TOP_NEED_NONE, 0 },
	[TOP_COL_API]		= { "API", NULL, 7, true, TOP_NEED_NONE, 8 },
	[TOP_COL_MAPS]		= { "MAPS/s", "MAPS", 6, false, TOP_NEED_NONE, 0 },
	[TOP_COL_BYTES]		= { "BYTES/s", "BYTES", 7, false, TOP_NEED_NONE, 0 },
	[TOP_COL_G_PTE]		= { NULL, NULL, 4, false, TOP_NEED_GRANULE, 0 },
	[TOP_COL_G_CONT]	= { NULL, NULL, 4, false, TOP_NEED_GRANULE, 6 },
	[TOP_COL_G_PMD]		= { NULL, NULL, 4, false, TOP_NEED_GRANULE, 0 },
	[TOP_COL_G_PUD]		= { NULL, NULL, 4, false, TOP_NEED_GRANULE, 3 },
	[TOP_COL_CHUNK]		= { "CHUNK", NULL, 5, false, TOP_NEED_CHUNK, 4 },
	/* mapping calls that fell back to smaller granules, % (vmap_mapped) */
	[TOP_COL_FALL]		= { "FALL%", NULL, 5, false, TOP_NEED_FALLBACK, 2, true },
	/* the percentile columns: top_pct_cols[], filled in by col_spec() */
	[TOP_COL_LIVE_AREAS]	= { "AREAS", NULL, 5, false, TOP_NEED_LIVE, 1 },
	[TOP_COL_LIVE_BYTES]	= { "LIVE", NULL, 5, false, TOP_NEED_LIVE, 5 },
};

/* A column's spec: its line of fixed_cols[], or of the percentile table. */
static struct colspec col_spec(enum top_col c)
{
	int k = top_col_pct(c);

	if (k < 0)
		return fixed_cols[c];
	return (struct colspec){ .hdr = top_pct_cols[k].hdr, .width = TOP_NS_MAX,
				 .need = top_pct_cols[k].need, .drop = top_pct_cols[k].drop,
				 .with_need = !top_pct_cols[k].always };
}

static const enum top_granule col_granule[TOP_COL_MAX] = {
	[TOP_COL_G_PTE] = TOP_G_PTE, [TOP_COL_G_CONT] = TOP_G_CONT,
	[TOP_COL_G_PMD] = TOP_G_PMD, [TOP_COL_G_PUD] = TOP_G_PUD,
};

static bool is_granule_col(enum top_col c)
{
	return c >= TOP_COL_G_PTE && c <= TOP_COL_G_PUD;
}

/* ---- numbers ---------------------------------------------------------- */

/*
 * Scaled output: at most 5 characters.  Below 10 units one decimal
 * ("9.9K"), below 1000 none ("999K"); a value that would round to 1000
 * moves to the next unit ("1.0M").
 */
static char *fmt_scaled(char *buf, size_t len, double v, double base, const char *units)
{
	int u = 0;

	if (isnan(v) || v < 0) {
		snprintf(buf, len, "%s", TOP_NODATA);
		return buf;
	}
	if (v < 999.5) {
		if (v == floor(v) || v >= 9.95)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%.1f", v);
		return buf;
	}
	while (v >= 999.5 && units[u + 1]) {
		v /= base;
		u++;
	}
	if (v < 9.95)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
	return buf;
}

char *top_fmt_count(char *buf, size_t len, double v)
{
	return fmt_scaled(buf, len, v, 1000.0, " kMGTPE");
}

char *top_fmt_bytes(char *buf, size_t len, double v)
{
	return fmt_scaled(buf, len, v, 1024.0, " KMGTPE");
}

char *top_fmt_ns(char *buf, size_t len, double ns, bool open)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	const char *pre = open ? ">" : "";
	int u = 0;

	if (isnan(ns) || ns < 0) {
		snprintf(buf, len, "%s", TOP_NODATA);
		return buf;
	}
	while (ns >= 999.5 && u < 3) {
		ns /= 1000.0;
		u++;
	}
	if (u == 3 && ns >= 999.5) {
		/* 1000 s or more: a latency this long is a stuck call; cap it */
		snprintf(buf, len, ">999s");
		return buf;
	}
	if (u && ns < 9.95)
		snprintf(buf, len, "%s%.1f%s", pre, ns, unit[u]);
	else
		snprintf(buf, len, "%s%.0f%s", pre, ns, unit[u]);
	return buf;
}

/* ---- layout ----------------------------------------------------------- */

static bool col_possible(const struct top_table *tab, enum top_col c)
{
	/* a granule the kernel cannot produce is not a column at all */
	if (is_granule_col(c) && !tab->avail.shift[col_granule[c]])
		return false;
	/* columns of what an option asks for (--call-latency, ...): none otherwise */
	if (col_spec(c).with_need && !tab->avail.have[col_spec(c).need])
		return false;
	return true;
}

static int layout_sum(const struct top_layout *lo)
{
	int i, sum = 0;

	for (i = 0; i < lo->nr; i++)
		sum += lo->width[lo->col[i]] + (i ? 1 : 0);
	return sum;
}

static void layout_drop(struct top_layout *lo, enum top_col c)
{
	int i, j;

	for (i = j = 0; i < lo->nr; i++)
		if (lo->col[i] != c)
			lo->col[j++] = lo->col[i];
	lo->nr = j;
	lo->width[c] = 0;
}

int top_layout_make(struct top_layout *lo, const struct top_table *tab, int width)
{
	int c, caller = (int)strlen(col_spec(TOP_COL_CALLER).hdr);
	size_t i;

	memset(lo, 0, sizeof(*lo));
	for (c = 0; c < TOP_COL_MAX; c++) {
		if (!col_possible(tab, c))
			continue;
		lo->col[lo->nr++] = c;
		lo->width[c] = col_spec(c).width;
	}
	if (width <= 0) {
		/* batch: never truncate a symbol; tests and scripts match on it */
		for (i = 0; i < tab->nr; i++) {
			int l = (int)strlen(tab->rows[i].sym);

			if (l > caller)
				caller = l;
		}
		lo->width[TOP_COL_CALLER] = caller;
		lo->total = layout_sum(lo);
		return 0;
	}

	/* screen: give the caller what is left, dropping columns if needed */
	for (;;) {
		int rest, best = -1;

		lo->width[TOP_COL_CALLER] = 0;
		rest = width - layout_sum(lo) - 1;
		if (rest >= TOP_CALLER_MIN) {
			lo->width[TOP_COL_CALLER] = rest;
			break;
		}
		for (i = 0; i < (size_t)lo->nr; i++) {
			c = lo->col[i];
			if (col_spec(c).drop && (best < 0 || col_spec(c).drop < col_spec(best).drop))
				best = c;
		}
		if (best < 0) {
			lo->width[TOP_COL_CALLER] = TOP_CALLER_MIN;
			lo->total = layout_sum(lo);
			return -1;
		}
		layout_drop(lo, best);
	}
	lo->total = layout_sum(lo);
	return 0;
}

/* ---- cells and lines -------------------------------------------------- */

static const char *api_short(int api)
{
	switch (api) {
	case VMAPSCOPE_API_VM_MAP_RAM:	return "map_ram";
	case VMAPSCOPE_API_UNATTRIBUTED: return "-";	/* the caller says "[unattributed]" */
	}
	return api_name(api);
}

/* Values never exceed their column; symbols may and are cut at its width. */
static void put_cell(char **p, char *end, const char *s, int width, bool left, bool first)
{
	int n = snprintf(*p, end - *p + 1, left ? "%s%-*.*s" : "%s%*.*s",
			 first ? "" : " ", width, width, s);

	*p += n < end - *p ? n : end - *p;
}

static const char *col_header(char *buf, size_t len, const struct top_table *tab, enum top_col c)
{
	if (is_granule_col(c)) {
		char lab[16];

		size_label(tab->avail.shift[col_granule[c]], lab, sizeof(lab));
		snprintf(buf, len, "%s%%", lab);
		return buf;
	}
	if (tab->cumulative && col_spec(c).hdr_cum)
		return col_spec(c).hdr_cum;
	return col_spec(c).hdr;
}

void top_fmt_colhdr(char *buf, size_t len, const struct top_layout *lo,
		    const struct top_table *tab)
{
	char *p = buf, *end = buf + len - 1;
	char tmp[32];
	int i;

	for (i = 0; i < lo->nr; i++) {
		enum top_col c = lo->col[i];

		put_cell(&p, end, col_header(tmp, sizeof(tmp), tab, c), lo->width[c],
			 col_spec(c).left, i == 0);
	}
	*p = 0;
}

static const char *cell(char *buf, size_t len, const struct top_table *tab,
			const struct top_row *r, enum top_col c)
{
	const struct top_avail *av = &tab->avail;
	double v;

	if (col_spec(c).need != TOP_NEED_NONE && !av->have[col_spec(c).need])
		return TOP_MISSING;
	switch (c) {
	case TOP_COL_CALLER:
		return r->sym[0] ? r->sym : "?";
	case TOP_COL_API:
		return api_short(r->api);
	case TOP_COL_MAPS:
		if (tab->maps_src == TOP_MAPS_NONE)
			return TOP_MISSING;
		return top_fmt_count(buf, len, r->maps_rate);
	case TOP_COL_BYTES:
		if (tab->bytes_src == TOP_BYTES_NONE)
			return TOP_MISSING;
		return top_fmt_bytes(buf, len, r->bytes_rate);
	case TOP_COL_G_PTE: case TOP_COL_G_CONT: case TOP_COL_G_PMD: case TOP_COL_G_PUD:
		v = r->share[col_granule[c]] * 100.0;
		if (isnan(v))
			return TOP_NODATA;
		if (v > 0 && v < 0.5)
			return "<1";	/* "0" would hide a small but real share */
		snprintf(buf, len, "%.0f", v);
		return buf;
	case TOP_COL_CHUNK:
		return top_fmt_count(buf, len, r->chunk_mean);
	case TOP_COL_FALL:
		if (isnan(r->fall_pct))
			return TOP_NODATA;
		if (r->fall_pct > 0 && r->fall_pct < 0.5)
			return "<1";
		snprintf(buf, len, "%.0f", r->fall_pct);
		return buf;
	case TOP_COL_LIVE_AREAS:
		return r->live_areas < 0 ? TOP_NODATA : top_fmt_count(buf, len, (double)r->live_areas);
	case TOP_COL_LIVE_BYTES:
		return r->live_bytes < 0 ? TOP_NODATA : top_fmt_bytes(buf, len, (double)r->live_bytes);
	default:
		if (top_col_pct(c) >= 0)
			return top_fmt_ns(buf, len, r->pct_ns[top_col_pct(c)],
					  r->pct_open[top_col_pct(c)]);
		return "?";
	}
}

void top_fmt_row(char *buf, size_t len, const struct top_layout *lo,
		 const struct top_table *tab, const struct top_row *r)
{
	char *p = buf, *end = buf + len - 1;
	char tmp[32];
	int i;

	for (i = 0; i < lo->nr; i++) {
		enum top_col c = lo->col[i];

		put_cell(&p, end, cell(tmp, sizeof(tmp), tab, r, c), lo->width[c],
			 col_spec(c).left, i == 0);
	}
	*p = 0;
}

static const char *const maps_src_name[] = {
	[TOP_MAPS_NONE] = "n/a", [TOP_MAPS_CHUNKS] = "calls",
	[TOP_MAPS_AREAS] = "areas", [TOP_MAPS_CALLS] = "probed calls",
};
static const char *const bytes_src_name[] = {
	[TOP_BYTES_NONE] = "n/a", [TOP_BYTES_MAPPED] = "mapped",
	[TOP_BYTES_AREAS] = "area sizes",
};

int top_fmt_summary(char (*lines)[TOP_LINE_MAX], int max, const struct top_table *tab,
		    const struct top_view *view, time_t now, size_t shown)
{
	const struct top_totals *t = &tab->tot;
	const char *rate = tab->cumulative ? "" : "/s";
	char a[16], b[16], c[16], tm[16];
	struct tm lt;
	int n = 0, g, off;

	if (max <= 0)
		return 0;
	localtime_r(&now, &lt);
	strftime(tm, sizeof(tm), "%H:%M:%S", &lt);
	off = snprintf(lines[n], TOP_LINE_MAX, "vmaptop %s  %s %.2fs  maps %s%s (%s)  bytes %s%s (%s)",
		       tm, tab->cumulative ? "since start" : "interval", tab->interval_s,
		       top_fmt_count(a, sizeof(a), t->maps_rate), rate, maps_src_name[tab->maps_src],
		       top_fmt_bytes(b, sizeof(b), t->bytes_rate), rate,
		       bytes_src_name[tab->bytes_src]);
	if (tab->avail.have[TOP_NEED_GRANULE] && t->gran_bytes) {
		for (g = 0; g < TOP_G_NR && off < TOP_LINE_MAX; g++) {
			if (!tab->avail.shift[g])
				continue;
			off += snprintf(lines[n] + off, TOP_LINE_MAX - off, " %s %.0f%%",
					(size_label(tab->avail.shift[g], c, sizeof(c)), c),
					t->share[g] * 100.0);
		}
	}
	if (t->live_areas >= 0 && off < TOP_LINE_MAX)
		snprintf(lines[n] + off, TOP_LINE_MAX - off, "  live %s areas %s",
			 top_fmt_count(a, sizeof(a), (double)t->live_areas),
			 top_fmt_bytes(b, sizeof(b), (double)t->live_bytes));
	n++;

	if (n < max) {
		snprintf(lines[n++], TOP_LINE_MAX,
			 "drops: map-full %llu  unattributed %llu  latency-unmatched %llu  filtered %llu%s",
			 (unsigned long long)t->drops_full, (unsigned long long)t->drops_unattr,
			 (unsigned long long)t->drops_lat, (unsigned long long)t->filtered,
			 t->map_full ? "  STATS MAP FULL: rows missing" : "");
	}
	if (n < max && view) {
		off = snprintf(lines[n], TOP_LINE_MAX, "rows %zu/%zu  sort %s%s",
			       shown, tab->nr, top_col_name(view->sort),
			       view->reverse ? " (reversed)" : "");
		if (view->filter[0] && off < TOP_LINE_MAX)
			off += snprintf(lines[n] + off, TOP_LINE_MAX - off, "  filter '%s'",
					view->filter);
		if (view->paused && off < TOP_LINE_MAX)
			snprintf(lines[n] + off, TOP_LINE_MAX - off, "  PAUSED");
		n++;
	}
	/*
	 * The collector's reasons start with the feature name already.  A
	 * missing column without one was not asked for (its option) or is
	 * explained by another's line (no calls where the granule line says
	 * the series is missing).
	 */
	if (tab->avail.callers_note[0] && n < max)
		snprintf(lines[n++], TOP_LINE_MAX, "%s", tab->avail.callers_note);
	for (g = TOP_NEED_GRANULE; g < TOP_NEED_MAX && n < max; g++)
		if (!tab->avail.have[g] && tab->avail.why[g][0]) {
			snprintf(lines[n], TOP_LINE_MAX, "%s %s", TOP_MISSING, tab->avail.why[g]);
			if (view && view->ascii)
				top_ascii(lines[n]);
			n++;
		}
	return n;
}

void top_ascii(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;

	while (*r) {
		if (r[0] == 0xe2 && r[1] == 0x80 && r[2] == 0x94) {
			*w++ = '-';
			r += 3;
		} else if (*r >= 0x80) {
			*w++ = '?';
			/* the rest of the character: continuation bytes */
			for (r++; (*r & 0xc0) == 0x80; r++)
				;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}
