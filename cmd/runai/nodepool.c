/*
 * runai nodepool list: Run:ai's node pools - each a label that groups
 * nodes - with the nodes in each.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "core/alloc.h"
#include "runai.h"

#include "core/banned.h"

struct nodepool_list_opts {
	struct rai_listing_opts	 listing;
};

static const struct rai_opt nodepool_list_opts[] = {
	RAI_LISTING_OPTS(struct nodepool_list_opts, listing),
	RAI_OPT_END
};

static const struct rai_listing_col pool_cols[] = {
	{ "name", "Node Pool", 0 },
	{ "label", "Label", 0 },
	{ "nodes", "Nodes", 0 },
	{ "phase", "Phase", 0 },
	{ "default", "Default", 0 },
	{ "nodeNames", "Node Names", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static cJSON *
pool_row(const struct rai_wl_node_pool *p)
{
	cJSON *row = cJSON_CreateObject(), *names;
	char *label;
	size_t i;

	cJSON_AddStringToObject(row, "name", p->name);
	if (*p->label_key != '\0') {
		label = xasprintf("%s=%s", p->label_key, p->label_value);
		cJSON_AddStringToObject(row, "label", label);
		free(label);
	} else {
		cJSON_AddNullToObject(row, "label");
	}
	cJSON_AddNumberToObject(row, "nodes", (double)p->nnodes);
	rai_listing_put_str(row, "phase", p->phase);
	cJSON_AddBoolToObject(row, "default", p->is_default);
	names = cJSON_AddArrayToObject(row, "nodeNames");
	for (i = 0; i < p->nnodes; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(p->nodes[i]));
	rai_listing_put_str(row, "id", p->id);
	return row;
}

static int
cmd_nodepool_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct nodepool_list_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_wl_node_pools np;
	cJSON *rows;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	if (rai_listing_check(&o->listing, err) == -1 ||
	    rai_wl_node_pools(RUNAI_WL(ctx), &np, err) == -1)
		return -1;
	rows = cJSON_CreateArray();
	for (i = 0; i < np.n; i++)
		cJSON_AddItemToArray(rows, pool_row(&np.v[i]));
	rc = rai_listing_print(ctx->out, &o->listing, pool_cols, rows, err);
	cJSON_Delete(rows);
	rai_wl_node_pools_release(&np);
	return rc;
}

static const struct rai_cmd nodepool_list = {
	.name = "list",
	.summary = "list the node pools and their nodes",
	.synopsis = "[--json|--yaml|--table] [--no-headers] [--columns <id,...>]",
	.description = "Lists Run:ai's node pools: each groups the nodes "
	    "that carry its label (key=value), and the default pool holds "
	    "the nodes no other pool takes. In Kubernetes mode they are the "
	    "cluster's run.ai/v1alpha1 NodePool objects (where it has none, "
	    "the default pool holds every node); in control-plane mode the "
	    "control plane's node pools of the cluster in use. The columns, "
	    "by id: name, label, nodes (how many), phase, default, and with "
	    "--columns nodeNames and id (the control plane's).",
	.opts = nodepool_list_opts,
	.opts_size = sizeof(struct nodepool_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_nodepool_list,
};

static const struct rai_cmd *const nodepool_subcmds[] = {
	&nodepool_list,
	NULL
};

const struct rai_cmd runai_cmd_nodepool = {
	.name = "nodepool",
	.summary = "list the node pools",
	.synopsis = "list",
	.description = "The CLI v2 grammar's node pool commands: 'nodepool "
	    "list'.",
	.subcmds = nodepool_subcmds,
};
