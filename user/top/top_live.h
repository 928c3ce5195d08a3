/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live vmalloc areas per caller, from /proc/vmallocinfo: the "LIVE" and
 * "AREAS" columns of vmaptop.  The BPF collector counts mapping events
 * since it attached; only vmallocinfo knows what is mapped right now.
 *
 * Lines are parsed by vmallocinfo_parse_line() (user/snapshot/snapshot.h), which
 * gives the caller as "func+0x1a [module]" (%pS without "/0xlen") and the
 * API from the flags.  The size is the area's (it includes the guard
 * page); vm_map_ram blocks have no caller; lazily freed areas ("unpurged
 * vm_area") are not live.  Addresses are not needed here, so hashed or
 * zeroed ones (kptr_restrict) do not matter.
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
