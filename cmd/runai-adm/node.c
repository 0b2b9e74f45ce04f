/*
 * runai-adm node list|drain|undrain: the nodes as an admin sees them
 * (roles, readiness, cordon, the maintenance taint, GPUs), and the
 * maintenance drain (node_drain.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/nodes.h"
#include "cli/out.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/text.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai/nodes.h"

#include "core/banned.h"

/* node_drain.c */
extern const struct rai_cmd adm_cmd_node_drain;
extern const struct rai_cmd adm_cmd_node_undrain;
/* node_roles.c */
extern const struct rai_cmd adm_cmd_node_roles;

struct node_list_opts {
	const char	*output;
};

static const struct rai_opt node_list_opts[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct node_list_opts, output), .argh = "<format>",
	  .help = "output format: wide, json, yaml or name",
	  .choices = rai_out_choices, .comp = RAI_COMP_CHOICES },
	RAI_OPT_END
};

static const struct rai_col list_cols[] = {
	{ "NODE", NULL, 0 },
	{ "ROLES", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "GPUS", NULL, 0 },
	{ "GPU MODEL", NULL, 0 },
	{ "TAINTS", NULL, 0 },
	{ NULL, NULL, 0 }
};

/* -o wide: the taints themselves, the MIG strategy and the address. */
static const struct rai_col wide_cols[] = {
	{ "NODE", NULL, 0 },
	{ "ROLES", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "GPUS", NULL, 0 },
	{ "GPU MODEL", NULL, 0 },
	{ "TAINTS", NULL, 0 },
	{ "MIG STRATEGY", NULL, 0 },
	{ "INTERNAL-IP", NULL, 0 },
	{ NULL, NULL, 0 }
};

static int
check_names(struct rai_ctx *ctx, const struct adm_node_rows *rows, int argc,
    char **argv)
{
	struct rai_buf missing = RAI_BUF_INIT;
	size_t i, nmissing = 0;
	int a, found;

	for (a = 0; a < argc; a++) {
		for (i = 0, found = 0; i < rows->n && !found; i++)
			found = strcmp(rows->v[i].name, argv[a]) == 0;
		if (!found)
			rai_buf_addf(&missing, "%s'%s'", nmissing++ ? ", " : "",
			    argv[a]);
	}
	if (nmissing == 0)
		return 0;
	rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND, "node%s %s not found",
	    nmissing == 1 ? "" : "s", rai_buf_str(&missing));
	rai_buf_release(&missing);
	return -1;
}

static const char *
or_none(const char *s)
{
	return s != NULL && *s != '\0' ? s : "<none>";
}

static void
add_row(struct rai_table *t, const struct adm_node_row *r, int wide)
{
	char buf[32];

	rai_table_add(t, r->name);
	rai_table_add(t, r->roles);
	rai_table_add(t, r->status);
	rai_table_add(t, rai_fmt_num(r->gpus, buf, sizeof(buf)));
	rai_table_add(t, or_none(r->gpu_model));
	if (wide) {
		rai_table_add(t, or_none(r->taints));
		rai_table_add(t, or_none(r->mig));
		rai_table_add(t, or_none(r->ip));
	} else {
		rai_table_addf(t, "%zu", r->ntaints);
	}
	rai_table_end_row(t);
}

static cJSON *
row_json(const struct adm_node_row *r)
{
	static const unsigned roles[] = { ADM_ROLE_SYSTEM, ADM_ROLE_GPU,
	    ADM_ROLE_CPU };
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;

	cJSON_AddStringToObject(o, "name", r->name);
	a = cJSON_AddArrayToObject(o, "roles");
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (r->roles_set & roles[i])
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(adm_role_name(roles[i])));
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddBoolToObject(o, "ready", r->ready);
	cJSON_AddBoolToObject(o, "unschedulable", r->unschedulable);
	cJSON_AddBoolToObject(o, "draining", r->draining);
	cJSON_AddNumberToObject(o, "gpus", r->gpus);
	cJSON_AddStringToObject(o, "gpuModel", r->gpu_model);
	cJSON_AddNumberToObject(o, "taintCount", (double)r->ntaints);
	cJSON_AddStringToObject(o, "taints", r->taints);
	cJSON_AddStringToObject(o, "migStrategy", r->mig);
	cJSON_AddStringToObject(o, "internalIP", r->ip);
	return o;
}

static int
print_rows(struct rai_ctx *ctx, const struct adm_node_rows *rows,
    enum rai_out_fmt fmt, int argc, char **argv)
{
	struct rai_table *t;
	cJSON *arr;
	size_t i;
	int rc;

