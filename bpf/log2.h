/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 bucketing shared by the BPF programs and (for testing) user space:
 * slot 0 = {0, 1}, slot i = [2^i, 2^(i+1) - 1], clamped into the last
 * slot.  Branch-free, so the verifier sees no loop.  tests/unit/test_hist.c
 * checks it against user/lib/hist.c for every bucket edge.
 *
 * Each slot is also split at its edge, for Prometheus native histograms
 * (schema 0: buckets (2^(k-1), 2^k] of the exposed value, upper bound
 * inclusive), whose boundaries do not fall on the slot boundaries: the
 * values of slot i up to vs_hist_edge() lie in one native bucket, those
 * above it in the next.  The edge of slot i >= 1 is the largest value
 * whose exposed value is at most the one native boundary inside the slot:
 *	pages (exposed as is):	 2^i, a power of two being the top of its
 *				 native bucket (VS_HIST_EDGE_PAGES);
 *	ns (exposed in seconds): the boundary 2^(i-29) s, floor(10^9 * 2^(i-29))
 *				 ns = (1953125 << i) >> 20 since 10^9 = 1953125 *
 *				 2^9, about 1.86 * 2^i (VS_HIST_EDGE_NS);
 * and 0 for slot 0, which splits into {0} (the zero bucket) and {1}.
 * user/lib/hist.c derives the same edges from the native buckets and
 * tests/unit/test_hist.c checks both for every slot.
 */
#ifndef VMAPSCOPE_LOG2_H
#define VMAPSCOPE_LOG2_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

static __always_inline __u32 vs_log2_u32(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4; v >>= r;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 vs_hist_slot(__u64 v, __u32 nr_slots)
{
	__u32 hi = v >> 32, s;

	s = hi ? vs_log2_u32(hi) + 32 : vs_log2_u32((__u32)v);
	return s < nr_slots ? s : nr_slots - 1;
}

#define VS_HIST_EDGE_PAGES	1ULL, 0
#define VS_HIST_EDGE_NS		1953125ULL, 20

static __always_inline __u64 vs_hist_edge(__u32 slot, __u64 mul, __u32 shift)
{
	return slot ? (mul << slot) >> shift : 0;
}

#endif /* VMAPSCOPE_LOG2_H */
