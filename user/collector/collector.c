// SPDX-License-Identifier: GPL-2.0
/*
 * vmapscope collector (see collector.h): decides what this kernel offers,
 * loads bpf/vmapstat.bpf.c, attaches what the options need and reads the
 * maps into snapshots.
 *
 * The default attach set is one program run per mapping call: the
 * series' vmalloc:vmap_mapped where the kernel has it (its BTF has the
 * tracepoint's btf_trace_ type), else one program at alloc_vmap_area()'s
 * exit naming each area's caller from its vm_struct.  Everything else is
 * attached only when asked for: the per-run events (--runs), the area
 * tracepoints (--areas), the entry-point probes (--call-latency).
 *
 * Decisions are made by trying, not by kernel version.  Tracepoints are
 * attached as raw_tp, which every kernel with BPF has: tp_btf runs the
 * same dispatch and would only add typed pointer access, which 6.12's
 * verifier refuses for vmap_mapped's "const void *caller" anyway.  A
 * tracepoint the kernel lacks fails to attach and its column says why.
 * A latency probe is tried as fentry/fexit and falls back to
 * kprobe/kretprobe when fentry fails to load or attach (e.g. the host's
 * EPERM, arm64's 8-argument trampoline limit).
 */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "caller_names.h"
#include "collector.h"
#include "collector_int.h"
#include "ksyms.h"
#include "libbpf_log.h"
#include "vmapstat.skel.h"

#define DEFAULT_MAX_CALLERS 2048

/* One latency slot: an API and the kernel functions that may implement it. */
struct lat_target {
	int api;
	const char *funcs[3];	/* first one that exists is used */
	int caller_arg;		/* argument index of "caller", -1 = return address */
	/*
	 * The function records its own return address as the area's caller
	 * (__builtin_return_address(0)).  An exit probe (fexit trampoline or
	 * kretprobe) becomes that return address, so the kernel would record
	 * the probe as the caller, in /proc/vmallocinfo too.  Such functions
	 * are timed only with --latency-all.
	 */
	bool exit_probe_changes_caller;
};

#if defined(__x86_64__)
static const struct lat_target lat_targets[] = {
	{ VMAPSCOPE_API_VMALLOC, { "__vmalloc_node_range_noprof", "__vmalloc_node_range" }, 8, false },
	{ VMAPSCOPE_API_VMAP, { "vmap" }, -1, true },
	{ VMAPSCOPE_API_VM_MAP_RAM, { "vm_map_ram" }, -1, true },
	{ VMAPSCOPE_API_VMAP, { "vmap_pfn" }, -1, true },
	/* __ioremap_caller() is static: probe the exported wrappers */
	{ VMAPSCOPE_API_IOREMAP, { "ioremap" }, -1, true },
	{ VMAPSCOPE_API_IOREMAP, { "ioremap_wc" }, -1, true },
	{ VMAPSCOPE_API_IOREMAP, { "ioremap_cache" }, -1, true },
	{ VMAPSCOPE_API_IOREMAP, { "ioremap_prot" }, -1, true },
};
#elif defined(__aarch64__)
static const struct lat_target lat_targets[] = {
	{ VMAPSCOPE_API_VMALLOC, { "__vmalloc_node_range_noprof", "__vmalloc_node_range" }, 8, false },
	{ VMAPSCOPE_API_VMAP, { "vmap" }, -1, true },
	{ VMAPSCOPE_API_VM_MAP_RAM, { "vm_map_ram" }, -1, true },
	{ VMAPSCOPE_API_VMAP, { "vmap_pfn" }, -1, true },
	/*
	 * ioremap(), ioremap_wc(), ioremap_prot() are inline wrappers of it;
	 * the area's caller is generic_ioremap_prot()'s return address inside
	 * __ioremap_prot(), which an exit probe on __ioremap_prot() leaves alone.
	 */
	{ VMAPSCOPE_API_IOREMAP, { "__ioremap_prot", "ioremap_prot" }, -1, false },
};
#else
#error "vmapscope: unsupported architecture"
#endif
#define NR_LAT_TARGETS (sizeof(lat_targets) / sizeof(lat_targets[0]))
_Static_assert(NR_LAT_TARGETS <= VMAPSCOPE_NR_LAT_SLOTS, "too many latency targets");


