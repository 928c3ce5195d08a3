// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop full-screen view (ncurses).  All decisions (what a key does,
 * which rows, which columns, what text) are made in top_keys.c,
 * top_model.c and top_format.c; this file only puts lines on the screen
 * and waits for keys and the refresh deadline.
 */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top_ui.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const help_text[] = {
	"vmaptop keys",
	"",
	"  m  sort by mappings/s          b  sort by bytes/s",
	"  c  sort by caller              a  sort by API",
	"  l  sort by p99 latency         L  sort by p50 latency",
	"  k  sort by mean chunk length   1 2 3 4  sort by granule share column",
	"  v  sort by live bytes          V  sort by live areas",
	"  < >  sort by previous / next column      r  reverse the sort",
	"  /  filter on caller or API (Enter applies, Esc cancels, empty clears)",
	"  z  rates per interval <-> totals since start",
	"  p or space  pause / resume     q  quit",
	"",
	"n/a: the kernel lacks what the column needs (see the n/a lines)",
	"-  : no data for this row in this interval",
	"",
	"any key returns",
};

static void put_line(int y, int w, int h, const char *s, attr_t attr)
{
	/* the last cell of the last line cannot be written without scrolling */
	int n = (y == h - 1) ? w - 1 : w;

	if (y >= h || n <= 0)
		return;
	attrset(attr);
	mvaddnstr(y, 0, s, n);
	attrset(A_NORMAL);
}

static void draw(const struct top_table *full, struct top_table *shown, const struct top_ui *ui)
{
	char lines[16][TOP_LINE_MAX];
	struct top_layout lo;
	char *buf;
	int h, w, y = 0, n, i, x;
	size_t r, len;

	erase();
	getmaxyx(stdscr, h, w);
	if (h < TOP_MIN_LINES || w < TOP_MIN_COLS) {
		char msg[3][48];

		/* short lines, so that even a tiny terminal shows the gist */
		snprintf(msg[0], sizeof(msg[0]), "too small: %dx%d", w, h);
		snprintf(msg[1], sizeof(msg[1]), "need %dx%d", TOP_MIN_COLS, TOP_MIN_LINES);
		snprintf(msg[2], sizeof(msg[2]), "q quits");
		for (i = 0; i < h && i < 3; i++)
			put_line(i, w, h, msg[i], i ? A_NORMAL : A_BOLD);
		refresh();
		return;
	}
	if (ui->help) {
		for (i = 0; i < (int)(sizeof(help_text) / sizeof(help_text[0])); i++)
			put_line(i, w, h, help_text[i], i ? A_NORMAL : A_BOLD);
		refresh();
		return;
	}
	if (top_view_apply(full, &ui->view, shown)) {
		put_line(0, w, h, "vmaptop: out of memory", A_BOLD);
		refresh();
		return;
	}
	top_layout_make(&lo, shown, w);
	/* keep at least the column header and one row visible */
	/* the sample's time: a paused screen stays exactly as it was */
	n = top_fmt_summary(lines, h - 3 < 16 ? h - 3 : 16, shown, &ui->view, full->wall,
			    shown->nr);
	for (i = 0; i < n; i++)
		put_line(y++, w, h, lines[i], i ? A_NORMAL : A_BOLD);
	if (ui->editing) {
		snprintf(lines[0], TOP_LINE_MAX, "filter (caller or API): %s_", ui->edit);
		put_line(y++, w, h, lines[0], A_BOLD);
	}

	len = (size_t)(lo.total > w ? lo.total : w) + 2;
	buf = malloc(len);
	if (!buf) {
		refresh();
		return;
	}
	top_fmt_colhdr(buf, len, &lo, shown);
	/* reverse video across the whole width, like top's header bar */
	attrset(A_REVERSE);
	mvhline(y, 0, ' ', w);
	mvaddnstr(y, 0, buf, w);
	/* underline the sort column */
	for (i = 0, x = 0; i < lo.nr; i++) {
		if (lo.col[i] == ui->view.sort && x < w) {
			attrset(A_REVERSE | A_BOLD | A_UNDERLINE);
			mvaddnstr(y, x, buf + x, lo.width[lo.col[i]] < w - x ?
				  lo.width[lo.col[i]] : w - x);
		}
		x += lo.width[lo.col[i]] + 1;
	}
	attrset(A_NORMAL);
	y++;
	for (r = 0; r < shown->nr && y < h; r++) {
		top_fmt_row(buf, len, &lo, shown, &shown->rows[r]);
		put_line(y++, w, h, buf, shown->rows[r].active ? A_NORMAL : A_DIM);
	}
	free(buf);
	refresh();
}

int top_ui_run(const struct top_source *src, struct top_ui *ui, FILE *term, double delay_s,
	       long iterations, bool noclear, char *errbuf, size_t errlen)
{
	struct top_table full = { 0 }, shown = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	SCREEN *scr;
	double next;
	long done = 0;
	int err;

	/* no SA_RESTART: a signal wakes getch() and we restore the terminal */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	err = src->sample(src->ctx, &full, ui->cumulative);
	if (err) {
		snprintf(errbuf, errlen, "reading the collector: %s", strerror(-err));
		return err;
	}
	/* newterm, not initscr: initscr exits the process on a bad TERM */
	scr = newterm(NULL, term, stdin);
	if (!scr) {
		snprintf(errbuf, errlen, "cannot use the terminal (TERM=%s); try -b",
			 getenv("TERM") ? getenv("TERM") : "unset");
		top_table_free(&full);
		return -ENOTTY;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);

	next = now_s() + delay_s;
	draw(&full, &shown, ui);
	while (!ui->quit && !stop_signal) {
		double left = next - now_s();
		int key, act;

		if (left <= 0) {
			next += delay_s;
			if (next < now_s())	/* we fell behind (suspended?): resync */
				next = now_s() + delay_s;
			if (!ui->view.paused) {
				err = src->sample(src->ctx, &full, ui->cumulative);
				if (err) {
					snprintf(errbuf, errlen, "reading the collector: %s",
						 strerror(-err));
					break;
				}
				done++;
			}
			draw(&full, &shown, ui);
			if (iterations > 0 && done >= iterations)
				break;
			continue;
		}
		timeout((int)(left * 1000) + 1);
		key = getch();
		if (key == ERR)
			continue;
		act = top_ui_key(ui, key);
		if (act & TOP_ACT_QUIT)
			break;
		if (act & TOP_ACT_REBUILD) {
			err = src->sample(src->ctx, &full, ui->cumulative);
			if (err) {
				snprintf(errbuf, errlen, "reading the collector: %s",
					 strerror(-err));
				break;
			}
		}
		if (act)
			draw(&full, &shown, ui);
	}
	endwin();
	delscreen(scr);
	if (noclear && !err)
		top_print_batch(stdout, &full, &ui->view, full.wall);
	top_table_free(&full);
	top_table_free(&shown);
	return err;
}
