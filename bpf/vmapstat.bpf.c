// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat collector: aggregates vmalloc/vmap/ioremap page-table mapping
 * activity in the kernel, per (caller, api).  No per-event traffic to
 * user space: user space reads the "callers" hash, the "stats" array and
 * the per-CPU counters.
 *
 * Sources (user space attaches what the options ask for, no more):
 *  - the series' vmalloc:vmap_mapped, one event per mapping call with its
 *    caller, api, range, bytes per granule (what its walk wrote), the
 *    reasons it fell back to smaller granules, result and mapping time:
 *    the default on a series kernel, one program run per call;
 *  - the series' per-run events vmap_set_ptes / vmap_huge_block (--runs):
 *    runs per granule, held in task local storage until the call's
 *    vmap_mapped, which follows them in the same task, names the row;
 *  - entry-point probes (fentry/fexit or kprobe/kretprobe, one "slot" per
 *    kernel function, bound by user space; --call-latency): whole-call
 *    latency;
 *  - the stock vmalloc:alloc_vmap_area / purge_vmap_area_lazy /
 *    free_vmap_area_noflush tracepoints (--areas): areas, purges;
 *  - on kernels without the series, alloc_vmap_area()'s exit (fexit or
 *    kretprobe) in place of its tracepoint, by default: areas with the
 *    caller of their vm_struct, the one /proc/vmallocinfo prints;
 *  - --lifetime: each mapping's time and row kept by address until
 *    free_vmap_area_noflush unmaps it.
 *
 * Cost: these programs run inside every mapping of the observed system,
 * so each event does as little as it can and leaves the rest to read
 * time.  A (caller, api) is resolved to a slot of the "stats" array
 * through a per-CPU direct-mapped cache in front of the "callers" hash;
 * the global counters are per-CPU and summed by user space.
 */
#include "vmapscope_bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "vmapscope.h"
#include "log2.h"
#include "area_track.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load (filters and machine facts). */
const volatile __u32 targ_tgid = 0;		/* 0 = all */
const volatile __u32 targ_api_mask = 0;		/* 0 = all */
const volatile __u32 nr_caller_ranges = 0;	/* 0 = no caller filter */
const volatile __u64 caller_lo[VMAPSCOPE_MAX_CALLER_RANGES] = {};
const volatile __u64 caller_hi[VMAPSCOPE_MAX_CALLER_RANGES] = {};
const volatile __u32 page_shift = 12;
/*
 * The shifts of vmap_mapped's byte counts: PTE-level blocks (0: the
 * architecture has none), PMD and PUD blocks.
 */
const volatile __u32 cont_shift = 0;
const volatile __u32 pmd_shift = 21;
const volatile __u32 pud_shift = 30;
/* --by (enum vmapscope_by): 0, and the label is never read. */
const volatile __u32 by_label = 0;
/* Entries of "callers" and "stats" (--max-callers). */
const volatile __u32 max_slots = 2048;
/* vmap_mapped's ns into the mapping-latency histogram (not --no-latency). */
const volatile bool want_map_latency = true;
/* Entry-point probes attached: areas inside a probed call go to its row. */
const volatile bool want_call_latency = false;
/* Per latency slot: api and the argument index holding "caller" (or -1). */
const volatile __u32 lat_api[VMAPSCOPE_NR_LAT_SLOTS] = {};
const volatile __s32 lat_caller_arg[VMAPSCOPE_NR_LAT_SLOTS] = {};

/*
 * Slots of the "stats" array: 0 is the unattributed bucket (user space
 * enters its key in "callers" before attaching); the rest are handed out
 * in order of first sight.  A slot lost to two CPUs racing for the same
 * new key only costs capacity.
 */
#define SLOT_FILTERED	0xffffffffu	/* a filtered-out (caller, api) */
#define SLOT_NONE	0xfffffffeu	/* "stats" was full for this (caller, api) */
__u64 next_slot = 1;

/* Granule classes of vmap_mapped's byte counts, in its argument order. */
enum { RUN_PTE, RUN_CONT, RUN_PMD, RUN_PUD, NR_RUN_CLASSES };

struct task_ctx {
	/* --runs: per-run events of the call under way, until its vmap_mapped */
	__u64 run_lo;			/* address of the first run */
	__u32 run_nr;
	__u32 run_shift[NR_RUN_CLASSES];	/* shift of each class's runs */
	__u32 runs[NR_RUN_CLASSES];
	/* probed entry point in flight: slot + 1, 0 = none */
	__u32 in_call;
	/* probed calls nested inside it (e.g. vmalloc of its page array) */
	__u32 depth;
	__u32 call_slot;		/* from the call's own area or mapping */
	__u32 call_named;		/* call_slot is set */
	__u64 call_start_ns;
	__u64 call_caller;		/* from the probe (argument / return address) */
	__u64 call_areas;		/* alloc_vmap_area during the call */
	__u64 call_area_bytes;
};

/* One per task, freed with the task: no eviction, no thread-id hash. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} tasks SEC(".maps");

/* (caller, api) -> slot of "stats"; sized like "stats" by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2048);	/* resized by user space (--max-callers) */
	__type(key, struct vmapscope_key);
	__type(value, __u32);
} callers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2048);	/* resized by user space (--max-callers) */
	__type(key, __u32);
	__type(value, struct vmapscope_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vmapscope_cpu_state);
} cpu SEC(".maps");

