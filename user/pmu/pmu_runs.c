// SPDX-License-Identifier: GPL-2.0
/* Per-run tables, their JSON form and the before/after comparison. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "printable.h"
#include "pmu_runs.h"

void pmu_runs_init(struct pmu_runs *r, const char *command, const char *label)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->command, sizeof(r->command), "%s", command ? command : "");
	snprintf(r->label, sizeof(r->label), "%s", label ? label : "");
}

void pmu_runs_free(struct pmu_runs *r)
{
	for (int i = 0; i < r->nr_metrics; i++)
		free(r->m[i].values);	/* flags share the block */
	free(r->m);
	free(r->status);
	free(r->index);
	memset(r, 0, sizeof(*r));
}

/* One block for a metric's values and flags, room for @cap runs. */
static int metric_room(struct pmu_metric *m, int old_cap, int cap)
{
	double *v = malloc(cap * (sizeof(double) + 1));
	unsigned char *f;

	if (!v)
		return -1;
	f = (unsigned char *)(v + cap);
	memset(v, 0, cap * sizeof(double));
	memset(f, PMU_VAL_MISSING, cap);
	if (old_cap) {
		memcpy(v, m->values, old_cap * sizeof(double));
		memcpy(f, m->flags, old_cap);
	}
	free(m->values);
	m->values = v;
	m->flags = f;
	return 0;
}

/* Room for @want runs in the status array and in every metric (doubling). */
static int runs_room(struct pmu_runs *r, int want)
{
	int cap = r->cap_runs ? r->cap_runs : 4;
	int *st;

	if (want <= r->cap_runs)
		return 0;
	while (cap < want)
		cap *= 2;
	if (cap > PMU_RUNS_MAX)
		cap = PMU_RUNS_MAX;
	st = realloc(r->status, cap * sizeof(*st));
	if (!st)
		return -1;
	r->status = st;
	for (int i = 0; i < r->nr_metrics; i++)
		if (metric_room(&r->m[i], r->cap_runs, cap))
			return -1;
	r->cap_runs = cap;
	return 0;
}

int pmu_runs_add_run(struct pmu_runs *r, int wait_status)
{
	if (r->nr_runs == PMU_RUNS_MAX || runs_room(r, r->nr_runs + 1))
		return -1;
	r->status[r->nr_runs] = wait_status;
	return r->nr_runs++;
}

/* FNV-1a over the name as stored (at most PMU_METRIC_NAME_LEN - 1 bytes). */
static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; name[i] && i < PMU_METRIC_NAME_LEN - 1; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return h;
}

/* The index slot that holds @name, or the empty slot where it would go. */
static size_t index_slot(const struct pmu_runs *r, const char *name)
{
	size_t mask = r->index_size - 1, i = name_hash(name) & mask;

	while (r->index[i] &&
	       strncmp(r->m[r->index[i] - 1].name, name, PMU_METRIC_NAME_LEN - 1))
		i = (i + 1) & mask;
	return i;
}

/* Keep the index at most half full: rebuilt at twice the size. */
static int index_room(struct pmu_runs *r)
{
	size_t size = r->index_size ? r->index_size : 64;
	unsigned int *old = r->index;

	if ((size_t)(r->nr_metrics + 1) * 2 <= r->index_size)
		return 0;
	while ((size_t)(r->nr_metrics + 1) * 2 > size)
		size *= 2;
	r->index = calloc(size, sizeof(*r->index));
	if (!r->index) {
		r->index = old;
		return -1;
	}
	r->index_size = size;
	free(old);
	for (int i = 0; i < r->nr_metrics; i++)
		r->index[index_slot(r, r->m[i].name)] = i + 1;
	return 0;
}

const struct pmu_metric *pmu_runs_find(const struct pmu_runs *r, const char *name)
{
	size_t i;

	if (!r->index_size)
		return NULL;
	i = index_slot(r, name);
	return r->index[i] ? &r->m[r->index[i] - 1] : NULL;
}

