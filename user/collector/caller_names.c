// SPDX-License-Identifier: GPL-2.0
/*
 * Caller names (caller_names.h): the kallsyms table, reloaded when a
 * module comes or goes, the symbols of modules unloaded since BPF saw
 * them load (from their .ko), and a cache of the names given.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "caller_names.h"
#include "ksyms.h"
#include "vmapscope.h"
#include "vmapstat.skel.h"

struct sym_cache_ent {
	uint64_t addr;
	char sym[128];
};

struct caller_names {
	struct vmapstat_bpf *skel;	/* NULL until loaded: no module records yet */
	struct ksyms *ksyms;
	char modules_sig[64];
	char *modules_warned;		/* "\nname\n" of modules named [mod]+0xoff */
	void *cache;			/* tsearch() tree of struct sym_cache_ent */
	char release[65];		/* where the .ko files are: /lib/modules/<release> */
};

struct caller_names *caller_names_new(const char *release)
{
	struct caller_names *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	snprintf(c->release, sizeof(c->release), "%s", release);
	caller_names_reload(c);
	return c;
}

void caller_names_free(struct caller_names *c)
{
	if (!c)
		return;
	ksyms_free(c->ksyms);
	free(c->modules_warned);
	tdestroy(c->cache, free);
	free(c);
}

void caller_names_set_bpf(struct caller_names *c, struct vmapstat_bpf *skel)
{
	c->skel = skel;
}

const struct ksyms *caller_names_ksyms(const struct caller_names *c)
{
	return c->ksyms;
}

/*
 * Signature of the loaded module list and of the module loads BPF saw
 * (a module may come and go between two reads): reload kallsyms when it
 * changes.
 */
static void modules_signature(const struct caller_names *c, char *buf, size_t len)
{
	unsigned long long h = 1469598103934665603ULL;
	char tmp[4096];
	ssize_t n;
	int fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(buf, len, "none");
		return;
	}
	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		ssize_t i;

		for (i = 0; i < n; i++)
			h = (h ^ (unsigned char)tmp[i]) * 1099511628211ULL;
	}
	close(fd);
	snprintf(buf, len, "%llx-%llu", h, c->skel ?
		 (unsigned long long)__atomic_load_n(&c->skel->bss->module_loads, __ATOMIC_RELAXED) : 0ULL);
}

struct mod_rec {
	struct vmapscope_mod_key key;
	struct vmapscope_mod_val val;
};

/* One load of one module: same name and core text address. */
static int cmp_mod_rec(const void *a, const void *b)
{
	const struct mod_rec *x = a, *y = b;
	int c = strncmp(x->key.name, y->key.name, sizeof(x->key.name));

	if (c)
		return c;
	return x->key.base < y->key.base ? -1 : x->key.base > y->key.base;
}

static bool is_text(const struct mod_rec *r)
{
	return r->key.shndx == VMAPSCOPE_MOD_CORE_TEXT || r->key.shndx == VMAPSCOPE_MOD_INIT_TEXT;
}

static void module_fallback(struct caller_names *c, struct ksyms *ks, const char *name,
			    const struct mod_rec *r, size_t n, const char *why)
{
	size_t i, len = c->modules_warned ? strlen(c->modules_warned) : 0;
	char tag[VMAPSCOPE_MODULE_NAME_LEN + 2];
	char *w;

	for (i = 0; i < n; i++)
		if (is_text(&r[i]))
			ksyms_add_module_region(ks, name, r[i].val.addr, r[i].val.size);
	snprintf(tag, sizeof(tag), "%s\n", name);
	if (c->modules_warned && strstr(c->modules_warned, tag))
		return;
	fprintf(stderr, "vmapscope: %s: callers in module %s shown as [%s]+0xoff\n", why, name, name);
	w = realloc(c->modules_warned, len + strlen(tag) + 1);
	if (w) {
		strcpy(w + len, tag);
		c->modules_warned = w;
	}
}

struct newer {
	const struct mod_rec *recs;
	size_t nr;
	uint64_t seq;
};

/* Did BPF see module mod load after the load of seq? */
static bool loaded_later(const char *mod, void *arg)
{
	const struct newer *n = arg;
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (n->recs[i].val.seq > n->seq && !strcmp(n->recs[i].key.name, mod))
			return true;
	return false;
}

/*
 * Modules that BPF saw loading and kallsyms no longer lists: name their
 * callers from the .ko, placed where the module was (vmapscope.h).
 */
