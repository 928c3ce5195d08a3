// SPDX-License-Identifier: GPL-2.0
/*
 * vmap_test - in-kernel checks of the vmapscope Linux 6.12 series.
 *
 * patches=N (default 15, the whole series): the kernel carries patches
 *	1..N of kernel-patches/linux-6.12/series, 0 being stock 6.12.  Every
 *	check asserts what such a kernel must do: the series' behaviour from
 *	the patch that introduces it on, stock 6.12's below it (the table
 *	"feature" below names the patch of each behaviour).  A check that
 *	cannot run on the prefix (what it counts does not exist yet) prints
 *	"skipped: ..." with the reason; the functions the series adds
 *	(vmap_small_run_end(), vmap_pages_range_noflush_walk(), ...) are
 *	found through kallsyms, never linked, so the module loads on every
 *	prefix, and must exist from their patch on and not before.
 *	map.sh and misuse.sh pass patches=$VMAP_PATCHES when it is set.
 *
 * nohuge=1: the kernel was booted with "nohugevmalloc" (map.sh passes it
 *	when /proc/cmdline has it): mode=map and mode=nofree expect vmap(),
 *	vmalloc_huge() and kvmalloc()'s fallback with 4K PTEs only, in
 *	order-0 pages (the vfree() cases, which need blocks, are skipped).
 *
 * mode=map (default): vmap() of pages of orders 0..10, compound and split,
 *	PFN-aligned and deliberately misaligned, and mixed arrays; vmalloc()
 *	and vmalloc_huge(); vm_map_ram().  For every mapping:
 *	- vmalloc_to_page() of every page is the page that was mapped;
 *	- a pattern written through the mapping reads back through the linear
 *	  map, and the other way round;
 *	- the granule the kernel page tables hold for every page (4K PTE,
 *	  arm64 contiguous PTE, PMD) is the one the case expects, and the area
 *	  is aligned for it (vmap(): 4K PTEs in a page-aligned area below
 *	  patch 7; vmalloc_huge() below 2M: 4K PTEs on arm64 below patch 5);
 *	- after vunmap() every page is unmapped;
 *	- with events=1 (default; from patch 8, which adds the tracepoints:
 *	  below it they must not exist and no event is checked), the
 *	  vmalloc:vmap_set_ptes, vmap_huge_block and vmap_mapped events the
 *	  call produced in this task are exactly the expected ones (count,
 *	  order, addresses, PFNs, sizes, shifts; vmap_mapped, one per call and
 *	  after the runs and blocks: the call's range, api, caller inside this
 *	  module, the bytes per granule and runs of the expected granules,
 *	  result 0; its time is not checked here: the x86_64 debug kernel's
 *	  sched clock ticks in jiffies, tracefs.sh checks it on the patched
 *	  ones); and vmap_mapped's bytes per granule are those a walk of the
 *	  page tables finds in its range;
 *	- a vmap() is one page-table walk whatever the mix of granules (an
 *	  array of a PMD block then 16 contiguous and 16 scattered pages in
 *	  turn included): a kprobe counts the walker's calls
 *	  (vmap_pages_range_noflush_walk(), patch 6; below it stock's
 *	  vmap_small_pages_range_noflush()).
 *	A vmap() of an order-9 page while alloc_vmap_area() refuses every
 *	request aligned above PAGE_SIZE (a kprobe narrows its range): it
 *	succeeds with 4K PTEs (patch 7 asks for a 2M-aligned area once).
 *	Also: the arithmetic of vmap_small_run_end() at the 32-bit limits
 *	(patch 7); the area size and page order that vmalloc_huge() and
 *	kvmalloc()'s vmalloc fallback get for 68K and 128K (the arm64
 *	contiguous-PTE size policy, patch 5); on arm64, the barrier pairs
 *	(vmap_pte_range_publish() calls, patch 9, counted with a kprobe) of
 *	a vmap() of 100 MiB of order-4 pages: one per PTE table.
 *	And: vfree() of vmalloc_huge() areas gives every block of the area's
 *	page order back to the page allocator whole (patch 11; below it every
 *	page on its own; a kprobe on free_unref_page() counts the calls and
 *	their orders), and page by page a block with a page still referenced
 *	elsewhere, a block with a page that memory_failure() poisoned
 *	(CONFIG_MEMORY_FAILURE: the page stays out of the allocator), every
 *	block of an area charged to the memory cgroup of the loading task
 *	(CONFIG_MEMCG: the pages are charged, the cgroup's usage goes back;
 *	skipped unless the task is in a cgroup below the root, where map.sh
 *	puts it), and every block when allocation profiling is on;
 *	page_owner=on changes nothing.  A case whose kernel option is not set
 *	prints "skipped: ...".
 * mode=vfree: those vfree() cases alone.
 * mode=ioremap: the same for ioremap() of BAR2 of a QEMU ivshmem-plain
 *	device (1af4:1110): the whole BAR (PMD blocks, stock included), and a
 *	1M window 64K-aligned in it (arm64: contiguous PTEs from patch 3).
 * mode=misuse: misuses of the internal mapping API, in a guest run that
 *	expects warnings (lab run --expect-warn).  Each step prints
 *	"vmap_test: step NAME expect-warn N" before and "vmap_test: step
 *	NAME end" after, N being the count for this prefix of the series,
 *	and the guest script counts the WARNINGs in between; a step that
 *	cannot run on the prefix prints "vmap_test: step NAME skipped: ..."
 *	instead:
 *	- cut-block: vunmap_range() of the middle of a vmalloc_huge(128K)
 *	  (two 64K contiguous-PTE blocks on arm64 from patch 5) clears both
 *	  blocks whole, leaving no valid PTE_CONT entry next to an invalid
 *	  one, and warns once; with 4K PTEs (x86_64, arm64 below patch 5) it
 *	  is a plain partial unmap, no warning;
 *	- busy-block: vmap_page_range() of a 64K-aligned 64K block over a
 *	  range whose third page is mapped fails with -EBUSY, warns once and
 *	  leaves that page mapped as it was (arm64 used to write the block
 *	  over it); skipped below patch 2, where stock BUG()s;
 *	- pmd-broken-chunk: vmap_pages_range_noflush() at PMD_SHIFT of an
 *	  order-9 chunk with one foreign page warns under CONFIG_DEBUG_VM
 *	  from patch 6, not before;
 *	- cut-pmd-block: vunmap_range() of one page of a vmap() of an order-9
 *	  page clears the whole PMD block and warns once (from patch 7; below
 *	  it vmap() maps 4K PTEs and the cut unmaps one page, no warning);
 *	- foreign-page: vfree() of a huge vmalloc() whose page array no
 *	  longer holds its own block frees what the array holds; no warning.
 *	In both cut steps every page is written through the mapping before
 *	the cut (so the TLB holds it), and afterwards
 *	copy_from_kernel_nofault() of every page cleared must fail with
 *	-EFAULT (an entry the flush missed would still translate: QEMU
 *	honours TLB invalidations) while every other page reads back.
 *	These use unexported functions, found through kallsyms_lookup_name()
 *	(itself found with a kprobe).
 * mode=fault: iters rounds of vmap()/vmalloc() with this task marked
 *	make-it-fail (CONFIG_FAULT_INJECTION; the guest script arms
 *	fail_page_alloc with task-filter): every call either fails cleanly
 *	(NULL) or returns a correct mapping.  The module then stays loaded so
 *	that the script can look for leaked areas in /proc/vmallocinfo.
 * mode=fallback: a huge vmalloc() of four blocks whose allocator refuses
 *	blocks after the first (fault.sh arms fail_page_alloc): the area is
 *	finished with order-0 pages where it is (patch 12; see
 *	mode_fallback()).
 * mode=fallback-fail: the same vmalloc() with __GFP_RETRY_MAYFAIL while
 *	order-0 pages are refused too: it fails after one order-0 pass, in
 *	one vmap area (patch 12; see mode_fallback_fail()).
 * mode=nofree: a huge vmalloc() of two 64K blocks (arm64) while no zone
 *	has a free block of order 4 or more: no page allocator call at that
 *	order (patch 14; below it one, which fails), an order-0 area (see
 *	mode_nofree()).  map.sh runs it after mode=map.
 *
 * Every check prints "vmap_test: ok ..." or "vmap_test: FAIL ..." and the
 * run ends with "vmap_test: summary mode=M pass=N fail=M".  map, vfree and
 * ioremap return -EAGAIN when everything passed (so the module unloads
 * itself and can be run again; load it with "kload -e 11") and -EINVAL
 * otherwise; with stay=1 they return 0 and the module stays loaded.
 */
#define pr_fmt(fmt) "vmap_test: " fmt

#include <linux/module.h>
#include <linux/stringify.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/highmem.h>
#include <linux/pci.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/memcontrol.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>
#include <asm/pgtable.h>

#include "kpt_walk.h"
#include "kfrag.h"
#include "ksym.h"

static char *mode = "map";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "map | vfree | ioremap | fault | fallback | fallback-fail | nofree | misuse");
static bool events = true;
module_param(events, bool, 0444);
MODULE_PARM_DESC(events, "check the exact tracepoint events of each mapping");
static bool stay;
module_param(stay, bool, 0444);
MODULE_PARM_DESC(stay, "stay loaded after a successful map/vfree/ioremap run (so that trace readers can still resolve callers in the module)");
static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "rounds for mode=fault");
#define NR_SERIES_PATCHES 15
static unsigned int patches = NR_SERIES_PATCHES;
module_param(patches, uint, 0444);
MODULE_PARM_DESC(patches, "the kernel carries patches 1..N of kernel-patches/linux-6.12/series (0: stock 6.12; default: all "
		 __stringify(NR_SERIES_PATCHES) ")");

/*
 * nohuge=1: the kernel was booted with "nohugevmalloc" (map.sh passes it
 * when /proc/cmdline has it).  That turns off huge vmalloc() (stock 6.12
 * already) and vmap()'s blocks (from patch 7): every vmap(),
 * vmalloc_huge() and kvmalloc() fallback must then map order-0 pages with
 * 4K PTEs only, in page-aligned areas, and the walk chooses nothing.
 */
static bool nohuge;
module_param(nohuge, bool, 0444);
MODULE_PARM_DESC(nohuge, "the kernel was booted with nohugevmalloc: expect 4K PTEs only from vmap() and huge vmalloc()");

static unsigned int nr_pass, nr_fail;

#define check(cond, fmt, ...) ({					\
	bool __ok = (cond);						\
	if (__ok)							\
		nr_pass++;						\
	else								\
		nr_fail++;						\
	pr_info("%s " fmt "\n", __ok ? "ok  " : "FAIL", ##__VA_ARGS__); \
	__ok;								\
})

/* Granules, as mapping shifts. */
#define G4K	PAGE_SHIFT
#define G64K	16
#define G2M	PMD_SHIFT
#ifdef CONFIG_ARM64
#define ON_ARM64 1
#else
#define ON_ARM64 0
#endif
/* Expected granule: x86_64 value, arm64 value. */
#define EXP(x86, arm64) (ON_ARM64 ? (arm64) : (x86))

/* ---- what each patch of the series changes ---------------------------------- */

/*
 * The behaviours the checks below assert, and the patch of
 * kernel-patches/linux-6.12/series that introduces each: a kernel that
 * carries patches 1..@patches must show a behaviour from its patch on, and
 * stock 6.12's below it.  Every check that depends on the series asks
 * has() here rather than assuming the whole series.
 *
 * Later patches rely on earlier ones (the order is the series'), so one
 * entry stands for the behaviour with everything below it: arm64's 64K
 * blocks in vmap() (F_VMAP_BLOCKS, 7) need the contiguous-PTE hooks (3)
 * and the size policy (5), and a contiguous-PTE block exists only from
 * patch 3, when patch 1 already clears a cut block whole.
 *
 * What stock 6.12 does, which the checks assert below each patch:
 * vmap() maps every page with a 4K PTE in a page-aligned area; huge
 * vmalloc() and ioremap() use PMD blocks on both arches and nothing
 * between 4K and 2M (arm64 has no arch_vmap_pte_range_map_size() or
 * arch_vmap_pte_supported_shift()); kvmalloc()'s fallback and
 * vmalloc_huge() below 2M get order-0 pages; vfree() frees every page
 * on its own; a vunmap range that cuts a PMD block warns (WARN_ON()), one
 * that only cuts 4K PTEs does not; vmap_pte_range() BUG()s on an entry
 * in use; vmap_pages_range_noflush() at PMD_SHIFT maps each chunk with
 * vmap_range_noflush() and checks nothing; a huge vmalloc() that runs out
 * of blocks is freed and allocated again at order 0, in a second area.
 *
 * Patches no check here observes: 4 (the gfp mask of blocks below PMD
 * size: without reclaim; mode=nofree leaves nothing to reclaim a block
 * from either way), 10 alone (adds free_split_page_block(), which nothing
 * calls before patch 11: only the symbol is checked), 13 alone (adds
 * free_block_available(), which nothing calls before patch 14).
 */
enum feature {
	F_CUT_WARN,		/* vunmap of part of a PTE-level block: whole, one warning */
	F_EBUSY,		/* vmap_pte_span(): every entry of a block checked, -EBUSY */
	F_CONT_IOREMAP,		/* arm64: contiguous PTEs for ioremap(), vmap_pte_set_huge() */
	F_CONT_VMALLOC,		/* arm64: huge vmalloc() of multiples of 64K in 64K blocks */
	F_WALKER,		/* vmap_pages_range_noflush_walk(): the walk-count kprobe */
	F_CHUNK_CHECK,		/* DEBUG_VM: a chunk that is not contiguous warns */
	F_VMAP_BLOCKS,		/* vmap() of contiguous pages with PMD / 64K blocks */
	F_SMALL_RUN_END,	/* vmap_small_run_end() */
	F_EVENTS,		/* vmalloc:vmap_set_ptes, vmap_huge_block, vmap_mapped */
	F_PUBLISH,		/* arm64: vmap_pte_range_publish(), one per PTE table */
	F_SPLIT_BLOCK,		/* free_split_page_block() */
	F_VFREE_WHOLE,		/* vfree() frees the blocks of a huge vmalloc() whole */
	F_FALLBACK,		/* a huge vmalloc() out of blocks finished in place */
	F_NOFREE_SKIP,		/* no block allocation tried when none is free */
	F_GRANULE,		/* vmalloc:vmap_granule, vmap_mapped's fallbacks */
	NR_FEATURES
};

