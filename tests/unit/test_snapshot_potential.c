// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the snapshot's mapping potential: the per-PTE run
 * tracking and per-run arithmetic the BPF walker runs (snapshot_run_add(),
 * snapshot_run_potential(): plain C shared with it), checked against what
 * the series' vmap() does with the same page array, and how the figures
 * fold into rows and reach the JSON output on each arch.
 *
 * The series' side is a port of its vmap() mapping decisions
 * (kernel-patches/linux-6.12/0006: vmap_pages_align_shift(), the PMD
 * branch of the page-array walker, vmap_get_mapping_shift() and
 * vmap_small_run_end()) over arrays of page frame numbers, so that the
 * audit's prediction on a "stock" layout (every page a 4K PTE, the area
 * anywhere) can be compared with what that walker maps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include <json-c/json.h>

#include "snapshot.h"
#include "snapshot_pt.h"
#include "../kmod/snapshot_workload/snapshot_shapes.h"

#define K 1024ULL
#define M (1024 * K)
#define VA 0xffffc90000000000ULL	/* 1G-aligned */
#define PA 0x40000000ULL		/* 1G-aligned */

static const unsigned int X86 = SNAPSHOT_ARCH_X86_64, ARM = SNAPSHOT_ARCH_ARM64;

struct pot {
	__u64 v[SNAPSHOT_NR_POT];
};

/* One run of count bytes at VA va (base 0: in place) and PA pa. */
static struct pot run_at(unsigned int arch, __u64 base, __u64 va, __u64 pa, __u64 bytes,
			 int cont)
{
	struct snapshot_run r = { 0 };
	struct pot p = { { 0 } };
	__u64 i;

	for (i = 0; i < bytes >> 12; i++)
		snapshot_run_add(arch, &r, base, va + (i << 12), pa + (i << 12), cont, p.v);
	snapshot_run_end(arch, &r, p.v);
	return p;
}

static struct pot run(unsigned int arch, __u64 va, __u64 pa, __u64 bytes, int cont)
{
	return run_at(arch, 0, va, pa, bytes, cont);
}

static void assert_pot(struct pot p, __u64 c64k, __u64 c2m, __u64 mis)
{
	assert_int_equal(p.v[SNAPSHOT_POT_64K], c64k);
	assert_int_equal(p.v[SNAPSHOT_POT_2M], c2m);
	assert_int_equal(p.v[SNAPSHOT_POT_MISALIGNED], mis);
}

/* In place (base 0): blocks where VA and PA line up. */
static void test_x86_runs(void **state)
{
	/* A 2M block whose VA and PA are both 2M-aligned: one PMD in place. */
	assert_pot(run(X86, VA, PA, 2 * M, 0), 0, 2 * M, 0);
	/* Same memory one page into the VA: needs another placement. */
	assert_pot(run(X86, VA + 4 * K, PA, 2 * M, 0), 0, 0, 2 * M);
	/* Shorter than a block: nothing, whatever the alignment. */
	assert_pot(run(X86, VA + 4 * K, PA, 2 * M - 4 * K, 0), 0, 0, 0);
	assert_pot(run(X86, VA, PA, 2 * M - 4 * K, 0), 0, 0, 0);
	/* x86_64 has no 64K block: a 64K aligned run is no potential. */
	assert_pot(run(X86, VA, PA, 64 * K, 0), 0, 0, 0);
	/* Congruent but unaligned: only the whole 2M blocks inside count. */
	assert_pot(run(X86, VA + 4 * K, PA + 4 * K, 6 * M, 0), 0, 4 * M, 0);
	/* An order-10 block mapped from its second page: 4M - 4K misaligned. */
	assert_pot(run(X86, VA, PA + 4 * K, 4 * M - 4 * K, 0), 0, 0, 4 * M - 4 * K);
}

static void test_arm64_runs(void **state)
{
	assert_pot(run(ARM, VA, PA, 64 * K, 0), 64 * K, 0, 0);
	/* A whole 2M block counts as 2M, not as 32 x 64K as well. */
	assert_pot(run(ARM, VA, PA, 2 * M, 0), 0, 2 * M, 0);
	/* 2M + 5 x 64K + 3 pages after a 2M boundary. */
	assert_pot(run(ARM, VA, PA, 2 * M + 5 * 64 * K + 12 * K, 0), 5 * 64 * K, 2 * M, 0);
	/* Congruent modulo 64K only: 64K blocks, no PMD. */
	assert_pot(run(ARM, VA + 64 * K, PA, 2 * M, 0), 2 * M, 0, 0);
	/* Not congruent modulo 64K, at least 64K long: misaligned. */
	assert_pot(run(ARM, VA + 4 * K, PA, 64 * K, 0), 0, 0, 64 * K);
	assert_pot(run(ARM, VA + 4 * K, PA, 60 * K, 0), 0, 0, 0);
}

