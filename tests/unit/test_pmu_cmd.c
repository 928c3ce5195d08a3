// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat --pmu -- CMD on this machine (root; $VMAPSTAT, as check-unit
 * sets it): the command and its children are counted as perf stat -- CMD
 * counts them, with software events (page-faults, task-clock), not every
 * CPU; -a counts system-wide, which is more; and --pmu-sample does not
 * see vmapstat's own BPF loading.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmu_runs.h"

static const char *vmapstat;
static char dir[64], out[128], err_path[128], perf_out[128];
static char err[512];
static char tc_unit[16];	/* task-clock's unit in the last vmapstat run */

/* A fixed amount of user work: a shell loop (dash or bash). */
#define BUSY	"i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		fail_msg("'%s' failed (%d)", cmd, rc);
}

/* vmapstat -j [@opts] --pmu page-faults,task-clock -- @cmd: one run's values */
static void vmapscope_counts(const char *opts, const char *cmd, double *faults,
			    double *msec)
{
	const struct pmu_metric *pf, *tc;
	struct pmu_runs r;

	sh("%s -j %s --pmu page-faults,task-clock -- %s >%s 2>%s", vmapstat, opts, cmd,
	   out, err_path);
	if (pmu_runs_read_json(out, &r, err, sizeof(err)))
		fail_msg("%s", err);
	pf = pmu_runs_find(&r, "page-faults");
	tc = pmu_runs_find(&r, "task-clock");
	assert_non_null(pf);
	assert_non_null(tc);
	snprintf(tc_unit, sizeof(tc_unit), "%s", tc->unit);
	*faults = pf->values[0];
	*msec = tc->values[0];
	pmu_runs_free(&r);
}

