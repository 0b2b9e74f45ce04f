/*
 * A configured certificate authority, parsed once and shared by every
 * TLS connection of a client (see tls_ca.c).
 */
#ifndef RAI_CORE_TLS_CA_H
#define RAI_CORE_TLS_CA_H

#include <stddef.h>

#include <openssl/types.h>

X509_STORE	*rai_tls_ca_load(const void *pem, size_t len);
void		 rai_tls_ca_use(void *ssl_ctx, X509_STORE *store);

#endif
