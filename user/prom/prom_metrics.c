// SPDX-License-Identifier: GPL-2.0
/* vmapstat samples -> vmapscope_* metrics (see prom_metrics.h). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "granule.h"
#include "hist.h"
#include "prom_metrics.h"

#ifndef VMAPSCOPE_VERSION
#define VMAPSCOPE_VERSION "0.1"
#endif

#define SYM_LEN sizeof(((struct vmapscope_row *)0)->sym)
#define LABEL_LEN sizeof(((struct vmapscope_row *)0)->label_str)

/*
 * What --top-callers bounds: a caller, or with --by a (caller, label)
 * pair (label "" without --by).  Rows of pairs not admitted fold into
 * caller="other" (and label "other"), so the series stay bounded by
 * (top + 1) x APIs and every total stays exact.
 */
struct named_key {
	char sym[SYM_LEN];
	char label[LABEL_LEN];
};

struct acc_row {
	struct named_key k;
	int api;
	struct vmapscope_stats st;
};

/*
 * The pmu_acc slots that are no CPU: an event's "counted" flag, and its
 * count per command (one counter, on no particular CPU: cpu="command").
 */
#define PMU_ACC_COUNTED	(-1)
#define PMU_ACC_COMMAND	(-2)

struct pmu_acc {
	char event[PMU_NAME_LEN];
	char pmu[PMU_NAME_LEN];
	int cpu;		/* a CPU, or PMU_ACC_COUNTED, PMU_ACC_COMMAND */
	bool counted;
	double value;
};

struct prom_state {
	unsigned int top;
	struct acc_row *rows;		/* sorted by (sym, api) */
	size_t nr, cap;
	int by;				/* enum vmapscope_by of the rows added */
	struct named_key *named;	/* sorted; at most top entries */
	size_t nr_named;
	uint64_t counters[VMAPSCOPE_CNT_MAX];
	uint64_t intervals;
	double last_wall;		/* end of the last interval, epoch s */
	double last_interval_s;
	bool have_info;
	struct vmapscope_sample info;	/* kernel, features, symbols; no rows */
	/* last snapshot, folded to top callers + "other" */
	bool have_live;
	struct snapshot_row *live;
	size_t nr_live;
	double live_seconds;
	char live_arch[16];		/* which potential figures exist */
	/* PMU counts per (event, pmu, cpu), summed over periods */
	struct pmu_acc *pmu;
	size_t nr_pmu;
};

static int cmp_name(const void *a, const void *b)
{
	const struct named_key *x = a, *y = b;
	int c = strcmp(x->sym, y->sym);

	return c ? c : strcmp(x->label, y->label);
}

static int cmp_row(const void *a, const void *b)
{
	const struct acc_row *x = a, *y = b;
	int c = cmp_name(&x->k, &y->k);

	return c ? c : (x->api > y->api) - (x->api < y->api);
}

void prom_log2_bounds(double *le, double div)
{
	unsigned int i;

	/*
	 * Divide, never multiply by 1e-9: 3 / 1e9 is the double nearest to
	 * 3e-9 and prints as "3e-09", where 3 * 1e-9 prints as
	 * "3.0000000000000004e-09".
	 */
	for (i = 0; i < PROM_HIST_BOUNDS; i++)
		le[i] = (double)hist_slot_high(i, VMAPSCOPE_HIST_SLOTS) / div;
}

struct prom_state *prom_state_new(unsigned int top_callers)
{
	struct prom_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->top = top_callers;
	if (top_callers) {
		st->named = calloc(top_callers, sizeof(*st->named));
		if (!st->named) {
			free(st);
			return NULL;
		}
	}
	return st;
}

void prom_state_free(struct prom_state *st)
{
	if (!st)
		return;
	free(st->rows);
	free(st->named);
	free(st->live);
	free(st->pmu);
	free(st);
}

uint64_t prom_state_intervals(const struct prom_state *st)
{
	return st->intervals;
}

void prom_state_set_info(struct prom_state *st, const struct vmapscope_sample *s)
{
	st->info = *s;
	st->info.rows = NULL;
	st->info.nr_rows = 0;
	st->have_info = true;
}

static bool is_named(const struct prom_state *st, const struct named_key *k)
{
	return st->nr_named &&
	       bsearch(k, st->named, st->nr_named, sizeof(*st->named), cmp_name);
}

