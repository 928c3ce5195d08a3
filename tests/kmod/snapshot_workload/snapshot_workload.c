// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot_workload: live vmalloc / vmap / ioremap areas with known
 * sizes, kept mapped until the module is unloaded, for the live mapping
 * audit's guest test (tests/guest/snapshot/).  Each mapping is made from
 * its own noinline function so that /proc/vmallocinfo names a distinct
 * caller, and its address is logged so the test can find its area.
 *
 *   sw_vmalloc_small   vmalloc(64K)                          4K PTEs
 *   sw_vmalloc_huge    vmalloc_huge(4M)                      2 PMDs
 *   sw_vmalloc_huge_256k vmalloc_huge(256K)                  4K (arm64 patched: 64K cont)
 *   sw_vmap_2m         vmap(512 contiguous pages, order 9)   4K (patched: PMD)
 *   sw_vmap_64k        vmap(16 contiguous pages, order 4)    4K (arm64 patched: 64K cont)
 *   sw_vmap_offset     vmap(pages 1..1023 of an order-10 block): physically
 *                      contiguous, but one page off every block boundary
 * The vmap areas also log the physical address of their first page, for
 * the audit's mapping-potential check.
 *   sw_ioremap         ioremap(ioremap_phys, ioremap_size)   if ioremap_phys != 0
 *   sw_vmalloc_many    nr_small x vmalloc(16K)               a busy system for the benchmark
 */
#include <linux/io.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

static unsigned long ioremap_phys;
module_param(ioremap_phys, ulong, 0444);
MODULE_PARM_DESC(ioremap_phys, "physical address to ioremap (0: none)");
static unsigned long ioremap_size = 4UL << 20;
module_param(ioremap_size, ulong, 0444);
MODULE_PARM_DESC(ioremap_size, "bytes to ioremap");
static unsigned int nr_small;
module_param(nr_small, uint, 0444);
MODULE_PARM_DESC(nr_small, "extra live vmalloc(16K) areas (benchmark)");

static void **many;

struct sw_vmap {
	void *addr;
	struct page *first;
	unsigned int order;
	unsigned int skip;	/* pages of the block left out before the array */
};

static void *small, *huge, *huge_256k;
static void __iomem *io;
static struct sw_vmap vmap_2m, vmap_64k, vmap_offset;

static void report(const char *name, const void *addr, unsigned long size)
{
	pr_info("snapshot_workload: %s va=%px size=%lu\n", name, addr, size);
}

static void report_vmap(const char *name, const struct sw_vmap *v)
{
	pr_info("snapshot_workload: %s va=%px size=%lu pa=%llx\n", name, v->addr,
		((1UL << v->order) - v->skip) << PAGE_SHIFT,
		(unsigned long long)page_to_phys(v->first + v->skip));
}

/*
 * The mapping functions store their result themselves: a plain "return
 * vmalloc(...)" becomes a tail call, and the caller /proc/vmallocinfo
 * shows would then be sw_init(), whose code is freed after loading.
 */
static noinline void sw_vmalloc_small(void)
{
	small = vmalloc(64 << 10);
}

static noinline void sw_vmalloc_huge(void)
{
	huge = vmalloc_huge(4 << 20, GFP_KERNEL);
}

static noinline void sw_vmalloc_huge_256k(void)
{
	huge_256k = vmalloc_huge(256 << 10, GFP_KERNEL);
}

/*
 * vmap() of one physically contiguous, naturally aligned block, without
 * its first skip pages.
 */
static noinline int sw_vmap(struct sw_vmap *v, unsigned int order, unsigned int skip)
{
	unsigned int i, n = (1U << order) - skip;
	struct page **pages;

	v->first = alloc_pages(GFP_KERNEL, order);
	if (!v->first)
		return -ENOMEM;
	split_page(v->first, order);
	v->order = order;
	v->skip = skip;
	pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		pages[i] = v->first + skip + i;
	v->addr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	return v->addr ? 0 : -ENOMEM;
}

static noinline int sw_vmap_2m(void)
{
	return sw_vmap(&vmap_2m, 9, 0);
}

static noinline int sw_vmap_64k(void)
{
	return sw_vmap(&vmap_64k, 4, 0);
}

static noinline int sw_vmap_offset(void)
{
	return sw_vmap(&vmap_offset, 10, 1);
}

static noinline void sw_vmalloc_many(unsigned int i)
{
	many[i] = vmalloc(16 << 10);
}

static noinline void sw_ioremap(void)
{
	io = ioremap(ioremap_phys, ioremap_size);
}

static void sw_vunmap(struct sw_vmap *v)
{
	unsigned int i;

	if (v->addr)
		vunmap(v->addr);
	if (v->first)
		for (i = 0; i < (1U << v->order); i++)
			__free_page(v->first + i);
	memset(v, 0, sizeof(*v));
}

static void sw_free(void)
{
	unsigned int i;

	if (many) {
		for (i = 0; i < nr_small; i++)
			vfree(many[i]);
		kvfree(many);
		many = NULL;
	}
	vfree(small);
	vfree(huge);
	vfree(huge_256k);
	if (io)
		iounmap(io);
	sw_vunmap(&vmap_2m);
	sw_vunmap(&vmap_64k);
	sw_vunmap(&vmap_offset);
}

static int __init sw_init(void)
{
	int err = -ENOMEM;

	sw_vmalloc_small();
	sw_vmalloc_huge();
	sw_vmalloc_huge_256k();
	if (!small || !huge || !huge_256k)
		goto fail;
	err = sw_vmap_2m();
	if (!err)
		err = sw_vmap_64k();
	if (!err)
		err = sw_vmap_offset();
	if (err)
		goto fail;
	if (nr_small) {
		unsigned int i;

		err = -ENOMEM;
		many = kvcalloc(nr_small, sizeof(*many), GFP_KERNEL);
		if (!many)
			goto fail;
		for (i = 0; i < nr_small; i++) {
			sw_vmalloc_many(i);
			if (!many[i])
				goto fail;
		}
	}
	if (ioremap_phys) {
		sw_ioremap();
		if (!io) {
			err = -ENOMEM;
			goto fail;
		}
	}
	report("vmalloc_small", small, 64 << 10);
	report("vmalloc_huge", huge, 4 << 20);
	report("vmalloc_huge_256k", huge_256k, 256 << 10);
	report_vmap("vmap_2m", &vmap_2m);
	report_vmap("vmap_64k", &vmap_64k);
	report_vmap("vmap_offset", &vmap_offset);
	if (io)
		report("ioremap", (void __force *)io, ioremap_size);
	return 0;
fail:
	sw_free();
	return err;
}

static void __exit sw_exit(void)
{
	sw_free();
}

module_init(sw_init);
module_exit(sw_exit);
MODULE_DESCRIPTION("vmapscope: live vmalloc/vmap/ioremap areas for the snapshot test");
MODULE_LICENSE("GPL");
