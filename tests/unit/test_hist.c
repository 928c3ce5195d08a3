// SPDX-License-Identifier: GPL-2.0
/* Log2 histogram bucketing and printing (user/lib/hist.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
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

/* ---- native histograms (schema 0) ------------------------------------ */

#define NS_DEN	1000000000ULL

/* The bucket of x = v / den in floating point (callers keep off the boundaries). */
static int32_t float_index(uint64_t v, uint64_t den)
{
	return (int32_t)ceil(log2((double)v / (double)den));
}

static void test_native_index(void **state)
{
	assert_int_equal(hist_native_index(0, 1), HIST_NATIVE_ZERO);
	assert_int_equal(hist_native_index(1, 1), 0);	/* (1/2, 1] */
	assert_int_equal(hist_native_index(2, 1), 1);	/* (1, 2] */
	assert_int_equal(hist_native_index(3, 1), 2);
	assert_int_equal(hist_native_index(4, 1), 2);
	assert_int_equal(hist_native_index(512, 1), 9);
	assert_int_equal(hist_native_index(513, 1), 10);
	assert_int_equal(hist_native_index(UINT64_MAX, 1), 64);
	/* seconds from ns: 1 s is the top of bucket 0, 1 ns of bucket -29 */
	assert_int_equal(hist_native_index(NS_DEN, NS_DEN), 0);
	assert_int_equal(hist_native_index(NS_DEN + 1, NS_DEN), 1);
	assert_int_equal(hist_native_index(NS_DEN / 2, NS_DEN), -1);
	assert_int_equal(hist_native_index(NS_DEN / 2 + 1, NS_DEN), 0);
	assert_int_equal(hist_native_index(1, NS_DEN), -29);	/* (0.93 ns, 1.86 ns] */
	assert_int_equal(hist_native_index(2, NS_DEN), -28);
	for (uint64_t v = 1; v < 5000; v += 7)
		if (fabs(log2((double)v / NS_DEN) - round(log2((double)v / NS_DEN))) > 1e-6)
			assert_int_equal(hist_native_index(v, NS_DEN), float_index(v, NS_DEN));
}

/* The BPF program's edges (bpf/log2.h) are user space's, for every slot. */
static void test_bpf_edges_match(void **state)
{
	const unsigned int n = VMAPSCOPE_HIST_SLOTS;

	for (unsigned int s = 0; s < n; s++) {
		assert_int_equal(vs_hist_edge(s, VS_HIST_EDGE_PAGES), hist_slot_edge(s, n, 1));
		assert_int_equal(vs_hist_edge(s, VS_HIST_EDGE_NS), hist_slot_edge(s, n, NS_DEN));
	}
	/* a power of two of pages tops its bucket; 1.86 * 2^i ns is 2^(i-29) s */
	assert_int_equal(hist_slot_edge(9, n, 1), 512);
	assert_int_equal(hist_slot_edge(10, n, NS_DEN), 1907);	/* 2^-19 s = 1907.3 ns */
	assert_int_equal(hist_slot_edge(0, n, NS_DEN), 0);
}

/*
 * Each part of each slot (at or below its edge, above it) lies in one
 * native bucket, the part above in the bucket after the other's: so the
 * conversion is exact.  Both units, every slot but the open-ended last.
 */
static void test_slot_parts_in_one_bucket(void **state)
{
	const unsigned int n = VMAPSCOPE_HIST_SLOTS;
	const uint64_t dens[] = { 1, NS_DEN };

	for (unsigned int d = 0; d < 2; d++) {
		for (unsigned int s = 1; s + 1 < n; s++) {
			uint64_t lo = hist_slot_low(s), hi = hist_slot_high(s, n);
			uint64_t e = hist_slot_edge(s, n, dens[d]);

			assert_true(e >= lo && e <= hi);
			assert_int_equal(hist_native_index(lo, dens[d]), hist_native_index(e, dens[d]));
			if (e < hi) {
				assert_int_equal(hist_native_index(e + 1, dens[d]),
						 hist_native_index(e, dens[d]) + 1);
				assert_int_equal(hist_native_index(hi, dens[d]),
						 hist_native_index(e + 1, dens[d]));
			}
		}
	}
}

/* Values counted as the BPF program counts them: slot, then below/above the edge. */
static void bpf_count(uint64_t *slots, uint64_t *above, uint64_t v, uint64_t mul, uint32_t shift)
{
	uint32_t s = vs_hist_slot(v, VMAPSCOPE_HIST_SLOTS);

	if (v > vs_hist_edge(s, mul, shift))
		above[s]++;
	else
		slots[s]++;
}

