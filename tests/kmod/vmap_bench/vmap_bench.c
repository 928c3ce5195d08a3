// SPDX-License-Identifier: GPL-2.0
/*
 * vmap_bench - time vmap(), vmalloc() and ioremap() in the kernel, for
 * comparing a stock and a patched kernel (make bench-kernel).
 *
 * Cases (each run "iters" times, medians reported), in the order they run
 * (the vmap() cases last: see vmap_first below):
 *   ioremap_1M, ioremap_64M      ioremap() of the BAR2 of a QEMU ivshmem-plain
 *                                device (lab run --ivshmem 64), if present
 *   vmalloc_huge_1M, _2M         vmalloc_huge(): the whole call, and, in a
 *                                second pass of calls, the mapping part
 *                                alone: from the first entry into the
 *                                page-array mapping code (a kprobe on the
 *                                functions either kernel uses) to the
 *                                return, i.e. after the pages were allocated
 *   vfree_huge_1M, _2M           vfree() of a vmalloc_huge() area, the
 *                                allocation not timed: the series gives its
 *                                blocks back whole (free_split_page_block(),
 *                                which tests every page for poison before
 *                                and after the free), 6.12 page by page
 *   vmap_o8_100M, vmap_o9_100M   vmap() of 100 MiB made of order-8 / order-9
 *                                compound pages (vunmap() is not timed)
 *   scan_o8_100M, scan_o9_100M   the scan floor: one read of the page array
 *                                of vmap_o8_100M / vmap_o9_100M, checking
 *                                each entry against the first of its
 *                                PMD-sized run, nothing mapped (see
 *                                scan_pages())
 *   vmap_alt16_100M              vmap() of 100 MiB alternating 16 pages of an
 *                                order-4 compound page and 16 scattered pages
 *                                (arm64: 64K cont-PTE and 4K in turn; x86_64:
 *                                4K only)
 *   kvmalloc_frag_128K, _1M      kvmalloc(GFP_KERNEL) with no free block of
 *                                order 1 or more left (kvfree() not timed),
 *                                and the direct compactions it caused
 *                                (metrics compact_stall, compact_fail: per
 *                                call, and total= over the case); always
 *                                last (see bench_kvmalloc_frag_cases()),
 *                                each from no compaction failure recorded
 *   vmalloc_huge_frag_128K, _1M  the same for vmalloc_huge(GFP_KERNEL),
 *                                kvmalloc()'s vmalloc fallback alone,
 *                                without kmalloc()'s compaction attempt
 *   vmalloc_frag_128K, _1M       the same for vmalloc(GFP_KERNEL): order-0
 *                                pages without trying blocks, the floor of
 *                                the fallback on the same kernel
 *
 * Output: one line per case and metric,
 *   vmap_bench: RESULT case=NAME metric=ns|inst median=N p10=N p90=N iters=N mean=N
 * "inst" (kernel instructions retired) is reported when the CPU has a PMU
 * instruction counter; under QEMU TCG that is arm64 with -icount.
 * Every timed call starts from the same page tables on both kernels (see
 * "fresh" below).  The init returns -EAGAIN so that the module unloads
 * itself.
 */
#define pr_fmt(fmt) "vmap_bench: " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/pci.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/sort.h>
#include <linux/ktime.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/vmstat.h>

#include "kfrag.h"
#include "ksym.h"

static unsigned int iters = 30;
module_param(iters, uint, 0444);
/*
 * The cases that map with the same granule on both kernels run first, the
 * vmap() cases last: run after those, a case inherits the page tables they
 * left, and that differs between kernels (a PMD block mapping frees the PTE
 * table under it, which a kernel mapping 4K PTEs keeps), so one kernel would
 * pay a PTE-table allocation in calls where the other reuses a table.
 * vmap_first=1 runs the vmap() cases first, to see the difference.
 */
static bool vmap_first;
module_param(vmap_first, bool, 0444);

/*
 * frag=0 leaves the fragmenting cases out.  make bench-kernel runs them in
 * a guest boot of their own (cases=frag): what kvmalloc()'s kmalloc()
 * attempt reclaims and compacts depends on what the cases before it left
 * in memory, and those differ between the kernels.
 */