/*
 * Contiguous PTEs are blocks already, and where a PMD fits the series
 * uses one in the first place: no potential, whatever the alignment.
 */
static void test_cont_runs(void **state)
{
	assert_pot(run(ARM, VA, PA, 2 * M, 1), 0, 0, 0);
	assert_pot(run(ARM, VA, PA, 64 * K, 1), 0, 0, 0);
	assert_pot(run(ARM, VA + 64 * K, PA, 2 * M, 1), 0, 0, 0);
}

/*
 * A vmap() area (base = its first page): blocks count at offsets from the
 * area's start, wherever the stock kernel put it.
 */
static void test_runs_from_base(void **state)
{
	__u64 area = VA + 0x42000;	/* page-aligned only */

	/* An order-9 block vmap()ed at a page-aligned VA: one PMD with the series. */
	assert_pot(run_at(X86, area, area, PA, 2 * M, 0), 0, 2 * M, 0);
	assert_pot(run_at(ARM, area, area, PA, 2 * M + 128 * K + 8 * K, 0), 128 * K, 2 * M, 0);
	/* A second block at array index 512 counts too (not only the first run). */
	assert_pot(run_at(X86, area, area + 2 * M, PA + 8 * M, 2 * M, 0), 0, 2 * M, 0);
	/* ... but not at index 16: the series maps blocks at block-aligned indexes. */
	assert_pot(run_at(X86, area, area + 64 * K, PA + 8 * M, 2 * M, 0), 0, 0, 2 * M);
	assert_pot(run_at(ARM, area, area + 64 * K, PA + 8 * M, 2 * M, 0), 2 * M, 0, 0);
	/* Off a block boundary physically: no placement of the area helps. */
	assert_pot(run_at(X86, area, area, PA + 4 * K, 4 * M - 4 * K, 0), 0, 0, 4 * M - 4 * K);
	/* The VA lining up with the PA in place does not matter for vmap(). */
	assert_pot(run_at(ARM, VA + 4 * K, VA + 4 * K, PA + 4 * K, 4 * M - 4 * K, 0), 0, 0,
		   4 * M - 4 * K);
}

/* Runs: extended across PTE tables, cut by a PA jump or a change of kind. */
static void test_run_tracking(void **state)
{
	struct snapshot_run r = { 0 };
	struct pot p = { { 0 } };
	__u64 area = VA + 2 * M - 32 * K, i;

	/* 64 pages over a PTE-table boundary (VA + 2M), one run. */
	for (i = 0; i < 64; i++)
		snapshot_run_add(ARM, &r, area, area + i * 4 * K, PA + i * 4 * K, 0, p.v);
	assert_int_equal(r.pages, 64);
	assert_int_equal(r.off, 0);
	/* A resumed walk continues from the saved run (struct copy). */
	{
		struct snapshot_run saved = r;

		memset(&r, 0xff, sizeof(r));
		r = saved;
	}
	snapshot_run_add(ARM, &r, area, area + 64 * 4 * K, PA + 64 * 4 * K, 0, p.v);
	assert_int_equal(r.pages, 65);
	/* A PA jump closes it: 4 x 64K blocks at offsets 0..256K. */
	snapshot_run_add(ARM, &r, area, area + 65 * 4 * K, PA + 8 * M, 0, p.v);
	assert_pot(p, 256 * K, 0, 0);
	assert_int_equal(r.pages, 1);
	assert_int_equal(r.off, 65 * 4 * K);
	/* A contiguous PTE next to it starts another run. */
	snapshot_run_add(ARM, &r, area, area + 66 * 4 * K, PA + 8 * M + 4 * K, 1, p.v);
	assert_int_equal(r.pages, 1);
	assert_int_equal(r.cont, 1);
	snapshot_run_end(ARM, &r, p.v);
	assert_int_equal(r.pages, 0);
	assert_pot(p, 256 * K, 0, 0);
}

static void test_blocks_in(void **state)
{
	assert_int_equal(snapshot_blocks_in(VA, VA + 2 * M, 2 * M), 1);
	assert_int_equal(snapshot_blocks_in(VA + 4 * K, VA + 4 * M, 2 * M), 1);
	assert_int_equal(snapshot_blocks_in(VA + 4 * K, VA + 4 * M - 4 * K, 2 * M), 0);
	assert_int_equal(snapshot_blocks_in(VA, VA, 64 * K), 0);
	assert_int_equal(snapshot_blocks_in(0, 128 * K, 64 * K), 2);
}

/* ---- page arrays and the series' vmap() ------------------------------ */

#define MAX_PAGES 8192

struct array {
	__u64 pfn[MAX_PAGES];
	unsigned int n;
	__u64 next;		/* synthetic allocator: next block below this pfn */
};

/* A free block of 1 << order pages, aligned, below every earlier one, not adjacent. */
static __u64 alloc_block(struct array *a, unsigned int order)
{
	a->next = ((a->next - (1ULL << order)) & ~((1ULL << order) - 1));
	return a->next--;	/* and leave a gap page below it */
}

