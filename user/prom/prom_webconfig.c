// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file: exporter-toolkit's web configuration (see
 * prom_webconfig.h).  YAML with libyaml, bcrypt with libcrypt (libxcrypt),
 * certificate checks with GnuTLS in the TLS build (VMAPSCOPE_TLS).
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#ifdef VMAPSCOPE_TLS
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#endif

#include "errbuf.h"
#include "prom_webconfig.h"

#define MAX_FILE	(1 << 20)

struct loader {
	const char *path;		/* the configuration file */
	char dir[4096];			/* its directory */
	yaml_document_t *doc;
	unsigned int variants_ok;	/* bcrypt variants libcrypt took, 1 << (x - 'a') */
	char *err;
	size_t errlen;
};

static int fail(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		errbuf_set(l->err, l->errlen, "--web.config.file %s: line %zu: %s",
			   l->path, n->start_mark.line + 1, msg);
	else
		errbuf_set(l->err, l->errlen, "--web.config.file %s: %s", l->path, msg);
	return -EINVAL;
}

/*
 * A regular file only: a FIFO (or a terminal, a socket) named by mistake
 * would block the start for ever, with the stop signals held until the
 * exporter is up.  ENODEV says "not a regular file" here.
 */
static char *read_file(const char *path, size_t *len, int *e)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t n;
	FILE *f;

	*e = 0;
	if (fd < 0) {
		*e = errno;
		return NULL;
	}
	if (fstat(fd, &st))
		*e = errno;
	else if (!S_ISREG(st.st_mode))
		*e = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
	if (*e) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		*e = errno;
		close(fd);
		return NULL;
	}
	buf = malloc(MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		*e = ENOMEM;
		return NULL;
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	if (ferror(f) || n > MAX_FILE) {
		*e = ferror(f) ? EIO : EFBIG;
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static const char *file_error(int e)
{
	return e == ENODEV ? "not a regular file" : strerror(e);
}

static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (!n)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* A scalar's text; NULL (after an error message) for anything else. */
static const char *scalar(struct loader *l, const yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_SCALAR_NODE) {
		fail(l, n, "%s: expected a string", key);
		return NULL;
	}
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		fail(l, n, "%s: contains a NUL byte", key);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static yaml_node_t *node(struct loader *l, int id)
{
	return yaml_document_get_node(l->doc, id);
}

/* Read a file named in the configuration (relative to its directory). */
static int load_named(struct loader *l, const yaml_node_t *n, const char *key,
		      const char *name, char **out, char *shown, size_t shownlen)
{
	char full[8192];
	int e;

	if (!*name)
		return fail(l, n, "%s: empty file name", key);
	if (name[0] == '/')
		snprintf(full, sizeof(full), "%s", name);
	else
		snprintf(full, sizeof(full), "%s/%s", l->dir, name);
	*out = read_file(full, NULL, &e);
	if (!*out)
		return fail(l, n, "%s %s: %s", key, full, file_error(e));
	if (shown)
		snprintf(shown, shownlen, "%.4000s", full);
	return 0;
}

static int tls_version(struct loader *l, const yaml_node_t *n, const char *key, int *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *s = scalar(l, n, key);
	int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*v = i;
			return 0;
		}
	return fail(l, n, "%s: unknown TLS version '%s' (TLS10, TLS11, TLS12, TLS13)", key, s);
}

static int parse_tls(struct loader *l, struct prom_webconfig *wc, yaml_node_t *m)
{
	static const char *const vers[] = { "VERS-TLS1.0", "VERS-TLS1.1", "VERS-TLS1.2",
					    "VERS-TLS1.3" };
	const char *cert_file = NULL, *key_file = NULL, *cert = NULL, *key = NULL;
	const char *ca_file = NULL, *ca = NULL, *auth = NULL;
	yaml_node_t *cert_n = NULL, *key_n = NULL, *auth_n = NULL, *ca_n = NULL;
	int min = 2, max = 3, i;
	yaml_node_pair_t *p;
	size_t off;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(l, m, "tls_server_config: expected a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *name = scalar(l, k, "tls_server_config key");

		if (!name)
			return -EINVAL;
		if (!strcmp(name, "cert_file")) {
			cert_n = v;
			if (!is_null(v) && !(cert_file = scalar(l, v, "tls_server_config.cert_file")))
				return -EINVAL;
		} else if (!strcmp(name, "key_file")) {
			key_n = v;
			if (!is_null(v) && !(key_file = scalar(l, v, "tls_server_config.key_file")))
				return -EINVAL;
		} else if (!strcmp(name, "cert")) {
			cert_n = v;
			if (!is_null(v) && !(cert = scalar(l, v, "tls_server_config.cert")))
				return -EINVAL;
		} else if (!strcmp(name, "key")) {
			key_n = v;
			if (!is_null(v) && !(key = scalar(l, v, "tls_server_config.key")))
				return -EINVAL;
		} else if (!strcmp(name, "client_auth_type")) {
			auth_n = v;
			if (!is_null(v) && !(auth = scalar(l, v, "tls_server_config.client_auth_type")))
				return -EINVAL;
		} else if (!strcmp(name, "client_ca_file")) {
			ca_n = v;
			if (!is_null(v) && !(ca_file = scalar(l, v, "tls_server_config.client_ca_file")))
				return -EINVAL;
		} else if (!strcmp(name, "client_ca")) {
			ca_n = v;
			if (!is_null(v) && !(ca = scalar(l, v, "tls_server_config.client_ca")))
				return -EINVAL;
		} else if (!strcmp(name, "min_version")) {
			if (!is_null(v) && tls_version(l, v, "tls_server_config.min_version", &min))
				return -EINVAL;
		} else if (!strcmp(name, "max_version")) {
			if (!is_null(v) && tls_version(l, v, "tls_server_config.max_version", &max))
				return -EINVAL;
		} else if (!strcmp(name, "prefer_server_cipher_suites")) {
			/* ignored by Go's TLS too */
		} else if (!strcmp(name, "cipher_suites") || !strcmp(name, "curve_preferences") ||
			   !strcmp(name, "client_allowed_sans")) {
			if (!is_null(v))
				return fail(l, k, "tls_server_config.%s is not supported by vmapstat "
					    "(GnuTLS chooses; remove the key)", name);
		} else {
			return fail(l, k, "unknown key 'tls_server_config.%s'", name);
		}
	}
	if ((cert_file && cert) || (key_file && key) || (ca_file && ca))
		return fail(l, m, "tls_server_config: give a file or its text, not both "
			    "(cert_file/cert, key_file/key, client_ca_file/client_ca)");
	if (!cert_file && !cert && !key_file && !key) {
		if (auth || ca_file || ca)
			return fail(l, m, "tls_server_config: client authentication without "
				    "cert_file and key_file");
		return 0;	/* plain HTTP, as exporter-toolkit */
	}
	if (!cert_file && !cert)
		return fail(l, key_n, "tls_server_config: missing cert_file");
	if (!key_file && !key)
		return fail(l, cert_n, "tls_server_config: missing key_file");
	if (min > max)
		return fail(l, m, "tls_server_config: min_version is above max_version");
	wc->tls = true;
	if (cert_file) {
		if (load_named(l, cert_n, "cert_file", cert_file, &wc->cert_pem,
			       wc->cert_name, sizeof(wc->cert_name)))
			return -EINVAL;
	} else {
		wc->cert_pem = strdup(cert);
		snprintf(wc->cert_name, sizeof(wc->cert_name), "tls_server_config.cert");
	}
	if (key_file) {
		if (load_named(l, key_n, "key_file", key_file, &wc->key_pem, NULL, 0))
			return -EINVAL;
	} else {
		wc->key_pem = strdup(key);
	}
	if (!wc->cert_pem || !wc->key_pem)
		return fail(l, NULL, "out of memory");
	if (!auth || !strcmp(auth, "NoClientCert")) {
		if (ca_file || ca)
			return fail(l, ca_n, "tls_server_config: a client CA needs "
				    "client_auth_type: RequireAndVerifyClientCert");
	} else if (!strcmp(auth, "RequireAndVerifyClientCert")) {
		if (!ca_file && !ca)
			return fail(l, auth_n, "tls_server_config: RequireAndVerifyClientCert "
				    "needs client_ca_file");
		wc->verify_client = true;
		if (ca_file) {
			if (load_named(l, ca_n, "client_ca_file", ca_file, &wc->client_ca_pem,
				       NULL, 0))
				return -EINVAL;
		} else if (!(wc->client_ca_pem = strdup(ca))) {
			return fail(l, NULL, "out of memory");
		}
	} else if (!strcmp(auth, "RequestClientCert") || !strcmp(auth, "RequireAnyClientCert") ||
		   !strcmp(auth, "VerifyClientCertIfGiven")) {
		return fail(l, auth_n, "client_auth_type %s is not supported by vmapstat "
			    "(NoClientCert or RequireAndVerifyClientCert)", auth);
	} else {
		return fail(l, auth_n, "unknown client_auth_type '%s'", auth);
	}
	off = (size_t)snprintf(wc->priorities, sizeof(wc->priorities), "NORMAL:-VERS-ALL");
	for (i = min; i <= max; i++)
		off += (size_t)snprintf(wc->priorities + off, sizeof(wc->priorities) - off,
					":+%s", vers[i]);
	return 0;
}

/* "$2a$", "$2b$" or "$2y$", a two-digit cost, "$", 53 characters: 60 in all. */
/* Cost 14 is about a second per check on a current core. */
#define BCRYPT_MAX_COST	14
#define BCRYPT_MIN_COST	4

static bool bcrypt_shaped(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	/* salt and digest in bcrypt's base64: what libcrypt checks of them */
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' &&
	       (h[2] == 'a' || h[2] == 'b' || h[2] == 'y') && h[3] == '$' &&
	       h[4] >= '0' && h[4] <= '3' && h[5] >= '0' && h[5] <= '9' && h[6] == '$' &&
	       strspn(h + 7, b64) == 53;
}

static char *bcrypt(const char *pass, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char *out = NULL, *r;

	if (!cd)
		return NULL;
	r = crypt_rn(pass, hash, cd, sizeof(*cd));
	if (r && r[0] == '$')
		out = strdup(r);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return out;
}

static int parse_users(struct loader *l, struct prom_webconfig *wc, yaml_node_t *m)
{
	yaml_node_pair_t *p;
	size_t n;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(l, m, "basic_auth_users: expected a mapping of user names to bcrypt hashes");
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	wc->users = calloc(n ? n : 1, sizeof(*wc->users));
	if (!wc->users)
		return fail(l, NULL, "out of memory");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *user = scalar(l, k, "basic_auth_users key"), *hash;
		char *check, cheap[64];
		unsigned int variant;
		int cost;

		if (!user)
			return -EINVAL;
		if (!*user || strchr(user, ':'))
			return fail(l, k, "basic_auth_users: bad user name '%s'", user);
		hash = scalar(l, v, "basic_auth_users value");
		if (!hash)
			return -EINVAL;
		if (!bcrypt_shaped(hash))
			return fail(l, v, "basic_auth_users.%s: not a bcrypt hash ($2a$, $2b$ or $2y$, "
				    "60 characters; htpasswd -nBC 10 USER makes one)", user);
		cost = (hash[4] - '0') * 10 + (hash[5] - '0');
		if (cost > BCRYPT_MAX_COST)
			return fail(l, v, "basic_auth_users.%s: bcrypt cost %.2s is above %d, too slow "
				    "to check at every scrape", user, hash + 4, BCRYPT_MAX_COST);
		if (cost < BCRYPT_MIN_COST)
			return fail(l, v, "basic_auth_users.%s: bcrypt cost %.2s is below %02d, "
				    "which bcrypt does not allow", user, hash + 4, BCRYPT_MIN_COST);
		/*
		 * Ask libcrypt once per variant ($2a$, $2b$, $2y$) whether it
		 * takes such a hash, at the lowest cost (16 rounds, ~1 ms):
		 * what it accepts does not depend on the cost or the salt
		 * (checked above), and thousands of users each checked at
		 * cost 10 took minutes at start.
		 */
		variant = 1u << (hash[2] - 'a');
		if (!(l->variants_ok & variant)) {
			snprintf(cheap, sizeof(cheap), "%.4s%02d%s", hash, BCRYPT_MIN_COST, hash + 6);
			check = bcrypt("", cheap);
			if (!check)
				return fail(l, v, "basic_auth_users.%s: libcrypt rejects this bcrypt hash",
					    user);
			free(check);
			l->variants_ok |= variant;
		}
		wc->users[wc->nr_users].name = strdup(user);
		wc->users[wc->nr_users].hash = strdup(hash);
		if (!wc->users[wc->nr_users].name || !wc->users[wc->nr_users].hash)
			return fail(l, NULL, "out of memory");
		wc->nr_users++;
	}
	return 0;
}