static const struct {
	unsigned int patch;
	const char *what;
} feature[NR_FEATURES] = {
	/*
	 * 1: misuse cut-block on arm64 (with F_CONT_VMALLOC, which makes the
	 * blocks): both 64K blocks cleared, one warning.  A cut PMD block
	 * warned in stock already (patch 1 makes it WARN_ON_ONCE() and
	 * flushes the whole block): cut-pmd-block warns once whenever vmap()
	 * makes the PMD (F_VMAP_BLOCKS).
	 */
	[F_CUT_WARN] = { 1, "vunmap of a range that cuts a PTE-level block clears it whole and warns" },
	/*
	 * 2: misuse busy-block: -EBUSY and one warning.  Stock BUG()s in
	 * vmap_pte_range() at the entry in use, so the step does not run
	 * below patch 2.  With patch 2 alone (no blocks yet, both arches) the
	 * 4K entries before +8K are written, then the one at +8K warns and
	 * fails: same warning count, same state at +8K, no contiguous entry.
	 */
	[F_EBUSY] = { 2, "vmap_page_range() over an entry in use fails with -EBUSY and warns" },
	/*
	 * 3 (arm64): ioremap() of a 64K-aligned window: 64K granules; the
	 * symbol vmap_pte_set_huge() (the barrier kprobe's span count).
	 * Huge vmalloc() below 2M still gets order-0 pages (5), vmap() 4K
	 * PTEs (7).
	 */
	[F_CONT_IOREMAP] = { 3, "arm64: ioremap() maps 64K-aligned ranges with contiguous PTEs" },
	/*
	 * 5 (arm64): vmalloc_huge() and kvmalloc()'s fallback of 128K and
	 * 1M: page order 4, 64K granules (68K keeps order 0 at every
	 * prefix); misuse cut-block has blocks to cut; foreign-page gets
	 * order-4 pages; the arm64 1M vfree() cases have order-4 blocks.
	 * Patches 5 and 6 map these blocks differently (one
	 * vmap_range_noflush() per 64K chunk, then the page-array walker), to
	 * the same granules.
	 */
	[F_CONT_VMALLOC] = { 5, "arm64: huge vmalloc() of a multiple of 64K gets order-4 pages and 64K blocks" },
	/*
	 * 6: the kprobe that counts a vmap()'s page-table walks is on
	 * vmap_pages_range_noflush_walk(); below it, on stock's
	 * vmap_small_pages_range_noflush() (one walk per vmap() as well).
	 * Both are static: with patch 7 the walker has two callers and is
	 * a function of its own on both arches (the whole series' kernels
	 * show it), and the kprobe must be placed; below patch 7 it has one
	 * caller, __vmap_pages_range_noflush(), and GCC may inline it, so
	 * the walk count is skipped if the kprobe cannot be placed (stock's
	 * walker is out of line on both arches).  For the same reason the
	 * symbol must exist from patch 7 and not below patch 6.
	 */
	[F_WALKER] = { 6, "the page-array walker vmap_pages_range_noflush_walk()" },
	/*
	 * 6: misuse pmd-broken-chunk warns once with CONFIG_DEBUG_VM
	 * (vmap_check_chunk()); below it nothing checks the chunk.  The PMD
	 * block is there at every prefix.
	 */
	[F_CHUNK_CHECK] = { 6, "with DEBUG_VM, a PMD chunk of the page-array walker that is not contiguous warns" },
	/*
	 * 7: every vmap() case gets the granules of its table (below: 4K
	 * everywhere, page-aligned area); misuse cut-pmd-block gets its PMD
	 * (below: 4K, and the cut unmaps one page without a warning); the
	 * arm64 barrier count needs its 64K blocks.
	 */
	[F_VMAP_BLOCKS] = { 7, "vmap() maps contiguous, aligned runs with PMD and (arm64) 64K blocks" },
	[F_SMALL_RUN_END] = { 7, "vmap_small_run_end() (KUnit-visible)" },
	/*
	 * 8: the events of every mapping, from the walks' writes: runs and
	 * blocks, and vmap_mapped's tally of them; below it the tracepoints do
	 * not exist and no event is checked.
	 */
	[F_EVENTS] = { 8, "tracepoints vmalloc:vmap_set_ptes, vmap_huge_block, vmap_mapped" },
	/*
	 * 9 (arm64): the barrier pairs of a vmap() of 100 MiB of order-4
	 * pages, one per PTE table.  Below it (from 3) vmap_pte_set_huge()
	 * issues one per span and the function counted does not exist.
	 */
	[F_PUBLISH] = { 9, "arm64: vmap_pte_range_publish(), one barrier pair per PTE table" },
	[F_SPLIT_BLOCK] = { 10, "free_split_page_block()" },
	/*
	 * 11: vfree() of vmalloc_huge() frees each block whole (the kprobe on
	 * free_unref_page()); below it every page on its own.
	 */
	[F_VFREE_WHOLE] = { 11, "vfree() gives the blocks of a huge vmalloc() back whole" },
	/*
	 * 12: mode=fallback: the area reserved once; below it twice (given
	 * back, then allocated again at order 0).  Either way page order 0
	 * and 4K PTEs only.  mode=map and mode=misuse do not reach it.
	 */
	[F_FALLBACK] = { 12, "a huge vmalloc() that runs out of blocks is finished with order-0 pages in place" },
	/*
	 * 14: mode=nofree: no page allocator call at the block order while
	 * no block of it is free (13 adds free_block_available(), which
	 * nothing calls before 14); below it one call, which fails.
	 */
	[F_NOFREE_SKIP] = { 14, "a huge vmalloc() does not try a block below PMD size when none is free" },
	/*
	 * 15: vmap_granule for each part the walk maps at the PTE level where
	 * it chose, and the reasons in vmap_mapped (a twelfth argument); below
	 * it, the tracepoint does not exist and vmap_mapped has eleven.
	 */
	[F_GRANULE] = { 15, "tracepoint vmalloc:vmap_granule: why a part got a smaller granule" },
};

/* Whether the kernel carries the patch that introduces @f. */
static bool has(enum feature f)
{
	return patches >= feature[f].patch;
}

/*
 * The page order of a huge vmalloc() of a multiple of 64K below 2M (and
 * of kvmalloc()'s fallback): 4 on arm64 from patch 5, 0 otherwise and
 * with nohugevmalloc.
 */
static unsigned int sub_pmd_order(void)
{
	return ON_ARM64 && has(F_CONT_VMALLOC) && !nohuge ? G64K - PAGE_SHIFT : 0;
}

/* The granule of a huge vmalloc() of a multiple of 2M: PMD, or 4K with nohugevmalloc. */
static int huge_pmd_gran(void)
{
	return nohuge ? G4K : G2M;
}

/* Whether vmap() maps contiguous runs with blocks: from patch 7, unless nohugevmalloc. */
static bool vmap_blocks(void)
{
	return has(F_VMAP_BLOCKS) && !nohuge;
}

/* For "skipped: ..." lines: why a check cannot run on this prefix. */
#define NOT_YET_FMT "%s: from patch %u, patches=%u"
#define NOT_YET(f) feature[f].what, feature[f].patch, patches

/* ---- unexported kernel functions ---------------------------------------- */

/*
 * A function the series adds, introduced by the patch of @f: it must
 * exist from that patch on and not before.  Its address, or NULL.
 */
static void *series_sym(const char *name, enum feature f)
{
	void *addr = ksym(name);

	if (has(f)) {
		check(addr, "%s() exists (patch %u)", name, feature[f].patch);
		return addr;
	}
	check(!addr, "%s() does not exist below patch %u (patches=%u)", name,
	      feature[f].patch, patches);
	return NULL;
}

/* ---- event recording ---------------------------------------------- */

/*
 * The events of the series, recorded through the module's own probes for
 * the task under test: vmap_set_ptes and vmap_huge_block (the runs the
 * walks write), vmap_granule (from patch 15: the walk's decision for a
 * part of the range) and vmap_mapped (one per call, last).
 */
enum ev_type { EV_SET_PTES, EV_HUGE, EV_GRANULE, EV_MAPPED, NR_EV_TYPES };
static const char * const ev_name[] = { "vmap_set_ptes", "vmap_huge_block",
					"vmap_granule", "vmap_mapped" };

struct ev {
	enum ev_type type;
	unsigned long addr, pfn;
	unsigned long n;	/* nr_ptes, or the bytes of a part or a call */
	unsigned int shift, fallback;
	/* vmap_mapped */
	unsigned int api;
	const void *caller;
	unsigned long bytes[4];	/* single PTEs, PTE-level blocks, PMD, PUD */
	unsigned int nr_runs, fallbacks;
	int ret;
	u64 ns;
};

#define MAX_EV 512
static struct ev got[MAX_EV];
static unsigned int nr_got;
static bool got_overflow;
static struct task_struct *rec_task;
static struct tracepoint *tp_set_ptes, *tp_huge, *tp_granule, *tp_mapped;
/* Events recorded over the whole run, for the tracefs cross-check. */
static unsigned int nr_total[NR_EV_TYPES];

static void rec(const struct ev *e)
{
	if (READ_ONCE(rec_task) != current)
		return;
	nr_total[e->type]++;
	if (nr_got == MAX_EV) {
		got_overflow = true;
		return;
	}
	got[nr_got++] = *e;
}

static void probe_set_ptes(void *data, unsigned long addr, unsigned long pfn,
			   unsigned int nr_ptes, unsigned int shift)
{
	struct ev e = { EV_SET_PTES, addr, pfn, nr_ptes, shift };

	rec(&e);
}

static void probe_huge(void *data, unsigned long addr, unsigned long pfn,
		       unsigned int shift)
{
	struct ev e = { EV_HUGE, addr, pfn, 1UL << shift, shift };

	rec(&e);
}

static void probe_granule(void *data, unsigned long addr, unsigned long size,
			  unsigned int shift, unsigned int fallback)
{
	struct ev e = { EV_GRANULE, addr, 0, size, shift, fallback };

	rec(&e);
}

static void rec_mapped(unsigned long addr, unsigned long size,
		       const void *caller, unsigned int api, unsigned long pte,
		       unsigned long pte_block, unsigned long pmd,
		       unsigned long pud, unsigned int nr_runs,
		       unsigned int fallbacks, int ret, u64 ns)
{
	struct ev e = { EV_MAPPED, addr, 0, size, 0, 0, api, caller,
			{ pte, pte_block, pmd, pud }, nr_runs, fallbacks, ret, ns };

	rec(&e);
}

/* vmap_mapped as patches 8 to 14 define it, and from patch 15 on. */
static void probe_mapped(void *data, unsigned long addr, unsigned long size,
			 const void *caller, unsigned int api, unsigned long pte,
			 unsigned long pte_block, unsigned long pmd,
			 unsigned long pud, unsigned int nr_runs, int ret,
			 u64 ns)
{
	rec_mapped(addr, size, caller, api, pte, pte_block, pmd, pud, nr_runs,
		   0, ret, ns);
}

static void probe_mapped_fallbacks(void *data, unsigned long addr,
				   unsigned long size, const void *caller,
				   unsigned int api, unsigned long pte,
				   unsigned long pte_block, unsigned long pmd,
				   unsigned long pud, unsigned int nr_runs,
				   unsigned int fallbacks, int ret, u64 ns)
{
	rec_mapped(addr, size, caller, api, pte, pte_block, pmd, pud, nr_runs,
		   fallbacks, ret, ns);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "vmap_set_ptes"))
		tp_set_ptes = tp;
	else if (!strcmp(tp->name, "vmap_huge_block"))
		tp_huge = tp;
	else if (!strcmp(tp->name, "vmap_granule"))
		tp_granule = tp;
	else if (!strcmp(tp->name, "vmap_mapped"))
		tp_mapped = tp;
}

static void *mapped_probe(void)
{
	return has(F_GRANULE) ? (void *)probe_mapped_fallbacks :
				(void *)probe_mapped;
}

static int events_attach(void)
{
	for_each_kernel_tracepoint(find_tp, NULL);
	if (!has(F_EVENTS)) {
		check(!tp_set_ptes && !tp_huge && !tp_mapped,
		      "tracepoints vmap_set_ptes/vmap_huge_block/vmap_mapped do not exist below patch %u (patches=%u)",
		      feature[F_EVENTS].patch, patches);
		pr_info("skipped: the events of every mapping: " NOT_YET_FMT "\n",
			NOT_YET(F_EVENTS));
		events = false;
		return 0;
	}
	if (!check(tp_set_ptes && tp_huge && tp_mapped,
		   "tracepoints vmap_set_ptes/vmap_huge_block/vmap_mapped exist"))
		return -ENOENT;
	if (has(F_GRANULE)) {
		if (!check(tp_granule, "tracepoint vmap_granule exists (patch %u)",
			   feature[F_GRANULE].patch))
			return -ENOENT;
	} else {
		check(!tp_granule, "tracepoint vmap_granule does not exist below patch %u (patches=%u)",
		      feature[F_GRANULE].patch, patches);
	}
	if (tracepoint_probe_register(tp_set_ptes, probe_set_ptes, NULL))
		return -EINVAL;
	if (tracepoint_probe_register(tp_huge, probe_huge, NULL))
		goto out_set_ptes;
	if (tracepoint_probe_register(tp_mapped, mapped_probe(), NULL))
		goto out_huge;
	if (tp_granule && tracepoint_probe_register(tp_granule, probe_granule, NULL))
		goto out_mapped;
	return 0;
out_mapped:
	tracepoint_probe_unregister(tp_mapped, mapped_probe(), NULL);
out_huge:
	tracepoint_probe_unregister(tp_huge, probe_huge, NULL);
out_set_ptes:
	tracepoint_probe_unregister(tp_set_ptes, probe_set_ptes, NULL);
	return -EINVAL;
}

static void events_detach(void)
{
	if (tp_granule)
		tracepoint_probe_unregister(tp_granule, probe_granule, NULL);
	tracepoint_probe_unregister(tp_mapped, mapped_probe(), NULL);
	tracepoint_probe_unregister(tp_huge, probe_huge, NULL);
	tracepoint_probe_unregister(tp_set_ptes, probe_set_ptes, NULL);
	tracepoint_synchronize_unregister();
}

static void rec_start(void)
{
	nr_got = 0;
	got_overflow = false;
	WRITE_ONCE(rec_task, current);
}

static void rec_stop(void)
{
	WRITE_ONCE(rec_task, NULL);
}

static void print_ev(const struct ev *e)
{
	if (e->type == EV_MAPPED)
		pr_info("  %s addr=0x%lx size=%lu api=%u 4K=%lu block=%lu pmd=%lu pud=%lu nr_runs=%u fallbacks=0x%x ret=%d ns=%llu caller=%pS\n",
			ev_name[e->type], e->addr, e->n, e->api, e->bytes[0],
			e->bytes[1], e->bytes[2], e->bytes[3], e->nr_runs,
			e->fallbacks, e->ret, e->ns, e->caller);
	else
		pr_info("  %s addr=0x%lx pfn=0x%lx n=%lu shift=%u fallback=%u\n",
			ev_name[e->type], e->addr, e->pfn, e->n, e->shift,
			e->fallback);
}

/* Index of a granule in vmap_mapped's bytes: 4K, PTE-level block, PMD, PUD. */
static unsigned int gran_index(unsigned int shift)
{
	return (shift > PAGE_SHIFT) + (shift >= PMD_SHIFT) + (shift > PMD_SHIFT);
}

/* The bytes a run (vmap_set_ptes, vmap_huge_block) maps. */
static unsigned long run_bytes(const struct ev *e)
{
	return e->type == EV_HUGE ? 1UL << e->shift : e->n << PAGE_SHIFT;
}

/*
 * The caller a vmap_mapped event must carry: what /proc/vmallocinfo shows,
 * which is this module for vmap(), vmalloc(), vm_map_ram() and x86
 * ioremap(); arm64's ioremap() records its own __ioremap_prot().
 */
static const void *caller_fn;

static bool caller_matches(const void *c)
{
	if (!caller_fn)
		return within_module((unsigned long)c, THIS_MODULE);
	return (unsigned long)c - (unsigned long)caller_fn < 1024;
}

/*
 * The bytes per granule a walk of the page tables finds in [@addr,
 * @addr + @size) now, as vmap_mapped reports them: the range must still be
 * mapped as the call left it.  Unmapped pages count nowhere.
 */
static void walk_bytes(unsigned long addr, unsigned long size, unsigned long *bytes)
{
	unsigned long a, pfn;
	int g;

	memset(bytes, 0, 4 * sizeof(*bytes));
	for (a = addr; a < addr + size; a += PAGE_SIZE) {
		g = kpt_granule_at(a, &pfn);
		if (g >= 0)
			bytes[gran_index(g)] += PAGE_SIZE;
	}
}

/* Fallback reasons (enum vmap_fallback): bits of vmap_mapped's fallbacks. */
#define FB_DISCONTIG	(1U << 2)
#define FB_ALIGN	(1U << 3)
/* The smallest block vmap() maps with: arm64's 64K, x86_64's PMD. */
#define MIN_BLOCK_PAGES	(ON_ARM64 ? 16U : PMD_SIZE >> PAGE_SHIFT)
#define FB_ANY		(-1)		/* not asserted */

