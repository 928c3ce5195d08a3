// SPDX-License-Identifier: GPL-2.0
/*
 * vmap_poison - memory_failure() racing vfree() of the blocks of huge
 * vmalloc() areas (tests/guest/kernel/poison_race.sh, debug kernels).
 *
 * vfree() gives each block of a huge vmalloc() area (order 9; arm64 also
 * order 4 for 1M areas) back to the page allocator whole through
 * free_split_page_block(), which first tests every page: not HWPoison,
 * and page_ref_freeze() succeeds.  free_pages_prepare() keeps a poisoned
 * page out of the free lists at order 0 only, so a page that
 * memory_failure() marks after that test reaches the free lists inside
 * its block.  The series relies on memory_failure() then finding it free
 * and taking it off (take_page_off_buddy()).  This module checks that no
 * poisoned page stays in the free lists or is handed out again, wherever
 * the poison lands.
 *
 * Two threads, bound to CPUs 0 and 1.  The freer allocates an area, picks
 * a random page of a random block, publishes it and vfree()s the area;
 * the poisoner calls memory_failure(pfn, MF_SW_SIMULATED) on the page at a
 * moment chosen by the shot's aim, which rotates:
 * - after:  once vfree() returned (the block is free);
 * - random: after a random delay from the publication, racing vfree()
 *   with no kprobe: between 1/2 and 3/2 of a delay that follows the
 *   window (a shot that lands before the test lengthens it by a quarter,
 *   one after the free shortens it; it starts at half the mean vfree()
 *   time);
 * - check:  a kprobe on free_split_page_block() holds the freer at the
 *   block until the page is poisoned (before the test);
 * - window: a kprobe on free_unref_page() holds the freer at the block's
 *   whole free until the page is poisoned (after the test, before the
 *   free).
 * With one CPU online (the x86_64 debug guest: no ACPI, and QEMU's MP
 * table lists the boot CPU only) both threads share it and only "after"
 * and "random" shots are made; without preemption (PREEMPT_NONE) the
 * poisoner then runs before vfree() or after it, never inside.
 * Where the poison landed is read from the freer's side (the kprobe on
 * free_unref_page() watches the block): "check" if the block went back
 * page by page with the page already poisoned (the test saw it),
 * "window" if it went back whole with the page poisoned when the free
 * began, "after" if it went back whole before the poison, "other"
 * otherwise (the block refused for another reason).
 *
 * After every shot: the page is HWPoison, and not free in the buddy
 * allocator once the per-CPU lists are drained (drain_all_pages());
 * every page of every new area is checked against the poisoned pages.
 * At the end, all poisoned pages are checked again, then a burst of
 * allocations (order 9, then 4, then 0, no reclaim, until 32M are left
 * free) must not return one; a block the burst gets with a poisoned
 * page in it is kept, never freed.  The allocator's own check
 * (check_new_pages(), on with DEBUG_VM) drops a free block that holds a
 * poisoned page without a word: a kernel without DEBUG_VM would hand it
 * out.  The buddy check is what catches that on these kernels.
 *
 * max_poison=N (default 64, at most 256): the shots, one page poisoned
 * each; a poisoned page is lost to the system (4K each; a block that the
 * allocator drops at allocation, 2M or 64K each, is lost whole).
 * secs=S (default 300): an upper bound on the race.
 * inject=1: after the race, one order-9 block with a poisoned page is
 * freed whole, bypassing free_split_page_block()'s test, as the window
 * does: the buddy check must fail.  inject=2: the same, and the burst
 * runs with the allocator's new-page check off (check_pages_enabled, as
 * on a kernel without DEBUG_VM): the burst must get the page too.
 * inject=3: the "window" shots hold the freer until memory_failure() has
 * returned, not only until the page is marked: a free delayed between
 * the test and the free (an interrupt, a preempted vCPU) past
 * memory_failure()'s retries, which then ignores the page.  The run
 * passes only if the free path takes every such page off itself
 * (free_split_page_block() tests the pages again after the free).
 * inject=1 and 2 are not modes to keep on.
 *
 * Ends with "vmap_poison: summary cpus=C shots=N ... fail=F" and returns -EAGAIN
 * when F is 0 (so that it unloads itself), -EIO otherwise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/timex.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

#include "ksym.h"

static unsigned int max_poison = 64;
module_param(max_poison, uint, 0444);
MODULE_PARM_DESC(max_poison, "pages to poison (each is lost to the system), 1..256");
static unsigned int secs = 300;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "upper bound on the race, in seconds");
static unsigned int inject;
module_param(inject, uint, 0444);
MODULE_PARM_DESC(inject, "1: free a block with a poisoned page whole; 2: also with the allocator's check off; 3: window shots freed after memory_failure() returned");

#ifdef CONFIG_MEMORY_FAILURE

#define MAX_POISON	256
/* How long a kprobe holds the freer for the poison, in microseconds. */
#define HOLD_US		2000000
/* How long the poisoner waits to be let go, and the freer for it. */
#define GO_WAIT_NS	(5ULL * NSEC_PER_SEC)
#define SHOT_WAIT	(60 * HZ)
/* mm/internal.h's MAGIC_HWPOISON: page_private() of a page taken off. */
#define TAKEN_OFF	0x48575053U