struct key_at {
	const char *name;
	size_t line;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * No key twice in one mapping, at any level, as exporter-toolkit (Go's
 * strict YAML decoding) refuses it: the second of two basic_auth_users
 * or tls_server_config would otherwise silently replace or merge with
 * the first.  Sorted, not compared pairwise: a mapping may hold
 * thousands of users.
 */
static int check_duplicate_keys(struct loader *l)
{
	yaml_node_t *m;
	struct key_at *keys = NULL;
	size_t cap = 0;
	int rc = 0;

	for (m = l->doc->nodes.start; m < l->doc->nodes.top && !rc; m++) {
		yaml_node_pair_t *p;
		size_t n = 0, i;

		if (m->type != YAML_MAPPING_NODE)
			continue;
		for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(l, p->key);

			if (!k || k->type != YAML_SCALAR_NODE)
				continue;	/* refused where it is read */
			if (n == cap) {
				struct key_at *grown;

				cap = cap ? 2 * cap : 16;
				grown = realloc(keys, cap * sizeof(*keys));
				if (!grown) {
					free(keys);
					return fail(l, NULL, "out of memory");
				}
				keys = grown;
			}
			keys[n].name = (const char *)k->data.scalar.value;
			keys[n++].line = k->start_mark.line + 1;
		}
		if (n < 2)
			continue;
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (i = 1; i < n && !rc; i++)
			if (!strcmp(keys[i - 1].name, keys[i].name))
				rc = fail(l, NULL, "line %zu: key '%s' given twice (first on line %zu)",
					  keys[i].line, keys[i].name, keys[i - 1].line);
	}
	free(keys);
	return rc;
}

