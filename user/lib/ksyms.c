// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms text symbols: load, look up, format (see ksyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "ksyms.h"

static long add_str(struct ksyms *ks, const char *s)
{
	size_t n = strlen(s) + 1;
	long off;

	if (ks->strs_len + n > ks->strs_cap) {
		size_t cap = ks->strs_cap ? ks->strs_cap * 2 : 1 << 16;
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

static const char *const data_names[KSYMS_NR_DATA] = {
	[KSYMS_INIT_MM] = "init_mm",
	[KSYMS_SWAPPER_PG_DIR] = "swapper_pg_dir",
	[KSYMS_PAGE_OFFSET_BASE] = "page_offset_base",
	[KSYMS_MEMSTART_ADDR] = "memstart_addr",
};

struct ksyms *ksyms_load(const char *kallsyms_path, const char *kptr_path)
{
	const char *path = kallsyms_path ? kallsyms_path : "/proc/kallsyms";
	struct ksyms *ks;
	FILE *f;
	int e;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	ks = ksyms_read(f, path, kptr_path);
	e = errno;
	fclose(f);
	errno = e;
	return ks;
}

/* A number from a /proc/sys file, or -1. */
static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

struct ksyms *ksyms_read(FILE *f, const char *path, const char *kptr_path)
{
	static const char raw[] = ": callers shown as raw addresses";
	char *line = NULL, *p, *name, *mod;
	size_t linecap = 0;
	struct ksyms *ks;
	size_t cap = 0, i, nonzero = 0, total = 0;
	unsigned long long addr;
	char type;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto nomem;
	/*
	 * ~100k lines: no sscanf, it dominates the cost under emulation.
	 * getline: a Rust symbol name alone may take 512 bytes, and the tail
	 * of a line cut at a fixed size would be read as a line of its own.
	 */
	while (getline(&line, &linecap, f) > 0) {
		long noff, moff = -1;

		addr = strtoull(line, &p, 16);
		if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		type = p[1];
		name = p + 3;
		p = name + strcspn(name, " \t\n");
		mod = NULL;
		if (*p && *p != '\n') {
			mod = p + strspn(p, " \t");
			if (*mod == '[' && strchr(mod, ']')) {
				mod++;
				*strchr(mod, ']') = 0;
			} else {
				mod = NULL;
			}
		}
		*p = 0;
		if (!*name)
			continue;
		total++;
		if (addr)
			nonzero++;
		if (strchr("dDbBrR", type)) {
			ks->nr_data_syms++;
			for (i = 0; !mod && i < KSYMS_NR_DATA; i++)
				if (!strcmp(name, data_names[i]))
					ks->data[i] = addr;
			continue;
		}
		if (!is_text(type))
			continue;
		if (ks->nr == cap) {
			struct ksym *np;

			cap = cap ? cap * 2 : 4096;
			np = realloc(ks->syms, cap * sizeof(*np));
			if (!np)
				goto nomem;
			ks->syms = np;
		}
		noff = add_str(ks, name);
		if (noff < 0)
			goto nomem;
		if (mod && *mod) {
			moff = add_str(ks, mod);
			if (moff < 0)
				goto nomem;
		}
		/* store offsets now, pointers after the last realloc */
		ks->syms[ks->nr].addr = addr;
		ks->syms[ks->nr].name = (const char *)(uintptr_t)noff;
		ks->syms[ks->nr].module = (const char *)(intptr_t)moff;
		ks->syms[ks->nr].region = false;
		ks->syms[ks->nr].unloaded = false;
		ks->nr++;
	}
	free(line);
	line = NULL;

	/* no text symbol at all (an empty file): syms is NULL, qsort wants an array */
	if (ks->nr)
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
		const char *kp = kptr_path ? kptr_path : "/proc/sys/kernel/kptr_restrict";
		const char *slash = strrchr(kp, '/');
		int kr = read_sysctl(kp), pe;
		char pp[4096];

		/* perf_event_paranoid sits beside kptr_restrict (in a test's directory too) */
		snprintf(pp, sizeof(pp), "%.*sperf_event_paranoid",
			 slash ? (int)(slash + 1 - kp) : 0, kp);
		pe = read_sysctl(pp);
		ks->restricted = true;
		/*
		 * The kernel's rule (kallsyms_show_value()): under 0 anyone
		 * sees addresses while perf_event_paranoid <= 1, else only with
		 * CAP_SYSLOG; under 1 only with CAP_SYSLOG; under 2 nobody.
		 */
		if (kr == 0 && pe > 1)
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (no CAP_SYSLOG, and kernel.perf_event_paranoid=%d "
				 "is above 1)%s", path, pe, raw);
		else if (kr == 0 || kr == 1)
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (kernel.kptr_restrict=%d and no CAP_SYSLOG)%s",
				 path, kr, raw);
		else if (kr >= 2)
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (kernel.kptr_restrict=%d)%s", path, kr, raw);
		else
			snprintf(ks->reason, sizeof(ks->reason),
				 "%s shows all addresses as 0 (kptr_restrict, or no CAP_SYSLOG)%s", path, raw);
	} else if (total == 0) {
		ks->restricted = true;
		snprintf(ks->reason, sizeof(ks->reason),
			 "%s is empty: callers shown as raw addresses", path);
	}
	return ks;
nomem:
	free(line);
	ksyms_free(ks);
	errno = ENOMEM;
	return NULL;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	while (ks->nr_blocks)
		free(ks->blocks[--ks->nr_blocks]);
	free(ks->blocks);
	free(ks->syms);
	free(ks->strs);
	free(ks);
}