static bool frag = true;
module_param(frag, bool, 0444);
/*
 * Before each timed call (untimed), free the lazily unmapped areas with
 * vm_unmap_aliases(), so that every call finds the same free vmalloc space
 * and the same page tables under it as the previous one, on both kernels.
 * Without it, calls land on address ranges that earlier calls or cases
 * left with PTE tables (which a PMD mapping must free first) or without
 * them (which a PTE mapping must allocate), and how many do depends on
 * each kernel's history.  fresh=0 restores that behaviour.
 */
static bool fresh = true;
module_param(fresh, bool, 0444);

/*
 * Only the cases named here (comma-separated, e.g. "ioremap_1M,vmap_o9_100M";
 * empty: every case; a word of the names selects every case whose name
 * has it between underscores: "scan,frag" runs scan_o8_100M, scan_o9_100M
 * and the kvmalloc_frag cases), and without the second, probed pass of the vmalloc
 * cases with map_pass=0: the tool-overhead benchmark's observer row
 * (tests/guest/overhead/observer.sh) times single cases with and without
 * vmapstat attached, whose mapping time must not include this module's
 * own kprobe; ioremap_map=1 adds the ioremap cases' mapping part alone
 * (map_ns, see bench_ioremap()).
 */
static char *cases = "";
module_param(cases, charp, 0444);
MODULE_PARM_DESC(cases, "comma-separated case names to run (default: all)");
static bool map_pass = true;
module_param(map_pass, bool, 0444);
MODULE_PARM_DESC(map_pass, "vmalloc cases: second pass with the mapping-start probe (map_ns)");
static bool ioremap_map;
module_param(ioremap_map, bool, 0444);
MODULE_PARM_DESC(ioremap_map, "ioremap cases: the same second pass (default off)");

/* Whether @name has the @n characters at @tok as a whole '_'-separated part. */
static bool name_has(const char *name, const char *tok, size_t n)
{
	const char *p;

	for (p = name; *p; p++)
		if ((p == name || p[-1] == '_') && !strncmp(p, tok, n) &&
		    (!p[n] || p[n] == '_'))
			return true;
	return false;
}

static bool want(const char *name)
{
	const char *p = cases;
	size_t n;

	if (!p || !*p)
		return true;
	for (; *p; p += n + !!p[n]) {
		n = strcspn(p, ",");
		if (n && name_has(name, p, n))
			return true;
	}
	return false;
}

static void bench_purge(void)
{
	if (fresh)
		vm_unmap_aliases();
}
MODULE_PARM_DESC(iters, "iterations per case (vmap 100M cases use iters/3, at least 5)");

#define MAX_ITERS 1000

static u64 t_ns[MAX_ITERS], t_map_ns[MAX_ITERS], t_inst[MAX_ITERS];
static struct perf_event *inst_ev;

/* ---- instruction counter -------------------------------------------- */

static void inst_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.size = sizeof(attr),
		.pinned = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
	};

	inst_ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(inst_ev)) {
		pr_info("no instruction counter (%ld): reporting time only\n",
			PTR_ERR(inst_ev));
		inst_ev = NULL;
	}
}

static u64 inst_read(void)
{
	u64 enabled, running;

	return inst_ev ? perf_event_read_value(inst_ev, &enabled, &running) : 0;
}

/*
 * One timed call, bracketed by timed_start() and timed_stop(): its time
 * and instructions go to t_ns[i] and t_inst[i].  Inlined, so that the
 * start values stay in registers as the callers' own locals would.
 */
struct timed {
	u64 ns, inst;
};

static __always_inline void timed_start(struct timed *t)
{
	t->inst = inst_read();
	t->ns = ktime_get_ns();
}

static __always_inline void timed_stop(struct timed *t, unsigned int i)
{
	t_ns[i] = ktime_get_ns() - t->ns;
	t_inst[i] = inst_read() - t->inst;
}

/* ---- mapping-start probes ---------------------------------------------- */

/*
 * vmalloc() allocates its pages, then maps them.  The patched kernel enters
 * the mapping code once per call through one of its two page-array walks
 * (the one for order-0 arrays, or the one that may set blocks): a probe
 * goes on each that exists, and the first hit in a call marks its start.
 * Stock 6.12 enters through vmap_pages_range_noflush(), which its vmalloc()
 * path inlines: the probe is placed but not hit there.  A probe hit costs
 * hundreds of instructions (a trap and a single step), so the calls timed
 * for "ns" and "inst" run without it, and a second pass with the probe
 * gives "map_ns" only.
 */
