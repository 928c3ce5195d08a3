// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot: fold per-area walk results into (caller, api) rows
 * and print them as text tables or one JSON object.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "granule.h"
#include "snapshot.h"
#include "vocab.h"

/* The granules arch maps (4K pages), labelled as vmapstat labels them. */
struct gcols {
	size_t n;
	const unsigned int *shift;
	char label[6][24];
};

static void gcols_of(const char *arch, struct gcols *c)
{
	enum vs_arch a = arch_from_machine(arch);
	size_t i;

	c->n = arch_granules(a, 12, &c->shift);
	if (c->n > 6)
		c->n = 6;
	for (i = 0; i < c->n; i++)
		granule_label(a, 12, c->shift[i], c->label[i], sizeof(c->label[i]));
}

const char *snapshot_potential_name(int k)
{
	switch (k) {
	case SNAPSHOT_POT_64K: return "could_64K";
	case SNAPSHOT_POT_2M: return "could_2M";
	case SNAPSHOT_POT_MISALIGNED: return "misaligned";
	}
	return "?";
}

bool snapshot_potential_applies(const char *arch, int k)
{
	return k != SNAPSHOT_POT_64K || !strcmp(arch, "arm64");
}

uint64_t snapshot_area_base(const struct snapshot_area *a)
{
	return a->api == VMAPSCOPE_API_VMAP ? a->start : 0;
}

void snapshot_predicted(const uint64_t bytes[VMAPSCOPE_NR_SHIFTS],
		    const uint64_t pot[SNAPSHOT_NR_POT], uint64_t out[VMAPSCOPE_NR_SHIFTS])
{
	unsigned int sh;
	int k;

	memcpy(out, bytes, VMAPSCOPE_NR_SHIFTS * sizeof(*out));
	for (k = 0; k < SNAPSHOT_NR_POT; k++) {
		sh = snapshot_potential_shift(k);
		if (!sh)
			continue;
		out[sh] += pot[k];
		out[12] -= pot[k] < out[12] ? pot[k] : out[12];
	}
}

bool snapshot_api_follows_contiguity(int api)
{
	return api == VMAPSCOPE_API_VMAP || api == VMAPSCOPE_API_IOREMAP;
}

void snapshot_api_predicted(int api, const uint64_t bytes[VMAPSCOPE_NR_SHIFTS],
			    const uint64_t pot[SNAPSHOT_NR_POT],
			    uint64_t out[VMAPSCOPE_NR_SHIFTS])
{
	if (snapshot_api_follows_contiguity(api))
		snapshot_predicted(bytes, pot, out);
	else
		memcpy(out, bytes, VMAPSCOPE_NR_SHIFTS * sizeof(*out));
}

uint64_t snapshot_row_mapped(const struct snapshot_row *r)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < VMAPSCOPE_NR_SHIFTS; i++)
		sum += r->bytes[i];
	return sum;
}

int snapshot_row_cmp(const void *a, const void *b)
{
	const struct snapshot_row *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	return c ? c : x->api - y->api;
}

static void row_add(struct snapshot_row *r, const struct snapshot_area *a,
		    const struct snapshot_area_result *res)
{
	uint64_t pred[VMAPSCOPE_NR_SHIFTS];
	unsigned int i;

	if (res->changed) {
		r->changed++;
		return;
	}
	r->areas++;
	r->area_bytes += a->size;
	for (i = 0; i < VMAPSCOPE_NR_SHIFTS; i++)
		r->bytes[i] += res->bytes[i];
	for (i = 0; i < SNAPSHOT_NR_POT; i++)
		r->potential[i] += res->potential[i];
	snapshot_api_predicted(a->api, res->bytes, res->potential, pred);
	for (i = 0; i < VMAPSCOPE_NR_SHIFTS; i++)
		r->predicted[i] += pred[i];
	r->unmapped += res->unmapped;
}

