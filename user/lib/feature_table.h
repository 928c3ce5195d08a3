/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The feature table: the columns a kernel may or may not be able to
 * provide, in the order every output lists them (vmapstat -v, the JSON
 * "features" object, the Prometheus feature gauge).  enum
 * vmapscope_feature (vocab.h) and the names are generated from it.
 *
 * Two kinds of line:
 *   X(ID, name)
 *	a feature whose attach rules are the collector's own
 *	(collector.c, collector_features.c): what the series offers, the
 *	per-run events, the entry-point probes, the areas, the callers;
 *   O(ID, name, option, help, want, stock_want, map, tp)
 *	an opt-in feature that needs nothing but its own line: every
 *	front end gets --<option> with @help (select_opts.c), and when it
 *	is given the collector sets the BPF object's const volatile bool
 *	@want, sets @stock_want on a kernel without the series (its
 *	rows are areas then), keeps the BPF map @map at its declared size
 *	(one entry otherwise; NULL: none), and attaches the raw tracepoint
 *	@tp, which must be one of the collector's (tp_names[]).  The
 *	feature is there when @tp and a row source (vmap_mapped or the
 *	area program) are attached.
 *
 * The ID is VMAPSCOPE_FEAT_<ID>; the name is what users read.  The BPF
 * side of an opt-in line (the switch, the map, the program on @tp) and
 * the row fields it fills (VMAPSCOPE_ROW_FIELDS) are in vmapscope.h
 * and bpf/vmapstat.bpf.c.
 */
#ifndef VMAPSCOPE_FEATURE_TABLE_H
#define VMAPSCOPE_FEATURE_TABLE_H

#define VMAPSCOPE_FEATURES(X, O)							\
	/* bytes per granule: vmalloc:vmap_mapped */				\
	X(GRANULE, "granule")							\
	/* mapping calls and their length: vmap_mapped */			\
	X(CHUNK, "chunk")							\
	/* mapping latency: vmap_mapped's ns */					\
	X(LATENCY, "latency")							\
	/* why the walk fell back to smaller granules: vmap_mapped's fallbacks */ \
	X(FALLBACK, "fallback")							\
	/* runs per granule: vmap_set_ptes, vmap_huge_block (--runs) */		\
	X(RUNS, "runs")								\
	/* entry-point fentry/fexit or kprobes (--call-latency) */		\
	X(CALL_LATENCY, "call_latency")						\
	/* areas: alloc_vmap_area()'s exit or tracepoint & co */		\
	X(AREAS, "areas")							\
	/* map-to-unmap time: free_vmap_area_noflush */				\
	O(LIFETIME, "lifetime", "lifetime", "Also time each vmalloc/vmap/ioremap mapping from its " \
	  "mapping to its unmapping (one more event per unmapping, one map entry per live mapping)", \
	  "want_lifetime", "lifetime_from_areas", "births", "free_vmap_area_noflush") \
	/* what names the callers: vmap_mapped, vm_struct, entry probes, stack */ \
	X(CALLERS, "callers")

/* The opt-in features of @o (bit 1 << VMAPSCOPE_FEAT_<ID>) fit an unsigned int. */
#define VMAPSCOPE_FEAT_BIT(f)	(1U << (f))

#endif /* VMAPSCOPE_FEATURE_TABLE_H */