void collector_describe_bpf(FILE *f)
{
	/* sections without a target ("fentry", "kprobe", ...): counted */
	struct { const char *sec; int n; } bare[8];
	struct bpf_program *prog;
	struct vmapstat_bpf *s;
	size_t nbare = 0, i;

	libbpf_set_print(NULL);
	s = vmapstat_bpf__open();
	libbpf_messages(false);
	if (!s) {
		fprintf(f, "bpf: vmapstat.bpf.c: cannot open the embedded object: %s\n",
			strerror(errno));
		return;
	}
	fprintf(f, "bpf: vmapstat.bpf.c (CO-RE):");
	bpf_object__for_each_program(prog, s->obj) {
		const char *sec = bpf_program__section_name(prog);

		if (strchr(sec, '/')) {
			fprintf(f, " %s", sec);
			continue;
		}
		for (i = 0; i < nbare && strcmp(bare[i].sec, sec); i++)
			;
		if (i == nbare) {
			if (nbare == sizeof(bare) / sizeof(bare[0]))
				continue;
			bare[nbare].sec = sec;
			bare[nbare++].n = 0;
		}
		bare[i].n++;
	}
	for (i = 0; i < nbare; i++)
		fprintf(f, " %s x%d", bare[i].sec, bare[i].n);
	fprintf(f, "\n");
	vmapstat_bpf__destroy(s);
}

/* ---- small helpers -------------------------------------------------- */

/*
 * May this process load BPF programs: root, CAP_SYS_ADMIN, or CAP_BPF and
 * CAP_PERFMON (Linux >= 5.8) in its effective set.  When not, @missing
 * names what it lacks of the last pair ("CAP_PERFMON", "CAP_BPF,
 * CAP_PERFMON"), or is "" when the set cannot be read.
 */
static bool have_caps(char *missing, size_t len)
{
	static const struct { int bit; const char *name; } need[] = {
		{ 39, "CAP_BPF" }, { 38, "CAP_PERFMON" },
	};
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	size_t i, off = 0;
	uint64_t eff;

	missing[0] = '\0';
	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | ((uint64_t)data[1].effective << 32);
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(eff & (1ULL << need[i].bit)) && off < len)
			off += snprintf(missing + off, len - off, "%s%s", off ? ", " : "",
					need[i].name);
	return !off;
}

/* ---- deciding and loading ------------------------------------------- */

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

/*
 * The arguments of raw tracepoint @tp as the kernel's BTF describes them
 * (its btf_trace_ typedef: a pointer to a prototype whose first argument
 * is the probe's data), or -1.
 */
static int btf_tp_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[64];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;
}

/*
 * The program on a tracepoint: SEC("raw_tp/<tp>"); for vmap_mapped, the
 * one for the kernel's arguments (with or without fallbacks).
 */
static struct bpf_program *tp_prog(struct vmapstat_bpf *s, enum tp_id id, bool fallbacks)
{
	struct bpf_program *prog;
	char sec[64];

	if (id == TP_MAPPED)
		return fallbacks ? s->progs.on_vmap_mapped : s->progs.on_vmap_mapped_nofb;
	snprintf(sec, sizeof(sec), "raw_tp/%s", tp_names[id]);
	bpf_object__for_each_program(prog, s->obj)
		if (!strcmp(bpf_program__section_name(prog), sec))
			return prog;
	return NULL;
}

enum lat_kind { LAT_FENTRY, LAT_FEXIT, LAT_KPROBE, LAT_KRETPROBE };

