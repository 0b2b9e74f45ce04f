/*
 * oidc: the OpenID Connect client behind "runai login" and the token
 * refresh of every API request.
 *
 * An oidc_client talks to one issuer: discovery (the issuer in the
 * document must equal the configured one, byte for byte, as go-oidc
 * and kube-apiserver require), the token endpoint (password,
 * authorization code with PKCE, refresh, device code grants), the
 * device authorization endpoint (RFC 8628), revocation (RFC 7009) and
 * the JWKS used to verify id-tokens (oidc/jwt.h).
 *
 * The pure parts (discovery and token answers, PKCE, state, pasted
 * redirects, the device-poll decision, JWT checks) are exported for unit
 * tests and fuzzing. Secrets returned by these functions are owned by the
 * caller and freed with rai_free_secret (oidc_tokens_release does that).
 */
#ifndef OIDC_H
#define OIDC_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"

/* Scopes every login asks for; additional-scope is appended. */
#define OIDC_BASE_SCOPES	"openid email offline_access"
/* RFC 8628: the poll interval when the server names none, and slow_down. */
#define OIDC_DEVICE_INTERVAL_S	5
#define OIDC_DEVICE_SLOWDOWN_S	5

/* The parts of the discovery document we use (owned strings). */
struct oidc_discovery {
	char	*issuer;
	char	*authorization_endpoint;
	char	*token_endpoint;
	char	*jwks_uri;
	char	*device_authorization_endpoint;	/* NULL = no device flow */
	char	*revocation_endpoint;		/* NULL = no revocation */
	char	*end_session_endpoint;
	int	 s256;		/* S256 is listed (or nothing is listed) */
};

/* A token endpoint answer. */
struct oidc_tokens {
	char	*id_token;	/* secret */
	char	*refresh_token;	/* secret, NULL when none was issued */
	char	*access_token;	/* secret */
	long	 expires_in;	/* seconds, 0 = not given */
};

/* The device authorization answer (RFC 8628 section 3.2). */
struct oidc_device {
	char	*device_code;	/* secret */
	char	*user_code;
	char	*verification_uri;
	char	*verification_uri_complete;	/* may be NULL */
	long	 expires_in;
	long	 interval;	/* seconds; OIDC_DEVICE_INTERVAL_S when absent */
};

/* What a device-flow poll answer means for the loop. */
enum oidc_poll {
	OIDC_POLL_DONE,		/* tokens issued */
	OIDC_POLL_PENDING,	/* authorization_pending: wait interval, again */
	OIDC_POLL_SLOW_DOWN,	/* slow_down: interval += 5 s, again */
	OIDC_POLL_DENIED,	/* access_denied */
	OIDC_POLL_EXPIRED,	/* expired_token */
	OIDC_POLL_ERROR,	/* anything else: give up */
};

struct oidc_client;

/*
 * A client for the issuer and client id (copied), with the PEM bytes
 * idp_ca as the trusted CA when idp_ca_len > 0. timeout_ms bounds each
 * request (0 = 15 s).
 */
int	 oidc_client_new(struct oidc_client **, const char *issuer,
	    const char *client_id, const char *client_secret,
	    const unsigned char *idp_ca, size_t idp_ca_len, long timeout_ms,
	    struct rai_err *);
void	 oidc_client_free(struct oidc_client *);
/* Fetches and checks the discovery document (once; later calls reuse it). */
int	 oidc_discover(struct oidc_client *, struct rai_err *);
/* Valid after oidc_discover. */
const struct oidc_discovery *oidc_client_discovery(const struct oidc_client *);

/* Token grants; each fills *out (released first) on success. */
int	 oidc_grant_password(struct oidc_client *, const char *user,
	    const char *password, const char *scope, const char *realm,
	    struct oidc_tokens *out, struct rai_err *);
int	 oidc_grant_code(struct oidc_client *, const char *code,
	    const char *redirect_uri, const char *verifier,
	    struct oidc_tokens *out, struct rai_err *);
int	 oidc_grant_refresh(struct oidc_client *, const char *refresh_token,
	    struct oidc_tokens *out, struct rai_err *);
int	 oidc_device_start(struct oidc_client *, const char *scope,
	    struct oidc_device *out, struct rai_err *);
/* One poll; returns the decision, tokens in *out for OIDC_POLL_DONE. */
enum oidc_poll oidc_device_poll(struct oidc_client *, const char *device_code,
	    struct oidc_tokens *out, struct rai_err *);
/* RFC 7009 revocation of a refresh token; -1 when it could not be done. */
int	 oidc_revoke(struct oidc_client *, const char *refresh_token,
	    struct rai_err *);
/*
 * Verifies an id-token from this issuer: signature against the issuer's
 * JWKS, iss, aud (the client id), exp, and nonce when not NULL.
 */
int	 oidc_client_verify(struct oidc_client *, const char *id_token,
	    const char *nonce, struct rai_err *);

/* The authorization URL of the code flow (state, PKCE challenge, nonce). */
char	*oidc_auth_url(const struct oidc_client *, const char *redirect_uri,
	    const char *scope, const char *state, const char *challenge,
	    const char *nonce);

void	 oidc_tokens_release(struct oidc_tokens *);
void	 oidc_device_release(struct oidc_device *);
void	 oidc_discovery_release(struct oidc_discovery *);

/* ---- pure helpers (unit tests, fuzzing) ---- */

/* The scope string: base scopes plus extra (space or comma separated). */
char	*oidc_scope(const char *extra);
/* n random bytes as base64url without padding (PKCE verifier, state). */
char	*oidc_random_b64url(size_t n);
/* base64url(SHA-256(verifier)) without padding: RFC 7636 S256. */
char	*oidc_pkce_s256(const char *verifier);
/* base64url without padding; caller frees. */
char	*oidc_b64url_encode(const unsigned char *, size_t);
/* application/x-www-form-urlencoded escaping of one value. */
char	*oidc_form_escape(const char *);

/*
 * Parses a discovery document and checks that its issuer is exactly
 * want_issuer and that the endpoints we need are there.
 */
int	 oidc_parse_discovery(const char *body, size_t len,
	    const char *want_issuer, struct oidc_discovery *out,
	    struct rai_err *);
/*
 * A token endpoint answer: status is the HTTP status. A 2xx needs an
 * id_token; an error answer sets *error (OAuth "error" code; caller
 * frees) when it has one, and err in every case.
 */
int	 oidc_parse_token_response(long status, const char *body, size_t len,
	    struct oidc_tokens *out, char **error, struct rai_err *);
int	 oidc_parse_device_response(const char *body, size_t len,
	    struct oidc_device *out, struct rai_err *);
/* The decision for an OAuth error code of a device-flow poll. */
enum oidc_poll oidc_device_decide(const char *error);
/*
 * What the user pasted in the copy-paste flow: a bare code or the whole
 * redirect URL. *code gets the code (caller frees with rai_free_secret);
 * when the URL carries a state it must equal want_state; an error
 * parameter in the URL is reported.
 */
int	 oidc_parse_pasted(const char *pasted, const char *want_state,
	    char **code, struct rai_err *);
/*
 * The query of a redirect to the loopback listener: 0 with *code when
 * state equals want_state, -1 with err for the provider's error (or no
 * code) under the right state, 1 when state is missing or another one:
 * not this login's redirect (the provider sends state back with errors
 * too, RFC 6749 4.1.2.1).
 */
int	 oidc_parse_callback_query(const char *query, const char *want_state,
	    char **code, struct rai_err *);
/* One query parameter, decoded (caller frees), or NULL. */
char	*oidc_query_param(const char *query, const char *name);

#endif
