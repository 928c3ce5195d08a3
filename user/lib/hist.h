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
