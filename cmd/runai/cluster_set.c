/*
 * runai cluster set [NAME] [--id ID] [--name NAME]: the CLI v2 grammar's
 * way to choose the cluster (config cluster's, in either mode).
 */
#include <stddef.h>
#include <stdio.h>

#include "core/text.h"
#include "runai.h"

#include "core/banned.h"

struct cluster_set_opts {
	const char	*id;
	const char	*name;
};

static const struct rai_opt cluster_set_opts[] = {
	{ .long_name = "id", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct cluster_set_opts, id), .argh = "<id>",
	  .help = "control-plane mode: the cluster with this id (where "
	      "names repeat)" },
	{ .long_name = "name", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct cluster_set_opts, name), .argh = "<name>",
	  .help = "the cluster's name, as the positional NAME",
	  .comp = RAI_COMP_CLUSTER },
	RAI_OPT_END
};

static int
cmd_cluster_set(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct cluster_set_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	const char *name = argc > 0 ? argv[0] : o->name;

	if (argc > 0 && o->name != NULL)
		return rai_err_set(err, RAI_E_USAGE, "give the name once: as NAME "
		    "or as --name");
	if (name != NULL && o->id != NULL)
		return rai_err_set(err, RAI_E_USAGE, "give the cluster's name or "
		    "its --id, not both");
	if (name == NULL && o->id == NULL)
		return rai_err_set(err, RAI_E_USAGE, "give the cluster: NAME, "
		    "--name NAME or --id ID");
	if (runai_cluster_choose(ctx, name, o->id, err) == -1)
		return -1;
	rai_text_put(ctx->out, "cluster ", name != NULL ? name : o->id,
	    " configured successfully\n");
	return 0;
}

static const struct rai_example cluster_set_examples[] = {
	{ "runai cluster set prod-a100", "use the cluster prod-a100 from "
	    "now on" },
	{ "runai cluster set --id 0b5ef3a2-...", "control-plane mode: the "
	    "cluster with this id" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_cluster_set = {
	.name = "set",
	.summary = "choose the cluster later commands use",
	.synopsis = "<name> | --name <name> | --id <id>",
	.description = "Makes a cluster 'runai cluster list' shows the one "
	    "later commands use, as 'runai config cluster' does. In "
	    "Kubernetes mode it is a kubeconfig context, which becomes the "
	    "current-context. In control-plane mode it is one of the control "
	    "plane's clusters, by name or with --id by id (names may repeat), "
	    "kept beside the context in the kubeconfig.",
	.examples = cluster_set_examples,
	.opts = cluster_set_opts,
	.opts_size = sizeof(struct cluster_set_opts),
	.args_min = 0,
	.args_max = 1,
	.args_comp = RAI_COMP_CLUSTER,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CP_KUBECONFIG |
	    RUNAI_CMD_CLUSTERLESS,
	.run = cmd_cluster_set,
};
