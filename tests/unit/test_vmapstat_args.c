// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat argument errors: each bad command line exits 2 with exactly one
 * line on stderr and nothing on stdout, before any BPF is touched (so this
 * runs unprivileged).  Runs the built binary ($VMAPSTAT, set by
 * "make check-unit").
 */
#include <fcntl.h>
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

	argv[0] = (char *)binary();
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
			   "--snapshot and --listen exclude each other");
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
	assert_non_null(strstr(r.out, "\nbpf: vmapstat.bpf.c (CO-RE): raw_tp/vmap_chunk "));
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
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
