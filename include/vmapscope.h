/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapscope ABI shared by the BPF programs (bpf/) and user space (user/).
 *
 * The kernel side of the ABI is the tracepoints that
 * kernel-patches/linux-6.12/ adds to include/trace/events/vmalloc.h; their
 * TP_PROTO argument lists are mirrored here so that tp_btf / raw_tp
 * programs and the documentation (docs/tracepoints.md) agree with the
 * kernel.  This header must compile both with clang -target bpf (after
 * vmlinux.h) and with the host C compiler (after <stdint.h>).
 */
#ifndef VMAPSCOPE_H
#define VMAPSCOPE_H

/*
 * Which public API a mapping serves.  Numbering is ABI: it is the value of
 * the "api" argument of vmalloc:vmap_mapped (the kernel's enum vmap_api).
 */
enum vmapscope_api {
	VMAPSCOPE_API_OTHER	 = 0,	/* percpu, vm_area_map_pages, ... */
	VMAPSCOPE_API_VMALLOC	 = 1,
	VMAPSCOPE_API_VMAP	 = 2,
	VMAPSCOPE_API_IOREMAP	 = 3,
	VMAPSCOPE_API_VM_MAP_RAM = 4,
	VMAPSCOPE_API_MAX,
};

/*
 * Tracepoints added by the series (TRACE_SYSTEM vmalloc, docs/tracepoints.md),
 * fired where the page-table walks write and decide.  Arguments in
 * TP_PROTO order:
 *
 * vmalloc:vmap_mapped(unsigned long addr, unsigned long size,
 *                     const void *caller, enum vmap_api api,
 *                     unsigned long pte, unsigned long pte_block,
 *                     unsigned long pmd, unsigned long pud,
 *                     unsigned int nr_runs, unsigned int fallbacks,
 *                     int ret, u64 ns)
 *	Once per mapping call (a vmalloc() area, a vmap(), a vm_map_ram(),
 *	an ioremap(), ...), when it is done: the range (size in bytes: the
 *	call's chunk), its caller (as /proc/vmallocinfo names it) and api,
 *	the bytes the call's walk wrote with single PTEs, PTE-level blocks
 *	(arm64 64K contiguous PTEs), PMD and PUD blocks (a tally of its runs,
 *	not a read-back), nr_runs == the number of its vmap_set_ptes and
 *	vmap_huge_block events, fallbacks the reasons of its vmap_granule
 *	events (1 << enum vmapscope_fallback), ret 0 or the error, ns the
 *	mapping time (0 for a call that was under way when the event got
 *	enabled).  The tools' default path: one event, one program run per
 *	call.  Before patch 16 of the series it has no fallbacks argument.
 *
 * vmalloc:vmap_set_ptes(unsigned long addr, unsigned long pfn,
 *                       unsigned int nr_ptes, unsigned int shift)
 *	Once per run of PTEs a setter call writes at one granule inside one
 *	PTE table: shift == PAGE_SHIFT for plain PTEs, CONT_PTE_SHIFT for
 *	arm64 contiguous-PTE blocks.
 *
 * vmalloc:vmap_huge_block(unsigned long addr, unsigned long pfn,
 *                         unsigned int shift)
 *	Once per PMD / PUD block entry the walk sets.
 *
 * vmalloc:vmap_granule(unsigned long addr, unsigned long size,
 *                      unsigned int shift, enum vmap_fallback fallback)
 *	Once per part of the range the walk maps at the PTE level with one
 *	decision: the largest granule the part got, and why not a larger
 *	one it considered (patch 16).
 *
 * The events of a call fire in the task that maps, in address order, the
 * call's vmap_mapped last; the tools attach the per-run ones only for
 * per-run detail (vmapstat --runs).
 */
#define VMAPSCOPE_TP_MAPPED	"vmap_mapped"
#define VMAPSCOPE_TP_SET_PTES	"vmap_set_ptes"
#define VMAPSCOPE_TP_HUGE_BLOCK	"vmap_huge_block"
#define VMAPSCOPE_TP_GRANULE	"vmap_granule"

/*
 * Why the walk mapped part of a range with a smaller granule than one it
 * considered there: the kernel's enum vmap_fallback, whose numbering this
 * is (vmap_granule's fallback, bits of vmap_mapped's fallbacks).  0 is "no
 * reason"; the rows count each of the others.  X(ID, name, help).
 */
