/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshot (vmapstat --snapshot): the layout shared by the
 * page-table walker in bpf/snapshot.bpf.c and its driver in
 * user/snapshot/snapshot_walk.c, and the page-table entry decoding itself.
 *
 * The decoding is plain C on purpose: the same inline functions run in
 * the BPF program and in the cmocka unit tests (which feed them x86_64
 * and arm64 entries on any host).  Compiles with clang -target bpf (after
 * vmapscope_bpf.h) and with the host C compiler (after <linux/types.h>).
 *
 * Entry formats (4K translation granule on both architectures):
 *  x86_64: bit 0 present; bit 7 (PSE) makes a PUD (1G) or PMD (2M) entry
 *          a leaf; table address in bits 12..51.
 *  arm64:  bit 0 valid; bits 1:0 = 3 table (levels 0-2) or page (level 3),
 *          1 block (levels 1-2); bit 52 contiguous (16 PTEs = 64K, or
 *          16 PMDs = 32M); output address in bits 12..47 (48-bit PA).
 */
#ifndef VMAPSCOPE_SNAPSHOT_PT_H
#define VMAPSCOPE_SNAPSHOT_PT_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Ranges per BPF program run (power of two: the BPF side masks with it). */
#define SNAPSHOT_BATCH		256
#define SNAPSHOT_MAX_LEVELS	5
#define SNAPSHOT_PTRS_PER_TABLE	512

enum snapshot_arch {
	SNAPSHOT_ARCH_X86_64 = 1,
	SNAPSHOT_ARCH_ARM64 = 2,
};

/* Granules a leaf entry can map; index into snapshot_result.bytes. */
enum snapshot_granule {
	SNAPSHOT_G_PTE = 0,	/* 4K PTE */
	SNAPSHOT_G_CONT_PTE,	/* arm64: PTE with the contiguous bit (64K runs) */
	SNAPSHOT_G_PMD,		/* 2M block */
	SNAPSHOT_G_CONT_PMD,	/* arm64: PMD block with the contiguous bit (32M) */
	SNAPSHOT_G_PUD,		/* 1G block */
	SNAPSHOT_NR_G,
};

/* Mapping shift of each granule (4K pages). */
static __always_inline unsigned int snapshot_granule_shift(int g)
{
	switch (g) {
	case SNAPSHOT_G_PTE:	return 12;
	case SNAPSHOT_G_CONT_PTE:	return 16;
	case SNAPSHOT_G_PMD:	return 21;
	case SNAPSHOT_G_CONT_PMD:	return 25;
	case SNAPSHOT_G_PUD:	return 30;
	}
	return 0;
}

/* What an entry is. */
enum snapshot_kind {
	SNAPSHOT_PT_NONE = 0,	/* not valid: nothing mapped below it */
	SNAPSHOT_PT_TABLE,		/* points to the next-level table */
	SNAPSHOT_PT_LEAF,		/* maps memory: granule in *g */
};

#define SNAPSHOT_X86_PRESENT	0x1ULL
#define SNAPSHOT_X86_PSE		0x80ULL
#define SNAPSHOT_X86_ADDR_MASK	0x000ffffffffff000ULL
#define SNAPSHOT_ARM64_CONT	(1ULL << 52)
#define SNAPSHOT_ARM64_ADDR_MASK	0x0000fffffffff000ULL

/*
 * Decode entry e found at a level whose entries each cover 1 << shift
 * bytes; last is true for the PTE level.  Returns enum snapshot_kind and,
 * for leaves, the granule in *g.
 */
static __always_inline int snapshot_decode(unsigned int arch, unsigned int shift,
					int last, __u64 e, int *g)
{
	if (arch == SNAPSHOT_ARCH_X86_64) {
		if (!(e & SNAPSHOT_X86_PRESENT))
			return SNAPSHOT_PT_NONE;
		if (last) {
			*g = SNAPSHOT_G_PTE;
			return SNAPSHOT_PT_LEAF;
		}
		if ((e & SNAPSHOT_X86_PSE) && (shift == 30 || shift == 21)) {
			*g = shift == 30 ? SNAPSHOT_G_PUD : SNAPSHOT_G_PMD;
			return SNAPSHOT_PT_LEAF;
		}
		return SNAPSHOT_PT_TABLE;
	}
	if (arch == SNAPSHOT_ARCH_ARM64) {
		if ((e & 3) == 3) {
			if (!last)
				return SNAPSHOT_PT_TABLE;
			*g = (e & SNAPSHOT_ARM64_CONT) ? SNAPSHOT_G_CONT_PTE : SNAPSHOT_G_PTE;
			return SNAPSHOT_PT_LEAF;
		}
		/* Block descriptors exist at levels 1 and 2 only. */
		if ((e & 3) == 1 && !last && (shift == 30 || shift == 21)) {
			if (shift == 30)
				*g = SNAPSHOT_G_PUD;
			else
				*g = (e & SNAPSHOT_ARM64_CONT) ? SNAPSHOT_G_CONT_PMD : SNAPSHOT_G_PMD;
			return SNAPSHOT_PT_LEAF;
		}
		return SNAPSHOT_PT_NONE;
	}
	return SNAPSHOT_PT_NONE;
}

