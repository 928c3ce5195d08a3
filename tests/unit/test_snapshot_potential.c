// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the live audit's mapping potential: the per-run arithmetic
 * the BPF walker runs (lsnap_run_potential(), plain C shared with it), and
 * how the figures fold into rows and reach the JSON output on each arch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include <json-c/json.h>

#include "snapshot.h"
#include "snapshot_pt.h"

#define K 1024ULL
#define M (1024 * K)
#define VA 0xffffc90000000000ULL	/* 1G-aligned */
#define PA 0x40000000ULL		/* 1G-aligned */

struct pot {
	__u64 v[LSNAP_NR_POT];
};

/* A run inside its area (not at its first page). */
static struct pot run(unsigned int arch, __u64 va, __u64 pa, __u64 bytes, int cont)
{
	struct lsnap_run r = { .va = va, .pa = pa, .pages = bytes >> 12, .cont = cont };
	struct pot p = { { 0 } };

	lsnap_run_potential(arch, &r, p.v);
	return p;
}

/* A run that starts at the first page of its area. */
static struct pot first_run(unsigned int arch, __u64 va, __u64 pa, __u64 bytes)
{
	struct lsnap_run r = { .va = va, .pa = pa, .pages = bytes >> 12, .first = 1 };
	struct pot p = { { 0 } };

	lsnap_run_potential(arch, &r, p.v);
	return p;
}

static void assert_pot(struct pot p, __u64 c64k, __u64 c2m, __u64 mis)
{
	assert_int_equal(p.v[LSNAP_POT_64K], c64k);
	assert_int_equal(p.v[LSNAP_POT_2M], c2m);
	assert_int_equal(p.v[LSNAP_POT_REALIGN], 0);
	assert_int_equal(p.v[LSNAP_POT_MISALIGNED], mis);
}

static void assert_realign(struct pot p, __u64 realign, __u64 mis)
{
	assert_int_equal(p.v[LSNAP_POT_64K], 0);
	assert_int_equal(p.v[LSNAP_POT_2M], 0);
	assert_int_equal(p.v[LSNAP_POT_REALIGN], realign);
	assert_int_equal(p.v[LSNAP_POT_MISALIGNED], mis);
}

static void test_x86_runs(void **state)
{
	const unsigned int x = LSNAP_ARCH_X86_64;

	/* A 2M block whose VA and PA are both 2M-aligned: one PMD in place. */
	assert_pot(run(x, VA, PA, 2 * M, 0), 0, 2 * M, 0);
	/* Same memory one page into the VA: needs another placement. */
	assert_pot(run(x, VA + 4 * K, PA, 2 * M, 0), 0, 0, 2 * M);
	/* Shorter than a block: nothing, whatever the alignment. */
	assert_pot(run(x, VA + 4 * K, PA, 2 * M - 4 * K, 0), 0, 0, 0);
	assert_pot(run(x, VA, PA, 2 * M - 4 * K, 0), 0, 0, 0);
	/* x86_64 has no 64K block: a 64K aligned run is no potential. */
	assert_pot(run(x, VA, PA, 64 * K, 0), 0, 0, 0);
	/* Congruent but unaligned: only the whole 2M blocks inside count. */
	assert_pot(run(x, VA + 4 * K, PA + 4 * K, 6 * M, 0), 0, 4 * M, 0);
	/* An order-10 block vmap()ed from its second page: 4M - 4K misaligned. */
	assert_pot(run(x, VA, PA + 4 * K, 4 * M - 4 * K, 0), 0, 0, 4 * M - 4 * K);
}

static void test_arm64_runs(void **state)
{
	const unsigned int a = LSNAP_ARCH_ARM64;

	assert_pot(run(a, VA, PA, 64 * K, 0), 64 * K, 0, 0);
	/* A whole 2M block counts as 2M, not as 32 x 64K as well. */
	assert_pot(run(a, VA, PA, 2 * M, 0), 0, 2 * M, 0);
	/* 2M + 5 x 64K + 3 pages after a 2M boundary. */
	assert_pot(run(a, VA, PA, 2 * M + 5 * 64 * K + 12 * K, 0), 5 * 64 * K, 2 * M, 0);
	/* Congruent modulo 64K only: 64K blocks, no PMD. */
	assert_pot(run(a, VA + 64 * K, PA, 2 * M, 0), 2 * M, 0, 0);
	/* Not congruent modulo 64K, at least 64K long: misaligned. */
	assert_pot(run(a, VA + 4 * K, PA, 64 * K, 0), 0, 0, 64 * K);
	assert_pot(run(a, VA + 4 * K, PA, 60 * K, 0), 0, 0, 0);
	/* Contiguous PTEs are 64K already: only a PMD would be more. */
	assert_pot(run(a, VA, PA, 2 * M, 1), 0, 2 * M, 0);
	assert_pot(run(a, VA, PA, 64 * K, 1), 0, 0, 0);
	assert_pot(run(a, VA + 64 * K, PA, 2 * M, 1), 0, 0, 0);
}

/*
 * A run at its area's first page, physically block-aligned but mapped at
 * a VA that is not: what aligning the area would give (stock vmap()
 * places areas at page granularity).
 */
