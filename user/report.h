/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmapstat output: text tables / log2 histograms and the JSON object per
 * interval (schema in docs/vmapstat.md).
 */
#ifndef VMAPSCOPE_REPORT_H
#define VMAPSCOPE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "rows.h"

struct report_opts {
	bool per_caller;	/* rows per (caller, api); else totals per api */
	bool timestamp;		/* -T: time line before each interval */
	const char *lat_unit;	/* "nsecs", "usecs", "msecs" */
	uint64_t lat_div;	/* 1, 1000, 1000000 */
};

/* One line per missing/partial column (feature why-lines) and kallsyms. */
void report_missing(FILE *f, const struct vmapscope_sample *s);

/* Text report of one interval (s = a delta, or a cumulative sample). */
void report_text(FILE *f, const struct vmapscope_sample *s,
		 const struct report_opts *o);

/* JSON object for one interval; caller puts it.  NULL on ENOMEM. */
struct json_object *report_json(const struct vmapscope_sample *s,
				const struct report_opts *o);

/*
 * Serialize completely, then write one line with a single fwrite and
 * fflush: a reader never sees half an object.  Returns 0 or -errno.
 */
int report_json_print(FILE *f, struct json_object *obj);

#endif /* VMAPSCOPE_REPORT_H */
