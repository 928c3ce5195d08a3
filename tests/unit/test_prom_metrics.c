// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat snapshot -> vmapscope_* metrics: bucket edges, accumulation of
 * interval deltas, the caller cardinality bound.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"
#include "prom_metrics.h"

static struct prom_buf b;
static struct prom_state *st;

static int setup(void **state)
{
	(void)state;
	prom_buf_init(&b);
	st = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	prom_buf_free(&b);
	prom_state_free(st);
	return 0;
}

/* A snapshot of nr rows, zeroed; the test fills the counters. */
static void snap_init(struct vmapscope_sample *s, size_t nr)
{
	memset(s, 0, sizeof(*s));
	s->nr_rows = nr;
	s->rows = calloc(nr ? nr : 1, sizeof(*s->rows));
	assert_non_null(s->rows);
	snprintf(s->arch, sizeof(s->arch), "x86_64");
	s->page_shift = 12;
	snprintf(s->kernel_release, sizeof(s->kernel_release), "6.12.0-test");
	s->symbols_ok = true;
	s->stats_max_entries = 2048;
	s->interval_s = 1;
	s->feat[VMAPSCOPE_FEAT_GRANULE].available = true;
}

static struct vmapscope_row *row(struct vmapscope_sample *s, size_t i,
				const char *sym, int api)
{
	struct vmapscope_row *r = &s->rows[i];

	snprintf(r->sym, sizeof(r->sym), "%s", sym);
	r->api = api;
	r->caller = 0xffffffff81000000ULL + i;
	return r;
}

static void render(void)
{
	prom_buf_reset(&b);
	assert_int_equal(prom_render(st, &b), 0);
}

