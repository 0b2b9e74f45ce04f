/*
 * OpenSSL frees its tables from an atexit handler, which a short-lived
 * command pays on every run (1.4 M of a list -A's 113 M instructions)
 * for memory the kernel takes back anyway. Asked for before libcurl's
 * own initialisation, that handler is never installed; what OpenSSL
 * holds at exit stays reachable from its globals, so leak checkers
 * count it as such, not as a leak.
 */
#include <openssl/crypto.h>

#include "core/tls_init.h"

#include "core/banned.h"

void
rai_tls_init(void)
{
	(void)OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
