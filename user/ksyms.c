// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms text symbols: load, look up, format (see ksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"

static long add_str(struct ksyms *ks, const char *s)
{
	size_t n = strlen(s) + 1;
	long off;

	if (ks->strs_len + n > ks->strs_cap) {
		size_t cap = ks->strs_cap ? ks->strs_cap * 2 : 1 << 20;
		char *p;

		while (cap < ks->strs_len + n)
			cap *= 2;
		p = realloc(ks->strs, cap);
		if (!p)
			return -1;
		ks->strs = p;
		ks->strs_cap = cap;
	}
	off = ks->strs_len;
	memcpy(ks->strs + off, s, n);
	ks->strs_len += n;
	return off;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* stable by insertion: name offsets grow with file order */
	return x->name < y->name ? -1 : x->name > y->name;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

struct ksyms *ksyms_load(const char *kallsyms_path, const char *kptr_path)
{
	const char *path = kallsyms_path ? kallsyms_path : "/proc/kallsyms";
	char line[512], name[256], mod[128], type;
	struct ksyms *ks;
	size_t cap = 0, i, nonzero = 0, total = 0;
	unsigned long long addr;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto nomem;
	while (fgets(line, sizeof(line), f)) {
		long noff, moff = -1;
		int n;

		mod[0] = 0;
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3)
			continue;
		total++;
		if (addr)
			nonzero++;
		if (!is_text(type))
			continue;
		if (ks->nr == cap) {
			struct ksym *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(ks->syms, cap * sizeof(*p));
			if (!p)
				goto nomem;
			ks->syms = p;
		}
		noff = add_str(ks, name);
		if (noff < 0)
			goto nomem;
		if (n == 4 && mod[0]) {
			moff = add_str(ks, mod);
			if (moff < 0)
				goto nomem;
		}
		/* store offsets now, pointers after the last realloc */
		ks->syms[ks->nr].addr = addr;
		ks->syms[ks->nr].name = (const char *)(uintptr_t)noff;
		ks->syms[ks->nr].module = (const char *)(intptr_t)moff;
		ks->nr++;
	}
	fclose(f);
	f = NULL;

	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	for (i = 0; i < ks->nr; i++) {
		struct ksym *s = &ks->syms[i];
		intptr_t moff = (intptr_t)s->module;

		s->name = ks->strs + (uintptr_t)s->name;
		s->module = moff >= 0 ? ks->strs + moff : NULL;
	}
	/* size = distance to the next distinct address, equal for aliases */
	for (i = ks->nr; i-- > 0;) {
		struct ksym *s = &ks->syms[i];

		if (i + 1 == ks->nr)
			s->size = 0;
		else if (ks->syms[i + 1].addr == s->addr)
			s->size = ks->syms[i + 1].size;
		else
			s->size = ks->syms[i + 1].addr - s->addr;
	}

	if (total > 0 && nonzero == 0) {
		int kr = -1;
		FILE *k = fopen(kptr_path ? kptr_path : "/proc/sys/kernel/kptr_restrict", "re");

		if (k) {
			if (fscanf(k, "%d", &kr) != 1)
				kr = -1;
			fclose(k);
		}
		ks->restricted = true;
		if (kr >= 0)
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (kernel.kptr_restrict=%d%s): callers shown as raw addresses",
				 path, kr, kr == 1 ? " and no CAP_SYSLOG" : "");
		else
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (kptr_restrict): callers shown as raw addresses",
				 path);
	} else if (total == 0) {
		ks->restricted = true;
		snprintf(ks->reason, sizeof(ks->reason),
			 "%s is empty: callers shown as raw addresses", path);
	}
	return ks;
nomem:
	if (f)
		fclose(f);
	ksyms_free(ks);
	errno = ENOMEM;
	return NULL;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strs);
	free(ks);
}

const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi;
	const struct ksym *s;

	if (!ks || ks->restricted || !ks->nr)
		return NULL;
	hi = ks->nr;
	/* first index with s->addr > addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &ks->syms[lo - 1];
	/* size 0: the last symbol, its end is unknown */
	if (!s->size || addr - s->addr >= s->size)
		return NULL;
	/* several names at one address: report the first listed */
	while (s > ks->syms && (s - 1)->addr == s->addr)
		s--;
	return s;
}

void ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = ksyms_lookup(ks, addr);

	if (!s)
		snprintf(buf, len, "0x%016llx", (unsigned long long)addr);
	else if (s->module)
		snprintf(buf, len, "%s+0x%llx/0x%llx [%s]", s->name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)s->size, s->module);
	else
		snprintf(buf, len, "%s+0x%llx/0x%llx", s->name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)s->size);
}

size_t ksyms_match(const struct ksyms *ks, const char *substr,
		   uint64_t *lo, uint64_t *hi, size_t max)
{
	size_t i, n = 0;

	if (!ks || ks->restricted)
		return 0;
	for (i = 0; i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];
		uint64_t end;

		if (!strstr(s->name, substr))
			continue;
		end = s->addr + (s->size ? s->size : 1);
		if (n < max) {
			lo[n] = s->addr;
			hi[n] = end;
		}
		n++;
	}
	return n;
}
