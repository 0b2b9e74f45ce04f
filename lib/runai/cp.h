/*
 * cp: a session with a Run:ai control plane (backend mode). It holds the
 * control plane's URL, the login stored for it, and an authenticated
 * backend client whose bearer token is renewed when it nears expiry:
 * under the store file's lock, so of many commands started at once only
 * the first spends the (rotating, one-use) refresh token and the others
 * take the token it wrote.
 *
 * The store: one JSON file per control plane, mode 0600, written
 * atomically, under $XDG_CONFIG_HOME/runai/control-plane/ (default
 * ~/.config/runai/control-plane/), named after the URL's host and port.
 * It holds the tokens, the grant they came from, who logged in, and
 * what the login probed: the cluster's id, name, version and domain.
 * The access token is opaque (not necessarily a JWT): it is renewed
 * before the expiry the token answer gave (expiresIn, kept as expiresAt),
 * else a JWT's exp, else when the server refuses it.
 */
#ifndef RUNAI_CP_H
#define RUNAI_CP_H

#include <cjson/cJSON.h>

#include "core/err.h"

struct cp;

struct cp_opts {
	const char	*url;			/* http(s)://host[:port] */
	long		 request_timeout_ms;	/* 0 = default */
	const char	*user_agent;		/* NULL = runai/<ver> */
	const char	*cluster;		/* the cluster's name or id;
						   NULL = the only one */
	const char	*auth_url;		/* where its identity provider
						   is; NULL = url */
};

enum cp_grant {
	CP_GRANT_PASSWORD,	/* user + password */
	CP_GRANT_ACCESS_KEY,	/* client id + secret (client_credentials) */
	CP_GRANT_APPLICATION,	/* the same, as 2.18's app_token */
};

/* Opens the session; nothing is sent. RAI_E_CONFIG for a bad URL. */
int	 cp_open(struct cp **, const struct cp_opts *, struct rai_err *);
void	 cp_free(struct cp *);
const char *cp_url(const struct cp *);
/* Where the login is stored (borrowed). */
const char *cp_store_path(const struct cp *);

/*
 * Logs in (id: user or client id; secret: password or client secret),
 * stores the tokens, then probes the clusters the control plane serves
 * and stores them too, with the one in use: the one the options name
 * (an error when none or several are called so), else the only one
 * (none when there are several: cp_cluster_use then says to choose).
 */
int	 cp_login(struct cp *, enum cp_grant, const char *id,
	    const char *secret, struct rai_err *);
/*
 * The browser flows: the authorization code the control plane's
 * identity provider gave for client_id and redirect_uri, exchanged at
 * the control plane (the exchange_token grant, which carries no PKCE
 * verifier); the tokens and clusters stored as cp_login stores them.
 */
int	 cp_login_code(struct cp *, const char *client_id, const char *code,
	    const char *redirect_uri, struct rai_err *);
/*
 * The access token, renewed first when it is about to expire (caller
 * frees with rai_free_secret): for the cluster's Kubernetes API, which
 * takes it where the cluster trusts the control plane's tokens, and for
 * the cluster's own /cluster-api endpoint.
 */
int	 cp_access_token(struct cp *, char **token, struct rai_err *);
/* The client id of the password, code and refresh grants ("runai-cli"). */
const char *cp_cli_client_id(void);
/*
 * The identity provider's issuer: the realm under <auth_url>/auth, or
 * <url>/auth when the options named no auth_url (caller frees).
 */
char	*cp_idp_issuer(const struct cp *);
/* Forgets the stored login; 0 also when there was none. */
int	 cp_logout(struct cp *, struct rai_err *);
/* Whether a login is stored. */
int	 cp_logged_in(struct cp *);
/*
 * Who the login is, unverified (display only): the access token's
 * claims where it is a JWT, else the id-token's, else {"sub": the user
 * name or client id the login was given}.
 */
int	 cp_claims(struct cp *, cJSON **claims, struct rai_err *);
/*
 * The probed cluster's "id", "name", "version", "domain": borrowed, and
 * valid only until the next call on the session (which may read the
 * store again as it renews the token).
 */
const char *cp_cluster(struct cp *, const char *key);
/*
 * Makes the cluster the options name the one cp_cluster reports, found
 * by name or id among those the login stored (asked again once when it
 * is not among them). RAI_E_NOTFOUND when no cluster is called so,
 * RAI_E_CONFIG when several are, or when none is named and the control
 * plane serves several. Not logged in: 0 (the next call says so).
 */
int	 cp_cluster_use(struct cp *, struct rai_err *);
/* "a, b": the names of the clusters the login stored (caller frees). */
char	*cp_cluster_names(struct cp *);

/*
 * Whether a release ("2.24.10") is at least major.minor; NULL (not
 * known) counts as the newest.
 */
int	 cp_version_at_least(const char *release, int major, int minor);

/* An authenticated call; see backend_call. */
int	 cp_call(struct cp *, const char *method, const char *path,
	    const cJSON *body, long *status, cJSON **out, struct rai_err *);

#endif