struct caller_rank {
	const struct named_key *k;
	uint64_t bytes, area_bytes, calls;	/* calls: mapping calls, then probed calls */
};

static int cmp_rank(const void *a, const void *b)
{
	const struct caller_rank *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->area_bytes != y->area_bytes)
		return x->area_bytes > y->area_bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return cmp_name(x->k, y->k);
}

/* Fill free slots of the named set with the biggest unnamed callers. */
static int admit_callers(struct prom_state *st)
{
	struct caller_rank *cand;
	size_t i, n = 0, take;

	if (st->nr_named >= st->top)
		return 0;
	cand = calloc(st->nr ? st->nr : 1, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (i = 0; i < st->nr; i++) {
		const struct acc_row *r = &st->rows[i];
		struct caller_rank *c;
		unsigned int sh;

		if (is_named(st, &r->k))
			continue;
		/* rows are sorted by (sym, label): one pair's rows are adjacent */
		if (!n || cmp_name(cand[n - 1].k, &r->k))
			cand[n++].k = &r->k;
		c = &cand[n - 1];
		for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++)
			c->bytes += r->st.bytes[sh];
		c->area_bytes += r->st.area_bytes;
		c->calls += r->st.chunks + r->st.calls;
	}
	qsort(cand, n, sizeof(*cand), cmp_rank);
	take = st->top - st->nr_named;
	if (take > n)
		take = n;
	for (i = 0; i < take; i++)
		st->named[st->nr_named + i] = *cand[i].k;
	st->nr_named += take;
	qsort(st->named, st->nr_named, sizeof(*st->named), cmp_name);
	free(cand);
	return 0;
}

int prom_state_add(struct prom_state *st, const struct vmapscope_sample *delta)
{
	size_t i, nr_new = 0, nr_old = st->nr;

	/* Reserve room for every row first so that -ENOMEM changes nothing. */
	if (st->nr + delta->nr_rows > st->cap) {
		size_t cap = st->cap ? st->cap : 64;
		struct acc_row *rows;

		while (cap < st->nr + delta->nr_rows)
			cap *= 2;
		rows = realloc(st->rows, cap * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		st->rows = rows;
		st->cap = cap;
	}
	for (i = 0; i < delta->nr_rows; i++) {
		const struct vmapscope_row *d = &delta->rows[i];
		struct acc_row key, *r;

		memset(&key.k, 0, sizeof(key.k));
		snprintf(key.k.sym, sizeof(key.k.sym), "%s", d->sym);
		if (delta->by)
			snprintf(key.k.label, sizeof(key.k.label), "%s", d->label_str);
		key.api = d->api;
		r = bsearch(&key, st->rows, nr_old, sizeof(*r), cmp_row);
		if (!r) {
			/* appended rows are unsorted until the qsort below */
			size_t j;

			for (j = nr_old; j < nr_old + nr_new; j++)
				if (!cmp_row(&key, &st->rows[j]))
					break;
			r = &st->rows[j];
			if (j == nr_old + nr_new) {
				*r = key;
				memset(&r->st, 0, sizeof(r->st));
				nr_new++;
			}
		}
		stats_add(&r->st, &d->st);
	}
	st->nr += nr_new;
	if (nr_new)
		qsort(st->rows, st->nr, sizeof(*st->rows), cmp_row);
	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++)
		st->counters[i] += delta->counters[i];
	if (delta->by)
		st->by = delta->by;
	st->intervals++;
	st->last_wall = (double)delta->wall.tv_sec + delta->wall.tv_nsec / 1e9;
	st->last_interval_s = delta->interval_s;
	prom_state_set_info(st, delta);
	/* a failed admission only leaves callers in "other" a while longer */
	admit_callers(st);
	return 0;
}

static int cmp_live_caller(const void *a, const void *b)
{
	const struct snapshot_row *x = a, *y = b;

	return strcmp(x->caller, y->caller);
}

