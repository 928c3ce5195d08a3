// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/vmallocinfo parser for the snapshot.
 *
 * Line format (mm/vmalloc.c, s_show() in 6.12; older and newer kernels
 * print the same words in the same order):
 *
 *   0x<start>-0x<end> <size> [<caller %pS>] [pages=N] [phys=0x...]
 *       [ioremap] [sparse] [vmalloc] [vmap] [user] [dma-coherent] [vpages]
 *       [N<node>=<pages>...]
 *   0x<start>-0x<end> <size> vm_map_ram
 *   0x<start>-0x<end> <size> unpurged vm_area
 *
 * Addresses are %pK: real only when kptr_restrict allows the reader
 * (1 with CAP_SYSLOG); 0 prints hashed values, 2 (or 1 without
 * CAP_SYSLOG) prints zeros.  Both are detected and refused with the reason,
 * because walking page tables at made-up addresses would report nonsense.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

static const struct {
	const char *word;
	unsigned int flag;
} flag_words[] = {
	{ "ioremap", SNAPSHOT_F_IOREMAP },
	{ "vmalloc", SNAPSHOT_F_VMALLOC },
	{ "vmap", SNAPSHOT_F_VMAP },
	{ "user", SNAPSHOT_F_USER },
	{ "dma-coherent", SNAPSHOT_F_DMA_COHERENT },
	{ "sparse", SNAPSHOT_F_SPARSE },
	{ "vpages", SNAPSHOT_F_VPAGES },
};

/* Digits only: strtoull() would also take a sign, blanks and a second "0x". */
static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s)) ||
	    (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* "N0=4", "N12=1": per-node page counts. */
static bool is_node_word(const char *w)
{
	if (w[0] != 'N' || !isdigit((unsigned char)w[1]))
		return false;
	w++;
	while (isdigit((unsigned char)*w))
		w++;
	if (*w++ != '=' || !isdigit((unsigned char)*w))
		return false;
	while (isdigit((unsigned char)*w))
		w++;
	return *w == '\0';
}

static int api_of(unsigned int flags)
{
	if (flags & SNAPSHOT_F_VM_MAP_RAM)
		return VMAPSCOPE_API_VM_MAP_RAM;
	if (flags & SNAPSHOT_F_IOREMAP)
		return VMAPSCOPE_API_IOREMAP;
	if (flags & SNAPSHOT_F_VMALLOC)
		return VMAPSCOPE_API_VMALLOC;
	if (flags & SNAPSHOT_F_VMAP)
		return VMAPSCOPE_API_VMAP;
	return VMAPSCOPE_API_OTHER;
}

/*
 * Append word to the caller: %pS's "func+0x1a/0x80 [module]" is the
 * tracer's caller string too (ksyms.h), so the two join on it.
 */
static void caller_append(char *caller, const char *w)
{
	size_t len = strlen(caller);

	snprintf(caller + len, SNAPSHOT_CALLER_LEN - len, "%s%s", len ? " " : "", w);
}

/*
 * The line in words; a copy of any length: one caller can take 512 bytes
 * (KSYM_NAME_LEN, Rust), and a machine with many nodes prints an N<node>=
 * word for each.
 */
static int parse_words(char *buf, struct snapshot_area *a);

int vmallocinfo_parse_line(const char *line, struct snapshot_area *a)
{
	char small[512], *buf = small;
	size_t len = strlen(line);
	int ret;

	memset(a, 0, sizeof(*a));
	if (len >= sizeof(small) && !(buf = malloc(len + 1)))
		return -ENOMEM;
	memcpy(buf, line, len + 1);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	ret = parse_words(buf, a);
	if (buf != small)
		free(buf);
	return ret;
}

static int parse_words(char *buf, struct snapshot_area *a)
{
	char *save = NULL, *w, *dash;
	size_t i;
	int idx = 0;

	for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save), idx++) {
		if (idx == 0) {
			/* 0x<start>-0x<end> */
			dash = strchr(w, '-');
			if (!dash || strncmp(w, "0x", 2) || strncmp(dash + 1, "0x", 2))
				return -EINVAL;
			*dash = '\0';
			if (parse_u64(w + 2, 16, &a->start) || parse_u64(dash + 3, 16, &a->end))
				return -EINVAL;
			continue;
		}
		if (idx == 1) {
			if (parse_u64(w, 10, &a->size))
				return -EINVAL;
			continue;
		}
		if (idx == 2 && !strcmp(w, "vm_map_ram")) {
			a->flags |= SNAPSHOT_F_VM_MAP_RAM;
			continue;
		}
		if (idx == 2 && !strcmp(w, "unpurged")) {
			w = strtok_r(NULL, " \t", &save);
			if (!w || strcmp(w, "vm_area"))
				return -EINVAL;
			a->flags |= SNAPSHOT_F_UNPURGED;
			idx++;
			continue;
		}
		if (!strncmp(w, "pages=", 6)) {
			if (parse_u64(w + 6, 10, &a->nr_pages))
				return -EINVAL;
			continue;
		}
		if (!strncmp(w, "phys=", 5)) {
			if (strncmp(w + 5, "0x", 2) || parse_u64(w + 7, 16, &a->phys))
				return -EINVAL;
			continue;
		}
		if (is_node_word(w))
			continue;
		for (i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++)
			if (!strcmp(w, flag_words[i].word))
				break;
		if (i < sizeof(flag_words) / sizeof(flag_words[0])) {
			a->flags |= flag_words[i].flag;
			continue;
		}
		/*
		 * The caller: "sym+0x1a/0x40", optionally followed by
		 * "[module]", or a bare "0x..." address.  It comes right after
		 * the size, so anything else in a later position is garbage.
		 */
		if (idx == 2 || (idx == 3 && w[0] == '[' && a->caller[0])) {
			caller_append(a->caller, w);
			continue;
		}
		return -EINVAL;
	}
	if (idx < 2)
		return -EINVAL;
	a->api = api_of(a->flags);
	return 0;
}

