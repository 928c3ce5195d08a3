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
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector_opts.h"

struct select_opts {
	const char *caller;		/* substring of the caller symbol; NULL = all */
	unsigned int api_mask;		/* bit (1 << api); 0 = all APIs */
	pid_t pid;			/* 0 = every process */
	bool no_latency;
	bool call_latency;
	bool latency_all;
	bool runs;
	bool areas;
	unsigned int optin;		/* opt-in features: VMAPSCOPE_FEAT_BIT(f) */
	bool stack_callers;
	bool verbose;
	uint32_t max_callers;		/* 0 = the collector's default */
	int by;				/* enum vmapscope_by; 0 = no label */
};

extern const struct argp select_argp;

/* The collector options @s selects (the other fields of @o are left alone). */
void select_opts_collector(const struct select_opts *s, struct collector_opts *o);

#endif /* VMAPSCOPE_SELECT_OPTS_H */