/* Metric @name, created (missing in every run) on first use; NULL: out of memory. */
static struct pmu_metric *metric(struct pmu_runs *r, const char *name, const char *unit)
{
	struct pmu_metric *m = (struct pmu_metric *)pmu_runs_find(r, name);

	if (m)
		return m;
	if (index_room(r))
		return NULL;
	if (r->nr_metrics == r->cap_metrics) {
		int cap = r->cap_metrics ? r->cap_metrics * 2 : 16;

		m = realloc(r->m, cap * sizeof(*m));
		if (!m)
			return NULL;
		r->m = m;
		r->cap_metrics = cap;
	}
	m = &r->m[r->nr_metrics];
	memset(m, 0, sizeof(*m));
	if (metric_room(m, 0, r->cap_runs ? r->cap_runs : 1))
		return NULL;
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit ? unit : "");
	r->index[index_slot(r, m->name)] = ++r->nr_metrics;
	return m;
}

int pmu_runs_set(struct pmu_runs *r, int run, const char *name,
		 const char *unit, double value, unsigned flags)
{
	struct pmu_metric *m;

	if (run < 0 || run >= r->nr_runs || !(m = metric(r, name, unit)))
		return -1;
	m->values[run] = value;
	m->flags[run] = flags & ~PMU_VAL_MISSING;
	return 0;
}

bool pmu_metric_avg(const struct pmu_runs *r, const struct pmu_metric *m,
		    double *avg)
{
	double sum = 0, mean = 0;
	int n = 0;

	for (int i = 0; i < r->nr_runs; i++) {
		if (m->flags[i] & PMU_VAL_MISSING)
			continue;
		sum += m->values[i];
		n++;
		/* a running mean cannot overflow where the sum can */
		mean = mean * ((double)(n - 1) / n) + m->values[i] / n;
	}
	*avg = !n ? 0 : isfinite(sum) ? sum / n : mean;
	return n > 0;
}

/* ------------------------------------------------------------------ */
/* Tables                                                              */

/* Read from a file by compare: made printable (printable.h). */
static void metric_label(const struct pmu_metric *m, char *buf, size_t len)
{
	char raw[sizeof(m->name) + sizeof(m->unit) + 4];

	if (m->unit[0])
		snprintf(raw, sizeof(raw), "%s (%s)", m->name, m->unit);
	else
		snprintf(raw, sizeof(raw), "%s", m->name);
	printable(raw, buf, len);
}

static void fmt_value(double v, unsigned flags, char *buf, size_t len)
{
	if (flags & PMU_VAL_MISSING) {
		snprintf(buf, len, "-");
		return;
	}
	if (fabs(v - round(v)) < 1e-9 || fabs(v) >= 1e6)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
	if (flags & PMU_VAL_SCALED)
		strncat(buf, "*", len - strlen(buf) - 1);
	if (flags & PMU_VAL_ZERO)
		strncat(buf, "?", len - strlen(buf) - 1);
}

struct table {
	int cols;
	int width[PMU_RUNS_MAX + 4];
	bool ruled;		/* the top rule is out */
};

static void rule(FILE *out, const struct table *t)
{
	for (int c = 0; c < t->cols; c++) {
		fputc('+', out);
		for (int i = 0; i < t->width[c] + 2; i++)
			fputc('-', out);
	}
	fputs("+\n", out);
}

/*
 * A table is laid out in two passes over the same cells: the first
 * (@out NULL) widens the columns to fit, the second prints, with a rule
 * above the table and below every row.
 */
static void cell(FILE *out, struct table *t, int c, const char *s)
{
	int n = strlen(s);

	if (!out) {
		if (n > t->width[c])
			t->width[c] = n;
		return;
	}
	if (!t->ruled)
		rule(out, t);
	t->ruled = true;
	fprintf(out, "| %-*s ", t->width[c], s);
	if (c == t->cols - 1) {
		fputs("|\n", out);
		rule(out, t);
	}
}

