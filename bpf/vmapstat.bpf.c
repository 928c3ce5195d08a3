// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat collector: aggregates vmalloc/vmap/ioremap page-table mapping
 * activity in the kernel, per (caller, api).  No per-event traffic to
 * user space: user space reads the "callers" hash, the "stats" array and
 * the per-CPU counters.
 *
 * Sources:
 *  - the series' tracepoints vmalloc:vmap_chunk / vmap_set_ptes /
 *    vmap_huge_block (tp_btf, or raw_tp programs of the same bodies):
 *    granule bytes and chunk lengths;
 *  - entry-point probes (fentry/fexit or kprobe/kretprobe, one "slot" per
 *    kernel function, bound by user space): latency;
 *  - the stock vmalloc:alloc_vmap_area / purge_vmap_area_lazy /
 *    free_vmap_area_noflush tracepoints: areas, purges;
 *  - on stock kernels, alloc_vmap_area()'s exit (fexit or kretprobe)
 *    instead of its tracepoint: areas with the caller of their vm_struct,
 *    the one /proc/vmallocinfo prints.
 *
 * Attribution: vmap_chunk carries (caller, api) and fires before the
 * set_ptes / huge_block events of its range in the same task, so the
 * chunk is remembered in task local storage and later events whose
 * address lies inside it are charged to its (caller, api); anything else
 * goes to the "unattributed" bucket and is counted.
 *
 * Cost: these programs run inside every mapping of the observed system,
 * so each event does as little as it can and leaves the rest to read
 * time.  A (caller, api) is resolved once per chunk to a slot of the
 * "stats" array (a per-CPU direct-mapped cache in front of the "callers"
 * hash), and the chunk's events index that array; the global counters
 * are per-CPU and summed by user space.
 */
#include "vmapscope_bpf.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "vmapscope.h"
#include "log2.h"
#include "area_track.h"

char LICENSE[] SEC("license") = "GPL";

/* The current task's context-switch counts (struct vmapscope_chunk_copy). */
struct task_struct {
	unsigned long nvcsw;
	unsigned long nivcsw;
} __attribute__((preserve_access_index));

/* Set by user space before load (filters and machine facts). */
const volatile __u32 targ_tgid = 0;		/* 0 = all */
const volatile __u32 targ_api_mask = 0;		/* 0 = all */
const volatile __u32 nr_caller_ranges = 0;	/* 0 = no caller filter */
const volatile __u64 caller_lo[VMAPSCOPE_MAX_CALLER_RANGES] = {};
const volatile __u64 caller_hi[VMAPSCOPE_MAX_CALLER_RANGES] = {};
const volatile __u32 page_shift = 12;
/* Entries of "callers" and "stats" (--max-callers). */
const volatile __u32 max_slots = 2048;
/* Latency probes attached: areas inside a probed call go to its row. */
const volatile bool want_latency = false;
/* Per latency slot: api and the argument index holding "caller" (or -1). */
const volatile __u32 lat_api[VMAPSCOPE_NR_LAT_SLOTS] = {};
const volatile __s32 lat_caller_arg[VMAPSCOPE_NR_LAT_SLOTS] = {};

/*
 * Slots of the "stats" array: 0 is the unattributed bucket (user space
 * enters its key in "callers" before attaching); the rest are handed out
 * in order of first sight.  A slot lost to two CPUs racing for the same
 * new key only costs capacity.
 */
#define SLOT_FILTERED	0xffffffffu	/* chunk of a filtered-out (caller, api) */
#define SLOT_NONE	0xfffffffeu	/* "stats" was full for this (caller, api) */
__u64 next_slot = 1;

