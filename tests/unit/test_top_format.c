// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop formatting: number formatters stay within their widths over
 * the whole range, rows are exactly as wide as the layout, narrow screens
 * drop low-priority columns, and missing columns are marked n/a with the
 * reason in the summary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "top_format.h"

static void test_count_and_bytes(void **state)
{
	char b[32];

	assert_string_equal(top_fmt_count(b, sizeof(b), 0), "0");
	assert_string_equal(top_fmt_count(b, sizeof(b), 0.5), "0.5");
	assert_string_equal(top_fmt_count(b, sizeof(b), 7), "7");
	assert_string_equal(top_fmt_count(b, sizeof(b), 12.4), "12");
	assert_string_equal(top_fmt_count(b, sizeof(b), 999), "999");
	assert_string_equal(top_fmt_count(b, sizeof(b), 999.7), "1.0k");
	assert_string_equal(top_fmt_count(b, sizeof(b), 1500), "1.5k");
	assert_string_equal(top_fmt_count(b, sizeof(b), 45e6), "45M");
	assert_string_equal(top_fmt_count(b, sizeof(b), NAN), TOP_NODATA);

	assert_string_equal(top_fmt_bytes(b, sizeof(b), 512), "512");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), 4096), "4.0K");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), 20480), "20K");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), 2 << 20), "2.0M");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), 1023.0 * 1024), "1.0M");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), 3.0 * (1ULL << 30)), "3.0G");
	assert_string_equal(top_fmt_bytes(b, sizeof(b), -1), TOP_NODATA);
}

static void test_ns(void **state)
{
	char b[32];

	assert_string_equal(top_fmt_ns(b, sizeof(b), 850, false), "850ns");
	assert_string_equal(top_fmt_ns(b, sizeof(b), 1536, false), "1.5us");
	assert_string_equal(top_fmt_ns(b, sizeof(b), 12300, false), "12us");
	assert_string_equal(top_fmt_ns(b, sizeof(b), 1.2e6, false), "1.2ms");
	assert_string_equal(top_fmt_ns(b, sizeof(b), 34.4e9, true), ">34s");
	assert_string_equal(top_fmt_ns(b, sizeof(b), 5e12, false), ">999s");
	assert_string_equal(top_fmt_ns(b, sizeof(b), NAN, false), TOP_NODATA);
}

/* Sweep 0 .. 1e19 in small geometric steps: nothing is ever too wide. */
static void test_widths_over_range(void **state)
{
	char b[64];
	double v;

	for (v = 0.01; v < 1.8e19; v *= 1.013) {
		assert_true(strlen(top_fmt_count(b, sizeof(b), v)) <= TOP_NUM_MAX);
		assert_true(strlen(top_fmt_bytes(b, sizeof(b), v)) <= TOP_NUM_MAX);
		assert_true(strlen(top_fmt_ns(b, sizeof(b), v, false)) <= TOP_NS_MAX);
		assert_true(strlen(top_fmt_ns(b, sizeof(b), v, true)) <= TOP_NS_MAX);
	}
}

/* ---- layout and rows ---- */

static void make_table(struct top_table *t, const char *arch, bool granule, bool latency)
{
	static const char *const syms[] = {
		"fix_size_alloc_test+0x3c/0x90 [test_vmalloc]", "short", "",
	};
	size_t i;
	int n;

	memset(t, 0, sizeof(*t));
	for (n = 0; n < TOP_NEED_MAX; n++)
		t->avail.have[n] = true;
	t->avail.have[TOP_NEED_GRANULE] = granule;
	t->avail.have[TOP_NEED_LATENCY] = latency;
	if (!granule)
		snprintf(t->avail.why[TOP_NEED_GRANULE], 256,
			 "granule: kernel lacks vmalloc:vmap_set_ptes — apply kernel-patches/linux-6.12");
	if (!latency)
		snprintf(t->avail.why[TOP_NEED_LATENCY], 256, "latency: no fentry/kprobe");
	t->avail.shift[TOP_G_PTE] = 12;
	t->avail.shift[TOP_G_CONT] = strcmp(arch, "arm64") ? 0 : 16;
	t->avail.shift[TOP_G_PMD] = 21;
	t->avail.shift[TOP_G_PUD] = 30;
	t->maps_src = TOP_MAPS_CHUNKS;
	t->bytes_src = TOP_BYTES_MAPPED;
	t->interval_s = 1;
	t->nr = t->cap = 3;
	t->rows = calloc(3, sizeof(*t->rows));
	for (i = 0; i < 3; i++) {
		struct top_row *r = &t->rows[i];

		snprintf(r->sym, sizeof(r->sym), "%s", syms[i]);
		r->api = VMAPSCOPE_API_VMALLOC;
		r->maps_rate = i ? 0 : 123456;
		r->bytes_rate = i ? 0 : 1.5e12;
		r->share[TOP_G_PTE] = i ? NAN : 0.004;
		r->share[TOP_G_CONT] = i ? NAN : 0;
		r->share[TOP_G_PMD] = i ? NAN : 0.996;
		r->share[TOP_G_PUD] = i ? NAN : 0;
		r->chunk_mean = i ? NAN : 512;
		r->pct_ns[TOP_PCT_P50] = i ? NAN : 2500;
		r->pct_ns[TOP_PCT_P99] = i ? NAN : 4e10;
		r->pct_open[TOP_PCT_P99] = !i;
		r->live_areas = i == 2 ? -1 : 12345;
		r->live_bytes = i == 2 ? -1 : 7e9;
	}
	t->tot.live_areas = t->tot.live_bytes = -1;
}

