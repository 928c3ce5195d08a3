// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat --snapshot: command-line side of the live mapping audit.
 *
 * snapshot_argp is an argp child for vmapstat (--snapshot and its input
 * overrides); vmapstat calls live_snapshot_main() after parsing when
 * live_snapshot_requested().  Built with -DSNAPSHOT_STANDALONE_MAIN this
 * file is also a small tool of its own (out/<arch>/bin/vmapsnap, see
 * mk/snapshot.mk) with vmapstat's -j/-p/-c/--api/-v options.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

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
	char *end;

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
		errno = 0;
		cli.steps = strtoul(arg, &end, 10);
		if (errno || *end || !cli.steps || cli.steps > 1000000)
			argp_error(state, "invalid --snapshot-steps '%s' (1..1000000)", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp snapshot_argp = {
	.options = snapshot_options,
	.parser = snapshot_parse,
};

bool live_snapshot_requested(void)
{
	return cli.requested;
}

int live_snapshot_main(bool json, bool per_caller, const char *caller_filter,
		       unsigned int api_mask, bool verbose)
{
	struct live_opts o = {
		.vmallocinfo = cli.vmallocinfo,
		.kallsyms = cli.kallsyms,
		.caller_filter = caller_filter,
		.api_mask = api_mask,
		.steps_per_run = cli.steps,
		.keep_areas = cli.areas,
		.verbose = verbose,
	};
	struct live_snapshot s;
	char err[1024];
	int ret;

	ret = live_snapshot_take(&o, &s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vmapstat: --snapshot: %s\n", err);
		return 1;
	}
	if (json)
		ret = live_print_json(stdout, &s, per_caller);
	else
		live_print_text(stdout, &s, per_caller);
	live_snapshot_free(&s);
	return ret ? 1 : 0;
}

#ifdef SNAPSHOT_STANDALONE_MAIN
static struct {
	bool json, per_caller, verbose;
	const char *caller;
	unsigned int api_mask;
} env;

static int parse_api_mask(const char *list, unsigned int *mask)
{
	char buf[128], *save = NULL, *w;
	int api;

	snprintf(buf, sizeof(buf), "%s", list);
	*mask = 0;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (api = 0; api < VMAPSCOPE_API_MAX; api++)
			if (!strcmp(w, live_api_name(api)))
				break;
		if (api == VMAPSCOPE_API_MAX)
			return -EINVAL;
		*mask |= 1u << api;
	}
	return *mask ? 0 : -EINVAL;
}

static const struct argp_option main_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object instead of tables", 0 },
	{ "per-caller", 'p', NULL, 0, "One row per caller and API", 0 },
	{ "caller", 'c', "CALLER", 0, "Only callers whose symbol contains CALLER", 0 },
	{ "api", 'a', "LIST", 0, "Only these APIs (vmalloc,vmap,ioremap,vm_map_ram,other)", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf output and how init_mm / the linear map were found", 0 },
	{ 0 },
};

static error_t main_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		env.json = true;
		break;
	case 'p':
		env.per_caller = true;
		break;
	case 'c':
		env.caller = arg;
		break;
	case 'a':
		if (parse_api_mask(arg, &env.api_mask))
			argp_error(state, "unknown API in '%s'", arg);
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &snapshot_argp, 0, NULL, 0 },
		{ 0 },
	};
	static const struct argp argp = {
		.options = main_options,
		.parser = main_parse,
		.doc = "vmapsnap: the live mapping audit of vmapstat --snapshot, standalone.",
		.children = children,
	};

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	return live_snapshot_main(env.json, env.per_caller, env.caller, env.api_mask,
				  env.verbose);
}
#endif
