// SPDX-License-Identifier: GPL-2.0
/*
 * Every output of one fixed pair of cumulative reads, byte for byte: the
 * text report (per caller and per API, with histograms and the missing-
 * column lines), the JSON object (-j), the Prometheus exposition and
 * vmaptop's table (batch, screen and cumulative layouts), on x86_64 and
 * arm64 granules.  The expected bytes are tests/fixtures/outputs/; a
 * change to any output shows up here as a diff of those files.
 *
 * To record them again after an intended output change:
 *	VMAPSCOPE_GOLDEN_UPDATE=1 make check-unit
 * then review and commit the diff of tests/fixtures/outputs/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "rows.h"
#include "hist.h"
#include "prom_metrics.h"
#include "report.h"
#include "top_format.h"
#include "top_model.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/unit/data"
#endif

/* TEST_DATA_DIR is <top>/tests/unit/data; the fixtures live beside it. */
static const char *golden_path(const char *arch, const char *what)
{
	static char path[1024];
	const char *d = TEST_DATA_DIR;
	const char *cut = strstr(d, "tests/unit/data");
	int len = cut ? (int)(cut - d) : 0;

	snprintf(path, sizeof(path), "%.*stests/fixtures/outputs/%s-%s.txt", len, d, arch, what);
	return path;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		return NULL;
	*len = 0;
	do {
		if (*len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n);
	fclose(f);
	buf[*len] = 0;
	return buf;
}

/*
 * Compare @got with the recorded file, or record it when
 * VMAPSCOPE_GOLDEN_UPDATE is set.  On a mismatch, name the first line
 * that differs so the failure reads without a diff tool.
 */
static void check_golden(const char *arch, const char *what, const char *got, size_t got_len)
{
	const char *path = golden_path(arch, what);
	size_t want_len = 0, i, line = 1;
	char *want;

	if (getenv("VMAPSCOPE_GOLDEN_UPDATE")) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(got, 1, got_len, f), got_len);
		assert_int_equal(fclose(f), 0);
		return;
	}
	want = read_all(path, &want_len);
	if (!want)
		fail_msg("%s: missing; record it with VMAPSCOPE_GOLDEN_UPDATE=1", path);
	for (i = 0; i < want_len && i < got_len && want[i] == got[i]; i++)
		if (got[i] == '\n')
			line++;
	if (i != want_len || i != got_len) {
		const char *w = want + i, *g = got + i;

		while (w > want && w[-1] != '\n')
			w--;
		while (g > got && g[-1] != '\n')
			g--;
		fail_msg("%s: differs at line %zu\n  want: %.*s\n  got:  %.*s", path, line,
			 (int)strcspn(w, "\n"), w, (int)strcspn(g, "\n"), g);
	}
	free(want);
}

/* ---- the sample ------------------------------------------------------ */

struct arch_case {
	const char *arch;
	unsigned int cont_shift;	/* 0: no contiguous-PTE granule */
	bool latency;			/* --call-latency, --runs, --lifetime, symbols readable */
};

static const struct arch_case x86 = { "x86_64", 0, true };
static const struct arch_case arm64 = { "arm64", 16, false };