static int parse_http(struct loader *l, yaml_node_t *m)
{
	yaml_node_pair_t *p;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(l, m, "http_server_config: expected a mapping");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *name = scalar(l, k, "http_server_config key");

		if (!name)
			return -EINVAL;
		if (!strcmp(name, "http2")) {
			const char *b = scalar(l, v, "http_server_config.http2");

			if (!b)
				return -EINVAL;
			if (strcmp(b, "true") && strcmp(b, "false"))
				return fail(l, v, "http_server_config.http2: expected true or false");
		} else if (!strcmp(name, "headers")) {
			if (!is_null(v))
				return fail(l, k, "http_server_config.headers is not supported by vmapstat");
		} else {
			return fail(l, k, "unknown key 'http_server_config.%s'", name);
		}
	}
	return 0;
}

int prom_webconfig_load(const char *path, struct prom_webconfig **out,
			char *err, size_t errlen)
{
	struct loader l = { .path = path, .err = err, .errlen = errlen };
	struct prom_webconfig *wc;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	char *text, dirbuf[4096];
	size_t len;
	int e, rc = 0;

	*out = NULL;
	text = read_file(path, &len, &e);
	if (!text) {
		errbuf_set(err, errlen, "--web.config.file %s: %s", path, file_error(e));
		return -e;
	}
	snprintf(dirbuf, sizeof(dirbuf), "%s", path);
	snprintf(l.dir, sizeof(l.dir), "%s", dirname(dirbuf));
	wc = calloc(1, sizeof(*wc));
	if (wc) {
		pthread_mutex_init(&wc->lock, NULL);
		wc->lock_init = true;
		wc->refused_on = getrandom(wc->digest_key, sizeof(wc->digest_key), GRND_NONBLOCK) ==
				 (ssize_t)sizeof(wc->digest_key);
	}
	if (!wc || !yaml_parser_initialize(&parser)) {
		prom_webconfig_free(wc);
		free(text);
		errbuf_set(err, errlen, "--web.config.file %s: out of memory", path);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		errbuf_set(err, errlen, "--web.config.file %s: line %zu: YAML: %s", path,
			   parser.problem_mark.line + 1,
			   parser.problem ? parser.problem : "syntax error");
		yaml_parser_delete(&parser);
		free(text);
		prom_webconfig_free(wc);
		return -EINVAL;
	}
	l.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	rc = check_duplicate_keys(&l);
	if (rc)
		goto out;
	if (root && !is_null(root)) {
		if (root->type != YAML_MAPPING_NODE) {
			rc = fail(&l, root, "expected a mapping (tls_server_config, "
				  "http_server_config, basic_auth_users)");
			goto out;
		}
		for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(&l, p->key), *v = node(&l, p->value);
			const char *name = scalar(&l, k, "key");

			if (!name)
				rc = -EINVAL;
			else if (!strcmp(name, "tls_server_config"))
				rc = parse_tls(&l, wc, v);
			else if (!strcmp(name, "http_server_config"))
				rc = parse_http(&l, v);
			else if (!strcmp(name, "basic_auth_users"))
				rc = parse_users(&l, wc, v);
			else
				rc = fail(&l, k, "unknown key '%s'", name);
			if (rc)
				goto out;
		}
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	if (rc) {
		prom_webconfig_free(wc);
		return rc;
	}
	*out = wc;
	return 0;
}