int snapshot_fold(const struct snapshot_areas *areas, const struct snapshot_area_result *res,
	      const struct snapshot_opts *o, struct snapshot *s)
{
	size_t i, j, cap = 0;

	s->areas_listed = areas->n + areas->skipped_unpurged;
	s->areas_unpurged = areas->skipped_unpurged;
	s->total.api = -1;
	for (i = 0; i < areas->n; i++) {
		const struct snapshot_area *a = &areas->v[i];
		struct snapshot_row *r = NULL;

		if (o->api_mask && !(o->api_mask & (1u << a->api)))
			continue;
		if (o->caller_filter && !strstr(a->caller, o->caller_filter))
			continue;
		if (res[i].changed)
			s->areas_changed++;
		/* Linear search is fine: hundreds of callers at most. */
		for (j = 0; j < s->nr_rows; j++)
			if (s->rows[j].api == a->api && !strcmp(s->rows[j].caller, a->caller)) {
				r = &s->rows[j];
				break;
			}
		if (!r) {
			if (s->nr_rows == cap) {
				struct snapshot_row *v;

				cap = cap ? cap * 2 : 64;
				v = realloc(s->rows, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				s->rows = v;
			}
			r = &s->rows[s->nr_rows++];
			memset(r, 0, sizeof(*r));
			snprintf(r->caller, sizeof(r->caller), "%s", a->caller);
			r->api = a->api;
		}
		row_add(r, a, &res[i]);
		row_add(&s->total, a, &res[i]);
	}
	if (s->nr_rows)
		qsort(s->rows, s->nr_rows, sizeof(*s->rows), snapshot_row_cmp);
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	free(s->rows);
	s->rows = NULL;
	s->nr_rows = 0;
	free(s->area_res);
	s->area_res = NULL;
	snapshot_areas_free(&s->areas);
}

/* Rows folded per API (caller ""), for the default view. */
static size_t by_api(const struct snapshot *s, struct snapshot_row out[VMAPSCOPE_API_MAX])
{
	size_t i, n = 0;
	int api;
	unsigned int k;

	for (api = 0; api < VMAPSCOPE_API_MAX; api++) {
		struct snapshot_row r = { .api = api };
		bool any = false;

		for (i = 0; i < s->nr_rows; i++) {
			const struct snapshot_row *x = &s->rows[i];

			if (x->api != api)
				continue;
			any = true;
			r.areas += x->areas;
			r.area_bytes += x->area_bytes;
			r.unmapped += x->unmapped;
			r.changed += x->changed;
			for (k = 0; k < VMAPSCOPE_NR_SHIFTS; k++)
				r.bytes[k] += x->bytes[k];
			for (k = 0; k < SNAPSHOT_NR_POT; k++)
				r.potential[k] += x->potential[k];
			for (k = 0; k < VMAPSCOPE_NR_SHIFTS; k++)
				r.predicted[k] += x->predicted[k];
		}
		if (any)
			out[n++] = r;
	}
	return n;
}

static void print_row(FILE *f, const char *arch, const char *name, const struct snapshot_row *r)
{
	struct gcols c;
	size_t g;
	int k;

	gcols_of(arch, &c);
	fprintf(f, "%-48.48s %-10s %6" PRIu64, name, r->api < 0 ? "all" : api_name(r->api),
		r->areas);
	for (g = 0; g < c.n; g++)
		fprintf(f, " %12" PRIu64, r->bytes[c.shift[g]] >> 10);
	fprintf(f, " %10" PRIu64 " %10" PRIu64 " %7" PRIu64, snapshot_row_mapped(r) >> 10,
		r->unmapped >> 10, r->changed);
	for (k = 0; k < SNAPSHOT_NR_POT; k++)
		if (snapshot_potential_applies(arch, k))
			fprintf(f, " %10" PRIu64, r->potential[k] >> 10);
	fputc('\n', f);
}

void snapshot_print_text(FILE *f, const struct snapshot *s, bool per_caller)
{
	struct snapshot_row api_rows[VMAPSCOPE_API_MAX];
	size_t i, n;
	struct gcols c;
	size_t g;
	int k;

	fprintf(f, "Live vmalloc areas (%s): %" PRIu64 " listed, %" PRIu64
		" lazily freed (not walked), %" PRIu64 " changed during the walk\n",
		s->arch, s->areas_listed, s->areas_unpurged, s->areas_changed);
	fprintf(f, "%-48s %-10s %6s", per_caller ? "caller (KiB per granule)" : "(KiB per granule)",
		"api", "areas");
	gcols_of(s->arch, &c);
	for (g = 0; g < c.n; g++)
		fprintf(f, " %12s", c.label[g]);
	fprintf(f, " %10s %10s %7s", "mapped", "holes", "changed");
	for (k = 0; k < SNAPSHOT_NR_POT; k++)
		if (snapshot_potential_applies(s->arch, k))
			fprintf(f, " %10s", snapshot_potential_name(k));
	fputc('\n', f);
	if (per_caller) {
		for (i = 0; i < s->nr_rows; i++)
			print_row(f, s->arch, s->rows[i].caller[0] ? s->rows[i].caller : "?",
				  &s->rows[i]);
	} else {
		n = by_api(s, api_rows);
		for (i = 0; i < n; i++)
			print_row(f, s->arch, "", &api_rows[i]);
	}
	print_row(f, s->arch, "total", &s->total);
	fprintf(f, "(holes: unmapped parts such as guard pages; could_*: 4K-mapped bytes the series "
		"would map with that block (vmap: blocks at array indexes, the area aligned; others: "
		"in place); misaligned: contiguous runs off every block boundary; one snapshot: %.3f s, of which %" PRIu64 " BPF runs %.3f s)\n",
		s->seconds, s->prog_runs, s->walk_seconds);
}

/* {"could_64K": N, "could_2M": N, "misaligned": N}, the arch's figures. */
static json_object *potential_json(const char *arch, const uint64_t *pot)
{
	json_object *o = json_object_new_object();
	int k;

	for (k = 0; k < SNAPSHOT_NR_POT; k++)
		if (snapshot_potential_applies(arch, k))
			json_object_object_add(o, snapshot_potential_name(k),
					       json_object_new_int64(pot[k]));
	return o;
}

/* {"4K": N, ...}: bytes per granule of arch, by mapping shift. */
static json_object *granules_json(const char *arch, const uint64_t *bytes)
{
	json_object *b = json_object_new_object();
	struct gcols c;
	size_t g;

	gcols_of(arch, &c);
	for (g = 0; g < c.n; g++)
		json_object_object_add(b, c.label[g], json_object_new_int64(bytes[c.shift[g]]));
	return b;
}

/* What the series would map, per granule (snapshot_api_predicted()). */
static json_object *area_predicted_json(const char *arch, int api, const uint64_t *bytes,
					const uint64_t *pot)
{
	uint64_t p[VMAPSCOPE_NR_SHIFTS];

	snapshot_api_predicted(api, bytes, pot, p);
	return granules_json(arch, p);
}

static json_object *row_json(const char *arch, const struct snapshot_row *r, bool with_caller)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	struct gcols c;
	size_t g;

	gcols_of(arch, &c);
	if (with_caller)
		json_object_object_add(o, "caller", json_object_new_string(r->caller));
	json_object_object_add(o, "api", json_object_new_string(r->api < 0 ? "all"
								 : api_name(r->api)));
	json_object_object_add(o, "areas", json_object_new_int64(r->areas));
	json_object_object_add(o, "area_bytes", json_object_new_int64(r->area_bytes));
	for (g = 0; g < c.n; g++)
		json_object_object_add(b, c.label[g], json_object_new_int64(r->bytes[c.shift[g]]));
	json_object_object_add(o, "bytes", b);
	json_object_object_add(o, "mapped", json_object_new_int64(snapshot_row_mapped(r)));
	json_object_object_add(o, "potential", potential_json(arch, r->potential));
	json_object_object_add(o, "predicted", granules_json(arch, r->predicted));
	json_object_object_add(o, "unmapped", json_object_new_int64(r->unmapped));
	json_object_object_add(o, "changed", json_object_new_int64(r->changed));
	return o;
}