enum aim { AIM_AFTER, AIM_RANDOM, AIM_CHECK, AIM_WINDOW, NR_AIMS };
static const char *const aim_name[NR_AIMS] = { "after", "random", "check", "window" };
enum landed { L_CHECK, L_WINDOW, L_AFTER, L_OTHER, NR_LANDED };
static const char *const landed_name[NR_LANDED] = { "check", "window", "after", "other" };
/* memory_failure()'s answer: 0 recovered, -EBUSY ignored (action_result()). */
enum mf_answer { R_RECOVERED, R_IGNORED, R_OTHER, NR_ANSWERS };

struct shape {
	const char *name;
	unsigned long size;
	unsigned int order;
	u64 vfree_cycles;	/* mean vfree() time of "after" shots */
	u64 track_cycles;	/* the random shots' delay, to the window */
};

static struct shape shapes[2];
static unsigned int nr_shapes;

/* The shot in flight: written by the freer before it publishes it. */
struct shot {
	struct page *page;	/* the page to poison */
	struct page *block;	/* the first page of its block */
	unsigned int order;
	enum aim aim;
	u64 delay_cycles;	/* AIM_RANDOM */
	/* What the kprobes saw of the freer's vfree() of the block. */
	bool whole, single;
	bool poisoned_at_whole, poisoned_at_single;
	bool hold_timeout;
	/* The poisoner's side. */
	bool go_timeout;
	int ret;
};

static struct shot shot;
static atomic_t shot_seq, shot_armed, shot_go;
static DECLARE_WAIT_QUEUE_HEAD(shot_wq);
static DECLARE_COMPLETION(shot_done);
static DECLARE_COMPLETION(race_done);
static struct task_struct *freer_task;
/* One CPU online: the held shots cannot be made (see shoot()). */
static bool one_cpu;

struct poisoned {
	struct page *page;
	const char *what;	/* "2M/window", "inject", ... */
	int ret;
	bool free_seen;		/* found free in the buddy allocator */
	bool handed_out;	/* returned by an allocation */
};

static struct poisoned poisoned[MAX_POISON + 1];
static unsigned int nr_poisoned;

static struct vm_struct *(*find_area)(const void *addr);
static void (*drain_pages)(struct zone *zone);

static unsigned long nr_fail, nr_shots, nr_iters, nr_fallback, nr_nomem;
static unsigned long nr_hold_timeout, nr_go_timeout, nr_taken_off, nr_dropped;
static unsigned long landed[ARRAY_SIZE(shapes)][NR_AIMS][NR_LANDED];
static unsigned long answers[NR_LANDED][NR_ANSWERS];
static unsigned long nr_burst[3];
static bool aborted;

static __printf(2, 3) bool check(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ok)
		return true;
	if (nr_fail++ < 20) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("FAIL %pV\n", &vaf);
		va_end(args);
	}
	return false;
}

