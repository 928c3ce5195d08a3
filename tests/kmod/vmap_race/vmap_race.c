// SPDX-License-Identifier: GPL-2.0
/*
 * vmap_race - map and unmap vmalloc areas of every granule for a bounded
 * time, so that a /proc/kcore reader running at the same time
 * (tests/guest/kernel/kcore_race.sh) races the mapping and the freeing.
 *
 * vmap() of an order-9 page is a PMD block, of an order-4 page (arm64) a
 * contiguous-PTE block; vmalloc() of a few pages is 4K PTEs, and
 * vmalloc_huge() of 2M a PMD block again.  Four slots hold live areas;
 * each iteration frees one slot's area and puts a new one of a random
 * kind there, and every 16 iterations vm_unmap_aliases() purges the
 * lazily freed areas, so that the ranges come back to the allocator and
 * are mapped again at another granule: a PMD block where a PTE table was
 * (the table is freed when the block goes in) and PTE tables where a
 * block was.  A reader walking the areas (vread_iter() behind
 * /proc/kcore) meanwhile meets areas that are still VM_UNINITIALIZED,
 * being unmapped, or gone.
 *
 * Every area is checked: vmalloc_to_page() of each page is the page
 * mapped, a word written through the mapping reads back through the
 * linear map, and the rest of the area holds RACE_FILL, which is what the
 * reader counts as bytes of a live area.
 *
 * secs=S (default 20): how long to run.  inject_oob=1: half-way, one
 * read past the end of a vmalloc() area, inside its last page, which
 * KASAN_VMALLOC reports and nothing else notices; it shows that a KASAN
 * report fails the run (kcore_race.sh's log check and the lab's scan).
 * Not a mode to keep on.
 *
 * Ends with "vmap_race: summary iters=N vmap9=.. vmap4=.. vmalloc=..
 * huge=.. purges=.. nomem=.. pages_pmd=.. pages_cont=.. pages_pte=..
 * fail=F" (areas made of each kind, pages checked at each granule) and
 * returns -EAGAIN when F is 0 (so that it unloads itself), -EIO otherwise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kpt_walk.h"

static unsigned int secs = 20;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "how long to map and unmap, in seconds");
static bool inject_oob;
module_param(inject_oob, bool, 0444);
MODULE_PARM_DESC(inject_oob, "read past the end of an area once (KASAN must report it)");

/* What the reader finds in a live area of this module. */
#define RACE_FILL	0x5a
#define NSLOT		4

enum race_kind { K_VMAP9, K_VMAP4, K_VMALLOC, K_HUGE, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "vmap9", "vmap4", "vmalloc", "huge" };

struct slot {
	enum race_kind kind;
	void *addr;
	struct page *block;	/* vmap(): the block its pages come from */
	unsigned int order;	/* vmap(): the block's order */
	size_t size;
};

static unsigned long nr_kind[NR_KINDS], nr_fail, nr_nomem, nr_purge;
/* Pages mapped per granule: 4K PTE, arm64 contiguous PTE, PMD block. */
static unsigned long nr_pte, nr_cont, nr_pmd;

static void check(bool ok, const char *what, const struct slot *s, unsigned long i)
{
	if (ok)
		return;
	if (nr_fail++ < 10)
		pr_err("FAIL %s: %s at %px page %lu\n", what, kind_name[s->kind], s->addr, i);
}

/*
 * Check every page of a live area and fill it: its page is the one mapped
 * (@pages, or any page for vmalloc()), a tag written through the mapping
 * reads back through the linear map, the rest is RACE_FILL.
 */
static void fill_and_check(struct slot *s, unsigned long iter)
{
	unsigned long i, n = s->size >> PAGE_SHIFT;

	for (i = 0; i < n; i++) {
		char *va = s->addr + (i << PAGE_SHIFT);
		struct page *page = vmalloc_to_page(va);
		unsigned long tag = iter << 16 | i, pfn = 0;
		int gran;

		check(page && (!s->block || page == s->block + i), "vmalloc_to_page", s, i);
		if (!page)
			continue;
		memset(va, RACE_FILL, PAGE_SIZE);
		*(unsigned long *)va = tag;
		check(*(unsigned long *)page_address(page) == tag, "tag through the linear map",
		      s, i);
		gran = kpt_granule_at((unsigned long)va, &pfn);
		check(pfn == page_to_pfn(page), "page table walk", s, i);
		if (gran == PMD_SHIFT)
			nr_pmd++;
		else if (gran == PAGE_SHIFT)
			nr_pte++;
		else
			nr_cont++;
		if (!(i % 64))
			cond_resched();
	}
}

