/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmaptop interaction: key handling (a pure state machine, unit-tested
 * without a terminal), the ncurses screen and the batch printer.
 *
 * Keys (also in docs/vmaptop.md and the 'h' help screen):
 *   m b  sort by maps/s, bytes/s      c a  sort by caller, api
 *   l L  sort by p99, p50 latency     k    sort by mean chunk length
 *   1-4  sort by granule share (4K, cont, PMD, PUD columns)
 *   v V  sort by live bytes, live areas
 *   < >  sort by the column left / right of the current one
 *   r    reverse the sort             /    filter (Enter applies, Esc cancels)
 *   z    interval <-> since-start     p, space  pause / resume
 *   h ?  help                         q    quit
 */
#ifndef VMAPSCOPE_TOP_UI_H
#define VMAPSCOPE_TOP_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "top_format.h"

struct top_ui {
	struct top_view view;
	bool cumulative;		/* 'z' */
	bool editing;			/* '/' prompt open */
	char edit[sizeof(((struct top_view *)0)->filter)];
	size_t edit_len;
	bool help;
	bool quit;
};

/* What a key asks of the main loop (bit mask). */
#define TOP_ACT_NONE	0
#define TOP_ACT_REDRAW	1	/* view changed: re-sort / re-filter and draw */
#define TOP_ACT_REBUILD	2	/* the table itself must be rebuilt (mode change) */
#define TOP_ACT_QUIT	4

void top_ui_init(struct top_ui *ui, enum top_col sort, bool reverse, const char *filter,
		 bool cumulative);
/* key: a character or an ncurses KEY_* code.  Returns TOP_ACT_* bits. */
int top_ui_key(struct top_ui *ui, int key);

/*
 * Copy the rows of full that pass the view's filter into shown, sorted.
 * Returns 0 or -ENOMEM.
 */
int top_view_apply(const struct top_table *full, const struct top_view *view,
		   struct top_table *shown);

/* Batch mode: one iteration as plain text (summary, column header, rows). */
void top_print_batch(FILE *out, const struct top_table *full, const struct top_view *view,
		     time_t when);

/*
 * Where the interactive and batch loops get data: sample() takes a new
 * sample and rebuilds tab (cumulative: totals since start).
 */
struct top_source {
	void *ctx;
	int (*sample)(void *ctx, struct top_table *tab, bool cumulative);
};

/*
 * Interactive full-screen loop until 'q' (or iterations refreshes if
 * > 0).  delay_s between refreshes.  Returns 0, or a negative errno from
 * sample() / terminal setup with a message in errbuf.  With noclear,
 * the last frame is printed to stdout as text after the screen is left.
 */
int top_ui_run(const struct top_source *src, struct top_ui *ui, double delay_s,
	       long iterations, bool noclear, char *errbuf, size_t errlen);

#endif /* VMAPSCOPE_TOP_UI_H */