static const char * const walk_syms[] = {
	"vmap_small_pages_walk",
	"vmap_pages_range_noflush_walk",
	NULL
};
static const char * const stock_map_syms[] = {
	"vmap_pages_range_noflush",
	NULL
};
static struct kprobe kps[ARRAY_SIZE(walk_syms) - 1];
static unsigned int nr_kps;
static struct task_struct *probe_task;
static u64 t_map_start;

static int map_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(probe_task) && !t_map_start)
		t_map_start = ktime_get_ns();
	return 0;
}

/* Place a probe on every symbol of @syms that exists; return how many. */
static unsigned int probes_on(const char * const *syms)
{
	int i;

	for (i = 0; syms[i] && nr_kps < ARRAY_SIZE(kps); i++) {
		struct kprobe *kp = &kps[nr_kps];

		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = syms[i];
		kp->pre_handler = map_pre;
		if (!register_kprobe(kp)) {
			nr_kps++;
			pr_info("mapping start probe on %s\n", syms[i]);
		}
	}
	return nr_kps;
}

static void probes_off(void)
{
	while (nr_kps)
		unregister_kprobe(&kps[--nr_kps]);
}

/* ---- statistics -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Print a case's RESULT line: median, p10, p90 and mean of @v (sorted in
 * place), and with @total the sum too (event counts per call).
 */
static void report_line(const char *name, const char *metric, u64 *v,
			unsigned int n, bool total)
{
	u64 sum = 0;
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	if (total)
		pr_info("RESULT case=%s metric=%s median=%llu p10=%llu p90=%llu iters=%u mean=%llu total=%llu\n",
			name, metric, v[n / 2], v[n / 10], v[n * 9 / 10], n,
			div_u64(sum, n), sum);
	else
		pr_info("RESULT case=%s metric=%s median=%llu p10=%llu p90=%llu iters=%u mean=%llu\n",
			name, metric, v[n / 2], v[n / 10], v[n * 9 / 10], n,
			div_u64(sum, n));
}

static void report(const char *name, const char *metric, u64 *v, unsigned int n)
{
	report_line(name, metric, v, n, false);
}

/* The same for an event count per call, with the case's total. */
static void report_count(const char *name, const char *metric, u64 *v, unsigned int n)
{
	report_line(name, metric, v, n, true);
}

/* ---- cases ----------------------------------------------------------------------- */

/* Time @n vmap() + vunmap() of the same @pages, each from purged lazy areas. */
static void bench_vmap_calls(const char *name, struct page **pages, unsigned int nr,
			     unsigned int n)
{
	unsigned int i;
	struct timed t;
	void *p;

	for (i = 0; i < n; i++) {
		bench_purge();
		timed_start(&t);
		p = vmap(pages, nr, VM_MAP, PAGE_KERNEL);
		timed_stop(&t, i);
		if (!p) {
			pr_info("%s: vmap failed\n", name);
			return;
		}
		vunmap(p);
		cond_resched();
	}
	report(name, "ns", t_ns, n);
	if (inst_ev)
		report(name, "inst", t_inst, n);
}

/*
 * The scan floor of vmap() of a page array: what reading the array once
 * costs, with the cheapest contiguity check, and nothing mapped.  vmap()
 * must read every entry to know that a run is contiguous, so it cannot
 * cost less; vmap_oN_100M / scan_oN_100M is what the page tables and the
 * rest of vmap() add to that.  Each entry is read once and compared with
 * the first entry of its PMD-sized run plus its index (struct pages of
 * such a run are consecutive in every memory model), the differences are
 * ORed together, eight entries per step, and one branch at the end (the
 * caller's) looks at the result: the check the series' vmap() makes per
 * PMD-sized run, without its extra read of the run's last entry first.
 * Plain loads, which the compiler may pair as vmap()'s; the kernel is
 * built without SIMD (-mgeneral-regs-only on arm64, -mno-sse... on x86),
 * so the loop cannot be vectorized, in vmap() or here.  noinline and the
 * barrier() make each call a real scan of memory, the result goes to
 * scan_sink so that it is not dropped.
 */
#define SCAN_RUN	(PMD_SIZE >> PAGE_SHIFT)

static unsigned long scan_sink;

