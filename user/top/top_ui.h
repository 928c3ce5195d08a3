/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmaptop's ncurses screen: the full-screen loop over a data source,
 * driving the key state machine and view of top_keys.h.
 */
#ifndef VMAPSCOPE_TOP_UI_H
#define VMAPSCOPE_TOP_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "top_keys.h"

/*
 * Where the interactive and batch loops get data: sample() takes a new
 * sample and rebuilds tab (cumulative: totals since start).
 */
struct top_source {
	void *ctx;
	int (*sample)(void *ctx, struct top_table *tab, bool cumulative);
};

/*
 * Interactive full-screen loop on the terminal term (the stream behind
 * standard output) until 'q' (or iterations refreshes if > 0).  delay_s
 * between refreshes.  Returns 0, or a negative errno from sample() /
 * terminal setup with a message in errbuf.  With noclear, the last frame
 * is printed to stdout as text after the screen is left.
 */
int top_ui_run(const struct top_source *src, struct top_ui *ui, FILE *term, double delay_s,
	       long iterations, bool noclear, char *errbuf, size_t errlen);

#endif /* VMAPSCOPE_TOP_UI_H */
