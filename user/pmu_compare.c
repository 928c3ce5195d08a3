// SPDX-License-Identifier: GPL-2.0
/*
 * "vmapstat compare BEFORE.json AFTER.json": two runs saved with
 * vmapstat --pmu ... [--repeat N] -j -- COMMAND (for example on the stock
 * and the patched kernel), side by side: metric, runs, averages, percent
 * change.  It reads files and needs no collector, so vmapstat hands it
 * the command line before any tracing option is parsed.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "printable.h"
#include "pmu_compare.h"
#include "pmu_runs.h"

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
	char err[512], safe[2048];
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
	/* messages quote arguments and file contents: made printable (printable.h) */
	if (ret || cmp.nr != 2) {
		fprintf(stderr, "vmapstat compare: %s (see vmapstat compare --help)\n",
			printable(cmp.err[0] ? cmp.err : "invalid arguments", safe, sizeof(safe)));
		return EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		/* a missing or malformed file: this run failed, the command line is fine */
		if (pmu_runs_read_json(cmp.files[i], &runs[i], err, sizeof(err))) {
			fprintf(stderr, "vmapstat compare: %s\n", printable(err, safe, sizeof(safe)));
			if (i)
				pmu_runs_free(&runs[0]);
			return EXIT_RUNTIME;
		}
	}
	/* nothing to compare is a failed comparison, not an empty table */
	for (int i = 0; i < 2; i++) {
		if (!runs[i].nr_metrics) {
			fprintf(stderr, "vmapstat compare: %s: no metrics in its pmu_runs "
				"(was it written with --pmu EVENTS?)\n",
				printable(cmp.files[i], safe, sizeof(safe)));
			pmu_runs_free(&runs[0]);
			pmu_runs_free(&runs[1]);
			return EXIT_RUNTIME;
		}
	}
	if (cmp.json)
		ret = pmu_runs_compare_json(stdout, &runs[0], &runs[1]);
	else
		pmu_runs_compare_print(stdout, &runs[0], &runs[1]);
	pmu_runs_free(&runs[0]);
	pmu_runs_free(&runs[1]);
	/* a failed write to stdout is vmapstat's to report, at exit */
	if (ret) {
		fprintf(stderr, "vmapstat compare: out of memory\n");
		return EXIT_RUNTIME;
	}
	return 0;
}