#ifdef VMAPSCOPE_TLS
int prom_webconfig_check_tls(const struct prom_webconfig *wc, const char *path,
			     char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_priority_t prio = NULL;
	gnutls_datum_t cd, kd;
	time_t now = time(NULL), t;
	const char *errpos = NULL;
	char when[64];
	int rc, ret = -EINVAL;

	if (!wc->tls)
		return 0;
	cd = (gnutls_datum_t){ (unsigned char *)wc->cert_pem, (unsigned int)strlen(wc->cert_pem) };
	kd = (gnutls_datum_t){ (unsigned char *)wc->key_pem, (unsigned int)strlen(wc->key_pem) };
	if (gnutls_x509_crt_init(&crt) ||
	    (rc = gnutls_x509_crt_import(crt, &cd, GNUTLS_X509_FMT_PEM)) < 0) {
		errbuf_set(err, errlen, "--web.config.file %s: certificate %s: not a PEM "
			   "certificate", path, wc->cert_name);
		goto out;
	}
	t = gnutls_x509_crt_get_expiration_time(crt);
	if (t != (time_t)-1 && t < now) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
		errbuf_set(err, errlen, "--web.config.file %s: certificate %s expired on %s",
			   path, wc->cert_name, when);
		goto out;
	}
	t = gnutls_x509_crt_get_activation_time(crt);
	if (t != (time_t)-1 && t > now) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
		errbuf_set(err, errlen, "--web.config.file %s: certificate %s is not valid "
			   "before %s", path, wc->cert_name, when);
		goto out;
	}
	if (gnutls_certificate_allocate_credentials(&cred)) {
		errbuf_set(err, errlen, "--web.config.file %s: out of memory", path);
		goto out;
	}
	rc = gnutls_certificate_set_x509_key_mem(cred, &cd, &kd, GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		if (rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
			errbuf_set(err, errlen, "--web.config.file %s: the key does not match "
				   "certificate %s", path, wc->cert_name);
		else
			errbuf_set(err, errlen, "--web.config.file %s: certificate or key: %s",
				   path, gnutls_strerror(rc));
		goto out;
	}
	if (wc->client_ca_pem) {
		gnutls_datum_t ca = { (unsigned char *)wc->client_ca_pem,
				      (unsigned int)strlen(wc->client_ca_pem) };

		rc = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (rc <= 0) {
			errbuf_set(err, errlen, "--web.config.file %s: client CA: %s", path,
				   rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
			goto out;
		}
	}
	rc = gnutls_priority_init(&prio, wc->priorities, &errpos);
	if (rc < 0) {
		errbuf_set(err, errlen, "--web.config.file %s: TLS versions: %s", path,
			   gnutls_strerror(rc));
		goto out;
	}
	ret = 0;
out:
	if (prio)
		gnutls_priority_deinit(prio);
	if (cred)
		gnutls_certificate_free_credentials(cred);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	return ret;
}
#else
int prom_webconfig_check_tls(const struct prom_webconfig *wc, const char *path,
			     char *err, size_t errlen)
{
	if (!wc->tls)
		return 0;
	errbuf_set(err, errlen, "--web.config.file %s: TLS needs the dynamically linked "
		   "vmapstat (make tools-dynamic, out/ARCH/bin-dynamic/vmapstat): this static "
		   "binary has no GnuTLS", path);
	return -ENOTSUP;
}
#endif

/* Equal strings, in a time that depends only on their lengths. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb, i;
	unsigned char d = la != lb;

	for (i = 0; i < n; i++)
		d |= (unsigned char)(i < la ? a[i] : 0) ^ (unsigned char)(i < lb ? b[i] : 0);
	return !d;
}

/* SipHash-2-4: a keyed digest, so that refused passwords are not kept as they are. */
static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND()							\
	do {								\
		v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);	\
		v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);	\
	} while (0)

