/*
 * runai describe node [NODE...]: a key/value block per node and the
 * GPUs it holds with what is allocated on each (the NODE GPUs INFO:
 * table), as the reference CLI prints them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/text.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/nodes.h"

#include "core/banned.h"

#define MAX_NODE_GPUS	64	/* more is not a real node */

static const struct rai_col gpu_cols[] = {
	{ "GPU", NULL, 0 },
	{ "ALLOCATED", NULL, 0 },
	{ NULL, NULL, 0 }
};

static int
active(const cJSON *pod)
{
	const char *ph = rai_json_str_or(pod, "status.phase", "");

	return strcmp(ph, "Running") == 0 || strcmp(ph, "Pending") == 0;
}

/*
 * Per GPU index: fractions where the pod says which GPU (runai-gpu),
 * then whole GPUs on the first free indexes.
 */
static void
gpu_use(const cJSON *pods, const char *node, double *use, int ngpu)
{
	const cJSON *p, *lim;
	const char *idx, *frac;
	double whole = 0, v;
	int i;

	cJSON_ArrayForEach(p, rai_json_array(pods, "items")) {
		if (!active(p) || strcmp(rai_json_str_or(p, "spec.nodeName",
		    ""), node) != 0)
			continue;
		frac = rai_json_annotation(p, "gpu-fraction");
		idx = rai_json_annotation(p, "runai-gpu");
		if (frac != NULL && idx != NULL &&
		    rai_quantity_parse(frac, &v) == 0) {
			i = (int)strtol(idx, NULL, 10);
			if (i >= 0 && i < ngpu)
				use[i] += v;
			continue;
		}
		cJSON_ArrayForEach(lim, rai_json_array(p, "spec.containers")) {
			const char *g = rai_json_str(rai_json_child(rai_json_get(
			    lim, "resources.limits"), "nvidia.com/gpu"), "");

			if (g != NULL && rai_quantity_parse(g, &v) == 0)
				whole += v;
		}
	}
	for (i = 0; i < ngpu && whole >= 1; i++)
		if (use[i] == 0) {
			use[i] = 1;
			whole -= 1;
		}
}

static void
print_node(struct rai_ctx *ctx, const struct rai_node_view *v,
    const cJSON *pods)
{
	double use[MAX_NODE_GPUS] = { 0 };
	struct rai_table *t;
	char a[32], b[32];
	int i, ngpu = (int)v->gpu_capacity;

	if (ngpu > MAX_NODE_GPUS)
		ngpu = MAX_NODE_GPUS;
	rai_text_put(ctx->out, "NAME: ", v->name, "\n");
	rai_text_put(ctx->out, "STATUS: ", v->status, "\n");
	rai_text_put(ctx->out, "IP ADDRESS: ", v->ip, "\n");
	rai_text_put(ctx->out, "ROLE: ", v->role, "\n");
	rai_text_put(ctx->out, "GPU TYPE: ", v->gpu_type[0] ? v->gpu_type :
	    "-", "\n");
	fprintf(ctx->out, "TOTAL GPUS: %s\n", rai_fmt_num(v->gpu_capacity, a,
	    sizeof(a)));
	fprintf(ctx->out, "ALLOCATABLE GPUS: %s\n", rai_fmt_num(
	    v->gpu_allocatable, a, sizeof(a)));
	fprintf(ctx->out, "ALLOCATED GPUS: %s\n", rai_fmt_num(
	    v->gpu_allocated, a, sizeof(a)));
	fprintf(ctx->out, "FREE GPUS: %s\n", rai_fmt_num(v->gpu_free, a,
	    sizeof(a)));
	fprintf(ctx->out, "UNHEALTHY GPUS: %s\n", rai_fmt_num(
	    v->gpu_unhealthy, a, sizeof(a)));
	fprintf(ctx->out, "TOTAL CPU CORES: %.2f\n", v->cpu_allocatable);
	fprintf(ctx->out, "ALLOCATED CPU CORES: %.2f\n", v->cpu_allocated);
	fprintf(ctx->out, "TOTAL MEMORY: %s\n", rai_fmt_iec(
	    v->mem_allocatable, a, sizeof(a)));
	fprintf(ctx->out, "ALLOCATED MEMORY: %s\n", rai_fmt_iec(
	    v->mem_allocated, b, sizeof(b)));
	fprintf(ctx->out, "\nNODE GPUs INFO:\n");
	gpu_use(pods, v->name, use, ngpu);
	t = rai_table_new(gpu_cols, 0);
	for (i = 0; i < ngpu; i++) {
		rai_table_addf(t, "%d", i);
		rai_table_add(t, rai_fmt_num(use[i], a, sizeof(a)));
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

static int
cmd_describe_node(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_node_list nl = { 0 };
	struct kube_list_opts lo = { 0 };
	cJSON *pods = NULL;
	size_t i;
	int rc = -1, first = 1;

	(void)opts;
	if (RUNAI_CP(ctx) != NULL)
		return runai_describe_node_cp(ctx, argc, argv);
	if (rai_nodes_fetch(RUNAI_CLIENT(ctx), &nl, rai_ctx_err(ctx)) == -1)
		return -1;
	if (nl.n == 0) {
		fprintf(ctx->out, "No available node found in cluster\n");
		rc = 0;
		goto out;
	}
	if (rai_node_list_require(&nl, argc, argv, rai_ctx_err(ctx)) == -1)
		goto out;
	lo.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
	if (kube_list(RUNAI_CLIENT(ctx), &KUBE_RES_PODS, NULL, &lo, &pods,
	    rai_ctx_err(ctx)) == -1)
		goto out;
	for (i = 0; i < nl.n; i++) {
		if (!rai_node_wanted(argc, argv, nl.v[i].name))
			continue;
		if (!first)
			fprintf(ctx->out, "\n");
		first = 0;
		print_node(ctx, &nl.v[i], pods);
	}
	rc = 0;
out:
	cJSON_Delete(pods);
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
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_describe_node,
};
