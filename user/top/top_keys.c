// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop: key handling, view application and batch printing (top_keys.h).
 * Nothing here draws on a terminal, so all of it is unit-tested; the
 * ncurses screen lives in top_ui.c.
 */
#include <curses.h>	/* KEY_* codes only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top_keys.h"

void top_ui_init(struct top_ui *ui, enum top_col sort, bool reverse, const char *filter,
		 bool cumulative)
{
	memset(ui, 0, sizeof(*ui));
	ui->view.sort = sort;
	ui->view.reverse = reverse;
	if (filter)
		snprintf(ui->view.filter, sizeof(ui->view.filter), "%s", filter);
	ui->cumulative = cumulative;
}

static int edit_key(struct top_ui *ui, int key)
{
	switch (key) {
	case '\n': case '\r': case KEY_ENTER:
		memcpy(ui->view.filter, ui->edit, sizeof(ui->view.filter));
		ui->editing = false;
		return TOP_ACT_REDRAW;
	case 27:	/* Esc */
		ui->editing = false;
		return TOP_ACT_REDRAW;
	case KEY_BACKSPACE: case 127: case 8:
		if (ui->edit_len)
			ui->edit[--ui->edit_len] = 0;
		return TOP_ACT_REDRAW;
	case 21:	/* ^U: clear the line, as in a shell */
		ui->edit_len = 0;
		ui->edit[0] = 0;
		return TOP_ACT_REDRAW;
	}
	if (key >= 32 && key < 127 && ui->edit_len + 1 < sizeof(ui->edit)) {
		ui->edit[ui->edit_len++] = (char)key;
		ui->edit[ui->edit_len] = 0;
		return TOP_ACT_REDRAW;
	}
	return TOP_ACT_NONE;
}

static int sort_by(struct top_ui *ui, enum top_col col)
{
	ui->view.sort = col;
	return TOP_ACT_REDRAW;
}

int top_ui_key(struct top_ui *ui, int key)
{
	if (ui->editing)
		return edit_key(ui, key);
	if (ui->help && key != KEY_RESIZE) {
		/* any key leaves the help screen; q still quits */
		ui->help = false;
		if (key != 'q' && key != 'Q')
			return TOP_ACT_REDRAW;
	}
	switch (key) {
	case 'q': case 'Q':
		ui->quit = true;
		return TOP_ACT_QUIT;
	case 'm': case 'M': return sort_by(ui, TOP_COL_MAPS);
	case 'b': case 'B': return sort_by(ui, TOP_COL_BYTES);
	case 'c': case 'C': return sort_by(ui, TOP_COL_CALLER);
	case 'a': case 'A': return sort_by(ui, TOP_COL_API);
	case 'l': return sort_by(ui, TOP_COL_P99);
	case 'L': return sort_by(ui, TOP_COL_P50);
	case 'k': case 'K': return sort_by(ui, TOP_COL_CHUNK);
	case '1': return sort_by(ui, TOP_COL_G_PTE);
	case '2': return sort_by(ui, TOP_COL_G_CONT);
	case '3': return sort_by(ui, TOP_COL_G_PMD);
	case '4': return sort_by(ui, TOP_COL_G_PUD);
	case 'v': return sort_by(ui, TOP_COL_LIVE_BYTES);
	case 'V': return sort_by(ui, TOP_COL_LIVE_AREAS);
	case '<': case KEY_LEFT:
		if (ui->view.sort > 0)
			ui->view.sort--;
		return TOP_ACT_REDRAW;
	case '>': case KEY_RIGHT:
		if (ui->view.sort + 1 < TOP_COL_MAX)
			ui->view.sort++;
		return TOP_ACT_REDRAW;
	case 'r': case 'R':
		ui->view.reverse = !ui->view.reverse;
		return TOP_ACT_REDRAW;
	case '/': case 'f': case 'F':
		ui->editing = true;
		memcpy(ui->edit, ui->view.filter, sizeof(ui->edit));
		ui->edit_len = strlen(ui->edit);
		return TOP_ACT_REDRAW;
	case 'p': case 'P': case ' ':
		ui->view.paused = !ui->view.paused;
		return TOP_ACT_REDRAW;
	case 'z': case 'Z':
		ui->cumulative = !ui->cumulative;
		return TOP_ACT_REBUILD | TOP_ACT_REDRAW;
	case 'h': case 'H': case '?':
		ui->help = true;
		return TOP_ACT_REDRAW;
	case 12:	/* ^L */
	case KEY_RESIZE:
		return TOP_ACT_REDRAW;
	}
	return TOP_ACT_NONE;
}

int top_view_apply(const struct top_table *full, const struct top_view *view,
		   struct top_table *shown)
{
	struct top_row *rows = shown->rows;
	size_t cap = shown->cap;

	if (full->nr > cap) {
		rows = realloc(rows, full->nr * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		cap = full->nr;
	}
	*shown = *full;
	shown->rows = rows;
	shown->cap = cap;
	if (full->nr)
		memcpy(rows, full->rows, full->nr * sizeof(*rows));
	top_table_filter(shown, view->filter);
	top_table_sort(shown, view->sort, view->reverse);
	return 0;
}

void top_print_batch(FILE *out, const struct top_table *full, const struct top_view *view,
		     time_t now)
{
	struct top_table shown = { 0 };
	struct top_layout lo;
	char lines[16][TOP_LINE_MAX];
	char *buf;
	size_t i, len;
	int n, l;

	if (top_view_apply(full, view, &shown)) {
		fprintf(out, "vmaptop: out of memory\n");
		return;
	}
	top_layout_make(&lo, &shown, 0);
	n = top_fmt_summary(lines, 16, &shown, view, now, shown.nr);
	for (l = 0; l < n; l++)
		fprintf(out, "%s\n", lines[l]);
	len = (size_t)lo.total + 2;
	buf = malloc(len);
	if (buf) {
		top_fmt_colhdr(buf, len, &lo, &shown);
		fprintf(out, "%s\n", buf);
		for (i = 0; i < shown.nr; i++) {
			top_fmt_row(buf, len, &lo, &shown, &shown.rows[i]);
			fprintf(out, "%s\n", buf);
		}
		free(buf);
	}
	fputc('\n', out);
	fflush(out);
	top_table_free(&shown);
}
