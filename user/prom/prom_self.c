// SPDX-License-Identifier: GPL-2.0
/* The exporter's metrics about itself (prom_self.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "prom_self.h"

/* Fields 14 (utime), 15 (stime), 22 (starttime), 23 (vsize), 24 (rss) of /proc/self/stat. */
static int read_stat(unsigned long long *utime, unsigned long long *stime,
		     unsigned long long *start, unsigned long long *vsize, long long *rss)
{
	char buf[1024], *p;
	size_t n;
	FILE *f = fopen("/proc/self/stat", "re");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the command name may hold spaces and parentheses: start after the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
			 "%*d %*d %*d %*d %*d %*d %llu %llu %lld",
			 utime, stime, start, vsize, rss) != 5)
		return -1;
	return 0;
}

static long long boot_time(void)
{
	char line[256];
	long long bt = -1;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return bt;
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static void gauge(struct prom_buf *b, const char *name, const char *help, double v)
{
	prom_family(b, name, PROM_GAUGE, help);
	prom_sample_double(b, name, NULL, 0, v);
}

void prom_self_process(struct prom_buf *b)
{
	unsigned long long ut, st, start, vsize;
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE), fds;
	long long rss, bt;
	struct rlimit rl;

	if (tick > 0 && !read_stat(&ut, &st, &start, &vsize, &rss)) {
		prom_family(b, "process_cpu_seconds_total", PROM_COUNTER,
			    "Total user and system CPU time spent in seconds.");
		prom_sample_double(b, "process_cpu_seconds_total", NULL, 0,
				   (double)(ut + st) / (double)tick);
		fds = open_fds();
		if (!getrlimit(RLIMIT_NOFILE, &rl))
			gauge(b, "process_max_fds", "Maximum number of open file descriptors.",
			      rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur);
		if (fds >= 0)
			gauge(b, "process_open_fds", "Number of open file descriptors.", (double)fds);
		gauge(b, "process_resident_memory_bytes", "Resident memory size in bytes.",
		      (double)rss * (double)page);
		bt = boot_time();
		if (bt >= 0)
			gauge(b, "process_start_time_seconds",
			      "Start time of the process since unix epoch in seconds.",
			      (double)bt + (double)start / (double)tick);
		gauge(b, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
		      (double)vsize);
		if (!getrlimit(RLIMIT_AS, &rl))
			gauge(b, "process_virtual_memory_max_bytes",
			      "Maximum amount of virtual memory available in bytes.",
			      rl.rlim_cur == RLIM_INFINITY ? 18446744073709551615.0 :
			      (double)rl.rlim_cur);
	}
}

void prom_self_http(struct prom_buf *b, const struct prom_server_stats *st)
{
	static const double bounds[] = PROM_SCRAPE_BOUNDS;
	const struct {
		const char *code;
		uint64_t n;
	} codes[] = {
		{ "200", st->ok + st->landing }, { "400", st->bad_request },
		{ "401", st->unauthorized },	 { "403", st->forbidden },
		{ "404", st->not_found },	 { "405", st->bad_method },
		{ "503", st->auth_busy },
	};
	const char *const scrape_codes[] = { "200", "500", "503" };
	struct prom_native native = { st->scrape_zero, PROM_SCRAPE_NATIVE_FIRST,
				      PROM_SCRAPE_NATIVE_NR, st->scrape_native };
	struct prom_hist h = { PROM_SCRAPE_NR_BOUNDS, bounds, st->scrape_counts,
			       st->scrape_seconds, &native };
	size_t i;

	_Static_assert(sizeof(bounds) / sizeof(bounds[0]) == PROM_SCRAPE_NR_BOUNDS,
		       "one count per bound");
	prom_family(b, "promhttp_metric_handler_requests_total", PROM_COUNTER,
		    "Total number of scrapes by HTTP status code.");
	for (i = 0; i < 3; i++) {
		struct prom_label l = { "code", scrape_codes[i] };

		prom_sample_u64(b, "promhttp_metric_handler_requests_total", &l, 1,
				i ? 0 : st->ok);
	}
	prom_family(b, "vmapscope_http_requests_total", PROM_COUNTER,
		    "HTTP requests answered by the exporter, by status code (every path).");
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct prom_label l = { "code", codes[i].code };

		prom_sample_u64(b, "vmapscope_http_requests_total", &l, 1, codes[i].n);
	}
	prom_family(b, "vmapscope_scrape_duration_seconds", PROM_HISTOGRAM,
		    "Time from a scrape's complete request to its answer being queued.");
	prom_histogram(b, "vmapscope_scrape_duration_seconds", NULL, 0, &h);
}
