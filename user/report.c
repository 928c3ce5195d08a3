// SPDX-License-Identifier: GPL-2.0
/* vmapstat text and JSON output (see report.h). */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "granule.h"
#include "hist.h"
#include "report.h"

void report_missing(FILE *f, const struct vmapscope_sample *s)
{
	int i;

	for (i = 0; i < VMAPSCOPE_FEAT_MAX; i++)
		if (s->feat[i].why[0])
			fprintf(f, "vmapstat: %s\n", s->feat[i].why);
	if (!s->symbols_ok)
		fprintf(f, "vmapstat: callers: %s\n", s->ksyms_reason);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = b;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static bool any(const uint64_t *v, int n)
{
	while (n--)
		if (v[n])
			return true;
	return false;
}

/* Does any granule field count something at @shift? */
static bool granule_used(const struct vmapscope_row *r, unsigned int shift)
{
	size_t k;

	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_GRANULE && row_field_values(&r->st, &row_fields[k])[shift])
			return true;
	return false;
}

/*
 * A granule field is a column of the row's granule table when the text
 * shows it and the row counted some: runs only come with --runs.
 */
static bool granule_column(const struct vmapscope_row *r, const struct row_field *rf)
{
	return rf->kind == ROW_GRANULE && rf->text && any(row_field_values(&r->st, rf), VMAPSCOPE_NR_SHIFTS);
}

/* The granule table: entries, then each granule field the text shows, and the share. */
static void text_granules(FILE *f, const struct vmapscope_sample *s, const struct vmapscope_row *r,
			  uint64_t total)
{
	char label[48];
	unsigned int sh;
	size_t k;

	fprintf(f, "    %-16s %12s", "granule", row_granule_entries.label);
	for (k = 0; k < nr_row_fields; k++)
		if (granule_column(r, &row_fields[k]))
			fprintf(f, " %16s", row_fields[k].label);
	fprintf(f, " %8s\n", "share");
	for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++) {
		if (!granule_used(r, sh))
			continue;
		granule_label(arch_from_machine(s->arch), s->page_shift, sh, label, sizeof(label));
		fprintf(f, "    %-16s %12llu", label, (unsigned long long)row_mappings(r, sh));
		for (k = 0; k < nr_row_fields; k++)
			if (granule_column(r, &row_fields[k]))
				fprintf(f, " %16llu",
					(unsigned long long)row_field_values(&r->st, &row_fields[k])[sh]);
		fprintf(f, " %7.1f%%\n", total ? 100.0 * r->st.bytes[sh] / total : 0.0);
	}
}

/* The number of values histogram fields with @sum_off as their sum counted; 0: none. */
static uint64_t hist_count_of(const struct vmapscope_row *r, size_t sum_off)
{
	uint64_t n = 0;
	size_t k;
	int i;

	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_HIST && row_fields[k].sum_off == sum_off)
			for (i = 0; i < VMAPSCOPE_HIST_SLOTS; i++)
				n += row_field_values(&r->st, &row_fields[k])[i];
	return n;
}

/*
 * Text line @line of a row: its scalar fields, when the first is nonzero,
 * and of the others those that are.  A byte count follows its line's
 * count in parentheses, a time sum is shown as the mean per value its
 * histogram counted (calls timed), else per the line's count.
 */
static void text_line(FILE *f, const struct vmapscope_row *r, int line,
		      const struct report_opts *o)
{
	uint64_t first = 0;
	bool started = false;
	char hb[32];
	size_t k;

	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];
		uint64_t v;

		if (rf->kind != ROW_SCALAR || rf->text != line)
			continue;
		v = row_field_values(&r->st, rf)[0];
		if (!started) {
			if (!v)
				return;
			first = v;
			started = true;
			fprintf(f, "    %s %llu", rf->label, (unsigned long long)v);
		} else if (!v) {
			continue;
		} else if (rf->unit == ROW_UNIT_BYTES) {
			human_bytes(v, hb, sizeof(hb));
			fprintf(f, " (%s)", hb);
		} else if (rf->unit == ROW_UNIT_NS) {
			uint64_t n = hist_count_of(r, rf->off);

			fprintf(f, ", %s %.3f %s", rf->label, (double)v / (n ? n : first) / o->lat_div,
				o->lat_unit);
		} else {
			fprintf(f, ", %s %llu", rf->label, (unsigned long long)v);
		}
	}
	if (!started)
		return;
	/* the line's reason counts: ", align 3, discontig 1" */
	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];
		int i;

		if (rf->kind != ROW_REASON || rf->text != line)
			continue;
		for (i = 1; i < VMAPSCOPE_NR_FALLBACKS; i++)
			if (row_field_values(&r->st, rf)[i])
				fprintf(f, ", %s %llu", fallback_name(i),
					(unsigned long long)row_field_values(&r->st, rf)[i]);
	}
	fprintf(f, "\n");
}

