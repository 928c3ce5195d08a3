// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat's PMU options (argp child "pmu_argp", see hooks.h) and
 * "vmapstat compare".
 *
 *   vmapstat --pmu dtlb_walk:u,l1d_tlb_refill:u,l2d_tlb_refill:u -C 10 \
 *            --repeat 5 -j -- perf record -C 10 -m ,1G -e cs_etm// -- ...
 *
 * The counters are opened (disabled) when vmapstat has attached, enabled
 * right before each run of the command starts and disabled right after it
 * exits, so each run's counts and mappings cover the same period.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "hooks.h"
#include "pmu_count.h"
#include "pmu_sample.h"
#include "pmu_events.h"
#include "pmu_runs.h"
#include "prom_pmu.h"

enum {
	OPT_PMU = 0x200,
	OPT_REPEAT,
	OPT_PER_CPU,
	OPT_SAMPLE,
	OPT_PERIOD,
};

static struct {
	const char *events;		/* --pmu */
	const char *cpus;		/* -C */
	bool per_cpu;
	struct pmu_event *evs;
	int nr_evs;
	struct pmu_session *session;
	struct pmu_runs runs;
	struct pmu_results last;	/* the last run's results, for notes; .r NULL: none */
	struct pmu_event sample_ev;	/* --pmu-sample */
	bool sampling;
	unsigned long long period;
	struct pmu_sample *sampler;
	bool active;			/* some PMU option was given */
} pmu;

static const struct argp_option pmu_options[] = {
	{ "pmu", OPT_PMU, "EVENTS", 0,
	  "Count these PMU events (comma list, perf names: dtlb_walk:u, "
	  "cycles, rNNN, pmu/event=0x34/...) per CPU over the traced period", 0 },
	{ "cpus", 'C', "CPUS", 0, "Count on these CPUs only (e.g. 0-3,10)", 0 },
	{ "repeat", OPT_REPEAT, "N", 0,
	  "Run the command N times: per-run table with the average (-j saves it "
	  "for 'vmapstat compare')", 0 },
	{ "pmu-per-cpu", OPT_PER_CPU, NULL, 0, "Also print each CPU's PMU count", 0 },
	{ "pmu-sample", OPT_SAMPLE, "EVENT", 0,
	  "Sample EVENT and attribute each sample's data address to the vmap "
	  "area (and caller) containing it", 0 },
	{ "pmu-period", OPT_PERIOD, "N", 0, "Sample every N events (default 10000)", 0 },
	{ 0 },
};

int vmapstat_cmd_repeat = 1;