#define VMAPSCOPE_FALLBACKS(X)							\
	X(LIMIT, "limit", "the call's maximum shift or the architecture does not allow it") \
	X(DISCONTIG, "discontig", "the pages are not physically contiguous over it") \
	X(ALIGN, "align", "the virtual and physical addresses are not both aligned to it") \
	X(OCCUPIED, "occupied", "the page-table entry could not take the block")

#define VMAPSCOPE_FB_ENUM(id, name, help) VMAPSCOPE_FB_##id,
enum vmapscope_fallback {
	VMAPSCOPE_FB_NONE = 0,
	VMAPSCOPE_FALLBACKS(VMAPSCOPE_FB_ENUM)
	VMAPSCOPE_NR_FALLBACKS,
};
#undef VMAPSCOPE_FB_ENUM

/*
 * ---------------------------------------------------------------------
 * vmapstat collector maps (bpf/vmapstat.bpf.c <-> user/collector/collector.c).
 * Not a kernel ABI: only the BPF object and the user-space library that
 * embeds it agree on this layout, and both are built from this header.
 * ---------------------------------------------------------------------
 */
#ifndef __VMLINUX_H__
#include <linux/types.h>	/* __u32/__u64 for user space; vmlinux.h has them */
#endif

/*
 * Granule slots are indexed by the mapping shift itself (12 = 4K PTE,
 * 16 = arm64 64K cont-PTE, 21 = 2M PMD, 30 = 1G PUD, ...).  40 covers
 * every page-table level of both architectures; larger shifts are
 * clamped into the last slot and counted in VMAPSCOPE_CNT_BAD_SHIFT.
 */
#define VMAPSCOPE_NR_SHIFTS	40

/*
 * Log2 histograms: slot 0 holds the values 0 and 1, slot i (i >= 1) holds
 * [2^i, 2^(i+1) - 1]; values >= 2^(VMAPSCOPE_HIST_SLOTS - 1) land in the
 * last slot.  Chunk lengths are counted in pages, latencies in ns.
 */
#define VMAPSCOPE_HIST_SLOTS	36

/* "api" of mappings no vmap_mapped event explains (see bpf/). */
#define VMAPSCOPE_API_UNATTRIBUTED 15

/*
 * --by: the label that splits each (caller, api) row, read once per event
 * by the BPF program (const volatile by_label); 0 without --by, and then
 * the key's label is zero and never read.
 */
enum vmapscope_by {
	VMAPSCOPE_BY_NONE   = 0,
	VMAPSCOPE_BY_CGROUP = 1,	/* label[0] = bpf_get_current_cgroup_id() */
	VMAPSCOPE_BY_COMM   = 2,	/* label = bpf_get_current_comm(), 16 bytes */
};
#define VMAPSCOPE_COMM_LEN	16

/* Key of the (caller, api, label) -> statistics slot hash map ("callers"). */
struct vmapscope_key {
	__u64 caller;		/* return address as /proc/vmallocinfo shows; 0 = unknown */
	__u32 api;		/* enum vmapscope_api or VMAPSCOPE_API_UNATTRIBUTED */
	__u32 pad;
	__u64 label[2];		/* --by: cgroup id, or comm; zero without --by */
};

