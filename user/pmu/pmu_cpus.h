/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists as perf and sysfs write them ("0-3,5"): --pmu -C and the
 * PMUs' own "cpus" files parsed into glibc's cpu_set_t, sets written back
 * for messages, and the possible / online CPUs read from
 * <sys_root>/sys/devices/system/cpu/ (injectable for the unit tests).
 */
#ifndef VMAPSCOPE_PMU_CPUS_H
#define VMAPSCOPE_PMU_CPUS_H

#include <sched.h>
#include <stddef.h>

/* CPU sets are glibc's cpu_set_t (CPU_SET, CPU_ISSET, CPU_COUNT, ...). */
#define PMU_MAX_CPUS	CPU_SETSIZE

/* "0-3,5" → set.  Returns 0, or -1 with one line in @err. */
int cpulist_parse(const char *list, cpu_set_t *out, char *err, size_t errlen);
/* Parse and check every CPU exists (<sys_root>/sys/devices/system/cpu/possible). */
int pmu_cpulist_check(const char *list, const char *sys_root, char *err,
		      size_t errlen);
/* set → "0-3,5" (empty string for an empty set). */
void cpulist_format(const cpu_set_t *s, char *buf, size_t len);
/*
 * The CPUs to count on: @list (each must exist), else every online CPU;
 * @online gets the online ones (<sys_root>/sys/devices/system/cpu/online,
 * else the first _SC_NPROCESSORS_ONLN).  Returns 0, or -1 with @err.
 */
int pmu_cpus_select(const char *list, const char *sys_root, cpu_set_t *selected,
		    cpu_set_t *online, char *err, size_t errlen);

/* <root>/sys/devices/system/cpu/<name> ("online", "possible"): 0, or -1. */
int cpulist_read(const char *root, const char *name, cpu_set_t *s);

#endif /* VMAPSCOPE_PMU_CPUS_H */
