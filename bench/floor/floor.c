// SPDX-License-Identifier: GPL-2.0
/*
 * vmapscope-floor: attach floor.bpf.c's counting programs to the given
 * tracepoints and functions, run a command, print how many events fired.
 * The overhead benchmark runs it with the attach points vmapstat reports
 * (vmapstat -v: its feature and latency lines), so that "floor" and
 * "vmapstat" differ only in the work done per event.  -x and -r attach the
 * exit program alone, as vmapstat's area program (alloc_vmap_area()'s
 * exit on a stock kernel) is.
 */
#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "floor.skel.h"

#define MAX_FENTRY 8
#define MAX_KPROBE 16

static struct {
	const char *tp[8];
	int nr_tp;
	const char *fentry[MAX_FENTRY];
	bool fexit_only[MAX_FENTRY];
	int nr_fentry;
	const char *kprobe[MAX_KPROBE];
	bool kretprobe_only[MAX_KPROBE];
	int nr_kprobe;
	char **command;
} env;

static const struct argp_option options[] = {
	{ "tracepoint", 't', "NAME", 0, "vmalloc (or module_load) tracepoint (raw_tp)", 0 },
	{ "fentry", 'f', "FUNC", 0, "fentry+fexit on FUNC", 0 },
	{ "fexit", 'x', "FUNC", 0, "fexit only on FUNC (vmapstat's area program)", 0 },
	{ "kprobe", 'k', "FUNC", 0, "kprobe+kretprobe on FUNC", 0 },
	{ "kretprobe", 'r', "FUNC", 0, "kretprobe only on FUNC", 0 },
	{ 0 }
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 't':
		if (env.nr_tp == (int)(sizeof(env.tp) / sizeof(env.tp[0])))
			argp_error(state, "too many tracepoints");
		env.tp[env.nr_tp++] = arg;
		break;
	case 'f':
	case 'x':
		if (env.nr_fentry == MAX_FENTRY)
			argp_error(state, "at most %d fentry functions", MAX_FENTRY);
		env.fexit_only[env.nr_fentry] = key == 'x';
		env.fentry[env.nr_fentry++] = arg;
		break;
	case 'k':
	case 'r':
		if (env.nr_kprobe == MAX_KPROBE)
			argp_error(state, "at most %d kprobe functions", MAX_KPROBE);
		env.kretprobe_only[env.nr_kprobe] = key == 'r';
		env.kprobe[env.nr_kprobe++] = arg;
		break;
	case ARGP_KEY_ARGS:
		env.command = state->argv + state->next;
		break;
	case ARGP_KEY_END:
		if (!env.command)
			argp_error(state, "give a command to run: -- CMD [ARGS...]");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static struct bpf_program *tp_prog(struct floor_bpf *s, const char *name)
{
	char want[64];

	snprintf(want, sizeof(want), "tp_%s", name);
	return bpf_object__find_program_by_name(s->obj, want);
}

static struct bpf_program *fentry_prog(struct floor_bpf *s, int n, int exit)
{
	char want[32];

	snprintf(want, sizeof(want), "%s_%d", exit ? "fexit" : "fentry", n);
	return bpf_object__find_program_by_name(s->obj, want);
}

static int run_command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "vmapscope-floor: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "-- CMD [ARGS...]",
		"Count the events of the given attach points while CMD runs." };
	struct bpf_program *p;
	struct floor_bpf *s;
	bool want_kprobe = false;
	int i, err, rc, ncpu;
	unsigned long long total = 0, *vals;
	__u32 zero = 0;

	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL))
		return 2;
	s = floor_bpf__open();
	if (!s) {
		fprintf(stderr, "vmapscope-floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	for (i = 0; i < env.nr_tp; i++) {
		p = tp_prog(s, env.tp[i]);
		if (!p) {
			fprintf(stderr, "vmapscope-floor: unknown tracepoint '%s'\n", env.tp[i]);
			return 2;
		}
		bpf_program__set_autoload(p, true);
	}
	for (i = 0; i < env.nr_fentry; i++) {
		for (int x = env.fexit_only[i]; x < 2; x++) {
			p = fentry_prog(s, i, x);
			bpf_program__set_autoload(p, true);
			bpf_program__set_attach_target(p, 0, env.fentry[i]);
		}
	}
	for (i = 0; i < env.nr_kprobe; i++)
		want_kprobe |= !env.kretprobe_only[i];
	if (env.nr_kprobe) {
		bpf_program__set_autoload(s->progs.kprobe_any, want_kprobe);
		bpf_program__set_autoload(s->progs.kretprobe_any, true);
	}
	err = floor_bpf__load(s);
	if (err) {
		fprintf(stderr, "vmapscope-floor: cannot load: %s\n", strerror(-err));
		return 1;
	}
	bpf_object__for_each_program(p, s->obj) {
		if (!bpf_program__autoload(p) || p == s->progs.kprobe_any ||
		    p == s->progs.kretprobe_any)
			continue;
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "vmapscope-floor: cannot attach %s: %s\n",
				bpf_program__name(p), strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < env.nr_kprobe; i++) {
		if ((!env.kretprobe_only[i] &&
		     !bpf_program__attach_kprobe(s->progs.kprobe_any, false, env.kprobe[i])) ||
		    !bpf_program__attach_kprobe(s->progs.kretprobe_any, true, env.kprobe[i])) {
			fprintf(stderr, "vmapscope-floor: cannot attach a kprobe to %s: %s\n",
				env.kprobe[i], strerror(errno));
			return 1;
		}
	}

	rc = run_command(env.command);

	ncpu = libbpf_num_possible_cpus();
	vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));
	if (ncpu <= 0 || !vals || bpf_map__lookup_elem(s->maps.hits, &zero, sizeof(zero), vals,
						       ncpu * sizeof(*vals), 0)) {
		fprintf(stderr, "vmapscope-floor: cannot read the counter\n");
		return 1;
	}
	for (i = 0; i < ncpu; i++)
		total += vals[i];
	printf("events=%llu\n", total);
	free(vals);
	floor_bpf__destroy(s);
	return rc;
}