const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *s, *best;
	size_t lo = 0, hi;

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
	/*
	 * Several names at one address: the one with the smallest extent
	 * that covers addr, the first listed among equals (kallsyms aliases
	 * share one size).  A symbol of size 0 (the last one, its end is
	 * unknown) covers nothing, and a stale kallsyms entry at the start
	 * of an unloaded module's text loses to the module's own symbols.
	 */
	best = NULL;
	for (s = &ks->syms[lo - 1]; ; s--) {
		if (s->size && addr - s->addr < s->size && (!best || s->size <= best->size))
			best = s;
		if (s == ks->syms || (s - 1)->addr != s->addr)
			break;
	}
	return best;
}

void ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = ksyms_lookup(ks, addr);

	if (!s)
		snprintf(buf, len, "0x%016llx", (unsigned long long)addr);
	else if (s->region)
		snprintf(buf, len, "[%s]+0x%llx", s->module,
			 (unsigned long long)(addr - s->addr));
	else if (s->module)
		snprintf(buf, len, "%s+0x%llx/0x%llx [%s]", s->name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)s->size, s->module);
	else
		snprintf(buf, len, "%s+0x%llx/0x%llx", s->name,
			 (unsigned long long)(addr - s->addr),
			 (unsigned long long)s->size);
}