	if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		arr = cJSON_CreateArray();
		for (i = 0; i < rows->n; i++)
			if (rai_node_wanted(argc, argv, rows->v[i].name))
				cJSON_AddItemToArray(arr,
				    row_json(&rows->v[i]));
		rc = rai_out_doc(ctx->out, fmt, arr, rai_ctx_err(ctx));
		cJSON_Delete(arr);
		return rc;
	}
	if (fmt == RAI_OUT_NAME) {
		for (i = 0; i < rows->n; i++)
			if (rai_node_wanted(argc, argv, rows->v[i].name))
				rai_text_put(ctx->out, "node/", rows->v[i].name,
				    "\n");
		return 0;
	}
	if (rows->n == 0) {
		fprintf(ctx->out, "No nodes found in the cluster.\n");
		return 0;
	}
	t = rai_table_new(fmt == RAI_OUT_WIDE ? wide_cols : list_cols, 0);
	for (i = 0; i < rows->n; i++)
		if (rai_node_wanted(argc, argv, rows->v[i].name))
			add_row(t, &rows->v[i], fmt == RAI_OUT_WIDE);
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	return 0;
}

static int
cmd_node_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct node_list_opts *o = opts;
	struct kube_list_opts lo = { 0 };
	struct adm_node_rows rows;
	enum rai_out_fmt fmt;
	cJSON *nodes = NULL;
	int rc = -1;

	if (rai_out_parse(o->output, &fmt, rai_ctx_err(ctx)) == -1)
		return -1;
	if (kube_list(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, &lo, &nodes,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	adm_node_rows(nodes, &rows);
	cJSON_Delete(nodes);
	if (check_names(ctx, &rows, argc, argv) == 0)
		rc = print_rows(ctx, &rows, fmt, argc, argv);
	adm_node_rows_release(&rows);
	return rc;
}

static const struct rai_example node_list_examples[] = {
	{ "runai-adm node list", "roles, status and GPUs of every node" },
	{ "runai-adm node list -o wide", "with the taints themselves" },
	{ "runai-adm node list node-1 -o json", "one node, for scripts" },
	{ NULL, NULL }
};

static const struct rai_cmd adm_cmd_node_list = {
	.name = "list",
	.aliases = (const char *const[]){ "ls", NULL },
	.summary = "list nodes with their Run:ai roles, status and GPUs",
	.synopsis = "[<node>...] [-o wide|json|yaml|name]",
	.description = "Shows each node's Run:ai roles (control-plane, "
	    "runai-system, gpu-worker, cpu-worker; a role key whose value "
	    "is \"false\" is shown as e.g. gpu-worker(false), since the key "
	    "alone marks the role), its status (Ready or NotReady, then "
	    "SchedulingDisabled when cordoned and Draining when it has the "
	    "maintenance taint " ADM_DRAIN_TAINT "), its allocatable GPUs "
	    "(nvidia.com/gpu), the GPU model (label nvidia.com/gpu.product) "
	    "and how many taints it has. -o wide lists the taints, the MIG "
	    "strategy (label nvidia.com/mig.strategy) and the internal IP. "
	    "With names, only those nodes are shown; an unknown name is an "
	    "error.",
	.examples = node_list_examples,
	.opts = node_list_opts,
	.opts_size = sizeof(struct node_list_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_node_list,
};

static const struct rai_cmd *const node_subcmds[] = {
	&adm_cmd_node_drain,
	&adm_cmd_node_list,
	&adm_cmd_node_roles,
	&adm_cmd_node_undrain,
	NULL
};

static const struct rai_example node_examples[] = {
	{ "runai-adm node list", "roles, status and GPUs of every node" },
	{ "runai-adm node drain node-1", "before maintenance of node-1" },
	{ "runai-adm node undrain node-1", "after it" },
	{ "runai-adm node roles export > roles.yaml",
	    "the roles, to apply again after re-imaging" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_node = {
	.name = "node",
	.aliases = (const char *const[]){ "nodes", NULL },
	.summary = "list nodes; drain them for maintenance and back; save "
	    "and apply their roles",
	.synopsis = "list|drain|undrain|roles [options]",
	.description = "\"node list\" shows the nodes with their Run:ai "
	    "roles, status and GPUs. \"node drain\" puts the maintenance "
	    "taint " ADM_DRAIN_TAINT " on a node, so that its pods move "
	    "elsewhere, and waits until no Run:ai workload is left there; "
	    "\"node undrain\" takes it off again. \"node roles export\" "
	    "and \"node roles apply\" save the nodes' roles to a file and "
	    "give them back.",
	.examples = node_examples,
	.args_min = 0,
	.args_max = 0,
	.subcmds = node_subcmds,
};
