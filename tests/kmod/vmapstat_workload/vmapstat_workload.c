// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat_workload - known vmalloc/vmap/vm_map_ram (and optionally
 * ioremap) mappings from several distinct callers, for vmapstat's guest
 * test.  Every mapping is made once at init from its own noinline
 * function, so /proc/vmallocinfo and the vmap_mapped tracepoint name that
 * function as the caller, and kept until the module is removed (callers
 * stay symbolizable while vmapstat reads).
 *
 * What each caller must produce with the series applied (4K base pages):
 *
 *   vswl_vmalloc_4k        vmalloc(64K)           16 x 4K           x86, arm64
 *   vswl_vmalloc_huge_pmd  vmalloc_huge(4M)        2 x 2M PMD       x86, arm64
 *                          + 2 x 4K: its 8K page array is vmalloc'ed with
 *                          the same caller (__vmalloc_area_node)
 *   vswl_vmalloc_huge_cont vmalloc_huge(256K)     64 x 4K | 4 x 64K cont (arm64)
 *   vswl_vmap_pmd          vmap(order-9 block)     1 x 2M PMD       x86, arm64
 *   vswl_vmap_cont         vmap(4 order-4 blocks) 64 x 4K | 4 x 64K cont (arm64)
 *   vswl_vmap_4k           vmap(8 order-0 pages)   8 x 4K           x86, arm64
 *   vswl_vmap_misaligned   vmap(an order-9 block, then pages 256..1023 of an
 *                          order-10 block)         1 x 2M PMD, then 768 x 4K
 *                          (x86) | 48 x 64K cont (arm64): the second 2M is
 *                          contiguous but only 1M-aligned, and the walk says
 *                          so (vmap_mapped fallbacks "align", from patch 16)
 *   vswl_vm_map_ram        vm_map_ram(4 pages)     4 x 4K           x86, arm64
 *   vswl_ioremap           ioremap(ioremap_phys, ioremap_size), if given
 *
 * One vmap_mapped each (a vmap() is one page-table walk whatever its
 * granules), plus one for the huge_pmd page array.  Init fails (and frees
 * everything) if any mapping fails, so a test never reads half a workload.
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned long ioremap_phys;
module_param(ioremap_phys, ulong, 0444);
MODULE_PARM_DESC(ioremap_phys, "physical address to ioremap (0 = skip), e.g. an ivshmem BAR");
static unsigned long ioremap_size;
module_param(ioremap_size, ulong, 0444);
MODULE_PARM_DESC(ioremap_size, "bytes to ioremap at ioremap_phys");

struct held_pages {
	struct page *blocks[8];
	unsigned int order;
	unsigned int nr_blocks;
};

static void *p_vmalloc_4k, *p_vmalloc_huge_pmd, *p_vmalloc_huge_cont;
static void *p_vmap_pmd, *p_vmap_cont, *p_vmap_4k, *p_vm_map_ram, *p_vmap_mis;
static void __iomem *p_ioremap;
static struct held_pages h_vmap_pmd, h_vmap_cont, h_vmap_4k, h_vm_map_ram;
static struct held_pages h_mis9, h_mis10;

/*
 * "return vmalloc(...)" compiles to a tail jump, and the area's caller
 * (the return address) would then be vswl_init().  Using the value after
 * the call keeps each function its own caller.
 */
#define no_tail_call(p) OPTIMIZER_HIDE_VAR(p)

static void free_held(struct held_pages *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_blocks; i++)
		__free_pages(h->blocks[i], h->order);
	h->nr_blocks = 0;
}

/* nr_blocks blocks of 2^order pages, as a flat page array (kfree it). */
static struct page **alloc_held(struct held_pages *h, unsigned int nr_blocks,
				unsigned int order)
{
	unsigned int per = 1U << order, i, j;
	struct page **pages;

	pages = kcalloc(nr_blocks * per, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	h->order = order;
	h->nr_blocks = 0;
	for (i = 0; i < nr_blocks; i++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);

		if (!p) {
			free_held(h);
			kfree(pages);
			return NULL;
		}
		h->blocks[h->nr_blocks++] = p;
		for (j = 0; j < per; j++)
			pages[i * per + j] = p + j;
	}
	return pages;
}

static noinline void *vswl_vmalloc_4k(void)
{
	void *p = vmalloc(64 * 1024);

	no_tail_call(p);
	return p;
}

static noinline void *vswl_vmalloc_huge_pmd(void)
{
	void *p = vmalloc_huge(4 * 1024 * 1024, GFP_KERNEL);

	no_tail_call(p);
	return p;
}

static noinline void *vswl_vmalloc_huge_cont(void)
{
	void *p = vmalloc_huge(256 * 1024, GFP_KERNEL);

	no_tail_call(p);
	return p;
}


