// SPDX-License-Identifier: GPL-2.0
/*
 * --repeat tables, their JSON and "compare", fed with the five TRBE runs
 * Arm published for the series (before/after): the averages and percent
 * changes must come out as in that report.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "pmu_runs.h"

static char err[512];

static const char *const names[4] = { "dtlb_walk", "l1d_tlb", "l1d_tlb_refill",
				      "l2d_tlb_refill" };
static const double trbe_before[4][5] = {
	{ 63, 75, 62, 73, 69 },
	{ 2093, 2189, 2237, 2036, 2086 },
	{ 154, 153, 150, 165, 157 },
	{ 161325, 161403, 161432, 161580, 161439 },
};
static const double trbe_after[4][5] = {
	{ 67, 59, 60, 58, 53 },
	{ 6710, 7120, 6662, 6626, 6542 },
	{ 126, 117, 119, 117, 119 },
	{ 506, 489, 485, 506, 489 },
};

static void fill(struct pmu_runs *r, const double v[4][5], const char *label)
{
	pmu_runs_init(r, "perf record -C 10 -m ,1G -e cs_etm// -- ./sparse_branch_delay.elf",
		      label);
	for (int run = 0; run < 5; run++) {
		assert_int_equal(pmu_runs_add_run(r, 0), run);
		for (int m = 0; m < 4; m++)
			assert_int_equal(pmu_runs_set(r, run, names[m], "", v[m][run], 0), 0);
	}
}

static char *capture(void (*fn)(FILE *, const void *, const void *),
		     const void *a, const void *b)
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fn(f, a, b);
	fclose(f);
	return buf;
}

static void print_runs(FILE *f, const void *a, const void *b)
{
	(void)b;
	pmu_runs_print(f, a);
}

static void print_cmp(FILE *f, const void *a, const void *b)
{
	pmu_runs_compare_print(f, a, b);
}

static void test_averages_and_table(void **state)
{
	struct pmu_runs r;
	double avg;
	char *out;

	(void)state;
	fill(&r, trbe_before, "stock");
	assert_true(pmu_metric_avg(&r, pmu_runs_find(&r, "dtlb_walk"), &avg));
	assert_true(avg > 68.39 && avg < 68.41);
	assert_true(pmu_metric_avg(&r, pmu_runs_find(&r, "l2d_tlb_refill"), &avg));
	assert_true(avg > 161435.79 && avg < 161435.81);

	out = capture(print_runs, &r, NULL);
	/* Arm's layout: | metric | Run1..Run5 | Avg. | with one decimal */
	assert_non_null(strstr(out, "| Metric         | Run1   | Run2   | Run3   | Run4   | Run5   | Avg.     |"));
	assert_non_null(strstr(out, "| dtlb_walk      | 63     | 75     | 62     | 73     | 69     | 68.4     |"));
	assert_non_null(strstr(out, "| l2d_tlb_refill | 161325 | 161403 | 161432 | 161580 | 161439 | 161435.8 |"));
	assert_non_null(strstr(out, "+----------------+--------+"));
	assert_null(strstr(out, "scaled"));	/* no footnote without flags */
	pmu_runs_free(&r);
}

static void test_flags_and_missing(void **state)
{
	struct pmu_runs r;
	double avg;
	char *out;

	(void)state;
	pmu_runs_init(&r, "true", NULL);
	pmu_runs_add_run(&r, 0);
	pmu_runs_add_run(&r, 0);
	pmu_runs_add_run(&r, 0);
	pmu_runs_set(&r, 0, "cpu_cycles", "", 1000, PMU_VAL_SCALED);
	pmu_runs_set(&r, 2, "cpu_cycles", "", 2000, 0);
	pmu_runs_set(&r, 0, "dtlb_walk", "", 0, PMU_VAL_ZERO);
	pmu_runs_set(&r, 1, "wall", "ms", 1.5, 0);
	/* run 2 lacks cpu_cycles: average over the two measured runs */
	assert_true(pmu_metric_avg(&r, pmu_runs_find(&r, "cpu_cycles"), &avg));
	assert_true(avg == 1500.0);
	out = capture(print_runs, &r, NULL);
	assert_non_null(strstr(out, "| cpu_cycles | 1000* | -    | 2000 | 1500.0 |"));
	assert_non_null(strstr(out, "| dtlb_walk  | 0?    | -    | -    | 0.0    |"));
	assert_non_null(strstr(out, "| wall (ms)  | -     | 1.50 | -    | 1.5    |"));
	assert_non_null(strstr(out, "* scaled"));
	assert_non_null(strstr(out, "? exactly 0 over a busy period"));
	pmu_runs_free(&r);
}

