// SPDX-License-Identifier: GPL-2.0
/* Granule labels per architecture and page size (user/lib/granule.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "granule.h"

static const char *L(enum vs_arch a, unsigned int page, unsigned int shift)
{
	static char buf[64];

	return granule_label(a, page, shift, buf, sizeof(buf));
}

static void test_x86_64(void **state)
{
	assert_string_equal(L(VS_ARCH_X86_64, 12, 12), "4K");
	assert_string_equal(L(VS_ARCH_X86_64, 12, 21), "2M PMD");
	assert_string_equal(L(VS_ARCH_X86_64, 12, 30), "1G PUD");
	/* x86 has no contiguous-PTE hint: 64K is not a granule there */
	assert_string_equal(L(VS_ARCH_X86_64, 12, 16), "64K (shift 16)");
}

static void test_arm64_4k(void **state)
{
	assert_string_equal(L(VS_ARCH_ARM64, 12, 12), "4K");
	assert_string_equal(L(VS_ARCH_ARM64, 12, 16), "64K cont");
	assert_string_equal(L(VS_ARCH_ARM64, 12, 21), "2M PMD");
	assert_string_equal(L(VS_ARCH_ARM64, 12, 25), "32M cont PMD");
	assert_string_equal(L(VS_ARCH_ARM64, 12, 30), "1G PUD");
}

static void test_arm64_16k_64k(void **state)
{
	assert_string_equal(L(VS_ARCH_ARM64, 14, 14), "16K");
	assert_string_equal(L(VS_ARCH_ARM64, 14, 21), "2M cont");
	assert_string_equal(L(VS_ARCH_ARM64, 14, 25), "32M PMD");
	assert_string_equal(L(VS_ARCH_ARM64, 16, 16), "64K");
	assert_string_equal(L(VS_ARCH_ARM64, 16, 21), "2M cont");
	assert_string_equal(L(VS_ARCH_ARM64, 16, 29), "512M PMD");
}

static void test_machine_and_sizes(void **state)
{
	char b[16];

	assert_int_equal(arch_from_machine("x86_64"), VS_ARCH_X86_64);
	assert_int_equal(arch_from_machine("aarch64"), VS_ARCH_ARM64);
	assert_int_equal(arch_from_machine("arm64"), VS_ARCH_ARM64);
	assert_int_equal(arch_from_machine("riscv64"), VS_ARCH_UNKNOWN);
	assert_int_equal(arch_from_machine(NULL), VS_ARCH_UNKNOWN);
	assert_string_equal(L(VS_ARCH_UNKNOWN, 12, 21), "2M (shift 21)");
	size_label(39, b, sizeof(b));
	assert_string_equal(b, "512G");
	size_label(9, b, sizeof(b));
	assert_string_equal(b, "512");
}

/* Every granule an arch lists has a label of its own kind, in size order. */
static void test_arch_granules(void **state)
{
	static const struct { enum vs_arch a; unsigned int page; const char *want; } c[] = {
		{ VS_ARCH_X86_64, 12, "4K|2M PMD|1G PUD|" },
		{ VS_ARCH_ARM64, 12, "4K|64K cont|2M PMD|32M cont PMD|1G PUD|" },
		{ VS_ARCH_ARM64, 16, "64K|2M cont|512M PMD|16G cont PMD|" },
	};
	const unsigned int *sh;
	char got[128], b[32];
	size_t i, k, n;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		n = arch_granules(c[i].a, c[i].page, &sh);
		got[0] = 0;
		for (k = 0; k < n; k++) {
			if (k)
				assert_true(sh[k] > sh[k - 1]);
			strcat(got, granule_label(c[i].a, c[i].page, sh[k], b, sizeof(b)));
			strcat(got, "|");
		}
		assert_string_equal(got, c[i].want);
	}
	assert_int_equal(arch_granules(VS_ARCH_UNKNOWN, 12, &sh), 0);
	assert_int_equal(arch_granules(VS_ARCH_X86_64, 16, &sh), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_arm64_4k),
		cmocka_unit_test(test_arm64_16k_64k),
		cmocka_unit_test(test_machine_and_sizes),
		cmocka_unit_test(test_arch_granules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