/* The value of the exposition line starting with @series (+ " "), or -1. */
static double value_of(const char *series)
{
	size_t n = strlen(series);
	const char *p = b.data;

	while (p && *p) {
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static int count_lines_with(const char *needle)
{
	const char *p = b.data;
	int n = 0;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/*
 * Every value the BPF side can count lands, by hist_slot(), in the first
 * "le" bucket whose bound is >= the value: the edges 2^k (first value of
 * slot k) and 2^k - 1 (last value of slot k-1) in particular.
 */
static void test_bounds_match_bpf_slots(void **state)
{
	double le_pages[PROM_HIST_BOUNDS], le_sec[PROM_HIST_BOUNDS];
	unsigned int k;

	(void)state;
	prom_log2_bounds(le_pages, 1.0);
	prom_log2_bounds(le_sec, 1e9);
	assert_true(le_pages[0] == 1);
	assert_true(le_pages[1] == 3);
	assert_true(le_pages[PROM_HIST_BOUNDS - 1] == 34359738367.0);	/* 2^35 - 1: slot 34, the last finite one */
	for (k = 0; k < 40; k++) {
		uint64_t vals[3] = { (1ULL << k) - 1, 1ULL << k, (1ULL << k) + 1 };
		int j;

		for (j = 0; j < 3; j++) {
			uint64_t v = vals[j];
			unsigned int slot = hist_slot(v, VMAPSCOPE_HIST_SLOTS);

			if (slot >= PROM_HIST_BOUNDS) {
				/* open-ended slot: above every finite bound */
				assert_true((double)v > le_pages[PROM_HIST_BOUNDS - 1]);
				continue;
			}
			assert_true((double)v <= le_pages[slot]);
			assert_true(slot == 0 || (double)v > le_pages[slot - 1]);
			assert_true((double)v / 1e9 <= le_sec[slot]);
			assert_true(slot == 0 || (double)v / 1e9 > le_sec[slot - 1]);
		}
	}
}

/* End to end: one chunk of 2 pages (an edge) and one call of 1024 ns. */
static void test_edge_values_in_exposition(void **state)
{
	struct vmapscope_sample s;
	struct vmapscope_row *r;

	(void)state;
	st = prom_state_new(5);
	snap_init(&s, 1);
	r = row(&s, 0, "edge_fn+0x10/0x40", VMAPSCOPE_API_VMAP);
	r->st.chunks = 1;
	r->st.chunk_pages = 2;
	r->st.chunk_hist[hist_slot(2, VMAPSCOPE_HIST_SLOTS)]++;
	r->st.calls = 1;
	r->st.lat_sum_ns = 1024;
	r->st.lat_hist[hist_slot(1024, VMAPSCOPE_HIST_SLOTS)]++;
	assert_int_equal(prom_state_add(st, &s), 0);
	sample_free(&s);
	render();

#define CH "vmapscope_chunk_length_pages_bucket{caller=\"edge_fn+0x10/0x40\",api=\"vmap\",le="
	assert_true(value_of(CH "\"1\"}") == 0);
	assert_true(value_of(CH "\"3\"}") == 1);
	assert_true(value_of(CH "\"+Inf\"}") == 1);
	assert_true(value_of("vmapscope_chunk_length_pages_sum{caller=\"edge_fn+0x10/0x40\",api=\"vmap\"}") == 2);
#define LAT "vmapscope_map_latency_seconds_bucket{caller=\"edge_fn+0x10/0x40\",api=\"vmap\",le="
	assert_true(value_of(LAT "\"1.023e-06\"}") == 0);	/* 1023 ns */
	assert_true(value_of(LAT "\"2.047e-06\"}") == 1);	/* 2047 ns */
	assert_true(value_of(LAT "\"+Inf\"}") == 1);
	assert_true(value_of("vmapscope_map_latency_seconds_sum{caller=\"edge_fn+0x10/0x40\",api=\"vmap\"}") == 1.024e-06);
	assert_true(value_of("vmapscope_map_latency_seconds_count{caller=\"edge_fn+0x10/0x40\",api=\"vmap\"}") == 1);
	/* 35 finite buckets + "+Inf" per histogram */
	assert_int_equal(count_lines_with("vmapscope_map_latency_seconds_bucket{"), 36);
}

static void test_deltas_accumulate(void **state)
{
	struct vmapscope_sample s;
	struct vmapscope_row *r;
	int i;

	(void)state;
	st = prom_state_new(5);
	for (i = 0; i < 3; i++) {
		snap_init(&s, 2);
		r = row(&s, 0, "vmalloc_fn+0x1/0x2", VMAPSCOPE_API_VMALLOC);
		r->st.bytes[12] = 8192;		/* two 4K PTEs */
		r->st.runs[12] = 1;
		r->st.bytes[21] = 2 << 20;	/* one 2M PMD */
		r->st.runs[21] = 1;
		r = row(&s, 1, "ioremap_fn+0x1/0x2", VMAPSCOPE_API_IOREMAP);
		r->st.areas = 1;
		r->st.area_bytes = 4096 * (i + 1);
		s.counters[VMAPSCOPE_CNT_AREAS] = 10;
		s.counters[VMAPSCOPE_CNT_STATS_FULL] = i;
		assert_int_equal(prom_state_add(st, &s), 0);
		sample_free(&s);
	}
	render();
	assert_int_equal(prom_state_intervals(st), 3);
	assert_true(value_of("vmapscope_intervals_total") == 3);
	assert_true(value_of("vmapscope_mapped_bytes_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\",granule=\"4K\"}") == 3 * 8192);
	assert_true(value_of("vmapscope_mappings_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\",granule=\"4K\"}") == 6);
	assert_true(value_of("vmapscope_mapping_runs_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\",granule=\"4K\"}") == 3);
	assert_true(value_of("vmapscope_mapped_bytes_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\",granule=\"2M\"}") == 3 * (2 << 20));
	assert_true(value_of("vmapscope_mappings_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\",granule=\"2M\"}") == 3);
	assert_true(value_of("vmapscope_vmap_area_bytes_total{caller=\"ioremap_fn+0x1/0x2\",api=\"ioremap\"}") == 4096 * 6);
	assert_true(value_of("vmapscope_vmap_areas_total{caller=\"ioremap_fn+0x1/0x2\",api=\"ioremap\"}") == 3);
	assert_true(value_of("vmapscope_alloc_vmap_area_events_total") == 30);
	assert_true(value_of("vmapscope_stats_map_full_total") == 3);
	/* no series for what never happened */
	assert_true(value_of("vmapscope_vmap_areas_total{caller=\"vmalloc_fn+0x1/0x2\",api=\"vmalloc\"}") == -1);
	assert_null(strstr(b.data, "granule=\"64K\""));
	assert_true(value_of("vmapscope_build_info{version=\"0.1\",arch=\"x86_64\",kernel_release=\"6.12.0-test\",page_size=\"4096\"}") == 1);
	assert_true(value_of("vmapscope_feature_available{feature=\"granule\"}") == 1);
	assert_true(value_of("vmapscope_feature_available{feature=\"latency\"}") == 0);
}

/* Callers with the same symbol (two addresses, one label) are one series. */
static void test_same_symbol_merges(void **state)
{
	struct vmapscope_sample s;

	(void)state;
	st = prom_state_new(5);
	snap_init(&s, 2);
	row(&s, 0, "0x0000000000000000", VMAPSCOPE_API_VMAP)->st.bytes[12] = 4096;
	row(&s, 1, "0x0000000000000000", VMAPSCOPE_API_VMAP)->st.bytes[12] = 8192;
	assert_int_equal(prom_state_add(st, &s), 0);
	sample_free(&s);
	render();
	assert_int_equal(count_lines_with("vmapscope_mapped_bytes_total{caller="), 1);
	assert_true(value_of("vmapscope_mapped_bytes_total{caller=\"0x0000000000000000\",api=\"vmap\",granule=\"4K\"}") == 12288);
}

static void add_caller_bytes(const char *const *syms, const uint64_t *bytes, size_t n)
{
	struct vmapscope_sample s;
	size_t i;

	snap_init(&s, n);
	for (i = 0; i < n; i++)
		row(&s, i, syms[i], VMAPSCOPE_API_VMALLOC)->st.bytes[12] = bytes[i];
	assert_int_equal(prom_state_add(st, &s), 0);
	sample_free(&s);
}

#define BYTES(c) "vmapscope_mapped_bytes_total{caller=\"" c "\",api=\"vmalloc\",granule=\"4K\"}"

static void test_top_callers_and_other(void **state)
{
	static const char *const first[] = { "small", "big", "medium", "tiny" };
	static const uint64_t first_b[] = { 4096, 409600, 40960, 4096 };
	static const char *const second[] = { "newcomer", "small" };
	static const uint64_t second_b[] = { 4096000, 4096 };

	(void)state;
	st = prom_state_new(2);
	add_caller_bytes(first, first_b, 4);
	render();
	assert_true(value_of(BYTES("big")) == 409600);
	assert_true(value_of(BYTES("medium")) == 40960);
	assert_true(value_of(BYTES("other")) == 8192);	/* small + tiny */
	assert_true(value_of(BYTES("small")) == -1);
	assert_int_equal(count_lines_with("vmapscope_mapped_bytes_total{caller="), 3);

	/*
	 * A new, bigger caller does not push "medium" out: the named set is
	 * kept, so "other" only grows (a true counter).
	 */
	add_caller_bytes(second, second_b, 2);
	render();
	assert_true(value_of(BYTES("medium")) == 40960);
	assert_true(value_of(BYTES("newcomer")) == -1);
	assert_true(value_of(BYTES("other")) == 8192 + 4096000 + 4096);
}

static void test_free_slots_fill_later(void **state)
{
	static const char *const a[] = { "a_fn" };
	static const uint64_t a_b[] = { 4096 };
	static const char *const bc[] = { "b_fn", "c_fn" };
	static const uint64_t bc_b[] = { 4096, 8192 };

	(void)state;
	st = prom_state_new(2);
	add_caller_bytes(a, a_b, 1);
	add_caller_bytes(bc, bc_b, 2);
	render();
	assert_true(value_of(BYTES("a_fn")) == 4096);
	assert_true(value_of(BYTES("c_fn")) == 8192);	/* the bigger one got the slot */
	assert_true(value_of(BYTES("other")) == 4096);
}

static void test_top_zero_sums_everything(void **state)
{
	static const char *const syms[] = { "x", "y" };
	static const uint64_t by[] = { 4096, 8192 };

	(void)state;
	st = prom_state_new(0);
	add_caller_bytes(syms, by, 2);
	render();
	assert_true(value_of(BYTES("other")) == 12288);
	assert_int_equal(count_lines_with("vmapscope_mapped_bytes_total{caller="), 1);
}

/* Before any interval: valid exposition, info from the start snapshot. */
static void test_empty_state(void **state)
{
	struct vmapscope_sample s;

	(void)state;
	st = prom_state_new(20);
	render();
	assert_true(value_of("vmapscope_intervals_total") == 0);
	snap_init(&s, 0);
	prom_state_set_info(st, &s);
	sample_free(&s);
	render();
	assert_true(value_of("vmapscope_intervals_total") == 0);
	assert_true(value_of("vmapscope_feature_available{feature=\"granule\"}") == 1);
	assert_int_equal(count_lines_with("# TYPE "), count_lines_with("# HELP "));
}

/*
 * Whether caller labels are /proc/vmallocinfo's (and so join the live
 * gauges): yes from vmap_mapped or the vm_struct, no from the kernel
 * stack or the entry probes, nor when nothing names callers.
 */
static void test_callers_as_vmallocinfo(void **state)
{
	static const struct {
		const char *how;
		bool available;
		double want;
	} cases[] = {
		{ "vmap_mapped", true, 1 }, { "vm_struct", true, 1 }, { "stack", true, 0 },
		{ "entry probes", true, 0 }, { "", false, 0 },
	};
	struct vmapscope_sample s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		prom_state_free(st);
		st = prom_state_new(20);
		snap_init(&s, 0);
		s.feat[VMAPSCOPE_FEAT_CALLERS].available = cases[i].available;
		snprintf(s.feat[VMAPSCOPE_FEAT_CALLERS].how, sizeof(s.feat[0].how), "%s", cases[i].how);
		prom_state_set_info(st, &s);
		sample_free(&s);
		render();
		if (value_of("vmapscope_callers_as_vmallocinfo") != cases[i].want)
			fail_msg("callers by '%s': %g", cases[i].how,
				 value_of("vmapscope_callers_as_vmallocinfo"));
	}
}

static void live_row(struct snapshot_row *r, const char *caller, int api,
		     uint64_t b4k, uint64_t b2m, uint64_t areas)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->caller, sizeof(r->caller), "%s", caller);
	r->api = api;
	r->bytes[12] = b4k;
	r->bytes[21] = b2m;
	r->areas = areas;
}

