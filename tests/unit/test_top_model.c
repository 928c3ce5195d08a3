// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop row model: rates from two collector snapshots (through the
 * collector's own sample_delta()), granule shares, chunk means,
 * percentile estimates from log2 buckets, the "mappings" / "bytes"
 * fallbacks when the kernel lacks tracepoints, live areas, sort, filter.
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

#include "hist.h"
#include "top_format.h"
#include "top_model.h"

#define K4	(1ULL << 12)
#define M2	(1ULL << 21)

/* ---- building snapshots by hand ---- */

static struct vmapscope_row *add_row(struct vmapscope_sample *s, uint64_t caller, int api,
				    const char *sym)
{
	struct vmapscope_row *r;

	s->rows = realloc(s->rows, (s->nr_rows + 1) * sizeof(*s->rows));
	assert_non_null(s->rows);
	r = &s->rows[s->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->caller = caller;
	r->api = api;
	snprintf(r->sym, sizeof(r->sym), "%s", sym);
	return r;
}

static void snap_init(struct vmapscope_sample *s, const char *arch, double t)
{
	int f;

	memset(s, 0, sizeof(*s));
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
	s->page_shift = 12;
	s->mono.tv_sec = (time_t)t;
	s->mono.tv_nsec = (long)((t - floor(t)) * 1e9);
	for (f = 0; f < VMAPSCOPE_FEAT_MAX; f++)
		s->feat[f].available = true;
}

/*
 * n mapping calls (vmap_mapped) of mapping latency ns each, mapping bytes
 * at shift; timed whole by the entry probes (--call-latency) at 3 x ns.
 */
static void map_calls(struct vmapscope_row *r, uint64_t n, unsigned int shift, uint64_t bytes,
		      uint64_t lat_ns)
{
	r->st.chunks += n;
	r->st.runs[shift] += n;
	r->st.bytes[shift] += bytes;
	r->st.lat_hist[hist_slot(lat_ns, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.lat_sum_ns += n * lat_ns;
	r->st.calls += n;
	r->st.call_lat_hist[hist_slot(3 * lat_ns, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.call_lat_sum_ns += n * 3 * lat_ns;
}

static struct top_row *find(struct top_table *t, const char *sym)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].sym, sym))
			return &t->rows[i];
	fail_msg("no row %s", sym);
	return NULL;
}

/* ---- percentile estimate ---- */

static void test_percentile_empty_and_single(void **state)
{
	uint64_t h[VMAPSCOPE_HIST_SLOTS] = { 0 };
	bool open = true;

	assert_true(isnan(top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.5, &open)));
	assert_false(open);

	/* one sample in [1024, 2047]: p50 is the slot's middle */
	h[10] = 1;
	assert_float_equal(top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.5, &open),
			   1024 + 512, 1e-9);
	assert_false(open);
	/* p100 is the slot's upper edge (exclusive bound) */
	assert_float_equal(top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 1.0, NULL),
			   2048, 1e-9);
	/* slot 0 holds 0 and 1: [0, 2) */
	memset(h, 0, sizeof(h));
	h[0] = 4;
	assert_float_equal(top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.5, NULL),
			   1.0, 1e-9);
}

static void test_percentile_two_modes(void **state)
{
	uint64_t h[VMAPSCOPE_HIST_SLOTS] = { 0 };
	double p50, p99, p995;

	/* 99 fast calls in [8, 15], one slow one in [1M, 2M) */
	h[3] = 99;
	h[20] = 1;
	p50 = top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.50, NULL);
	p99 = top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.99, NULL);
	p995 = top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.995, NULL);
	assert_float_equal(p50, 8 + 8 * 50.0 / 99.0, 1e-9);
	assert_float_equal(p99, 16, 1e-9);	/* rank 99 is the last fast call */
	assert_true(p995 >= (1 << 20) && p995 < (1 << 21));
}

static void test_percentile_open_slot(void **state)
{
	uint64_t h[VMAPSCOPE_HIST_SLOTS] = { 0 };
	bool open = false;
	double v;

	h[VMAPSCOPE_HIST_SLOTS - 1] = 3;
	v = top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, 0.99, &open);
	assert_true(open);
	assert_float_equal(v, (double)hist_slot_low(VMAPSCOPE_HIST_SLOTS - 1), 1e-9);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Property: for random latency samples, the estimate lies in the same
 * log2 slot as the exact percentile (so within a factor of 2 of it).
 */