/* A kernel virtual address of either supported arch (top byte 0xff). */
static bool kernel_va(uint64_t v)
{
	return (v >> 56) == 0xff;
}

static const char *snapshot_addr_kind_reason(enum snapshot_addr_kind k)
{
	switch (k) {
	case SNAPSHOT_ADDR_REAL:
		return "real addresses";
	case SNAPSHOT_ADDR_ZERO:
		return "addresses are printed as zeros: kernel.kptr_restrict is 2, or 1 and the reader "
		       "lacks CAP_SYSLOG (run as root with kernel.kptr_restrict=1)";
	case SNAPSHOT_ADDR_HASHED:
		return "addresses are hashed: kernel.kptr_restrict is 0, where %pK hashes pointers "
		       "(set kernel.kptr_restrict=1 and run as root, i.e. with CAP_SYSLOG)";
	case SNAPSHOT_ADDR_MIXED:
		return "addresses are inconsistent (end - start != size on some lines): not a usable "
		       "vmallocinfo";
	}
	return "?";
}

void snapshot_areas_free(struct snapshot_areas *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

int vmallocinfo_read(FILE *f, const char *name, struct snapshot_areas *out,
		     char *err, size_t errlen)
{
	size_t cap = 0, lineno = 0, nreal = 0, nzero = 0, nother = 0;
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	errno = 0;
	while ((len = getline(&line, &linecap, f)) >= 0) {
		struct snapshot_area a;

		lineno++;
		if (len == 0 || line[0] == '\n')
			continue;
		ret = vmallocinfo_parse_line(line, &a);
		if (ret == -ENOMEM) {
			snprintf(err, errlen, "%s: out of memory", name);
			goto fail;
		}
		if (ret) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(err, errlen, "%s:%zu: not a vmallocinfo line: \"%.60s\"", name,
				 lineno, line);
			ret = -EINVAL;
			goto fail;
		}
		if (!a.start && !a.end)
			nzero++;
		else if (kernel_va(a.start) && a.end > a.start && a.end - a.start == a.size)
			nreal++;
		else
			nother++;
		if (a.flags & SNAPSHOT_F_UNPURGED) {
			out->skipped_unpurged++;
			continue;
		}
		if (out->n == cap) {
			struct snapshot_area *v;

			cap = cap ? cap * 2 : 1024;
			v = realloc(out->v, cap * sizeof(*v));
			if (!v) {
				snprintf(err, errlen, "%s: out of memory", name);
				ret = -ENOMEM;
				goto fail;
			}
			out->v = v;
		}
		out->v[out->n++] = a;
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: read error: %s", name, strerror(-ret));
		goto fail;
	}
	if (!lineno || (!out->n && !out->skipped_unpurged)) {
		snprintf(err, errlen, "%s: no vmalloc areas listed (empty file)", name);
		ret = -ENODATA;
		goto fail;
	}
	if (nreal == nreal + nzero + nother)
		out->addr_kind = SNAPSHOT_ADDR_REAL;
	else if (nzero == nreal + nzero + nother)
		out->addr_kind = SNAPSHOT_ADDR_ZERO;
	else if (!nreal)
		out->addr_kind = SNAPSHOT_ADDR_HASHED;
	else
		out->addr_kind = SNAPSHOT_ADDR_MIXED;
	if (out->addr_kind != SNAPSHOT_ADDR_REAL) {
		snprintf(err, errlen, "%s: %s", name, snapshot_addr_kind_reason(out->addr_kind));
		ret = -EPERM;
		goto fail;
	}
	free(line);
	return 0;
fail:
	free(line);
	snapshot_areas_free(out);
	return ret;
}

int vmallocinfo_load(const char *path, struct snapshot_areas *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(-ret),
			 ret == -EACCES ? " (need root)" : "");
		return ret;
	}
	ret = vmallocinfo_read(f, path, out, err, errlen);
	fclose(f);
	return ret;
}
