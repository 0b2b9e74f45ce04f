/* Opening the kubeconfig, the connection and the client, each once. */
#include <string.h>

#include "core/log.h"
#include "kube/session.h"

#include "core/banned.h"

int
kube_session_load(struct kube_session *ks, const char *kubeconfig,
    const char *context, struct rai_err *err)
{
	struct kube_config_opts ko;
	const char *name;

	if (ks->kcfg != NULL)
		return 0;
	memset(&ko, 0, sizeof(ko));
	ko.kubeconfig = kubeconfig;
	ko.context = context;
	if (kube_config_load(&ks->kcfg, &ko, err) == -1)
		return -1;
	if (rai_log_enabled(RAI_LOG_NOTE) && kube_config_nfiles(ks->kcfg) > 0) {
		name = kube_config_context_name(ks->kcfg);
		rai_log(RAI_LOG_NOTE, "using kubeconfig %s, context %s",
		    kube_config_file(ks->kcfg, 0), name ? name : "(none)");
	}
	return 0;
}

int
kube_session_connect(struct kube_session *ks,
    const struct kube_client_opts *opts, struct rai_err *err)
{
	if (ks->client != NULL)
		return 0;
	if (ks->kcfg == NULL)
		return rai_err_set(err, RAI_E_INTERNAL, "kube_session_connect "
		    "before kube_session_load");
	kube_conn_release(&ks->conn);
	if (kube_config_resolve(ks->kcfg, &ks->conn, err) == -1)
		return -1;
	return kube_client_new(&ks->client, &ks->conn, opts, err);
}

void
kube_session_close(struct kube_session *ks)
{
	kube_client_free(ks->client);
	ks->client = NULL;
	kube_conn_release(&ks->conn);
	kube_config_free(ks->kcfg);
	ks->kcfg = NULL;
}

/* What the kubeconfig user gave the cluster, in the hint's words. */
static const char *
credential_words(const struct kube_conn *c)
{
	switch (c->auth) {
	case KUBE_AUTH_TOKEN:
		return "the token";
	case KUBE_AUTH_TOKEN_FILE:
		return "the token in the tokenFile";
	case KUBE_AUTH_BASIC:
		return "the username and password";
	case KUBE_AUTH_EXEC:
		return "the token its exec plugin gave";
	case KUBE_AUTH_OIDC:
		return "the OIDC id-token";
	case KUBE_AUTH_CERT:
		return "the client certificate";
	case KUBE_AUTH_NONE:
		break;
	}
	return NULL;
}

void
kube_session_explain_401(const struct kube_session *ks, struct rai_err *err)
{
	const struct kube_conn *c = &ks->conn;
	const char *ctx = c->context != NULL ? c->context : "?";
	const char *user = c->user != NULL ? c->user : "?";
	const char *what = credential_words(c);

	if (err->http_status != 401 || ks->client == NULL || err->hint != NULL)
		return;
	if (what == NULL)
		rai_err_set_hint(err, "context '%s' (user '%s') sends no "
		    "credentials: run 'runai login', or set a token for the "
		    "user in the kubeconfig", ctx, user);
	else if (c->auth == KUBE_AUTH_TOKEN_FILE && c->token_file != NULL)
		rai_err_set_hint(err, "the cluster refused %s '%s' of user "
		    "'%s' (context '%s'): check that token, or run 'runai "
		    "login'", what, c->token_file, user, ctx);
	else
		rai_err_set_hint(err, "the cluster refused %s of user '%s' "
		    "(context '%s'): run 'runai login', or check the user's "
		    "credentials in the kubeconfig", what, user, ctx);
}