static uint64_t siphash(const uint64_t k[2], const unsigned char *p, size_t n)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ k[0], v1 = 0x646f72616e646f6dULL ^ k[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ k[0], v3 = 0x7465646279746573ULL ^ k[1];
	uint64_t m, b = (uint64_t)n << 56;
	size_t i, left = n & 7;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&m, p + i, 8);
		v3 ^= m;
		SIPROUND();
		SIPROUND();
		v0 ^= m;
	}
	for (size_t j = 0; j < left; j++)
		b |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND();
	SIPROUND();
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND();
	SIPROUND();
	SIPROUND();
	SIPROUND();
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The pair's digest: user, a NUL (never in a name), password; never 0. */
static uint64_t pair_digest(const struct prom_webconfig *wc, const char *user, const char *pass)
{
	size_t lu = strlen(user), lp = strlen(pass);
	unsigned char *buf = malloc(lu + lp + 1);
	uint64_t d;

	if (!buf)
		return 0;
	memcpy(buf, user, lu);
	buf[lu] = 0;
	memcpy(buf + lu + 1, pass, lp);
	d = siphash(wc->digest_key, buf, lu + lp + 1);
	explicit_bzero(buf, lu + lp + 1);
	free(buf);
	return d ? d : 1;
}

static struct prom_web_user *find_user(struct prom_webconfig *wc, const char *user)
{
	struct prom_web_user *u = NULL;
	size_t i;