static noinline unsigned long scan_pages(struct page **pages, unsigned int nr)
{
	unsigned long mismatch = 0;
	unsigned int i = 0, j;

	barrier();
	for (; nr - i >= SCAN_RUN; i += SCAN_RUN) {
		struct page **p = pages + i;
		struct page *first = p[0];

		for (j = 0; j < SCAN_RUN; j += 8, p += 8)
			mismatch |= ((unsigned long)p[0] ^ (unsigned long)(first + j)) |
				    ((unsigned long)p[1] ^ (unsigned long)(first + j + 1)) |
				    ((unsigned long)p[2] ^ (unsigned long)(first + j + 2)) |
				    ((unsigned long)p[3] ^ (unsigned long)(first + j + 3)) |
				    ((unsigned long)p[4] ^ (unsigned long)(first + j + 4)) |
				    ((unsigned long)p[5] ^ (unsigned long)(first + j + 5)) |
				    ((unsigned long)p[6] ^ (unsigned long)(first + j + 6)) |
				    ((unsigned long)p[7] ^ (unsigned long)(first + j + 7));
	}
	/* A last, shorter run (none for 100 MiB). */
	for (j = i; j < nr; j++)
		mismatch |= (unsigned long)pages[j] ^ (unsigned long)(pages[i] + (j - i));
	barrier();
	return mismatch;
}

/* Time @n scans of the array that vmap() maps in the same run. */
static void bench_scan_calls(const char *name, struct page **pages, unsigned int nr,
			     unsigned int n)
{
	unsigned int i, runs_ok = 0;
	unsigned long m;
	struct timed t;

	for (i = 0; i < n; i++) {
		bench_purge();
		timed_start(&t);
		m = scan_pages(pages, nr);
		timed_stop(&t, i);
		if (!m)
			runs_ok++;
		WRITE_ONCE(scan_sink, m);
		cond_resched();
	}
	pr_info("%s: %u pages, every %lu-page run contiguous: %s\n", name, nr,
		(unsigned long)SCAN_RUN, runs_ok == n ? "yes" : runs_ok ? "varies" : "no");
	report(name, "ns", t_ns, n);
	if (inst_ev)
		report(name, "inst", t_inst, n);
}

/*
 * vmap() of 100 MiB of order-@order pages (case @name) and the scan floor
 * of the same array (case @scan_name), each if wanted.
 */
static void bench_vmap(const char *name, const char *scan_name, unsigned int order,
		       unsigned int n)
{
	unsigned int nr_big = SZ_1M * 100 / (PAGE_SIZE << order);
	unsigned int nr = nr_big << order, i, j;
	struct page **big, **pages, **spare = NULL;

	big = kcalloc(nr_big, sizeof(*big), GFP_KERNEL);
	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!big || !pages)
		goto out;
	/*
	 * Fresh memory hands out consecutive blocks: two adjacent order-8
	 * pages would form an aligned order-9 run and get a PMD.  Keep
	 * every other block (the skipped ones stay allocated in between)
	 * so that each block is its own physically contiguous chunk.
	 */
	spare = kcalloc(nr_big, sizeof(*spare), GFP_KERNEL);
	if (!spare)
		goto out;
	for (i = 0; i < nr_big; i++) {
		big[i] = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN, order);
		spare[i] = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN, order);
		if (!big[i] || !spare[i]) {
			pr_info("%s: cannot allocate order-%u pages, skipped\n", name, order);
			goto out;
		}
		for (j = 0; j < 1U << order; j++)
			pages[(i << order) + j] = big[i] + j;
	}
	if (want(name))
		bench_vmap_calls(name, pages, nr, n);
	if (want(scan_name))
		bench_scan_calls(scan_name, pages, nr, n);
out:
	for (i = 0; big && i < nr_big; i++) {
		if (big[i])
			__free_pages(big[i], order);
		if (spare && spare[i])
			__free_pages(spare[i], order);
	}
	kfree(spare);
	kfree(big);
	kvfree(pages);
}

static void bench_vfree(const char *name, unsigned long size, unsigned int n)
{
	unsigned int i;
	struct timed t;
	void *p;

	for (i = 0; i < n; i++) {
		bench_purge();
		p = vmalloc_huge(size, GFP_KERNEL);
		if (!p) {
			pr_info("%s: vmalloc_huge failed\n", name);
			break;
		}
		timed_start(&t);
		vfree(p);
		timed_stop(&t, i);
		cond_resched();
	}
	report(name, "ns", t_ns, i);
	if (inst_ev)
		report(name, "inst", t_inst, i);
}

