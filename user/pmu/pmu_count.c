// SPDX-License-Identifier: GPL-2.0
/* Per-CPU counting of resolved PMU events over a traced period. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "errbuf.h"
#include "pmu_count.h"
#include "pmu_cpus.h"

/* ------------------------------------------------------------------ */
/* Real system calls                                                   */

static int sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : fd;
}

static int sys_ioctl(int fd, unsigned long request)
{
	return ioctl(fd, request, 0) < 0 ? -errno : 0;
}

static ssize_t sys_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

static void sys_close(int fd)
{
	close(fd);
}

static const struct pmu_sys_ops pmu_sys_real = {
	.open = sys_open,
	.ioctl = sys_ioctl,
	.read = sys_read,
	.close = sys_close,
};

/* ------------------------------------------------------------------ */
/* Session                                                             */

struct pmu_fd {
	int cpu;
	int fd;			/* -1 when the open failed */
	int err;		/* errno of the failed open, 0 once reported */
	uint64_t base[3];	/* value, enabled, running at the last read */
};

struct pmu_slot {
	struct pmu_event ev;
	int nr_fds;
	struct pmu_fd *fds;
	int nr_open;
	bool task_ok;		/* per command: it can be opened (probed) */
	char note[256];		/* why (partly) not counted */
};

struct pmu_session {
	const struct pmu_sys_ops *ops;
	char sys_root[256], proc_root[256];
	uint64_t busy_threshold_ns;
	cpu_set_t selected;
	cpu_set_t online_at_start;
	char selected_list[128];
	int nr;
	struct pmu_slot *slots;
	struct timespec t0;
	uint64_t busy0;
	bool enabled;
	bool task;		/* per command (opts.task), not per CPU */
};

/* CPU time of the children reaped so far: the command's, per command. */
static uint64_t children_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/*
 * Busy (non-idle, non-iowait) CPU time of the CPUs in @s from /proc/stat;
 * per command, the command's CPU time.
 */
static uint64_t busy_ns(const struct pmu_session *ss, const cpu_set_t *s)
{
	char path[512], line[512];
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks = 0;
	FILE *f;

	if (ss->task)
		return children_cpu_ns();
	snprintf(path, sizeof(path), "%s/proc/stat", ss->proc_root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long user, nice, sys, idle, iow, irq, sirq, steal = 0;
		int cpu;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &user, &nice, &sys, &idle, &iow, &irq, &sirq,
			   &steal) < 8)
			continue;
		if (CPU_ISSET(cpu, s))
			ticks += user + nice + sys + irq + sirq + steal;
	}
	fclose(f);
	if (hz <= 0)
		hz = 100;
	return ticks * (1000000000ULL / hz);
}

static const char *errno_reason(int e, const struct pmu_event *ev)
{
	switch (e) {
	case ENOENT:
		if (!strcmp(ev->pmu, "no core PMU"))
			return "no hardware PMU on this machine counts it (ENOENT)";
		return "the PMU does not support this event (ENOENT)";
	case EOPNOTSUPP:
		return "the PMU cannot count it this way, e.g. no user/kernel filtering or sampling (EOPNOTSUPP)";
	case ENODEV:
		return "CPU offline or not covered by this PMU (ENODEV)";
	case EACCES:
	case EPERM:
		return "permission denied: need root or CAP_PERFMON, see /proc/sys/kernel/perf_event_paranoid";
	case EINVAL:
		return "the PMU rejected the configuration (EINVAL)";
	case EBUSY:
		return "the PMU is busy, someone has exclusive use of it (EBUSY)";
	case EMFILE:
	case ENFILE:
		return "too many open files (raise ulimit -n)";
	default:
		return NULL;
	}
}

/* Why @sl is (partly) not counted: kept for its results, one line on @msgs. */
static void slot_note(struct pmu_slot *sl, FILE *msgs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sl->note, sizeof(sl->note), fmt, ap);
	va_end(ap);
	if (msgs)
		fprintf(msgs, "vmapstat: pmu: %s (PMU %s, %s): %s\n", sl->ev.name,
			sl->ev.pmu, sl->ev.desc, sl->note);
}

/* The reason of a failed open, as one phrase. */
static const char *open_reason(int e, const struct pmu_event *ev, char *buf, size_t len)
{
	const char *why = errno_reason(e, ev);

	if (!why) {
		snprintf(buf, len, "%s (errno %d)", strerror(e), e);
		why = buf;
	}
	return why;
}

