// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat: which mapping granules vmalloc / vmap / ioremap callers get,
 * how long the physically contiguous chunks were, and how long mapping
 * took.  Summaries per API, or per caller with -p.
 *
 *   vmapstat [OPTIONS] [INTERVAL [COUNT]]
 *   vmapstat [OPTIONS] -- COMMAND [ARGS]
 *   vmapstat compare BEFORE.json AFTER.json
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "collector.h"
#include "vmapstat_groups.h"
#include "parse.h"
#include "pmu_compare.h"
#include "report.h"
#include "select_opts.h"

static struct env {
	struct select_opts sel;	/* what is traced: select_opts.h, shared with vmaptop */
	bool per_caller;
	bool timestamp;
	bool json;
	int unit;		/* latency unit option: 'u' (default), 'm', 'n' */
	double interval;	/* 0 = until Ctrl-C (or command exit) */
	long count;		/* 0 = forever */
	int nr_pos;
	char **command;
} env = {
	.unit = 'u',
};

static const char doc[] =
"Per-caller statistics of vmalloc/vmap/ioremap page-table mappings:\n"
"granule (4K / 64K cont / 2M PMD / 1G PUD), chunk length, latency.\n"
"Two saved runs side by side: vmapstat compare [-j] BEFORE.json AFTER.json\n"
"\n"
"EXAMPLES:\n"
"    vmapstat 1 10          # totals per API, every second, 10 times\n"
"    vmapstat -p -c alloc   # per caller, callers named *alloc*, until Ctrl-C\n"
"    vmapstat --api vmap,ioremap -p 5\n"
"    vmapstat -p -j -- insmod foo.ko   # trace for a command's lifetime, JSON\n"
"\v"
"Exit status: 0 success (in command mode: the command's own status); 1 runtime\n"
"error (not root, no BTF, BPF load, a write to standard output); 2 usage error.\n"
"Documentation: man vmapstat, docs/vmapstat.md in the vmapscope repository.";

enum {
	OPT_NSECS = 0x100,
};

static const struct argp_option opts[] = {
	{ "per-caller", 'p', NULL, 0, "One block per caller (symbolized like /proc/vmallocinfo)", 0 },
	{ "milliseconds", 'm', NULL, 0, "Latency in milliseconds", 0 },
	{ "microseconds", 'u', NULL, 0, "Latency in microseconds (default)", 0 },
	{ "nanoseconds", OPT_NSECS, NULL, 0, "Latency in nanoseconds", 0 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp before each interval", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval (docs/vmapstat.md)", 0 },
	CLI_HELP_OPTION,
	CLI_VERSION_OPTION,
	{ 0 },
};

#define MAX_INTERVAL_S	86400.0

/*
 * The option groups, in their --help order, each an argp child with the
 * callbacks vmapstat calls (vmapstat_groups.h).  PMU comes before the exporter,
 * which reads the counts PMU leaves in the run.
 */
static const struct vmapstat_group *const groups[] = { &pmu_group, &prom_group, &snapshot_group };
#define NR_GROUPS	(sizeof(groups) / sizeof(groups[0]))

/* vmapstat's argp children: [0] the selection (select_opts.h), then the groups */
static const struct argp *child_argp(size_t i)
{
	return i ? groups[i - 1]->argp : &select_argp;
}

/*
 * The options given, by long name, in order, so that an option that
 * cannot apply to the chosen mode is refused rather than ignored.  Each
 * child's parser is wrapped (given_parse[]) to record its options.
 */
static struct given_option {
	const char *name;	/* long name, or NULL: short only */
	int key;
	int child;		/* child_argp() index; -1: vmapstat's own */
} given[64];
static size_t nr_given;

static void note_option(const struct argp_option *table, int child, int key)
{
	const struct argp_option *o;

	for (o = table; o->name || o->key || o->doc || o->group; o++) {
		if (o->key != key || !(o->name || (key > 0 && key < 128 && isprint(key))))
			continue;
		if (nr_given < sizeof(given) / sizeof(given[0]))
			given[nr_given++] = (struct given_option){ o->name, key, child };
		return;
	}
}

