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
 * pgtable-hwdef.h): CONT_PTE_SHIFT, PMD_SHIFT, CONT_PMD_SHIFT, PUD_SHIFT.
 * PUD_SHIFT is 0 where that level has no block mappings here.
 */
struct arm64_geom {
	unsigned int page, cont_pte, pmd, cont_pmd, pud;
};

static const struct arm64_geom arm64_geoms[] = {
	{ 12, 16, 21, 25, 30 },		/* 4K pages: 64K, 2M, 32M, 1G */
	{ 14, 21, 25, 30, 36 },		/* 16K pages: 2M, 32M, 1G, 64G */
	{ 16, 21, 29, 34, 0 },		/* 64K pages: 2M, 512M, 16G */
};

size_t arch_granules(enum vs_arch arch, unsigned int page_shift,
		     const unsigned int **shifts)
{
	static const unsigned int x86[] = { 12, 21, 30 };
	static unsigned int arm64[3][5];
	size_t i;

	if (arch == VS_ARCH_X86_64 && page_shift == 12) {
		*shifts = x86;
		return 3;
	}
	for (i = 0; arch == VS_ARCH_ARM64 && i < 3; i++) {
		const struct arm64_geom *g = &arm64_geoms[i];
		unsigned int *s = arm64[i];

		if (g->page != page_shift)
			continue;
		s[0] = g->page;
		s[1] = g->cont_pte;
		s[2] = g->pmd;
		s[3] = g->cont_pmd;
		s[4] = g->pud;
		*shifts = s;
		return g->pud ? 5 : 4;
	}
	*shifts = NULL;
	return 0;
}

const char *granule_label(enum vs_arch arch, unsigned int page_shift,
			  unsigned int shift, char *buf, size_t len)
{
	const char *kind = NULL;
	char sz[16];
	size_t i;

	size_label(shift, sz, sizeof(sz));
	if (shift == page_shift) {
		snprintf(buf, len, "%s", sz);
		return buf;
	}
	if (arch == VS_ARCH_X86_64 && page_shift == 12) {
		if (shift == 21)
			kind = "PMD";
		else if (shift == 30)
			kind = "PUD";
	} else if (arch == VS_ARCH_ARM64) {
		for (i = 0; i < sizeof(arm64_geoms) / sizeof(arm64_geoms[0]); i++) {
			const struct arm64_geom *g = &arm64_geoms[i];

			if (g->page != page_shift)
				continue;
			if (shift == g->cont_pte)
				kind = "cont";
			else if (shift == g->pmd)
				kind = "PMD";
			else if (shift == g->cont_pmd)
				kind = "cont PMD";
			else if (g->pud && shift == g->pud)
				kind = "PUD";
		}
	}
	if (kind)
		snprintf(buf, len, "%s %s", sz, kind);
	else
		snprintf(buf, len, "%s (shift %u)", sz, shift);
	return buf;
}
