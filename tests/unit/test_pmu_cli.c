// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_group (vmapstat_groups.h), driven the way vmapstat drives it:
 * --repeat 3 with known per-run snapshot deltas must print exactly those
 * figures per run and their averages, list the failed run and return
 * non-zero, and the -j output must read back into the same table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "vmapstat_groups.h"
#include "pmu_compare.h"
#include "cli.h"
#include "printable.h"
#include "pmu_runs.h"

static char out_path[64], err_path[64];

/* Run @fn with stdout and stderr sent to files; return fn's result. */
static int captured(int (*fn)(void *), void *arg)
{
	int so = dup(1), se = dup(2), ret;
	int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fo >= 0 && fe >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	ret = fn(arg);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(fo);
	close(fe);
	close(so);
	close(se);
	return ret;
}

static char *slurp(const char *path)
{
	static char buf[2][16384];
	static int which;
	char *b = buf[which ^= 1];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(b, 1, sizeof(buf[0]) - 1, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

/*
 * The table row whose first cell is @metric, as "cell|cell|...": column
 * widths depend on the measured task-clock values, the cells do not.
 */
static const char *cells(const char *table, const char *metric)
{
	static char row[512];
	char want[128];
	const char *p;
	size_t o = 0;

	snprintf(want, sizeof(want), "| %s ", metric);
	p = strstr(table, want);
	if (!p)
		return "(row missing)";
	p += 2;
	while (*p && *p != '\n' && o + 1 < sizeof(row)) {
		const char *end = strchr(p, '|');
		const char *e;

		if (!end)
			break;
		e = end;
		while (e > p && e[-1] == ' ')
			e--;
		if (o)
			row[o++] = '|';
		memcpy(row + o, p, e - p);
		o += e - p;
		p = end + 1;
		while (*p == ' ')
			p++;
	}
	row[o] = '\0';
	return row;
}

static int parse(int argc, char **argv)
{
	static struct argp_child children[2];
	static const struct argp parent = { .children = children };

	children[0] = (struct argp_child){ pmu_group.argp, 0, NULL, 0 };

	return argp_parse(&parent, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP,
			  NULL, NULL);
}

/*
 * A delta with @bytes4k at 4K, @bytes2m at 2M, @chunks chunks, @calls calls,
 * @lat_sum ns of mapping and of call latency.
 */
static void mk_delta(struct vmapscope_sample *d, struct vmapscope_row *row,
		     uint64_t bytes4k, uint64_t bytes2m, uint64_t chunks,
		     uint64_t calls, uint64_t lat_sum)
{
	memset(d, 0, sizeof(*d));
	memset(row, 0, sizeof(*row));
	row->st.bytes[12] = bytes4k;
	row->st.bytes[21] = bytes2m;
	row->st.chunks = chunks;
	row->st.calls = calls;
	row->st.lat_sum_ns = lat_sum;
	row->st.lat_hist[10] = chunks;		/* every mapping call timed */
	row->st.call_lat_sum_ns = lat_sum;
	row->st.call_lat_hist[10] = calls;	/* as BPF counts them: every call timed */
	d->rows = row;
	d->nr_rows = 1;
	d->page_shift = 12;
	d->feat[VMAPSCOPE_FEAT_GRANULE].available = true;
	d->feat[VMAPSCOPE_FEAT_CHUNK].available = true;
	d->feat[VMAPSCOPE_FEAT_LATENCY].available = true;
	d->feat[VMAPSCOPE_FEAT_CALL_LATENCY].available = true;
}

static char *cmd_argv[] = { "true", NULL };
static struct vmapstat_run run;
static int statuses[3];

/*
 * A child that runs "true" once vmapstat lets it (a byte on *@go), as
 * vmapstat forks the command: held before its exec.
 */
static pid_t held_true(int *go)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int three_runs(void *arg)
{
	struct vmapscope_sample d;
	struct vmapscope_row row;
	/* bytes at 4K, bytes at 2M, chunks, calls, latency sum */
	static const uint64_t in[3][5] = {
		{ 8192, 2 << 20, 3, 2, 3000 },
		{ 4096, 0, 1, 1, 500 },
		{ 0, 4 << 20, 2, 2, 1000 },
	};

	(void)arg;
	if (pmu_group.start(&run))
		return -100;
	for (int i = 0; i < 3; i++) {
		int go, st;
		pid_t pid = held_true(&go);

		if (pmu_group.run_start(&run, i, pid))
			return -101;
		if (write(go, "x", 1) != 1 || waitpid(pid, &st, 0) != pid || st)
			return -103;
		close(go);
		mk_delta(&d, &row, in[i][0], in[i][1], in[i][2], in[i][3], in[i][4]);
		if (pmu_group.run_end(&run, i, statuses[i], &d))
			return -102;
	}
	return pmu_group.end(&run, NULL);
}

static void test_repeat_table_from_known_runs(void **state)
{
	char *argv[] = { "vmapstat", "--pmu", "task-clock", "--repeat", "3", NULL };
	char *out, *err;

	(void)state;
	assert_int_equal(parse(5, argv), 0);
	pmu_group.parsed(&run);
	assert_int_equal(run.repeat, 3);
	run.command = cmd_argv;
	run.json = false;
	statuses[0] = 0;
	statuses[1] = 0;
	statuses[2] = 2 << 8;		/* third run: exit(2) */
	/* a failed run makes the end hook fail: vmapstat exits non-zero */
	assert_int_not_equal(captured(three_runs, NULL), 0);
	out = slurp(out_path);
	err = slurp(err_path);
	assert_non_null(strstr(out, "3 runs of: true\n"));
	assert_string_equal(cells(out, "Metric"), "Metric|Run1|Run2|Run3|Avg.");
	assert_string_equal(cells(out, "vmap bytes mapped"),
			    "vmap bytes mapped|2105344|4096|4194304|2101248.0");
	assert_string_equal(cells(out, "vmap bytes in large granules"),
			    "vmap bytes in large granules|2097152|0|4194304|2097152.0");
	assert_string_equal(cells(out, "vmap chunks"), "vmap chunks|3|1|2|2.0");
	assert_string_equal(cells(out, "vmap calls"), "vmap calls|2|1|2|1.7");
	/* mapping latency per chunk, call latency per call */
	assert_string_equal(cells(out, "vmap mapping latency avg (ns)"),
			    "vmap mapping latency avg (ns)|1000|500|500|666.7");
	assert_string_equal(cells(out, "vmap call latency avg (ns)"),
			    "vmap call latency avg (ns)|1500|500|500|833.3");
	/* the software event and the wall time are measured for every run */
	assert_non_null(strstr(out, "| task-clock "));
	assert_non_null(strstr(out, "| wall time (ms) "));
	assert_non_null(strstr(err, "vmapstat: run 3: command exited with status 2\n"));
	assert_null(strstr(err, "run 1:"));
}

static void test_json_reads_back(void **state)
{
	char *argv[] = { "vmapstat", "--pmu", "task-clock", "--repeat", "3", NULL };
	struct pmu_runs r;
	char err[256];
	const struct pmu_metric *m;

	(void)state;
	assert_int_equal(parse(5, argv), 0);
	run.command = cmd_argv;
	run.json = true;
	statuses[0] = statuses[1] = statuses[2] = 0;
	assert_int_equal(captured(three_runs, NULL), 0);
	assert_int_equal(pmu_runs_read_json(out_path, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_runs, 3);
	assert_string_equal(r.command, "true");
	m = pmu_runs_find(&r, "vmap calls");
	assert_non_null(m);
	assert_true(m->values[0] == 2 && m->values[1] == 1 && m->values[2] == 2);
	m = pmu_runs_find(&r, "task-clock");
	assert_non_null(m);
	for (int i = 0; i < 3; i++)
		assert_false(m->flags[i] & PMU_VAL_MISSING);
	pmu_runs_free(&r);
}

struct argvec {
	int argc;
	char **argv;
};

static int parse_wrapper(void *arg)
{
	struct argvec *a = arg;

	return parse(a->argc, a->argv);
}

/* vmapstat treats anything argp printed as a usage error (exit 2). */
static void expect_usage_error(char **argv, const char *needle)
{
	struct argvec a = { 0, argv };
	char *err;

	while (argv[a.argc])
		a.argc++;
	captured(parse_wrapper, &a);
	err = slurp(err_path);
	if (!strstr(err, needle))
		fail_msg("'%s ...': stderr '%s' lacks '%s'", argv[1], err, needle);
}

static void test_bad_options(void **state)
{
	char *a1[] = { "vmapstat", "--repeat", "0", NULL };
	char *a2[] = { "vmapstat", "--repeat", "3x", NULL };
	char *a3[] = { "vmapstat", "-C", "0-", "--pmu", "task-clock", NULL };
	char *a4[] = { "vmapstat", "--pmu", "no_such_event", NULL };
	char *a5[] = { "vmapstat", "--pmu", "task-clock", "-C", "100000", NULL };
	char *a6[] = { "vmapstat", "--pmu", "task-clock", "-C", "1000", NULL };
	char *a7[] = { "vmapstat", "--repeat", "3", NULL };
	char *a8[] = { "vmapstat", "-a", NULL };

	(void)state;
	expect_usage_error(a1, "--repeat: invalid count '0'");
	expect_usage_error(a2, "--repeat: invalid count '3x'");
	expect_usage_error(a3, "-C: bad CPU list '0-'");
	expect_usage_error(a4, "--pmu: no_such_event: unknown event");
	expect_usage_error(a5, "-C: bad CPU list '100000'");
	expect_usage_error(a6, "-C: CPU 1000 does not exist");
	/* nothing to tabulate: an empty table is no result */
	expect_usage_error(a7, "--repeat tabulates --pmu counts per run: give --pmu EVENTS too");
	expect_usage_error(a8, "-a counts --pmu events on every CPU: give --pmu EVENTS too");
}

static int compare_main_wrapper(void *arg)
{
	char **argv = arg;
	int argc = 0;

	while (argv[argc])
		argc++;
	return vmapstat_compare_main(argc, argv);
}

static void test_compare_main(void **state)
{
	char b[80], a[80];
	char *ok[] = { "compare", b, a, NULL };
	char *one[] = { "compare", b, NULL };
	char *missing[] = { "compare", b, "/nonexistent.json", NULL };
	struct pmu_runs r;
	FILE *f;
	char *out, *err;

	(void)state;
	snprintf(b, sizeof(b), "%s.b", out_path);
	snprintf(a, sizeof(a), "%s.a", out_path);
	pmu_runs_init(&r, "cmd", "stock");
	pmu_runs_add_run(&r, 0);
	pmu_runs_add_run(&r, 0);
	pmu_runs_set(&r, 0, "dtlb_walk", "", 100, 0);
	pmu_runs_set(&r, 1, "dtlb_walk", "", 200, 0);
	f = fopen(b, "w");
	pmu_runs_write_json(f, &r);
	fclose(f);
	pmu_runs_set(&r, 0, "dtlb_walk", "", 75, 0);
	pmu_runs_set(&r, 1, "dtlb_walk", "", 75, 0);
	snprintf(r.label, sizeof(r.label), "patched");
	f = fopen(a, "w");
	pmu_runs_write_json(f, &r);
	fclose(f);
	pmu_runs_free(&r);

	assert_int_equal(captured(compare_main_wrapper, ok), 0);
	out = slurp(out_path);
	assert_non_null(strstr(out, "| dtlb_walk | 2/2  | 150.0       | 75.0       | -50.00% |"));
	assert_int_equal(captured(compare_main_wrapper, one), 2);
	assert_non_null(strstr(slurp(err_path), "vmapstat compare: want BEFORE.json AFTER.json"));
	assert_int_equal(captured(compare_main_wrapper, missing), 1);
	assert_string_equal(slurp(err_path),
			    "vmapstat compare: /nonexistent.json: No such file or directory\n");

	/* a run set without metrics (as --repeat without --pmu wrote them) */
	f = fopen(a, "w");
	fputs("{\"pmu_runs\":{\"version\":1,\"command\":\"true\",\"label\":\"\","
	      "\"runs\":2,\"status\":[0,0],\"metrics\":[]}}\n", f);
	fclose(f);
	assert_int_equal(captured(compare_main_wrapper, ok), 1);
	err = slurp(err_path);
	if (strcmp(strchr(err, '\n') ? strchr(err, '\n') + 1 : "x", "") ||
	    !strstr(err, a) || !strstr(err, "no metrics"))
		fail_msg("want one line naming %s, got '%s'", a, err);
	assert_string_equal(slurp(out_path), "");
	unlink(a);
	unlink(b);
}

/*
 * Text from the files (labels, commands, metric names) reaches the
 * terminal printable: no escape sequence, no line of its own.
 */
static void test_compare_printable(void **state)
{
	char b[80], a[80];
	char *ok[] = { "compare", b, a, NULL };
	char *missing[] = { "compare", b, "/nonexistent\x1b[2J.json", NULL };
	char *out, *err;
	FILE *f;

	(void)state;
	snprintf(b, sizeof(b), "%s.b", out_path);
	snprintf(a, sizeof(a), "%s.a", out_path);
	f = fopen(b, "w");
	fputs("{\"pmu_runs\":{\"version\":1,\"command\":\"true\\u001b]0;pwned\\u0007\","
	      "\"label\":\"stock\\nfake: line\",\"runs\":1,\"status\":[0],\"metrics\":"
	      "[{\"name\":\"dtlb\\u001b[31mwalk\",\"unit\":\"\",\"values\":[10],\"flags\":[0]}]}}\n", f);
	fclose(f);
	f = fopen(a, "w");
	fputs("{\"pmu_runs\":{\"version\":1,\"command\":\"false\",\"label\":\"patched\","
	      "\"runs\":1,\"status\":[0],\"metrics\":"
	      "[{\"name\":\"dtlb\\u001b[31mwalk\",\"unit\":\"\",\"values\":[5],\"flags\":[0]}]}}\n", f);
	fclose(f);
	assert_int_equal(captured(compare_main_wrapper, ok), 0);
	out = slurp(out_path);
	if (strchr(out, 0x1b) || strchr(out, 0x07))
		fail_msg("a control character reached the output: '%s'", out);
	assert_non_null(strstr(out, "before: stock\\nfake: line\n"));
	assert_non_null(strstr(out, "  before: true\\x1b]0;pwned\\x07\n"));
	assert_non_null(strstr(out, "| dtlb\\x1b[31mwalk "));
	assert_int_equal(captured(compare_main_wrapper, missing), 1);
	err = slurp(err_path);
	assert_null(strchr(err, 0x1b));
	assert_non_null(strstr(err, "/nonexistent\\x1b[2J.json: No such file or directory"));
	unlink(a);
	unlink(b);
}

/* printable(): escapes, UTF-8 kept, bad bytes escaped, cut to fit */
static void test_printable(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(printable("plain text", buf, sizeof(buf)), "plain text");
	assert_string_equal(printable("a\nb\tc\r", buf, sizeof(buf)), "a\\nb\\tc\\r");
	assert_string_equal(printable("\x1b[0m\x7f", buf, sizeof(buf)), "\\x1b[0m\\x7f");
	assert_string_equal(printable("caf\xc3\xa9 \xe2\x80\x94", buf, sizeof(buf)),
			    "caf\xc3\xa9 \xe2\x80\x94");
	assert_string_equal(printable("\xff\xc3(", buf, sizeof(buf)), "\\xff\\xc3(");
	assert_string_equal(printable("\xc0\xaf", buf, sizeof(buf)), "\\xc0\\xaf");
	assert_string_equal(printable("\x1b\x1b", buf, 6), "\\x1b");
	assert_string_equal(printable("abc", buf, 1), "");
}

/* compare -j of values whose differences overflow: valid JSON, null there */
static void test_compare_json_main(void **state)
{
	char b[80], a[80];
	char *argv[] = { "compare", "-j", b, a, NULL };
	struct json_tokener *tok;
	struct pmu_runs r;
	json_object *o;
	FILE *f;
	char *out;

	(void)state;
	snprintf(b, sizeof(b), "%s.b", out_path);
	snprintf(a, sizeof(a), "%s.a", out_path);
	for (int side = 0; side < 2; side++) {
		pmu_runs_init(&r, "cmd", side ? "after" : "before");
		pmu_runs_add_run(&r, 0);
		pmu_runs_add_run(&r, 0);
		pmu_runs_set(&r, 0, "x", "", side ? -1e308 : 1e308, 0);
		pmu_runs_set(&r, 1, "x", "", side ? -1e308 : 1e308, 0);
		pmu_runs_set(&r, 0, "y", "", side ? 1e308 : 1e-300, 0);
		f = fopen(side ? a : b, "w");
		pmu_runs_write_json(f, &r);
		fclose(f);
		pmu_runs_free(&r);
	}
	assert_int_equal(captured(compare_main_wrapper, argv), 0);
	out = slurp(out_path);
	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, out, strlen(out));
	if (!o)
		fail_msg("compare -j wrote invalid JSON: %s", out);
	json_tokener_free(tok);
	json_object_put(o);
	assert_null(strstr(out, "inf"));
	assert_null(strstr(out, "nan"));
	assert_non_null(strstr(out, "\"metric\":\"y\",\"runs_before\":2,\"runs_after\":2,"
			       "\"before\":1e-300,\"after\":1e+308,\"counted\":true,\"diff_pct\":null"));
	unlink(a);
	unlink(b);
}

static json_object *interval_obj;

/* interval mode, -j: what vmapstat does for one interval, merged */
static int one_merged_interval(void *arg)
{
	(void)arg;
	if (pmu_group.start(&run))
		return -100;
	if (pmu_group.interval(&run, NULL, NULL))
		return -101;
	/* the exporter, after PMU in vmapstat's table, finds the counts in the run */
	if (!run.pmu)
		return -104;
	interval_obj = json_object_new_object();
	if (pmu_group.interval_json(&run, interval_obj))
		return -102;
	if (pmu_group.end(&run, NULL))
		return -105;
	/* what the run pointed to is gone with the group's end */
	return run.pmu ? -106 : 0;
}

/* -j with --pmu: one object per interval, the counts inside it as "pmu" */
static void test_interval_json_one_object(void **state)
{
	char *argv[] = { "vmapstat", "--pmu", "task-clock,page-faults", NULL };
	json_object *pmu_o, *evs, *e, *v;

	(void)state;
	assert_int_equal(parse(3, argv), 0);
	run.command = NULL;
	run.json = true;
	assert_int_equal(captured(one_merged_interval, NULL), 0);
	/* nothing of its own on stdout: vmapstat prints the one object */
	assert_string_equal(slurp(out_path), "");
	assert_true(json_object_object_get_ex(interval_obj, "pmu", &pmu_o));
	assert_true(json_object_object_get_ex(pmu_o, "events", &evs));
	assert_int_equal(json_object_array_length(evs), 2);
	e = json_object_array_get_idx(evs, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(e, "name")),
			    "task-clock");
	assert_string_equal(json_object_get_string(json_object_object_get(e, "unit")), "msec");
	assert_true(json_object_object_get_ex(e, "value", &v) && v);
	assert_true(json_object_object_get_ex(pmu_o, "period_s", &v) && v);
	json_object_put(interval_obj);
}

static int setup(void **state)
{
	(void)state;
	snprintf(out_path, sizeof(out_path), "/tmp/pmu_cli_out.%d", getpid());
	snprintf(err_path, sizeof(err_path), "/tmp/pmu_cli_err.%d", getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(out_path);
	unlink(err_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeat_table_from_known_runs),
		cmocka_unit_test(test_json_reads_back),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_compare_main),
		cmocka_unit_test(test_compare_printable),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_compare_json_main),
		cmocka_unit_test(test_interval_json_one_object),
	};

	if (geteuid() != 0) {
		/* the hooks open real per-CPU counters (task-clock) */
		printf("test_pmu_cli: skipped, needs root\n");
		return 0;
	}
	return cmocka_run_group_tests_name("pmu_cli", tests, setup, teardown);
}
