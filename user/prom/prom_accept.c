// SPDX-License-Identifier: GPL-2.0
/* Content negotiation of a scrape (prom_accept.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "prom_accept.h"

/* What one media range offers: its q-value in thousandths, -1 if malformed. */
struct range {
	int q;
	bool protobuf;		/* the delimited MetricFamily format */
	bool text;		/* the text format 0.0.4 */
};

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* [s, e) without surrounding whitespace and quotes. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_ows(**s))
		(*s)++;
	while (*e > *s && is_ows((*e)[-1]))
		(*e)--;
	if (*e - *s >= 2 && **s == '"' && (*e)[-1] == '"') {
		(*s)++;
		(*e)--;
	}
}

static bool eq(const char *s, const char *e, const char *word, bool nocase)
{
	size_t n = strlen(word);

	return (size_t)(e - s) == n && !(nocase ? strncasecmp(s, word, n) : strncmp(s, word, n));
}

/* RFC 9110 qvalue: "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ]; -1 if not one. */
static int parse_q(const char *s, const char *e)
{
	int q, scale = 100;

	if (s == e || (*s != '0' && *s != '1'))
		return -1;
	q = (*s++ - '0') * 1000;
	if (s == e)
		return q;
	if (*s++ != '.' || e - s > 3)
		return -1;
	for (; s < e; s++, scale /= 10) {
		if (*s < '0' || *s > '9')
			return -1;
		q += (*s - '0') * scale;
	}
	return q <= 1000 ? q : -1;
}

static struct range parse_range(const char *s, const char *e)
{
	struct range r = { .q = 1000 };
	const char *semi = memchr(s, ';', (size_t)(e - s)), *type_end = semi ? semi : e;
	const char *slash;
	bool pb_type, text_type, any_type, proto_ok = false, delimited = false, version_ok = true;

	trim(&s, &type_end);
	slash = memchr(s, '/', (size_t)(type_end - s));
	if (!slash || slash == s || slash + 1 == type_end) {
		r.q = -1;
		return r;
	}
	pb_type = eq(s, type_end, "application/vnd.google.protobuf", true);
	text_type = eq(s, slash, "text", true) &&
		    (eq(slash + 1, type_end, "plain", true) || eq(slash + 1, type_end, "*", false));
	any_type = eq(s, type_end, "*/*", false);
	while (semi) {
		const char *ks = semi + 1, *ke, *vs, *ve;

		semi = memchr(ks, ';', (size_t)(e - ks));
		ve = semi ? semi : e;
		ke = memchr(ks, '=', (size_t)(ve - ks));
		if (!ke) {
			r.q = -1;
			return r;
		}
		vs = ke + 1;
		trim(&ks, &ke);
		trim(&vs, &ve);
		if (ks == ke) {
			r.q = -1;
			return r;
		}
		if (eq(ks, ke, "q", true)) {
			r.q = parse_q(vs, ve);
			if (r.q < 0)
				return r;
		} else if (eq(ks, ke, "proto", true)) {
			proto_ok = eq(vs, ve, "io.prometheus.client.MetricFamily", false);
		} else if (eq(ks, ke, "encoding", true)) {
			delimited = eq(vs, ve, "delimited", false);
		} else if (eq(ks, ke, "version", true)) {
			version_ok = eq(vs, ve, "0.0.4", false);
		}
	}
	r.protobuf = pb_type && proto_ok && delimited;
	r.text = any_type || (text_type && version_ok);
	return r;
}

bool prom_accept_protobuf(const char *accept)
{
	int best_pb = 0, best_text = -1;
	const char *s = accept, *comma;

	if (!accept)
		return false;
	for (; s; s = comma ? comma + 1 : NULL) {
		struct range r;

		comma = strchr(s, ',');
		r = parse_range(s, comma ? comma : s + strlen(s));
		if (r.q < 0)
			continue;
		if (r.protobuf && r.q > best_pb)
			best_pb = r.q;
		if (r.text && r.q > best_text)
			best_text = r.q;
	}
	return best_pb > 0 && best_pb >= best_text;
}