static void test_percentile_same_slot_as_exact(void **state)
{
	static const double ps[] = { 0.5, 0.9, 0.99 };
	uint64_t v[997];
	unsigned int seed = 12345;
	int round;

	for (round = 0; round < 50; round++) {
		uint64_t h[VMAPSCOPE_HIST_SLOTS] = { 0 };
		size_t n = 1 + (size_t)(rand_r(&seed) % 997), i, k;

		for (i = 0; i < n; i++) {
			/* log-uniform from 1 ns to ~1 s */
			double e = (double)rand_r(&seed) / RAND_MAX * 30.0;

			v[i] = (uint64_t)ldexp(1.0, (int)e) + (uint64_t)rand_r(&seed) % 1000;
			h[hist_slot(v[i], VMAPSCOPE_HIST_SLOTS)]++;
		}
		qsort(v, n, sizeof(v[0]), cmp_u64);
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			/* exact: the smallest value with at least p * n samples <= it */
			size_t rank = (size_t)ceil(ps[k] * (double)n);
			uint64_t exact = v[(rank ? rank : 1) - 1];
			double est = top_hist_percentile((__u64 *)h, VMAPSCOPE_HIST_SLOTS, ps[k], NULL);
			unsigned int slot = hist_slot(exact, VMAPSCOPE_HIST_SLOTS);

			assert_true(est >= (double)hist_slot_low(slot));
			assert_true(est <= (double)hist_slot_high(slot, VMAPSCOPE_HIST_SLOTS) + 1.0);
		}
	}
}

/* ---- rates from two snapshots ---- */

static void test_rates_from_two_samples(void **state)
{
	struct vmapscope_sample prev, cur, delta;
	struct vmapscope_row *r;
	struct top_table tab = { 0 };
	struct top_avail av;
	struct top_row *a, *b;

	snap_init(&prev, "x86_64", 100.0);
	r = add_row(&prev, 0x1000, VMAPSCOPE_API_VMALLOC, "alpha+0x10/0x80");
	map_calls(r, 4, 12, 4 * 3 * K4, 2000);
	r = add_row(&prev, 0x2000, VMAPSCOPE_API_VMAP, "beta+0x8/0x40");
	map_calls(r, 2, 12, 2 * K4, 500);

	/* 2.5 s later: alpha made 10 more 4K + 5 huge calls, beta idle */
	snap_init(&cur, "x86_64", 102.5);
	r = add_row(&cur, 0x1000, VMAPSCOPE_API_VMALLOC, "alpha+0x10/0x80");
	map_calls(r, 14, 12, 14 * 3 * K4, 2000);
	map_calls(r, 5, 21, 5 * M2, 100000);
	r->st.chunk_pages = 10 * 3 + 5 * 512;
	r = add_row(&cur, 0x2000, VMAPSCOPE_API_VMAP, "beta+0x8/0x40");
	map_calls(r, 2, 12, 2 * K4, 500);
	/* 9 vmap() calls mapping 6 x 2M, none timed (ns 0: under way when the event got enabled) */
	r = add_row(&cur, 0x3000, VMAPSCOPE_API_VMAP, "gamma+0x1/0x9");
	r->st.bytes[21] = 6 * M2;
	r->st.chunks = 9;
	r->st.chunk_pages = 6 * 512;
	cur.counters[VMAPSCOPE_CNT_STATS_FULL] = 7;
	prev.counters[VMAPSCOPE_CNT_STATS_FULL] = 4;

	assert_int_equal(sample_delta(&cur, &prev, &delta), 0);
	top_avail_from_sample(&av, &cur, NULL);
	assert_int_equal(top_table_build(&tab, &cur, &delta, &av, NULL, 0, false, false), 0);

	assert_int_equal(tab.nr, 3);	/* idle beta stays listed */
	assert_float_equal(tab.interval_s, 2.5, 1e-6);
	assert_int_equal(tab.maps_src, TOP_MAPS_CHUNKS);
	assert_int_equal(tab.bytes_src, TOP_BYTES_MAPPED);

	a = find(&tab, "alpha+0x10/0x80");
	assert_true(a->active);
	assert_int_equal(a->maps, 15);
	assert_float_equal(a->maps_rate, 15 / 2.5, 1e-9);
	assert_int_equal(a->bytes, 10 * 3 * K4 + 5 * M2);
	assert_float_equal(a->bytes_rate, (10 * 3 * K4 + 5 * M2) / 2.5, 1e-6);
	assert_float_equal(a->share[TOP_G_PTE], (double)(30 * K4) / (30 * K4 + 5 * M2), 1e-12);
	assert_float_equal(a->share[TOP_G_PMD], (double)(5 * M2) / (30 * K4 + 5 * M2), 1e-12);
	assert_float_equal(a->share[TOP_G_PUD], 0, 1e-12);
	assert_float_equal(a->chunk_mean, (30.0 + 5 * 512) / 15, 1e-9);
	/* 10 calls in the 2 us slot, 5 in the 100 us slot: p50 fast, p99 slow */
	assert_true(a->pct_ns[TOP_PCT_P50] >= 1024 && a->pct_ns[TOP_PCT_P50] < 4096);
	assert_true(a->pct_ns[TOP_PCT_P99] >= 65536 && a->pct_ns[TOP_PCT_P99] < 131072);
	/* the same calls timed whole, three times as long */
	assert_true(a->pct_ns[TOP_PCT_CP50] >= 4096 && a->pct_ns[TOP_PCT_CP50] < 8192);
	assert_true(a->pct_ns[TOP_PCT_CP99] >= 262144 && a->pct_ns[TOP_PCT_CP99] < 524288);

	b = find(&tab, "beta+0x8/0x40");
	assert_false(b->active);
	assert_int_equal(b->maps, 0);
	assert_float_equal(b->bytes_rate, 0, 0);
	assert_true(isnan(b->share[TOP_G_PTE]));	/* nothing mapped: no share */
	assert_true(isnan(b->pct_ns[TOP_PCT_P50]));
	assert_true(isnan(b->chunk_mean));

	/* mapping calls, whether or not they were timed */
	assert_int_equal(find(&tab, "gamma+0x1/0x9")->maps, 9);
	assert_true(isnan(find(&tab, "gamma+0x1/0x9")->pct_ns[TOP_PCT_P50]));

	/* totals and interval drops */
	assert_int_equal(tab.tot.maps, 15 + 9);
	assert_int_equal(tab.tot.drops_full, 3);
	/* vmallocinfo read (live_why NULL) but empty: zero, not unknown */
	assert_int_equal(tab.tot.live_areas, 0);
	assert_int_equal(a->live_areas, 0);

	top_table_free(&tab);
	sample_free(&delta);
	sample_free(&prev);
	sample_free(&cur);
}