/* perf stat -x, -e page-faults,task-clock -- @cmd */
static void perf_counts(const char *cmd, double *faults, double *msec)
{
	char line[256];
	FILE *f;

	*faults = *msec = -1;
	sh("perf stat -x, -o %s -e page-faults,task-clock -- %s >/dev/null 2>&1", perf_out, cmd);
	f = fopen(perf_out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, ",page-faults,"))
			*faults = strtod(line, NULL);
		else if (strstr(line, ",msec,task-clock,"))
			*msec = strtod(line, NULL);
	}
	fclose(f);
	assert_true(*faults >= 0 && *msec >= 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define RUNS	5

static double median(double v[RUNS])
{
	qsort(v, RUNS, sizeof(v[0]), cmp_double);
	return v[RUNS / 2];
}

static void test_counts_match_perf_stat(void **state)
{
	double vf[RUNS], vt[RUNS], pf[RUNS], pt[RUNS], d;
	double f_vm, f_perf, t_vm, t_perf;

	(void)state;
	if (system("perf --version >/dev/null 2>&1")) {
		printf("test_pmu_cmd: no perf here (apt-get install linux-perf): comparison skipped\n");
		skip();
	}
	/* page faults of a short command: all of them are its own */
	for (int i = 0; i < RUNS; i++) {
		vmapscope_counts("", "/bin/true", &vf[i], &d);
		perf_counts("/bin/true", &pf[i], &d);
	}
	f_vm = median(vf);
	f_perf = median(pf);
	printf("  /bin/true page-faults: vmapstat %.0f, perf stat %.0f\n", f_vm, f_perf);
	if (f_vm < f_perf * 0.85 - 5 || f_vm > f_perf * 1.15 + 5)
		fail_msg("page-faults: vmapstat %.0f, perf stat %.0f", f_vm, f_perf);
	/* perf's unit for the clock events */
	assert_string_equal(tc_unit, "msec");

	/* CPU time of a command with children (sh runs the loop) */
	for (int i = 0; i < RUNS; i++) {
		vmapscope_counts("", "sh -c '" BUSY "'", &d, &vt[i]);
		perf_counts("sh -c '" BUSY "'", &d, &pt[i]);
	}
	t_vm = median(vt);
	t_perf = median(pt);
	printf("  busy loop task-clock: vmapstat %.2f msec, perf stat %.2f msec\n", t_vm, t_perf);
	/*
	 * CPU time varies from run to run on a loaded machine (+-50 %
	 * seen); counting every CPU instead reads several times more.
	 */
	if (t_vm < t_perf * 0.5 || t_vm > t_perf * 2.0)
		fail_msg("task-clock: vmapstat %.2f msec, perf stat %.2f msec", t_vm, t_perf);
}

/* --repeat: every run counts its own command, not the runs before it */
static void test_repeat_counts_each_run(void **state)
{
	const struct pmu_metric *pf;
	double perf[RUNS], want, d;
	struct pmu_runs r;

	(void)state;
	if (system("perf --version >/dev/null 2>&1"))
		skip();
	for (int i = 0; i < RUNS; i++)
		perf_counts("/bin/true", &perf[i], &d);
	want = median(perf);
	sh("%s -j --pmu page-faults --repeat 3 -- /bin/true >%s 2>%s", vmapstat, out, err_path);
	if (pmu_runs_read_json(out, &r, err, sizeof(err)))
		fail_msg("%s", err);
	pf = pmu_runs_find(&r, "page-faults");
	assert_non_null(pf);
	assert_int_equal(r.nr_runs, 3);
	for (int i = 0; i < 3; i++) {
		printf("  --repeat run %d: %.0f page-faults (perf stat: %.0f)\n", i + 1,
		       pf->values[i], want);
		if (pf->values[i] < want * 0.85 - 5 || pf->values[i] > want * 1.15 + 5)
			fail_msg("run %d: %.0f page-faults, perf stat %.0f", i + 1,
				 pf->values[i], want);
	}
	pmu_runs_free(&r);
}

/* a grandchild's faults count too (inherit), as with perf stat */
static void test_children_counted(void **state)
{
	double one, two, d;

	(void)state;
	vmapscope_counts("", "sh -c /bin/true", &one, &d);
	vmapscope_counts("", "sh -c '/bin/true; /bin/true; /bin/true'", &two, &d);
	printf("  page-faults: sh with one /bin/true %.0f, with three %.0f\n", one, two);
	/* each /bin/true faults some 40 times */
	assert_true(two > one + 40);
}

static void test_all_cpus_counts_more(void **state)
{
	double cmd_f, sys_f, cmd_t, sys_t;

	(void)state;
	vmapscope_counts("", "/bin/true", &cmd_f, &cmd_t);
	vmapscope_counts("-a", "/bin/true", &sys_f, &sys_t);
	printf("  /bin/true: per command %.0f faults %.2f msec, -a %.0f faults %.2f msec\n",
	       cmd_f, cmd_t, sys_f, sys_t);
	assert_true(sys_f > cmd_f);
	assert_true(sys_t > cmd_t);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Setting up the sampler after the collector attached must not map
 * anything the collector then reports (libbpf's feature probes load BPF
 * programs: bpf_check, bpf_prog_alloc_no_stats, bpf_prog_calc_tag).
 * vmapstat traces only itself (--pid of its own process: the shell execs
 * it), so that BPF programs other processes load meanwhile (another
 * vmapstat, a test suite running beside this one) are not taken for its
 * own; what vmapstat maps itself is still reported (its fork of the
 * command, for one).
 */
static void test_sample_setup_not_seen(void **state)
{
	const char *own[] = { "bpf_check", "bpf_prog_alloc", "bpf_prog_calc_tag" };
	char *text;

	(void)state;
	for (int i = 0; i < 3; i++) {
		sh("sh -c 'exec \"$0\" --pid $$ -p --pmu-sample page-faults -- /bin/true' %s "
		   ">%s 2>%s", vmapstat, out, err_path);
		text = slurp(out);
		assert_non_null(strstr(text, "PMU samples of page-faults"));
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (strstr(text, own[k]))
				fail_msg("vmapstat's own %s is reported:\n%s", own[k], text);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmu_cmd_test.%d", getpid());
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);
	snprintf(perf_out, sizeof(perf_out), "%s/perf", dir);
	sh("mkdir -p %s", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_match_perf_stat),
		cmocka_unit_test(test_repeat_counts_each_run),
		cmocka_unit_test(test_children_counted),
		cmocka_unit_test(test_all_cpus_counts_more),
		cmocka_unit_test(test_sample_setup_not_seen),
	};

	vmapstat = getenv("VMAPSTAT");
	if (geteuid() != 0 || !vmapstat || access(vmapstat, X_OK)) {
		/* vmapstat loads BPF: root, and the binary check-unit names */
		printf("test_pmu_cmd: skipped, needs root and $VMAPSTAT\n");
		return 0;
	}
	return cmocka_run_group_tests_name("pmu_cmd", tests, setup, teardown);
}
