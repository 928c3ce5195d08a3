// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's feature table (collector_int.h): once collector.c has
 * attached what the plan asked for, what each column comes from on this
 * kernel, or why it is missing, and what names the callers.  Every front
 * end prints this table (stderr, -v, JSON "features", vmaptop's n/a lines),
 * so the words here are the ones users read.  Before load, the opt-in
 * features of feature_table.h set their switches in the BPF object here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collector_int.h"
#include "stack_callers.h"
#include "vmapstat.skel.h"

const char *const tp_names[NR_TPS] = {
	[TP_MAPPED] = VMAPSCOPE_TP_MAPPED,
	[TP_SET_PTES] = VMAPSCOPE_TP_SET_PTES,
	[TP_HUGE] = VMAPSCOPE_TP_HUGE_BLOCK,
	[TP_AREA] = "alloc_vmap_area",
	[TP_PURGE] = "purge_vmap_area_lazy",
	[TP_LAZY_FREE] = "free_vmap_area_noflush",
	[TP_MODULE] = "module_load",
};

enum tp_id tp_by_name(const char *name)
{
	int t;

	for (t = 0; t < NR_TPS; t++)
		if (name && !strcmp(tp_names[t], name))
			return t;
	return NR_TPS;
}

void set_feat(struct collector *c, enum vmapscope_feature f, bool ok,
	      const char *how, const char *fmt, ...)
{
	struct vmapscope_feature_state *s = &c->feat[f];
	va_list ap;

	s->available = ok;
	snprintf(s->how, sizeof(s->how), "%s", how ? how : "");
	s->why[0] = 0;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(s->why, sizeof(s->why), fmt, ap);
		va_end(ap);
	}
}

/*
 * What names the callers: vmap_mapped (the series), else each area's
 * vm_struct at alloc_vmap_area()'s exit (kernels with fentry or kprobes:
 * the caller /proc/vmallocinfo prints), else the entry-point probes
 * (--call-latency), else the kernel stack at alloc_vmap_area (or when
 * asked for).
 */
static void decide_callers(struct collector *c)
{
	char why[200];
	int n;

	if (!c->opts.stack_callers && c->tp_attached[TP_MAPPED]) {
		set_feat(c, VMAPSCOPE_FEAT_CALLERS, true, "vmap_mapped", NULL);
		return;
	}
	if (!c->opts.stack_callers && c->area_how[0]) {
		set_feat(c, VMAPSCOPE_FEAT_CALLERS, true, "vm_struct", NULL);
		return;
	}
	if (!c->opts.stack_callers && c->feat[VMAPSCOPE_FEAT_CALL_LATENCY].available) {
		set_feat(c, VMAPSCOPE_FEAT_CALLERS, true, "entry probes", NULL);
		return;
	}
	if (!c->tp_attached[TP_AREA]) {
		set_feat(c, VMAPSCOPE_FEAT_CALLERS, false, NULL,
			 "callers: no vmap_mapped, no area program, no entry-point probe, and no "
			 "vmalloc:alloc_vmap_area for the stack method");
		return;
	}
	n = stack_internals(caller_names_ksyms(c->names), c->skel->bss->internals, VMAPSCOPE_MAX_INTERNALS,
			    why, sizeof(why));
	if (n < 0) {
		set_feat(c, VMAPSCOPE_FEAT_CALLERS, false, NULL,
			 "callers: no vmap_mapped, no area program, no entry-point probe, no stack method (%s): "
			 "every area is counted as [unattributed]", why);
		return;
	}
	c->skel->bss->nr_internals = n;
	__atomic_store_n(&c->skel->bss->stack_callers, true, __ATOMIC_RELEASE);
	set_feat(c, VMAPSCOPE_FEAT_CALLERS, true, "stack", NULL);
}

