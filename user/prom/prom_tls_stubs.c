// SPDX-License-Identifier: GPL-2.0
/*
 * GnuTLS stand-ins for the STATIC vmapscope tools only.
 *
 * Debian's libmicrohttpd.a is built with HTTPS support, so a static link
 * needs GnuTLS, and Debian ships no static p11-kit or libunistring that a
 * static GnuTLS would need in turn.  The static tools serve plain HTTP
 * only: a --web.config.file with TLS keys is refused at start
 * (prom_webconfig_check_tls() without VMAPSCOPE_TLS), so they never set
 * MHD_USE_TLS, in which case libmicrohttpd calls only
 * gnutls_global_init() / gnutls_global_deinit() (from its library
 * constructor and destructor).  Every other entry point here fails with
 * GNUTLS_E_UNIMPLEMENTED_FEATURE should it ever be reached.  HTTPS is
 * the dynamically linked build's (make tools-dynamic, mk/prom.mk), which
 * links the real libgnutls and not this file.
 *
 * mk/prom.mk puts this object on the link line of the static binaries
 * (out/ARCH/bin/) only: nothing references it, so it is never pulled
 * out of libvmapscope.a into the dynamically linked unit tests, where the
 * real libgnutls.so serves libmicrohttpd.so.
 *
 * The stubs return "long" or a pointer: wide enough for every return type
 * involved (int, enum, ssize_t, size_t) on x86_64 and arm64; arguments are
 * ignored, which both calling conventions allow.
 */
#include <stdlib.h>

#define GNUTLS_E_UNIMPLEMENTED_FEATURE	(-1250)

void *(*gnutls_malloc)(size_t) = malloc;

long gnutls_global_init(void);
long gnutls_global_init(void)
{
	return 0;
}

long gnutls_global_deinit(void);
long gnutls_global_deinit(void)
{
	return 0;
}

const char *gnutls_strerror(int err);
const char *gnutls_strerror(int err)
{
	return "TLS is not built into this static vmapscope binary";
}

void *gnutls_session_get_ptr(void *session);
void *gnutls_session_get_ptr(void *session)
{
	return NULL;
}

#define TLS_STUB(name)							\
	long name(void);						\
	long name(void)							\
	{								\
		return GNUTLS_E_UNIMPLEMENTED_FEATURE;			\
	}

TLS_STUB(gnutls_alpn_set_protocols)
TLS_STUB(gnutls_bye)
TLS_STUB(gnutls_certificate_allocate_credentials)
TLS_STUB(gnutls_certificate_free_credentials)
TLS_STUB(gnutls_certificate_server_set_request)
TLS_STUB(gnutls_certificate_set_dh_params)
TLS_STUB(gnutls_certificate_set_retrieve_function2)
TLS_STUB(gnutls_certificate_set_retrieve_function3)
TLS_STUB(gnutls_certificate_set_x509_key_mem)
TLS_STUB(gnutls_certificate_set_x509_key_mem2)
TLS_STUB(gnutls_certificate_set_x509_trust_mem)
TLS_STUB(gnutls_cipher_get)
TLS_STUB(gnutls_credentials_set)
TLS_STUB(gnutls_deinit)
TLS_STUB(gnutls_dh_params_deinit)
TLS_STUB(gnutls_dh_params_import_pkcs3)
TLS_STUB(gnutls_dh_params_init)
TLS_STUB(gnutls_handshake)
TLS_STUB(gnutls_init)
TLS_STUB(gnutls_priority_deinit)
TLS_STUB(gnutls_priority_init)
TLS_STUB(gnutls_priority_set)
TLS_STUB(gnutls_protocol_get_version)
TLS_STUB(gnutls_psk_allocate_server_credentials)
TLS_STUB(gnutls_psk_free_server_credentials)
TLS_STUB(gnutls_psk_set_server_credentials_function)
TLS_STUB(gnutls_record_check_pending)
TLS_STUB(gnutls_record_get_direction)
TLS_STUB(gnutls_record_recv)
TLS_STUB(gnutls_record_send)
TLS_STUB(gnutls_session_set_ptr)
TLS_STUB(gnutls_transport_set_int2)