static void text_row(FILE *f, const struct vmapscope_sample *s,
		     const struct vmapscope_row *r, const struct report_opts *o)
{
	uint64_t total = row_total_bytes(r);
	int line, last = 0;
	char hdr[32];
	size_t k;

	if (o->per_caller && r->api != VMAPSCOPE_API_UNATTRIBUTED)
		fprintf(f, "\n%s  [%s]", r->sym, api_name(r->api));
	else
		fprintf(f, "\n[%s]", api_name(r->api));
	/* --by: the label after the caller */
	if (by_name(s->by))
		fprintf(f, "  %s=%s", by_name(s->by), r->label_str);
	fprintf(f, "\n");

	if (s->feat[VMAPSCOPE_FEAT_GRANULE].available || s->feat[VMAPSCOPE_FEAT_RUNS].available)
		for (k = 0; k < nr_row_fields; k++)
			if (granule_column(r, &row_fields[k])) {
				text_granules(f, s, r, total);
				break;
			}
	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_SCALAR && row_fields[k].text > last)
			last = row_fields[k].text;
	for (line = 1; line <= last; line++)
		text_line(f, r, line, o);
	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];
		const uint64_t *v = row_field_values(&r->st, rf);
		bool ns = rf->unit == ROW_UNIT_NS;

		if (rf->kind != ROW_HIST || !rf->text || !any(v, VMAPSCOPE_HIST_SLOTS))
			continue;
		fprintf(f, "\n");
		if (ns && rf->label)	/* "call usecs" */
			snprintf(hdr, sizeof(hdr), "%s %s", rf->label, o->lat_unit);
		else
			snprintf(hdr, sizeof(hdr), "%s", ns ? o->lat_unit : rf->label);
		print_log2_hist(f, v, VMAPSCOPE_HIST_SLOTS, hdr, ns ? o->lat_div : 1);
	}
}

/* The global counters that are not zero, on one line. */
static void text_counters(FILE *f, const struct vmapscope_sample *s)
{
	const char *sep = "\ncounters: ";
	int i;

	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++) {
		if (!s->counters[i])
			continue;
		fprintf(f, "%s%s %llu", sep, counter_name(i), (unsigned long long)s->counters[i]);
		sep = ", ";
	}
	if (*sep == ',')
		fprintf(f, "\n");
}

void report_text(FILE *f, const struct vmapscope_sample *s, const struct report_opts *o)
{
	struct vmapscope_sample byapi = {};
	const struct vmapscope_sample *v = s;
	size_t i;

	if (o->timestamp) {
		char ts[32];
		struct tm tm;

		localtime_r(&s->wall.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		fprintf(f, "%-8s\n", ts);
	}
	if (!o->per_caller && !rows_by_api(s, &byapi))
		v = &byapi;
	if (!v->nr_rows)
		fprintf(f, "(no vmalloc/vmap/ioremap mapping events)\n");
	for (i = 0; i < v->nr_rows; i++)
		text_row(f, s, &v->rows[i], o);
	text_counters(f, s);
	if (s->counters[VMAPSCOPE_CNT_STATS_FULL])
		fprintf(f, "\nWARNING: %llu events not counted: stats map full "
			"(%u callers; raise --max-callers)\n",
			(unsigned long long)s->counters[VMAPSCOPE_CNT_STATS_FULL], s->stats_max_entries);
	fprintf(f, "\n");
	fflush(f);
	sample_free(&byapi);
}

/* ---- JSON ---------------------------------------------------------- */

static struct json_object *j_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *j_hist(const uint64_t *slots)
{
	struct json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; a && i < VMAPSCOPE_HIST_SLOTS; i++) {
		struct json_object *b;
		uint64_t hi = hist_slot_high(i, VMAPSCOPE_HIST_SLOTS);

		if (!slots[i])
			continue;
		b = json_object_new_object();
		json_object_object_add(b, "low", j_u64(hist_slot_low(i)));
		json_object_object_add(b, "high", hi == UINT64_MAX ? NULL : j_u64(hi));
		json_object_object_add(b, "count", j_u64(slots[i]));
		json_object_array_add(a, b);
	}
	return a;
}

/* Every reason with its count, zeros included: {"limit": 0, "discontig": 2, ...}. */
static struct json_object *j_reasons(const uint64_t *v)
{
	struct json_object *o = json_object_new_object();
	int i;

	for (i = 1; o && i < VMAPSCOPE_NR_FALLBACKS; i++)
		json_object_object_add(o, fallback_name(i), j_u64(v[i]));
	return o;
}

