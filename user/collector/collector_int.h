/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's state, shared by its parts only: collector.c plans,
 * loads and attaches; collector_features.c says what each column comes
 * from; collector_read.c reads the maps into samples.  Nothing outside
 * them includes this but their unit tests.  It builds on the collector's settings
 * (collector_opts.h), not on its API: the parts implement that API, the
 * state they share sits below it.
 */
#ifndef VMAPSCOPE_COLLECTOR_INT_H
#define VMAPSCOPE_COLLECTOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "caller_names.h"
#include "collector_opts.h"
#include "row_labels.h"
#include "rows.h"

struct bpf_link;
struct vmapstat_bpf;

/* The tracepoints the collector attaches, in tp_names[] order. */
enum tp_id { TP_MAPPED, TP_SET_PTES, TP_HUGE, TP_AREA, TP_PURGE, TP_LAZY_FREE, TP_MODULE, NR_TPS };
/* Their names (collector_features.c): the feature table names its tracepoints so. */
extern const char *const tp_names[NR_TPS];
/* The tracepoint called @name (without "vmalloc:"), NR_TPS if none. */
enum tp_id tp_by_name(const char *name);

/* What collector_open() decided to load and attach (collector.c). */
struct plan {
	bool module_prog;		/* names callers in unloaded modules */
	bool series;			/* the kernel has vmalloc:vmap_mapped */
	bool mapped_fallbacks;		/* ... with its fallbacks argument */
	bool runs_abi;			/* vmap_set_ptes is the walk's (4 arguments) */
	bool tp[NR_TPS];		/* tracepoints to attach */
	bool latency;			/* the entry-point probes of func[] */
	const char *func[VMAPSCOPE_NR_LAT_SLOTS];
	bool fentry[VMAPSCOPE_NR_LAT_SLOTS];	/* load fentry/fexit */
	bool kprobe[VMAPSCOPE_NR_LAT_SLOTS];	/* load kprobe/kretprobe */
	int fentry_load_err;			/* why fentry was dropped, 0 = it loads */
	/* stock kernels: areas named by their vm_struct at alloc_vmap_area()'s exit */
	bool area_prog;
	bool area_fentry;			/* load the fexit program */
	bool area_kprobe;			/* load the kretprobe program */
};

struct collector {
	struct vmapstat_bpf *skel;
	struct bpf_link *links[2 * NR_TPS + 4 * VMAPSCOPE_NR_LAT_SLOTS];
	size_t nr_links;
	struct collector_opts opts;
	char *caller_filter;
	bool caller_filter_in_bpf;
	pthread_mutex_t lock;

	struct vmapscope_feature_state feat[VMAPSCOPE_FEAT_MAX];
	struct vmapscope_probe_state probes[VMAPSCOPE_NR_LAT_SLOTS];
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

/* One column's state: @how it is attached, or (@fmt) why it is missing. */
void set_feat(struct collector *c, enum vmapscope_feature f, bool ok, const char *how,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * Before load: what each opt-in feature of feature_table.h asks of the
 * BPF object, its switches and its map.  0, or -ENOENT with errbuf set
 * when the object lacks one of them.
 */
int set_optins(struct collector *c, struct vmapstat_bpf *s, const struct plan *p,
	       char *errbuf, size_t errlen);
/* The feature table and the caller method, once everything is attached (collector_features.c). */
void decide_features(struct collector *c, const struct plan *p);

#endif /* VMAPSCOPE_COLLECTOR_INT_H */
