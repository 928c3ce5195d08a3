// SPDX-License-Identifier: GPL-2.0
/* Exposition format writer: escaping, names, numbers, histograms. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prom_expo.h"

static struct prom_buf b;

static int setup(void **state)
{
	(void)state;
	prom_buf_init(&b);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	prom_buf_free(&b);
	return 0;
}

static void test_label_value_escaping(void **state)
{
	struct prom_label l[] = {
		{ "caller", "a\\b\"c\nd" },
		{ "api", "" },
	};

	(void)state;
	prom_sample_u64(&b, "m_total", l, 2, 7);
	assert_int_equal(prom_buf_error(&b), 0);
	assert_string_equal(b.data, "m_total{caller=\"a\\\\b\\\"c\\nd\",api=\"\"} 7\n");
}

static void test_help_escaping(void **state)
{
	(void)state;
	/* HELP escapes backslash and newline, but not the double quote */
	prom_family(&b, "m_total", PROM_COUNTER, "say \"hi\" C:\\x\nnext");
	assert_string_equal(b.data,
			    "# HELP m_total say \"hi\" C:\\\\x\\nnext\n"
			    "# TYPE m_total counter\n");
}

static void test_no_labels(void **state)
{
	(void)state;
	prom_sample_u64(&b, "up", NULL, 0, 1);
	prom_sample_u64(&b, "big", NULL, 0, UINT64_MAX);
	assert_string_equal(b.data, "up 1\nbig 18446744073709551615\n");
}

static void test_names(void **state)
{
	(void)state;
	assert_true(prom_valid_metric_name("vmapscope_x:y_total"));
	assert_true(prom_valid_metric_name("_x"));
	assert_false(prom_valid_metric_name("1x"));
	assert_false(prom_valid_metric_name("a-b"));
	assert_false(prom_valid_metric_name(""));
	assert_true(prom_valid_label_name("caller"));
	assert_true(prom_valid_label_name("_x9"));
	assert_false(prom_valid_label_name("__name__"));	/* reserved */
	assert_false(prom_valid_label_name("a:b"));		/* no colon */
	assert_false(prom_valid_label_name("9a"));
}

static void test_bad_names_are_sticky_errors(void **state)
{
	struct prom_label bad = { "le-x", "1" };

	(void)state;
	prom_sample_u64(&b, "ok_total", NULL, 0, 1);
	prom_sample_u64(&b, "bad name", NULL, 0, 1);
	assert_int_not_equal(prom_buf_error(&b), 0);
	assert_non_null(strstr(b.errmsg, "bad name"));
	/* nothing is appended after the first error */
	prom_sample_u64(&b, "later_total", NULL, 0, 1);
	assert_null(strstr(b.data, "later_total"));

	prom_buf_reset(&b);
	assert_int_equal(prom_buf_error(&b), 0);
	prom_sample_u64(&b, "x_total", &bad, 1, 1);
	assert_int_not_equal(prom_buf_error(&b), 0);
	assert_non_null(strstr(b.errmsg, "le-x"));
}

static void fmt(double v, const char *want)
{
	char out[40];

	assert_string_equal(prom_format_double(v, out, sizeof(out)), want);
}

static void test_format_double(void **state)
{
	(void)state;
	fmt(0, "0");
	fmt(1024, "1024");
	fmt(0.5, "0.5");
	fmt(3.0 / 1e9, "3e-09");
	fmt(2047.0 / 1e9, "2.047e-06");
	fmt(34359738367.0 / 1e9, "34.359738367");
	fmt(0.1, "0.1");
	fmt(INFINITY, "+Inf");
	fmt(-INFINITY, "-Inf");
	fmt(NAN, "NaN");
	fmt(1796053100.8194406, "1796053100.8194406");
}

static void test_format_double_round_trips(void **state)
{
	char out[40];
	double v = 1e-9;
	int i;

	(void)state;
	for (i = 0; i < 200; i++, v *= 1.37) {
		prom_format_double(v, out, sizeof(out));
		assert_true(strtod(out, NULL) == v);
	}
}

static void test_histogram_cumulative(void **state)
{
	static const double le[] = { 1, 3, 7 };
	static const uint64_t counts[] = { 1, 0, 2, 3 };	/* 3 above 7 */
	struct prom_hist h = { .nr_bounds = 3, .le = le, .counts = counts, .sum = 42.5 };
	struct prom_label l = { "api", "vmap" };

	(void)state;
	prom_family(&b, "h_pages", PROM_HISTOGRAM, "x");
	prom_histogram(&b, "h_pages", &l, 1, &h);
	assert_int_equal(prom_buf_error(&b), 0);
	assert_string_equal(b.data,
			    "# HELP h_pages x\n"
			    "# TYPE h_pages histogram\n"
			    "h_pages_bucket{api=\"vmap\",le=\"1\"} 1\n"
			    "h_pages_bucket{api=\"vmap\",le=\"3\"} 1\n"
			    "h_pages_bucket{api=\"vmap\",le=\"7\"} 3\n"
			    "h_pages_bucket{api=\"vmap\",le=\"+Inf\"} 6\n"
			    "h_pages_sum{api=\"vmap\"} 42.5\n"
			    "h_pages_count{api=\"vmap\"} 6\n");
}

static void test_histogram_without_labels(void **state)
{
	static const double le[] = { 0.5 };
	static const uint64_t counts[] = { 0, 0 };
	struct prom_hist h = { .nr_bounds = 1, .le = le, .counts = counts, .sum = 0 };

	(void)state;
	prom_histogram(&b, "h_seconds", NULL, 0, &h);
	assert_string_equal(b.data,
			    "h_seconds_bucket{le=\"0.5\"} 0\n"
			    "h_seconds_bucket{le=\"+Inf\"} 0\n"
			    "h_seconds_sum 0\n"
			    "h_seconds_count 0\n");
}

static void test_histogram_rejects_unsorted_bounds(void **state)
{
	static const double le[] = { 1, 1 };
	static const uint64_t counts[] = { 0, 0, 0 };
	struct prom_hist h = { .nr_bounds = 2, .le = le, .counts = counts };

	(void)state;
	prom_histogram(&b, "h", NULL, 0, &h);
	assert_int_not_equal(prom_buf_error(&b), 0);
}

static void test_buffer_grows(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 10000; i++)
		prom_sample_u64(&b, "grow_total", NULL, 0, i);
	assert_int_equal(prom_buf_error(&b), 0);
	assert_true(b.len > 100000);
	assert_int_equal(strlen(b.data), b.len);
	assert_non_null(strstr(b.data, "grow_total 9999\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_label_value_escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_names_are_sticky_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_double, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format_double_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_cumulative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_without_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_rejects_unsorted_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_grows, setup, teardown),
	};

	return cmocka_run_group_tests_name("prom_expo", tests, NULL, NULL);
}
