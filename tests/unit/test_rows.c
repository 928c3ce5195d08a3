// SPDX-License-Identifier: GPL-2.0
/*
 * The row field table against the struct it is generated with: every
 * counter of struct vmapscope_stats has exactly one entry, in layout
 * order; the names every output uses are unique and of the form
 * Prometheus and JSON consumers expect; the arithmetic over rows
 * (stats_add, sample_delta) covers every field; the --repeat figures
 * (VMAPSCOPE_RUN_METRICS) are computed from the fields they name.
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
		/* a HIST's slots are followed by their parts above the edge */
		if (rf->kind == ROW_HIST) {
			assert_int_equal(rf->above_off, end);
			end += row_field_len(rf) * sizeof(uint64_t);
		} else {
			assert_int_equal(rf->above_off, rf->off);
		}
	}
	assert_int_equal(end, sizeof(struct vmapscope_stats));
}

static void test_names_and_sums(void **state)
{
	size_t k, j;

	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k], *sum = row_field_at(rf->sum_off);
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
		if (row_fields[k].kind == ROW_HIST)
			assert_memory_equal(row_field_above(&sum, &row_fields[k]),
					    row_field_above(&rb.st, &row_fields[k]),
					    VMAPSCOPE_HIST_SLOTS * sizeof(uint64_t));
	}
	sample_free(&d);
}

/*
 * The BPF program counts a slot's values at or below its edge in the
 * field and those above in field_above: the read makes the field the
 * whole slot, and leaves everything else as it was.
 */
static void test_from_bpf_makes_whole_slots(void **state)
{
	struct vmapscope_stats st = {}, want;

	st.chunks = 9;
	st.bytes[12] = 4096;
	st.chunk_hist[3] = 2;		/* 8 pages, twice */
	st.chunk_hist_above[3] = 5;	/* 9..15 pages */
	st.lat_hist_above[35] = 1;
	want = st;
	want.chunk_hist[3] = 7;
	want.lat_hist[35] = 1;
	stats_from_bpf(&st);
	assert_memory_equal(&st, &want, sizeof(st));
}

/* Each run metric names a field of the kind its computation needs. */
static void test_run_metrics_name_fields(void **state)
{
	size_t k, j;

	assert_true(nr_run_metrics > 0);
	for (k = 0; k < nr_run_metrics; k++) {
		const struct run_metric *m = &run_metrics[k];
		const struct row_field *f = row_field_at(m->off);

		assert_non_null(f);
		assert_true(m->feature >= 0 && m->feature < VMAPSCOPE_FEAT_MAX);
		if (m->how == RUN_MEAN)
			assert_int_equal(f->kind, ROW_HIST);
		else if (m->how == RUN_LARGE)
			assert_int_equal(f->kind, ROW_GRANULE);
		else
			assert_int_not_equal(f->kind, ROW_HIST);
		for (j = 0; j < k; j++)
			assert_string_not_equal(run_metrics[j].name, m->name);
	}
}

static const struct run_metric *metric(const char *name)
{
	for (size_t k = 0; k < nr_run_metrics; k++)
		if (!strcmp(run_metrics[k].name, name))
			return &run_metrics[k];
	fail_msg("no run metric '%s'", name);
	return NULL;
}

/* The figures over two rows, and none where the feature or the data is missing. */
static void test_run_metric_values(void **state)
{
	struct vmapscope_row rows[2] = {};
	struct vmapscope_sample s = { .rows = rows, .nr_rows = 2, .page_shift = 12 };
	double v;

	rows[0].st.bytes[12] = 4096;
	rows[0].st.bytes[21] = 2 << 20;
	rows[1].st.bytes[16] = 65536;
	rows[0].st.chunks = 3;
	rows[1].st.chunks = 4;
	rows[0].st.lat_hist[5] = 2;
	rows[0].st.lat_sum_ns = 100;
	rows[1].st.lat_hist[9] = 3;
	rows[1].st.lat_sum_ns = 1400;

	/* no feature, no figure */
	assert_int_equal(run_metric_value(&s, metric("vmap bytes mapped"), &v), -1);
	s.feat[VMAPSCOPE_FEAT_GRANULE].available = true;
	s.feat[VMAPSCOPE_FEAT_CHUNK].available = true;
	s.feat[VMAPSCOPE_FEAT_LATENCY].available = true;
	s.feat[VMAPSCOPE_FEAT_CALL_LATENCY].available = true;
	assert_int_equal(run_metric_value(&s, metric("vmap bytes mapped"), &v), 0);
	assert_true(v == 4096 + (2 << 20) + 65536);
	assert_int_equal(run_metric_value(&s, metric("vmap bytes in large granules"), &v), 0);
	assert_true(v == (2 << 20) + 65536);
	assert_int_equal(run_metric_value(&s, metric("vmap chunks"), &v), 0);
	assert_true(v == 7);
	assert_int_equal(run_metric_value(&s, metric("vmap mapping latency avg"), &v), 0);
	assert_true(v == 1500.0 / 5);
	/* a count of zero is a figure, a mean of nothing is not */
	assert_int_equal(run_metric_value(&s, metric("vmap calls"), &v), 0);
	assert_true(v == 0);
	assert_int_equal(run_metric_value(&s, metric("vmap call latency avg"), &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_covers_the_struct),
		cmocka_unit_test(test_names_and_sums),
		cmocka_unit_test(test_arithmetic_covers_every_field),
		cmocka_unit_test(test_from_bpf_makes_whole_slots),
		cmocka_unit_test(test_run_metrics_name_fields),
		cmocka_unit_test(test_run_metric_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
