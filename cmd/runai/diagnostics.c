/*
 * runai diagnostics collect-logs: the Run:ai CLI v2's support archive
 * (lib/cli/collect_logs.c, over kube/bundle.c), from the cluster of the
 * kubeconfig's context; in control-plane mode from the cluster's
 * Kubernetes API, reached as logs and exec reach a job's pods.
 */
#include <stddef.h>

#include "cli/collect_logs.h"
#include "cli/opt.h"
#include "core/strv.h"
#include "kube/config.h"
#include "runai.h"

#include "core/banned.h"

static int
cmd_collect_logs(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct rai_collect_logs_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_collect_logs_run r = { .tool = "runai " RAI_VERSION };
	struct rai_strv ns = { NULL, 0 };
	int rc = -1;

	(void)argc;
	(void)argv;
	/* the options first: a usage error needs no cluster */
	if (rai_collect_logs_check(o, &ns, err) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_CLIENT, err) == -1)
		goto out;
	r.client = RUNAI_CLIENT(ctx);
	if (RUNAI_KUBE(ctx)->kcfg != NULL)
		r.context = kube_config_context_name(RUNAI_KUBE(ctx)->kcfg);
	rc = rai_collect_logs(ctx, o, &ns, &r);
out:
	rai_strv_release(&ns);
	return rc;
}

static const struct rai_example collect_logs_examples[] = {
	{ "runai diagnostics collect-logs",
	    "Run:ai's namespaces, into ./runai-logs-DATE-TIME.tar.gz" },
	{ "runai diagnostics collect-logs --namespaces runai,runai-backend "
	    "--no-previous --output-dir /tmp",
	    "two namespaces, current logs only, into /tmp" },
	{ NULL, NULL }
};

static const struct rai_cmd collect_logs_cmd = {
	.name = "collect-logs",
	.summary = "archive the cluster's Run:ai logs for support",
	.synopsis = "[--namespaces <ns,...>] [--no-previous] "
	    "[--output-dir <dir>]",
	.description = RAI_COLLECT_LOGS_ABOUT "\n\n"
	    "The cluster is the kubeconfig context's. In control-plane "
	    "mode it is the chosen cluster's Kubernetes API, reached as "
	    "logs and exec reach a job's pods: with the context's "
	    "credentials, else the control plane's token, and a project "
	    "must be set; when the kubeconfig gives no way to that API, "
	    "the command says so in one line.",
	.examples = collect_logs_examples,
	.opts = rai_collect_logs_opts,
	.opts_size = sizeof(struct rai_collect_logs_opts),
	.args_min = 0,
	.args_max = 0,
	/* runai_prepare() once the options are checked */
	.flags = RUNAI_CMD_STREAM,
	.run = cmd_collect_logs,
};

static const struct rai_cmd *const diagnostics_cmds[] = {
	&collect_logs_cmd,
	NULL
};

const struct rai_cmd runai_cmd_diagnostics = {
	.name = "diagnostics",
	.summary = "collect what Run:ai support asks for",
	.synopsis = "collect-logs [options]",
	.description = "Tools for support cases: collect-logs writes one "
	    "archive of the cluster's Run:ai logs and objects.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = diagnostics_cmds,
};