static void add_seg(struct array *a, const struct ss_seg *s)
{
	unsigned int block = 1U << s->order, i, j, k;
	unsigned int take = s->take ? s->take : block - s->skip;
	__u64 b;

	switch (s->kind) {
	case SS_BLOCKS:
		for (i = 0; i < s->n; i++) {
			b = alloc_block(a, s->order);
			for (j = 0; j < take; j++)
				a->pfn[a->n++] = b + s->skip + j;
		}
		break;
	case SS_SCATTER:
		k = ss_scatter_order(s->n);
		b = alloc_block(a, k);
		for (j = 0; j < s->n; j++)
			a->pfn[a->n++] = b + (1U << k) - 1 - j;
		break;
	case SS_HOLE:
		b = alloc_block(a, s->order);
		for (j = 0; j < block; j++)
			a->pfn[a->n++] = j == s->skip ? alloc_block(a, 0) : b + j;
		break;
	}
	assert_true(a->n <= MAX_PAGES);
}

static void build(struct array *a, const struct ss_seg *segs, unsigned int nsegs, __u64 top)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->next = top;
	for (i = 0; i < nsegs && segs[i].kind != SS_END; i++)
		add_seg(a, &segs[i]);
}

/* arch_vmap_pte_supported_shift(): arm64 contiguous PTEs, else PAGE_SHIFT. */
static unsigned int pte_supported_shift(unsigned int arch, __u64 size)
{
	return arch == SNAPSHOT_ARCH_ARM64 && size >= 64 * K ? 16 : 12;
}

static bool contiguous(const __u64 *p, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (p[i] != p[0] + i)
			return false;
	return true;
}

static unsigned int ffs_u64(__u64 v)
{
	return __builtin_ctzll(v);
}

static unsigned int ilog2_u(unsigned int v)
{
	return 31 - __builtin_clz(v);
}

/* vmap_pages_align_shift(), from max_shift = PMD_SHIFT (both lab arches). */
static unsigned int align_shift(unsigned int arch, const __u64 *p, unsigned int count)
{
	unsigned int i, step, shift = 21;

	while (shift > 12) {
		step = 1U << (shift - 12);
		for (i = 0; i + step <= count; i += step)
			if (!(p[i] & (step - 1)) && contiguous(p + i, step))
				return shift;
		shift = pte_supported_shift(arch, 1ULL << (shift - 1));
	}
	return 12;
}

/* vmap_small_run_end() */
static unsigned int small_run_end(unsigned int arch, unsigned int idx, unsigned int count,
				  unsigned int max_shift)
{
	unsigned int shift;
	__u64 next;

	if (max_shift == 12)
		return count;
	shift = pte_supported_shift(arch, 2 * M);
	if (shift == 12)
		shift = max_shift;
	next = ((__u64)idx + 1 + (1ULL << (shift - 12)) - 1) & ~((1ULL << (shift - 12)) - 1);
	return count < next ? count : next;
}

/* vmap_order_shift() */
static unsigned int order_shift(unsigned int arch, unsigned int order)
{
	if (order + 12 >= 21)
		return 21;
	return pte_supported_shift(arch, 1ULL << (order + 12));
}

/* vmap_get_mapping_shift(): p is the array from page idx on, nr pages left in the table. */
static unsigned int mapping_shift(unsigned int arch, const __u64 *p, unsigned int idx,
				  unsigned int nr, unsigned int max_shift, unsigned int *nr_pages)
{
	unsigned int order = max_shift - 12, shift;

	*nr_pages = small_run_end(arch, idx, idx + nr, max_shift) - idx;
	if (!order)
		return 12;
	if (p[0] && ffs_u64(p[0]) < order)
		order = ffs_u64(p[0]);
	if (idx && ffs_u64(idx) < order)
		order = ffs_u64(idx);
	if (ilog2_u(nr) < order)
		order = ilog2_u(nr);
	for (; order; order--) {
		shift = order_shift(arch, order);
		if (shift == 12)
			break;
		if (contiguous(p, 1U << order)) {
			*nr_pages = 1U << order;
			return shift;
		}
	}
	return 12;
}

/* How one page ends up mapped. */
enum { MAP_PTE = 0, MAP_CONT, MAP_PMD };

struct mapping {
	__u64 base;			/* the area's first page */
	unsigned int max_shift;		/* its alignment */
	unsigned char kind[MAX_PAGES];
	__u64 bytes[VMAPSCOPE_NR_SHIFTS];
};

/*
 * The series' vmap() of a: alignment from the array, then one walk over
 * the PMD ranges: a PMD where a whole PMD range starts an aligned,
 * contiguous 512-page run, else the PTE-level chunk loop.
 */