	/* every name compared, in constant time: no timing tells users apart */
	for (i = 0; i < wc->nr_users; i++)
		if (same_secret(wc->users[i].name, user))
			u = &wc->users[i];
	return u;
}

/* Under wc->lock. */
static int cached(struct prom_webconfig *wc, const char *user, const char *pass, uint64_t d)
{
	struct prom_web_user *u = find_user(wc, user);
	size_t i;

	if (u && u->good && same_secret(u->good, pass))
		return 1;
	for (i = 0; d && i < PROM_WEB_REFUSED_CACHE; i++)
		if (wc->refused[i] == d)
			return 0;
	return -1;
}

/*
 * What is remembered of (user, pass): 1, 0 or -1 as
 * prom_webconfig_auth_cached(); *d its digest, *u the user (NULL:
 * unknown) and *hash the hash a check compares with.
 */
static int remembered(struct prom_webconfig *wc, const char *user, const char *pass,
		      uint64_t *d, struct prom_web_user **u, const char **hash)
{
	int r;

	*d = wc->refused_on ? pair_digest(wc, user, pass) : 0;
	pthread_mutex_lock(&wc->lock);
	r = cached(wc, user, pass, *d);
	*u = find_user(wc, user);
	*hash = *u ? (*u)->hash : wc->users[0].hash;
	pthread_mutex_unlock(&wc->lock);
	return r;
}

int prom_webconfig_auth_cached(void *arg, const char *user, const char *pass)
{
	struct prom_webconfig *wc = arg;
	struct prom_web_user *u;
	const char *hash;
	uint64_t d;

	return wc->nr_users ? remembered(wc, user, pass, &d, &u, &hash) : 1;
}

int prom_webconfig_authorize(void *arg, const char *user, const char *pass)
{
	struct prom_webconfig *wc = arg;
	struct prom_web_user *u;
	const char *hash;
	char *h, *copy;
	uint64_t d;
	bool ok;
	int r;

	if (!wc->nr_users)
		return 1;
	r = remembered(wc, user, pass, &d, &u, &hash);
	if (r >= 0)
		return r;
	/* an unknown user costs a bcrypt as well: no timing tells them apart */
	h = bcrypt(pass, hash);
	ok = u && h && same_secret(h, u->hash);
	free(h);
	copy = ok ? strdup(pass) : NULL;
	pthread_mutex_lock(&wc->lock);
	if (copy) {
		if (u->good) {
			explicit_bzero(u->good, strlen(u->good));
			free(u->good);
		}
		u->good = copy;
	} else if (!ok && d) {
		wc->refused[wc->refused_next] = d;
		wc->refused_next = (wc->refused_next + 1) % PROM_WEB_REFUSED_CACHE;
	}
	pthread_mutex_unlock(&wc->lock);
	return ok;
}

void prom_webconfig_free(struct prom_webconfig *wc)
{
	size_t i;

	if (!wc)
		return;
	for (i = 0; i < wc->nr_users; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
		if (wc->users[i].good) {
			explicit_bzero(wc->users[i].good, strlen(wc->users[i].good));
			free(wc->users[i].good);
		}
	}
	free(wc->users);
	if (wc->lock_init)
		pthread_mutex_destroy(&wc->lock);
	explicit_bzero(wc->digest_key, sizeof(wc->digest_key));
	if (wc->key_pem) {
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
		free(wc->key_pem);
	}
	free(wc->cert_pem);
	free(wc->client_ca_pem);
	free(wc);
}
