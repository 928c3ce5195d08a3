// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot_shapes: vmap() page arrays of known shape (snapshot_shapes.h)
 * and keep them mapped until the module is unloaded, for the snapshot's
 * potential test (tests/guest/snapshot/).  Each array is mapped from its
 * own noinline function, ss_<shape>(), so that /proc/vmallocinfo names a
 * caller per shape, and the audit has one row per shape.  For each shape
 * the module logs
 *
 *   snapshot_shapes: <shape> va=<area> pages=<n> runs=<i>:<pfn>+<len>,...
 *
 * with every physically contiguous run of at least 16 pages of the array
 * (index of its first page, its PFN in hex, its length): shorter runs hold
 * no block on either architecture.
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "snapshot_shapes.h"

#define SS_MAX_ALLOCS 64

struct ss_alloc {
	struct page *page;
	unsigned int order;
};

struct ss_shape {
	const char *name;
	struct ss_seg segs[SS_MAX_SEGS];
	struct page **pages;
	unsigned int n;
	void *addr;
	struct ss_alloc allocs[SS_MAX_ALLOCS];
	unsigned int nallocs;
};

#define SS_ENUM(id, ...) SS_##id,
enum { SNAPSHOT_SHAPES(SS_ENUM) SS_NR };

#define SS_INIT(id, ...) [SS_##id] = { .name = #id, .segs = { __VA_ARGS__ } },
static struct ss_shape shapes[SS_NR] = { SNAPSHOT_SHAPES(SS_INIT) };

/*
 * One mapping function per shape; each stores its result itself (a
 * "return vmap(...)" would be a tail call, and vmap() would record the
 * caller's caller), and each touches its own slot, so no two have the
 * same code to be folded into one.
 */
#define SS_FN(id, ...)								\
static noinline void ss_##id(void)						\
{										\
	shapes[SS_##id].addr = vmap(shapes[SS_##id].pages,			\
				    shapes[SS_##id].n, VM_MAP, PAGE_KERNEL);	\
}
SNAPSHOT_SHAPES(SS_FN)

#define SS_PTR(id, ...) [SS_##id] = ss_##id,
static void (*const ss_map[SS_NR])(void) = { SNAPSHOT_SHAPES(SS_PTR) };

/* A block of 1 << order pages, split so that its pages can be freed one by one. */
static struct page *ss_block(struct ss_shape *s, unsigned int order)
{
	struct page *p;

	if (s->nallocs == SS_MAX_ALLOCS)
		return NULL;
	p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	if (!p)
		return NULL;
	if (order)
		split_page(p, order);
	s->allocs[s->nallocs++] = (struct ss_alloc){ p, order };
	return p;
}

static int ss_add(struct ss_shape *s, const struct ss_seg *g)
{
	unsigned int block = 1U << g->order, take = g->take ? g->take : block - g->skip;
	struct page *b[SS_MAX_ALLOCS], *t, *p, *extra;
	unsigned int i, j, k;

	switch (g->kind) {
	case SS_BLOCKS:
		if (g->n > SS_MAX_ALLOCS)
			return -EINVAL;
		for (i = 0; i < g->n; i++) {
			b[i] = ss_block(s, g->order);
			if (!b[i])
				return -ENOMEM;
		}
		/* Descending physical order: no two blocks make one run by chance. */
		for (i = 1; i < g->n; i++)
			for (j = i; j > 0 && page_to_pfn(b[j - 1]) < page_to_pfn(b[j]); j--) {
				t = b[j];
				b[j] = b[j - 1];
				b[j - 1] = t;
			}
		for (i = 0; i < g->n; i++)
			for (j = 0; j < take; j++)
				s->pages[s->n++] = b[i] + g->skip + j;
		return 0;
	case SS_SCATTER:
		k = ss_scatter_order(g->n);
		p = ss_block(s, k);
		if (!p)
			return -ENOMEM;
		for (j = 0; j < g->n; j++)
			s->pages[s->n++] = p + (1U << k) - 1 - j;
		return 0;
	case SS_HOLE:
		p = ss_block(s, g->order);
		extra = ss_block(s, 0);
		if (!p || !extra)
			return -ENOMEM;
		for (j = 0; j < block; j++)
			s->pages[s->n++] = j == g->skip ? extra : p + j;
		return 0;
	}
	return -EINVAL;
}

static void ss_report(const struct ss_shape *s)
{
	char buf[640];
	size_t len = 0;
	unsigned int i = 0, j;

	buf[0] = 0;
	while (i < s->n) {
		unsigned long pfn = page_to_pfn(s->pages[i]);

		for (j = i + 1; j < s->n && page_to_pfn(s->pages[j]) == pfn + (j - i); j++)
			;
		if (j - i >= 16)
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%u:%lx+%u",
					 len ? "," : "", i, pfn, j - i);
		i = j;
	}
	pr_info("snapshot_shapes: %s va=%px pages=%u runs=%s\n", s->name, s->addr, s->n,
		len ? buf : "-");
}

static void ss_free(void)
{
	unsigned int i, j, k;

	for (i = 0; i < SS_NR; i++) {
		struct ss_shape *s = &shapes[i];

		if (s->addr)
			vunmap(s->addr);
		s->addr = NULL;
		for (j = 0; j < s->nallocs; j++)
			for (k = 0; k < (1U << s->allocs[j].order); k++)
				__free_page(s->allocs[j].page + k);
		s->nallocs = 0;
		kvfree(s->pages);
		s->pages = NULL;
		s->n = 0;
	}
}

static int __init ss_init(void)
{
	unsigned int i, j, n;
	int err;

	for (i = 0; i < SS_NR; i++) {
		struct ss_shape *s = &shapes[i];

		for (n = 0, j = 0; j < SS_MAX_SEGS && s->segs[j].kind != SS_END; j++)
			n += ss_seg_pages(&s->segs[j]);
		s->pages = kvmalloc_array(n, sizeof(*s->pages), GFP_KERNEL);
		err = -ENOMEM;
		if (!s->pages)
			goto fail;
		for (j = 0; j < SS_MAX_SEGS && s->segs[j].kind != SS_END; j++) {
			err = ss_add(s, &s->segs[j]);
			if (err)
				goto fail;
		}
		err = -EINVAL;
		if (WARN_ON(s->n != n))
			goto fail;
		ss_map[i]();
		err = -ENOMEM;
		if (!s->addr)
			goto fail;
	}
	for (i = 0; i < SS_NR; i++)
		ss_report(&shapes[i]);
	return 0;
fail:
	pr_err("snapshot_shapes: %s: %d\n", shapes[i].name, err);
	ss_free();
	return err;
}

static void __exit ss_exit(void)
{
	ss_free();
}

module_init(ss_init);
module_exit(ss_exit);
MODULE_DESCRIPTION("vmapscope: vmap() arrays of known shape for the snapshot potential test");
MODULE_LICENSE("GPL");
