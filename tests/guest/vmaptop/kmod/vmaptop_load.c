// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop_load - a workload with known callers and known mapping granules
 * for the vmaptop guest test (tests/guest/vmaptop/).
 *
 * Each caller is its own noinline function, so vmaptop shows it as its own
 * row ("vt_vmalloc_small+0x../0x.. [vmaptop_load]").  Each maps `loops`
 * times and frees every mapping but the last, which stays mapped until the
 * module is removed (vmaptop's LIVE / AREAS columns see exactly one area):
 *
 *   vt_vmalloc_small      vmalloc(12K)            4K only
 *   vt_vmalloc_huge_2m    vmalloc_huge(2M)        2M PMD only
 *   vt_vmalloc_huge_128k  vmalloc_huge(128K)      arm64: 64K cont only; x86: 4K only
 *   vt_vmap_order9        vmap(order-9 compound)  2M PMD only
 *   vt_vmap_mixed         vmap(order-9 compound + 512 non-adjacent pages)
 *                                                 half 2M PMD, half 4K (by bytes)
 *
 * The granules are what the series maps for such ranges (kernel-patches/,
 * tests/kmod/vmap_test checks the same cases page by page).  Non-adjacent
 * pages are every other page of a split order-10 block: no two are
 * physically contiguous, so no larger granule can apply.
 */
#define pr_fmt(fmt) "vmaptop_load: " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int loops = 50;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "mappings per caller");

enum { SMALL, HUGE_2M, HUGE_128K, VMAP9, MIXED, NR_CALLERS };
static void *keep[NR_CALLERS];
static bool keep_is_vmap[NR_CALLERS] = { [VMAP9] = true, [MIXED] = true };

static struct page *block9;		/* compound order-9 */
static struct page *block10;		/* split order-10: odd pages unused */
static struct page **pages9, **pages_mixed;

/*
 * The caller the kernel records is the return address of the mapping
 * call: it must lie in these functions, so the call must not become a
 * tail call (a jump whose return address is the loop in the init code).
 */
#define no_tail_call(call) ({ void *__p = (call); OPTIMIZER_HIDE_VAR(__p); __p; })

static noinline void *vt_vmalloc_small(void)
{
	return no_tail_call(vmalloc(3 * PAGE_SIZE));
}

static noinline void *vt_vmalloc_huge_2m(void)
{
	return no_tail_call(vmalloc_huge(SZ_2M, GFP_KERNEL));
}

static noinline void *vt_vmalloc_huge_128k(void)
{
	return no_tail_call(vmalloc_huge(SZ_128K, GFP_KERNEL));
}

static noinline void *vt_vmap_order9(void)
{
	return no_tail_call(vmap(pages9, 512, VM_MAP, PAGE_KERNEL));
}

static noinline void *vt_vmap_mixed(void)
{
	return no_tail_call(vmap(pages_mixed, 1024, VM_MAP, PAGE_KERNEL));
}

static void *(*const callers[NR_CALLERS])(void) = {
	vt_vmalloc_small, vt_vmalloc_huge_2m, vt_vmalloc_huge_128k,
	vt_vmap_order9, vt_vmap_mixed,
};

static void release(int c, void *p)
{
	if (keep_is_vmap[c])
		vunmap(p);
	else
		vfree(p);
}

static void free_all(void)
{
	unsigned int i;
	int c;

	for (c = 0; c < NR_CALLERS; c++) {
		if (keep[c])
			release(c, keep[c]);
		keep[c] = NULL;
	}
	if (block9)
		__free_pages(block9, 9);
	if (block10)
		for (i = 0; i < 1024; i++)
			__free_page(block10 + i);
	kfree(pages9);
	kfree(pages_mixed);
	block9 = block10 = NULL;
	pages9 = pages_mixed = NULL;
}

static int __init vmaptop_load_init(void)
{
	unsigned int i, n;
	int c;

	pages9 = kcalloc(512, sizeof(*pages9), GFP_KERNEL);
	pages_mixed = kcalloc(1024, sizeof(*pages_mixed), GFP_KERNEL);
	block9 = alloc_pages(GFP_KERNEL | __GFP_COMP, 9);
	block10 = alloc_pages(GFP_KERNEL, 10);
	if (!pages9 || !pages_mixed || !block9 || !block10) {
		pr_err("cannot allocate the page blocks\n");
		free_all();
		return -ENOMEM;
	}
	split_page(block10, 10);
	for (i = 0; i < 512; i++) {
		pages9[i] = block9 + i;
		pages_mixed[i] = block9 + i;
		pages_mixed[512 + i] = block10 + 2 * i;
	}

	for (c = 0; c < NR_CALLERS; c++) {
		for (n = 0; n < loops; n++) {
			void *p = callers[c]();

			if (!p) {
				pr_err("caller %d: mapping %u failed\n", c, n);
				free_all();
				return -ENOMEM;
			}
			if (keep[c])
				release(c, keep[c]);
			keep[c] = p;
		}
	}
	pr_info("done: %u mappings per caller, %d callers, one area each kept\n",
		loops, NR_CALLERS);
	return 0;
}

static void __exit vmaptop_load_exit(void)
{
	free_all();
}

module_init(vmaptop_load_init);
module_exit(vmaptop_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vmaptop guest test workload: known callers and granules");
