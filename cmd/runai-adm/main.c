/*
 * runai-adm: the administrator's tool for installing and upgrading
 * Run:ai clusters. Commands arrive one per file; this is the table.
 */
#include <locale.h>
#include <stddef.h>
#include <stdio.h>

#include <curl/curl.h>

#include "adm.h"
#include "cli/opt.h"
#include "cli/version.h"
#include "cli/warn.h"
#include "core/err.h"
#include "core/log.h"
#include "kube/client.h"
#include "kube/config.h"

#include "core/banned.h"

static const struct rai_opt adm_global_opts[] = {
	{ 0, "kubeconfig", RAI_OPT_STRING,
	    offsetof(struct adm_globals, kubeconfig), "<file>",
	    "kubeconfig file to use instead of $KUBECONFIG", NULL, NULL,
	    RAI_COMP_FILE, 0, NULL },
	{ 0, "context", RAI_OPT_STRING,
	    offsetof(struct adm_globals, context), "<name>",
	    "kubeconfig context to use", NULL, NULL, RAI_COMP_CONTEXT, 0,
	    NULL },
	{ 'v', "verbosity", RAI_OPT_LEVEL,
	    offsetof(struct adm_globals, verbosity), "<level>",
	    "log level: -v notes, -v=6 requests, -v=8 bodies (secrets redacted)",
	    NULL, NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "request-timeout", RAI_OPT_DURATION,
	    offsetof(struct adm_globals, request_timeout), "<duration>",
	    "time limit for each API request (default 60s)", NULL, NULL,
	    RAI_COMP_NONE, 0, NULL },
	RAI_OPT_END
};

static const struct rai_cmd *const adm_cmds[] = {
	&adm_cmd_generate_values,
	&adm_cmd_images,
	&adm_cmd_node,
	&adm_cmd_preflight,
	&adm_cmd_remove,
	&adm_cmd_set,
	&rai_cmd_version,
	NULL
};

/* The kubeconfig (and a client) for the commands that want them. */
static int
adm_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct adm_globals *g = ADM_GLOBALS(ctx);
	struct kube_config_opts ko = { 0 };
	struct kube_client_opts co = { 0 };

	rai_log_set_level(g->verbosity);
	if (!(flags & (RAI_CMD_NEED_CONFIG | RAI_CMD_NEED_CLIENT)))
		return 0;
	ko.kubeconfig = g->kubeconfig;
	ko.context = g->context;
	if (ctx->kcfg == NULL && kube_config_load(&ctx->kcfg, &ko, err) == -1)
		return -1;
	if (!(flags & RAI_CMD_NEED_CLIENT) || ctx->client != NULL)
		return 0;
	if (kube_config_resolve(ctx->kcfg, &ctx->conn, err) == -1)
		return -1;
	co.request_timeout_ms = g->request_timeout * 1000;
	co.max_retries = -1;
	co.user_agent = "runai-adm/" RAI_VERSION;
	return kube_client_new(&ctx->client, &ctx->conn, &co, err);
}

static void
adm_teardown(struct rai_ctx *ctx)
{
	kube_client_free(ctx->client);
	ctx->client = NULL;
	kube_conn_release(&ctx->conn);
	kube_config_free(ctx->kcfg);
	ctx->kcfg = NULL;
}

static const struct rai_prog adm_prog = {
	.name = "runai-adm",
	.summary = "install, upgrade and maintain a Run:ai cluster",
	.description = "runai-adm is the administrator's tool for Run:ai "
	    "clusters, including air-gapped ones: node roles, maintenance "
	    "drains, the values file for the installer, image preparation "
	    "without a Docker daemon, and pre-install checks.",
	.version = RAI_VERSION,
	.man_section = 8,
	.global_opts = adm_global_opts,
	.globals_size = sizeof(struct adm_globals),
	.cmds = adm_cmds,
	.setup = adm_setup,
	.teardown = adm_teardown,
};

int
main(int argc, char **argv)
{
	int rc;

	setlocale(LC_ALL, "");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rai_log_set_sink(rai_log_to_stderr, NULL);
	rc = rai_main(&adm_prog, argc, argv);
	curl_global_cleanup();
	return rc;
}