/* What one mapping call must show in its events. */
struct call_want {
	const char *name;
	unsigned long addr, size;	/* the call's range */
	unsigned int api;
	const int *gran;		/* expected granule per page, else: */
	int gran_all;			/* one granule for every page */
	bool parts;			/* vmap_granule events (patch 15 on) */
	int fallbacks;			/* vmap_mapped's fallbacks, or FB_ANY */
	int ret;			/* the call's result */
	unsigned long written;		/* bytes written, if ret != 0 */
	struct page **pages;		/* vmap(): the array, for its reasons */
};

/* Whether @w's pages under [@va, @va + @len) are physically contiguous. */
static bool want_contiguous(const struct call_want *w, unsigned long va,
			    unsigned long len)
{
	unsigned long i, first = (va - w->addr) >> PAGE_SHIFT;
	unsigned long pfn = page_to_pfn(w->pages[first]);

	for (i = 1; i < len >> PAGE_SHIFT; i++)
		if (page_to_pfn(w->pages[first + i]) != pfn + i)
			return false;
	return true;
}

/*
 * The reason (enum vmap_fallback) a vmap_granule @e of the vmap() @w must
 * carry, from the pages under it (patch 15): in a whole PMD of the range,
 * which the walk considers whatever the area's alignment, discontig or
 * align (a contiguous PMD that vmap() did not map with a block is
 * misaligned: its PA against its VA, or against its place in the array);
 * else, on arm64, the same for the 64K block at the part's first 64K
 * boundary when the part got 4K PTEs and holds one.
 */
static unsigned int want_reason(const struct call_want *w, const struct ev *e)
{
	unsigned long pmd = e->addr & PMD_MASK, blk = ALIGN(e->addr, SZ_64K);

	if (pmd >= w->addr && pmd + PMD_SIZE <= w->addr + w->size)
		return want_contiguous(w, pmd, PMD_SIZE) ? 3 : 2;
	if (!ON_ARM64 || e->shift > PAGE_SHIFT || blk + SZ_64K > e->addr + e->n)
		return 0;
	return want_contiguous(w, blk, SZ_64K) ? 3 : 2;
}

static int want_gran(const struct call_want *w, unsigned long i)
{
	return w->gran ? w->gran[i] : w->gran_all;
}

/*
 * Where two runs of one granule may meet inside a PTE table: only where a
 * setter's call ends, which is where a PTE-level block could start (arm64:
 * 64K); without PTE-level blocks a PTE table is written by one call.
 */
#define RUN_SPLIT	(ON_ARM64 ? SZ_64K : PMD_SIZE)

/*
 * Check the events of one call, got[@from..@to] (vmap_mapped last), in
 * their own terms: runs in address order that tile what the call wrote,
 * each inside one PTE table (a block: aligned), never split where no
 * setter call ends; where the walk chose granules (vmap_granule events,
 * patch 15 on), every run it wrote at the PTE level closed by one
 * vmap_granule that covers exactly those runs, at their largest shift;
 * vmap_mapped's bytes, runs and reasons the sums of the call's events.
 * With @w (the call under test) also: every run at the granule the case
 * expects for its pages and at the PFNs the page tables hold there;
 * vmap_mapped's range, API, caller and result, its bytes equal to a walk
 * of the page tables, what a failed call wrote; whether the walk chose,
 * and why it fell back.
 */
static bool check_call(const struct call_want *w, unsigned int from,
		       unsigned int to)
{
	const struct ev *m = &got[to], *prev = NULL;
	unsigned long bytes[4] = { 0 }, walk[4], next, a, pfn, part = 0;
	unsigned int i, runs = 0, fallbacks = 0, open = 0, max_shift = 0;
	bool parts = false;
	const char *why = NULL;

	for (i = from; i < to; i++)
		parts |= got[i].type == EV_GRANULE;
	next = m->addr;
	for (i = from; i < to && !why; i++) {
		const struct ev *e = &got[i];

		if (e->type == EV_GRANULE) {
			if (!open || e->addr != part || e->n != next - part ||
			    e->shift != max_shift)
				why = "a vmap_granule does not cover the runs before it";
			else if (w && w->pages && e->fallback != want_reason(w, e))
				why = "a vmap_granule's reason is not the one its pages imply";
			if (e->fallback)
				fallbacks |= 1U << e->fallback;
			open = 0;
			continue;
		}
		if (e->type == EV_MAPPED) {
			why = "two vmap_mapped in one call";
			break;
		}
		if (e->addr != next)
			why = "the runs do not tile the range in address order";
		else if (e->type == EV_HUGE &&
			 (open || !IS_ALIGNED(e->addr, 1UL << e->shift)))
			why = "a block inside a part, or not aligned";
		else if (e->type == EV_SET_PTES &&
			 (!e->n || (e->addr & PMD_MASK) !=
			  ((e->addr + run_bytes(e) - 1) & PMD_MASK)))
			why = "a run of PTEs across PTE tables";
		else if (prev && prev->type == EV_SET_PTES &&
			 e->type == EV_SET_PTES && prev->shift == e->shift &&
			 (prev->addr & PMD_MASK) == (e->addr & PMD_MASK) &&
			 !IS_ALIGNED(e->addr, RUN_SPLIT))
			why = "a run split where no block could start";
		if (parts && e->type == EV_SET_PTES) {
			if (!open++) {
				part = e->addr;
				max_shift = 0;
			}
			max_shift = max(max_shift, e->shift);
		}
		bytes[gran_index(e->shift)] += run_bytes(e);
		runs++;
		next = e->addr + run_bytes(e);
		prev = e;
		for (a = e->addr; w && a < next && !why; a += PAGE_SIZE) {
			int g = kpt_granule_at(a, &pfn);

			if (g != e->shift || a - w->addr >= w->size ||
			    want_gran(w, (a - w->addr) >> PAGE_SHIFT) != e->shift)
				why = "a run's granule is not the expected one";
			else if (a == e->addr && pfn != e->pfn)
				why = "a run's PFN is not the one mapped";
			else if (e->shift > PAGE_SHIFT &&
				 pfn != e->pfn + ((a - e->addr) >> PAGE_SHIFT))
				why = "a block run's PFNs are not contiguous";
		}
	}
	if (!why && open && !m->ret)
		why = "runs at the PTE level without a vmap_granule after them";
	if (!why && (memcmp(bytes, m->bytes, sizeof(bytes)) ||
		     runs != m->nr_runs || fallbacks != m->fallbacks))
		why = "vmap_mapped is not the sum of the call's events";
	if (!why && !m->ret && next != m->addr + m->n)
		why = "a call that succeeded did not map its whole range";
	if (!why && w) {
		/* What the call wrote: its whole range, unless it failed. */
		walk_bytes(m->addr, next - m->addr, walk);
		/* For tracefs.sh: the same event in the trace has these bytes. */
		pr_info("walk addr=0x%lx ns=%llu pte=%lu pte_block=%lu pmd=%lu pud=%lu\n",
			m->addr, m->ns, walk[0], walk[1], walk[2], walk[3]);
		if (m->addr != w->addr || m->n != w->size || m->api != w->api ||
		    !caller_matches(m->caller) || m->ret != w->ret)
			why = "vmap_mapped: range, API, caller or result";
		else if (memcmp(walk, m->bytes, sizeof(walk)))
			why = "vmap_mapped's bytes differ from a walk of the page tables";
		else if (m->ret && next - m->addr != w->written)
			why = "a failed call reports other bytes than it wrote";
		else if (has(F_GRANULE) && parts != w->parts)
			why = w->parts ? "no vmap_granule where the walk chose" :
					 "vmap_granule where nothing was chosen";
		else if (has(F_GRANULE) && w->fallbacks != FB_ANY &&
			 m->fallbacks != w->fallbacks)
			why = "vmap_mapped's fallbacks are not the expected ones";
	}
	if (why) {
		pr_info("%s: %s; the call's events:\n", w ? w->name : "a call", why);
		for (i = from; i <= to; i++)
			print_ev(&got[i]);
	}
	return !why;
}

/*
 * Check the events recorded since rec_start(): each call on its own, and
 * the last one (a call may map its page array first) against @w.
 */
static void check_events(const struct call_want *w)
{
	unsigned int i, from = 0, last = 0, calls = 0, bad = 0;

	if (!check(!got_overflow, "%s: %u events recorded", w->name, nr_got))
		return;
	for (i = 0; i < nr_got; i++) {
		if (got[i].type != EV_MAPPED)
			continue;
		calls++;
		last = from;
		if (i + 1 < nr_got && !check_call(NULL, from, i))
			bad++;
		from = i + 1;
	}
	if (!check(calls && from == nr_got,
		   "%s: %u call(s), each ending with its vmap_mapped", w->name, calls))
		return;
	check(!bad && check_call(w, last, nr_got - 1),
	      "%s: the events of %u call(s) consistent, the last one's as expected",
	      w->name, calls);
}

/* ---- building page arrays --------------------------------------------- */

enum piece_kind { COMP, SPLIT, MISALIGN, SINGLES };

struct piece {
	enum piece_kind kind;
	unsigned int order;	/* COMP/SPLIT: 1 << order pages */
	unsigned int arg;	/* MISALIGN: pages [arg, 1 << order) of a block; SINGLES: count */
	int x86, arm64;		/* expected granule (shift) */
};

/* A physical allocation to free at the end. */
struct block {
	struct page *page;
	unsigned int order;
	bool split;
};

#define MAX_BLOCKS 64
struct pagevec_case {
	struct page **pages;
	unsigned int nr;
	int *gran;		/* expected granule per page */
	struct block blocks[MAX_BLOCKS];
	unsigned int nr_blocks;
};

static void free_blocks(struct pagevec_case *c)
{
	unsigned int i, j;

	for (i = 0; i < c->nr_blocks; i++) {
		struct block *b = &c->blocks[i];

		if (!b->split) {
			__free_pages(b->page, b->order);
			continue;
		}
		for (j = 0; j < 1U << b->order; j++)
			__free_page(b->page + j);
	}
	c->nr_blocks = 0;
	kvfree(c->pages);
	kvfree(c->gran);
	c->pages = NULL;
	c->gran = NULL;
}

static struct page *alloc_block(struct pagevec_case *c, unsigned int order,
				bool split, gfp_t gfp)
{
	struct page *page;

	if (c->nr_blocks == MAX_BLOCKS)
		return NULL;
	page = alloc_pages(gfp | __GFP_NOWARN | (split ? 0 : __GFP_COMP), order);
	if (!page)
		return NULL;
	if (split && order)
		split_page(page, order);
	c->blocks[c->nr_blocks++] = (struct block){ page, order, split || !order };
	return page;
}

static unsigned int piece_pages(const struct piece *p)
{
	if (p->kind == SINGLES)
		return p->arg;
	if (p->kind == MISALIGN)
		return (1U << p->order) - p->arg;
	return 1U << p->order;
}

/*
 * Build the page array of a case.  Pieces must not continue physically
 * where the previous piece ended (that would change what the case
 * tests): such an allocation is kept aside and another one is made.
 */
static int build_case(struct pagevec_case *c, const struct piece *pc,
		      unsigned int nr_pc, gfp_t gfp)
{
	unsigned int i, j, n = 0, total = 0, tries;
	unsigned long prev_end = 0;

	for (i = 0; i < nr_pc; i++)
		total += piece_pages(&pc[i]);
	memset(c, 0, sizeof(*c));
	c->pages = kvcalloc(total, sizeof(*c->pages), GFP_KERNEL);
	c->gran = kvcalloc(total, sizeof(*c->gran), GFP_KERNEL);
	if (!c->pages || !c->gran)
		goto fail;

	for (i = 0; i < nr_pc; i++) {
		const struct piece *p = &pc[i];
		struct page *first = NULL;

		for (tries = 0; tries < 4; tries++) {
			struct page *b;

			switch (p->kind) {
			case COMP:
				b = alloc_block(c, p->order, false, gfp);
				first = b;
				break;
			case SPLIT:
				b = alloc_block(c, p->order, true, gfp);
				first = b;
				break;
			case MISALIGN:
				b = alloc_block(c, p->order, true, gfp);
				first = b ? b + p->arg : NULL;
				break;
			case SINGLES:
				/* every other page of a split block: never adjacent */
				b = alloc_block(c, order_base_2(2 * p->arg), true, gfp);
				first = b;
				break;
			}
			if (!first)
				goto fail;
			if (page_to_pfn(first) != prev_end)
				break;
		}
		for (j = 0; j < piece_pages(p); j++) {
			struct page *pg = p->kind == SINGLES ? first + 2 * j : first + j;

			c->pages[n] = pg;
			/*
			 * Before patch 7, and with nohugevmalloc, vmap() maps
			 * every page with a PTE.
			 */
			c->gran[n] = vmap_blocks() ? EXP(p->x86, p->arm64) : G4K;
			n++;
		}
		prev_end = page_to_pfn(c->pages[n - 1]) + 1;
	}
	c->nr = n;
	return 0;
fail:
	free_blocks(c);
	return -ENOMEM;
}

/* ---- checks of one mapping -------------------------------------------- */

/*
 * Check a mapping of c->pages at @addr: vmalloc_to_page(), data both ways
 * through the linear map, granule per page, area alignment.
 */
static void check_mapping(const char *name, void *addr,
			  struct pagevec_case *c, bool quiet)
{
	unsigned long va = (unsigned long)addr, pfn;
	unsigned int i, bad_page = 0, bad_data = 0, bad_gran = 0;
	int max_gran = PAGE_SHIFT, g, first_bad_gran = -1;
	unsigned int first_bad_idx = 0;

	for (i = 0; i < c->nr; i++) {
		unsigned long a = va + i * PAGE_SIZE;
		u64 *v = (u64 *)a, *l = page_address(c->pages[i]);
		u64 pat = ((u64)a << 4) ^ i ^ 0x5a5aa5a5ULL;

		if (vmalloc_to_page((void *)a) != c->pages[i])
			bad_page++;

		WRITE_ONCE(v[0], pat);
		WRITE_ONCE(v[PAGE_SIZE / 8 - 1], ~pat);
		if (READ_ONCE(l[0]) != pat || READ_ONCE(l[PAGE_SIZE / 8 - 1]) != ~pat)
			bad_data++;
		WRITE_ONCE(l[1], ~pat);
		if (READ_ONCE(v[1]) != ~pat)
			bad_data++;

		max_gran = max(max_gran, c->gran[i]);
		g = kpt_granule_at(a, &pfn);
		if (g != c->gran[i] || pfn != page_to_pfn(c->pages[i])) {
			if (!bad_gran++) {
				first_bad_gran = g;
				first_bad_idx = i;
			}
		}
	}
	if (quiet && !bad_page && !bad_data && !bad_gran) {
		nr_pass++;
		return;
	}
	check(!bad_page, "%s: vmalloc_to_page of %u pages (%u wrong)", name,
	      c->nr, bad_page);
	check(!bad_data, "%s: pattern through vmap <-> linear map (%u wrong)",
	      name, bad_data);
	check(!bad_gran, "%s: page-table granule per page (%u wrong; first: page %u has shift %d, want %d)",
	      name, bad_gran, first_bad_idx, first_bad_gran,
	      bad_gran ? c->gran[first_bad_idx] : 0);
	check(IS_ALIGNED(va, 1UL << max_gran), "%s: area 0x%lx aligned for shift %d",
	      name, va, max_gran);
}

static void check_unmapped(const char *name, unsigned long va,
			   unsigned int nr)
{
	unsigned long pfn;
	unsigned int i, still = 0;

	for (i = 0; i < nr; i++)
		if (kpt_granule_at(va + i * PAGE_SIZE, &pfn) >= 0)
			still++;
	check(!still, "%s: all %u pages unmapped after unmap (%u still mapped)",
	      name, nr, still);
}