void pmu_runs_print(FILE *out, const struct pmu_runs *r)
{
	static struct table t;
	char buf[96];
	bool any_scaled = false, any_zero = false;

	memset(&t, 0, sizeof(t));
	t.cols = r->nr_runs + 2;
	for (int pass = 0; pass < 2; pass++) {
		FILE *o = pass ? out : NULL;

		cell(o, &t, 0, "Metric");
		for (int i = 0; i < r->nr_runs; i++) {
			snprintf(buf, sizeof(buf), "Run%d", i + 1);
			cell(o, &t, i + 1, buf);
		}
		cell(o, &t, r->nr_runs + 1, "Avg.");
		for (int m = 0; m < r->nr_metrics; m++) {
			const struct pmu_metric *pm = &r->m[m];
			double avg;

			metric_label(pm, buf, sizeof(buf));
			cell(o, &t, 0, buf);
			for (int i = 0; i < r->nr_runs; i++) {
				fmt_value(pm->values[i], pm->flags[i], buf, sizeof(buf));
				cell(o, &t, i + 1, buf);
				any_scaled |= pm->flags[i] & PMU_VAL_SCALED;
				any_zero |= pm->flags[i] & PMU_VAL_ZERO;
			}
			if (pmu_metric_avg(r, pm, &avg))
				snprintf(buf, sizeof(buf), "%.1f", avg);
			else
				snprintf(buf, sizeof(buf), "-");
			cell(o, &t, r->nr_runs + 1, buf);
		}
	}
	if (any_scaled)
		fputs("  * scaled: the PMU multiplexed the event (time_running < time_enabled)\n", out);
	if (any_zero)
		fputs("  ? exactly 0 over a busy period: not counted by this PMU?\n", out);
}

int pmu_runs_print_status(FILE *out, const struct pmu_runs *r)
{
	int failed = 0;

	for (int i = 0; i < r->nr_runs; i++) {
		int st = r->status[i];

		if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		fprintf(out, "vmapstat: run %d: command ", i + 1);
		if (st < 0)
			fprintf(out, "status unknown\n");
		else if (WIFEXITED(st))
			fprintf(out, "exited with status %d\n", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			fprintf(out, "killed by signal %d\n", WTERMSIG(st));
		else
			fprintf(out, "wait status 0x%x\n", st);
		failed++;
	}
	return failed;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

/*
 * Doubles as short decimal text ("68.4", not "68.400000000000006"); JSON
 * has no inf or nan: null (NULL) for what is not finite.
 */
static json_object *jdouble(double v)
{
	char buf[40];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (!strpbrk(buf, ".eEn"))
		strncat(buf, ".0", sizeof(buf) - strlen(buf) - 1);
	return json_object_new_double_s(v, buf);
}

static json_object *runs_to_json(const struct pmu_runs *r)
{
	json_object *root = json_object_new_object(), *o = json_object_new_object();
	json_object *st = json_object_new_array(), *ms = json_object_new_array();

	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "command", json_object_new_string(r->command));
	json_object_object_add(o, "label", json_object_new_string(r->label));
	json_object_object_add(o, "runs", json_object_new_int(r->nr_runs));
	for (int i = 0; i < r->nr_runs; i++)
		json_object_array_add(st, json_object_new_int(r->status[i]));
	json_object_object_add(o, "status", st);
	for (int m = 0; m < r->nr_metrics; m++) {
		const struct pmu_metric *pm = &r->m[m];
		json_object *jm = json_object_new_object();
		json_object *vals = json_object_new_array();
		json_object *fl = json_object_new_array();
		double avg;

		json_object_object_add(jm, "name", json_object_new_string(pm->name));
		json_object_object_add(jm, "unit", json_object_new_string(pm->unit));
		for (int i = 0; i < r->nr_runs; i++) {
			json_object_array_add(vals, pm->flags[i] & PMU_VAL_MISSING ?
					      NULL : jdouble(pm->values[i]));
			json_object_array_add(fl, json_object_new_int(pm->flags[i]));
		}
		json_object_object_add(jm, "values", vals);
		json_object_object_add(jm, "flags", fl);
		json_object_object_add(jm, "avg", pmu_metric_avg(r, pm, &avg) ?
				       jdouble(avg) : NULL);
		json_object_array_add(ms, jm);
	}
	json_object_object_add(o, "metrics", ms);
	json_object_object_add(root, "pmu_runs", o);
	return root;
}

int pmu_runs_write_json(FILE *out, const struct pmu_runs *r)
{
	json_object *root = runs_to_json(r);
	int ret;

	ret = fprintf(out, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PLAIN)) < 0 ? -1 : 0;
	json_object_put(root);
	return ret;
}

