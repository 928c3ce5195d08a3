// SPDX-License-Identifier: GPL-2.0
/*
 * node_exporter textfile writer: path checks, content and mode, no
 * leftovers, and atomicity against a concurrent reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "prom_textfile.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vmapscope-textfile-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vmapscope.prom", dir);
	return 0;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	(void)state;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (rmdir(p))
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void check_bad(const char *p, const char *needle)
{
	char err[256] = "";

	assert_true(prom_textfile_check(p, err, sizeof(err)) < 0);
	if (!strstr(err, needle))
		fail_msg("'%s': error '%s' lacks '%s'", p, err, needle);
	assert_null(strchr(err, '\n'));
}

static void test_check(void **state)
{
	char err[256], p[256];

	(void)state;
	assert_int_equal(prom_textfile_check(path, err, sizeof(err)), 0);
	check_bad("/tmp/x.txt", "must end in .prom");
	check_bad("/tmp/x.prom.tmp", "must end in .prom");
	check_bad("", "must end in .prom");
	check_bad("/nonexistent-vmapscope-dir/x.prom", "does not exist");
	snprintf(p, sizeof(p), "%s/.prom", dir);
	check_bad(p, "empty file name");
	snprintf(p, sizeof(p), "%s/sub.prom", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	check_bad(p, "is a directory");
	/* the name alone: what is wrong wherever it runs (a usage error) */
	assert_int_equal(prom_textfile_check_name("/nonexistent-vmapscope-dir/x.prom",
						  err, sizeof(err)), 0);
	assert_int_equal(prom_textfile_check_name("/tmp/x.txt", err, sizeof(err)), -EINVAL);
	assert_int_equal(prom_textfile_check_name("/tmp/.prom", err, sizeof(err)), -EINVAL);
	assert_int_equal(prom_textfile_check_name(".prom", err, sizeof(err)), -EINVAL);
	assert_int_equal(prom_textfile_check_name("x.prom", err, sizeof(err)), 0);
}

static void test_write_content_mode_no_leftovers(void **state)
{
	static const char a[] = "# TYPE x_total counter\nx_total 1\n";
	static const char b[] = "# TYPE x_total counter\nx_total 2\n";
	char err[256];
	struct stat st;
	size_t len;
	char *got;

	(void)state;
	assert_int_equal(prom_textfile_write(path, a, strlen(a), err, sizeof(err)), 0);
	got = slurp(path, &len);
	assert_string_equal(got, a);
	free(got);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);	/* node_exporter may be another user */

	assert_int_equal(prom_textfile_write(path, b, strlen(b), err, sizeof(err)), 0);
	got = slurp(path, &len);
	assert_string_equal(got, b);
	free(got);
	assert_int_equal(entries(), 1);		/* no temporary file left */
}

static void test_write_failure_reports_and_cleans(void **state)
{
	char err[256] = "", p[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/gone/x.prom", dir);
	assert_true(prom_textfile_write(p, "a 1\n", 4, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "No such file or directory"));
	/* the target is a directory: rename fails, the temp file is removed */
	snprintf(p, sizeof(p), "%s/d.prom", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_true(prom_textfile_write(p, "a 1\n", 4, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, p));
	assert_int_equal(entries(), 1);		/* only d.prom itself */
}

/*
 * A reader opening the file while it is rewritten again and again must
 * always see one whole version, never a mix or a truncated file.
 */
#define BIG (512 * 1024)
static volatile int stop;

static void *reader(void *arg)
{
	long bad = 0, reads = 0;

	(void)arg;
	while (!stop) {
		size_t len, i;
		char *got = slurp(path, &len);

		if (!got)
			continue;
		reads++;
		if (len != BIG)
			bad++;
		else
			for (i = 1; i < len - 1; i++)
				if (got[i] != got[0]) {
					bad++;
					break;
				}
		free(got);
	}
	return (void *)(bad ? -bad : reads);
}

static void test_concurrent_reader_sees_whole_files(void **state)
{
	static char text[BIG];
	pthread_t th;
	char err[256];
	void *res;
	int i;

	(void)state;
	text[BIG - 1] = '\n';
	memset(text, 'a', BIG - 1);
	assert_int_equal(prom_textfile_write(path, text, BIG, err, sizeof(err)), 0);
	stop = 0;
	assert_int_equal(pthread_create(&th, NULL, reader, NULL), 0);
	for (i = 0; i < 60; i++) {
		memset(text, 'a' + i % 26, BIG - 1);
		assert_int_equal(prom_textfile_write(path, text, BIG, err, sizeof(err)), 0);
	}
	stop = 1;
	pthread_join(th, &res);
	assert_true((long)res > 0);	/* it read, and never a torn file */
	assert_int_equal(entries(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_content_mode_no_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_reports_and_cleans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_reader_sees_whole_files, setup, teardown),
	};

	return cmocka_run_group_tests_name("prom_textfile", tests, NULL, NULL);
}