/*
 * Page-table walks of the array: calls of vmap_pages_range_noflush_walk(),
 * which vmap() calls out of line on both arches, counted with a kprobe in
 * this task.  The walk's own levels are inlined into it.  Below patch 6
 * (F_WALKER) the walker is stock's vmap_small_pages_range_noflush(), also
 * one call per vmap(), if it is a function of its own (it is in the stock
 * kernels of both arches).
 */
static struct task_struct *walk_task;
static unsigned int nr_walks;
static bool walk_probe;

static int count_walk(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == walk_task)
		nr_walks++;
	return 0;
}

static struct kprobe kp_walk = { .symbol_name = "vmap_pages_range_noflush_walk",
				 .pre_handler = count_walk };

/*
 * A vmalloc space with no free range aligned for vmap()'s blocks, made for
 * the walk task while refuse_aligned is set: a kprobe on alloc_vmap_area()
 * (size, align, vstart, vend, ...) moves @vend down to @vstart in the
 * requests aligned above PAGE_SIZE, so that they fail the way a request
 * in a fragmented vmalloc space does (-EBUSY after a purge), without an
 * area to clean up.  Page-aligned requests are left alone.
 */
static bool refuse_aligned, noalign_probe;
static unsigned int nr_refused;

static int refuse_aligned_area(struct kprobe *kp, struct pt_regs *regs)
{
	if (!refuse_aligned || current != walk_task ||
	    regs_get_kernel_argument(regs, 1) <= PAGE_SIZE)
		return 0;
	nr_refused++;
#if defined(CONFIG_X86_64)
	regs->cx = regs->dx;
#elif defined(CONFIG_ARM64)
	regs->regs[3] = regs->regs[2];
#endif
	return 0;
}

static struct kprobe kp_noalign = { .symbol_name = "alloc_vmap_area",
				    .pre_handler = refuse_aligned_area };

/*
 * vmap() of the pieces @pc: the mapping, one walk, and its events;
 * @fallbacks: vmap_mapped's reasons from patch 15 on (FB_ANY: not asserted).
 */
static void run_vmap_case(const char *name, const struct piece *pc,
			  unsigned int nr_pc, int fallbacks)
{
	static struct pagevec_case c;	/* big: keep it off the stack */
	void *addr;

	if (build_case(&c, pc, nr_pc, GFP_KERNEL)) {
		check(false, "%s: could not allocate the pages", name);
		return;
	}
	if (events)
		rec_start();
	nr_walks = 0;
	walk_task = current;
	addr = vmap(c.pages, c.nr, VM_MAP, PAGE_KERNEL);
	walk_task = NULL;
	rec_stop();
	if (!check(addr, "%s: vmap of %u pages", name, c.nr))
		goto out;
	if (walk_probe || has(F_VMAP_BLOCKS))
		check(walk_probe && nr_walks == 1,
		      "%s: one page-table walk for %u pages (kprobe on %s %s, walks: %u)",
		      name, c.nr, kp_walk.symbol_name,
		      walk_probe ? "placed" : "missing", nr_walks);
	check_mapping(name, addr, &c, false);
	if (events) {
		/* With nohugevmalloc the walk has no block to fall back from. */
		struct call_want w = { name, (unsigned long)addr,
				       (unsigned long)c.nr << PAGE_SHIFT,
				       2 /* vmap */, c.gran, 0, false,
				       nohuge ? 0 : fallbacks, 0, 0, c.pages };
		bool big = false, small = false;
		unsigned int i, run = 1;

		/*
		 * The walk chooses where the array has an aligned run of a
		 * block, and reports the choices of its PTE-level parts;
		 * also where it has a contiguous run of the smallest block
		 * anywhere (arm64: 16 pages, x86_64: 512), to say why it got
		 * no block.
		 */
		for (i = 0; i < c.nr; i++) {
			big |= c.gran[i] > PAGE_SHIFT;
			small |= c.gran[i] < PMD_SHIFT;
			if (i && page_to_pfn(c.pages[i]) ==
				 page_to_pfn(c.pages[i - 1]) + 1)
				run += run < MIN_BLOCK_PAGES;
			else if (run < MIN_BLOCK_PAGES)
				run = 1;
		}
		w.parts = !nohuge && small &&
			  (big || run == MIN_BLOCK_PAGES);
		check_events(&w);
	}
	vunmap(addr);
	check_unmapped(name, (unsigned long)addr, c.nr);
out:
	free_blocks(&c);
}

/* ---- vmalloc and vm_map_ram --------------------------------------------- */

static void run_vmalloc_case(const char *name, unsigned long size, bool huge,
			     int x86, int arm64)
{
	int gran = EXP(x86, arm64);
	unsigned long va, i, nr = size >> PAGE_SHIFT, pfn;
	unsigned int bad = 0;
	void *p;

	if (events)
		rec_start();
	p = huge ? vmalloc_huge(size, GFP_KERNEL) : vmalloc(size);
	rec_stop();
	if (!check(p, "%s: allocation", name))
		return;
	va = (unsigned long)p;
	for (i = 0; i < nr; i++) {
		unsigned long a = va + i * PAGE_SIZE;

		*(u64 *)a = a;
		if (kpt_granule_at(a, &pfn) != gran ||
		    pfn != page_to_pfn(vmalloc_to_page((void *)a)) ||
		    *(u64 *)page_address(vmalloc_to_page((void *)a)) != a)
			bad++;
	}
	check(!bad, "%s: granule shift %d and data on all %lu pages (%u wrong)",
	      name, gran, nr, bad);
	check(IS_ALIGNED(va, 1UL << gran), "%s: aligned for shift %d", name, gran);
	if (events) {
		/* The walk chooses between PTE-level granules for blocks. */
		struct call_want w = { name, va, size, 1 /* vmalloc */, NULL,
				       gran, gran > PAGE_SHIFT && gran < PMD_SHIFT,
				       0 };

		check_events(&w);
	}
	vfree(p);
	check_unmapped(name, va, nr);
}

static void run_vm_map_ram_case(void)
{
	static const struct piece pc[] = { { SPLIT, 4, 0, G4K, G4K } };
	static struct pagevec_case c;	/* big: keep it off the stack */
	void *addr;

	if (build_case(&c, pc, 1, GFP_KERNEL)) {
		check(false, "vm_map_ram: could not allocate the pages");
		return;
	}
	if (events)
		rec_start();
	addr = vm_map_ram(c.pages, c.nr, NUMA_NO_NODE);
	rec_stop();
	if (!check(addr, "vm_map_ram of %u pages", c.nr))
		goto out;
	check_mapping("vm_map_ram", addr, &c, false);
	if (events) {
		struct call_want w = { "vm_map_ram", (unsigned long)addr,
				       (unsigned long)c.nr << PAGE_SHIFT,
				       4 /* vm_map_ram */, NULL, G4K, false, 0 };

		check_events(&w);
	}
	vm_unmap_ram(addr, c.nr);
	check_unmapped("vm_map_ram", (unsigned long)addr, c.nr);
out:
	free_blocks(&c);
}

/* ---- vmap_small_run_end() at its limits --------------------------------- */

/*
 * mm/vmalloc.c from patch 7 (F_SMALL_RUN_END), exported to KUnit-enabled
 * modules only: found through kallsyms (map_setup()), so that the module
 * loads on every prefix of the series.
 */
static unsigned int (*small_run_end)(unsigned int idx, unsigned int count,
				     unsigned int max_shift);

/*
 * Where a run of small pages that starts at page idx of a vmap() of count
 * pages ends: at count when the area allows no block (max_shift ==
 * PAGE_SHIFT), else at the next multiple of the smallest block (arm64:
 * 16 pages, a contiguous-PTE block; x86_64: 512, a PMD), at most count.
 * Counts and indexes above 2^31 are where 32-bit arithmetic gives 0 (and
 * a vmap() loop that never ends); no real vmap() gets there.
 */
static void run_small_run_end_checks(void)
{
	const unsigned int blk = ON_ARM64 ? 16 : PMD_SIZE >> PAGE_SHIFT;
	static const unsigned int big = 0xffffffffU;
	const struct {
		unsigned int idx, count, max_shift, want;
	} t[] = {
		{ 0, 1, PAGE_SHIFT, 1 },
		{ 0, 1000, PAGE_SHIFT, 1000 },
		{ 0, 0x80000000U, PAGE_SHIFT, 0x80000000U },
		{ 0, 0x80000001U, PAGE_SHIFT, 0x80000001U },
		{ 0x80000000U, big, PAGE_SHIFT, big },
		{ 0, 100000, PMD_SHIFT, blk },
		{ 1, 100000, PMD_SHIFT, blk },
		{ blk - 1, 100000, PMD_SHIFT, blk },
		{ blk, 100000, PMD_SHIFT, 2 * blk },
		{ 0, blk / 2, PMD_SHIFT, blk / 2 },
		{ 0x7fffffffU, 0x80000001U, PMD_SHIFT, 0x80000000U },
		{ 0x80000000U, big, PMD_SHIFT, 0x80000000U + blk },
		{ big - blk + 1, big, PMD_SHIFT, big },
		{ big - 1, big, PMD_SHIFT, big },
	};
	unsigned int i, got;

	if (!has(F_SMALL_RUN_END)) {
		pr_info("skipped: vmap_small_run_end() at its limits: " NOT_YET_FMT "\n",
			NOT_YET(F_SMALL_RUN_END));
		return;
	}
	if (!small_run_end)
		return;		/* series_sym() failed the check */
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		got = small_run_end(t[i].idx, t[i].count, t[i].max_shift);
		check(got == t[i].want,
		      "vmap_small_run_end(idx=0x%x, count=0x%x, max_shift=%u) = 0x%x, want 0x%x",
		      t[i].idx, t[i].count, t[i].max_shift, got, t[i].want);
	}
}

/* ---- huge vmalloc sizes: area size and page order ------------------------ */

/*
 * vmalloc_huge(size), or the vmalloc fallback of kvmalloc(size) (called as
 * kvmalloc_node() calls it: a kmalloc() of 68K does not fail in a test
 * guest): the area's size (guard page included), its page order, and the
 * granule of every page.
 */
static void *(*range_alloc)(unsigned long size, unsigned long align,
			    unsigned long start, unsigned long end, gfp_t gfp,
			    pgprot_t prot, unsigned long vm_flags, int node,
			    const void *caller);
static struct vm_struct *(*find_area)(const void *addr);

static void run_area_case(const char *name, unsigned long size, bool kv,
			  unsigned long want_size, unsigned int want_order)
{
	int gran = want_order ? G64K : G4K;
	unsigned long va, i, pfn;
	unsigned int bad = 0;
	struct vm_struct *area;
	void *p;

	if (!check(range_alloc && find_area, "%s: kernel symbols found", name))
		return;
	/* Record the events, unchecked, so that tracefs.sh's count holds. */
	if (events)
		rec_start();
	if (kv)
		p = range_alloc(size, 1, VMALLOC_START, VMALLOC_END, GFP_KERNEL,
				PAGE_KERNEL, VM_ALLOW_HUGE_VMAP, NUMA_NO_NODE,
				__builtin_return_address(0));
	else
		p = vmalloc_huge(size, GFP_KERNEL);
	rec_stop();
	if (!check(p, "%s: allocation", name))
		return;
	area = find_area(p);
	check(area && area->size == want_size && area->page_order == want_order,
	      "%s: area of %lu bytes (want %lu), page order %u (want %u)", name,
	      area ? area->size : 0, want_size, area ? area->page_order : 0,
	      want_order);
	va = (unsigned long)p;
	for (i = 0; i < size; i += PAGE_SIZE) {
		*(u64 *)(va + i) = va + i;
		if (kpt_granule_at(va + i, &pfn) != gran ||
		    *(u64 *)page_address(vmalloc_to_page((void *)(va + i))) != va + i)
			bad++;
	}
	check(!bad, "%s: granule shift %d and data on every page (%u wrong)",
	      name, gran, bad);
	vfree(p);
}

/* ---- barriers: one per PTE table ------------------------------------------- */

static unsigned long nr_publish, nr_set_huge;
static bool barrier_probes;

static int count_publish(struct kprobe *kp, struct pt_regs *regs)
{
	nr_publish++;
	return 0;
}

static int count_set_huge(struct kprobe *kp, struct pt_regs *regs)
{
	nr_set_huge++;
	return 0;
}

/*
 * arm64: vmap() of 100 MiB of order-4 pages must publish its contiguous-PTE
 * blocks with one barrier pair per PTE table that got blocks
 * (vmap_pte_range_publish() calls, counted with a kprobe), not one per 64K
 * chunk.  The spans that vmap_pte_set_huge() wrote are counted too, for
 * the log.  Consecutive allocations may happen to be physically adjacent
 * and form a PMD block somewhere: the PTE tables are counted from the
 * granules the mapping got.  With nohugevmalloc: 4K PTEs only, and no
 * barrier pair at all.
 */
static void run_barrier_case(void)
{
	const unsigned int order = 4;
	const unsigned int nr_chunks = (100 * SZ_1M) / (PAGE_SIZE << order);
	struct page **pages = NULL, **chunks = NULL;
	unsigned int i, j, n = 0, bad = 0;
	unsigned long va, tables = 0, last_table = 0, pfn;
	void *addr;
	int g;

	if (!ON_ARM64) {
		pr_info("skipped: barriers: no PTE-level blocks on this arch\n");
		return;
	}
	if (!has(F_PUBLISH)) {
		pr_info("skipped: barriers: " NOT_YET_FMT "; before it each vmap_pte_set_huge() span issues its own\n",
			NOT_YET(F_PUBLISH));
		return;
	}
	pages = kvcalloc(nr_chunks << order, sizeof(*pages), GFP_KERNEL);
	chunks = kvcalloc(nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!check(pages && chunks, "barriers: page arrays"))
		goto out;
	for (i = 0; i < nr_chunks; i++) {
		chunks[i] = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN,
					order);
		if (!chunks[i])
			break;
		for (j = 0; j < 1U << order; j++)
			pages[n++] = chunks[i] + j;
	}
	if (!check(i == nr_chunks, "barriers: %u order-%u pages", nr_chunks, order))
		goto out;
	if (!check(barrier_probes,
		   "barriers: kprobes on vmap_pte_range_publish() and vmap_pte_set_huge()"))
		goto out;
	nr_publish = nr_set_huge = 0;
	/* Record the events, unchecked, so that tracefs.sh's count holds. */
	if (events)
		rec_start();
	addr = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	rec_stop();
	if (!check(addr, "barriers: vmap of 100 MiB"))
		goto out;
	va = (unsigned long)addr;
	for (i = 0; i < n; i++) {
		unsigned long a = va + i * PAGE_SIZE;

		g = kpt_granule_at(a, &pfn);
		if ((nohuge ? g != G4K : g != G64K && g != G2M) ||
		    pfn != page_to_pfn(pages[i]))
			bad++;
		if (g == G64K && (!tables || a >> PMD_SHIFT != last_table)) {
			tables++;
			last_table = a >> PMD_SHIFT;
		}
	}
	check(!bad, "barriers: %s granule and PFN on all %u pages (%u wrong)",
	      nohuge ? "4K" : "64K or 2M", n, bad);
	check(nohuge ? !tables && !nr_publish : tables && nr_publish == tables,
	      "barriers: vmap of 100 MiB of order-%u pages: %lu barrier pairs for %lu PTE tables with blocks (%lu contiguous-PTE spans)",
	      order, nr_publish, tables, nr_set_huge);
	vunmap(addr);
out:
	if (chunks)
		for (i = 0; i < nr_chunks && chunks[i]; i++)
			__free_pages(chunks[i], order);
	kvfree(chunks);
	kvfree(pages);
}

