/*
 * oidc_refresh: renewing an expiring id-token for any command, safely
 * when many run at once.
 *
 * Providers rotate refresh tokens, and spending one twice makes them
 * revoke the whole grant (oidc-provider, Keycloak with reuse detection).
 * So the refresh happens inside kube_config_update_oidc: the kubeconfig
 * lock is held from the re-read of the tokens until the new ones are on
 * disk. A process that waited for the lock finds the id-token changed
 * and fresh, and uses it instead of refreshing again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/log.h"
#include "kube/config.h"
#include "kube/oidc_refresh.h"
#include "kube/token.h"
#include "oidc/jwt.h"
#include "oidc/oidc.h"

#include "core/banned.h"

/*
 * Each request to the provider; discovery and the grant must fit in the
 * kubeconfig lock wait of other processes (10 s).
 */
#define REFRESH_TIMEOUT_MS	4000L

struct refresh {
	const struct kube_oidc_cfg	*have;
	struct oidc_tokens		 got;	/* what the issuer gave */
	char				*id;	/* result, secret */
	char				*rt;	/* result, secret */
};

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/*
 * Ends an authentication failure with the cure, once. Transport and
 * kubeconfig failures keep their own words: logging in again would not
 * help there.
 */
static void
login_again(struct rai_err *err)
{
	char *m;

	if (err->kind != RAI_E_AUTH || err->message == NULL ||
	    strstr(err->message, "runai login") != NULL)
		return;
	m = xasprintf("%s; run 'runai login'", err->message);
	free(err->message);
	err->message = m;
}

/* The claims of a refreshed id-token still name our issuer and client. */
static int
check_refreshed(const char *id_token, const struct kube_oidc_cfg *now,
    struct rai_err *err)
{
	cJSON *claims = kube_jwt_claims(id_token);
	int rc;

	if (claims == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the refreshed id-token is "
		    "not a JWT");
	rc = oidc_jwt_check_claims(claims, now->issuer_url, now->client_id,
	    NULL, time(NULL), err);
	cJSON_Delete(claims);
	return rc;
}

static int
refresh_locked(void *ud, const struct kube_oidc_cfg *now,
    struct kube_oidc_kv *kv, size_t *n, struct rai_err *err)
{
	struct refresh *r = ud;
	struct oidc_client *c = NULL;
	int rc = -1;

	*n = 0;
	if (now->id_token != NULL && (r->have->id_token == NULL ||
	    strcmp(now->id_token, r->have->id_token) != 0) &&
	    kube_oidc_token_fresh(now->id_token, time(NULL))) {
		rai_log(RAI_LOG_DEBUG, "another process already refreshed the "
		    "OIDC id-token; using it");
		r->id = xstrdup(now->id_token);
		r->rt = dup_or_null(now->refresh_token);
		return 0;
	}
	if (now->refresh_token == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the id-token has expired "
		    "and there is no refresh-token; run 'runai login'");
	if (oidc_client_new(&c, now->issuer_url, now->client_id,
	    now->client_secret, now->idp_ca.data, now->idp_ca.len,
	    REFRESH_TIMEOUT_MS, err) == -1)
		return -1;
	rai_log(RAI_LOG_DEBUG, "refreshing the OIDC id-token at %s",
	    now->issuer_url);
	if (oidc_grant_refresh(c, now->refresh_token, &r->got, err) == -1 ||
	    check_refreshed(r->got.id_token, now, err) == -1)
		goto out;
	kv[0].key = "id-token";
	kv[0].value = r->got.id_token;
	*n = 1;
	/* A provider that does not rotate keeps the old refresh token. */
	if (r->got.refresh_token != NULL) {
		kv[1].key = "refresh-token";
		kv[1].value = r->got.refresh_token;
		*n = 2;
	}
	r->id = xstrdup(r->got.id_token);
	r->rt = dup_or_null(r->got.refresh_token != NULL ?
	    r->got.refresh_token : now->refresh_token);
	rc = 0;
out:
	oidc_client_free(c);
	return rc;
}

int
oidc_refresh_kubeconfig(const char *file, const char *user,
    const struct kube_oidc_cfg *have, char **id_token, char **refresh_token,
    struct rai_err *err)
{
	struct kube_config_opts ko = { 0 };
	struct kube_config *kc = NULL;
	struct refresh r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.have = have;
	ko.kubeconfig = file;
	if (kube_config_load(&kc, &ko, err) == -1)
		goto out;
	if (kube_config_update_oidc(kc, user, refresh_locked, &r, err) == -1) {
		login_again(err);
		goto out;
	}
	*id_token = r.id;
	*refresh_token = r.rt;
	r.id = r.rt = NULL;
	rc = 0;
out:
	rai_free_secret(r.id);
	rai_free_secret(r.rt);
	oidc_tokens_release(&r.got);
	kube_config_free(kc);
	return rc;
}