static void test_realign(void **state)
{
	/* An order-9 block vmap()ed at a page-aligned VA: one PMD after realigning. */
	assert_realign(first_run(LSNAP_ARCH_X86_64, VA + 0x42000, PA, 2 * M), 2 * M, 0);
	/* arm64: 2M + 2 x 64K after realigning. */
	assert_realign(first_run(LSNAP_ARCH_ARM64, VA + 4 * K, PA, 2 * M + 128 * K + 8 * K),
		       2 * M + 128 * K, 0);
	/* An order-4 block on x86_64: no 64K block there, and below 2M. */
	assert_realign(first_run(LSNAP_ARCH_X86_64, VA + 4 * K, PA, 64 * K), 0, 0);
	/* Off a block boundary physically: aligning the area cannot help. */
	assert_realign(first_run(LSNAP_ARCH_X86_64, VA, PA + 4 * K, 4 * M - 4 * K), 0,
		       4 * M - 4 * K);
	/* Not at the area's first page: misaligned, even if PA is aligned. */
	assert_realign(run(LSNAP_ARCH_X86_64, VA + 4 * K, PA, 2 * M, 0), 0, 2 * M);
	/* At the first page and already congruent: plain in-place potential. */
	assert_pot(first_run(LSNAP_ARCH_X86_64, VA, PA, 2 * M), 0, 2 * M, 0);
}

static void test_blocks_in(void **state)
{
	assert_int_equal(lsnap_blocks_in(VA, VA + 2 * M, 2 * M), 1);
	assert_int_equal(lsnap_blocks_in(VA + 4 * K, VA + 4 * M, 2 * M), 1);
	assert_int_equal(lsnap_blocks_in(VA + 4 * K, VA + 4 * M - 4 * K, 2 * M), 0);
	assert_int_equal(lsnap_blocks_in(VA, VA, 64 * K), 0);
}

/* Two areas of one caller: potential adds up per row, per API and total. */
static void fold(struct live_snapshot *s, struct live_areas *areas, const char *arch)
{
	static const char *const lines[] = {
		"0xffffc90000200000-0xffffc90000401000 2101248 m_map+0x1c/0x40 [m] pages=512 vmap",
		"0xffffc90000800000-0xffffc90000811000   69632 m_map+0x1c/0x40 [m] pages=16 vmap",
	};
	struct live_area_result res[2];
	struct live_opts o = { 0 };
	size_t i;

	memset(areas, 0, sizeof(*areas));
	areas->v = calloc(2, sizeof(*areas->v));
	assert_non_null(areas->v);
	for (i = 0; i < 2; i++)
		assert_int_equal(vmallocinfo_parse_line(lines[i], &areas->v[areas->n++]), 0);
	memset(res, 0, sizeof(res));
	res[0].bytes[12] = 2 * M;
	res[0].potential[LSNAP_POT_2M] = 2 * M;
	res[1].bytes[12] = 64 * K;
	res[1].potential[LSNAP_POT_64K] = 64 * K;
	res[1].potential[LSNAP_POT_MISALIGNED] = 8 * K;
	memset(s, 0, sizeof(*s));
	assert_int_equal(live_fold(areas, res, &o, s), 0);
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
}

static json_object *json_of(const struct live_snapshot *s, bool per_caller)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_object *o;

	assert_non_null(f);
	assert_int_equal(live_print_json(f, s, per_caller), 0);
	fclose(f);
	o = json_tokener_parse(buf);
	free(buf);
	assert_non_null(o);
	return o;
}

static __u64 pot_of(json_object *row, const char *key, bool *present)
{
	json_object *p, *v;

	assert_true(json_object_object_get_ex(row, "potential", &p));
	*present = json_object_object_get_ex(p, key, &v);
	return *present ? json_object_get_int64(v) : 0;
}

static void test_fold_and_json(void **state)
{
	struct live_snapshot s;
	struct live_areas areas;
	json_object *j, *rows, *row;
	bool present;

	fold(&s, &areas, "arm64");
	assert_int_equal(s.nr_rows, 1);
	assert_int_equal(s.rows[0].potential[LSNAP_POT_2M], 2 * M);
	assert_int_equal(s.rows[0].potential[LSNAP_POT_64K], 64 * K);
	assert_int_equal(s.total.potential[LSNAP_POT_MISALIGNED], 8 * K);
	j = json_of(&s, true);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	row = json_object_array_get_idx(rows, 0);
	assert_int_equal(pot_of(row, "could_2M", &present), 2 * M);
	assert_int_equal(pot_of(row, "could_64K", &present), 64 * K);
	assert_true(present);
	assert_int_equal(pot_of(row, "misaligned", &present), 8 * K);
	json_object_put(j);
	/* Per-API view carries the same sums. */
	j = json_of(&s, false);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	assert_int_equal(pot_of(json_object_array_get_idx(rows, 0), "could_2M", &present), 2 * M);
	json_object_put(j);
	live_snapshot_free(&s);
	live_areas_free(&areas);

	/* x86_64 has no 64K block: no could_64K key at all. */
	fold(&s, &areas, "x86_64");
	j = json_of(&s, true);
	assert_true(json_object_object_get_ex(j, "total", &row));
	pot_of(row, "could_64K", &present);
	assert_false(present);
	assert_int_equal(pot_of(row, "could_2M", &present), 2 * M);
	json_object_put(j);
	live_snapshot_free(&s);
	live_areas_free(&areas);
}

static void test_names(void **state)
{
	assert_string_equal(live_potential_name(LSNAP_POT_64K), "could_64K");
	assert_string_equal(live_potential_name(LSNAP_POT_2M), "could_2M");
	assert_string_equal(live_potential_name(LSNAP_POT_REALIGN), "realign");
	assert_string_equal(live_potential_name(LSNAP_POT_MISALIGNED), "misaligned");
	assert_true(live_potential_applies("arm64", LSNAP_POT_64K));
	assert_false(live_potential_applies("x86_64", LSNAP_POT_64K));
	assert_true(live_potential_applies("x86_64", LSNAP_POT_MISALIGNED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_runs),
		cmocka_unit_test(test_arm64_runs),
		cmocka_unit_test(test_realign),
		cmocka_unit_test(test_blocks_in),
		cmocka_unit_test(test_fold_and_json),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
