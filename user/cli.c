// SPDX-License-Identifier: GPL-2.0
/* The command-line conventions every tool shares (cli.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "printable.h"
#include "collector.h"

#ifndef VMAPSCOPE_GIT_DESCRIBE
#define VMAPSCOPE_GIT_DESCRIBE "unknown"
#endif

#if defined(__x86_64__)
#define BUILD_ARCH "x86_64"
#elif defined(__aarch64__)
#define BUILD_ARCH "arm64"
#else
#define BUILD_ARCH "unknown"
#endif

static const char *cli_tool = "vmapscope";
static bool stdout_reported;
static FILE *fd_stdout;		/* the C library's own stream on fd 1 */
static int stdout_errno;	/* why the first failed write to fd 1 failed */

int cli_parse_interval(const char *arg, double max_s, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(d) || d < CLI_MIN_INTERVAL_S || d > max_s)
		return -1;
	*out = d;
	return 0;
}

int cli_stdout_check(void)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		err = stdout_errno ? stdout_errno : errno ? errno : EIO;
	if (!err)
		return 0;
	if (!stdout_reported)
		fprintf(stderr, "%s: writing standard output: %s\n", cli_tool, strerror(err));
	stdout_reported = true;
	return EXIT_RUNTIME;
}

static void check_stdout_at_exit(void)
{
	if (cli_stdout_check())
		_exit(EXIT_RUNTIME);
}

/*
 * Every write to standard output goes through here, so that the errno
 * of a failed write is kept.  (With the C library's stdout it is lost
 * as soon as any code calls fflush(): a failed fflush drops the buffer
 * and leaves only the error flag.)
 */
static ssize_t fd1_write(void *cookie, const char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(STDOUT_FILENO, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!stdout_errno)
				stdout_errno = n < 0 ? errno : EIO;
			break;	/* short count: the stream's error flag */
		}
		done += n;
	}
	return done;
}

void cli_init(const char *tool)
{
	cookie_io_functions_t io = { .write = fd1_write };
	FILE *f;

	cli_tool = tool;
	fd_stdout = stdout;
	f = fopencookie(NULL, "w", io);
	if (f) {
		/* as the C library buffers fd 1: by line on a terminal */
		setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
		stdout = f;
	}
	atexit(check_stdout_at_exit);
}

FILE *cli_fd_stdout(void)
{
	return fd_stdout ? fd_stdout : stdout;
}

/* In the binary only when the snapshot was linked in. */
extern int snapshot_auditor_open() __attribute__((weak));

static void print_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "%s %s (vmapscope)\n", cli_tool, VMAPSCOPE_VERSION);
	fprintf(f, "build: %s (git describe)\n", VMAPSCOPE_GIT_DESCRIBE);
	fprintf(f, "arch: %s, libbpf %u.%u\n", BUILD_ARCH, libbpf_major_version(),
		libbpf_minor_version());
	collector_describe_bpf(f);
	if (snapshot_auditor_open)
		fprintf(f, "bpf: snapshot.bpf.c: the page-table walker of --snapshot and "
			"--live-bytes (syscall programs, run by BPF_PROG_RUN)\n");
}

void (*argp_program_version_hook)(FILE *stream, struct argp_state *state) = print_version;

void cli_version(struct argp_state *state)
{
	argp_program_version_hook(stdout, state);
	exit(0);
}

void cli_usage_error(const char *fmt, ...)
{
	char msg[1024], safe[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s (see %s --help)\n", cli_tool,
		printable(msg, safe, sizeof(safe)), cli_tool);
	exit(EXIT_USAGE);
}

static const struct argp *parse_root;	/* the tool's own root argp */
static FILE *parse_err;			/* argp's error text, of which we keep one line */
static FILE *real_stderr;		/* stderr while getopt's lines are caught */

/*
 * argp's help, without what argp leaves at the ends of lines: a group
 * whose last options are hidden ends in a line of spaces, wrapped text
 * in spaces.  No line ends in a blank, no two blank lines follow each
 * other.
 */
static void print_help(struct argp_state *state)
{
	char *text = NULL, *line, *end;
	size_t len = 0;
	bool blank = false;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK);
		return;
	}
	argp_state_help(state, m, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK);
	fclose(m);
	for (line = text; line && *line; line = end ? end + 1 : NULL) {
		size_t n;

		end = strchr(line, '\n');
		n = end ? (size_t)(end - line) : strlen(line);
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		if (!n && blank)
			continue;
		blank = !n;
		fprintf(stdout, "%.*s\n", (int)n, line);
	}
	free(text);
}

static error_t root_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = parse_err;
		break;
	case CLI_HELP_KEY:
		stderr = real_stderr;	/* a failed write is reported at exit */
		print_help(state);
		exit(0);
	case CLI_VERSION_KEY:
		stderr = real_stderr;
		cli_version(state);
	}
	return parse_root->parser ? parse_root->parser(key, arg, state) : ARGP_ERR_UNKNOWN;
}

void cli_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	struct argp root = *argp;
	char *buf = NULL, *gbuf = NULL, *nl, *first = NULL;
	FILE *getopt_err;
	size_t len = 0, glen = 0;
	int err;

	parse_root = argp;
	root.parser = root_parse;
	parse_err = open_memstream(&buf, &len);
	if (!parse_err) {
		fprintf(stderr, "%s: out of memory\n", cli_tool);
		exit(EXIT_RUNTIME);
	}
	/* messages name the tool, whatever path it was started by */
	argv[0] = (char *)cli_tool;
	/*
	 * ARGP_NO_EXIT: argp_error() returns, parsing goes on, and the first
	 * error is the one reported (later ones may follow from it).  getopt
	 * prints its own lines ("unrecognized option") to stderr: they are
	 * caught in a buffer of their own, so that the argument they quote
	 * is made printable like every other.
	 */
	real_stderr = stderr;
	getopt_err = open_memstream(&gbuf, &glen);
	if (getopt_err)
		stderr = getopt_err;
	err = argp_parse(&root, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, input);
	stderr = real_stderr;
	if (getopt_err)
		fclose(getopt_err);
	fclose(parse_err);
	parse_err = NULL;
	if (!err && (!buf || !*buf)) {
		/* not an error: whatever went to stderr goes there, made printable */
		for (char *line = gbuf, *end; line && *line; line = end ? end + 1 : NULL) {
			char safe[4096];

			end = strchr(line, '\n');
			if (end)
				*end = 0;
			fprintf(stderr, "%s\n", printable(line, safe, sizeof(safe)));
		}
		free(gbuf);
		free(buf);
		return;
	}
	/* argp's own message, or else getopt's ("unrecognized option"): its first line */
	if (buf && *buf && strncmp(buf, "Try ", 4))
		first = buf;
	else if (gbuf && *gbuf)
		first = gbuf;
	if (first) {
		char safe[4096];
		size_t n;

		/*
		 * The message ends where argp's "Try ..." begins, not at its
		 * first newline: an argument it quotes may hold one
		 */
		nl = strstr(first, "\nTry ");
		if (nl)
			*nl = 0;
		n = strlen(first);
		while (n && first[n - 1] == '\n')
			first[--n] = 0;
		fprintf(stderr, "%s (see %s --help)\n", printable(first, safe, sizeof(safe)),
			cli_tool);
	} else {
		fprintf(stderr, "%s: invalid arguments (see %s --help)\n", cli_tool, cli_tool);
	}
	free(gbuf);
	free(buf);
	exit(EXIT_USAGE);
}
