/*
 * runai config cluster <name>: the cluster later commands use. In
 * Kubernetes mode a cluster is a kubeconfig context and this switches
 * the current one; in control-plane mode it is one of the control
 * plane's clusters, kept beside the context. Either way it is a name
 * "runai list clusters" shows, which "runai cluster set" takes too.
 */
#include <stddef.h>
#include <stdio.h>

#include "kube/config.h"
#include "runai.h"

#include "core/banned.h"

static int
choose_context(struct rai_ctx *ctx, const char *name, struct rai_err *err)
{
	struct kube_context_info ci;

	/* The reference exits 0 here; a typo must not look like success. */
	if (kube_config_find_context(RUNAI_KUBE(ctx)->kcfg, name, &ci) == -1) {
		rai_err_set(err, RAI_E_NOTFOUND, "cluster '%s' does not exist",
		    name);
		rai_err_set_hint(err, "run 'runai list clusters' to see the "
		    "configured clusters");
		return -1;
	}
	return kube_config_set_current_context(RUNAI_KUBE(ctx)->kcfg, name,
	    err);
}

int
runai_cluster_choose(struct rai_ctx *ctx, const char *name, const char *id,
    struct rai_err *err)
{
	struct kube_context_info ci;

	if (runai_control_plane(ctx) == NULL) {
		if (id != NULL)
			return rai_err_set(err, RAI_E_USAGE, "--id is for "
			    "control-plane mode: a kubeconfig context has a "
			    "name only");
		return choose_context(ctx, name, err);
	}
	if (runai_cp_use_cluster(ctx, id != NULL ? id : name, err) == 0)
		return 0;
	/* a context's name still switches contexts, as it always did */
	if (id == NULL && err->kind == RAI_E_NOTFOUND &&
	    RUNAI_KUBE(ctx)->kcfg != NULL &&
	    kube_config_find_context(RUNAI_KUBE(ctx)->kcfg, name, &ci) == 0) {
		rai_err_release(err);
		return kube_config_set_current_context(RUNAI_KUBE(ctx)->kcfg,
		    name, err);
	}
	return -1;
}

int
runai_config_cluster(struct rai_ctx *ctx, const char *name)
{
	if (runai_cluster_choose(ctx, name, NULL, rai_ctx_err(ctx)) == -1)
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
	{ "runai config cluster prod-a100", "use the cluster prod-a100 from "
	    "now on" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_cluster = {
	.name = "cluster",
	.aliases = (const char *const[]){ "clusters", NULL },
	.summary = "set the current cluster",
	.synopsis = "<cluster>",
	.description = "Makes <cluster>, one that 'runai list clusters' "
	    "shows, the cluster later commands use. In Kubernetes mode that "
	    "is a kubeconfig context: it becomes the current-context, in the "
	    "file that holds current-context (the first file of $KUBECONFIG "
	    "that sets it), rewritten atomically with mode 0600. In "
	    "control-plane mode it is one of the control plane's clusters, "
	    "by name or id, kept beside the context as 'runai config "
	    "control-plane --cluster' keeps it; a name no cluster of the "
	    "control plane has but a context has switches to that context.",
	.examples = config_cluster_examples,
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_CLUSTER,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CP_KUBECONFIG |
	    RUNAI_CMD_CLUSTERLESS,
	.run = cmd_config_cluster,
};
