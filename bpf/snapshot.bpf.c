// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot (vmapstat --snapshot): walk the kernel page tables
 * of given virtual ranges and count the bytes mapped at each granule, and
 * which of the 4K-mapped bytes the series would map with larger blocks
 * (potential: snapshot_run_add() per PTE, the arithmetic once per run).
 *
 * Two syscall programs, run on demand with BPF_PROG_TEST_RUN (nothing is
 * attached anywhere):
 *  - snapshot_probe: checks the layout user space derived (init_mm, the
 *    linear map) by resolving an address whose physical address user
 *    space can predict, and finds init_task for the init_mm fallback;
 *  - snapshot_walk: walks up to SNAPSHOT_BATCH ranges from init_mm.pgd and
 *    fills one snapshot_result per range.
 *
 * Every entry is read with bpf_probe_read_kernel(): an area unmapped
 * while we walk it (its tables freed or reused) can only make a read
 * fail or return stale data, never fault; a failed read marks the range
 * SNAPSHOT_RES_FAULT and user space reports it as changed.  Work per run is
 * bounded by max_steps (one step = one upper-level entry or one run of
 * entries inside a PTE table); a range cut short records where to resume.
 */
#include "vmapscope_bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "snapshot_pt.h"

char LICENSE[] SEC("license") = "GPL";

/* Only the fields used here; CO-RE relocates them against the kernel. */
struct mm_struct {
	void *pgd;
	unsigned long task_size;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	struct task_struct *real_parent;
	struct mm_struct *mm;
	struct mm_struct *active_mm;
} __attribute__((preserve_access_index));

/* Inputs and outputs, all in .bss (user space maps it). */
struct snapshot_layout layout = {};
struct snapshot_probe probe = {};
__u32 nr_ranges = 0;
__u32 max_steps = 0;		/* per run; 0 = 4096 */
__u32 steps_used = 0;
/* Always 0; read at run time so the verifier does not track constants. */
__u32 zero = 0;
struct snapshot_range ranges[SNAPSHOT_BATCH] = {};
struct snapshot_result results[SNAPSHOT_BATCH] = {};

/* One PTE table's worth of entries (too big for the stack). */
__u64 ptes[SNAPSHOT_PTRS_PER_TABLE] = {};

struct walk_ctx {
	__u32 ri;		/* range index */
	__u32 steps;
	__u64 addr;		/* next address to look at in range ri */
	__u64 table;		/* table holding addr's entry at level lvl */
	__u32 lvl;		/* 0 = top level */
	__u32 pad;
	struct snapshot_run run;	/* physically contiguous PTE run, across tables */
};

struct pte_ctx {
	__u32 arch;
	__u32 pad;
	__u64 va;		/* address of the first entry of this step */
	__u64 base;		/* the range's base: run offsets count from it */
	__u64 addr_mask;
	__u64 bytes[2];		/* SNAPSHOT_G_PTE, SNAPSHOT_G_CONT_PTE */
	__u64 unmapped;
	__u64 pot[SNAPSHOT_NR_POT];
	struct snapshot_run run;
};

/*
 * Decoding as a global function: the verifier checks it once and treats
 * its result as an unknown scalar, instead of multiplying the walker's
 * states by every branch of the decoder.  Returns kind | granule << 4.
 */
__noinline int decode_entry(__u32 arch, __u32 shift, int last, __u64 e)
{
	int g = 0;
	int kind = snapshot_decode(arch, shift, last, e, &g);

	return kind | (g << 4);
}

/*
 * The per-PTE step, global for the same reason as decode_entry(): the
 * verifier checks it once with every field of p unknown.  Inlined into
 * the bpf_loop() callback, the counters it adds to would be tracked as
 * constants that differ on every iteration, and newer verifiers, which
 * check a callback until its states converge, run past their 1M
 * instruction limit.
 */
__noinline int count_pte_entry(struct pte_ctx *p, __u32 i)
{
	__u64 e;
	__u32 cont;
	int d;

	if (!p)
		return 0;
	e = ptes[i & (SNAPSHOT_PTRS_PER_TABLE - 1)];
	d = decode_entry(p->arch, 12, 1, e);
	if ((d & 0xf) != SNAPSHOT_PT_LEAF) {
		p->unmapped += 4096;
		snapshot_run_end(p->arch, &p->run, p->pot);
		return 0;
	}
	cont = (d >> 4) == SNAPSHOT_G_CONT_PTE;
	p->bytes[cont & 1] += 4096;
	snapshot_run_add(p->arch, &p->run, p->base, p->va + ((__u64)i << 12), e & p->addr_mask,
		      cont, p->pot);
	return 0;
}