/* The poisoned page in [first, first + nr), or NULL. */
static struct poisoned *poisoned_in(struct page *first, unsigned long nr)
{
	unsigned long pfn = page_to_pfn(first), i;

	for (i = 0; i < nr_poisoned; i++) {
		unsigned long p = page_to_pfn(poisoned[i].page);

		if (p >= pfn && p < pfn + nr)
			return &poisoned[i];
	}
	return NULL;
}

/*
 * The page is still poisoned and, the per-CPU lists drained into the
 * buddy allocator, in no free block.
 */
static void check_poisoned(struct poisoned *pp, const char *when)
{
	unsigned long pfn = page_to_pfn(pp->page);
	bool free;

	check(PageHWPoison(pp->page), "%s: %s: pfn %#lx is not HWPoison", when, pp->what, pfn);
	drain_pages(NULL);
	free = is_free_buddy_page(pp->page);
	if (free)
		pp->free_seen = true;
	check(!free, "%s: %s: poisoned pfn %#lx free in the buddy allocator (memory_failure() %d)",
	      when, pp->what, pfn, pp->ret);
}

/*
 * Hold the freer (in a kprobe) until the poisoner has marked the page,
 * or with @late until memory_failure() has returned.
 */
static void hold_for_poison(struct shot *s, bool late)
{
	unsigned long us;

	atomic_set_release(&shot_go, 1);
	for (us = 0; us < HOLD_US; us++) {
		if (late ? completion_done(&shot_done) : PageHWPoison(s->page))
			break;
		udelay(1);
	}
	s->hold_timeout = us == HOLD_US;
}

static int on_split_block(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);

	if (current == freer_task && page == shot.block && shot.aim == AIM_CHECK)
		hold_for_poison(&shot, false);
	return 0;
}

static int on_free_unref_page(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);
	unsigned long order = regs_get_kernel_argument(regs, 1);
	struct shot *s = &shot;

	if (current != freer_task || !s->block)
		return 0;
	if (page == s->block && order == s->order) {
		if (s->aim == AIM_WINDOW)
			hold_for_poison(s, inject == 3);
		s->whole = true;
		s->poisoned_at_whole = PageHWPoison(s->page);
	} else if (!order && page >= s->block && page < s->block + (1UL << s->order) &&
		   !s->single) {
		s->single = true;
		s->poisoned_at_single = PageHWPoison(s->page);
	}
	return 0;
}

static struct kprobe kp_split = { .symbol_name = "free_split_page_block",
				  .pre_handler = on_split_block };
static struct kprobe kp_free = { .symbol_name = "free_unref_page",
				 .pre_handler = on_free_unref_page };

/* The poisoner: one memory_failure() per published shot. */
static void fire(int seq)
{
	struct shot *s = &shot;
	u64 t0 = get_cycles(), waited;

	atomic_set_release(&shot_armed, seq);
	if (s->aim == AIM_RANDOM) {
		while (get_cycles() - t0 < s->delay_cycles)
			cpu_relax();
	} else {
		t0 = ktime_get_ns();
		for (waited = 0; !atomic_read_acquire(&shot_go); waited++) {
			if (ktime_get_ns() - t0 > GO_WAIT_NS) {
				s->go_timeout = true;
				break;
			}
			if (!(waited % 1024))
				cond_resched();
			cpu_relax();
		}
	}
	s->ret = memory_failure(page_to_pfn(s->page), MF_SW_SIMULATED);
	complete(&shot_done);
}

static int poisoner_fn(void *unused)
{
	int seen = 0;

	while (!kthread_should_stop()) {
		wait_event_interruptible_timeout(shot_wq, atomic_read(&shot_seq) != seen ||
						 kthread_should_stop(), HZ);
		if (kthread_should_stop())
			break;
		if (atomic_read_acquire(&shot_seq) == seen)
			continue;
		seen = atomic_read(&shot_seq);
		fire(seen);
	}
	return 0;
}

static bool wait_armed(int seq)
{
	unsigned long deadline = jiffies + 10 * HZ;

	while (atomic_read_acquire(&shot_armed) != seq) {
		if (time_after(jiffies, deadline))
			return false;
		cond_resched();
		cpu_relax();
	}
	return true;
}

