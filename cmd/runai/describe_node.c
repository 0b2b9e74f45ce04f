/*
 * runai describe node [NODE...]: a key/value block per node and the
 * GPUs it holds with what is allocated on each (the NODE GPUs INFO:
 * table), as the reference CLI prints them.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/out.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/nodes.h"

#include "core/banned.h"

static const struct rai_col gpu_cols[] = {
	{ "GPU", NULL, 0 },
	{ "ALLOCATED", NULL, 0 },
	{ NULL, NULL, 0 }
};

/* "-" where the source does not report a number. */
static const char *
num_or_dash(double v, char *buf, size_t len)
{
	return isnan(v) ? "-" : rai_fmt_num(v, buf, len);
}

static void
print_cores(FILE *o, const char *key, double v)
{
	if (isnan(v))
		fprintf(o, "%s: -\n", key);
	else
		fprintf(o, "%s: %.2f\n", key, v);
}

static void
print_gpus(struct rai_ctx *ctx, const struct rai_node_view *v)
{
	struct rai_table *t;
	char a[32];
	int i;

	fprintf(ctx->out, "\nNODE GPUs INFO:\n");
	t = rai_table_new(gpu_cols, 0);
	for (i = 0; i < v->ngpu_use; i++) {
		rai_table_addf(t, "%d", i);
		rai_table_add(t, rai_fmt_num(v->gpu_use[i], a, sizeof(a)));
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

/*
 * The node's block: where the source names a node pool, that stands in
 * for the address and role (the control plane has no word for them);
 * the GPUs by index where the source knows them.
 */
static void
print_node(struct rai_ctx *ctx, const struct rai_node_view *v)
{
	FILE *o = ctx->out;
	char a[32];

	rai_text_put(o, "NAME: ", v->name, "\n");
	rai_text_put(o, "STATUS: ", v->status, "\n");
	if (v->node_pool != NULL) {
		rai_text_put(o, "NODE POOL: ", v->node_pool, "\n");
	} else {
		rai_text_put(o, "IP ADDRESS: ", v->ip, "\n");
		rai_text_put(o, "ROLE: ", v->role, "\n");
	}
	rai_text_put(o, "GPU TYPE: ", *v->gpu_type ? v->gpu_type : "-", "\n");
	fprintf(o, "TOTAL GPUS: %s\n", num_or_dash(v->gpu_capacity, a,
	    sizeof(a)));
	fprintf(o, "ALLOCATABLE GPUS: %s\n", num_or_dash(v->gpu_allocatable,
	    a, sizeof(a)));
	fprintf(o, "ALLOCATED GPUS: %s\n", num_or_dash(v->gpu_allocated, a,
	    sizeof(a)));
	fprintf(o, "FREE GPUS: %s\n", num_or_dash(v->gpu_free, a, sizeof(a)));
	fprintf(o, "UNHEALTHY GPUS: %s\n", num_or_dash(v->gpu_unhealthy, a,
	    sizeof(a)));
	print_cores(o, "TOTAL CPU CORES", v->cpu_allocatable);
	print_cores(o, "ALLOCATED CPU CORES", v->cpu_allocated);
	fprintf(o, "TOTAL MEMORY: %s\n", isnan(v->mem_allocatable) ? "-" :
	    rai_fmt_iec(v->mem_allocatable, a, sizeof(a)));
	fprintf(o, "ALLOCATED MEMORY: %s\n", isnan(v->mem_allocated) ? "-" :
	    rai_fmt_iec(v->mem_allocated, a, sizeof(a)));
	if (v->gpu_use != NULL)
		print_gpus(ctx, v);
}

static int
cmd_describe_node(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_node_list nl = { 0 };
	struct rai_err *err = rai_ctx_err(ctx);
	size_t i;
	int rc = -1, first = 1;

	(void)opts;
	if (rai_wl_nodes(RUNAI_WL(ctx), &nl, err) == -1)
		return -1;
	if (nl.n == 0) {
		fprintf(ctx->out, "No available node found in cluster\n");
		rc = 0;
		goto out;
	}
	if (rai_node_list_require(&nl, argc, argv, err) == -1 ||
	    rai_wl_node_gpus(RUNAI_WL(ctx), &nl, err) == -1)
		goto out;
	for (i = 0; i < nl.n; i++) {
		if (!rai_node_wanted(argc, argv, nl.v[i].name))
			continue;
		if (!first)
			fprintf(ctx->out, "\n");
		first = 0;
		print_node(ctx, &nl.v[i]);
	}
	rc = 0;
out:
	rai_node_list_release(&nl);
	return rc;
}

static const struct rai_example describe_node_examples[] = {
	{ "runai describe node", "every node" },
	{ "runai describe node node-1", "one node and its GPUs" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_describe_node = {
	.name = "node",
	.aliases = (const char *const[]){ "nodes", NULL },
	.summary = "show nodes with their GPUs and what is allocated on each",
	.synopsis = "[<node>...]",
	.description = "Shows a \"KEY: value\" block per node (status, "
	    "address, role, GPU type, GPU, CPU and memory totals and "
	    "allocations), then a NODE GPUs INFO table: the GPUs by index "
	    "with the share allocated on each (fractions where the "
	    "scheduler recorded the GPU, whole GPUs on the first free "
	    "ones). An unknown name is an error that lists the nodes there "
	    "are. In control-plane mode the block comes from the control "
	    "plane's node list and telemetry, with the node pool in place "
	    "of the address and role and no per-GPU table (the API has "
	    "none); what the release does not report shows as '-'.",
	.examples = describe_node_examples,
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_describe_node,
};