static void test_status_lines(void **state)
{
	struct pmu_runs r;
	char buf[1024];
	FILE *f;

	(void)state;
	pmu_runs_init(&r, "x", NULL);
	pmu_runs_add_run(&r, 0);
	pmu_runs_add_run(&r, 3 << 8);		/* exit(3) */
	pmu_runs_add_run(&r, 9);		/* SIGKILL */
	pmu_runs_add_run(&r, 127 << 8);		/* exec failed */
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(pmu_runs_print_status(f, &r), 3);
	fclose(f);
	assert_non_null(strstr(buf, "vmapstat: run 2: command exited with status 3\n"));
	assert_non_null(strstr(buf, "vmapstat: run 3: command killed by signal 9\n"));
	assert_non_null(strstr(buf, "vmapstat: run 4: command exited with status 127\n"));
	assert_null(strstr(buf, "run 1:"));
	pmu_runs_free(&r);
}

static void test_diff_format(void **state)
{
	char b[32];

	(void)state;
	/* Arm's published differences */
	pmu_format_diff(68.4, 59.4, true, true, b, sizeof(b));
	assert_string_equal(b, "-13.16%");
	pmu_format_diff(2128.2, 6732.0, true, true, b, sizeof(b));
	assert_string_equal(b, "+216.32%");
	pmu_format_diff(155.8, 119.6, true, true, b, sizeof(b));
	assert_string_equal(b, "-23.23%");
	pmu_format_diff(161435.8, 495.0, true, true, b, sizeof(b));
	assert_string_equal(b, "-99.69%");
	pmu_format_diff(1710.4, 1315.6, true, true, b, sizeof(b));
	assert_string_equal(b, "-23.08%");
	pmu_format_diff(0, 5, true, true, b, sizeof(b));
	assert_string_equal(b, "n/a");
	pmu_format_diff(5, 5, false, true, b, sizeof(b));
	assert_string_equal(b, "n/a");
}

static char tmpdir[64];

static int mk_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmu_runs_test.%d", getpid());
	return mkdir(tmpdir, 0700);
}

static int rm_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

