/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat's option groups and their hooks.
 *
 * PMU counting (user/pmu_cli.c) and Prometheus export (user/prom_cli.c)
 * are argp children of vmapstat (pmu_argp, prom_argp).  After parsing,
 * pmu_cli_hooks() and prom_cli_hooks() give the group's callbacks, or NULL
 * when none of its options were given, and vmapstat calls, in this order:
 *
 *	start(run)                   collector attached, before the first interval
 *	                             or before the command is started
 *	run_start(run, i)            command mode: before run i (0-based) starts
 *	run_end(run, i, status, d)   command mode: run i ended; d = delta over it
 *	interval(run, cum, d)        each interval (interval mode) / once at the
 *	                             end (command mode, over all runs)
 *	end(run, cum)                before the collector is closed
 *
 * A non-zero return from any callback stops vmapstat with exit status 1
 * (the hook prints its own one-line error).  Hooks with replaces_report set
 * suppress vmapstat's own table/JSON (--prometheus prints the exposition
 * instead).  run->collector may be read from other threads with
 * collector_read() (it locks internally).
 *
 * Command-mode repetition (--repeat N) is vmapstat_cmd_repeat, set by the
 * PMU group's option parser (default 1).
 */
#ifndef VMAPSCOPE_HOOKS_H
#define VMAPSCOPE_HOOKS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include "collector.h"

struct vmapstat_run {
	struct collector *collector;
	bool json;			/* -j */
	double interval_s;		/* interval mode: seconds; command mode: 0 */
	char *const *command;		/* command mode: argv, else NULL */
};

struct vmapstat_hooks {
	bool replaces_report;
	int (*start)(const struct vmapstat_run *run);
	int (*run_start)(const struct vmapstat_run *run, int idx);
	int (*run_end)(const struct vmapstat_run *run, int idx, int wait_status,
		       const struct vmapstat_snapshot *delta);
	int (*interval)(const struct vmapstat_run *run,
			const struct vmapstat_snapshot *cum,
			const struct vmapstat_snapshot *delta);
	int (*end)(const struct vmapstat_run *run,
		   const struct vmapstat_snapshot *cum);
};

/* After argp_parse: the group's callbacks, NULL when its options are unused. */
const struct vmapstat_hooks *pmu_cli_hooks(void);
const struct vmapstat_hooks *prom_cli_hooks(void);

/*
 * Where a hook prints its own report: stdout, unless --prometheus writes
 * the exposition there (stdout must then hold nothing else): stderr.
 */
FILE *vmapstat_report_stream(void);

/* Command mode: how many times to run the command (set by --repeat). */
extern int vmapstat_cmd_repeat;

/* vmapstat's argp children: user/pmu_cli.c, prom_cli.c, snapshot_cli.c. */
extern const struct argp pmu_argp;
extern const struct argp prom_argp;
extern const struct argp snapshot_argp;

/*
 * vmapstat --snapshot (the live mapping audit) needs no collector: when
 * live_snapshot_requested() after parsing, vmapstat returns
 * live_snapshot_main(-j, -p, -c, --api, -v) instead of tracing.
 */
bool live_snapshot_requested(void);
int live_snapshot_main(bool json, bool per_caller, const char *caller_filter,
		       unsigned int api_mask, bool verbose);

/*
 * --pmu-sample given: the collector must track vmap areas (its BPF object
 * then carries the sampler, collector_opts.track_areas).
 */
bool pmu_sampling_requested(void);

/* "vmapstat compare A.json B.json" (user/pmu_cli.c). */
int vmapstat_compare_main(int argc, char **argv);

#endif /* VMAPSCOPE_HOOKS_H */
