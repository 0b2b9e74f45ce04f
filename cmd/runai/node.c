/*
 * runai node list: the CLI v2 grammar's node list, the nodes "list
 * nodes" shows with each one's node pool, as the v2 list output.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "runai.h"
#include "runai/nodes.h"

#include "core/banned.h"

struct node_list_opts {
	struct rai_listing_opts	 listing;
};

static const struct rai_opt node_list_opts[] = {
	RAI_LISTING_OPTS(struct node_list_opts, listing),
	RAI_OPT_END
};

static const struct rai_listing_col node_cols[] = {
	{ "name", "Node", 0 },
	{ "status", "Status", 0 },
	{ "nodePool", "Node Pool", 0 },
	{ "gpuType", "GPU Type", 0 },
	{ "gpus", "GPUs", 0 },
	{ "allocatedGpus", "Allocated GPUs", 0 },
	{ "freeGpus", "Free GPUs", 0 },
	{ "cpuCores", "CPU Cores", RAI_LISTING_EXTRA },
	{ "allocatedCpuCores", "Allocated CPU Cores", RAI_LISTING_EXTRA },
	{ "memoryBytes", "Memory", RAI_LISTING_EXTRA },
	{ "allocatedMemoryBytes", "Allocated Memory", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

/* A number, or null where the source does not know it (NaN). */
static void
put_num(cJSON *row, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(row, key);
	else
		cJSON_AddNumberToObject(row, key, round(v * 100) / 100);
}

static cJSON *
node_row(const struct rai_node_view *v, const char *pool)
{
	cJSON *row = cJSON_CreateObject();

	cJSON_AddStringToObject(row, "name", v->name);
	cJSON_AddStringToObject(row, "status", v->status);
	rai_listing_put_str(row, "nodePool", pool);
	rai_listing_put_str(row, "gpuType", v->gpu_type);
	put_num(row, "gpus", v->gpu_allocatable);
	put_num(row, "allocatedGpus", v->gpu_allocated);
	put_num(row, "freeGpus", v->gpu_free);
	put_num(row, "cpuCores", v->cpu_allocatable);
	put_num(row, "allocatedCpuCores", v->cpu_allocated);
	put_num(row, "memoryBytes", v->mem_allocatable);
	put_num(row, "allocatedMemoryBytes", v->mem_allocated);
	return row;
}

static int
cmd_node_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct node_list_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_node_list nl = { 0 };
	struct rai_wl_node_pools np = { 0 };
	const char *pool;
	cJSON *rows;
	size_t i;
	int rc = -1;

	(void)argc;
	(void)argv;
	if (rai_listing_check(&o->listing, err) == -1 ||
	    rai_wl_nodes(RUNAI_WL(ctx), &nl, err) == -1)
		return -1;
	/* a cluster's nodes name no pool: the pools name their nodes */
	for (i = 0; i < nl.n; i++)
		if (nl.v[i].node_pool == NULL)
			break;
	if (i < nl.n && rai_wl_node_pools(RUNAI_WL(ctx), &np, err) == -1)
		goto out;
	rows = cJSON_CreateArray();
	for (i = 0; i < nl.n; i++) {
		pool = nl.v[i].node_pool != NULL ? nl.v[i].node_pool :
		    rai_wl_node_pool_of(&np, nl.v[i].name);
		cJSON_AddItemToArray(rows, node_row(&nl.v[i], pool));
	}
	rc = rai_listing_print(ctx->out, &o->listing, node_cols, rows, err);
	cJSON_Delete(rows);
out:
	rai_wl_node_pools_release(&np);
	rai_node_list_release(&nl);
	return rc;
}

static const struct rai_cmd node_list = {
	.name = "list",
	.summary = "list the nodes, their node pools and GPUs",
	.synopsis = "[--json|--yaml|--table] [--no-headers] [--columns <id,...>]",
	.description = "Lists the cluster's nodes, as 'runai list nodes' "
	    "does, with each one's node pool, GPU type, and its GPUs: "
	    "allocatable, allocated and free. The columns, by id: name, "
	    "status, nodePool, gpuType, gpus, allocatedGpus, freeGpus, and "
	    "with --columns cpuCores, allocatedCpuCores, memoryBytes and "
	    "allocatedMemoryBytes (null where the control plane's release "
	    "does not report them).",
	.opts = node_list_opts,
	.opts_size = sizeof(struct node_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_node_list,
};

static const struct rai_cmd *const node_subcmds[] = {
	&node_list,
	NULL
};

const struct rai_cmd runai_cmd_node = {
	.name = "node",
	.summary = "list the nodes",
	.synopsis = "list",
	.description = "The CLI v2 grammar's node commands: 'node list'. "
	    "'runai list nodes' and 'runai describe node' show more of each "
	    "node in the original grammar.",
	.subcmds = node_subcmds,
};
