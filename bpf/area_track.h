/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PMU sample attribution, part of vmapstat.bpf.c: which vmap area (and so
 * which caller) a sampled data address falls in.
 *
 * Live areas come from the stock vmalloc:alloc_vmap_area and
 * free_vmap_area_noflush tracepoints; their caller and API from the
 * series' vmalloc:vmap_mapped, which fires in the same task once the
 * area's mapping is done, at its start address.  On stock kernels the program
 * at alloc_vmap_area()'s exit (vmapstat.bpf.c) adds the area with the
 * caller and API of its vm_struct instead of the tracepoint.  vmapstat.bpf.c's programs on
 * those tracepoints call area_add() / area_del() / area_caller() when user
 * space set track_areas (--pmu-sample), so no tracepoint is attached
 * twice.  An area [start, end) is stored in an LPM trie as the few aligned
 * power-of-two blocks that tile it (at most two per address bit), so one
 * longest-prefix lookup finds the area containing any address: no
 * per-page work, one lookup per sample.
 *
 * A perf_event program reads each sample's data address (PERF_SAMPLE_ADDR;
 * 0 when the PMU gives none) and counts it per (caller, api), or as outside
 * every tracked area, or as carrying no address.  Every map is bounded and
 * every full map is counted; without --pmu-sample user space shrinks them
 * to one entry.
 *
 * test_feed (raw_tp, never attached) runs the same code on (op, addr, size,
 * caller, api) from BPF_PROG_TEST_RUN, so the attribution is tested with
 * known areas and addresses on any kernel.
 */
#ifndef VMAPSCOPE_AREA_TRACK_H
#define VMAPSCOPE_AREA_TRACK_H

#include "vmapscope.h"

/* Set by user space before load: --pmu-sample tracks live areas. */
const volatile bool track_areas = false;

/* struct bpf_perf_event_data for the target arch (regs differ in size). */
struct pe_ctx {
#if defined(__TARGET_ARCH_x86)
	__u64 regs[21];		/* struct pt_regs */
#elif defined(__TARGET_ARCH_arm64)
	__u64 regs[34];		/* struct user_pt_regs */
#else
#error "unsupported arch"
#endif
	__u64 sample_period;
	__u64 addr;
};

struct lpm_key {
	__u32 prefixlen;
	__u8 data[8];		/* address, big-endian */
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, PMU_SAMPLE_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct lpm_key);
	__type(value, __u64);	/* area start */
} blocks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PMU_SAMPLE_MAX_AREAS);
	__type(key, __u64);	/* area start */
	__type(value, struct pmu_sample_area);
} areas SEC(".maps");

/* Area allocated by this task and not yet given a caller. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* pid_tgid */
	__type(value, __u64);	/* area start */
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PMU_SAMPLE_MAX_CALLERS);
	__type(key, struct pmu_sample_key);
	__type(value, __u64);	/* samples */
} samples SEC(".maps");

__u64 sample_counters[PMU_SAMPLE_CNT_MAX] = {};

static __always_inline void sample_count(int i)
{
	if (i >= 0 && i < PMU_SAMPLE_CNT_MAX)
		__sync_fetch_and_add(&sample_counters[i], 1);
}

static __always_inline void be64(__u8 *out, __u64 v)
{
	for (int i = 7; i >= 0; i--) {
		out[i] = v & 0xff;
		v >>= 8;
	}
}

/*
 * floor(log2(v)) for 0 < v < 2^63, without branches: branches would make
 * the verifier walk one path per result.  (X - v) >> 63 is 1 iff v > X.
 */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u64 r, t;

	t = ((0xffffffffULL - v) >> 63) << 5; v >>= t; r = t;
	t = ((0xffffULL - v) >> 63) << 4; v >>= t; r |= t;
	t = ((0xffULL - v) >> 63) << 3; v >>= t; r |= t;
	t = ((0xfULL - v) >> 63) << 2; v >>= t; r |= t;
	t = ((0x3ULL - v) >> 63) << 1; v >>= t; r |= t;
	r |= v >> 1;
	return r;
}

/*
 * Walk the aligned blocks tiling [start, end): each block is as large as
 * both the current address's alignment and the remaining length allow, so
 * there are at most two per address bit.  bpf_loop() keeps the verifier
 * from walking every iteration's branches.
 */
#define MAX_BLOCKS 128

struct blk_walk {
	__u64 start, end, s;
	int add;
	int n;
	int err;
};