static json_object *area_json(const char *arch, const struct snapshot_area *a,
			      const struct snapshot_area_result *r)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	char hex[24];
	struct gcols c;
	size_t g;

	gcols_of(arch, &c);
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, a->start);
	json_object_object_add(o, "start", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, a->end);
	json_object_object_add(o, "end", json_object_new_string(hex));
	json_object_object_add(o, "size", json_object_new_int64(a->size));
	json_object_object_add(o, "caller", json_object_new_string(a->caller));
	json_object_object_add(o, "api", json_object_new_string(api_name(a->api)));
	json_object_object_add(o, "pages", json_object_new_int64(a->nr_pages));
	for (g = 0; g < c.n; g++)
		json_object_object_add(b, c.label[g], json_object_new_int64(r->bytes[c.shift[g]]));
	json_object_object_add(o, "bytes", b);
	json_object_object_add(o, "potential", potential_json(arch, r->potential));
	json_object_object_add(o, "predicted", area_predicted_json(arch, a->api, r->bytes,
								    r->potential));
	json_object_object_add(o, "unmapped", json_object_new_int64(r->unmapped));
	json_object_object_add(o, "changed", json_object_new_boolean(r->changed));
	return o;
}

int snapshot_print_json(FILE *f, const struct snapshot *s, bool per_caller)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	struct snapshot_row api_rows[VMAPSCOPE_API_MAX];
	size_t i, n;
	int ret;

	if (!o || !rows)
		return -ENOMEM;
	json_object_object_add(o, "type", json_object_new_string("snapshot"));
	json_object_object_add(o, "time", json_object_new_double(s->wall.tv_sec +
								 s->wall.tv_nsec / 1e9));
	json_object_object_add(o, "arch", json_object_new_string(s->arch));
	json_object_object_add(o, "areas_listed", json_object_new_int64(s->areas_listed));
	json_object_object_add(o, "areas_unpurged", json_object_new_int64(s->areas_unpurged));
	json_object_object_add(o, "areas_changed", json_object_new_int64(s->areas_changed));
	json_object_object_add(o, "prog_runs", json_object_new_int64(s->prog_runs));
	json_object_object_add(o, "walk_steps", json_object_new_int64(s->walk_steps));
	json_object_object_add(o, "seconds", json_object_new_double(s->seconds));
	json_object_object_add(o, "walk_seconds", json_object_new_double(s->walk_seconds));
	json_object_object_add(o, "list_seconds", json_object_new_double(s->list_seconds));
	json_object_object_add(o, "setup_seconds", json_object_new_double(s->setup_seconds));
	json_object_object_add(o, "init_mm", json_object_new_string(s->init_mm_how));
	json_object_object_add(o, "linear_map", json_object_new_string(s->linear_map_how));
	if (per_caller) {
		for (i = 0; i < s->nr_rows; i++)
			json_object_array_add(rows, row_json(s->arch, &s->rows[i], true));
	} else {
		n = by_api(s, api_rows);
		for (i = 0; i < n; i++)
			json_object_array_add(rows, row_json(s->arch, &api_rows[i], false));
	}
	json_object_object_add(o, "rows", rows);
	if (s->area_res) {
		json_object *areas = json_object_new_array();

		for (i = 0; i < s->areas.n; i++)
			json_object_array_add(areas, area_json(s->arch, &s->areas.v[i], &s->area_res[i]));
		json_object_object_add(o, "areas", areas);
	}
	json_object_object_add(o, "total", row_json(s->arch, &s->total, false));
	ret = fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) < 0
		? -EIO : 0;
	fflush(f);
	json_object_put(o);
	return ret;
}