/* Latency slot @slot's programs are lat_<kind>_<slot> (LAT_SLOT() in the BPF object). */
static struct bpf_program *lat_prog(struct vmapstat_bpf *s, int slot, enum lat_kind k)
{
	static const char *const kind[] = { "fentry", "fexit", "kprobe", "kretprobe" };
	char name[32];

	snprintf(name, sizeof(name), "lat_%s_%d", kind[k], slot);
	return bpf_object__find_program_by_name(s->obj, name);
}

/* Does kallsyms list this function (text)?  Names are there even when
 * kptr_restrict hides the addresses. */
static bool ksyms_has_func(const struct ksyms *ks, const char *name)
{
	size_t i;

	if (!ks)
		return false;
	for (i = 0; i < ks->nr; i++)
		if (!strcmp(ks->syms[i].name, name) && !ks->syms[i].module)
			return true;
	return false;
}

static int open_and_load(struct collector *c, const struct plan *p,
			 char *errbuf, size_t errlen)
{
	struct vmapstat_bpf *s;
	size_t i;
	int err;

	s = vmapstat_bpf__open();
	if (!s) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot open BPF object: %s", strerror(-err));
		return err;
	}
	s->rodata->targ_tgid = c->opts.pid;
	s->rodata->targ_api_mask = c->opts.api_mask;
	s->rodata->page_shift = c->page_shift;
	s->rodata->cont_shift = c->cont_shift;
	s->rodata->pmd_shift = c->pmd_shift;
	s->rodata->pud_shift = c->pud_shift;
	s->rodata->want_runs = p->tp[TP_SET_PTES];
	s->rodata->want_map_latency = !c->opts.no_map_latency;
	err = set_optins(c, s, p, errbuf, errlen);
	if (err) {
		vmapstat_bpf__destroy(s);
		return err;
	}
	if (c->caller_filter_in_bpf) {
		uint64_t lo[VMAPSCOPE_MAX_CALLER_RANGES], hi[VMAPSCOPE_MAX_CALLER_RANGES];
		size_t n = ksyms_match(caller_names_ksyms(c->names), c->caller_filter, lo, hi,
				       VMAPSCOPE_MAX_CALLER_RANGES);

		s->rodata->nr_caller_ranges = n;
		for (i = 0; i < n; i++) {
			s->rodata->caller_lo[i] = lo[i];
			s->rodata->caller_hi[i] = hi[i];
		}
	}
	for (i = 0; i < VMAPSCOPE_NR_LAT_SLOTS; i++) {
		s->rodata->lat_api[i] = i < NR_LAT_TARGETS ? lat_targets[i].api : 0;
		s->rodata->lat_caller_arg[i] = i < NR_LAT_TARGETS ? lat_targets[i].caller_arg : -1;
	}
	bpf_map__set_max_entries(s->maps.stats, c->opts.max_callers);
	bpf_map__set_max_entries(s->maps.callers, c->opts.max_callers);
	s->rodata->max_slots = c->opts.max_callers;
	s->rodata->by_label = c->opts.by;
	s->rodata->want_call_latency = false;
	for (i = 0; i < VMAPSCOPE_NR_LAT_SLOTS; i++)
		s->rodata->want_call_latency |= p->latency && p->func[i];
	/* area tracking: its programs and full-size maps only when asked for */
	s->rodata->track_areas = c->opts.track_areas;
	bpf_program__set_autoload(s->progs.on_sample, c->opts.track_areas);
	bpf_program__set_autoload(s->progs.test_feed, c->opts.track_areas && c->opts.load_only);
	if (!c->opts.track_areas) {
		bpf_map__set_max_entries(s->maps.blocks, 1);
		bpf_map__set_max_entries(s->maps.areas, 1);
		bpf_map__set_max_entries(s->maps.pending, 1);
		bpf_map__set_max_entries(s->maps.samples, 1);
	}

	for (i = 0; i < NR_TPS; i++)
		bpf_program__set_autoload(tp_prog(s, i, p->mapped_fallbacks),
					  p->tp[i] && (i != TP_MODULE || p->module_prog));
	bpf_program__set_autoload(tp_prog(s, TP_MAPPED, !p->mapped_fallbacks), false);
	bpf_program__set_autoload(s->progs.on_area_exit, p->area_prog && p->area_fentry);
	/* the kretprobe only where fexit cannot be: one area program loaded */
	bpf_program__set_autoload(s->progs.on_area_ret,
				  p->area_prog && p->area_kprobe && !p->area_fentry);
	for (i = 0; i < VMAPSCOPE_NR_LAT_SLOTS; i++) {
		bool fe = p->latency && p->func[i] && p->fentry[i];
		bool kp = p->latency && p->func[i] && p->kprobe[i];

		bpf_program__set_autoload(lat_prog(s, i, LAT_FENTRY), fe);
		bpf_program__set_autoload(lat_prog(s, i, LAT_FEXIT), fe);
		bpf_program__set_autoload(lat_prog(s, i, LAT_KPROBE), kp);
		bpf_program__set_autoload(lat_prog(s, i, LAT_KRETPROBE), kp);
		if (fe) {
			bpf_program__set_attach_target(lat_prog(s, i, LAT_FENTRY), 0, p->func[i]);
			bpf_program__set_attach_target(lat_prog(s, i, LAT_FEXIT), 0, p->func[i]);
		}
	}
	libbpf_last_message_clear();
	err = vmapstat_bpf__load(s);
	if (err) {
		snprintf(errbuf, errlen, "cannot load BPF programs: %s%s%s", strerror(-err),
			 libbpf_last_message()[0] ? ": " : "", libbpf_last_message());
		vmapstat_bpf__destroy(s);
		return err;
	}
	/* slot 0 of "stats": the unattributed bucket, known before any event */
	{
		struct vmapscope_key k = { .caller = 0, .api = VMAPSCOPE_API_UNATTRIBUTED };
		__u32 slot = 0;

		err = bpf_map__update_elem(s->maps.callers, &k, sizeof(k), &slot, sizeof(slot), BPF_NOEXIST);
		if (err) {
			snprintf(errbuf, errlen, "cannot set up the callers map: %s", strerror(-err));
			vmapstat_bpf__destroy(s);
			return err;
		}
	}
	c->skel = s;
	return 0;
}

