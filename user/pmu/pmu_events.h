/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PMU event names -> struct perf_event_attr, resolved the way perf(1) does:
 *
 *   pmu/term=val,.../[:mods]   explicit PMU with format terms or event aliases
 *   rNNN                       raw hex config on the core PMU (PERF_TYPE_RAW)
 *   name                       an alias in some PMU's sysfs events/ directory
 *                              (every PMU that has it: big.LITTLE gives one
 *                              instance per core PMU), else a name libpfm4
 *                              knows: perf's generic hardware, software and
 *                              cache names, and this CPU's own events
 *                              (dtlb_load_misses.walk_completed on Intel)
 *   dtlb_walk & co.            the Arm common TLB events, on Arm CPUs that
 *                              libpfm4 has no table for (QEMU's -cpu max)
 *   name:u / :k / :h / :uk     exclude_* bits exactly as perf sets them
 *   sys:name[:mods]            a tracepoint (tracefs events/sys/name/id)
 *
 * The sysfs root is a parameter so that tests can point it at fixture trees.
 */
#ifndef VMAPSCOPE_PMU_EVENTS_H
#define VMAPSCOPE_PMU_EVENTS_H

#include <stddef.h>
#include <linux/perf_event.h>

#define PMU_SYSFS_ROOT		"/sys/bus/event_source/devices"
#define PMU_NAME_LEN		64
#define PMU_DESC_LEN		128
#define PMU_CPUS_LEN		256
/* One user event can expand into this many PMU instances (one per core PMU). */
#define PMU_MAX_INSTANCES	8

struct pmu_event {
	char name[PMU_NAME_LEN];	/* as the user wrote it, PMU-qualified
					   when one name expanded to several PMUs */
	char pmu[PMU_NAME_LEN];		/* sysfs PMU name; for generic
					   hardware/cache and raw events the
					   core PMU they land on ("cpu",
					   "armv8_pmuv3", or "no core PMU");
					   "software" for software events */
	char desc[PMU_DESC_LEN];	/* how it resolved, for messages */
	char cpus[PMU_CPUS_LEN];	/* the PMU's cpus/cpumask list; "" = all */
	struct perf_event_attr attr;
};

/*
 * Resolve one event spec into up to @max instances.  Returns the number of
 * instances (>= 1), or -1 with one line (no newline) in @err.
 */
int pmu_event_resolve(const char *sysfs_root, const char *spec,
		      struct pmu_event *out, int max, char *err, size_t errlen);

/*
 * Resolve a comma-separated list (commas inside pmu/.../ belong to the
 * terms).  On success *events is a malloc'ed array of *nr instances.
 */
int pmu_event_list_resolve(const char *sysfs_root, const char *list,
			   struct pmu_event **events, int *nr,
			   char *err, size_t errlen);

/*
 * Put @value into the bits a sysfs format string such as "config:0-7,32-35"
 * or "config1:3" describes, low value bits into low format bits (as perf
 * does).  Returns 0, or -1 with @err set (malformed format, value too big).
 */
int pmu_format_apply(const char *format, unsigned long long value,
		     struct perf_event_attr *attr, char *err, size_t errlen);

/*
 * tracefs root for "sys:name" tracepoint events; NULL (default) tries
 * /sys/kernel/tracing, then /sys/kernel/debug/tracing.  Tests point it at
 * a fixture tree.
 */
extern const char *pmu_tracefs_root;

/* Read a small sysfs/procfs text file, trailing whitespace removed: 0 or -errno. */
int read_small_file(const char *path, char *buf, size_t len);

#endif /* VMAPSCOPE_PMU_EVENTS_H */
