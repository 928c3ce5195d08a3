// SPDX-License-Identifier: GPL-2.0
/*
 * The one vocabulary (vocab.h, VMAPSCOPE_COUNTERS): every global counter
 * reaches the text report, the JSON object and the Prometheus exposition
 * under its one name, with its own value; so does every fallback reason
 * of a row (VMAPSCOPE_FALLBACKS); API names round-trip through the one
 * parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "prom_metrics.h"
#include "report.h"
#include "vocab.h"

/* Distinct, non-zero: a counter printed under another's name shows. */
static uint64_t value(int i)
{
	return 1000003ULL * (i + 1);
}

static void snap(struct vmapscope_sample *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->rows = calloc(1, sizeof(*s->rows));
	assert_non_null(s->rows);
	snprintf(s->arch, sizeof(s->arch), "x86_64");
	s->page_shift = 12;
	s->symbols_ok = true;
	s->stats_max_entries = 2048;
	s->interval_s = 1;
	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++)
		s->counters[i] = value(i);
}

/* One sample in the three outputs: text report, JSON, Prometheus exposition. */
struct outputs {
	char *text;
	size_t len;
	struct json_object *json;
	struct prom_state *ps;
	struct prom_buf prom;
};

static void render(struct vmapscope_sample *s, const struct report_opts *o, struct outputs *out)
{
	FILE *f;

	memset(out, 0, sizeof(*out));
	f = open_memstream(&out->text, &out->len);
	assert_non_null(f);
	report_text(f, s, o);
	fclose(f);
	out->json = report_json(s, o);
	assert_non_null(out->json);
	out->ps = prom_state_new(20);
	assert_non_null(out->ps);
	assert_int_equal(prom_state_add(out->ps, s), 0);
	prom_buf_init(&out->prom);
	assert_int_equal(prom_render(out->ps, &out->prom), 0);
}

static void outputs_free(struct outputs *out)
{
	prom_buf_free(&out->prom);
	prom_state_free(out->ps);
	json_object_put(out->json);
	free(out->text);
}

static void test_every_counter_in_every_output(void **state)
{
	struct report_opts o = { .lat_unit = "usecs", .lat_div = 1000 };
	struct vmapscope_sample s;
	struct json_object *cnt, *v;
	struct outputs out;
	char want[256];
	int i, k;

	snap(&s);
	render(&s, &o, &out);
	assert_true(json_object_object_get_ex(out.json, "counters", &cnt));

	for (i = 0; i < VMAPSCOPE_CNT_MAX; i++) {
		const char *name = counter_name(i);

		assert_true(strcmp(name, "?") && *counter_help(i));
		for (k = 0; k < i; k++)
			assert_string_not_equal(name, counter_name(k));
		/* text: "name value" */
		snprintf(want, sizeof(want), "%s %llu", name, (unsigned long long)value(i));
		if (!strstr(out.text, want))
			fail_msg("text report lacks '%s':\n%s", want, out.text);
		/* JSON: counters.name == value */
		assert_true(json_object_object_get_ex(cnt, name, &v));
		assert_true((uint64_t)json_object_get_uint64(v) == value(i));
		/* Prometheus: its family with the table's help, and the value */
		snprintf(want, sizeof(want), "# HELP vmapscope_%s_total %s\n", name, counter_help(i));
		if (!strstr(out.prom.data, want))
			fail_msg("exposition lacks '%s'", want);
		snprintf(want, sizeof(want), "\nvmapscope_%s_total %llu\n", name,
			 (unsigned long long)value(i));
		if (!strstr(out.prom.data, want))
			fail_msg("exposition lacks '%s'", want + 1);
	}
	/* the JSON has nothing else but the map capacity */
	assert_int_equal(json_object_object_length(cnt), VMAPSCOPE_CNT_MAX + 1);

	outputs_free(&out);
	sample_free(&s);
}

/*
 * A row that fell back for every reason, each with its own count: the text
 * line, the JSON object and the Prometheus family name each reason with
 * the kernel's name (enum vmap_fallback), with its own count.
 */