static void add_link(struct collector *c, struct bpf_link *l)
{
	if (c->nr_links < sizeof(c->links) / sizeof(c->links[0]))
		c->links[c->nr_links++] = l;
	else
		bpf_link__destroy(l);
}

static int try_attach(struct collector *c, struct bpf_program *prog, const char *kfunc,
		      bool retprobe, struct bpf_link **out)
{
	struct bpf_link *l;

	if (kfunc)
		l = bpf_program__attach_kprobe(prog, retprobe, kfunc);
	else
		l = bpf_program__attach(prog);
	if (!l)
		return -errno ? -errno : -EINVAL;
	*out = l;
	return 0;
}

/*
 * Stock kernels: the program at alloc_vmap_area()'s exit names each area's
 * caller from its vm_struct (fexit, else kretprobe) and counts it, in place
 * of the alloc_vmap_area tracepoint's program.
 */
static void attach_area_caller(struct collector *c, const struct plan *p)
{
	struct bpf_link *l;

	if (!p->area_prog)
		return;
	if (p->area_fentry && !try_attach(c, c->skel->progs.on_area_exit, NULL, false, &l)) {
		add_link(c, l);
		snprintf(c->area_how, sizeof(c->area_how), "fexit");
	} else if (p->area_kprobe && !p->area_fentry &&
		   !try_attach(c, c->skel->progs.on_area_ret, "alloc_vmap_area", true, &l)) {
		add_link(c, l);
		snprintf(c->area_how, sizeof(c->area_how), "kretprobe");
	}
}

