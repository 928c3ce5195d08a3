// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_count: CPU lists, open failures, multiplex scaling, the zero-count
 * flag and CPUs going offline, with faked perf_event_open/read and a fake
 * /sys + /proc tree; then real software (and, where there is none, the
 * hardware ENOENT path) counting on this machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmu_count.h"

static char err[512];

/* ---------------- fake kernel ---------------- */

#define MAX_FAKE 64
struct fake_fd {
	__u64 config;
	int cpu;
	uint64_t val[3];	/* what read() returns next */
	bool read_fails;
	bool enabled;
	bool closed;
};
static struct fake_fd fds[MAX_FAKE];
static int nr_fds;
/* open() result per (config, cpu): 0 = success, else errno */
static int (*open_policy)(__u64 config, int cpu);
static bool expect_task;	/* per command: a probe here, then the command's process */
static pid_t task_pid;		/* per command: the process attach() is given */
static int task_open_errno;	/* per command: attach's open fails with it */

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	int e;

	(void)group_fd;
	(void)flags;
	if (expect_task) {
		/*
		 * any CPU; nothing inherited is ever opened on vmapstat itself
		 * (pid 0): only a probe, inherit off; the command's process
		 * inherits to its children and its exec enables
		 */
		assert_int_equal(cpu, -1);
		if (pid == 0) {
			assert_int_equal(attr->inherit, 0);
			assert_int_equal(attr->enable_on_exec, 0);
		} else {
			assert_int_equal(pid, task_pid);
			assert_int_equal(attr->inherit, 1);
			assert_int_equal(attr->enable_on_exec, 1);
			if (task_open_errno && attr->config == PERF_COUNT_SW_PAGE_FAULTS)
				return -task_open_errno;
		}
	} else {
		assert_int_equal(pid, -1);		/* per-CPU, system-wide */
		assert_int_equal(attr->enable_on_exec, 0);
	}
	assert_int_equal(attr->disabled, 1);	/* enabled only at start */
	assert_true(attr->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	e = open_policy ? open_policy(attr->config, cpu) : 0;
	if (e)
		return -e;
	assert_true(nr_fds < MAX_FAKE);
	memset(&fds[nr_fds], 0, sizeof(fds[nr_fds]));
	fds[nr_fds].config = attr->config;
	fds[nr_fds].cpu = cpu;
	return 100 + nr_fds++;
}

static int fake_ioctl(int fd, unsigned long req)
{
	fds[fd - 100].enabled = req == PERF_EVENT_IOC_ENABLE;
	return 0;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct fake_fd *f = &fds[fd - 100];

	if (f->read_fails)
		return 0;
	assert_int_equal(len, 3 * sizeof(uint64_t));
	memcpy(buf, f->val, len);
	return len;
}

static void fake_close(int fd)
{
	fds[fd - 100].closed = true;
}

static const struct pmu_sys_ops fake_ops = {
	.open = fake_open, .ioctl = fake_ioctl, .read = fake_read,
	.close = fake_close,
};

/* The last opened fd of (config, cpu): per command, the current run's. */
static struct fake_fd *fake_find(__u64 config, int cpu)
{
	for (int i = nr_fds - 1; i >= 0; i--)
		if (fds[i].config == config && fds[i].cpu == cpu)
			return &fds[i];
	fail_msg("no fd for config %llu cpu %d", (unsigned long long)config, cpu);
	return NULL;
}

static void fake_set(__u64 config, int cpu, uint64_t v, uint64_t en, uint64_t run)
{
	struct fake_fd *f = fake_find(config, cpu);

	f->val[0] = v;
	f->val[1] = en;
	f->val[2] = run;
}

/* ---------------- fake /sys and /proc ---------------- */

static char root[256];

