// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the tool-overhead benchmark: what attaching at all costs.
 * Every program only increments one per-CPU counter, so the benchmark's
 * "floor" rows are the price of the attach points themselves (tracepoint
 * dispatch, trampolines, kprobes), against which vmapstat's own per-event
 * work is measured.  The loader (floor.c) enables exactly the programs
 * for the attach points vmapstat reports attached: on a series kernel by
 * default the one raw tracepoint vmalloc:vmap_mapped (one program run per
 * mapping call), on a stock kernel the one program at alloc_vmap_area()'s
 * exit (fexit, else kretprobe; -x / -r of floor.c, exit only).
 * Tracepoints attach as raw_tp, as vmapstat's do (same dispatch as tp_btf,
 * docs/benchmarks.md "raw_tp instead of tp_btf").
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline int hit(void)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&hits, &zero);

	if (v)
		*v += 1;
	return 0;
}

#define FLOOR_TP(name)							\
SEC("raw_tp/" #name)							\
int BPF_PROG(tp_##name)							\
{									\
	return hit();							\
}

FLOOR_TP(vmap_mapped)
FLOOR_TP(vmap_set_ptes)
FLOOR_TP(vmap_huge_block)
FLOOR_TP(alloc_vmap_area)
FLOOR_TP(purge_vmap_area_lazy)
FLOOR_TP(free_vmap_area_noflush)
FLOOR_TP(module_load)

/* One fentry/fexit pair per function (the target is bound at load). */
#define FLOOR_FENTRY(n)							\
SEC("fentry")								\
int BPF_PROG(fentry_##n)						\
{									\
	return hit();							\
}									\
SEC("fexit")								\
int BPF_PROG(fexit_##n)							\
{									\
	return hit();							\
}

FLOOR_FENTRY(0)
FLOOR_FENTRY(1)
FLOOR_FENTRY(2)
FLOOR_FENTRY(3)
FLOOR_FENTRY(4)
FLOOR_FENTRY(5)
FLOOR_FENTRY(6)
FLOOR_FENTRY(7)

/* kprobes take their function at attach: one pair serves every function. */
SEC("kprobe")
int BPF_KPROBE(kprobe_any)
{
	return hit();
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_any)
{
	return hit();
}
