// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the snapshot's page-table entry decoding (the
 * same inline code the BPF walker runs, fed x86_64 and arm64 entries),
 * of folding per-area results into (caller, api) rows, and of the JSON
 * output, parsed back with json-c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include <json-c/json.h>

#include "snapshot.h"
#include "snapshot_pt.h"

static int decode(unsigned int arch, unsigned int shift, int last, __u64 e, int *g)
{
	*g = -1;
	return snapshot_decode(arch, shift, last, e, g);
}

static void test_x86_entries(void **state)
{
	int g;

	/* Not present: nothing below, at every level. */
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 39, 0, 0, &g), SNAPSHOT_PT_NONE);
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 12, 1, 0x8000000012345062ULL, &g),
			 SNAPSHOT_PT_NONE);
	/* PGD/PUD/PMD table pointers (present, rw, accessed, dirty). */
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 39, 0, 0x0000000003a01067ULL, &g), SNAPSHOT_PT_TABLE);
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 21, 0, 0x0000000003a02063ULL, &g), SNAPSHOT_PT_TABLE);
	/* PSE at PMD: 2M leaf; at PUD: 1G leaf. */
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 21, 0, 0x80000000042001e3ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PMD);
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 30, 0, 0x80000000400001e3ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PUD);
	/* Bit 7 in a PTE is PAT, not PSE: still a 4K leaf. */
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 12, 1, 0x80000000012340e3ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PTE);
	/* x86 has no contiguous bit: bit 52 is ignored (software bit). */
	assert_int_equal(decode(SNAPSHOT_ARCH_X86_64, 12, 1, 0x0010000001234063ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PTE);
}

static void test_arm64_entries(void **state)
{
	int g;

	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 39, 0, 0, &g), SNAPSHOT_PT_NONE);
	/* Table descriptors: bits 1:0 = 3. */
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 39, 0, 0x0000000041fff003ULL, &g), SNAPSHOT_PT_TABLE);
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 21, 0, 0x0000000041ffe003ULL, &g), SNAPSHOT_PT_TABLE);
	/* Blocks: bits 1:0 = 1 at levels 1 (1G) and 2 (2M, 32M with PTE_CONT). */
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 30, 0, 0x0060000040000701ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PUD);
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 21, 0, 0x0068000042000711ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PMD);
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 21, 0, 0x0078000042000711ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_CONT_PMD);
	/* No block descriptors at level 0 with 4K pages. */
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 39, 0, 0x0060000040000701ULL, &g), SNAPSHOT_PT_NONE);
	/* Pages: bits 1:0 = 3; PTE_CONT (bit 52) marks a 64K run. */
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 12, 1, 0x0068000041234713ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_PTE);
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 12, 1, 0x0078000041230713ULL, &g), SNAPSHOT_PT_LEAF);
	assert_int_equal(g, SNAPSHOT_G_CONT_PTE);
	/* bits 1:0 = 1 at level 3 is reserved: not a mapping. */
	assert_int_equal(decode(SNAPSHOT_ARCH_ARM64, 12, 1, 0x0068000041234711ULL, &g), SNAPSHOT_PT_NONE);
}

static void test_table_address(void **state)
{
	struct snapshot_layout x86 = {
		.arch = SNAPSHOT_ARCH_X86_64, .addr_mask = SNAPSHOT_X86_ADDR_MASK,
		.phys_base = 0, .virt_base = 0xffff888000000000ULL,
	};
	struct snapshot_layout arm = {
		.arch = SNAPSHOT_ARCH_ARM64, .addr_mask = SNAPSHOT_ARM64_ADDR_MASK,
		.phys_base = 0x40000000ULL, .virt_base = 0xffff000000000000ULL,
	};

	/* NX and flag bits must not leak into the next table's address. */
	assert_true(snapshot_table_va(&x86, 0x8000000003a01067ULL) == 0xffff888003a01000ULL);
	/* arm64: __phys_to_virt(p) = (p - memstart_addr) | PAGE_OFFSET. */
	assert_true(snapshot_table_va(&arm, 0x0010000041fff003ULL) == 0xffff000001fff000ULL);
}

static void test_granule_shifts_and_labels(void **state)
{
	assert_int_equal(snapshot_granule_shift(SNAPSHOT_G_PTE), 12);
	assert_int_equal(snapshot_granule_shift(SNAPSHOT_G_CONT_PTE), 16);
	assert_int_equal(snapshot_granule_shift(SNAPSHOT_G_PMD), 21);
	assert_int_equal(snapshot_granule_shift(SNAPSHOT_G_CONT_PMD), 25);
	assert_int_equal(snapshot_granule_shift(SNAPSHOT_G_PUD), 30);
}

/* Three areas of two callers plus one that changed under the walk. */
static void make_areas(struct snapshot_areas *areas, struct snapshot_area_result *res)
{
	static const char *const lines[] = {
		"0xffffc90000200000-0xffffc90000601000 4198400 huge+0x1c/0x40 [m] pages=1024 vmalloc",
		"0xffffc90000700000-0xffffc90000711000   69632 small+0x5/0x90 pages=16 vmalloc",
		"0xffffc90000800000-0xffffc90000811000   69632 small+0x5/0x90 pages=16 vmalloc",
		"0xffffc90001000000-0xffffc90001400000 4194304 io+0x9/0x10 phys=0x00000000f8000000 ioremap",
	};
	size_t i;

	memset(areas, 0, sizeof(*areas));
	areas->v = calloc(4, sizeof(*areas->v));
	assert_non_null(areas->v);
	for (i = 0; i < 4; i++)
		assert_int_equal(vmallocinfo_parse_line(lines[i], &areas->v[areas->n++]), 0);
	areas->skipped_unpurged = 2;
	memset(res, 0, 4 * sizeof(*res));
	res[0].bytes[21] = 4 << 20;
	res[0].unmapped = 4096;
	res[1].bytes[12] = 64 << 10;
	res[1].unmapped = 4096;
	res[2].changed = true;
	res[3].bytes[21] = 4 << 20;
}