static noinline void *vswl_vmap_pmd(void)
{
	struct page **pages = alloc_held(&h_vmap_pmd, 1, 9);
	void *p;

	if (!pages)
		return NULL;
	p = vmap(pages, 512, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	if (!p)
		free_held(&h_vmap_pmd);
	return p;
}

static noinline void *vswl_vmap_cont(void)
{
	struct page **pages = alloc_held(&h_vmap_cont, 4, 4);
	void *p;

	if (!pages)
		return NULL;
	p = vmap(pages, 64, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	if (!p)
		free_held(&h_vmap_cont);
	return p;
}

static noinline void *vswl_vmap_4k(void)
{
	struct page **pages = alloc_held(&h_vmap_4k, 8, 0);
	void *p;

	if (!pages)
		return NULL;
	p = vmap(pages, 8, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	if (!p)
		free_held(&h_vmap_4k);
	return p;
}

static noinline void *vswl_vmap_misaligned(void)
{
	struct page **o9 = alloc_held(&h_mis9, 1, 9);
	struct page **o10 = alloc_held(&h_mis10, 1, 10);
	struct page **pages = kcalloc(512 + 768, sizeof(*pages), GFP_KERNEL);
	void *p = NULL;

	if (o9 && o10 && pages) {
		memcpy(pages, o9, 512 * sizeof(*pages));
		memcpy(pages + 512, o10 + 256, 768 * sizeof(*pages));
		p = vmap(pages, 512 + 768, VM_MAP, PAGE_KERNEL);
	}
	kfree(pages);
	kfree(o10);
	kfree(o9);
	if (!p) {
		free_held(&h_mis10);
		free_held(&h_mis9);
	}
	return p;
}

static noinline void *vswl_vm_map_ram(void)
{
	struct page **pages = alloc_held(&h_vm_map_ram, 4, 0);
	void *p;

	if (!pages)
		return NULL;
	p = vm_map_ram(pages, 4, NUMA_NO_NODE);
	kfree(pages);
	if (!p)
		free_held(&h_vm_map_ram);
	return p;
}

static noinline void __iomem *vswl_ioremap(void)
{
	void __iomem *p = ioremap(ioremap_phys, ioremap_size);

	no_tail_call(p);
	return p;
}

static void release_all(void)
{
	if (p_ioremap)
		iounmap(p_ioremap);
	if (p_vm_map_ram)
		vm_unmap_ram(p_vm_map_ram, 4);
	free_held(&h_vm_map_ram);
	vunmap(p_vmap_mis);
	free_held(&h_mis10);
	free_held(&h_mis9);
	vunmap(p_vmap_4k);
	free_held(&h_vmap_4k);
	vunmap(p_vmap_cont);
	free_held(&h_vmap_cont);
	vunmap(p_vmap_pmd);
	free_held(&h_vmap_pmd);
	vfree(p_vmalloc_huge_cont);
	vfree(p_vmalloc_huge_pmd);
	vfree(p_vmalloc_4k);
	p_ioremap = NULL;
	p_vm_map_ram = p_vmap_4k = p_vmap_cont = p_vmap_pmd = p_vmap_mis = NULL;
	p_vmalloc_huge_cont = p_vmalloc_huge_pmd = p_vmalloc_4k = NULL;
}

static int __init vswl_init(void)
{
	p_vmalloc_4k = vswl_vmalloc_4k();
	p_vmalloc_huge_pmd = vswl_vmalloc_huge_pmd();
	p_vmalloc_huge_cont = vswl_vmalloc_huge_cont();
	p_vmap_pmd = vswl_vmap_pmd();
	p_vmap_cont = vswl_vmap_cont();
	p_vmap_4k = vswl_vmap_4k();
	p_vmap_mis = vswl_vmap_misaligned();
	p_vm_map_ram = vswl_vm_map_ram();
	if (ioremap_phys && ioremap_size)
		p_ioremap = vswl_ioremap();

	if (!p_vmalloc_4k || !p_vmalloc_huge_pmd || !p_vmalloc_huge_cont ||
	    !p_vmap_pmd || !p_vmap_cont || !p_vmap_4k || !p_vmap_mis || !p_vm_map_ram ||
	    (ioremap_phys && ioremap_size && !p_ioremap)) {
		pr_err("vmapstat_workload: a mapping failed\n");
		release_all();
		return -ENOMEM;
	}
	pr_info("vmapstat_workload: mapped vmalloc_4k=%px huge_pmd=%px huge_cont=%px vmap_pmd=%px vmap_cont=%px vmap_4k=%px vm_map_ram=%px ioremap=%px\n",
		p_vmalloc_4k, p_vmalloc_huge_pmd, p_vmalloc_huge_cont, p_vmap_pmd,
		p_vmap_cont, p_vmap_4k, p_vm_map_ram, (void __force *)p_ioremap);
	return 0;
}

static void __exit vswl_exit(void)
{
	release_all();
}

module_init(vswl_init);
module_exit(vswl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Known vmalloc/vmap/vm_map_ram/ioremap mappings for vmapstat tests");
