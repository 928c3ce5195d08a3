/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every vmapscope tool does the same way at its command line: the
 * exit codes, the interval bounds, the check that standard output was
 * really written, and --version.
 *
 * Exit codes (man/vmapstat.8, man/vmaptop.8, "EXIT STATUS"):
 *	0  success
 *	1  runtime error: the command line is valid, but this run failed
 *	   (not root, no BTF, no usable terminal, BPF load, map read,
 *	   a write to standard output)
 *	2  usage error: the command line itself is wrong, and would be
 *	   on any machine (unknown option, bad value, options that
 *	   exclude each other)
 */
#ifndef VMAPSCOPE_CLI_H
#define VMAPSCOPE_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define VMAPSCOPE_VERSION	"0.1"

/* Shortest interval / refresh delay any tool accepts, in seconds. */
#define CLI_MIN_INTERVAL_S	0.1

/*
 * Parse a number of seconds in [CLI_MIN_INTERVAL_S, max_s] (decimals
 * allowed).  0 or -1 (not a number, or out of range).
 */
int cli_parse_interval(const char *arg, double max_s, double *out);

/*
 * Name the tool (for messages) and make its exit status 1 when anything
 * written to standard output did not reach it, whatever path the process
 * exits by (main's return, exit() after --help or --version).  Call first
 * thing in main().
 */
void cli_init(const char *tool);

/*
 * After cli_init(), stdout is a stream that keeps the errno of a failed
 * write; this is the C library's original stream on file descriptor 1,
 * for code that needs the descriptor behind its FILE (ncurses).
 */
FILE *cli_fd_stdout(void);

/*
 * Flush standard output and check that every write to it so far
 * succeeded.  0, or EXIT_RUNTIME after one line on stderr:
 * "TOOL: writing standard output: <the write's errno>" (printed once per
 * process, however often this is called).  Call after each interval's
 * output: a tool stops at the first lost interval instead of running on.
 */
int cli_stdout_check(void);

/*
 * --version: argp's version hook (argp_program_version_hook, defined in
 * cli.c) prints the tool and vmapscope version, the build's
 * "git describe", the architecture it was built for, the libbpf it is
 * linked with and the BPF programs built into this binary.  The tools
 * parse with ARGP_NO_HELP (they print their own help), which also drops
 * argp's own --version, so each lists CLI_VERSION_OPTION in its options
 * and calls cli_version() for CLI_VERSION_KEY.
 */
#define CLI_VERSION_KEY		0x7601
#define CLI_VERSION_OPTION	{ "version", CLI_VERSION_KEY, NULL, 0, \
				  "Print the version, build and BPF programs, and exit", -1 }
void __attribute__((noreturn)) cli_version(struct argp_state *state);

/* -h, --help: the tool's help on standard output, exit 0 (cli_parse()). */
#define CLI_HELP_KEY		'h'
#define CLI_HELP_OPTION		{ "help", CLI_HELP_KEY, NULL, 0, "Show this help", -1 }

/*
 * Every tool's command line goes through here, so that a usage error
 * reads the same whichever tool, option group or check finds it: one
 * line on stderr, "TOOL: what is wrong (see TOOL --help)", and exit
 * status EXIT_USAGE.  argp reports into a buffer of which only the first
 * line is kept (its "Try ..." lines are noise in scripts); getopt's own
 * line for an unknown option or a missing value reaches stderr as getopt
 * writes it.  The root @argp lists CLI_HELP_OPTION and CLI_VERSION_OPTION,
 * and cli_parse() answers them; its parser sees every other key.  @input
 * is the root parser's state->input.  Returns only when argv was valid.
 */
void cli_parse(const struct argp *argp, int argc, char **argv, void *input);


/* A usage error found outside argp: the same one line, then exit 2. */
void __attribute__((noreturn, format(printf, 1, 2))) cli_usage_error(const char *fmt, ...);

#endif /* VMAPSCOPE_CLI_H */
