/* runai config cluster <context>: switch the kubeconfig's current context. */
#include <stddef.h>
#include <stdio.h>

#include "kube/config.h"
#include "runai.h"

#include "core/banned.h"

int
runai_config_cluster(struct rai_ctx *ctx, const char *name)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct kube_context_info ci;

	/* The reference exits 0 here; a typo must not look like success. */
	if (kube_config_find_context(RUNAI_KUBE(ctx)->kcfg, name, &ci) == -1) {
		rai_err_set(err, RAI_E_NOTFOUND, "cluster '%s' does not exist",
		    name);
		rai_err_set_hint(err, "run 'runai list clusters' to see the "
		    "configured clusters");
		return -1;
	}
	if (kube_config_set_current_context(RUNAI_KUBE(ctx)->kcfg, name,
	    err) == -1)
		return -1;
	fprintf(ctx->out, "Set current cluster to %s\n", name);
	return 0;
}

static int
cmd_config_cluster(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)opts;
	(void)argc;
	return runai_config_cluster(ctx, argv[0]);
}

static const struct rai_example config_cluster_examples[] = {
	{ "runai config cluster prod-a100", "use the context prod-a100 from "
	    "now on" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_cluster = {
	.name = "cluster",
	.aliases = (const char *const[]){ "clusters", NULL },
	.summary = "set the current cluster (kubeconfig context)",
	.synopsis = "<context>",
	.description = "Makes <context> the kubeconfig's current-context, "
	    "in the file that holds current-context (the first file of "
	    "$KUBECONFIG that sets it). The file is rewritten atomically "
	    "with mode 0600.",
	.examples = config_cluster_examples,
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_CONTEXT,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CP_KUBECONFIG,
	.run = cmd_config_cluster,
};
