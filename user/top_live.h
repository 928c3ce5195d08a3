/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live vmalloc areas per caller, from /proc/vmallocinfo: the "LIVE" and
 * "AREAS" columns of vmaptop.  The BPF collector counts mapping events
 * since it attached; only vmallocinfo knows what is mapped right now.
 *
 * A line looks like
 *   0xffffc900...-0xffffc900...   20480 kernel_clone+0xb8/0x400 pages=4 vmalloc N0=4
 * The caller is printed with %pS, the format ksyms_format() produces for
 * the collector's rows, so rows and areas match on the symbol string.
 * The size is the area's (it includes the guard page).  The API comes
 * from the flags: "vmalloc", "vmap", "ioremap"; vm_map_ram blocks have
 * no caller.  Lazily freed areas ("unpurged vm_area") are not live.
 */
#ifndef VMAPSCOPE_TOP_LIVE_H
#define VMAPSCOPE_TOP_LIVE_H

#include <stdio.h>

#include "top_model.h"

#define TOP_VMALLOCINFO	"/proc/vmallocinfo"

/*
 * Parse f into one struct top_live per (caller symbol, api), sorted by
 * symbol then api; *out is malloc'ed (free() it).  Returns the number of
 * entries, or a negative errno.
 */
long top_live_parse(FILE *f, struct top_live **out);

/*
 * Read path (NULL: /proc/vmallocinfo, mode 0400: root only).  Returns the
 * number of entries, or a negative errno with why set
 * ("live: /proc/vmallocinfo: Permission denied").
 */
long top_live_read(const char *path, struct top_live **out, char *why, size_t whylen);

#endif /* VMAPSCOPE_TOP_LIVE_H */