/* The method decide_callers() chose, in words, for the granule column's line. */
static const char *callers_method(const struct collector *c)
{
	const struct vmapscope_feature_state *f = &c->feat[VMAPSCOPE_FEAT_CALLERS];

	if (!f->available)
		return "cannot be named: every area is [unattributed]";
	if (!strcmp(f->how, "vm_struct"))
		return "named by each area's vm_struct at alloc_vmap_area, as /proc/vmallocinfo names them";
	if (!strcmp(f->how, "entry probes"))
		return "named by the entry-point probes (--call-latency) only";
	if (!strcmp(f->how, "stack"))
		return "named by kernel stack at alloc_vmap_area";
	return f->how;
}

/* A column the options did not ask for: unavailable, and quiet about it. */
static void feat_off(struct collector *c, enum vmapscope_feature f, const char *option)
{
	set_feat(c, f, false, NULL, NULL);
	snprintf(c->feat[f].how, sizeof(c->feat[f].how), "off (%s)", option);
}

/*
 * An opt-in feature (feature_table.h): there when asked for and its
 * tracepoint attached, counted into the rows of vmap_mapped or, on a
 * kernel without the series, of the areas.
 */
static void decide_optin(struct collector *c, const struct feature_optin *f)
{
	enum tp_id tp = tp_by_name(f->tp);
	bool mapped = c->tp_attached[TP_MAPPED];
	char buf[64], option[48];

	if (!(c->opts.optin & VMAPSCOPE_FEAT_BIT(f->feat))) {
		snprintf(option, sizeof(option), "--%s", f->option);
		feat_off(c, f->feat, option);
	} else if (tp < NR_TPS && c->tp_attached[tp] && (mapped || c->tp_attached[TP_AREA])) {
		snprintf(buf, sizeof(buf), "%s+%s", tp_names[mapped ? TP_MAPPED : TP_AREA], f->tp);
		set_feat(c, f->feat, true, buf, NULL);
	} else {
		set_feat(c, f->feat, false, NULL, "%s: kernel lacks vmalloc:%s",
			 feature_name(f->feat), f->tp);
	}
}

/*
 * The const volatile bool @name of the BPF object's .rodata, found by
 * its BTF: the opt-in features name their switches (feature_table.h), so
 * that the collector has no code per feature.
 */
static int rodata_set_bool(struct vmapstat_bpf *s, const char *name, bool v)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec;
	size_t sz;
	/* the skeleton's s->rodata: writable until the object is loaded */
	char *data = (char *)bpf_map__initial_value(s->maps.rodata, &sz);
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -ENOENT;
	if (id <= 0 || !data)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	for (i = 0, vsi = btf_var_secinfos(sec); i < btf_vlen(sec); i++, vsi++) {
		const struct btf_type *var = btf__type_by_id(btf, vsi->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vsi->size != sizeof(bool) || vsi->offset + vsi->size > sz)
			return -EINVAL;
		data[vsi->offset] = v;
		return 0;
	}
	return -ENOENT;
}

/* What each opt-in feature of feature_table.h asks of the BPF object: its switches and map. */
int set_optins(struct collector *c, struct vmapstat_bpf *s, const struct plan *p,
		      char *errbuf, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < nr_feature_optins; i++) {
		const struct feature_optin *f = &feature_optins[i];
		bool want = c->opts.optin & VMAPSCOPE_FEAT_BIT(f->feat);
		struct bpf_map *map = f->map ? bpf_object__find_map_by_name(s->obj, f->map) : NULL;
		const char *bad = rodata_set_bool(s, f->want, want) ? f->want :
				  rodata_set_bool(s, f->stock_want, !p->series) ? f->stock_want :
				  f->map && !map ? f->map :
				  tp_by_name(f->tp) == NR_TPS ? f->tp : NULL;

		if (bad) {
			snprintf(errbuf, errlen, "BPF object: --%s needs %s, which it lacks",
				 f->option, bad);
			return -ENOENT;
		}
		if (map && !want)
			bpf_map__set_max_entries(map, 1);
	}
	return 0;
}