/* Live gauges: top N callers by live bytes (over APIs), the rest "other". */
static void test_live_bytes(void **state)
{
	struct snapshot_row rows[4];
	struct snapshot ls = { .rows = rows, .nr_rows = 4, .seconds = 0.25 };

	(void)state;
	st = prom_state_new(1);
	live_row(&rows[0], "big_fn+0x1", VMAPSCOPE_API_VMALLOC, 4096, 2 << 20, 1);
	live_row(&rows[1], "big_fn+0x1", VMAPSCOPE_API_VMAP, 8192, 0, 2);
	live_row(&rows[2], "small_fn+0x2", VMAPSCOPE_API_VMALLOC, 4096, 0, 3);
	live_row(&rows[3], "mid_fn+0x3", VMAPSCOPE_API_VMALLOC, 65536, 0, 4);
	assert_int_equal(prom_state_set_live(st, &ls), 0);
	render();
	assert_true(value_of("vmapscope_live_bytes{caller=\"big_fn+0x1\",api=\"vmalloc\",granule=\"2M\"}") == 2 << 20);
	assert_true(value_of("vmapscope_live_bytes{caller=\"big_fn+0x1\",api=\"vmap\",granule=\"4K\"}") == 8192);
	assert_true(value_of("vmapscope_live_bytes{caller=\"other\",api=\"vmalloc\",granule=\"4K\"}") == 4096 + 65536);
	assert_true(value_of("vmapscope_live_areas{caller=\"other\",api=\"vmalloc\"}") == 7);
	assert_true(value_of("vmapscope_live_audit_seconds") == 0.25);
	assert_int_equal(count_lines_with("vmapscope_live_bytes{caller="), 4);

	/* a gauge follows the audit: a failed one drops the family */
	assert_int_equal(prom_state_set_live(st, NULL), 0);
	render();
	assert_null(strstr(b.data, "vmapscope_live_bytes"));
}

