// SPDX-License-Identifier: GPL-2.0
/*
 * --pmu EVENTS and --pmu-sample EVENT: the event list through
 * pmu_event_list_resolve() against the sysfs and tracefs fixture trees
 * (tests/fixtures/pmu), and sysfs format strings ("config:0-7,32-35")
 * through pmu_format_apply().  The first byte picks the tree, or the
 * format parser; the rest is the string.
 */
#include "fuzz.h"
#include "pmu_events.h"

#ifndef FUZZ_FIXTURES
#error "build with -DFUZZ_FIXTURES='\"<repo>/tests/fixtures\"'"
#endif

static const char *const trees[] = {
	"pmu/x86", "pmu/arm64", "pmu/arm64-biglittle", "pmu/arm64-qemu", "pmu/malformed",
};
#define NR_TREES (sizeof(trees) / sizeof(trees[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[512], err[512], *s;
	struct pmu_event *evs;
	int nr;

	if (!size)
		return 0;
	pmu_tracefs_root = FUZZ_FIXTURES "/pmu/tracefs";
	s = fuzz_str(data + 1, size - 1);
	if (data[0] % (NR_TREES + 1) == NR_TREES) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		pmu_format_apply(s, 0x5a, &attr, err, sizeof(err));
		pmu_format_apply(s, ~0ULL, &attr, err, sizeof(err));
	} else {
		snprintf(root, sizeof(root), "%s/%s", FUZZ_FIXTURES, trees[data[0] % (NR_TREES + 1)]);
		if (!pmu_event_list_resolve(root, s, &evs, &nr, err, sizeof(err)))
			free(evs);
	}
	free(s);
	return 0;
}