/*
 * Per-row fields: one (caller, api) row of the "stats" map, and every
 * per-row column of every output, defined once.  struct vmapscope_stats
 * is generated from this list, and user space's row field table
 * (user/lib/rows.c) from the same lines, which the text report, the JSON
 * rows, the Prometheus families and vmaptop iterate: a new per-row
 * counter is one line here plus the BPF code that counts it.
 *
 * X(KIND, UNIT, field, json, prom, help, sum, text, label)
 *   KIND	SCALAR: one counter; GRANULE: one per mapping shift
 *		(VMAPSCOPE_NR_SHIFTS); HIST: log2 histogram
 *		(VMAPSCOPE_HIST_SLOTS, slots as in hist.h), and beside it
 *		field_above[]: of each slot, the values above its native
 *		histogram edge (bpf/log2.h).  The BPF program adds a value
 *		to field[slot] when it is at most the edge, to
 *		field_above[slot] otherwise (one add either way); the
 *		collector's read adds field_above into field, so that in
 *		user space field[] is the whole slot, as every output
 *		shows it, and field_above[] the part above the edge;
 *		REASON: one per enum vmapscope_fallback
 *		(VMAPSCOPE_NR_FALLBACKS, 0 unused)
 *   UNIT	COUNT, PAGES, BYTES or NS (what one unit of the value is;
 *		Prometheus shows NS as seconds, the text report in its -u unit)
 *   json	key in each JSON row (GRANULE: in each "granules" entry)
 *   prom	Prometheus family, with help; NULL: none (the value is
 *		some histogram's _count or _sum)
 *   sum	HIST: the SCALAR field holding the sum of the observed values
 *		(Prometheus _sum, the text report's mean); others: themselves
 *   text	the text report: SCALARs with the same nonzero number share a
 *		line, printed when the first of them is nonzero (lines in
 *		number order), and a REASON's nonzero counts end that line;
 *		a HIST with text != 0 is printed when not empty; a GRANULE
 *		is a column of the granule table in the rows that counted
 *		some; 0: not in text
 *   label	word before the value on its text line (HIST: the histogram's
 *		header; NS HIST: a word before the time unit, or NULL)
 * Values are cumulative since the collector attached; user space takes
 * deltas.
 */
#define VMAPSCOPE_ROW_FIELDS(X)							\
	/* vmalloc:vmap_mapped, by mapping shift */				\
	X(GRANULE, BYTES, bytes, "bytes", "vmapscope_mapped_bytes_total",	\
	  "Bytes mapped into kernel virtual memory, by caller, API and mapping granule (vmalloc:vmap_mapped).", \
	  bytes, 1, "bytes")							\
	/* vmalloc:vmap_set_ptes + vmalloc:vmap_huge_block (--runs) */		\
	X(GRANULE, COUNT, runs, "runs", "vmapscope_mapping_runs_total",		\
	  "Runs of PTEs of one granule (vmap_set_ptes) and PMD/PUD block entries (vmap_huge_block), with --runs.", \
	  runs, 1, "runs")							\
	/* vmalloc:vmap_mapped: one per mapping call, its range the chunk */	\
	X(SCALAR, COUNT, chunks, "chunks", NULL, NULL, chunks, 1, "chunks")	\
	X(SCALAR, PAGES, chunk_pages, "chunk_pages", NULL, NULL, chunk_pages, 1, "pages") \
	X(HIST, PAGES, chunk_hist, "chunk_hist", "vmapscope_chunk_length_pages", \
	  "Pages per mapping call (vmalloc:vmap_mapped size), log2 buckets.",	\
	  chunk_pages, 1, "chunk pages")					\
	X(SCALAR, COUNT, map_failed, "map_failed", "vmapscope_failed_maps_total", \
	  "Mapping calls that returned an error (vmalloc:vmap_mapped ret).",	\
	  map_failed, 1, "failed")						\
	/* vmalloc:vmap_mapped fallbacks: why the walk chose smaller granules */ \
	X(SCALAR, COUNT, fallback_calls, "fallback_calls", "vmapscope_fallback_calls_total", \
	  "Mapping calls that mapped part of their range with a smaller granule than one the walk considered there (vmalloc:vmap_mapped fallbacks).", \
	  fallback_calls, 5, "fell back")					\
	X(REASON, COUNT, fallbacks, "fallbacks", "vmapscope_fallbacks_total",	\
	  "Mapping calls that fell back, by reason: limit (not allowed), discontig (pages not contiguous), align (addresses not aligned), occupied (the entry could not take the block); a call counts once per reason.", \
	  fallbacks, 5, NULL)							\
	X(SCALAR, NS, lat_sum_ns, "latency_sum_ns", NULL, NULL, lat_sum_ns, 1, "avg") \
	X(HIST, NS, lat_hist, "latency_hist_ns", "vmapscope_map_latency_seconds", \
	  "Mapping latency: time the kernel spent mapping one call's range into the page tables (vmalloc:vmap_mapped ns), log2 buckets of whole nanoseconds.", \
	  lat_sum_ns, 1, NULL)							\
	/* entry-point probes (fentry/fexit or kprobe/kretprobe), --call-latency */ \
	X(SCALAR, COUNT, calls, "calls", "vmapscope_calls_total",		\
	  "Completed calls of the mapping API entry points (--call-latency).",	\
	  calls, 3, "calls")							\
	X(SCALAR, COUNT, failed, "failed", "vmapscope_failed_calls_total",	\
	  "Calls of the mapping API entry points that returned NULL (--call-latency).", \
	  failed, 3, "failed")							\
	X(SCALAR, NS, call_lat_sum_ns, "call_latency_sum_ns", NULL, NULL,	\
	  call_lat_sum_ns, 3, "avg")						\
	X(HIST, NS, call_lat_hist, "call_latency_hist_ns", "vmapscope_call_latency_seconds", \
	  "Call latency: entry to return of the mapping API, page allocation and area search included (--call-latency), log2 buckets of whole nanoseconds.", \
	  call_lat_sum_ns, 1, "call")						\
	/* vmalloc:alloc_vmap_area (--areas), or alloc_vmap_area()'s exit on stock kernels */ \
	X(SCALAR, COUNT, areas, "areas", "vmapscope_vmap_areas_total",		\
	  "Virtual areas allocated (vmalloc:alloc_vmap_area, or alloc_vmap_area()'s exit on kernels without the series).", \
	  areas, 2, "areas")							\
	X(SCALAR, BYTES, area_bytes, "area_bytes", "vmapscope_vmap_area_bytes_total", \
	  "Bytes of virtual areas allocated, guard page included (unless VM_NO_GUARD).",		\
	  area_bytes, 2, NULL)							\
	/* --lifetime: from the mapping to vmalloc:free_vmap_area_noflush */	\
	X(SCALAR, COUNT, unmaps, "unmaps", NULL, NULL, unmaps, 4, "unmapped")	\
	X(SCALAR, NS, life_sum_ns, "lifetime_sum_ns", NULL, NULL, life_sum_ns, 4, "lifetime avg") \
	X(HIST, NS, life_hist, "lifetime_hist_ns", "vmapscope_map_lifetime_seconds", \
	  "Lifetime of a mapping: from its vmalloc:vmap_mapped (or its area's allocation on kernels without the series) to its unmapping (vmalloc:free_vmap_area_noflush), with --lifetime; log2 buckets of whole nanoseconds.", \
	  life_sum_ns, 1, "lifetime")