/* argp calls a parser without a context of its own: one function per child */
#define GIVEN_PARSE(i)									\
static error_t given_parse_##i(int key, char *arg, struct argp_state *state)		\
{											\
	note_option(child_argp(i)->options, i, key);					\
	return child_argp(i)->parser(key, arg, state);					\
}
GIVEN_PARSE(0)
GIVEN_PARSE(1)
GIVEN_PARSE(2)
GIVEN_PARSE(3)
static error_t (*const given_parse[])(int, char *, struct argp_state *) = {
	given_parse_0, given_parse_1, given_parse_2, given_parse_3,
};
_Static_assert(sizeof(given_parse) / sizeof(given_parse[0]) == 1 + NR_GROUPS,
	       "one recording parser per argp child");

/*
 * The options outside its own group that a mode of its own (--snapshot)
 * reads: -j, -p and the selection's -c, --api, -v.
 */
static bool mode_takes(const struct given_option *g, int mode_child)
{
	static const char *const ok[] = { "json", "per-caller", "caller", "api", "verbose" };
	size_t i;

	if (g->child == mode_child)
		return true;
	for (i = 0; g->name && i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(g->name, ok[i]))
			return true;
	return false;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	unsigned long v;

	note_option(opts, -1, key);
	switch (key) {
	case ARGP_KEY_INIT:
		/* the first child, select_argp, fills env.sel */
		state->child_inputs[0] = &env.sel;
		break;
	case 'p':
		env.per_caller = true;
		break;
	case 'm':
	case 'u':
		env.unit = key;
		break;
	case OPT_NSECS:
		env.unit = 'n';
		break;
	case 'T':
		env.timestamp = true;
		break;
	case 'j':
		env.json = true;
		break;
	case ARGP_KEY_ARG:
		if (env.nr_pos == 0) {
			if (cli_parse_interval(arg, MAX_INTERVAL_S, &env.interval))
				argp_error(state, "invalid interval '%s' (seconds, %g to %g)", arg,
					   CLI_MIN_INTERVAL_S, MAX_INTERVAL_S);
		} else if (env.nr_pos == 1) {
			if (parse_ulong(arg, LONG_MAX, &v) || !v)
				argp_error(state, "invalid count '%s' (integer > 0)", arg);
			else
				env.count = v;
		} else {
			argp_error(state, "unexpected argument '%s' (a command goes after --)", arg);
		}
		env.nr_pos++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The signals that end vmapstat (after a last report). */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static volatile sig_atomic_t exiting;	/* the stop signal received, 0 = none */
static volatile pid_t command_pid;	/* command mode: the command running */

/* Seconds a command may take to end after a stop signal was passed on. */
#define COMMAND_GRACE_S	2

static void sig_handler(int sig, siginfo_t *si, void *uctx)
{
	pid_t pid = command_pid;

	exiting = sig;
	/*
	 * Pass it on to the command, unless the kernel sent it to the whole
	 * foreground process group (Ctrl-C, a terminal hangup): the command
	 * has it already.
	 */
	if (pid > 0 && si->si_code != SI_KERNEL)
		kill(pid, sig);
}

static void stop_signals_mask(int how)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	pthread_sigmask(how, &set, NULL);
}

static void stop_signals_handle(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO };
	size_t i;

	/* no SA_RESTART: a stop signal cuts waitpid()/pause()/nanosleep() short */
	sigemptyset(&sa.sa_mask);
	if (!fn)
		sa = (struct sigaction){ .sa_handler = SIG_DFL };
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

static struct report_opts rep;
static struct vmapstat_run run;

/* Each group's callback that is set, in table order, up to the first failure. */
static int groups_start(void)
{
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->start && groups[i]->start(&run))
			return -1;
	return 0;
}

static int groups_run_start(int idx, pid_t pid)
{
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->run_start && groups[i]->run_start(&run, idx, pid))
			return -1;
	return 0;
}

static int groups_run_end(int idx, int status, const struct vmapscope_sample *delta)
{
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->run_end && groups[i]->run_end(&run, idx, status, delta))
			return -1;
	return 0;
}

static int groups_interval(const struct vmapscope_sample *cum, const struct vmapscope_sample *delta)
{
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->interval && groups[i]->interval(&run, cum, delta))
			return -1;
	return 0;
}

static int groups_interval_json(struct json_object *o)
{
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->interval_json && groups[i]->interval_json(&run, o))
			return -1;
	return 0;
}