static void series_vmap(unsigned int arch, const struct array *a, __u64 hint, struct mapping *m)
{
	__u64 addr, end, next, pte_addr;
	unsigned int nr = 0, np, shift, i;

	memset(m, 0, sizeof(*m));
	m->max_shift = align_shift(arch, a->pfn, a->n);
	m->base = (hint + (1ULL << m->max_shift) - 1) & ~((1ULL << m->max_shift) - 1);
	addr = m->base;
	end = m->base + ((__u64)a->n << 12);
	while (addr != end) {
		next = (addr | (2 * M - 1)) + 1;
		if (next > end)
			next = end;
		if (m->max_shift >= 21 && next - addr == 2 * M && !(a->pfn[nr] & 511) &&
		    contiguous(a->pfn + nr, 512)) {
			for (i = 0; i < 512; i++)
				m->kind[nr + i] = MAP_PMD;
			m->bytes[21] += 2 * M;
			nr += 512;
			addr = next;
			continue;
		}
		for (pte_addr = addr; pte_addr != next; pte_addr += (__u64)np << 12) {
			if (m->max_shift == 12) {
				shift = 12;
				np = (next - pte_addr) >> 12;
			} else {
				shift = mapping_shift(arch, a->pfn + nr, nr, (next - pte_addr) >> 12,
						      m->max_shift, &np);
			}
			assert_true(np > 0);
			for (i = 0; i < np; i++)
				m->kind[nr + i] = shift == 12 ? MAP_PTE : shift == 16 ? MAP_CONT : MAP_PMD;
			m->bytes[shift] += (__u64)np << 12;
			nr += np;
		}
		addr = next;
	}
	assert_int_equal(nr, a->n);
}

/*
 * The audit of a vmap() area at va holding a, mapped as m says (NULL:
 * stock, every page a 4K PTE): the walker's per-PTE step over the area's
 * PTEs, the run carried from one PTE table to the next; PMD leaves are
 * counted at their level and never reach the run (the next PTE after one
 * does not continue it).
 */
static void audit(unsigned int arch, const struct array *a, __u64 va, const struct mapping *m,
		  __u64 bytes[VMAPSCOPE_NR_SHIFTS], struct pot *p)
{
	struct snapshot_run r = { 0 };
	unsigned int i;

	memset(bytes, 0, VMAPSCOPE_NR_SHIFTS * sizeof(*bytes));
	memset(p, 0, sizeof(*p));
	for (i = 0; i < a->n; i++) {
		__u64 at = va + ((__u64)i << 12);
		int kind = m ? m->kind[i] : MAP_PTE;

		if (kind == MAP_PMD) {
			bytes[21] += 4 * K;
			continue;
		}
		bytes[kind == MAP_CONT ? 16 : 12] += 4 * K;
		snapshot_run_add(arch, &r, va, at, a->pfn[i] << 12, kind == MAP_CONT, p->v);
	}
	snapshot_run_end(arch, &r, p->v);
}

static __u64 shape_pages(const struct ss_seg *segs, unsigned int nsegs)
{
	unsigned int i;
	__u64 n = 0;

	for (i = 0; i < nsegs && segs[i].kind != SS_END; i++)
		n += ss_seg_pages(&segs[i]);
	return n;
}

/* snapshot_predicted() on the walker's __u64 counters. */
static void predicted_of(const __u64 *bytes, const __u64 *pot, uint64_t out[VMAPSCOPE_NR_SHIFTS])
{
	uint64_t b[VMAPSCOPE_NR_SHIFTS], p[SNAPSHOT_NR_POT];
	unsigned int i;

	for (i = 0; i < VMAPSCOPE_NR_SHIFTS; i++)
		b[i] = bytes[i];
	for (i = 0; i < SNAPSHOT_NR_POT; i++)
		p[i] = pot[i];
	snapshot_predicted(b, p, out);
}

/* The stock prediction for a at a stock area va, per mapping shift. */
static void predict(unsigned int arch, const struct array *a, __u64 va,
		    uint64_t out[VMAPSCOPE_NR_SHIFTS], struct pot *p)
{
	__u64 bytes[VMAPSCOPE_NR_SHIFTS];

	audit(arch, a, va, NULL, bytes, p);
	assert_int_equal(bytes[12], (__u64)a->n << 12);
	predicted_of(bytes, p->v, out);
}

struct shape {
	const char *name;
	struct ss_seg segs[SS_MAX_SEGS];
};

#define SHAPE_ENTRY(name, ...) { #name, { __VA_ARGS__ } },
static const struct shape shapes[] = { SNAPSHOT_SHAPES(SHAPE_ENTRY) };
#define NR_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static const struct shape *shape(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SHAPES; i++)
		if (!strcmp(shapes[i].name, name))
			return &shapes[i];
	fail_msg("no shape %s", name);
	return NULL;
}

static struct array arr;
static struct mapping map;

/* Stock areas: page-aligned anywhere, including across PTE tables. */
static const __u64 stock_offsets[] = {
	0, 4 * K, 60 * K, 64 * K, 68 * K, 1 * M + 4 * K, 2 * M - 4 * K, 2 * M - 64 * K,
	0x3ff000, 0x7a5000, 0x1234000,
};

