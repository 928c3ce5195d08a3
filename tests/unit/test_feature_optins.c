// SPDX-License-Identifier: GPL-2.0
/*
 * Every opt-in line of feature_table.h against the BPF object it names
 * things in: the collector finds each line's switches in the object's
 * .rodata by their BTF names, its map by name and its tracepoint among
 * its own (set_optins()).  A misspelled name would only fail when a user
 * asks for that option; here every line is resolved, on the real
 * object (opened, not loaded: no privileges, no kernel needed), and each
 * switch is seen to land on a bool of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <bpf/libbpf.h>

#include "collector_int.h"
#include "vmapstat.skel.h"

/* The distinct switch names of the opt-in lines (stock: also stock_want). */
static unsigned int nr_switches(bool stock)
{
	const char *seen[2 * 32];
	unsigned int n = 0, i, k;

	for (i = 0; i < nr_feature_optins; i++) {
		const char *names[2] = { feature_optins[i].want,
					 stock ? feature_optins[i].stock_want : NULL };

		for (int j = 0; j < 2; j++) {
			if (!names[j])
				continue;
			for (k = 0; k < n && strcmp(seen[k], names[j]); k++)
				;
			if (k == n)
				seen[n++] = names[j];
		}
	}
	return n;
}

/*
 * set_optins() on a freshly opened object with every opt-in feature asked
 * (@all) or none, on a kernel with the series or without: the bytes of
 * .rodata it changed.
 */
static unsigned int run_set_optins(bool all, bool series, struct vmapstat_bpf **out)
{
	struct vmapstat_bpf *s = vmapstat_bpf__open();
	struct collector c = { 0 };
	struct plan p = { .series = series };
	unsigned char *before;
	const unsigned char *after;
	char err[256] = "";
	size_t sz, i;
	unsigned int changed = 0;

	assert_non_null(s);
	after = bpf_map__initial_value(s->maps.rodata, &sz);
	assert_non_null(after);
	before = malloc(sz);
	assert_non_null(before);
	memcpy(before, after, sz);
	for (i = 0; all && i < nr_feature_optins; i++)
		c.opts.optin |= VMAPSCOPE_FEAT_BIT(feature_optins[i].feat);
	if (set_optins(&c, s, &p, err, sizeof(err)))
		fail_msg("set_optins: %s", err);
	for (i = 0; i < sz; i++)
		if (before[i] != after[i]) {
			/* a bool switch, off by default, turned on */
			assert_int_equal(before[i], 0);
			assert_int_equal(after[i], 1);
			changed++;
		}
	free(before);
	*out = s;
	return changed;
}

static void test_every_line_resolves(void **state)
{
	struct vmapstat_bpf *s;
	unsigned int i;

	(void)state;
	assert_true(nr_feature_optins > 0);
	/* asked for, on a stock kernel: every want and stock_want switch set */
	assert_int_equal(run_set_optins(true, false, &s), nr_switches(true));
	for (i = 0; i < nr_feature_optins; i++) {
		const struct feature_optin *f = &feature_optins[i];

		assert_int_not_equal(tp_by_name(f->tp), NR_TPS);
		if (f->map) {
			struct bpf_map *m = bpf_object__find_map_by_name(s->obj, f->map);

			assert_non_null(m);
			/* asked for: the map keeps its declared size */
			assert_true(bpf_map__max_entries(m) > 1);
		}
	}
	vmapstat_bpf__destroy(s);

	/* asked for, on a series kernel: the want switches only */
	assert_int_equal(run_set_optins(true, true, &s), nr_switches(false));
	vmapstat_bpf__destroy(s);

	/* not asked for: nothing set, each line's map shrunk to one entry */
	assert_int_equal(run_set_optins(false, true, &s), 0);
	for (i = 0; i < nr_feature_optins; i++)
		if (feature_optins[i].map)
			assert_int_equal(bpf_map__max_entries(bpf_object__find_map_by_name(
						 s->obj, feature_optins[i].map)), 1);
	vmapstat_bpf__destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_line_resolves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