static void bench_vmalloc(const char *name, unsigned long size, unsigned int n)
{
	unsigned int i, nmap = 0;
	struct timed t;
	u64 t1;
	void *p;

	for (i = 0; i < n; i++) {
		bench_purge();
		timed_start(&t);
		p = vmalloc_huge(size, GFP_KERNEL);
		timed_stop(&t, i);
		if (!p) {
			pr_info("%s: vmalloc_huge failed\n", name);
			break;
		}
		vfree(p);
		cond_resched();
	}
	report(name, "ns", t_ns, i);
	if (inst_ev)
		report(name, "inst", t_inst, i);

	/* The mapping part alone, in calls of their own, with the probe. */
	if (!map_pass)
		return;
	if (!probes_on(walk_syms) && !probes_on(stock_map_syms)) {
		pr_info("%s: no mapping-start probe could be placed: map_ns not reported\n",
			name);
		return;
	}
	WRITE_ONCE(probe_task, current);
	for (i = 0; i < n; i++) {
		bench_purge();
		t_map_start = 0;
		p = vmalloc_huge(size, GFP_KERNEL);
		t1 = ktime_get_ns();
		if (!p)
			break;
		if (t_map_start)
			t_map_ns[nmap++] = t1 - t_map_start;
		vfree(p);
		cond_resched();
	}
	WRITE_ONCE(probe_task, NULL);
	probes_off();
	if (nmap && nmap == i)
		report(name, "map_ns", t_map_ns, nmap);
	else
		pr_info("%s: mapping start seen in %u of %u calls, map_ns not reported\n",
			name, nmap, i);
}

/*
 * vmap_page_range() and get_vm_area_caller() are not exported: found
 * through kallsyms (which a kprobe finds).
 */
static int (*p_vmap_page_range)(unsigned long addr, unsigned long end,
				phys_addr_t phys_addr, pgprot_t prot);
static struct vm_struct *(*p_get_vm_area_caller)(unsigned long size,
						 unsigned long flags,
						 const void *caller);

static void bench_ioremap(const char *name, resource_size_t phys,
			  unsigned long size, unsigned int n)
{
	struct vm_struct *area;
	unsigned int i, nmap;
	void __iomem *p;
	struct timed t;
	unsigned long a;
	u64 t0, t1;
	int err;

	for (i = 0; i < n; i++) {
		bench_purge();
		timed_start(&t);
		p = ioremap(phys, size);
		timed_stop(&t, i);
		if (!p) {
			pr_info("%s: ioremap failed\n", name);
			return;
		}
		iounmap(p);
		cond_resched();
	}
	report(name, "ns", t_ns, n);
	if (inst_ev)
		report(name, "inst", t_inst, n);

	/*
	 * The mapping part alone (ioremap_map, which the observer row sets),
	 * where the kernel's own clock (vmalloc:vmap_mapped's ns) runs:
	 * vmap_page_range() of the same physical range into an area of the
	 * same size, flags and so alignment that this module reserves, ktime
	 * around the call, in calls of their own and with no probe.  ioremap()
	 * reserves its area, then ioremap_page_range() looks it up and checks
	 * it before the same mapping; vmap_page_range() is that mapping alone.
	 */
	if (!ioremap_map)
		return;
	if (!p_vmap_page_range || !p_get_vm_area_caller) {
		p_vmap_page_range = ksym("vmap_page_range");
		p_get_vm_area_caller = ksym("get_vm_area_caller");
	}
	if (!p_vmap_page_range || !p_get_vm_area_caller) {
		pr_info("%s: vmap_page_range() or get_vm_area_caller() not found: map_ns not reported\n",
			name);
		return;
	}
	for (i = 0, nmap = 0; i < n; i++) {
		bench_purge();
		area = p_get_vm_area_caller(size, VM_IOREMAP,
					    __builtin_return_address(0));
		if (!area)
			break;
		a = (unsigned long)area->addr;
		t0 = ktime_get_ns();
		err = p_vmap_page_range(a, a + size, phys, pgprot_noncached(PAGE_KERNEL));
		t1 = ktime_get_ns();
		free_vm_area(area);
		if (err)
			break;
		t_map_ns[nmap++] = t1 - t0;
		cond_resched();
	}
	if (nmap && nmap == n)
		report(name, "map_ns", t_map_ns, nmap);
	else
		pr_info("%s: %u of %u vmap_page_range() calls mapped, map_ns not reported\n",
			name, nmap, n);
}