/*
 * The property: for every shape, arch and stock placement, the bytes per
 * granule the audit predicts on the stock layout are the bytes per granule
 * the series' vmap() maps; and on the patched layout the audit measures
 * those bytes and finds no potential left.
 */
static void test_shapes_predict_the_series(void **state)
{
	static const unsigned int arches[] = { SNAPSHOT_ARCH_X86_64, SNAPSHOT_ARCH_ARM64 };
	uint64_t pred[VMAPSCOPE_NR_SHIFTS];
	__u64 walked[VMAPSCOPE_NR_SHIFTS];
	struct pot p;
	size_t s, ai, o;
	unsigned int sh;

	for (s = 0; s < NR_SHAPES; s++) {
		for (ai = 0; ai < 2; ai++) {
			unsigned int arch = arches[ai];

			build(&arr, shapes[s].segs, SS_MAX_SEGS, 1ULL << 24);
			assert_int_equal(arr.n, shape_pages(shapes[s].segs, SS_MAX_SEGS));
			series_vmap(arch, &arr, VA + 0x10000000, &map);
			for (o = 0; o < sizeof(stock_offsets) / sizeof(stock_offsets[0]); o++) {
				predict(arch, &arr, VA + 0x20000000 + stock_offsets[o], pred, &p);
				for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++)
					if (pred[sh] != map.bytes[sh])
						fail_msg("%s on %s, stock area at +0x%llx: predicted %llu bytes at shift %u, the series maps %llu",
							 shapes[s].name, arch == X86 ? "x86_64" : "arm64",
							 (unsigned long long)stock_offsets[o],
							 (unsigned long long)pred[sh], sh,
							 (unsigned long long)map.bytes[sh]);
			}
			audit(arch, &arr, map.base, &map, walked, &p);
			assert_memory_equal(walked, map.bytes, sizeof(walked));
			assert_int_equal(p.v[SNAPSHOT_POT_64K], 0);
			assert_int_equal(p.v[SNAPSHOT_POT_2M], 0);
		}
	}
}

/* Predicted KiB per granule of a shape at a stock area. */
struct want {
	__u64 k4, k64, m2, mis;
};

static void assert_shape(unsigned int arch, const char *name, __u64 off, struct want w)
{
	const struct shape *sh = shape(name);
	uint64_t pred[VMAPSCOPE_NR_SHIFTS];
	struct pot p;

	build(&arr, sh->segs, SS_MAX_SEGS, 1ULL << 24);
	predict(arch, &arr, VA + off, pred, &p);
	if (pred[12] != w.k4 * K || pred[16] != w.k64 * K || pred[21] != w.m2 * K ||
	    p.v[SNAPSHOT_POT_MISALIGNED] != w.mis * K)
		fail_msg("%s on %s at +0x%llx: 4K %llu, 64K %llu, 2M %llu KiB, misaligned %llu; want %llu %llu %llu %llu",
			 name, arch == X86 ? "x86_64" : "arm64", (unsigned long long)off,
			 (unsigned long long)(pred[12] / K), (unsigned long long)(pred[16] / K),
			 (unsigned long long)(pred[21] / K),
			 (unsigned long long)(p.v[SNAPSHOT_POT_MISALIGNED] / K),
			 (unsigned long long)w.k4, (unsigned long long)w.k64,
			 (unsigned long long)w.m2, (unsigned long long)w.mis);
}

/*
 * What each shape comes to, worked out by hand from the series' rules
 * (blocks at block-aligned array indexes on block-aligned, contiguous
 * pages), at stock placements the old per-area-start model got wrong:
 * 8 and 3 order-9 pages (it counted the first 2M only), 8 order-9 pages
 * at a 64K-aligned VA on arm64 (it counted 64K blocks in place), 20
 * order-5 pages (it counted the first 128K only).
 */