static error_t pmu_parse(int key, char *arg, struct argp_state *st)
{
	char err[512];
	unsigned long n;

	switch (key) {
	case OPT_PMU:
		free(pmu.evs);
		if (pmu_event_list_resolve(NULL, arg, &pmu.evs, &pmu.nr_evs, err,
					   sizeof(err)))
			argp_error(st, "--pmu: %s", err);
		pmu.events = arg;
		break;
	case 'C':
		if (pmu_cpulist_check(arg, NULL, err, sizeof(err)))
			argp_error(st, "-C: %s", err);
		pmu.cpus = arg;
		break;
	case OPT_REPEAT:
		if (parse_ulong(arg, PMU_RUNS_MAX, &n) || n < 1)
			argp_error(st, "--repeat: invalid count '%s' (1..%d)", arg,
				   PMU_RUNS_MAX);
		vmapstat_cmd_repeat = n;
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
		if (pmu.period && !pmu.sampling)
			argp_error(st, "--pmu-period needs --pmu-sample EVENT");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool pmu_sampling_requested(void)
{
	return pmu.sampling;
}

const struct argp pmu_argp = {
	.options = pmu_options,
	.parser = pmu_parse,
};

/* ------------------------------------------------------------------ */

static void join_command(char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; argv && *argv && off < len; argv++)
		off += snprintf(buf + off, len - off, "%s%s", off ? " " : "", *argv);
}

int pmu_cli_start(const struct vmapstat_run *run)
{
	struct pmu_count_opts o = { .cpu_list = pmu.cpus };
	struct utsname u;
	char cmd[512], label[64] = "", err[512];

	pmu.active = pmu.events || pmu.sampling || vmapstat_cmd_repeat > 1;
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
	if (!pmu.nr_evs)
		return 0;
	if (pmu_session_open(&o, pmu.evs, pmu.nr_evs, &pmu.session, stderr, err,
			     sizeof(err))) {
		fprintf(stderr, "vmapstat: %s\n", err);
		return -1;
	}
	if (!pmu_session_nr_counted(pmu.session))
		fprintf(stderr, "vmapstat: pmu: none of the events can be counted here; "
			"reporting mappings only\n");
	/* interval mode: count from now on */
	if (!run->command)
		pmu_session_start(pmu.session);
	return 0;
}

int pmu_cli_run_start(const struct vmapstat_run *run, int idx)
{
	if (pmu.session)
		pmu_session_start(pmu.session);
	return 0;
}

/* vmap figures of one run that a stock-vs-patched comparison wants. */
static void record_vmap_metrics(int idx, const struct vmapstat_snapshot *d)
{
	uint64_t bytes = 0, large = 0, calls = 0, lat = 0, chunks = 0;
	bool gran = d->feat[VMAPSTAT_FEAT_GRANULE].available;
	bool latency = d->feat[VMAPSTAT_FEAT_LATENCY].available;

	for (size_t i = 0; i < d->nr_rows; i++) {
		const struct vmapstat_row *r = &d->rows[i];

		for (unsigned s = 0; s < VMAPSCOPE_NR_SHIFTS; s++) {
			bytes += r->st.bytes[s];
			if (s > d->page_shift)
				large += r->st.bytes[s];
		}
		calls += r->st.calls;
		lat += r->st.lat_sum_ns;
		chunks += r->st.chunks;
	}
	if (gran) {
		pmu_runs_set(&pmu.runs, idx, "vmap bytes mapped", "", bytes, 0);
		pmu_runs_set(&pmu.runs, idx, "vmap bytes in large granules", "", large, 0);
	}
	if (d->feat[VMAPSTAT_FEAT_CHUNK].available)
		pmu_runs_set(&pmu.runs, idx, "vmap chunks", "", chunks, 0);
	if (latency) {
		pmu_runs_set(&pmu.runs, idx, "vmap calls", "", calls, 0);
		if (calls)
			pmu_runs_set(&pmu.runs, idx, "vmap latency avg", "ns",
				     (double)lat / calls, 0);
	}
}

int pmu_cli_run_end(const struct vmapstat_run *run, int idx, int status,
		    const struct vmapstat_snapshot *delta)
{
	struct pmu_results res;
	int r;

	if (!pmu.active)
		return 0;
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
				pmu_runs_set(&pmu.runs, r, e->name, "", e->value, flags);
		}
		pmu_runs_set(&pmu.runs, r, "wall time", "ms", res.period_s * 1e3, 0);
		pmu_results_free(&pmu.last);
		pmu.last = res;
	}
	if (delta)
		record_vmap_metrics(r, delta);
	return 0;
}

static void print_results_json(FILE *out, const struct pmu_results *res)
{
	fprintf(out, "{\"pmu\":{\"period_s\":%.6f,\"busy_s\":%.6f,\"cpus\":\"%s\",\"events\":[",
		res->period_s, res->busy_ns / 1e9, res->cpus);
	for (int i = 0; i < res->nr; i++) {
		const struct pmu_result *r = &res->r[i];

		fprintf(out, "%s{\"name\":\"%s\",\"pmu\":\"%s\",\"counted\":%s,"
			"\"value\":%.0f,\"raw\":%llu,\"scaled\":%s,\"running_pct\":%.2f,"
			"\"zero_busy\":%s,\"partial\":%s,\"per_cpu\":[",
			i ? "," : "", r->name, r->pmu, r->counted ? "true" : "false",
			r->value, (unsigned long long)r->raw, r->scaled ? "true" : "false",
			r->running_pct, r->zero_busy ? "true" : "false",
			r->partial ? "true" : "false");
		for (int c = 0; c < r->nr_cpus; c++)
			fprintf(out, "%s{\"cpu\":%d,\"value\":%.0f}", c ? "," : "",
				r->cpu[c].cpu, r->cpu[c].scaled);
		fprintf(out, "],\"note\":\"");
		for (const char *p = r->note; *p; p++)
			fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
		fprintf(out, "\"}");
	}
	fprintf(out, "]}}\n");
}

