/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a front end traces: the options that select and filter events,
 * one argp child (select_argp) that vmapstat and vmaptop both list, so
 * that an option has one spelling, one letter and one meaning in every
 * tool.  vmapstat --snapshot reads the same struct (caller, API,
 * verbose) for the page-table audit.
 *
 *   -c, --caller PATTERN   callers whose symbol contains PATTERN
 *   --api LIST             these APIs only (API_LIST_NAMES)
 *   --pid PID              mappings made by this process only
 *   --no-latency           no latency at all
 *   --call-latency         whole-call latency from entry-point probes
 *   --latency-all          --call-latency, also of vmap, vm_map_ram, vmap_pfn, x86 ioremap
 *   --runs                 runs per granule (the series' per-run events)
 *   --areas                areas, lazy frees, purges
 *   --<option>             each opt-in feature of feature_table.h
 *   --stack-callers        callers of areas by kernel stack
 *   --max-callers N        size of the (caller, api) map
 *   --by cgroup|comm       split each caller's rows by cgroup or command
 *   -v, --verbose          libbpf and attach output
 *
 * The parent passes a struct select_opts * as this child's input
 * (state->child_inputs[i] at ARGP_KEY_INIT); without one, the values are
 * checked and dropped (the fuzz target parses that way).
 */
#ifndef VMAPSCOPE_SELECT_OPTS_H
#define VMAPSCOPE_SELECT_OPTS_H

#include <argp.h>

#include "collector_opts.h"

/*
 * The options parse straight into the collector's settings, which a front
 * end hands to collector_open() once it has added its own (track_areas,
 * load_only: no option here sets them).
 */
struct select_opts {
	struct collector_opts col;
};

extern const struct argp select_argp;

#endif /* VMAPSCOPE_SELECT_OPTS_H */