/*
 * vfree() of a huge vmalloc() gives each block of the area's page order
 * back to the page allocator whole (one free_unref_page() call at that
 * order, counted with a kprobe in this task), unless
 * free_split_page_block() declines the block, which then goes back page
 * by page:
 * - VF_HOLD: a page of the block is still referenced elsewhere (that
 *   block only; the page keeps the other reference);
 * - VF_POISON (CONFIG_MEMORY_FAILURE): memory_failure() poisoned a page
 *   of the block (that block only; the poisoned page reaches
 *   free_unref_page() and stays out of the allocator);
 * - VF_MEMCG (CONFIG_MEMCG): the area is charged to a memory cgroup,
 *   vmalloc_huge(__GFP_ACCOUNT) from a task in a cgroup below the root
 *   (every block; every page was charged, and the cgroup's usage goes
 *   back);
 * - allocation profiling is on (sysctl.vm.mem_profiling=1 on the kernel
 *   command line): every block of every case.
 * page_owner=on changes nothing: the blocks still go back whole.
 */
enum vfree_how { VF_PLAIN, VF_HOLD, VF_POISON, VF_MEMCG };

static struct task_struct *vfree_task;
static unsigned int vfree_order;
static unsigned long nr_vfree_whole, nr_vfree_single;
static bool vfree_probe;
/*
 * The first page of each block of the area: only its pages count (vfree()
 * also frees the page array, vmalloc()ed itself above PAGE_SIZE).
 */
#define VFREE_MAX_BLOCKS 64
static struct page *vfree_block[VFREE_MAX_BLOCKS];
static unsigned int nr_vfree_blocks;
/* map_setup(): the state of two static keys, and drain_all_pages(). */
static bool alloc_profiling, page_owner_on;
static void (*drain_pages)(struct zone *zone);

static int count_vfree(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);
	unsigned long order = regs_get_kernel_argument(regs, 1);
	unsigned int i;

	if (current != vfree_task)
		return 0;
	for (i = 0; i < nr_vfree_blocks; i++) {
		if (page < vfree_block[i] ||
		    page >= vfree_block[i] + (1UL << vfree_order))
			continue;
		if (order == vfree_order && page == vfree_block[i])
			nr_vfree_whole++;
		else if (!order)
			nr_vfree_single++;
		break;
	}
	return 0;
}

static struct kprobe kp_vfree = { .symbol_name = "free_unref_page",
				 .pre_handler = count_vfree };

/* Whether the static key NAME (unexported) is on. */
static bool key_on(const char *name)
{
	struct static_key *key = ksym(name);

	return key && static_key_enabled(key);
}

#ifdef CONFIG_MEMCG
static struct mem_cgroup *vf_memcg;
static unsigned long vf_usage0;

/*
 * Charges go through a per-CPU stock of up to MEMCG_CHARGE_BATCH pages:
 * the cgroup's page counter moves by the pages charged give or take one
 * stock per CPU.
 */
static unsigned long memcg_slack(void)
{
	return MEMCG_CHARGE_BATCH * num_online_cpus();
}

/* Before the allocation: this task's memory cgroup, below the root. */
static bool memcg_begin(const char *name)
{
	vf_memcg = get_mem_cgroup_from_mm(current->mm);
	if (!vf_memcg || !vf_memcg->css.parent) {
		pr_info("skipped: %s: the task is in the root memory cgroup (map.sh makes one)\n",
			name);
		if (vf_memcg)
			mem_cgroup_put(vf_memcg);
		vf_memcg = NULL;
		return false;
	}
	vf_usage0 = page_counter_read(&vf_memcg->memory);
	return true;
}

static void memcg_charged(const char *name, struct vm_struct *area)
{
	unsigned long i, charged = 0;
	long grew;

	rcu_read_lock();
	for (i = 0; i < area->nr_pages; i++) {
		struct folio *folio = page_folio(area->pages[i]);

		if (folio_memcg_kmem(folio) && folio_memcg(folio) == vf_memcg)
			charged++;
	}
	rcu_read_unlock();
	check(charged == area->nr_pages,
	      "%s: %lu of %u pages charged to the task's memory cgroup (PageMemcgKmem)",
	      name, charged, area->nr_pages);
	grew = page_counter_read(&vf_memcg->memory) - vf_usage0;
	check(grew + (long)memcg_slack() >= (long)area->nr_pages,
	      "%s: the cgroup's memory usage grew by %ld pages (want %u, stock slack %lu)",
	      name, grew, area->nr_pages, memcg_slack());
}

static void memcg_end(const char *name, bool freed)
{
	long d = page_counter_read(&vf_memcg->memory) - vf_usage0;

	if (freed)
		check(abs(d) <= memcg_slack(),
		      "%s: after vfree() the cgroup's memory usage is back (%+ld pages, stock slack %lu)",
		      name, d, memcg_slack());
	mem_cgroup_put(vf_memcg);
	vf_memcg = NULL;
}
#else
static bool memcg_begin(const char *name) { return false; }
static void memcg_charged(const char *name, struct vm_struct *area) { }
static void memcg_end(const char *name, bool freed) { }
#endif

#ifdef CONFIG_MEMORY_FAILURE
/*
 * memory_failure() of a page that vmalloc() holds (neither on the LRU nor
 * free) marks it PageHWPoison, finds it unhandlable and leaves it to its
 * owner: "Memory failure: PFN: unhandlable page." and "recovery action for
 * get hwpoison page: Ignored", no report that the lab's log check counts.
 * MF_SW_SIMULATED, as madvise(MADV_HWPOISON) and hwpoison_inject inject.
 */
static void poison_page(const char *name, struct page *page)
{
	int ret = memory_failure(page_to_pfn(page), MF_SW_SIMULATED);

	check(PageHWPoison(page) && page_ref_count(page) == 1,
	      "%s: memory_failure() of pfn %#lx (%d): the page is poisoned, vmalloc's reference only (%d)",
	      name, page_to_pfn(page), ret, page_ref_count(page));
}

/*
 * free_pages_prepare() keeps an order-0 poisoned page off the per-CPU
 * lists and the buddy allocator: after vfree() it has no reference, is
 * still poisoned, and (the per-CPU lists drained) no free block holds it.
 */
static void poison_after(const char *name, struct page *page)
{
	bool free;

	if (drain_pages)
		drain_pages(NULL);
	free = is_free_buddy_page(page);
	check(drain_pages && PageHWPoison(page) && !page_ref_count(page) && !free,
	      "%s: after vfree() the poisoned page is poisoned (%d), has no reference (%d) and is not free in the buddy allocator (%d, per-CPU lists drained: %d)",
	      name, PageHWPoison(page), page_ref_count(page), free, !!drain_pages);
}
#else
static void poison_page(const char *name, struct page *page) { }
static void poison_after(const char *name, struct page *page) { }
#endif

static void run_vfree_case(const char *what, unsigned long size,
			   unsigned int order, enum vfree_how how)
{
	unsigned long nr = size >> PAGE_SHIFT, blocks = nr >> order;
	unsigned long want_whole, want_single;
	struct page *page = NULL;	/* the page held or poisoned */
	struct vm_struct *area;
	gfp_t gfp = GFP_KERNEL;
	bool freed = false;
	char name[128];
	void *p;

	snprintf(name, sizeof(name), "%s%s%s", what,
		 alloc_profiling ? " (allocation profiling on)" : "",
		 page_owner_on ? " (page_owner on)" : "");
	if (how == VF_POISON && !IS_ENABLED(CONFIG_MEMORY_FAILURE)) {
		pr_info("skipped: %s: CONFIG_MEMORY_FAILURE not set\n", name);
		return;
	}
	if (how == VF_MEMCG && !IS_ENABLED(CONFIG_MEMCG)) {
		pr_info("skipped: %s: CONFIG_MEMCG not set\n", name);
		return;
	}
	if (!check(vfree_probe && find_area,
		   "%s: kprobe on free_unref_page(), find_vm_area()", name))
		return;
	if (how == VF_MEMCG) {
		if (!memcg_begin(name))
			return;
		gfp |= __GFP_ACCOUNT;
	}
	/* Record the events, unchecked, so that tracefs.sh's count holds. */
	if (events)
		rec_start();
	p = vmalloc_huge(size, gfp);
	rec_stop();
	if (!check(p, "%s: allocation", name))
		goto out;
	area = find_area(p);
	if (!check(area && area->page_order == order && area->nr_pages == nr &&
		   blocks <= VFREE_MAX_BLOCKS,
		   "%s: %u pages of order %u (want %lu of order %u)", name,
		   area ? area->nr_pages : 0, area ? area->page_order : 0, nr,
		   order)) {
		vfree(p);
		goto out;
	}
	for (nr_vfree_blocks = 0; nr_vfree_blocks < blocks; nr_vfree_blocks++)
		vfree_block[nr_vfree_blocks] =
			area->pages[nr_vfree_blocks << order];
	switch (how) {
	case VF_HOLD:
		/* A page inside the first block, referenced elsewhere. */
		page = area->pages[5];
		get_page(page);
		break;
	case VF_POISON:
		/* A page inside the last block. */
		page = area->pages[nr - (1UL << order) + 5];
		poison_page(name, page);
		break;
	case VF_MEMCG:
		memcg_charged(name, area);
		break;
	default:
		break;
	}
	if (!has(F_VFREE_WHOLE) || alloc_profiling || how == VF_MEMCG) {
		want_whole = 0;
		want_single = nr - (how == VF_HOLD);
	} else if (how == VF_HOLD || how == VF_POISON) {
		want_whole = blocks - 1;
		want_single = (1UL << order) - (how == VF_HOLD);
	} else {
		want_whole = blocks;
		want_single = 0;
	}
	nr_vfree_whole = nr_vfree_single = 0;
	vfree_order = order;
	vfree_task = current;
	vfree(p);
	vfree_task = NULL;
	freed = true;
	check(nr_vfree_whole == want_whole && nr_vfree_single == want_single,
	      "%s: vfree() freed %lu order-%u blocks whole (want %lu) and %lu single pages (want %lu)",
	      name, nr_vfree_whole, order, want_whole, nr_vfree_single,
	      want_single);
	if (how == VF_HOLD) {
		check(page_ref_count(page) == 1,
		      "%s: the held page keeps its reference (%d)", name,
		      page_ref_count(page));
		put_page(page);
	} else if (how == VF_POISON) {
		poison_after(name, page);
	}
out:
	if (how == VF_MEMCG)
		memcg_end(name, freed);
}

static void run_vfree_cases(void)
{
	const unsigned int pmd_order = PMD_SHIFT - PAGE_SHIFT;

	if (nohuge) {
		pr_info("skipped: vfree cases: nohugevmalloc: vmalloc_huge() has order-0 pages, freed one by one as any vmalloc() (the 2M case above checks it maps them with 4K PTEs)\n");
		return;
	}
	pr_info("vfree: allocation profiling %s, page_owner %s, blocks %s\n",
		alloc_profiling ? "on" : "off", page_owner_on ? "on" : "off",
		has(F_VFREE_WHOLE) ? "whole where they can be" : "page by page (below patch 11)");
	if (ON_ARM64 && !sub_pmd_order())
		pr_info("skipped: vfree vmalloc_huge 1M cases: " NOT_YET_FMT "; before it 1M has order-0 pages\n",
			NOT_YET(F_CONT_VMALLOC));
	if (sub_pmd_order()) {
		run_vfree_case("vfree vmalloc_huge 1M", SZ_1M, 4, VF_PLAIN);
		run_vfree_case("vfree vmalloc_huge 1M, a page held", SZ_1M, 4,
			       VF_HOLD);
		run_vfree_case("vfree vmalloc_huge 1M, a page poisoned", SZ_1M,
			       4, VF_POISON);
		run_vfree_case("vfree vmalloc_huge 1M, memcg charged", SZ_1M, 4,
			       VF_MEMCG);
	}
	run_vfree_case("vfree vmalloc_huge 2M", SZ_2M, pmd_order, VF_PLAIN);
	run_vfree_case("vfree vmalloc_huge 4M, a page poisoned", SZ_4M,
		       pmd_order, VF_POISON);
	run_vfree_case("vfree vmalloc_huge 4M, memcg charged", SZ_4M, pmd_order,
		       VF_MEMCG);
}

static struct kprobe kp_publish = { .symbol_name = "vmap_pte_range_publish",
				    .pre_handler = count_publish };
static struct kprobe kp_set_huge = { .symbol_name = "vmap_pte_set_huge",
				     .pre_handler = count_set_huge };

/*
 * Find the kernel symbols and place the kprobes before the first recorded
 * mapping: kallsyms lookups and kprobes may allocate executable memory
 * (kprobe instruction slots, ftrace trampolines), whose mapping events
 * in this task would otherwise mix with the module's own.
 */
static void map_setup(void)
{
	range_alloc = ksym("__vmalloc_node_range_noprof");
	find_area = ksym("find_vm_area");
	vfree_probe = !register_kprobe(&kp_vfree);
	if (!has(F_WALKER))
		kp_walk.symbol_name = "vmap_small_pages_range_noflush";
	walk_probe = !register_kprobe(&kp_walk);
	noalign_probe = !register_kprobe(&kp_noalign);
	if (!walk_probe && !has(F_VMAP_BLOCKS))
		pr_info("skipped: one page-table walk per vmap(): no kprobe on %s() (one caller below patch 7: inlined), patches=%u\n",
			kp_walk.symbol_name, patches);
	if (has(F_VMAP_BLOCKS) || !has(F_WALKER))
		series_sym("vmap_pages_range_noflush_walk", F_WALKER);
	small_run_end = series_sym("vmap_small_run_end", F_SMALL_RUN_END);
	series_sym("free_split_page_block", F_SPLIT_BLOCK);
	alloc_profiling = IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING) &&
			  key_on("mem_alloc_profiling_key");
	page_owner_on = IS_ENABLED(CONFIG_PAGE_OWNER) &&
			key_on("page_owner_inited");
	if (IS_ENABLED(CONFIG_MEMORY_FAILURE))
		drain_pages = ksym("drain_all_pages");
	if (!ON_ARM64)
		return;
	series_sym("vmap_pte_set_huge", F_CONT_IOREMAP);
	if (!series_sym("vmap_pte_range_publish", F_PUBLISH))
		return;
	if (register_kprobe(&kp_publish))
		return;
	if (register_kprobe(&kp_set_huge)) {
		unregister_kprobe(&kp_publish);
		return;
	}
	barrier_probes = true;
}

static void map_teardown(void)
{
	if (vfree_probe)
		unregister_kprobe(&kp_vfree);
	vfree_probe = false;
	if (walk_probe)
		unregister_kprobe(&kp_walk);
	walk_probe = false;
	if (noalign_probe)
		unregister_kprobe(&kp_noalign);
	noalign_probe = false;
	if (!barrier_probes)
		return;
	unregister_kprobe(&kp_set_huge);
	unregister_kprobe(&kp_publish);
	barrier_probes = false;
}

/*
 * vmap() of an order-9 page when no free range of the vmalloc space has
 * the alignment of its block (kp_noalign): from patch 7 vmap() asks for a
 * 2M-aligned area once, and when that fails maps the page with 4K PTEs in
 * a page-aligned area, as stock does, instead of failing.  Below patch 7,
 * and with nohugevmalloc, it asks for no aligned area at all.
 */
static void run_noalign_case(void)
{
	static const struct piece order9[] = { { COMP, 9, 0, G4K, G4K } };
	const unsigned int want = vmap_blocks() ? 1 : 0;

	if (!check(noalign_probe, "vmap without an aligned area: kprobe on alloc_vmap_area()"))
		return;
	nr_refused = 0;
	refuse_aligned = true;
	/*
	 * A page-aligned area: the order-9 page is reported as misaligned
	 * where a part holds a whole block (arm64: always, 64K; x86_64: only
	 * if the area happens to start on a PMD boundary).
	 */
	run_vmap_case("vmap order-9, no aligned area free", order9, 1,
		      EXP(FB_ANY, FB_ALIGN));
	refuse_aligned = false;
	check(nr_refused == want,
	      "vmap order-9, no aligned area free: %u aligned request(s) refused (got %u)",
	      want, nr_refused);
}