static void slot_free(struct slot *s)
{
	if (!s->addr)
		return;
	if (s->block) {
		vunmap(s->addr);
		__free_pages(s->block, s->order);
	} else {
		vfree(s->addr);
	}
	s->addr = NULL;
	s->block = NULL;
}

static int slot_vmap(struct slot *s, unsigned int order)
{
	unsigned int i, n = 1U << order;
	struct page **pages;
	struct page *block;

	block = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY, order);
	pages = kmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!block || !pages)
		goto nomem;
	for (i = 0; i < n; i++)
		pages[i] = block + i;
	s->addr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	if (!s->addr) {
		pages = NULL;
		goto nomem;
	}
	s->block = block;
	s->order = order;
	s->size = PAGE_SIZE << order;
	return 0;
nomem:
	kfree(pages);
	if (block)
		__free_pages(block, order);
	return -ENOMEM;
}

static int slot_new(struct slot *s, enum race_kind kind)
{
	s->kind = kind;
	switch (kind) {
	case K_VMAP9:
		return slot_vmap(s, PMD_SHIFT - PAGE_SHIFT);
	case K_VMAP4:
		return slot_vmap(s, 4);
	case K_VMALLOC:
		s->size = (1 + get_random_u32_below(16)) << PAGE_SHIFT;
		s->addr = vmalloc(s->size);
		break;
	case K_HUGE:
		s->size = PMD_SIZE;
		s->addr = vmalloc_huge(s->size, GFP_KERNEL | __GFP_NOWARN);
		break;
	default:
		return -EINVAL;
	}
	return s->addr ? 0 : -ENOMEM;
}

/*
 * A read past the end of an area of 100 bytes: the byte is mapped (the
 * area's page), but KASAN_VMALLOC poisons what is past the size.
 */
static void read_out_of_bounds(void)
{
	char *p = vmalloc(100);

	if (!p)
		return;
	pr_info("inject_oob: reading %px, past the end of %px (100 bytes)\n", p + 128, p);
	pr_info("inject_oob: read %d\n", READ_ONCE(p[128]));
	vfree(p);
}

static int __init vmap_race_init(void)
{
	unsigned long end = jiffies + secs * HZ, iter = 0;
	struct slot slots[NSLOT] = {};
	bool injected = false;
	unsigned int i;

	pr_info("start secs=%u slots=%d fill=0x%x\n", secs, NSLOT, RACE_FILL);
	while (time_before(jiffies, end)) {
		struct slot *s = &slots[iter % NSLOT];
		enum race_kind kind = get_random_u32_below(NR_KINDS);

		slot_free(s);
		if (!slot_new(s, kind)) {
			nr_kind[kind]++;
			fill_and_check(s, iter);
		} else {
			nr_nomem++;
		}
		if (!(++iter % 16)) {
			vm_unmap_aliases();
			nr_purge++;
		}
		if (inject_oob && !injected && time_after(jiffies, end - secs * HZ / 2)) {
			read_out_of_bounds();
			injected = true;
		}
		cond_resched();
	}
	for (i = 0; i < NSLOT; i++)
		slot_free(&slots[i]);
	pr_info("summary iters=%lu vmap9=%lu vmap4=%lu vmalloc=%lu huge=%lu purges=%lu nomem=%lu pages_pmd=%lu pages_cont=%lu pages_pte=%lu fail=%lu\n",
		iter, nr_kind[K_VMAP9], nr_kind[K_VMAP4], nr_kind[K_VMALLOC], nr_kind[K_HUGE],
		nr_purge, nr_nomem, nr_pmd, nr_cont, nr_pte, nr_fail);
	return nr_fail ? -EIO : -EAGAIN;
}
module_init(vmap_race_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vmap()/vmalloc() of every granule racing a /proc/kcore reader");
