/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Certificates for the TLS unit tests (the build with VMAPSCOPE_TLS: the
 * sanitizer build), made with GnuTLS in memory: an ECDSA P-256 key and a
 * certificate for CN/IP 127.0.0.1 valid over [not_before, not_after],
 * self-signed or signed by another certificate and key (a CA).
 */
#ifndef VMAPSCOPE_TEST_TLS_CERTS_H
#define VMAPSCOPE_TEST_TLS_CERTS_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

struct test_cert {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
	char *cert_pem, *key_pem;	/* malloc'ed, NUL-terminated */
};

static char *test_pem_dup(const gnutls_datum_t *d)
{
	char *s = malloc(d->size + 1);

	if (s) {
		memcpy(s, d->data, d->size);
		s[d->size] = 0;
	}
	return s;
}

/* 0 or -1.  @ca NULL: self-signed (and usable as a CA). */
static int test_cert_make(struct test_cert *c, const char *cn, time_t not_before,
			  time_t not_after, const struct test_cert *ca)
{
	static unsigned char serial = 1;
	unsigned char ip[4] = { 127, 0, 0, 1 };
	gnutls_datum_t d;

	memset(c, 0, sizeof(*c));
	if (gnutls_x509_privkey_init(&c->key) ||
	    gnutls_x509_privkey_generate(c->key, GNUTLS_PK_ECDSA,
					 GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) ||
	    gnutls_x509_crt_init(&c->crt) || gnutls_x509_crt_set_version(c->crt, 3) ||
	    gnutls_x509_crt_set_serial(c->crt, &serial, 1) ||
	    gnutls_x509_crt_set_activation_time(c->crt, not_before) ||
	    gnutls_x509_crt_set_expiration_time(c->crt, not_after) ||
	    gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
					  (unsigned int)strlen(cn)) ||
	    gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_IPADDRESS, ip, 4,
						 GNUTLS_FSAN_SET) ||
	    gnutls_x509_crt_set_key(c->crt, c->key) ||
	    gnutls_x509_crt_set_basic_constraints(c->crt, ca ? 0 : 1, -1) ||
	    gnutls_x509_crt_set_key_usage(c->crt, ca ? GNUTLS_KEY_DIGITAL_SIGNATURE :
					  GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_CERT_SIGN) ||
	    gnutls_x509_crt_sign2(c->crt, ca ? ca->crt : c->crt, ca ? ca->key : c->key,
				  GNUTLS_DIG_SHA256, 0))
		return -1;
	serial++;
	if (gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_PEM, &d))
		return -1;
	c->cert_pem = test_pem_dup(&d);
	gnutls_free(d.data);
	if (gnutls_x509_privkey_export2(c->key, GNUTLS_X509_FMT_PEM, &d))
		return -1;
	c->key_pem = test_pem_dup(&d);
	gnutls_free(d.data);
	return c->cert_pem && c->key_pem ? 0 : -1;
}

static void test_cert_free(struct test_cert *c)
{
	if (c->crt)
		gnutls_x509_crt_deinit(c->crt);
	if (c->key)
		gnutls_x509_privkey_deinit(c->key);
	free(c->cert_pem);
	free(c->key_pem);
	memset(c, 0, sizeof(*c));
}

#endif /* VMAPSCOPE_TEST_TLS_CERTS_H */
