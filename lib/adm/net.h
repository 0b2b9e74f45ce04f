/*
 * adm_net: the host-side network probes of "runai-adm preflight", each
 * bounded by a time limit so a dead endpoint costs seconds:
 *   - name resolution (getaddrinfo in a helper thread; a stuck resolver
 *     is abandoned at the deadline, never waited for);
 *   - TCP connects (non-blocking, poll);
 *   - TLS handshakes that return the chain the server sent (OpenSSL);
 *   - GET /v2/ on a registry (libcurl).
 * Failures are RAI_E_NET with a one-line message.
 */
#ifndef ADM_NET_H
#define ADM_NET_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"

/* "host", "host:port", "[v6]:port" or a bare IPv6 address. */
int	 adm_split_hostport(const char *s, int defport, char **host, int *port,
	    struct rai_err *);

/* The addresses of host as text ("10.0.0.1", "::1"), in resolver order. */
int	 adm_resolve(const char *host, long timeout_ms, struct rai_strv *addrs,
	    struct rai_err *);

/* A connected TCP socket to host:port (each address in turn); close it. */
int	 adm_tcp_connect(const char *host, int port, long timeout_ms, int *fd,
	    struct rai_err *);

enum adm_tls_fetch_flags {
	ADM_FETCH_CONNECTED	= 1 << 0,	/* set when TCP connected */
};
/*
 * A TLS handshake with host:port (SNI: sni unless it is an IP address),
 * no verification; the certificates the server sent, as PEM, leaf
 * first, appended to pem. *flags tells a refused connection from a
 * failed handshake.
 */
int	 adm_tls_fetch_chain(const char *host, int port, const char *sni,
	    long timeout_ms, struct rai_buf *pem, unsigned *flags,
	    struct rai_err *);

struct adm_reg_answer {
	long	 status;	/* HTTP status, 0 = none */
	char	*www_auth;	/* WWW-Authenticate, or NULL */
};
/*
 * GET scheme://registry-host[:port]/v2/ (any /path of registry is not
 * used); ca_file (may be NULL) is the trust for https. On a transport
 * failure -1 with RAI_E_NET and err->curl_code set.
 */
int	 adm_registry_ping(const char *registry, int plain_http,
	    const char *ca_file, long timeout_ms, const char *user_agent,
	    struct adm_reg_answer *, struct rai_err *);
void	 adm_reg_answer_release(struct adm_reg_answer *);

#endif