/*
 * Per command: nothing stays open here; each run's counters are opened on
 * the command's process by pmu_session_attach().  Each event is probed
 * once now, on this process, not inherited, and closed at once, so that
 * what cannot be counted is said before the command runs.
 */
static int task_open(struct pmu_session *s, const struct pmu_event *evs, int nr,
		     struct pmu_session **out, FILE *msgs, char *err, size_t errlen)
{
	s->slots = calloc(nr ? nr : 1, sizeof(*s->slots));
	if (!s->slots) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return -1;
	}
	s->nr = nr;
	for (int i = 0; i < nr; i++) {
		struct pmu_slot *sl = &s->slots[i];
		struct perf_event_attr probe;
		char buf[96];
		int fd;

		sl->ev = evs[i];
		sl->ev.attr.disabled = 1;
		sl->ev.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING;
		probe = sl->ev.attr;
		sl->ev.attr.inherit = 1;
		sl->ev.attr.enable_on_exec = 1;
		sl->fds = calloc(1, sizeof(*sl->fds));
		if (!sl->fds) {
			snprintf(err, errlen, "out of memory");
			pmu_session_close(s);
			return -1;
		}
		sl->nr_fds = 1;
		sl->fds[0].cpu = -1;
		sl->fds[0].fd = -1;
		probe.inherit = 0;
		probe.enable_on_exec = 0;
		fd = s->ops->open(&probe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			s->ops->close(fd);
			sl->task_ok = true;
			continue;
		}
		slot_note(sl, msgs, "not counted: %s", open_reason(-fd, &sl->ev, buf, sizeof(buf)));
	}
	*out = s;
	return 0;
}

/* Per command: close the counters of the run that ended. */
static void task_close_fds(struct pmu_session *s)
{
	for (int i = 0; i < s->nr; i++) {
		struct pmu_fd *f = &s->slots[i].fds[0];

		if (s->slots[i].nr_fds && f->fd >= 0)
			s->ops->close(f->fd);
		if (s->slots[i].nr_fds)
			f->fd = -1;
		s->slots[i].nr_open = 0;
	}
}

int pmu_session_attach(struct pmu_session *s, pid_t pid, FILE *msgs)
{
	if (!s->task)
		return -EINVAL;
	task_close_fds(s);
	for (int i = 0; i < s->nr; i++) {
		struct pmu_slot *sl = &s->slots[i];
		struct perf_event_attr attr = sl->ev.attr;
		struct pmu_fd *f = &sl->fds[0];
		char buf[96];

		if (!sl->task_ok)
			continue;	/* said once, at open */
		sl->note[0] = '\0';
		memset(f->base, 0, sizeof(f->base));
		f->fd = s->ops->open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (f->fd >= 0) {
			sl->nr_open = 1;
			continue;
		}
		f->err = -f->fd;
		f->fd = -1;
		slot_note(sl, msgs, "not counted in this run: %s",
			  open_reason(f->err, &sl->ev, buf, sizeof(buf)));
		f->err = 0;
	}
	return 0;
}

