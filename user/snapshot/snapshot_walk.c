// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot: find init_mm and the linear map, prove them right,
 * and drive the BPF page-table walker over every live vmalloc area.
 *
 * Discovery, each step verified before any walk:
 *  - init_mm: the data symbol in /proc/kallsyms (CONFIG_KALLSYMS_ALL); if
 *    hidden, init_task.active_mm (init_task found in BPF as the pid-0
 *    ancestor).  Accepted only if it reads as init_mm: task_size 0 (no
 *    user address space) and, when kallsyms has swapper_pg_dir, pgd ==
 *    swapper_pg_dir.
 *  - the linear map (physical address of a table -> where to read it):
 *    x86_64 page_offset_base (kallsyms, read from the kernel; the fixed
 *    default when the kernel has no such variable), arm64 PAGE_OFFSET and
 *    memstart_addr (kallsyms, or the first System RAM of /proc/iomem
 *    rounded down to 1 GiB).  Accepted only if walking the calling task's
 *    task_struct (a linear-map address) ends at a physical address that
 *    maps back to the very same virtual address.
 * Whatever stays hidden is named, with the reason, in one error line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "libbpf_log.h"
#include "errbuf.h"
#include "ksyms.h"
#include "snapshot.h"
#include "snapshot_pt.h"
#include "snapshot.skel.h"

#define DEFAULT_STEPS	4096

/* Why a data symbol is missing from kallsyms (ks NULL: unreadable). */
static const char *ksym_missing_why(const struct ksyms *ks, const char *path)
{
	static char buf[160];

	if (!ks)
		snprintf(buf, sizeof(buf), "%s is unreadable", path);
	else if (ks->restricted && (ks->nr || ks->nr_data_syms))
		snprintf(buf, sizeof(buf),
			 "%s shows zero addresses (kernel.kptr_restrict; run as root with kptr_restrict<=1)",
			 path);
	else if (ks->nr_data_syms < 1000)
		snprintf(buf, sizeof(buf),
			 "%s has no data symbols (kernel built without CONFIG_KALLSYMS_ALL)", path);
	else
		snprintf(buf, sizeof(buf), "not in %s", path);
	return buf;
}

/*
 * Start of the first and end of the last top-level "System RAM" range in
 * /proc/iomem; both 0 when there is none or the addresses are hidden.
 */
static void ram_bounds(uint64_t *first, uint64_t *last)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	unsigned long long lo, hi;

	*first = *last = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == ' ' || !strstr(line, ": System RAM") ||
		    sscanf(line, "%llx-%llx", &lo, &hi) != 2 || !hi)
			continue;
		if (!*first)
			*first = lo;
		if (hi > *last)
			*last = hi;
	}
	fclose(f);
}

/* Kernel lockdown forbids bpf_probe_read_kernel(): say so if it is on. */
static const char *lockdown_hint(void)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");
	char buf[128] = "";

	if (!f)
		return "";
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (strstr(buf, "[integrity]") || strstr(buf, "[confidentiality]"))
		return "; kernel lockdown is on (/sys/kernel/security/lockdown), which forbids "
		       "reading kernel memory from BPF";
	return "";
}