static void write_file(const char *rel, const char *text)
{
	char path[512], dir[600];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "mkdir -p $(dirname %s)", path);
	assert_int_equal(system(dir), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* busy ticks (user column) per CPU; idle stays constant */
static void set_stat(unsigned long long busy0, unsigned long long busy1)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "cpu  %llu 0 0 1000 0 0 0 0 0 0\n"
		 "cpu0 %llu 0 0 500 0 0 0 0 0 0\n"
		 "cpu1 %llu 0 0 500 0 0 0 0 0 0\n"
		 "intr 0\n", busy0 + busy1, busy0, busy1);
	write_file("/proc/stat", buf);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pmu_count_test.%d", getpid());
	write_file("/sys/devices/system/cpu/online", "0-1\n");
	write_file("/sys/devices/system/cpu/possible", "0-1\n");
	set_stat(0, 0);
	nr_fds = 0;
	open_policy = NULL;
	expect_task = false;
	task_pid = 0;
	task_open_errno = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct pmu_event mkev(const char *name, const char *pmu, __u32 type,
			     __u64 config)
{
	struct pmu_event e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.pmu, sizeof(e.pmu), "%s", pmu);
	snprintf(e.desc, sizeof(e.desc), "test event");
	e.attr.size = sizeof(e.attr);
	e.attr.type = type;
	e.attr.config = config;
	return e;
}

static struct pmu_count_opts fake_opts(const char *cpus)
{
	struct pmu_count_opts o = {
		.cpu_list = cpus, .sys_root = root, .proc_root = root,
		.ops = &fake_ops,
	};
	return o;
}

/* Run open → start → stop and capture what the session printed. */
static char msgbuf[4096];

static struct pmu_session *open_session(const char *cpus, struct pmu_event *evs,
					int nr)
{
	struct pmu_count_opts o = fake_opts(cpus);
	struct pmu_session *s;
	FILE *m = fmemopen(msgbuf, sizeof(msgbuf), "w");

	assert_non_null(m);
	assert_int_equal(pmu_session_open(&o, evs, nr, &s, m, err, sizeof(err)), 0);
	fclose(m);
	return s;
}

/* ---------------- tests ---------------- */

static int enoent_for_42(__u64 config, int cpu)
{
	(void)cpu;
	return config == 42 ? ENOENT : 0;
}

/*
 * Per command: each event probed once on vmapstat (not inherited, closed
 * at once), then for each run one counter per event on the command's
 * process, enabled by its exec, never by vmapstat, read and closed when
 * the run ends; task-clock shown in msec as perf shows it.
 */
