/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapscope ABI shared by the BPF programs (bpf/) and user space (user/).
 *
 * The kernel side of the ABI is the three tracepoints that
 * kernel-patches/linux-6.12/ adds to include/trace/events/vmalloc.h; their
 * TP_PROTO argument lists are mirrored here so that tp_btf / raw_tp
 * programs and the documentation (docs/tracepoints.md) agree with the
 * kernel.  This header must compile both with clang -target bpf (after
 * vmlinux.h) and with the host C compiler (after <stdint.h>).
 */
#ifndef VMAPSCOPE_H
#define VMAPSCOPE_H

/*
 * Which public API a mapping serves.  Numbering is ABI: it is the value of
 * the "api" argument of vmalloc:vmap_chunk.
 */
enum vmapscope_api {
	VMAPSCOPE_API_OTHER	 = 0,	/* percpu, vm_area_map_pages, ... */
	VMAPSCOPE_API_VMALLOC	 = 1,
	VMAPSCOPE_API_VMAP	 = 2,
	VMAPSCOPE_API_IOREMAP	 = 3,
	VMAPSCOPE_API_VM_MAP_RAM = 4,
	VMAPSCOPE_API_MAX,
};

/*
 * Tracepoints added by the series (TRACE_SYSTEM vmalloc).  Arguments in
 * TP_PROTO order:
 *
 * vmalloc:vmap_chunk(unsigned long addr, unsigned long pfn,
 *                    unsigned long nr_pages, unsigned int shift,
 *                    const void *caller, unsigned int api)
 *	Once per call of the batching walker: a virtually contiguous range
 *	of nr_pages pages that the walker maps in one page-table walk, at a
 *	requested mapping shift of at most "shift".  pfn is the first page's.
 *	Fires before any vmap_set_ptes / vmap_huge_block event of the range,
 *	in the same task.
 *
 * vmalloc:vmap_set_ptes(unsigned long addr, unsigned long pfn,
 *                       unsigned long size, unsigned int nr_ptes,
 *                       unsigned int shift)
 *	Once per run of PTEs written at one granule inside one PTE table:
 *	shift == PAGE_SHIFT for plain PTEs, CONT_PTE_SHIFT for arm64
 *	contiguous-PTE blocks.  size == nr_ptes << PAGE_SHIFT.
 *
 * vmalloc:vmap_huge_block(unsigned long addr, unsigned long pfn,
 *                         unsigned long size, unsigned int shift)
 *	Once per PMD / PUD / P4D block entry installed (these bypass
 *	vmap_set_ptes()).  size == 1UL << shift.
 */
#define VMAPSCOPE_TP_CHUNK	"vmap_chunk"
#define VMAPSCOPE_TP_SET_PTES	"vmap_set_ptes"
#define VMAPSCOPE_TP_HUGE_BLOCK	"vmap_huge_block"

#endif /* VMAPSCOPE_H */