/* The text of the cell of column c in a formatted line. */
static void cell_of(const struct top_layout *lo, const char *line, enum top_col c, char *out)
{
	int i, x = 0;

	for (i = 0; i < lo->nr; i++) {
		if (lo->col[i] == c) {
			int w = lo->width[c], s = x;

			while (w > 0 && line[s] == ' ')
				s++, w--;
			memcpy(out, line + s, w);
			out[w] = 0;
			while (w > 0 && out[w - 1] == ' ')
				out[--w] = 0;
			return;
		}
		x += lo->width[lo->col[i]] + 1;
	}
	fail_msg("column %d not in layout", c);
}

static bool has_col(const struct top_layout *lo, enum top_col c)
{
	int i;

	for (i = 0; i < lo->nr; i++)
		if (lo->col[i] == c)
			return true;
	return false;
}

static void test_batch_layout_rows_exact_width(void **state)
{
	struct top_table t;
	struct top_layout lo;
	char line[512], c[64];
	size_t i;

	make_table(&t, "x86_64", true, true);
	assert_int_equal(top_layout_make(&lo, &t, 0), 0);
	/* batch never truncates the caller */
	assert_int_equal(lo.width[TOP_COL_CALLER], strlen(t.rows[0].sym));
	assert_false(has_col(&lo, TOP_COL_G_CONT));	/* x86 has no cont-PTE */
	top_fmt_colhdr(line, sizeof(line), &lo, &t);
	assert_int_equal(strlen(line), lo.total);
	assert_non_null(strstr(line, "4K%"));
	assert_non_null(strstr(line, "2M%"));
	assert_non_null(strstr(line, "1G%"));
	assert_null(strstr(line, "64K%"));
	assert_non_null(strstr(line, "BYTES/s"));
	for (i = 0; i < t.nr; i++) {
		top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[i]);
		assert_int_equal(strlen(line), lo.total);
	}
	top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[0]);
	assert_int_equal(strncmp(line, t.rows[0].sym, strlen(t.rows[0].sym)), 0);
	cell_of(&lo, line, TOP_COL_G_PTE, c);
	assert_string_equal(c, "<1");		/* 0.4 %: small but not zero */
	cell_of(&lo, line, TOP_COL_G_PMD, c);
	assert_string_equal(c, "100");
	cell_of(&lo, line, TOP_COL_P99, c);
	assert_string_equal(c, ">40s");
	cell_of(&lo, line, TOP_COL_BYTES, c);
	assert_string_equal(c, "1.4T");
	cell_of(&lo, line, TOP_COL_API, c);
	assert_string_equal(c, "vmalloc");
	/* a row without data: "-", not n/a */
	top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[1]);
	cell_of(&lo, line, TOP_COL_G_PMD, c);
	assert_string_equal(c, TOP_NODATA);
	cell_of(&lo, line, TOP_COL_LIVE_AREAS, c);
	assert_string_equal(c, "12k");
	/* the widest count fits its column */
	t.rows[1].maps_rate = 1.8e18;
	top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[1]);
	assert_int_equal(strlen(line), lo.total);
	cell_of(&lo, line, TOP_COL_MAPS, c);
	assert_string_equal(c, "1.8E");
	/* empty symbol shows "?" */
	top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[2]);
	assert_int_equal(line[0], '?');
	top_table_free(&t);

	/* arm64: the 64K column exists */
	make_table(&t, "arm64", true, true);
	top_layout_make(&lo, &t, 0);
	assert_true(has_col(&lo, TOP_COL_G_CONT));
	top_fmt_colhdr(line, sizeof(line), &lo, &t);
	assert_non_null(strstr(line, "64K%"));
	top_table_free(&t);
}

