// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus exposition writer (see prom_expo.h): the text format 0.0.4
 * here, the protobuf format in prom_proto.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_expo.h"
#include "prom_expo_int.h"

void prom_buf_fail(struct prom_buf *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (b->err)
		return;
	b->err = err;
	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	if (b->f)
		fflush(b->f);	/* data and len show what was written */
}

void prom_buf_init(struct prom_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void prom_buf_init_protobuf(struct prom_buf *b, bool classic)
{
	prom_buf_init(b);
	b->protobuf = true;
	b->classic = classic;
}

void prom_buf_free(struct prom_buf *b)
{
	if (b->f)
		fclose(b->f);
	free(b->data);
	prom_proto_drop(b);
	prom_buf_init(b);
}

void prom_buf_reset(struct prom_buf *b)
{
	bool protobuf = b->protobuf, classic = b->classic;

	prom_buf_free(b);
	b->protobuf = protobuf;
	b->classic = classic;
}

int prom_buf_finish(struct prom_buf *b)
{
	if (b->protobuf)
		prom_proto_finish(b);
	return b->err;
}

/* The stream cannot grow: the only way a memstream write fails. */
static void buf_oom(struct prom_buf *b)
{
	prom_buf_fail(b, -ENOMEM, "out of memory rendering the exposition");
}

/* The stream, opened on the first write; NULL after an error. */
static FILE *buf_file(struct prom_buf *b)
{
	if (!b->err && !b->f) {
		b->f = open_memstream(&b->data, &b->len);
		if (!b->f)
			buf_oom(b);
	}
	return b->err ? NULL : b->f;
}

/* Each public writer ends here: data and len are then up to date. */
static void buf_sync(struct prom_buf *b)
{
	if (b->f && fflush(b->f))
		buf_oom(b);
}

void prom_buf_append(struct prom_buf *b, const char *s, size_t n)
{
	FILE *f = buf_file(b);

	if (f && fwrite(s, 1, n, f) != n)
		buf_oom(b);
}

void prom_buf_sync(struct prom_buf *b)
{
	buf_sync(b);
}

static void buf_puts(struct prom_buf *b, const char *s)
{
	prom_buf_append(b, s, strlen(s));
}

static void prom_buf_printf(struct prom_buf *b, const char *fmt, ...)
{
	FILE *f = buf_file(b);
	va_list ap;
	int n;

	if (!f)
		return;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	if (n < 0)
		buf_oom(b);
}

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && c >= '0' && c <= '9';
}

bool prom_valid_metric_name(const char *name)
{
	const char *p;

	if (!name || !*name)
		return false;
	for (p = name; *p; p++)
		if (!name_char(*p, p == name, true))
			return false;
	return true;
}

bool prom_valid_label_name(const char *name)
{
	const char *p;

	if (!name || !*name)
		return false;
	/* "__" prefixed names are reserved for Prometheus itself. */
	if (name[0] == '_' && name[1] == '_')
		return false;
	for (p = name; *p; p++)
		if (!name_char(*p, p == name, false))
			return false;
	return true;
}

/*
 * Escape the characters in @special ('\n' always becomes "\n"): label
 * values escape backslash and double quote, HELP text backslash.
 */
static void escape(struct prom_buf *b, const char *s, const char *special)
{
	const char *run = s;

	for (; *s; s++) {
		if (*s != '\n' && !strchr(special, *s))
			continue;
		prom_buf_append(b, run, (size_t)(s - run));
		if (*s == '\n')
			buf_puts(b, "\\n");
		else {
			char e[2] = { '\\', *s };

			prom_buf_append(b, e, 2);
		}
		run = s + 1;
	}
	prom_buf_append(b, run, (size_t)(s - run));
}