static void test_first_frame_and_cumulative(void **state)
{
	struct vmapscope_sample cur;
	struct vmapscope_row *r;
	struct top_table tab = { 0 };
	struct top_avail av;

	snap_init(&cur, "x86_64", 10);
	cur.interval_s = 4.0;
	r = add_row(&cur, 0x1000, VMAPSCOPE_API_VMALLOC, "alpha");
	map_calls(r, 8, 12, 8 * K4, 1000);
	top_avail_from_sample(&av, &cur, NULL);

	/* no previous snapshot yet: no interval, nothing to show as a rate */
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, false, false), 0);
	assert_int_equal(tab.nr, 1);
	assert_false(tab.rows[0].active);
	assert_float_equal(tab.rows[0].maps_rate, 0, 0);

	/* cumulative: totals, not divided by the time */
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, true, false), 0);
	assert_true(tab.cumulative);
	assert_int_equal(tab.rows[0].maps, 8);
	assert_float_equal(tab.rows[0].maps_rate, 8, 0);
	assert_float_equal(tab.rows[0].bytes_rate, 8 * K4, 0);
	assert_float_equal(tab.interval_s, 4.0, 0);
	top_table_free(&tab);
	sample_free(&cur);
}

/*
 * Callers by kernel stack (a stock kernel where neither fexit nor kprobes
 * attach): a line says that /proc/vmallocinfo's names, the live rows',
 * may differ; from the area's vm_struct, nothing is said.
 */
static void test_callers_note(void **state)
{
	struct vmapscope_sample cur;
	struct top_table tab = { 0 };
	struct top_avail av;
	char lines[16][TOP_LINE_MAX];
	int n, i, found = 0;

	snap_init(&cur, "x86_64", 0);
	cur.feat[VMAPSCOPE_FEAT_CALLERS].available = true;
	snprintf(cur.feat[VMAPSCOPE_FEAT_CALLERS].how, sizeof(cur.feat[0].how), "stack");
	top_avail_from_sample(&av, &cur, NULL);
	assert_non_null(strstr(av.callers_note, "named by kernel stack"));
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, true, false), 0);
	n = top_fmt_summary(lines, 16, &tab, NULL, 0, 0);
	for (i = 0; i < n; i++)
		found += !strcmp(lines[i], av.callers_note);
	assert_int_equal(found, 1);
	top_table_free(&tab);
	snprintf(cur.feat[VMAPSCOPE_FEAT_CALLERS].how, sizeof(cur.feat[0].how), "vm_struct");
	top_avail_from_sample(&av, &cur, NULL);
	assert_string_equal(av.callers_note, "");
	sample_free(&cur);
}