static int cmp_live_rank(const void *a, const void *b)
{
	const struct snapshot_row *x = a, *y = b;
	uint64_t tx = snapshot_row_mapped(x), ty = snapshot_row_mapped(y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(x->caller, y->caller);
}

int prom_state_set_live(struct prom_state *st, const struct snapshot *ls)
{
	struct snapshot_row *rows, *callers;
	size_t i, j, n = 0, nc = 0;

	if (!ls) {
		free(st->live);
		st->live = NULL;
		st->nr_live = 0;
		st->have_live = false;
		return 0;
	}
	rows = calloc(ls->nr_rows ? ls->nr_rows : 1, sizeof(*rows));
	callers = calloc(ls->nr_rows ? ls->nr_rows : 1, sizeof(*callers));
	if (!rows || !callers) {
		free(rows);
		free(callers);
		return -ENOMEM;
	}
	/* rank callers (summed over APIs) by live bytes */
	memcpy(rows, ls->rows, ls->nr_rows * sizeof(*rows));
	qsort(rows, ls->nr_rows, sizeof(*rows), cmp_live_caller);
	for (i = 0; i < ls->nr_rows; i++) {
		if (!nc || strcmp(callers[nc - 1].caller, rows[i].caller)) {
			memset(&callers[nc], 0, sizeof(callers[nc]));
			memcpy(callers[nc].caller, rows[i].caller, sizeof(rows[i].caller));
			nc++;
		}
		for (j = 0; j < VMAPSCOPE_NR_SHIFTS; j++)
			callers[nc - 1].bytes[j] += rows[i].bytes[j];
	}
	qsort(callers, nc, sizeof(*callers), cmp_live_rank);
	/* callers beyond the top N become "other"; then fold equal keys */
	for (i = 0; i < ls->nr_rows; i++) {
		bool named = false;

		for (j = 0; j < nc && j < st->top; j++)
			if (!strcmp(callers[j].caller, rows[i].caller)) {
				named = true;
				break;
			}
		if (!named)
			snprintf(rows[i].caller, sizeof(rows[i].caller), "%s",
				 PROM_OTHER_CALLER);
	}
	free(callers);
	qsort(rows, ls->nr_rows, sizeof(*rows), snapshot_row_cmp);
	for (i = 0; i < ls->nr_rows; i++) {
		if (n && !snapshot_row_cmp(&rows[n - 1], &rows[i])) {
			struct snapshot_row *d = &rows[n - 1];

			for (j = 0; j < VMAPSCOPE_NR_SHIFTS; j++)
				d->bytes[j] += rows[i].bytes[j];
			for (j = 0; j < SNAPSHOT_NR_POT; j++)
				d->potential[j] += rows[i].potential[j];
			d->areas += rows[i].areas;
			d->area_bytes += rows[i].area_bytes;
		} else {
			rows[n++] = rows[i];
		}
	}
	free(st->live);
	st->live = rows;
	st->nr_live = n;
	st->live_seconds = ls->seconds;
	snprintf(st->live_arch, sizeof(st->live_arch), "%s", ls->arch);
	st->have_live = true;
	return 0;
}

static void live_gauges(struct prom_buf *b, const struct prom_state *st)
{
	struct prom_label l[3];
	char gran[16];
	size_t i;
	unsigned int sh;

	if (!st->have_live)
		return;
	prom_family(b, "vmapscope_live_bytes", PROM_GAUGE,
		    "Bytes the kernel page tables map right now for live vmalloc/vmap/ioremap areas, by caller (as /proc/vmallocinfo shows it), API and granule (--live-bytes).");
	for (i = 0; i < st->nr_live; i++) {
		const struct snapshot_row *r = &st->live[i];

		for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++) {
			if (!r->bytes[sh])
				continue;
			l[0] = (struct prom_label){ "caller", r->caller };
			l[1] = (struct prom_label){ "api", api_name(r->api) };
			size_label(sh, gran, sizeof(gran));
			l[2] = (struct prom_label){ "granule", gran };
			prom_sample_u64(b, "vmapscope_live_bytes", l, 3, r->bytes[sh]);
		}
	}
	prom_family(b, "vmapscope_live_potential_bytes", PROM_GAUGE,
		    "Of the bytes mapped with 4K PTEs, those the vmap series would map with a larger block (could_64K, could_2M: vmap areas by array index, other areas in place), and contiguous runs off every block boundary (misaligned), by caller and API (--live-bytes).");
	for (i = 0; i < st->nr_live; i++) {
		const struct snapshot_row *r = &st->live[i];
		int k;

		for (k = 0; k < SNAPSHOT_NR_POT; k++) {
			if (!snapshot_potential_applies(st->live_arch, k))
				continue;
			l[0] = (struct prom_label){ "caller", r->caller };
			l[1] = (struct prom_label){ "api", api_name(r->api) };
			l[2] = (struct prom_label){ "potential", snapshot_potential_name(k) };
			prom_sample_u64(b, "vmapscope_live_potential_bytes", l, 3, r->potential[k]);
		}
	}
	prom_family(b, "vmapscope_live_areas", PROM_GAUGE,
		    "Live areas in /proc/vmallocinfo walked by the last audit, by caller and API (--live-bytes).");
	for (i = 0; i < st->nr_live; i++) {
		l[0] = (struct prom_label){ "caller", st->live[i].caller };
		l[1] = (struct prom_label){ "api", api_name(st->live[i].api) };
		prom_sample_u64(b, "vmapscope_live_areas", l, 2, st->live[i].areas);
	}
	prom_family(b, "vmapscope_live_audit_seconds", PROM_GAUGE,
		    "Wall time the last live-mapping audit took.");
	prom_sample_double(b, "vmapscope_live_audit_seconds", NULL, 0, st->live_seconds);
}

