// SPDX-License-Identifier: GPL-2.0
/* Log2 histogram bucketing and printing (user/lib/hist.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hist.h"
#include "vmapscope.h"
#include "../../bpf/log2.h"

static void test_slots(void **state)
{
	const unsigned int n = VMAPSCOPE_HIST_SLOTS;

	assert_int_equal(hist_slot(0, n), 0);
	assert_int_equal(hist_slot(1, n), 0);
	assert_int_equal(hist_slot(2, n), 1);
	assert_int_equal(hist_slot(3, n), 1);
	assert_int_equal(hist_slot(4, n), 2);
	assert_int_equal(hist_slot(511, n), 8);
	assert_int_equal(hist_slot(512, n), 9);
	assert_int_equal(hist_slot(513, n), 9);
	assert_int_equal(hist_slot(1ULL << 33, n), 33);
	/* clamped into the open-ended last slot */
	assert_int_equal(hist_slot(1ULL << 40, n), n - 1);
	assert_int_equal(hist_slot(UINT64_MAX, n), n - 1);
}

/* Every value lands in the slot whose [low, high] contains it (edges too). */
static void test_bounds_agree(void **state)
{
	const unsigned int n = VMAPSCOPE_HIST_SLOTS;
	unsigned int s;

	for (s = 0; s < n; s++) {
		uint64_t lo = hist_slot_low(s), hi = hist_slot_high(s, n);

		assert_int_equal(hist_slot(lo, n), s);
		assert_int_equal(hist_slot(hi, n), s);
		if (s + 1 < n)
			assert_int_equal(hist_slot(hi + 1, n), s + 1);
	}
	assert_true(hist_slot_low(0) == 0 && hist_slot_high(0, n) == 1);
	assert_true(hist_slot_low(1) == 2 && hist_slot_high(1, n) == 3);
	assert_true(hist_slot_high(n - 1, n) == UINT64_MAX);
}

/* The BPF side's branch-free bucketing equals user space's at every edge. */
static void test_bpf_bucketing_matches(void **state)
{
	const unsigned int n = VMAPSCOPE_HIST_SLOTS;
	unsigned int b;

	for (b = 0; b < 64; b++) {
		uint64_t v = 1ULL << b;

		assert_int_equal(vs_hist_slot(v, n), hist_slot(v, n));
		assert_int_equal(vs_hist_slot(v - 1, n), hist_slot(v - 1, n));
		assert_int_equal(vs_hist_slot(v + 1, n), hist_slot(v + 1, n));
		assert_int_equal(vs_hist_slot(v | (v >> 1), n), hist_slot(v | (v >> 1), n));
	}
	assert_int_equal(vs_hist_slot(0, n), 0);
	assert_int_equal(vs_hist_slot(UINT64_MAX, n), n - 1);
}

static char *print_to_string(const uint64_t *slots, unsigned int n, const char *unit, uint64_t div)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print_log2_hist(f, slots, n, unit, div);
	fclose(f);
	return buf;
}

static void test_print(void **state)
{
	uint64_t slots[VMAPSCOPE_HIST_SLOTS] = {};
	char *out;

	slots[0] = 2;	/* 0..1 */
	slots[3] = 8;	/* 8..15 */
	out = print_to_string(slots, VMAPSCOPE_HIST_SLOTS, "chunk pages", 1);
	/* header, slots 0..3 (libbpf-tools prints up to the last used slot) */
	assert_non_null(strstr(out, "chunk pages"));
	assert_non_null(strstr(out, "0 -> 1"));
	assert_non_null(strstr(out, "2 -> 3"));
	assert_non_null(strstr(out, "8 -> 15"));
	assert_null(strstr(out, "16 -> 31"));
	/* the biggest slot gets the full 40-star bar, 2/8 of it a quarter */
	assert_non_null(strstr(out, ": 8        |****************************************|"));
	assert_non_null(strstr(out, ": 2        |**********                              |"));
	free(out);

	/* ns counted, shown in usecs: bounds divided, decimals where needed */
	memset(slots, 0, sizeof(slots));
	slots[10] = 1;	/* 1024..2047 ns */
	out = print_to_string(slots, VMAPSCOPE_HIST_SLOTS, "usecs", 1000);
	assert_non_null(strstr(out, "1.024 -> 2.047"));
	free(out);

	memset(slots, 0, sizeof(slots));
	out = print_to_string(slots, VMAPSCOPE_HIST_SLOTS, "usecs", 1000);
	assert_non_null(strstr(out, "(none)"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_bounds_agree),
		cmocka_unit_test(test_bpf_bucketing_matches),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
