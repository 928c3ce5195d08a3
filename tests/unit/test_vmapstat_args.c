// SPDX-License-Identifier: GPL-2.0
/*
 * The command lines of vmapstat and vmaptop: the shared selection options
 * (select_opts.h) parsed in process, and argument errors of the built
 * binaries ($VMAPSTAT, set by "make check-unit"; vmaptop beside it): each
 * bad command line exits 2 with exactly one line on stderr and nothing on
 * stdout, before any BPF is touched (so this runs unprivileged).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse.h"
#include "select_opts.h"
#include "vocab.h"

struct result {
	int status;
	char out[8192];
	char err[8192];
};

static const char *binary(void)
{
	const char *b = getenv("VMAPSTAT");

	return b ? b : "out/x86_64/bin/vmapstat";
}

static const char *tool;	/* the binary run(): binary() unless set */

/* vmaptop, built beside vmapstat */
static const char *vmaptop_binary(void)
{
	static char path[4096];
	const char *b = binary(), *slash = strrchr(b, '/');

	snprintf(path, sizeof(path), "%.*svmaptop", slash ? (int)(slash - b + 1) : 0, b);
	return path;
}

static void slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = 0;
}

static void run(struct result *res, const char *const *args)
{
	char *argv[32];
	int out[2], err[2], i;
	pid_t pid;

	argv[0] = (char *)(tool ? tool : binary());
	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execv(argv[0], argv);
		_exit(126);
	}
	close(out[1]);
	close(err[1]);
	slurp(out[0], res->out, sizeof(res->out));
	slurp(err[0], res->err, sizeof(res->err));
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &res->status, 0), pid);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void expect_usage_error(const char *const *args, const char *needle)
{
	struct result r;

	run(&r, args);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 2 ||
	    count_lines(r.err) != 1 || r.out[0] || (needle && !strstr(r.err, needle)))
		fail_msg("args '%s ...': status %d, stderr '%s', stdout '%s'",
			 args[0], r.status, r.err, r.out);
}

static void test_binary_exists(void **state)
{
	if (access(binary(), X_OK))
		fail_msg("%s not built", binary());
}

static void test_bad_options(void **state)
{
	expect_usage_error((const char *[]){ "--no-such-option", NULL }, "--no-such-option");
	expect_usage_error((const char *[]){ "-x", NULL }, "'x'");
	expect_usage_error((const char *[]){ "--api", "bogus", NULL }, "unknown API");
	/* arguments are quoted printable: no escape sequence reaches the terminal */
	expect_usage_error((const char *[]){ "--api", "\x1b[2J", NULL }, "'\\x1b[2J'");
	expect_usage_error((const char *[]){ "--no-such\x1b]0;x\x07", NULL },
			   "unrecognized option '--no-such\\x1b]0;x\\x07' (see vmapstat --help)");
	expect_usage_error((const char *[]){ "1\n2", NULL }, "invalid interval '1\\n2'");
	expect_usage_error((const char *[]){ "--api", "vmalloc,", NULL }, "unknown API");
	expect_usage_error((const char *[]){ "--pid", "12ab", NULL }, "invalid PID");
	expect_usage_error((const char *[]){ "--pid", "-5", NULL }, "invalid PID");
	expect_usage_error((const char *[]){ "--max-callers", "99999999999", NULL }, "max-callers");
	expect_usage_error((const char *[]){ "-c", "", NULL }, "empty caller");
}

static void test_bad_positionals(void **state)
{
	expect_usage_error((const char *[]){ "0", NULL }, "invalid interval");
	expect_usage_error((const char *[]){ "1s", NULL }, "invalid interval");
	expect_usage_error((const char *[]){ "nan", NULL }, "invalid interval");
	expect_usage_error((const char *[]){ "1", "0", NULL }, "invalid count");
	expect_usage_error((const char *[]){ "1", "2.5", NULL }, "invalid count");
	expect_usage_error((const char *[]){ "1", "2", "3", NULL }, "unexpected argument");
	expect_usage_error((const char *[]){ "--", NULL }, "no command");
	expect_usage_error((const char *[]){ "1", "--", "true", NULL }, "exclude");
}

