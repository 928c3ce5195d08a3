// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat collector: aggregates vmalloc/vmap/ioremap page-table mapping
 * activity in the kernel, per (caller, api).  No per-event traffic to
 * user space: user space reads the "stats" hash and the counters array.
 *
 * Sources:
 *  - the series' tracepoints vmalloc:vmap_chunk / vmap_set_ptes /
 *    vmap_huge_block (tp_btf, or raw_tp programs of the same bodies):
 *    granule bytes and chunk lengths;
 *  - entry-point probes (fentry/fexit or kprobe/kretprobe, one "slot" per
 *    kernel function, bound by user space): latency;
 *  - the stock vmalloc:alloc_vmap_area / purge_vmap_area_lazy /
 *    free_vmap_area_noflush tracepoints: areas, purges.
 *
 * Attribution: vmap_chunk carries (caller, api) and fires before the
 * set_ptes / huge_block events of its range in the same task, so the
 * chunk is remembered per task (bounded LRU hash) and later events whose
 * address lies inside it are charged to its (caller, api); anything else
 * goes to the "unattributed" bucket and is counted.
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
/* Per latency slot: api and the argument index holding "caller" (or -1). */
const volatile __u32 lat_api[VMAPSCOPE_NR_LAT_SLOTS] = {};
const volatile __s32 lat_caller_arg[VMAPSCOPE_NR_LAT_SLOTS] = {};

__u64 counters[VMAPSCOPE_CNT_MAX] = {};
/* All-zero initial value for new stats entries (too big for the stack). */
struct vmapscope_stats zero_stats = {};

struct task_ctx {
	/* last vmap_chunk of this task */
	__u64 chunk_lo;
	__u64 chunk_hi;
	__u64 chunk_caller;
	__u32 chunk_api;
	/* probed entry point in flight: slot + 1, 0 = none */
	__u32 in_call;
	/* probed calls nested inside it (e.g. vmalloc of its page array) */
	__u32 depth;
	__u64 call_start_ns;
	__u64 call_caller;		/* from the probe (argument / return address) */
	__u64 call_chunk_caller;	/* from a vmap_chunk seen during the call */
	__u32 call_chunk_api;
	__u32 call_saw_chunk;
	__u64 call_areas;		/* alloc_vmap_area during the call */
	__u64 call_area_bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);		/* tid */
	__type(value, struct task_ctx);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2048);	/* resized by user space (--max-callers) */
	__type(key, struct vmapscope_key);
	__type(value, struct vmapscope_stats);
} stats SEC(".maps");

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

static __always_inline void count(enum vmapscope_counter c, __u64 n)
{
	if (c < VMAPSCOPE_CNT_MAX)
		__sync_fetch_and_add(&counters[c], n);
}

static __always_inline __u32 hist_slot(__u64 v)
{
	return vs_hist_slot(v, VMAPSCOPE_HIST_SLOTS);
}

static __always_inline bool pass_tgid(void)
{
	if (!targ_tgid)
		return true;
	return (bpf_get_current_pid_tgid() >> 32) == targ_tgid;
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

static __always_inline bool pass_key(const struct vmapscope_key *k)
{
	if (pass_api(k->api) && pass_caller(k->caller))
		return true;
	count(VMAPSCOPE_CNT_FILTERED, 1);
	return false;
}

static __always_inline struct vmapscope_stats *get_stats(const struct vmapscope_key *k)
{
	struct vmapscope_stats *s;
	long err;

	s = bpf_map_lookup_elem(&stats, k);
	if (s)
		return s;
	err = bpf_map_update_elem(&stats, k, &zero_stats, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU created it */) {
		count(VMAPSCOPE_CNT_STATS_FULL, 1);
		return NULL;
	}
	s = bpf_map_lookup_elem(&stats, k);
	if (!s)
		count(VMAPSCOPE_CNT_STATS_FULL, 1);
	return s;
}

static __always_inline struct task_ctx *task_ctx(bool create)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_ctx *tc, zero = {};

	tc = bpf_map_lookup_elem(&tasks, &tid);
	if (tc || !create)
		return tc;
	bpf_map_update_elem(&tasks, &tid, &zero, BPF_ANY);
	return bpf_map_lookup_elem(&tasks, &tid);
}

/* ---- the series' tracepoints ---------------------------------------- */