static void add_unloaded_modules(struct caller_names *c, struct ksyms *ks)
{
	struct vmapscope_mod_key key, next;
	struct mod_rec *recs = NULL, *r;
	size_t nr = 0, cap = 0, i, j, m;
	int fd = bpf_map__fd(c->skel->maps.modules);

	if (bpf_map_get_next_key(fd, NULL, &next))
		return;
	do {
		key = next;
		if (nr == cap) {
			cap = cap ? cap * 2 : 64;
			r = realloc(recs, cap * sizeof(*r));
			if (!r)
				goto out;
			recs = r;
		}
		recs[nr].key = key;
		recs[nr].key.name[VMAPSCOPE_MODULE_NAME_LEN - 1] = 0;
		if (!bpf_map_lookup_elem(fd, &key, &recs[nr].val))
			nr++;
	} while (!bpf_map_get_next_key(fd, &key, &next));
	qsort(recs, nr, sizeof(*recs), cmp_mod_rec);

	for (i = 0; i < nr; i = j) {
		struct ksyms_anchor a[64];
		const char *name = recs[i].key.name;
		char path[512], why[256];
		size_t na = 0, k;
		bool live = false;

		for (j = i; j < nr && !cmp_mod_rec(&recs[i], &recs[j]); j++) {
			if (is_text(&recs[j]) || na == 64)
				continue;
			a[na].shndx = recs[j].key.shndx;
			a[na].st_name = recs[j].val.st_name;
			a[na].symidx = recs[j].val.size;
			a[na].addr = recs[j].val.addr;
			na++;
		}
		/*
		 * Still loaded where BPF saw it: kallsyms names it (its core
		 * text; the init text is gone from kallsyms after init).
		 */
		for (k = 0; k < na && !live; k++) {
			const struct ksym *s = ksyms_lookup(ks, a[k].addr);

			live = s && s->module && !strcmp(s->module, name);
		}
		if (!na || live)
			continue;
		if (ksyms_find_module_file(NULL, name, path, sizeof(path))) {
			snprintf(why, sizeof(why), "no %s.ko under /lib/modules/%s", name, c->release);
			module_fallback(c, ks, name, &recs[i], j - i, why);
		} else if (ksyms_add_module_file(ks, name, path, a, na, why, sizeof(why)) < 0) {
			module_fallback(c, ks, name, &recs[i], j - i, why);
		}
		/* its text is its own, but for modules loaded after it */
		for (k = i; k < j; k++) {
			struct newer n = { recs, nr, recs[k].val.seq };

			if (is_text(&recs[k]))
				ksyms_drop_stale(ks, recs[k].val.addr,
						 recs[k].val.addr + recs[k].val.size,
						 loaded_later, &n);
		}
		/*
		 * and where another module was loaded after it, into text
		 * this one had, that text is the newer module's: a row keyed
		 * by an address there is named as the newest load, not as
		 * this one (else the smaller of two symbols covering the
		 * address would win, whichever module it is of).
		 */
		for (k = i; k < j; k++) {
			if (!is_text(&recs[k]))
				continue;
			for (m = 0; m < nr; m++) {
				uint64_t lo = recs[k].val.addr, hi = lo + recs[k].val.size;

				if (recs[m].val.seq <= recs[k].val.seq || !is_text(&recs[m]) ||
				    !strcmp(recs[m].key.name, name))
					continue;
				if (recs[m].val.addr > lo)
					lo = recs[m].val.addr;
				if (recs[m].val.addr + recs[m].val.size < hi)
					hi = recs[m].val.addr + recs[m].val.size;
				if (lo < hi)
					ksyms_drop_unloaded(ks, name, lo, hi);
			}
		}
	}
out:
	free(recs);
}

void caller_names_reload(struct caller_names *c)
{
	struct ksyms *ks = ksyms_load(NULL, NULL);

	if (ks) {
		if (c->skel && !ks->restricted)
			add_unloaded_modules(c, ks);
		ksyms_free(c->ksyms);
		c->ksyms = ks;
	}
	modules_signature(c, c->modules_sig, sizeof(c->modules_sig));
}

void caller_names_refresh(struct caller_names *c)
{
	char sig[64];

	modules_signature(c, sig, sizeof(sig));
	if (strcmp(sig, c->modules_sig))
		caller_names_reload(c);
}

static int cmp_sym_cache(const void *a, const void *b)
{
	const struct sym_cache_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

const char *caller_names_lookup(struct caller_names *c, uint64_t addr)
{
	struct sym_cache_ent key = { .addr = addr }, *e, **found;

	found = tfind(&key, &c->cache, cmp_sym_cache);
	if (found)
		return (*found)->sym;
	/* first sight of this caller: name it while its module is loaded */
	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	e->addr = addr;
	ksyms_format(c->ksyms, addr, e->sym, sizeof(e->sym));
	if (!tsearch(e, &c->cache, cmp_sym_cache)) {
		free(e);
		return NULL;
	}
	return e->sym;
}
