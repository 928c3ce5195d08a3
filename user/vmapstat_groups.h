/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat's option groups: a table of argp children, each with the
 * callbacks vmapstat calls on it.  Adding a group is a line in
 * vmapstat.c's table; vmapstat calls no group by name.
 *
 * The groups: PMU counting (pmu_cli.c), Prometheus export (prom_cli.c)
 * and the snapshot (snapshot_cli.c).  vmapstat calls every
 * group's callbacks that are set, in table order (PMU before the
 * exporter, which reads what PMU leaves in the run), in this order; a
 * group does nothing when none of its options were given:
 *
 *	parsed(run)                  the command line is valid; set the run
 *	                             fields this group decides (below)
 *	start(run)                   collector attached, before the first
 *	                             interval or before the command is started
 *	run_start(run, i, pid)       command mode: run i (0-based) is process
 *	                             pid, forked and held before its exec until
 *	                             this returns (non-zero: it never execs)
 *	run_end(run, i, status, d)   command mode: run i ended; d = delta
 *	interval(run, cum, d)        each interval (interval mode) / once at the
 *	                             end (command mode, over all runs)
 *	interval_json(run, o)        -j: add this group's part of the
 *	                             interval's object (one object per interval)
 *	end(run, cum)                before the collector is closed
 *
 * A non-zero return stops vmapstat with exit status 1 (the group prints
 * its own one-line error).  A failed write to stdout is the exception:
 * vmapstat reports it, once, with the write's errno (cli_stdout_check()
 * in cli.h, also run at exit), so a group returns non-zero without a
 * line of its own, or just leaves the failure to that check.
 * run->collector may be read from other threads with collector_read()
 * (it locks internally).
 *
 * A group whose options select a mode of its own (--snapshot) sets
 * replaces_tracing and main: when replaces_tracing() after parsing,
 * vmapstat returns main() instead of tracing, and refuses every option
 * that mode does not read.
 */
#ifndef VMAPSCOPE_VMAPSTAT_GROUPS_H
#define VMAPSCOPE_VMAPSTAT_GROUPS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "collector.h"

struct json_object;
struct pmu_results;
struct select_opts;

struct vmapstat_run {
	struct collector *collector;
	bool json;			/* -j */
	double interval_s;		/* interval mode: seconds; command mode: 0 */
	char *const *command;		/* command mode: argv, else NULL */

	/* set by the groups' parsed() */
	int repeat;			/* command mode: runs of the command (--repeat) */
	bool track_areas;		/* the collector tracks vmap areas (--pmu-sample) */
	bool stdout_taken;		/* --prometheus: stdout holds the exposition only */
	bool serving;			/* --web.listen-address: serves until stopped */
	/*
	 * service mode (--web.listen-address without INTERVAL): /metrics is
	 * the only output, no group prints a report (set by vmapstat)
	 */
	bool no_report;

	/*
	 * The period's PMU counts, left by the PMU group's interval() for
	 * the groups after it (the exporter) and for its interval_json();
	 * NULL: none.  Valid until the PMU group's next interval() or end().
	 */
	const struct pmu_results *pmu;
};

/*
 * Where a group prints its own report: stdout, unless --prometheus writes
 * the exposition there (stdout must then hold nothing else): stderr.
 */
static inline FILE *vmapstat_report_stream(const struct vmapstat_run *run)
{
	return run->stdout_taken ? stderr : stdout;
}

struct vmapstat_group {
	const char *title;		/* its --help section */
	const struct argp *argp;
	void (*parsed)(struct vmapstat_run *run);
	int (*start)(struct vmapstat_run *run);
	int (*run_start)(struct vmapstat_run *run, int idx, pid_t pid);
	int (*run_end)(struct vmapstat_run *run, int idx, int wait_status,
		       const struct vmapscope_sample *delta);
	int (*interval)(struct vmapstat_run *run, const struct vmapscope_sample *cum,
			const struct vmapscope_sample *delta);
	/* 0, or -1 (out of memory) */
	int (*interval_json)(struct vmapstat_run *run, struct json_object *o);
	int (*end)(struct vmapstat_run *run, const struct vmapscope_sample *cum);

	bool (*replaces_tracing)(void);
	/* the mode's exit status; it reads -j, -p and the selection's -c, --api, -v */
	int (*main)(const struct select_opts *sel, bool json, bool per_caller);
};

/* user/pmu_cli.c, prom_cli.c, snapshot_cli.c */
extern const struct vmapstat_group pmu_group;
extern const struct vmapstat_group prom_group;
extern const struct vmapstat_group snapshot_group;

#endif /* VMAPSCOPE_VMAPSTAT_GROUPS_H */