/*
 * vmap() of 100 MiB made of 16 pages of an order-4 compound page, then 16
 * scattered pages (every other page of a split order-5 block), in turn: a
 * change of granule every 16 pages on arm64.
 */
static void bench_vmap_alt16(const char *name, unsigned int n)
{
	unsigned int nr_groups = SZ_1M * 100 / (PAGE_SIZE * 32);
	unsigned int nr = nr_groups * 32, i, j;
	struct page **blk = NULL, **sc = NULL, **pages;

	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	blk = kcalloc(nr_groups, sizeof(*blk), GFP_KERNEL);
	sc = kcalloc(nr_groups, sizeof(*sc), GFP_KERNEL);
	if (!pages || !blk || !sc)
		goto out;
	for (i = 0; i < nr_groups; i++) {
		sc[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 5);
		if (sc[i])
			split_page(sc[i], 5);
		blk[i] = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN, 4);
		if (!blk[i] || !sc[i]) {
			pr_info("%s: cannot allocate the pages, skipped\n", name);
			goto out;
		}
		for (j = 0; j < 16; j++) {
			pages[i * 32 + j] = blk[i] + j;
			pages[i * 32 + 16 + j] = sc[i] + 2 * j;
		}
	}
	bench_vmap_calls(name, pages, nr, n);
out:
	for (i = 0; blk && i < nr_groups; i++) {
		if (blk[i])
			__free_pages(blk[i], 4);
		if (sc && sc[i])
			for (j = 0; j < 32; j++)
				__free_page(sc[i] + j);
	}
	kfree(sc);
	kfree(blk);
	kvfree(pages);
}

static void bench_vmap_cases(unsigned int n)
{
	if (want("vmap_o8_100M") || want("scan_o8_100M"))
		bench_vmap("vmap_o8_100M", "scan_o8_100M", 8, max(n / 3, 5U));
	if (want("vmap_o9_100M") || want("scan_o9_100M"))
		bench_vmap("vmap_o9_100M", "scan_o9_100M", 9, max(n / 3, 5U));
	if (want("vmap_alt16_100M"))
		bench_vmap_alt16("vmap_alt16_100M", max(n / 3, 5U));
}

/* ioremap() of the BAR2 of a QEMU ivshmem-plain device (lab run --ivshmem 64). */
static void bench_ioremap_cases(unsigned int n)
{
	struct pci_dev *pdev = pci_get_device(0x1af4, 0x1110, NULL);

	if (pdev && !pci_enable_device_mem(pdev)) {
		resource_size_t bar = pci_resource_start(pdev, 2);

		if (pci_resource_len(pdev, 2) >= SZ_64M) {
			if (want("ioremap_1M"))
				bench_ioremap("ioremap_1M", bar, SZ_1M, n);
			if (want("ioremap_64M"))
				bench_ioremap("ioremap_64M", bar, SZ_64M, n);
		}
		pci_disable_device(pdev);
	} else {
		pr_info("no ivshmem-plain device: ioremap cases skipped\n");
	}
	pci_dev_put(pdev);
}

/* ---- kvmalloc() under fragmentation ----------------------------------------- */

/*
 * Fragment the free memory down to order 1 (kfrag.h): no free block of
 * order 1 or more left, about half of the free memory still free, in
 * single pages.
 */
static struct kfrag frag_kept;

