/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapscope collector: open / attach / read / close.
 *
 * Every tool (vmapstat, vmaptop, the Prometheus exporter, the PMU report)
 * reads vmalloc/vmap/ioremap activity through this one API, so that the
 * BPF side, caller naming and "what is missing and why" exist once.
 *
 * The API is this header, which includes the rest of it: here the
 * session (collector.c: open, attach, close, and what was decided), the
 * settings it is opened with (collector_opts.h) and the read of its
 * counters into samples (collector_read.h).  A front end includes this.
 */
#ifndef VMAPSCOPE_COLLECTOR_H
#define VMAPSCOPE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collector_opts.h"
#include "collector_read.h"
#include "rows.h"

struct collector;
struct ksyms;
struct vmapstat_bpf;

/*
 * Load and attach.  Returns 0 and *out, or a negative errno with one
 * line describing the failure written to errbuf (e.g. "need root or
 * CAP_BPF+CAP_PERFMON", "kernel has no BTF (/sys/kernel/btf/vmlinux)").
 * Missing optional columns are NOT an error: the samples' feature table
 * (struct vmapscope_feature_state) says which and why.
 */
int collector_open(const struct collector_opts *opts, struct collector **out,
		   char *errbuf, size_t errlen);
void collector_close(struct collector *c);

/*
 * The current kallsyms table (also the audit's data symbols).  It is
 * replaced when modules change, by collector_read() and
 * collector_symbolize(): use it only while no other thread reads.
 */
const struct ksyms *collector_ksyms(struct collector *c);

/* The loaded BPF object (vmapstat.skel.h), for the PMU sampler. */
struct vmapstat_bpf *collector_bpf(struct collector *c);
bool collector_feature(const struct collector *c, enum vmapscope_feature f);
/* What names the callers ("vmap_mapped", "vm_struct", "stack", ...), "" if nothing. */
const char *collector_callers_how(const struct collector *c);

/* Latency probes as decided by collector_open(). */
size_t collector_probes(const struct collector *c,
			const struct vmapscope_probe_state **probes);

/*
 * For --version: one line naming the BPF programs built into this binary's
 * collector object, by section (opened from the embedded object; nothing
 * is loaded, no privileges needed).
 */
void collector_describe_bpf(FILE *f);

#endif /* VMAPSCOPE_COLLECTOR_H */
