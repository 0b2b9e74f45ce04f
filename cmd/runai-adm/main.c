/*
 * runai-adm: the administrator's tool for installing and upgrading
 * Run:ai clusters. Commands arrive one per file; this is the table.
 */
#include <locale.h>
#include <stddef.h>

#include <curl/curl.h>

#include "rai_log.h"
#include "rai_opt.h"
#include "rai_version.h"

#include "banned.h"

struct adm_globals {
	const char	*kubeconfig;
	const char	*context;
	int		 verbosity;
};

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
	RAI_OPT_END
};

static const struct rai_cmd *const adm_cmds[] = {
	&rai_cmd_version,
	NULL
};

static int
adm_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct adm_globals *g = ctx->globals;

	rai_log_set_level(g->verbosity);
	return 0;
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
};

int
main(int argc, char **argv)
{
	int rc;

	setlocale(LC_ALL, "");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = rai_main(&adm_prog, argc, argv);
	curl_global_cleanup();
	return rc;
}
