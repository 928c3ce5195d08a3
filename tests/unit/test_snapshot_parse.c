// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the /proc/vmallocinfo parser of the snapshot:
 * single lines of every kind, and whole fixture files
 * (tests/fixtures/vmallocinfo/) with real, hashed and zeroed addresses
 * and malformed lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "snapshot.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/unit/data"
#endif

/* TEST_DATA_DIR is <top>/tests/unit/data; the fixtures live beside it. */
static const char *fixture(const char *name)
{
	static char path[1024];
	const char *d = TEST_DATA_DIR;
	const char *cut = strstr(d, "tests/unit/data");
	int len = cut ? (int)(cut - d) : 0;

	snprintf(path, sizeof(path), "%.*stests/fixtures/vmallocinfo/%s", len, d, name);
	return path;
}

static void test_vmalloc_line(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000008000-0xffffc9000000d000   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n",
		&a), 0);
	assert_true(a.start == 0xffffc90000008000ULL);
	assert_true(a.end == 0xffffc9000000d000ULL);
	assert_int_equal(a.size, 20480);
	assert_string_equal(a.caller, "kernel_clone+0xb8/0x400");
	assert_int_equal(a.nr_pages, 4);
	assert_int_equal(a.flags, SNAPSHOT_F_VMALLOC);
	assert_int_equal(a.api, VMAPSCOPE_API_VMALLOC);
}

static void test_ioremap_phys_line(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000005000-0xffffc90000007000    8192 acpi_os_map_iomem+0x1bc/0x1e0 phys=0x00000000000a0000 ioremap",
		&a), 0);
	assert_true(a.phys == 0xa0000);
	assert_int_equal(a.api, VMAPSCOPE_API_IOREMAP);
	assert_string_equal(a.caller, "acpi_os_map_iomem+0x1bc/0x1e0");
}

static void test_module_caller_and_flags(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000200000-0xffffc90000601000 4198400 sw_vmalloc_huge+0x1c/0x40 [snapshot_workload] pages=1024 vmalloc vpages N0=1024",
		&a), 0);
	assert_string_equal(a.caller, "sw_vmalloc_huge+0x1c/0x40 [snapshot_workload]");
	assert_int_equal(a.flags, SNAPSHOT_F_VMALLOC | SNAPSHOT_F_VPAGES);
	assert_int_equal(a.nr_pages, 1024);

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000700000-0xffffc90000711000   69632 bpf_map_area_alloc+0x5e/0x90 pages=16 vmalloc user N0=16",
		&a), 0);
	assert_int_equal(a.flags, SNAPSHOT_F_VMALLOC | SNAPSHOT_F_USER);

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000740000-0xffffc90000743000   12288 dma_common_contiguous_remap+0x90/0xc0 vmap dma-coherent",
		&a), 0);
	assert_int_equal(a.flags, SNAPSHOT_F_VMAP | SNAPSHOT_F_DMA_COHERENT);
	assert_int_equal(a.api, VMAPSCOPE_API_VMAP);
}

static void test_bare_address_caller(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000730000-0xffffc90000735000   20480 0xffffffffc0201234 pages=4 vmalloc N0=4", &a), 0);
	assert_string_equal(a.caller, "0xffffffffc0201234");
}

static void test_no_caller(void **state)
{
	struct snapshot_area a;

	/* Areas without a caller (early vm_area_add_early()) print none. */
	assert_int_equal(vmallocinfo_parse_line(
		"0xffff800080000000-0xffff800081000000 16777216 phys=0x0000000040000000 vmap", &a), 0);
	assert_string_equal(a.caller, "");
	assert_int_equal(a.api, VMAPSCOPE_API_VMAP);
}

static void test_vm_map_ram_and_unpurged(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000020000-0xffffc90000022000    8192 vm_map_ram", &a), 0);
	assert_int_equal(a.flags, SNAPSHOT_F_VM_MAP_RAM);
	assert_int_equal(a.api, VMAPSCOPE_API_VM_MAP_RAM);
	assert_string_equal(a.caller, "");

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000010000-0xffffc90000015000   20480 unpurged vm_area", &a), 0);
	assert_int_equal(a.flags, SNAPSHOT_F_UNPURGED);
}

static void test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"",
		"garbage",
		"0xffffc90000005000 8192 acpi_os_map_iomem+0x1bc/0x1e0 ioremap",
		"0xffffc90000005000-0xffffc90000007000",
		"0xffffc90000005000-0xffffc90000007000 abc vmap",
		"0xffffc90000005000-0xffffc90000007000 -8192 vmap",
		"ffffc90000005000-0xffffc90000007000 8192 vmap",
		"0xffffc90000005000-0xzz 8192 vmap",
		"0xffffc90000005000-0xffffc90000007000 8192 caller+0x1/0x2 vmap stray",
		"0xffffc90000005000-0xffffc90000007000 8192 unpurged",
		"0xffffc90000005000-0xffffc90000007000 8192 f+0x1/0x2 pages=x vmalloc",
		"0xffffc90000005000-0xffffc90000007000 8192 f+0x1/0x2 phys=123 ioremap",
		/* what strtoull() alone would take: a second 0x, signs, blanks */
		"0x0xffffc90000005000-0xffffc90000007000 8192 vmap",
		"0xffffc90000005000-0x0Xffffc90000007000 8192 vmap",
		"0x+ffffc90000005000-0xffffc90000007000 8192 vmap",
		"0xffffc90000005000-0xffffc90000007000 +8192 vmap",
		"0xffffc90000005000-0xffffc90000007000 8192 f+0x1/0x2 pages=+2 vmalloc",
		"0xffffc90000005000-0xffffc90000007000 8192 f+0x1/0x2 phys=0x-1 ioremap",
		"0xffffc90000005000-0xffffc90000007000 8192 f+0x1/0x2 phys=0x0x1 ioremap",
	};
	struct snapshot_area a;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (vmallocinfo_parse_line(bad[i], &a) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
}

