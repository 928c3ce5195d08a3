// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf exposition (prom_proto.c): what the writer encodes is
 * decoded again with protobuf-c's own unpacker from the same generated
 * messages, and compared field by field: families, types, labels, values,
 * classic buckets, native histograms (schema, zero bucket, spans and
 * deltas turned back into absolute counts).  Then a whole rendered
 * exposition: the same families and series as the text format, and every
 * native histogram holding exactly the observations of its log2 slots.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/prometheus/client/metrics.pb-c.h"
#include "hist.h"
#include "prom_expo.h"
#include "prom_metrics.h"

typedef Io__Prometheus__Client__MetricFamily MetricFamily;
typedef Io__Prometheus__Client__Histogram Histogram;

struct decoded {
	MetricFamily *fam[256];
	size_t n;
};

/* Length-delimited MetricFamily messages, as Prometheus reads them. */
static void decode(const struct prom_buf *b, struct decoded *d)
{
	const uint8_t *p = (const uint8_t *)b->data, *end = p + b->len;

	memset(d, 0, sizeof(*d));
	while (p < end) {
		uint64_t len = 0;
		int shift = 0;

		do {
			assert_true(p < end && shift < 64);
			len |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		assert_true(len <= (uint64_t)(end - p));
		assert_true(d->n < 256);
		d->fam[d->n] = io__prometheus__client__metric_family__unpack(NULL, len, p);
		assert_non_null(d->fam[d->n]);
		d->n++;
		p += len;
	}
}

static void decoded_free(struct decoded *d)
{
	for (size_t i = 0; i < d->n; i++)
		io__prometheus__client__metric_family__free_unpacked(d->fam[i], NULL);
}

static const MetricFamily *family(const struct decoded *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->fam[i]->name, name))
			return d->fam[i];
	return NULL;
}

/* The native buckets back as absolute counts: counts[k - first] for bucket k. */
static size_t native_counts(const Histogram *h, int32_t first, uint64_t *counts, size_t cap)
{
	int32_t idx = 0;
	int64_t c = 0;
	size_t s, j, d = 0, nonzero = 0;

	memset(counts, 0, cap * sizeof(*counts));
	for (s = 0; s < h->n_positive_span; s++) {
		idx += h->positive_span[s]->offset;
		for (j = 0; j < h->positive_span[s]->length; j++, idx++) {
			assert_true(d < h->n_positive_delta);
			c += h->positive_delta[d++];
			assert_true(c >= 0);
			assert_true(idx >= first && (size_t)(idx - first) < cap);
			counts[idx - first] = (uint64_t)c;
			nonzero += c > 0;
		}
	}
	assert_int_equal(d, h->n_positive_delta);
	return nonzero;
}

