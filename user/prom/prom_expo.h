/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition format 0.0.4 writer.
 *
 * Knows nothing about vmapscope: it writes metric families (# HELP and
 * # TYPE lines), samples with escaped label values, and histograms with
 * cumulative "le" buckets, "+Inf", _sum and _count, into an
 * open_memstream() buffer.  prom_metrics.c maps vmapstat snapshots onto it.
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

struct prom_buf {
	FILE *f;		/* open_memstream() onto data and len */
	char *data;		/* NUL-terminated after each call below */
	size_t len;
	int err;		/* 0, -ENOMEM or -EINVAL (first failure) */
	char errmsg[160];
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
};

void prom_buf_init(struct prom_buf *b);
void prom_buf_free(struct prom_buf *b);
void prom_buf_reset(struct prom_buf *b);	/* empty it, forget the error */
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