static struct pmu_acc *pmu_slot(struct prom_state *st, const char *event,
				 const char *pmu, int cpu)
{
	struct pmu_acc *a;
	size_t i;

	for (i = 0; i < st->nr_pmu; i++)
		if (st->pmu[i].cpu == cpu && !strcmp(st->pmu[i].event, event) &&
		    !strcmp(st->pmu[i].pmu, pmu))
			return &st->pmu[i];
	a = realloc(st->pmu, (st->nr_pmu + 1) * sizeof(*a));
	if (!a)
		return NULL;
	st->pmu = a;
	a = &st->pmu[st->nr_pmu++];
	memset(a, 0, sizeof(*a));
	snprintf(a->event, sizeof(a->event), "%s", event);
	snprintf(a->pmu, sizeof(a->pmu), "%s", pmu);
	a->cpu = cpu;
	return a;
}

int prom_state_add_pmu(struct prom_state *st, const struct pmu_results *res)
{
	int i, c;

	for (i = 0; i < res->nr; i++) {
		const struct pmu_result *r = &res->r[i];
		struct pmu_acc *a = pmu_slot(st, r->name, r->pmu, PMU_ACC_COUNTED);

		if (!a)
			return -ENOMEM;
		a->counted = r->counted;
		for (c = 0; c < r->nr_cpus; c++) {
			/* per command the one counter has cpu -1: not "counted"'s slot */
			a = pmu_slot(st, r->name, r->pmu,
				     res->task ? PMU_ACC_COMMAND : r->cpu[c].cpu);
			if (!a)
				return -ENOMEM;
			a->value += r->cpu[c].scaled;
		}
	}
	return 0;
}

static void pmu_metrics(struct prom_buf *b, const struct prom_state *st)
{
	struct prom_label l[3];
	char cpu[16];
	size_t i;

	if (!st->nr_pmu)
		return;
	prom_family(b, "vmapscope_pmu_events_total", PROM_COUNTER,
		    "PMU event counts per CPU (vmapstat --pmu), or cpu=\"command\" for the command "
		    "and its children (--pmu -- COMMAND), scaled when the PMU multiplexed.");
	for (i = 0; i < st->nr_pmu; i++) {
		const struct pmu_acc *a = &st->pmu[i];

		if (a->cpu == PMU_ACC_COUNTED)
			continue;
		if (a->cpu == PMU_ACC_COMMAND)
			snprintf(cpu, sizeof(cpu), "command");
		else
			snprintf(cpu, sizeof(cpu), "%d", a->cpu);
		l[0] = (struct prom_label){ "event", a->event };
		l[1] = (struct prom_label){ "pmu", a->pmu };
		l[2] = (struct prom_label){ "cpu", cpu };
		/* scaled counts are estimates: whole events are what PMUs count */
		prom_sample_u64(b, "vmapscope_pmu_events_total", l, 3,
				(uint64_t)(a->value + 0.5));
	}
	prom_family(b, "vmapscope_pmu_event_counted", PROM_GAUGE,
		    "1 when the event could be opened on some CPU in the last period, else 0 (vmapstat says why).");
	for (i = 0; i < st->nr_pmu; i++) {
		const struct pmu_acc *a = &st->pmu[i];

		if (a->cpu != PMU_ACC_COUNTED)
			continue;
		l[0] = (struct prom_label){ "event", a->event };
		l[1] = (struct prom_label){ "pmu", a->pmu };
		prom_sample_u64(b, "vmapscope_pmu_event_counted", l, 2, a->counted);
	}
}