static void write_text(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_json_roundtrip_and_compare(void **state)
{
	struct pmu_runs b, a, rb, ra;
	char pb[256], pa[256];
	char *out;
	FILE *f;

	(void)state;
	fill(&b, trbe_before, "6.12.0 stock");
	fill(&a, trbe_after, "6.12.0 patched");
	pmu_runs_set(&b, 2, "wall", "ms", 12.25, PMU_VAL_SCALED);
	/* a counter that read 0 over a busy period in every run, on both sides */
	for (int i = 0; i < 5; i++) {
		pmu_runs_set(&b, i, "dtlb_walk_q", "", 0, PMU_VAL_ZERO);
		pmu_runs_set(&a, i, "dtlb_walk_q", "", 0, PMU_VAL_ZERO);
	}

	/* other JSON lines around ours, as vmapstat -j writes them */
	snprintf(pb, sizeof(pb), "%s/before.json", tmpdir);
	f = fopen(pb, "w");
	fputs("{\"interval\":1,\"rows\":[]}\n", f);
	assert_int_equal(pmu_runs_write_json(f, &b), 0);
	fputs("{\"totals\":{}}\n", f);
	fclose(f);
	snprintf(pa, sizeof(pa), "%s/after.json", tmpdir);
	f = fopen(pa, "w");
	pmu_runs_write_json(f, &a);
	fclose(f);

	assert_int_equal(pmu_runs_read_json(pb, &rb, err, sizeof(err)), 0);
	assert_int_equal(rb.nr_runs, 5);
	assert_int_equal(rb.nr_metrics, 6);
	assert_string_equal(rb.label, "6.12.0 stock");
	assert_string_equal(rb.command, b.command);
	for (int m = 0; m < 4; m++)
		for (int i = 0; i < 5; i++)
			assert_true(pmu_runs_find(&rb, names[m])->values[i] == trbe_before[m][i]);
	/* the sparse metric keeps its gaps, unit and flags */
	const struct pmu_metric *w = pmu_runs_find(&rb, "wall");
	assert_string_equal(w->unit, "ms");
	assert_true(w->flags[0] & PMU_VAL_MISSING);
	assert_true(w->flags[2] & PMU_VAL_SCALED);
	assert_true(w->values[2] == 12.25);
	assert_int_equal(pmu_runs_read_json(pa, &ra, err, sizeof(err)), 0);

	out = capture(print_cmp, &rb, &ra);
	assert_non_null(strstr(out, "| Metric         | Runs | Before avg. | After avg.  | Diff.    |"));
	assert_non_null(strstr(out, "| dtlb_walk      | 5/5  | 68.4        | 59.4        | -13.16%  |"));
	assert_non_null(strstr(out, "| l1d_tlb        | 5/5  | 2128.2      | 6732.0      | +216.32% |"));
	assert_non_null(strstr(out, "| l1d_tlb_refill | 5/5  | 155.8       | 119.6       | -23.23%  |"));
	assert_non_null(strstr(out, "| l2d_tlb_refill | 5/5  | 161435.8    | 495.0       | -99.69%  |"));
	/* a metric only one side has */
	assert_non_null(strstr(out, "| wall (ms)      | 5/0  | 12.2        | -           | n/a      |"));
	/* never counted: said so, not averaged into a 0 */
	assert_non_null(strstr(out, "| dtlb_walk_q    | 5/5  | not counted | not counted | n/a      |"));
	assert_non_null(strstr(out, "before: 6.12.0 stock\nafter:  6.12.0 patched\n"));

	f = fmemopen(out, 16384, "w");
	pmu_runs_compare_json(f, &rb, &ra);
	fclose(f);
	assert_non_null(strstr(out, "\"metric\":\"l2d_tlb_refill\",\"runs_before\":5,\"runs_after\":5,\"before\":161435.8"));
	assert_non_null(strstr(out, "\"diff_pct\":-99.69"));
	pmu_runs_free(&b);
	pmu_runs_free(&a);
	pmu_runs_free(&rb);
	pmu_runs_free(&ra);
}

static void expect_read_error(const char *text, const char *needle)
{
	struct pmu_runs r;
	char path[256];

	write_text("bad.json", text, path, sizeof(path));
	if (pmu_runs_read_json(path, &r, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	assert_non_null(strstr(err, "bad.json: "));
	assert_null(strchr(err, '\n'));
}

/*
 * Only the pmu_runs object is parsed; everything else is stepped over
 * (a run's rows are nearly all of a large file): strings that look like
 * the key, nested values, several JSON lines, the last pmu_runs wins.
 */
static void test_read_skips_the_rest(void **state)
{
	static const char runs[] = "{\"version\":1,\"runs\":1,\"status\":[0],"
				   "\"metrics\":[{\"name\":\"%s\",\"values\":[%d]}]}";
	char text[2048], a[256], b[256], path[256];
	struct pmu_runs r;

	(void)state;
	snprintf(a, sizeof(a), runs, "first", 1);
	snprintf(b, sizeof(b), runs, "second", 2);
	snprintf(text, sizeof(text),
		 "{\"rows\":[{\"caller\":\"}\\\"pmu_runs\\\":{\",\"n\":[1,2.5e3,-4,true,null,{}]}],"
		 "\"pmu_runs\":%s}\n"
		 "[1,{\"pmu_runs\":%s}]\n"
		 "{ \"x\" : \"pmu_runs\" , \"pmu_runs\" : %s , \"y\":[[[]]]}\n", a, b, b);
	write_text("skip.json", text, path, sizeof(path));
	if (pmu_runs_read_json(path, &r, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	assert_int_equal(r.nr_metrics, 1);
	assert_string_equal(r.m[0].name, "second");
	assert_true(r.m[0].values[0] == 2);
	pmu_runs_free(&r);
	/* what is skipped must still be JSON */
	expect_read_error("{\"rows\":[1,2}\n", "not valid JSON at byte 12");
	expect_read_error("{\"rows\":\"unterminated}", "truncated");
	expect_read_error("{\"rows\":\"a\nb\"}", "not valid JSON at byte 10");
	expect_read_error("{\"a\" 1}", "not valid JSON at byte 5");
	expect_read_error("{\"a\":1,}", "not valid JSON");
}

static void test_bad_json(void **state)
{
	struct pmu_runs r;

	(void)state;
	assert_int_equal(pmu_runs_read_json("/nonexistent/x.json", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/x.json: No such file or directory");
	expect_read_error("", "empty file");
	expect_read_error("{\"interval\":1}\n", "no pmu_runs object");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":2", "truncated");
	expect_read_error("[1,2,}", "not valid JSON");
	expect_read_error("{\"pmu_runs\":{\"version\":2,\"runs\":1}}", "unsupported \"version\"");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":0}}", "out of range");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":2,\"status\":[0]}}", "\"status\"");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0]}}", "missing \"metrics\"");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[{\"values\":[1]}]}}",
			  "metric 1 has no \"name\"");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":2,\"status\":[0,0],\"metrics\":[{\"name\":\"x\",\"values\":[1]}]}}",
			  "metric 'x' must have 2 \"values\"");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[{\"name\":\"x\",\"values\":[\"a\"]}]}}",
			  "metric 'x' run 1 is not a number");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[{\"name\":\"x\",\"values\":[1]},{\"name\":\"x\",\"values\":[2]}]}}",
			  "appears twice");
	/* json-c reads NaN and Infinity: no value a counter can have */
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[{\"name\":\"x\",\"values\":[NaN]}]}}",
			  "metric 'x' run 1 is not a number");
	expect_read_error("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[{\"name\":\"x\",\"values\":[-Infinity]}]}}",
			  "metric 'x' run 1 is not a number");
}

/* @text parsed by json-c in strict mode (no NaN, no Infinity), or fail. */
static json_object *parse_strict(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, strlen(text));
	if (!o || json_tokener_get_parse_end(tok) + 1 < strlen(text))
		fail_msg("not valid JSON (%s): %.300s",
			 json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return o;
}

/* The compare row of @metric in a parsed "compare -j" object. */
static json_object *cmp_row_of(json_object *root, const char *metric)
{
	json_object *arr, *name;

	assert_true(json_object_object_get_ex(root, "compare", &arr));
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if (json_object_object_get_ex(o, "metric", &name) &&
		    !strcmp(json_object_get_string(name), metric))
			return o;
	}
	fail_msg("no compare row for %s", metric);
	return NULL;
}

static bool is_null(json_object *row, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(row, key, &v));
	return v == NULL;
}

static double num(json_object *row, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(row, key, &v));
	assert_non_null(v);
	return json_object_get_double(v);
}

