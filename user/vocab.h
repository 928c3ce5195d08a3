/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names every output uses, defined once: APIs, columns (features) and
 * global counters (the counter list itself is VMAPSCOPE_COUNTERS in
 * vmapscope.h, shared with BPF).  Text, JSON and Prometheus take their
 * names from here; granule labels are granule.h's, callers ksyms.h's.
 */
#ifndef VMAPSCOPE_VOCAB_H
#define VMAPSCOPE_VOCAB_H

#include "vmapscope.h"

/* Columns a kernel may or may not be able to provide. */
enum vmapstat_feature {
	VMAPSTAT_FEAT_GRANULE = 0,	/* bytes per granule: vmalloc:vmap_mapped */
	VMAPSTAT_FEAT_CHUNK,		/* mapping calls and their length: vmap_mapped */
	VMAPSTAT_FEAT_LATENCY,		/* mapping latency: vmap_mapped's ns */
	VMAPSTAT_FEAT_RUNS,		/* runs per granule: vmap_set_ptes, vmap_huge_block (--runs) */
	VMAPSTAT_FEAT_CALL_LATENCY,	/* entry-point fentry/fexit or kprobes (--call-latency) */
	VMAPSTAT_FEAT_AREAS,		/* areas: alloc_vmap_area()'s exit or tracepoint & co */
	VMAPSTAT_FEAT_LIFETIME,		/* map-to-unmap time: free_vmap_area_noflush (--lifetime) */
	VMAPSTAT_FEAT_CALLERS,		/* what names the callers: vmap_mapped, vm_struct, entry probes, stack */
	VMAPSTAT_FEAT_MAX,
};

/* "vmalloc", "vmap", "ioremap", "vm_map_ram", "other", "unattributed". */
const char *api_name(int api);
/*
 * Parse a comma list of API names ("vmalloc,vmap") into a mask of
 * (1 << api).  Empty items ("a,,b", "vmalloc,") and unknown names are
 * -EINVAL.
 */
int api_parse_mask(const char *list, unsigned int *mask);
/* The names api_parse_mask() accepts, comma-separated, for messages. */
#define API_LIST_NAMES "vmalloc,vmap,ioremap,vm_map_ram,other"

const char *feature_name(enum vmapstat_feature f);

/* JSON key, text name and Prometheus name stem of a global counter. */
const char *counter_name(int counter);
/* One sentence: what the counter counts (Prometheus HELP). */
const char *counter_help(int counter);

#endif /* VMAPSCOPE_VOCAB_H */
