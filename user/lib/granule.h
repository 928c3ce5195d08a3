/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human labels for mapping shifts, per architecture and base page size:
 * "4K", "64K cont", "2M PMD", "32M cont PMD", "1G PUD".  The BPF side only
 * records the shift the kernel reported; what a shift means depends on
 * the architecture and page size of the running kernel.
 */
#ifndef VMAPSCOPE_GRANULE_H
#define VMAPSCOPE_GRANULE_H

#include <stddef.h>

enum vs_arch {
	VS_ARCH_UNKNOWN = 0,
	VS_ARCH_X86_64,
	VS_ARCH_ARM64,
};

/* From uname -m ("x86_64", "aarch64"/"arm64"). */
enum vs_arch arch_from_machine(const char *machine);

/* "4K", "64K", "2M", "1G", "512G" (power-of-two size of 1 << shift). */
void size_label(unsigned int shift, char *buf, size_t len);

/*
 * The mapping shifts a kernel of this arch and base page size can use,
 * smallest first (*shifts points at a static list); returns how many.
 */
size_t arch_granules(enum vs_arch arch, unsigned int page_shift,
		     const unsigned int **shifts);

/*
 * Label of one mapping shift; returns buf.  Unknown combinations give
 * the size with the shift, e.g. "8K (shift 13)".
 */
const char *granule_label(enum vs_arch arch, unsigned int page_shift,
			  unsigned int shift, char *buf, size_t len);

#endif /* VMAPSCOPE_GRANULE_H */
