/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpt_walk.h - read the kernel page tables from a test module: which entry
 * maps a kernel virtual address, at which granule, to which PFN.  Shared
 * by the lab's modules (scripts/lab kmod copies this directory next to
 * each module's sources as include/).
 */
#ifndef KPT_WALK_H
#define KPT_WALK_H

#include <linux/mm.h>
#include <linux/pgtable.h>

/*
 * init_mm is not exported.  Kernel mappings are reached through the
 * kernel's top-level table: TTBR1 on arm64; on x86_64 every page table
 * shares the kernel half (vmalloc space is pre-populated down to the
 * level below the PGD), so the current task's active_mm works.
 */
static inline pgd_t *kpt_pgd(unsigned long addr)
{
#ifdef CONFIG_ARM64
	u64 ttbr = read_sysreg(ttbr1_el1);
	pgd_t *base = phys_to_virt(ttbr & GENMASK_ULL(47, PAGE_SHIFT));

	return base + pgd_index(addr);
#else
	return pgd_offset(current->active_mm, addr);
#endif
}

/*
 * The granule mapping @addr (a mapping shift: PAGE_SHIFT, CONT_PTE_SHIFT on
 * arm64, PMD_SHIFT, PUD_SHIFT), or -1 when unmapped; *pfn (when @pfn is not
 * NULL) gets the PFN mapped at @addr.
 */
static inline int kpt_granule_at(unsigned long addr, unsigned long *pfn)
{
	pgd_t *pgd = kpt_pgd(addr);
	unsigned long dummy;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd, pmdv;
	pte_t pte;

	if (!pfn)
		pfn = &dummy;
	if (pgd_none(READ_ONCE(*pgd)))
		return -1;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)))
		return -1;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)))
		return -1;
	if (pud_leaf(READ_ONCE(*pud))) {
		*pfn = pud_pfn(READ_ONCE(*pud)) + ((addr & ~PUD_MASK) >> PAGE_SHIFT);
		return PUD_SHIFT;
	}
	pmd = pmd_offset(pud, addr);
	pmdv = READ_ONCE(*pmd);
	if (pmd_none(pmdv))
		return -1;
	if (pmd_leaf(pmdv)) {
		*pfn = pmd_pfn(pmdv) + ((addr & ~PMD_MASK) >> PAGE_SHIFT);
		return PMD_SHIFT;
	}
	pte = READ_ONCE(*pte_offset_kernel(pmd, addr));
	if (!pte_present(pte))
		return -1;
	*pfn = pte_pfn(pte);
#ifdef CONFIG_ARM64
	if (pte_cont(pte))
		return CONT_PTE_SHIFT;
#endif
	return PAGE_SHIFT;
}

/*
 * The PTE that maps @addr with a 4K granule (no block, arm64: no
 * contiguous bit) in *@ptep; false when @addr is unmapped or mapped at
 * another granule.
 */
static inline bool kpt_pte_4k_at(unsigned long addr, pte_t *ptep)
{
	pmd_t *pmd;

	if (kpt_granule_at(addr, NULL) != PAGE_SHIFT)
		return false;
	pmd = pmd_offset(pud_offset(p4d_offset(kpt_pgd(addr), addr), addr), addr);
	*ptep = READ_ONCE(*pte_offset_kernel(pmd, addr));
	return true;
}

#endif /* KPT_WALK_H */
