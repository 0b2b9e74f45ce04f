/*
 * oidc_url: the one place that decides where runai may speak plain HTTP
 * to an identity provider or receive a login redirect.
 */
#ifndef OIDC_URL_H
#define OIDC_URL_H

/*
 * What an absolute URL is, judged on libcurl's own parse of it (the
 * same parse that picks the host it connects to), never on its text:
 * "http://127.0.0.1@evil.example/" is user info and the host
 * evil.example, and "http://127.0.0.1.evil.example/" is a name.
 */
enum oidc_url_kind {
	OIDC_URL_BAD = 0,	/* unparsable, not http(s), or user info */
	OIDC_URL_HTTPS,		/* https://, any host */
	OIDC_URL_HTTP_LOOPBACK,	/* http:// to an address in 127.0.0.0/8, or ::1 */
	OIDC_URL_HTTP_LOCALHOST, /* http://localhost: a name, resolved */
	OIDC_URL_HTTP_OTHER	/* http:// to anywhere else */
};

/*
 * The parts of a URL that the checks and the redirect listener need.
 * host is libcurl's (lowercased, an IPv6 address in brackets), port the
 * URL's own (0 when it names none), path at least "/".
 */
struct oidc_url {
	enum oidc_url_kind	 kind;
	char			*host;
	int			 port;
	char			*path;
};

/* 0 with *out filled (release it), or -1 for OIDC_URL_BAD. */
int			 oidc_url_parse(const char *url, struct oidc_url *out);
void			 oidc_url_release(struct oidc_url *);
enum oidc_url_kind	 oidc_url_kind(const char *url);

/*
 * Whether passwords, client secrets, codes and tokens may be sent to
 * url: https, or plain http to a loopback address written as one. The
 * name "localhost" does not count: it is looked up (hosts file, NSS,
 * sometimes DNS) and may lead off the machine.
 */
int			 oidc_url_may_carry_secrets(const char *url);

/*
 * Whether uri may be the browser flow's redirect (RFC 8252 7.3): plain
 * http to a loopback address or to localhost. localhost is allowed
 * here because runai sends nothing there; the browser brings the code
 * to our listener, and the code is useless without the PKCE verifier
 * that never leaves this process.
 */
int			 oidc_is_loopback_uri(const char *uri);

#endif
