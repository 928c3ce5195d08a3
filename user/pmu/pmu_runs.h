/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --repeat N: one value per metric per run, printed as a table with the
 * average (the layout of Arm's TRBE/SPE TLB tables), saved as JSON, and
 * compared between two saved files (stock vs patched): metric, runs,
 * averages, percent change.
 */
#ifndef VMAPSCOPE_PMU_RUNS_H
#define VMAPSCOPE_PMU_RUNS_H

#include <stdbool.h>
#include <stdio.h>

#define PMU_RUNS_MAX		1000
#define PMU_METRIC_NAME_LEN	64

/* Per-value flags. */
#define PMU_VAL_MISSING	0x1	/* not measured in this run */
#define PMU_VAL_SCALED	0x2	/* multiplexed, extrapolated */
#define PMU_VAL_ZERO	0x4	/* 0 over a busy period: not counted? */

/*
 * One metric's values over the runs: nr_runs of them (values[i],
 * flags[i]); the arrays grow with the runs.  A file can hold many
 * metrics, so a metric costs what its runs need, no more.
 */
struct pmu_metric {
	char name[PMU_METRIC_NAME_LEN];
	char unit[16];		/* "" for counts, "ms", "bytes", ... */
	double *values;		/* nr_runs used */
	unsigned char *flags;	/* PMU_VAL_MISSING until set */
};

struct pmu_runs {
	char command[512];	/* the traced command line, for the report */
	char label[64];		/* e.g. kernel release, shown by compare */
	int nr_runs;
	int *status;		/* wait status per run; -1 = unknown */
	int nr_metrics;
	struct pmu_metric *m;	/* in first-use order */
	/* private: capacities and the name index (open addressing) */
	int cap_runs, cap_metrics;
	unsigned int *index;	/* metric number + 1, 0 = empty slot */
	size_t index_size;	/* a power of two, > 2 * nr_metrics */
};

void pmu_runs_init(struct pmu_runs *r, const char *command, const char *label);
void pmu_runs_free(struct pmu_runs *r);
/* Start a new run; returns its index or -1 (too many). */
int pmu_runs_add_run(struct pmu_runs *r, int wait_status);
/* Set metric @name in run @run (created on first use, in first-use order). */
int pmu_runs_set(struct pmu_runs *r, int run, const char *name,
		 const char *unit, double value, unsigned flags);
/*
 * Average over the runs where the metric was measured; false if none.
 * Always finite (the values are).
 */
bool pmu_metric_avg(const struct pmu_runs *r, const struct pmu_metric *m,
		    double *avg);
const struct pmu_metric *pmu_runs_find(const struct pmu_runs *r, const char *name);

/* Box table: | Metric | Run1 .. RunN | Avg. |, footnotes for flags. */
void pmu_runs_print(FILE *out, const struct pmu_runs *r);
/* Runs whose command failed: "run 2: exited with status 3" lines.
 * Returns how many runs failed. */
int pmu_runs_print_status(FILE *out, const struct pmu_runs *r);

/* One JSON object on one line: {"pmu_runs": {...}}. */
int pmu_runs_write_json(FILE *out, const struct pmu_runs *r);
/*
 * Read a file written with -j: it may hold other JSON objects (vmapstat's
 * interval objects) before and after; the last "pmu_runs" object counts.
 * Values must be finite numbers.  Returns 0, or -1 with one line in @err.
 */
int pmu_runs_read_json(const char *path, struct pmu_runs *r, char *err,
		       size_t errlen);

/*
 * "-13.16%", "+216.32%", "n/a" (before average 0 or missing, or a
 * difference too large to be a finite number).
 */
void pmu_format_diff(double before, double after, bool have_before,
		     bool have_after, char *buf, size_t len);
/* Diff table: | Metric | Runs | Before | After | Diff. | */
void pmu_runs_compare_print(FILE *out, const struct pmu_runs *before,
			    const struct pmu_runs *after);
/*
 * The same as one JSON object (json-c, always valid JSON: a ratio or a
 * difference that is not a finite number is null).
 */
int pmu_runs_compare_json(FILE *out, const struct pmu_runs *before,
			  const struct pmu_runs *after);

#endif /* VMAPSCOPE_PMU_RUNS_H */
