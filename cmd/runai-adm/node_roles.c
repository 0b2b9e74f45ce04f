/*
 * runai-adm node roles export|apply: the Run:ai roles of the nodes as a
 * file, and back, so that a node re-imaged (or a cluster rebuilt) gets
 * its roles again in one step. apply shares set/remove node-role's
 * plan and patches (node_role.c); the file is roles_file.h's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/roles_file.h"
#include "cli/out.h"
#include "kube/client.h"

#include "core/banned.h"

/* node_role.c */
extern const struct rai_cmd adm_cmd_node_roles_apply;

struct export_opts {
	const char	*output;
};

static const char *const export_choices[] = { "yaml", "json", NULL };

static const struct rai_opt export_opts[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct export_opts, output), .argh = "<format>",
	  .help = "yaml or json", .def = "yaml", .choices = export_choices,
	  .comp = RAI_COMP_CHOICES },
	RAI_OPT_END
};

static int
cmd_roles_export(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct export_opts *o = opts;
	struct kube_list_opts lo = { 0 };
	cJSON *nodes = NULL, *doc;
	int rc;

	(void)argc;
	(void)argv;
	if (kube_list(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, &lo, &nodes,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	doc = adm_roles_export(nodes);
	cJSON_Delete(nodes);
	rc = rai_out_doc(ctx->out, strcmp(o->output, "json") == 0 ?
	    RAI_OUT_JSON : RAI_OUT_YAML, doc, rai_ctx_err(ctx));
	cJSON_Delete(doc);
	return rc;
}

static const struct rai_example export_examples[] = {
	{ "runai-adm node roles export > roles.yaml",
	    "keep the roles before re-imaging nodes" },
	{ NULL, NULL }
};

static const struct rai_cmd adm_cmd_node_roles_export = {
	.name = "export",
	.summary = "print every node's Run:ai roles as a roles file",
	.synopsis = "[-o yaml|json]",
	.description = "Prints the roles file of the cluster: every node, by "
	    "name, with the Run:ai roles it carries (runai-system, "
	    "gpu-worker, cpu-worker; a role key counts whatever its value, "
	    "as the scheduler reads it), under apiVersion " ADM_ROLES_API
	    " and kind " ADM_ROLES_KIND ". \"node roles apply -f FILE\" "
	    "gives the nodes those roles again.",
	.examples = export_examples,
	.opts = export_opts,
	.opts_size = sizeof(struct export_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_roles_export,
};

static const struct rai_cmd *const roles_subcmds[] = {
	&adm_cmd_node_roles_apply,
	&adm_cmd_node_roles_export,
	NULL
};

const struct rai_cmd adm_cmd_node_roles = {
	.name = "roles",
	.summary = "save the nodes' Run:ai roles to a file and apply them",
	.synopsis = "export|apply [options]",
	.description = "\"node roles export\" prints every node's Run:ai "
	    "roles as a file; \"node roles apply -f FILE\" makes the nodes "
	    "it lists carry those roles again (plan, --dry-run, apply).",
	.args_min = 0,
	.args_max = 0,
	.subcmds = roles_subcmds,
};
