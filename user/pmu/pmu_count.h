/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PMU counting for a traced period, in one of two modes:
 *
 * - per CPU (perf stat -a / -C): each resolved event is opened once per
 *   selected CPU (pid = -1), disabled; start() enables;
 * - per command (perf stat -- CMD, opts.task): for each run the caller
 *   forks the command and holds it before its exec; attach() opens each
 *   event on that child (any CPU), disabled, with inherit and
 *   enable_on_exec, then the caller lets it exec.  The counters start with
 *   the command's exec, count its children too (inherit: their counts add
 *   up in the command's counters when they exit) and keep the final
 *   counts once it has been waited for; stop() reads them and closes
 *   them.  Nothing is ever opened on the caller itself: an inherited
 *   counter in the caller's own perf context is lost to a kernel
 *   optimization.  While a forked child has not exec'd, its context is a
 *   clone of the caller's, and a context switch between the two on one
 *   CPU swaps the contexts rather than the events in them; the counter
 *   behind the caller's file descriptor then lives in that child, is
 *   enabled by its exec (its enable_on_exec used up) and exits with it,
 *   and the copies every later child inherits take their attributes from
 *   it: no enable_on_exec, so they never count.  start() only takes the
 *   baseline.
 *
 * sample()/stop() read deltas with time_enabled and
 * time_running so that multiplexed counts are scaled and marked.  What
 * cannot be counted (event missing from the PMU, CPU offline or outside
 * the PMU's CPUs, permissions) becomes one clear line naming the event and
 * the PMU, and everything else is still counted.
 *
 * The system calls and the /proc and /sys paths are injectable so that the
 * scaling, error and zero-count logic is unit-tested without a PMU.
 */
#ifndef VMAPSCOPE_PMU_COUNT_H
#define VMAPSCOPE_PMU_COUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <sys/types.h>

#include "pmu_cpus.h"
#include "pmu_events.h"

struct pmu_sys_ops {
	int (*open)(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);	/* fd or -errno */
	int (*ioctl)(int fd, unsigned long request);		/* 0 or -errno */
	ssize_t (*read)(int fd, void *buf, size_t len);		/* -errno on error */
	void (*close)(int fd);
};

struct pmu_count_opts {
	const char *cpu_list;		/* -C; NULL = all online CPUs */
	bool task;			/* count the command vmapstat forks
					   for each run, with its children,
					   not CPUs (cpu_list unused):
					   pmu_session_attach() */
	const char *sys_root;		/* prefix for /sys/devices/system/cpu;
					   NULL = "" (the real one) */
	const char *proc_root;		/* prefix for /proc/stat; NULL = "" */
	const struct pmu_sys_ops *ops;	/* NULL = real system calls */
	/* below this much busy CPU time a zero count is not suspicious */
	uint64_t busy_threshold_ns;	/* 0 = 10 ms */
};

/* One CPU of one event in a result. */
struct pmu_cpu_value {
	int cpu;
	uint64_t raw;
	uint64_t enabled_ns, running_ns;
	double scaled;
};

/* One event's figures over one period (a run, an interval). */
struct pmu_result {
	char name[PMU_NAME_LEN];
	char pmu[PMU_NAME_LEN];
	bool counted;		/* opened on at least one CPU */
	uint64_t raw;		/* sum of raw counts */
	double value;		/* sum of scaled counts */
	bool scaled;		/* some CPU ran < 100% of the enabled time */
	double running_pct;	/* lowest running/enabled over CPUs, 0..100 */
	bool never_ran;		/* enabled but running 0 on every CPU */
	bool zero_busy;		/* exactly 0 over a busy period */
	bool partial;		/* a CPU went offline during the period */
	char note[256];		/* why not counted / flags, "" if none */
	char unit[8];		/* how to show value: "msec" for the clock
				   events (value stays in their ns), else "" */
	int nr_cpus;
	struct pmu_cpu_value *cpu;	/* nr_cpus entries (owned by the result set) */
};

struct pmu_results {
	double period_s;		/* wall time of the period */
	uint64_t busy_ns;		/* busy CPU time on the selected CPUs */
	char cpus[128];			/* the selected CPUs, as a list; "" per command */
	bool task;			/* counted per command, not per CPU:
					   busy_ns is the command's CPU time */
	int nr;
	struct pmu_result *r;
};

struct pmu_session;

/*
 * Open every event on every selected CPU (per command: probe that each
 * opens, pmu_session_attach() opens them for each run).  Events or CPUs that fail are
 * reported on @msgs (one line each: event, PMU, reason, CPUs) and counted
 * as not counted; this only fails (-1, @err) for bad options (CPU list)
 * or when nothing at all can be opened... which it still reports per
 * event first.  Returns 0 on success.
 */
int pmu_session_open(const struct pmu_count_opts *opts,
		     const struct pmu_event *evs, int nr,
		     struct pmu_session **out, FILE *msgs,
		     char *err, size_t errlen);
/*
 * Per command (opts.task), before each run: open the counters on @pid, a
 * child forked to run the command and held before its exec (they start
 * counting at that exec), in place of the previous run's.  An event that
 * cannot be opened on it is reported on @msgs and not counted in this
 * run.  0, or -EINVAL for a per-CPU session.
 */
int pmu_session_attach(struct pmu_session *s, pid_t pid, FILE *msgs);
int pmu_session_start(struct pmu_session *s);
/* Deltas since start or the previous sample; counters keep running. */
int pmu_session_sample(struct pmu_session *s, struct pmu_results *res);
/*
 * Disable, then the deltas since start/previous sample.  Per command,
 * call it once the command was waited for: its counters hold the final
 * counts then, and are closed after this read.
 */
int pmu_session_stop(struct pmu_session *s, struct pmu_results *res);
/* How many events opened on at least one CPU. */
int pmu_session_nr_counted(const struct pmu_session *s);
void pmu_session_close(struct pmu_session *s);

void pmu_results_free(struct pmu_results *res);

/*
 * perf stat-like table: count, event, notes; with @per_cpu one extra line
 * per CPU.  Notes (scaled %, "not counted by this PMU?", partial) are
 * printed beside the counts; the caveat lines go to the same stream.
 */
void pmu_results_print(FILE *out, const struct pmu_results *res, bool per_cpu);

/* @v (a value of @r: raw event units) in @r->unit: ns → msec for clocks. */
double pmu_result_shown(const struct pmu_result *r, double v);

/* "1,234,567" grouping for integer counts. */
void pmu_format_count(double v, char *buf, size_t len);

#endif /* VMAPSCOPE_PMU_COUNT_H */