static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", path, what);
	return -1;
}

/* One metric object of the "metrics" array (number i, from 1). */
static int metric_from_json(json_object *jm, size_t i, int nruns, const char *path,
			    struct pmu_runs *r, char *err, size_t errlen)
{
	json_object *jname, *unit = NULL, *vals, *fl = NULL;
	struct pmu_metric *m;
	const char *name;

	if (!json_object_is_type(jm, json_type_object) ||
	    !json_object_object_get_ex(jm, "name", &jname) ||
	    !json_object_is_type(jname, json_type_string) ||
	    !json_object_get_string_len(jname))
		return bad(err, errlen, path, "pmu_runs: metric %zu has no \"name\"", i);
	name = json_object_get_string(jname);
	if (pmu_runs_find(r, name))
		return bad(err, errlen, path, "pmu_runs: metric '%s' appears twice", name);
	if (!json_object_object_get_ex(jm, "values", &vals) ||
	    !json_object_is_type(vals, json_type_array) ||
	    (int)json_object_array_length(vals) != nruns)
		return bad(err, errlen, path, "pmu_runs: metric '%s' must have %d \"values\"",
			   name, nruns);
	json_object_object_get_ex(jm, "flags", &fl);
	if (fl && (!json_object_is_type(fl, json_type_array) ||
		   (int)json_object_array_length(fl) != nruns))
		return bad(err, errlen, path, "pmu_runs: metric '%s' has bad \"flags\"", name);
	json_object_object_get_ex(jm, "unit", &unit);
	/* kept even when every value is null (not measured in any run) */
	m = metric(r, name, unit ? json_object_get_string(unit) : "");
	if (!m)
		return bad(err, errlen, path, "out of memory");
	for (int run = 0; run < nruns; run++) {
		json_object *x = json_object_array_get_idx(vals, run);

		if (!x)
			continue;	/* null: not measured in this run */
		if ((!json_object_is_type(x, json_type_double) &&
		     !json_object_is_type(x, json_type_int)) ||
		    !isfinite(json_object_get_double(x)))
			return bad(err, errlen, path, "pmu_runs: metric '%s' run %d is not a number",
				   name, run + 1);
		m->values[run] = json_object_get_double(x);
		m->flags[run] = fl ? json_object_get_int(json_object_array_get_idx(fl, run)) &
				     ~PMU_VAL_MISSING : 0;
	}
	return 0;
}

static const char *skip_ws(const char *p, const char *end);
static const char *skip_value(const char *p, const char *end, int depth, const char **at);
static json_object *parse_span(const char *text, const char *p, const char *end,
			       const char *path, char *err, size_t errlen);

/*
 * A pmu_runs object: its small members from @o, its "metrics" array from
 * the file's text [ms, ms_end), one metric object parsed at a time (a
 * large run set is nearly all metrics: json-c's tree of all of them
 * took some 15 times the file's size).
 */