/* Every group ends, whatever an earlier one says. */
static int groups_end(const struct vmapscope_sample *cum)
{
	int failed = 0;

	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i]->end && groups[i]->end(&run, cum))
			failed = -1;
	return failed;
}

/* Print one interval; 0 or EXIT_RUNTIME. */
static int emit(const struct vmapscope_sample *cum, const struct vmapscope_sample *delta)
{
	if (groups_interval(cum, delta))
		return EXIT_RUNTIME;
	if (run.no_report)
		return 0;
	if (run.stdout_taken)
		return cli_stdout_check();
	if (env.json) {
		struct json_object *o = report_json(delta, &rep);
		/* the groups' part of the interval (the PMU counts) goes inside it */
		int err = !o || groups_interval_json(o) ? -ENOMEM : 0;

		if (!err)
			err = report_json_print(stdout, o);

		json_object_put(o);
		if (err == -ENOMEM) {
			fprintf(stderr, "vmapstat: out of memory\n");
			return EXIT_RUNTIME;
		}
	} else {
		report_text(stdout, delta, &rep);
	}
	/* a lost interval ends the run, with the write's own errno */
	return cli_stdout_check();
}

static int read_snap(struct collector *c, struct vmapscope_sample *s)
{
	int err = collector_read(c, s);

	if (err)
		fprintf(stderr, "vmapstat: cannot read BPF maps: %s\n", strerror(-err));
	return err;
}

static void sleep_interval(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	/* a signal ends the sleep early; the loop checks "exiting" */
	nanosleep(&ts, NULL);
}

static int interval_mode(struct collector *c, struct vmapscope_sample *prev)
{
	struct vmapscope_sample cur, delta;
	long n = 0;
	int ret = 0;

	while (!exiting) {
		if (env.interval > 0)
			sleep_interval(env.interval);
		else
			pause();	/* until Ctrl-C / SIGTERM */
		if (read_snap(c, &cur))
			return EXIT_RUNTIME;
		if (sample_delta(&cur, prev, &delta)) {
			sample_free(&cur);
			fprintf(stderr, "vmapstat: out of memory\n");
			return EXIT_RUNTIME;
		}
		ret = emit(&cur, &delta);
		sample_free(&delta);
		sample_free(prev);
		*prev = cur;
		if (ret || env.interval <= 0 || (env.count && ++n >= env.count))
			break;
	}
	return ret;
}

/*
 * After a stop signal was passed on: the command's status once it ended,
 * or, if it is still running after COMMAND_GRACE_S, the status of a
 * command that signal killed (vmapstat reports and exits; the command
 * is left to itself).
 */
static int wait_after_signal(pid_t pid, const char *name)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int status, i;
	pid_t r;

	for (i = 0; i < COMMAND_GRACE_S * 50; i++) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			break;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "vmapstat: '%s' still runs %d s after %s; reporting without it\n",
		name, COMMAND_GRACE_S, strsignal(exiting));
	return exiting & 0x7f;	/* as WIFSIGNALED with WTERMSIG == exiting */
}

/*
 * Let the held command go (one byte on its pipe).  0, or -1 when it is
 * gone already; a write to its closed pipe must not end vmapstat with
 * SIGPIPE.
 */
static int release_command(int fd)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	do
		n = write(fd, "x", 1);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fd);
	return n == 1 ? 0 : -1;
}

/*
 * Run @idx of the command.  The child waits before its exec (a pipe)
 * until the PMU group has opened its counters on it: counted per
 * command, they must be the child's own, opened before it execs (see
 * pmu_count.h).  The wait status, or -1 when the command did not run
 * (fork failed, the PMU group failed).
 */
