/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfrag.h - fragment the free memory from a test module, so that no free
 * block of a given order or above is left, and give it back afterwards.
 * Shared by vmap_bench (its fragmented-memory cases), vmap_numa (one node
 * fragmented: kfrag_take_node()) and vmap_test (mode=nofree).
 *
 * Every free block of order MAX_PAGE_ORDER down to the minimum order is
 * taken (each order until it fails), split, and its odd pages given back.
 * The even pages stay allocated, so no two of the pages given back are
 * buddies: no free block of the minimum order or above is left, and
 * about half of the memory that was free still is, as single pages (with
 * a minimum order of 1) or in blocks below the minimum order.  The pages
 * kept are kernel pages, unmovable: compaction cannot make a block out of
 * them.  No reclaim, not even kswapd's: the allocations only take what is
 * free.
 */
#ifndef KFRAG_H
#define KFRAG_H

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/sched.h>

/* Every zone of every online node (@nid an int, @zone a struct zone *). */
#define kfrag_for_each_zone(nid, zone)						\
	for_each_online_node(nid)						\
		for ((zone) = NODE_DATA(nid)->node_zones;			\
		     (zone) < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; (zone)++)

#define KFRAG_GFP	((GFP_NOWAIT & ~__GFP_KSWAPD_RECLAIM) | __GFP_NOWARN | __GFP_NORETRY)

/* The blocks kept, by their first page, per order. */
struct kfrag {
	struct list_head held[NR_PAGE_ORDERS];
	unsigned long nr[NR_PAGE_ORDERS];
};

static inline void kfrag_init(struct kfrag *f)
{
	unsigned int order;

	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		INIT_LIST_HEAD(&f->held[order]);
		f->nr[order] = 0;
	}
}

/* Keep the even pages of the block @page of @order, free the odd ones. */
static inline void kfrag_keep(struct kfrag *f, struct page *page, unsigned int order)
{
	unsigned int i;

	split_page(page, order);
	for (i = 1; i < 1U << order; i += 2)
		__free_page(page + i);
	list_add(&page->lru, &f->held[order]);
	f->nr[order]++;
}

/*
 * Take what free blocks of @min_order (at least 1) or above node @nid
 * has (NUMA_NO_NODE: every node); the number taken.  Called again, it
 * takes the blocks that became free since (freed by someone, or merged
 * when a per-CPU list drained).
 */
static inline unsigned long kfrag_take_node(struct kfrag *f, unsigned int min_order, int nid)
{
	unsigned long n = 0;
	struct page *page;
	int order;

	for (order = MAX_PAGE_ORDER; order >= (int)max(min_order, 1U); order--) {
		while ((page = nid == NUMA_NO_NODE ? alloc_pages(KFRAG_GFP, order) :
			alloc_pages_node(nid, KFRAG_GFP | __GFP_THISNODE, order))) {
			kfrag_keep(f, page, order);
			if (!(++n % 64))
				cond_resched();
		}
	}
	return n;
}

static inline unsigned long kfrag_take(struct kfrag *f, unsigned int min_order)
{
	return kfrag_take_node(f, min_order, NUMA_NO_NODE);
}

/* Give every kept page back. */
static inline void kfrag_release(struct kfrag *f)
{
	struct page *page, *tmp;
	unsigned int order, i;

	for (order = 1; order <= MAX_PAGE_ORDER; order++) {
		list_for_each_entry_safe(page, tmp, &f->held[order], lru) {
			list_del(&page->lru);
			for (i = 0; i < 1U << order; i += 2)
				__free_page(page + i);
			cond_resched();
		}
		f->nr[order] = 0;
	}
}

#endif /* KFRAG_H */