/*
 * Module placement (vmapscope.h), written at each module load: a few
 * entries per load, kept after the module is gone (that is their use).
 * A plain hash: an LRU one evicts early entries of a load while the rest
 * of it is written, even with room to spare.  Full: later loads are not
 * recorded, their callers show as addresses.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct vmapscope_mod_key);
	__type(value, struct vmapscope_mod_val);
} modules SEC(".maps");

/*
 * --lifetime: live mappings by start address (vmapscope.h); sized to one
 * entry by user space otherwise.  Allocated as used: most of it stays
 * empty on a quiet system.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, VMAPSCOPE_MAX_LIVE_MAPS);
	__type(key, __u64);
	__type(value, struct vmapscope_birth);
} births SEC(".maps");

const volatile bool want_lifetime = false;
/* where the birth is taken: vmap_mapped, else the area (kernels without it) */
const volatile bool lifetime_from_areas = false;

/* Module loads seen: user space re-reads "modules" when it changes. */
__u64 module_loads = 0;

static __always_inline struct vmapscope_cpu_state *cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu, &zero);
}

/* Per-CPU: a program runs on one CPU to its end, no atomics needed. */
static __always_inline void count(struct vmapscope_cpu_state *cs, enum vmapscope_counter c, __u64 n)
{
	if (c < VMAPSCOPE_CNT_MAX)
		cs->cnt[c] += n;
}

/*
 * One value into a HIST field (vmapscope.h): its slot, below or above the
 * slot's native-histogram edge; user space adds the two at read time.
 */
#define HIST_ADD(s, field, v, unit)						\
	hist_add((s)->field, (s)->field##_above, v, VS_HIST_EDGE_##unit)

static __always_inline void hist_add(__u64 *at_or_below, __u64 *above, __u64 v,
				     __u64 edge_mul, __u32 edge_shift)
{
	__u32 slot = vs_hist_slot(v, VMAPSCOPE_HIST_SLOTS);

	if (v > vs_hist_edge(slot, edge_mul, edge_shift))
		__sync_fetch_and_add(&above[slot], 1);
	else
		__sync_fetch_and_add(&at_or_below[slot], 1);
}

/* --pid: another process's event is dropped, and counted if cs is given. */
static __always_inline bool pass_tgid(struct vmapscope_cpu_state *cs)
{
	if (!targ_tgid || (bpf_get_current_pid_tgid() >> 32) == targ_tgid)
		return true;
	if (cs)
		count(cs, VMAPSCOPE_CNT_FILTERED, 1);
	return false;
}

static __always_inline bool pass_api(__u32 api)
{
	if (!targ_api_mask)
		return true;
	return api < 32 && (targ_api_mask & (1U << api));
}

static __always_inline bool pass_caller(__u64 caller)
{
	__u32 i;

	if (!nr_caller_ranges)
		return true;
	for (i = 0; i < VMAPSCOPE_MAX_CALLER_RANGES; i++) {
		if (i >= nr_caller_ranges)
			break;
		if (caller >= caller_lo[i] && caller < caller_hi[i])
			return true;
	}
	return false;
}

static __always_inline bool pass_key(struct vmapscope_cpu_state *cs, __u64 caller, __u32 api)
{
	if (pass_api(api) && pass_caller(caller))
		return true;
	count(cs, VMAPSCOPE_CNT_FILTERED, 1);
	return false;
}

/*
 * --by: the event's label, read once per event into @lab (left zero
 * without --by: by_label is a load-time constant, the branch is gone).
 */
static __always_inline void label_of(__u64 lab[2])
{
	if (by_label == VMAPSCOPE_BY_CGROUP) {
		lab[0] = bpf_get_current_cgroup_id();
	} else if (by_label == VMAPSCOPE_BY_COMM) {
		union { char c[VMAPSCOPE_COMM_LEN]; __u64 w[2]; } u = {};

		bpf_get_current_comm(u.c, sizeof(u.c));
		lab[0] = u.w[0];
		lab[1] = u.w[1];
	}
}

/* The (caller, api, label)'s slot of "stats", entered on first sight. */
static __noinline __u32 slot_insert(__u64 caller, __u32 api, __u64 lab0, __u64 lab1)
{
	struct vmapscope_key k = { .caller = caller, .api = api };
	__u32 *v, slot;
	__u64 n;

	if (by_label) {
		k.label[0] = lab0;
		k.label[1] = lab1;
	}
	v = bpf_map_lookup_elem(&callers, &k);
	if (v)
		return *v;
	/* full: stop handing out slots, so that next_slot never wraps */
	if (next_slot >= max_slots)
		return SLOT_NONE;
	n = __sync_fetch_and_add(&next_slot, 1);
	if (n >= max_slots)
		return SLOT_NONE;
	slot = n;
	if (!bpf_map_update_elem(&callers, &k, &slot, BPF_NOEXIST))
		return slot;
	/* another CPU entered it first (or "callers" is full) */
	v = bpf_map_lookup_elem(&callers, &k);
	return v ? *v : SLOT_NONE;
}

static __always_inline __u32 slot_of(struct vmapscope_cpu_state *cs, __u64 caller, __u32 api,
				     const __u64 lab[2])
{
	__u64 hk = caller ^ api;
	__u32 h, i, slot;
	struct vmapscope_slot_cache_ent *e;

	if (by_label)
		hk ^= lab[0] ^ (lab[1] * 0x9E3779B97F4A7C15ULL);
	h = (hk * 0x9E3779B97F4A7C15ULL) >> (64 - VMAPSCOPE_SLOT_CACHE_BITS);
	i = h & ((1 << VMAPSCOPE_SLOT_CACHE_BITS) - 1);
	e = &cs->cache[i];
	if (e->slot1 && e->caller == caller && e->api == api &&
	    (!by_label || (cs->cache_label[i][0] == lab[0] && cs->cache_label[i][1] == lab[1])))
		return e->slot1 - 1;
	slot = slot_insert(caller, api, lab[0], lab[1]);
	if (slot == SLOT_NONE)
		return slot;
	e->caller = caller;
	e->api = api;
	e->slot1 = slot + 1;
	if (by_label) {
		cs->cache_label[i][0] = lab[0];
		cs->cache_label[i][1] = lab[1];
	}
	return slot;
}

/* The row of a slot, or NULL with the loss counted. */
static __always_inline struct vmapscope_stats *row(struct vmapscope_cpu_state *cs, __u32 slot)
{
	struct vmapscope_stats *s = NULL;

	if (slot != SLOT_NONE)
		s = bpf_map_lookup_elem(&stats, &slot);
	if (!s)
		count(cs, VMAPSCOPE_CNT_STATS_FULL, 1);
	return s;
}

/*
 * --lifetime: a mapping of @slot's row made now at @addr.  Only the APIs
 * whose areas free_vmap_area_noflush ends one by one: vm_map_ram()'s
 * small mappings share vmap blocks, percpu areas are not freed that way.
 */
static __always_inline void birth(struct vmapscope_cpu_state *cs, __u64 addr, __u32 slot,
				  __u32 api)
{
	struct vmapscope_birth b = { .slot = slot };

	if (api != VMAPSCOPE_API_VMALLOC && api != VMAPSCOPE_API_VMAP &&
	    api != VMAPSCOPE_API_IOREMAP)
		return;
	b.ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&births, &addr, &b, BPF_ANY))
		count(cs, VMAPSCOPE_CNT_LIFETIME_FULL, 1);
}