/* ---- rendering ------------------------------------------------------- */

/* Rows folded to (caller label, [by label,] api): named callers keep their symbol. */
struct out_row {
	const char *caller;
	const char *label;	/* --by: the label, "other" with caller "other" */
	int api;
	struct vmapscope_stats st;
};

static int cmp_out(const void *a, const void *b)
{
	const struct out_row *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	if (!c)
		c = strcmp(x->label, y->label);
	return c ? c : (x->api > y->api) - (x->api < y->api);
}

static struct out_row *fold_rows(const struct prom_state *st, size_t *nr)
{
	struct out_row *out;
	size_t i, n = 0;

	out = calloc(st->nr ? st->nr : 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < st->nr; i++) {
		bool named = is_named(st, &st->rows[i].k);

		out[i].caller = named ? st->rows[i].k.sym : PROM_OTHER_CALLER;
		out[i].label = named || !st->by ? st->rows[i].k.label : PROM_OTHER_CALLER;
		out[i].api = st->rows[i].api;
		out[i].st = st->rows[i].st;
	}
	qsort(out, st->nr, sizeof(*out), cmp_out);
	for (i = 0; i < st->nr; i++) {
		if (n && !cmp_out(&out[n - 1], &out[i]))
			stats_add(&out[n - 1].st, &out[i].st);
		else
			out[n++] = out[i];
	}
	*nr = n;
	return out;
}

/* The row's labels: caller, the --by label if any, api; returns how many. */
static size_t row_labels(const struct prom_state *st, const struct out_row *r,
			 struct prom_label *l)
{
	size_t n = 0;

	l[n++] = (struct prom_label){ "caller", r->caller };
	if (by_name(st->by))
		l[n++] = (struct prom_label){ by_name(st->by), r->label };
	l[n++] = (struct prom_label){ "api", api_name(r->api) };
	return n;
}

/* A counter family with one series per (caller, api) row where nonzero. */
static void per_row_counter(struct prom_buf *b, const struct prom_state *st,
			    const struct out_row *rows, size_t n, const struct row_field *rf)
{
	struct prom_label l[3];
	size_t i;

	prom_family(b, rf->prom, PROM_COUNTER, rf->help);
	for (i = 0; i < n; i++) {
		uint64_t v = row_field_values(&rows[i].st, rf)[0];

		if (!v)
			continue;
		prom_sample_u64(b, rf->prom, l, row_labels(st, &rows[i], l), v);
	}
}

static bool granule_used(const struct vmapscope_stats *s, unsigned int shift)
{
	size_t k;

	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_GRANULE && row_field_values(s, &row_fields[k])[shift])
			return true;
	return false;
}

/*
 * A counter family per (caller, api, granule) where any granule field
 * counts something; @entries: the page-table entries of a byte count.
 */
static void per_granule(struct prom_buf *b, const struct prom_state *st,
			const struct out_row *rows, size_t n, const struct row_field *rf, bool entries)
{
	const char *name = entries ? row_granule_entries.prom : rf->prom;
	struct prom_label l[4];
	size_t nl;
	char gran[16];
	size_t i;
	unsigned int sh;

	prom_family(b, name, PROM_COUNTER, entries ? row_granule_entries.help : rf->help);
	for (i = 0; i < n; i++) {
		const uint64_t *v = row_field_values(&rows[i].st, rf);

		for (sh = 0; sh < VMAPSCOPE_NR_SHIFTS; sh++) {
			if (!granule_used(&rows[i].st, sh))
				continue;
			nl = row_labels(st, &rows[i], l);
			size_label(sh, gran, sizeof(gran));
			l[nl] = (struct prom_label){ "granule", gran };
			prom_sample_u64(b, name, l, nl + 1, entries ? v[sh] >> sh : v[sh]);
		}
	}
}

