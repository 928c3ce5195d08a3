/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmaptop text formatting: the same lines feed the batch output and the
 * ncurses screen, so what a test reads from a pipe is what a user sees.
 *
 * Every value fits its column: the number formatters never write more
 * than TOP_NUM_MAX characters (see top_format.c), the columns are at
 * least that wide, and a formatted row is exactly the layout's width.
 */
#ifndef VMAPSCOPE_TOP_FORMAT_H
#define VMAPSCOPE_TOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "top_model.h"

/* Longest output of top_fmt_count / top_fmt_bytes ("1023", "9.9K", "999M", "16E") */
#define TOP_NUM_MAX	5
/* Longest output of top_fmt_ns (">" + 5) */
#define TOP_NS_MAX	6

/* A terminal smaller than this shows a "too small" note instead of the table. */
#define TOP_MIN_COLS	40
#define TOP_MIN_LINES	6
/* The caller column never gets narrower than this on screen. */
#define TOP_CALLER_MIN	14

/* Cell shown when the kernel cannot provide a column at all. */
#define TOP_MISSING	"n/a"
/* Cell shown when the column exists but this row has no data for it. */
#define TOP_NODATA	"-"

/* Display state shared by batch and interactive modes. */
struct top_view {
	enum top_col sort;
	bool reverse;
	bool paused;
	char filter[64];
	bool ascii;			/* the terminal's character set is not UTF-8 */
};

/*
 * For a terminal that is not UTF-8 (the C locale): each em dash becomes
 * "-" and any other character outside ASCII "?", in place.
 */
void top_ascii(char *s);

struct top_layout {
	int nr;				/* visible columns */
	enum top_col col[TOP_COL_MAX];
	int width[TOP_COL_MAX];		/* by enum top_col; 0 = hidden */
	int total;			/* characters in a row */
};

/*
 * Choose columns and widths for a screen width (<= 0: unlimited, as in
 * batch mode, where the caller column is as wide as the longest symbol).
 * Columns the kernel cannot have at all (64K cont-PTE on x86) are left
 * out; on a narrow screen low-priority columns go first.  Returns 0, or
 * -1 when even the minimal layout does not fit.
 */
int top_layout_make(struct top_layout *lo, const struct top_table *tab, int width);

/* Column headers (e.g. "BYTES/s", "2M%"), padded to the layout. */
void top_fmt_colhdr(char *buf, size_t len, const struct top_layout *lo,
		    const struct top_table *tab);
/* One row, padded / truncated to exactly lo->total characters. */
void top_fmt_row(char *buf, size_t len, const struct top_layout *lo,
		 const struct top_table *tab, const struct top_row *r);
/*
 * The summary lines above the table: time, totals, drop counters, view
 * state, then one line per missing column ("n/a: granule: ...").
 * Returns the number of lines written (at most max).
 */
#define TOP_LINE_MAX	512
int top_fmt_summary(char (*lines)[TOP_LINE_MAX], int max, const struct top_table *tab,
		    const struct top_view *view, time_t now, size_t shown);

/* Number formatters; each returns buf. */
char *top_fmt_count(char *buf, size_t len, double v);	/* 0.5, 12, 1.2k, 45M */
char *top_fmt_bytes(char *buf, size_t len, double v);	/* 512, 4.0K, 1.5M, 2G */
char *top_fmt_ns(char *buf, size_t len, double ns, bool open);	/* 850ns, 12us, >34s */

#endif /* VMAPSCOPE_TOP_FORMAT_H */