static void attach_tracepoints(struct collector *c, const struct plan *p)
{
	int t;

	for (t = 0; t < NR_TPS; t++) {
		struct bpf_link *l;

		if (!p->tp[t] || (t == TP_MODULE && !p->module_prog))
			continue;
		if (t == TP_AREA && c->area_how[0]) {
			c->tp_attached[t] = true;	/* counted at the function's exit */
			continue;
		}
		if (!try_attach(c, tp_prog(c->skel, t, p->mapped_fallbacks), NULL, false, &l)) {
			add_link(c, l);
			c->tp_attached[t] = true;
		}
	}
}

static void attach_latency(struct collector *c, const struct plan *p, bool kprobe_first)
{
	const struct vmapscope_probe_state *failed = NULL;
	size_t i;
	int n_ok = 0, n_want = 0, n_opt_in = 0;
	char how[16] = "";

	for (i = 0; i < NR_LAT_TARGETS; i++) {
		struct vmapscope_probe_state *ps = &c->probes[c->nr_probes++];
		struct bpf_link *a = NULL, *b = NULL;
		int pass, err = 0, ferr = 0;

		ps->api = lat_targets[i].api;
		if (c->opts.api_mask && !(c->opts.api_mask & (1U << ps->api))) {
			c->nr_probes--;		/* not asked for: not attached, not listed */
			continue;
		}
		if (lat_targets[i].exit_probe_changes_caller && !c->opts.latency_all) {
			n_opt_in++;
			snprintf(ps->func, sizeof(ps->func), "%s", lat_targets[i].funcs[0]);
			snprintf(ps->why, sizeof(ps->why),
				 "not timed: an exit probe would become its caller (--latency-all)");
			continue;
		}
		if (!p->func[i]) {
			/* e.g. vmap_pfn without CONFIG_VMAP_PFN: nothing to time */
			snprintf(ps->func, sizeof(ps->func), "%s", lat_targets[i].funcs[0]);
			snprintf(ps->why, sizeof(ps->why), "not in this kernel (kallsyms/BTF)");
			continue;
		}
		n_want++;
		snprintf(ps->func, sizeof(ps->func), "%s", p->func[i]);
		for (pass = 0; pass < 2; pass++) {
			bool kp = (pass == 0) == kprobe_first;
			/* the exit program follows its entry program (LAT_FEXIT, LAT_KRETPROBE) */
			enum lat_kind entry = kp ? LAT_KPROBE : LAT_FENTRY;
			const char *kfunc = kp ? p->func[i] : NULL;

			if (!(kp ? p->kprobe[i] : p->fentry[i]))
				continue;
			/*
			 * Exit probe first: a call whose entry was seen then always
			 * has its exit seen (the reverse order left a call that was
			 * in flight between the two attaches open in its task).
			 */
			err = try_attach(c, lat_prog(c->skel, i, entry + 1), kfunc, true, &a);
			if (!err)
				err = try_attach(c, lat_prog(c->skel, i, entry), kfunc, false, &b);
			if (!err) {
				snprintf(ps->how, sizeof(ps->how), "%s", kp ? "kprobe" : "fentry");
				break;
			}
			if (!kp)
				ferr = err;
			bpf_link__destroy(a);
			a = NULL;
		}
		if (ps->how[0]) {
			add_link(c, a);
			add_link(c, b);
			n_ok++;
			if (!strstr(how, ps->how))
				snprintf(how + strlen(how), sizeof(how) - strlen(how), "%s%s",
					 how[0] ? "+" : "", ps->how);
			continue;
		}
		{
			char fe[64], kp[80];

			if (p->fentry[i])
				snprintf(fe, sizeof(fe), "attach: %s", strerror(-ferr));
			else if (p->fentry_load_err)
				snprintf(fe, sizeof(fe), "load: %s", strerror(-p->fentry_load_err));
			else
				snprintf(fe, sizeof(fe), "no BTF for it");
			if (!p->kprobe[i])
				snprintf(kp, sizeof(kp), "not loadable");
			else if (err == -ENOENT &&
				 access("/sys/bus/event_source/devices/kprobe/type", F_OK))
				snprintf(kp, sizeof(kp), "kernel has no kprobes (CONFIG_KPROBE_EVENTS)");
			else
				snprintf(kp, sizeof(kp), "%s", strerror(-err));
			snprintf(ps->why, sizeof(ps->why), "fentry %s; kprobe: %s", fe, kp);
			failed = failed ? failed : ps;
		}
	}
	if (n_ok == n_want && n_ok)
		set_feat(c, VMAPSCOPE_FEAT_CALL_LATENCY, true, how, NULL);
	else if (n_ok)
		set_feat(c, VMAPSCOPE_FEAT_CALL_LATENCY, true, how,
			 "call latency: %d of %d entry points attached (see -v)", n_ok, n_want);
	else if (failed)
		set_feat(c, VMAPSCOPE_FEAT_CALL_LATENCY, false, NULL,
			 "call latency: no entry point can be probed (%s: %s)", failed->func, failed->why);
	else
		set_feat(c, VMAPSCOPE_FEAT_CALL_LATENCY, false, NULL, "call latency: %s", n_opt_in ?
			 "the selected APIs' entry points are timed only with --latency-all "
			 "(their exit probe would become the caller the kernel records)" :
			 c->nr_probes ? "the selected APIs' entry points are not in this kernel" :
			 "no entry point of the selected APIs is timed");
}

