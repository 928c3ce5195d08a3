// SPDX-License-Identifier: GPL-2.0
/* User side of PMU sample attribution (see bpf/area_track.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "pmu_count.h"
#include "pmu_sample.h"
#include "vmapstat.skel.h"
#include "vmapscope.h"

struct pmu_sample {
	struct vmapstat_bpf *skel;	/* the collector's */
	int nr_fds;
	int fds[PMU_MAX_CPUS];		/* one event per CPU, on_sample attached */
	bool chunk_attached;
};

int pmu_sample_open(const struct pmu_sample_opts *opts, struct collector *c,
		    struct pmu_sample **out, FILE *msgs, char *err, size_t errlen)
{
	struct pmu_sample *s = calloc(1, sizeof(*s));
	cpu_set_t cpus, online;
	int first_err = 0;

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->skel = collector_bpf(c);
	if (!s->skel->rodata->track_areas) {
		snprintf(err, errlen, "pmu sampling: the collector does not track vmap areas");
		goto fail;
	}
	/* the tracked areas get their caller from vmap_mapped or their vm_struct */
	s->chunk_attached = !opts->test_only &&
			    (!strcmp(collector_callers_how(c), VMAPSCOPE_TP_MAPPED) ||
			     !strcmp(collector_callers_how(c), "vm_struct"));
	if (opts->test_only) {
		*out = s;
		return 0;
	}

	if (pmu_cpus_select(opts->cpu_list, NULL, &cpus, &online, err, errlen))
		goto fail;
	for (int cpu = 0; cpu < PMU_MAX_CPUS; cpu++) {
		struct perf_event_attr attr = opts->ev->attr;
		int fd;

		if (!CPU_ISSET(cpu, &cpus))
			continue;
		attr.sample_period = opts->period ? opts->period : 10000;
		attr.freq = 0;
		/* makes perf_prepare_sample() fill in (or zero) the address */
		attr.sample_type = PERF_SAMPLE_ADDR;
		/* pmu_sample_start() enables it, once vmapstat is set up */
		attr.disabled = 1;
		fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (!first_err)
				first_err = errno;
			if (msgs)
				fprintf(msgs, "vmapstat: pmu sampling: %s (PMU %s): cannot sample on CPU %d: %s\n",
					opts->ev->name, opts->ev->pmu, cpu, strerror(errno));
			continue;
		}
		/*
		 * The plain ioctl, not bpf_program__attach_perf_event(): libbpf
		 * would first load a probe program to see whether perf links
		 * work, and the collector, attached already, would count the
		 * vmap areas of that load (bpf_check, ...) as mappings made
		 * during the traced period.
		 */
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_program__fd(s->skel->progs.on_sample))) {
			if (msgs)
				fprintf(msgs, "vmapstat: pmu sampling: %s: cannot attach to CPU %d: %s\n",
					opts->ev->name, cpu, strerror(errno));
			close(fd);
			continue;
		}
		s->fds[s->nr_fds++] = fd;
	}
	if (!s->nr_fds) {
		snprintf(err, errlen, "pmu sampling: %s (PMU %s) cannot be sampled on any CPU%s%s",
			 opts->ev->name, opts->ev->pmu, first_err ? ": " : "",
			 first_err ? strerror(first_err) : "");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	pmu_sample_close(s);
	return -1;
}

int pmu_sample_feed(struct pmu_sample *s, enum pmu_sample_op op, uint64_t addr,
		    uint64_t size, uint64_t caller, uint32_t api)
{
	__u64 args[5] = { op, addr, size, caller, api };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.test_feed), &o);
	return err ? -errno : 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct pmu_sample_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

int pmu_sample_read(struct pmu_sample *s, struct pmu_sample_report *rep)
{
	int fd = bpf_map__fd(s->skel->maps.samples);
	struct pmu_sample_key key, next, *prev = NULL;

	memset(rep, 0, sizeof(*rep));
	memcpy(rep->counters, (const void *)s->skel->bss->sample_counters, sizeof(rep->counters));
	rep->chunk_attached = s->chunk_attached;
	/* the map holds at most PMU_SAMPLE_MAX_CALLERS keys */
	rep->rows = calloc(PMU_SAMPLE_MAX_CALLERS, sizeof(*rep->rows));
	if (!rep->rows)
		return -ENOMEM;
	while (rep->nr < PMU_SAMPLE_MAX_CALLERS && !bpf_map_get_next_key(fd, prev, &next)) {
		__u64 v;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		rep->rows[rep->nr].caller = key.caller;
		rep->rows[rep->nr].api = key.api;
		rep->rows[rep->nr].samples = v;
		rep->nr++;
	}
	qsort(rep->rows, rep->nr, sizeof(*rep->rows), cmp_rows);
	return 0;
}

