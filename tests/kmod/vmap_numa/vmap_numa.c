// SPDX-License-Identifier: GPL-2.0
/*
 * vmap_numa - the node handling of vmalloc() on a guest with two or more
 * NUMA nodes (scripts/lab run --numa 2; tests/guest/kernel/numa.sh).
 *
 * nid=N (default 1): the node asked for.  First with that node's memory
 * free:
 *	vmalloc_node() of 1M, __vmalloc_node_range() with VM_ALLOW_HUGE_VMAP
 *	of 128K, 1M and 2M, and kvmalloc_node() of 6M (above the largest
 *	kmalloc(): its vmalloc fallback, huge too): every page of the area is
 *	on node N, and every page is mapped at the granule a one-node guest
 *	maps it with (2M and 6M: PMD blocks; 1M and 128K: arm64 contiguous
 *	PTEs, 4K PTEs on x86_64; vmalloc_node(): 4K PTEs).  vmalloc_huge()
 *	of 2M and 4M, no node: the granule of the size per online node.
 * Then with every free block of order 4 and above of node N taken
 * (kfrag.h; the other nodes keep theirs), the huge cases again, with
 *	GFP_KERNEL | __GFP_THISNODE: they succeed, every page on node N;
 *	below 2M in 4K PTEs (the blocks below PMD size are taken only when
 *	free: the area is finished with order-0 pages), 2M and 6M in 4K
 *	PTEs or PMD blocks (their mask may compact, which may make a block
 *	on node N again);
 *	GFP_KERNEL below 2M: they succeed, every page on node N in 4K PTEs
 *	(a block below PMD size is taken on the node asked for or not at
 *	all; the order-0 pages prefer node N, which has them);
 *	GFP_KERNEL, 2M and 6M: they succeed; the node each page comes from
 *	is printed, not asserted: for PMD blocks the node asked for is a
 *	preference, and the zonelist may give blocks of another node or
 *	order-0 pages of node N.
 * For every area: vmalloc_to_page() of each page and the page-table walk
 * agree on the page, the granule is one the area may hold, a PMD or
 * contiguous block maps physically contiguous pages, and a word written
 * through the mapping reads back through the linear map.
 *
 * Each case prints "vmap_numa: CASE size=S gfp=G nodes=n0,n1,.. pmd=P
 * cont=C pte=T" (pages per node and per granule); ends with "vmap_numa:
 * summary pass=N fail=M" and returns -EAGAIN when nothing failed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>

#include "kfrag.h"
#include "kpt_walk.h"
#include "ksym.h"

static int nid = 1;
module_param(nid, int, 0444);
MODULE_PARM_DESC(nid, "the node to allocate on");

#define MAXNODES	8

static unsigned int nr_pass, nr_fail;

#define CHECK(cond, fmt, ...) do {						\
	if (cond) {								\
		nr_pass++;							\
	} else {								\
		nr_fail++;							\
		pr_err("FAIL " fmt "\n", ##__VA_ARGS__);			\
	}									\
} while (0)

/* __vmalloc_node_range() is not exported: found through kallsyms. */
typedef void *(*vmalloc_range_fn)(unsigned long size, unsigned long align,
				  unsigned long start, unsigned long end, gfp_t gfp,
				  pgprot_t prot, unsigned long vm_flags, int node,
				  const void *caller);
static vmalloc_range_fn vmalloc_range;

enum api { A_NODE, A_RANGE, A_KVMALLOC, A_ANY_NODE };

struct census {
	unsigned long node[MAXNODES];
	unsigned long pmd, cont, pte;
};

static unsigned long node_free_pages(int node)
{
	unsigned long n = 0;
	struct zone *zone;

	for (zone = NODE_DATA(node)->node_zones;
	     zone < NODE_DATA(node)->node_zones + MAX_NR_ZONES; zone++)
		n += zone_page_state(zone, NR_FREE_PAGES);
	return n;
}

/*
 * Check every page of the area @addr of @size and count its nodes and
 * granules in @c.  A block (PMD or contiguous PTEs) must map physically
 * contiguous pages: the PFN the walk finds is the block's first plus the
 * offset, and vmalloc_to_page() agrees.
 */