/*
 * Valid values whose sums, differences or ratios are not finite: the
 * comparison stays valid JSON, with null where no finite number exists.
 */
static void test_compare_json_extreme_values(void **state)
{
	static char buf[1 << 16];
	struct pmu_runs b, a;
	json_object *root, *row;
	char *text;
	FILE *f;

	(void)state;
	pmu_runs_init(&b, "x", "before");
	pmu_runs_init(&a, "x", "after");
	for (int i = 0; i < 2; i++) {
		pmu_runs_add_run(&b, 0);
		pmu_runs_add_run(&a, 0);
		/* the sum of the runs overflows, their average does not */
		pmu_runs_set(&b, i, "huge", "", 1e308, 0);
		pmu_runs_set(&a, i, "huge", "", -1e308, 0);
		/* the ratio overflows */
		pmu_runs_set(&b, i, "tiny", "", 1e-300, 0);
		pmu_runs_set(&a, i, "tiny", "", 1e308, 0);
		pmu_runs_set(&b, i, "plain", "", 100, 0);
		pmu_runs_set(&a, i, "plain", "", 75, 0);
	}
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(pmu_runs_compare_json(f, &b, &a), 0);
	fclose(f);
	assert_null(strstr(buf, "inf"));
	assert_null(strstr(buf, "nan"));
	root = parse_strict(buf);
	row = cmp_row_of(root, "huge");
	assert_true(num(row, "before") == 1e308);
	assert_true(num(row, "after") == -1e308);
	assert_true(num(row, "diff_pct") == -200.0);
	row = cmp_row_of(root, "tiny");
	assert_true(is_null(row, "diff_pct"));
	row = cmp_row_of(root, "plain");
	assert_true(num(row, "diff_pct") == -25.0);
	json_object_put(root);

	/* the table says n/a where JSON says null */
	text = capture(print_cmp, &b, &a);
	assert_non_null(strstr(text, "| -200.00% |"));
	assert_null(strstr(text, "inf"));
	assert_null(strstr(text, "nan"));

	/* and the saved runs are valid JSON too */
	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(pmu_runs_write_json(f, &b), 0);
	fclose(f);
	json_object_put(parse_strict(buf));
	pmu_runs_free(&b);
	pmu_runs_free(&a);
}