/* The feature table: what each column comes from here, or why it is missing. */
void decide_features(struct collector *c, const struct plan *p)
{
	const struct collector_opts *o = &c->opts;
	const char *apply = "apply kernel-patches/linux-6.12";
	bool mapped = c->tp_attached[TP_MAPPED];
	unsigned int i;

	if (!o->load_only)
		decide_callers(c);
	if (mapped) {
		set_feat(c, VMAPSCOPE_FEAT_GRANULE, true, VMAPSCOPE_TP_MAPPED, NULL);
		set_feat(c, VMAPSCOPE_FEAT_CHUNK, true, VMAPSCOPE_TP_MAPPED, NULL);
	} else {
		set_feat(c, VMAPSCOPE_FEAT_GRANULE, false, NULL,
			 "granule: kernel lacks vmalloc:%s — %s%s%s%s", VMAPSCOPE_TP_MAPPED, apply,
			 o->load_only ? "" : " (callers ", o->load_only ? "" : callers_method(c),
			 o->load_only ? "" : ")");
		set_feat(c, VMAPSCOPE_FEAT_CHUNK, false, NULL, NULL);
	}
	if (o->no_map_latency)
		feat_off(c, VMAPSCOPE_FEAT_LATENCY, "--no-latency");
	else if (mapped)
		set_feat(c, VMAPSCOPE_FEAT_LATENCY, true, VMAPSCOPE_TP_MAPPED, NULL);
	else
		set_feat(c, VMAPSCOPE_FEAT_LATENCY, false, NULL, "latency: the mapping time "
			 "comes from vmalloc:%s (the series)%s", VMAPSCOPE_TP_MAPPED,
			 c->feat[VMAPSCOPE_FEAT_CALL_LATENCY].available ? "" :
			 "; --call-latency times whole calls instead");
	if (mapped && p->mapped_fallbacks)
		set_feat(c, VMAPSCOPE_FEAT_FALLBACK, true, VMAPSCOPE_TP_MAPPED, NULL);
	else if (mapped)
		set_feat(c, VMAPSCOPE_FEAT_FALLBACK, false, NULL, "fallback: the kernel's "
			 "vmalloc:%s has no fallbacks (the series before its patch 16) — %s",
			 VMAPSCOPE_TP_MAPPED, apply);
	else
		set_feat(c, VMAPSCOPE_FEAT_FALLBACK, false, NULL, NULL);
	if (!o->runs)
		feat_off(c, VMAPSCOPE_FEAT_RUNS, "--runs");
	else if (c->tp_attached[TP_SET_PTES] && c->tp_attached[TP_HUGE])
		set_feat(c, VMAPSCOPE_FEAT_RUNS, true, "raw_tp", NULL);
	else if (p->series && !p->runs_abi)
		set_feat(c, VMAPSCOPE_FEAT_RUNS, false, NULL, "runs: the kernel's vmalloc:%s "
			 "is v12's, read back from the page tables — %s", VMAPSCOPE_TP_SET_PTES,
			 apply);
	else
		set_feat(c, VMAPSCOPE_FEAT_RUNS, false, NULL, "runs: kernel lacks vmalloc:%s — %s",
			 !p->series ? VMAPSCOPE_TP_MAPPED : c->tp_attached[TP_SET_PTES] ?
			 VMAPSCOPE_TP_HUGE_BLOCK : VMAPSCOPE_TP_SET_PTES, apply);
	if (!o->call_latency && !c->feat[VMAPSCOPE_FEAT_CALL_LATENCY].why[0])
		feat_off(c, VMAPSCOPE_FEAT_CALL_LATENCY, "--call-latency");
	for (i = 0; i < nr_feature_optins; i++)
		decide_optin(c, &feature_optins[i]);
	if (!p->tp[TP_AREA])
		feat_off(c, VMAPSCOPE_FEAT_AREAS, "--areas");
	else if (c->tp_attached[TP_AREA])
		set_feat(c, VMAPSCOPE_FEAT_AREAS, true, c->area_how[0] ? c->area_how : "raw_tp", NULL);
	else
		set_feat(c, VMAPSCOPE_FEAT_AREAS, false, NULL,
			 "areas: kernel lacks vmalloc:alloc_vmap_area");
}