/*
 * vmaptop's columns of the row fields: a percentile of an NS HIST each,
 * after its fixed columns (rates, granule shares, the mean chunk) and
 * before the live ones, in this order; user/top/top_model.c and
 * user/top/top_format.c iterate this list.
 *
 * X(ID, field, p, name, header, drop, feature, shown)
 *   ID		TOP_COL_<ID> (the sort key) and TOP_PCT_<ID> (the row's value)
 *   field	the HIST of VMAPSCOPE_ROW_FIELDS it is computed from
 *   p		the percentile, 0 < p <= 1
 *   name	its name for vmaptop -s
 *   header	its column header
 *   drop	on a narrow screen, columns with lower numbers go first
 *   feature	the feature (user/lib/feature_table.h) without which it is n/a
 *   shown	ALWAYS: a column, n/a without its feature; WITH_FEATURE: a
 *		column only when the feature is there (what an option asks for)
 */
#define VMAPSCOPE_TOP_COLUMNS(X)						\
	X(P50, lat_hist, 0.50, "p50", "P50", 2, LATENCY, ALWAYS)		\
	X(P99, lat_hist, 0.99, "p99", "P99", 7, LATENCY, ALWAYS)		\
	X(CP50, call_lat_hist, 0.50, "cp50", "CP50", 3, CALL_LATENCY, WITH_FEATURE) \
	X(CP99, call_lat_hist, 0.99, "cp99", "CP99", 7, CALL_LATENCY, WITH_FEATURE) \
	X(LIFE, life_hist, 0.50, "life", "LIFE", 4, LIFETIME, WITH_FEATURE)

/*
 * What vmapstat --pmu --repeat records of each run beside the PMU counts
 * (its --repeat table, its JSON runs and "vmapstat compare"): one figure
 * over all the rows of the run, from a field of VMAPSCOPE_ROW_FIELDS;
 * user/lib/rows.c computes them, user/pmu_cli.c records them in order.
 *
 * X(name, unit, field, how, feature)
 *   name	the metric's name in the table, the JSON and compare
 *   unit	its unit there ("" for a count)
 *   field	the row field it is computed from
 *   how	TOTAL: the field's sum (a GRANULE's over every granule);
 *		LARGE: a GRANULE's sum over the granules above the base page;
 *		MEAN: a HIST's sum field over its count (none when empty)
 *   feature	the feature without which there is no figure
 */
