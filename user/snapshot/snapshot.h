/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshot (vmapstat --snapshot): which granules the
 * kernel's page tables use, right now, for every live vmalloc area, per
 * caller and API.
 *
 *   1. /proc/vmallocinfo lists the live areas (range, caller, flags);
 *   2. a BPF program run on demand (BPF_PROG_TEST_RUN of a syscall
 *      program, nothing attached) walks init_mm's page tables over each
 *      range and counts bytes per granule (4K, arm64 64K cont-PTE, 2M,
 *      arm64 32M cont-PMD, 1G);
 *   3. the areas are folded into one row per (caller, api).
 *
 * Works on kernels without vmapscope's tracepoints; needs BTF, root, real
 * addresses in /proc/vmallocinfo (kptr_restrict=1 + CAP_SYSLOG, or a
 * kernel that prints them) and a way to find init_mm and the linear map,
 * each verified before use (see docs/snapshot.md).
 *
 * Consumers (vmapstat, the Prometheus exporter): call snapshot_take()
 * and read struct snapshot; bytes are indexed by mapping shift like
 * struct vmapscope_stats (12 = 4K, 16 = 64K cont, 21 = 2M, 25 = 32M cont,
 * 30 = 1G), labelled by granule.h like every other output.
 */
#ifndef VMAPSCOPE_SNAPSHOT_H
#define VMAPSCOPE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <linux/types.h>

#include "vmapscope.h"
#include "snapshot_pt.h"

/* ---- /proc/vmallocinfo ----------------------------------------------- */

/* Flags as /proc/vmallocinfo prints them (one word each). */
enum snapshot_area_flag {
	SNAPSHOT_F_IOREMAP      = 1u << 0,
	SNAPSHOT_F_VMALLOC      = 1u << 1,
	SNAPSHOT_F_VMAP         = 1u << 2,
	SNAPSHOT_F_USER         = 1u << 3,
	SNAPSHOT_F_DMA_COHERENT = 1u << 4,
	SNAPSHOT_F_SPARSE       = 1u << 5,
	SNAPSHOT_F_VPAGES       = 1u << 6,
	SNAPSHOT_F_VM_MAP_RAM   = 1u << 7,	/* "vm_map_ram" line (no vm_struct) */
	SNAPSHOT_F_UNPURGED     = 1u << 8,	/* "unpurged vm_area": freed, lazily unmapped */
};

#define SNAPSHOT_CALLER_LEN 128

/* One line of /proc/vmallocinfo. */
struct snapshot_area {
	uint64_t start;
	uint64_t end;			/* exclusive; includes the guard page */
	uint64_t size;			/* as printed */
	char caller[SNAPSHOT_CALLER_LEN];	/* "func+0x1a/0x80 [mod]" as %pS prints; "" if none */
	uint64_t nr_pages;		/* pages=N, 0 if absent */
	uint64_t phys;			/* phys=0x..., 0 if absent */
	unsigned int flags;		/* enum snapshot_area_flag */
	int api;			/* enum vmapscope_api derived from flags */
};

/* What the addresses of a whole file look like. */
enum snapshot_addr_kind {
	SNAPSHOT_ADDR_REAL = 0,	/* kernel virtual addresses, end - start == size */
	SNAPSHOT_ADDR_ZERO,		/* all zero: kptr_restrict=2, or 1 without CAP_SYSLOG */
	SNAPSHOT_ADDR_HASHED,	/* %pK hashed (kptr_restrict=0) */
	SNAPSHOT_ADDR_MIXED,	/* some lines inconsistent: not trustworthy */
};

struct snapshot_areas {
	struct snapshot_area *v;
	size_t n;
	size_t skipped_unpurged;	/* "unpurged vm_area" lines (not mapped) */
	enum snapshot_addr_kind addr_kind;
};

/*
 * Parse one line (without or with its newline).  Returns 0, or -EINVAL
 * for a line that is not a vmallocinfo area line.
 */
int vmallocinfo_parse_line(const char *line, struct snapshot_area *a);

/*
 * Read a whole file.  Returns 0, or negative errno with one line in err
 * (malformed line N, unreadable file, hashed/zero addresses with the
 * reason).  Unpurged lines are counted, not stored.  Free with
 * snapshot_areas_free().
 */
int vmallocinfo_read(FILE *f, const char *name, struct snapshot_areas *out,
		     char *err, size_t errlen);
int vmallocinfo_load(const char *path, struct snapshot_areas *out, char *err, size_t errlen);
void snapshot_areas_free(struct snapshot_areas *a);

/* ---- the snapshot --------------------------------------------------- */

/* What the walk found for one area. */
struct snapshot_area_result {
	uint64_t bytes[VMAPSCOPE_NR_SHIFTS];
	uint64_t potential[SNAPSHOT_NR_POT];	/* enum snapshot_potential (snapshot_pt.h) */
	uint64_t unmapped;
	bool changed;
};

/* One (caller, api) row: what the page tables map for its live areas. */
struct snapshot_row {
	char caller[SNAPSHOT_CALLER_LEN];
	int api;			/* enum vmapscope_api */
	uint64_t areas;			/* live areas walked */
	uint64_t area_bytes;		/* their sizes as /proc/vmallocinfo prints */
	uint64_t bytes[VMAPSCOPE_NR_SHIFTS];	/* mapped bytes by mapping shift */
	uint64_t potential[SNAPSHOT_NR_POT];	/* of the PTE-mapped bytes */
	uint64_t predicted[VMAPSCOPE_NR_SHIFTS];	/* bytes per shift with the series */
	uint64_t unmapped;		/* bytes of the ranges with no mapping (guard pages) */
	uint64_t changed;		/* areas that changed while walked (not in totals) */
};