static enum landed where_landed(const struct shot *s)
{
	if (s->whole)
		return s->poisoned_at_whole ? L_WINDOW : L_AFTER;
	if (s->single && s->poisoned_at_single)
		return L_CHECK;
	return L_OTHER;
}

static enum mf_answer answer_of(int ret)
{
	return !ret ? R_RECOVERED : ret == -EBUSY ? R_IGNORED : R_OTHER;
}

/* A vmalloc_huge() area of the shape with blocks of its order, or NULL. */
static void *area_of_blocks(struct shape *sh, struct vm_struct **areap)
{
	struct vm_struct *area;
	void *p;

	p = vmalloc_huge(sh->size, GFP_KERNEL | __GFP_NOWARN);
	if (!p) {
		nr_nomem++;
		return NULL;
	}
	area = find_area(p);
	if (!area || area->page_order != sh->order || area->nr_pages != sh->size >> PAGE_SHIFT) {
		nr_fallback++;
		vfree(p);
		return NULL;
	}
	*areap = area;
	return p;
}

static void shoot(unsigned int iter)
{
	/*
	 * A kprobe holds the freer with preemption off: on one CPU the
	 * poisoner could not run until the hold timed out.  What one CPU
	 * makes: "after", and "random" (the poisoner, woken, runs before the
	 * freer calls vfree(): the test sees the poison).
	 */
	unsigned int nr_aims = one_cpu ? AIM_RANDOM + 1 : NR_AIMS;
	unsigned int si = (iter / nr_aims) % nr_shapes, i, nr_blocks, seq;
	struct shape *sh = &shapes[si];
	enum aim aim = iter % nr_aims;
	struct poisoned *pp, *old;
	struct vm_struct *area;
	struct shot *s = &shot;
	static char what[MAX_POISON][16];
	enum landed l;
	u64 t0, t;
	void *p;

	p = area_of_blocks(sh, &area);
	if (!p)
		return;
	for (i = 0; i < area->nr_pages; i++) {
		old = poisoned_in(area->pages[i], 1);
		if (old) {
			old->handed_out = true;
			check(false, "%s: poisoned pfn %#lx handed out again, to vmalloc_huge(%s)",
			      old->what, page_to_pfn(old->page), sh->name);
		}
	}
	nr_blocks = area->nr_pages >> sh->order;

	memset(s, 0, sizeof(*s));
	s->block = area->pages[get_random_u32_below(nr_blocks) << sh->order];
	s->page = s->block + get_random_u32_below(1U << sh->order);
	s->order = sh->order;
	s->aim = aim;
	if (aim == AIM_RANDOM)
		s->delay_cycles = sh->track_cycles / 2 +
				  get_random_u32_below(min_t(u64, sh->track_cycles + 1, U32_MAX));
	pp = &poisoned[nr_poisoned++];
	snprintf(what[nr_shots], sizeof(what[0]), "%s/%s", sh->name, aim_name[aim]);
	pp->page = s->page;
	pp->what = what[nr_shots];
	nr_shots++;
	atomic_set(&shot_go, 0);
	reinit_completion(&shot_done);
	seq = atomic_inc_return_release(&shot_seq);
	wake_up(&shot_wq);
	if (!check(wait_armed(seq), "%s: the poisoner did not take the shot", pp->what)) {
		aborted = true;
		vfree(p);
		return;
	}
	t0 = get_cycles();
	vfree(p);
	t = get_cycles() - t0;
	if (aim == AIM_AFTER)
		sh->vfree_cycles = (3 * sh->vfree_cycles + t) / 4;
	atomic_set_release(&shot_go, 1);
	if (!check(wait_for_completion_timeout(&shot_done, SHOT_WAIT),
		   "%s: memory_failure() of pfn %#lx did not return in %d s", pp->what,
		   page_to_pfn(pp->page), SHOT_WAIT / HZ)) {
		aborted = true;
		return;
	}
	pp->ret = s->ret;
	l = where_landed(s);
	landed[si][aim][l]++;
	if (aim == AIM_RANDOM && l == L_CHECK)
		sh->track_cycles += sh->track_cycles / 4 + 1;
	else if (aim == AIM_RANDOM && l == L_AFTER)
		sh->track_cycles -= sh->track_cycles / 4;
	answers[l][answer_of(s->ret)]++;
	nr_hold_timeout += s->hold_timeout;
	nr_go_timeout += s->go_timeout;
	if (PageHWPoison(pp->page) && page_private(pp->page) == TAKEN_OFF)
		nr_taken_off++;
	if (l == L_OTHER || answer_of(s->ret) == R_OTHER)
		pr_info("shot %s pfn %#lx: whole=%d single=%d memory_failure() %d\n", pp->what,
			page_to_pfn(pp->page), s->whole, s->single, s->ret);
	check_poisoned(pp, "after the shot");
}

