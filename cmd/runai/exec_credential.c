/*
 * runai exec-credential: a client.authentication.k8s.io exec plugin, so
 * kubectl (and anything built on client-go) reaches the cluster with
 * runai's login. It prints an ExecCredential whose token is the current
 * context's id-token, refreshed first when it is about to expire (the
 * same locked refresh as every runai request); in control-plane mode
 * the control plane's access token, renewed the same way under its
 * login store's lock ('runai kubeconfig set' writes such a user).
 *
 * kubeconfig user for kubectl:
 *   exec: {apiVersion: client.authentication.k8s.io/v1, command: runai,
 *          args: [exec-credential, --context, <runai context>],
 *          interactiveMode: Never}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/auth.h"
#include "kube/config.h"
#include "kube/token.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

#define EXEC_API_V1	"client.authentication.k8s.io/v1"
#define EXEC_API_BETA	"client.authentication.k8s.io/v1beta1"

/* The apiVersion kubectl asked for in KUBERNETES_EXEC_INFO, else v1. */
static const char *
requested_api(void)
{
	const char *info = getenv("KUBERNETES_EXEC_INFO");
	const char *api = EXEC_API_V1, *v;
	cJSON *doc;

	if (info == NULL || *info == '\0')
		return api;
	doc = cJSON_Parse(info);
	v = rai_json_str(doc, "apiVersion");
	if (v != NULL && strcmp(v, EXEC_API_BETA) == 0)
		api = EXEC_API_BETA;
	cJSON_Delete(doc);
	return api;
}

static void
wipe_and_free(char *json)
{
	if (json == NULL)
		return;
	explicit_bzero(json, strlen(json));
	cJSON_free(json);
}

int
runai_print_exec_credential(FILE *out, const char *token)
{
	cJSON *doc = cJSON_CreateObject(), *status;
	long long exp = kube_jwt_exp(token);
	time_t t = (time_t)exp;
	struct tm tm;
	char ts[32], *json;

	cJSON_AddStringToObject(doc, "kind", "ExecCredential");
	cJSON_AddStringToObject(doc, "apiVersion", requested_api());
	cJSON_AddFalseToObject(cJSON_AddObjectToObject(doc, "spec"),
	    "interactive");
	status = cJSON_AddObjectToObject(doc, "status");
	if (exp > 0 && gmtime_r(&t, &tm) != NULL &&
	    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		cJSON_AddStringToObject(status, "expirationTimestamp", ts);
	cJSON_AddStringToObject(status, "token", token);
	json = cJSON_PrintUnformatted(doc);
	if (cJSON_GetObjectItem(status, "token") != NULL)
		explicit_bzero(cJSON_GetObjectItem(status, "token")->valuestring,
		    strlen(token));
	cJSON_Delete(doc);
	if (json == NULL)
		rai_die("out of memory");
	fprintf(out, "%s\n", json);
	wipe_and_free(json);
	return 0;
}

/* Control-plane mode: the control plane's token, renewed when it nears expiry. */
static int
control_plane_credential(struct rai_ctx *ctx, struct cp *c)
{
	char *token = NULL;
	int rc;

	if (cp_access_token(c, &token, rai_ctx_err(ctx)) == -1)
		return -1;
	rc = runai_print_exec_credential(ctx->out, token);
	rai_free_secret(token);
	return rc;
}

static int
cmd_exec_credential(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct cp *c = runai_control_plane(ctx);
	struct kube_auth *a;
	char *h = NULL;
	int rc = -1;

	if (c != NULL)
		return control_plane_credential(ctx, c);
	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, &RUNAI_KUBE(ctx)->conn,
	    err) == -1)
		return -1;
	if (RUNAI_KUBE(ctx)->conn.auth == KUBE_AUTH_EXEC)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' is itself an "
		    "exec plugin user; point exec-credential at the context "
		    "whose user runai logged in (--context)",
		    RUNAI_KUBE(ctx)->conn.user ?
		    RUNAI_KUBE(ctx)->conn.user : "");
	if (RUNAI_KUBE(ctx)->conn.auth != KUBE_AUTH_OIDC)
		return rai_err_set(err, RAI_E_AUTH, "user '%s' has no OIDC "
		    "login; run 'runai login' first",
		    RUNAI_KUBE(ctx)->conn.user ?
		    RUNAI_KUBE(ctx)->conn.user : "");
	a = kube_auth_new(&RUNAI_KUBE(ctx)->conn);
	if (kube_auth_header(a, &h, err) == 0 && h != NULL &&
	    strncmp(h, "Bearer ", 7) == 0)
		rc = runai_print_exec_credential(ctx->out, h + 7);
	rai_free_secret(h);
	kube_auth_free(a);
	return rc;
}

static const struct rai_example exec_credential_examples[] = {
	{ "runai exec-credential --context team-a", "the ExecCredential "
	    "kubectl's exec plugin support reads" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_exec_credential = {
	.name = "exec-credential",
	.summary = "print an ExecCredential for kubectl (exec plugin)",
	.synopsis = "",
	.description = "For kubectl and other client-go programs: prints a "
	    "client.authentication.k8s.io/v1 ExecCredential (v1beta1 when "
	    "KUBERNETES_EXEC_INFO asks for it) holding the id-token of the "
	    "current context's user, refreshed first when it is about to "
	    "expire, and its expirationTimestamp. Use it as the command of a "
	    "kubeconfig user's exec section, with --context naming the "
	    "context runai logged in. In control-plane mode the token is the "
	    "control plane's access token, renewed first when it is about to "
	    "expire: a cluster with Run:ai's cluster authentication takes it "
	    "('runai kubeconfig set' writes such a user).",
	.examples = exec_credential_examples,
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_exec_credential,
};