/*
 * The same lower bound as vmaptop -d: no busy loop on a tiny interval.
 * (Each with a COUNT, so that a binary that accepts it still ends.)
 */
static void test_interval_bounds(void **state)
{
	expect_usage_error((const char *[]){ "1e-9", "1", NULL },
			   "invalid interval '1e-9' (seconds, 0.1 to 86400)");
	expect_usage_error((const char *[]){ "0.09", "3", NULL }, "invalid interval");
	expect_usage_error((const char *[]){ "-p", "0.05", "2", NULL }, "invalid interval");
	expect_usage_error((const char *[]){ "86401", "1", NULL }, "invalid interval");
}

/* --snapshot reads no tracing option: each is refused, naming both. */
static void test_snapshot_excludes(void **state)
{
	expect_usage_error((const char *[]){ "--snapshot", "--listen", "9100", NULL },
			   "--snapshot and --web.listen-address exclude each other");
	/* service mode: no report, nothing on stdout */
	expect_usage_error((const char *[]){ "--web.listen-address", "0", "-j", NULL },
			   "--web.listen-address without INTERVAL prints no report, only the metrics: "
			   "--json needs an INTERVAL");
	expect_usage_error((const char *[]){ "--listen", "0", "-p", NULL },
			   "--per-caller needs an INTERVAL");
	expect_usage_error((const char *[]){ "--listen", "0", "--prometheus", NULL },
			   "--prometheus needs an INTERVAL");
	expect_usage_error((const char *[]){ "--web.telemetry-path", "/m", NULL },
			   "--web.telemetry-path configures --web.listen-address: give both");
	expect_usage_error((const char *[]){ "--listen", "0", "--web.telemetry-path", "m", NULL },
			   "--web.telemetry-path 'm': a path such as /metrics");
	expect_usage_error((const char *[]){ "--textfile", "/tmp/vmapstat-test.prom", "--snapshot", NULL },
			   "--snapshot and --textfile exclude each other");
	expect_usage_error((const char *[]){ "--snapshot", "--pid", "1", NULL },
			   "--snapshot and --pid exclude each other");
	expect_usage_error((const char *[]){ "--snapshot", "--pmu", "task-clock", NULL },
			   "--snapshot and --pmu exclude each other");
	expect_usage_error((const char *[]){ "--snapshot", "--no-latency", NULL },
			   "--snapshot and --no-latency exclude each other");
	expect_usage_error((const char *[]){ "--snapshot", "-j", "-T", NULL },
			   "--snapshot and --timestamp exclude each other");
}