/* The mean vfree() time of each shape, before the first shot. */
static void warm_up(void)
{
	struct vm_struct *area;
	unsigned int i, k;
	u64 t0, sum;
	void *p;

	for (i = 0; i < nr_shapes; i++) {
		for (k = 0, sum = 0; k < 4; k++) {
			p = area_of_blocks(&shapes[i], &area);
			if (!p)
				continue;
			t0 = get_cycles();
			vfree(p);
			sum += get_cycles() - t0;
		}
		shapes[i].vfree_cycles = sum / 4;
		shapes[i].track_cycles = sum / 8;
	}
}

static void wait_for_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

static int freer_fn(void *unused)
{
	unsigned long end = jiffies + secs * HZ;
	unsigned int iter;

	warm_up();
	for (iter = 0; nr_shots < max_poison && !aborted && time_before(jiffies, end); iter++) {
		shoot(iter);
		nr_iters++;
		cond_resched();
	}
	complete(&race_done);
	wait_for_stop();
	return 0;
}

/*
 * The window's outcome without the race: a block with a poisoned page
 * freed whole.  The buddy check must report it.
 */
static void inject_free(void)
{
	unsigned int order = PMD_SHIFT - PAGE_SHIFT;
	struct page *block = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	struct poisoned *pp = &poisoned[nr_poisoned];

	if (!check(block, "inject: no order-%u block", order))
		return;
	nr_poisoned++;
	pp->page = block + 5;
	pp->what = "a block freed whole";
	pp->ret = memory_failure(page_to_pfn(pp->page), MF_SW_SIMULATED);
	pr_info("inject: pfn %#lx poisoned (memory_failure() %d), its order-%u block freed whole\n",
		page_to_pfn(pp->page), pp->ret, order);
	__free_pages(block, order);
	check_poisoned(pp, "inject");
}

/* No reclaim, no kswapd: only what is free. */
#define BURST_GFP	((GFP_NOWAIT & ~__GFP_KSWAPD_RECLAIM) | __GFP_NOWARN)
/*
 * Left free for everything else while the burst holds the rest: at the
 * min watermark a GFP_KERNEL allocation of another task would reclaim
 * and, with nothing to reclaim in a guest without swap, call the OOM
 * killer.
 */
#define BURST_SPARE	(SZ_32M >> PAGE_SHIFT)

/*
 * Take what the allocator gives at orders 9, 4 and 0 until BURST_SPARE
 * pages are left free; no block may hold a poisoned page.  Freed blocks
 * go to the head of the free lists, so a poisoned one comes out among
 * the first.  The rest goes back.
 */