static __always_inline int on_chunk(__u64 addr, __u64 nr_pages, __u64 caller, __u32 api)
{
	struct vmapscope_key k = { .caller = caller, .api = api };
	struct vmapscope_stats *s;
	struct task_ctx *tc;

	count(VMAPSCOPE_CNT_CHUNKS, 1);
	if (track_areas)
		area_caller(addr, caller, api);
	if (!pass_tgid())
		return 0;
	tc = task_ctx(true);
	if (tc) {
		tc->chunk_lo = addr;
		tc->chunk_hi = addr + (nr_pages << page_shift);
		tc->chunk_caller = caller;
		tc->chunk_api = api;
		if (tc->in_call) {
			tc->call_chunk_caller = caller;
			tc->call_chunk_api = api;
			tc->call_saw_chunk = 1;
		}
	}
	if (!pass_key(&k))
		return 0;
	s = get_stats(&k);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->chunks, 1);
	__sync_fetch_and_add(&s->chunk_pages, nr_pages);
	__sync_fetch_and_add(&s->chunk_hist[hist_slot(nr_pages)], 1);
	return 0;
}

static __always_inline int on_mapped(__u64 addr, __u64 size, __u32 shift)
{
	struct vmapscope_key k = { .caller = 0, .api = VMAPSCOPE_API_UNATTRIBUTED };
	struct vmapscope_stats *s;
	struct task_ctx *tc;

	if (!pass_tgid())
		return 0;
	tc = task_ctx(false);
	if (tc && addr >= tc->chunk_lo && addr < tc->chunk_hi) {
		k.caller = tc->chunk_caller;
		k.api = tc->chunk_api;
	} else {
		count(VMAPSCOPE_CNT_UNATTRIBUTED, 1);
	}
	if (!pass_key(&k))
		return 0;
	if (shift >= VMAPSCOPE_NR_SHIFTS) {
		count(VMAPSCOPE_CNT_BAD_SHIFT, 1);
		shift = VMAPSCOPE_NR_SHIFTS - 1;
	}
	s = get_stats(&k);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->runs[shift], 1);
	__sync_fetch_and_add(&s->bytes[shift], size);
	return 0;
}

SEC("tp_btf/vmap_chunk")
int BPF_PROG(chunk_btf, unsigned long addr, unsigned long pfn,
	     unsigned long nr_pages, unsigned int shift, const void *caller,
	     unsigned int api)
{
	return on_chunk(addr, nr_pages, (__u64)caller, api);
}

SEC("raw_tp/vmap_chunk")
int BPF_PROG(chunk_raw, unsigned long addr, unsigned long pfn,
	     unsigned long nr_pages, unsigned int shift, const void *caller,
	     unsigned int api)
{
	return on_chunk(addr, nr_pages, (__u64)caller, api);
}

SEC("tp_btf/vmap_set_ptes")
int BPF_PROG(set_ptes_btf, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int nr_ptes, unsigned int shift)
{
	count(VMAPSCOPE_CNT_SET_PTES, 1);
	return on_mapped(addr, size, shift);
}

SEC("raw_tp/vmap_set_ptes")
int BPF_PROG(set_ptes_raw, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int nr_ptes, unsigned int shift)
{
	count(VMAPSCOPE_CNT_SET_PTES, 1);
	return on_mapped(addr, size, shift);
}

SEC("tp_btf/vmap_huge_block")
int BPF_PROG(huge_btf, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int shift)
{
	count(VMAPSCOPE_CNT_HUGE_BLOCKS, 1);
	return on_mapped(addr, size, shift);
}

SEC("raw_tp/vmap_huge_block")
int BPF_PROG(huge_raw, unsigned long addr, unsigned long pfn,
	     unsigned long size, unsigned int shift)
{
	count(VMAPSCOPE_CNT_HUGE_BLOCKS, 1);
	return on_mapped(addr, size, shift);
}

/* ---- stock vmalloc tracepoints --------------------------------------- */

static __always_inline int on_area(__u64 addr, __u64 size, int failed)
{
	struct vmapscope_key k = { .caller = 0, .api = VMAPSCOPE_API_UNATTRIBUTED };
	struct vmapscope_stats *s;
	struct task_ctx *tc;

	count(VMAPSCOPE_CNT_AREAS, 1);
	if (failed) {
		count(VMAPSCOPE_CNT_AREAS_FAILED, 1);
		return 0;
	}
	if (track_areas)
		area_add(addr, size);
	if (!pass_tgid())
		return 0;
	/* Inside a probed call: charge it to that call's row at its exit. */
	tc = task_ctx(false);
	if (tc && tc->in_call) {
		tc->call_areas++;
		tc->call_area_bytes += size;
		return 0;
	}
	if (!pass_key(&k))
		return 0;
	s = get_stats(&k);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->areas, 1);
	__sync_fetch_and_add(&s->area_bytes, size);
	return 0;
}

