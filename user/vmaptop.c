// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptop: a top-style live view of vmalloc / vmap / ioremap activity,
 * one row per (caller, API).  Data: the vmapstat collector (collector.h)
 * and /proc/vmallocinfo; model: top_model.c; text: top_format.c;
 * screen: top_ui.c.  See docs/vmaptop.md.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "collector.h"
#include "parse.h"
#include "select_opts.h"
#include "top_live.h"
#include "top_model.h"
#include "top_ui.h"

#define MAX_DELAY_S	3600.0

static struct env {
	struct select_opts sel;	/* what is traced: select_opts.h, shared with vmapstat */
	double delay_s;
	long iterations;	/* 0 = until quit */
	bool batch;
	bool noclear;
	bool cumulative;
	bool reverse;
	bool live;
	bool live_rows;
	enum top_col sort;
	const char *filter;
} env = {
	.delay_s = 1.0,
	.sort = TOP_COL_BYTES,
	.live = true,
};

static const char doc[] =
"vmaptop: live per-caller view of vmalloc/vmap/ioremap mappings.\n"
"\n"
"One row per caller and API: mappings/s, bytes/s, share of bytes per mapping\n"
"granule, mean pages per mapping call, the share of calls that fell back to\n"
"a smaller granule, mapping latency p50/p99 (with --call-latency call\n"
"latency, with --lifetime the median lifetime), live areas and bytes.\n"
"Columns the running kernel cannot provide show n/a, with the reason above\n"
"the table.  Keys: m b c a l L k 1-4 v V < > sort, r reverse, / filter,\n"
"z totals, p pause, h help, q quit.\n"
"\n"
"EXAMPLES:\n"
"    vmaptop                 # full screen, refresh every second\n"
"    vmaptop -d 5 -s p99     # every 5 s, slowest callers first\n"
"    vmaptop -b -n 3         # three plain-text frames, e.g. into a file\n"
"    vmaptop -b -z -n 1 -d 10 -f test_vmalloc  # totals over 10 s\n"
"\v"
"Exit status: 0 success; 1 runtime error (not root, no BTF, no usable terminal,\n"
"a write to standard output); 2 usage error.\n"
"Documentation: man vmaptop, docs/vmaptop.md in the vmapscope repository.";

enum { OPT_NO_LIVE = 0x100, OPT_NO_CLEAR, OPT_ALL };

static const struct argp_option opts[] = {
	{ "delay", 'd', "SEC", 0, "Refresh every SEC seconds (default 1; decimals allowed)" },
	{ "batch", 'b', NULL, 0, "Plain-text output, no terminal control (pipes, scripts)" },
	{ "iterations", 'n', "N", 0, "Stop after N refreshes (default: until q / Ctrl-C)" },
	{ "no-clear", OPT_NO_CLEAR, NULL, 0, "Never clear: batch frames follow each other even on a "
	  "terminal; the full-screen view leaves its last frame printed on exit" },
	{ "sort", 's', "COL", 0, NULL },	/* help_filter(): the column names */
	{ "reverse", 'R', NULL, 0, "Reverse the sort order" },
	{ "filter", 'f', "PATTERN", 0, "Show only rows whose caller or API contains PATTERN "
	  "(case-insensitive; the / key's filter)" },
	{ "cumulative", 'z', NULL, 0, "Totals since start instead of rates per interval" },
	{ "all", OPT_ALL, NULL, 0, "Also list callers that only have live areas in "
	  "/proc/vmallocinfo (no mapping seen since start)" },
	{ "no-live", OPT_NO_LIVE, NULL, 0, "Do not read /proc/vmallocinfo (no LIVE/AREAS)" },
	CLI_HELP_OPTION,
	CLI_VERSION_OPTION,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	unsigned long l;
	int c;

	switch (key) {
	case ARGP_KEY_INIT:
		/* the one child, select_argp, fills env.sel */
		state->child_inputs[0] = &env.sel;
		break;
	case 'd':
		if (cli_parse_interval(arg, MAX_DELAY_S, &env.delay_s))
			argp_error(state, "invalid delay '%s': want seconds in [0.1, 3600]", arg);
		break;
	case 'n':
		if (parse_ulong(arg, LONG_MAX, &l) || !l)
			argp_error(state, "invalid iteration count '%s': want a positive integer", arg);
		else
			env.iterations = l;
		break;
	case 'b':
		env.batch = true;
		break;
	case OPT_NO_CLEAR:
		env.noclear = true;
		break;
	case 's':
		c = top_col_parse(arg);
		if (c < 0)
			argp_error(state, "unknown sort column '%s'", arg);
		else
			env.sort = c;
		break;
	case 'R':
		env.reverse = true;
		break;
	case 'f':
		if (!*arg || strlen(arg) >= sizeof(((struct top_view *)0)->filter))
			argp_error(state, "invalid filter '%s': want 1 to 63 characters", arg);
		env.filter = arg;
		break;
	case 'z':
		env.cumulative = true;
		break;
	case OPT_ALL:
		env.live_rows = true;
		break;
	case OPT_NO_LIVE:
		env.live = false;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- the data source: collector snapshots + vmallocinfo --------------- */

struct source_ctx {
	struct collector *col;
	struct vmapscope_sample prev;	/* cumulative */
	bool have_prev;
	struct timespec start;
	char live_why[256];
	bool live_warned;
};

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) / 1e9;
}