static int run_command_once(char **argv, int idx)
{
	int status, go[2];
	ssize_t n;
	char c;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC)) {
		fprintf(stderr, "vmapstat: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	/* command_pid is set before a stop signal can look at it */
	stop_signals_mask(SIG_BLOCK);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmapstat: fork: %s\n", strerror(errno));
		close(go[0]);
		close(go[1]);
		stop_signals_mask(SIG_UNBLOCK);
		return -1;
	}
	if (pid == 0) {
		stop_signals_handle(NULL);
		stop_signals_mask(SIG_UNBLOCK);
		close(go[1]);
		/* a byte: run; end of file: vmapstat gave up on this run */
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "vmapstat: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	command_pid = pid;
	if (groups_run_start(idx, pid)) {
		close(go[1]);	/* it exits without running the command */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		command_pid = 0;
		stop_signals_mask(SIG_UNBLOCK);
		return -1;
	}
	/* gone already (killed while held): its wait status says how */
	release_command(go[1]);
	stop_signals_mask(SIG_UNBLOCK);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "vmapstat: waitpid: %s\n", strerror(errno));
			status = -1;
			break;
		}
		if (exiting) {
			status = wait_after_signal(pid, argv[0]);
			break;
		}
	}
	command_pid = 0;
	return status;
}

static int status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

static int command_mode(struct collector *c, struct vmapscope_sample *start)
{
	struct vmapscope_sample before, after = {}, delta = {};
	int i, status = 0, ret = EXIT_RUNTIME;

	if (sample_delta(start, NULL, &before))
		return EXIT_RUNTIME;
	/* "before" = copy of start with rows: keep start for the final delta */
	for (i = 0; i < run.repeat; i++) {
		if (exiting) {
			/* stopped before the command could start */
			status = exiting & 0x7f;
			break;
		}
		status = run_command_once(env.command, i);
		if (status < 0 || read_snap(c, &after) || sample_delta(&after, &before, &delta))
			goto out;
		if (groups_run_end(i, status, &delta))
			goto out;
		sample_free(&delta);
		sample_free(&before);
		before = after;
		after = (struct vmapscope_sample){};
		if (exiting)
			break;
	}
	ret = sample_delta(&before, start, &delta) ? EXIT_RUNTIME : emit(&before, &delta);
	if (!ret)
		ret = status_to_exit(status);
out:
	sample_free(&delta);
	sample_free(&after);
	sample_free(&before);
	return ret;
}

/*
 * A group whose options select a mode of its own (--snapshot, the first
 * option of its table) replaces tracing: it runs instead, after every
 * option it does not read is refused rather than ignored.
 */
static void run_mode_of_own(void)
{
	for (size_t g = 0; g < NR_GROUPS; g++) {
		const char *mode = groups[g]->argp->options[0].name;

		if (!groups[g]->replaces_tracing || !groups[g]->replaces_tracing())
			continue;
		if (env.command || env.nr_pos)
			cli_usage_error("--%s takes no INTERVAL or COMMAND", mode);
		for (size_t k = 0; k < nr_given; k++) {
			if (mode_takes(&given[k], 1 + g))
				continue;
			if (given[k].name)
				cli_usage_error("--%s and --%s exclude each other", mode,
						given[k].name);
			cli_usage_error("--%s and -%c exclude each other", mode, given[k].key);
		}
		exit(groups[g]->main(&env.sel, env.json, env.per_caller));
	}
}

/*
 * Service mode: --web.listen-address without INTERVAL serves until it is
 * stopped, and the metrics are its only output (under systemd stdout is
 * the journal): no report, so the options that shape one are refused
 * rather than ignored.
 */
static void service_mode(void)
{
	if (!run.serving || env.command || env.nr_pos)
		return;
	if (run.stdout_taken)
		cli_usage_error("--web.listen-address without INTERVAL writes nothing to stdout: "
				"--prometheus needs an INTERVAL");
	for (size_t k = 0; k < nr_given; k++) {
		if (given[k].child != -1)
			continue;
		if (given[k].name)
			cli_usage_error("--web.listen-address without INTERVAL prints no report, "
					"only the metrics: --%s needs an INTERVAL", given[k].name);
		cli_usage_error("--web.listen-address without INTERVAL prints no report, "
				"only the metrics: -%c needs an INTERVAL", given[k].key);
	}
	run.no_report = true;
}