static void test_per_command(void **state)
{
	struct pmu_event evs[3] = {
		mkev("task-clock", "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
		mkev("page-faults", "software", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS),
		mkev("cycles", "no core PMU", PERF_TYPE_HARDWARE, 42),
	};
	struct pmu_count_opts o = fake_opts(NULL);
	struct pmu_results res;
	struct pmu_session *s;
	char out[2048];
	FILE *m = fmemopen(msgbuf, sizeof(msgbuf), "w");

	(void)state;
	expect_task = true;
	open_policy = enoent_for_42;
	o.task = true;
	assert_int_equal(pmu_session_open(&o, evs, 3, &s, m, err, sizeof(err)), 0);
	fclose(m);
	assert_int_equal(nr_fds, 2);		/* the probes: one each, not one per CPU */
	assert_true(fds[0].closed && fds[1].closed);
	assert_int_equal(pmu_session_nr_counted(s), 2);
	assert_string_equal(msgbuf, "vmapstat: pmu: cycles (PMU no core PMU, test event): "
			    "not counted: no hardware PMU on this machine counts it (ENOENT)\n");

	/* run 1: the command's own counters, fresh */
	task_pid = 4242;
	assert_int_equal(pmu_session_attach(s, 4242, NULL), 0);
	assert_int_equal(nr_fds, 4);
	pmu_session_start(s);
	/* the exec of the command enables them, vmapstat does not */
	assert_false(fake_find(PERF_COUNT_SW_TASK_CLOCK, -1)->enabled);
	assert_false(fake_find(PERF_COUNT_SW_PAGE_FAULTS, -1)->enabled);
	fake_set(PERF_COUNT_SW_TASK_CLOCK, -1, 5250000, 5250000, 5250000);
	fake_set(PERF_COUNT_SW_PAGE_FAULTS, -1, 48, 5250000, 5250000);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	assert_true(fds[2].closed && fds[3].closed);	/* read, then closed */
	assert_true(res.task);
	assert_true(res.r[0].value == 5250000.0);	/* ns, as counted */
	assert_string_equal(res.r[0].unit, "msec");
	assert_true(pmu_result_shown(&res.r[0], res.r[0].value) == 5.25);
	assert_true(res.r[1].value == 48.0);
	assert_string_equal(res.r[1].unit, "");
	assert_false(res.r[2].counted);
	m = fmemopen(out, sizeof(out), "w");
	pmu_results_print(m, &res, false);
	fclose(m);
	assert_non_null(strstr(out, "PMU counts of the command and its children"));
	assert_non_null(strstr(out, "      5.25 msec  task-clock\n"));
	assert_non_null(strstr(out, "          48  page-faults\n"));
	pmu_results_free(&res);

	/* run 2: new counters on the new process, counting from 0 again */
	task_pid = 4243;
	assert_int_equal(pmu_session_attach(s, 4243, NULL), 0);
	assert_int_equal(nr_fds, 6);
	pmu_session_start(s);
	fake_set(PERF_COUNT_SW_TASK_CLOCK, -1, 1000000, 1000000, 1000000);
	fake_set(PERF_COUNT_SW_PAGE_FAULTS, -1, 51, 1000000, 1000000);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	assert_true(res.r[0].value == 1000000.0);
	assert_true(res.r[1].value == 51.0);
	pmu_results_free(&res);

	/* run 3: one event cannot be opened on it: said, that run only */
	task_pid = 4244;
	task_open_errno = EMFILE;
	m = fmemopen(msgbuf, sizeof(msgbuf), "w");
	assert_int_equal(pmu_session_attach(s, 4244, m), 0);
	fclose(m);
	assert_non_null(strstr(msgbuf, "page-faults (PMU software, test event): "
			       "not counted in this run: too many open files"));
	pmu_session_start(s);
	fake_set(PERF_COUNT_SW_TASK_CLOCK, -1, 2000000, 2000000, 2000000);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	assert_true(res.r[0].counted);
	assert_true(res.r[0].value == 2000000.0);
	assert_false(res.r[1].counted);
	assert_non_null(strstr(res.r[1].note, "not counted in this run"));
	pmu_results_free(&res);
	assert_int_equal(pmu_session_nr_counted(s), 2);
	pmu_session_close(s);
	for (int i = 0; i < nr_fds; i++)
		assert_true(fds[i].closed);
}

static void test_cpulist(void **state)
{
	cpu_set_t s;
	char buf[64];

	(void)state;
	assert_int_equal(cpulist_parse("0-3,5,7-8", &s, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&s), 7);
	assert_true(CPU_ISSET(5, &s));
	assert_false(CPU_ISSET(4, &s));
	cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,5,7-8");
	assert_int_equal(cpulist_parse("1023", &s, err, sizeof(err)), 0);
	cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "1023");
	const char *bad[] = { "", "a", "3-1", "1-", "-1", "1,,2", "1024", "0-2x",
			      "1 2", "0x1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!cpulist_parse(bad[i], &s, err, sizeof(err)))
			fail_msg("'%s' accepted", bad[i]);
		assert_null(strchr(err, '\n'));
	}
}

static void test_open_failure_named_rest_counts(void **state)
{
	struct pmu_event evs[2] = {
		mkev("cpu_cycles", "armv8_pmuv3", 8, 0x11),
		mkev("cycles", "no core PMU", PERF_TYPE_HARDWARE, 42),
	};
	struct pmu_results res;
	struct pmu_session *s;

	(void)state;
	open_policy = enoent_for_42;
	s = open_session(NULL, evs, 2);
	/* one line, naming event and PMU and the CPUs */
	assert_non_null(strstr(msgbuf, "vmapstat: pmu: cycles (PMU no core PMU"));
	assert_non_null(strstr(msgbuf, "not counted on CPUs 0-1"));
	assert_non_null(strstr(msgbuf, "no hardware PMU on this machine counts it (ENOENT)"));
	assert_ptr_equal(strchr(msgbuf, '\n'), strrchr(msgbuf, '\n'));
	assert_int_equal(pmu_session_nr_counted(s), 1);

	pmu_session_start(s);
	assert_true(fake_find(0x11, 0)->enabled);
	fake_set(0x11, 0, 1000, 5000, 5000);
	fake_set(0x11, 1, 234, 5000, 5000);
	set_stat(100, 100);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	assert_false(fake_find(0x11, 1)->enabled);
	assert_int_equal(res.nr, 2);
	assert_true(res.r[0].counted);
	assert_int_equal(res.r[0].raw, 1234);
	assert_true(res.r[0].value == 1234.0);
	assert_false(res.r[0].scaled);
	assert_int_equal(res.r[0].nr_cpus, 2);
	assert_int_equal(res.r[0].cpu[1].raw, 234);
	assert_false(res.r[1].counted);
	assert_non_null(strstr(res.r[1].note, "ENOENT"));
	assert_string_equal(res.cpus, "0-1");

	char out[2048];
	FILE *f = fmemopen(out, sizeof(out), "w");
	pmu_results_print(f, &res, true);
	fclose(f);
	assert_non_null(strstr(out, "1,234  cpu_cycles"));
	assert_non_null(strstr(out, "<not counted>  cycles"));
	assert_non_null(strstr(out, "234    CPU1"));
	pmu_results_free(&res);
	pmu_session_close(s);
	assert_true(fds[0].closed && fds[1].closed);
}