static void test_missing_columns_marked(void **state)
{
	char lines[16][TOP_LINE_MAX], line[512], c[64];
	struct top_view view = { .sort = TOP_COL_BYTES };
	struct top_table t;
	struct top_layout lo;
	int n, i, found = 0;

	make_table(&t, "x86_64", false, false);
	top_layout_make(&lo, &t, 0);
	top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[0]);
	assert_int_equal(strlen(line), lo.total);
	cell_of(&lo, line, TOP_COL_G_PTE, c);
	assert_string_equal(c, TOP_MISSING);
	cell_of(&lo, line, TOP_COL_G_PUD, c);
	assert_string_equal(c, TOP_MISSING);
	cell_of(&lo, line, TOP_COL_P50, c);
	assert_string_equal(c, TOP_MISSING);
	cell_of(&lo, line, TOP_COL_CHUNK, c);	/* chunk is available */
	assert_string_equal(c, "512");

	n = top_fmt_summary(lines, 16, &t, &view, 0, t.nr);
	for (i = 0; i < n; i++) {
		if (!strcmp(lines[i], "n/a granule: kernel lacks vmalloc:vmap_set_ptes — "
			    "apply kernel-patches/linux-6.12"))
			found |= 1;
		if (!strcmp(lines[i], "n/a latency: no fentry/kprobe"))
			found |= 2;
		if (strstr(lines[i], "n/a chunk"))
			found |= 4;
	}
	assert_int_equal(found, 3);
	/* a terminal that is not UTF-8 (the C locale) gets ASCII only */
	view.ascii = true;
	n = top_fmt_summary(lines, 16, &t, &view, 0, t.nr);
	found = 0;
	for (i = 0; i < n; i++) {
		for (const char *p = lines[i]; *p; p++)
			assert_true((unsigned char)*p < 0x80);
		if (!strcmp(lines[i], "n/a granule: kernel lacks vmalloc:vmap_set_ptes - "
			    "apply kernel-patches/linux-6.12"))
			found |= 1;
	}
	assert_int_equal(found, 1);
	top_table_free(&t);
}

static void test_ascii(void **state)
{
	char s[64];

	(void)state;
	snprintf(s, sizeof(s), "a \xe2\x80\x94 b \xc3\xa9 \xf0\x9f\x98\x80 c");
	top_ascii(s);
	assert_string_equal(s, "a - b ? ? c");
}

static void test_summary_lines(void **state)
{
	char lines[16][TOP_LINE_MAX];
	struct top_view view = { .sort = TOP_COL_P99, .reverse = true, .paused = true };
	struct top_table t;
	int n;

	make_table(&t, "x86_64", true, true);
	snprintf(view.filter, sizeof(view.filter), "test_vm");
	t.tot.drops_full = 3;
	t.tot.map_full = true;
	t.tot.maps_rate = 10;
	n = top_fmt_summary(lines, 16, &t, &view, 0, 1);
	assert_int_equal(n, 3);		/* nothing missing: no n/a lines */
	assert_non_null(strstr(lines[0], "interval 1.00s"));
	assert_non_null(strstr(lines[0], "maps 10/s (calls)"));
	assert_non_null(strstr(lines[1], "map-full 3"));
	assert_non_null(strstr(lines[1], "STATS MAP FULL"));
	assert_non_null(strstr(lines[2], "rows 1/3"));
	assert_non_null(strstr(lines[2], "sort p99 (reversed)"));
	assert_non_null(strstr(lines[2], "filter 'test_vm'"));
	assert_non_null(strstr(lines[2], "PAUSED"));
	/* a short screen gets fewer lines, never more than asked */
	assert_int_equal(top_fmt_summary(lines, 1, &t, &view, 0, 1), 1);
	t.cumulative = true;
	top_fmt_summary(lines, 1, &t, &view, 0, 1);
	assert_non_null(strstr(lines[0], "since start"));
	top_table_free(&t);
}

static void test_screen_layout_narrowing(void **state)
{
	struct top_table t;
	struct top_layout lo, wide;
	char line[512];
	int w;

	make_table(&t, "arm64", true, true);
	assert_int_equal(top_layout_make(&wide, &t, 200), 0);
	assert_int_equal(wide.total, 199);
	assert_int_equal(wide.nr, TOP_COL_MAX);

	for (w = TOP_MIN_COLS; w <= 200; w++) {
		size_t i;

		assert_int_equal(top_layout_make(&lo, &t, w), 0);
		assert_true(lo.total < w);
		assert_true(lo.width[TOP_COL_CALLER] >= TOP_CALLER_MIN);
		/* the essentials survive every width */
		assert_true(has_col(&lo, TOP_COL_CALLER) && has_col(&lo, TOP_COL_MAPS) &&
			    has_col(&lo, TOP_COL_BYTES) && has_col(&lo, TOP_COL_G_PTE) &&
			    has_col(&lo, TOP_COL_G_PMD));
		for (i = 0; i < t.nr; i++) {
			top_fmt_row(line, sizeof(line), &lo, &t, &t.rows[i]);
			assert_int_equal(strlen(line), lo.total);
		}
		top_fmt_colhdr(line, sizeof(line), &lo, &t);
		assert_int_equal(strlen(line), lo.total);
	}
	/* 80 columns: the live-area count goes first */
	top_layout_make(&lo, &t, 80);
	assert_false(has_col(&lo, TOP_COL_LIVE_AREAS));
	assert_true(has_col(&lo, TOP_COL_P99));
	/* too narrow for the essentials */
	assert_int_equal(top_layout_make(&lo, &t, 30), -1);
	/* a small buffer truncates, never overflows */
	top_layout_make(&lo, &t, 0);
	top_fmt_row(line, 10, &lo, &t, &t.rows[0]);
	assert_int_equal(strlen(line), 9);
	top_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_and_bytes),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_widths_over_range),
		cmocka_unit_test(test_batch_layout_rows_exact_width),
		cmocka_unit_test(test_missing_columns_marked),
		cmocka_unit_test(test_summary_lines),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_screen_layout_narrowing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