static long count_pte(__u32 i, void *data)
{
	count_pte_entry(data, i);
	return 0;
}

/*
 * Move on to the next range (after finishing or giving up on this one);
 * the run open in this range ends with it.
 */
static __always_inline void next_range(struct walk_ctx *w)
{
	if (w->ri < SNAPSHOT_BATCH)
		snapshot_run_end(layout.arch, &w->run, results[w->ri & (SNAPSHOT_BATCH - 1)].potential);
	w->ri++;
	w->lvl = 0;
	w->table = layout.pgd;
	if (w->ri < SNAPSHOT_BATCH) {
		w->addr = ranges[w->ri & (SNAPSHOT_BATCH - 1)].start;
		w->run = ranges[w->ri & (SNAPSHOT_BATCH - 1)].run;
	}
}

/*
 * One step reads one entry at one level (or, at the PTE level, all the
 * entries of the current range inside one PTE table), so the verifier
 * sees a flat state machine instead of nested per-level loops.
 */
static long walk_step(__u32 i, void *data)
{
	struct walk_ctx *w = data;
	struct snapshot_result *res;
	__u64 addr, end, size, boundary, idx, e;
	__u32 ri, shift;
	int d, g, kind;

	if (w->ri >= nr_ranges || w->ri >= SNAPSHOT_BATCH)
		return 1;
	ri = w->ri & (SNAPSHOT_BATCH - 1);
	res = &results[ri];
	if (w->steps >= max_steps) {
		res->resume = w->addr;
		res->run = w->run;
		return 1;
	}
	w->steps++;
	addr = w->addr;
	end = ranges[ri].end;
	if (addr >= end) {
		res->flags |= SNAPSHOT_RES_DONE;
		res->resume = 0;
		next_range(w);
		return 0;
	}
	if (w->lvl >= layout.nr_levels || w->lvl >= SNAPSHOT_MAX_LEVELS) {
		res->flags |= SNAPSHOT_RES_FAULT;	/* bad layout: give up */
		next_range(w);
		return 0;
	}
	shift = layout.shift[w->lvl];
	if (shift < 12 || shift > 48) {
		res->flags |= SNAPSHOT_RES_FAULT;
		next_range(w);
		return 0;
	}
	size = 1ULL << shift;
	boundary = (addr | (size - 1)) + 1;
	if (boundary > end || boundary == 0)
		boundary = end;
	idx = (addr >> shift) & (SNAPSHOT_PTRS_PER_TABLE - 1);

	if (w->lvl + 1 >= layout.nr_levels) {
		/* PTE level: one read for this range's entries in this table. */
		struct pte_ctx p = {
			.arch = layout.arch,
			.va = addr & ~4095ULL,
			.base = ranges[ri].base,
			.addr_mask = layout.addr_mask,
			.run = w->run,
		};
		__u64 n = (boundary - addr + 4095) >> 12;
		__u64 left = SNAPSHOT_PTRS_PER_TABLE - idx;

		if (n > left)
			n = left;
		if (n < 1)
			n = 1;
		if (n > SNAPSHOT_PTRS_PER_TABLE)
			n = SNAPSHOT_PTRS_PER_TABLE;
		if (bpf_probe_read_kernel(ptes, n * 8, (void *)(w->table + idx * 8))) {
			res->flags |= SNAPSHOT_RES_FAULT;
			next_range(w);
			return 0;
		}
		bpf_loop(n, count_pte, &p, 0);
		res->bytes[SNAPSHOT_G_PTE] += p.bytes[0];
		res->bytes[SNAPSHOT_G_CONT_PTE] += p.bytes[1];
		res->unmapped += p.unmapped;
		res->potential[SNAPSHOT_POT_64K] += p.pot[SNAPSHOT_POT_64K];
		res->potential[SNAPSHOT_POT_2M] += p.pot[SNAPSHOT_POT_2M];
		res->potential[SNAPSHOT_POT_MISALIGNED] += p.pot[SNAPSHOT_POT_MISALIGNED];
		w->run = p.run;
		w->addr = addr + (n << 12);
		w->lvl = 0;
		w->table = layout.pgd;
		return 0;
	}

	if (bpf_probe_read_kernel(&e, sizeof(e), (void *)(w->table + idx * 8))) {
		res->flags |= SNAPSHOT_RES_FAULT;
		next_range(w);
		return 0;
	}
	d = decode_entry(layout.arch, shift, 0, e);
	kind = d & 0xf;
	g = (d >> 4) & 7;
	if (kind == SNAPSHOT_PT_TABLE) {
		w->table = snapshot_table_va(&layout, e);
		w->lvl++;
		return 0;
	}
	if (kind == SNAPSHOT_PT_LEAF) {
		if (g >= SNAPSHOT_NR_G)
			g = 0;
		res->bytes[g] += boundary - addr;
	} else {
		res->unmapped += boundary - addr;
	}
	w->addr = boundary;
	w->lvl = 0;
	w->table = layout.pgd;
	return 0;
}