#define VMAPSCOPE_RUN_METRICS(X)						\
	X("vmap bytes mapped", "", bytes, TOTAL, GRANULE)			\
	X("vmap bytes in large granules", "", bytes, LARGE, GRANULE)		\
	X("vmap chunks", "", chunks, TOTAL, CHUNK)				\
	X("vmap mapping latency avg", "ns", lat_hist, MEAN, LATENCY)		\
	X("vmap calls", "", calls, TOTAL, CALL_LATENCY)				\
	X("vmap call latency avg", "ns", call_lat_hist, MEAN, CALL_LATENCY)

#define VMAPSCOPE_FIELD_SCALAR(f)	__u64 f;
#define VMAPSCOPE_FIELD_GRANULE(f)	__u64 f[VMAPSCOPE_NR_SHIFTS];
#define VMAPSCOPE_FIELD_HIST(f)		__u64 f[VMAPSCOPE_HIST_SLOTS]; __u64 f##_above[VMAPSCOPE_HIST_SLOTS];
#define VMAPSCOPE_FIELD_REASON(f)	__u64 f[VMAPSCOPE_NR_FALLBACKS];
#define VMAPSCOPE_STATS_MEMBER(kind, unit, f, ...) VMAPSCOPE_FIELD_##kind(f)
struct vmapscope_stats {
	VMAPSCOPE_ROW_FIELDS(VMAPSCOPE_STATS_MEMBER)
};
#undef VMAPSCOPE_STATS_MEMBER

/*
 * Global counters (per-CPU, summed by user space), defined once: the enum, the
 * JSON "counters" keys, the text report and the Prometheus families
 * (vmapscope_<name>_total, with the help text) are all generated from this
 * list.  X(ID, name, help): VMAPSCOPE_CNT_<ID> indexes the array.
 */
#define VMAPSCOPE_COUNTERS(X)							\
	X(STATS_FULL, "stats_map_full",						\
	  "Events not counted per caller: the (caller, api) map was full (raise --max-callers).") \
	X(UNATTRIBUTED, "unattributed_events",					\
	  "vmap_set_ptes / vmap_huge_block events (--runs) outside the range of their task's next vmap_mapped.") \
	X(LAT_NO_ENTRY, "latency_exit_without_entry",				\
	  "Latency exit probes without their entry (evicted, or attached mid-call).") \
	X(LAT_NESTED, "latency_nested_calls",					\
	  "Probed calls made while another probed call was in flight (only the outer one is timed).") \
	X(BAD_SHIFT, "bad_shift",						\
	  "Mapping shifts beyond the granule slots, counted in the last one.") \
	X(MAPPED, "mapped_events",						\
	  "vmalloc:vmap_mapped events seen (mapping calls), before filters.")	\
	X(SET_PTES, "set_ptes_events",						\
	  "vmalloc:vmap_set_ptes events seen, before filters.")			\
	X(HUGE_BLOCKS, "huge_block_events",					\
	  "vmalloc:vmap_huge_block events seen, before filters.")		\
	X(AREAS, "alloc_vmap_area_events",					\
	  "vmalloc:alloc_vmap_area events seen, before filters.")		\
	X(AREAS_FAILED, "alloc_vmap_area_failed",				\
	  "vmalloc:alloc_vmap_area events of failed allocations.")		\
	X(PURGES, "purge_events",						\
	  "vmalloc:purge_vmap_area_lazy events seen.")				\
	X(PURGED_AREAS, "purged_areas",						\
	  "Lazily freed vmap areas purged (sum of purge_vmap_area_lazy npurged).") \
	X(LAZY_FREES, "lazy_free_events",					\
	  "vmalloc:free_vmap_area_noflush events seen.")			\
	X(FILTERED, "filtered_events",						\
	  "Events dropped by --pid, --api or -c.")				\
	X(LAT_STALE, "latency_stale_calls",					\
	  "Probed calls whose exit was never seen (missed return probe), dropped.") \
	X(TASK_STATE_LOST, "task_state_lost",					\
	  "Events whose task-local state could not be created (out of memory): their mappings count as unattributed.") \
	X(STACK_UNNAMED, "stack_unnamed_areas",					\
	  "Areas whose kernel stack named no caller outside the vmalloc/vmap/ioremap internals, counted as unattributed.") \
	X(RUNS_MISMATCH, "runs_mismatch",					\
	  "vmap_mapped events (--runs) whose nr_runs differs from the per-run events seen before them in their task.") \
	X(LIFETIME_FULL, "lifetime_map_full",					\
	  "Mappings whose lifetime is not tracked (--lifetime): the map of live mappings was full.")