/* --lifetime: the mapping at @addr is gone; its lifetime goes to its row. */
static __always_inline void death(struct vmapscope_cpu_state *cs, __u64 addr)
{
	struct vmapscope_birth *b = bpf_map_lookup_elem(&births, &addr);
	struct vmapscope_stats *s;
	__u64 life;
	__u32 slot;

	if (!b)
		return;		/* mapped before we attached, or not tracked */
	life = bpf_ktime_get_ns() - b->ns;
	slot = b->slot;
	bpf_map_delete_elem(&births, &addr);
	s = row(cs, slot);
	if (!s)
		return;
	__sync_fetch_and_add(&s->unmaps, 1);
	__sync_fetch_and_add(&s->life_sum_ns, life);
	HIST_ADD(s, life_hist, life, NS);
}

static __always_inline struct task_ctx *task_ctx(struct vmapscope_cpu_state *cs, bool create)
{
	struct task_ctx *tc;

	tc = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				  create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!tc && create)
		count(cs, VMAPSCOPE_CNT_TASK_STATE_LOST, 1);
	return tc;
}

/* ---- the series' tracepoints ---------------------------------------- */

/* Per-run events attached (--runs): vmap_mapped closes the task's runs. */
const volatile bool want_runs = false;

/* The bytes of one granule class of a call, at its shift. */
static __always_inline void add_bytes(struct vmapscope_cpu_state *cs, struct vmapscope_stats *s,
				      __u32 shift, __u64 bytes)
{
	if (!bytes)
		return;
	if (!shift || shift >= VMAPSCOPE_NR_SHIFTS) {
		/* e.g. PTE-level blocks user space did not expect on this arch */
		count(cs, VMAPSCOPE_CNT_BAD_SHIFT, 1);
		shift = VMAPSCOPE_NR_SHIFTS - 1;
	}
	__sync_fetch_and_add(&s->bytes[shift], bytes);
}

/* Which of vmap_mapped's byte counts a per-run event's shift adds to. */
static __always_inline __u32 run_class(__u32 shift)
{
	if (shift <= page_shift)
		return RUN_PTE;
	if (shift < pmd_shift)
		return RUN_CONT;
	return shift == pmd_shift ? RUN_PMD : RUN_PUD;
}

/*
 * --runs: a run of the mapping call under way.  Its row is known only at
 * the call's vmap_mapped, which follows its runs in the same task, so the
 * runs wait in task local storage (a task can be preempted between them).
 */
static __always_inline int on_run(enum vmapscope_counter event, __u64 addr, __u32 shift)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct task_ctx *tc;
	__u32 k;

	if (!cs)
		return 0;
	count(cs, event, 1);
	if (!pass_tgid(NULL))	/* counted as filtered at the call's vmap_mapped */
		return 0;
	tc = task_ctx(cs, true);
	if (!tc)
		return 0;
	if (!tc->run_nr)
		tc->run_lo = addr;
	tc->run_nr++;
	k = run_class(shift) & (NR_RUN_CLASSES - 1);
	tc->runs[k]++;
	tc->run_shift[k] = shift;
	return 0;
}

/*
 * The runs waiting in @tc go to the row of the call [addr, addr + size)
 * (@s, NULL when the call was filtered out), or to the unattributed row
 * when they lie outside it (a call whose vmap_mapped was missed).
 */