int main(int argc, char **argv)
{
	static struct argp wrapped[1 + NR_GROUPS];
	static struct argp_child children[1 + NR_GROUPS + 1];
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		/* argp's "Usage:" lines, one per form */
		.args_doc = "[INTERVAL [COUNT]]\n-- COMMAND [ARGS]",
		.doc = doc,
		.children = children,
	};
	struct vmapscope_sample start, cum;
	struct collector *c = NULL;
	char errbuf[512];
	int ret = 0, i, nargs = argc;

	cli_init("vmapstat");
	for (size_t k = 0; k < 1 + NR_GROUPS; k++) {
		wrapped[k] = *child_argp(k);
		wrapped[k].parser = given_parse[k];
		/* first: parse_arg() hands the selection env.sel */
		children[k] = (struct argp_child){
			&wrapped[k], 0,
			k ? groups[k - 1]->title : "What to trace (vmaptop takes the same):",
			(int)k + 1,
		};
	}
	if (argc >= 2 && !strcmp(argv[1], "compare"))
		return vmapstat_compare_main(argc - 1, argv + 1);

	/* "--" starts the command; argp only sees what comes before it */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			nargs = i;
			env.command = &argv[i + 1];
			break;
		}
	if (env.command && !env.command[0])
		cli_usage_error("no command after --");
	cli_parse(&argp, nargs, argv, NULL);
	run_mode_of_own();
	if (env.command && env.nr_pos)
		cli_usage_error("INTERVAL/COUNT and -- COMMAND exclude each other");
	for (size_t k = 0; k < NR_GROUPS; k++)
		if (groups[k]->parsed)
			groups[k]->parsed(&run);
	if (run.repeat > 1 && !env.command)
		cli_usage_error("--repeat needs -- COMMAND");
	service_mode();

	rep.per_caller = env.per_caller;
	rep.timestamp = env.timestamp;
	rep.lat_unit = env.unit == 'm' ? "msecs" : env.unit == 'n' ? "nsecs" : "usecs";
	rep.lat_div = env.unit == 'm' ? 1000000 : env.unit == 'n' ? 1 : 1000;

	env.sel.col.track_areas = run.track_areas;
	ret = collector_open(&env.sel.col, &c, errbuf, sizeof(errbuf));
	if (ret) {
		/* not root, no BTF: a valid command line that cannot run here */
		fprintf(stderr, "vmapstat: %s\n", errbuf);
		return EXIT_RUNTIME;
	}

	if (read_snap(c, &start)) {
		collector_close(c);
		return EXIT_RUNTIME;
	}
	/* once: which columns this kernel cannot provide, and why */
	report_missing(stderr, &start);
	if (env.sel.col.verbose) {
		const struct vmapscope_probe_state *ps;
		size_t n = collector_probes(c, &ps), k;

		for (k = 0; k < n; k++)
			fprintf(stderr, "vmapstat: latency %-10s %-28s %s%s\n", api_name(ps[k].api),
				ps[k].func, ps[k].how[0] ? ps[k].how : "not attached: ", ps[k].why);
		if (start.feat[VMAPSCOPE_FEAT_CALLERS].available)
			fprintf(stderr, "vmapstat: callers named by %s\n",
				start.feat[VMAPSCOPE_FEAT_CALLERS].how);
		/* what each column comes from: the attach set, as JSON "features" has it */
		for (k = 0; k < VMAPSCOPE_FEAT_MAX; k++)
			fprintf(stderr, "vmapstat: feature %-12s %s\n", feature_name(k),
				start.feat[k].available ? start.feat[k].how :
				start.feat[k].how[0] ? start.feat[k].how : "missing");
	}

	stop_signals_handle(sig_handler);

	run.collector = c;
	run.json = env.json;
	run.interval_s = env.command ? 0 : env.interval;
	run.command = env.command;
	/*
	 * threads the groups start (the exporter's) leave the stop signals
	 * to this one, which acts on them
	 */
	stop_signals_mask(SIG_BLOCK);
	i = groups_start();
	stop_signals_mask(SIG_UNBLOCK);
	if (i) {
		ret = EXIT_RUNTIME;
		goto out;
	}

	if (!env.command && !env.json && !run.stdout_taken && !run.no_report && env.interval <= 0)
		fprintf(stderr, "Tracing vmalloc/vmap/ioremap mappings... Hit Ctrl-C to end.\n");

	if (env.command) {
		ret = command_mode(c, &start);
	} else {
		ret = interval_mode(c, &start);
	}

	if (read_snap(c, &cum) == 0) {
		if (groups_end(&cum) && !ret)
			ret = EXIT_RUNTIME;
		sample_free(&cum);
	}
out:
	sample_free(&start);
	collector_close(c);
	return ret;
}