/* Take n symbols whose names live in block (freed with ks). */
static int add_syms(struct ksyms *ks, const struct ksym *add, size_t n, char *block)
{
	struct ksym *p;
	char **b;

	b = realloc(ks->blocks, (ks->nr_blocks + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	ks->blocks = b;
	/*
	 * Nothing to add (a module file without placed text symbols): no
	 * realloc to 0 bytes, which frees the table of an empty ks.
	 */
	if (n) {
		p = realloc(ks->syms, (ks->nr + n) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		ks->syms = p;
		memcpy(p + ks->nr, add, n * sizeof(*add));
		ks->nr += n;
		qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	}
	ks->blocks[ks->nr_blocks++] = block;
	return 0;
}

int ksyms_add_module_region(struct ksyms *ks, const char *mod, uint64_t addr, uint64_t size)
{
	struct ksym s = { .addr = addr, .size = size, .region = true, .unloaded = true };
	char *name = strdup(mod);
	int err;

	if (!name)
		return -ENOMEM;
	s.name = s.module = name;
	err = add_syms(ks, &s, 1, name);
	if (err)
		free(name);
	return err;
}

void ksyms_drop_stale(struct ksyms *ks, uint64_t lo, uint64_t hi,
		      bool (*keep)(const char *module, void *arg), void *arg)
{
	size_t i, n = 0;

	for (i = 0; i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];

		if (!s->unloaded && s->addr >= lo && s->addr < hi &&
		    !(s->module && keep(s->module, arg)))
			continue;
		ks->syms[n++] = *s;
	}
	ks->nr = n;
}

void ksyms_drop_unloaded(struct ksyms *ks, const char *mod, uint64_t lo, uint64_t hi)
{
	size_t i, n = 0;

	for (i = 0; i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];
		uint64_t end = s->addr + (s->size ? s->size : 1);

		if (s->unloaded && s->module && !strcmp(s->module, mod) && s->addr < hi && end > lo)
			continue;
		ks->syms[n++] = *s;
	}
	ks->nr = n;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

long ksyms_add_module_file(struct ksyms *ks, const char *mod, const char *path,
			   const struct ksyms_anchor *a, size_t nr, char *why, size_t whylen)
{
	size_t nsec = 0, nsyms = 0, symstr = 0, i, n = 0, strsz;
	struct ksym *syms = NULL;
	uint64_t *base = NULL, *sec_end = NULL;
	Elf_Data *data = NULL;
	Elf_Scn *scn = NULL;
	char *block = NULL, *p;
	bool *placed = NULL;
	Elf *e = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	long err = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrnum(e, &nsec)) {
		snprintf(why, whylen, "%s is not an ELF file", path);
		err = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
			data = elf_getdata(scn, NULL);
			symstr = sh.sh_link;
			nsyms = sh.sh_size / sh.sh_entsize;
			break;
		}
	}
	if (!data) {
		snprintf(why, whylen, "%s has no symbol table", path);
		err = -EINVAL;
		goto out;
	}
	base = calloc(nsec, sizeof(*base));
	sec_end = calloc(nsec, sizeof(*sec_end));
	placed = calloc(nsec, sizeof(*placed));
	syms = calloc(nsyms, sizeof(*syms));
	if (!base || !sec_end || !placed || !syms) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (a[i].symidx >= nsyms || a[i].shndx >= nsec ||
		    !gelf_getsym(data, a[i].symidx, &sym) ||
		    sym.st_shndx != a[i].shndx || sym.st_name != a[i].st_name) {
			snprintf(why, whylen, "%s is not the %s module that was loaded "
				 "(its symbol table differs)", path, mod);
			err = -ESTALE;
			goto out;
		}
		base[a[i].shndx] = a[i].addr - sym.st_value;
		placed[a[i].shndx] = true;
		scn = elf_getscn(e, a[i].shndx);
		sec_end[a[i].shndx] = base[a[i].shndx] +
			(scn && gelf_getshdr(scn, &sh) ? sh.sh_size : 0);
	}
	strsz = strlen(mod) + 1;
	for (i = 1; i < nsyms; i++) {
		const char *name;
		int type;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_NOTYPE) ||
		    sym.st_shndx >= nsec || !placed[sym.st_shndx])
			continue;
		name = elf_strptr(e, symstr, sym.st_name);
		/* unnamed and arm64 mapping symbols ($x, $d) are no callers */
		if (!name || !*name || *name == '$')
			continue;
		syms[n].addr = base[sym.st_shndx] + sym.st_value;
		/* until sizes are known: the end of the symbol's section */
		syms[n].size = sec_end[sym.st_shndx];
		syms[n].name = name;
		strsz += strlen(name) + 1;
		n++;
	}
	block = malloc(strsz);
	if (!block) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * Sizes as the kernel gives them: up to the next symbol, but not past
	 * the symbol's section (sections of a module are separate allocations).
	 */
	qsort(syms, n, sizeof(*syms), cmp_addr);
	p = stpcpy(block, mod) + 1;
	for (i = 0; i < n; i++) {
		uint64_t end = syms[i].size;
		size_t j = i + 1;

		while (j < n && syms[j].addr == syms[i].addr)
			j++;
		if (j < n && syms[j].addr < end)
			end = syms[j].addr;
		syms[i].size = end - syms[i].addr;
		syms[i].module = block;
		syms[i].unloaded = true;
		syms[i].name = strcpy(p, syms[i].name);
		p += strlen(p) + 1;
	}
	err = add_syms(ks, syms, n, block);
	if (!err) {
		block = NULL;
		err = n;
	}
out:
	free(block);
	free(syms);
	free(base);
	free(sec_end);
	free(placed);
	elf_end(e);
	close(fd);
	return err;
}

/* nftw() has no argument for its callback: the search it serves. */
static const char *find_mod;
static char *find_path;
static size_t find_len;

static bool same_module_name(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen; i++, a++) {
		char x = *a == '-' ? '_' : *a, y = b[i] == '-' ? '_' : b[i];

		if (!*a || x != y)
			return false;
	}
	return !*a;
}

static int find_step(const char *path, const struct stat *st, int type, struct FTW *f)
{
	const char *base = path + f->base;
	size_t n = strlen(base);

	if (type != FTW_F || n < 4 || strcmp(base + n - 3, ".ko"))
		return 0;
	if (!same_module_name(find_mod, base, n - 3))
		return 0;
	snprintf(find_path, find_len, "%s", path);
	return 1;
}

int ksyms_find_module_file(const char *dir, const char *mod, char *path, size_t len)
{
	char def[300];
	struct utsname u;

	if (!dir) {
		uname(&u);
		snprintf(def, sizeof(def), "/lib/modules/%s", u.release);
		dir = def;
	}
	find_mod = mod;
	find_path = path;
	find_len = len;
	return nftw(dir, find_step, 16, FTW_PHYS) == 1 ? 0 : -ENOENT;
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