static int run_prog(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);

	return err ? -errno : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int set_levels(struct snapshot_layout *l, bool x86, const struct snapshot_areas *areas,
		      char *err, size_t errlen)
{
	/* Without areas (hidden addresses) assume the common 4-level layout. */
	uint64_t lowest = areas->n ? UINT64_MAX : 0xffff800000000000ULL;
	size_t i;

	for (i = 0; i < areas->n; i++)
		if (areas->v[i].start < lowest)
			lowest = areas->v[i].start;
	if (x86) {
		/* 4-level kernel space starts at 0xffff800000000000. */
		bool five = lowest < 0xffff800000000000ULL;
		unsigned int s4[] = { 39, 30, 21, 12 }, s5[] = { 48, 39, 30, 21, 12 };

		l->arch = SNAPSHOT_ARCH_X86_64;
		l->nr_levels = five ? 5 : 4;
		memcpy(l->shift, five ? s5 : s4, l->nr_levels * sizeof(unsigned int));
		l->addr_mask = SNAPSHOT_X86_ADDR_MASK;
		return 0;
	}
	l->arch = SNAPSHOT_ARCH_ARM64;
	l->addr_mask = SNAPSHOT_ARM64_ADDR_MASK;
	if (lowest >= 0xffffff8000000000ULL) {
		unsigned int s3[] = { 30, 21, 12 };	/* VA_BITS=39 */

		l->nr_levels = 3;
		memcpy(l->shift, s3, sizeof(s3));
	} else if (lowest >= 0xffff000000000000ULL) {
		unsigned int s4[] = { 39, 30, 21, 12 };	/* VA_BITS=48 */

		l->nr_levels = 4;
		memcpy(l->shift, s4, sizeof(s4));
	} else {
		snprintf(err, errlen,
			 "arm64 kernel with more than 48 virtual address bits (lowest area 0x%" PRIx64
			 "): not supported", lowest);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Resolve the current task_struct; true if it maps back onto itself. */
static bool linear_map_ok(struct snapshot_bpf *skel, char *why, size_t whylen)
{
	struct snapshot_probe *p = &skel->bss->probe;
	struct snapshot_layout *l = &skel->bss->layout;
	uint64_t back;
	int err;

	p->addr = 0;
	err = run_prog(skel->progs.snapshot_probe);
	if (err) {
		snprintf(why, whylen, "BPF_PROG_TEST_RUN failed: %s", strerror(-err));
		return false;
	}
	if (p->err) {
		snprintf(why, whylen, "reading the level-%d table faulted", p->err - 1);
		return false;
	}
	if (p->leaf_granule < 0) {
		snprintf(why, whylen, "task_struct 0x%" PRIx64 " resolved to no mapping",
			 (uint64_t)p->task);
		return false;
	}
	back = p->leaf_phys - l->phys_base + l->virt_base;
	if (back != p->task) {
		snprintf(why, whylen,
			 "task_struct 0x%" PRIx64 " resolved to phys 0x%" PRIx64 ", which maps back to 0x%"
			 PRIx64, (uint64_t)p->task, (uint64_t)p->leaf_phys, back);
		return false;
	}
	return true;
}

struct discovery {
	char hidden[768];	/* "; "-separated reasons */
};

/* One more reason why the layout stays hidden. */
#define hide(d, ...) errbuf_append((d)->hidden, sizeof((d)->hidden), __VA_ARGS__)

static bool try_init_mm(struct snapshot_bpf *skel, uint64_t cand,
			const uint64_t *k, char *why, size_t whylen)
{
	struct snapshot_probe *p = &skel->bss->probe;
	int err;

	p->init_mm = cand;
	err = run_prog(skel->progs.snapshot_probe);
	if (err) {
		snprintf(why, whylen, "BPF_PROG_TEST_RUN failed: %s", strerror(-err));
		return false;
	}
	if (p->mm_err) {
		snprintf(why, whylen, "0x%" PRIx64 " is not readable", cand);
		return false;
	}
	if (p->mm_task_size != 0 || (p->mm_pgd >> 56) != 0xff) {
		snprintf(why, whylen, "0x%" PRIx64 " is not init_mm (task_size %" PRIu64 ", pgd 0x%"
			 PRIx64 ")", cand, (uint64_t)p->mm_task_size, (uint64_t)p->mm_pgd);
		return false;
	}
	if (k[KSYMS_SWAPPER_PG_DIR] && p->mm_pgd != k[KSYMS_SWAPPER_PG_DIR]) {
		snprintf(why, whylen, "0x%" PRIx64 ": pgd 0x%" PRIx64 " is not swapper_pg_dir", cand,
			 (uint64_t)p->mm_pgd);
		return false;
	}
	return true;
}

static int discover(struct snapshot_bpf *skel, const struct snapshot_opts *o,
		    const struct ksyms *ks, bool x86, struct snapshot *s,
		    struct discovery *d)
{
	struct snapshot_probe *p = &skel->bss->probe;
	struct snapshot_layout *l = &skel->bss->layout;
	static const uint64_t none[KSYMS_NR_DATA];
	const uint64_t *k = ks && !ks->restricted ? ks->data : none;
	char why[256], why2[256];
	uint64_t cands[4], ram_first, ram_last;
	const char *cand_how[4];
	int nc = 0, i, err;

	/* init_mm */
	if (k[KSYMS_INIT_MM] && try_init_mm(skel, k[KSYMS_INIT_MM], k, why, sizeof(why))) {
		snprintf(s->init_mm_how, sizeof(s->init_mm_how), "kallsyms init_mm 0x%" PRIx64,
			 k[KSYMS_INIT_MM]);
	} else {
		const char *ks_why = k[KSYMS_INIT_MM] ? why : ksym_missing_why(ks, o->kallsyms);

		snprintf(why2, sizeof(why2), "%s", ks_why);
		p->init_mm = 0;
		err = run_prog(skel->progs.snapshot_probe);
		if (err) {
			hide(d, "cannot run BPF programs (BPF_PROG_TEST_RUN: %s; the kernel needs CONFIG_NET)",
			     strerror(-err));
			return -err;
		}
		if (p->init_task_active_mm &&
		    try_init_mm(skel, p->init_task_active_mm, k, why, sizeof(why))) {
			snprintf(s->init_mm_how, sizeof(s->init_mm_how),
				 "init_task.active_mm 0x%" PRIx64, (uint64_t)p->init_task_active_mm);
		} else if (x86 && (p->current_pgd >> 56) == 0xff) {
			/*
			 * x86_64 copies init_mm's kernel half into every PGD
			 * and never changes those entries (the vmalloc and
			 * direct-map levels below them are preallocated and
			 * shared), so our own PGD walks kernel space the same.
			 * The linear-map check below proves it works.
			 */
			snprintf(s->init_mm_how, sizeof(s->init_mm_how),
				 "current->mm->pgd (init_mm %.200s)", why2);
			p->mm_pgd = p->current_pgd;
		} else {
			hide(d, "init_mm: %s, and init_task.active_mm %s", why2,
			     p->init_task_active_mm ? why : "is NULL");
			return -ENOENT;
		}
	}
	l->pgd = p->mm_pgd;

	/* the linear map */
	if (x86) {
		p->read_addr[0] = k[KSYMS_PAGE_OFFSET_BASE];
		p->read_addr[1] = 0;
		if (k[KSYMS_PAGE_OFFSET_BASE] && !run_prog(skel->progs.snapshot_probe) && !p->read_err[0]) {
			cands[nc] = p->read_val[0];
			cand_how[nc++] = "page_offset_base (kallsyms)";
		}
		/* Kernels without a movable layout use the fixed direct-map base. */
		cands[nc] = l->nr_levels == 5 ? 0xff11000000000000ULL : 0xffff888000000000ULL;
		cand_how[nc++] = "the fixed __PAGE_OFFSET_BASE";
		for (i = 0; i < nc; i++) {
			l->phys_base = 0;
			l->virt_base = cands[i];
			if (linear_map_ok(skel, why, sizeof(why))) {
				snprintf(s->linear_map_how, sizeof(s->linear_map_how),
					 "page_offset_base 0x%" PRIx64 " from %s", cands[i], cand_how[i]);
				return 0;
			}
		}
		/*
		 * KASLR moves page_offset_base in 1 GiB steps, and our
		 * task_struct lies in the linear map no further above it
		 * than the end of RAM: try each such base, keep the one
		 * that maps the task_struct back onto itself.
		 */
		ram_bounds(&ram_first, &ram_last);
		if (ram_last) {
			uint64_t top = p->task & ~((1ULL << 30) - 1), k2;

			for (k2 = 0; k2 <= (ram_last >> 30) + 1 && k2 <= top >> 30; k2++) {
				l->phys_base = 0;
				l->virt_base = top - (k2 << 30);
				if (linear_map_ok(skel, why2, sizeof(why2))) {
					snprintf(s->linear_map_how, sizeof(s->linear_map_how),
						 "page_offset_base 0x%" PRIx64 " found by search (%s)",
						 (uint64_t)l->virt_base,
						 k[KSYMS_PAGE_OFFSET_BASE] ? "kallsyms value failed"
						 : "not in kallsyms");
					return 0;
				}
			}
		}
		hide(d, "linear map: page_offset_base %s; neither the fixed base nor a search "
		     "below the task_struct verified (%s)",
		     k[KSYMS_PAGE_OFFSET_BASE] ? "did not verify" : ksym_missing_why(ks, o->kallsyms), why);
		return -ENOENT;
	}

	/* arm64: PAGE_OFFSET = -(1 << VA_BITS); memstart_addr is PHYS_OFFSET. */
	l->virt_base = l->nr_levels == 3 ? 0xffffff8000000000ULL : 0xffff000000000000ULL;
	p->read_addr[0] = k[KSYMS_MEMSTART_ADDR];
	p->read_addr[1] = 0;
	if (k[KSYMS_MEMSTART_ADDR] && !run_prog(skel->progs.snapshot_probe) && !p->read_err[0]) {
		cands[nc] = p->read_val[0];
		cand_how[nc++] = "memstart_addr (kallsyms)";
	}
	ram_bounds(&ram_first, &ram_last);
	if (ram_first) {
		cands[nc] = ram_first & ~((1ULL << 30) - 1);
		cand_how[nc++] = "first System RAM in /proc/iomem";
	}
	for (i = 0; i < nc; i++) {
		l->phys_base = cands[i];
		if (linear_map_ok(skel, why, sizeof(why))) {
			snprintf(s->linear_map_how, sizeof(s->linear_map_how),
				 "PAGE_OFFSET 0x%" PRIx64 ", memstart_addr 0x%" PRIx64 " from %s",
				 (uint64_t)l->virt_base, cands[i], cand_how[i]);
			return 0;
		}
	}
	hide(d, "linear map: memstart_addr %s%s%s",
	     k[KSYMS_MEMSTART_ADDR] ? "did not verify: " : "", k[KSYMS_MEMSTART_ADDR] ? why
	     : ksym_missing_why(ks, o->kallsyms),
	     nc ? " (and the /proc/iomem estimate failed)" : "");
	return -ENOENT;
}

/* Work queue entry: area index and where its walk continues. */
struct pending {
	size_t area;
	uint64_t start;
	struct snapshot_run run;	/* the PTE run open at start (resumed walks) */
};

static int walk_all(struct snapshot_bpf *skel, const struct snapshot_areas *areas,
		    struct snapshot_area_result *res, uint32_t steps, struct snapshot *s)
{
	struct pending *q = calloc(areas->n + 1, sizeof(*q)), *nq = calloc(areas->n + 1, sizeof(*nq));
	size_t nq_len = 0, q_len = 0, qi, i;
	double t0;
	int err = 0;

	if (!q || !nq) {
		free(q);
		free(nq);
		return -ENOMEM;
	}
	for (i = 0; i < areas->n; i++)
		if (areas->v[i].end > areas->v[i].start)
			q[q_len++] = (struct pending){ .area = i, .start = areas->v[i].start };

	/* Same floor as the BPF side: a run must get through one descent. */
	skel->bss->max_steps = steps < 2 * SNAPSHOT_MAX_LEVELS ? 2 * SNAPSHOT_MAX_LEVELS : steps;
	t0 = now_s();
	while (q_len) {
		bool progress = false;

		nq_len = 0;
		for (qi = 0; qi < q_len; qi += SNAPSHOT_BATCH) {
			size_t n = q_len - qi < SNAPSHOT_BATCH ? q_len - qi : SNAPSHOT_BATCH;

			for (i = 0; i < n; i++) {
				skel->bss->ranges[i].start = q[qi + i].start;
				skel->bss->ranges[i].end = areas->v[q[qi + i].area].end;
				skel->bss->ranges[i].base = snapshot_area_base(&areas->v[q[qi + i].area]);
				skel->bss->ranges[i].run = q[qi + i].run;
			}
			memset(skel->bss->results, 0, sizeof(skel->bss->results));
			skel->bss->nr_ranges = n;
			err = run_prog(skel->progs.snapshot_walk);
			s->prog_runs++;
			if (err)
				goto out;
			s->walk_steps += skel->bss->steps_used;
			for (i = 0; i < n; i++) {
				const struct snapshot_result *r = &skel->bss->results[i];
				struct snapshot_area_result *a = &res[q[qi + i].area];
				int g;

				for (g = 0; g < SNAPSHOT_NR_G; g++)
					a->bytes[snapshot_granule_shift(g)] += r->bytes[g];
				a->unmapped += r->unmapped;
				for (g = 0; g < SNAPSHOT_NR_POT; g++)
					a->potential[g] += r->potential[g];
				if (r->flags & (SNAPSHOT_RES_FAULT | SNAPSHOT_RES_DONE))
					progress = true;
				if (r->flags & SNAPSHOT_RES_FAULT) {
					a->changed = true;
				} else if (!(r->flags & SNAPSHOT_RES_DONE)) {
					/* Out of steps: continue where it stopped. */
					uint64_t next = r->resume ? r->resume : q[qi + i].start;

					progress |= next != q[qi + i].start;
					nq[nq_len++] = (struct pending){ q[qi + i].area, next, r->run };
				}
			}
		}
		/* Never spin: a pass that moved nothing is a walker bug. */
		if (!progress) {
			err = -ELOOP;
			goto out;
		}
		memcpy(q, nq, nq_len * sizeof(*q));
		q_len = nq_len;
	}
out:
	s->walk_seconds = now_s() - t0;
	free(q);
	free(nq);
	return err;
}

/*
 * Identity of an area across two reads: range and API.  Not the caller
 * text: %pS of a caller in a module's freed init code is not stable.
 */
static int cmp_area(const void *a, const void *b)
{
	const struct snapshot_area *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->api - y->api;
}

/* Areas gone (or replaced) since the walk began count as changed. */
static void mark_vanished(const struct snapshot_opts *o, const struct snapshot_areas *before,
			  struct snapshot_area_result *res)
{
	struct snapshot_areas after;
	char err[256];
	size_t i;

	if (vmallocinfo_load(o->vmallocinfo, &after, err, sizeof(err)))
		return;		/* cannot tell: keep results */
	qsort(after.v, after.n, sizeof(*after.v), cmp_area);
	for (i = 0; i < before->n; i++)
		if (!bsearch(&before->v[i], after.v, after.n, sizeof(*after.v), cmp_area))
			res[i].changed = true;
	snapshot_areas_free(&after);
}

/* The walker, loaded and its memory layout verified once per process. */
struct snapshot_auditor {
	struct snapshot_opts o;
	struct snapshot_bpf *skel;
	char init_mm_how[256];
	char linear_map_how[256];
	double setup_seconds;		/* open: BPF load, kallsyms, layout checks */
	bool setup_reported;		/* counted in the first snapshot's time */
};

void snapshot_auditor_close(struct snapshot_auditor *a)
{
	if (!a)
		return;
	snapshot_bpf__destroy(a->skel);
	free(a);
}

int snapshot_auditor_open(const struct snapshot_opts *opts, struct snapshot_auditor **out,
		      char *err, size_t errlen)
{
	struct snapshot_areas areas = { 0 };
	struct discovery d = { { 0 } };
	struct snapshot s = { 0 };
	struct snapshot_auditor *a;
	struct ksyms *ks;
	struct utsname u;
	bool x86, areas_ok;
	double t0 = now_s();
	char aerr[384] = "";
	int ret;

	*out = NULL;
	uname(&u);
	if (!strcmp(u.machine, "x86_64")) {
		x86 = true;
	} else if (!strcmp(u.machine, "aarch64") || !strcmp(u.machine, "arm64")) {
		x86 = false;
	} else {
		snprintf(err, errlen, "--snapshot supports x86_64 and arm64, not %s", u.machine);
		return -EOPNOTSUPP;
	}
	if (sysconf(_SC_PAGESIZE) != 4096) {
		snprintf(err, errlen, "--snapshot supports 4K pages only (this kernel: %ld)",
			 sysconf(_SC_PAGESIZE));
		return -EOPNOTSUPP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel has no BTF (/sys/kernel/btf/vmlinux): CO-RE needs CONFIG_DEBUG_INFO_BTF");
		return -ENOENT;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	a->o = *opts;
	if (!a->o.vmallocinfo)
		a->o.vmallocinfo = "/proc/vmallocinfo";
	if (!a->o.kallsyms)
		a->o.kallsyms = "/proc/kallsyms";
	if (!a->o.steps_per_run)
		a->o.steps_per_run = DEFAULT_STEPS;

	/* The area list first: if it is unusable, say so with the rest. */
	ret = vmallocinfo_load(a->o.vmallocinfo, &areas, aerr, sizeof(aerr));
	areas_ok = !ret;
	if (ret && ret != -EPERM) {	/* -EPERM: hidden addresses, named below */
		snprintf(err, errlen, "%s", aerr);
		goto out;
	}

	libbpf_messages(a->o.verbose);
	a->skel = snapshot_bpf__open_and_load();
	if (!a->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot load the page-table walker (BPF): %s%s%s", strerror(-ret),
			 ret == -EPERM ? " (need root, or CAP_BPF and CAP_PERFMON)" : "",
			 lockdown_hint());
		goto out;
	}
	if (!a->skel->bss) {
		snprintf(err, errlen, "kernel cannot mmap BPF global data (needs 5.7+)");
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = set_levels(&a->skel->bss->layout, x86, &areas, err, errlen);
	if (ret)
		goto out;

	ks = a->o.ksyms ? (struct ksyms *)a->o.ksyms : ksyms_load(a->o.kallsyms, NULL);
	ret = discover(a->skel, &a->o, ks, x86, &s, &d);
	if (ks != a->o.ksyms)
		ksyms_free(ks);
	if (!areas_ok)
		hide(&d, "%s", aerr);
	if (ret || !areas_ok) {
		snprintf(err, errlen, "cannot audit live mappings on this kernel: %s", d.hidden);
		ret = ret ? -abs(ret) : -EPERM;
		goto out;
	}
	memcpy(a->init_mm_how, s.init_mm_how, sizeof(a->init_mm_how));
	memcpy(a->linear_map_how, s.linear_map_how, sizeof(a->linear_map_how));
	a->setup_seconds = now_s() - t0;
	if (a->o.verbose)
		fprintf(stderr, "snapshot: init_mm from %s; linear map: %s\n", a->init_mm_how,
			a->linear_map_how);
out:
	snapshot_areas_free(&areas);
	if (ret) {
		snapshot_auditor_close(a);
		return ret;
	}
	*out = a;
	return 0;
}

int snapshot_auditor_take(struct snapshot_auditor *a, struct snapshot *s,
		      char *err, size_t errlen)
{
	struct snapshot_areas areas = { 0 };
	struct snapshot_area_result *res = NULL;
	double t0 = now_s(), t1;
	int ret;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &s->wall);
	snprintf(s->arch, sizeof(s->arch), "%s",
		 a->skel->bss->layout.arch == SNAPSHOT_ARCH_X86_64 ? "x86_64" : "arm64");
	memcpy(s->init_mm_how, a->init_mm_how, sizeof(s->init_mm_how));
	memcpy(s->linear_map_how, a->linear_map_how, sizeof(s->linear_map_how));
	if (!a->setup_reported) {
		s->setup_seconds = a->setup_seconds;
		a->setup_reported = true;
	}

	ret = vmallocinfo_load(a->o.vmallocinfo, &areas, err, errlen);
	s->list_seconds = now_s() - t0;
	if (ret)
		goto out;
	res = calloc(areas.n + 1, sizeof(*res));
	if (!res) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = walk_all(a->skel, &areas, res, a->o.steps_per_run, s);
	if (ret) {
		if (ret == -ELOOP)
			snprintf(err, errlen, "page-table walk made no progress (walker bug; try "
				 "--snapshot-steps 4096)");
		else
			snprintf(err, errlen, "page-table walk failed: BPF_PROG_TEST_RUN: %s",
				 strerror(-ret));
		goto out;
	}
	t1 = now_s();
	mark_vanished(&a->o, &areas, res);
	s->list_seconds += now_s() - t1;
	ret = snapshot_fold(&areas, res, &a->o, s);
	if (ret)
		snprintf(err, errlen, "out of memory");
	s->seconds = now_s() - t0 + s->setup_seconds;
	if (!ret && a->o.keep_areas) {
		s->areas = areas;
		s->area_res = res;
		memset(&areas, 0, sizeof(areas));
		res = NULL;
	}
out:
	free(res);
	snapshot_areas_free(&areas);
	if (ret)
		snapshot_free(s);
	return ret;
}

int snapshot_take(const struct snapshot_opts *opts, struct snapshot *s,
		       char *err, size_t errlen)
{
	struct snapshot_auditor *a;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = snapshot_auditor_open(opts, &a, err, errlen);
	if (ret)
		return ret;
	ret = snapshot_auditor_take(a, s, err, errlen);
	snapshot_auditor_close(a);
	return ret;
}
