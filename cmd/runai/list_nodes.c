/*
 * runai list nodes: CPU, memory and GPU capacity and use per node, from
 * the Node objects and the pods bound to them.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/buf.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/cp_nodes.h"
#include "runai/nodes.h"

#include "core/banned.h"

struct list_nodes_opts {
	const char	*output;
};

static const struct rai_opt list_nodes_opts[] = {
	RUNAI_OPT_OUTPUT(struct list_nodes_opts, output),
	RAI_OPT_END
};

static const struct rai_col node_cols[] = {
	{ "NAME", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "IP Address", NULL, 0 },
	{ "ROLE", NULL, 0 },
	{ "ALLOCATABLE", "CPU", 0 },
	{ "ALLOCATED", "CPU", 0 },
	{ "ALLOCATABLE", "MEMORY", 0 },
	{ "ALLOCATED", "MEMORY", 0 },
	{ "TYPE", "GPU", 0 },
	{ "ALLOCATABLE", "GPU", 0 },
	{ "FREE", "GPU", 0 },
	{ "ALLOCATED", "GPU", RAI_COL_WIDE },
	{ "UNHEALTHY", "GPU", RAI_COL_WIDE },
	{ NULL, NULL, 0 }
};

/*
 * Cells of what may be unknown: backend mode has no address or role,
 * and releases before 2.21 report no CPU or memory (NaN): "-".
 */
static void
add_text(struct rai_table *t, const char *s)
{
	rai_table_add(t, s != NULL && *s != '\0' ? s : "-");
}

static void
add_cores(struct rai_table *t, double v)
{
	if (isnan(v))
		rai_table_add(t, "-");
	else
		rai_table_addf(t, "%.2f", v);
}

static void
add_bytes(struct rai_table *t, double v)
{
	char a[32];

	rai_table_add(t, isnan(v) ? "-" : rai_fmt_iec(v, a, sizeof(a)));
}

static void
add_count(struct rai_table *t, double v)
{
	char a[32];

	rai_table_add(t, isnan(v) ? "-" : rai_fmt_num(v, a, sizeof(a)));
}

static void
add_node_row(struct rai_table *t, const struct rai_node_view *v)
{
	rai_table_add(t, v->name);
	rai_table_add(t, v->status);
	add_text(t, v->ip);
	add_text(t, v->role);
	add_cores(t, v->cpu_allocatable);
	add_cores(t, v->cpu_allocated);
	add_bytes(t, v->mem_allocatable);
	add_bytes(t, v->mem_allocated);
	add_text(t, v->gpu_type);
	add_count(t, v->gpu_allocatable);
	add_count(t, v->gpu_free);
	add_count(t, v->gpu_allocated);
	add_count(t, v->gpu_unhealthy);
	rai_table_end_row(t);
}

/* A number, or null where it is unknown. */
static void
put_num(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

/* The documented -o json|yaml schema: one object per node. */
static cJSON *
node_json(const struct rai_node_view *v)
{
	cJSON *o = cJSON_CreateObject(), *g;

	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "status", v->status);
	if (*v->ip != '\0')
		cJSON_AddStringToObject(o, "ip", v->ip);
	else
		cJSON_AddNullToObject(o, "ip");
	if (*v->role != '\0')
		cJSON_AddStringToObject(o, "role", v->role);
	else
		cJSON_AddNullToObject(o, "role");
	if (v->node_pool != NULL)
		cJSON_AddStringToObject(o, "nodePool", v->node_pool);
	g = cJSON_AddObjectToObject(o, "cpu");
	put_num(g, "allocatable", v->cpu_allocatable);
	put_num(g, "allocated", v->cpu_allocated);
	g = cJSON_AddObjectToObject(o, "memory");
	put_num(g, "allocatableBytes", v->mem_allocatable);
	put_num(g, "allocatedBytes", v->mem_allocated);
	g = cJSON_AddObjectToObject(o, "gpu");
	cJSON_AddStringToObject(g, "type", v->gpu_type);
	put_num(g, "capacity", v->gpu_capacity);
	put_num(g, "allocatable", v->gpu_allocatable);
	put_num(g, "allocated", v->gpu_allocated);
	put_num(g, "free", v->gpu_free);
	put_num(g, "unhealthy", v->gpu_unhealthy);
	return o;
}

