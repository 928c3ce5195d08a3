// SPDX-License-Identifier: GPL-2.0
/* Granule labels per architecture (see granule.h). */
#include <stdio.h>
#include <string.h>
#include "granule.h"

enum vs_arch arch_from_machine(const char *m)
{
	if (!m)
		return VS_ARCH_UNKNOWN;
	if (!strcmp(m, "x86_64"))
		return VS_ARCH_X86_64;
	if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
		return VS_ARCH_ARM64;
	return VS_ARCH_UNKNOWN;
}

void size_label(unsigned int shift, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";

	if (shift < 10) {
		snprintf(buf, len, "%u", 1U << shift);
		return;
	}
	snprintf(buf, len, "%llu%c", 1ULL << (shift % 10), units[shift / 10 - 1]);
}

/*
 * arm64 translation geometry per base page size (arch/arm64/include/asm/
 * pgtable-hwdef.h): the page, CONT_PTE_SHIFT, PMD_SHIFT, CONT_PMD_SHIFT,
 * PUD_SHIFT.  PUD_SHIFT is 0 where that level has no block mappings here.
 */
static const unsigned int arm64_geoms[][5] = {
	{ 12, 16, 21, 25, 30 },		/* 4K pages: 64K, 2M, 32M, 1G */
	{ 14, 21, 25, 30, 36 },		/* 16K pages: 2M, 32M, 1G, 64G */
	{ 16, 21, 29, 34, 0 },		/* 64K pages: 2M, 512M, 16G */
};
static const unsigned int x86_geom[] = { 12, 21, 30 };

/* What each granule of arch_granules() is called after its size. */
static const char *const arm64_kinds[] = { "", "cont", "PMD", "cont PMD", "PUD" };
static const char *const x86_kinds[] = { "", "PMD", "PUD" };

size_t arch_granules(enum vs_arch arch, unsigned int page_shift,
		     const unsigned int **shifts)
{
	size_t i;

	if (arch == VS_ARCH_X86_64 && page_shift == 12) {
		*shifts = x86_geom;
		return 3;
	}
	for (i = 0; arch == VS_ARCH_ARM64 && i < 3; i++) {
		if (arm64_geoms[i][0] != page_shift)
			continue;
		*shifts = arm64_geoms[i];
		return arm64_geoms[i][4] ? 5 : 4;
	}
	*shifts = NULL;
	return 0;
}

const char *granule_label(enum vs_arch arch, unsigned int page_shift,
			  unsigned int shift, char *buf, size_t len)
{
	const char *kind = NULL;
	const unsigned int *s;
	size_t n = arch_granules(arch, page_shift, &s), i;
	char sz[16];

	size_label(shift, sz, sizeof(sz));
	if (shift == page_shift) {
		snprintf(buf, len, "%s", sz);
		return buf;
	}
	for (i = 1; i < n; i++)
		if (shift == s[i])
			kind = arch == VS_ARCH_X86_64 ? x86_kinds[i] : arm64_kinds[i];
	if (kind)
		snprintf(buf, len, "%s %s", sz, kind);
	else
		snprintf(buf, len, "%s (shift %u)", sz, shift);
	return buf;
}
