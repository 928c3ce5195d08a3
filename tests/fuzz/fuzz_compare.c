// SPDX-License-Identifier: GPL-2.0
/*
 * "vmapstat compare BEFORE.json AFTER.json": a file saved with --repeat
 * and -j, through pmu_runs_read_json(), then every report made from it
 * (the per-run table, failed runs, the comparison as table and JSON).
 * The input is the BEFORE file; AFTER is the same runs with every value
 * doubled and the first metric dropped, so the comparison has rows on
 * one side only.
 */
#include "fuzz.h"
#include "pmu_runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_runs before, after;
	char path[64], err[512];
	FILE *out = fuzz_devnull();
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (pmu_runs_read_json(path, &before, err, sizeof(err))) {
		close(fd);
		return 0;
	}
	close(fd);
	pmu_runs_print(out, &before);
	pmu_runs_print_status(out, &before);
	pmu_runs_write_json(out, &before);

	pmu_runs_init(&after, before.command, "after");
	for (int r = 0; r < before.nr_runs; r++)
		pmu_runs_add_run(&after, before.status[r]);
	for (int i = 1; i < before.nr_metrics; i++) {
		const struct pmu_metric *m = &before.m[i];

		for (int r = 0; r < before.nr_runs; r++)
			if (!(m->flags[r] & PMU_VAL_MISSING))
				pmu_runs_set(&after, r, m->name, m->unit, m->values[r] * 2,
					     m->flags[r]);
	}
	pmu_runs_compare_print(out, &before, &after);
	pmu_runs_compare_json(out, &before, &after);
	pmu_runs_compare_print(out, &after, &before);
	pmu_runs_free(&after);
	pmu_runs_free(&before);
	return 0;
}