#define VMAPSCOPE_CNT_ENUM(id, name, help) VMAPSCOPE_CNT_##id,
enum vmapscope_counter {
	VMAPSCOPE_COUNTERS(VMAPSCOPE_CNT_ENUM)
	VMAPSCOPE_CNT_MAX,
};
#undef VMAPSCOPE_CNT_ENUM

/*
 * Per-CPU state of the collector (BPF per-CPU array "cpu", one entry):
 * the global counters, summed over CPUs by user space, and a small
 * direct-mapped cache of recently seen (caller, api) -> slot of the
 * "stats" array, so that most events skip the "callers" hash.
 */
#define VMAPSCOPE_SLOT_CACHE_BITS	6

struct vmapscope_slot_cache_ent {
	__u64 caller;
	__u32 api;
	__u32 slot1;		/* slot + 1; 0 = empty */
};

/*
 * Callers named by kernel stack, where neither vmalloc:vmap_mapped nor the
 * area's vm_struct names them (a kernel without the series where
 * alloc_vmap_area() can be neither fentry- nor kprobe-traced, or forced):
 * at vmalloc:alloc_vmap_area the BPF program reads up to
 * VMAPSCOPE_STACK_DEPTH return addresses and takes the first one outside
 * the vmalloc/vmap/ioremap internals, after at least one inside them (the
 * frames before are the tracing machinery's).  The internals are text
 * ranges sorted by address, given by user space from kallsyms; each says
 * which API its functions serve (VMAPSCOPE_API_NONE: generic, e.g.
 * alloc_vmap_area); the outermost tagged range names the row's API.
 */
#define VMAPSCOPE_STACK_DEPTH		16	/* a power of two: the frame index is masked */
#define VMAPSCOPE_MAX_INTERNALS		128
#define VMAPSCOPE_API_NONE		0xffu

struct vmapscope_internal {
	__u64 start;
	__u64 end;
	__u32 api;		/* enum vmapscope_api or VMAPSCOPE_API_NONE */
	__u32 pad;
};

struct vmapscope_cpu_state {
	__u64 cnt[VMAPSCOPE_CNT_MAX];
	struct vmapscope_slot_cache_ent cache[1 << VMAPSCOPE_SLOT_CACHE_BITS];
	/* --by: the label of each cache entry, apart so that without it the entries stay 16 bytes */
	__u64 cache_label[1 << VMAPSCOPE_SLOT_CACHE_BITS][2];
	__u64 stack[VMAPSCOPE_STACK_DEPTH];	/* scratch for the stack method */
};

/*
 * Module placement, recorded at module:module_load (hash "modules"), so
 * that callers in a module unloaded before user space reads the stats can
 * still be named from the module's .ko symbol table.  At that tracepoint
 * the module's kallsyms table is the .ko's own symbol table with every
 * value relocated; one function symbol per section gives the section's
 * load address: address - the .ko's st_value of that symbol index.  Each
 * load has its own records (key.base), so a module loaded twice at two
 * places names the callers of both.
 *	shndx VMAPSCOPE_MOD_CORE_TEXT / VMAPSCOPE_MOD_INIT_TEXT: the module's
 *	text region, addr and size;
 *	any other shndx: a function symbol of that .ko section, addr (its
 *	load address), size = its symbol index, st_name to check the file.
 */
#define VMAPSCOPE_MODULE_NAME_LEN	56	/* the kernel's MODULE_NAME_LEN on 64-bit */
#define VMAPSCOPE_MOD_CORE_TEXT		0	/* SHN_UNDEF: no section uses it */
#define VMAPSCOPE_MOD_INIT_TEXT		0xffffffffu

struct vmapscope_mod_key {
	char name[VMAPSCOPE_MODULE_NAME_LEN];
	__u64 base;		/* core text address: one load of the module */
	__u32 shndx;
	__u32 pad;
};

