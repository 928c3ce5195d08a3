/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 histograms as the BPF side counts them (vmapscope.h):
 * slot 0 = {0, 1}, slot i >= 1 = [2^i, 2^(i+1) - 1], the last slot is
 * open-ended (it also holds everything larger).
 */
#ifndef VMAPSCOPE_HIST_H
#define VMAPSCOPE_HIST_H

#include <stdint.h>
#include <stdio.h>

unsigned int hist_slot(uint64_t v, unsigned int nr_slots);
uint64_t hist_slot_low(unsigned int slot);
/* Inclusive upper bound; UINT64_MAX for the open-ended last slot. */
uint64_t hist_slot_high(unsigned int slot, unsigned int nr_slots);

/*
 * Prometheus native histograms of schema 0: bucket k holds the exposed
 * values x with 2^(k-1) < x <= 2^k (upper bound inclusive), the zero
 * bucket holds 0.  A whole number v of a log2 histogram is exposed as
 * v / den (den 1 for pages, 10^9 for ns shown in seconds).
 *
 * hist_native_index(): the bucket of v (v >= 1; HIST_NATIVE_ZERO for 0).
 * hist_slot_edge(): the largest value of the slot in the bucket of its
 * lowest value, so that the slot's values at or below it lie in one
 * native bucket and those above it in the next (0 for slot 0: {0} is the
 * zero bucket, {1} the next); the BPF side computes the same edges
 * (bpf/log2.h) and counts each slot's values above it apart.
 */
#define HIST_NATIVE_ZERO	INT32_MIN
int32_t hist_native_index(uint64_t v, uint64_t den);
uint64_t hist_slot_edge(unsigned int slot, unsigned int nr_slots, uint64_t den);

/*
 * A log2 histogram as native buckets: zero the zero bucket's count,
 * counts[j] that of bucket first + j, for j < nr.  Exact for every value
 * below the last slot; of the open-ended last slot, the values above its
 * edge go to the bucket after the edge's, however large they are (the
 * classic exposition counts them only in "+Inf").
 */
#define HIST_NATIVE_MAX		64
struct hist_native {
	uint64_t zero;
	int32_t first;
	unsigned int nr;
	uint64_t counts[HIST_NATIVE_MAX];
};

/* @slots: whole slots; @above: of each, the values above its edge. */
void hist_to_native(const uint64_t *slots, const uint64_t *above, unsigned int nr_slots,
		    uint64_t den, struct hist_native *out);

/*
 * libbpf-tools print_log2_hist() layout, from the first to the last used slot:
 *	     <unit>         : count    distribution
 *	         0 -> 1     : 3        |********                  |
 * Bounds are divided by div (e.g. 1000 to show ns counts in usecs) and
 * printed with decimals when div does not divide them.  Prints nothing
 * but the header line "(no events)" style when all slots are zero.
 */
void print_log2_hist(FILE *f, const uint64_t *slots, unsigned int nr_slots,
		     const char *unit, uint64_t div);

#endif /* VMAPSCOPE_HIST_H */