static void test_multiplex_scaling(void **state)
{
	struct pmu_event ev = mkev("l1d_tlb", "armv8_pmuv3", 8, 0x25);
	struct pmu_results res;
	struct pmu_session *s;

	(void)state;
	s = open_session("0-1", &ev, 1);
	pmu_session_start(s);
	fake_set(0x25, 0, 1000, 2000000000, 1000000000);	/* 50 % */
	fake_set(0x25, 1, 300, 1000000000, 750000000);		/* 75 % */
	set_stat(50, 50);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	assert_true(res.r[0].scaled);
	assert_int_equal(res.r[0].raw, 1300);
	assert_true(res.r[0].value > 2399.99 && res.r[0].value < 2400.01);
	assert_true(res.r[0].running_pct > 49.99 && res.r[0].running_pct < 50.01);

	char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");
	pmu_results_print(f, &res, false);
	fclose(f);
	assert_non_null(strstr(out, "2,400  l1d_tlb "));
	assert_non_null(strstr(out, "(scaled, counted 50.0%)"));
	pmu_results_free(&res);
	pmu_session_close(s);
}

static void test_never_scheduled(void **state)
{
	struct pmu_event ev = mkev("l2d_tlb_refill", "armv8_pmuv3", 8, 0x2d);
	struct pmu_results res;
	struct pmu_session *s;

	(void)state;
	s = open_session("0", &ev, 1);
	pmu_session_start(s);
	fake_set(0x2d, 0, 0, 1000000, 0);
	set_stat(100, 0);
	pmu_session_stop(s, &res);
	assert_true(res.r[0].never_ran);
	assert_false(res.r[0].zero_busy);	/* it never ran: not a zero */
	assert_non_null(strstr(res.r[0].note, "never got a counter"));
	pmu_results_free(&res);
	pmu_session_close(s);
}

static void test_zero_over_busy_period(void **state)
{
	struct pmu_event evs[3] = {
		mkev("dtlb_walk", "armv8_pmuv3", PERF_TYPE_RAW, 0x34),
		mkev("major-faults", "software", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_PAGE_FAULTS_MAJ),
		mkev("cpu_cycles", "armv8_pmuv3", 8, 0x11),
	};
	struct pmu_results res;
	struct pmu_session *s;
	long hz = sysconf(_SC_CLK_TCK);

	(void)state;
	s = open_session(NULL, evs, 3);
	/* busy period: 2 s of CPU time per CPU */
	set_stat(0, 0);
	pmu_session_start(s);
	set_stat(2 * hz, 2 * hz);
	fake_set(0x11, 0, 5000000, 10, 10);
	fake_set(0x11, 1, 5000000, 10, 10);
	for (int c = 0; c < 2; c++) {
		fake_set(0x34, c, 0, 10, 10);
		fake_set(PERF_COUNT_SW_PAGE_FAULTS_MAJ, c, 0, 10, 10);
	}
	pmu_session_stop(s, &res);
	assert_true(res.busy_ns >= 3900000000ULL && res.busy_ns <= 4100000000ULL);
	assert_true(res.r[0].zero_busy);
	assert_non_null(strstr(res.r[0].note, "not counted by this PMU?"));
	/* software events may well be zero: no flag */
	assert_false(res.r[1].zero_busy);
	assert_string_equal(res.r[1].note, "");
	assert_false(res.r[2].zero_busy);
	pmu_results_free(&res);

	/* second period on the same session, idle: zero is not suspicious */
	pmu_session_start(s);
	pmu_session_stop(s, &res);
	assert_int_equal(res.r[2].raw, 0);	/* delta, not cumulative */
	assert_int_equal(res.busy_ns, 0);
	assert_false(res.r[0].zero_busy);
	pmu_results_free(&res);
	pmu_session_close(s);
}

