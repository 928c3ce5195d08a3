// SPDX-License-Identifier: GPL-2.0
/* Log2 histogram bucketing and printing (see hist.h). */
#include <string.h>
#include "hist.h"

unsigned int hist_slot(uint64_t v, unsigned int nr_slots)
{
	unsigned int s = v > 1 ? 63 - __builtin_clzll(v) : 0;

	return s < nr_slots ? s : nr_slots - 1;
}

uint64_t hist_slot_low(unsigned int slot)
{
	return slot ? 1ULL << slot : 0;
}

uint64_t hist_slot_high(unsigned int slot, unsigned int nr_slots)
{
	if (slot + 1 >= nr_slots || slot >= 63)
		return UINT64_MAX;
	return (2ULL << slot) - 1;
}

static void fmt_bound(char *buf, size_t len, uint64_t v, uint64_t div)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "inf");
	else if (div <= 1 || v % div == 0)
		snprintf(buf, len, "%llu", (unsigned long long)(div > 1 ? v / div : v));
	else
		snprintf(buf, len, "%.3f", (double)v / (double)div);
}

static void print_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	int n = max ? (int)((double)val * width / (double)max) : 0;
	int i;

	if (n > width)
		n = width;
	for (i = 0; i < n; i++)
		fputc('*', f);
	for (; i < width; i++)
		fputc(' ', f);
}

void print_log2_hist(FILE *f, const uint64_t *slots, unsigned int nr_slots,
		     const char *unit, uint64_t div)
{
	int first = -1, last = -1;
	uint64_t max = 0;
	unsigned int i;
	char lo[32], hi[32];

	for (i = 0; i < nr_slots; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (last < 0) {
		fprintf(f, "%*s%s : (none)\n", 10, "", unit);
		return;
	}
	/*
	 * libbpf-tools prints from slot 0; nanosecond histograms would then
	 * open with ten empty rows, so start at the first used slot.
	 */
	fprintf(f, "%*s%-*s : count    distribution\n", 10, "", 16, unit);
	for (i = first; i <= (unsigned int)last; i++) {
		fmt_bound(lo, sizeof(lo), hist_slot_low(i), div);
		fmt_bound(hi, sizeof(hi), hist_slot_high(i, nr_slots), div);
		fprintf(f, "%*s -> %-*s : %-8llu |", 18, lo, 10, hi,
			(unsigned long long)slots[i]);
		print_stars(f, slots[i], max, 40);
		fprintf(f, "|\n");
	}
}
