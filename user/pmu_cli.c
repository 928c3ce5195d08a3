// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat's PMU option group (pmu_group, see vmapstat_groups.h).  Saved runs are
 * compared by "vmapstat compare" (pmu_compare.c).
 *
 *   vmapstat --pmu dtlb_walk:u,l1d_tlb_refill:u,l2d_tlb_refill:u -C 10 \
 *            --repeat 5 -j -- perf record -C 10 -m ,1G -e cs_etm// -- ...
 *
 * With a command, the events count that command and its children (as
 * perf stat -- CMD does): for each run, opened on the child vmapstat
 * forks for it while that child waits before its exec, inherited by its
 * children and enabled by its exec, so nothing of vmapstat itself is
 * counted (pmu_count.h says why they are never opened on vmapstat).
 * With -a, -C or --pmu-per-cpu, and without a command, they count CPUs:
 * opened (disabled) when vmapstat has attached, enabled right before each
 * run of the command execs and disabled right after it exits.  Either way
 * each run's counts and mappings cover the same period.
 */
#include <json-c/json.h>
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmapstat_groups.h"
#include "pmu_count.h"
#include "pmu_sample.h"
#include "pmu_events.h"
#include "pmu_runs.h"
#include "parse.h"

enum {
	OPT_PMU = 0x200,
	OPT_PER_CPU,
	OPT_SAMPLE,
	OPT_PERIOD,
};

static struct {
	const char *events;		/* --pmu */
	const char *cpus;		/* -C */
	bool all_cpus;			/* -a */
	bool per_cpu;
	struct pmu_event *evs;
	int nr_evs;
	struct pmu_session *session;
	struct pmu_runs runs;
	struct pmu_results last;	/* the last run's results, for notes; .r NULL: none */
	struct pmu_results interval;	/* -j, merged: this interval's, until taken */
	struct pmu_event sample_ev;	/* --pmu-sample */
	bool sampling;
	unsigned long long period;
	struct pmu_sample *sampler;
	bool task;			/* counting per command, not per CPU */
	bool active;			/* some PMU option was given */
	int repeat;			/* --repeat; 0: not given */
} pmu;

static const struct argp_option pmu_options[] = {
	{ "pmu", OPT_PMU, "EVENTS", 0,
	  "Count these PMU events (comma list, perf names: dtlb_walk:u, "
	  "cycles, rNNN, pmu/event=0x34/...) over the traced period: the command "
	  "and its children with -- COMMAND, else per CPU", 0 },
	{ "all-cpus", 'a', NULL, 0,
	  "Count on every CPU, system-wide, rather than only the command "
	  "and its children (the default with -- COMMAND)", 0 },
	{ "cpus", 'C', "CPUS", 0,
	  "Count on these CPUs only (e.g. 0-3,10), system-wide there", 0 },
	{ "repeat", 'r', "N", 0,
	  "Run the command N times: per-run table with the average (-j saves it "
	  "for 'vmapstat compare'); needs --pmu", 0 },
	{ "pmu-per-cpu", OPT_PER_CPU, NULL, 0,
	  "Also print each CPU's PMU count (counts system-wide, as -a)", 0 },
	{ "pmu-sample", OPT_SAMPLE, "EVENT", 0,
	  "Sample EVENT and attribute each sample's data address to the vmap "
	  "area (and caller) containing it", 0 },
	{ "pmu-period", OPT_PERIOD, "N", 0, "Sample every N events (default 10000)", 0 },
	{ 0 },
};

