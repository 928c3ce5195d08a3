// SPDX-License-Identifier: GPL-2.0
/*
 * --by cgroup / --by comm: rows with labels through sample_delta, the
 * per-API fold, the text report, the JSON rows, the Prometheus families
 * and the --top-callers bound over (caller, label) pairs (the folded
 * totals exact); the label texts (row_labels.h) from a cgroup tree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "prom_metrics.h"
#include "report.h"
#include "row_labels.h"
#include "rows.h"

static void snap_init(struct vmapscope_sample *s, size_t nr, int by)
{
	memset(s, 0, sizeof(*s));
	s->nr_rows = nr;
	s->rows = calloc(nr ? nr : 1, sizeof(*s->rows));
	assert_non_null(s->rows);
	snprintf(s->arch, sizeof(s->arch), "x86_64");
	s->page_shift = 12;
	s->symbols_ok = true;
	s->stats_max_entries = 2048;
	s->interval_s = 1;
	s->by = by;
	s->feat[VMAPSCOPE_FEAT_GRANULE].available = true;
}

/* Row @i: caller @caller (symbol "fn<caller>"), api, cgroup id @id named @path. */
static struct vmapscope_row *row(struct vmapscope_sample *s, size_t i, uint64_t caller, int api,
				uint64_t id, const char *path, uint64_t bytes)
{
	struct vmapscope_row *r = &s->rows[i];

	r->caller = caller;
	r->api = api;
	snprintf(r->sym, sizeof(r->sym), "fn%llu", (unsigned long long)caller);
	r->label[0] = id;
	snprintf(r->label_str, sizeof(r->label_str), "%s", path);
	r->st.bytes[12] = bytes;
	r->st.areas = 1;
	return r;
}

static void test_row_cmp_and_delta(void **state)
{
	struct vmapscope_sample prev, cur, d;

	(void)state;
	/* one caller, two cgroups: two rows, ordered by label after api */
	snap_init(&prev, 2, VMAPSCOPE_BY_CGROUP);
	row(&prev, 0, 1, VMAPSCOPE_API_VMALLOC, 10, "/a", 4096);
	row(&prev, 1, 1, VMAPSCOPE_API_VMALLOC, 20, "/b", 8192);
	assert_true(row_cmp(&prev.rows[0], &prev.rows[1]) < 0);
	snap_init(&cur, 3, VMAPSCOPE_BY_CGROUP);
	row(&cur, 0, 1, VMAPSCOPE_API_VMALLOC, 10, "/a", 4096);		/* idle */
	row(&cur, 1, 1, VMAPSCOPE_API_VMALLOC, 20, "/b", 8192 + 4096);
	row(&cur, 2, 1, VMAPSCOPE_API_VMALLOC, 30, "/c", 12288);	/* new */
	cur.rows[1].st.areas = 3;
	assert_int_equal(sample_delta(&cur, &prev, &d), 0);
	assert_int_equal(d.by, VMAPSCOPE_BY_CGROUP);
	assert_int_equal(d.nr_rows, 2);
	assert_string_equal(d.rows[0].label_str, "/b");
	assert_int_equal(d.rows[0].st.bytes[12], 4096);
	assert_int_equal(d.rows[0].st.areas, 2);
	assert_string_equal(d.rows[1].label_str, "/c");
	assert_int_equal(d.rows[1].st.bytes[12], 12288);
	sample_free(&d);
	sample_free(&cur);
	sample_free(&prev);
}

