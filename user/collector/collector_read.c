// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's read (collector_read.h): the BPF maps into a sample, every
 * row named by caller_names.h, the feature table and kernel facts along.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector_int.h"
#include "collector_read.h"
#include "ksyms.h"
#include "vmapstat.skel.h"

/*
 * Why callers have no names, and what the rows show instead.  Callers
 * named by vmap_mapped, a vm_struct or an entry-point probe still have their
 * addresses; the stack method cannot run without kallsyms addresses (it
 * needs the vmalloc functions' text ranges), so there are no callers at
 * all, only the [unattributed] row.
 */
static void symbols_why(const struct collector *c, char *buf, size_t len)
{
	static const char raw[] = ": callers shown as raw addresses";
	const struct ksyms *ks = caller_names_ksyms(c->names);
	const char *fact = ks ? ks->reason : "cannot read /proc/kallsyms";
	size_t n = strlen(fact);

	/* the kallsyms reader's own guess at the consequence: said below */
	if (n >= sizeof(raw) - 1 && !strcmp(fact + n - (sizeof(raw) - 1), raw))
		n -= sizeof(raw) - 1;
	if (c->feat[VMAPSCOPE_FEAT_CALLERS].available &&
	    strcmp(c->feat[VMAPSCOPE_FEAT_CALLERS].how, "stack"))
		snprintf(buf, len, "%.*s: callers shown as raw addresses", (int)n, fact);
	else
		snprintf(buf, len, "%.*s: no caller can be named, every row is [unattributed]",
			 (int)n, fact);
}

static bool collector_ksyms_ok(const struct collector *c)
{
	const struct ksyms *ks = caller_names_ksyms(c->names);

	return ks && !ks->restricted;
}

static void fill_meta(const struct collector *c, struct vmapscope_sample *s)
{
	memcpy(s->feat, c->feat, sizeof(s->feat));
	snprintf(s->arch, sizeof(s->arch), "%s", c->arch);
	snprintf(s->kernel_release, sizeof(s->kernel_release), "%s", c->release);
	s->page_shift = c->page_shift;
	s->symbols_ok = collector_ksyms_ok(c);
	s->ksyms_reason[0] = 0;
	if (!s->symbols_ok)
		symbols_why(c, s->ksyms_reason, sizeof(s->ksyms_reason));
	s->stats_max_entries = c->opts.max_callers;
	s->by = c->opts.by;
}

static bool row_matches_filter(const struct collector *c, const struct vmapscope_row *r)
{
	if (!c->caller_filter)
		return true;
	return strstr(r->sym, c->caller_filter) != NULL;
}

void collector_symbolize(struct collector *c, uint64_t addr, char *buf, size_t len)
{
	const char *sym;

	pthread_mutex_lock(&c->lock);
	caller_names_refresh(c->names);
	sym = addr ? caller_names_lookup(c->names, addr) : "?";
	if (sym)
		snprintf(buf, len, "%s", sym);
	else
		snprintf(buf, len, "0x%016llx", (unsigned long long)addr);
	pthread_mutex_unlock(&c->lock);
}

/* The global counters: per-CPU in BPF, summed here. */
static int read_counters(struct collector *c, uint64_t out[VMAPSCOPE_CNT_MAX])
{
	size_t ncpu = c->ncpus, sz = sizeof(struct vmapscope_cpu_state), i, k;
	uint32_t zero = 0;
	char *vals;
	int err;

	memset(out, 0, sizeof(uint64_t) * VMAPSCOPE_CNT_MAX);
	vals = calloc(ncpu, sz);
	if (!vals)
		return -ENOMEM;
	err = bpf_map__lookup_elem(c->skel->maps.cpu, &zero, sizeof(zero), vals, ncpu * sz, 0);
	for (i = 0; !err && i < ncpu; i++) {
		const struct vmapscope_cpu_state *cs = (const void *)(vals + i * sz);

		for (k = 0; k < VMAPSCOPE_CNT_MAX; k++)
			out[k] += cs->cnt[k];
	}
	free(vals);
	return err;
}

int collector_read(struct collector *c, struct vmapscope_sample *snap)
{
	struct vmapscope_key key, next, *keys = NULL;
	size_t nkeys = 0, cap = 0, i;
	int fd, sfd, err = 0;

	memset(snap, 0, sizeof(*snap));
	pthread_mutex_lock(&c->lock);
	clock_gettime(CLOCK_MONOTONIC, &snap->mono);
	clock_gettime(CLOCK_REALTIME, &snap->wall);
	fill_meta(c, snap);
	err = read_counters(c, snap->counters);
	if (err)
		goto out;

	fd = bpf_map__fd(c->skel->maps.callers);
	sfd = bpf_map__fd(c->skel->maps.stats);
	/* collect keys first: the map may grow while we walk it */
	if (bpf_map_get_next_key(fd, NULL, &next) == 0) {
		do {
			if (nkeys == cap) {
				struct vmapscope_key *k;

				cap = cap ? cap * 2 : 256;
				k = realloc(keys, cap * sizeof(*k));
				if (!k) {
					err = -ENOMEM;
					goto out;
				}
				keys = k;
			}
			keys[nkeys++] = next;
			key = next;
		} while (bpf_map_get_next_key(fd, &key, &next) == 0);
	}

	caller_names_refresh(c->names);
	if (c->labels)
		row_labels_new_read(c->labels);

	snap->rows = calloc(nkeys ? nkeys : 1, sizeof(*snap->rows));
	if (!snap->rows) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nkeys; i++) {
		struct vmapscope_row *r = &snap->rows[snap->nr_rows];
		const char *sym;

		__u32 slot;

		if (bpf_map_lookup_elem(fd, &keys[i], &slot) ||
		    bpf_map_lookup_elem(sfd, &slot, &r->st))
			continue;
		stats_from_bpf(&r->st);
		r->caller = keys[i].caller;
		r->api = keys[i].api;
		if (c->opts.by) {
			r->label[0] = keys[i].label[0];
			r->label[1] = keys[i].label[1];
			row_labels_text(c->labels, c->opts.by, r->label, r->label_str,
					sizeof(r->label_str));
		}
		if (r->api == VMAPSCOPE_API_UNATTRIBUTED)
			snprintf(r->sym, sizeof(r->sym), "[unattributed]");
		else if (!r->caller)
			snprintf(r->sym, sizeof(r->sym), "?");
		else if ((sym = caller_names_lookup(c->names, r->caller)))
			snprintf(r->sym, sizeof(r->sym), "%s", sym);
		else
			snprintf(r->sym, sizeof(r->sym), "0x%016llx", (unsigned long long)r->caller);
		if (!row_matches_filter(c, r))
			continue;
		snap->nr_rows++;
	}
	qsort(snap->rows, snap->nr_rows, sizeof(*snap->rows), row_cmp);
out:
	pthread_mutex_unlock(&c->lock);
	free(keys);
	if (err)
		sample_free(snap);
	return err;
}