static int mode_map(void)
{
	char name[64];
	unsigned int k;

	map_setup();
	run_small_run_end_checks();
	/*
	 * Huge vmalloc only gets 64K blocks (arm64) for multiples of 64K:
	 * 68K keeps 4K pages and is not rounded up.
	 */
	run_area_case("vmalloc_huge 68K", SZ_64K + SZ_4K, false,
		      SZ_64K + SZ_4K + PAGE_SIZE, 0);
	run_area_case("kvmalloc fallback 68K", SZ_64K + SZ_4K, true,
		      SZ_64K + SZ_4K + PAGE_SIZE, 0);
	run_area_case("vmalloc_huge 128K area", SZ_128K, false,
		      SZ_128K + PAGE_SIZE, sub_pmd_order());
	run_area_case("kvmalloc fallback 128K", SZ_128K, true,
		      SZ_128K + PAGE_SIZE, sub_pmd_order());

	/* Single pieces of every order: aligned, so the largest granule. */
	for (k = 0; k <= 10; k++) {
		int x86 = k >= 9 ? G2M : G4K;
		int arm = k >= 9 ? G2M : k >= 4 ? G64K : G4K;
		struct piece comp = { COMP, k, 0, x86, arm };
		struct piece split = { SPLIT, k, 0, x86, arm };

		snprintf(name, sizeof(name), "vmap compound order-%u", k);
		run_vmap_case(name, &comp, 1, 0);
		snprintf(name, sizeof(name), "vmap split order-%u", k);
		run_vmap_case(name, &split, 1, 0);
	}
	/*
	 * The tail of an order-k block from its second page: 4K only, in
	 * an area aligned for no block.  Contiguous but misaligned by its
	 * place in the array (as the BPF ring buffer's data pages after its
	 * header pages): where the tail is as long as the smallest block
	 * (arm64 from order 5 on, x86_64 order 10, 1023 pages), the walk
	 * says why it got none, align, whatever the area's placement.
	 */
	for (k = 4; k <= 10; k++) {
		struct piece mis = { MISALIGN, k, 1, G4K, G4K };

		snprintf(name, sizeof(name), "vmap order-%u from pfn+1", k);
		run_vmap_case(name, &mis, 1,
			      (1U << k) - 1 >= MIN_BLOCK_PAGES ? FB_ALIGN : 0);
	}
	/*
	 * From a 64K- but not 2M-aligned PFN: cont-PTE on arm64, 4K on x86.
	 * In arm64's 64K-aligned area the 1008 pages of order 10 always hold
	 * a whole PMD, refused for its alignment; in x86_64's page-aligned
	 * one only where the area starts in the first 496 pages of a PMD
	 * (the reasons of the parts are checked either way).
	 */
	for (k = 9; k <= 10; k++) {
		struct piece mis = { MISALIGN, k, 16, G4K, G64K };

		snprintf(name, sizeof(name), "vmap order-%u from pfn+16", k);
		run_vmap_case(name, &mis, 1,
			      k == 10 ? EXP(FB_ANY, FB_ALIGN) : 0);
	}
	{
		/*
		 * Mixed: PMD; 64K; 4K singles; order-9 at a VA only 128K
		 * aligned (crosses a PMD boundary: cont-PTE on arm64, 4K on
		 * x86); split order-6 at a 128K-aligned VA; singles; a
		 * split order-10 at an odd page index (4K only).
		 */
		static const struct piece mixed[] = {
			{ COMP, 9, 0, G2M, G2M },
			{ COMP, 4, 0, G4K, G64K },
			{ SINGLES, 0, 16, G4K, G4K },
			{ COMP, 9, 0, G4K, G64K },
			{ SPLIT, 6, 0, G4K, G64K },
			{ SINGLES, 0, 3, G4K, G4K },
			{ SPLIT, 10, 0, G4K, G4K },
		};
		/* 16 singles then order-9: area 64K-aligned on arm64 only. */
		static const struct piece mixed2[] = {
			{ SINGLES, 0, 16, G4K, G4K },
			{ COMP, 9, 0, G4K, G64K },
		};
		/* Four order-9 pages: one walk, four PMDs. */
		static const struct piece pmd4[] = {
			{ COMP, 9, 0, G2M, G2M }, { SPLIT, 9, 0, G2M, G2M },
			{ COMP, 9, 0, G2M, G2M }, { SPLIT, 9, 0, G2M, G2M },
		};
		/*
		 * A PMD, then 16 contiguous pages and 16 scattered ones in
		 * turn: still one walk (the granule changes every 16 pages
		 * on arm64, after the first 2M on x86_64).
		 */
#define ALT16 { COMP, 4, 0, G4K, G64K }, { SINGLES, 0, 16, G4K, G4K }
		static const struct piece alternating[] = {
			{ COMP, 9, 0, G2M, G2M },
			ALT16, ALT16, ALT16, ALT16, ALT16, ALT16, ALT16, ALT16,
		};
#undef ALT16

		/*
		 * Built to fall back, on both arches: a whole PMD of the
		 * second piece is physically contiguous but only 1M-aligned
		 * (ALIGN: 64K blocks on arm64, 4K PTEs on x86_64), or not
		 * contiguous at all (DISCONTIG).
		 */
		static const struct piece misaligned[] = {
			{ COMP, 9, 0, G2M, G2M }, { MISALIGN, 10, 256, G4K, G64K },
		};
		static const struct piece scattered[] = {
			{ COMP, 9, 0, G2M, G2M }, { SINGLES, 0, 512, G4K, G4K },
		};

		/*
		 * Why the walk fell back (patch 15): in "mixed", PMDs of
		 * pieces that are not contiguous (DISCONTIG) and one inside
		 * the split order-10 page at an odd index (ALIGN); on arm64
		 * also 64K of scattered pages next to a 64K block.
		 */
		run_vmap_case("vmap mixed", mixed, ARRAY_SIZE(mixed),
			      FB_DISCONTIG | FB_ALIGN);
		/*
		 * Whether a whole PMD of its range holds singles or the
		 * order-9 page depends on where the area lies: the reasons
		 * of its parts are checked, not the call's.
		 */
		run_vmap_case("vmap singles+order-9", mixed2, ARRAY_SIZE(mixed2),
			      FB_ANY);
		run_vmap_case("vmap 4x order-9", pmd4, ARRAY_SIZE(pmd4), 0);
		run_vmap_case("vmap fallback: order-9, 768 pages from 1M into order-10",
			      misaligned, ARRAY_SIZE(misaligned), FB_ALIGN);
		run_vmap_case("vmap fallback: order-9, 512 scattered pages",
			      scattered, ARRAY_SIZE(scattered), FB_DISCONTIG);
		run_vmap_case("vmap alternating 16 contiguous/16 scattered",
			      alternating, ARRAY_SIZE(alternating),
			      EXP(0, FB_DISCONTIG));
	}

	run_noalign_case();

	run_vmalloc_case("vmalloc 1M", SZ_1M, false, G4K, G4K);
	run_vmalloc_case("vmalloc_huge 1M", SZ_1M, true, G4K,
			 sub_pmd_order() ? G64K : G4K);
	run_vmalloc_case("vmalloc_huge 128K", SZ_128K, true, G4K,
			 sub_pmd_order() ? G64K : G4K);
	run_vmalloc_case("vmalloc_huge 2M", SZ_2M, true, huge_pmd_gran(),
			 huge_pmd_gran());
	run_vm_map_ram_case();
	run_vfree_cases();
	run_barrier_case();
	map_teardown();
	return 0;
}

/* mode=vfree: the vfree() cases of mode=map alone. */
static int mode_vfree(void)
{
	map_setup();
	run_vfree_cases();
	map_teardown();
	return 0;
}

/* ---- ioremap of the ivshmem BAR ------------------------------------------ */

/*
 * ioremap() of [@phys, @phys + @size): every page at @gran; from patch 15,
 * the walk's reasons @fallbacks for the PTE-level parts (where @gran is
 * below PMD_SHIFT).
 */
static void run_ioremap_case(const char *name, resource_size_t phys,
			     unsigned long size, int gran, int fallbacks)
{
	unsigned long va, off, pfn, nr = size >> PAGE_SHIFT;
	unsigned int bad = 0, bad_data = 0;
	void __iomem *p;
	int g;

#ifdef CONFIG_ARM64
	caller_fn = __ioremap_prot;
#endif
	if (events)
		rec_start();
	p = ioremap(phys, size);
	rec_stop();
	if (!check(p, "%s: ioremap(%pa, %lu)", name, &phys, size))
		return;
	va = (unsigned long)p;
	for (off = 0; off < size; off += PAGE_SIZE) {
		g = kpt_granule_at(va + off, &pfn);
		if (g != gran || pfn != PHYS_PFN(phys + off))
			bad++;
	}
	check(!bad, "%s: granule shift %d and PFN on all %lu pages (%u wrong)",
	      name, gran, nr, bad);
	for (off = 0; off < size; off += SZ_64K) {
		u32 v = (u32)(off ^ 0xa5a5f00d);

		iowrite32(v, p + off + 4);
		if (ioread32(p + off + 4) != v)
			bad_data++;
	}
	check(!bad_data, "%s: MMIO writes read back (%u wrong)", name, bad_data);
	if (events) {
		struct call_want w = { name, va, size, 3 /* ioremap */, NULL,
				       gran, gran < PMD_SHIFT, fallbacks };

		check_events(&w);
	}
	caller_fn = NULL;
	iounmap(p);
	check_unmapped(name, va, nr);
}

static int mode_ioremap(void)
{
	struct pci_dev *pdev = pci_get_device(0x1af4, 0x1110, NULL);
	resource_size_t start, len;

	if (!check(pdev, "ivshmem-plain device 1af4:1110 present"))
		return -ENODEV;
	if (!check(!pci_enable_device_mem(pdev), "enable the device")) {
		pci_dev_put(pdev);
		return -EIO;
	}
	start = pci_resource_start(pdev, 2);
	len = pci_resource_len(pdev, 2);
	pr_info("BAR2 %pa size %pa\n", &start, &len);
	if (check(len >= SZ_4M && IS_ALIGNED(start, SZ_2M),
		  "BAR2 is at least 4M and 2M-aligned")) {
		run_ioremap_case("ioremap BAR2", start, len, G2M, 0);
		run_ioremap_case("ioremap BAR2+2M+64K 1M", start + SZ_2M + SZ_64K,
				 SZ_1M, has(F_CONT_IOREMAP) ? EXP(G4K, G64K) : G4K,
				 0);
		/*
		 * Built to fall back: 4M from 4K past a 2M boundary of the
		 * BAR.  The area is aligned to 4M, the physical addresses
		 * only to 4K: no PMD block (its whole PMDs are not aligned
		 * in physical memory), nor a 64K one on arm64: 4K PTEs, and
		 * the walk says why, ALIGN.
		 */
		run_ioremap_case("ioremap BAR2+2M+4K 4M (misaligned)",
				 start + SZ_2M + SZ_4K, SZ_4M, G4K, FB_ALIGN);
	}
	pci_disable_device(pdev);
	pci_dev_put(pdev);
	return 0;
}

/* ---- misuse of the internal mapping API ------------------------------------ */

static void (*p_vunmap_range)(unsigned long addr, unsigned long end);
static int (*p_vmap_page_range)(unsigned long addr, unsigned long end,
				phys_addr_t phys_addr, pgprot_t prot);
static struct vm_struct *(*p_get_vm_area)(unsigned long size,
					  unsigned long flags);
static int (*p_vmap_pages_range_noflush)(unsigned long addr,
					 unsigned long end, pgprot_t prot,
					 struct page **pages,
					 unsigned int page_shift);
static struct vm_struct *(*p_find_vm_area)(const void *addr);

/*
 * Write each page's index into its first word through the mapping at @va:
 * a pattern to read back, and a TLB entry for every page (QEMU keeps one
 * until the kernel invalidates it, as hardware may).
 */
static void touch_pages(unsigned long va, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size >> PAGE_SHIFT; i++)
		WRITE_ONCE(*(unsigned long *)(va + (i << PAGE_SHIFT)), i);
}

/*
 * After an unmap of part of [va, va + size), whose pages touch_pages()
 * wrote before it: read the first word of every page with
 * copy_from_kernel_nofault(), which must fail with -EFAULT for each page
 * that @cleared says the unmap took away (a TLB entry left behind by a
 * missing or short flush would still translate it) and read the pattern
 * back from every other one.
 */
static void check_reads_after_cut(const char *step, unsigned long va,
				  unsigned long size,
				  bool (*cleared)(unsigned long off))
{
	unsigned int stale = 0, unreadable = 0, nr_cleared = 0;
	unsigned long i, val;
	long ret;

	for (i = 0; i < size >> PAGE_SHIFT; i++) {
		ret = copy_from_kernel_nofault(&val, (void *)(va + (i << PAGE_SHIFT)),
					       sizeof(val));
		if (cleared(i << PAGE_SHIFT)) {
			nr_cleared++;
			if (ret != -EFAULT)
				stale++;
		} else if (ret || val != i) {
			unreadable++;
		}
	}
	check(!stale && nr_cleared,
	      "%s: copy_from_kernel_nofault() fails with -EFAULT on each of the %u pages cleared (%u read)",
	      step, nr_cleared, stale);
	check(!unreadable,
	      "%s: the %lu pages still mapped read back what was written (%u do not)",
	      step, (size >> PAGE_SHIFT) - nr_cleared, unreadable);
}

static void step_begin(const char *name, int warnings)
{
	pr_info("step %s expect-warn %d\n", name, warnings);
}

static void step_end(const char *name)
{
	pr_info("step %s end\n", name);
}

/* A step that cannot run on this prefix: misuse.sh counts it as skipped. */
static void step_skip(const char *name, enum feature f, const char *why)
{
	pr_info("step %s skipped: " NOT_YET_FMT ": %s\n", name, NOT_YET(f), why);
}

/*
 * vunmap_range() of [p + 32K, p + 96K) of a vmalloc_huge(128K): on arm64
 * (from patch 5, F_CONT_VMALLOC) the range starts inside one
 * contiguous-PTE block and ends inside the next.  Both blocks must be
 * cleared whole (no entry left valid with the contiguous hint next to an
 * invalid one), with one warning (F_CUT_WARN).  With 4K PTEs (x86_64,
 * arm64 below patch 5) it is a plain partial unmap.  Every page is
 * written before the cut, and every page cleared must fault afterwards:
 * the TLB flushed for the whole blocks, not only for the range asked.
 */
static bool cut_block_blocks;

/* What the cut clears: both blocks whole, or the middle 64K of 4K PTEs. */
static bool cut_block_cleared(unsigned long off)
{
	return cut_block_blocks || (off >= SZ_32K && off < SZ_64K + SZ_32K);
}

