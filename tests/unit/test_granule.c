// SPDX-License-Identifier: GPL-2.0
/* Granule labels per architecture and page size (user/granule.c). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_arm64_4k),
		cmocka_unit_test(test_arm64_16k_64k),
		cmocka_unit_test(test_machine_and_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