/* Every name asked for must exist: a typo is an error, not an empty list. */
static int
check_names(struct rai_ctx *ctx, const struct rai_node_list *nl, int argc,
    char **argv)
{
	struct rai_buf known = RAI_BUF_INIT;
	size_t i;
	int a, found;

	for (a = 0; a < argc; a++) {
		for (i = 0, found = 0; i < nl->n && !found; i++)
			found = strcmp(nl->v[i].name, argv[a]) == 0;
		if (found)
			continue;
		for (i = 0; i < nl->n; i++)
			rai_buf_addf(&known, "%s%s", i ? ", " : "",
			    nl->v[i].name);
		rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND,
		    "node '%s' not found", argv[a]);
		rai_err_set_hint(rai_ctx_err(ctx), "nodes in the cluster: %s",
		    known.len ? rai_buf_str(&known) : "(none)");
		rai_buf_release(&known);
		return -1;
	}
	return 0;
}

static int
print_nodes(struct rai_ctx *ctx, const struct rai_node_list *nl,
    enum rai_out_fmt fmt, int argc, char **argv)
{
	struct rai_table *t;
	cJSON *arr;
	size_t i;
	int rc;

	if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		arr = cJSON_CreateArray();
		for (i = 0; i < nl->n; i++)
			if (rai_node_wanted(argc, argv, nl->v[i].name))
				cJSON_AddItemToArray(arr, node_json(&nl->v[i]));
		rc = rai_out_doc(ctx->out, fmt, arr, rai_ctx_err(ctx));
		cJSON_Delete(arr);
		return rc;
	}
	if (fmt == RAI_OUT_NAME) {
		for (i = 0; i < nl->n; i++)
			if (rai_node_wanted(argc, argv, nl->v[i].name))
				rai_text_put(ctx->out, "node/", nl->v[i].name,
				    "\n");
		return 0;
	}
	if (nl->n == 0) {
		fprintf(ctx->out, "No available node found in cluster\n");
		return 0;
	}
	t = rai_table_new(node_cols, fmt == RAI_OUT_WIDE);
	for (i = 0; i < nl->n; i++)
		if (rai_node_wanted(argc, argv, nl->v[i].name))
			add_node_row(t, &nl->v[i]);
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	return 0;
}

static int
cmd_list_nodes(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct list_nodes_opts *o = opts;
	struct rai_node_list nl = { 0 };
	enum rai_out_fmt fmt;
	int rc = -1;

	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	if (rai_wl_nodes(RUNAI_WL(ctx), &nl, rai_ctx_err(ctx)) == -1)
		return -1;
	if (check_names(ctx, &nl, argc, argv) == 0)
		rc = print_nodes(ctx, &nl, fmt, argc, argv);
	rai_node_list_release(&nl);
	return rc;
}

static const struct rai_example list_nodes_examples[] = {
	{ "runai list nodes", "capacity and use of every node" },
	{ "runai list nodes node-1 -o json", "one node, for scripts" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_list_nodes = {
	.name = "nodes",
	.aliases = (const char *const[]){ "node", NULL },
	.summary = "list the nodes with their CPU, memory and GPU use",
	.synopsis = "[<node>...] [-o wide|json|yaml|name]",
	.description = "Shows each node's status, address and role, then "
	    "allocatable and allocated CPU and memory, and its GPU type, "
	    "allocatable and free GPUs. Allocated counts the requests of the "
	    "node's running and pending pods; fractional GPUs count by their "
	    "gpu-fraction. -o wide adds allocated and unhealthy GPUs. With "
	    "names, only those nodes are shown, and an unknown name is an "
	    "error. In control-plane mode the nodes and their numbers come "
	    "from the control plane (its node list and node telemetry); "
	    "what the release does not report (the address and role, and "
	    "before 2.21 CPU and memory) shows as '-' (null in JSON), and "
	    "JSON adds each node's nodePool.",
	.examples = list_nodes_examples,
	.opts = list_nodes_opts,
	.opts_size = sizeof(struct list_nodes_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_list_nodes,
};