#define BIG	100000

/* BIG metrics of 3 runs, value run * BIG + i; "after" has one more. */
static void fill_big(struct pmu_runs *r, int extra)
{
	char name[32];

	pmu_runs_init(r, "big", NULL);
	for (int run = 0; run < 3; run++) {
		assert_int_equal(pmu_runs_add_run(r, 0), run);
		for (int i = 0; i < BIG + extra; i++) {
			snprintf(name, sizeof(name), "metric_%06d", i);
			assert_int_equal(pmu_runs_set(r, run, name, "", (double)run * BIG + i, 0), 0);
		}
	}
}

/*
 * A file of 100k metrics reads back whole and compares row by row (the
 * time and memory this takes are in docs/benchmarks.md, not asserted).
 */
static void test_many_metrics(void **state)
{
	struct pmu_runs b, a, rb, ra;
	char pb[256], pa[256], name[32];
	json_object *root, *arr;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill_big(&b, 0);
	fill_big(&a, 1);
	assert_int_equal(b.nr_metrics, BIG);
	snprintf(pb, sizeof(pb), "%s/big_b.json", tmpdir);
	snprintf(pa, sizeof(pa), "%s/big_a.json", tmpdir);
	f = fopen(pb, "w");
	assert_int_equal(pmu_runs_write_json(f, &b), 0);
	fclose(f);
	f = fopen(pa, "w");
	assert_int_equal(pmu_runs_write_json(f, &a), 0);
	fclose(f);
	assert_int_equal(pmu_runs_read_json(pb, &rb, err, sizeof(err)), 0);
	assert_int_equal(pmu_runs_read_json(pa, &ra, err, sizeof(err)), 0);
	assert_int_equal(rb.nr_metrics, BIG);
	assert_int_equal(ra.nr_metrics, BIG + 1);
	for (int i = 0; i < BIG; i += 997) {
		const struct pmu_metric *m;
		double avg;

		snprintf(name, sizeof(name), "metric_%06d", i);
		m = pmu_runs_find(&rb, name);
		assert_non_null(m);
		assert_string_equal(m->name, name);
		assert_true(m->values[2] == 2.0 * BIG + i);
		assert_true(pmu_metric_avg(&rb, m, &avg) && avg == BIG + i);
	}
	assert_null(pmu_runs_find(&rb, "metric_100000"));
	assert_non_null(pmu_runs_find(&ra, "metric_100000"));

	f = open_memstream(&text, &len);
	assert_int_equal(pmu_runs_compare_json(f, &rb, &ra), 0);
	fclose(f);
	root = parse_strict(text);
	assert_true(json_object_object_get_ex(root, "compare", &arr));
	/* every metric once, before's order, then the one only "after" has */
	assert_int_equal(json_object_array_length(arr), BIG + 1);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(arr, 12345), "metric")), "metric_012345");
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(arr, BIG), "metric")), "metric_100000");
	assert_true(is_null(json_object_array_get_idx(arr, BIG), "before"));
	json_object_put(root);
	free(text);

	/* a duplicate at the very end is still found */
	f = fopen(pb, "w");
	fputs("{\"pmu_runs\":{\"version\":1,\"runs\":1,\"status\":[0],\"metrics\":[", f);
	for (int i = 0; i < BIG; i++)
		fprintf(f, "{\"name\":\"metric_%06d\",\"values\":[%d]},", i, i);
	fputs("{\"name\":\"metric_054321\",\"values\":[1]}]}}\n", f);
	fclose(f);
	pmu_runs_free(&rb);
	assert_int_equal(pmu_runs_read_json(pb, &rb, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "metric 'metric_054321' appears twice"));
	pmu_runs_free(&b);
	pmu_runs_free(&a);
	pmu_runs_free(&ra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_averages_and_table),
		cmocka_unit_test(test_flags_and_missing),
		cmocka_unit_test(test_status_lines),
		cmocka_unit_test(test_diff_format),
		cmocka_unit_test(test_json_roundtrip_and_compare),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_read_skips_the_rest),
		cmocka_unit_test(test_compare_json_extreme_values),
		cmocka_unit_test(test_many_metrics),
	};

	return cmocka_run_group_tests_name("pmu_runs", tests, mk_tmp, rm_tmp);
}
