// SPDX-License-Identifier: GPL-2.0
/* Event name resolution against the sysfs fixture trees in tests/fixtures/pmu. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmu_events.h"

/*
 * Fixture root, derived from mk/build.mk's TEST_DATA_DIR
 * ($(TOPDIR)/tests/unit/data, which need not exist).
 */
static const char *fx(const char *tree)
{
	static char buf[8][512];
	static int i;
	char *b = buf[i++ % 8];
#if defined(TEST_DATA_DIR)
	char top[400];
	char *cut;

	snprintf(top, sizeof(top), "%s", TEST_DATA_DIR);
	cut = strstr(top, "/tests/unit/data");
	if (cut)
		*cut = '\0';
	snprintf(b, sizeof(buf[0]), "%s/tests/fixtures/pmu/%s", top, tree);
#else
#error "build with -DTEST_DATA_DIR (mk/build.mk)"
#endif
	return b;
}
#define ARM	fx("arm64")
#define QEMU	fx("arm64-qemu")
#define BIGLIT	fx("arm64-biglittle")
#define X86	fx("x86")
#define BAD	fx("malformed")

static struct pmu_event ev[PMU_MAX_INSTANCES];
static char err[512];

static int resolve(const char *root, const char *spec)
{
	memset(ev, 0, sizeof(ev));
	err[0] = '\0';
	return pmu_event_resolve(root, spec, ev, PMU_MAX_INSTANCES, err,
				 sizeof(err));
}

/* Resolution must fail and the one-line error must mention @needle. */
static void expect_error(const char *root, const char *spec, const char *needle)
{
	int n = resolve(root, spec);

	if (n >= 0)
		fail_msg("%s resolved (%d instances), expected error with '%s'",
			 spec, n, needle);
	if (!strstr(err, needle))
		fail_msg("%s: error '%s' lacks '%s'", spec, err, needle);
	assert_null(strchr(err, '\n'));
}

/*
 * Names that resolve to one instance of a known type and config (and,
 * where given, PMU and description), one row each.
 */
