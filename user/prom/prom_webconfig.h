/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus exporter web configuration file (--web.config.file), in
 * the format of prometheus/exporter-toolkit, so that an operator's
 * existing file works unchanged:
 *
 *   tls_server_config:
 *     cert_file: server.crt          # or cert: <PEM text>
 *     key_file: server.key           # or key: <PEM text>
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert
 *     client_ca_file: ca.crt         # or client_ca: <PEM text>
 *     min_version: TLS12             # TLS10 .. TLS13 (default TLS12)
 *     max_version: TLS13
 *   http_server_config:
 *     http2: true                    # accepted; vmapstat speaks HTTP/1.1
 *   basic_auth_users:
 *     prometheus: $2y$10$...         # bcrypt ($2a$, $2b$, $2y$)
 *
 * Relative file names are relative to the configuration file's directory,
 * as in exporter-toolkit.  Unknown keys are an error naming the key, as
 * are exporter-toolkit keys vmapstat does not implement (cipher_suites,
 * curve_preferences, client_allowed_sans, headers and the other client
 * auth types).  Without cert and key the server stays plain HTTP (with
 * basic auth if users are given), as exporter-toolkit does.
 *
 * TLS needs the dynamically linked build (VMAPSCOPE_TLS, GnuTLS); the
 * static binaries carry GnuTLS stand-ins (prom_tls_stubs.c) and refuse a
 * file with TLS keys at start.
 */
#ifndef VMAPSCOPE_PROM_WEBCONFIG_H
#define VMAPSCOPE_PROM_WEBCONFIG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prom_web_user {
	char *name;
	char *hash;			/* bcrypt */
	char *good;			/* the last password that matched, or NULL */
};

/* Wrong (user, password) pairs remembered, as keyed digests (not the passwords). */
#define PROM_WEB_REFUSED_CACHE	256

struct prom_webconfig {
	bool tls;			/* cert and key given */
	char *cert_pem, *key_pem;	/* loaded by prom_webconfig_load() */
	char *client_ca_pem;		/* RequireAndVerifyClientCert */
	bool verify_client;
	char priorities[128];		/* GnuTLS priority string */
	char cert_name[4096];		/* for messages: the cert file, or "cert" */
	struct prom_web_user *users;
	size_t nr_users;

	/* what the checks remember (the server thread and the checking thread) */
	pthread_mutex_t lock;
	bool lock_init;
	uint64_t digest_key[2];		/* random, per process */
	bool refused_on;		/* a key could be drawn */
	uint64_t refused[PROM_WEB_REFUSED_CACHE];	/* 0 = empty */
	size_t refused_next;
};

/*
 * Read and check PATH: YAML syntax, keys, values, bcrypt hashes; the
 * certificate, key and CA files are read.  Returns 0, or a negative errno
 * with one line in err ("--web.config.file PATH: ...").
 */
int prom_webconfig_load(const char *path, struct prom_webconfig **out,
			char *err, size_t errlen);

/*
 * TLS: the certificate must be valid now (neither expired nor not yet
 * valid) and the key must match it.  In a build without TLS, says to use
 * the dynamic build.  0, or a negative errno with one line in err.
 */
int prom_webconfig_check_tls(const struct prom_webconfig *wc, const char *path,
			     char *err, size_t errlen);

/*
 * Basic auth (prom_server_opts.authorize): non-zero when user exists and
 * pass matches its bcrypt hash.  Compared in constant time; an unknown
 * user costs a bcrypt too.  Outcomes are remembered, as exporter-toolkit
 * does: the password that last matched, per user, so that a scrape every
 * few seconds does not cost a bcrypt each; and the last
 * PROM_WEB_REFUSED_CACHE refused (user, password) pairs, as digests
 * under a random per-process key, so that a scraper with a wrong
 * password costs one bcrypt, not one per scrape.  Thread-safe.
 */
int prom_webconfig_authorize(void *wc, const char *user, const char *pass);

/*
 * prom_server_opts.auth_cached: what is remembered alone, no bcrypt:
 * 1 right, 0 refused before, -1 only prom_webconfig_authorize() can say.
 */
int prom_webconfig_auth_cached(void *wc, const char *user, const char *pass);

void prom_webconfig_free(struct prom_webconfig *wc);

#endif /* VMAPSCOPE_PROM_WEBCONFIG_H */
