/*
 * kube_auth: turns a kube_conn's credentials into an Authorization
 * header value. Exec plugins are spawned with an argv (never a shell),
 * their stdout read into a capped buffer, and the token cached until its
 * expirationTimestamp. OIDC id-tokens are used while fresh and then
 * refreshed through the kubeconfig that defines the user, under its lock
 * (oidc_refresh_kubeconfig), for every command of every program.
 */
#ifndef KUBE_AUTH_H
#define KUBE_AUTH_H

#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/config.h"

struct kube_auth;

struct kube_auth *kube_auth_new(const struct kube_conn *);
void	 kube_auth_free(struct kube_auth *);
/*
 * The Authorization header value ("Bearer xyz", "Basic ..."), or NULL
 * in *out when the connection uses no header (certificates only).
 * Caller frees with rai_free_secret().
 */
int	 kube_auth_header(struct kube_auth *, char **out, struct rai_err *);
/* After a 401: drop cached plugin/refresh results so the next call renews. */
void	 kube_auth_invalidate(struct kube_auth *);

/*
 * Refresh hook for OIDC: given the conn's oidc config, produce a fresh
 * id-token (and possibly a rotated refresh token), persisting them.
 * kube_auth_new installs oidc_refresh_kubeconfig (lib/kube/oidc_refresh.c)
 * for every OIDC user of a kubeconfig file, so all commands of all
 * programs refresh the same way; this replaces it (NULL = no refresh).
 */
typedef int kube_oidc_refresh_fn(void *ud, const struct kube_oidc_cfg *,
    char **id_token, char **refresh_token, struct rai_err *);
void	 kube_auth_set_oidc_refresh(struct kube_auth *, kube_oidc_refresh_fn *,
	    void *ud);

#endif