static void census_area(const char *name, void *addr, size_t size, struct census *c)
{
	unsigned long i, bad = 0, n = size >> PAGE_SHIFT;

	for (i = 0; i < n; i++) {
		unsigned long va = (unsigned long)addr + (i << PAGE_SHIFT), pfn = 0;
		struct page *page = vmalloc_to_page((void *)va);
		int gran = kpt_granule_at(va, &pfn);
		unsigned long tag = va ^ 0x5a5a;

		if (!page || pfn != page_to_pfn(page) || gran < 0) {
			bad++;
			continue;
		}
		if (gran == PMD_SHIFT)
			c->pmd++;
		else if (gran == PAGE_SHIFT)
			c->pte++;
		else
			c->cont++;
		if (gran > PAGE_SHIFT) {
			unsigned long first = va & ~((1UL << gran) - 1), fpfn = 0;

			kpt_granule_at(first, &fpfn);
			if (pfn != fpfn + ((va - first) >> PAGE_SHIFT))
				bad++;
		}
		if (page_to_nid(page) < MAXNODES)
			c->node[page_to_nid(page)]++;
		*(unsigned long *)va = tag;
		if (*(unsigned long *)page_address(page) != tag)
			bad++;
		if (!(i % 64))
			cond_resched();
	}
	CHECK(!bad, "%s: %lu of %lu pages mapped wrongly", name, bad, n);
}

static const char *gfp_name(gfp_t gfp)
{
	return gfp & __GFP_THISNODE ? "KERNEL|THISNODE" : "KERNEL";
}

/*
 * One area: allocate, check every page, print what it is made of.
 * @want_gran: the granule every page must have (0: any); @all_on_node:
 * every page must be on @nid.
 */
static void one_case(const char *name, enum api api, size_t size, gfp_t gfp,
		     int want_gran, bool all_on_node)
{
	struct census c = {};
	char nodes[64] = "";
	void *p = NULL;
	int i, len = 0;

	switch (api) {
	case A_NODE:
		p = vmalloc_node(size, nid);
		break;
	case A_RANGE:
		p = vmalloc_range(size, 1, VMALLOC_START, VMALLOC_END, gfp, PAGE_KERNEL,
				  VM_ALLOW_HUGE_VMAP, nid, __builtin_return_address(0));
		break;
	case A_KVMALLOC:
		p = kvmalloc_node(size, gfp, nid);
		break;
	case A_ANY_NODE:
		p = vmalloc_huge(size, gfp);
		break;
	}
	CHECK(p, "%s size=%zu gfp=%s: allocation failed", name, size, gfp_name(gfp));
	if (!p)
		return;
	CHECK(is_vmalloc_addr(p), "%s: %px is not a vmalloc address", name, p);
	if (is_vmalloc_addr(p))
		census_area(name, p, size, &c);
	for (i = 0; i < nr_node_ids && i < MAXNODES; i++)
		len += scnprintf(nodes + len, sizeof(nodes) - len, "%s%lu", i ? "," : "",
				 c.node[i]);
	pr_info("%s size=%zu gfp=%s nodes=%s pmd=%lu cont=%lu pte=%lu\n",
		name, size, gfp_name(gfp), nodes, c.pmd, c.cont, c.pte);
	if (all_on_node)
		CHECK(c.node[nid] == size >> PAGE_SHIFT, "%s: %lu of %zu pages on node %d",
		      name, c.node[nid], size >> PAGE_SHIFT, nid);
	if (want_gran == PMD_SHIFT)
		CHECK(c.pmd == size >> PAGE_SHIFT, "%s: %lu of %zu pages in PMD blocks",
		      name, c.pmd, size >> PAGE_SHIFT);
	else if (want_gran == PAGE_SHIFT)
		CHECK(c.pte == size >> PAGE_SHIFT, "%s: %lu of %zu pages in 4K PTEs",
		      name, c.pte, size >> PAGE_SHIFT);
	else if (want_gran)
		CHECK(c.cont == size >> PAGE_SHIFT, "%s: %lu of %zu pages in contiguous PTEs",
		      name, c.cont, size >> PAGE_SHIFT);
	kvfree(p);
}

/* The granule a one-node guest maps a huge vmalloc() of @size with. */
static int huge_granule(size_t size)
{
	if (size >= PMD_SIZE && IS_ALIGNED(size, PMD_SIZE))
		return PMD_SHIFT;
#ifdef CONFIG_ARM64
	if (IS_ALIGNED(size, CONT_PTE_SIZE))
		return CONT_PTE_SHIFT;
#endif
	return PAGE_SHIFT;
}