/* A counter family per (caller, api, reason) where nonzero. */
static void per_reason(struct prom_buf *b, const struct prom_state *st,
		       const struct out_row *rows, size_t n, const struct row_field *rf)
{
	struct prom_label l[4];
	size_t i, nl;
	int k;

	prom_family(b, rf->prom, PROM_COUNTER, rf->help);
	for (i = 0; i < n; i++) {
		const uint64_t *v = row_field_values(&rows[i].st, rf);

		for (k = 1; k < VMAPSCOPE_NR_FALLBACKS; k++) {
			if (!v[k])
				continue;
			nl = row_labels(st, &rows[i], l);
			l[nl] = (struct prom_label){ "reason", fallback_name(k) };
			prom_sample_u64(b, rf->prom, l, nl + 1, v[k]);
		}
	}
}

/* Times are counted in ns and exposed in seconds, the Prometheus base unit. */
static double base_unit_div(const struct row_field *rf)
{
	return rf->unit == ROW_UNIT_NS ? 1e9 : 1.0;
}

static void histogram(struct prom_buf *b, const struct prom_state *st,
		      const struct out_row *rows, size_t n, const struct row_field *rf)
{
	double le[PROM_HIST_BOUNDS], div = base_unit_div(rf);
	struct prom_label l[3];
	size_t i;

	prom_log2_bounds(le, div);
	prom_family(b, rf->prom, PROM_HISTOGRAM, rf->help);
	for (i = 0; i < n; i++) {
		const uint64_t *slots = row_field_values(&rows[i].st, rf);
		struct hist_native hn;
		struct prom_native pn;
		struct prom_hist h = {
			.nr_bounds = PROM_HIST_BOUNDS,
			.le = le,
			.counts = slots,
			.sum = (double)row_field_sum(&rows[i].st, rf) / div,
		};
		unsigned int k;
		uint64_t total = 0;

		for (k = 0; k < VMAPSCOPE_HIST_SLOTS; k++)
			total += slots[k];
		if (!total)
			continue;
		if (b->protobuf) {
			/* the same slots as native buckets: exact (hist.h) */
			hist_to_native(slots, row_field_above(&rows[i].st, rf),
				       VMAPSCOPE_HIST_SLOTS, (uint64_t)div, &hn);
			pn = (struct prom_native){ hn.zero, hn.first, hn.nr, hn.counts };
			h.native = &pn;
		}
		prom_histogram(b, rf->prom, l, row_labels(st, &rows[i], l), &h);
	}
}

/*
 * The per-row families: per granule, then histograms, then counters,
 * then counters per reason, each in the order of the row field table.
 */
static void per_row_families(struct prom_buf *b, const struct prom_state *st,
			     const struct out_row *rows, size_t n)
{
	size_t k;

	for (k = 0; k < nr_row_fields; k++) {
		const struct row_field *rf = &row_fields[k];

		if (rf->kind != ROW_GRANULE || !rf->prom)
			continue;
		per_granule(b, st, rows, n, rf, false);
		if (rf->unit == ROW_UNIT_BYTES)
			per_granule(b, st, rows, n, rf, true);
	}
	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_HIST && row_fields[k].prom)
			histogram(b, st, rows, n, &row_fields[k]);
	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_SCALAR && row_fields[k].prom)
			per_row_counter(b, st, rows, n, &row_fields[k]);
	for (k = 0; k < nr_row_fields; k++)
		if (row_fields[k].kind == ROW_REASON && row_fields[k].prom)
			per_reason(b, st, rows, n, &row_fields[k]);
}

/* Every global counter: vmapscope_<name>_total, help from the one table. */
static void global_counters(struct prom_buf *b, const struct prom_state *st)
{
	char name[96];
	int i;

	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++) {
		snprintf(name, sizeof(name), "vmapscope_%s_total", counter_name(i));
		prom_family(b, name, PROM_COUNTER, counter_help(i));
		prom_sample_u64(b, name, NULL, 0, st->counters[i]);
	}
}

/* The feature gauge's help names every feature of the table. */
static const char *feature_help(char *help, size_t len)
{
	size_t off;
	int f;

	off = snprintf(help, len, "1 when the column is collected (");
	for (f = 0; f < VMAPSCOPE_FEAT_MAX && off < len; f++)
		off += snprintf(help + off, len - off, "%s%s", f ? ", " : "", feature_name(f));
	if (off < len)
		snprintf(help + off, len - off, "), else 0: the kernel lacks its source (vmapstat "
			 "says why on stderr) or its option was not given.");
	return help;
}

