/*
 * Given a CA as a blob, libcurl parses it again for every connection
 * it opens, and OpenSSL 3 decodes a certificate slowly: on loopback a
 * list -A spent more on that than on its resumed handshakes. The store
 * built here once is handed to each connection's SSL_CTX by reference
 * instead (libcurl's SSL_CTX callback, an OpenSSL build's only).
 */
#include <limits.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "core/tls_ca.h"

#include "core/banned.h"

/*
 * Every certificate of a PEM bundle, or NULL when it holds none or one
 * does not parse: the caller then gives libcurl the blob itself, whose
 * own error says what is wrong with it.
 */
X509_STORE *
rai_tls_ca_load(const void *pem, size_t len)
{
	X509_STORE *store;
	X509 *x;
	BIO *bio;
	int n = 0, bad = 0;

	if (pem == NULL || len == 0 || len > (size_t)INT_MAX)
		return NULL;
	ERR_clear_error();
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL)
		return NULL;
	if ((store = X509_STORE_new()) == NULL) {
		BIO_free(bio);
		return NULL;
	}
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(store, x) == 1)
			n++;
		X509_free(x);
	}
	/* the end of the bundle reads as "no start line"; anything else
	 * is a certificate that did not parse */
	if (ERR_GET_REASON(ERR_peek_last_error()) != PEM_R_NO_START_LINE)
		bad = 1;
	ERR_clear_error();
	BIO_free(bio);
	if (n == 0 || bad) {
		X509_STORE_free(store);
		return NULL;
	}
	/*
	 * As libcurl sets up its own stores: a certificate of the bundle is
	 * a trust anchor even when it is an intermediate, as for kubectl.
	 */
	X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
	return store;
}

/* The connection's context verifies with the shared store alone. */
void
rai_tls_ca_use(void *ssl_ctx, X509_STORE *store)
{
	if (ssl_ctx != NULL && store != NULL)
		SSL_CTX_set1_cert_store((SSL_CTX *)ssl_ctx, store);
}