#define ANY_TYPE	(-1)
static const struct resolves {
	const char *tree;	/* fixture tree, or an absolute path */
	const char *spec;
	long long type;		/* ANY_TYPE: not checked */
	unsigned long long config;
	const char *pmu;	/* NULL: not checked */
	const char *desc;	/* a part of it; NULL: not checked */
} resolves[] = {
	/* sysfs aliases, matched case-insensitively as perf does */
	{ "arm64", "l1d_tlb_refill", 8, 0x05, "armv8_pmuv3", NULL },
	{ "arm64", "l2d_tlb_refill", 8, 0x2d, NULL, NULL },
	{ "arm64", "l1d_tlb", 8, 0x25, NULL, NULL },
	{ "arm64", "DTLB_WALK", 8, 0x34, NULL, NULL },
	/* an SPE-era event number above 0xff fits the 16-bit event field */
	{ "arm64", "trb_wrap", 8, 0x400c, NULL, NULL },
	/* arm64 has cpu_cycles, not "cycles": legacy hardware event */
	{ "arm64", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "armv8_pmuv3", NULL },
	{ "arm64", "cpu_cycles", 8, 0x11, NULL, NULL },
	/* x86 cpu PMU has cpu-cycles: perf prefers the sysfs alias */
	{ "x86", "cpu-cycles", 4, 0x3c, NULL, NULL },
	{ "x86", "instructions", 4, 0xc0, NULL, NULL },
	{ "x86", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu", NULL },
	/* the host and the x86 guest have no core PMU: say so */
	{ "malformed", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "no core PMU", NULL },
	{ "x86", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL, NULL },
	/* software events */
	{ "x86", "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "software", NULL },
	{ "x86", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, NULL, NULL },
	/* no sysfs at all: generic events still resolve */
	{ "/nonexistent", "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, NULL, NULL },
	/* perf's cache names, encoded by libpfm4's generic table */
	{ "x86", "dTLB-load-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB |
	  (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	  "cpu", "libpfm4 perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS" },
	{ "x86", "dTLB-loads", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB, NULL, NULL },
	{ "x86", "L1-dcache-loads", PERF_TYPE_HW_CACHE, 0, NULL, NULL },
	{ "x86", "LLC-store-misses", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
	  (PERF_COUNT_HW_CACHE_OP_WRITE << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16), NULL, NULL },
	/* raw */
	{ "arm64", "r34", PERF_TYPE_RAW, 0x34, NULL, NULL },
	{ "x86", "r01B", PERF_TYPE_RAW, 0x1b, NULL, NULL },
	/*
	 * QEMU's PMU does not list the TLB events, nor does libpfm4 know
	 * its CPU: Arm common event numbers, raw type
	 */
	{ "arm64-qemu", "dtlb_walk", PERF_TYPE_RAW, 0x34, "armv8_pmuv3", "not in sysfs" },
	{ "arm64-qemu", "l2d_tlb_refill", PERF_TYPE_RAW, 0x2d, NULL, NULL },
	{ "arm64-qemu", "l1d_tlb", PERF_TYPE_RAW, 0x25, NULL, NULL },
	/* what QEMU does list still comes from sysfs */
	{ "arm64-qemu", "cpu_cycles", 9, 0x11, NULL, NULL },
	/* the broken neighbours do not stop a good PMU */
	{ "malformed", "ev_good", 30, 0x42, NULL, NULL },
};

static const char *tree_root(const char *tree)
{
	return tree[0] == '/' ? tree : fx(tree);
}

static void test_resolves(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(resolves) / sizeof(resolves[0]); i++) {
		const struct resolves *w = &resolves[i];
		int n = resolve(tree_root(w->tree), w->spec);

		if (n != 1)
			fail_msg("%s (%s): %d instances, want 1 (%s)", w->spec, w->tree, n, err);
		if (w->type != ANY_TYPE && ev[0].attr.type != w->type)
			fail_msg("%s (%s): type %u, want %lld", w->spec, w->tree,
				 ev[0].attr.type, w->type);
		if (ev[0].attr.config != w->config)
			fail_msg("%s (%s): config 0x%llx, want 0x%llx", w->spec, w->tree,
				 (unsigned long long)ev[0].attr.config, w->config);
		if (w->pmu && strcmp(ev[0].pmu, w->pmu))
			fail_msg("%s (%s): PMU '%s', want '%s'", w->spec, w->tree, ev[0].pmu, w->pmu);
		if (w->desc && !strstr(ev[0].desc, w->desc))
			fail_msg("%s (%s): description '%s' lacks '%s'", w->spec, w->tree,
				 ev[0].desc, w->desc);
	}
}

/* Names that must not resolve, with what their one-line error must say. */
static const struct fails {
	const char *tree, *spec, *needle;
} fails[] = {
	{ "arm64", "dtlb_walk:z", "'z' is not a modifier" },
	{ "arm64", "cycles:pppp", "at most 3" },
	/* iTLB supports only reads (perf's and libpfm4's validity table) */
	{ "x86", "iTLB-store-misses", "unknown event" },
	{ "x86", "dTLB-bogus", "unknown event" },
	{ "x86", "dTLB-load-misses-more", "unknown event" },
	{ "arm64", "r0x34", "unknown event" },
	{ "arm64", "r12345678123456781", "out of range" },
	/* 12-bit threshold field */
	{ "arm64", "armv8_pmuv3/threshold=0x1000/", "too big" },
	{ "arm64", "nopmu/event=1/", "no PMU named 'nopmu'" },
	{ "arm64", "armv8_pmuv3/umask=1/", "no format field or event 'umask'" },
	{ "arm64", "armv8_pmuv3/event=0x34", "missing closing" },
	{ "arm64", "armv8_pmuv3/event=foo/", "bad value 'foo'" },
	/* on x86 a raw 0x34 would be a different event: refuse */
	{ "x86", "dtlb_walk", "no armv8_*/armv9_* PMU" },
	{ "arm64", "nosuch_event", "nosuch_event: unknown event" },
	{ "arm64", "", "empty event name" },
	{ "arm64", ":u", "empty event name" },
	{ "arm64", "cy cles", "bad character" },
	{ "/nonexistent", "dtlb_walk", "no armv8_*/armv9_* PMU" },
	/* malformed sysfs: each defect named, with the PMU and the file */
	{ "malformed", "ev_badtype", "malformed type file 'abc'" },
	{ "malformed", "ev_notype", "notype/type" },
	{ "malformed", "ev_badformat", "malformed bit range" },
	{ "malformed", "ev_badrange", "bad bit range 15-0" },
	{ "malformed", "ev_bigbit", "bad bit range 60-70" },
	{ "malformed", "ev_nocolon", "malformed format" },
	{ "malformed", "ev_unknownfield", "unknown field 'config7'" },
	{ "malformed", "ev_badvalue", "bad value '0xzz'" },
	{ "malformed", "ev_bigvalue", "too big" },
	{ "malformed", "ev_emptyevent", "empty event file" },
	{ "malformed", "ev_unknownterm", "no format field or event 'foo'" },
	{ "malformed", "ev_negvalue", "bad value '-1'" },
	{ "malformed", "ev_badvalue", "badvalue/events/ev_badvalue" },
};

static void test_fails(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++)
		expect_error(tree_root(fails[i].tree), fails[i].spec, fails[i].needle);
}

static void test_arm_sysfs_alias(void **state)
{
	(void)state;
	assert_int_equal(resolve(ARM, "dtlb_walk"), 1);
	assert_int_equal(ev[0].attr.type, 8);
	assert_int_equal(ev[0].attr.config, 0x34);
	assert_string_equal(ev[0].pmu, "armv8_pmuv3");
	assert_string_equal(ev[0].cpus, "0-3");
	assert_string_equal(ev[0].name, "dtlb_walk");
	/* no modifier: nothing excluded */
	assert_int_equal(ev[0].attr.exclude_user, 0);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);
}

static void test_modifiers(void **state)
{
	(void)state;
	assert_int_equal(resolve(ARM, "dtlb_walk:u"), 1);
	assert_int_equal(ev[0].attr.exclude_user, 0);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	assert_int_equal(ev[0].attr.exclude_hv, 1);
	assert_int_equal(ev[0].attr.exclude_guest, 1);
	assert_string_equal(ev[0].name, "dtlb_walk:u");

	assert_int_equal(resolve(ARM, "l1d_tlb:k"), 1);
	assert_int_equal(ev[0].attr.exclude_user, 1);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);
	assert_int_equal(ev[0].attr.exclude_hv, 1);

	assert_int_equal(resolve(ARM, "cycles:uk"), 1);
	assert_int_equal(ev[0].attr.exclude_user, 0);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);
	assert_int_equal(ev[0].attr.exclude_hv, 1);

	assert_int_equal(resolve(X86, "cpu/event=0x3c/k"), 1);
	assert_int_equal(ev[0].attr.exclude_user, 1);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);

	assert_int_equal(resolve(X86, "cycles:pp"), 1);
	assert_int_equal(ev[0].attr.precise_ip, 2);
}