int prom_render(const struct prom_state *st, struct prom_buf *b)
{
	struct prom_label l[4];
	char page_size[24], help[512];
	struct out_row *rows;
	size_t nr = 0;
	int f;

	rows = fold_rows(st, &nr);
	if (!rows)
		return -ENOMEM;

	snprintf(page_size, sizeof(page_size), "%llu",
		 st->have_info ? 1ULL << st->info.page_shift : 0ULL);
	prom_family(b, "vmapscope_build_info", PROM_GAUGE,
		    "vmapscope version and the kernel it observes; always 1.");
	l[0] = (struct prom_label){ "version", VMAPSCOPE_VERSION };
	l[1] = (struct prom_label){ "arch", st->info.arch };
	l[2] = (struct prom_label){ "kernel_release", st->info.kernel_release };
	l[3] = (struct prom_label){ "page_size", page_size };
	prom_sample_u64(b, "vmapscope_build_info", l, 4, 1);

	prom_family(b, "vmapscope_feature_available", PROM_GAUGE,
		    feature_help(help, sizeof(help)));
	for (f = 0; st->have_info && f < VMAPSCOPE_FEAT_MAX; f++) {
		l[0] = (struct prom_label){ "feature", feature_name(f) };
		prom_sample_u64(b, "vmapscope_feature_available", l, 1,
				st->info.feat[f].available);
	}
	/*
	 * The kernel stack names a caller by the first function outside the
	 * vmalloc internals; /proc/vmallocinfo (and so vmapscope_live_bytes)
	 * records the return address the allocating code passed, which an
	 * inlined helper takes one frame further up (copy_process's stack
	 * area is kernel_clone's there).  Said here, where the join is made.
	 */
	prom_family(b, "vmapscope_callers_as_vmallocinfo", PROM_GAUGE,
		    "1 when caller labels name callers as /proc/vmallocinfo does (the series' vmap_mapped, "
		    "each area's vm_struct), so they join the --live-bytes gauges; 0 when the kernel stack "
		    "or the entry probes name them: /proc/vmallocinfo may name the function one frame up.");
	prom_sample_u64(b, "vmapscope_callers_as_vmallocinfo", NULL, 0,
			st->have_info && st->info.feat[VMAPSCOPE_FEAT_CALLERS].available &&
			(!strcmp(st->info.feat[VMAPSCOPE_FEAT_CALLERS].how, "vmap_mapped") ||
			 !strcmp(st->info.feat[VMAPSCOPE_FEAT_CALLERS].how, "vm_struct")));
	prom_family(b, "vmapscope_symbols_available", PROM_GAUGE,
		    "1 when callers are symbolized from /proc/kallsyms, 0 when kptr_restrict hides addresses.");
	prom_sample_u64(b, "vmapscope_symbols_available", NULL, 0, st->info.symbols_ok);

	prom_family(b, "vmapscope_intervals_total", PROM_COUNTER,
		    "vmapstat intervals summed into this exposition.");
	prom_sample_u64(b, "vmapscope_intervals_total", NULL, 0, st->intervals);
	prom_family(b, "vmapscope_last_interval_end_timestamp_seconds", PROM_GAUGE,
		    "Wall-clock time at which the last summed interval ended (0: none yet).");
	prom_sample_double(b, "vmapscope_last_interval_end_timestamp_seconds",
			   NULL, 0, st->last_wall);
	prom_family(b, "vmapscope_top_callers", PROM_GAUGE,
		    "Callers that can get their own caller label (--top-callers); the rest are caller=\"other\".");
	prom_sample_u64(b, "vmapscope_top_callers", NULL, 0, st->top);
	prom_family(b, "vmapscope_stats_map_capacity", PROM_GAUGE,
		    "Entries of the per-(caller, api) BPF map; events that found it full are counted in vmapscope_stats_map_full_total.");
	prom_sample_u64(b, "vmapscope_stats_map_capacity", NULL, 0,
			st->info.stats_max_entries);

	per_row_families(b, st, rows, nr);

	global_counters(b, st);

	live_gauges(b, st);
	pmu_metrics(b, st);

	free(rows);
	return prom_buf_finish(b);
}
