/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page arrays of known shape for the snapshot's potential test: the
 * module snapshot_shapes vmap()s each of them (tests/guest/snapshot/), and
 * the unit test tests/unit/test_snapshot_potential.c builds the same
 * shapes from synthetic page frame numbers.  Plain C, no headers: it is
 * included by a kernel module and by a host program.
 *
 * A shape is a list of segments, appended to the array in order:
 *   SS_BLOCKS   n blocks of 1 << order pages (each physically contiguous
 *               and aligned to its size), pages [skip, skip + take) of each
 *               (take 0: to the end of the block); several blocks are put in
 *               descending physical order, so that two of them never form
 *               one longer run by chance;
 *   SS_SCATTER  n single pages that are never physically consecutive (the
 *               last n pages of one block of at least 16 pages, in reverse
 *               order; n >= 2);
 *   SS_HOLE     one block of 1 << order pages whose page skip is replaced
 *               by a page from elsewhere.
 * What is physically contiguous, and where, is then the same on every
 * boot up to the block addresses, so a stock and a patched kernel see
 * arrays of the same shape.
 */
#ifndef VMAPSCOPE_SNAPSHOT_SHAPES_H
#define VMAPSCOPE_SNAPSHOT_SHAPES_H

enum ss_kind {
	SS_END = 0,
	SS_BLOCKS,
	SS_SCATTER,
	SS_HOLE,
};

struct ss_seg {
	unsigned char kind;
	unsigned char order;
	unsigned short n;
	unsigned short skip;
	unsigned short take;
};

#define SS_MAX_SEGS 6

/*
 * X(name, segments...).  Comments: what the series maps on x86_64 /
 * arm64 (the test does not rely on these; it compares the two kernels).
 */
#define SNAPSHOT_SHAPES(X)							\
	/* 16M: all 2M PMDs on both */						\
	X(x8_o9, { SS_BLOCKS, 9, 8, 0, 0 })					\
	/* 6M of PMDs and a 4K tail */						\
	X(x3_o9_tail, { SS_BLOCKS, 9, 3, 0, 0 }, { SS_SCATTER, 0, 5, 0, 0 })	\
	/* 2.5M: 4K / all 64K cont */						\
	X(x20_o5, { SS_BLOCKS, 5, 20, 0, 0 })					\
	/* one page into an order-10 block: 4K on both */			\
	X(o10_skip1, { SS_BLOCKS, 10, 1, 1, 0 })				\
	/* 16 pages into it: 4K / all 64K cont */				\
	X(o10_skip16, { SS_BLOCKS, 10, 1, 16, 0 })				\
	/* pages 256..895 of it: 4K / all 64K cont */				\
	X(o10_mid, { SS_BLOCKS, 10, 1, 256, 640 })				\
	/* 2M PMD, 3 x 64K cont (arm64), then nothing on a block index */	\
	X(mixed, { SS_BLOCKS, 9, 1, 0, 0 }, { SS_BLOCKS, 4, 3, 0, 0 },		\
	  { SS_SCATTER, 0, 5, 0, 0 }, { SS_BLOCKS, 9, 1, 0, 0 },		\
	  { SS_BLOCKS, 5, 2, 0, 0 })						\
	/* an order-9 block at index 16 (arm64: 64K cont), one at 1024: PMD */	\
	X(late_2m, { SS_SCATTER, 0, 16, 0, 0 }, { SS_BLOCKS, 9, 1, 0, 0 },	\
	  { SS_SCATTER, 0, 496, 0, 0 }, { SS_BLOCKS, 9, 1, 0, 0 })		\
	/* an order-9 block with page 100 from elsewhere: 4K / 31 x 64K */	\
	X(hole, { SS_HOLE, 9, 1, 100, 0 })					\
	/* 8 order-3 blocks: nothing anywhere */				\
	X(x8_o3, { SS_BLOCKS, 3, 8, 0, 0 })					\
	/* 4M of PMDs and a 4K tail */						\
	X(o10_tail, { SS_BLOCKS, 10, 1, 0, 0 }, { SS_SCATTER, 0, 7, 0, 0 })

/* Pages a segment adds to the array. */
static inline unsigned int ss_seg_pages(const struct ss_seg *s)
{
	unsigned int block = 1U << s->order;

	switch (s->kind) {
	case SS_BLOCKS:
		return s->n * (s->take ? s->take : block - s->skip);
	case SS_SCATTER:
		return s->n;
	case SS_HOLE:
		return block;
	}
	return 0;
}

/* Order of the block SS_SCATTER takes its n pages from. */
static inline unsigned int ss_scatter_order(unsigned int n)
{
	unsigned int order = 4;

	while ((1U << order) < n)
		order++;
	return order;
}

#endif /* VMAPSCOPE_SNAPSHOT_SHAPES_H */