static void test_runs_are_deltas(void **state)
{
	struct pmu_event ev = mkev("cpu_cycles", "armv8_pmuv3", 8, 0x11);
	struct pmu_results res;
	struct pmu_session *s;

	(void)state;
	s = open_session("1", &ev, 1);
	pmu_session_start(s);
	fake_set(0x11, 1, 100, 1000, 1000);
	pmu_session_stop(s, &res);
	assert_int_equal(res.r[0].raw, 100);
	pmu_results_free(&res);
	pmu_session_start(s);
	fake_set(0x11, 1, 350, 3000, 2000);	/* +250, 2000 en, 1000 run */
	pmu_session_stop(s, &res);
	assert_int_equal(res.r[0].raw, 250);
	assert_true(res.r[0].scaled);
	assert_true(res.r[0].value == 500.0);
	pmu_results_free(&res);
	pmu_session_close(s);
}

static void test_offline_cpus(void **state)
{
	struct pmu_event ev = mkev("cpu_cycles", "armv8_pmuv3", 8, 0x11);
	struct pmu_results res;
	struct pmu_session *s;

	(void)state;
	/* offline before: counted on the others, said once */
	write_file("/sys/devices/system/cpu/online", "0\n");
	s = open_session("0-1", &ev, 1);
	assert_non_null(strstr(msgbuf, "cpu_cycles (PMU armv8_pmuv3"));
	assert_non_null(strstr(msgbuf, "CPUs 1 offline: not counted"));
	assert_int_equal(nr_fds, 1);
	pmu_session_close(s);

	/* offline during the period: partial, and the rest still reports */
	write_file("/sys/devices/system/cpu/online", "0-1\n");
	nr_fds = 0;
	s = open_session(NULL, &ev, 1);
	pmu_session_start(s);
	fake_set(0x11, 0, 10, 5, 5);
	fake_set(0x11, 1, 7, 5, 5);
	fake_find(0x11, 1)->read_fails = true;
	write_file("/sys/devices/system/cpu/online", "0\n");
	pmu_session_stop(s, &res);
	assert_true(res.r[0].partial);
	assert_int_equal(res.r[0].raw, 10);
	assert_non_null(strstr(res.r[0].note, "CPU 1 went offline during the period"));
	pmu_results_free(&res);
	pmu_session_close(s);
}

static void test_cpu_options(void **state)
{
	struct pmu_event ev = mkev("cpu_cycles", "armv8_cortex_a72", 9, 0x11);
	struct pmu_count_opts o = fake_opts("0,5");
	struct pmu_session *s;

	(void)state;
	assert_int_equal(pmu_session_open(&o, &ev, 1, &s, NULL, err, sizeof(err)), -1);
	assert_string_equal(err, "-C: CPU 5 does not exist (CPUs: 0-1)");
	o.cpu_list = "x";
	assert_int_equal(pmu_session_open(&o, &ev, 1, &s, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "-C: bad CPU list 'x'"));

	/* a PMU covering other CPUs than the selected ones */
	snprintf(ev.cpus, sizeof(ev.cpus), "4-5");
	s = open_session("0-1", &ev, 1);
	assert_non_null(strstr(msgbuf, "PMU armv8_cortex_a72 covers CPUs 4-5, none of them selected"));
	assert_int_equal(pmu_session_nr_counted(s), 0);
	pmu_session_close(s);
	/* overlap: only the shared CPU */
	snprintf(ev.cpus, sizeof(ev.cpus), "1-5");
	s = open_session("0-1", &ev, 1);
	assert_int_equal(nr_fds, 1);
	assert_int_equal(fds[0].cpu, 1);
	pmu_session_close(s);
}

static void test_format_count(void **state)
{
	char b[32];

	(void)state;
	pmu_format_count(0, b, sizeof(b));
	assert_string_equal(b, "0");
	pmu_format_count(999, b, sizeof(b));
	assert_string_equal(b, "999");
	pmu_format_count(1000, b, sizeof(b));
	assert_string_equal(b, "1,000");
	pmu_format_count(161435.8, b, sizeof(b));
	assert_string_equal(b, "161,436");
	pmu_format_count(12345678901.0, b, sizeof(b));
	assert_string_equal(b, "12,345,678,901");
}