static void test_shape_figures(void **state)
{
	/* x86_64: 2M only. */
	assert_shape(X86, "x8_o9", 0x1234000, (struct want){ 0, 0, 16 * 1024, 0 });
	assert_shape(X86, "x3_o9_tail", 0x1234000, (struct want){ 20, 0, 6 * 1024, 0 });
	assert_shape(X86, "x20_o5", 0x1234000, (struct want){ 2560, 0, 0, 0 });
	assert_shape(X86, "o10_skip1", 4 * K, (struct want){ 4092, 0, 0, 4092 });
	assert_shape(X86, "o10_skip16", 0, (struct want){ 4032, 0, 0, 4032 });
	assert_shape(X86, "o10_mid", 0, (struct want){ 2560, 0, 0, 2560 });
	assert_shape(X86, "mixed", 0x7000, (struct want){ 192 + 20 + 2048 + 256, 0, 2048, 2048 });
	assert_shape(X86, "late_2m", 0x7000, (struct want){ 64 + 2048 + 1984, 0, 2048, 2048 });
	assert_shape(X86, "hole", 0x7000, (struct want){ 2048, 0, 0, 0 });
	assert_shape(X86, "x8_o3", 0x7000, (struct want){ 256, 0, 0, 0 });
	assert_shape(X86, "o10_tail", 0x7000, (struct want){ 28, 0, 4096, 0 });
	/* arm64: 2M and 64K. */
	assert_shape(ARM, "x8_o9", 0x1230000, (struct want){ 0, 0, 16 * 1024, 0 });
	assert_shape(ARM, "x8_o9", 0x1234000, (struct want){ 0, 0, 16 * 1024, 0 });
	assert_shape(ARM, "x3_o9_tail", 0x1234000, (struct want){ 20, 0, 6 * 1024, 0 });
	assert_shape(ARM, "x20_o5", 0x1234000, (struct want){ 0, 2560, 0, 0 });
	assert_shape(ARM, "x20_o5", 0x1f000, (struct want){ 0, 2560, 0, 0 });
	assert_shape(ARM, "o10_skip1", 4 * K, (struct want){ 4092, 0, 0, 4092 });
	assert_shape(ARM, "o10_skip16", 0, (struct want){ 0, 4032, 0, 0 });
	assert_shape(ARM, "o10_mid", 0x3000, (struct want){ 0, 2560, 0, 0 });
	/* 2M PMD, 3 x 64K, then an order-9 and two order-5 blocks off every index. */
	assert_shape(ARM, "mixed", 0x7000, (struct want){ 20 + 2048 + 256, 192, 2048,
							   2048 + 256 });
	assert_shape(ARM, "late_2m", 0x7000, (struct want){ 64 + 1984, 2048, 2048, 0 });
	assert_shape(ARM, "hole", 0x7000, (struct want){ 64, 1984, 0, 0 });
	assert_shape(ARM, "x8_o3", 0x7000, (struct want){ 256, 0, 0, 0 });
	assert_shape(ARM, "o10_tail", 0x7000, (struct want){ 28, 0, 4096, 0 });
}

/* The series' side on its own: the area alignment it picks from the array. */
static void test_series_alignment(void **state)
{
	build(&arr, shape("late_2m")->segs, SS_MAX_SEGS, 1ULL << 24);
	assert_int_equal(align_shift(X86, arr.pfn, arr.n), 21);
	build(&arr, shape("x20_o5")->segs, SS_MAX_SEGS, 1ULL << 24);
	assert_int_equal(align_shift(X86, arr.pfn, arr.n), 12);
	assert_int_equal(align_shift(ARM, arr.pfn, arr.n), 16);
	build(&arr, shape("o10_skip1")->segs, SS_MAX_SEGS, 1ULL << 24);
	assert_int_equal(align_shift(ARM, arr.pfn, arr.n), 12);
	series_vmap(ARM, &arr, VA + 4 * K, &map);
	assert_int_equal(map.base, VA + 4 * K);
	assert_int_equal(map.bytes[12], 4092 * K);
}

/* ---- rows and output -------------------------------------------------- */

/* Two areas of one caller: potential adds up per row, per API and total. */
static void fold(struct snapshot *s, struct snapshot_areas *areas, const char *arch)
{
	static const char *const lines[] = {
		"0xffffc90000200000-0xffffc90000401000 2101248 m_map+0x1c/0x40 [m] pages=512 vmap",
		"0xffffc90000800000-0xffffc90000811000   69632 m_map+0x1c/0x40 [m] pages=16 vmap",
	};
	struct snapshot_area_result res[2];
	struct snapshot_opts o = { 0 };
	size_t i;

	memset(areas, 0, sizeof(*areas));
	areas->v = calloc(2, sizeof(*areas->v));
	assert_non_null(areas->v);
	for (i = 0; i < 2; i++)
		assert_int_equal(vmallocinfo_parse_line(lines[i], &areas->v[areas->n++]), 0);
	memset(res, 0, sizeof(res));
	res[0].bytes[12] = 2 * M;
	res[0].potential[SNAPSHOT_POT_2M] = 2 * M;
	res[1].bytes[12] = 72 * K;
	res[1].potential[SNAPSHOT_POT_64K] = 64 * K;
	res[1].potential[SNAPSHOT_POT_MISALIGNED] = 8 * K;
	memset(s, 0, sizeof(*s));
	assert_int_equal(snapshot_fold(areas, res, &o, s), 0);
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
}

static json_object *json_of(const struct snapshot *s, bool per_caller)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *o;

	assert_non_null(f);
	assert_int_equal(snapshot_print_json(f, s, per_caller), 0);
	fclose(f);
	o = json_tokener_parse(buf);
	free(buf);
	assert_non_null(o);
	return o;
}