struct vmapscope_mod_val {
	__u64 addr;
	__u64 size;
	__u64 seq;		/* module loads seen up to this one: load order */
	__u32 st_name;
	__u32 pad;
};

/* Caller filter (-c): up to this many [start, end) text ranges in BPF. */
#define VMAPSCOPE_MAX_CALLER_RANGES 16

/*
 * --lifetime: the live mappings of vmalloc(), vmap() and ioremap() (the
 * APIs whose areas are freed one by one, by free_vmap_area_noflush),
 * by start address: when each was mapped and its row.
 */
#define VMAPSCOPE_MAX_LIVE_MAPS	32768

struct vmapscope_birth {
	__u64 ns;		/* bpf_ktime_get_ns() at the mapping */
	__u32 slot;		/* its row in "stats" */
	__u32 pad;
};

/* Latency probe slots; user space binds each to one kernel function. */
#define VMAPSCOPE_NR_LAT_SLOTS	8

/*
 * PMU sample attribution (--pmu-sample, bpf/area_track.h): live areas in
 * an LPM trie, samples counted per (caller, api).
 */
/* Map bounds: full maps are counted (PMU_SAMPLE_CNT_*_FULL), never silent. */
#define PMU_SAMPLE_MAX_PREFIXES	65536	/* LPM blocks, a few per area */
#define PMU_SAMPLE_MAX_AREAS	16384	/* live vmap areas tracked */
#define PMU_SAMPLE_MAX_CALLERS	2048	/* (caller, api) sample counters */

struct pmu_sample_area {
	__u64 end;		/* exclusive */
	__u64 caller;		/* 0 until vmalloc:vmap_mapped names it */
	__u32 api;		/* enum vmapscope_api */
	__u32 pad;
};

struct pmu_sample_key {
	__u64 caller;
	__u32 api;
	__u32 pad;
};

enum pmu_sample_counter {
	PMU_SAMPLE_CNT_SAMPLES = 0,	/* samples seen */
	PMU_SAMPLE_CNT_NO_ADDR,		/* ... without a data address */
	PMU_SAMPLE_CNT_OUTSIDE,		/* ... outside every tracked area */
	PMU_SAMPLE_CNT_AREAS,		/* areas tracked */
	PMU_SAMPLE_CNT_FREED,		/* areas freed again */
	PMU_SAMPLE_CNT_AREAS_FULL,	/* area not tracked: areas map full */
	PMU_SAMPLE_CNT_BLOCKS_FULL,	/* area not tracked: LPM trie full */
	PMU_SAMPLE_CNT_CALLERS_FULL,	/* sample lost: samples map full */
	PMU_SAMPLE_CNT_MAX,
};

/* Operations of the test-only program test_feed. */
enum pmu_sample_op {
	PMU_SAMPLE_OP_ALLOC = 1,	/* (addr, size): alloc_vmap_area */
	PMU_SAMPLE_OP_CHUNK,		/* (addr, caller, api): vmap_mapped */
	PMU_SAMPLE_OP_FREE,		/* (addr): free_vmap_area_noflush */
	PMU_SAMPLE_OP_SAMPLE,		/* (addr): one PMU sample */
};

/*
 * Callers of stock kernels as /proc/vmallocinfo names them (vmapstat.bpf.c,
 * on_area_exit / on_area_ret): at the exit of alloc_vmap_area() the BPF
 * program reads the area's vm_struct, vm->caller and vm->flags, which
 * __get_vm_area_node() set before the call.  The row's API is the one
 * vmallocinfo's flag words give (user/snapshot/snapshot_vmallocinfo.c, api_of()):
 * VM_IOREMAP "ioremap" (ioremap*, and vmap_pfn), else VM_ALLOC "vmalloc",
 * else VM_MAP "vmap", else "other"; no vm_struct (vm_map_ram() and its
 * vmap blocks, va->flags VMAP_RAM): "vm_map_ram" with caller 0, as
 * vmallocinfo prints those areas without a caller.  The flag values are
 * the kernel's (include/linux/vmalloc.h), unchanged since 2.6.
 */
#define VMAPSCOPE_VM_IOREMAP	0x1u
#define VMAPSCOPE_VM_ALLOC	0x2u
#define VMAPSCOPE_VM_MAP	0x4u
#define VMAPSCOPE_VMAP_RAM	0x1u	/* vmap_area.flags */

#endif /* VMAPSCOPE_H */