static __always_inline void runs_close(struct vmapscope_cpu_state *cs, struct task_ctx *tc,
				       struct vmapscope_stats *s, __u64 addr, __u64 size,
				       __u32 nr_runs)
{
	__u32 k, shift;

	if (tc->run_nr != nr_runs)
		count(cs, VMAPSCOPE_CNT_RUNS_MISMATCH, 1);
	if (tc->run_lo - addr >= size) {	/* below addr wraps: outside too */
		count(cs, VMAPSCOPE_CNT_UNATTRIBUTED, tc->run_nr);
		s = pass_key(cs, 0, VMAPSCOPE_API_UNATTRIBUTED) ? row(cs, 0) : NULL;
	}
	for (k = 0; k < NR_RUN_CLASSES; k++) {
		if (!tc->runs[k])
			continue;
		shift = tc->run_shift[k];
		if (shift >= VMAPSCOPE_NR_SHIFTS) {
			count(cs, VMAPSCOPE_CNT_BAD_SHIFT, 1);
			shift = VMAPSCOPE_NR_SHIFTS - 1;
		}
		if (s)
			__sync_fetch_and_add(&s->runs[shift], tc->runs[k]);
		tc->runs[k] = 0;
	}
	tc->run_nr = 0;
}

/* Each reason of a call that fell back counts once in its row. */
static __always_inline void add_fallbacks(struct vmapscope_stats *s, __u32 fallbacks)
{
	__u32 r;

	if (!fallbacks)
		return;
	__sync_fetch_and_add(&s->fallback_calls, 1);
	for (r = 1; r < VMAPSCOPE_NR_FALLBACKS; r++)
		if (fallbacks & (1U << r))
			__sync_fetch_and_add(&s->fallbacks[r], 1);
}

/*
 * One mapping call, done: everything the default view shows comes from
 * this one event (bytes per granule, the call's length, the reasons it
 * fell back, its result and its mapping time), one program run per call.
 * The arguments are read from @ctx where they are used, not all at entry:
 * loaded up front, the twelve of them were spilled to the stack around the
 * helper calls (about 20 instructions per call).  @fb is 1 where the event
 * has the fallbacks argument (patch 16 on), which comes before ret and ns.
 */
#define MAPPED_ADDR	0
#define MAPPED_SIZE	1
#define MAPPED_CALLER	2
#define MAPPED_API	3
#define MAPPED_PTE	4	/* then pte_block, pmd, pud */
#define MAPPED_NR_RUNS	8
#define MAPPED_FALLBACKS 9
#define MAPPED_RET(fb)	(9 + (fb))
#define MAPPED_NS(fb)	(10 + (fb))

static __always_inline int on_mapped(const __u64 *ctx, const int fb)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct vmapscope_stats *s = NULL;
	struct task_ctx *tc = NULL;
	__u32 slot = SLOT_FILTERED;
	__u64 pages, ns, lab[2] = {};

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_MAPPED, 1);
	if (track_areas)
		area_caller(ctx[MAPPED_ADDR], ctx[MAPPED_CALLER], (__u32)ctx[MAPPED_API]);
	if (!pass_tgid(cs))
		return 0;
	if (pass_key(cs, ctx[MAPPED_CALLER], (__u32)ctx[MAPPED_API])) {
		label_of(lab);
		slot = slot_of(cs, ctx[MAPPED_CALLER], (__u32)ctx[MAPPED_API], lab);
		s = row(cs, slot);
	}
	if (want_runs || want_call_latency)
		tc = task_ctx(cs, false);
	if (tc && want_call_latency && tc->in_call) {
		/* the call's own mapping is its last one (its page array's is nested) */
		tc->call_slot = slot;
		tc->call_named = 1;
	}
	if (want_runs) {
		if (tc && tc->run_nr)
			runs_close(cs, tc, s, ctx[MAPPED_ADDR], ctx[MAPPED_SIZE],
				   (__u32)ctx[MAPPED_NR_RUNS]);
		else if ((__u32)ctx[MAPPED_NR_RUNS])
			count(cs, VMAPSCOPE_CNT_RUNS_MISMATCH, 1);
	}
	if (!s)
		return 0;
	pages = ctx[MAPPED_SIZE] >> page_shift;
	__sync_fetch_and_add(&s->chunks, 1);
	__sync_fetch_and_add(&s->chunk_pages, pages);
	HIST_ADD(s, chunk_hist, pages, PAGES);
	add_bytes(cs, s, page_shift, ctx[MAPPED_PTE]);
	add_bytes(cs, s, cont_shift, ctx[MAPPED_PTE + 1]);
	add_bytes(cs, s, pmd_shift, ctx[MAPPED_PTE + 2]);
	add_bytes(cs, s, pud_shift, ctx[MAPPED_PTE + 3]);
	if ((int)ctx[MAPPED_RET(fb)])
		__sync_fetch_and_add(&s->map_failed, 1);
	if (fb)
		add_fallbacks(s, (__u32)ctx[MAPPED_FALLBACKS]);
	if (want_lifetime && !lifetime_from_areas)
		birth(cs, ctx[MAPPED_ADDR], slot, (__u32)ctx[MAPPED_API]);
	ns = ctx[MAPPED_NS(fb)];
	if (want_map_latency && ns) {
		__sync_fetch_and_add(&s->lat_sum_ns, ns);
		HIST_ADD(s, lat_hist, ns, NS);
	}
	return 0;
}