static void test_fold(void **state)
{
	struct snapshot_area_result res[4];
	struct snapshot_opts o = { 0 };
	struct snapshot s = { 0 };
	struct snapshot_areas areas;

	make_areas(&areas, res);
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	assert_int_equal(s.nr_rows, 3);
	assert_int_equal(s.areas_listed, 6);
	assert_int_equal(s.areas_unpurged, 2);
	assert_int_equal(s.areas_changed, 1);
	/* sorted by caller */
	assert_string_equal(s.rows[0].caller, "huge+0x1c/0x40 [m]");
	assert_string_equal(s.rows[2].caller, "small+0x5/0x90");
	assert_int_equal(s.rows[2].areas, 1);		/* the changed one is not counted */
	assert_int_equal(s.rows[2].changed, 1);
	assert_int_equal(s.rows[2].bytes[12], 64 << 10);
	assert_int_equal(s.total.bytes[21], 8 << 20);
	assert_int_equal(s.total.bytes[12], 64 << 10);
	assert_int_equal(s.total.unmapped, 8192);
	assert_int_equal(s.total.areas, 3);
	snapshot_free(&s);

	/* Filters: API mask and caller substring. */
	memset(&s, 0, sizeof(s));
	o.api_mask = 1u << VMAPSCOPE_API_IOREMAP;
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	assert_int_equal(s.nr_rows, 1);
	assert_int_equal(s.rows[0].api, VMAPSCOPE_API_IOREMAP);
	snapshot_free(&s);
	memset(&s, 0, sizeof(s));
	o.api_mask = 0;
	o.caller_filter = "huge";
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	assert_int_equal(s.nr_rows, 1);
	assert_int_equal(s.total.bytes[21], 4 << 20);
	snapshot_free(&s);
	snapshot_areas_free(&areas);
}

static json_object *parse_output(const struct snapshot *s, bool per_caller)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *o;

	assert_non_null(f);
	assert_int_equal(snapshot_print_json(f, s, per_caller), 0);
	fclose(f);
	assert_non_null(strchr(buf, '\n'));
	assert_true(strchr(buf, '\n') == buf + len - 1);	/* one line */
	o = json_tokener_parse(buf);
	free(buf);
	assert_non_null(o);
	return o;
}

static void test_json_roundtrip(void **state)
{
	struct snapshot_area_result res[4];
	struct snapshot_opts o = { 0 };
	struct snapshot s = { 0 };
	struct snapshot_areas areas;
	json_object *j, *rows, *row, *v, *bytes;

	make_areas(&areas, res);
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	snprintf(s.arch, sizeof(s.arch), "x86_64");

	j = parse_output(&s, true);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	assert_int_equal(json_object_array_length(rows), 3);
	row = json_object_array_get_idx(rows, 0);
	assert_true(json_object_object_get_ex(row, "caller", &v));
	assert_string_equal(json_object_get_string(v), "huge+0x1c/0x40 [m]");
	assert_true(json_object_object_get_ex(row, "bytes", &bytes));
	/* granule labels of the snapshot's arch, as in vmapstat's report */
	assert_true(json_object_object_get_ex(bytes, "2M PMD", &v));
	assert_int_equal(json_object_get_int64(v), 4 << 20);
	assert_true(json_object_object_get_ex(j, "areas_changed", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	json_object_put(j);

	/* Default view: one row per API, no caller field. */
	j = parse_output(&s, false);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	assert_int_equal(json_object_array_length(rows), 2);	/* vmalloc, ioremap */
	row = json_object_array_get_idx(rows, 0);
	assert_false(json_object_object_get_ex(row, "caller", &v));
	assert_true(json_object_object_get_ex(row, "api", &v));
	assert_string_equal(json_object_get_string(v), "vmalloc");
	assert_true(json_object_object_get_ex(row, "mapped", &v));
	assert_int_equal(json_object_get_int64(v), (4 << 20) + (64 << 10));
	assert_true(json_object_object_get_ex(j, "total", &row));
	assert_true(json_object_object_get_ex(row, "mapped", &v));
	assert_int_equal(json_object_get_int64(v), (8 << 20) + (64 << 10));
	json_object_put(j);
	snapshot_free(&s);
	snapshot_areas_free(&areas);
}

static void test_text_output(void **state)
{
	struct snapshot_area_result res[4];
	struct snapshot_opts o = { 0 };
	struct snapshot s = { 0 };
	struct snapshot_areas areas;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	make_areas(&areas, res);
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	snprintf(s.arch, sizeof(s.arch), "x86_64");
	f = open_memstream(&buf, &len);
	snapshot_print_text(f, &s, true);
	fclose(f);
	/* KiB columns of x86_64: 4K, 2M PMD, 1G PUD, mapped, holes, changed */
	assert_non_null(strstr(buf, "          4K       2M PMD       1G PUD     mapped      holes changed"));
	assert_non_null(strstr(buf, "huge+0x1c/0x40 [m]"));
	assert_non_null(strstr(buf, "6 listed, 2 lazily freed (not walked), 1 changed"));
	assert_non_null(strstr(buf, "            0         4096            0       4096          4       0"));
	free(buf);
	snapshot_free(&s);
	snapshot_areas_free(&areas);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_entries),
		cmocka_unit_test(test_arm64_entries),
		cmocka_unit_test(test_table_address),
		cmocka_unit_test(test_granule_shifts_and_labels),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_text_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
