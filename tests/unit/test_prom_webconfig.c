// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file parsing (exporter-toolkit keys; unknown ones are one
 * line naming the key) and basic auth against bcrypt hashes.  Files are
 * written to a temporary directory; the hashes are made with libcrypt.
 * Built normally, this is the library the static tools link: TLS is
 * refused with a line that points to the dynamic build.  Built with
 * VMAPSCOPE_TLS (the sanitizer build), certificates made in memory are
 * checked as vmapstat checks them at start (tests/host/prom/test_web_config.sh
 * goes end to end).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "prom_webconfig.h"
#ifdef VMAPSCOPE_TLS
#include "tls_certs.h"
#endif

static char dir[] = "/tmp/vmapscope-webconfig.XXXXXX";
static char hash[128];		/* bcrypt of "s3cret", cost 4 (fast) */

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct prom_webconfig *load_ok(const char *text)
{
	struct prom_webconfig *wc = NULL;
	char err[512] = "";
	const char *p = write_file("web.yml", text);

	if (prom_webconfig_load(p, &wc, err, sizeof(err)))
		fail_msg("'%s': %s", text, err);
	return wc;
}

static void load_bad(const char *text, const char *needle)
{
	struct prom_webconfig *wc = NULL;
	char err[512] = "";
	const char *p = write_file("web.yml", text);

	if (!prom_webconfig_load(p, &wc, err, sizeof(err)))
		fail_msg("'%s' was accepted", text);
	assert_null(wc);
	if (!strstr(err, needle))
		fail_msg("'%s': error '%s' lacks '%s'", text, err, needle);
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "--web.config.file "));
}