static bool frag_setup(void)
{
	unsigned long free0 = global_zone_page_state(NR_FREE_PAGES);
	unsigned long held = 0, blocks = 0;
	struct page *page;
	unsigned int order;

	kfrag_init(&frag_kept);
	kfrag_take(&frag_kept, 1);
	for (order = 1; order <= MAX_PAGE_ORDER; order++) {
		blocks += frag_kept.nr[order];
		held += frag_kept.nr[order] << (order - 1);
	}
	pr_info("kvmalloc_frag: %lu blocks of order 1-%u taken, %lu pages kept, %lu of %lu pages free, in single pages\n",
		blocks, MAX_PAGE_ORDER, held, global_zone_page_state(NR_FREE_PAGES),
		free0);
	/* The check: an order-1 allocation as the kernel's own would try it. */
	page = alloc_pages(GFP_NOWAIT | __GFP_NOWARN, 1);
	if (page) {
		pr_info("kvmalloc_frag: NOT fragmented: an order-1 allocation still succeeded (block kept)\n");
		kfrag_keep(&frag_kept, page, 1);
	} else {
		pr_info("kvmalloc_frag: fragmented: an order-1 allocation fails\n");
	}
	return blocks;
}

#ifdef CONFIG_COMPACTION
static unsigned long ev0[NR_VM_EVENT_ITEMS], ev1[NR_VM_EVENT_ITEMS];
static u64 t_stall[MAX_ITERS], t_fail[MAX_ITERS];
static u64 t_mscan[MAX_ITERS], t_fscan[MAX_ITERS];

/*
 * Put the compaction deferral of every zone back to its boot state: no
 * failed compaction recorded.  Whether a kmalloc() attempt compacts or
 * finds compaction deferred depends on the failures before it (compaction
 * is skipped for up to 64 attempts after one), and what ran before a case
 * (the other cases when frag=1, the other fragmented cases otherwise) is
 * not the same on both kernels.  With this, each case starts where the
 * first one would, and kvmalloc()'s median follows the kernel.
 */
static void frag_reset_compaction(void)
{
	struct zone *zone;
	int nid;

	kfrag_for_each_zone(nid, zone) {
		zone->compact_considered = 0;
		zone->compact_defer_shift = 0;
		zone->compact_order_failed = 0;
	}
}
#else
static void frag_reset_compaction(void)
{
}
#endif

/*
 * Time @n kvmalloc(@size, GFP_KERNEL), each from the fragmented state:
 * before every call (untimed), whatever blocks of order >= 1 became free
 * since (a block kvfree() gave back, pages a per-CPU list released) are
 * taken again.  kmalloc() is tried first (order 5 for 128K, 8 for 1M,
 * __GFP_NORETRY: one direct compaction and reclaim attempt, the same on
 * both kernels), then vmalloc(): order-0 pages on stock and on x86_64,
 * 64K blocks (order 4) first on the patched arm64 kernel, taken without
 * reclaim or compaction (vm_area_pages_gfp()), falling back to order 0;
 * from the series' patch 15 not even tried when no zone has a free block
 * of order 4 or more, as here.  Every case starts from the boot state of
 * the compaction deferral (frag_reset_compaction()).
 * The compaction counted is the system's (vm events compact_stall,
 * compact_fail and the pages the migration and free scanners looked at),
 * read around each call.  make bench-kernel boots these cases on one CPU:
 * kswapd and kcompactd then run only where the call yields, at the same
 * points on both kernels.  With a second CPU they race the call, and
 * whether kcompactd's failed compaction defers the next kmalloc()
 * attempts decides each boot's median (docs/benchmarks.md).
 */
