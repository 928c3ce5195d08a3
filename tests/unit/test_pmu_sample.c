// SPDX-License-Identifier: GPL-2.0
/*
 * Sample attribution in the kernel (bpf/area_track.h, in the collector's
 * BPF object), on this machine's kernel:
 *  - test path: known areas (allocs, their vmap_chunk callers, frees) and
 *    sample addresses go through the same BPF code via BPF_PROG_TEST_RUN;
 *    each address must land on its area's caller, others outside, and a
 *    full area map must be counted;
 *  - real path: the page-faults software event sampled with the BPF
 *    perf_event program carries each fault's address: a workload's user
 *    faults all arrive with an address and land outside vmap areas.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector.h"
#include "pmu_sample.h"
#include "vmapscope.h"

static char err[512];
/* The collector whose BPF object carries the sampler (one per test). */
static struct collector *col;

static struct collector *open_collector(bool load_only)
{
	struct collector_opts co = { .track_areas = true, .load_only = load_only };

	if (collector_open(&co, &col, err, sizeof(err)))
		fail_msg("collector: %s", err);
	return col;
}

static void close_all(struct pmu_sample *s)
{
	pmu_sample_close(s);
	collector_close(col);
	col = NULL;
}

#define BASE	0xffffc90000000000ULL
#define A	(BASE + 0x100000)	/* 16K + guard, vmalloc, caller CA */
#define A_SZ	0x5000ULL
#define D	(A + A_SZ)		/* right after A: must not alias it */
#define D_SZ	0x3000ULL
#define B	(BASE + 0x200000)	/* 2M + guard, vmap, caller CB */
#define B_SZ	0x201000ULL
#define C	(BASE + 0x403000)	/* odd alignment: 4K+16K+8K blocks */
#define C_SZ	0x7000ULL
#define CA	0xffffffff81000100ULL
#define CB	0xffffffff81000200ULL
#define CD	0xffffffff81000300ULL

static struct pmu_sample *open_test(void)
{
	struct pmu_sample_opts o = { .test_only = true };
	struct pmu_sample *s;

	if (pmu_sample_open(&o, open_collector(true), &s, stderr, err, sizeof(err)))
		fail_msg("%s", err);
	return s;
}

static uint64_t samples_of(const struct pmu_sample_report *r, uint64_t caller,
			   uint32_t api)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->rows[i].caller == caller && r->rows[i].api == api)
			return r->rows[i].samples;
	return 0;
}

static void feed(struct pmu_sample *s, enum pmu_sample_op op, uint64_t addr,
		 uint64_t size, uint64_t caller, uint32_t api)
{
	int e = pmu_sample_feed(s, op, addr, size, caller, api);

	if (e)
		fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-e));
}

static void sample(struct pmu_sample *s, uint64_t addr)
{
	feed(s, PMU_SAMPLE_OP_SAMPLE, addr, 0, 0, 0);
}

static void test_attribution(void **state)
{
	struct pmu_sample *s = open_test();
	struct pmu_sample_report r;

	(void)state;
	feed(s, PMU_SAMPLE_OP_ALLOC, A, A_SZ, 0, 0);
	feed(s, PMU_SAMPLE_OP_CHUNK, A, 0, CA, VMAPSCOPE_API_VMALLOC);
	feed(s, PMU_SAMPLE_OP_ALLOC, B, B_SZ, 0, 0);
	/* the first chunk need not start at the area's start */
	feed(s, PMU_SAMPLE_OP_CHUNK, B + 0x1000, 0, CB, VMAPSCOPE_API_VMAP);
	feed(s, PMU_SAMPLE_OP_ALLOC, C, C_SZ, 0, 0);	/* no chunk: caller 0 */
	feed(s, PMU_SAMPLE_OP_ALLOC, D, D_SZ, 0, 0);
	feed(s, PMU_SAMPLE_OP_CHUNK, D, 0, CD, VMAPSCOPE_API_IOREMAP);
	/* a chunk outside the task's pending area names nothing */
	feed(s, PMU_SAMPLE_OP_CHUNK, BASE, 0, 0xdead, VMAPSCOPE_API_VMAP);

	sample(s, A);			/* A, first byte */
	sample(s, A + A_SZ - 1);	/* A, last byte */
	sample(s, D);			/* D's first byte, adjacent to A */
	sample(s, D + D_SZ - 8);
	sample(s, B + 0x12345);
	sample(s, B + B_SZ - 1);
	sample(s, B + 0x100000);
	sample(s, C + 0x6fff);		/* last 8K block of C */
	sample(s, C + 0x1000);		/* middle 16K block */
	sample(s, C - 1);		/* just below C: outside */
	sample(s, D + D_SZ);		/* just past D: outside */
	sample(s, B - 1);
	sample(s, 0x00007f0000001000ULL);	/* a user address: outside */
	sample(s, 0);			/* no data address */

	assert_int_equal(pmu_sample_read(s, &r), 0);
	assert_int_equal(samples_of(&r, CA, VMAPSCOPE_API_VMALLOC), 2);
	assert_int_equal(samples_of(&r, CD, VMAPSCOPE_API_IOREMAP), 2);
	assert_int_equal(samples_of(&r, CB, VMAPSCOPE_API_VMAP), 3);
	assert_int_equal(samples_of(&r, 0, 0), 2);
	assert_int_equal(samples_of(&r, 0xdead, VMAPSCOPE_API_VMAP), 0);
	assert_int_equal(r.nr, 4);
	assert_int_equal(r.rows[0].caller, CB);	/* most samples first */
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_SAMPLES], 14);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_NO_ADDR], 1);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_OUTSIDE], 4);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_AREAS], 4);
	pmu_sample_report_free(&r);

	/* freed: its addresses are outside again, the neighbours stay */
	feed(s, PMU_SAMPLE_OP_FREE, A, 0, 0, 0);
	sample(s, A);
	sample(s, A + 0x4fff);
	sample(s, D);
	assert_int_equal(pmu_sample_read(s, &r), 0);
	assert_int_equal(samples_of(&r, CA, VMAPSCOPE_API_VMALLOC), 2);
	assert_int_equal(samples_of(&r, CD, VMAPSCOPE_API_IOREMAP), 3);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_OUTSIDE], 6);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_FREED], 1);

	char out[4096];
	FILE *f = fmemopen(out, sizeof(out), "w");
	pmu_sample_report_print(f, &r, "test", NULL);
	fclose(f);
	assert_non_null(strstr(out, "17 samples, 16 with a data address"));
	assert_non_null(strstr(out, "           3   18.8%  ioremap    0xffffffff81000300"));
	assert_non_null(strstr(out, "           6   37.5%  -          [outside tracked vmap areas]"));
	pmu_sample_report_free(&r);
	close_all(s);
}

