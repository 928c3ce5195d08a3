// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop interaction without a terminal: what each key does to the view,
 * the filter prompt, help, view application (filter + sort on a copy),
 * and the batch printer's text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "top_keys.h"

static int keys(struct top_ui *ui, const char *s)
{
	int act = 0;

	while (*s)
		act |= top_ui_key(ui, (unsigned char)*s++);
	return act;
}

static void test_sort_keys(void **state)
{
	struct top_ui ui;

	top_ui_init(&ui, TOP_COL_BYTES, false, NULL, false);
	assert_int_equal(top_ui_key(&ui, 'm'), TOP_ACT_REDRAW);
	assert_int_equal(ui.view.sort, TOP_COL_MAPS);
	keys(&ui, "l");
	assert_int_equal(ui.view.sort, TOP_COL_P99);
	keys(&ui, "L");
	assert_int_equal(ui.view.sort, TOP_COL_P50);
	keys(&ui, "c");
	assert_int_equal(ui.view.sort, TOP_COL_CALLER);
	keys(&ui, "3");
	assert_int_equal(ui.view.sort, TOP_COL_G_PMD);
	keys(&ui, "k");
	assert_int_equal(ui.view.sort, TOP_COL_CHUNK);
	keys(&ui, "v");
	assert_int_equal(ui.view.sort, TOP_COL_LIVE_BYTES);
	/* < and > walk the columns and stop at the ends */
	keys(&ui, "c<<");
	assert_int_equal(ui.view.sort, TOP_COL_CALLER);
	keys(&ui, ">>");
	assert_int_equal(ui.view.sort, TOP_COL_MAPS);
	top_ui_key(&ui, KEY_RIGHT);
	assert_int_equal(ui.view.sort, TOP_COL_BYTES);
	keys(&ui, "v>>>");
	assert_int_equal(ui.view.sort, TOP_COL_MAX - 1);
	assert_false(ui.view.reverse);
	keys(&ui, "r");
	assert_true(ui.view.reverse);
	keys(&ui, "r");
	assert_false(ui.view.reverse);
	/* unknown keys do nothing */
	assert_int_equal(top_ui_key(&ui, 'x'), TOP_ACT_NONE);
}

static void test_filter_prompt(void **state)
{
	struct top_ui ui;

	top_ui_init(&ui, TOP_COL_BYTES, false, "old", false);
	assert_string_equal(ui.view.filter, "old");
	keys(&ui, "/");
	assert_true(ui.editing);
	assert_string_equal(ui.edit, "old");	/* starts from the current filter */
	top_ui_key(&ui, 21);			/* ^U */
	keys(&ui, "testq");			/* q is text while editing */
	assert_false(ui.quit);
	top_ui_key(&ui, KEY_BACKSPACE);
	assert_string_equal(ui.edit, "test");
	assert_string_equal(ui.view.filter, "old");	/* not applied yet */
	top_ui_key(&ui, '\n');
	assert_false(ui.editing);
	assert_string_equal(ui.view.filter, "test");
	/* Esc cancels */
	keys(&ui, "fzzz");
	top_ui_key(&ui, 27);
	assert_false(ui.editing);
	assert_string_equal(ui.view.filter, "test");
	/* an empty filter clears it */
	keys(&ui, "/");
	top_ui_key(&ui, 21);
	top_ui_key(&ui, KEY_ENTER);
	assert_string_equal(ui.view.filter, "");
	/* the prompt cannot overflow */
	keys(&ui, "/");
	for (int i = 0; i < 200; i++)
		top_ui_key(&ui, 'a');
	assert_int_equal(strlen(ui.edit), sizeof(ui.edit) - 1);
}

static void test_pause_mode_help_quit(void **state)
{
	struct top_ui ui;

	top_ui_init(&ui, TOP_COL_BYTES, false, NULL, false);
	keys(&ui, " ");
	assert_true(ui.view.paused);
	keys(&ui, "p");
	assert_false(ui.view.paused);
	assert_int_equal(top_ui_key(&ui, 'z'), TOP_ACT_REBUILD | TOP_ACT_REDRAW);
	assert_true(ui.cumulative);
	keys(&ui, "h");
	assert_true(ui.help);
	/* any key leaves help without acting... */
	keys(&ui, "m");
	assert_false(ui.help);
	assert_int_equal(ui.view.sort, TOP_COL_BYTES);
	/* ...a resize keeps it */
	keys(&ui, "?");
	top_ui_key(&ui, KEY_RESIZE);
	assert_true(ui.help);
	/* q quits, from help too */
	assert_int_equal(top_ui_key(&ui, 'q'), TOP_ACT_QUIT);
	assert_true(ui.quit);
}

