// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop live areas: /proc/vmallocinfo lines (6.12 format, through the
 * shared vmallocinfo_parse_line()) become one entry per (caller, API);
 * lazily freed areas are not live; module callers keep their "[module]";
 * hashed addresses (kptr_restrict=0) do not matter; an unreadable file
 * says why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "top_live.h"

static const char vmallocinfo[] =
"0xffffc90000000000-0xffffc90000005000   20480 irq_init_percpu_irqstack+0xed/0x120 vmap\n"
"0xffffc90000005000-0xffffc90000007000    8192 acpi_os_map_iomem+0x1bc/0x1e0 phys=0x00000000000a0000 ioremap\n"
"0xffffc90000008000-0xffffc9000000b000   12288 acpi_os_map_iomem+0x1bc/0x1e0 phys=0x000000000009f000 ioremap\n"
"0xffffc9000000c000-0xffffc90000011000   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
"0xffffc90000014000-0xffffc90000019000   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc vpages N0=4\n"
"0xffffc90000020000-0xffffc90000022000    8192 unpurged vm_area\n"
"0xffffc90000030000-0xffffc90000070000  262144 vm_map_ram\n"
"0xffffc90000200000-0xffffc90000601000 4198400 fix_size_alloc_test+0x3c/0x90 [test_vmalloc] pages=1024 vmalloc N0=1024\n"
"0xffffe8ffffc00000-0xffffe8ffffe00000 2097152 pcpu_get_vm_areas+0x0/0x1050 vmalloc\n"
"garbage line\n"
"\n";

static const struct top_live *find(const struct top_live *v, long n, const char *sym, int api)
{
	long i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].sym, sym) && v[i].api == api)
			return &v[i];
	return NULL;
}

static void test_parse(void **state)
{
	FILE *f = fmemopen((void *)vmallocinfo, sizeof(vmallocinfo) - 1, "r");
	struct top_live *v;
	const struct top_live *e;
	long n, i;

	assert_non_null(f);
	n = top_live_parse(f, &v);
	fclose(f);
	assert_int_equal(n, 6);

	e = find(v, n, "acpi_os_map_iomem+0x1bc/0x1e0", VMAPSCOPE_API_IOREMAP);
	assert_non_null(e);
	assert_int_equal(e->areas, 2);
	assert_int_equal(e->bytes, 8192 + 12288);
	e = find(v, n, "kernel_clone+0xb8/0x400", VMAPSCOPE_API_VMALLOC);
	assert_non_null(e);
	assert_int_equal(e->areas, 2);
	e = find(v, n, "irq_init_percpu_irqstack+0xed/0x120", VMAPSCOPE_API_VMAP);
	assert_non_null(e);
	assert_int_equal(e->bytes, 20480);
	/* callers as vmallocinfo_parse_line() keeps them: no "/0xlen", module kept */
	e = find(v, n, "fix_size_alloc_test+0x3c/0x90 [test_vmalloc]", VMAPSCOPE_API_VMALLOC);
	assert_non_null(e);
	assert_int_equal(e->bytes, 4198400);
	/* vm_map_ram blocks: no caller */
	e = find(v, n, "", VMAPSCOPE_API_VM_MAP_RAM);
	assert_non_null(e);
	assert_int_equal(e->bytes, 262144);
	assert_non_null(find(v, n, "pcpu_get_vm_areas+0x0/0x1050", VMAPSCOPE_API_VMALLOC));
	/* lazily freed areas are not live */
	for (i = 0; i < n; i++)
		assert_null(strstr(v[i].sym, "unpurged"));
	/* sorted by symbol */
	for (i = 1; i < n; i++)
		assert_true(strcmp(v[i - 1].sym, v[i].sym) <= 0);
	free(v);
}

/* kptr_restrict=0 hashes %pK: callers still count, addresses are unused */
static void test_hashed_addresses(void **state)
{
	static const char hashed[] =
	"0x0000000005c9b2fa-0x000000001078bb84   20480 irq_init_percpu_irqstack+0xed/0x120 vmap\n"
	"0x00000000294e0636-0x00000000f02aec28   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4\n"
	"0x000000007f1141e0-0x000000002d4753b6    8192 unpurged vm_area\n";
	FILE *f = fmemopen((void *)hashed, sizeof(hashed) - 1, "r");
	struct top_live *v;
	long n;

	n = top_live_parse(f, &v);
	fclose(f);
	assert_int_equal(n, 2);
	assert_non_null(find(v, n, "kernel_clone+0xb8/0x400", VMAPSCOPE_API_VMALLOC));
	free(v);
}

static void test_empty_and_unreadable(void **state)
{
	char why[256] = "";
	struct top_live *v = (void *)1;
	FILE *f = fmemopen((void *)"\n", 1, "r");

	assert_int_equal(top_live_parse(f, &v), 0);
	assert_null(v);
	fclose(f);

	assert_int_equal(top_live_read("/nonexistent/vmallocinfo", &v, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "live: /nonexistent/vmallocinfo: No such file or directory");
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_hashed_addresses),
		cmocka_unit_test(test_empty_and_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
