// SPDX-License-Identifier: GPL-2.0
/* The stack method's internals from kallsyms (user/collector/stack_callers.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "stack_callers.h"
#include "unit_files.h"

static char dir[] = "/tmp/vmapscope-stack-XXXXXX";
static char path_ok[256], path_zero[256], path_kr[256];

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path_ok, sizeof(path_ok), "%s/kallsyms", dir);
	snprintf(path_zero, sizeof(path_zero), "%s/kallsyms.zero", dir);
	snprintf(path_kr, sizeof(path_kr), "%s/kptr_restrict", dir);
	write_file(path_ok,
		"ffffffff81000000 T copy_process\n"
		"ffffffff81001000 t alloc_vmap_area\n"
		"ffffffff81001800 t __get_vm_area_node\n"
		"ffffffff81002000 T __vmalloc_node_range_noprof\n"
		"ffffffff81002800 T __vmalloc_node_noprof\n"
		"ffffffff81002900 T vmalloc_noprof\n"
		"ffffffff81002a00 T find_vm_area\n"
		"ffffffff81002b00 T vmap\n"
		"ffffffff81002c00 T vm_map_ram\n"
		"ffffffff81002c00 T vm_map_ram_alias\n"
		"ffffffff81003000 T kernel_clone\n"
		"ffffffff81004000 T ioremap_prot\n"
		"ffffffff81004100 T zzz_last\n"
		"ffffffffc0001000 t vmalloc_in_a_module\t[mod]\n"
		"ffffffffc0002000 T mod_end\t[mod]\n");
	write_file(path_zero, "0000000000000000 T vmalloc_noprof\n");
	write_file(path_kr, "2\n");
	return 0;
}

static int teardown(void **state)
{
	unlink(path_ok);
	unlink(path_zero);
	unlink(path_kr);
	rmdir(dir);
	return 0;
}

static void test_names(void **state)
{
	assert_int_equal(stack_internal_api("alloc_vmap_area"), VMAPSCOPE_API_NONE);
	assert_int_equal(stack_internal_api("__get_vm_area_caller"), VMAPSCOPE_API_NONE);
	assert_int_equal(stack_internal_api("__vmalloc_node_range_noprof"), VMAPSCOPE_API_VMALLOC);
	assert_int_equal(stack_internal_api("kvmalloc_node_noprof"), VMAPSCOPE_API_VMALLOC);
	assert_int_equal(stack_internal_api("vmap"), VMAPSCOPE_API_VMAP);
	assert_int_equal(stack_internal_api("vm_map_ram"), VMAPSCOPE_API_VM_MAP_RAM);
	assert_int_equal(stack_internal_api("new_vmap_block"), VMAPSCOPE_API_VM_MAP_RAM);
	assert_int_equal(stack_internal_api("__ioremap_caller"), VMAPSCOPE_API_IOREMAP);
	assert_int_equal(stack_internal_api("alloc_thread_stack_node"), -1);
	assert_int_equal(stack_internal_api("copy_process"), -1);
	assert_int_equal(stack_internal_api("find_vm_area"), -1);
}

static void test_ranges(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	struct vmapscope_internal in[16];
	char why[160] = "";
	int n;

	assert_non_null(ks);
	n = stack_internals(ks, in, 16, why, sizeof(why));
	/* generic [alloc_vmap_area, __get_vm_area_node], vmalloc x3 merged, vmap, vm_map_ram, ioremap */
	assert_int_equal(n, 5);
	assert_int_equal(in[0].start, 0xffffffff81001000ULL);
	assert_int_equal(in[0].end, 0xffffffff81002000ULL);
	assert_int_equal(in[0].api, VMAPSCOPE_API_NONE);
	assert_int_equal(in[1].start, 0xffffffff81002000ULL);
	assert_int_equal(in[1].end, 0xffffffff81002a00ULL);	/* find_vm_area is not one */
	assert_int_equal(in[1].api, VMAPSCOPE_API_VMALLOC);
	assert_int_equal(in[2].start, 0xffffffff81002b00ULL);
	assert_int_equal(in[2].api, VMAPSCOPE_API_VMAP);
	assert_int_equal(in[3].start, 0xffffffff81002c00ULL);	/* the alias adds nothing */
	assert_int_equal(in[3].end, 0xffffffff81003000ULL);
	assert_int_equal(in[3].api, VMAPSCOPE_API_VM_MAP_RAM);
	assert_int_equal(in[4].api, VMAPSCOPE_API_IOREMAP);
	/* module functions are never internals */
	for (int i = 0; i < n; i++)
		assert_true(in[i].end <= 0xffffffff81004100ULL);
	/* too many for the room given: an error that says so */
	assert_int_equal(stack_internals(ks, in, 2, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 2"));
	ksyms_free(ks);
}

static void test_restricted(void **state)
{
	struct ksyms *ks = ksyms_load(path_zero, path_kr);
	struct vmapscope_internal in[4];
	char why[160] = "";

	assert_non_null(ks);
	assert_int_equal(stack_internals(ks, in, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "hides"));
	assert_int_equal(stack_internals(NULL, in, 4, why, sizeof(why)), -1);
	ksyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_restricted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