struct task_ctx {
	/* last vmap_chunk of this task */
	__u64 chunk_lo;
	__u64 chunk_hi;
	__u32 chunk_slot;
	/* probed entry point in flight: slot + 1, 0 = none */
	__u32 in_call;
	/* probed calls nested inside it (e.g. vmalloc of its page array) */
	__u32 depth;
	__u32 call_chunk_slot;		/* from a vmap_chunk seen during the call */
	__u32 call_saw_chunk;
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

static __always_inline __u32 hist_slot(__u64 v)
{
	return vs_hist_slot(v, VMAPSCOPE_HIST_SLOTS);
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

/* The (caller, api)'s slot of "stats", entered on first sight. */
static __noinline __u32 slot_insert(__u64 caller, __u32 api)
{
	struct vmapscope_key k = { .caller = caller, .api = api };
	__u32 *v, slot;
	__u64 n;

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

static __always_inline __u32 slot_of(struct vmapscope_cpu_state *cs, __u64 caller, __u32 api)
{
	__u32 h = ((caller ^ api) * 0x9E3779B97F4A7C15ULL) >> (64 - VMAPSCOPE_SLOT_CACHE_BITS);
	struct vmapscope_slot_cache_ent *e = &cs->cache[h & ((1 << VMAPSCOPE_SLOT_CACHE_BITS) - 1)];
	__u32 slot;

	if (e->slot1 && e->caller == caller && e->api == api)
		return e->slot1 - 1;
	slot = slot_insert(caller, api);
	if (slot == SLOT_NONE)
		return slot;
	e->caller = caller;
	e->api = api;
	e->slot1 = slot + 1;
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

static __always_inline __u64 switches(const struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

static __always_inline int on_chunk(__u64 addr, __u64 nr_pages, __u64 caller, __u32 api)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct vmapscope_stats *s;
	struct task_struct *t;
	struct task_ctx *tc;
	__u32 slot;

	if (!cs)
		return 0;
	count(cs, VMAPSCOPE_CNT_CHUNKS, 1);
	if (track_areas)
		area_caller(addr, caller, api);
	if (!pass_tgid(cs))
		return 0;
	slot = pass_key(cs, caller, api) ? slot_of(cs, caller, api) : SLOT_FILTERED;
	t = bpf_get_current_task_btf();
	cs->chunk.task = (__u64)t;
	cs->chunk.switches = switches(t);
	cs->chunk.lo = addr;
	cs->chunk.hi = addr + (nr_pages << page_shift);
	cs->chunk.slot = slot;
	tc = task_ctx(cs, true);
	if (tc) {
		tc->chunk_lo = addr;
		tc->chunk_hi = addr + (nr_pages << page_shift);
		tc->chunk_slot = slot;
		if (want_latency && tc->in_call) {
			tc->call_chunk_slot = slot;
			tc->call_saw_chunk = 1;
		}
	}
	if (slot == SLOT_FILTERED)
		return 0;
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->chunks, 1);
	__sync_fetch_and_add(&s->chunk_pages, nr_pages);
	__sync_fetch_and_add(&s->chunk_hist[hist_slot(nr_pages)], 1);
	return 0;
}

static __always_inline int on_mapped(enum vmapscope_counter event, __u64 addr, __u64 size,
				     __u32 shift)
{
	struct vmapscope_cpu_state *cs = cpu_state();
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 lo = 0, hi = 0;
	struct vmapscope_stats *s;
	struct task_ctx *tc;
	__u32 slot = 0;		/* unattributed */
	__u32 cslot = 0;

	if (!cs)
		return 0;
	count(cs, event, 1);
	if (!pass_tgid(cs))
		return 0;
	if (cs->chunk.task == (__u64)t && cs->chunk.switches == switches(t)) {
		lo = cs->chunk.lo;
		hi = cs->chunk.hi;
		cslot = cs->chunk.slot;
	} else {
		tc = task_ctx(cs, false);	/* switched out since its chunk */
		if (tc) {
			lo = tc->chunk_lo;
			hi = tc->chunk_hi;
			cslot = tc->chunk_slot;
		}
	}
	if (addr >= lo && addr < hi) {
		slot = cslot;
		if (slot == SLOT_FILTERED) {
			count(cs, VMAPSCOPE_CNT_FILTERED, 1);
			return 0;
		}
	} else {
		count(cs, VMAPSCOPE_CNT_UNATTRIBUTED, 1);
		if (!pass_key(cs, 0, VMAPSCOPE_API_UNATTRIBUTED))
			return 0;
	}
	if (shift >= VMAPSCOPE_NR_SHIFTS) {
		count(cs, VMAPSCOPE_CNT_BAD_SHIFT, 1);
		shift = VMAPSCOPE_NR_SHIFTS - 1;
	}
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->runs[shift], 1);
	__sync_fetch_and_add(&s->bytes[shift], size);
	return 0;
}

SEC("raw_tp/vmap_chunk")
int BPF_PROG(on_vmap_chunk, unsigned long addr, unsigned long pfn,
	     unsigned long nr_pages, unsigned int shift, const void *caller,
	     unsigned int api)
{
	return on_chunk(addr, nr_pages, (__u64)caller, api);
}

SEC("raw_tp/vmap_set_ptes")
int BPF_PROG(on_vmap_set_ptes, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int nr_ptes, unsigned int shift)
{
	return on_mapped(VMAPSCOPE_CNT_SET_PTES, addr, size, shift);
}

SEC("raw_tp/vmap_huge_block")
int BPF_PROG(on_vmap_huge_block, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int shift)
{
	return on_mapped(VMAPSCOPE_CNT_HUGE_BLOCKS, addr, size, shift);
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
	if (want_latency) {
		tc = task_ctx(cs, false);
		if (tc && tc->in_call) {
			tc->call_areas++;
			tc->call_area_bytes += size;
			return 0;
		}
	}
	if (stack_callers) {
		__u64 caller;
		__u32 api;

		if (stack_caller(ctx, cs, &caller, &api)) {
			if (!pass_key(cs, caller, api))
				return 0;
			slot = slot_of(cs, caller, api);
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

	if (cs)
		count(cs, VMAPSCOPE_CNT_LAZY_FREES, 1);
	if (track_areas)
		area_del(va_start);
	return 0;
}

/* ---- stock kernels: the area's caller as /proc/vmallocinfo names it ---- */

/*
 * At the exit of alloc_vmap_area(size, align, vstart, vend, node, gfp,
 * va_flags, vm): __get_vm_area_node() set vm->caller and vm->flags before
 * the call, so the returned area carries the caller /proc/vmallocinfo
 * prints, for vmalloc, vmap and ioremap areas alike (vmapscope.h).  One
 * program run per area, in place of the alloc_vmap_area tracepoint's (user
 * space attaches one or the other): it counts what on_area() counts, with
 * the caller named.  Inside a timed call, the call's row becomes this
 * area's (caller, api), as vmap_chunk does on the series kernel.
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
	__u32 slot;

	if (track_areas)
		area_add_as(start, size, true, caller, api);
	if (!pass_tgid(cs))
		return 0;
	slot = pass_key(cs, caller, api) ? slot_of(cs, caller, api) : SLOT_FILTERED;
	if (want_latency) {
		tc = task_ctx(cs, false);
		/* the first area of the call is its own (a nested one follows it) */
		if (tc && tc->in_call && !tc->call_saw_chunk) {
			tc->call_chunk_slot = slot;
			tc->call_saw_chunk = 1;
		}
	}
	if (slot == SLOT_FILTERED)
		return 0;
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->areas, 1);
	__sync_fetch_and_add(&s->area_bytes, size);
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
	if (track_areas)
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
	tc->call_saw_chunk = 0;
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
	if (tc->call_saw_chunk) {
		/* the tracepoint knew the vmallocinfo caller and the api */
		slot = tc->call_chunk_slot;
		if (slot == SLOT_FILTERED) {
			count(cs, VMAPSCOPE_CNT_FILTERED, 1);
			return 0;
		}
	} else {
		__u32 api = lslot < VMAPSCOPE_NR_LAT_SLOTS ?
			    lat_api[lslot & (VMAPSCOPE_NR_LAT_SLOTS - 1)] : 0;

		if (!pass_key(cs, tc->call_caller, api))
			return 0;
		slot = slot_of(cs, tc->call_caller, api);
	}
	s = row(cs, slot);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->calls, 1);
	if (!ret)
		__sync_fetch_and_add(&s->failed, 1);
	__sync_fetch_and_add(&s->lat_sum_ns, delta);
	__sync_fetch_and_add(&s->lat_hist[hist_slot(delta)], 1);
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