const char *prom_format_double(double v, char *out, size_t outlen)
{
	int prec;

	if (isnan(v)) {
		snprintf(out, outlen, "NaN");
		return out;
	}
	if (isinf(v)) {
		snprintf(out, outlen, v > 0 ? "+Inf" : "-Inf");
		return out;
	}
	/* Integers print as integers ("1024", not "1.024e+03"). */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(out, outlen, "%.0f", v);
		return out;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(out, outlen, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	return out;
}

static const char *type_name(enum prom_type t)
{
	switch (t) {
	case PROM_COUNTER:	return "counter";
	case PROM_GAUGE:	return "gauge";
	case PROM_HISTOGRAM:	return "histogram";
	default:		return "untyped";
	}
}

static bool check_name(struct prom_buf *b, const char *name)
{
	if (prom_valid_metric_name(name))
		return true;
	prom_buf_fail(b, -EINVAL, "invalid metric name '%s'", name ? name : "(null)");
	return false;
}

void prom_family(struct prom_buf *b, const char *name, enum prom_type type,
		 const char *help)
{
	if (!check_name(b, name))
		return;
	if (b->protobuf) {
		prom_proto_family(b, name, type, help);
		return;
	}
	prom_buf_printf(b, "# HELP %s ", name);
	escape(b, help ? help : "", "\\");
	prom_buf_printf(b, "\n# TYPE %s %s\n", name, type_name(type));
	buf_sync(b);
}

/* name{a="x",b="y"} -- without the value; @extra is an optional label. */
static void series(struct prom_buf *b, const char *name, const char *suffix,
		   const struct prom_label *labels, size_t n,
		   const struct prom_label *extra)
{
	size_t i;

	if (!check_name(b, name))
		return;
	prom_buf_printf(b, "%s%s", name, suffix);
	if (!n && !extra)
		return;
	buf_puts(b, "{");
	for (i = 0; i < n + (extra ? 1 : 0); i++) {
		const struct prom_label *l = i < n ? &labels[i] : extra;

		if (!prom_valid_label_name(l->name)) {
			prom_buf_fail(b, -EINVAL, "invalid label name '%s' on %s",
				 l->name ? l->name : "(null)", name);
			return;
		}
		prom_buf_printf(b, "%s%s=\"", i ? "," : "", l->name);
		escape(b, l->value ? l->value : "", "\\\"");
		buf_puts(b, "\"");
	}
	buf_puts(b, "}");
}

void prom_sample_u64(struct prom_buf *b, const char *name,
		     const struct prom_label *labels, size_t nr_labels,
		     uint64_t value)
{
	if (b->protobuf) {
		prom_proto_sample(b, name, labels, nr_labels, (double)value);
		return;
	}
	series(b, name, "", labels, nr_labels, NULL);
	prom_buf_printf(b, " %" PRIu64 "\n", value);
	buf_sync(b);
}

void prom_sample_double(struct prom_buf *b, const char *name,
			const struct prom_label *labels, size_t nr_labels,
			double value)
{
	char num[40];

	if (b->protobuf) {
		prom_proto_sample(b, name, labels, nr_labels, value);
		return;
	}
	series(b, name, "", labels, nr_labels, NULL);
	prom_buf_printf(b, " %s\n", prom_format_double(value, num, sizeof(num)));
	buf_sync(b);
}

void prom_histogram(struct prom_buf *b, const char *name,
		    const struct prom_label *labels, size_t nr_labels,
		    const struct prom_hist *h)
{
	struct prom_label le = { .name = "le" };
	char num[40], sum[40];
	uint64_t cum = 0;
	size_t i;

	if (nr_labels > PROM_MAX_LABELS) {
		prom_buf_fail(b, -EINVAL, "%s: too many labels", name);
		return;
	}
	for (i = 1; i < h->nr_bounds; i++) {
		if (!(h->le[i] > h->le[i - 1])) {
			prom_buf_fail(b, -EINVAL, "%s: bucket bounds not ascending", name);
			return;
		}
	}
	if (b->protobuf) {
		prom_proto_histogram(b, name, labels, nr_labels, h);
		return;
	}
	for (i = 0; i <= h->nr_bounds; i++) {
		cum += h->counts[i];
		le.value = i < h->nr_bounds ?
			prom_format_double(h->le[i], num, sizeof(num)) : "+Inf";
		series(b, name, "_bucket", labels, nr_labels, &le);
		prom_buf_printf(b, " %" PRIu64 "\n", cum);
	}
	series(b, name, "_sum", labels, nr_labels, NULL);
	prom_buf_printf(b, " %s\n", prom_format_double(h->sum, sum, sizeof(sum)));
	series(b, name, "_count", labels, nr_labels, NULL);
	prom_buf_printf(b, " %" PRIu64 "\n", cum);
	buf_sync(b);
}