static void test_families_and_samples(void **state)
{
	struct prom_label l[2] = { { "caller", "a\"b\\c\nd" }, { "api", "vmap" } };
	struct prom_buf b;
	struct decoded d;
	const MetricFamily *f;

	prom_buf_init_protobuf(&b, false);
	prom_family(&b, "x_total", PROM_COUNTER, "help with \\ and \n");
	prom_sample_u64(&b, "x_total", l, 2, 12345678901ULL);
	prom_sample_u64(&b, "x_total", NULL, 0, 0);
	prom_family(&b, "empty", PROM_GAUGE, "no samples: left out");
	prom_family(&b, "g", PROM_GAUGE, "a gauge");
	prom_sample_double(&b, "g", NULL, 0, -0.25);
	prom_family(&b, "u", PROM_UNTYPED, "");
	prom_sample_double(&b, "u", l + 1, 1, NAN);
	assert_int_equal(prom_buf_finish(&b), 0);
	decode(&b, &d);
	assert_int_equal(d.n, 3);
	assert_null(family(&d, "empty"));

	f = family(&d, "x_total");
	assert_non_null(f);
	assert_int_equal(f->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	assert_string_equal(f->help, "help with \\ and \n");	/* no escaping in protobuf */
	assert_int_equal(f->n_metric, 2);
	assert_int_equal(f->metric[0]->n_label, 2);
	assert_string_equal(f->metric[0]->label[0]->name, "caller");
	assert_string_equal(f->metric[0]->label[0]->value, "a\"b\\c\nd");
	assert_string_equal(f->metric[0]->label[1]->value, "vmap");
	assert_non_null(f->metric[0]->counter);
	assert_true(f->metric[0]->counter->value == 12345678901.0);
	assert_int_equal(f->metric[1]->n_label, 0);

	f = family(&d, "g");
	assert_int_equal(f->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	assert_true(f->metric[0]->gauge->value == -0.25);
	f = family(&d, "u");
	assert_int_equal(f->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED);
	assert_true(isnan(f->metric[0]->untyped->value));
	decoded_free(&d);
	prom_buf_free(&b);
}

/*
 * Native buckets with gaps of 1, 2 and 3 empty buckets (the first two
 * written as zero deltas inside a span, the third as a new span), a zero
 * bucket, and negative bucket indexes; with and without classic buckets.
 */
static void test_histograms(void **state)
{
	static const double le[] = { 1, 2, 4 };
	static const uint64_t classic[] = { 3, 0, 1, 6 };	/* 10 observations */
	static const uint64_t ncounts[] = { 2, 0, 1, 0, 0, 3, 0, 0, 0, 1, 0 };
	const struct prom_native n = { .zero = 3, .first = -3, .nr = 11, .counts = ncounts };
	struct prom_hist h = { 3, le, classic, 42.5, &n };
	uint64_t back[16];
	struct prom_buf b;
	struct decoded d;
	const Histogram *hg;

	for (int with_classic = 0; with_classic < 2; with_classic++) {
		prom_buf_init_protobuf(&b, with_classic);
		prom_family(&b, "h_seconds", PROM_HISTOGRAM, "native");
		prom_histogram(&b, "h_seconds", NULL, 0, &h);
		assert_int_equal(prom_buf_finish(&b), 0);
		decode(&b, &d);
		assert_int_equal(d.n, 1);
		assert_int_equal(d.fam[0]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
		hg = d.fam[0]->metric[0]->histogram;
		assert_non_null(hg);
		assert_int_equal(hg->sample_count, 10);
		assert_true(hg->sample_sum == 42.5);
		assert_true(hg->has_schema && hg->schema == 0);
		assert_true(hg->zero_threshold == 0x1p-128);
		assert_int_equal(hg->zero_count, 3);
		/* gaps of 1 and 2 inside the first span, 3 starts the second */
		assert_int_equal(hg->n_positive_span, 2);
		assert_int_equal(hg->positive_span[0]->offset, -3);
		assert_int_equal(hg->positive_span[0]->length, 6);
		assert_int_equal(hg->positive_span[1]->offset, 3);
		assert_int_equal(hg->positive_span[1]->length, 1);
		assert_int_equal(native_counts(hg, -3, back, 16), 4);
		assert_memory_equal(back, ncounts, sizeof(ncounts));
		if (with_classic) {
			assert_int_equal(hg->n_bucket, 3);
			assert_int_equal(hg->bucket[0]->cumulative_count, 3);
			assert_int_equal(hg->bucket[2]->cumulative_count, 4);
			assert_true(hg->bucket[2]->upper_bound == 4);
		} else {
			assert_int_equal(hg->n_bucket, 0);
		}
		decoded_free(&d);
		prom_buf_free(&b);
	}

	/* no native form: the classic buckets, whatever the buffer asks */
	h.native = NULL;
	prom_buf_init_protobuf(&b, false);
	prom_family(&b, "c", PROM_HISTOGRAM, "classic");
	prom_histogram(&b, "c", NULL, 0, &h);
	assert_int_equal(prom_buf_finish(&b), 0);
	decode(&b, &d);
	hg = d.fam[0]->metric[0]->histogram;
	assert_int_equal(hg->n_bucket, 3);
	assert_false(hg->has_schema);
	assert_int_equal(hg->n_positive_span, 0);
	decoded_free(&d);
	prom_buf_free(&b);
}

/* An empty native histogram still reads as native: a span of length 0. */
static void test_empty_native(void **state)
{
	static const double le[] = { 1 };
	static const uint64_t classic[] = { 0, 0 };
	const struct prom_native n = { 0 };
	struct prom_hist h = { 1, le, classic, 0, &n };
	struct prom_buf b;
	struct decoded d;
	const Histogram *hg;

	prom_buf_init_protobuf(&b, false);
	prom_family(&b, "e", PROM_HISTOGRAM, "");
	prom_histogram(&b, "e", NULL, 0, &h);
	assert_int_equal(prom_buf_finish(&b), 0);
	decode(&b, &d);
	hg = d.fam[0]->metric[0]->histogram;
	assert_int_equal(hg->sample_count, 0);
	assert_int_equal(hg->n_positive_span, 1);
	assert_int_equal(hg->positive_span[0]->length, 0);
	assert_int_equal(hg->n_positive_delta, 0);
	assert_true(hg->zero_threshold > 0);
	decoded_free(&d);
	prom_buf_free(&b);
}

static void test_errors(void **state)
{
	static const double le[] = { 1 };
	static const uint64_t classic[] = { 1, 1 };
	static const uint64_t one[] = { 1 };
	const struct prom_native n = { .first = 0, .nr = 1, .counts = one };	/* 1, not 2 */
	struct prom_hist h = { 1, le, classic, 2, &n };
	struct prom_label bad = { "__reserved", "x" };
	struct prom_buf b;

	prom_buf_init_protobuf(&b, false);
	prom_family(&b, "a", PROM_COUNTER, "");
	prom_sample_u64(&b, "b", NULL, 0, 1);
	assert_int_equal(prom_buf_finish(&b), -EINVAL);
	prom_buf_reset(&b);
	assert_true(b.protobuf);	/* the format stays */

	prom_family(&b, "h", PROM_HISTOGRAM, "");
	prom_histogram(&b, "h", NULL, 0, &h);
	assert_int_equal(prom_buf_finish(&b), -EINVAL);
	assert_non_null(strstr(b.errmsg, "native buckets hold 1 observations, classic 2"));
	prom_buf_reset(&b);

	prom_family(&b, "a", PROM_COUNTER, "");
	prom_sample_u64(&b, "a", &bad, 1, 1);
	assert_int_equal(prom_buf_finish(&b), -EINVAL);
	prom_buf_reset(&b);

	prom_family(&b, "bad name", PROM_COUNTER, "");
	assert_int_equal(prom_buf_finish(&b), -EINVAL);
	prom_buf_free(&b);
}

/*
 * A whole exposition: the same families with samples and the same
 * series as the text format; every histogram native, holding exactly
 * what its slots hold.
 */
static void test_render(void **state)
{
	struct vmapscope_row rows[2] = {};
	struct vmapscope_sample s = { .rows = rows, .nr_rows = 2, .page_shift = 12 };
	struct prom_state *st = prom_state_new(20);
	struct prom_buf text, pb;
	struct decoded d;
	const MetricFamily *f;
	uint64_t back[HIST_NATIVE_MAX];
	size_t i, text_series = 0, pb_series = 0;
	char *line, *save;

	snprintf(s.arch, sizeof(s.arch), "x86_64");
	for (i = 0; i < 2; i++) {
		rows[i].caller = 0xffffffff81000000ULL + i;
		rows[i].api = VMAPSCOPE_API_VMALLOC;
		snprintf(rows[i].sym, sizeof(rows[i].sym), "caller_%zu+0x10/0x80", i);
		rows[i].st.bytes[12] = 4096 * (i + 1);
		rows[i].st.chunks = 3;
		/* 512 pages (slot 9, at its edge), 513 (above it), 1 page */
		rows[i].st.chunk_hist[9] = 2;
		rows[i].st.chunk_hist_above[9] = 1;
		rows[i].st.chunk_hist[0] = 1;
		rows[i].st.chunk_hist_above[0] = 1;	/* slot 0 is {0, 1}, its edge 0 */
		rows[i].st.chunk_pages = 512 + 513 + 1;
		/*
		 * 900 ns and 1000 ns (slot 9, [512, 1023] ns, whose edge is
		 * 953 ns: 2^-20 s), and 0 ns
		 */
		rows[i].st.lat_hist[9] = 2;
		rows[i].st.lat_hist_above[9] = 1;
		rows[i].st.lat_hist[0] = 1;
		rows[i].st.lat_sum_ns = 1900;
	}
	assert_non_null(st);
	assert_int_equal(prom_state_add(st, &s), 0);
	prom_buf_init(&text);
	prom_buf_init_protobuf(&pb, false);
	assert_int_equal(prom_render(st, &text), 0);
	assert_int_equal(prom_render(st, &pb), 0);
	decode(&pb, &d);

	/* every text series but histogram buckets, sums and counts is a metric */
	for (line = strtok_r(text.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && !strstr(line, "_bucket{") && !strstr(line, "_sum") &&
		    !strstr(line, "_count"))
			text_series++;
	for (i = 0; i < d.n; i++) {
		assert_true(d.fam[i]->n_metric > 0);
		pb_series += d.fam[i]->n_metric;
	}
	/* and each of the 2 rows' 2 histograms is one metric */
	assert_int_equal(pb_series, text_series + 2 * 2);

	f = family(&d, "vmapscope_chunk_length_pages");
	assert_non_null(f);
	assert_int_equal(f->n_metric, 2);
	for (i = 0; i < 2; i++) {
		const Histogram *hg = f->metric[i]->histogram;

		assert_int_equal(hg->sample_count, 3);
		assert_true(hg->sample_sum == 1026);
		assert_int_equal(hg->zero_count, 0);
		assert_int_equal(hg->n_bucket, 0);
		/* 1 page: bucket 0; 512: bucket 9; 513: bucket 10 */
		native_counts(hg, 0, back, HIST_NATIVE_MAX);
		assert_int_equal(back[0], 1);
		assert_int_equal(back[9], 1);
		assert_int_equal(back[10], 1);
	}
	f = family(&d, "vmapscope_map_latency_seconds");
	assert_non_null(f);
	for (i = 0; i < 2; i++) {
		const Histogram *hg = f->metric[i]->histogram;

		assert_int_equal(hg->sample_count, 3);
		assert_true(hg->sample_sum == 1900 / 1e9);
		/* {0}: the zero bucket; slot 9 [512, 1023] ns splits at 953 ns */
		assert_int_equal(hg->zero_count, 1);
		native_counts(hg, -40, back, HIST_NATIVE_MAX);
		assert_int_equal(back[-20 + 40], 1);	/* 900 ns: (476.8 ns, 953.7 ns] */
		assert_int_equal(back[-19 + 40], 1);	/* 1000 ns: (953.7 ns, 1907.3 ns] */
	}
	decoded_free(&d);
	prom_buf_free(&text);
	prom_buf_free(&pb);
	prom_state_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families_and_samples),
		cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_empty_native),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