SEC("tp_btf/alloc_vmap_area")
int BPF_PROG(area_btf, unsigned long addr, unsigned long size,
	     unsigned long align, unsigned long vstart, unsigned long vend,
	     int failed)
{
	return on_area(addr, size, failed);
}

SEC("raw_tp/alloc_vmap_area")
int BPF_PROG(area_raw, unsigned long addr, unsigned long size,
	     unsigned long align, unsigned long vstart, unsigned long vend,
	     int failed)
{
	return on_area(addr, size, failed);
}

SEC("tp_btf/purge_vmap_area_lazy")
int BPF_PROG(purge_btf, unsigned long start, unsigned long end,
	     unsigned int npurged)
{
	count(VMAPSCOPE_CNT_PURGES, 1);
	count(VMAPSCOPE_CNT_PURGED_AREAS, npurged);
	return 0;
}

SEC("raw_tp/purge_vmap_area_lazy")
int BPF_PROG(purge_raw, unsigned long start, unsigned long end,
	     unsigned int npurged)
{
	count(VMAPSCOPE_CNT_PURGES, 1);
	count(VMAPSCOPE_CNT_PURGED_AREAS, npurged);
	return 0;
}

SEC("tp_btf/free_vmap_area_noflush")
int BPF_PROG(lazy_free_btf, unsigned long va_start)
{
	count(VMAPSCOPE_CNT_LAZY_FREES, 1);
	if (track_areas)
		area_del(va_start);
	return 0;
}

SEC("raw_tp/free_vmap_area_noflush")
int BPF_PROG(lazy_free_raw, unsigned long va_start)
{
	count(VMAPSCOPE_CNT_LAZY_FREES, 1);
	if (track_areas)
		area_del(va_start);
	return 0;
}

/* ---- entry-point latency --------------------------------------------- */

/* A call in flight this long lost its return probe (kretprobe miss). */
#define LAT_STALE_NS	(10ULL * 1000 * 1000 * 1000)

static __always_inline int lat_enter(__u32 slot, __u64 caller)
{
	struct task_ctx *tc;
	__u64 now;

	if (!pass_tgid())
		return 0;
	tc = task_ctx(true);
	if (!tc)
		return 0;
	now = bpf_ktime_get_ns();
	if (tc->in_call && now - tc->call_start_ns > LAT_STALE_NS) {
		/* its return probe was missed: forget it rather than nest forever */
		count(VMAPSCOPE_CNT_LAT_STALE, 1);
		tc->in_call = 0;
	}
	if (tc->in_call) {
		/*
		 * A probed call inside another (vmalloc() of a huge area vmallocs
		 * its page array): time the outer one only; depth pairs the exits.
		 */
		tc->depth++;
		count(VMAPSCOPE_CNT_LAT_NESTED, 1);
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

static __always_inline int lat_exit(__u32 slot, __u64 ret)
{
	struct vmapscope_key k = {};
	struct vmapscope_stats *s;
	struct task_ctx *tc;
	__u64 delta;

	if (!pass_tgid())
		return 0;
	tc = task_ctx(false);
	if (!tc || !tc->in_call) {
		count(VMAPSCOPE_CNT_LAT_NO_ENTRY, 1);
		return 0;
	}
	if (tc->depth) {
		tc->depth--;		/* a nested call returned */
		return 0;
	}
	if (tc->in_call != slot + 1) {
		count(VMAPSCOPE_CNT_LAT_NO_ENTRY, 1);
		tc->in_call = 0;
		return 0;
	}
	delta = bpf_ktime_get_ns() - tc->call_start_ns;
	tc->in_call = 0;
	if (tc->call_saw_chunk) {
		/* the tracepoint knows the vmallocinfo caller and the api */
		k.caller = tc->call_chunk_caller;
		k.api = tc->call_chunk_api;
	} else {
		k.caller = tc->call_caller;
		k.api = slot < VMAPSCOPE_NR_LAT_SLOTS ? lat_api[slot & (VMAPSCOPE_NR_LAT_SLOTS - 1)] : 0;
	}
	if (!pass_key(&k))
		return 0;
	s = get_stats(&k);
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
int BPF_PROG(module_load_raw, struct module *mod)
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
