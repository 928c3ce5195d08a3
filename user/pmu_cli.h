/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat -j in interval mode: one JSON object per interval, the PMU
 * counts inside vmapstat's own object rather than a {"pmu": ...} object
 * of their own before it.  vmapstat opts in once, before the first
 * interval, with pmu_cli_json_merge(); pmu_cli_interval() then keeps the
 * interval's counts and pmu_cli_interval_json() adds them to the
 * interval's object as "pmu" (the same fields as the object of its own).
 * Without the opt-in (or with --prometheus on stdout, where vmapstat
 * prints no object) pmu_cli_interval() prints its own object as before.
 */
#ifndef VMAPSCOPE_PMU_CLI_H
#define VMAPSCOPE_PMU_CLI_H

#include <json-c/json.h>

#include "hooks.h"

void pmu_cli_json_merge(void);
/*
 * Add the counts pmu_cli_interval() kept to @o as "pmu"; nothing when it
 * kept none (no --pmu, command mode).  0, or -1 (out of memory).
 */
int pmu_cli_interval_json(const struct vmapstat_run *run, struct json_object *o);

#endif /* VMAPSCOPE_PMU_CLI_H */