int pmu_session_open(const struct pmu_count_opts *opts,
		     const struct pmu_event *evs, int nr,
		     struct pmu_session **out, FILE *msgs,
		     char *err, size_t errlen)
{
	struct pmu_session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->ops = opts->ops ? opts->ops : &pmu_sys_real;
	snprintf(s->sys_root, sizeof(s->sys_root), "%s",
		 opts->sys_root ? opts->sys_root : "");
	snprintf(s->proc_root, sizeof(s->proc_root), "%s",
		 opts->proc_root ? opts->proc_root : "");
	s->busy_threshold_ns = opts->busy_threshold_ns ?
			       opts->busy_threshold_ns : 10000000ULL;
	s->task = opts->task;
	if (s->task)
		return task_open(s, evs, nr, out, msgs, err, errlen);
	if (pmu_cpus_select(opts->cpu_list, s->sys_root, &s->selected,
			    &s->online_at_start, err, errlen)) {
		errbuf_set(err, errlen, "-C: %s", err);
		free(s);
		return -1;
	}
	cpulist_format(&s->selected, s->selected_list, sizeof(s->selected_list));

	s->slots = calloc(nr ? nr : 1, sizeof(*s->slots));
	if (!s->slots) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return -1;
	}
	s->nr = nr;
	for (int i = 0; i < nr; i++) {
		struct pmu_slot *sl = &s->slots[i];
		cpu_set_t cpus = s->selected, pmu_cpus, offline;

		sl->ev = evs[i];
		sl->ev.attr.disabled = 1;
		sl->ev.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING;
		sl->ev.attr.inherit = 0;
		/* A PMU that covers only some CPUs (big.LITTLE) opens there only. */
		if (sl->ev.cpus[0] && !cpulist_parse(sl->ev.cpus, &pmu_cpus, NULL, 0))
			CPU_AND(&cpus, &cpus, &pmu_cpus);
		if (!CPU_COUNT(&cpus)) {
			slot_note(sl, msgs, "PMU %s covers CPUs %.100s, none of them selected",
				  sl->ev.pmu, sl->ev.cpus);
			continue;
		}
		/* Selected but offline CPUs: say so once, count the rest. */
		CPU_XOR(&offline, &cpus, &s->online_at_start);
		CPU_AND(&offline, &offline, &cpus);
		if (CPU_COUNT(&offline)) {
			char list[128];

			cpulist_format(&offline, list, sizeof(list));
			slot_note(sl, msgs, "CPUs %s offline: not counted", list);
			CPU_AND(&cpus, &cpus, &s->online_at_start);
		}
		sl->fds = calloc(CPU_COUNT(&cpus) + 1, sizeof(*sl->fds));
		if (!sl->fds) {
			snprintf(err, errlen, "out of memory");
			pmu_session_close(s);
			return -1;
		}
		for (int c = 0; c < PMU_MAX_CPUS; c++) {
			struct perf_event_attr attr = sl->ev.attr;
			struct pmu_fd *f = &sl->fds[sl->nr_fds];

			if (!CPU_ISSET(c, &cpus))
				continue;
			sl->nr_fds++;
			f->cpu = c;
			f->fd = s->ops->open(&attr, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
			if (f->fd >= 0) {
				sl->nr_open++;
			} else {
				f->err = -f->fd;
				f->fd = -1;
			}
		}

		/* One line per distinct failure reason, naming the CPUs. */
		for (int a = 0; a < sl->nr_fds; a++) {
			int e = sl->fds[a].err;
			const char *why;
			char list[128], buf[96];
			cpu_set_t failed;

			if (!e)
				continue;
			CPU_ZERO(&failed);
			for (int b = a; b < sl->nr_fds; b++) {
				if (sl->fds[b].err == e) {
					CPU_SET(sl->fds[b].cpu, &failed);
					sl->fds[b].err = 0;
				}
			}
			cpulist_format(&failed, list, sizeof(list));
			why = open_reason(e, &sl->ev, buf, sizeof(buf));
			slot_note(sl, msgs, "not counted on CPU%s %s: %s",
				  CPU_COUNT(&failed) > 1 ? "s" : "", list, why);
		}
	}
	*out = s;
	return 0;
}

int pmu_session_nr_counted(const struct pmu_session *s)
{
	int n = 0;

	for (int i = 0; i < s->nr; i++)
		n += s->task ? s->slots[i].task_ok : s->slots[i].nr_open > 0;
	return n;
}

static int read_fd(const struct pmu_session *s, const struct pmu_fd *f,
		   uint64_t v[3])
{
	ssize_t n = s->ops->read(f->fd, v, 3 * sizeof(uint64_t));

	if (n == 3 * (ssize_t)sizeof(uint64_t))
		return 0;
	return n < 0 ? (int)n : -ENODATA;
}

static void for_each_fd_ioctl(struct pmu_session *s, unsigned long req)
{
	for (int i = 0; i < s->nr; i++)
		for (int j = 0; j < s->slots[i].nr_fds; j++)
			if (s->slots[i].fds[j].fd >= 0)
				s->ops->ioctl(s->slots[i].fds[j].fd, req);
}

