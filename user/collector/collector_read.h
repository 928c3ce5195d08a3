/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's read (collector_read.c), part of the collector's API
 * (collector.h, which includes this).
 *
 * collector_read() fills a struct vmapscope_sample (rows.h) with the
 * counters since the collector attached: one row per (caller, api), the
 * global counters (vmapscope.h), the feature table (which columns exist
 * on this kernel and, if not, why) and the symbol state.  What is done
 * with samples (their difference, the outputs) needs only rows.h.
 *
 * Threading: collector_read() may be called from any thread (the
 * exporter's HTTP thread); calls are serialized by an internal lock.
 */
#ifndef VMAPSCOPE_COLLECTOR_READ_H
#define VMAPSCOPE_COLLECTOR_READ_H

#include <stddef.h>
#include <stdint.h>

#include "rows.h"

struct collector;

/*
 * Read all counters (cumulative since attach) into @s (caller frees
 * with sample_free()).  Returns 0 or negative errno.
 */
int collector_read(struct collector *c, struct vmapscope_sample *s);

/*
 * The caller string of a kernel text address, as the rows name it
 * ("func+0x1a/0x80 [module]", ksyms.h), from the collector's one kallsyms
 * table (modules unloaded since included).
 */
void collector_symbolize(struct collector *c, uint64_t addr, char *buf, size_t len);

#endif /* VMAPSCOPE_COLLECTOR_READ_H */
