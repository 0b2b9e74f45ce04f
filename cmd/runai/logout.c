/*
 * runai logout: forget the tokens of the current context's user, and
 * revoke the refresh token at the provider when it offers revocation,
 * so a copy of the old kubeconfig cannot mint new id-tokens. The local
 * logout happens even when the provider cannot be reached.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "kube/config.h"
#include "oidc/oidc.h"
#include "runai.h"

#include "core/banned.h"

/* Revocation is best effort: a failure is reported, not fatal. */
static void
revoke(const struct kube_oidc_cfg *oc)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_client *c = NULL;

	if (oidc_client_new(&c, oc->issuer_url, oc->client_id,
	    oc->client_secret, oc->idp_ca.data, oc->idp_ca.len, 0, &err) == -1 ||
	    oidc_revoke(c, oc->refresh_token, &err) == -1)
		rai_warn("could not revoke the refresh token at the identity "
		    "provider: %s", err.message ?
		    err.message : "unknown error");
	oidc_client_free(c);
	rai_err_release(&err);
}

static int
cmd_logout(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);
	const struct kube_conn *c = &RUNAI_KUBE(ctx)->conn;
	struct kube_oidc_kv kv[2] = {
		{ "id-token", NULL }, { "refresh-token", NULL }
	};

	if (runai_control_plane(ctx) != NULL)
		return runai_logout_cp(ctx);
	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, &RUNAI_KUBE(ctx)->conn,
	    err) == -1)
		return -1;
	if (c->auth != KUBE_AUTH_OIDC) {
		rai_err_set(err, RAI_E_AUTH, "user '%s' is not logged in (no "
		    "OIDC auth-provider in the kubeconfig)", c->user ? c->user :
		    "");
		return -1;
	}
	if (c->oidc.refresh_token != NULL)
		revoke(&c->oidc);
	if (kube_config_set_oidc_fields(RUNAI_KUBE(ctx)->kcfg, c->user, kv, 2,
	    err) == -1)
		return -1;
	fprintf(ctx->out, "Logged out successfully\n");
	return 0;
}

static const struct rai_example logout_examples[] = {
	{ "runai logout", "remove the tokens of the current context's user" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_logout = {
	.name = "logout",
	.summary = "log out: remove the stored OIDC tokens",
	.synopsis = "",
	.description = "Removes id-token and refresh-token from the current "
	    "context's user in the kubeconfig, keeping the rest of its "
	    "auth-provider config so 'runai login' works again. When the "
	    "provider has a revocation endpoint the refresh token is revoked "
	    "there first; if that fails, a warning says so and the local "
	    "logout still happens.",
	.examples = logout_examples,
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_logout,
};