/*
 * Smallest first: a PMD block's mask may wake kswapd and kcompactd on the
 * node, which then make free blocks on it while the cases below PMD size
 * run, and those take blocks only when free.
 */
static const size_t huge_sizes[] = { SZ_128K, SZ_1M, SZ_2M };

static int __init vmap_numa_init(void)
{
	struct kfrag *frag;
	unsigned long free_before, taken;
	unsigned int i;

	if (nid < 0 || nid >= MAXNODES || !node_online(nid) || num_online_nodes() < 2) {
		pr_err("FAIL not a NUMA guest: node %d %s, %u nodes online\n", nid,
		       nid >= 0 && nid < MAX_NUMNODES && node_online(nid) ? "online" : "offline",
		       num_online_nodes());
		pr_info("summary pass=0 fail=1\n");
		return -ENODEV;
	}
	vmalloc_range = ksym("__vmalloc_node_range_noprof");
	if (!vmalloc_range) {
		pr_err("FAIL no __vmalloc_node_range_noprof in kallsyms\n");
		pr_info("summary pass=0 fail=1\n");
		return -ENOENT;
	}
	for (i = 0; i < nr_node_ids && i < MAXNODES; i++)
		if (node_online(i))
			pr_info("node %u: %lu pages free\n", i, node_free_pages(i));

	one_case("free vmalloc_node", A_NODE, SZ_1M, GFP_KERNEL, PAGE_SHIFT, true);
	for (i = 0; i < ARRAY_SIZE(huge_sizes); i++)
		one_case("free huge", A_RANGE, huge_sizes[i], GFP_KERNEL,
			 huge_granule(huge_sizes[i]), true);
	one_case("free kvmalloc_node", A_KVMALLOC, 6 * SZ_1M, GFP_KERNEL, PMD_SHIFT, true);
	/* No node: the granule is chosen for the size per online node. */
	one_case("free vmalloc_huge", A_ANY_NODE, SZ_2M, GFP_KERNEL,
		 huge_granule(SZ_2M / num_online_nodes()), false);
	one_case("free vmalloc_huge", A_ANY_NODE, 2 * SZ_2M, GFP_KERNEL,
		 huge_granule(2 * SZ_2M / num_online_nodes()), false);

	frag = kmalloc(sizeof(*frag), GFP_KERNEL);
	if (!frag)
		return -ENOMEM;
	kfrag_init(frag);
	free_before = node_free_pages(nid);
	taken = kfrag_take_node(frag, 4, nid);
	pr_info("fragmented node %d: %lu blocks of order >= 4 taken, %lu of %lu pages still free\n",
		nid, taken, node_free_pages(nid), free_before);
	CHECK(taken, "no block of order >= 4 to take on node %d", nid);

	for (i = 0; i < ARRAY_SIZE(huge_sizes); i++) {
		/* What kfrag left or what was freed since: none of order 4. */
		kfrag_take_node(frag, 4, nid);
		one_case("fragmented huge", A_RANGE, huge_sizes[i], GFP_KERNEL | __GFP_THISNODE,
			 huge_sizes[i] < PMD_SIZE ? PAGE_SHIFT : 0, true);
		/*
		 * A node was named and the caller did not say __GFP_THISNODE:
		 * a block below PMD size comes from that node or not at all
		 * (remote memory for every access is not worth a TLB entry),
		 * and the order-0 pages prefer the node, which has them.  A
		 * PMD block may come from another node, as in 6.12.
		 */
		kfrag_take_node(frag, 4, nid);
		if (huge_sizes[i] < PMD_SIZE)
			one_case("fragmented huge", A_RANGE, huge_sizes[i], GFP_KERNEL,
				 PAGE_SHIFT, true);
		else
			one_case("fragmented huge", A_RANGE, huge_sizes[i], GFP_KERNEL, 0, false);
	}
	kfrag_take_node(frag, 4, nid);
	one_case("fragmented kvmalloc_node", A_KVMALLOC, 6 * SZ_1M, GFP_KERNEL | __GFP_THISNODE,
		 0, true);
	kfrag_take_node(frag, 4, nid);
	one_case("fragmented kvmalloc_node", A_KVMALLOC, 6 * SZ_1M, GFP_KERNEL, 0, false);
	kfrag_release(frag);
	kfree(frag);

	pr_info("summary pass=%u fail=%u\n", nr_pass, nr_fail);
	return nr_fail ? -EIO : -EAGAIN;
}
module_init(vmap_numa_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vmalloc()'s node handling on a NUMA guest");