static int runs_from_json(json_object *o, const char *text, const char *ms, const char *ms_end,
			  const char *path, struct pmu_runs *r, char *err, size_t errlen)
{
	json_object *v, *st;
	const char *p, *at;
	size_t i = 0;
	int nruns;

	if (!json_object_object_get_ex(o, "version", &v) ||
	    json_object_get_int(v) != 1)
		return bad(err, errlen, path, "pmu_runs: missing or unsupported \"version\" (want 1)");
	if (!json_object_object_get_ex(o, "runs", &v) ||
	    !json_object_is_type(v, json_type_int))
		return bad(err, errlen, path, "pmu_runs: missing integer \"runs\"");
	nruns = json_object_get_int(v);
	if (nruns < 1 || nruns > PMU_RUNS_MAX)
		return bad(err, errlen, path, "pmu_runs: \"runs\" out of range");
	pmu_runs_init(r, NULL, NULL);
	if (json_object_object_get_ex(o, "command", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(r->command, sizeof(r->command), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "label", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(r->label, sizeof(r->label), "%s", json_object_get_string(v));
	if (!json_object_object_get_ex(o, "status", &st) ||
	    !json_object_is_type(st, json_type_array) ||
	    (int)json_object_array_length(st) != nruns)
		return bad(err, errlen, path, "pmu_runs: \"status\" must be an array of \"runs\" integers");
	for (int k = 0; k < nruns; k++)
		pmu_runs_add_run(r, json_object_get_int(json_object_array_get_idx(st, k)));
	if (!ms || *ms != '[')
		return bad(err, errlen, path, "pmu_runs: missing \"metrics\" array");
	/* the span was checked as JSON when it was found */
	p = skip_ws(ms + 1, ms_end);
	if (p < ms_end && *p == ']')
		return 0;
	for (;;) {
		const char *e = skip_value(p, ms_end, 2, &at);
		json_object *jm;
		int rc;

		if (!e)
			return bad(err, errlen, path, "not valid JSON at byte %zu", (size_t)(at - text));
		jm = parse_span(text, skip_ws(p, e), e, path, err, errlen);
		if (!jm)
			return -1;
		rc = metric_from_json(jm, ++i, nruns, path, r, err, errlen);
		json_object_put(jm);
		if (rc)
			return rc;
		p = skip_ws(e, ms_end);
		if (p < ms_end && *p == ',') {
			p++;
			continue;
		}
		return 0;
	}
}

/*
 * A JSON value at p, skipped without building it: the end of it, or NULL
 * when it is malformed or cut short (*bad then points at the trouble).
 * Only what compare needs is parsed (the pmu_runs object); the rows of a
 * run, which make up nearly all of a large file, are only stepped over,
 * so that reading a file costs about its size, not json-c's objects for
 * all of it.
 */
#define SKIP_MAX_DEPTH	64

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* Past the string at p, or NULL with *at on the trouble (end: cut short). */
static const char *skip_string(const char *p, const char *end, const char **at)
{
	for (p++; p < end; p++) {
		if (*p == '\\') {
			p++;
			continue;
		}
		if (*p == '"')
			return p + 1;
		if ((unsigned char)*p < 0x20) {
			*at = p;
			return NULL;
		}
	}
	*at = end;
	return NULL;
}

static const char *skip_value(const char *p, const char *end, int depth, const char **at)
{
	p = skip_ws(p, end);
	*at = p;
	if (p >= end || depth > SKIP_MAX_DEPTH)
		return NULL;
	if (*p == '"')
		return skip_string(p, end, at);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool object = *p == '{';

		p = skip_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (object) {
				p = skip_ws(p, end);
				*at = p;
				if (p >= end || *p != '"' || !(p = skip_string(p, end, at)))
					return NULL;
				p = skip_ws(p, end);
				*at = p;
				if (p >= end || *p != ':')
					return NULL;
				p++;
			}
			p = skip_value(p, end, depth + 1, at);
			if (!p)
				return NULL;
			p = skip_ws(p, end);
			*at = p;
			if (p >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	/*
	 * A number, true, false, null (or json-c's NaN, Infinity): checked
	 * by json-c where it is kept
	 */
	if (strchr("]},:", *p))
		return NULL;
	while (p < end && !strchr(" \n\t\r,]}", *p))
		p++;
	return p;
}

/* json-c's object for the JSON value text [p, e), or NULL after a message. */
static json_object *parse_span(const char *text, const char *p, const char *e,
			       const char *path, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = (size_t)(e - p);
	char *copy = malloc(len + 1);
	json_object *o = NULL;

	if (!tok || !copy) {
		bad(err, errlen, path, "out of memory");
		goto out;
	}
	/* with its NUL: json-c ends a number at the end of the text only then */
	memcpy(copy, p, len);
	copy[len] = 0;
	o = json_tokener_parse_ex(tok, copy, (int)len + 1);
	if (!o)
		bad(err, errlen, path, "not valid JSON at byte %zu: %s",
		    (size_t)(p - text) + json_tokener_get_parse_end(tok),
		    json_tokener_error_desc(json_tokener_get_error(tok)));
out:
	free(copy);
	if (tok)
		json_tokener_free(tok);
	return o;
}

/* A pmu_runs object found: its members but "metrics", and where that array is. */
struct runs_found {
	json_object *head;
	const char *ms, *ms_end;	/* NULL: no "metrics" */
};

static bool key_is(const char *k, const char *kend, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(kend - k) == n + 2 && !memcmp(k + 1, name, n);
}

/*
 * The members of the object at p, for @f when it is the pmu_runs object
 * (@f NULL: only stepped over, except a "pmu_runs" member, which fills
 * @found).  Returns the end of the object, or NULL with err set.
 */
static const char *walk_object(const char *text, const char *p, const char *end,
			       struct runs_found *f, struct runs_found *found,
			       const char *path, char *err, size_t errlen)
{
	const char *at = p;

	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		const char *k = skip_ws(p, end), *kend, *v, *vend;

		at = k;
		if (k >= end || *k != '"' || !(kend = skip_string(k, end, &at)))
			goto malformed;
		p = skip_ws(kend, end);
		if (p >= end || *p != ':') {
			at = p;
			goto malformed;
		}
		v = skip_ws(p + 1, end);
		if (!f && key_is(k, kend, "pmu_runs") && v < end && *v == '{') {
			struct runs_found one = { json_object_new_object() };

			if (!one.head) {
				bad(err, errlen, path, "out of memory");
				return NULL;
			}
			vend = walk_object(text, v, end, &one, NULL, path, err, errlen);
			if (!vend) {
				json_object_put(one.head);
				return NULL;
			}
			/* the last one wins */
			json_object_put(found->head);
			*found = one;
		} else {
			vend = skip_value(v, end, 1, &at);
			if (!vend)
				goto malformed;
			if (f && key_is(k, kend, "metrics")) {
				f->ms = v;
				f->ms_end = vend;
			} else if (f) {
				json_object *key = parse_span(text, k, kend, path, err, errlen);
				json_object *val = key ? parse_span(text, v, vend, path, err, errlen) : NULL;

				if (!val) {
					json_object_put(key);
					return NULL;
				}
				json_object_object_add(f->head, json_object_get_string(key), val);
				json_object_put(key);
			}
		}
		p = skip_ws(vend, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			return p + 1;
		at = p;
		goto malformed;
	}
malformed:
	bad(err, errlen, path, "not valid JSON at byte %zu: %s", (size_t)(at - text),
	    at >= end ? "truncated" : "unexpected character");
	return NULL;
}

int pmu_runs_read_json(const char *path, struct pmu_runs *r, char *err,
		       size_t errlen)
{
	struct runs_found found = { NULL };
	const char *text = NULL, *p, *end, *next, *at;
	struct stat st;
	int fd, ret = -1;

	memset(r, 0, sizeof(*r));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bad(err, errlen, path, "%s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		int e = errno;

		close(fd);
		return bad(err, errlen, path, "%s", S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			   e ? strerror(e) : "not a regular file");
	}
	if (!st.st_size) {
		close(fd);
		return bad(err, errlen, path, "empty file (no pmu_runs object: was it written with --repeat and -j?)");
	}
	/* mapped, not copied: the file's pages, not memory of ours */
	text = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED)
		return bad(err, errlen, path, "%s", strerror(errno));
	madvise((void *)text, (size_t)st.st_size, MADV_SEQUENTIAL);
	end = text + st.st_size;
	/* Several JSON values may follow one another (JSON lines). */
	for (p = skip_ws(text, end); p < end; p = skip_ws(next, end)) {
		if (*p == '{') {
			next = walk_object(text, p, end, NULL, &found, path, err, errlen);
			if (!next)
				goto out;
			continue;
		}
		next = skip_value(p, end, 0, &at);
		if (!next) {
			bad(err, errlen, path, "not valid JSON at byte %zu: %s", (size_t)(at - text),
			    at >= end ? "truncated" : "unexpected character");
			goto out;
		}
	}
	if (!found.head)
		bad(err, errlen, path, "no pmu_runs object (was it written with --pmu and -j?)");
	else
		ret = runs_from_json(found.head, text, found.ms, found.ms_end, path, r, err, errlen);
out:
	json_object_put(found.head);
	munmap((void *)text, (size_t)st.st_size);
	if (ret)
		pmu_runs_free(r);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Compare                                                             */

/* The percent change, rounded to what is printed; false: none (n/a). */
static bool diff_pct(double before, double after, bool have_before,
		     bool have_after, double *pct)
{
	double d;

	if (!have_before || !have_after || before == 0)
		return false;
	d = (after - before) / fabs(before) * 100.0;
	/* (after - before) alone can overflow: then divide first */
	if (!isfinite(d))
		d = (after / fabs(before) - before / fabs(before)) * 100.0;
	if (!isfinite(d))
		return false;
	*pct = d;
	return true;
}

void pmu_format_diff(double before, double after, bool have_before,
		     bool have_after, char *buf, size_t len)
{
	double d;

	if (!diff_pct(before, after, have_before, have_after, &d))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.2f%%", d);
}

/*
 * A counter that read 0 over a busy period in every run (PMU_VAL_ZERO):
 * the PMU most likely does not count it, and an average of zeros would
 * read as a measurement.
 */
static bool never_counted(const struct pmu_runs *r, const struct pmu_metric *m)
{
	if (!r->nr_runs)
		return false;
	for (int i = 0; i < r->nr_runs; i++)
		if (!(m->flags[i] & PMU_VAL_ZERO))
			return false;
	return true;
}

static void avg_text(const struct pmu_runs *r, const struct pmu_metric *m, bool have,
		     double avg, char *buf, size_t len)
{
	if (m && never_counted(r, m))
		snprintf(buf, len, "not counted");
	else if (have)
		snprintf(buf, len, "%.1f", avg);
	else
		snprintf(buf, len, "-");
}

struct cmp_row {
	const struct pmu_metric *pm, *mb, *ma;	/* pm: mb or ma */
	double vb, va;
	bool hb, ha;			/* averages known */
	bool counted;			/* neither side never counted */
	bool have_diff;
	double diff;			/* percent, when have_diff */
};

/* One row per metric: before's order first, then metrics only "after" has. */
static int compare_rows(const struct pmu_runs *b, const struct pmu_runs *a,
			struct cmp_row **rows)
{
	int n = 0, cap = b->nr_metrics + a->nr_metrics;
	struct cmp_row *out = calloc(cap ? cap : 1, sizeof(*out));

	if (!out)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const struct pmu_runs *src = pass ? a : b;

		for (int i = 0; i < src->nr_metrics; i++) {
			struct cmp_row *row = &out[n];

			if (pass && pmu_runs_find(b, src->m[i].name))
				continue;
			n++;
			row->pm = &src->m[i];
			row->mb = pmu_runs_find(b, row->pm->name);
			row->ma = pmu_runs_find(a, row->pm->name);
			row->hb = row->mb && pmu_metric_avg(b, row->mb, &row->vb);
			row->ha = row->ma && pmu_metric_avg(a, row->ma, &row->va);
			row->counted = !(row->mb && never_counted(b, row->mb)) &&
				       !(row->ma && never_counted(a, row->ma));
			row->have_diff = row->counted &&
					 diff_pct(row->vb, row->va, row->hb, row->ha,
						  &row->diff);
		}
	}
	*rows = out;
	return n;
}

void pmu_runs_compare_print(FILE *out, const struct pmu_runs *before,
			    const struct pmu_runs *after)
{
	static const char *hdr[5] = { "Metric", "Runs", "Before avg.", "After avg.", "Diff." };
	struct table t = { .cols = 5 };
	struct cmp_row *rows;
	char sb[4 * sizeof(before->command)], sa[4 * sizeof(after->command)];
	int n = compare_rows(before, after, &rows);

	if (n < 0) {
		fprintf(stderr, "vmapstat: compare: out of memory\n");
		return;
	}
	/* labels and commands come from the files: printable, one line each */
	if (before->label[0] || after->label[0])
		fprintf(out, "before: %s\nafter:  %s\n",
			printable(before->label[0] ? before->label : "-", sb, sizeof(sb)),
			printable(after->label[0] ? after->label : "-", sa, sizeof(sa)));
	if (strcmp(before->command, after->command))
		fprintf(out, "note: the commands differ:\n  before: %s\n  after:  %s\n",
			printable(before->command, sb, sizeof(sb)),
			printable(after->command, sa, sizeof(sa)));
	for (int pass = 0; pass < 2; pass++) {
		FILE *o = pass ? out : NULL;

		for (int c = 0; c < 5; c++)
			cell(o, &t, c, hdr[c]);
		for (int i = 0; i < n; i++) {
			const struct cmp_row *w = &rows[i];
			char buf[96];

			metric_label(w->pm, buf, sizeof(buf));
			cell(o, &t, 0, buf);
			snprintf(buf, sizeof(buf), "%d/%d", w->mb ? before->nr_runs : 0,
				 w->ma ? after->nr_runs : 0);
			cell(o, &t, 1, buf);
			avg_text(before, w->mb, w->hb, w->vb, buf, sizeof(buf));
			cell(o, &t, 2, buf);
			avg_text(after, w->ma, w->ha, w->va, buf, sizeof(buf));
			cell(o, &t, 3, buf);
			if (w->have_diff)
				snprintf(buf, sizeof(buf), "%+.2f%%", w->diff);
			else
				snprintf(buf, sizeof(buf), "n/a");
			cell(o, &t, 4, buf);
		}
	}
	free(rows);
}

int pmu_runs_compare_json(FILE *out, const struct pmu_runs *before,
			  const struct pmu_runs *after)
{
	json_object *root, *arr;
	struct cmp_row *rows;
	int n = compare_rows(before, after, &rows);

	if (n < 0)
		return -1;
	root = json_object_new_object();
	arr = json_object_new_array();
	for (int i = 0; i < n; i++) {
		const struct cmp_row *w = &rows[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "metric", json_object_new_string(w->pm->name));
		json_object_object_add(o, "runs_before", json_object_new_int(w->mb ? before->nr_runs : 0));
		json_object_object_add(o, "runs_after", json_object_new_int(w->ma ? after->nr_runs : 0));
		json_object_object_add(o, "before", w->hb ? jdouble(w->vb) : NULL);
		json_object_object_add(o, "after", w->ha ? jdouble(w->va) : NULL);
		json_object_object_add(o, "counted", json_object_new_boolean(w->counted));
		/* as printed: two decimals */
		json_object_object_add(o, "diff_pct", !w->have_diff ? NULL :
				       jdouble(isfinite(w->diff * 100) ?
					       round(w->diff * 100) / 100 : w->diff));
		json_object_array_add(arr, o);
	}
	free(rows);
	json_object_object_add(root, "compare", arr);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return 0;
}
