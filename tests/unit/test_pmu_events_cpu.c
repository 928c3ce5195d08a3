// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU's own event names come from libpfm4's table for that CPU.  The
 * table is forced (LIBPFM_FORCE_PMU, read once at libpfm4's initialization,
 * hence a binary of its own) so that the result does not depend on the CPU
 * the tests run on; forcing one table turns libpfm4's generic ones off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmu_events.h"

#if defined(__x86_64__)
#define FORCED_PMU	"skl"		/* Intel Skylake */
#define FIXTURE		"x86"
#define CORE_PMU	"cpu"
#define CPU_EVENT	"dtlb_load_misses.walk_completed"
#define CPU_CONFIG	0x0e08		/* umask 0x0e, event 0x08 */
#define CPU_DESC	"libpfm4 skl::DTLB_LOAD_MISSES:WALK_COMPLETED"
#define BAD_UMASK	"dtlb_load_misses.no_such_umask"
#elif defined(__aarch64__)
#define FORCED_PMU	"arm_n1"	/* Neoverse N1 */
#define FIXTURE		"arm64-qemu"
#define CORE_PMU	"armv8_pmuv3"
#define CPU_EVENT	"l2d_tlb"	/* not in the QEMU fixture's sysfs */
#define CPU_CONFIG	0x2f
#define CPU_DESC	"libpfm4 arm_n1::L2D_TLB"
#define BAD_UMASK	"l2d_tlb.no_such_umask"
#else
#error "no libpfm4 table chosen for this architecture"
#endif

static struct pmu_event ev[PMU_MAX_INSTANCES];
static char err[512];

static const char *fixture(void)
{
	static char buf[512];
	char *cut;

	snprintf(buf, sizeof(buf), "%s", TEST_DATA_DIR);
	cut = strstr(buf, "/tests/unit/data");
	if (cut)
		*cut = '\0';
	strncat(buf, "/tests/fixtures/pmu/" FIXTURE,
		sizeof(buf) - strlen(buf) - 1);
	return buf;
}

static int resolve(const char *spec)
{
	memset(ev, 0, sizeof(ev));
	err[0] = '\0';
	return pmu_event_resolve(fixture(), spec, ev, PMU_MAX_INSTANCES, err,
				 sizeof(err));
}

static void test_cpu_table_event(void **state)
{
	(void)state;
	assert_int_equal(resolve(CPU_EVENT), 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev[0].attr.config, CPU_CONFIG);
	assert_string_equal(ev[0].pmu, CORE_PMU);
	assert_string_equal(ev[0].desc, CPU_DESC);
	assert_int_equal(ev[0].attr.exclude_user, 0);
	assert_int_equal(ev[0].attr.exclude_kernel, 0);
}

static void test_cpu_table_event_modifiers_are_perfs(void **state)
{
	(void)state;
	assert_int_equal(resolve(CPU_EVENT ":u"), 1);
	assert_int_equal(ev[0].attr.config, CPU_CONFIG);
	assert_int_equal(ev[0].attr.exclude_user, 0);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	assert_int_equal(ev[0].attr.exclude_hv, 1);
	assert_string_equal(ev[0].name, CPU_EVENT ":u");
}

static void test_libpfm_errors_are_one_line(void **state)
{
	(void)state;
	assert_int_equal(resolve(BAD_UMASK), -1);
	assert_non_null(strstr(err, BAD_UMASK ": libpfm4: "));
	assert_null(strchr(err, '\n'));
	/* raw stays perf's rNNN: libpfm4's "r0x34" spelling is refused */
	assert_int_equal(resolve("r0x34"), -1);
	assert_non_null(strstr(err, "unknown event"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_table_event),
		cmocka_unit_test(test_cpu_table_event_modifiers_are_perfs),
		cmocka_unit_test(test_libpfm_errors_are_one_line),
	};

	setenv("LIBPFM_FORCE_PMU", FORCED_PMU, 1);
	return cmocka_run_group_tests_name("pmu_events_cpu", tests, NULL, NULL);
}
