// SPDX-License-Identifier: GPL-2.0
/* Log2 histogram bucketing and printing (see hist.h). */
#include <stdbool.h>
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

/* v <= den * 2^k, exactly (v, den < 2^64, |k| <= 64 fit in 128 bits). */
static int at_most_pow2(uint64_t v, uint64_t den, int k)
{
	if (k >= 64)
		return 1;
	if (k <= -64)
		return v == 0;
	if (k >= 0)
		return (unsigned __int128)v <= ((unsigned __int128)den << k);
	return ((unsigned __int128)v << -k) <= (unsigned __int128)den;
}

int32_t hist_native_index(uint64_t v, uint64_t den)
{
	int k;

	if (!v)
		return HIST_NATIVE_ZERO;
	/* start near log2(v / den), then settle on the smallest k that holds v */
	k = (63 - __builtin_clzll(v)) - (63 - __builtin_clzll(den ? den : 1));
	while (!at_most_pow2(v, den, k))
		k++;
	while (at_most_pow2(v, den, k - 1))
		k--;
	return k;
}

uint64_t hist_slot_edge(unsigned int slot, unsigned int nr_slots, uint64_t den)
{
	uint64_t low = hist_slot_low(slot), high = hist_slot_high(slot, nr_slots);
	int32_t k;
	unsigned __int128 top;

	if (!low)
		return 0;
	k = hist_native_index(low, den);
	/* floor(den * 2^k), the largest whole number in bucket k */
	top = k >= 0 ? (k >= 64 ? ~(unsigned __int128)0 : (unsigned __int128)den << k) :
	      k > -64 ? den >> -k : 0;
	return top < high ? (uint64_t)top : high;
}

void hist_to_native(const uint64_t *slots, const uint64_t *above, unsigned int nr_slots,
		    uint64_t den, struct hist_native *out)
{
	int32_t lo_idx = 0, hi_idx = 0;
	unsigned int i;
	bool any = false;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nr_slots; i++) {
		uint64_t edge = hist_slot_edge(i, nr_slots, den);
		/* above[i] <= slots[i] by construction; never wrap if not */
		uint64_t n[2] = { slots[i] > above[i] ? slots[i] - above[i] : 0, above[i] };
		int32_t idx[2] = { hist_native_index(hist_slot_low(i), den),
				   hist_native_index(edge + 1, den) };
		int p;

		for (p = 0; p < 2; p++) {
			if (!n[p])
				continue;
			if (idx[p] == HIST_NATIVE_ZERO) {
				out->zero += n[p];
				continue;
			}
			if (!any || idx[p] < lo_idx)
				lo_idx = idx[p];
			if (!any || idx[p] > hi_idx)
				hi_idx = idx[p];
			any = true;
		}
	}
	if (!any)
		return;
	if (hi_idx - lo_idx >= HIST_NATIVE_MAX)
		hi_idx = lo_idx + HIST_NATIVE_MAX - 1;	/* not with the slots of vmapscope.h */
	out->first = lo_idx;
	out->nr = (unsigned int)(hi_idx - lo_idx + 1);
	for (i = 0; i < nr_slots; i++) {
		uint64_t edge = hist_slot_edge(i, nr_slots, den);
		/* above[i] <= slots[i] by construction; never wrap if not */
		uint64_t n[2] = { slots[i] > above[i] ? slots[i] - above[i] : 0, above[i] };
		int32_t idx[2] = { hist_native_index(hist_slot_low(i), den),
				   hist_native_index(edge + 1, den) };
		int p;

		for (p = 0; p < 2; p++)
			if (n[p] && idx[p] != HIST_NATIVE_ZERO)
				out->counts[(idx[p] > hi_idx ? hi_idx : idx[p]) - lo_idx] += n[p];
	}
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