void pmu_sample_report_free(struct pmu_sample_report *rep)
{
	free(rep->rows);
	rep->rows = NULL;
	rep->nr = 0;
}

void pmu_sample_report_print(FILE *out, const struct pmu_sample_report *rep,
			     const char *event, struct collector *col)
{
	const uint64_t *c = rep->counters;
	uint64_t with_addr = c[PMU_SAMPLE_CNT_SAMPLES] - c[PMU_SAMPLE_CNT_NO_ADDR];

	fprintf(out, "\nPMU samples of %s by vmap caller: %llu samples, %llu with a data address\n",
		event, (unsigned long long)c[PMU_SAMPLE_CNT_SAMPLES],
		(unsigned long long)with_addr);
	if (c[PMU_SAMPLE_CNT_SAMPLES] && !with_addr) {
		fprintf(out, "  %s: the PMU gave no data address with its samples, so they cannot be\n"
			"  attributed to callers: see the counts per CPU and per period instead\n",
			event);
		return;
	}
	if (!rep->chunk_attached)
		fprintf(out, "  callers unknown: kernel lacks vmalloc:vmap_mapped (apply kernel-patches/) "
			"and alloc_vmap_area() can be neither fentry- nor kprobe-traced: "
			"samples in tracked areas are shown under caller 0\n");
	fprintf(out, "%12s %7s  %-10s %s\n", "SAMPLES", "SHARE", "API", "CALLER");
	for (size_t i = 0; i < rep->nr; i++) {
		char sym[160];

		if (!rep->rows[i].caller)
			snprintf(sym, sizeof(sym), "? (area allocated, caller not seen)");
		else if (col)
			collector_symbolize(col, rep->rows[i].caller, sym, sizeof(sym));
		else
			snprintf(sym, sizeof(sym), "0x%016llx",
				 (unsigned long long)rep->rows[i].caller);
		fprintf(out, "%12llu %6.1f%%  %-10s %s\n",
			(unsigned long long)rep->rows[i].samples,
			with_addr ? 100.0 * rep->rows[i].samples / with_addr : 0.0,
			api_name(rep->rows[i].api), sym);
	}
	fprintf(out, "%12llu %6.1f%%  %-10s %s\n",
		(unsigned long long)c[PMU_SAMPLE_CNT_OUTSIDE],
		with_addr ? 100.0 * c[PMU_SAMPLE_CNT_OUTSIDE] / with_addr : 0.0, "-",
		"[outside tracked vmap areas]");
	fprintf(out, "  areas tracked: %llu (freed again: %llu); areas allocated before attach are not tracked\n",
		(unsigned long long)c[PMU_SAMPLE_CNT_AREAS],
		(unsigned long long)c[PMU_SAMPLE_CNT_FREED]);
	if (c[PMU_SAMPLE_CNT_AREAS_FULL] || c[PMU_SAMPLE_CNT_BLOCKS_FULL])
		fprintf(out, "  WARNING: %llu areas not tracked (area map full: %llu, block trie full: %llu)\n",
			(unsigned long long)(c[PMU_SAMPLE_CNT_AREAS_FULL] + c[PMU_SAMPLE_CNT_BLOCKS_FULL]),
			(unsigned long long)c[PMU_SAMPLE_CNT_AREAS_FULL],
			(unsigned long long)c[PMU_SAMPLE_CNT_BLOCKS_FULL]);
	if (c[PMU_SAMPLE_CNT_CALLERS_FULL])
		fprintf(out, "  WARNING: %llu samples lost: caller map full (%d entries)\n",
			(unsigned long long)c[PMU_SAMPLE_CNT_CALLERS_FULL], PMU_SAMPLE_MAX_CALLERS);
}

static void ioctl_all(struct pmu_sample *s, unsigned long req)
{
	for (int i = 0; i < s->nr_fds; i++)
		ioctl(s->fds[i], req, 0);
}

void pmu_sample_start(struct pmu_sample *s)
{
	ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

void pmu_sample_stop(struct pmu_sample *s)
{
	ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

void pmu_sample_close(struct pmu_sample *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr_fds; i++)
		close(s->fds[i]);	/* detaches on_sample */
	free(s);
}