/* @n mapping calls of @ns each (vmap_mapped's ns) */
static void add_map_lat(struct vmapscope_row *r, uint64_t n, uint64_t ns)
{
	r->st.lat_hist[hist_slot(ns, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.lat_sum_ns += n * ns;
}

/* @n unmappings of mappings that lived @ns each (--lifetime) */
static void add_life(struct vmapscope_row *r, uint64_t n, uint64_t ns)
{
	r->st.life_hist[hist_slot(ns, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.life_sum_ns += n * ns;
	r->st.unmaps += n;
}

/* @n whole calls of @ns each (--call-latency) */
static void add_lat(struct vmapscope_row *r, uint64_t n, uint64_t ns)
{
	r->st.call_lat_hist[hist_slot(ns, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.call_lat_sum_ns += n * ns;
	r->st.calls += n;
}

static void add_chunks(struct vmapscope_row *r, uint64_t n, uint64_t pages)
{
	r->st.chunk_hist[hist_slot(pages, VMAPSCOPE_HIST_SLOTS)] += n;
	r->st.chunk_pages += n * pages;
	r->st.chunks += n;
}

static void add_bytes(struct vmapscope_row *r, unsigned int shift, uint64_t runs, uint64_t bytes,
		      const struct arch_case *a)
{
	if (a->latency)		/* --runs with it */
		r->st.runs[shift] += runs;
	r->st.bytes[shift] += bytes;
}

static struct vmapscope_row *add_row(struct vmapscope_sample *s, uint64_t caller, int api,
				    const char *sym)
{
	struct vmapscope_row *r = &s->rows[s->nr_rows++];

	memset(r, 0, sizeof(*r));
	r->caller = caller;
	r->api = api;
	snprintf(r->sym, sizeof(r->sym), "%s", sym);
	return r;
}

/*
 * A cumulative read after @scale units of a workload: module loads and
 * BPF programs in vmalloc, a driver's vmap of contiguous pages (blocks
 * where the arch has them), an ioremap with slow and failed calls, a
 * vm_map_ram user, an area-only caller, and unattributed runs.  Rows are
 * sorted by caller, then api, as collector_read() returns them.
 */
static void make_sample(struct vmapscope_sample *s, const struct arch_case *a, uint64_t scale)
{
	unsigned int big = a->cont_shift ? a->cont_shift : 21;
	struct vmapscope_row *r;

	memset(s, 0, sizeof(*s));
	s->rows = calloc(8, sizeof(*s->rows));
	assert_non_null(s->rows);
	snprintf(s->arch, sizeof(s->arch), "%s", a->arch);
	snprintf(s->kernel_release, sizeof(s->kernel_release), "6.12.0-vmapscope");
	s->page_shift = 12;
	s->stats_max_entries = 2048;
	s->mono.tv_sec = 1000 + 2 * scale;
	s->mono.tv_nsec = 250000000;
	s->wall.tv_sec = 1796050000 + 2 * scale;
	s->wall.tv_nsec = 500000000;

	s->feat[VMAPSCOPE_FEAT_GRANULE] = (struct vmapscope_feature_state){ true, "vmap_mapped", "" };
	s->feat[VMAPSCOPE_FEAT_CHUNK] = (struct vmapscope_feature_state){ true, "vmap_mapped", "" };
	s->feat[VMAPSCOPE_FEAT_LATENCY] = (struct vmapscope_feature_state){ true, "vmap_mapped", "" };
	s->feat[VMAPSCOPE_FEAT_AREAS] = (struct vmapscope_feature_state){ true, "fexit", "" };
	s->feat[VMAPSCOPE_FEAT_CALLERS] = (struct vmapscope_feature_state){ true, "vmap_mapped", "" };
	if (a->latency) {
		s->feat[VMAPSCOPE_FEAT_RUNS] = (struct vmapscope_feature_state){ true, "raw_tp", "" };
		s->feat[VMAPSCOPE_FEAT_LIFETIME] = (struct vmapscope_feature_state){
			true, "vmap_mapped+free_vmap_area_noflush", "" };
		s->feat[VMAPSCOPE_FEAT_CALL_LATENCY] = (struct vmapscope_feature_state){
			true, "fentry",
			"call latency: vmap, vm_map_ram not timed (their exit probe would become the caller; --latency-all)" };
		s->feat[VMAPSCOPE_FEAT_FALLBACK] = (struct vmapscope_feature_state){ true, "vmap_mapped", "" };
		s->symbols_ok = true;
	} else {
		s->feat[VMAPSCOPE_FEAT_RUNS] = (struct vmapscope_feature_state){ false, "off (--runs)", "" };
		s->feat[VMAPSCOPE_FEAT_LIFETIME] = (struct vmapscope_feature_state){
			false, "off (--lifetime)", "" };
		s->feat[VMAPSCOPE_FEAT_CALL_LATENCY] = (struct vmapscope_feature_state){
			false, "", "call latency: no kprobes on this kernel (CONFIG_KPROBES=n)" };
		s->feat[VMAPSCOPE_FEAT_FALLBACK] = (struct vmapscope_feature_state){
			false, "", "fallback: the kernel's vmalloc:vmap_mapped has no fallbacks (the series before its patch 16) — apply kernel-patches/linux-6.12" };
		snprintf(s->ksyms_reason, sizeof(s->ksyms_reason),
			 "kptr_restrict=2: addresses are zero; callers shown as raw addresses");
	}

	/* runs outside the range of their task's next vmap_mapped (--runs) */
	if (a->latency) {
		r = add_row(s, 0, VMAPSCOPE_API_UNATTRIBUTED, "[unattributed]");
		r->st.runs[12] = 3 * scale;
	}

	r = add_row(s, 0xffffffff81234560ULL, VMAPSCOPE_API_VMALLOC,
		    a->latency ? "load_module+0x1a0/0x2200" : "0xffffffff81234560");
	add_bytes(r, 12, 40 * scale, 300 * 4096 * scale, a);
	add_bytes(r, 21, 2 * scale, 2 * (2ULL << 20) * scale, a);
	add_chunks(r, 10 * scale, 30);
	add_chunks(r, 2 * scale, 512);
	add_map_lat(r, 10 * scale, 2100);
	add_map_lat(r, 2 * scale, 9000);
	r->st.areas = 12 * scale;
	r->st.area_bytes = (300 * 4096 + 2 * (2ULL << 20) + 12 * 4096) * scale;
	if (a->latency) {
		add_lat(r, 9 * scale, 3100);
		add_lat(r, 3 * scale, 250000);
		/* module text lives long, its temporary buffers not */
		add_life(r, 8 * scale, 40000);
		add_life(r, 1 * scale, 3000000000ULL);
	}

	r = add_row(s, 0xffffffff81234560ULL, VMAPSCOPE_API_VMAP,
		    a->latency ? "load_module+0x1a0/0x2200" : "0xffffffff81234560");
	add_bytes(r, 12, 1 * scale, 4096 * scale, a);
	add_chunks(r, 1 * scale, 1);
	add_map_lat(r, 1 * scale, 700);

	r = add_row(s, 0xffffffff81a00010ULL, VMAPSCOPE_API_VMALLOC,
		    a->latency ? "bpf_prog_alloc_no_stats+0x3c/0x1d0" : "0xffffffff81a00010");
	add_bytes(r, 12, 8 * scale, 16 * 4096 * scale, a);
	add_chunks(r, 8 * scale, 2);
	add_map_lat(r, 8 * scale, 900);
	r->st.areas = 8 * scale;
	r->st.area_bytes = 8 * 3 * 4096 * scale;
	if (a->latency) {
		add_lat(r, 8 * scale, 1800);
		add_life(r, 6 * scale, 500000000ULL);
	}

	r = add_row(s, 0xffffffffc0a01234ULL, VMAPSCOPE_API_VMAP, "drm_gem_vmap+0x44/0x90 [drm]");
	add_bytes(r, big, 4 * scale, 4 * (1ULL << big) * scale, a);
	add_bytes(r, 12, 2 * scale, 32 * 4096 * scale, a);
	add_chunks(r, 4 * scale, (4 * (1ULL << big) + 32 * 4096) / 4096 / 4);
	add_map_lat(r, 4 * scale, 30000);
	r->st.areas = 4 * scale;
	r->st.area_bytes = (4 * (1ULL << big) + 32 * 4096 + 4 * 4096) * scale;
	/* the scattered pages of its buffers, and one misaligned */
	if (a->latency) {
		r->st.fallback_calls = 2 * scale;
		r->st.fallbacks[VMAPSCOPE_FB_DISCONTIG] = 2 * scale;
		r->st.fallbacks[VMAPSCOPE_FB_ALIGN] = scale / 3;
	}

	r = add_row(s, 0xffffffffc0b00300ULL, VMAPSCOPE_API_IOREMAP, "nvme_map_cmb+0x88/0x1c0 [nvme]");
	add_bytes(r, 21, 1 * scale, (2ULL << 20) * scale, a);
	add_bytes(r, 30, scale / 3, (1ULL << 30) * (scale / 3), a);
	add_chunks(r, 1 * scale, 512);
	add_map_lat(r, 1 * scale, 1ULL << 40);	/* a stuck mapping: the open-ended slot */
	r->st.map_failed = scale / 2;
	if (a->latency) {
		r->st.fallback_calls = scale / 3;
		r->st.fallbacks[VMAPSCOPE_FB_ALIGN] = scale / 3;
	}
	r->st.areas = 2 * scale;
	r->st.area_bytes = (4ULL << 20) * scale;
	if (a->latency) {
		add_lat(r, 1 * scale, 45000);
		add_lat(r, 1 * scale, 1ULL << 40);	/* a stuck call: the open-ended slot */
		r->st.failed = scale;
	}

	r = add_row(s, 0xffffffffc0c00500ULL, VMAPSCOPE_API_VM_MAP_RAM, "xfs_buf_map_pages+0x60/0x120 [xfs]");
	add_bytes(r, 12, 6 * scale, 24 * 4096 * scale, a);
	add_chunks(r, 6 * scale, 4);
	add_map_lat(r, 6 * scale, 1200);

	r = add_row(s, 0xffffffffc0d00000ULL, VMAPSCOPE_API_OTHER, "pcpu_create_chunk+0x1c/0x2a0");
	r->st.areas = 1 * scale;
	r->st.area_bytes = (8ULL << 20) * scale;

	s->counters[VMAPSCOPE_CNT_UNATTRIBUTED] = a->latency ? 3 * scale : 0;
	s->counters[VMAPSCOPE_CNT_MAPPED] = 40 * scale;
	s->counters[VMAPSCOPE_CNT_SET_PTES] = 60 * scale;
	s->counters[VMAPSCOPE_CNT_HUGE_BLOCKS] = 4 * scale;
	s->counters[VMAPSCOPE_CNT_AREAS] = 27 * scale;
	s->counters[VMAPSCOPE_CNT_LAZY_FREES] = 20 * scale;
	s->counters[VMAPSCOPE_CNT_FILTERED] = 7;
	s->counters[VMAPSCOPE_CNT_STATS_FULL] = scale > 1 ? 2 : 0;
	if (a->latency)
		s->counters[VMAPSCOPE_CNT_LAT_NESTED] = scale;
}

/* The interval between two reads, as vmapstat reports it. */
struct reads {
	struct vmapscope_sample prev, cum, delta;
};

static void make_reads(struct reads *rd, const struct arch_case *a)
{
	make_sample(&rd->prev, a, 3);
	make_sample(&rd->cum, a, 9);
	assert_int_equal(sample_delta(&rd->cum, &rd->prev, &rd->delta), 0);
}

static void free_reads(struct reads *rd)
{
	sample_free(&rd->prev);
	sample_free(&rd->cum);
	sample_free(&rd->delta);
}

/* ---- the outputs ----------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *out_open(struct out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	return o->f;
}

static void out_check(struct out *o, const char *arch, const char *what)
{
	assert_int_equal(fclose(o->f), 0);
	check_golden(arch, what, o->buf, o->len);
	free(o->buf);
}

static void check_text(const struct arch_case *a)
{
	struct report_opts caller = { .per_caller = true, .timestamp = true,
				      .lat_unit = "usecs", .lat_div = 1000 };
	struct report_opts per_api = { .lat_unit = "nsecs", .lat_div = 1 };
	struct reads rd;
	struct out o;

	make_reads(&rd, a);
	report_missing(out_open(&o), &rd.delta);
	report_text(o.f, &rd.delta, &caller);
	out_check(&o, a->arch, "text-caller");
	report_text(out_open(&o), &rd.delta, &per_api);
	report_text(o.f, &rd.cum, &per_api);
	out_check(&o, a->arch, "text-api");
	free_reads(&rd);
}

static void check_json(const struct arch_case *a)
{
	struct report_opts caller = { .per_caller = true, .lat_unit = "usecs", .lat_div = 1000 };
	struct report_opts per_api = { .lat_unit = "usecs", .lat_div = 1000 };
	struct json_object *j;
	struct reads rd;
	struct out o;

	make_reads(&rd, a);
	out_open(&o);
	j = report_json(&rd.delta, &caller);
	assert_int_equal(report_json_print(o.f, j), 0);
	json_object_put(j);
	j = report_json(&rd.delta, &per_api);
	assert_int_equal(report_json_print(o.f, j), 0);
	json_object_put(j);
	out_check(&o, a->arch, "json");
	free_reads(&rd);
}

static void check_prom(const struct arch_case *a)
{
	/* four named callers out of seven: the rest fold into caller="other" */
	struct prom_state *st = prom_state_new(4);
	struct reads rd;
	struct prom_buf b;

	assert_non_null(st);
	make_reads(&rd, a);
	prom_buf_init(&b);
	prom_state_set_info(st, &rd.prev);
	assert_int_equal(prom_state_add(st, &rd.delta), 0);
	assert_int_equal(prom_state_add(st, &rd.delta), 0);
	assert_int_equal(prom_render(st, &b), 0);
	check_golden(a->arch, "prom", b.data, b.len);
	prom_buf_free(&b);
	prom_state_free(st);
	free_reads(&rd);
}

static void top_lines(FILE *f, const struct top_table *tab, const struct top_view *view,
		      int width)
{
	char (*lines)[TOP_LINE_MAX] = calloc(16, TOP_LINE_MAX);
	struct top_layout lo;
	char row[1024];
	int i, n;

	assert_non_null(lines);
	n = top_fmt_summary(lines, 16, tab, view, tab->wall, tab->nr);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	fprintf(f, "layout %d: %d\n", width, top_layout_make(&lo, tab, width));
	top_fmt_colhdr(row, sizeof(row), &lo, tab);
	fprintf(f, "%s|\n", row);
	for (i = 0; i < (int)tab->nr; i++) {
		top_fmt_row(row, sizeof(row), &lo, tab, &tab->rows[i]);
		fprintf(f, "%s|\n", row);
	}
	free(lines);
}

static void check_top(const struct arch_case *a)
{
	static const struct top_live live[] = {
		{ "load_module+0x1a0/0x2200", VMAPSCOPE_API_VMALLOC, 40, 40 * 65536 },
		{ "0xffffffff81234560", VMAPSCOPE_API_VMALLOC, 40, 40 * 65536 },
		{ "pcpu_create_chunk+0x1c/0x2a0", VMAPSCOPE_API_VMALLOC, 2, 16 << 20 },
		{ "acpi_os_map_iomem+0x1b0/0x230", VMAPSCOPE_API_IOREMAP, 30, 30 * 8192 },
	};
	struct top_view view = { .sort = TOP_COL_BYTES };
	struct top_table tab = {};
	struct top_avail av;
	struct reads rd;
	struct out o;

	make_reads(&rd, a);
	top_avail_from_sample(&av, &rd.cum, NULL);

	out_open(&o);
	assert_int_equal(top_table_build(&tab, &rd.cum, &rd.delta, &av, live, 4, false, true), 0);
	top_table_sort(&tab, view.sort, false);
	top_lines(o.f, &tab, &view, 0);
	top_lines(o.f, &tab, &view, 100);
	top_lines(o.f, &tab, &view, 60);

	view = (struct top_view){ .sort = TOP_COL_P99, .reverse = true };
	snprintf(view.filter, sizeof(view.filter), "vm");
	assert_int_equal(top_table_build(&tab, &rd.cum, &rd.delta, &av, live, 4, true, false), 0);
	top_table_filter(&tab, view.filter);
	top_table_sort(&tab, view.sort, view.reverse);
	top_lines(o.f, &tab, &view, 0);

	/* the first frame: no previous read, every row idle */
	top_avail_from_sample(&av, &rd.cum, "live: /proc/vmallocinfo: Permission denied");
	assert_int_equal(top_table_build(&tab, &rd.cum, NULL, &av, NULL, 0, false, false), 0);
	top_table_sort(&tab, TOP_COL_CALLER, false);
	top_lines(o.f, &tab, NULL, 0);
	out_check(&o, a->arch, "top");
	top_table_free(&tab);
	free_reads(&rd);
}

static void test_text(void **state)
{
	check_text(&x86);
	check_text(&arm64);
}

static void test_json(void **state)
{
	check_json(&x86);
	check_json(&arm64);
}

static void test_prom(void **state)
{
	check_prom(&x86);
	check_prom(&arm64);
}

static void test_top(void **state)
{
	check_top(&x86);
	check_top(&arm64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_top),
	};

	/* the text report's -T line and vmaptop's clock are local time */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
