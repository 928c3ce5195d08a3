/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmaptop's keys: what a key does to the view (a pure state machine,
 * unit-tested without a terminal), the view applied to a table, and the
 * batch printer.  Nothing here draws on a terminal: the ncurses screen
 * (top_ui.h) is built on this, not the other way round.
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
#ifndef VMAPSCOPE_TOP_KEYS_H
#define VMAPSCOPE_TOP_KEYS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

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

#endif /* VMAPSCOPE_TOP_KEYS_H */
