/*
 * kube_oidc_refresh: renewing the id-token of a kubeconfig user whose
 * auth-provider is oidc, for kube/auth.c when a token is about to expire.
 */
#ifndef KUBE_OIDC_REFRESH_H
#define KUBE_OIDC_REFRESH_H

#include "core/err.h"
#include "kube/config.h"

/*
 * The refresh behind every API request : under the lock
 * of file (the kubeconfig that defines user), re-reads the user's
 * tokens; when another process has already put a fresh id-token there
 * (one that differs from have->id_token) that one is taken, else the
 * refresh token found there is spent at the issuer and both new tokens
 * are written back before the lock is released. *id_token and
 * *refresh_token are the caller's (rai_free_secret). Failures end in
 * "run 'runai login'" where logging in again is the cure.
 */
int	 oidc_refresh_kubeconfig(const char *file, const char *user,
	    const struct kube_oidc_cfg *have, char **id_token,
	    char **refresh_token, struct rai_err *);

#endif
