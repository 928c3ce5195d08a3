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
 * Fixture root, derived from mk/tools.mk's TEST_DATA_DIR
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
#error "build with -DTEST_DATA_DIR (mk/tools.mk)"
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

	assert_int_equal(resolve(ARM, "l1d_tlb_refill"), 1);
	assert_int_equal(ev[0].attr.config, 0x05);
	assert_int_equal(resolve(ARM, "l2d_tlb_refill"), 1);
	assert_int_equal(ev[0].attr.config, 0x2d);
	assert_int_equal(resolve(ARM, "l1d_tlb"), 1);
	assert_int_equal(ev[0].attr.config, 0x25);
	/* perf matches aliases case-insensitively */
	assert_int_equal(resolve(ARM, "DTLB_WALK"), 1);
	assert_int_equal(ev[0].attr.config, 0x34);
	/* an SPE-era event number above 0xff fits the 16-bit event field */
	assert_int_equal(resolve(ARM, "trb_wrap"), 1);
	assert_int_equal(ev[0].attr.config, 0x400c);
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

	expect_error(ARM, "dtlb_walk:z", "'z' is not a modifier");
	expect_error(ARM, "cycles:pppp", "at most 3");
}

static void test_legacy_beats_nothing_sysfs_beats_legacy(void **state)
{
	(void)state;
	/* arm64 has cpu_cycles, not "cycles": legacy hardware event */
	assert_int_equal(resolve(ARM, "cycles"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_string_equal(ev[0].pmu, "armv8_pmuv3");
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(resolve(ARM, "cpu_cycles"), 1);
	assert_int_equal(ev[0].attr.type, 8);
	assert_int_equal(ev[0].attr.config, 0x11);
	/* x86 cpu PMU has cpu-cycles: perf prefers the sysfs alias */
	assert_int_equal(resolve(X86, "cpu-cycles"), 1);
	assert_int_equal(ev[0].attr.type, 4);
	assert_int_equal(ev[0].attr.config, 0x3c);
	assert_int_equal(resolve(X86, "instructions"), 1);
	assert_int_equal(ev[0].attr.type, 4);
	assert_int_equal(ev[0].attr.config, 0xc0);
	assert_int_equal(resolve(X86, "cycles"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_string_equal(ev[0].pmu, "cpu");
	/* the host and the x86 guest have no core PMU: say so */
	assert_int_equal(resolve(BAD, "cycles"), 1);
	assert_string_equal(ev[0].pmu, "no core PMU");
	assert_int_equal(resolve(X86, "branches"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
}

static void test_software_events(void **state)
{
	(void)state;
	assert_int_equal(resolve(X86, "task-clock"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_string_equal(ev[0].pmu, "software");
	assert_int_equal(resolve(X86, "cs"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(resolve(X86, "page-faults:u"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	/* no sysfs at all: generic events still resolve */
	assert_int_equal(resolve("/nonexistent", "cpu-clock"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_SOFTWARE);
}

static void test_cache_events(void **state)
{
	(void)state;
	assert_int_equal(resolve(X86, "dTLB-load-misses"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CACHE_DTLB |
			 (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	assert_int_equal(resolve(X86, "dTLB-loads"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CACHE_DTLB);
	assert_int_equal(resolve(X86, "L1-dcache-loads"), 1);
	assert_int_equal(ev[0].attr.config, 0);
	assert_int_equal(resolve(X86, "LLC-store-misses"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CACHE_LL |
			 (PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	/* result before op, as perf also accepts */
	assert_int_equal(resolve(X86, "L1-icache-misses-prefetch"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CACHE_L1I |
			 (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	/* "Data-TLB" alias, "miss" result */
	assert_int_equal(resolve(X86, "Data-TLB-store-miss"), 1);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CACHE_DTLB |
			 (PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	/* iTLB supports only reads (perf's validity table) */
	expect_error(X86, "iTLB-store-misses", "unknown event");
	expect_error(X86, "dTLB-bogus", "unknown event");
	expect_error(X86, "dTLB-load-misses-more", "unknown event");
}

static void test_raw(void **state)
{
	(void)state;
	assert_int_equal(resolve(ARM, "r34"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev[0].attr.config, 0x34);
	assert_int_equal(resolve(X86, "r01B:u"), 1);
	assert_int_equal(ev[0].attr.config, 0x1b);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	expect_error(ARM, "r0x34", "unknown event");
	expect_error(ARM, "r12345678123456781", "out of range");
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
	/* 12-bit threshold field */
	expect_error(ARM, "armv8_pmuv3/threshold=0x1000/", "too big");
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
	expect_error(ARM, "nopmu/event=1/", "no PMU named 'nopmu'");
	expect_error(ARM, "armv8_pmuv3/umask=1/", "no format field or event 'umask'");
	expect_error(ARM, "armv8_pmuv3/event=0x34", "missing closing");
	expect_error(ARM, "armv8_pmuv3/event=foo/", "bad value 'foo'");
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

static void test_arm_presets(void **state)
{
	(void)state;
	/* QEMU's PMU does not list the TLB events: presets, raw type */
	assert_int_equal(resolve(QEMU, "dtlb_walk"), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev[0].attr.config, 0x34);
	assert_string_equal(ev[0].pmu, "armv8_pmuv3");
	assert_non_null(strstr(ev[0].desc, "not in sysfs"));
	assert_int_equal(resolve(QEMU, "l1d_tlb_refill:u"), 1);
	assert_int_equal(ev[0].attr.config, 0x05);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	assert_int_equal(resolve(QEMU, "l2d_tlb_refill"), 1);
	assert_int_equal(ev[0].attr.config, 0x2d);
	assert_int_equal(resolve(QEMU, "l1d_tlb"), 1);
	assert_int_equal(ev[0].attr.config, 0x25);
	/* what QEMU does list still comes from sysfs */
	assert_int_equal(resolve(QEMU, "cpu_cycles"), 1);
	assert_int_equal(ev[0].attr.type, 9);
	/* on x86 a raw 0x34 would be a different event: refuse */
	expect_error(X86, "dtlb_walk", "no armv8_*/armv9_* PMU");
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

static void test_unknown_and_bad_names(void **state)
{
	(void)state;
	expect_error(ARM, "nosuch_event", "nosuch_event: unknown event");
	expect_error(ARM, "", "empty event name");
	expect_error(ARM, ":u", "empty event name");
	expect_error(ARM, "cy cles", "bad character");
	expect_error("/nonexistent", "dtlb_walk", "no armv8_*/armv9_* PMU");
}

static void test_malformed_sysfs(void **state)
{
	(void)state;
	expect_error(BAD, "ev_badtype", "malformed type file 'abc'");
	expect_error(BAD, "ev_notype", "notype/type");
	expect_error(BAD, "ev_badformat", "malformed bit range");
	expect_error(BAD, "ev_badrange", "bad bit range 15-0");
	expect_error(BAD, "ev_bigbit", "bad bit range 60-70");
	expect_error(BAD, "ev_nocolon", "malformed format");
	expect_error(BAD, "ev_unknownfield", "unknown field 'config7'");
	expect_error(BAD, "ev_badvalue", "bad value '0xzz'");
	expect_error(BAD, "ev_bigvalue", "too big");
	expect_error(BAD, "ev_emptyevent", "empty event file");
	expect_error(BAD, "ev_unknownterm", "no format field or event 'foo'");
	expect_error(BAD, "ev_negvalue", "bad value '-1'");
	/* every error names the PMU and the file */
	expect_error(BAD, "ev_badvalue", "badvalue/events/ev_badvalue");
	/* the broken neighbours do not stop a good PMU */
	assert_int_equal(resolve(BAD, "ev_good"), 1);
	assert_int_equal(ev[0].attr.type, 30);
	assert_int_equal(ev[0].attr.config, 0x42);
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
		cmocka_unit_test(test_arm_sysfs_alias),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_legacy_beats_nothing_sysfs_beats_legacy),
		cmocka_unit_test(test_software_events),
		cmocka_unit_test(test_cache_events),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_explicit_pmu_terms),
		cmocka_unit_test(test_alias_terms_with_config1),
		cmocka_unit_test(test_arm_presets),
		cmocka_unit_test(test_big_little),
		cmocka_unit_test(test_unknown_and_bad_names),
		cmocka_unit_test(test_malformed_sysfs),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_format_apply_split_fields),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests_name("pmu_events", tests, NULL, NULL);
}
