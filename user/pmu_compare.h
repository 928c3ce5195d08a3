/* SPDX-License-Identifier: GPL-2.0 */
/* "vmapstat compare BEFORE.json AFTER.json" (pmu_compare.c). */
#ifndef VMAPSCOPE_PMU_COMPARE_H
#define VMAPSCOPE_PMU_COMPARE_H

/* argv[0] is "compare"; the exit status (cli.h). */
int vmapstat_compare_main(int argc, char **argv);

#endif /* VMAPSCOPE_PMU_COMPARE_H */