static void make_full(struct top_table *t)
{
	static const char *const syms[] = { "zeta_map+0x1/0x2", "alpha_alloc+0x1/0x2",
					     "mid_ioremap+0x1/0x2" };
	int n;
	size_t i;

	memset(t, 0, sizeof(*t));
	for (n = 0; n < TOP_NEED_MAX; n++)
		t->avail.have[n] = true;
	t->avail.shift[TOP_G_PTE] = 12;
	t->avail.shift[TOP_G_PMD] = 21;
	t->avail.shift[TOP_G_PUD] = 30;
	t->maps_src = TOP_MAPS_CALLS;
	t->bytes_src = TOP_BYTES_MAPPED;
	t->nr = t->cap = 3;
	t->rows = calloc(3, sizeof(*t->rows));
	for (i = 0; i < 3; i++) {
		struct top_row *r = &t->rows[i];

		snprintf(r->sym, sizeof(r->sym), "%s", syms[i]);
		r->api = i == 2 ? VMAPSCOPE_API_IOREMAP : VMAPSCOPE_API_VMALLOC;
		r->bytes_rate = 1000.0 * (double)(i + 1);
		r->maps_rate = 3.0 - (double)i;
		r->share[TOP_G_PTE] = 1;
		r->share[TOP_G_PMD] = r->share[TOP_G_PUD] = 0;
		r->chunk_mean = 1;
		r->pct_ns[TOP_PCT_P50] = r->pct_ns[TOP_PCT_P99] = 1000;
		r->live_areas = 1;
		r->live_bytes = 4096;
	}
}

static void test_view_apply_copies(void **state)
{
	struct top_table full, shown = { 0 };
	struct top_view view = { .sort = TOP_COL_BYTES };

	make_full(&full);
	assert_int_equal(top_view_apply(&full, &view, &shown), 0);
	assert_int_equal(shown.nr, 3);
	assert_string_equal(shown.rows[0].sym, "mid_ioremap+0x1/0x2");
	/* the full table keeps its order and rows */
	assert_string_equal(full.rows[0].sym, "zeta_map+0x1/0x2");

	view.sort = TOP_COL_MAPS;
	snprintf(view.filter, sizeof(view.filter), "ALPHA");	/* case-insensitive */
	assert_int_equal(top_view_apply(&full, &view, &shown), 0);
	assert_int_equal(shown.nr, 1);
	assert_string_equal(shown.rows[0].sym, "alpha_alloc+0x1/0x2");
	assert_int_equal(full.nr, 3);

	snprintf(view.filter, sizeof(view.filter), "ioremap");	/* an API name */
	top_view_apply(&full, &view, &shown);
	assert_int_equal(shown.nr, 1);
	top_table_free(&shown);
	top_table_free(&full);
}

static void test_batch_text(void **state)
{
	struct top_table full;
	struct top_view view = { .sort = TOP_COL_CALLER };
	char *buf = NULL, *p, *hdr;
	size_t len = 0;
	FILE *f;

	make_full(&full);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	top_print_batch(f, &full, &view, 0);
	fclose(f);
	/* summary, then the column header, then the rows in sort order */
	assert_int_equal(strncmp(buf, "vmaptop ", 8), 0);
	hdr = strstr(buf, "\nCALLER");
	assert_non_null(hdr);
	p = strstr(hdr, "\nalpha_alloc+0x1/0x2 ");
	assert_non_null(p);
	assert_non_null(strstr(p, "\nmid_ioremap+0x1/0x2 "));
	assert_true(strstr(p, "\nmid_ioremap") < strstr(p, "\nzeta_map"));
	assert_non_null(strstr(buf, "ioremap"));
	/* no terminal control characters in batch output */
	assert_null(strchr(buf, '\033'));
	/* a blank line ends the frame */
	assert_int_equal(strcmp(buf + len - 2, "\n\n"), 0);
	free(buf);
	top_table_free(&full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_keys),
		cmocka_unit_test(test_filter_prompt),
		cmocka_unit_test(test_pause_mode_help_quit),
		cmocka_unit_test(test_view_apply_copies),
		cmocka_unit_test(test_batch_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