/*
 * vmap_mapped with its reasons (the series from patch 16: addr, size,
 * caller, api, pte, pte_block, pmd, pud, nr_runs, fallbacks, ret, ns), and
 * as the series has it before (no fallbacks; v12's "cont" is today's
 * pte_block): user space loads the one the kernel's BTF describes.
 */
SEC("raw_tp/vmap_mapped")
int on_vmap_mapped(__u64 *ctx)
{
	return on_mapped(ctx, 1);
}

SEC("raw_tp/vmap_mapped")
int on_vmap_mapped_nofb(__u64 *ctx)
{
	return on_mapped(ctx, 0);
}

SEC("raw_tp/vmap_set_ptes")
int BPF_PROG(on_vmap_set_ptes, unsigned long addr, unsigned long pfn, unsigned int nr_ptes,
	     unsigned int shift)
{
	return on_run(VMAPSCOPE_CNT_SET_PTES, addr, shift);
}

SEC("raw_tp/vmap_huge_block")
int BPF_PROG(on_vmap_huge_block, unsigned long addr, unsigned long pfn, unsigned int shift)
{
	return on_run(VMAPSCOPE_CNT_HUGE_BLOCKS, addr, shift);
}

/* ---- stock vmalloc tracepoints --------------------------------------- */

/*
 * The stack method (vmapscope.h): set by user space after attach, when
 * nothing else names the callers.  Writable data rather than a load-time
 * constant: whether the latency probes attached is known only then.
 */
bool stack_callers = false;
__u32 nr_internals = 0;
struct vmapscope_internal internals[VMAPSCOPE_MAX_INTERNALS] = {};

/* Index of the internals range holding ip, or -1: a binary search. */
static __always_inline int internal_of(__u64 ip)
{
	__u32 lo = 0, hi = nr_internals, mid, i;

	for (i = 0; i < 8; i++) {	/* 2^8 > VMAPSCOPE_MAX_INTERNALS */
		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		if (mid >= VMAPSCOPE_MAX_INTERNALS)
			break;
		if (ip < internals[mid].start)
			hi = mid;
		else if (ip >= internals[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

struct frame_walk {
	struct vmapscope_cpu_state *cs;
	__u32 nr;
	__u32 api;
	bool seen;		/* inside the internals already */
	__u64 caller;
};

static long frame_step(__u32 i, void *data)
{
	struct frame_walk *w = data;
	__u64 ip;
	int idx;

	if (i >= w->nr)		/* nr <= VMAPSCOPE_STACK_DEPTH; the mask tells the verifier */
		return 1;
	ip = w->cs->stack[i & (VMAPSCOPE_STACK_DEPTH - 1)];
	idx = internal_of(ip);
	if (idx >= 0 && idx < VMAPSCOPE_MAX_INTERNALS) {
		w->seen = true;
		if (internals[idx].api != VMAPSCOPE_API_NONE)
			w->api = internals[idx].api;
		return 0;
	}
	if (!w->seen)
		return 0;	/* still the tracing machinery */
	w->caller = ip;
	return 1;
}

/* The area's caller from the kernel stack; false if none was found. */
static __always_inline bool stack_caller(void *ctx, struct vmapscope_cpu_state *cs,
					 __u64 *caller, __u32 *api)
{
	struct frame_walk w = { .cs = cs, .api = VMAPSCOPE_API_OTHER };
	long n;

	n = bpf_get_stack(ctx, cs->stack, sizeof(cs->stack), 0);
	if (n <= 0)
		return false;
	w.nr = n / sizeof(__u64);
	bpf_loop(VMAPSCOPE_STACK_DEPTH, frame_step, &w, 0);
	if (!w.caller)
		return false;
	*caller = w.caller;
	*api = w.api;
	return true;
}

static __always_inline int on_area(void *ctx, __u64 addr, __u64 size, int failed)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	__u32 api = VMAPSCOPE_API_UNATTRIBUTED;
	struct vmapscope_stats *s;
	struct task_ctx *tc;
	__u32 slot = 0;		/* unattributed */

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_AREAS, 1);
	if (failed) {
		count(cs, VMAPSCOPE_CNT_AREAS_FAILED, 1);
		return 0;
	}
	if (track_areas)
		area_add(addr, size);
	if (!pass_tgid(cs))
		return 0;
	/* Inside a probed call: charge it to that call's row at its exit. */
	if (want_call_latency) {
		tc = task_ctx(cs, false);
		if (tc && tc->in_call) {
			tc->call_areas++;
			tc->call_area_bytes += size;
			return 0;
		}
	}
	if (stack_callers) {
		__u64 caller, lab[2] = {};

		if (stack_caller(ctx, cs, &caller, &api)) {
			if (!pass_key(cs, caller, api))
				return 0;
			label_of(lab);
			slot = slot_of(cs, caller, api, lab);
		} else {
			count(cs, VMAPSCOPE_CNT_STACK_UNNAMED, 1);
		}
	}
	if (!slot && !pass_key(cs, 0, VMAPSCOPE_API_UNATTRIBUTED))
		return 0;
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->areas, 1);
	__sync_fetch_and_add(&s->area_bytes, size);
	if (want_lifetime && lifetime_from_areas && slot)
		birth(cs, addr, slot, api);
	return 0;
}

SEC("raw_tp/alloc_vmap_area")
int BPF_PROG(on_alloc_vmap_area, unsigned long addr, unsigned long size,
	     unsigned long align, unsigned long vstart, unsigned long vend,
	     int failed)
{
	return on_area(ctx, addr, size, failed);
}

SEC("raw_tp/purge_vmap_area_lazy")
int BPF_PROG(on_purge_vmap_area_lazy, unsigned long start, unsigned long end,
	     unsigned int npurged)
{
	struct vmapscope_cpu_state *cs = cpu_state();

	if (cs) {
		count(cs, VMAPSCOPE_CNT_PURGES, 1);
		count(cs, VMAPSCOPE_CNT_PURGED_AREAS, npurged);
	}
	return 0;
}

SEC("raw_tp/free_vmap_area_noflush")
int BPF_PROG(on_free_vmap_area_noflush, unsigned long va_start)
{
	struct vmapscope_cpu_state *cs = cpu_state();

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_LAZY_FREES, 1);
	if (track_areas)
		area_del(va_start);
	if (want_lifetime)
		death(cs, va_start);
	return 0;
}