static struct json_object *j_row(const struct vmapscope_sample *s,
				 const struct vmapscope_row *r, bool per_caller)
{
	struct json_object *o = json_object_new_object(), *g;
	uint64_t total = row_total_bytes(r);
	char label[48], addr[24];
	unsigned int sh;
	size_t k;

	if (!o)
		return NULL;
	json_object_object_add(o, "api", json_object_new_string(api_name(r->api)));
	if (per_caller) {
		json_object_object_add(o, "caller", json_object_new_string(r->sym));
		snprintf(addr, sizeof(addr), "0x%016" PRIx64, r->caller);
		json_object_object_add(o, "caller_addr", json_object_new_string(addr));
	}
	/* --by only: "cgroup" (v2 path, or the id when unresolved) or "comm" */
	if (by_name(s->by))
		json_object_object_add(o, by_name(s->by), json_object_new_string(r->label_str));
	g = json_object_new_array();
	for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++) {
		struct json_object *e;

		if (!granule_used(r, sh))
			continue;
		e = json_object_new_object();
		granule_label(arch_from_machine(s->arch), s->page_shift, sh, label, sizeof(label));
		json_object_object_add(e, "shift", json_object_new_int(sh));
		json_object_object_add(e, "label", json_object_new_string(label));
		for (k = 0; k < nr_row_fields; k++) {
			const struct row_field *rf = &row_fields[k];

			if (rf->kind != ROW_GRANULE)
				continue;
			if (rf->unit == ROW_UNIT_BYTES)
				json_object_object_add(e, row_granule_entries.json,
						       j_u64(row_field_values(&r->st, rf)[sh] >> sh));
			json_object_object_add(e, rf->json, j_u64(row_field_values(&r->st, rf)[sh]));
		}
		json_object_object_add(e, "share",
				       json_object_new_double(total ? (double)r->st.bytes[sh] / total : 0));
		json_object_array_add(g, e);
	}
	json_object_object_add(o, "granules", g);
	/* byte counts per granule also as the row's total */
	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];
		const uint64_t *v = row_field_values(&r->st, rf);
		uint64_t t = 0;

		if (rf->kind != ROW_GRANULE || rf->unit != ROW_UNIT_BYTES)
			continue;
		for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++)
			t += v[sh];
		json_object_object_add(o, rf->json, j_u64(t));
	}
	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];

		if (rf->kind == ROW_SCALAR)
			json_object_object_add(o, rf->json, j_u64(row_field_values(&r->st, rf)[0]));
		else if (rf->kind == ROW_HIST)
			json_object_object_add(o, rf->json, j_hist(row_field_values(&r->st, rf)));
		else if (rf->kind == ROW_REASON)
			json_object_object_add(o, rf->json, j_reasons(row_field_values(&r->st, rf)));
	}
	return o;
}

struct json_object *report_json(const struct vmapscope_sample *s, const struct report_opts *o)
{
	struct vmapscope_sample byapi = {};
	const struct vmapscope_sample *v = s;
	struct json_object *root, *k, *feats, *cnt, *rows, *sym;
	char ts[40];
	struct tm tm;
	size_t i;

	root = json_object_new_object();
	if (!root)
		return NULL;
	gmtime_r(&s->wall.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(root, "schema", json_object_new_string("vmapstat/1"));
	json_object_object_add(root, "time", json_object_new_string(ts));
	json_object_object_add(root, "timestamp",
			       json_object_new_double(s->wall.tv_sec + s->wall.tv_nsec / 1e9));
	json_object_object_add(root, "interval_s", json_object_new_double(s->interval_s));
	json_object_object_add(root, "mode",
			       json_object_new_string(o->per_caller ? "per_caller" : "per_api"));

	k = json_object_new_object();
	json_object_object_add(k, "release", json_object_new_string(s->kernel_release));
	json_object_object_add(k, "arch", json_object_new_string(s->arch));
	json_object_object_add(k, "page_size", j_u64(1ULL << s->page_shift));
	json_object_object_add(root, "kernel", k);

	feats = json_object_new_object();
	for (i = 0; i < VMAPSCOPE_FEAT_MAX; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "available", json_object_new_boolean(s->feat[i].available));
		json_object_object_add(f, "how", json_object_new_string(s->feat[i].how));
		json_object_object_add(f, "why", json_object_new_string(s->feat[i].why));
		json_object_object_add(feats, feature_name(i), f);
	}
	json_object_object_add(root, "features", feats);

	sym = json_object_new_object();
	json_object_object_add(sym, "ok", json_object_new_boolean(s->symbols_ok));
	json_object_object_add(sym, "why", json_object_new_string(s->symbols_ok ? "" : s->ksyms_reason));
	json_object_object_add(root, "symbols", sym);

	cnt = json_object_new_object();
	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++)
		json_object_object_add(cnt, counter_name(i), j_u64(s->counters[i]));
	json_object_object_add(cnt, "stats_map_max_entries", j_u64(s->stats_max_entries));
	json_object_object_add(root, "counters", cnt);

	if (!o->per_caller && !rows_by_api(s, &byapi))
		v = &byapi;
	rows = json_object_new_array();
	for (i = 0; i < v->nr_rows; i++)
		json_object_array_add(rows, j_row(s, &v->rows[i], o->per_caller));
	json_object_object_add(root, "rows", rows);
	sample_free(&byapi);
	return root;
}

int report_json_print(FILE *f, struct json_object *obj)
{
	const char *str;

	if (!obj)
		return -ENOMEM;
	str = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!str)
		return -ENOMEM;
	errno = 0;
	if (fprintf(f, "%s\n", str) < 0 || fflush(f))
		return errno ? -errno : -EIO;
	return 0;
}