int pmu_cli_interval(const struct vmapstat_run *run,
		     const struct vmapstat_snapshot *cum,
		     const struct vmapstat_snapshot *delta)
{
	FILE *out = vmapstat_report_stream();
	struct pmu_results res;

	/* command mode reports at the end, over the runs */
	if (run->command || !pmu.session)
		return 0;
	if (pmu_session_sample(pmu.session, &res))
		return -1;
	prom_pmu_results(&res);
	if (run->json)
		print_results_json(out, &res);
	else
		pmu_results_print(out, &res, pmu.per_cpu);
	pmu_results_free(&res);
	fflush(out);
	return 0;
}

int pmu_cli_end(const struct vmapstat_run *run,
		const struct vmapstat_snapshot *cum)
{
	FILE *out = vmapstat_report_stream();
	int failed = 0, ret = 0;

	if (!pmu.active)
		return 0;
	if (run->command) {
		if (pmu.last.r)
			prom_pmu_results(&pmu.last);
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
	pmu_results_free(&pmu.last);
	pmu_runs_free(&pmu.runs);
	return ret;
}

/* ------------------------------------------------------------------ */
/* vmapstat compare                                                    */

static struct {
	bool json;
	const char *files[2];
	int nr;
	char err[256];
} cmp;

static const struct argp_option cmp_options[] = {
	{ "json", 'j', NULL, 0, "Print the comparison as one JSON object", 0 },
	{ 0 },
};

static error_t cmp_parse(int key, char *arg, struct argp_state *st)
{
	switch (key) {
	case 'j':
		cmp.json = true;
		break;
	case ARGP_KEY_ARG:
		if (cmp.nr == 2) {
			snprintf(cmp.err, sizeof(cmp.err), "too many files (want BEFORE.json AFTER.json)");
			return EINVAL;
		}
		cmp.files[cmp.nr++] = arg;
		break;
	case ARGP_KEY_END:
		if (cmp.nr != 2 && !cmp.err[0])
			snprintf(cmp.err, sizeof(cmp.err), "want BEFORE.json AFTER.json");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int vmapstat_compare_main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = cmp_options,
		.parser = cmp_parse,
		.args_doc = "BEFORE.json AFTER.json",
		.doc = "Compare two runs saved with vmapstat --pmu ... [--repeat N] -j "
		       "-- COMMAND (e.g. stock vs patched kernel): metric, runs, "
		       "averages, percent change.",
	};
	struct pmu_runs runs[2];	/* before, after */
	char err[512];
	int ret;

	memset(&cmp, 0, sizeof(cmp));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "-?")) {
			argp_help(&argp, stdout, ARGP_HELP_STD_HELP, "vmapstat compare");
			return 0;
		}
	}
	/* errors are ours to print: one line, exit 2 */
	ret = argp_parse(&argp, argc, argv,
			 ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL);
	if (ret || cmp.nr != 2) {
		fprintf(stderr, "vmapstat compare: %s (see vmapstat compare --help)\n",
			cmp.err[0] ? cmp.err : "invalid arguments");
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		if (pmu_runs_read_json(cmp.files[i], &runs[i], err, sizeof(err))) {
			fprintf(stderr, "vmapstat compare: %s\n", err);
			if (i)
				pmu_runs_free(&runs[0]);
			return 2;
		}
	}
	if (cmp.json)
		pmu_runs_compare_json(stdout, &runs[0], &runs[1]);
	else
		pmu_runs_compare_print(stdout, &runs[0], &runs[1]);
	pmu_runs_free(&runs[0]);
	pmu_runs_free(&runs[1]);
	return 0;
}