/*
 * How the walker finds its way: level shifts from the top (e.g. 39, 30,
 * 21, 12 for four levels), the address bits of a table descriptor, and
 * the linear map: a table at physical address p is read at
 * p - phys_base + virt_base (x86_64: phys_base 0, virt_base
 * page_offset_base; arm64: phys_base memstart_addr, virt_base
 * PAGE_OFFSET).
 */
struct snapshot_layout {
	__u32 arch;
	__u32 nr_levels;
	__u32 shift[SNAPSHOT_MAX_LEVELS];
	__u32 pad;
	__u64 addr_mask;
	__u64 phys_base;
	__u64 virt_base;
	__u64 pgd;		/* virtual address of init_mm.pgd */
};

static __always_inline __u64 snapshot_table_va(const struct snapshot_layout *l, __u64 e)
{
	return (e & l->addr_mask) - l->phys_base + l->virt_base;
}

/* The PTE run being followed (see snapshot_run_add()); pages 0 = none. */
struct snapshot_run {
	__u64 va;
	__u64 pa;
	__u64 pages;
	__u64 off;		/* va - base (snapshot_range.base) at the run's first page */
	__u32 cont;		/* contiguous-PTE entries (arm64) */
	__u32 pad;
};

/*
 * Mapping potential of PTE-mapped memory: of the bytes mapped with plain
 * 4K PTEs, what the series would map with a larger block, per block size,
 * in bytes.  Counted per run of consecutive plain PTEs whose physical
 * pages are consecutive too, at offsets from the range's base: for a
 * vmap() area the area's first page, for every other area 0 (the VA).
 *
 * The series' vmap() aligns the area to the largest block the array
 * allows and then maps a block at array index i wherever i is a multiple
 * of the block's pages, the block's first page is physically aligned to
 * the block size and the block's pages are physically contiguous; every
 * other page gets a 4K PTE.  Such a block lies inside one run, at an
 * offset from the area's first page that is a multiple of the block size,
 * with (offset - PA) a multiple of it: that is what is counted here, so
 * the figures do not depend on where the stock kernel placed the area.
 * The alignment the series picks does not change the count: the area is
 * 2M-aligned when the array holds one such 2M block anywhere, and then
 * every such block of either size is mapped; otherwise it is 64K-aligned
 * (arm64) when the array holds a 64K one, and there is no 2M block to
 * miss.  For the other APIs the series does not move the area: blocks
 * count where VA and PA line up in place (base 0).
 *
 *  SNAPSHOT_POT_64K  arm64 only: bytes in 64K blocks (contiguous PTEs),
 *                 outside the 2M ones;
 *  SNAPSHOT_POT_2M   bytes in 2M blocks (PMDs);
 *  SNAPSHOT_POT_MISALIGNED  every plain-PTE run of at least the arch's
 *                 smallest block (64K arm64, 2M x86_64) whose offset and
 *                 PA differ modulo that block: physically contiguous, but
 *                 off every block boundary, so mapped with 4K PTEs even
 *                 with the series (the whole run is counted).
 *
 * Runs of contiguous PTEs (arm64) are blocks already; the series maps
 * nothing there with a larger block (where a PMD fits, it uses one in the
 * first place), so they carry no potential.  With the series, a row's
 * bytes per granule are its bytes plus the potential of that granule,
 * taken from its 4K bytes (snapshot_potential_shift()).
 */
enum snapshot_potential {
	SNAPSHOT_POT_64K = 0,
	SNAPSHOT_POT_2M,
	SNAPSHOT_POT_MISALIGNED,
	SNAPSHOT_NR_POT,
};

#define SNAPSHOT_SZ_64K	(1ULL << 16)
#define SNAPSHOT_SZ_2M	(1ULL << 21)

/* Mapping shift of the block a potential figure counts; 0 for none. */
static __always_inline unsigned int snapshot_potential_shift(int k)
{
	switch (k) {
	case SNAPSHOT_POT_64K:	return 16;
	case SNAPSHOT_POT_2M:	return 21;
	}
	return 0;
}

/* Naturally aligned blocks of size sz (a power of two) inside [off, end). */
static __always_inline __u64 snapshot_blocks_in(__u64 off, __u64 end, __u64 sz)
{
	__u64 lo = (off + sz - 1) & ~(sz - 1), hi = end & ~(sz - 1);

	return hi > lo ? (hi - lo) / sz : 0;
}

/*
 * Blocks of a plain-PTE run at offset off whose first page is at pa:
 * *b2m bytes in 2M blocks, *b64k bytes in 64K blocks outside them (arm64).
 */