static void misuse_cut_block(void)
{
	const int gran = sub_pmd_order() ? G64K : G4K;
	const bool blocks = gran == G64K && has(F_CUT_WARN);
	unsigned long va, pfn, i, b;
	unsigned int mapped = 0, bad_gran = 0, half = 0, wrong = 0;
	void *p;
	int g;

	step_begin("cut-block", blocks ? 1 : 0);
	p = vmalloc_huge(SZ_128K, GFP_KERNEL);
	if (!check(p, "cut-block: vmalloc_huge(128K)"))
		goto out;
	va = (unsigned long)p;
	for (i = 0; i < SZ_128K; i += PAGE_SIZE)
		if (kpt_granule_at(va + i, &pfn) != gran)
			bad_gran++;
	check(!bad_gran, "cut-block: 128K mapped with shift %d before (%u wrong)",
	      gran, bad_gran);

	cut_block_blocks = blocks;
	touch_pages(va, SZ_128K);
	p_vunmap_range(va + SZ_32K, va + SZ_64K + SZ_32K);
	check_reads_after_cut("cut-block", va, SZ_128K, cut_block_cleared);

	for (b = 0; b < SZ_128K; b += SZ_64K) {
		unsigned int cont = 0, invalid = 0;

		for (i = b; i < b + SZ_64K; i += PAGE_SIZE) {
			g = kpt_granule_at(va + i, &pfn);
			if (g < 0)
				invalid++;
			else
				mapped++;
			if (g == G64K)
				cont++;
			/* 4K PTEs: only the middle 64K is unmapped. */
			if ((g >= 0) != (!blocks && (i < SZ_32K || i >= SZ_64K + SZ_32K)))
				wrong++;
		}
		if (cont && invalid)
			half++;
	}
	check(!half, "cut-block: %u of 2 blocks left valid with the contiguous bit next to invalid entries",
	      half);
	check(!wrong, "cut-block: %u pages mapped after the unmap, want %u (%u wrong)",
	      mapped, blocks ? 0 : 16, wrong);
	vfree(p);
out:
	step_end("cut-block");
}

/*
 * One 4K page mapped at a + 8K, then vmap_page_range() of a 64K block at
 * a (VA and PA 64K-aligned): -EBUSY, one warning, and the page at a + 8K
 * still mapped to its own PFN, with no contiguous entry in the block.
 * From patch 2 (F_EBUSY); stock BUG()s in vmap_pte_range() instead.
 */
static void misuse_busy_block(void)
{
	struct page *single = NULL, *block = NULL;
	struct vm_struct *area;
	unsigned long a, pfn = 0, i;
	unsigned int cont = 0;
	int ret, g;

	if (!has(F_EBUSY)) {
		step_skip("busy-block", F_EBUSY, "below it vmap_pte_range() BUG()s");
		return;
	}
	step_begin("busy-block", 1);
	area = p_get_vm_area(SZ_128K, VM_MAP);
	single = alloc_page(GFP_KERNEL);
	block = alloc_pages(GFP_KERNEL, 4);
	if (!check(area && single && block, "busy-block: area and pages"))
		goto out;
	a = ALIGN((unsigned long)area->addr, SZ_64K);
	ret = p_vmap_page_range(a + SZ_8K, a + SZ_8K + PAGE_SIZE,
				page_to_phys(single), PAGE_KERNEL);
	if (!check(!ret, "busy-block: map one page at a + 8K (%d)", ret))
		goto out;
	if (events)
		rec_start();
	ret = p_vmap_page_range(a, a + SZ_64K, page_to_phys(block), PAGE_KERNEL);
	rec_stop();
	check(ret == -EBUSY, "busy-block: a 64K block over a mapped page fails with -EBUSY (got %d)",
	      ret);
	if (events) {
		/*
		 * vmap_mapped reports what this call wrote, not the page that
		 * was at a + 8K before it: x86_64 wrote the two 4K PTEs
		 * before it, arm64 nothing (the 64K block is refused whole).
		 */
		struct call_want w = { "busy-block", a, SZ_64K, 3 /* ioremap */,
				       NULL, G4K, false, 0, -EBUSY,
				       EXP(SZ_8K, 0) };

		check_events(&w);
	}
	g = kpt_granule_at(a + SZ_8K, &pfn);
	check(g == G4K && pfn == page_to_pfn(single),
	      "busy-block: the page at a + 8K still maps its PFN 0x%lx at 4K (shift %d, PFN 0x%lx)",
	      page_to_pfn(single), g, pfn);
	for (i = 0; i < SZ_64K; i += PAGE_SIZE)
		if (kpt_granule_at(a + i, &pfn) == G64K)
			cont++;
	check(!cont, "busy-block: no contiguous entry in the block (%u)", cont);
	p_vunmap_range(a, a + SZ_64K);
out:
	if (area)
		free_vm_area(area);
	if (single)
		__free_page(single);
	if (block)
		__free_pages(block, 4);
	step_end("busy-block");
}

/*
 * vmap_pages_range_noflush() at PMD_SHIFT of 512 pages that are an
 * order-9 block except for one: the walker's contract is broken, and
 * CONFIG_DEBUG_VM must say so on the PMD branch (one warning, from patch
 * 6, F_CHUNK_CHECK).  Without DEBUG_VM, or below patch 6 (stock maps the
 * chunk with vmap_range_noflush()), nothing is checked: no warning.  The
 * PMD block is there either way.
 */
static void misuse_pmd_broken_chunk(void)
{
	struct page *big = NULL, *other = NULL, **pages = NULL;
	struct vm_struct *area;
	unsigned long a, pfn = 0, i;
	int ret, g;

	step_begin("pmd-broken-chunk",
		   IS_ENABLED(CONFIG_DEBUG_VM) && has(F_CHUNK_CHECK) ? 1 : 0);
	area = p_get_vm_area(SZ_4M, VM_MAP);
	big = alloc_pages(GFP_KERNEL | __GFP_NOWARN, PMD_SHIFT - PAGE_SHIFT);
	other = alloc_page(GFP_KERNEL);
	pages = kvcalloc(PMD_SIZE >> PAGE_SHIFT, sizeof(*pages), GFP_KERNEL);
	if (!check(area && big && other && pages, "pmd-broken-chunk: area and pages"))
		goto out;
	for (i = 0; i < PMD_SIZE >> PAGE_SHIFT; i++)
		pages[i] = big + i;
	pages[5] = other;
	a = ALIGN((unsigned long)area->addr, PMD_SIZE);
	ret = p_vmap_pages_range_noflush(a, a + PMD_SIZE, PAGE_KERNEL, pages,
					 PMD_SHIFT);
	g = kpt_granule_at(a, &pfn);
	check(!ret && g == G2M && pfn == page_to_pfn(big),
	      "pmd-broken-chunk: mapped with a PMD block (%d, shift %d)", ret, g);
	p_vunmap_range(a, a + PMD_SIZE);
out:
	if (area)
		free_vm_area(area);
	if (big)
		__free_pages(big, PMD_SHIFT - PAGE_SHIFT);
	if (other)
		__free_page(other);
	kvfree(pages);
	step_end("pmd-broken-chunk");
}

/*
 * vunmap_range() of [p + 4K, p + 8K) of a vmap() of one order-9 page,
 * which is mapped with one PMD block: the range covers part of the
 * block, and clearing a PMD clears all of it, so the owner would fault
 * on the rest of the 2M with nothing pointing at the caller.  One
 * warning, and no page of the block left mapped.  Below patch 7
 * (F_VMAP_BLOCKS) vmap() maps the page with 4K PTEs: the cut unmaps the
 * one page and nothing warns.  As for cut-block, every page cleared must
 * fault afterwards, although every page was written before the cut.
 */
static bool cut_pmd_block_pmd;

/* What the cut clears: the whole PMD block, or the one 4K page. */
static bool cut_pmd_block_cleared(unsigned long off)
{
	return cut_pmd_block_pmd || off == PAGE_SIZE;
}

static void misuse_cut_pmd_block(void)
{
	const bool pmd = has(F_VMAP_BLOCKS);
	const int gran = pmd ? G2M : G4K;
	unsigned int nr = PMD_SIZE >> PAGE_SHIFT, i, mapped = 0, want;
	struct page *big = NULL, **pages = NULL;
	unsigned long va, pfn;
	void *p = NULL;

	step_begin("cut-pmd-block", pmd ? 1 : 0);
	big = alloc_pages(GFP_KERNEL | __GFP_NOWARN, PMD_SHIFT - PAGE_SHIFT);
	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!check(big && pages, "cut-pmd-block: an order-9 page"))
		goto out;
	for (i = 0; i < nr; i++)
		pages[i] = big + i;
	p = vmap(pages, nr, VM_MAP, PAGE_KERNEL);
	if (!check(p, "cut-pmd-block: vmap() of the order-9 page"))
		goto out;
	va = (unsigned long)p;
	if (check(kpt_granule_at(va, &pfn) == gran && pfn == page_to_pfn(big),
		  "cut-pmd-block: mapped with %s before",
		  pmd ? "a PMD block" : "4K PTEs (vmap() below patch 7)")) {
		cut_pmd_block_pmd = pmd;
		touch_pages(va, PMD_SIZE);
		p_vunmap_range(va + PAGE_SIZE, va + 2 * PAGE_SIZE);
		check_reads_after_cut("cut-pmd-block", va, PMD_SIZE,
				      cut_pmd_block_cleared);
		for (i = 0; i < nr; i++)
			if (kpt_granule_at(va + i * PAGE_SIZE, &pfn) >= 0)
				mapped++;
		want = pmd ? 0 : nr - 1;
		check(mapped == want && kpt_granule_at(va + PAGE_SIZE, &pfn) < 0,
		      "cut-pmd-block: %u pages of the block mapped after the cut, want %u, the page cut %s",
		      mapped, want,
		      kpt_granule_at(va + PAGE_SIZE, &pfn) < 0 ? "unmapped" : "still mapped");
	}
	vunmap(p);
out:
	if (big)
		__free_pages(big, PMD_SHIFT - PAGE_SHIFT);
	kvfree(pages);
	step_end("cut-pmd-block");
}

/*
 * A huge vmalloc() whose page array no longer holds its own block: page
 * 1 is taken out of vm->pages and another page put in its place.  vfree()
 * must free what the array holds, page by page, and not the block the
 * first page belongs to: the page taken out keeps its one reference.
 * Nothing warns.
 */
static void misuse_foreign_page(void)
{
	struct page *taken = NULL, *other;
	struct vm_struct *vm;
	unsigned long size = EXP(SZ_2M, SZ_128K);
	void *p;

	step_begin("foreign-page", 0);
	other = alloc_page(GFP_KERNEL);
	p = vmalloc_huge(size, GFP_KERNEL);
	vm = p ? p_find_vm_area(p) : NULL;
	if (!check(other && vm && vm->nr_pages > 1, "foreign-page: vmalloc_huge(%luK) and a page",
		   size >> 10)) {
		vfree(p);
		if (other)
			__free_page(other);
		goto out;
	}
	/*
	 * PMD blocks on x86_64, 64K contiguous-PTE blocks (order 4) on arm64
	 * from patch 5 (order-0 pages before it: vfree() frees the array
	 * page by page all the same).
	 */
	check(vm->page_order == EXP(PMD_SHIFT - PAGE_SHIFT, sub_pmd_order()),
	      "foreign-page: allocated in blocks of order %u (got %u)",
	      EXP(PMD_SHIFT - PAGE_SHIFT, sub_pmd_order()), vm->page_order);
	taken = vm->pages[1];
	vm->pages[1] = other;
	vfree(p);
	if (check(page_ref_count(taken) == 1,
		  "foreign-page: the page taken out of the array keeps its reference (count %d)",
		  page_ref_count(taken)))
		__free_page(taken);
out:
	step_end("foreign-page");
}

static int mode_misuse(void)
{
	p_vunmap_range = ksym("vunmap_range");
	p_vmap_page_range = ksym("vmap_page_range");
	p_get_vm_area = ksym("get_vm_area");
	p_vmap_pages_range_noflush = ksym("vmap_pages_range_noflush");
	p_find_vm_area = ksym("find_vm_area");
	if (!check(p_vunmap_range && p_vmap_page_range && p_get_vm_area &&
		   p_vmap_pages_range_noflush && p_find_vm_area,
		   "misuse: kernel symbols found"))
		return -ENOENT;
	misuse_cut_block();
	misuse_busy_block();
	misuse_pmd_broken_chunk();
	misuse_cut_pmd_block();
	misuse_foreign_page();
	return 0;
}

/* ---- fault injection ------------------------------------------------------ */

static int mode_fault(void)
{
#ifdef CONFIG_FAULT_INJECTION
	/* PMD, 4K, then cont-PTE on arm64 at 64K-aligned page indexes. */
	static const struct piece mixed[] = {
		{ COMP, 9, 0, G2M, G2M },
		{ SINGLES, 0, 16, G4K, G4K },
		{ COMP, 6, 0, G4K, G64K },
		{ SPLIT, 9, 0, G4K, G64K },
	};
	static const unsigned long sizes[] = { SZ_64K, SZ_1M, SZ_2M, SZ_4M };
	unsigned int it, ok_vmap = 0, failed_vmap = 0, ok_vm = 0, failed_vm = 0;
	unsigned int small_vmap = 0, j;
	static struct pagevec_case c;	/* big: keep it off the stack */
	void *p;
	int i;

	for (it = 0; it < iters; it++) {
		/* The pages themselves are allocated without injection. */
		if (!build_case(&c, mixed, ARRAY_SIZE(mixed), GFP_KERNEL)) {
			current->make_it_fail = 1;
			p = vmap(c.pages, c.nr, VM_MAP, PAGE_KERNEL);
			current->make_it_fail = 0;
			if (p) {
				ok_vmap++;
				/*
				 * An injected failure in the aligned area's
				 * request (its vm_struct or vmap_area) makes
				 * vmap() map with 4K PTEs in a page-aligned
				 * area instead (patch 7): correct as well.
				 */
				if (has(F_VMAP_BLOCKS) && c.gran[0] != G4K &&
				    kpt_granule_at((unsigned long)p, NULL) == G4K) {
					for (j = 0; j < c.nr; j++)
						c.gran[j] = G4K;
					small_vmap++;
				}
				check_mapping("fault vmap", p, &c, true);
				vunmap(p);
			} else {
				failed_vmap++;
			}
			free_blocks(&c);
		}
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			unsigned long n, size = sizes[i];

			current->make_it_fail = 1;
			p = (it + i) & 1 ? vmalloc_huge(size, GFP_KERNEL) : vmalloc(size);
			current->make_it_fail = 0;
			if (!p) {
				failed_vm++;
				continue;
			}
			ok_vm++;
			for (n = 0; n < size; n += PAGE_SIZE)
				*(unsigned long *)(p + n) = n;
			for (n = 0; n < size; n += PAGE_SIZE)
				if (*(unsigned long *)(page_address(vmalloc_to_page(p + n))) != n)
					break;
			if (n != size)
				check(false, "fault vmalloc %lu: data mismatch at %lu", size, n);
			vfree(p);
		}
		cond_resched();
	}
	check(failed_vmap + failed_vm > 0,
	      "fault: injection made calls fail (vmap %u failed/%u ok, vmalloc %u failed/%u ok)",
	      failed_vmap, ok_vmap, failed_vm, ok_vm);
	check(ok_vmap + ok_vm > 0, "fault: some calls still succeeded (%u vmap() with 4K PTEs after the aligned area failed)",
	      small_vmap);
	return 0;
#else
	check(false, "fault: kernel built without CONFIG_FAULT_INJECTION");
	return -EOPNOTSUPP;
#endif
}

/* ---- a huge vmalloc() that runs out of blocks ---------------------------- */

/*
 * The area @vm of the huge vmalloc() @p, which had to fall back: @nr
 * pages of order 0, each mapped with a 4K PTE to the page the array
 * holds, as an order-0 area is mapped (arm64's set_memory_*() accepts any
 * order-0 area), and data written through the mapping is in those pages.
 */