/* A stock kernel: no series tracepoints, no probes; areas only. */
static void test_missing_features_fallbacks(void **state)
{
	struct vmapscope_sample cur;
	struct vmapscope_row *r;
	struct top_table tab = { 0 };
	struct top_avail av;

	snap_init(&cur, "x86_64", 1);
	cur.feat[VMAPSCOPE_FEAT_GRANULE].available = false;
	snprintf(cur.feat[VMAPSCOPE_FEAT_GRANULE].why, 256, "granule: kernel lacks vmalloc:vmap_set_ptes");
	cur.feat[VMAPSCOPE_FEAT_CHUNK].available = false;
	cur.feat[VMAPSCOPE_FEAT_LATENCY].available = false;
	r = add_row(&cur, 0, VMAPSCOPE_API_UNATTRIBUTED, "[unattributed]");
	r->st.areas = 6;
	r->st.area_bytes = 6 * 2 * K4;
	r->st.chunks = 3;		/* must be ignored: feature off */
	r->st.chunk_pages = 9;
	r->st.calls = 4;		/* --call-latency */
	top_avail_from_sample(&av, &cur, "live: /proc/vmallocinfo: Permission denied");
	assert_false(av.have[TOP_NEED_GRANULE]);
	assert_string_equal(av.why[TOP_NEED_GRANULE], "granule: kernel lacks vmalloc:vmap_set_ptes");
	assert_false(av.have[TOP_NEED_LIVE]);
	assert_string_equal(av.why[TOP_NEED_LIVE], "live: /proc/vmallocinfo: Permission denied");
	/* callers named as /proc/vmallocinfo names them: nothing to say */
	assert_string_equal(av.callers_note, "");

	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, true, false), 0);
	assert_int_equal(tab.maps_src, TOP_MAPS_AREAS);
	assert_int_equal(tab.bytes_src, TOP_BYTES_AREAS);
	assert_int_equal(tab.rows[0].maps, 6);
	assert_int_equal(tab.rows[0].bytes, 6 * 2 * K4);
	assert_true(isnan(tab.rows[0].share[TOP_G_PTE]));
	assert_true(isnan(tab.rows[0].chunk_mean));
	assert_true(isnan(tab.rows[0].pct_ns[TOP_PCT_P99]));
	assert_true(tab.rows[0].live_areas == -1);

	/* without areas either, the probed calls (--call-latency) are the last resort */
	cur.feat[VMAPSCOPE_FEAT_AREAS].available = false;
	top_avail_from_sample(&av, &cur, NULL);
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, true, false), 0);
	assert_int_equal(tab.maps_src, TOP_MAPS_CALLS);
	assert_int_equal(tab.rows[0].maps, 4);
	assert_int_equal(tab.bytes_src, TOP_BYTES_NONE);
	top_table_free(&tab);
	sample_free(&cur);
}

static void test_granule_columns_per_arch(void **state)
{
	struct vmapscope_sample s;
	struct top_avail av;

	snap_init(&s, "x86_64", 0);
	top_avail_from_sample(&av, &s, NULL);
	assert_int_equal(av.shift[TOP_G_PTE], 12);
	assert_int_equal(av.shift[TOP_G_CONT], 0);	/* no contiguous PTEs on x86 */
	assert_int_equal(av.shift[TOP_G_PMD], 21);
	assert_int_equal(av.shift[TOP_G_PUD], 30);

	snap_init(&s, "arm64", 0);
	top_avail_from_sample(&av, &s, NULL);
	assert_int_equal(av.shift[TOP_G_PTE], 12);
	assert_int_equal(av.shift[TOP_G_CONT], 16);
	assert_int_equal(av.shift[TOP_G_PMD], 21);
	assert_int_equal(av.shift[TOP_G_PUD], 30);

	/* arm64 with 64K pages: cont-PTE 2M, PMD 512M, no PUD blocks */
	s.page_shift = 16;
	top_avail_from_sample(&av, &s, NULL);
	assert_int_equal(av.shift[TOP_G_PTE], 16);
	assert_int_equal(av.shift[TOP_G_CONT], 21);
	assert_int_equal(av.shift[TOP_G_PMD], 29);
	assert_int_equal(av.shift[TOP_G_PUD], 0);
}

