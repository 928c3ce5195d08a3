/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat's option groups and what vmapstat calls in them.
 *
 * PMU counting (user/pmu_cli.c) and Prometheus export (user/prom_cli.c)
 * are argp children of vmapstat (pmu_argp, prom_argp).  vmapstat calls
 * each group's functions, PMU first, in this order; they do nothing when
 * none of the group's options were given:
 *
 *	*_start(run)                 collector attached, before the first interval
 *	                             or before the command is started
 *	pmu_cli_run_start(run, i, pid)  command mode: run i (0-based) is process
 *	                             pid, forked and held before its exec until
 *	                             this returns (non-zero: it never execs)
 *	pmu_cli_run_end(run, i, status, d)  command mode: run i ended; d = delta
 *	*_interval(run, cum, d)      each interval (interval mode) / once at the
 *	                             end (command mode, over all runs)
 *	*_end(run, cum)              before the collector is closed
 *
 * A non-zero return stops vmapstat with exit status 1 (the group prints
 * its own one-line error).  A failed write to stdout is the exception:
 * vmapstat reports it, once, with the write's errno (cli_stdout_check()
 * in cli.h, also run at exit), so a group returns non-zero without a
 * line of its own, or just leaves the failure to that check.  With --prometheus (prom_cli_to_stdout()) the
 * exposition replaces vmapstat's own table/JSON.  run->collector may be
 * read from other threads with collector_read() (it locks internally).
 *
 * Command-mode repetition (--repeat N) is vmapstat_cmd_repeat, set by the
 * PMU group's option parser (default 1).
 */
#ifndef VMAPSCOPE_HOOKS_H
#define VMAPSCOPE_HOOKS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "collector.h"

struct vmapstat_run {
	struct collector *collector;
	bool json;			/* -j */
	double interval_s;		/* interval mode: seconds; command mode: 0 */
	char *const *command;		/* command mode: argv, else NULL */
};

int pmu_cli_start(const struct vmapstat_run *run);
int pmu_cli_run_start(const struct vmapstat_run *run, int idx, pid_t pid);
int pmu_cli_run_end(const struct vmapstat_run *run, int idx, int wait_status,
		    const struct vmapstat_sample *delta);
int pmu_cli_interval(const struct vmapstat_run *run,
		     const struct vmapstat_sample *cum,
		     const struct vmapstat_sample *delta);
int pmu_cli_end(const struct vmapstat_run *run,
		const struct vmapstat_sample *cum);

int prom_cli_start(const struct vmapstat_run *run);
int prom_cli_interval(const struct vmapstat_run *run,
		      const struct vmapstat_sample *cum,
		      const struct vmapstat_sample *delta);
int prom_cli_end(const struct vmapstat_run *run,
		 const struct vmapstat_sample *cum);
bool prom_cli_to_stdout(void);

/*
 * Where a group prints its own report: stdout, unless --prometheus writes
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
 * live_snapshot_main() instead of tracing.  It reads the selection the
 * tracing front ends read (caller, API, verbose) and vmapstat's -j, -p.
 */
struct select_opts;
bool live_snapshot_requested(void);
int live_snapshot_main(const struct select_opts *sel, bool json, bool per_caller);

/*
 * --pmu-sample given: the collector must track vmap areas (its BPF object
 * then carries the sampler, collector_opts.track_areas).
 */
bool pmu_sampling_requested(void);

/* "vmapstat compare A.json B.json" (user/pmu_cli.c). */
int vmapstat_compare_main(int argc, char **argv);

#endif /* VMAPSCOPE_HOOKS_H */
