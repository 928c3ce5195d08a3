// SPDX-License-Identifier: GPL-2.0
/* CPU lists: parse, format, read from sysfs, check (pmu_cpus.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmu_cpus.h"
#include "pmu_events.h"

static int parse_cpu(const char **p, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno || *v >= PMU_MAX_CPUS)
		return -1;
	*p = end;
	return 0;
}

int cpulist_parse(const char *list, cpu_set_t *out, char *err, size_t errlen)
{
	const char *p = list;

	CPU_ZERO(out);
	if (!list || !*list) {
		snprintf(err, errlen, "empty CPU list");
		return -1;
	}
	for (;;) {
		long lo, hi;

		if (parse_cpu(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi))
				goto bad;
			if (hi < lo) {
				snprintf(err, errlen, "bad CPU range %ld-%ld in '%s'",
					 lo, hi, list);
				return -1;
			}
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET(c, out);
		if (*p == '\0' || *p == '\n')
			return 0;
		if (*p != ',') {
			snprintf(err, errlen, "bad CPU list '%s' (want e.g. 0-3,5)", list);
			return -1;
		}
		p++;
	}
bad:
	snprintf(err, errlen, "bad CPU list '%s' (want e.g. 0-3,5; CPUs < %d)",
		 list, PMU_MAX_CPUS);
	return -1;
}

void cpulist_format(const cpu_set_t *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < PMU_MAX_CPUS; c++) {
		int start = c;

		if (!CPU_ISSET(c, s))
			continue;
		while (c + 1 < PMU_MAX_CPUS && CPU_ISSET(c + 1, s))
			c++;
		if (off < len)
			off += snprintf(buf + off, len - off, c > start ? "%s%d-%d" : "%s%d",
					off ? "," : "", start, c);
	}
	if (off >= len && len > 4)
		strcpy(buf + len - 4, "...");
}

int cpulist_read(const char *root, const char *name, cpu_set_t *s)
{
	char path[512], buf[1024];

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", root ? root : "", name);
	if (read_small_file(path, buf, sizeof(buf)))
		return -1;
	return cpulist_parse(buf, s, NULL, 0);
}

/* Every CPU of @want is possible: 0, or -1 naming the first that is not. */
static int cpus_exist(const cpu_set_t *want, const cpu_set_t *possible,
		      char *err, size_t errlen)
{
	char have[128];

	for (int c = 0; c < PMU_MAX_CPUS; c++) {
		if (CPU_ISSET(c, want) && !CPU_ISSET(c, possible)) {
			cpulist_format(possible, have, sizeof(have));
			snprintf(err, errlen, "CPU %d does not exist (CPUs: %s)", c, have);
			return -1;
		}
	}
	return 0;
}

int pmu_cpulist_check(const char *list, const char *sys_root, char *err,
		      size_t errlen)
{
	cpu_set_t want, possible;

	if (cpulist_parse(list, &want, err, errlen))
		return -1;
	/* possible CPUs unknown: perf_event_open will tell */
	if (cpulist_read(sys_root, "possible", &possible))
		return 0;
	return cpus_exist(&want, &possible, err, errlen);
}

int pmu_cpus_select(const char *list, const char *sys_root, cpu_set_t *selected,
		    cpu_set_t *online, char *err, size_t errlen)
{
	cpu_set_t possible;

	if (cpulist_read(sys_root, "online", online)) {
		CPU_ZERO(online);
		for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); c++)
			CPU_SET(c, online);
	}
	*selected = *online;
	if (!list)
		return 0;
	if (cpulist_read(sys_root, "possible", &possible))
		possible = *online;
	if (cpulist_parse(list, selected, err, errlen) ||
	    cpus_exist(selected, &possible, err, errlen))
		return -1;
	return 0;
}
