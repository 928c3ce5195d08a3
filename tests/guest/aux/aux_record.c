// SPDX-License-Identifier: GPL-2.0
/*
 * aux-record - what "perf record -C CPU -m ,SIZE -e PMU// -- CMD" does
 * with an AUX PMU, for a PMU the perf tool does not know (perf only sets
 * up AUX areas for the PMUs it has code for):
 *
 *   perf_event_open() on one CPU, disabled; mmap() of the ring buffer;
 *   aux_offset / aux_size in its user page; mmap() of the AUX area (the
 *   perf core allocates it, the PMU's setup_aux() maps it); enable; run
 *   CMD while draining both buffers; disable, drain, unmap, close.
 *
 * Draining checks every byte the PMU wrote: aux_test_pmu writes each
 * 8-byte word as its own position in the AUX stream XOR MAGIC.  The
 * PERF_RECORD_AUX records must cover the stream without gaps.
 *
 *   aux-record [-e PMU] [-m SIZE] [-w WATERMARK] [-C CPU] [-d DATA_PAGES]
 *              [-b MIN_BYTES] [-- CMD [ARGS...]]
 * SIZE, WATERMARK, MIN_BYTES take K/M/G.  -b: after CMD, keep streaming
 * until at least MIN_BYTES went through the AUX buffer (at most 60 s).
 * Exit: CMD's status if it failed, 1 if a check failed, 2 usage, else 0.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x5a5a0000a5a50000ULL

static struct {
	uint64_t aux_tail, data_tail, aux_size, verified, bad, records;
	uint64_t rec_bytes, rec_next, gaps, truncated, lost;
	struct perf_event_mmap_page *pc;
	unsigned char *data, *aux;
	size_t data_size;
} r;

static int usage(void)
{
	fprintf(stderr, "usage: aux-record [-e PMU] [-m SIZE] [-w WATERMARK] [-C CPU] "
		"[-d DATA_PAGES] [-b MIN_BYTES] [-- CMD [ARGS...]]\n");
	return 2;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fallthrough */
	case 'M': case 'm': v <<= 10; /* fallthrough */
	case 'K': case 'k': v <<= 10; end++; break;
	}
	if (end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* Copy LEN bytes at ring offset OFF out of the data ring (it may wrap). */
static void ring_copy(void *dst, uint64_t off, size_t len)
{
	size_t o = off & (r.data_size - 1), first = r.data_size - o;

	if (first >= len) {
		memcpy(dst, r.data + o, len);
	} else {
		memcpy(dst, r.data + o, first);
		memcpy((char *)dst + first, r.data, len - first);
	}
}

static void drain(void)
{
	uint64_t head, pos;

	head = __atomic_load_n(&r.pc->aux_head, __ATOMIC_ACQUIRE);
	for (pos = r.aux_tail; pos < head; pos += 8) {
		uint64_t v = *(uint64_t *)(r.aux + (pos & (r.aux_size - 1)));

		if (v != (pos ^ MAGIC)) {
			if (!r.bad)
				fprintf(stderr, "aux-record: AUX word at stream offset %llu is %#llx, "
					"want %#llx\n", (unsigned long long)pos,
					(unsigned long long)v, (unsigned long long)(pos ^ MAGIC));
			r.bad++;
		} else {
			r.verified += 8;
		}
	}
	r.aux_tail = head;
	__atomic_store_n(&r.pc->aux_tail, head, __ATOMIC_RELEASE);

	head = __atomic_load_n(&r.pc->data_head, __ATOMIC_ACQUIRE);
	while (r.data_tail < head) {
		struct perf_event_header h;
		uint64_t body[3];

		ring_copy(&h, r.data_tail, sizeof(h));
		if (h.type == PERF_RECORD_AUX && h.size >= sizeof(h) + sizeof(body)) {
			/* aux_offset, aux_size, flags */
			ring_copy(body, r.data_tail + sizeof(h), sizeof(body));
			r.records++;
			r.rec_bytes += body[1];
			if (body[0] != r.rec_next)
				r.gaps++;
			r.rec_next = body[0] + body[1];
			if (body[2] & PERF_AUX_FLAG_TRUNCATED)
				r.truncated++;
		} else if (h.type == PERF_RECORD_LOST) {
			ring_copy(body, r.data_tail + sizeof(h), 2 * sizeof(uint64_t));
			r.lost += body[1];
		}
		if (!h.size)
			break;
		r.data_tail += h.size;
	}
	__atomic_store_n(&r.pc->data_tail, r.data_tail, __ATOMIC_RELEASE);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *pmu = "aux_test";
	uint64_t watermark = 0, min_bytes = 0, data_pages = 64;
	long psz = sysconf(_SC_PAGESIZE);
	int cpu = 0, opt, fd, status = 0, failed = 0;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char path[256];
	pid_t child = -1;
	void *base, *aux;
	double t0;
	FILE *f;

	r.aux_size = 4 << 20;
	while ((opt = getopt(argc, argv, "+e:m:w:C:d:b:")) != -1) {
		switch (opt) {
		case 'e': pmu = optarg; break;
		case 'm': if (parse_size(optarg, &r.aux_size)) return usage(); break;
		case 'w': if (parse_size(optarg, &watermark)) return usage(); break;
		case 'C': cpu = atoi(optarg); break;
		case 'd': if (parse_size(optarg, &data_pages)) return usage(); break;
		case 'b': if (parse_size(optarg, &min_bytes)) return usage(); break;
		default: return usage();
		}
	}
	/* perf wants both areas to be a power-of-two number of pages */
	if (r.aux_size < (uint64_t)psz || (r.aux_size & (r.aux_size - 1)) ||
	    !data_pages || (data_pages & (data_pages - 1)) || watermark > UINT32_MAX) {
		fprintf(stderr, "aux-record: -m and -d must be powers of two pages, -w below 4G\n");
		return 2;
	}

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &attr.type) != 1) {
		fprintf(stderr, "aux-record: %s: %s\n", path, f ? "unreadable" : strerror(errno));
		return 1;
	}
	fclose(f);
	attr.disabled = 1;
	attr.aux_watermark = watermark;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "aux-record: perf_event_open(%s, cpu %d): %s\n", pmu, cpu,
			strerror(errno));
		return 1;
	}
	r.data_size = data_pages * psz;
	base = mmap(NULL, psz + r.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, "aux-record: mmap of the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	r.pc = base;
	r.data = (unsigned char *)base + psz;
	r.pc->aux_offset = psz + r.data_size;
	r.pc->aux_size = r.aux_size;
	/* writable: the PMU must not overwrite what aux_tail has not passed */
	aux = mmap(NULL, r.aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, r.pc->aux_offset);
	if (aux == MAP_FAILED) {
		fprintf(stderr, "aux-record: mmap of the %llu-byte AUX area: %s\n",
			(unsigned long long)r.aux_size, strerror(errno));
		return 1;
	}
	r.aux = aux;

	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		fprintf(stderr, "aux-record: enable: %s\n", strerror(errno));
		return 1;
	}
	if (optind < argc) {
		child = fork();
		if (child < 0) {
			perror("aux-record: fork");
			return 1;
		}
		if (!child) {
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "aux-record: cannot run '%s': %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
	}
	while (child > 0) {
		pid_t p = waitpid(child, &status, WNOHANG);

		if (p == child)
			break;
		drain();
		usleep(10000);
	}
	for (t0 = now(); r.aux_tail < min_bytes && now() - t0 < 60; usleep(10000))
		drain();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain();
	munmap(aux, r.aux_size);
	munmap(base, psz + r.data_size);
	close(fd);

	printf("aux-record: %s cpu %d: AUX %llu bytes, streamed %llu bytes in %llu records, "
	       "verified %llu, bad words %llu, record gaps %llu, truncated %llu, lost %llu\n",
	       pmu, cpu, (unsigned long long)r.aux_size, (unsigned long long)r.aux_tail,
	       (unsigned long long)r.records, (unsigned long long)r.verified,
	       (unsigned long long)r.bad, (unsigned long long)r.gaps,
	       (unsigned long long)r.truncated, (unsigned long long)r.lost);
	if (r.bad || r.gaps || r.lost || r.rec_bytes != r.aux_tail || r.verified != r.aux_tail) {
		fprintf(stderr, "aux-record: the AUX stream does not check out\n");
		failed = 1;
	}
	if (r.aux_tail < min_bytes) {
		fprintf(stderr, "aux-record: only %llu of %llu bytes streamed\n",
			(unsigned long long)r.aux_tail, (unsigned long long)min_bytes);
		failed = 1;
	}
	if (child > 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return failed;
}
