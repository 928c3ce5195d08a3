// SPDX-License-Identifier: GPL-2.0
/* The event-selection options every front end shares (select_opts.h). */
#include <limits.h>
#include <string.h>

#include "parse.h"
#include "select_opts.h"
#include "vocab.h"

enum {
	OPT_API = 0x400,
	OPT_PID,
	OPT_MAX_CALLERS,
	OPT_LATENCY_ALL,
	OPT_NO_LATENCY,
	OPT_CALL_LATENCY,
	OPT_RUNS,
	OPT_AREAS,
	OPT_STACK_CALLERS,
	OPT_BY,
	/* an opt-in feature's option: OPT_FEATURE + enum vmapscope_feature */
	OPT_FEATURE = 0x500,
};

#define MAX_CALLERS_MIN	16
#define MAX_CALLERS_MAX	(1UL << 20)

static const struct argp_option select_options[] = {
	{ "caller", 'c', "PATTERN", 0, "Only callers whose symbol contains PATTERN "
	  "(case-sensitive)", 0 },
	{ "api", OPT_API, "LIST", 0, "Only these APIs: " API_LIST_NAMES
	  " (only their entry-point probes are attached)", 0 },
	{ "pid", OPT_PID, "PID", 0, "Only mappings made by this process", 0 },
	{ "no-latency", OPT_NO_LATENCY, NULL, 0, "No latency at all: neither the mapping time of "
	  "vmalloc:vmap_mapped nor --call-latency", 0 },
	{ "call-latency", OPT_CALL_LATENCY, NULL, 0, "Also time whole calls (vmalloc with its page "
	  "allocation, ioremap, ...) with entry-point probes: two probe hits more per call; the "
	  "default latency is the mapping time the series' vmap_mapped reports", 0 },
	{ "latency-all", OPT_LATENCY_ALL, NULL, 0, "With --call-latency (implied), also time "
	  "vmap/vm_map_ram/vmap_pfn (and x86 ioremap): the kernel then records the probe as their "
	  "areas' caller", 0 },
	{ "runs", OPT_RUNS, NULL, 0, "Also count runs per granule (the series' vmap_set_ptes and "
	  "vmap_huge_block, one event per run)", 0 },
	{ "areas", OPT_AREAS, NULL, 0, "Also count the virtual areas allocated, lazy frees and "
	  "purges (on a kernel without the series the areas are the rows anyway)", 0 },
#define FEAT_PLAIN(id, name)
#define FEAT_OPTION(id, name, option, help, ...)				\
	{ option, OPT_FEATURE + VMAPSCOPE_FEAT_##id, NULL, 0, help, 0 },
	VMAPSCOPE_FEATURES(FEAT_PLAIN, FEAT_OPTION)
#undef FEAT_PLAIN
#undef FEAT_OPTION
	{ "stack-callers", OPT_STACK_CALLERS, NULL, 0, "Name the callers of areas by kernel stack "
	  "(first frame outside the vmalloc/vmap/ioremap functions), as on kernels where nothing else "
	  "names them", 0 },
	{ "max-callers", OPT_MAX_CALLERS, "N", 0, "Size of the (caller, api) map (default 2048)", 0 },
	{ "by", OPT_BY, "LABEL", 0, "Split each caller's rows by the cgroup (v2 path) or the "
	  "command name (comm) of the task that mapped: LABEL is cgroup or comm (one more helper "
	  "call per event, one map entry per caller, API and label)", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose libbpf and attach output", 0 },
	{ 0 },
};

static error_t select_parse(int key, char *arg, struct argp_state *state)
{
	static struct select_opts scratch;
	struct select_opts *sel = state->input ? state->input : &scratch;
	struct collector_opts *s = &sel->col;
	unsigned long v;

	switch (key) {
	case ARGP_KEY_INIT:
		if (!state->input)
			memset(&scratch, 0, sizeof(scratch));
		break;
	case 'c':
		if (!*arg)
			argp_error(state, "empty caller filter");
		s->caller_filter = arg;
		break;
	case OPT_API:
		if (api_parse_mask(arg, &s->api_mask))
			argp_error(state, "unknown API in '%s' (use " API_LIST_NAMES ")", arg);
		break;
	case OPT_PID:
		if (parse_ulong(arg, INT_MAX, &v) || !v)
			argp_error(state, "invalid PID '%s'", arg);
		else
			s->pid = v;
		break;
	case OPT_NO_LATENCY:
		s->no_map_latency = true;
		break;
	case OPT_LATENCY_ALL:
		s->latency_all = true;
		s->call_latency = true;
		break;
	case OPT_CALL_LATENCY:
		s->call_latency = true;
		break;
	case OPT_RUNS:
		s->runs = true;
		break;
	case OPT_AREAS:
		s->areas = true;
		break;
	case OPT_STACK_CALLERS:
		s->stack_callers = true;
		break;
	case OPT_MAX_CALLERS:
		if (parse_ulong(arg, MAX_CALLERS_MAX, &v) || v < MAX_CALLERS_MIN)
			argp_error(state, "invalid --max-callers '%s' (%d..%lu)", arg,
				   MAX_CALLERS_MIN, MAX_CALLERS_MAX);
		else
			s->max_callers = v;
		break;
	case OPT_BY:
		if (!strcmp(arg, "cgroup"))
			s->by = VMAPSCOPE_BY_CGROUP;
		else if (!strcmp(arg, "comm"))
			s->by = VMAPSCOPE_BY_COMM;
		else
			argp_error(state, "invalid --by '%s' (cgroup or comm)", arg);
		break;
	case 'v':
		s->verbose = true;
		break;
	case ARGP_KEY_END:
		/* the entry probes would name the callers the stack method is asked for */
		if ((s->no_map_latency || s->stack_callers) && s->call_latency)
			argp_error(state, "%s and %s exclude each other",
				   s->stack_callers ? "--stack-callers" : "--no-latency",
				   s->latency_all ? "--latency-all" : "--call-latency");
		break;
	default:
		if (key >= OPT_FEATURE && key < OPT_FEATURE + VMAPSCOPE_FEAT_MAX) {
			s->optin |= VMAPSCOPE_FEAT_BIT(key - OPT_FEATURE);
			break;
		}
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp select_argp = {
	.options = select_options,
	.parser = select_parse,
};
