/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's state, shared by its two halves only: collector.c
 * decides, loads and attaches; collector_read.c reads the maps into
 * samples.  Nothing outside them includes this.
 */
#ifndef VMAPSCOPE_COLLECTOR_INT_H
#define VMAPSCOPE_COLLECTOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "caller_names.h"
#include "row_labels.h"
#include "collector.h"

/* The tracepoints the collector attaches, in tp_names[] (collector.c) order. */
enum tp_id { TP_MAPPED, TP_SET_PTES, TP_HUGE, TP_AREA, TP_PURGE, TP_LAZY_FREE, TP_MODULE, NR_TPS };

struct collector {
	struct vmapstat_bpf *skel;
	struct bpf_link *links[2 * NR_TPS + 4 * VMAPSCOPE_NR_LAT_SLOTS];
	size_t nr_links;
	struct collector_opts opts;
	char *caller_filter;
	bool caller_filter_in_bpf;
	pthread_mutex_t lock;

	struct vmapstat_feature_state feat[VMAPSTAT_FEAT_MAX];
	struct vmapstat_probe_state probes[VMAPSCOPE_NR_LAT_SLOTS];
	size_t nr_probes;
	bool tp_attached[NR_TPS];
	char area_how[16];		/* alloc_vmap_area()'s exit: "fexit", "kretprobe", "" */

	struct caller_names *names;	/* also the kallsyms table */
	struct row_labels *labels;	/* --by: label texts; NULL without */

	char arch[16];
	unsigned int page_shift;
	/* the shifts of vmap_mapped's byte counts (0: no PTE-level blocks) */
	unsigned int cont_shift, pmd_shift, pud_shift;
	size_t ncpus;			/* possible CPUs: per-CPU value count */
	char release[65];
};

#endif /* VMAPSCOPE_COLLECTOR_INT_H */