/*
 * A line longer than any fixed buffer: a Rust caller (KSYM_NAME_LEN is
 * 512) on a machine printing a page count for each of 100 nodes.
 */
static void test_long_line(void **state)
{
	char name[501], line[2048];
	struct snapshot_area a;
	size_t off;

	memset(name, 'r', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	off = (size_t)snprintf(line, sizeof(line),
		"0xffffc90000008000-0xffffc90000049000  266240 _RNv%s+0x1a/0x80 [rust_mod] "
		"pages=100 vmalloc", name);
	for (int n = 0; n < 100; n++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " N%d=1", n);
	snprintf(line + off, sizeof(line) - off, "\n");
	assert_true(strlen(line) > 1024);
	assert_int_equal(vmallocinfo_parse_line(line, &a), 0);
	assert_true(a.start == 0xffffc90000008000ULL && a.end == 0xffffc90000049000ULL);
	assert_true(a.size == 266240 && a.nr_pages == 100);
	assert_int_equal(a.flags, SNAPSHOT_F_VMALLOC);
	/* the caller is cut to SNAPSHOT_CALLER_LEN, never overrun */
	assert_int_equal(strlen(a.caller), SNAPSHOT_CALLER_LEN - 1);
	assert_int_equal(strncmp(a.caller, "_RNvrrr", 7), 0);
}

static void test_file_real(void **state)
{
	struct snapshot_areas areas;
	char err[512] = "";

	assert_int_equal(vmallocinfo_load(fixture("x86_64-real.txt"), &areas, err, sizeof(err)), 0);
	assert_int_equal(areas.addr_kind, SNAPSHOT_ADDR_REAL);
	assert_int_equal(areas.n, 9);		/* 10 lines, 1 unpurged */
	assert_int_equal(areas.skipped_unpurged, 1);
	assert_int_equal(areas.v[3].api, VMAPSCOPE_API_VM_MAP_RAM);
	assert_string_equal(areas.v[4].caller, "sw_alloc_huge+0x1c/0x40 [snapshot_workload]");
	snapshot_areas_free(&areas);

	assert_int_equal(vmallocinfo_load(fixture("arm64-real.txt"), &areas, err, sizeof(err)), 0);
	assert_int_equal(areas.n, 4);
	assert_true(areas.v[3].phys == 0x8000000000ULL);
	snapshot_areas_free(&areas);
}

static void expect_error(const char *name, int ret, const char *msg)
{
	struct snapshot_areas areas;
	char err[512] = "";

	assert_int_equal(vmallocinfo_load(fixture(name), &areas, err, sizeof(err)), ret);
	if (!strstr(err, msg))
		fail_msg("%s: \"%s\" lacks \"%s\"", name, err, msg);
	assert_null(areas.v);
	assert_int_equal(areas.n, 0);
}

static void test_file_hidden_addresses(void **state)
{
	expect_error("hashed.txt", -EPERM, "addresses are hashed: kernel.kptr_restrict is 0");
	expect_error("zero.txt", -EPERM, "addresses are printed as zeros");
}

static void test_file_bad(void **state)
{
	expect_error("malformed.txt", -EINVAL, "malformed.txt:2: not a vmallocinfo line");
	expect_error("garbage.txt", -EINVAL, "garbage.txt:1: not a vmallocinfo line");
	expect_error("empty.txt", -ENODATA, "no vmalloc areas listed");
	expect_error("does-not-exist.txt", -ENOENT, "cannot open");
}

static void test_mixed_addresses(void **state)
{
	/* A real line and a hashed one: refuse rather than walk nonsense. */
	const char text[] =
		"0xffffc90000000000-0xffffc90000005000   20480 a+0x1/0x2 vmap\n"
		"0x000000001078bb84-0x00000000172cf4a5    8192 b+0x1/0x2 ioremap\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct snapshot_areas areas;
	char err[512] = "";

	assert_non_null(f);
	assert_int_equal(vmallocinfo_read(f, "mixed", &areas, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "inconsistent"));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmalloc_line),
		cmocka_unit_test(test_ioremap_phys_line),
		cmocka_unit_test(test_module_caller_and_flags),
		cmocka_unit_test(test_bare_address_caller),
		cmocka_unit_test(test_no_caller),
		cmocka_unit_test(test_vm_map_ram_and_unpurged),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_file_real),
		cmocka_unit_test(test_file_hidden_addresses),
		cmocka_unit_test(test_file_bad),
		cmocka_unit_test(test_mixed_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
