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

#include <stdbool.h>
#include <stddef.h>

struct prom_web_user {
	char *name;
	char *hash;			/* bcrypt */
	char *good;			/* the last password that matched, or NULL */
};

struct prom_webconfig {
	bool tls;			/* cert and key given */
	char *cert_pem, *key_pem;	/* loaded by prom_webconfig_load() */
	char *client_ca_pem;		/* RequireAndVerifyClientCert */
	bool verify_client;
	char priorities[128];		/* GnuTLS priority string */
	char cert_name[4096];		/* for messages: the cert file, or "cert" */
	struct prom_web_user *users;
	size_t nr_users;
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
 * user costs a bcrypt too.  A password that matched is remembered, so
 * that a scrape every few seconds does not cost a bcrypt each.
 */
int prom_webconfig_authorize(void *wc, const char *user, const char *pass);

void prom_webconfig_free(struct prom_webconfig *wc);

#endif /* VMAPSCOPE_PROM_WEBCONFIG_H */