static int source_sample(void *ctxp, struct top_table *tab, bool cumulative)
{
	struct source_ctx *ctx = ctxp;
	struct vmapscope_sample cur, delta = { 0 };
	struct top_live *live = NULL;
	struct top_avail avail;
	const char *live_why = NULL;
	long nr_live = 0;
	int err;

	err = collector_read(ctx->col, &cur);
	if (err)
		return err;
	if (ctx->have_prev) {
		err = sample_delta(&cur, &ctx->prev, &delta);
		if (err) {
			sample_free(&cur);
			return err;
		}
	}
	/* a cumulative snapshot covers the time since the collector attached */
	cur.interval_s = ts_diff(&cur.mono, &ctx->start);

	if (!env.live) {
		live_why = "live: not requested (--no-live)";
	} else {
		nr_live = top_live_read(NULL, &live, ctx->live_why, sizeof(ctx->live_why));
		if (nr_live < 0) {
			live_why = ctx->live_why;
			nr_live = 0;
		}
	}
	top_avail_from_sample(&avail, &cur, live_why);
	err = top_table_build(tab, &cur, ctx->have_prev ? &delta : NULL, &avail, live,
			      (size_t)nr_live, cumulative, env.live_rows);
	free(live);
	sample_free(&delta);
	if (ctx->have_prev)
		sample_free(&ctx->prev);
	ctx->prev = cur;
	ctx->have_prev = true;
	return err;
}

/* ---- batch mode --------------------------------------------------------- */

static volatile sig_atomic_t batch_stop;

static void on_batch_signal(int sig)
{
	batch_stop = 1;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9) };

	/* a signal cuts the sleep short; the loop then sees batch_stop */
	nanosleep(&ts, NULL);
}

static int run_batch(const struct top_source *src, struct top_ui *ui)
{
	struct top_table tab = { 0 };
	bool clear = isatty(STDOUT_FILENO) && !env.noclear;
	struct sigaction sa = { .sa_handler = on_batch_signal };
	long i;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* the baseline sample: rates need two */
	err = src->sample(src->ctx, &tab, ui->cumulative);
	for (i = 0; !err && !batch_stop && (!env.iterations || i < env.iterations); i++) {
		sleep_s(env.delay_s);
		if (batch_stop)
			break;
		err = src->sample(src->ctx, &tab, ui->cumulative);
		if (err)
			break;
		if (clear)
			fputs("\033[H\033[2J", stdout);
		top_print_batch(stdout, &tab, &ui->view, tab.wall);
		/* a frame that did not reach stdout ends the run */
		if (cli_stdout_check()) {
			top_table_free(&tab);
			return EXIT_RUNTIME;
		}
	}
	top_table_free(&tab);
	if (err)
		fprintf(stderr, "vmaptop: reading the collector: %s\n", strerror(-err));
	return err ? EXIT_RUNTIME : 0;
}

/* The sort keys' help lists every column, as top_col_parse() knows them. */
static char *help_filter(int key, const char *text, void *input)
{
	char buf[512];
	size_t off;
	int c;

	if (key != 's')
		return (char *)text;
	off = snprintf(buf, sizeof(buf), "Sort by COL:");
	for (c = 0; c < TOP_COL_MAX && off < sizeof(buf); c++)
		off += snprintf(buf + off, sizeof(buf) - off, " %s", top_col_name(c));
	if (off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, " (default %s)", top_col_name(TOP_COL_BYTES));
	return strdup(buf);
}

int main(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &select_argp, 0, "What to trace (vmapstat takes the same):", 1 },
		{ 0 },
	};
	static const struct argp argp = {
		.options = opts, .parser = parse_arg, .doc = doc, .children = children,
		.help_filter = help_filter,
	};
	struct source_ctx ctx = { 0 };
	struct top_source src = { .ctx = &ctx, .sample = source_sample };
	struct top_ui ui;
	char errbuf[512] = "";
	int err, ret;

	cli_init("vmaptop");
	cli_parse(&argp, argc, argv, NULL);
	/* a valid command line that cannot run here: a runtime error */
	if (!env.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "vmaptop: the full-screen view needs a terminal; use -b for text\n");
		return EXIT_RUNTIME;
	}

	err = collector_open(&env.sel.col, &ctx.col, errbuf, sizeof(errbuf));
	if (err) {
		fprintf(stderr, "vmaptop: %s\n", errbuf[0] ? errbuf : strerror(-err));
		return EXIT_RUNTIME;
	}
	clock_gettime(CLOCK_MONOTONIC, &ctx.start);

	top_ui_init(&ui, env.sort, env.reverse, env.filter, env.cumulative);
	/* the n/a lines' em dash, only where the terminal's character set has it */
	setlocale(LC_CTYPE, "");
	ui.view.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	if (env.batch) {
		ret = run_batch(&src, &ui);
	} else {
		/*
		 * ncurses writes multibyte text (the n/a lines' em dash) only in
		 * the terminal's locale; numbers keep the C locale's format.
		 */
		setlocale(LC_ALL, "");
		setlocale(LC_NUMERIC, "C");
		err = top_ui_run(&src, &ui, cli_fd_stdout(), env.delay_s, env.iterations,
				 env.noclear, errbuf, sizeof(errbuf));
		if (err)
			fprintf(stderr, "vmaptop: %s\n", errbuf);
		ret = err ? EXIT_RUNTIME : 0;
	}
	if (ctx.have_prev)
		sample_free(&ctx.prev);
	collector_close(ctx.col);
	return ret;
}