/* ---- areas named as /proc/vmallocinfo names them (stock default, --areas) ---- */

/*
 * At the exit of alloc_vmap_area(size, align, vstart, vend, node, gfp,
 * va_flags, vm): __get_vm_area_node() set vm->caller and vm->flags before
 * the call, so the returned area carries the caller /proc/vmallocinfo
 * prints, for vmalloc, vmap and ioremap areas alike (vmapscope.h).  One
 * program run per area, in place of the alloc_vmap_area tracepoint's (user
 * space attaches one or the other): it counts what on_area() counts, with
 * the caller named.  Inside a timed call, the call's row becomes this
 * area's (caller, api).
 */
static __always_inline __u32 api_of_vm(__u64 vm_flags)
{
	if (vm_flags & VMAPSCOPE_VM_IOREMAP)
		return VMAPSCOPE_API_IOREMAP;
	if (vm_flags & VMAPSCOPE_VM_ALLOC)
		return VMAPSCOPE_API_VMALLOC;
	if (vm_flags & VMAPSCOPE_VM_MAP)
		return VMAPSCOPE_API_VMAP;
	return VMAPSCOPE_API_OTHER;
}

#define VS_MAX_ERRNO	4095

static __always_inline int on_area_named(struct vmapscope_cpu_state *cs, __u64 start,
					 __u64 size, __u64 caller, __u32 api)
{
	struct vmapscope_stats *s;
	struct task_ctx *tc;
	__u64 lab[2] = {};
	__u32 slot = SLOT_FILTERED;

	if (track_areas)
		area_add_as(start, size, true, caller, api);
	if (!pass_tgid(cs))
		return 0;
	if (pass_key(cs, caller, api)) {
		label_of(lab);
		slot = slot_of(cs, caller, api, lab);
	}
	if (want_call_latency) {
		tc = task_ctx(cs, false);
		/* the first area of the call is its own (a nested one follows it) */
		if (tc && tc->in_call && !tc->call_named) {
			tc->call_slot = slot;
			tc->call_named = 1;
		}
	}
	if (slot == SLOT_FILTERED)
		return 0;
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->areas, 1);
	__sync_fetch_and_add(&s->area_bytes, size);
	if (want_lifetime && lifetime_from_areas)
		birth(cs, start, slot, api);
	return 0;
}

SEC("fexit/alloc_vmap_area")
int BPF_PROG(on_area_exit)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	__u64 size = 0, va_flags = 0, vm = 0, va = 0, caller = 0, start = 0;
	__u32 api;

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_AREAS, 1);
	bpf_get_func_ret(ctx, &va);
	if (!va || va >= (__u64)-VS_MAX_ERRNO) {
		count(cs, VMAPSCOPE_CNT_AREAS_FAILED, 1);
		return 0;
	}
	bpf_get_func_arg(ctx, 0, &size);
	bpf_get_func_arg(ctx, 7, &vm);
	if (vm) {
		caller = (__u64)BPF_CORE_READ((struct vm_struct *)vm, caller);
		api = api_of_vm(BPF_CORE_READ((struct vm_struct *)vm, flags));
	} else {
		bpf_get_func_arg(ctx, 6, &va_flags);
		api = va_flags & VMAPSCOPE_VMAP_RAM ? VMAPSCOPE_API_VM_MAP_RAM : VMAPSCOPE_API_OTHER;
	}
	if (track_areas || want_lifetime)
		start = BPF_CORE_READ((struct vmap_area *)va, va_start);
	return on_area_named(cs, start, size, caller, api);
}

/* The same where fentry is refused: everything from the returned area. */
SEC("kretprobe/alloc_vmap_area")
int BPF_KRETPROBE(on_area_ret, struct vmap_area *va)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct vm_struct *vm;
	__u64 start, caller = 0;
	__u32 api;

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_AREAS, 1);
	if (!va || (__u64)va >= (__u64)-VS_MAX_ERRNO) {
		count(cs, VMAPSCOPE_CNT_AREAS_FAILED, 1);
		return 0;
	}
	start = BPF_CORE_READ(va, va_start);
	vm = BPF_CORE_READ(va, vm);
	if (vm) {
		caller = (__u64)BPF_CORE_READ(vm, caller);
		api = api_of_vm(BPF_CORE_READ(vm, flags));
	} else {
		api = BPF_CORE_READ(va, flags) & VMAPSCOPE_VMAP_RAM ?
		      VMAPSCOPE_API_VM_MAP_RAM : VMAPSCOPE_API_OTHER;
	}
	return on_area_named(cs, start, BPF_CORE_READ(va, va_end) - start, caller, api);
}

