/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names every output uses, defined once: APIs, columns (features) and
 * global counters (the counter list itself is VMAPSCOPE_COUNTERS in
 * vmapscope.h, shared with BPF).  Text, JSON and Prometheus take their
 * names from here; granule labels are granule.h's, callers ksyms.h's.
 */
#ifndef VMAPSCOPE_VOCAB_H
#define VMAPSCOPE_VOCAB_H

#include "feature_table.h"
#include "vmapscope.h"

/* Columns a kernel may or may not be able to provide (feature_table.h). */
#define VMAPSCOPE_FEAT_ENUM(id, ...) VMAPSCOPE_FEAT_##id,
enum vmapscope_feature {
	VMAPSCOPE_FEATURES(VMAPSCOPE_FEAT_ENUM, VMAPSCOPE_FEAT_ENUM)
	VMAPSCOPE_FEAT_MAX,
};
#undef VMAPSCOPE_FEAT_ENUM

/*
 * The opt-in features (the O lines of feature_table.h), in table order: what
 * the collector attaches for each and the option that asks for it.
 */
struct feature_optin {
	enum vmapscope_feature feat;
	const char *option;		/* --<option>, also "off (--<option>)" */
	const char *help;
	const char *want;		/* BPF const volatile bool: asked for */
	const char *stock_want;		/* BPF const volatile bool: rows are areas */
	const char *map;		/* BPF map sized only when asked; NULL: none */
	const char *tp;			/* raw tracepoint it needs */
};
extern const struct feature_optin feature_optins[];
extern const unsigned int nr_feature_optins;

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

const char *feature_name(enum vmapscope_feature f);

/*
 * The name of a fallback reason (enum vmapscope_fallback, VMAPSCOPE_FALLBACKS
 * in vmapscope.h: "limit", "discontig", "align", "occupied"); NULL for 0 and
 * out of range.
 */
const char *fallback_name(int reason);

/* JSON key, text name and Prometheus name stem of a global counter. */
const char *counter_name(int counter);
/* One sentence: what the counter counts (Prometheus HELP). */
const char *counter_help(int counter);

#endif /* VMAPSCOPE_VOCAB_H */