/* The shifts of vmap_mapped's byte counts on this architecture and page size. */
static void granule_shifts(struct collector *c)
{
	unsigned int level = c->page_shift - 3;	/* bits per page-table level */

	c->pmd_shift = c->page_shift + level;
	c->pud_shift = c->pmd_shift + level;
	/* arm64 contiguous PTEs: 16 x 4K, 128 x 16K, 32 x 64K (CONT_PTE_SHIFT) */
	if (!strcmp(c->arch, "arm64"))
		c->cont_shift = c->page_shift == 12 ? 16 : c->page_shift == 14 ? 21 : 21;
}

/*
 * Which events to attach: one program run per mapping call unless the
 * options ask for more (collector.h).
 */
static void plan_events(struct collector *c, struct plan *p, const struct btf *vmlinux_btf)
{
	const struct collector_opts *o = &c->opts;
	/* areas are the rows on a kernel without the series */
	bool areas = !p->series || o->areas || o->track_areas || o->stack_callers;
	unsigned int i;

	p->tp[TP_MAPPED] = p->series;
	p->tp[TP_SET_PTES] = p->tp[TP_HUGE] = p->series && p->runs_abi && o->runs;
	p->tp[TP_AREA] = areas;
	/* global counters only; the lazy free also ends a tracked area */
	p->tp[TP_PURGE] = o->areas;
	p->tp[TP_LAZY_FREE] = o->areas || o->track_areas;
	for (i = 0; i < nr_feature_optins; i++)
		if ((o->optin & VMAPSCOPE_FEAT_BIT(feature_optins[i].feat)) &&
		    tp_by_name(feature_optins[i].tp) < NR_TPS)
			p->tp[tp_by_name(feature_optins[i].tp)] = true;
	p->tp[TP_MODULE] = true;
	if (areas && !o->stack_callers && !o->load_only) {
		p->area_fentry = btf_has(vmlinux_btf, "alloc_vmap_area", BTF_KIND_FUNC);
		p->area_kprobe = ksyms_has_func(caller_names_ksyms(c->names), "alloc_vmap_area");
		p->area_prog = p->area_fentry || p->area_kprobe;
	}
}

