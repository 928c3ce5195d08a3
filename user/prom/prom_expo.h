/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus exposition writer: the text format 0.0.4, or the protobuf
 * format (length-delimited io.prometheus.client.MetricFamily messages,
 * prom_proto.c) that carries native histograms.
 *
 * Knows nothing about vmapscope: it writes metric families (# HELP and
 * # TYPE lines), samples with escaped label values, and histograms with
 * cumulative "le" buckets, "+Inf", _sum and _count, into an
 * open_memstream() buffer.  prom_metrics.c maps vmapstat snapshots onto it.
 * The same calls write either format: a buffer's format is chosen when it
 * is set up (prom_buf_init_protobuf()).  In the protobuf format every
 * sample must belong to the family written last (by its name), a family
 * without samples is left out (Prometheus' parser wants none), and the
 * buffer holds the whole exposition only after prom_buf_finish().
 *
 * Errors (out of memory, an invalid metric or label name) are sticky:
 * the buffer remembers the first one and every later call is a no-op, so
 * that callers check once, with prom_buf_error(), after rendering.
 */
#ifndef VMAPSCOPE_PROM_EXPO_H
#define VMAPSCOPE_PROM_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PROM_PROTOBUF_CONTENT_TYPE \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"

struct prom_proto_family;

struct prom_buf {
	FILE *f;		/* open_memstream() onto data and len */
	char *data;		/* NUL-terminated after each call below */
	size_t len;
	int err;		/* 0, -ENOMEM or -EINVAL (first failure) */
	char errmsg[160];
	/* the protobuf format (else text): */
	bool protobuf;
	bool classic;		/* histograms with native buckets keep their classic ones */
	struct prom_proto_family *fam;	/* the family being written */
};

struct prom_label {
	const char *name;
	const char *value;
};

enum prom_type {
	PROM_COUNTER,
	PROM_GAUGE,
	PROM_HISTOGRAM,
	PROM_UNTYPED,
};

/*
 * A histogram with nr_bounds finite upper bounds, ascending.  counts[i]
 * (i < nr_bounds) is the number of observations in (le[i-1], le[i]] and
 * counts[nr_bounds] the number above the last bound: NOT cumulative; the
 * writer accumulates.  _count is the sum of all nr_bounds + 1 counts, so
 * that the "+Inf" bucket and _count can never disagree.
 */
struct prom_hist {
	size_t nr_bounds;
	const double *le;
	const uint64_t *counts;	/* nr_bounds + 1 entries */
	double sum;
	/* NULL, or the same observations as a native histogram (protobuf only) */
	const struct prom_native *native;
};

/*
 * A native histogram of schema 0: bucket k holds the values in
 * (2^(k-1), 2^k]; counts[j] is bucket first + j's (not cumulative), zero
 * the count of the zero bucket, which holds exactly the zeros
 * (PROM_NATIVE_ZERO_THRESHOLD).  Their total must equal the classic
 * counts' total.  Written with the spans and deltas the format defines;
 * the classic buckets are written beside them only when the buffer asks
 * for them (prom_buf_init_protobuf(), classic).
 */
struct prom_native {
	uint64_t zero;
	int32_t first;
	size_t nr;
	const uint64_t *counts;
};

/*
 * The zero bucket's threshold: 2^-128, as client_golang's default.  None
 * of our values lies between 0 and it (the smallest is 1 ns or 1 page), so
 * the zero bucket holds exactly the zeros; a threshold above 0 also marks
 * an empty histogram as native for Prometheus' parser.
 */
#define PROM_NATIVE_ZERO_THRESHOLD	0x1p-128

void prom_buf_init(struct prom_buf *b);		/* the text format */
/* The protobuf format; @classic: histograms keep their classic buckets. */
void prom_buf_init_protobuf(struct prom_buf *b, bool classic);
void prom_buf_free(struct prom_buf *b);
/* Empty it and forget the error; the format stays. */
void prom_buf_reset(struct prom_buf *b);
/* The exposition is complete: the protobuf writer adds its last family. */
int prom_buf_finish(struct prom_buf *b);
/* 0 or the first error; message in b->errmsg. */
static inline int prom_buf_error(const struct prom_buf *b) { return b->err; }

/* Name checks of the exposition format. */
bool prom_valid_metric_name(const char *name);
bool prom_valid_label_name(const char *name);

/*
 * Shortest decimal text that reads back as exactly @v (like Go's
 * strconv.FormatFloat(v, 'g', -1, 64), which Prometheus itself uses for
 * "le" values), "+Inf", "-Inf" or "NaN".  Returns @out.
 */
const char *prom_format_double(double v, char *out, size_t outlen);

/* "# HELP name help" and "# TYPE name type". */
void prom_family(struct prom_buf *b, const char *name, enum prom_type type,
		 const char *help);

/* One sample line: name{labels} value. */
void prom_sample_u64(struct prom_buf *b, const char *name,
		     const struct prom_label *labels, size_t nr_labels,
		     uint64_t value);
void prom_sample_double(struct prom_buf *b, const char *name,
			const struct prom_label *labels, size_t nr_labels,
			double value);

/*
 * The series of one histogram: name_bucket{labels,le="..."} for every
 * bound and "+Inf" (cumulative), name_sum, name_count.  At most
 * PROM_MAX_LABELS labels besides "le".
 */
#define PROM_MAX_LABELS 8
void prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_label *labels, size_t nr_labels,
		    const struct prom_hist *h);

#endif /* VMAPSCOPE_PROM_EXPO_H */