static long blk_step(__u32 i, void *data)
{
	struct blk_walk *w = data;
	struct lpm_key key = {};
	__u64 rem, low;
	__u32 k, kr;

	if (w->s >= w->end)
		return 1;
	rem = w->end - w->s;
	low = w->s & (~w->s + 1);	/* alignment of s; 0 for s == 0 */
	kr = log2_u64(rem);
	k = low ? log2_u64(low) : 63;
	if (kr < k)
		k = kr;
	key.prefixlen = 64 - k;
	be64(key.data, w->s);
	if (w->add) {
		if (bpf_map_update_elem(&blocks, &key, &w->start, BPF_ANY)) {
			sample_count(PMU_SAMPLE_CNT_BLOCKS_FULL);
			w->err = 1;
			return 1;
		}
	} else {
		bpf_map_delete_elem(&blocks, &key);
	}
	w->n++;
	if (k >= 63)
		return 1;
	w->s += 1ULL << k;
	return 0;
}

static __always_inline int blocks_update(__u64 start, __u64 end, bool add)
{
	struct blk_walk w = { .start = start, .end = end, .s = start, .add = add };

	bpf_loop(MAX_BLOCKS, blk_step, &w, 0);
	return w.err ? -1 : w.n;
}

/*
 * Track [start, start + size).  named: its caller and API are known now
 * (from the area's vm_struct); else vmap_mapped names them
 * next, in this task (area_caller()).
 */
static __always_inline void area_add_as(__u64 start, __u64 size, bool named, __u64 caller,
					__u32 api)
{
	struct pmu_sample_area a = { .end = start + size, .caller = caller, .api = api };
	__u64 id = bpf_get_current_pid_tgid();

	if (!size || start + size < start)
		return;
	if (bpf_map_update_elem(&areas, &start, &a, BPF_ANY)) {
		sample_count(PMU_SAMPLE_CNT_AREAS_FULL);
		return;
	}
	if (blocks_update(start, a.end, true) < 0) {
		/* keep nothing half-tracked */
		blocks_update(start, a.end, false);
		bpf_map_delete_elem(&areas, &start);
		return;
	}
	sample_count(PMU_SAMPLE_CNT_AREAS);
	if (!named)
		bpf_map_update_elem(&pending, &id, &start, BPF_ANY);
}

static __always_inline void area_add(__u64 start, __u64 size)
{
	area_add_as(start, size, false, 0, 0);
}

static __always_inline void area_caller(__u64 addr, __u64 caller, __u32 api)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pmu_sample_area *a;
	__u64 *start;

	start = bpf_map_lookup_elem(&pending, &id);
	if (!start)
		return;
	a = bpf_map_lookup_elem(&areas, start);
	/* the first mapping of the area this task just allocated */
	if (a && addr >= *start && addr < a->end) {
		a->caller = caller;
		a->api = api;
	}
	bpf_map_delete_elem(&pending, &id);
}

static __always_inline void area_del(__u64 start)
{
	struct pmu_sample_area *a = bpf_map_lookup_elem(&areas, &start);
	__u64 end;

	if (!a)
		return;
	end = a->end;
	blocks_update(start, end, false);
	bpf_map_delete_elem(&areas, &start);
	sample_count(PMU_SAMPLE_CNT_FREED);
}

static __always_inline void attribute(__u64 addr)
{
	struct pmu_sample_key k = {};
	struct lpm_key key = { .prefixlen = 64 };
	struct pmu_sample_area *a;
	__u64 *start, one = 1, *v;

	sample_count(PMU_SAMPLE_CNT_SAMPLES);
	if (!addr) {
		sample_count(PMU_SAMPLE_CNT_NO_ADDR);
		return;
	}
	be64(key.data, addr);
	start = bpf_map_lookup_elem(&blocks, &key);
	a = start ? bpf_map_lookup_elem(&areas, start) : NULL;
	if (!a || addr >= a->end) {
		sample_count(PMU_SAMPLE_CNT_OUTSIDE);
		return;
	}
	k.caller = a->caller;
	k.api = a->api;
	v = bpf_map_lookup_elem(&samples, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (bpf_map_update_elem(&samples, &k, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&samples, &k);
		if (v)
			__sync_fetch_and_add(v, 1);
		else
			sample_count(PMU_SAMPLE_CNT_CALLERS_FULL);
	}
}

SEC("perf_event")
int on_sample(struct pe_ctx *ctx)
{
	attribute(ctx->addr);
	return 0;
}

/* Test-only entry: args = (op, addr, size, caller, api). */
SEC("raw_tp")
int test_feed(__u64 *args)
{
	__u64 op = args[0], addr = args[1], size = args[2];

	switch (op) {
	case PMU_SAMPLE_OP_ALLOC:
		area_add(addr, size);
		break;
	case PMU_SAMPLE_OP_CHUNK:
		area_caller(addr, args[3], (__u32)args[4]);
		break;
	case PMU_SAMPLE_OP_FREE:
		area_del(addr);
		break;
	case PMU_SAMPLE_OP_SAMPLE:
		attribute(addr);
		break;
	}
	return 0;
}

#endif /* VMAPSCOPE_AREA_TRACK_H */
