// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat --snapshot: command-line side of the snapshot.
 *
 * snapshot_group is one of vmapstat's option groups (vmapstat_groups.h): --snapshot
 * and its input overrides, a mode of its own that replaces tracing.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmapstat_groups.h"
#include "snapshot.h"
#include "parse.h"
#include "select_opts.h"

enum {
	OPT_SNAPSHOT = 0x5300,
	OPT_VMALLOCINFO,
	OPT_KALLSYMS,
	OPT_STEPS,
	OPT_AREAS,
};

static struct {
	bool requested;
	const char *vmallocinfo;
	const char *kallsyms;
	unsigned long steps;
	bool areas;
} cli;

static const struct argp_option snapshot_options[] = {
	{ "snapshot", OPT_SNAPSHOT, NULL, 0,
	  "Audit live mappings instead of tracing: walk the page tables of every area in "
	  "/proc/vmallocinfo and report bytes per granule, per API (-p: per caller)", 0 },
	{ "vmallocinfo", OPT_VMALLOCINFO, "FILE", OPTION_HIDDEN,
	  "Read the area list from FILE (testing)", 0 },
	{ "kallsyms", OPT_KALLSYMS, "FILE", OPTION_HIDDEN,
	  "Read kernel symbols from FILE (testing)", 0 },
	{ "snapshot-steps", OPT_STEPS, "N", OPTION_HIDDEN,
	  "Page-table steps per BPF program run (default 4096)", 0 },
	{ "snapshot-areas", OPT_AREAS, NULL, OPTION_HIDDEN,
	  "With -j: also list every area with its own result (testing)", 0 },
	{ 0 },
};

static error_t snapshot_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_SNAPSHOT:
		cli.requested = true;
		break;
	case OPT_VMALLOCINFO:
		cli.vmallocinfo = arg;
		break;
	case OPT_KALLSYMS:
		cli.kallsyms = arg;
		break;
	case OPT_AREAS:
		cli.areas = true;
		break;
	case OPT_STEPS:
		if (parse_ulong(arg, 1000000, &cli.steps) || !cli.steps)
			argp_error(state, "invalid --snapshot-steps '%s' (1..1000000)", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp snapshot_argp = {
	.options = snapshot_options,
	.parser = snapshot_parse,
};

static bool snapshot_requested(void)
{
	return cli.requested;
}

static int snapshot_main(const struct select_opts *sel, bool json, bool per_caller)
{
	struct snapshot_opts o = {
		.vmallocinfo = cli.vmallocinfo,
		.kallsyms = cli.kallsyms,
		.caller_filter = sel->col.caller_filter,
		.api_mask = sel->col.api_mask,
		.steps_per_run = cli.steps,
		.keep_areas = cli.areas,
		.verbose = sel->col.verbose,
	};
	struct snapshot s;
	char err[1024];
	int ret;

	ret = snapshot_take(&o, &s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vmapstat: --snapshot: %s\n", err);
		return 1;
	}
	if (json)
		ret = snapshot_print_json(stdout, &s, per_caller);
	else
		snapshot_print_text(stdout, &s, per_caller);
	snapshot_free(&s);
	return ret ? 1 : 0;
}

const struct vmapstat_group snapshot_group = {
	.title = "Live mapping audit:",
	.argp = &snapshot_argp,
	.replaces_tracing = snapshot_requested,
	.main = snapshot_main,
};
