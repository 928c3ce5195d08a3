// SPDX-License-Identifier: GPL-2.0
/*
 * Weak defaults for vmapstat's extension points (see hooks.h), so that
 * vmapstat links before / without the PMU and Prometheus modules.  A
 * strong definition in user/pmu_cli.c or user/prom_cli.c replaces them.
 *
 * This object is NOT part of libvmapscope.a: mk/tools.mk links it after
 * the library, so the linker first pulls pmu_cli.o / prom_cli.o out of the
 * archive for the still-undefined symbols, and only falls back to these
 * weak definitions when no such module exists.
 * (snapshot_argp / live_snapshot_*: user/snapshot_cli.c.)
 */
#include <stdio.h>
#include "hooks.h"

static const struct argp_option no_options[] = {
	{ 0 },
};

__attribute__((weak)) const struct argp pmu_argp = {
	.options = no_options,
};

__attribute__((weak)) const struct argp prom_argp = {
	.options = no_options,
};

__attribute__((weak)) const struct argp snapshot_argp = {
	.options = no_options,
};

__attribute__((weak)) bool live_snapshot_requested(void)
{
	return false;
}

__attribute__((weak)) int live_snapshot_main(bool json, bool per_caller,
					     const char *caller_filter,
					     unsigned int api_mask, bool verbose)
{
	fprintf(stderr, "vmapstat: --snapshot: not built into this binary\n");
	return 2;
}

__attribute__((weak)) int vmapstat_compare_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "vmapstat: compare: not built into this binary\n");
	return 2;
}