static void test_no_addresses_said_so(void **state)
{
	struct pmu_sample *s = open_test();
	struct pmu_sample_report r;
	char out[2048];
	FILE *f;

	(void)state;
	for (int i = 0; i < 5; i++)
		sample(s, 0);
	assert_int_equal(pmu_sample_read(s, &r), 0);
	f = fmemopen(out, sizeof(out), "w");
	pmu_sample_report_print(f, &r, "cpu_cycles", NULL);
	fclose(f);
	assert_non_null(strstr(out, "cpu_cycles: the PMU gave no data address with its samples"));
	assert_non_null(strstr(out, "counts per CPU and per period"));
	pmu_sample_report_free(&r);
	close_all(s);
}

static void test_full_area_map_counted(void **state)
{
	struct pmu_sample *s = open_test();
	struct pmu_sample_report r;

	(void)state;
	/* one more area than the map holds: counted, never silent */
	for (int i = 0; i < PMU_SAMPLE_MAX_AREAS + 1; i++)
		feed(s, PMU_SAMPLE_OP_ALLOC, BASE + (uint64_t)i * 0x2000, 0x2000, 0, 0);
	assert_int_equal(pmu_sample_read(s, &r), 0);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_AREAS], PMU_SAMPLE_MAX_AREAS);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_AREAS_FULL], 1);
	/* the untracked one is outside; a tracked one is inside */
	sample(s, BASE + (uint64_t)PMU_SAMPLE_MAX_AREAS * 0x2000);
	sample(s, BASE + 0x2000);
	pmu_sample_report_free(&r);
	assert_int_equal(pmu_sample_read(s, &r), 0);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_OUTSIDE], 1);
	assert_int_equal(samples_of(&r, 0, 0), 1);
	pmu_sample_report_free(&r);
	close_all(s);
}

static void test_real_page_fault_samples(void **state)
{
	struct pmu_event ev;
	struct pmu_sample_opts o = { .ev = &ev, .period = 1 };
	struct pmu_sample *s;
	struct pmu_sample_report r;
	size_t len = 8 << 20;
	char *p;

	(void)state;
	assert_int_equal(pmu_event_resolve(NULL, "page-faults:u", &ev, 1, err,
					   sizeof(err)), 1);
	if (pmu_sample_open(&o, open_collector(false), &s, stderr, err, sizeof(err)))
		fail_msg("%s", err);
	pmu_sample_start(s);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;		/* one fault per page */
	munmap(p, len);
	assert_int_equal(pmu_sample_read(s, &r), 0);
	/* at least our 2048 faults, each with its (user) address */
	assert_true(r.counters[PMU_SAMPLE_CNT_SAMPLES] >= len / 4096);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_NO_ADDR], 0);
	assert_int_equal(r.counters[PMU_SAMPLE_CNT_OUTSIDE],
			 r.counters[PMU_SAMPLE_CNT_SAMPLES]);
	pmu_sample_report_free(&r);
	close_all(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_no_addresses_said_so),
		cmocka_unit_test(test_full_area_map_counted),
		cmocka_unit_test(test_real_page_fault_samples),
	};

	if (geteuid() != 0) {
		printf("test_pmu_sample: skipped, needs root (BPF)\n");
		return 0;
	}
	return cmocka_run_group_tests_name("pmu_sample", tests, NULL, NULL);
}