static void burst(void)
{
	const unsigned int orders[ARRAY_SIZE(nr_burst)] = { PMD_SHIFT - PAGE_SHIFT, 4, 0 };
	struct page *page, *tmp;
	struct poisoned *pp;
	LIST_HEAD(got);
	unsigned int o;

	for (o = 0; o < ARRAY_SIZE(orders); o++) {
		while (global_zone_page_state(NR_FREE_PAGES) > BURST_SPARE + (1UL << orders[o]) &&
		       (page = alloc_pages(BURST_GFP, orders[o]))) {
			if (!(++nr_burst[o] % 256))
				cond_resched();
			pp = poisoned_in(page, 1UL << orders[o]);
			if (pp) {
				/* Kept: never back to the allocator. */
				pp->handed_out = true;
				check(false, "%s: %s: poisoned pfn %#lx handed out in an order-%u block at pfn %#lx",
				      __func__, pp->what, page_to_pfn(pp->page), orders[o],
				      page_to_pfn(page));
				continue;
			}
			set_page_private(page, orders[o]);
			list_add(&page->lru, &got);
		}
	}
	list_for_each_entry_safe(page, tmp, &got, lru) {
		o = page_private(page);
		list_del(&page->lru);
		set_page_private(page, 0);
		__free_pages(page, o);
	}
}

static void report(void)
{
	unsigned long tot[NR_LANDED] = {}, in_buddy = 0, handed_out = 0;
	unsigned int si, a, l, i;

	for (si = 0; si < nr_shapes; si++)
		for (a = 0; a < (one_cpu ? AIM_RANDOM + 1 : NR_AIMS); a++) {
			unsigned long *n = landed[si][a];

			pr_info("%s aim=%s: landed check=%lu window=%lu after=%lu other=%lu\n",
				shapes[si].name, aim_name[a], n[L_CHECK], n[L_WINDOW], n[L_AFTER],
				n[L_OTHER]);
			for (l = 0; l < NR_LANDED; l++)
				tot[l] += n[l];
		}
	for (si = 0; si < nr_shapes; si++)
		pr_info("%s: the random shots' delay ended at %llu%% of the mean vfree() time\n",
			shapes[si].name, div64_u64(100 * shapes[si].track_cycles,
						   shapes[si].vfree_cycles ?: 1));
	for (l = 0; l < NR_LANDED; l++)
		pr_info("landed %s: memory_failure() recovered=%lu ignored=%lu other=%lu\n",
			landed_name[l], answers[l][R_RECOVERED], answers[l][R_IGNORED],
			answers[l][R_OTHER]);
	for (i = 0; i < nr_poisoned; i++) {
		in_buddy += poisoned[i].free_seen;
		handed_out += poisoned[i].handed_out;
	}
	pr_info("summary cpus=%u shots=%lu iters=%lu fallback=%lu nomem=%lu landed_check=%lu landed_window=%lu landed_after=%lu landed_other=%lu recovered=%lu ignored=%lu mf_other=%lu taken_off=%lu hold_timeouts=%lu go_timeouts=%lu in_buddy=%lu handed_out=%lu dropped=%lu burst_order9=%lu burst_order4=%lu burst_order0=%lu fail=%lu\n",
		one_cpu ? 1 : 2, nr_shots, nr_iters, nr_fallback, nr_nomem, tot[L_CHECK],
		tot[L_WINDOW], tot[L_AFTER], tot[L_OTHER],
		answers[L_CHECK][R_RECOVERED] + answers[L_WINDOW][R_RECOVERED] +
		answers[L_AFTER][R_RECOVERED] + answers[L_OTHER][R_RECOVERED],
		answers[L_CHECK][R_IGNORED] + answers[L_WINDOW][R_IGNORED] +
		answers[L_AFTER][R_IGNORED] + answers[L_OTHER][R_IGNORED],
		answers[L_CHECK][R_OTHER] + answers[L_WINDOW][R_OTHER] +
		answers[L_AFTER][R_OTHER] + answers[L_OTHER][R_OTHER],
		nr_taken_off, nr_hold_timeout, nr_go_timeout, in_buddy, handed_out, nr_dropped,
		nr_burst[0], nr_burst[1], nr_burst[2], nr_fail);
}

static void set_shapes(void)
{
	shapes[nr_shapes++] = (struct shape){ "2M", SZ_2M, PMD_SHIFT - PAGE_SHIFT };
#if defined(CONFIG_ARM64) && defined(CONFIG_ARM64_4K_PAGES)
	/* 64K blocks: contiguous PTEs. */
	shapes[nr_shapes++] = (struct shape){ "1M", SZ_1M, CONT_PTE_SHIFT - PAGE_SHIFT };
#endif
}