/* rows_by_api keeps the label: one row per (api, label), sums exact. */
static void test_fold_by_api_keeps_labels(void **state)
{
	struct vmapscope_sample s, f;

	(void)state;
	snap_init(&s, 4, VMAPSCOPE_BY_CGROUP);
	row(&s, 0, 1, VMAPSCOPE_API_VMALLOC, 10, "/a", 4096);
	row(&s, 1, 1, VMAPSCOPE_API_VMALLOC, 20, "/b", 8192);
	row(&s, 2, 2, VMAPSCOPE_API_VMALLOC, 10, "/a", 16384);
	row(&s, 3, 2, VMAPSCOPE_API_VMAP, 10, "/a", 32768);
	assert_int_equal(rows_by_api(&s, &f), 0);
	assert_int_equal(f.nr_rows, 3);
	assert_int_equal(f.rows[0].api, VMAPSCOPE_API_VMALLOC);
	assert_string_equal(f.rows[0].label_str, "/a");
	assert_string_equal(f.rows[0].sym, "vmalloc");
	assert_int_equal(f.rows[0].st.bytes[12], 4096 + 16384);
	assert_int_equal(f.rows[0].st.areas, 2);
	assert_string_equal(f.rows[1].label_str, "/b");
	assert_int_equal(f.rows[1].st.bytes[12], 8192);
	assert_int_equal(f.rows[2].api, VMAPSCOPE_API_VMAP);
	assert_int_equal(f.rows[2].st.bytes[12], 32768);
	sample_free(&f);
	/* without --by the fold is one row per api, as before */
	s.by = 0;
	memset(s.rows[0].label, 0, sizeof(s.rows[0].label));
	memset(s.rows[1].label, 0, sizeof(s.rows[1].label));
	memset(s.rows[2].label, 0, sizeof(s.rows[2].label));
	memset(s.rows[3].label, 0, sizeof(s.rows[3].label));
	assert_int_equal(rows_by_api(&s, &f), 0);
	assert_int_equal(f.nr_rows, 2);
	assert_int_equal(f.rows[0].st.bytes[12], 4096 + 8192 + 16384);
	sample_free(&f);
	sample_free(&s);
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static void test_json_and_text(void **state)
{
	struct report_opts o = { .per_caller = true, .lat_unit = "usecs", .lat_div = 1000 };
	struct vmapscope_sample s;
	struct json_object *j, *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snap_init(&s, 2, VMAPSCOPE_BY_CGROUP);
	row(&s, 0, 1, VMAPSCOPE_API_VMALLOC, 10, "/system.slice/a.service", 4096);
	row(&s, 1, 1, VMAPSCOPE_API_VMALLOC, 77, "77", 8192);	/* unresolved: the id */
	j = report_json(&s, &o);
	assert_non_null(j);
	r = json_object_array_get_idx(get(j, "rows"), 0);
	assert_string_equal(json_object_get_string(get(r, "cgroup")), "/system.slice/a.service");
	assert_false(json_object_object_get_ex(r, "comm", NULL));
	r = json_object_array_get_idx(get(j, "rows"), 1);
	assert_string_equal(json_object_get_string(get(r, "cgroup")), "77");
	json_object_put(j);
	/* comm */
	s.by = VMAPSCOPE_BY_COMM;
	j = report_json(&s, &o);
	r = json_object_array_get_idx(get(j, "rows"), 0);
	assert_true(json_object_object_get_ex(r, "comm", NULL));
	assert_false(json_object_object_get_ex(r, "cgroup", NULL));
	json_object_put(j);
	/* without --by: no label key (the golden layout) */
	s.by = 0;
	j = report_json(&s, &o);
	r = json_object_array_get_idx(get(j, "rows"), 0);
	assert_false(json_object_object_get_ex(r, "cgroup", NULL));
	assert_false(json_object_object_get_ex(r, "comm", NULL));
	json_object_put(j);
	/* text: the label after the caller */
	s.by = VMAPSCOPE_BY_CGROUP;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text(f, &s, &o);
	fclose(f);
	assert_non_null(strstr(buf, "fn1  [vmalloc]  cgroup=/system.slice/a.service\n"));
	assert_non_null(strstr(buf, "fn1  [vmalloc]  cgroup=77\n"));
	free(buf);
	sample_free(&s);
}

/* The exposition's value of the line starting with @series + " ", or -1. */
static double value_of(const struct prom_buf *b, const char *series)
{
	size_t n = strlen(series);
	const char *p = b->data;

	while (p && *p) {
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static int count_lines_with(const struct prom_buf *b, const char *needle)
{
	const char *p = b->data;
	int n = 0;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

#define BYTES(c, g) "vmapscope_mapped_bytes_total{caller=\"" c "\",cgroup=\"" g \
		    "\",api=\"vmalloc\",granule=\"4K\"}"

/*
 * --top-callers 2 bounds (caller, cgroup) pairs: the two biggest pairs
 * keep their labels, every other row folds into (other, other), and the
 * total over all series equals the total over all rows.
 */
static void test_prom_top_pairs(void **state)
{
	struct prom_state *st = prom_state_new(2);
	struct vmapscope_sample s;
	struct prom_buf b;
	double sum = 0;
	const char *p;

	(void)state;
	assert_non_null(st);
	prom_buf_init(&b);
	snap_init(&s, 5, VMAPSCOPE_BY_CGROUP);
	row(&s, 0, 1, VMAPSCOPE_API_VMALLOC, 10, "/a", 409600);	/* top */
	row(&s, 1, 1, VMAPSCOPE_API_VMALLOC, 20, "/b", 4096);
	row(&s, 2, 2, VMAPSCOPE_API_VMALLOC, 10, "/a", 40960);	/* top */
	row(&s, 3, 2, VMAPSCOPE_API_VMALLOC, 20, "/b", 8192);
	row(&s, 4, 3, VMAPSCOPE_API_VMALLOC, 30, "/c", 12288);
	assert_int_equal(prom_state_add(st, &s), 0);
	/* a second interval: a new big pair does not push the named ones out */
	s.rows[4].st.bytes[12] = 4096000;
	assert_int_equal(prom_state_add(st, &s), 0);
	assert_int_equal(prom_render(st, &b), 0);
	assert_true(value_of(&b, BYTES("fn1", "/a")) == 2 * 409600);
	assert_true(value_of(&b, BYTES("fn2", "/a")) == 2 * 40960);
	assert_true(value_of(&b, BYTES("fn1", "/b")) == -1);
	assert_true(value_of(&b, BYTES("other", "other")) ==
		    2 * (4096 + 8192) + 12288 + 4096000);
	assert_int_equal(count_lines_with(&b, "vmapscope_mapped_bytes_total{caller="), 3);
	/* exact: the series add up to every byte of every row */
	for (p = b.data; (p = strstr(p, "vmapscope_mapped_bytes_total{caller=")); p++)
		sum += strtod(strchr(p, ' ') + 1, NULL);
	assert_true(sum == 2 * (409600 + 4096 + 40960 + 8192) + 12288 + 4096000);
	/* histograms and counters carry the label too */
	assert_true(count_lines_with(&b, "vmapscope_vmap_areas_total{caller=\"fn1\",cgroup=\"/a\",api=\"vmalloc\"} 2") == 1);
	assert_true(count_lines_with(&b, "vmapscope_vmap_areas_total{caller=\"other\",cgroup=\"other\",api=\"vmalloc\"} 6") == 1);
	sample_free(&s);
	prom_buf_free(&b);
	prom_state_free(st);
}

/* Comm labels in Prometheus; without --by no label at all. */
static void test_prom_comm_and_none(void **state)
{
	struct prom_state *st = prom_state_new(4);
	struct vmapscope_sample s;
	struct prom_buf b;

	(void)state;
	prom_buf_init(&b);
	snap_init(&s, 1, VMAPSCOPE_BY_COMM);
	row(&s, 0, 1, VMAPSCOPE_API_VMALLOC, 0, "kworker/0:1", 4096);
	assert_int_equal(prom_state_add(st, &s), 0);
	assert_int_equal(prom_render(st, &b), 0);
	assert_true(value_of(&b, "vmapscope_mapped_bytes_total{caller=\"fn1\",comm=\"kworker/0:1\","
			     "api=\"vmalloc\",granule=\"4K\"}") == 4096);
	prom_state_free(st);
	prom_buf_reset(&b);
	st = prom_state_new(4);
	s.by = 0;
	s.rows[0].label_str[0] = 0;
	assert_int_equal(prom_state_add(st, &s), 0);
	assert_int_equal(prom_render(st, &b), 0);
	assert_true(value_of(&b, "vmapscope_mapped_bytes_total{caller=\"fn1\",api=\"vmalloc\","
			     "granule=\"4K\"}") == 4096);
	assert_null(strstr(b.data, "comm="));
	assert_null(strstr(b.data, "cgroup="));
	sample_free(&s);
	prom_buf_free(&b);
	prom_state_free(st);
}

/* Cgroup ids are the directories' inode numbers; a comm is its 16 bytes. */
static void test_label_texts(void **state)
{
	char root[] = "/tmp/vmapscope-cg-XXXXXX", path[256], buf[128];
	struct row_labels *rl;
	struct stat sb;
	uint64_t lab[2] = { 0, 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/svc.slice", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/svc.slice/a.scope", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(stat(path, &sb), 0);
	rl = row_labels_new(root);
	assert_non_null(rl);
	lab[0] = sb.st_ino;
	row_labels_text(rl, VMAPSCOPE_BY_CGROUP, lab, buf, sizeof(buf));
	assert_string_equal(buf, "/svc.slice/a.scope");
	assert_int_equal(stat(root, &sb), 0);
	lab[0] = sb.st_ino;
	row_labels_text(rl, VMAPSCOPE_BY_CGROUP, lab, buf, sizeof(buf));
	assert_string_equal(buf, "/");
	lab[0] = 123456789012ULL;	/* no such directory: the id */
	row_labels_text(rl, VMAPSCOPE_BY_CGROUP, lab, buf, sizeof(buf));
	assert_string_equal(buf, "123456789012");
	lab[0] = 0;			/* no label (slot 0) */
	row_labels_text(rl, VMAPSCOPE_BY_CGROUP, lab, buf, sizeof(buf));
	assert_string_equal(buf, "");
	row_labels_free(rl);
	memcpy(lab, "kworker/12:3H\0\0", 16);
	row_labels_text(NULL, VMAPSCOPE_BY_COMM, lab, buf, sizeof(buf));
	assert_string_equal(buf, "kworker/12:3H");
	memcpy(lab, "0123456789abcdef", 16);	/* no NUL: 16 bytes */
	row_labels_text(NULL, VMAPSCOPE_BY_COMM, lab, buf, sizeof(buf));
	assert_string_equal(buf, "0123456789abcdef");
	snprintf(path, sizeof(path), "%s/svc.slice/a.scope", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/svc.slice", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_cmp_and_delta),
		cmocka_unit_test(test_fold_by_api_keeps_labels),
		cmocka_unit_test(test_json_and_text),
		cmocka_unit_test(test_prom_top_pairs),
		cmocka_unit_test(test_prom_comm_and_none),
		cmocka_unit_test(test_label_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
