// SPDX-License-Identifier: GPL-2.0
/*
 * The row field table against the struct it is generated with: every
 * counter of struct vmapscope_stats has exactly one entry, in layout
 * order; the names every output uses are unique and of the form
 * Prometheus and JSON consumers expect; the arithmetic over rows
 * (stats_add, sample_delta) covers every field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rows.h"

static void test_table_covers_the_struct(void **state)
{
	size_t k, end = 0;

	assert_true(nr_row_fields > 0);
	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];

		/* contiguous, in order: the table is the struct */
		assert_int_equal(rf->off, end);
		end += row_field_len(rf) * sizeof(uint64_t);
	}
	assert_int_equal(end, sizeof(struct vmapscope_stats));
}

static const struct row_field *by_off(size_t off)
{
	size_t k;

	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].off == off)
			return &row_fields[k];
	return NULL;
}

static void test_names_and_sums(void **state)
{
	size_t k, j;

	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k], *sum = by_off(rf->sum_off);
		size_t n;

		assert_non_null(rf->json);
		assert_non_null(sum);
		if (rf->kind == ROW_HIST)
			assert_int_equal(sum->kind, ROW_SCALAR);
		else
			assert_ptr_equal(sum, rf);
		if (rf->prom) {
			assert_non_null(rf->help);
			assert_true(strncmp(rf->prom, "vmapscope_", 10) == 0);
			n = strlen(rf->prom);
			/* counters end in _total; histograms name their base unit */
			if (rf->kind == ROW_HIST)
				assert_true(strstr(rf->prom, rf->unit == ROW_UNIT_NS ? "_seconds" : "_pages"));
			else
				assert_true(n > 6 && !strcmp(rf->prom + n - 6, "_total"));
		}
		if (rf->text && rf->kind == ROW_SCALAR)
			assert_true(rf->label || rf->unit == ROW_UNIT_BYTES);
		for (j = 0; j < k; j++) {
			assert_string_not_equal(row_fields[j].json, rf->json);
			if (rf->prom && row_fields[j].prom)
				assert_string_not_equal(row_fields[j].prom, rf->prom);
		}
	}
}

/* Every word of every field is added and subtracted: none is left behind. */
static void test_arithmetic_covers_every_field(void **state)
{
	struct vmapscope_sample a = {}, b = {}, d = {};
	struct vmapscope_row ra = {}, rb = {};
	struct vmapscope_stats sum = {};
	uint64_t *w;
	size_t k, i;

	w = (uint64_t *)&rb.st;
	for (i = 0; i < sizeof(rb.st) / sizeof(*w); i++)
		w[i] = 3 * i + 5;
	w = (uint64_t *)&ra.st;
	for (i = 0; i < sizeof(ra.st) / sizeof(*w); i++)
		w[i] = i + 1;
	a.rows = &ra;
	a.nr_rows = 1;
	b.rows = &rb;
	b.nr_rows = 1;
	assert_int_equal(sample_delta(&b, &a, &d), 0);
	assert_int_equal(d.nr_rows, 1);
	stats_add(&sum, &d.rows[0].st);
	stats_add(&sum, &ra.st);
	for (k = 0; k < nr_row_fields; k++) {
		const uint64_t *got = row_field_values(&sum, &row_fields[k]);
		const uint64_t *want = row_field_values(&rb.st, &row_fields[k]);

		assert_memory_equal(got, want, row_field_len(&row_fields[k]) * sizeof(uint64_t));
	}
	sample_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_covers_the_struct),
		cmocka_unit_test(test_names_and_sums),
		cmocka_unit_test(test_arithmetic_covers_every_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
