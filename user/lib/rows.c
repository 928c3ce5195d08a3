// SPDX-License-Identifier: GPL-2.0
/* The row table: samples, their difference and their per-API fold (rows.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

_Static_assert(sizeof(struct vmapscope_stats) % sizeof(uint64_t) == 0,
	       "vmapscope_stats must hold only 64-bit counters");

#define ABOVE_OFF_SCALAR(f)	offsetof(struct vmapscope_stats, f)
#define ABOVE_OFF_GRANULE(f)	offsetof(struct vmapscope_stats, f)
#define ABOVE_OFF_REASON(f)	offsetof(struct vmapscope_stats, f)
#define ABOVE_OFF_HIST(f)	offsetof(struct vmapscope_stats, f##_above)
#define ROW_FIELD(kind, unit, f, json, prom, help, sum, text, label)		\
	{ ROW_##kind, ROW_UNIT_##unit, offsetof(struct vmapscope_stats, f),	\
	  offsetof(struct vmapscope_stats, sum), ABOVE_OFF_##kind(f),		\
	  json, prom, help, text, label },
const struct row_field row_fields[] = {
	VMAPSCOPE_ROW_FIELDS(ROW_FIELD)
};
#undef ROW_FIELD
const size_t nr_row_fields = sizeof(row_fields) / sizeof(row_fields[0]);

#define RUN_METRIC(name, unit, f, how, feat)					\
	{ name, unit, offsetof(struct vmapscope_stats, f), RUN_##how, VMAPSCOPE_FEAT_##feat },
const struct run_metric run_metrics[] = {
	VMAPSCOPE_RUN_METRICS(RUN_METRIC)
};
#undef RUN_METRIC
const size_t nr_run_metrics = sizeof(run_metrics) / sizeof(run_metrics[0]);

const struct row_field *row_field_at(size_t off)
{
	for (size_t i = 0; i < nr_row_fields; i++)
		if (row_fields[i].off == off)
			return &row_fields[i];
	return NULL;
}

int run_metric_value(const struct vmapscope_sample *s, const struct run_metric *m,
		     double *value)
{
	const struct row_field *f = row_field_at(m->off);
	uint64_t sum = 0, count = 0;

	if (!f || !s->feat[m->feature].available)
		return -1;
	for (size_t i = 0; i < s->nr_rows; i++) {
		const struct vmapscope_stats *st = &s->rows[i].st;
		const uint64_t *v = row_field_values(st, f);

		for (unsigned int k = 0; k < row_field_len(f); k++) {
			if (m->how == RUN_LARGE && k <= s->page_shift)
				continue;
			if (m->how == RUN_MEAN)
				count += v[k];
			else
				sum += v[k];
		}
		if (m->how == RUN_MEAN)
			sum += row_field_sum(st, f);
	}
	if (m->how == RUN_MEAN) {
		if (!count)
			return -1;
		*value = (double)sum / count;
	} else {
		*value = sum;
	}
	return 0;
}

const struct row_entries row_granule_entries = {
	.json = "mappings",
	.prom = "vmapscope_mappings_total",
	.help = "Page-table entries written (bytes / granule size), by caller, API and mapping granule.",
	.label = "mappings",
};

#define NR_STATS_WORDS (sizeof(struct vmapscope_stats) / sizeof(uint64_t))

const char *by_name(int by)
{
	return by == VMAPSCOPE_BY_CGROUP ? "cgroup" : by == VMAPSCOPE_BY_COMM ? "comm" : NULL;
}

int row_cmp(const void *a, const void *b)
{
	const struct vmapscope_row *x = a, *y = b;
	int i;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->api != y->api)
		return (x->api > y->api) - (x->api < y->api);
	for (i = 0; i < 2; i++)
		if (x->label[i] != y->label[i])
			return x->label[i] < y->label[i] ? -1 : 1;
	return 0;
}

uint64_t row_total_bytes(const struct vmapscope_row *r)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < VMAPSCOPE_NR_SHIFTS; i++)
		t += r->st.bytes[i];
	return t;
}

void sample_free(struct vmapscope_sample *s)
{
	free(s->rows);
	s->rows = NULL;
	s->nr_rows = 0;
}

bool stats_zero(const struct vmapscope_stats *s)
{
	const uint64_t *p = (const uint64_t *)s;
	size_t i;

	for (i = 0; i < NR_STATS_WORDS; i++)
		if (p[i])
			return false;
	return true;
}

void stats_from_bpf(struct vmapscope_stats *s)
{
	size_t k;
	unsigned int i;

	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *f = &row_fields[k];
		uint64_t *v = (uint64_t *)((char *)s + f->off);

		if (f->kind != ROW_HIST)
			continue;
		for (i = 0; i < VMAPSCOPE_HIST_SLOTS; i++)
			v[i] += row_field_above(s, f)[i];
	}
}

static void stats_sub(struct vmapscope_stats *out, const struct vmapscope_stats *a,
		      const struct vmapscope_stats *b)
{
	const uint64_t *pa = (const uint64_t *)a, *pb = (const uint64_t *)b;
	uint64_t *po = (uint64_t *)out;
	size_t i;

	for (i = 0; i < NR_STATS_WORDS; i++)
		po[i] = pa[i] - (pb ? pb[i] : 0);
}

void stats_add(struct vmapscope_stats *out, const struct vmapscope_stats *a)
{
	const uint64_t *pa = (const uint64_t *)a;
	uint64_t *po = (uint64_t *)out;
	size_t i;

	for (i = 0; i < NR_STATS_WORDS; i++)
		po[i] += pa[i];
}

/* Everything of @in but its rows. */
static void copy_meta(struct vmapscope_sample *out, const struct vmapscope_sample *in)
{
	struct vmapscope_row *rows = out->rows;
	size_t n = out->nr_rows;

	*out = *in;
	out->rows = rows;
	out->nr_rows = n;
}