static int setup(void **state)
{
	char salt[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)));
	snprintf(hash, sizeof(hash), "%s", crypt("s3cret", salt));
	assert_int_equal(strlen(hash), 60);
	write_file("srv.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	write_file("srv.key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n");
	write_file("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_empty_and_plain(void **state)
{
	struct prom_webconfig *wc;

	(void)state;
	wc = load_ok("");
	assert_false(wc->tls);
	assert_int_equal(wc->nr_users, 0);
	prom_webconfig_free(wc);
	/* exporter-toolkit: no cert and key = plain HTTP */
	wc = load_ok("tls_server_config:\nhttp_server_config:\n  http2: false\nbasic_auth_users:\n");
	assert_false(wc->tls);
	prom_webconfig_free(wc);
}

static void test_tls_keys(void **state)
{
	struct prom_webconfig *wc;
	char err[512] = "";

	(void)state;
	/* relative names are relative to the file's directory */
	wc = load_ok("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		     "  min_version: TLS13\n");
	assert_true(wc->tls);
	assert_non_null(strstr(wc->cert_pem, "MIIB"));
	assert_non_null(strstr(wc->key_pem, "PRIVATE KEY"));
	assert_false(wc->verify_client);
	assert_string_equal(wc->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3");
#ifndef VMAPSCOPE_TLS
	/* the static tools' library: TLS goes to the dynamic build */
	assert_int_equal(prom_webconfig_check_tls(wc, "web.yml", err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "dynamically linked"));
	assert_non_null(strstr(err, "bin-dynamic"));
#else
	/* the TLS build checks what it was given: "MIIB" is no certificate */
	assert_int_equal(prom_webconfig_check_tls(wc, "web.yml", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a PEM certificate"));
#endif
	prom_webconfig_free(wc);

	wc = load_ok("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		     "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
		     "  prefer_server_cipher_suites: true\n");
	assert_true(wc->verify_client);
	assert_non_null(strstr(wc->client_ca_pem, "MIIC"));
	assert_string_equal(wc->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3");
	prom_webconfig_free(wc);

	wc = load_ok("tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n"
		     "  key_file: srv.key\n  min_version: TLS10\n  max_version: TLS11\n");
	assert_true(wc->tls);
	assert_non_null(strstr(wc->cert_pem, "BEGIN CERTIFICATE"));
	assert_string_equal(wc->priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.0:+VERS-TLS1.1");
	prom_webconfig_free(wc);
}

static void test_rejected(void **state)
{
	(void)state;
	load_bad("tls_srever_config:\n  cert_file: srv.crt\n", "unknown key 'tls_srever_config'");
	load_bad("tls_server_config:\n  certfile: srv.crt\n",
		 "unknown key 'tls_server_config.certfile'");
	load_bad("http_server_config:\n  http3: true\n", "unknown key 'http_server_config.http3'");
	load_bad("http_server_config:\n  headers:\n    X-A: b\n", "headers is not supported");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", "cipher_suites is not supported");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n", "missing key_file");
	load_bad("tls_server_config:\n  key_file: srv.key\n", "missing cert_file");
	load_bad("tls_server_config:\n  cert_file: nope.crt\n  key_file: srv.key\n",
		 "nope.crt: No such file or directory");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  min_version: TLS14\n", "unknown TLS version 'TLS14'");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  min_version: TLS13\n  max_version: TLS12\n", "min_version is above max_version");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  client_auth_type: RequireAnyClientCert\n", "RequireAnyClientCert is not supported");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  client_auth_type: Whatever\n", "unknown client_auth_type 'Whatever'");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  client_auth_type: RequireAndVerifyClientCert\n", "needs client_ca_file");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  client_ca_file: ca.crt\n", "needs client_auth_type: RequireAndVerifyClientCert");
	load_bad("basic_auth_users:\n  u: plaintext\n", "basic_auth_users.u: not a bcrypt hash");
	load_bad("basic_auth_users:\n  u: $1$abc$defghijklmnopqrstuvwxy\n", "not a bcrypt hash");
	/* a cost-31 hash (2^31 rounds) is refused before libcrypt runs it */
	load_bad("basic_auth_users:\n  u: $2b$31$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234\n",
		 "basic_auth_users.u: bcrypt cost 31 is above 14");
	load_bad("basic_auth_users: [a, b]\n", "expected a mapping");
	load_bad("- a\n- b\n", "expected a mapping");
	load_bad("tls_server_config:\n  cert_file: [a\n", "line 3: YAML: ");
	load_bad("tls_server_config:\n  cert_file:\n    - srv.crt\n",
		 "line 3: tls_server_config.cert_file: expected a string");
}

/*
 * A key given twice in one mapping is refused, at every level, as
 * exporter-toolkit refuses it; the same key in two mappings is fine.
 */
static void test_duplicate_keys(void **state)
{
	struct prom_webconfig *wc;
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: %s\nbasic_auth_users:\n  b: %s\n",
		 hash, hash);
	load_bad(text, "line 3: key 'basic_auth_users' given twice (first on line 1)");
	load_bad("tls_server_config:\n  cert: |\n    x\n  key: |\n    y\n"
		 "tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n",
		 "line 6: key 'tls_server_config' given twice (first on line 1)");
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: %s\n  b: %s\n  a: %s\n",
		 hash, hash, hash);
	load_bad(text, "line 4: key 'a' given twice (first on line 2)");
	load_bad("tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "  cert_file: ca.crt\n", "line 4: key 'cert_file' given twice (first on line 2)");
	/* quoting does not make another key */
	load_bad("http_server_config:\n  http2: true\n  'http2': false\n",
		 "line 3: key 'http2' given twice");
	load_bad("http_server_config: {http2: true, http2: true}\n", "key 'http2' given twice");
	/* one name in two mappings */
	snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n"
		 "basic_auth_users:\n  cert_file: %s\n", hash);
	wc = load_ok(text);
	assert_int_equal(wc->nr_users, 1);
	prom_webconfig_free(wc);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("prom_webconfig_load() still blocked after 5 s");
}

/*
 * Only regular files are read: a FIFO named as the configuration (or as
 * a certificate) must not block the start, which holds the stop signals.
 */
static void test_not_regular(void **state)
{
	struct prom_webconfig *wc = NULL;
	char path[512], err[512] = "";

	(void)state;
	signal(SIGALRM, on_alarm);
	alarm(5);
	snprintf(path, sizeof(path), "%s/fifo.yml", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(prom_webconfig_load(path, &wc, err, sizeof(err)), -ENODEV);
	assert_null(wc);
	assert_non_null(strstr(err, "fifo.yml: not a regular file"));
	load_bad("tls_server_config:\n  cert_file: fifo.yml\n  key_file: srv.key\n",
		 "fifo.yml: not a regular file");
	assert_int_equal(prom_webconfig_load(dir, &wc, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "Is a directory"));
	alarm(0);
	unlink(path);
}

/*
 * Every hash is checked at start, but at the lowest cost: 2000 users at
 * cost 10 (htpasswd's default, ~50 ms each at full cost) load in well
 * under a second, and a cost bcrypt cannot have is refused.
 */
static void test_many_users_load_fast(void **state)
{
	struct prom_webconfig *wc;
	char salt[64], h10[128], line[160];
	size_t cap = 2000 * 100 + 64, off;
	char *text = malloc(cap);
	double t0;
	int i;

	(void)state;
	assert_non_null(text);
	assert_non_null(crypt_gensalt_rn("$2b$", 10, NULL, 0, salt, sizeof(salt)));
	snprintf(h10, sizeof(h10), "%s", crypt("pw", salt));
	off = (size_t)snprintf(text, cap, "basic_auth_users:\n");
	for (i = 0; i < 2000; i++) {
		snprintf(line, sizeof(line), "  user%d: %s\n", i, h10);
		off += (size_t)snprintf(text + off, cap - off, "%s", line);
	}
	t0 = now_s();
	wc = load_ok(text);
	t0 = now_s() - t0;
	assert_int_equal(wc->nr_users, 2000);
	if (t0 > 1.0)
		fail_msg("2000 users took %.2f s to load", t0);
	/* the check at cost 4 still found the real hash good */
	assert_true(prom_webconfig_authorize(wc, "user1999", "pw"));
	assert_false(prom_webconfig_authorize(wc, "user1999", "pw2"));
	prom_webconfig_free(wc);
	free(text);
	snprintf(line, sizeof(line), "basic_auth_users:\n  u: '$2b$03%s'\n", h10 + 6);
	load_bad(line, "basic_auth_users.u: bcrypt cost 03 is below 04");
	/* a salt outside bcrypt's base64 is refused whatever the cost */
	snprintf(line, sizeof(line), "basic_auth_users:\n  u: '$2b$10$%s'\n",
		 "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
	load_bad(line, "basic_auth_users.u: not a bcrypt hash");
}

static void test_basic_auth(void **state)
{
	struct prom_webconfig *wc;
	char text[512];
	double t0;
	int i;

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  prometheus: %s\n  other: '%s'\n",
		 hash, hash);
	wc = load_ok(text);
	assert_int_equal(wc->nr_users, 2);
	assert_true(prom_webconfig_authorize(wc, "prometheus", "s3cret"));
	assert_true(prom_webconfig_authorize(wc, "other", "s3cret"));
	assert_false(prom_webconfig_authorize(wc, "prometheus", "s3cre"));
	assert_false(prom_webconfig_authorize(wc, "prometheus", "s3cret!"));
	assert_false(prom_webconfig_authorize(wc, "prometheus", ""));
	assert_false(prom_webconfig_authorize(wc, "nobody", "s3cret"));
	assert_false(prom_webconfig_authorize(wc, "Prometheus", "s3cret"));
	/* the remembered password is checked too, not just present */
	assert_true(prom_webconfig_authorize(wc, "prometheus", "s3cret"));
	assert_false(prom_webconfig_authorize(wc, "prometheus", "S3cret"));
	/* remembered: 1000 right answers cost no bcrypt each */
	t0 = now_s();
	for (i = 0; i < 1000; i++)
		assert_true(prom_webconfig_authorize(wc, "prometheus", "s3cret"));
	assert_true(now_s() - t0 < 0.5);

	/*
	 * refused pairs are remembered as well (exporter-toolkit's cache
	 * too): a scraper with a wrong password costs one bcrypt, not one
	 * per scrape; what was never tried still needs the check
	 */
	assert_int_equal(prom_webconfig_auth_cached(wc, "prometheus", "s3cret"), 1);
	assert_int_equal(prom_webconfig_auth_cached(wc, "prometheus", "S3cret"), 0);
	assert_int_equal(prom_webconfig_auth_cached(wc, "nobody", "s3cret"), 0);
	assert_int_equal(prom_webconfig_auth_cached(wc, "prometheus", "never-tried"), -1);
	assert_int_equal(prom_webconfig_auth_cached(wc, "other", "s3cret"), 1);
	t0 = now_s();
	for (i = 0; i < 1000; i++)
		assert_false(prom_webconfig_authorize(wc, "prometheus", "S3cret"));
	assert_true(now_s() - t0 < 0.5);
	/* the cache is bounded: old refusals make way, and are checked again */
	for (i = 0; i < PROM_WEB_REFUSED_CACHE; i++) {
		char pw[32];

		snprintf(pw, sizeof(pw), "wrong-%d", i);
		assert_false(prom_webconfig_authorize(wc, "prometheus", pw));
	}
	assert_int_equal(prom_webconfig_auth_cached(wc, "prometheus", "S3cret"), -1);
	assert_false(prom_webconfig_authorize(wc, "prometheus", "S3cret"));
	assert_true(prom_webconfig_authorize(wc, "prometheus", "s3cret"));
	prom_webconfig_free(wc);

	/* $2a$ and $2y$ hashes are bcrypt too */
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: '$2a%s'\n  y: '$2y%s'\n",
		 hash + 3, hash + 3);
	wc = load_ok(text);
	assert_true(prom_webconfig_authorize(wc, "a", "s3cret"));
	assert_true(prom_webconfig_authorize(wc, "y", "s3cret"));
	assert_false(prom_webconfig_authorize(wc, "y", "nope"));
	prom_webconfig_free(wc);
}

#ifdef VMAPSCOPE_TLS
/*
 * The TLS build (the sanitizer build, the dynamic tools): certificates
 * made here are checked at start: valid now, the key matching, a CA
 * that parses.  Each failure is one line naming the file.
 */
static void check_tls_with(const struct test_cert *c, const char *key_pem, const char *ca_pem,
			   int want, const char *needle)
{
	struct prom_webconfig *wc;
	char text[256], err[512] = "";

	write_file("t.crt", c->cert_pem);
	write_file("t.key", key_pem);
	if (ca_pem) {
		write_file("t-ca.crt", ca_pem);
		snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: t.crt\n  key_file: t.key\n"
			 "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: t-ca.crt\n");
	} else {
		snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: t.crt\n  key_file: t.key\n");
	}
	wc = load_ok(text);
	assert_int_equal(prom_webconfig_check_tls(wc, "web.yml", err, sizeof(err)), want);
	if (needle && !strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	if (needle)
		assert_null(strchr(err, '\n'));
	prom_webconfig_free(wc);
}

static void test_tls_checks(void **state)
{
	struct test_cert good, other, expired, future;
	time_t now = time(NULL);

	(void)state;
	assert_int_equal(test_cert_make(&good, "127.0.0.1", now - 3600, now + 86400, NULL), 0);
	assert_int_equal(test_cert_make(&other, "127.0.0.1", now - 3600, now + 86400, NULL), 0);
	assert_int_equal(test_cert_make(&expired, "127.0.0.1", 1577836800, 1577923200, NULL), 0);
	assert_int_equal(test_cert_make(&future, "127.0.0.1", now + 86400, now + 2 * 86400, NULL), 0);
	check_tls_with(&good, good.key_pem, NULL, 0, NULL);
	check_tls_with(&good, good.key_pem, other.cert_pem, 0, NULL);
	check_tls_with(&good, other.key_pem, NULL, -EINVAL, "the key does not match certificate");
	check_tls_with(&expired, expired.key_pem, NULL, -EINVAL, "expired on 2020-01-02 00:00:00 UTC");
	check_tls_with(&future, future.key_pem, NULL, -EINVAL, "is not valid before");
	check_tls_with(&good, good.key_pem, "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n",
		       -EINVAL, "client CA: ");
	test_cert_free(&good);
	test_cert_free(&other);
	test_cert_free(&expired);
	test_cert_free(&future);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_plain),
		cmocka_unit_test(test_tls_keys),
#ifdef VMAPSCOPE_TLS
		cmocka_unit_test(test_tls_checks),
#endif
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_many_users_load_fast),
		cmocka_unit_test(test_basic_auth),
	};

	return cmocka_run_group_tests_name("prom_webconfig", tests, setup, teardown);
}