/*
 * Load as planned; else without fentry (the host's EPERM); else without
 * the module placement program (it only names callers in unloaded
 * modules), without the latency probes, without both.  The last error
 * explains a dropped column.
 */
static int load_ladder(struct collector *c, struct plan *p, char *errbuf, size_t errlen)
{
	static const struct { bool module_prog, latency; } fallback[] = {
		{ false, true }, { true, false }, { false, false },
	};
	char lat_err[256] = "";
	bool had_fentry = false;
	size_t i;
	int err;

	err = open_and_load(c, p, errbuf, errlen);
	for (i = 0; err && i < VMAPSCOPE_NR_LAT_SLOTS; i++) {
		had_fentry |= p->fentry[i];
		p->fentry[i] = false;
	}
	if (err && p->area_prog && p->area_fentry) {
		had_fentry = true;
		p->area_fentry = false;
	}
	if (err && had_fentry) {
		p->fentry_load_err = err;
		err = open_and_load(c, p, errbuf, errlen);
	}
	if (err && p->area_prog) {
		p->area_prog = false;	/* the stack method or the probes name callers */
		err = open_and_load(c, p, errbuf, errlen);
	}
	for (i = 0; err && i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		if (p->latency && !fallback[i].latency)
			snprintf(lat_err, sizeof(lat_err), "%s", errbuf);
		p->module_prog = fallback[i].module_prog;
		p->latency &= fallback[i].latency;
		err = open_and_load(c, p, errbuf, errlen);
	}
	if (!err && lat_err[0])
		set_feat(c, VMAPSCOPE_FEAT_CALL_LATENCY, false, NULL,
			 "call latency: entry-point probes do not load (%s)", lat_err);
	return err;
}