/* ---------------- real perf_event_open on this machine ---------------- */

static void burn(double seconds)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}

static void test_real_software_and_hardware(void **state)
{
	struct pmu_event evs[3];
	struct pmu_count_opts o = { 0 };
	struct pmu_results res;
	struct pmu_session *s;
	char msgs[2048] = "";
	FILE *m;
	int n;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: per-CPU counting needs root\n");
		skip();
	}
	n = pmu_event_resolve(NULL, "cpu-clock", &evs[0], 1, err, sizeof(err));
	assert_int_equal(n, 1);
	n = pmu_event_resolve(NULL, "context-switches:k", &evs[1], 1, err, sizeof(err));
	assert_int_equal(n, 1);
	n = pmu_event_resolve(NULL, "cycles", &evs[2], 1, err, sizeof(err));
	assert_int_equal(n, 1);
	m = fmemopen(msgs, sizeof(msgs), "w");
	assert_int_equal(pmu_session_open(&o, evs, 3, &s, m, err, sizeof(err)), 0);
	fclose(m);
	pmu_session_start(s);
	burn(0.3);
	usleep(20000);
	assert_int_equal(pmu_session_stop(s, &res), 0);
	/* cpu-clock counts ns on every CPU: at least the 0.3 s we burned */
	assert_true(res.r[0].counted);
	assert_true(res.r[0].value >= 0.25e9);
	assert_true(res.r[0].value <= res.period_s * 1e9 * res.r[0].nr_cpus * 1.05);
	assert_true(res.r[1].counted);
	assert_true(res.r[1].value >= 1);	/* we slept: at least one switch */
	if (res.r[2].counted) {
		/* a machine with a hardware PMU */
		assert_true(res.r[2].value > 0);
	} else {
		/* this project's machines: no PMU, one clear line */
		assert_non_null(strstr(msgs, "vmapstat: pmu: cycles (PMU no core PMU"));
		assert_non_null(strstr(msgs, "ENOENT"));
	}
	pmu_results_free(&res);
	pmu_session_close(s);
}

/*
 * Per command, for real: /bin/true run after run, this process and the
 * command on one CPU, where the scheduler switches between the two
 * before the command's exec (the case that once moved the counters into
 * a child that then took them with it): every run counts its own page
 * faults (/bin/true has some 40-50).
 */
static void test_real_per_command_runs(void **state)
{
	struct pmu_count_opts o = { .task = true };
	cpu_set_t one, saved;
	struct pmu_event ev;
	struct pmu_session *s;
	int cpu = sched_getcpu();

	(void)state;
	assert_int_equal(pmu_event_resolve(NULL, "page-faults", &ev, 1, err, sizeof(err)), 1);
	assert_int_equal(pmu_session_open(&o, &ev, 1, &s, NULL, err, sizeof(err)), 0);
	if (!pmu_session_nr_counted(s)) {
		pmu_session_close(s);
		print_message("skipped: page-faults cannot be counted here\n");
		skip();
	}
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	for (int run = 0; run < 20; run++) {
		struct pmu_results res;
		int go[2], status;
		pid_t pid;
		char c;

		assert_int_equal(pipe(go), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		close(go[0]);
		assert_int_equal(pmu_session_attach(s, pid, NULL), 0);
		pmu_session_start(s);
		assert_int_equal(write(go[1], "x", 1), 1);
		close(go[1]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_int_equal(status, 0);
		assert_int_equal(pmu_session_stop(s, &res), 0);
		assert_true(res.r[0].counted);
		if (res.r[0].value < 20)
			fail_msg("run %d: %.0f page-faults of /bin/true", run + 1, res.r[0].value);
		pmu_results_free(&res);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	pmu_session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test_setup_teardown(test_open_failure_named_rest_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiplex_scaling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_scheduled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_over_busy_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_are_deltas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_command, setup, teardown),
		cmocka_unit_test(test_format_count),
		cmocka_unit_test(test_real_software_and_hardware),
		cmocka_unit_test(test_real_per_command_runs),
	};

	return cmocka_run_group_tests_name("pmu_count", tests, NULL, NULL);
}
