/*
 * runai list clusters: the kubeconfig's contexts. Reads no API: it works
 * before any cluster is reachable.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/project.h"

#include "core/banned.h"

static const struct rai_col cluster_cols[] = {
	{ "CLUSTER", NULL, 0 },
	{ "CURRENT PROJECT", NULL, 0 },
	{ NULL, NULL, 0 }
};

static int
info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kube_context_info *)a)->name,
	    ((const struct kube_context_info *)b)->name);
}

static int
cmd_list_clusters(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	size_t i, n = kube_config_ncontexts(RUNAI_KUBE(ctx)->kcfg);
	const char *current = kube_config_current_context(RUNAI_KUBE(ctx)->kcfg);
	struct kube_context_info *infos;
	struct rai_table *t;
	const char *project;

	if (RUNAI_CP(ctx) != NULL)
		return runai_list_clusters_cp(ctx);
	infos = xcalloc(n, sizeof(*infos));
	for (i = 0; i < n; i++)
		kube_config_context(RUNAI_KUBE(ctx)->kcfg, i, &infos[i]);
	/* the reference printed Go map order; sorted is reproducible */
	qsort(infos, n, sizeof(*infos), info_cmp);
	t = rai_table_new(cluster_cols, 0);
	for (i = 0; i < n; i++) {
		if (current != NULL && strcmp(infos[i].name, current) == 0)
			rai_table_addf(t, "%s (current)", infos[i].name);
		else
			rai_table_add(t, infos[i].name);
		project = rai_project_from_namespace_name(infos[i].namespace);
		rai_table_add(t, project ? project : "");
		rai_table_end_row(t);
	}
	fprintf(ctx->out, "Configured clusters on this computer are:\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	free(infos);
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
	.flags = RAI_CMD_NEED_CONFIG,
	.run = cmd_list_clusters,
};
