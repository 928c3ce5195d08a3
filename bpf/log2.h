/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 bucketing shared by the BPF programs and (for testing) user space:
 * slot 0 = {0, 1}, slot i = [2^i, 2^(i+1) - 1], clamped into the last
 * slot.  Branch-free, so the verifier sees no loop.  tests/unit/test_hist.c
 * checks it against user/lib/hist.c for every bucket edge.
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

#endif /* VMAPSCOPE_LOG2_H */
