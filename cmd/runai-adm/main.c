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
	RAI_KUBE_GLOBAL_OPTS(struct adm_globals, kube),
	RAI_OPT_END
};

static const struct rai_cmd *const adm_cmds[] = {
	&adm_cmd_collect_logs,
	&adm_cmd_create,
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
	return rai_kube_setup(ADM_KUBE(ctx), &ADM_GLOBALS(ctx)->kube, flags,
	    "runai-adm/" RAI_VERSION, err);
}

static void
adm_teardown(struct rai_ctx *ctx)
{
	kube_session_close(ADM_KUBE(ctx));
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
	.app_size = sizeof(struct kube_session),
	.cmds = adm_cmds,
	.environment =
	    "KUBECONFIG\n"
	    "A colon-separated list of kubeconfig files, merged as kubectl "
	    "merges them. Default: ~/.kube/config.\n\n"
	    "RUNAI_VERBOSITY\n"
	    "Log level when -v is not given (0-10), as for runai.\n\n"
	    "RUNAI_REQUEST_TIMEOUT\n"
	    "Time limit for each API request when --request-timeout is "
	    "not given (default 60s).",
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