struct snapshot {
	struct timespec wall;		/* CLOCK_REALTIME when taken */
	char arch[16];			/* "x86_64" / "arm64" */
	size_t nr_rows;
	struct snapshot_row *rows;		/* sorted by caller, then api */
	struct snapshot_row total;		/* caller "", api -1: everything */
	uint64_t areas_listed;		/* area lines in /proc/vmallocinfo */
	uint64_t areas_unpurged;	/* lazily-freed lines, not walked */
	uint64_t areas_changed;		/* vanished or unreadable during the walk */
	uint64_t prog_runs;		/* BPF_PROG_TEST_RUN calls */
	uint64_t walk_steps;		/* page-table steps in all runs */
	double seconds;			/* wall time of the whole snapshot */
	double walk_seconds;		/* ... of which BPF runs */
	double list_seconds;		/* ... reading /proc/vmallocinfo (twice) */
	double setup_seconds;		/* ... kallsyms, BPF load, verifying the layout */
	/* Per area (only with snapshot_opts.keep_areas): the list and its results. */
	struct snapshot_areas areas;
	struct snapshot_area_result *area_res;
	/* How init_mm and the linear map were found (for -v and JSON). */
	char init_mm_how[256];
	char linear_map_how[256];
};

struct ksyms;

struct snapshot_opts {
	const char *vmallocinfo;	/* default /proc/vmallocinfo */
	const char *kallsyms;		/* default /proc/kallsyms */
	/* kallsyms already loaded (the collector's), else read from kallsyms */
	const struct ksyms *ksyms;
	const char *caller_filter;	/* substring; NULL = all */
	unsigned int api_mask;		/* bit (1 << api); 0 = all */
	uint32_t steps_per_run;		/* 0 = default */
	bool keep_areas;		/* keep per-area results (JSON "areas") */
	bool verbose;			/* libbpf output and discovery steps */
};

/*
 * Take one snapshot.  Returns 0; or negative errno with one line in err
 * naming what is missing or hidden and why (for example: hashed
 * /proc/vmallocinfo addresses, init_mm not in /proc/kallsyms, no BTF, not
 * root).  Free with snapshot_free().
 */
int snapshot_take(const struct snapshot_opts *o, struct snapshot *s,
		       char *err, size_t errlen);

/*
 * The same in two steps, for repeated snapshots (--live-bytes): open
 * loads the walker and finds and verifies the memory layout once (the
 * dominant cost of one snapshot); each take lists the areas and walks
 * them.  Errors as snapshot_take().
 */
struct snapshot_auditor;
int snapshot_auditor_open(const struct snapshot_opts *o, struct snapshot_auditor **out,
		      char *err, size_t errlen);
int snapshot_auditor_take(struct snapshot_auditor *a, struct snapshot *s,
		      char *err, size_t errlen);
void snapshot_auditor_close(struct snapshot_auditor *a);
void snapshot_free(struct snapshot *s);

/*
 * Fold per-area results into rows; used by snapshot_take() and by
 * the unit tests.  res[i] is what the walk found for areas->v[i].
 */
int snapshot_fold(const struct snapshot_areas *areas, const struct snapshot_area_result *res,
	      const struct snapshot_opts *o, struct snapshot *s);
/* A row's mapped bytes (all granules); qsort order of rows: caller, then api. */
uint64_t snapshot_row_mapped(const struct snapshot_row *r);
int snapshot_row_cmp(const void *a, const void *b);

/*
 * Name of a potential figure (enum snapshot_potential) in every output:
 * "could_64K", "could_2M", "misaligned"; and whether it exists on arch
 * ("x86_64" has no 64K block).
 */
const char *snapshot_potential_name(int k);
bool snapshot_potential_applies(const char *arch, int k);

/*
 * Where the walk measures an area's runs from (snapshot_range.base): its
 * first page for vmap() areas, whose blocks the series places by array
 * index in an area it aligns itself; 0 (in place) for every other API.
 */
uint64_t snapshot_area_base(const struct snapshot_area *a);

/*
 * Bytes per mapping shift with the series: bytes[] (as walked) with the
 * potential figures moved from 4K to their blocks' granules.
 */
void snapshot_predicted(const uint64_t bytes[VMAPSCOPE_NR_SHIFTS],
		    const uint64_t pot[SNAPSHOT_NR_POT], uint64_t out[VMAPSCOPE_NR_SHIFTS]);

/*
 * Whether the series maps an area of this API by the physical contiguity
 * the potential figures measure: vmap() (by array index) and ioremap()
 * (in place).  Order-0 vmalloc(), vm_map_ram() and the other page-array
 * users keep 4K PTEs however their pages lie, so their prediction is the
 * walk itself and their potential only says what the memory would allow.
 */
bool snapshot_api_follows_contiguity(int api);

/* snapshot_predicted() for one area of @api: unchanged where the series maps 4K anyway. */
void snapshot_api_predicted(int api, const uint64_t bytes[VMAPSCOPE_NR_SHIFTS],
			    const uint64_t pot[SNAPSHOT_NR_POT],
			    uint64_t out[VMAPSCOPE_NR_SHIFTS]);

/* Output: the text tables and one JSON object (json-c). */
void snapshot_print_text(FILE *f, const struct snapshot *s, bool per_caller);
int snapshot_print_json(FILE *f, const struct snapshot *s, bool per_caller);

#endif /* VMAPSCOPE_SNAPSHOT_H */