static __u64 key_of(json_object *row, const char *obj, const char *key, bool *present)
{
	json_object *p, *v;

	assert_true(json_object_object_get_ex(row, obj, &p));
	*present = json_object_object_get_ex(p, key, &v);
	return *present ? json_object_get_int64(v) : 0;
}

static __u64 pot_of(json_object *row, const char *key, bool *present)
{
	return key_of(row, "potential", key, present);
}

static void test_fold_and_json(void **state)
{
	struct snapshot s;
	struct snapshot_areas areas;
	json_object *j, *rows, *row;
	bool present;

	fold(&s, &areas, "arm64");
	assert_int_equal(s.nr_rows, 1);
	assert_int_equal(s.rows[0].potential[SNAPSHOT_POT_2M], 2 * M);
	assert_int_equal(s.rows[0].potential[SNAPSHOT_POT_64K], 64 * K);
	assert_int_equal(s.total.potential[SNAPSHOT_POT_MISALIGNED], 8 * K);
	j = json_of(&s, true);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	row = json_object_array_get_idx(rows, 0);
	assert_int_equal(pot_of(row, "could_2M", &present), 2 * M);
	assert_int_equal(pot_of(row, "could_64K", &present), 64 * K);
	assert_true(present);
	assert_int_equal(pot_of(row, "misaligned", &present), 8 * K);
	pot_of(row, "realign", &present);
	assert_false(present);
	/* With the series: 2M PMD 2M, 64K cont 64K, 4K what is left (8K). */
	assert_int_equal(key_of(row, "predicted", "2M PMD", &present), 2 * M);
	assert_int_equal(key_of(row, "predicted", "64K cont", &present), 64 * K);
	assert_int_equal(key_of(row, "predicted", "4K", &present), 8 * K);
	assert_int_equal(key_of(row, "bytes", "4K", &present), 2 * M + 72 * K);
	json_object_put(j);
	/* Per-API view carries the same sums. */
	j = json_of(&s, false);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	assert_int_equal(pot_of(json_object_array_get_idx(rows, 0), "could_2M", &present), 2 * M);
	assert_int_equal(key_of(json_object_array_get_idx(rows, 0), "predicted", "4K", &present),
			 8 * K);
	json_object_put(j);
	snapshot_free(&s);
	snapshot_areas_free(&areas);

	/* x86_64 has no 64K block: no could_64K key at all, no 64K granule. */
	fold(&s, &areas, "x86_64");
	j = json_of(&s, true);
	assert_true(json_object_object_get_ex(j, "total", &row));
	pot_of(row, "could_64K", &present);
	assert_false(present);
	assert_int_equal(pot_of(row, "could_2M", &present), 2 * M);
	key_of(row, "predicted", "64K cont", &present);
	assert_false(present);
	json_object_put(j);
	snapshot_free(&s);
	snapshot_areas_free(&areas);
}

static void test_predicted(void **state)
{
	uint64_t bytes[VMAPSCOPE_NR_SHIFTS] = { 0 }, pot[SNAPSHOT_NR_POT] = { 0 };
	uint64_t out[VMAPSCOPE_NR_SHIFTS];

	bytes[12] = 5 * M;
	bytes[16] = 64 * K;
	bytes[21] = 2 * M;
	pot[SNAPSHOT_POT_2M] = 2 * M;
	pot[SNAPSHOT_POT_64K] = 128 * K;
	pot[SNAPSHOT_POT_MISALIGNED] = 1 * M;
	snapshot_predicted(bytes, pot, out);
	assert_int_equal(out[12], 5 * M - 2 * M - 128 * K);
	assert_int_equal(out[16], 64 * K + 128 * K);
	assert_int_equal(out[21], 4 * M);
	assert_int_equal(out[30], 0);
}

/*
 * Plain vmalloc() keeps order-0 pages at 4K PTEs with the series however
 * they lie: its potential is reported, its prediction is what it maps now.
 * Beside a vmap() area of the same memory shape, only the vmap() row and
 * the total's vmap() part move.
 */