/* Every numeric option value: whole unsigned decimals up to a bound, nothing else. */
static void test_parse_ulong(void **state)
{
	static const char *const bad[] = {
		"", "-5", "+5", " 3", "3 ", "12ab", "0x10", "1e3", "18446744073709551616",
	};
	unsigned long v = 7;

	assert_int_equal(parse_ulong("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_ulong("10", 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_ulong("007", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(parse_ulong("11", 10, &v), -EINVAL);
	assert_int_equal(parse_ulong(NULL, 10, &v), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_ulong(bad[i], ULONG_MAX, &v) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(v, 7);	/* a refused value leaves the output alone */
}

/* Parse @argv (NULL-terminated, no program name) with select_argp alone into @s as it is. */
static int parse_select_into(struct select_opts *s, const char *const *args)
{
	static const struct argp_child children[] = { { &select_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp root = { .children = children };
	char *argv[16] = { "test" };
	int argc = 1;

	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	return argp_parse(&root, argc, argv, ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP |
			  ARGP_IN_ORDER, NULL, s);
}

/* The same into a zeroed @s. */
static int parse_select(struct select_opts *s, const char *const *args)
{
	memset(s, 0, sizeof(*s));
	return parse_select_into(s, args);
}

/*
 * The shared selection options fill the collector's settings directly, the
 * same way for every front end.
 */
static void test_select_parse(void **state)
{
	unsigned int i;
	struct select_opts s;
	const struct collector_opts *o = &s.col;

	assert_int_equal(parse_select(&s, (const char *[]){ "-c", "alloc", "--api", "vmap,ioremap",
				      "--pid", "42", "--max-callers", "4096", "-v", NULL }), 0);
	assert_string_equal(o->caller_filter, "alloc");
	assert_int_equal(o->api_mask, (1u << VMAPSCOPE_API_VMAP) | (1u << VMAPSCOPE_API_IOREMAP));
	assert_int_equal(o->pid, 42);
	assert_int_equal(o->max_callers, 4096);
	/* the default: one event per mapping call, with its mapping time */
	assert_true(o->verbose && !o->no_map_latency && !o->call_latency && !o->latency_all &&
		    !o->runs && !o->areas && !o->optin && !o->stack_callers);
	/* what the front end decides is not the selection's to change */
	s.col.track_areas = true;
	assert_int_equal(parse_select_into(&s, (const char *[]){ "--runs", NULL }), 0);
	assert_true(o->track_areas && o->runs);

	/* the long spellings and the latency switches */
	assert_int_equal(parse_select(&s, (const char *[]){ "--caller=x", "--stack-callers",
				      "--verbose", NULL }), 0);
	assert_string_equal(o->caller_filter, "x");
	assert_true(o->stack_callers && !o->call_latency);
	assert_int_equal(parse_select(&s, (const char *[]){ "--no-latency", NULL }), 0);
	assert_true(o->no_map_latency && !o->call_latency && !o->stack_callers);
	assert_int_equal(parse_select(&s, (const char *[]){ "--call-latency", "--runs", "--areas",
				      NULL }), 0);
	assert_true(o->call_latency && !o->latency_all && o->runs && o->areas && !o->optin &&
		    !o->no_map_latency);
	/* --lifetime is one of them, under that name */
	assert_int_equal(parse_select(&s, (const char *[]){ "--lifetime", NULL }), 0);
	assert_int_equal(o->optin, VMAPSCOPE_FEAT_BIT(VMAPSCOPE_FEAT_LIFETIME));
	/* each opt-in feature's option (feature_table.h) asks for that feature only */
	for (i = 0; i < nr_feature_optins; i++) {
		char opt[64];

		snprintf(opt, sizeof(opt), "--%s", feature_optins[i].option);
		assert_int_equal(parse_select(&s, (const char *[]){ opt, NULL }), 0);
		assert_int_equal(o->optin, VMAPSCOPE_FEAT_BIT(feature_optins[i].feat));
	}
	/* --latency-all extends the call latency, so it asks for it */
	assert_int_equal(parse_select(&s, (const char *[]){ "--latency-all", NULL }), 0);
	assert_true(o->call_latency && o->latency_all && !o->runs && !o->areas && !o->optin);

	/* a bad value leaves the field as it was */
	parse_select(&s, (const char *[]){ "--pid", "0", "--max-callers", "15", NULL });
	assert_int_equal(o->pid, 0);
	assert_int_equal(o->max_callers, 0);
}

/*
 * One option layer: vmaptop refuses a bad selection option with the same
 * line as vmapstat, but for the tool's name.
 */
static void test_same_errors_both_tools(void **state)
{
	static const char *const cases[][4] = {
		{ "--api", "bogus", NULL },
		{ "--pid", "12ab", NULL },
		{ "-c", "", NULL },
		{ "--max-callers", "3", NULL },
		{ "--no-latency", "--latency-all", NULL },
		{ "--stack-callers", "--latency-all", NULL },
		{ "--stack-callers", "--call-latency", NULL },
	};
	struct result a, b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tool = NULL;
		expect_usage_error(cases[i], NULL);
		run(&a, cases[i]);
		tool = vmaptop_binary();
		expect_usage_error(cases[i], NULL);
		run(&b, cases[i]);
		tool = NULL;
		assert_true(!strncmp(a.err, "vmapstat: ", 10) && !strncmp(b.err, "vmaptop: ", 9));
		/* the same words, up to the tool's own "(see TOOL --help)" */
		assert_non_null(strstr(a.err, " (see vmapstat --help)\n"));
		assert_non_null(strstr(b.err, " (see vmaptop --help)\n"));
		assert_int_equal(strstr(a.err, " (see ") - (a.err + 10), strstr(b.err, " (see ") - (b.err + 9));
		assert_memory_equal(a.err + 10, b.err + 9, strstr(a.err, " (see ") - (a.err + 10));
	}
}

/*
 * The letters as docs/vmapstat.md's "Changed options" lists them: each
 * letter means one thing in both tools, and the old ones are refused.
 */
static void test_letters(void **state)
{
	/* -r is perf stat's --repeat (it then wants --pmu) */
	expect_usage_error((const char *[]){ "-r", "2", "--", "true", NULL },
			   "--repeat tabulates --pmu counts");
	/* -n was nanoseconds: --nanoseconds now; vmaptop's -n is its iteration count */
	expect_usage_error((const char *[]){ "-n", "1", NULL }, "'n'");
	tool = vmaptop_binary();
	expect_usage_error((const char *[]){ "-b", "-n", "0", NULL }, "invalid iteration count");
	/* vmaptop: -p (PID), -C (no clear), -r (reverse), -a (all) are gone */
	expect_usage_error((const char *[]){ "-b", "-p", "1", NULL }, "'p'");
	expect_usage_error((const char *[]){ "-b", "-C", NULL }, "'C'");
	expect_usage_error((const char *[]){ "-b", "-r", NULL }, "'r'");
	expect_usage_error((const char *[]){ "-b", "-a", NULL }, "'a'");
	expect_usage_error((const char *[]){ "-b", "-f", "", NULL }, "invalid filter");
	expect_usage_error((const char *[]){ "-b", "extra", NULL }, "unexpected argument 'extra'");
	tool = NULL;
}

static void test_help(void **state)
{
	struct result r;

	run(&r, (const char *[]){ "--help", NULL });
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	assert_non_null(strstr(r.out, "--per-caller"));
	assert_non_null(strstr(r.out, "-- COMMAND"));
	assert_string_equal(r.err, "");
	/* no address that does not exist; the docs instead */
	assert_null(strstr(r.out, "Report bugs"));
	assert_null(strstr(r.out, "http"));
	assert_non_null(strstr(r.out, "docs/vmapstat.md"));
	assert_non_null(strstr(r.out, "--version"));
}

static void test_version(void **state)
{
	struct result r;

	run(&r, (const char *[]){ "--version", NULL });
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0 || r.err[0])
		fail_msg("--version: status %d, stderr '%s'", r.status, r.err);
	assert_true(!strncmp(r.out, "vmapstat 0.", 11));
	/* the build ("unknown" outside git), the arch, the BPF programs in it */
	assert_non_null(strstr(r.out, "\nbuild: "));
	assert_non_null(strstr(r.out, "(git describe)\n"));
#if defined(__x86_64__)
	assert_non_null(strstr(r.out, "\narch: x86_64, libbpf "));
#elif defined(__aarch64__)
	assert_non_null(strstr(r.out, "\narch: arm64, libbpf "));
#endif
	assert_non_null(strstr(r.out, "\nbpf: vmapstat.bpf.c (CO-RE): "));
	assert_non_null(strstr(r.out, " raw_tp/vmap_mapped "));
	assert_non_null(strstr(r.out, "raw_tp/alloc_vmap_area"));
	assert_non_null(strstr(r.out, " fentry x"));
	assert_non_null(strstr(r.out, "\nbpf: snapshot.bpf.c: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_exists),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_bad_positionals),
		cmocka_unit_test(test_interval_bounds),
		cmocka_unit_test(test_snapshot_excludes),
		cmocka_unit_test(test_parse_ulong),
		cmocka_unit_test(test_select_parse),
		cmocka_unit_test(test_same_errors_both_tools),
		cmocka_unit_test(test_letters),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
