/*
 * runai cluster list|set: the CLI v2 grammar's cluster commands, beside
 * the original's "list clusters" and "config cluster". list is here;
 * set is cluster_set.c.
 */
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "runai.h"

#include "core/banned.h"

struct cluster_list_opts {
	struct rai_listing_opts	 listing;
};

static const struct rai_opt cluster_list_opts[] = {
	RAI_LISTING_OPTS(struct cluster_list_opts, listing),
	RAI_OPT_END
};

static const struct rai_listing_col cluster_cols[] = {
	{ "name", "Cluster", 0 },
	{ "current", "Current", 0 },
	{ "project", "Default Project", 0 },
	{ "status", "Status", 0 },
	{ "version", "Version", 0 },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static cJSON *
cluster_rows(const struct rai_wl_clusters *cl)
{
	cJSON *rows = cJSON_CreateArray(), *row;
	size_t i;

	for (i = 0; i < cl->n; i++) {
		row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "name", cl->v[i].name);
		cJSON_AddBoolToObject(row, "current", cl->v[i].current);
		rai_listing_put_str(row, "project", cl->v[i].project);
		rai_listing_put_str(row, "status", cl->v[i].state);
		rai_listing_put_str(row, "version", cl->v[i].version);
		rai_listing_put_str(row, "id", cl->v[i].id);
		cJSON_AddItemToArray(rows, row);
	}
	return rows;
}

static int
cmd_cluster_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct cluster_list_opts *o = opts;
	struct rai_wl_clusters cl;
	cJSON *rows;
	int rc;

	(void)argc;
	(void)argv;
	if (rai_listing_check(&o->listing, rai_ctx_err(ctx)) == -1 ||
	    rai_wl_clusters(RUNAI_WL(ctx), &cl, rai_ctx_err(ctx)) == -1)
		return -1;
	rows = cluster_rows(&cl);
	rc = rai_listing_print(ctx->out, &o->listing, cluster_cols, rows,
	    rai_ctx_err(ctx));
	cJSON_Delete(rows);
	rai_wl_clusters_release(&cl);
	return rc;
}

static const struct rai_example cluster_list_examples[] = {
	{ "runai cluster list", "the clusters, the current one marked" },
	{ "runai cluster list --json", "the same as JSON objects" },
	{ NULL, NULL }
};

static const struct rai_cmd cluster_list = {
	.name = "list",
	.summary = "list the clusters",
	.synopsis = "[--json|--yaml|--table] [--no-headers] [--columns <id,...>]",
	.description = "Lists the clusters 'runai cluster set' chooses from, "
	    "with the current one's default project. In Kubernetes mode they "
	    "are the kubeconfig's contexts (no request is sent to any "
	    "cluster; status and version are not known); in control-plane "
	    "mode the control plane's clusters, with their state and Run:ai "
	    "version. The columns, by id: name, current, project, status, "
	    "version, and with --columns id (the control plane's).",
	.examples = cluster_list_examples,
	.opts = cluster_list_opts,
	.opts_size = sizeof(struct cluster_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_cluster_list,
};

static const struct rai_cmd *const cluster_subcmds[] = {
	&cluster_list,
	&runai_cmd_cluster_set,
	NULL
};

const struct rai_cmd runai_cmd_cluster = {
	.name = "cluster",
	.summary = "list the clusters and choose one",
	.synopsis = "list|set",
	.description = "The CLI v2 grammar's cluster commands: 'cluster list' "
	    "and 'cluster set NAME'. 'runai list clusters' and 'runai config "
	    "cluster' do the same in the original grammar.",
	.subcmds = cluster_subcmds,
};