/* ---- entry-point latency --------------------------------------------- */

/* A call in flight this long lost its return probe (kretprobe miss). */
#define LAT_STALE_NS	(10ULL * 1000 * 1000 * 1000)

static __always_inline int lat_enter(__u32 slot, __u64 caller)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct task_ctx *tc;
	__u64 now;

	/* a call is one event: counted once, at its exit */
	if (!cs || !pass_tgid(NULL))
		return 0;
	tc = task_ctx(cs, true);
	if (!tc)
		return 0;
	now = bpf_ktime_get_ns();
	if (tc->in_call && now - tc->call_start_ns > LAT_STALE_NS) {
		/* its return probe was missed: forget it rather than nest forever */
		count(cs, VMAPSCOPE_CNT_LAT_STALE, 1);
		tc->in_call = 0;
	}
	if (tc->in_call) {
		/*
		 * A probed call inside another (vmalloc() of a huge area vmallocs
		 * its page array): time the outer one only; depth pairs the exits.
		 */
		tc->depth++;
		count(cs, VMAPSCOPE_CNT_LAT_NESTED, 1);
		return 0;
	}
	tc->in_call = slot + 1;
	tc->depth = 0;
	tc->call_caller = caller;
	tc->call_named = 0;
	tc->call_areas = 0;
	tc->call_area_bytes = 0;
	tc->call_start_ns = now;
	return 0;
}

static __always_inline int lat_exit(__u32 lslot, __u64 ret)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct vmapscope_stats *s;
	struct task_ctx *tc;
	__u64 delta;
	__u32 slot;

	if (!cs || !pass_tgid(cs))
		return 0;
	tc = task_ctx(cs, false);
	if (!tc || !tc->in_call) {
		count(cs, VMAPSCOPE_CNT_LAT_NO_ENTRY, 1);
		return 0;
	}
	if (tc->depth) {
		tc->depth--;		/* a nested call returned */
		return 0;
	}
	if (tc->in_call != lslot + 1) {
		count(cs, VMAPSCOPE_CNT_LAT_NO_ENTRY, 1);
		tc->in_call = 0;
		return 0;
	}
	delta = bpf_ktime_get_ns() - tc->call_start_ns;
	tc->in_call = 0;
	if (tc->call_named) {
		/* its area or its mapping named the vmallocinfo caller and the api */
		slot = tc->call_slot;
		if (slot == SLOT_FILTERED) {
			count(cs, VMAPSCOPE_CNT_FILTERED, 1);
			return 0;
		}
	} else {
		__u32 api = lslot < VMAPSCOPE_NR_LAT_SLOTS ?
			    lat_api[lslot & (VMAPSCOPE_NR_LAT_SLOTS - 1)] : 0;
		__u64 lab[2] = {};

		if (!pass_key(cs, tc->call_caller, api))
			return 0;
		label_of(lab);
		slot = slot_of(cs, tc->call_caller, api, lab);
	}
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->calls, 1);
	if (!ret)
		__sync_fetch_and_add(&s->failed, 1);
	__sync_fetch_and_add(&s->call_lat_sum_ns, delta);
	HIST_ADD(s, call_lat_hist, delta, NS);
	if (tc->call_areas) {
		__sync_fetch_and_add(&s->areas, tc->call_areas);
		__sync_fetch_and_add(&s->area_bytes, tc->call_area_bytes);
	}
	return 0;
}

/* The caller argument of a traced function, read from the kprobe regs. */
static __always_inline __u64 kprobe_arg(struct pt_regs *ctx, __s32 idx)
{
	__u64 v = 0;

#if defined(__TARGET_ARCH_x86)
	/* rdi rsi rdx rcx r8 r9, then the stack above the return address */
	switch (idx) {
	case 0: return PT_REGS_PARM1_CORE(ctx);
	case 1: return PT_REGS_PARM2_CORE(ctx);
	case 2: return PT_REGS_PARM3_CORE(ctx);
	case 3: return PT_REGS_PARM4_CORE(ctx);
	case 4: return PT_REGS_PARM5_CORE(ctx);
	case 5: return BPF_CORE_READ(ctx, r9);
	}
	if (idx >= 6)
		bpf_probe_read_kernel(&v, sizeof(v),
				      (void *)(PT_REGS_SP(ctx) + 8 * (idx - 5)));
#elif defined(__TARGET_ARCH_arm64)
	/* x0..x7, then the stack */
	if (idx >= 8)
		bpf_probe_read_kernel(&v, sizeof(v),
				      (void *)(PT_REGS_SP(ctx) + 8 * (idx - 8)));
	else if (idx >= 0)
		v = ctx->user_regs.regs[idx & 7];
#endif
	return v;
}