static void test_predicted_by_api(void **state)
{
	static const char *const lines[] = {
		"0xffffc90000200000-0xffffc90000401000 2101248 m_map+0x1c/0x40 [m] pages=512 vmap",
		"0xffffc90000600000-0xffffc90000801000 2101248 m_alloc+0x1c/0x40 [m] pages=512 vmalloc user",
		"0xffffc90000a00000-0xffffc90000c01000 2101248 m_io+0x1c/0x40 [m] ioremap",
	};
	struct snapshot_area_result res[3];
	struct snapshot_opts o = { 0 };
	struct snapshot_areas areas;
	struct snapshot s;
	json_object *j, *rows, *row, *api;
	bool present;
	size_t i, seen = 0;

	memset(&areas, 0, sizeof(areas));
	areas.v = calloc(3, sizeof(*areas.v));
	assert_non_null(areas.v);
	for (i = 0; i < 3; i++)
		assert_int_equal(vmallocinfo_parse_line(lines[i], &areas.v[areas.n++]), 0);
	memset(res, 0, sizeof(res));
	for (i = 0; i < 3; i++) {
		res[i].bytes[12] = 2 * M;
		res[i].potential[SNAPSHOT_POT_2M] = 2 * M;
	}
	memset(&s, 0, sizeof(s));
	assert_int_equal(snapshot_fold(&areas, res, &o, &s), 0);
	snprintf(s.arch, sizeof(s.arch), "x86_64");
	assert_true(snapshot_api_follows_contiguity(VMAPSCOPE_API_VMAP));
	assert_true(snapshot_api_follows_contiguity(VMAPSCOPE_API_IOREMAP));
	assert_false(snapshot_api_follows_contiguity(VMAPSCOPE_API_VMALLOC));
	assert_false(snapshot_api_follows_contiguity(VMAPSCOPE_API_VM_MAP_RAM));
	assert_false(snapshot_api_follows_contiguity(VMAPSCOPE_API_OTHER));

	j = json_of(&s, true);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	for (i = 0; i < json_object_array_length(rows); i++) {
		row = json_object_array_get_idx(rows, i);
		assert_true(json_object_object_get_ex(row, "api", &api));
		/* Every row keeps its potential: what the memory would allow. */
		assert_int_equal(pot_of(row, "could_2M", &present), 2 * M);
		if (!strcmp(json_object_get_string(api), "vmalloc")) {
			assert_int_equal(key_of(row, "predicted", "4K", &present), 2 * M);
			assert_int_equal(key_of(row, "predicted", "2M PMD", &present), 0);
		} else {
			assert_int_equal(key_of(row, "predicted", "4K", &present), 0);
			assert_int_equal(key_of(row, "predicted", "2M PMD", &present), 2 * M);
		}
		seen++;
	}
	assert_int_equal(seen, 3);
	assert_true(json_object_object_get_ex(j, "total", &row));
	assert_int_equal(key_of(row, "predicted", "4K", &present), 2 * M);
	assert_int_equal(key_of(row, "predicted", "2M PMD", &present), 4 * M);
	json_object_put(j);
	/* The per-API view sums the same predictions. */
	j = json_of(&s, false);
	assert_true(json_object_object_get_ex(j, "total", &row));
	assert_int_equal(key_of(row, "predicted", "2M PMD", &present), 4 * M);
	json_object_put(j);
	snapshot_free(&s);
	snapshot_areas_free(&areas);
}

/* vmap() areas are judged from their first page, the others in place. */
static void test_area_base(void **state)
{
	struct snapshot_area a;

	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000203000-0xffffc90000404000 2101248 m_map+0x1c/0x40 [m] pages=512 vmap",
		&a), 0);
	assert_int_equal(snapshot_area_base(&a), 0xffffc90000203000ULL);
	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000203000-0xffffc90000404000 2101248 m_alloc+0x1c/0x40 [m] pages=512 vmalloc",
		&a), 0);
	assert_int_equal(snapshot_area_base(&a), 0);
	assert_int_equal(vmallocinfo_parse_line(
		"0xffffc90000400000-0xffffc90000801000 4198400 m_io+0x18/0x30 [m] phys=0x0000000080000000 ioremap",
		&a), 0);
	assert_int_equal(snapshot_area_base(&a), 0);
}

static void test_names(void **state)
{
	assert_string_equal(snapshot_potential_name(SNAPSHOT_POT_64K), "could_64K");
	assert_string_equal(snapshot_potential_name(SNAPSHOT_POT_2M), "could_2M");
	assert_string_equal(snapshot_potential_name(SNAPSHOT_POT_MISALIGNED), "misaligned");
	assert_int_equal(SNAPSHOT_NR_POT, 3);
	assert_int_equal(snapshot_potential_shift(SNAPSHOT_POT_64K), 16);
	assert_int_equal(snapshot_potential_shift(SNAPSHOT_POT_2M), 21);
	assert_int_equal(snapshot_potential_shift(SNAPSHOT_POT_MISALIGNED), 0);
	assert_true(snapshot_potential_applies("arm64", SNAPSHOT_POT_64K));
	assert_false(snapshot_potential_applies("x86_64", SNAPSHOT_POT_64K));
	assert_true(snapshot_potential_applies("x86_64", SNAPSHOT_POT_MISALIGNED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_runs),
		cmocka_unit_test(test_arm64_runs),
		cmocka_unit_test(test_cont_runs),
		cmocka_unit_test(test_runs_from_base),
		cmocka_unit_test(test_run_tracking),
		cmocka_unit_test(test_blocks_in),
		cmocka_unit_test(test_series_alignment),
		cmocka_unit_test(test_shape_figures),
		cmocka_unit_test(test_shapes_predict_the_series),
		cmocka_unit_test(test_fold_and_json),
		cmocka_unit_test(test_predicted),
		cmocka_unit_test(test_predicted_by_api),
		cmocka_unit_test(test_area_base),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