static void test_every_reason_in_every_output(void **state)
{
	struct report_opts o = { .lat_unit = "usecs", .lat_div = 1000, .per_caller = true };
	struct json_object *rows, *fb, *v;
	struct vmapscope_sample s;
	struct outputs out;
	char want[256];
	int r, k;

	snap(&s);
	s.nr_rows = 1;
	s.rows[0].caller = 0xffffffff81000000ULL;
	s.rows[0].api = VMAPSCOPE_API_VMAP;
	snprintf(s.rows[0].sym, sizeof(s.rows[0].sym), "drm_gem_vmap+0x10/0x20");
	s.rows[0].st.chunks = 100;
	s.rows[0].st.chunk_pages = 1000;
	s.rows[0].st.bytes[12] = 4096000;
	s.rows[0].st.fallback_calls = 50;
	for (r = 1; r < VMAPSCOPE_NR_FALLBACKS; r++)
		s.rows[0].st.fallbacks[r] = 10 + r;
	assert_null(fallback_name(0));
	assert_null(fallback_name(VMAPSCOPE_NR_FALLBACKS));
	/* the kernel's names, in the kernel's order */
	assert_string_equal(fallback_name(VMAPSCOPE_FB_LIMIT), "limit");
	assert_string_equal(fallback_name(VMAPSCOPE_FB_DISCONTIG), "discontig");
	assert_string_equal(fallback_name(VMAPSCOPE_FB_ALIGN), "align");
	assert_string_equal(fallback_name(VMAPSCOPE_FB_OCCUPIED), "occupied");

	render(&s, &o, &out);
	assert_true(json_object_object_get_ex(out.json, "rows", &rows));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rows, 0), "fallbacks", &fb));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rows, 0), "fallback_calls", &v));
	assert_int_equal(json_object_get_uint64(v), 50);
	assert_int_equal(json_object_object_length(fb), VMAPSCOPE_NR_FALLBACKS - 1);
	if (!strstr(out.text, "    fell back 50, "))
		fail_msg("text report lacks the fallback line:\n%s", out.text);
	if (!strstr(out.prom.data, "vmapscope_fallback_calls_total{caller=\"drm_gem_vmap+0x10/0x20\",api=\"vmap\"} 50\n"))
		fail_msg("exposition lacks the fallback calls:\n%s", out.prom.data);

	for (r = 1; r < VMAPSCOPE_NR_FALLBACKS; r++) {
		const char *name = fallback_name(r);

		for (k = 1; k < r; k++)
			assert_string_not_equal(name, fallback_name(k));
		snprintf(want, sizeof(want), ", %s %d", name, 10 + r);
		if (!strstr(out.text, want))
			fail_msg("text report lacks '%s':\n%s", want, out.text);
		assert_true(json_object_object_get_ex(fb, name, &v));
		assert_int_equal(json_object_get_uint64(v), 10 + r);
		snprintf(want, sizeof(want),
			 "vmapscope_fallbacks_total{caller=\"drm_gem_vmap+0x10/0x20\",api=\"vmap\",reason=\"%s\"} %d\n",
			 name, 10 + r);
		if (!strstr(out.prom.data, want))
			fail_msg("exposition lacks '%s'", want);
	}

	outputs_free(&out);
	sample_free(&s);
}

static void test_api_names_round_trip(void **state)
{
	unsigned int mask;
	int api;

	for (api = 0; api < VMAPSCOPE_API_MAX; api++) {
		assert_int_equal(api_parse_mask(api_name(api), &mask), 0);
		assert_int_equal(mask, 1U << api);
		assert_non_null(strstr(API_LIST_NAMES, api_name(api)));
	}
	assert_int_equal(api_parse_mask(API_LIST_NAMES, &mask), 0);
	assert_int_equal(mask, (1U << VMAPSCOPE_API_MAX) - 1);
	assert_string_equal(api_name(VMAPSCOPE_API_UNATTRIBUTED), "unattributed");
	/* empty items and unknown names are errors, not shorthand */
	assert_int_equal(api_parse_mask("vmalloc,,vmap", &mask), -EINVAL);
	assert_int_equal(api_parse_mask("vmalloc,", &mask), -EINVAL);
	assert_int_equal(api_parse_mask("", &mask), -EINVAL);
	assert_int_equal(api_parse_mask("unattributed", &mask), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_counter_in_every_output),
		cmocka_unit_test(test_every_reason_in_every_output),
		cmocka_unit_test(test_api_names_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