/* PMU periods add up per (event, pmu, cpu); "counted" follows the last. */
static void test_pmu_counts(void **state)
{
	struct pmu_cpu_value c1[2] = {
		{ .cpu = 0, .raw = 100, .scaled = 100 },
		{ .cpu = 1, .raw = 50, .scaled = 100.4 },	/* multiplexed */
	};
	struct pmu_cpu_value c2[2] = {
		{ .cpu = 0, .raw = 10, .scaled = 10 },
		{ .cpu = 1, .raw = 5, .scaled = 5.4 },
	};
	struct pmu_result r = { .name = "dtlb_walk", .pmu = "armv8_pmuv3",
				.counted = true, .nr_cpus = 2, .cpu = c1 };
	struct pmu_result missing = { .name = "l2d_tlb_refill", .pmu = "armv8_pmuv3" };
	struct pmu_result both[2];
	struct pmu_results res = { .nr = 2, .r = both };

	(void)state;
	st = prom_state_new(5);
	render();
	assert_null(strstr(b.data, "vmapscope_pmu_"));	/* no --pmu, no family */
	both[0] = r;
	both[1] = missing;
	assert_int_equal(prom_state_add_pmu(st, &res), 0);
	both[0].cpu = c2;
	assert_int_equal(prom_state_add_pmu(st, &res), 0);
	render();
#define PMU(cpu) "vmapscope_pmu_events_total{event=\"dtlb_walk\",pmu=\"armv8_pmuv3\",cpu=\"" cpu "\"}"
	assert_true(value_of(PMU("0")) == 110);
	assert_true(value_of(PMU("1")) == 106);		/* 100.4 + 5.4, rounded once */
	assert_true(value_of("vmapscope_pmu_event_counted{event=\"dtlb_walk\",pmu=\"armv8_pmuv3\"}") == 1);
	assert_true(value_of("vmapscope_pmu_event_counted{event=\"l2d_tlb_refill\",pmu=\"armv8_pmuv3\"}") == 0);
	assert_int_equal(count_lines_with("vmapscope_pmu_events_total{"), 2);
}

