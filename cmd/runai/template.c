/*
 * runai template list|describe: the CLI v2 grammar's template commands
 * (asset_print.c prints them): the cluster's submit templates in
 * Kubernetes mode, the control plane's workload templates (2.23+) in
 * control-plane mode. "list templates" and "describe template" keep the
 * original grammar's output; "template get" is the original CLI's own
 * old name, and stays deprecated.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_listing_col template_cols[] = {
	{ "name", "Template", 0 },
	{ "scope", "Scope", 0 },
	{ "workloadType", "Workload Type", 0 },
	{ "description", "Description", 0 },
	{ "createdAt", "Created", 0 },
	{ "createdBy", "Created By", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static int
cmd_template_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_assets_list(ctx, RAI_WL_TEMPLATE, template_cols, opts);
}

static int
cmd_template_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_asset_describe_opts *o = opts;

	(void)argc;
	return runai_assets_describe(ctx, RAI_WL_TEMPLATE, "template",
	    template_cols, argv[0], o->output);
}

static const struct rai_example template_list_examples[] = {
	{ "runai template list", "the templates submit --template takes" },
	{ "runai template list --columns name,workloadType --no-headers",
	    "names and workload types only" },
	{ NULL, NULL }
};

static const struct rai_cmd template_list = {
	.name = "list",
	.summary = "list the templates",
	.synopsis = "[-p <project> | -A] [--json|--yaml|--table] "
	    "[--no-headers] [--columns <id,...>]",
	.description = "Lists the templates 'runai submit --template' takes. "
	    "In Kubernetes mode they are the cluster's submit templates "
	    "(ConfigMaps labelled runai/template=true in the runai "
	    "namespace), which serve every project; in control-plane mode "
	    "the control plane's workload templates (from 2.23) the project "
	    "(-p, else the default one) may use, or with -A every one. The "
	    "columns, by id: name, scope, workloadType, description, "
	    "createdAt, and with --columns createdBy and id. 'runai list "
	    "templates' shows the original grammar's table.",
	.examples = template_list_examples,
	.opts = runai_asset_list_opts,
	.opts_size = sizeof(struct runai_asset_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_template_list,
};

static const struct rai_cmd template_describe = {
	.name = "describe",
	.summary = "show a template",
	.synopsis = "<name> [-o table|json|yaml]",
	.description = "Shows the template called <name>: the list's "
	    "columns, one a line, then its values (a submit template's, as "
	    "written) or its spec (a workload template's). -o json or yaml "
	    "prints it whole. 'runai describe template' shows the original "
	    "grammar's form.",
	.opts = runai_asset_describe_opts,
	.opts_size = sizeof(struct runai_asset_describe_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_TEMPLATE,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_template_describe,
};

static const struct rai_cmd template_get = {
	.name = "get",
	.summary = "show a submit template",
	.forward = "describe template",
	.deprecated = "use 'runai template describe' or 'runai describe "
	    "template'",
};

static const struct rai_cmd *const template_subcmds[] = {
	&template_describe,
	&template_get,
	&template_list,
	NULL
};

const struct rai_cmd runai_cmd_template = {
	.name = "template",
	.summary = "list and show the templates",
	.synopsis = "list|describe",
	.description = "The CLI v2 grammar's template commands: 'template "
	    "list' and 'template describe NAME'. 'runai list templates' and "
	    "'runai describe template' do the same in the original grammar.",
	.subcmds = template_subcmds,
};