int collector_open(const struct collector_opts *opts, struct collector **out,
		   char *errbuf, size_t errlen)
{
	struct btf *vmlinux_btf = NULL;
	struct collector *c;
	struct utsname u;
	struct plan p = {};
	char missing[64];
	size_t i, nmatch = 0;
	int err;

	*out = NULL;
	if (!have_caps(missing, sizeof(missing))) {
		snprintf(errbuf, errlen, "need root (or CAP_BPF and CAP_PERFMON) to load BPF "
			 "programs%s%s%s", missing[0] ? " (missing: " : "", missing,
			 missing[0] ? ")" : "");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(errbuf, errlen, "kernel has no BTF (/sys/kernel/btf/vmlinux: %s); "
			 "vmapstat needs CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
		return -ENOENT;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->opts = *opts;
	if (!c->opts.max_callers)
		c->opts.max_callers = DEFAULT_MAX_CALLERS;
	uname(&u);
	snprintf(c->arch, sizeof(c->arch), "%.15s", strcmp(u.machine, "aarch64") ? u.machine : "arm64");
	snprintf(c->release, sizeof(c->release), "%s", u.release);
	c->page_shift = __builtin_ctzl(sysconf(_SC_PAGESIZE));
	granule_shifts(c);
	err = libbpf_num_possible_cpus();
	if (err <= 0) {
		snprintf(errbuf, errlen, "cannot count the possible CPUs: %s", strerror(-err));
		goto fail;
	}
	c->ncpus = err;

	libbpf_messages(opts->verbose);

	c->names = caller_names_new(c->release);
	if (opts->by == VMAPSCOPE_BY_CGROUP)
		c->labels = row_labels_new(NULL);
	if (!c->names || (opts->by == VMAPSCOPE_BY_CGROUP && !c->labels)) {
		snprintf(errbuf, errlen, "out of memory");
		err = -ENOMEM;
		goto fail;
	}
	if (opts->caller_filter) {
		c->caller_filter = strdup(opts->caller_filter);
		c->opts.caller_filter = c->caller_filter;
		nmatch = ksyms_match(caller_names_ksyms(c->names), opts->caller_filter, NULL, NULL, 0);
		/* in BPF only when every match fits; always re-checked on rows */
		c->caller_filter_in_bpf = nmatch && nmatch <= VMAPSCOPE_MAX_CALLER_RANGES;
	}

	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf) {
		snprintf(errbuf, errlen, "cannot read kernel BTF: %s", strerror(errno));
		err = -ENOENT;
		goto fail;
	}

	p.module_prog = true;
	p.latency = opts->call_latency;
	for (i = 0; p.latency && i < NR_LAT_TARGETS; i++) {
		const struct lat_target *lt = &lat_targets[i];
		size_t f;

		if (opts->api_mask && !(opts->api_mask & (1U << lt->api)))
			continue;
		if (lt->exit_probe_changes_caller && !opts->latency_all)
			continue;
		for (f = 0; f < 3 && lt->funcs[f]; f++) {
			bool in_btf = btf_has(vmlinux_btf, lt->funcs[f], BTF_KIND_FUNC);
			bool in_ksyms = ksyms_has_func(caller_names_ksyms(c->names), lt->funcs[f]);

			if (!in_btf && !in_ksyms)
				continue;
			p.func[i] = lt->funcs[f];
			p.fentry[i] = in_btf;
			p.kprobe[i] = in_ksyms || in_btf;
			break;
		}
	}

	/*
	 * vmap_mapped's raw tracepoint has a btf_trace_ type: a series kernel.
	 * Its reasons are a twelfth argument from patch 16 on; the per-run
	 * events the tools read are the walk's (four arguments), not v12's
	 * read-back ones (five).
	 */
	p.series = btf_has(vmlinux_btf, "btf_trace_" VMAPSCOPE_TP_MAPPED, BTF_KIND_TYPEDEF);
	p.mapped_fallbacks = btf_tp_args(vmlinux_btf, VMAPSCOPE_TP_MAPPED) == 12;
	p.runs_abi = btf_tp_args(vmlinux_btf, VMAPSCOPE_TP_SET_PTES) == 4;
	plan_events(c, &p, vmlinux_btf);

	err = load_ladder(c, &p, errbuf, errlen);
	if (err)
		goto fail;
	caller_names_set_bpf(c->names, c->skel);

	if (!opts->load_only) {
		attach_area_caller(c, &p);
		attach_tracepoints(c, &p);
		/*
		 * Without vmap_mapped or the areas' vm_struct only a kprobe sees the
		 * vmallocinfo caller of vmap()/vm_map_ram()/ioremap (the return
		 * address): prefer it then.
		 */
		if (p.latency)
			attach_latency(c, &p, !c->tp_attached[TP_MAPPED] && !c->area_how[0]);
	}
	decide_features(c, &p);
	btf__free(vmlinux_btf);
	*out = c;
	return 0;
fail:
	btf__free(vmlinux_btf);
	collector_close(c);
	return err;
}

void collector_close(struct collector *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_links; i++)
		bpf_link__destroy(c->links[i]);
	vmapstat_bpf__destroy(c->skel);
	caller_names_free(c->names);
	row_labels_free(c->labels);
	free(c->caller_filter);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

const struct ksyms *collector_ksyms(struct collector *c)
{
	return caller_names_ksyms(c->names);
}

struct vmapstat_bpf *collector_bpf(struct collector *c)
{
	return c->skel;
}

bool collector_feature(const struct collector *c, enum vmapscope_feature f)
{
	return f < VMAPSCOPE_FEAT_MAX && c->feat[f].available;
}

const char *collector_callers_how(const struct collector *c)
{
	return c->feat[VMAPSCOPE_FEAT_CALLERS].available ? c->feat[VMAPSCOPE_FEAT_CALLERS].how : "";
}

size_t collector_probes(const struct collector *c, const struct vmapscope_probe_state **probes)
{
	*probes = c->probes;
	return c->nr_probes;
}
