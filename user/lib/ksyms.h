/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel text symbols from /proc/kallsyms, for naming callers the way
 * /proc/vmallocinfo does ("func+0x1a/0x80 [module]").
 *
 * With kernel.kptr_restrict hiding addresses (or without CAP_SYSLOG)
 * kallsyms lists every symbol at address 0: ksyms_load() then succeeds
 * with restricted = true and a reason, and callers are shown raw.
 */
#ifndef VMAPSCOPE_KSYMS_H
#define VMAPSCOPE_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ksym {
	uint64_t addr;
	uint64_t size;		/* up to the next symbol; 0 for the last one */
	const char *name;
	const char *module;	/* NULL for vmlinux */
	bool region;		/* a module's text without symbols: "[mod]+0xoff" */
	bool unloaded;		/* added for a module no longer loaded */
};

/* The data symbols the snapshot needs (snapshot_walk.c). */
enum ksyms_data {
	KSYMS_INIT_MM,
	KSYMS_SWAPPER_PG_DIR,
	KSYMS_PAGE_OFFSET_BASE,	/* x86_64 */
	KSYMS_MEMSTART_ADDR,	/* arm64 */
	KSYMS_NR_DATA,
};

struct ksyms {
	struct ksym *syms;	/* text symbols sorted by address */
	size_t nr;
	uint64_t data[KSYMS_NR_DATA];	/* 0 = not listed */
	size_t nr_data_syms;	/* data symbols listed (d D b B r R): CONFIG_KALLSYMS_ALL */
	bool restricted;	/* addresses hidden: all zero */
	char reason[256];
	char *strs;		/* name storage */
	size_t strs_len, strs_cap;
	char **blocks;		/* name storage of added modules */
	size_t nr_blocks;
};

/*
 * kallsyms_path: NULL = /proc/kallsyms; kptr_path: NULL =
 * /proc/sys/kernel/kptr_restrict (only read to explain a restriction).
 * Returns NULL with errno set when the file cannot be read.
 */
struct ksyms *ksyms_load(const char *kallsyms_path, const char *kptr_path);
/*
 * The same from an open stream in kallsyms format; path names it in
 * ks->reason.  NULL with errno = ENOMEM only.
 */
struct ksyms *ksyms_read(FILE *f, const char *path, const char *kptr_path);
void ksyms_free(struct ksyms *ks);

/* Symbol containing addr (addr in [sym, sym + size)), or NULL. */
const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr);

/*
 * "func+0xoff/0xsize [module]" (vmallocinfo's %pS), or "0x%016lx" when the
 * address is not inside a known symbol or symbols are restricted.
 */
void ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len);

/*
 * Symbols of a module that is no longer loaded, so that its callers keep
 * their names (perf does the same with the .ko).  The module recorded
 * where each section was loaded (vmapscope.h, struct vmapscope_mod_val):
 * one anchor per text section gives that section's load address.
 */
struct ksyms_anchor {
	uint32_t shndx;		/* .ko section index */
	uint32_t st_name;	/* the symbol's name offset, to check the file */
	uint64_t symidx;	/* .ko symbol index */
	uint64_t addr;		/* its load address */
};

/*
 * Add the text symbols of module mod from its .ko at path, placed by the
 * anchors; sizes run to the next symbol or the end of the section.
 * Returns the number of symbols added, or a negative errno
 * with why set (unreadable file, or a file that is not the module that
 * was loaded).
 */
long ksyms_add_module_file(struct ksyms *ks, const char *mod, const char *path,
			   const struct ksyms_anchor *a, size_t nr, char *why, size_t whylen);

/*
 * Drop the kallsyms entries in [lo, hi), an unloaded module's text, that
 * are stale (an earlier module's init code listed where that module was
 * later placed), keeping those of modules keep() says are newer.
 */
void ksyms_drop_stale(struct ksyms *ks, uint64_t lo, uint64_t hi,
		      bool (*keep)(const char *module, void *arg), void *arg);

/*
 * Drop what was added for the unloaded module mod (ksyms_add_module_file(),
 * ksyms_add_module_region()) that overlaps [lo, hi): text a module loaded
 * after it was placed in, which names those addresses now.
 */
void ksyms_drop_unloaded(struct ksyms *ks, const char *mod, uint64_t lo, uint64_t hi);

/* A module's text region without symbols, formatted "[mod]+0xoff". */
int ksyms_add_module_region(struct ksyms *ks, const char *mod, uint64_t addr, uint64_t size);

/*
 * The .ko of module mod under /lib/modules/<release> (dir: NULL for that),
 * names compared with '-' and '_' alike.  Returns 0 with path set, or
 * -ENOENT.
 */
int ksyms_find_module_file(const char *dir, const char *mod, char *path, size_t len);

/*
 * Address ranges [lo, hi) of every text symbol whose name contains
 * substr; writes at most max ranges, returns how many matched in total.
 */
size_t ksyms_match(const struct ksyms *ks, const char *substr,
		   uint64_t *lo, uint64_t *hi, size_t max);

#endif /* VMAPSCOPE_KSYMS_H */