static void test_software_modifier(void **state)
{
	(void)state;
	assert_int_equal(resolve(X86, "page-faults:u"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
}

static void test_raw_modifier(void **state)
{
	(void)state;
	assert_int_equal(resolve(X86, "r01B:u"), 1);
	assert_int_equal(ev[0].attr.config, 0x1b);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
}

static void test_explicit_pmu_terms(void **state)
{
	(void)state;
	assert_int_equal(resolve(ARM, "armv8_pmuv3/event=0x34/"), 1);
	assert_int_equal(ev[0].attr.type, 8);
	assert_int_equal(ev[0].attr.config, 0x34);
	/* bare term = 1; config1 field */
	assert_int_equal(resolve(ARM, "armv8_pmuv3/event=0x5,long/u"), 1);
	assert_int_equal(ev[0].attr.config, 0x5);
	assert_int_equal(ev[0].attr.config1, 1);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	assert_int_equal(resolve(ARM, "armv8_pmuv3/dtlb_walk,threshold=5/"), 1);
	assert_int_equal(ev[0].attr.config, 0x34);
	assert_int_equal(ev[0].attr.config1, 5 << 5);
	assert_int_equal(resolve(X86, "cpu/event=0x3c,umask=1,cmask=2,inv/"), 1);
	assert_int_equal(ev[0].attr.config, 0x3c | (1 << 8) | (2u << 24) | (1 << 23));
	assert_int_equal(resolve(X86, "cpu/config=0x1234,config1=7/"), 1);
	assert_int_equal(ev[0].attr.config, 0x1234);
	assert_int_equal(ev[0].attr.config1, 7);
	/* SPE as in Arm's perf record command line: config, config2, period */
	assert_int_equal(resolve(ARM, "arm_spe_0/ts_enable=1,pa_enable=1,period=64,min_latency=0/"), 1);
	assert_int_equal(ev[0].attr.type, 10);
	assert_int_equal(ev[0].attr.config, 3);
	assert_int_equal(ev[0].attr.sample_period, 64);
	assert_string_equal(ev[0].cpus, "0-3");
}

static void test_alias_terms_with_config1(void **state)
{
	(void)state;
	assert_int_equal(resolve(X86, "mem-loads"), 1);
	assert_int_equal(ev[0].attr.config, 0xcd | (1 << 8));
	assert_int_equal(ev[0].attr.config1, 3);
	assert_int_equal(resolve(X86, "topdown-total-slots"), 1);
	assert_int_equal(ev[0].attr.config, 0x3c | (1 << 21));
}

static void test_arm_common_event_modifier(void **state)
{
	(void)state;
	/* the raw Arm common events take perf's modifiers too */
	assert_int_equal(resolve(QEMU, "l1d_tlb_refill:u"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev[0].attr.config, 0x05);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
}

static void test_big_little(void **state)
{
	(void)state;
	assert_int_equal(resolve(BIGLIT, "dtlb_walk:u"), 2);
	assert_int_equal(ev[0].attr.type, 8);
	assert_int_equal(ev[1].attr.type, 9);
	assert_string_equal(ev[0].cpus, "0-3");
	assert_string_equal(ev[1].cpus, "4-5");
	assert_string_equal(ev[0].name, "armv8_cortex_a53/dtlb_walk:u");
	assert_string_equal(ev[1].name, "armv8_cortex_a72/dtlb_walk:u");
	assert_int_equal(ev[1].attr.exclude_kernel, 1);
	/* the A72 lacks it in sysfs: only the A53 instance */
	assert_int_equal(resolve(BIGLIT, "l2d_tlb_refill"), 1);
	assert_string_equal(ev[0].pmu, "armv8_cortex_a53");
}

static void test_tracepoints(void **state)
{
	(void)state;
	pmu_tracefs_root = fx("tracefs");
	assert_int_equal(resolve(ARM, "vmalloc:alloc_vmap_area"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(ev[0].attr.config, 569);
	assert_string_equal(ev[0].pmu, "tracepoint");
	assert_string_equal(ev[0].name, "vmalloc:alloc_vmap_area");
	assert_int_equal(resolve(ARM, "vmalloc:vmap_chunk:k"), 1);
	assert_int_equal(ev[0].attr.config, 1234);
	assert_int_equal(ev[0].attr.exclude_user, 1);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);
	/* a modifier is still a modifier */
	assert_int_equal(resolve(ARM, "dtlb_walk:u"), 1);
	assert_int_equal(ev[0].attr.config, 0x34);
	expect_error(ARM, "vmalloc:nosuch", "no tracepoint vmalloc:nosuch in");
	expect_error(ARM, "bad:notnum", "malformed tracepoint id 'xx'");
	pmu_tracefs_root = NULL;
}

static void test_format_apply_split_fields(void **state)
{
	struct perf_event_attr a;

	(void)state;
	memset(&a, 0, sizeof(a));
	/* low value bits fill the first range, the rest the second */
	assert_int_equal(pmu_format_apply("config:0-3,8-11", 0xab, &a, err,
					  sizeof(err)), 0);
	assert_int_equal(a.config, 0xa0b);
	assert_int_equal(pmu_format_apply("config2:63", 1, &a, err, sizeof(err)), 0);
	assert_true(a.config2 == 1ULL << 63);
	assert_int_equal(pmu_format_apply("config1:0-63", ~0ULL, &a, err,
					  sizeof(err)), 0);
	assert_true(a.config1 == ~0ULL);
	assert_int_equal(pmu_format_apply("config:0-3,8-11", 0x100, &a, err,
					  sizeof(err)), -1);
	assert_non_null(strstr(err, "too big"));
	/* writing 0 clears the field's bits */
	assert_int_equal(pmu_format_apply("config:0-3,8-11", 0, &a, err,
					  sizeof(err)), 0);
	assert_int_equal(a.config, 0);
	assert_int_equal(pmu_format_apply("config:", 1, &a, err, sizeof(err)), -1);
}

static void test_list(void **state)
{
	struct pmu_event *evs;
	int nr;

	(void)state;
	assert_int_equal(pmu_event_list_resolve(ARM,
		"dtlb_walk:u,armv8_pmuv3/event=0x5,long/,cycles,l2d_tlb_refill:k",
		&evs, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 4);
	assert_string_equal(evs[0].name, "dtlb_walk:u");
	assert_int_equal(evs[1].attr.config, 5);
	assert_int_equal(evs[1].attr.config1, 1);
	assert_string_equal(evs[1].name, "armv8_pmuv3/event=0x5,long/");
	assert_int_equal(evs[2].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(evs[3].attr.config, 0x2d);
	free(evs);

	assert_int_equal(pmu_event_list_resolve(BIGLIT, "cycles,dtlb_walk", &evs,
						&nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 3);
	free(evs);

	assert_int_equal(pmu_event_list_resolve(ARM, "dtlb_walk,,cycles", &evs,
						&nr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty event name"));
	assert_null(evs);
	assert_int_equal(pmu_event_list_resolve(ARM, "cycles,armv8_pmuv3/event=1",
						&evs, &nr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing closing"));
	assert_int_equal(pmu_event_list_resolve(ARM, "cycles,bogus", &evs, &nr,
						err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus: unknown event"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolves),
		cmocka_unit_test(test_fails),
		cmocka_unit_test(test_arm_sysfs_alias),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_software_modifier),
		cmocka_unit_test(test_raw_modifier),
		cmocka_unit_test(test_explicit_pmu_terms),
		cmocka_unit_test(test_alias_terms_with_config1),
		cmocka_unit_test(test_arm_common_event_modifier),
		cmocka_unit_test(test_big_little),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_format_apply_split_fields),
		cmocka_unit_test(test_list),
	};

	/* libpfm4's generic table only: on a host whose CPU libpfm4 knows
	 * (an arm64 Neoverse, say) its own table would name the Arm common
	 * events before the fallback these tests check. */
	setenv("LIBPFM_FORCE_PMU", "perf", 1);
	return cmocka_run_group_tests_name("pmu_events", tests, NULL, NULL);
}