static void test_arm64_cont_share(void **state)
{
	struct vmapscope_sample cur;
	struct vmapscope_row *r;
	struct top_table tab = { 0 };
	struct top_avail av;

	snap_init(&cur, "arm64", 1);
	r = add_row(&cur, 0x10, VMAPSCOPE_API_VMAP, "v");
	r->st.bytes[16] = 3 * (1 << 16);	/* three 64K cont blocks */
	r->st.bytes[12] = 4 * K4;
	top_avail_from_sample(&av, &cur, NULL);
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, NULL, 0, true, false), 0);
	assert_float_equal(tab.rows[0].share[TOP_G_CONT], 192.0 / 208.0, 1e-12);
	assert_float_equal(tab.rows[0].share[TOP_G_PTE], 16.0 / 208.0, 1e-12);
	assert_float_equal(tab.tot.share[TOP_G_CONT], 192.0 / 208.0, 1e-12);
	top_table_free(&tab);
	sample_free(&cur);
}

static void test_live_matching(void **state)
{
	struct vmapscope_sample cur;
	struct top_table tab = { 0 };
	struct top_avail av;
	size_t i, n;
	/* callers as vmallocinfo_parse_line() gives them: %pS, like the collector */
	struct top_live live[5] = {
		{ "alpha+0x10/0x80", VMAPSCOPE_API_VMALLOC, 3, 3 * 3 * K4 },
		{ "alpha+0x10/0x80", VMAPSCOPE_API_IOREMAP, 1, K4 },	/* other API: not alpha's */
		{ "alpha+0x1/0x80", VMAPSCOPE_API_VMALLOC, 1, K4 },	/* other call site */
		{ "pcpu_get_vm_areas+0x0/0x100", VMAPSCOPE_API_VMALLOC, 2, 2 * M2 },
		{ "idle_caller+0x1/0x2 [mod]", VMAPSCOPE_API_VMAP, 5, 5 * K4 },
	};

	snap_init(&cur, "x86_64", 1);
	add_row(&cur, 0x1, VMAPSCOPE_API_VMALLOC, "alpha+0x10/0x80")->st.calls = 1;
	add_row(&cur, 0x2, VMAPSCOPE_API_OTHER, "pcpu_get_vm_areas+0x0/0x100")->st.calls = 1;
	top_avail_from_sample(&av, &cur, NULL);

	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, live, 5, true, false), 0);
	assert_int_equal(tab.nr, 2);
	assert_int_equal(find(&tab, "alpha+0x10/0x80")->live_areas, 3);
	assert_int_equal(find(&tab, "alpha+0x10/0x80")->live_bytes, 9 * K4);
	/* percpu: a VM_ALLOC area in vmallocinfo, "other" in the collector */
	assert_int_equal(find(&tab, "pcpu_get_vm_areas+0x0/0x100")->live_areas, 2);
	/* totals count every live area */
	assert_int_equal(tab.tot.live_areas, 12);
	assert_int_equal(tab.tot.live_bytes, 9 * K4 + K4 + K4 + 2 * M2 + 5 * K4);

	/* -a: callers with only live areas get rows of their own */
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, live, 5, true, true), 0);
	assert_int_equal(tab.nr, 5);
	assert_int_equal(find(&tab, "idle_caller+0x1/0x2 [mod]")->live_areas, 5);
	assert_false(find(&tab, "idle_caller+0x1/0x2 [mod]")->active);
	assert_true(isnan(find(&tab, "idle_caller+0x1/0x2 [mod]")->pct_ns[TOP_PCT_P99]));
	assert_int_equal(find(&tab, "alpha+0x1/0x80")->live_areas, 1);
	/* alpha's ioremap area: a row of its own beside alpha's vmalloc row */
	for (i = 0, n = 0; i < tab.nr; i++)
		n += !strcmp(tab.rows[i].sym, "alpha+0x10/0x80") &&
		     tab.rows[i].api == VMAPSCOPE_API_IOREMAP && tab.rows[i].live_areas == 1;
	assert_int_equal(n, 1);

	/* a module caller's row matches its "[mod]" areas */
	add_row(&cur, 0x3, VMAPSCOPE_API_VMAP, "idle_caller+0x1/0x2 [mod]");
	assert_int_equal(top_table_build(&tab, &cur, NULL, &av, live, 5, true, true), 0);
	assert_int_equal(tab.nr, 5);
	assert_int_equal(find(&tab, "idle_caller+0x1/0x2 [mod]")->live_areas, 5);
	top_table_free(&tab);
	sample_free(&cur);
}