int sample_delta(const struct vmapscope_sample *cur, const struct vmapscope_sample *prev,
		 struct vmapscope_sample *out)
{
	size_t i, j = 0;

	memset(out, 0, sizeof(*out));
	out->rows = calloc(cur->nr_rows ? cur->nr_rows : 1, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	copy_meta(out, cur);
	out->nr_rows = 0;
	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++)
		out->counters[i] = cur->counters[i] - (prev ? prev->counters[i] : 0);
	out->interval_s = prev ? (cur->mono.tv_sec - prev->mono.tv_sec) +
				 (cur->mono.tv_nsec - prev->mono.tv_nsec) / 1e9 : 0;
	/* both row arrays are sorted by (caller, api): merge */
	for (i = 0; i < cur->nr_rows; i++) {
		const struct vmapscope_row *r = &cur->rows[i], *pr = NULL;
		struct vmapscope_row *o = &out->rows[out->nr_rows];

		while (prev && j < prev->nr_rows && row_cmp(&prev->rows[j], r) < 0)
			j++;
		if (prev && j < prev->nr_rows && !row_cmp(&prev->rows[j], r))
			pr = &prev->rows[j];
		*o = *r;
		stats_sub(&o->st, &r->st, pr ? &pr->st : NULL);
		if (!stats_zero(&o->st))
			out->nr_rows++;
	}
	return 0;
}

int rows_by_api(const struct vmapscope_sample *in, struct vmapscope_sample *out)
{
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->rows = calloc(in->nr_rows ? in->nr_rows : 1, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	copy_meta(out, in);
	/* caller 0, then (api, label) order: row_cmp sorts them, equal ones fold */
	for (i = 0; i < in->nr_rows; i++) {
		struct vmapscope_row *r = &out->rows[i];

		*r = in->rows[i];
		r->caller = 0;
		r->api &= 15;
	}
	qsort(out->rows, in->nr_rows, sizeof(*out->rows), row_cmp);
	for (i = 0; i < in->nr_rows; i++) {
		if (n && !row_cmp(&out->rows[n - 1], &out->rows[i])) {
			stats_add(&out->rows[n - 1].st, &out->rows[i].st);
			continue;
		}
		out->rows[n] = out->rows[i];
		snprintf(out->rows[n].sym, sizeof(out->rows[n].sym), "%s",
			 api_name(out->rows[n].api));
		n++;
	}
	out->nr_rows = n;
	return 0;
}
