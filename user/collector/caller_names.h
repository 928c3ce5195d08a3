/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Caller names: kernel text address -> "func+0x1a/0x80 [module]"
 * (ksyms.h), the one spelling every output and /proc/vmallocinfo share.
 *
 * The kallsyms table is read again whenever the module list, or the
 * module loads BPF saw, changed since the last look.  A module that has
 * unloaded itself before its callers are named is found in the BPF
 * "modules" map (where its sections were loaded, vmapscope.h) and named
 * from its .ko; without the .ko its callers read "[mod]+0xoff", said once
 * on stderr.  Each address is named once, on first sight, while its
 * module is most likely still loaded, and kept.
 *
 * Not thread-safe: the collector serializes calls.
 */
#ifndef VMAPSCOPE_CALLER_NAMES_H
#define VMAPSCOPE_CALLER_NAMES_H

#include <stdint.h>

struct caller_names;
struct ksyms;
struct vmapstat_bpf;

/* Reads kallsyms now; NULL on ENOMEM.  @release: the running kernel's. */
struct caller_names *caller_names_new(const char *release);
void caller_names_free(struct caller_names *c);

/* The loaded BPF object, whose "modules" map names unloaded modules' callers. */
void caller_names_set_bpf(struct caller_names *c, struct vmapstat_bpf *skel);

/* Re-read kallsyms when a module came or went since the last look. */
void caller_names_refresh(struct caller_names *c);
/* Re-read kallsyms now. */
void caller_names_reload(struct caller_names *c);

/* The name of @addr, NULL on ENOMEM; valid until caller_names_free(). */
const char *caller_names_lookup(struct caller_names *c, uint64_t addr);

/*
 * The current kallsyms table, NULL when /proc/kallsyms cannot be read.
 * Replaced by caller_names_refresh() / _reload().
 */
const struct ksyms *caller_names_ksyms(const struct caller_names *c);

#endif /* VMAPSCOPE_CALLER_NAMES_H */