/*
 * Per command (--pmu -- COMMAND) an event has one counter, on no CPU
 * (cpu -1): its count is exported as cpu="command", next to "counted".
 */
static void test_pmu_per_command(void **state)
{
	struct pmu_cpu_value one = { .cpu = -1, .raw = 48, .scaled = 48 };
	struct pmu_result r[2] = {
		{ .name = "page-faults", .pmu = "software", .counted = true,
		  .nr_cpus = 1, .cpu = &one },
		{ .name = "cycles", .pmu = "no core PMU" },
	};
	struct pmu_results res = { .task = true, .nr = 2, .r = r };

	(void)state;
	st = prom_state_new(5);
	assert_int_equal(prom_state_add_pmu(st, &res), 0);
	one.scaled = 50;
	assert_int_equal(prom_state_add_pmu(st, &res), 0);
	render();
	assert_true(value_of("vmapscope_pmu_events_total{event=\"page-faults\",pmu=\"software\","
			     "cpu=\"command\"}") == 98);
	assert_int_equal(count_lines_with("vmapscope_pmu_events_total{"), 1);
	assert_null(strstr(b.data, "cpu=\"-1\""));
	assert_true(value_of("vmapscope_pmu_event_counted{event=\"page-faults\",pmu=\"software\"}") == 1);
	assert_true(value_of("vmapscope_pmu_event_counted{event=\"cycles\",pmu=\"no core PMU\"}") == 0);
	assert_int_equal(count_lines_with("vmapscope_pmu_event_counted{"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bounds_match_bpf_slots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edge_values_in_exposition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deltas_accumulate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_symbol_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_callers_and_other, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_slots_fill_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_zero_sums_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callers_as_vmallocinfo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmu_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmu_per_command, setup, teardown),
	};

	return cmocka_run_group_tests_name("prom_metrics", tests, NULL, NULL);
}