static __always_inline void snapshot_blocks_at(unsigned int arch, __u64 off, __u64 pa,
					    __u64 bytes, __u64 *b64k, __u64 *b2m)
{
	__u64 n2m = 0;

	if (!((off ^ pa) & (SNAPSHOT_SZ_2M - 1)))
		n2m = snapshot_blocks_in(off, off + bytes, SNAPSHOT_SZ_2M);
	*b2m = n2m * SNAPSHOT_SZ_2M;
	*b64k = 0;
	if (arch == SNAPSHOT_ARCH_ARM64 && !((off ^ pa) & (SNAPSHOT_SZ_64K - 1)))
		*b64k = snapshot_blocks_in(off, off + bytes, SNAPSHOT_SZ_64K) * SNAPSHOT_SZ_64K - *b2m;
}

/* Add the potential of run r to pot (SNAPSHOT_NR_POT counters). */
static __always_inline void snapshot_run_potential(unsigned int arch, const struct snapshot_run *r,
						__u64 *pot)
{
	__u64 bytes = r->pages << 12, b64k, b2m;
	__u64 small = arch == SNAPSHOT_ARCH_ARM64 ? SNAPSHOT_SZ_64K : SNAPSHOT_SZ_2M;

	if (r->cont)
		return;
	if ((r->off ^ r->pa) & (small - 1)) {
		if (bytes >= small)
			pot[SNAPSHOT_POT_MISALIGNED] += bytes;
		return;
	}
	snapshot_blocks_at(arch, r->off, r->pa, bytes, &b64k, &b2m);
	pot[SNAPSHOT_POT_64K] += b64k;
	pot[SNAPSHOT_POT_2M] += b2m;
}

/* Close run r (if any) into pot. */
static __always_inline void snapshot_run_end(unsigned int arch, struct snapshot_run *r, __u64 *pot)
{
	if (r->pages)
		snapshot_run_potential(arch, r, pot);
	r->pages = 0;
}

/*
 * The walker's step for one valid PTE at va mapping pa (cont: it has the
 * contiguous bit): extend run r when VA and PA both follow on in the same
 * kind, else close it into pot and start a new one.  base is the range's
 * (snapshot_range.base).  The run survives PTE tables and resumed walks: it
 * ends only at an entry that does not continue it, or at the range's end.
 */
static __always_inline void snapshot_run_add(unsigned int arch, struct snapshot_run *r, __u64 base,
					  __u64 va, __u64 pa, __u32 cont, __u64 *pot)
{
	__u64 next = r->pages << 12;

	if (r->pages && r->cont == cont && va == r->va + next && pa == r->pa + next) {
		r->pages++;
		return;
	}
	snapshot_run_end(arch, r, pot);
	r->va = va;
	r->pa = pa;
	r->pages = 1;
	r->cont = cont;
	r->off = va - base;
}

/*
 * One range to walk: [start, end).  run is the run open at start when a
 * walk cut short by its step budget resumes (from snapshot_result.run), so
 * that a run is never split by where a BPF run stopped.
 */
struct snapshot_range {
	__u64 start;
	__u64 end;
	__u64 base;		/* runs' offsets count from here (snapshot_run_potential()) */
	struct snapshot_run run;
};

#define SNAPSHOT_RES_DONE	0x1	/* walked to the end */
#define SNAPSHOT_RES_FAULT	0x2	/* an entry could not be read: area changed under us */

struct snapshot_result {
	__u64 bytes[SNAPSHOT_NR_G];	/* mapped, by granule */
	__u64 potential[SNAPSHOT_NR_POT];	/* of the PTE-mapped bytes */
	__u64 unmapped;			/* bytes with no valid entry (guard pages, holes) */
	__u64 resume;			/* next address when the run ran out of steps */
	struct snapshot_run run;		/* ... and the PTE run open there */
	__u32 flags;
	__u32 steps;
};

/*
 * Self-test of the layout before any real walk (the "probe" program):
 * resolve one address known to be in the linear map (the calling task's
 * task_struct) and read init_mm's identity.
 */
struct snapshot_probe {
	/* in */
	__u64 init_mm;		/* candidate &init_mm ("" = use init_task.active_mm) */
	__u64 addr;		/* address to resolve; 0 = current task_struct */
	__u64 read_addr[2];	/* kernel variables to read (0 = none) */
	/* out */
	__u64 read_val[2];
	__s32 read_err[2];
	__u64 task;		/* current task_struct */
	__u64 current_pgd;	/* current->mm->pgd */
	__u64 init_task;	/* pid 0, found through real_parent */
	__u64 init_task_active_mm;
	__u64 mm_pgd;		/* init_mm->pgd */
	__u64 mm_task_size;	/* init_mm->task_size: 0 for init_mm only */
	__u64 leaf_entry;	/* the entry mapping addr */
	__u64 leaf_phys;	/* physical address of addr */
	__s32 leaf_granule;	/* enum snapshot_granule, -1 unmapped */
	__s32 err;		/* 0, or the level + 1 whose read faulted */
	__s32 mm_err;		/* reading init_mm failed */
	__u32 pad;
};

#endif /* VMAPSCOPE_SNAPSHOT_PT_H */
