// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms parsing, lookup and kptr_restrict zeros (user/ksyms.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "ksyms.h"

static char dir[] = "/tmp/vmapscope-ksyms-XXXXXX";
static char path_ok[256], path_zero[256], path_kr[256], path_empty[256];

static void write_file(const char *p, const char *s)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path_ok, sizeof(path_ok), "%s/kallsyms", dir);
	snprintf(path_zero, sizeof(path_zero), "%s/kallsyms.zero", dir);
	snprintf(path_kr, sizeof(path_kr), "%s/kptr_restrict", dir);
	snprintf(path_empty, sizeof(path_empty), "%s/kallsyms.empty", dir);
	/* unsorted on purpose (modules come last in the real file, data mixed in) */
	write_file(path_ok,
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81200000 T vmap\n"
		"ffffffff81200400 t vmap_pfn_apply\n"
		"ffffffff81100000 T __vmalloc_node_range_noprof\n"
		"ffffffff82000000 D some_data\n"
		"ffffffff81300000 T zzz_last_text\n"
		"ffffffffc0001000 t wl_map_vmalloc\t[vmapstat_workload]\n"
		"ffffffffc0001200 t wl_map_vmap\t[vmapstat_workload]\n"
		"ffffffffc0002000 T wl_end\t[vmapstat_workload]\n");
	write_file(path_zero,
		"0000000000000000 T _stext\n"
		"0000000000000000 T vmap\n"
		"0000000000000000 t wl_map_vmalloc\t[vmapstat_workload]\n");
	write_file(path_kr, "2\n");
	write_file(path_empty, "");
	return 0;
}

static int teardown(void **state)
{
	unlink(path_ok);
	unlink(path_zero);
	unlink(path_kr);
	unlink(path_empty);
	rmdir(dir);
	return 0;
}

static void test_lookup_and_format(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	const struct ksym *s;
	char buf[128];

	assert_non_null(ks);
	assert_false(ks->restricted);
	/* text only: the D symbol is not a caller candidate */
	assert_int_equal(ks->nr, 9);

	s = ksyms_lookup(ks, 0xffffffff81200010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "vmap");
	assert_int_equal(s->size, 0x400);
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "vmap+0x10/0x400");

	/* aliases at one address: the first listed, size to the next address */
	ksyms_format(ks, 0xffffffff81000004ULL, buf, sizeof(buf));
	assert_string_equal(buf, "_stext+0x4/0x100000");

	/* module symbols carry [module] like %pS */
	ksyms_format(ks, 0xffffffffc0001234ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmap+0x34/0xe00 [vmapstat_workload]");

	/* before the first and after the last symbol: unknown, raw address */
	assert_null(ksyms_lookup(ks, 0xffffffff80000000ULL));
	assert_null(ksyms_lookup(ks, 0xffffffffc0002010ULL));
	ksyms_format(ks, 0xffffffff80000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff80000000");
	ksyms_free(ks);
}

static void test_match(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	uint64_t lo[4], hi[4];
	size_t n;

	assert_non_null(ks);
	n = ksyms_match(ks, "wl_map_", lo, hi, 4);
	assert_int_equal(n, 2);
	assert_true(lo[0] == 0xffffffffc0001000ULL && hi[0] == 0xffffffffc0001200ULL);
	assert_true(lo[1] == 0xffffffffc0001200ULL && hi[1] == 0xffffffffc0002000ULL);
	/* more matches than room: the total is still reported */
	n = ksyms_match(ks, "v", lo, hi, 1);
	assert_true(n > 1);
	assert_int_equal(ksyms_match(ks, "no_such_symbol", lo, hi, 4), 0);
	ksyms_free(ks);
}

static void test_kptr_restrict_zeros(void **state)
{
	struct ksyms *ks = ksyms_load(path_zero, path_kr);
	char buf[128];
	uint64_t lo[2], hi[2];

	assert_non_null(ks);
	assert_true(ks->restricted);
	assert_non_null(strstr(ks->reason, "kptr_restrict=2"));
	assert_non_null(strstr(ks->reason, "raw addresses"));
	/* no lookup may "succeed" on zeros: every caller shows raw */
	assert_null(ksyms_lookup(ks, 0));
	assert_null(ksyms_lookup(ks, 0xffffffff81200010ULL));
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff81200010");
	assert_int_equal(ksyms_match(ks, "vmap", lo, hi, 2), 0);
	ksyms_free(ks);

	/* kptr_restrict=1: the message names the missing CAP_SYSLOG */
	write_file(path_kr, "1\n");
	ks = ksyms_load(path_zero, path_kr);
	assert_non_null(ks);
	assert_non_null(strstr(ks->reason, "kptr_restrict=1 and no CAP_SYSLOG"));
	ksyms_free(ks);
	write_file(path_kr, "2\n");
}

static void test_empty_and_missing(void **state)
{
	struct ksyms *ks = ksyms_load(path_empty, path_kr);

	assert_non_null(ks);
	assert_true(ks->restricted);
	assert_non_null(strstr(ks->reason, "empty"));
	ksyms_free(ks);
	assert_null(ksyms_load("/nonexistent/kallsyms", path_kr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_format),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_kptr_restrict_zeros),
		cmocka_unit_test(test_empty_and_missing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