int pmu_session_start(struct pmu_session *s)
{
	/* Baselines first: counts and times accumulate across runs. */
	for (int i = 0; i < s->nr; i++) {
		for (int j = 0; j < s->slots[i].nr_fds; j++) {
			struct pmu_fd *f = &s->slots[i].fds[j];

			if (f->fd >= 0 && read_fd(s, f, f->base))
				memset(f->base, 0, sizeof(f->base));
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	s->busy0 = busy_ns(s, &s->selected);
	/* per command: the command's exec enables its inherited counters */
	if (!s->task)
		for_each_fd_ioctl(s, PERF_EVENT_IOC_ENABLE);
	s->enabled = true;
	return 0;
}

/* task-clock and cpu-clock count nanoseconds: shown in msec, as perf does */
static bool is_clock(const struct pmu_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

double pmu_result_shown(const struct pmu_result *r, double v)
{
	return r->unit[0] ? v / 1e6 : v;
}

int pmu_session_sample(struct pmu_session *s, struct pmu_results *res)
{
	cpu_set_t online_now;
	struct timespec t1;
	uint64_t busy1;

	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	busy1 = busy_ns(s, &s->selected);
	res->period_s = (t1.tv_sec - s->t0.tv_sec) +
			(t1.tv_nsec - s->t0.tv_nsec) / 1e9;
	res->busy_ns = busy1 > s->busy0 ? busy1 - s->busy0 : 0;
	snprintf(res->cpus, sizeof(res->cpus), "%s", s->selected_list);
	res->task = s->task;
	if (cpulist_read(s->sys_root, "online", &online_now))
		online_now = s->online_at_start;

	res->r = calloc(s->nr ? s->nr : 1, sizeof(*res->r));
	if (!res->r)
		return -ENOMEM;
	res->nr = s->nr;
	for (int i = 0; i < s->nr; i++) {
		struct pmu_slot *sl = &s->slots[i];
		struct pmu_result *r = &res->r[i];
		cpu_set_t went_offline = { 0 };
		bool any_ran = false, any_enabled = false;

		snprintf(r->name, sizeof(r->name), "%s", sl->ev.name);
		snprintf(r->pmu, sizeof(r->pmu), "%s", sl->ev.pmu);
		snprintf(r->note, sizeof(r->note), "%s", sl->note);
		if (is_clock(&sl->ev))
			snprintf(r->unit, sizeof(r->unit), "msec");
		r->counted = sl->nr_open > 0;
		r->running_pct = 100.0;
		r->cpu = calloc(sl->nr_open + 1, sizeof(*r->cpu));
		if (!r->cpu)
			return -ENOMEM;
		for (int j = 0; j < sl->nr_fds; j++) {
			struct pmu_fd *f = &sl->fds[j];
			struct pmu_cpu_value *cv;
			uint64_t v[3], d[3];

			if (f->fd < 0)
				continue;
			cv = &r->cpu[r->nr_cpus++];
			cv->cpu = f->cpu;
			if (f->cpu >= 0 && !CPU_ISSET(f->cpu, &online_now))
				CPU_SET(f->cpu, &went_offline);
			if (read_fd(s, f, v)) {
				/* An offline CPU's counter can stop answering. */
				if (f->cpu >= 0)
					CPU_SET(f->cpu, &went_offline);
				continue;
			}
			for (int k = 0; k < 3; k++) {
				d[k] = v[k] >= f->base[k] ? v[k] - f->base[k] : 0;
				f->base[k] = v[k];
			}
			cv->raw = d[0];
			cv->enabled_ns = d[1];
			cv->running_ns = d[2];
			cv->scaled = d[0];
			if (d[1])
				any_enabled = true;
			if (d[2])
				any_ran = true;
			/* Multiplexed: extrapolate as perf does, and mark it. */
			if (d[2] && d[2] < d[1]) {
				double pct = 100.0 * d[2] / d[1];

				cv->scaled = (double)d[0] * d[1] / d[2];
				r->scaled = true;
				if (pct < r->running_pct)
					r->running_pct = pct;
			}
			if (d[1] && !d[2])
				r->running_pct = 0;
			r->raw += cv->raw;
			r->value += cv->scaled;
		}
		if (CPU_COUNT(&went_offline)) {
			char list[128];

			r->partial = true;
			cpulist_format(&went_offline, list, sizeof(list));
			errbuf_append(r->note, sizeof(r->note), "CPU%s %s went offline during the period: counts partial",
				 CPU_COUNT(&went_offline) > 1 ? "s" : "", list);
		}
		if (r->counted && any_enabled && !any_ran) {
			r->never_ran = true;
			if (!r->note[0])
				snprintf(r->note, sizeof(r->note),
					 "never got a counter (too many events for the PMU?)");
		}
		/*
		 * A hardware event that reads exactly 0 while the CPUs were
		 * busy is more likely not implemented (QEMU accepts raw TLB
		 * events and never counts them) than truly zero.
		 */
		if (r->counted && any_ran && r->raw == 0 &&
		    sl->ev.attr.type != PERF_TYPE_SOFTWARE &&
		    sl->ev.attr.type != PERF_TYPE_TRACEPOINT &&
		    sl->ev.attr.type != PERF_TYPE_BREAKPOINT &&
		    res->busy_ns >= s->busy_threshold_ns) {
			r->zero_busy = true;
			errbuf_append(r->note, sizeof(r->note), "not counted by this PMU? (0 over %.2f s busy CPU time)",
				 res->busy_ns / 1e9);
		}
	}
	s->t0 = t1;
	s->busy0 = busy1;
	return 0;
}

int pmu_session_stop(struct pmu_session *s, struct pmu_results *res)
{
	int ret;

	if (s->enabled)
		for_each_fd_ioctl(s, PERF_EVENT_IOC_DISABLE);
	s->enabled = false;
	ret = pmu_session_sample(s, res);
	/* per command: the run is over, its counters were read */
	if (s->task)
		task_close_fds(s);
	return ret;
}

void pmu_session_close(struct pmu_session *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr; i++) {
		for (int j = 0; j < s->slots[i].nr_fds; j++)
			if (s->slots[i].fds[j].fd >= 0)
				s->ops->close(s->slots[i].fds[j].fd);
		free(s->slots[i].fds);
	}
	free(s->slots);
	free(s);
}

void pmu_results_free(struct pmu_results *res)
{
	if (!res->r)
		return;
	for (int i = 0; i < res->nr; i++)
		free(res->r[i].cpu);
	free(res->r);
	res->r = NULL;
	res->nr = 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */

void pmu_format_count(double v, char *buf, size_t len)
{
	char digits[32];
	int n, out = 0, lead;

	snprintf(digits, sizeof(digits), "%.0f", v < 0 ? 0 : v);
	n = strlen(digits);
	lead = n % 3 ? n % 3 : 3;
	for (int i = 0; i < n && out + 2 < (int)len; i++) {
		if (i && (i - lead) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

void pmu_results_print(FILE *out, const struct pmu_results *res, bool per_cpu)
{
	if (res->task)
		fprintf(out, "\nPMU counts of the command and its children, %.3f s "
			"(%.3f s CPU time):\n\n", res->period_s, res->busy_ns / 1e9);
	else
		fprintf(out, "\nPMU counts, CPUs %s, %.3f s (%.3f s busy CPU time):\n\n",
			res->cpus[0] ? res->cpus : "-", res->period_s, res->busy_ns / 1e9);
	for (int i = 0; i < res->nr; i++) {
		const struct pmu_result *r = &res->r[i];
		char num[40], flag[64] = "";

		if (!r->counted)
			snprintf(num, sizeof(num), "<not counted>");
		else if (r->unit[0])
			snprintf(num, sizeof(num), "%.2f %s", pmu_result_shown(r, r->value),
				 r->unit);
		else
			pmu_format_count(r->value, num, sizeof(num));
		if (r->scaled)
			snprintf(flag, sizeof(flag), "  (scaled, counted %.1f%%)",
				 r->running_pct);
		if (flag[0] || r->note[0])
			fprintf(out, "%20s  %-24s%s%s%s\n", num, r->name, flag,
				r->note[0] ? "  # " : "", r->note);
		else
			fprintf(out, "%20s  %s\n", num, r->name);
		if (!per_cpu)
			continue;
		for (int j = 0; j < r->nr_cpus; j++) {
			const struct pmu_cpu_value *c = &r->cpu[j];

			if (r->unit[0])
				snprintf(num, sizeof(num), "%.2f %s",
					 pmu_result_shown(r, c->scaled), r->unit);
			else
				pmu_format_count(c->scaled, num, sizeof(num));
			fprintf(out, "%20s    CPU%-4d", num, c->cpu);
			if (c->running_ns < c->enabled_ns)
				fprintf(out, " (%.1f%% of %.3f s)",
					c->enabled_ns ? 100.0 * c->running_ns /
					c->enabled_ns : 0, c->enabled_ns / 1e9);
			fputc('\n', out);
		}
	}
}
