/*
 * runai list clusters: in Kubernetes mode the kubeconfig's contexts
 * (no API is read: it works before any cluster is reachable); in
 * control-plane mode the control plane's clusters, with their state and
 * version.
 */
#include <stddef.h>
#include <stdio.h>

#include "cli/out.h"
#include "core/text.h"
#include "runai.h"

#include "core/banned.h"

static const struct rai_col cluster_cols[] = {
	{ "CLUSTER", NULL, 0 },
	{ "CURRENT PROJECT", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "VERSION", NULL, 0 },
	{ NULL, NULL, 0 }
};

static int
cmd_list_clusters(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_wl_clusters cl;
	struct rai_col cols[5];
	struct rai_table *t;
	size_t i;

	(void)opts;
	(void)argc;
	(void)argv;
	if (rai_wl_clusters(RUNAI_WL(ctx), &cl, rai_ctx_err(ctx)) == -1)
		return -1;
	/* STATUS and VERSION where the source knows them */
	for (i = 0; i < 5; i++)
		cols[i] = cluster_cols[i];
	if (!cl.has_state)
		cols[2] = cluster_cols[4];
	t = rai_table_new(cols, 0);
	for (i = 0; i < cl.n; i++) {
		if (cl.v[i].current)
			rai_table_addf(t, "%s (current)", cl.v[i].name);
		else
			rai_table_add(t, cl.v[i].name);
		rai_table_add(t, cl.v[i].project);
		if (cl.has_state) {
			rai_table_add(t, cl.v[i].state);
			rai_table_add(t, cl.v[i].version);
		}
		rai_table_end_row(t);
	}
	rai_text_put(ctx->out, "", cl.where, "\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	rai_wl_clusters_release(&cl);
	return 0;
}

const struct rai_cmd runai_cmd_list_clusters = {
	.name = "clusters",
	.aliases = (const char *const[]){ "cluster", NULL },
	.summary = "list the clusters (kubeconfig contexts) and their projects",
	.synopsis = "",
	.description = "Lists the contexts of the kubeconfig, marks the "
	    "current one, and shows each context's project (its namespace "
	    "without the runai- prefix). No request is sent to any cluster. "
	    "In control-plane mode it lists the control plane's clusters "
	    "instead, with their state and Run:ai version; the one logged "
	    "in to is marked current, beside the default project.",
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_list_clusters,
};