/* ---- sort and filter ---- */

static void fill_sort_table(struct top_table *t)
{
	static const struct { const char *sym; int api; double bytes, p99; } rows[] = {
		{ "ccc", VMAPSCOPE_API_VMAP, 300, 50 },
		{ "aaa", VMAPSCOPE_API_VMALLOC, 100, NAN },
		{ "bbb", VMAPSCOPE_API_IOREMAP, 300, 10 },
		{ "ddd_Huge", VMAPSCOPE_API_VMALLOC, 200, 70 },
	};
	size_t i;

	t->nr = t->cap = 4;
	t->rows = calloc(4, sizeof(*t->rows));
	for (i = 0; i < 4; i++) {
		snprintf(t->rows[i].sym, sizeof(t->rows[i].sym), "%s", rows[i].sym);
		t->rows[i].api = rows[i].api;
		t->rows[i].bytes_rate = rows[i].bytes;
		t->rows[i].pct_ns[TOP_PCT_P99] = rows[i].p99;
	}
}

static const char *order(struct top_table *t)
{
	static char buf[4 * 130];
	size_t i;

	buf[0] = 0;
	for (i = 0; i < t->nr; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%c", t->rows[i].sym,
			 i + 1 < t->nr ? ',' : 0);
	return buf;
}

static void test_sort(void **state)
{
	struct top_table t = { 0 };

	fill_sort_table(&t);
	/* numbers descending, ties by name */
	top_table_sort(&t, TOP_COL_BYTES, false);
	assert_string_equal(order(&t), "bbb,ccc,ddd_Huge,aaa");
	top_table_sort(&t, TOP_COL_BYTES, true);
	assert_string_equal(order(&t), "aaa,ddd_Huge,bbb,ccc");
	/* unknown (NAN) last in both directions */
	top_table_sort(&t, TOP_COL_P99, false);
	assert_string_equal(order(&t), "ddd_Huge,ccc,bbb,aaa");
	top_table_sort(&t, TOP_COL_P99, true);
	assert_string_equal(order(&t), "bbb,ccc,ddd_Huge,aaa");
	/* names ascending */
	top_table_sort(&t, TOP_COL_CALLER, false);
	assert_string_equal(order(&t), "aaa,bbb,ccc,ddd_Huge");
	top_table_sort(&t, TOP_COL_CALLER, true);
	assert_string_equal(order(&t), "ddd_Huge,ccc,bbb,aaa");
	top_table_sort(&t, TOP_COL_API, false);
	assert_string_equal(order(&t), "bbb,aaa,ddd_Huge,ccc");	/* ioremap, vmalloc x2, vmap */
	top_table_free(&t);
}

static void test_filter(void **state)
{
	struct top_table t = { 0 };

	fill_sort_table(&t);
	assert_int_equal(top_table_filter(&t, NULL), 4);
	assert_int_equal(top_table_filter(&t, ""), 4);
	/* by API name */
	assert_int_equal(top_table_filter(&t, "vmalloc"), 2);
	assert_string_equal(order(&t), "aaa,ddd_Huge");
	/* by symbol, case-insensitive */
	assert_int_equal(top_table_filter(&t, "huge"), 1);
	assert_string_equal(order(&t), "ddd_Huge");
	assert_int_equal(top_table_filter(&t, "nomatch"), 0);
	top_table_free(&t);
}

static void test_col_names(void **state)
{
	int c;

	for (c = 0; c < TOP_COL_MAX; c++)
		assert_int_equal(top_col_parse(top_col_name(c)), c);
	assert_int_equal(top_col_parse("P99"), TOP_COL_P99);
	assert_int_equal(top_col_parse("bogus"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_empty_and_single),
		cmocka_unit_test(test_percentile_two_modes),
		cmocka_unit_test(test_percentile_open_slot),
		cmocka_unit_test(test_percentile_same_slot_as_exact),
		cmocka_unit_test(test_rates_from_two_samples),
		cmocka_unit_test(test_first_frame_and_cumulative),
		cmocka_unit_test(test_missing_features_fallbacks),
		cmocka_unit_test(test_callers_note),
		cmocka_unit_test(test_granule_columns_per_arch),
		cmocka_unit_test(test_arm64_cont_share),
		cmocka_unit_test(test_live_matching),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_col_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
