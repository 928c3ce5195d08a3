/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-off from the PMU module (user/pmu_cli.c) to the Prometheus export:
 * the PMU hook calls prom_pmu_results() with each period's counts (the
 * same struct pmu_results it prints), and the exporter adds them to
 * vmapscope_pmu_events_total{event,pmu,cpu} and republishes.  Without any
 * Prometheus option it does nothing.
 */
#ifndef VMAPSCOPE_PROM_PMU_H
#define VMAPSCOPE_PROM_PMU_H

#include "pmu_count.h"

void prom_pmu_results(const struct pmu_results *res);

#endif /* VMAPSCOPE_PROM_PMU_H */