/* Return address of the traced function: the caller /proc/vmallocinfo shows. */
static __always_inline __u64 kprobe_return_address(struct pt_regs *ctx)
{
	__u64 ra = 0;

#if defined(__TARGET_ARCH_x86)
	bpf_probe_read_kernel(&ra, sizeof(ra), (void *)PT_REGS_SP(ctx));
#elif defined(__TARGET_ARCH_arm64)
	ra = PT_REGS_RET(ctx);
#endif
	return ra;
}

#define LAT_SLOT(n)							\
SEC("fentry")								\
int BPF_PROG(lat_fentry_##n)						\
{									\
	__u64 caller = 0;						\
	__s32 idx = lat_caller_arg[n];					\
									\
	if (idx >= 0)							\
		bpf_get_func_arg(ctx, idx, &caller);			\
	return lat_enter(n, caller);					\
}									\
SEC("fexit")								\
int BPF_PROG(lat_fexit_##n)						\
{									\
	__u64 ret = 0;							\
									\
	bpf_get_func_ret(ctx, &ret);					\
	return lat_exit(n, ret);					\
}									\
SEC("kprobe")								\
int BPF_KPROBE(lat_kprobe_##n)						\
{									\
	__s32 idx = lat_caller_arg[n];					\
									\
	return lat_enter(n, idx >= 0 ? kprobe_arg(ctx, idx) :		\
				       kprobe_return_address(ctx));	\
}									\
SEC("kretprobe")							\
int BPF_KRETPROBE(lat_kretprobe_##n)					\
{									\
	return lat_exit(n, PT_REGS_RC(ctx));				\
}

LAT_SLOT(0)
LAT_SLOT(1)
LAT_SLOT(2)
LAT_SLOT(3)
LAT_SLOT(4)
LAT_SLOT(5)
LAT_SLOT(6)
LAT_SLOT(7)

/* ---- module:module_load: where the module's text sections are ---- */

#define STT_FUNC	2
#define MAX_MODULE_SYMS	65536

struct modsym_walk {
	const struct vs_elf64_sym *symtab;
	__u64 seq;
	__u32 nr;
	struct vmapscope_mod_key key;
	__u64 seen[4];		/* sections (index < 256) already recorded */
};

static long modsym_step(__u32 i, void *data)
{
	struct modsym_walk *w = data;
	struct vmapscope_mod_val v = {};
	struct vs_elf64_sym sym;
	__u64 *seen;

	if (i >= w->nr)
		return 1;
	if (bpf_probe_read_kernel(&sym, sizeof(sym), &w->symtab[i]))
		return 1;
	if ((sym.st_info & 0xf) != STT_FUNC || !sym.st_shndx || sym.st_shndx >= 256)
		return 0;
	/* any function of the section will do: the first one, once */
	switch (sym.st_shndx >> 6) {
	case 0: seen = &w->seen[0]; break;
	case 1: seen = &w->seen[1]; break;
	case 2: seen = &w->seen[2]; break;
	default: seen = &w->seen[3]; break;
	}
	if (*seen & (1ULL << (sym.st_shndx & 63)))
		return 0;
	*seen |= 1ULL << (sym.st_shndx & 63);
	w->key.shndx = sym.st_shndx;
	v.addr = sym.st_value;
	v.size = i;
	v.seq = w->seq;
	v.st_name = sym.st_name;
	bpf_map_update_elem(&modules, &w->key, &v, BPF_ANY);
	return 0;
}

/*
 * The text regions, mem[MOD_TEXT] and mem[MOD_INIT_TEXT] (6.4+).  Constant
 * indices: CO-RE relocates them with the kernel's element size.
 */
#define MODULE_REGION(w, mod, sec, idx) do {					\
	struct vmapscope_mod_val v = {};					\
										\
	v.addr = (__u64)BPF_CORE_READ(mod, mem[idx].base);			\
	v.size = BPF_CORE_READ(mod, mem[idx].size);				\
	v.seq = (w)->seq;							\
	(w)->key.shndx = (sec);						\
	if (v.addr)								\
		bpf_map_update_elem(&modules, &(w)->key, &v, BPF_ANY);		\
} while (0)

/*
 * Fires in load_module() before the module's init runs: kallsyms still
 * points at the full, relocated .ko symbol table (it is cut to the core
 * symbols after init).  Runs once per module load, never on the mapping
 * paths.
 */
SEC("raw_tp/module_load")
int BPF_PROG(on_module_load, struct module *mod)
{
	struct modsym_walk w = {};
	struct mod_kallsyms *ks;

	w.seq = __sync_fetch_and_add(&module_loads, 1) + 1;
	if (bpf_probe_read_kernel_str(w.key.name, sizeof(w.key.name), mod->name) <= 0)
		return 0;
	w.key.base = (__u64)BPF_CORE_READ(mod, mem[0].base);	/* MOD_TEXT */
	MODULE_REGION(&w, mod, VMAPSCOPE_MOD_CORE_TEXT, 0);	/* MOD_TEXT */
	MODULE_REGION(&w, mod, VMAPSCOPE_MOD_INIT_TEXT, 4);	/* MOD_INIT_TEXT */
	ks = BPF_CORE_READ(mod, kallsyms);
	if (!ks)
		return 0;
	w.symtab = BPF_CORE_READ(ks, symtab);
	w.nr = BPF_CORE_READ(ks, num_symtab);
	if (w.nr > MAX_MODULE_SYMS)
		w.nr = MAX_MODULE_SYMS;
	bpf_loop(MAX_MODULE_SYMS, modsym_step, &w, 0);
	return 0;
}