static error_t pmu_parse(int key, char *arg, struct argp_state *st)
{
	char err[512];
	unsigned long n;

	switch (key) {
	case ARGP_KEY_INIT:
		/* options of an earlier parse (tests parse several times) */
		free(pmu.evs);
		memset(&pmu, 0, sizeof(pmu));
		break;
	case OPT_PMU:
		free(pmu.evs);
		if (pmu_event_list_resolve(NULL, arg, &pmu.evs, &pmu.nr_evs, err,
					   sizeof(err)))
			argp_error(st, "--pmu: %s", err);
		pmu.events = arg;
		break;
	case 'a':
		pmu.all_cpus = true;
		break;
	case 'C':
		if (pmu_cpulist_check(arg, NULL, err, sizeof(err)))
			argp_error(st, "-C: %s", err);
		pmu.cpus = arg;
		break;
	case 'r':
		if (parse_ulong(arg, PMU_RUNS_MAX, &n) || n < 1)
			argp_error(st, "--repeat: invalid count '%s' (1..%d)", arg,
				   PMU_RUNS_MAX);
		else
			pmu.repeat = n;
		break;
	case OPT_PER_CPU:
		pmu.per_cpu = true;
		break;
	case OPT_SAMPLE: {
		struct pmu_event tmp[PMU_MAX_INSTANCES];

		if (pmu_event_resolve(NULL, arg, tmp, PMU_MAX_INSTANCES, err,
				      sizeof(err)) < 0)
			argp_error(st, "--pmu-sample: %s", err);
		else
			pmu.sample_ev = tmp[0];
		pmu.sampling = true;
		break;
	}
	case OPT_PERIOD:
		if (parse_ulong(arg, ULONG_MAX, &n) || !n)
			argp_error(st, "--pmu-period: invalid period '%s'", arg);
		pmu.period = n;
		break;
	case ARGP_KEY_END:
		if (pmu.cpus && !pmu.events)
			argp_error(st, "-C selects CPUs for --pmu: give --pmu EVENTS too");
		if (pmu.all_cpus && !pmu.events)
			argp_error(st, "-a counts --pmu events on every CPU: give --pmu EVENTS too");
		if (pmu.period && !pmu.sampling)
			argp_error(st, "--pmu-period needs --pmu-sample EVENT");
		/* the run table holds the --pmu counts: without them it is empty */
		if (pmu.repeat && !pmu.events)
			argp_error(st, "--repeat tabulates --pmu counts per run: give --pmu EVENTS too");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp pmu_argp = {
	.options = pmu_options,
	.parser = pmu_parse,
};

static void pmu_cli_parsed(struct vmapstat_run *run)
{
	run->repeat = pmu.repeat ? pmu.repeat : 1;
	/* the sampler attributes samples to areas the collector tracks */
	run->track_areas = pmu.sampling;
}

/* ------------------------------------------------------------------ */

static void join_command(char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; argv && *argv && off < len; argv++)
		off += snprintf(buf + off, len - off, "%s%s", off ? " " : "", *argv);
}

static int pmu_cli_start(struct vmapstat_run *run)
{
	struct pmu_count_opts o = {
		.cpu_list = pmu.cpus,
		/* like perf stat: the command, unless CPUs were asked for */
		.task = run->command && !pmu.all_cpus && !pmu.cpus && !pmu.per_cpu,
	};
	struct utsname u;
	char cmd[512], label[64] = "", err[512];

	pmu.active = pmu.events || pmu.sampling || pmu.repeat > 1;
	if (!pmu.active)
		return 0;
	join_command(run->command, cmd, sizeof(cmd));
	if (!uname(&u))
		snprintf(label, sizeof(label), "%.30s %.20s", u.release, u.machine);
	pmu_runs_init(&pmu.runs, cmd, label);
	if (pmu.sampling) {
		struct pmu_sample_opts so = {
			.ev = &pmu.sample_ev, .period = pmu.period,
			.cpu_list = pmu.cpus,
		};

		if (pmu_sample_open(&so, run->collector, &pmu.sampler, stderr, err, sizeof(err))) {
			fprintf(stderr, "vmapstat: %s\n", err);
			return -1;
		}
	}
	pmu.task = o.task;
	if (pmu.nr_evs) {
		if (pmu_session_open(&o, pmu.evs, pmu.nr_evs, &pmu.session, stderr, err,
				     sizeof(err))) {
			fprintf(stderr, "vmapstat: %s\n", err);
			return -1;
		}
		if (!pmu_session_nr_counted(pmu.session))
			fprintf(stderr, "vmapstat: pmu: none of the events can be counted here; "
				"reporting mappings only\n");
	}
	/* interval mode: count and sample from now on, our own setup done */
	if (!run->command) {
		if (pmu.session)
			pmu_session_start(pmu.session);
		if (pmu.sampler)
			pmu_sample_start(pmu.sampler);
	}
	return 0;
}

static int pmu_cli_run_start(struct vmapstat_run *run, int idx, pid_t pid)
{
	if (pmu.session && pmu.task && pmu_session_attach(pmu.session, pid, stderr))
		return -1;
	if (pmu.session)
		pmu_session_start(pmu.session);
	if (pmu.sampler)
		pmu_sample_start(pmu.sampler);
	return 0;
}

/* vmap figures of one run that a stock-vs-patched comparison wants (VMAPSCOPE_RUN_METRICS). */
static void record_vmap_metrics(int idx, const struct vmapscope_sample *d)
{
	double v;

	for (size_t i = 0; i < nr_run_metrics; i++)
		if (!run_metric_value(d, &run_metrics[i], &v))
			pmu_runs_set(&pmu.runs, idx, run_metrics[i].name, run_metrics[i].unit, v, 0);
}

static int pmu_cli_run_end(struct vmapstat_run *run, int idx, int status,
			   const struct vmapscope_sample *delta)
{
	struct pmu_results res;
	int r;

	if (!pmu.active)
		return 0;
	if (pmu.sampler)
		pmu_sample_stop(pmu.sampler);
	r = pmu_runs_add_run(&pmu.runs, status);
	if (r < 0) {
		fprintf(stderr, "vmapstat: out of memory\n");
		return -1;
	}
	if (pmu.session) {
		if (pmu_session_stop(pmu.session, &res)) {
			fprintf(stderr, "vmapstat: pmu: out of memory\n");
			return -1;
		}
		for (int i = 0; i < res.nr; i++) {
			const struct pmu_result *e = &res.r[i];
			unsigned flags = (e->scaled ? PMU_VAL_SCALED : 0) |
					 (e->zero_busy ? PMU_VAL_ZERO : 0);

			if (e->counted && !e->never_ran)
				pmu_runs_set(&pmu.runs, r, e->name, e->unit,
					     pmu_result_shown(e, e->value), flags);
		}
		pmu_runs_set(&pmu.runs, r, "wall time", "ms", res.period_s * 1e3, 0);
		pmu_results_free(&pmu.last);
		pmu.last = res;
	}
	if (delta)
		record_vmap_metrics(r, delta);
	return 0;
}

/* @v with @decimals as JSON text (null if it is no finite number). */
static json_object *jnum(double v, int decimals)
{
	char buf[48];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

/* One interval's counts as {"pmu": {...}}. */
static json_object *results_json(const struct pmu_results *res)
{
	json_object *root = json_object_new_object(), *o = json_object_new_object();
	json_object *evs = json_object_new_array();

	json_object_object_add(o, "period_s", jnum(res->period_s, 6));
	json_object_object_add(o, "busy_s", jnum(res->busy_ns / 1e9, 6));
	json_object_object_add(o, "cpus", json_object_new_string(res->cpus));
	for (int i = 0; i < res->nr; i++) {
		const struct pmu_result *r = &res->r[i];
		json_object *e = json_object_new_object(), *pc = json_object_new_array();

		json_object_object_add(e, "name", json_object_new_string(r->name));
		json_object_object_add(e, "pmu", json_object_new_string(r->pmu));
		json_object_object_add(e, "counted", json_object_new_boolean(r->counted));
		json_object_object_add(e, "value", jnum(pmu_result_shown(r, r->value),
							r->unit[0] ? 6 : 0));
		json_object_object_add(e, "unit", json_object_new_string(r->unit));
		json_object_object_add(e, "raw", json_object_new_uint64(r->raw));
		json_object_object_add(e, "scaled", json_object_new_boolean(r->scaled));
		json_object_object_add(e, "running_pct", jnum(r->running_pct, 2));
		json_object_object_add(e, "zero_busy", json_object_new_boolean(r->zero_busy));
		json_object_object_add(e, "partial", json_object_new_boolean(r->partial));
		/* per command there is one counter, on no particular CPU */
		for (int c = 0; c < r->nr_cpus && !res->task; c++) {
			json_object *jc = json_object_new_object();

			json_object_object_add(jc, "cpu", json_object_new_int(r->cpu[c].cpu));
			json_object_object_add(jc, "value", jnum(pmu_result_shown(r, r->cpu[c].scaled),
								 r->unit[0] ? 6 : 0));
			json_object_array_add(pc, jc);
		}
		json_object_object_add(e, "per_cpu", pc);
		json_object_object_add(e, "note", json_object_new_string(r->note));
		json_object_array_add(evs, e);
	}
	json_object_object_add(o, "events", evs);
	json_object_object_add(root, "pmu", o);
	return root;
}

static int print_results_json(FILE *out, const struct pmu_results *res)
{
	json_object *root = results_json(res);
	int ret;

	ret = fprintf(out, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PLAIN)) < 0 ? -1 : 0;
	json_object_put(root);
	return ret;
}

/* -j: vmapstat's interval object gets the interval's counts as "pmu". */
static int pmu_cli_interval_json(struct vmapstat_run *run, struct json_object *o)
{
	json_object *root, *inner;

	if (!run->pmu)
		return 0;
	root = results_json(run->pmu);
	if (!json_object_object_get_ex(root, "pmu", &inner)) {
		json_object_put(root);
		return -1;
	}
	json_object_object_add(o, "pmu", json_object_get(inner));
	json_object_put(root);
	return 0;
}

static int pmu_cli_interval(struct vmapstat_run *run,
			    const struct vmapscope_sample *cum,
			    const struct vmapscope_sample *delta)
{
	FILE *out = vmapstat_report_stream(run);

	run->pmu = NULL;
	pmu_results_free(&pmu.interval);
	/* command mode prints at the end, over the runs; the last run's counts are exported */
	if (run->command) {
		if (pmu.last.r)
			run->pmu = &pmu.last;
		return 0;
	}
	if (!pmu.session)
		return 0;
	if (pmu_session_sample(pmu.session, &pmu.interval))
		return -1;
	run->pmu = &pmu.interval;
	/*
	 * -j: inside vmapstat's own object (pmu_cli_interval_json()), one
	 * object per interval; with --prometheus vmapstat prints none, so
	 * the counts go to the report stream as an object of their own
	 */
	if ((run->json && !run->stdout_taken) || run->no_report)
		return 0;
	if (run->json)
		print_results_json(out, &pmu.interval);
	else
		pmu_results_print(out, &pmu.interval, pmu.per_cpu);
	fflush(out);
	return 0;
}

static int pmu_cli_end(struct vmapstat_run *run,
		       const struct vmapscope_sample *cum)
{
	FILE *out = vmapstat_report_stream(run);
	int failed = 0, ret = 0;

	if (!pmu.active)
		return 0;
	if (run->command) {
		if (run->json) {
			if (pmu_runs_write_json(out, &pmu.runs))
				ret = -1;
		} else if (pmu.runs.nr_runs > 1) {
			fprintf(out, "\n%d runs of: %s\n", pmu.runs.nr_runs,
				pmu.runs.command);
			pmu_runs_print(out, &pmu.runs);
			/* what the last run said about events, once */
			for (int i = 0; i < pmu.last.nr; i++)
				if (pmu.last.r[i].note[0])
					fprintf(out, "  %s: %s\n",
						pmu.last.r[i].name, pmu.last.r[i].note);
		} else if (pmu.last.r) {
			pmu_results_print(out, &pmu.last, pmu.per_cpu);
		}
		fflush(out);
		failed = pmu_runs_print_status(stderr, &pmu.runs);
		if (failed)
			ret = -1;	/* vmapstat exits non-zero */
	}
	if (pmu.sampler) {
		struct pmu_sample_report rep;

		pmu_sample_stop(pmu.sampler);
		if (!pmu_sample_read(pmu.sampler, &rep)) {
			pmu_sample_report_print(run->json ? stderr : out, &rep,
						pmu.sample_ev.name, run->collector);
			pmu_sample_report_free(&rep);
		}
		pmu_sample_close(pmu.sampler);
		pmu.sampler = NULL;
	}
	if (pmu.session) {
		struct pmu_results res;

		if (!run->command && !pmu_session_stop(pmu.session, &res))
			pmu_results_free(&res);
		pmu_session_close(pmu.session);
		pmu.session = NULL;
	}
	run->pmu = NULL;
	pmu_results_free(&pmu.last);
	pmu_results_free(&pmu.interval);
	pmu_runs_free(&pmu.runs);
	return ret;
}

const struct vmapstat_group pmu_group = {
	.title = "PMU counting:",
	.argp = &pmu_argp,
	.parsed = pmu_cli_parsed,
	.start = pmu_cli_start,
	.run_start = pmu_cli_run_start,
	.run_end = pmu_cli_run_end,
	.interval = pmu_cli_interval,
	.interval_json = pmu_cli_interval_json,
	.end = pmu_cli_end,
};