SEC("syscall")
int snapshot_walk(void *ctx)
{
	struct walk_ctx w = {};

	/*
	 * A range advances only after a descent through every level: with
	 * fewer steps than that a run would never make progress.
	 */
	if (max_steps < 2 * SNAPSHOT_MAX_LEVELS)
		max_steps = max_steps ? 2 * SNAPSHOT_MAX_LEVELS : 4096;
	/*
	 * Start from unknown (to the verifier) zeros: with constants it would
	 * check every (range index, level) pair of the loop separately.
	 */
	w.ri = zero;
	w.steps = zero;
	w.lvl = zero;
	w.addr = ranges[0].start;
	w.run = ranges[0].run;
	w.table = layout.pgd;
	/* Each step ends a range, descends a level or advances addr. */
	bpf_loop(max_steps + SNAPSHOT_BATCH + 1, walk_step, &w, 0);
	steps_used = w.steps;
	return 0;
}

/* Resolve probe.addr through the page tables into its physical address. */
static __always_inline void resolve(__u64 addr)
{
	__u64 table = layout.pgd, e = 0;
	__u32 lvl;

	probe.leaf_granule = -1;
	for (lvl = 0; lvl < SNAPSHOT_MAX_LEVELS; lvl++) {
		__u32 shift = layout.shift[lvl];
		int last = lvl + 1 >= layout.nr_levels;
		int d, kind;

		if (shift < 12 || shift > 48)
			return;
		if (bpf_probe_read_kernel(&e, sizeof(e),
					  (void *)(table + ((addr >> shift) & 511) * 8))) {
			probe.err = lvl + 1;
			return;
		}
		d = decode_entry(layout.arch, shift, last, e);
		kind = d & 0xf;
		if (kind == SNAPSHOT_PT_NONE)
			return;
		if (kind == SNAPSHOT_PT_LEAF) {
			probe.leaf_entry = e;
			probe.leaf_granule = (d >> 4) & 7;
			probe.leaf_phys = (e & layout.addr_mask & ~((1ULL << shift) - 1)) |
					  (addr & ((1ULL << shift) - 1));
			return;
		}
		table = snapshot_table_va(&layout, e);
	}
}

SEC("syscall")
int snapshot_probe(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct mm_struct *mm;
	int i;

	probe.task = (__u64)t;
	probe.current_pgd = (__u64)BPF_CORE_READ(t, mm, pgd);
	/* init_task is the ancestor with pid 0 (pid 1's real_parent). */
	for (i = 0; i < 64 && t; i++) {
		if (BPF_CORE_READ(t, pid) == 0) {
			probe.init_task = (__u64)t;
			probe.init_task_active_mm = (__u64)BPF_CORE_READ(t, active_mm);
			break;
		}
		t = BPF_CORE_READ(t, real_parent);
	}

	for (i = 0; i < 2; i++) {
		probe.read_val[i] = 0;
		probe.read_err[i] = 0;
		if (probe.read_addr[i])
			probe.read_err[i] = bpf_probe_read_kernel(&probe.read_val[i], 8,
							(void *)probe.read_addr[i]);
	}

	mm = (void *)probe.init_mm;
	probe.mm_err = 0;
	if (mm) {
		if (bpf_core_read(&probe.mm_pgd, sizeof(probe.mm_pgd), &mm->pgd) ||
		    bpf_core_read(&probe.mm_task_size, sizeof(probe.mm_task_size),
				  &mm->task_size))
			probe.mm_err = 1;
	}
	probe.err = 0;
	probe.leaf_granule = -1;
	if (layout.pgd && layout.nr_levels)
		resolve(probe.addr ? probe.addr : probe.task);
	return 0;
}