static void *frag_kvmalloc(size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

/*
 * kvmalloc()'s vmalloc fallback alone (vmalloc_huge() makes the same
 * __vmalloc_node_range() call, VM_ALLOW_HUGE_VMAP): without kmalloc()'s
 * attempt, whose compaction and its deferral decide most of a kvmalloc()
 * call's time on fragmented memory and are the same on both kernels.
 */
static void *frag_vmalloc_huge(size_t size)
{
	return vmalloc_huge(size, GFP_KERNEL);
}

/*
 * The same size without VM_ALLOW_HUGE_VMAP: order-0 pages from the start,
 * the floor of the fallback on the same kernel.
 */
static void *frag_vmalloc(size_t size)
{
	return vmalloc(size);
}

static void bench_kvmalloc_frag(const char *name, size_t size, unsigned int n,
				void *(*alloc)(size_t size))
{
	unsigned int i, nr_kmalloc = 0;
	unsigned long retaken = 0;
	struct timed t;
	void *p;

	frag_reset_compaction();
	for (i = 0; i < n; i++) {
		retaken += kfrag_take(&frag_kept, 1);
		bench_purge();
#ifdef CONFIG_COMPACTION
		all_vm_events(ev0);
#endif
		timed_start(&t);
		p = alloc(size);
		timed_stop(&t, i);
#ifdef CONFIG_COMPACTION
		all_vm_events(ev1);
		t_stall[i] = ev1[COMPACTSTALL] - ev0[COMPACTSTALL];
		t_fail[i] = ev1[COMPACTFAIL] - ev0[COMPACTFAIL];
		t_mscan[i] = ev1[COMPACTMIGRATE_SCANNED] -
			     ev0[COMPACTMIGRATE_SCANNED];
		t_fscan[i] = ev1[COMPACTFREE_SCANNED] - ev0[COMPACTFREE_SCANNED];
#endif
		if (!p) {
			pr_info("%s: allocation failed\n", name);
			break;
		}
		if (!is_vmalloc_addr(p))
			nr_kmalloc++;
		kvfree(p);
		cond_resched();
	}
	pr_info("%s: %u of %u calls served by kmalloc(), %lu blocks taken again between calls\n",
		name, nr_kmalloc, i, retaken);
	report(name, "ns", t_ns, i);
	if (inst_ev)
		report(name, "inst", t_inst, i);
#ifdef CONFIG_COMPACTION
	report_count(name, "compact_stall", t_stall, i);
	report_count(name, "compact_fail", t_fail, i);
	report_count(name, "compact_migrate_scanned", t_mscan, i);
	report_count(name, "compact_free_scanned", t_fscan, i);
#else
	pr_info("%s: no CONFIG_COMPACTION: compaction counts not reported\n", name);
#endif
}

/*
 * The fragmenting cases run last, after every other case (vmap_first or
 * not): they leave the free memory in other pieces and the compaction
 * deferral state changed, which the other cases must not see.  About half
 * of the free memory stays free; everything is given back afterwards.
 */
static void bench_kvmalloc_frag_cases(unsigned int n)
{
	static const struct {
		const char *name;
		size_t size;
		void *(*alloc)(size_t size);
	} cases[] = {
		/*
		 * kvmalloc() last: its kmalloc() attempts reclaim, which
		 * changes what the free lists and the per-CPU lists hold
		 * for the cases after it, differently run by run.
		 */
		{ "vmalloc_frag_128K", SZ_128K, frag_vmalloc },
		{ "vmalloc_frag_1M", SZ_1M, frag_vmalloc },
		{ "vmalloc_huge_frag_128K", SZ_128K, frag_vmalloc_huge },
		{ "vmalloc_huge_frag_1M", SZ_1M, frag_vmalloc_huge },
		{ "kvmalloc_frag_128K", SZ_128K, frag_kvmalloc },
		{ "kvmalloc_frag_1M", SZ_1M, frag_kvmalloc },
	};
	unsigned int i;
	bool any = false;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		any |= want(cases[i].name);
	if (!any)
		return;
	if (!frag_setup())
		pr_info("kvmalloc_frag: no free block of order >= 1 to take\n");
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (want(cases[i].name))
			bench_kvmalloc_frag(cases[i].name, cases[i].size, n,
					    cases[i].alloc);
	kfrag_release(&frag_kept);
}

static int __init vmap_bench_init(void)
{
	unsigned int n = clamp(iters, 5U, (unsigned int)MAX_ITERS);

	inst_open();
	if (vmap_first)
		bench_vmap_cases(n);
	if (want("ioremap_1M") || want("ioremap_64M"))
		bench_ioremap_cases(n);
	if (want("vmalloc_huge_1M"))
		bench_vmalloc("vmalloc_huge_1M", SZ_1M, n);
	if (want("vmalloc_huge_2M"))
		bench_vmalloc("vmalloc_huge_2M", SZ_2M, n);
	if (want("vfree_huge_1M"))
		bench_vfree("vfree_huge_1M", SZ_1M, n);
	if (want("vfree_huge_2M"))
		bench_vfree("vfree_huge_2M", SZ_2M, n);
	if (!vmap_first)
		bench_vmap_cases(n);
	if (frag)
		bench_kvmalloc_frag_cases(n);

	if (inst_ev)
		perf_event_release_kernel(inst_ev);
	pr_info("done\n");
	return -EAGAIN;
}

module_init(vmap_bench_init);
MODULE_DESCRIPTION("vmapscope: in-kernel vmap/vmalloc/ioremap timings");
MODULE_LICENSE("GPL");