static int __init vmap_poison_init(void)
{
	struct task_struct *poisoner;
	struct static_key_true *check_pages = NULL;
	unsigned int i;

	if (max_poison < 1 || max_poison > MAX_POISON || inject > 3 || !secs) {
		pr_err("max_poison must be 1..%d (not %u), inject 0..3 (not %u), secs > 0\n",
		       MAX_POISON, max_poison, inject);
		return -EINVAL;
	}
	if (!cpu_online(0)) {
		pr_err("the freer runs on CPU 0, which is offline\n");
		return -ENODEV;
	}
	one_cpu = !cpu_online(1);
	if (one_cpu)
		pr_info("one CPU: no shot held at the test or at the free, which needs a second one\n");
	find_area = ksym("find_vm_area");
	drain_pages = ksym("drain_all_pages");
	if (inject == 2)
		check_pages = ksym("check_pages_enabled");
	if (!find_area || !drain_pages || (inject == 2 && !check_pages)) {
		pr_err("kallsyms: find_vm_area %d, drain_all_pages %d, check_pages_enabled %d\n",
		       !!find_area, !!drain_pages, !!check_pages);
		return -ENOENT;
	}
	if (register_kprobe(&kp_split)) {
		pr_err("no kprobe on free_split_page_block() (a kernel without the series' patch 10?)\n");
		return -ENOENT;
	}
	if (register_kprobe(&kp_free)) {
		unregister_kprobe(&kp_split);
		pr_err("no kprobe on free_unref_page()\n");
		return -ENOENT;
	}
	set_shapes();
	pr_info("start max_poison=%u secs=%u inject=%u shapes=%s%s%s\n", max_poison, secs, inject,
		shapes[0].name, nr_shapes > 1 ? "," : "", nr_shapes > 1 ? shapes[1].name : "");

	poisoner = kthread_create(poisoner_fn, NULL, "vmap_poisoner");
	freer_task = kthread_create(freer_fn, NULL, "vmap_freer");
	if (IS_ERR(poisoner) || IS_ERR(freer_task)) {
		/* A thread that never ran: kthread_stop() ends it unrun. */
		if (!IS_ERR(poisoner))
			kthread_stop(poisoner);
		if (!IS_ERR(freer_task))
			kthread_stop(freer_task);
		freer_task = NULL;
		unregister_kprobe(&kp_free);
		unregister_kprobe(&kp_split);
		return -ENOMEM;
	}
	kthread_bind(freer_task, 0);
	kthread_bind(poisoner, one_cpu ? 0 : 1);
	wake_up_process(poisoner);
	wake_up_process(freer_task);
	/* Awake now and then: the race may outlast the hung task timeout. */
	while (!wait_for_completion_timeout(&race_done, 10 * HZ))
		;
	kthread_stop(poisoner);
	kthread_stop(freer_task);
	freer_task = NULL;
	unregister_kprobe(&kp_free);
	unregister_kprobe(&kp_split);

	if (inject == 1 || inject == 2)
		inject_free();
	for (i = 0; i < nr_poisoned; i++)
		check_poisoned(&poisoned[i], "at the end");
	if (check_pages)
		static_branch_disable(check_pages);
	burst();
	if (check_pages)
		static_branch_enable(check_pages);
	for (i = 0; i < nr_poisoned; i++) {
		struct poisoned *pp = &poisoned[i];

		/* Free before the burst, neither got nor free now: dropped. */
		if (pp->free_seen && !pp->handed_out && !is_free_buddy_page(pp->page)) {
			nr_dropped++;
			pr_info("%s: pfn %#lx: its free block was dropped by the allocator's check (check_new_pages())\n",
				pp->what, page_to_pfn(pp->page));
		}
	}
	report();
	return nr_fail ? -EIO : -EAGAIN;
}

#else /* !CONFIG_MEMORY_FAILURE */

static int __init vmap_poison_init(void)
{
	pr_err("the kernel has no CONFIG_MEMORY_FAILURE\n");
	return -ENODEV;
}

#endif

module_init(vmap_poison_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memory_failure() racing vfree() of huge vmalloc() blocks");
