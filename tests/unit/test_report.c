// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot arithmetic (delta, per-API folding), API name parsing, and the
 * JSON report parsed back by a real JSON parser (json-c's tokener).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "rows.h"
#include "report.h"

static void fill_meta(struct vmapscope_sample *s, const char *arch)
{
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
	snprintf(s->kernel_release, sizeof(s->kernel_release), "6.12.0");
	s->page_shift = 12;
	s->symbols_ok = true;
	s->stats_max_entries = 2048;
	s->feat[VMAPSCOPE_FEAT_GRANULE].available = true;
	s->feat[VMAPSCOPE_FEAT_CHUNK].available = true;
	s->feat[VMAPSCOPE_FEAT_AREAS].available = true;
	snprintf(s->feat[VMAPSCOPE_FEAT_LATENCY].why, sizeof(s->feat[0].why),
		 "latency: test says no");
}

/* Two callers: vmalloc 1x2M PMD + 256x4K; vmap 16x64K cont. */
static void make_snap(struct vmapscope_sample *s, const char *arch, uint64_t scale)
{
	struct vmapscope_row *r;

	memset(s, 0, sizeof(*s));
	fill_meta(s, arch);
	s->rows = calloc(3, sizeof(*s->rows));
	assert_non_null(s->rows);
	s->nr_rows = 3;

	r = &s->rows[0];
	r->caller = 0xffffffffc0001010ULL;
	r->api = VMAPSCOPE_API_VMALLOC;
	snprintf(r->sym, sizeof(r->sym), "wl_vmalloc+0x10/0x200 [wl]");
	r->st.bytes[21] = scale * (2ULL << 20);
	r->st.runs[21] = scale;
	r->st.bytes[12] = scale * 256 * 4096;
	r->st.runs[12] = scale * 2;
	r->st.chunks = scale * 2;
	r->st.chunk_pages = scale * (512 + 256);
	r->st.chunk_hist[9] = scale;
	r->st.chunk_hist[8] = scale;
	r->st.calls = scale;
	r->st.lat_sum_ns = scale * 3000;
	r->st.lat_hist[11] = scale;	/* 2048..4095 ns: one of the two mappings timed */
	r->st.call_lat_sum_ns = scale * 3000;
	r->st.call_lat_hist[11] = scale;
	r->st.areas = scale;
	r->st.area_bytes = scale * ((2ULL << 20) + (1 << 20) + 4096);

	r = &s->rows[1];
	r->caller = 0xffffffffc0001210ULL;
	r->api = VMAPSCOPE_API_VMAP;
	snprintf(r->sym, sizeof(r->sym), "wl_vmap+0x10/0x100 [wl]");
	r->st.bytes[16] = scale * 16 * 65536;
	r->st.runs[16] = scale;
	r->st.chunks = scale;
	r->st.chunk_pages = scale * 256;
	r->st.chunk_hist[8] = scale;

	r = &s->rows[2];
	r->caller = 0xffffffffc0001300ULL;
	r->api = VMAPSCOPE_API_VMALLOC;
	snprintf(r->sym, sizeof(r->sym), "wl_other+0x0/0x10 [wl]");
	r->st.bytes[12] = scale * 4096;
	r->st.runs[12] = scale;

	s->counters[VMAPSCOPE_CNT_SET_PTES] = scale * 4;
	s->counters[VMAPSCOPE_CNT_HUGE_BLOCKS] = scale;
	s->mono.tv_sec = 100 * scale;
	s->wall.tv_sec = 1796050000 + scale;
}

static void test_api_names(void **state)
{
	unsigned int m = 0;

	assert_int_equal(api_parse_mask("vmalloc", &m), 0);
	assert_int_equal(m, 1U << VMAPSCOPE_API_VMALLOC);
	assert_int_equal(api_parse_mask("vmap,ioremap,vm_map_ram,other", &m), 0);
	assert_int_equal(m, (1U << VMAPSCOPE_API_VMAP) | (1U << VMAPSCOPE_API_IOREMAP) |
			    (1U << VMAPSCOPE_API_VM_MAP_RAM) | (1U << VMAPSCOPE_API_OTHER));
	m = 12345;
	assert_int_equal(api_parse_mask("vmalloc,", &m), -EINVAL);
	assert_int_equal(api_parse_mask(",vmap", &m), -EINVAL);
	assert_int_equal(api_parse_mask("VMALLOC", &m), -EINVAL);
	assert_int_equal(api_parse_mask("", &m), -EINVAL);
	assert_int_equal(api_parse_mask("unattributed", &m), -EINVAL);
	assert_int_equal(m, 12345);	/* untouched on error */
	assert_string_equal(api_name(VMAPSCOPE_API_UNATTRIBUTED), "unattributed");
}

static void test_delta_and_by_api(void **state)
{
	struct vmapscope_sample a, b, d, t;

	make_snap(&a, "x86_64", 1);
	make_snap(&b, "x86_64", 3);
	/* a row that did not change between a and b must be dropped */
	b.rows[2].st = a.rows[2].st;
	assert_int_equal(sample_delta(&b, &a, &d), 0);
	assert_int_equal(d.nr_rows, 2);
	assert_true(d.interval_s == 200.0);
	assert_true(d.rows[0].st.bytes[21] == 2 * (2ULL << 20));
	assert_true(d.rows[1].st.bytes[16] == 2 * 16 * 65536);
	assert_true(d.counters[VMAPSCOPE_CNT_SET_PTES] == 8);
	assert_true(row_mappings(&d.rows[0], 21) == 2);
	assert_true(row_mappings(&d.rows[0], 12) == 512);

	/* by API: the two vmalloc callers fold into one row */
	assert_int_equal(rows_by_api(&a, &t), 0);
	assert_int_equal(t.nr_rows, 2);
	assert_int_equal(t.rows[0].api, VMAPSCOPE_API_VMALLOC);
	assert_true(t.rows[0].st.bytes[12] == 257 * 4096);
	assert_true(t.rows[0].st.runs[12] == 3);
	assert_string_equal(t.rows[0].sym, "vmalloc");
	assert_int_equal(t.rows[1].api, VMAPSCOPE_API_VMAP);
	sample_free(&t);
	sample_free(&d);
	sample_free(&a);
	sample_free(&b);
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static struct json_object *report_roundtrip(const struct vmapscope_sample *s, bool per_caller)
{
	struct report_opts o = { .per_caller = per_caller, .lat_unit = "usecs", .lat_div = 1000 };
	struct json_object *obj = report_json(s, &o), *back;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(obj);
	assert_int_equal(report_json_print(f, obj), 0);
	fclose(f);
	json_object_put(obj);
	/* exactly one line, newline-terminated */
	assert_true(len > 2 && buf[len - 1] == '\n');
	assert_null(memchr(buf, '\n', len - 1));
	back = json_tokener_parse(buf);
	assert_non_null(back);
	free(buf);
	return back;
}

static void test_json_per_caller(void **state)
{
	struct vmapscope_sample s;
	struct json_object *j, *rows, *r0, *g, *e, *h;

	make_snap(&s, "arm64", 1);
	j = report_roundtrip(&s, true);
	assert_string_equal(json_object_get_string(get(j, "schema")), "vmapstat/1");
	assert_string_equal(json_object_get_string(get(j, "mode")), "per_caller");
	assert_string_equal(json_object_get_string(get(get(j, "kernel"), "arch")), "arm64");
	assert_int_equal(json_object_get_int64(get(get(j, "kernel"), "page_size")), 4096);
	assert_false(json_object_get_boolean(get(get(get(j, "features"), "latency"), "available")));
	assert_string_equal(json_object_get_string(get(get(get(j, "features"), "latency"), "why")),
			    "latency: test says no");
	assert_int_equal(json_object_get_int64(get(get(j, "counters"), "set_ptes_events")), 4);

	rows = get(j, "rows");
	assert_int_equal(json_object_array_length(rows), 3);
	r0 = json_object_array_get_idx(rows, 0);
	assert_string_equal(json_object_get_string(get(r0, "caller")), "wl_vmalloc+0x10/0x200 [wl]");
	assert_string_equal(json_object_get_string(get(r0, "caller_addr")), "0xffffffffc0001010");
	assert_string_equal(json_object_get_string(get(r0, "api")), "vmalloc");
	assert_int_equal(json_object_get_int64(get(r0, "bytes")), (2 << 20) + (1 << 20));

	g = get(r0, "granules");
	assert_int_equal(json_object_array_length(g), 2);
	e = json_object_array_get_idx(g, 0);		/* ascending shift: 4K first */
	assert_int_equal(json_object_get_int(get(e, "shift")), 12);
	assert_string_equal(json_object_get_string(get(e, "label")), "4K");
	assert_int_equal(json_object_get_int64(get(e, "mappings")), 256);
	assert_int_equal(json_object_get_int64(get(e, "runs")), 2);
	assert_true(json_object_get_double(get(e, "share")) > 0.333 &&
		    json_object_get_double(get(e, "share")) < 0.334);
	e = json_object_array_get_idx(g, 1);
	assert_string_equal(json_object_get_string(get(e, "label")), "2M PMD");
	assert_int_equal(json_object_get_int64(get(e, "mappings")), 1);

	h = get(r0, "chunk_hist");
	assert_int_equal(json_object_array_length(h), 2);
	e = json_object_array_get_idx(h, 1);
	assert_int_equal(json_object_get_int64(get(e, "low")), 512);
	assert_int_equal(json_object_get_int64(get(e, "high")), 1023);
	assert_int_equal(json_object_get_int64(get(e, "count")), 1);
	h = get(r0, "latency_hist_ns");
	e = json_object_array_get_idx(h, 0);
	assert_int_equal(json_object_get_int64(get(e, "low")), 2048);

	/* arm64 labels: 64K cont for the vmap row */
	e = json_object_array_get_idx(get(json_object_array_get_idx(rows, 1), "granules"), 0);
	assert_string_equal(json_object_get_string(get(e, "label")), "64K cont");
	json_object_put(j);
	sample_free(&s);
}

static void test_json_per_api_and_text(void **state)
{
	struct report_opts o = { .per_caller = false, .lat_unit = "usecs", .lat_div = 1000 };
	struct vmapscope_sample s;
	struct json_object *j, *rows, *r0, *tmp;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	make_snap(&s, "x86_64", 1);
	j = report_roundtrip(&s, false);
	rows = get(j, "rows");
	assert_int_equal(json_object_array_length(rows), 2);
	r0 = json_object_array_get_idx(rows, 0);
	assert_false(json_object_object_get_ex(r0, "caller", &tmp));
	assert_int_equal(json_object_get_int64(get(r0, "bytes")), (2 << 20) + (1 << 20) + 4096);
	json_object_put(j);

	f = open_memstream(&buf, &len);
	report_text(f, &s, &o);
	fclose(f);
	assert_non_null(strstr(buf, "[vmalloc]"));
	assert_non_null(strstr(buf, "2M PMD"));
	/* the means are per timed call (one of the two mappings); no "failed 0" */
	assert_non_null(strstr(buf, "chunks 2, pages 768, avg 3.000 usecs\n"));
	assert_non_null(strstr(buf, "calls 1, avg 3.000 usecs\n"));
	assert_non_null(strstr(buf, "call usecs"));
	assert_non_null(strstr(buf, "chunk pages"));
	/* x86 has no 64K granule: shown by size and shift */
	assert_non_null(strstr(buf, "64K (shift 16)"));
	free(buf);
	sample_free(&s);
}

static void test_missing_lines(void **state)
{
	struct vmapscope_sample s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	make_snap(&s, "x86_64", 1);
	s.symbols_ok = false;
	snprintf(s.ksyms_reason, sizeof(s.ksyms_reason), "kallsyms shows zeros");
	f = open_memstream(&buf, &len);
	report_missing(f, &s);
	fclose(f);
	assert_string_equal(buf, "vmapstat: latency: test says no\n"
				 "vmapstat: callers: kallsyms shows zeros\n");
	free(buf);
	sample_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_names),
		cmocka_unit_test(test_delta_and_by_api),
		cmocka_unit_test(test_json_per_caller),
		cmocka_unit_test(test_json_per_api_and_text),
		cmocka_unit_test(test_missing_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