/* Every value in the native bucket that holds it, counted exactly. */
static void check_exact(uint64_t den, uint64_t mul, uint32_t shift, const uint64_t *vals, size_t nv)
{
	uint64_t slots[VMAPSCOPE_HIST_SLOTS] = {}, above[VMAPSCOPE_HIST_SLOTS] = {};
	uint64_t want_zero = 0, want[HIST_NATIVE_MAX] = {};
	struct hist_native h;
	size_t i;
	int32_t base = INT32_MAX;

	for (i = 0; i < nv; i++) {
		bpf_count(slots, above, vals[i], mul, shift);
		if (vals[i] && hist_native_index(vals[i], den) < base)
			base = hist_native_index(vals[i], den);
	}
	for (i = 0; i < VMAPSCOPE_HIST_SLOTS; i++)
		slots[i] += above[i];	/* what the collector's read does */
	for (i = 0; i < nv; i++) {
		if (!vals[i])
			want_zero++;
		else
			want[hist_native_index(vals[i], den) - base]++;
	}
	hist_to_native(slots, above, VMAPSCOPE_HIST_SLOTS, den, &h);
	assert_int_equal(h.zero, want_zero);
	assert_int_equal(h.first, base);
	for (i = 0; i < h.nr; i++)
		assert_int_equal(h.counts[i], want[i]);
	for (; i < HIST_NATIVE_MAX; i++)
		assert_int_equal(want[i], 0);
}

static void test_conversion_exact(void **state)
{
	static uint64_t vals[40000];
	size_t n = 0;
	uint64_t v;
	unsigned int b;

	for (v = 0; v < 5000; v++)
		vals[n++] = v;
	for (b = 12; b < 35; b++)
		for (v = (1ULL << b) - 3; v <= (1ULL << b) + 3; v++)
			vals[n++] = v;
	/* the ns edges, and the values around them */
	for (b = 1; b < 35; b++)
		for (v = vs_hist_edge(b, VS_HIST_EDGE_NS) - 2; v <= vs_hist_edge(b, VS_HIST_EDGE_NS) + 2; v++)
			vals[n++] = v;
	check_exact(1, VS_HIST_EDGE_PAGES, vals, n);
	check_exact(NS_DEN, VS_HIST_EDGE_NS, vals, n);
}

/*
 * Where it cannot be exact, and by how much: the last slot is open-ended
 * (values >= 2^35), and of its values above the edge the native
 * histogram gets one bucket, the one after the edge's, whatever their
 * size: up to 2^36 pages (256 TiB) or 128 s of ns they are exact, beyond
 * that they are placed too low (a 300 s lifetime in (64 s, 128 s]).  The
 * classic exposition has no finite bucket for any of them (+Inf only).
 * And without the split at the edges (the slots alone) a power of two of
 * pages would be one bucket too high: 512 pages in (512, 1024].
 */
static void test_conversion_limits(void **state)
{
	uint64_t slots[VMAPSCOPE_HIST_SLOTS] = {}, above[VMAPSCOPE_HIST_SLOTS] = {};
	const unsigned int last = VMAPSCOPE_HIST_SLOTS - 1;
	struct hist_native h;

	/* 300 s of ns: truly in bucket 9 ((256 s, 512 s]), placed in bucket 7 */
	bpf_count(slots, above, 300 * NS_DEN, VS_HIST_EDGE_NS);
	slots[last] += above[last];
	assert_int_equal(hist_native_index(300 * NS_DEN, NS_DEN), 9);
	hist_to_native(slots, above, VMAPSCOPE_HIST_SLOTS, NS_DEN, &h);
	assert_int_equal(h.nr, 1);
	assert_int_equal(h.first, 7);
	/* 100 s still exact: (64 s, 128 s] */
	memset(slots, 0, sizeof(slots));
	memset(above, 0, sizeof(above));
	bpf_count(slots, above, 100 * NS_DEN, VS_HIST_EDGE_NS);
	slots[last] += above[last];
	hist_to_native(slots, above, VMAPSCOPE_HIST_SLOTS, NS_DEN, &h);
	assert_int_equal(h.first, hist_native_index(100 * NS_DEN, NS_DEN));

	/* the slots alone: 512 pages is slot 9, [512, 1023], mostly bucket 10 */
	memset(slots, 0, sizeof(slots));
	memset(above, 0, sizeof(above));
	slots[9] = 1;
	above[9] = 1;	/* as if nothing were known below the edge */
	hist_to_native(slots, above, VMAPSCOPE_HIST_SLOTS, 1, &h);
	assert_int_equal(h.first, 10);
	assert_int_equal(hist_native_index(512, 1), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_bounds_agree),
		cmocka_unit_test(test_bpf_bucketing_matches),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_native_index),
		cmocka_unit_test(test_bpf_edges_match),
		cmocka_unit_test(test_slot_parts_in_one_bucket),
		cmocka_unit_test(test_conversion_exact),
		cmocka_unit_test(test_conversion_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