static void check_order0_area(const char *what, struct vm_struct *vm, void *p,
			      unsigned int nr)
{
	unsigned int i, bad_page = 0, bad_gran = 0;
	unsigned long va = (unsigned long)p, pfn;

	check(vm && vm->nr_pages == nr && !vm->page_order,
	      "%s: %u pages of order 0 in the area (got %u, order %u)", what,
	      nr, vm ? vm->nr_pages : 0, vm ? vm->page_order : 0);
	if (!vm || vm->nr_pages != nr)
		return;
	for (i = 0; i < nr; i++) {
		if (vmalloc_to_page(p + i * PAGE_SIZE) != vm->pages[i])
			bad_page++;
		if (kpt_granule_at(va + i * PAGE_SIZE, &pfn) != G4K ||
		    pfn != page_to_pfn(vm->pages[i]))
			bad_gran++;
	}
	check(!bad_page, "%s: vmalloc_to_page() of %u pages (%u wrong)", what, nr, bad_page);
	check(!bad_gran, "%s: every page mapped with a 4K PTE to its page (%u wrong)",
	      what, bad_gran);
	for (i = 0; i < nr; i++)
		*(unsigned long *)(p + i * PAGE_SIZE) = i;
	for (i = 0; i < nr; i++)
		if (*(unsigned long *)page_address(vm->pages[i]) != i)
			break;
	check(i == nr, "%s: data through the mapping in the array's pages (%u of %u right)",
	      what, i, nr);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * set_memory_ro() of the order-0 area @p of @nr pages that a huge
 * vmalloc() fell back to: accepted (arm64 refuses only areas of a higher
 * page order), and afterwards every page mapped with a 4K PTE (arm64: no
 * contiguous bit) that is read-only.  A block kept as a block here would
 * have one entry of it rewritten in place.  set_memory_rw() restores it.
 */
static void check_order0_set_ro(const char *what, void *p, unsigned int nr)
{
	int (*set_ro)(unsigned long addr, int numpages) = ksym("set_memory_ro");
	int (*set_rw)(unsigned long addr, int numpages) = ksym("set_memory_rw");
	unsigned long va = (unsigned long)p;
	unsigned int i, bad = 0;
	pte_t pte;
	int ret;

	if (!check(set_ro && set_rw, "%s: set_memory_ro(), set_memory_rw() found", what))
		return;
	ret = set_ro(va, nr);
	/* Stock arm64 refuses every VM_ALLOW_HUGE_VMAP area; patch 3 only high orders. */
	if (ON_ARM64 && !has(F_CONT_IOREMAP)) {
		check(ret == -EINVAL, "%s: set_memory_ro() refused below patch 3 (%d)", what, ret);
		return;
	}
	if (!check(!ret, "%s: set_memory_ro() of the order-0 area accepted (%d)", what, ret))
		return;
	for (i = 0; i < nr; i++)
		if (!kpt_pte_4k_at(va + i * PAGE_SIZE, &pte) || pte_write(pte))
			bad++;
	check(!bad, "%s: after set_memory_ro() every page a read-only 4K PTE (%u not)",
	      what, bad);
	ret = set_rw(va, nr);
	check(!ret, "%s: set_memory_rw() of the area (%d)", what, ret);
}

/*
 * vmap areas of at least area_size reserved by this task: calls of
 * alloc_vmap_area(), counted with a kprobe.  Smaller ones are the page
 * array, vmalloc()ed itself above PAGE_SIZE.
 */
static struct task_struct *area_task;
static unsigned long area_size;
static unsigned int nr_areas;

static int count_area(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == area_task && regs_get_kernel_argument(regs, 0) >= area_size)
		nr_areas++;
	return 0;
}

static struct kprobe kp_area = { .symbol_name = "alloc_vmap_area",
				 .pre_handler = count_area };
#endif

/*
 * fault.sh arms fail_page_alloc for this task with min-order = the block
 * order of a huge vmalloc() (arm64: 4, 64K contiguous PTEs; x86_64: 9,
 * PMD) and a space of one block: a vmalloc_huge() of four blocks gets
 * its first block, then every further block is refused, while order-0
 * pages are not.  The area must be finished with order-0 pages where it
 * is: one vmap area reserved, page order 0, so that vfree() frees the
 * pages one by one (fault.sh then checks that nothing leaked), and every
 * page mapped with a 4K PTE to the page the array holds, the block it
 * got included, as an order-0 area is mapped (arm64's set_memory_*()
 * accepts any order-0 area), and set_memory_ro() of it accepted, leaving
 * every page a read-only 4K PTE.  Below patch 12 (F_FALLBACK) the area is
 * given back and a second one allocated at order 0: two areas, the rest
 * the same.
 */
static int mode_fallback(void)
{
#ifdef CONFIG_FAULT_INJECTION
	const unsigned int order = EXP(PMD_SHIFT, 16) - PAGE_SHIFT;
	const unsigned long size = 4UL << (PAGE_SHIFT + order);
	struct vm_struct *(*find)(const void *addr) = ksym("find_vm_area");
	const bool in_place = has(F_FALLBACK);
	bool probed;
	void *p;

	probed = !register_kprobe(&kp_area);
	if (!check(probed && find, "fallback: kprobe on alloc_vmap_area(), find_vm_area()")) {
		if (probed)
			unregister_kprobe(&kp_area);
		return -ENOENT;
	}
	nr_areas = 0;
	area_size = size;
	area_task = current;
	current->make_it_fail = 1;
	p = vmalloc_huge(size, GFP_KERNEL);
	current->make_it_fail = 0;
	area_task = NULL;
	unregister_kprobe(&kp_area);
	if (!check(p, "fallback: vmalloc_huge(%luK) with blocks of order %u refused after the first",
		   size >> 10, order))
		return 0;
	check(nr_areas == (in_place ? 1 : 2), "fallback: %u vmap area(s) reserved (got %u)",
	      in_place ? 1 : 2, nr_areas);
	check_order0_area("fallback", find(p), p, size >> PAGE_SHIFT);
	check_order0_set_ro("fallback", p, size >> PAGE_SHIFT);
	vfree(p);
	return 0;
#else
	check(false, "fallback: kernel built without CONFIG_FAULT_INJECTION");
	return -EOPNOTSUPP;
#endif
}

/*
 * The page-allocation passes of a huge vmalloc(): vm_area_alloc_pages()
 * calls of this task for at least one block's worth of pages (smaller
 * ones fill the page array, vmalloc()ed itself on x86_64), counted by
 * order with a kretprobe that also marks the task make-it-fail for the
 * duration of each such call only, so that fail_page_alloc (task-filter)
 * sees no other allocation of the task.
 */
#ifdef CONFIG_FAULT_INJECTION
static unsigned int pass_min_pages, nr_block_passes, nr_order0_passes;

static int pass_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (current != area_task ||
	    regs_get_kernel_argument(regs, 3) < pass_min_pages)
		return 1;	/* no return handler */
	if (regs_get_kernel_argument(regs, 2))
		nr_block_passes++;
	else
		nr_order0_passes++;
	current->make_it_fail = 1;
	return 0;
}

static int pass_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	current->make_it_fail = 0;
	return 0;
}

static struct kretprobe krp_pass = { .kp.symbol_name = "vm_area_alloc_pages",
				     .entry_handler = pass_entry,
				     .handler = pass_return, .maxactive = 4 };
#endif

/*
 * fault.sh arms fail_page_alloc at every order with a space of one block
 * plus one page: inside the passes above, the first block is granted and
 * every later allocation refused, order-0 pages included.  A huge
 * vmalloc() of four blocks with __GFP_RETRY_MAYFAIL (as kvmalloc() may
 * ask) must then fail after one block pass and one order-0 pass, in one
 * vmap area: from patch 12 the order-0 pages are tried in place, and when
 * they cannot be had that was the order-0 attempt, not a reason to reserve
 * a second area and try every page at order 0 again.  Below patch 12 the
 * area is given back after the block pass and the order-0 pass runs in a
 * second area: two areas, one order-0 pass.
 */
static int mode_fallback_fail(void)
{
#ifdef CONFIG_FAULT_INJECTION
	const unsigned int order = EXP(PMD_SHIFT, 16) - PAGE_SHIFT;
	const unsigned long size = 4UL << (PAGE_SHIFT + order);
	const unsigned int want_areas = has(F_FALLBACK) ? 1 : 2;
	void *(*alloc)(unsigned long size, unsigned long align,
		       unsigned long start, unsigned long end, gfp_t gfp,
		       pgprot_t prot, unsigned long vm_flags, int node,
		       const void *caller) = ksym("__vmalloc_node_range_noprof");
	bool areas, passes;
	void *p;

	areas = !register_kprobe(&kp_area);
	passes = !register_kretprobe(&krp_pass);
	if (!check(alloc && areas && passes,
		   "fallback-fail: __vmalloc_node_range_noprof(), kprobe on alloc_vmap_area(), kretprobe on vm_area_alloc_pages()")) {
		if (areas)
			unregister_kprobe(&kp_area);
		if (passes)
			unregister_kretprobe(&krp_pass);
		return -ENOENT;
	}
	nr_areas = nr_block_passes = nr_order0_passes = 0;
	area_size = size;
	pass_min_pages = 1U << order;
	area_task = current;
	p = alloc(size, 1, VMALLOC_START, VMALLOC_END,
		  GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN, PAGE_KERNEL,
		  VM_ALLOW_HUGE_VMAP, NUMA_NO_NODE, __builtin_return_address(0));
	area_task = NULL;
	unregister_kretprobe(&krp_pass);
	unregister_kprobe(&kp_area);
	/*
	 * The kretprobe's instances (a vmalloc()ed slot per CPU) are freed
	 * from an RCU callback: wait for it, fault.sh counts vmalloc pages.
	 */
	rcu_barrier();
	check(!p, "fallback-fail: __vmalloc_node_range(%luK, __GFP_RETRY_MAYFAIL, VM_ALLOW_HUGE_VMAP) fails when order-0 pages are refused too",
	      size >> 10);
	if (p)
		vfree(p);
	check(nr_block_passes == 1, "fallback-fail: one pass at order %u (got %u)",
	      order, nr_block_passes);
	check(nr_order0_passes == 1, "fallback-fail: one order-0 pass (got %u)",
	      nr_order0_passes);
	check(nr_areas == want_areas, "fallback-fail: %u vmap area(s) reserved (got %u)",
	      want_areas, nr_areas);
	return 0;
#else
	check(false, "fallback-fail: kernel built without CONFIG_FAULT_INJECTION");
	return -EOPNOTSUPP;
#endif
}

/* ---- a huge vmalloc() with no free block of its order --------------------- */

/*
 * This task's calls of the page allocator at alloc_order: calls of
 * __alloc_pages_noprof(), which every alloc_pages*() reaches, counted with
 * a kprobe whether they succeed or not.
 */
static struct task_struct *alloc_task;
static unsigned int alloc_order, nr_order_allocs;

static int count_order_alloc(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == alloc_task && regs_get_kernel_argument(regs, 1) == alloc_order)
		nr_order_allocs++;
	return 0;
}

static struct kprobe kp_alloc = { .symbol_name = "__alloc_pages_noprof",
				  .pre_handler = count_order_alloc };

/* Free blocks of @order or above, in every zone of every online node. */
static unsigned long nr_free_blocks_from(unsigned int order)
{
	unsigned long n = 0;
	struct zone *zone;
	unsigned int o;
	int nid;

	kfrag_for_each_zone(nid, zone)
		for (o = order; o <= MAX_PAGE_ORDER; o++)
			n += data_race(zone->free_area[o].nr_free);
	return n;
}

/*
 * A vmalloc_huge() of two 64K blocks (arm64) while no zone has a free
 * block of order 4 or more: kfrag.h takes them all first, and the free
 * lists are checked to hold none before the call.  The blocks below PMD
 * size are allocated without reclaim (patch 4), so none can be had, and
 * from patch 14 (F_NOFREE_SKIP) vm_area_alloc_pages() sees that on the
 * free lists and does not ask the page allocator for one: no call at
 * order 4.  From patch 5 to 13 it asks for one, which fails; below patch
 * 5 the area has page order 0 from the start.  Either way the area ends
 * with order-0 pages, mapped with 4K PTEs (in place from patch 12, in a
 * second area below it).  x86_64 has no block below PMD size: skipped.
 */
static int mode_nofree(void)
{
	const unsigned int order = G64K - PAGE_SHIFT;
	const unsigned long size = SZ_128K;
	const unsigned int want = sub_pmd_order() && !has(F_NOFREE_SKIP) ? 1 : 0;
	struct vm_struct *(*find)(const void *addr) = ksym("find_vm_area");
	unsigned long nr_free;
	struct kfrag f;
	void *p;

	if (!ON_ARM64) {
		pr_info("skipped: nofree: x86_64 maps no huge vmalloc() block below PMD size\n");
		return 0;
	}
	if (!check(find && !register_kprobe(&kp_alloc),
		   "nofree: kprobe on __alloc_pages_noprof(), find_vm_area()"))
		return -ENOENT;
	kfrag_init(&f);
	kfrag_take(&f, order);
	nr_free = nr_free_blocks_from(order);
	nr_order_allocs = 0;
	alloc_order = order;
	alloc_task = current;
	p = vmalloc_huge(size, GFP_KERNEL);
	alloc_task = NULL;
	unregister_kprobe(&kp_alloc);
	kfrag_release(&f);
	check(!nr_free, "nofree: no free block of order %u or more before the call (%lu)",
	      order, nr_free);
	if (!check(p, "nofree: vmalloc_huge(%luK)", size >> 10))
		return 0;
	check(nr_order_allocs == want,
	      "nofree: %u page allocator call(s) at order %u (got %u)", want, order,
	      nr_order_allocs);
	check_order0_area("nofree", find(p), p, size >> PAGE_SHIFT);
	vfree(p);
	return 0;
}

static int __init vmap_test_init(void)
{
	int ret = 0;

	nr_pass = nr_fail = 0;
	if (patches > NR_SERIES_PATCHES) {
		check(false, "patches=%u: the series has %u patches", patches,
		      NR_SERIES_PATCHES);
		pr_info("summary mode=%s pass=%u fail=%u\n", mode, nr_pass, nr_fail);
		return -EINVAL;
	}
	if (patches < NR_SERIES_PATCHES) {
		enum feature f;

		pr_info("patches=%u of %u: stock 6.12's behaviour expected for:\n",
			patches, NR_SERIES_PATCHES);
		for (f = 0; f < NR_FEATURES; f++)
			if (!has(f))
				pr_info("  patch %u: %s\n", feature[f].patch, feature[f].what);
	}
	if (!strcmp(mode, "fallback") || !strcmp(mode, "fallback-fail") ||
	    !strcmp(mode, "nofree"))
		events = false;
	if (strcmp(mode, "fault")) {
		if (events && events_attach())
			return -EINVAL;
	}
	if (!strcmp(mode, "map"))
		ret = mode_map();
	else if (!strcmp(mode, "vfree"))
		ret = mode_vfree();
	else if (!strcmp(mode, "ioremap"))
		ret = mode_ioremap();
	else if (!strcmp(mode, "fault"))
		ret = mode_fault();
	else if (!strcmp(mode, "misuse"))
		ret = mode_misuse();
	else if (!strcmp(mode, "fallback"))
		ret = mode_fallback();
	else if (!strcmp(mode, "fallback-fail"))
		ret = mode_fallback_fail();
	else if (!strcmp(mode, "nofree"))
		ret = mode_nofree();
	else
		check(false, "unknown mode '%s'", mode);
	if (strcmp(mode, "fault") && events)
		events_detach();

	if (strcmp(mode, "fault") && events)
		pr_info("recorded set_ptes=%u huge=%u granule=%u mapped=%u\n",
			nr_total[EV_SET_PTES], nr_total[EV_HUGE],
			nr_total[EV_GRANULE], nr_total[EV_MAPPED]);
	pr_info("summary mode=%s pass=%u fail=%u\n", mode, nr_pass, nr_fail);
	if (nr_fail || ret)
		return -EINVAL;
	/* fault mode stays loaded: the script looks for leaked areas. */
	return strcmp(mode, "fault") && !stay ? -EAGAIN : 0;
}

static void __exit vmap_test_exit(void)
{
}

module_init(vmap_test_init);
module_exit(vmap_test_exit);
MODULE_DESCRIPTION("vmapscope: checks of the vmap/vmalloc/ioremap block-mapping series");
MODULE_LICENSE("GPL");
