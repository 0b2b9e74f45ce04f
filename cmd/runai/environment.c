/*
 * runai environment list|describe: the control plane's environments (an
 * image and how it runs), as the CLI v2 grammar shows them
 * (asset_print.c prints both).
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_listing_col environment_cols[] = {
	{ "name", "Environment", 0 },
	{ "scope", "Scope", 0 },
	{ "project", "Project", 0 },
	{ "image", "Image", 0 },
	{ "description", "Description", 0 },
	{ "createdAt", "Created", 0 },
	{ "kind", "Kind", RAI_LISTING_EXTRA },
	{ "createdBy", "Created By", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static int
cmd_environment_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_assets_list(ctx, RAI_WL_ENVIRONMENT, environment_cols, opts);
}

static int
cmd_environment_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_asset_describe_opts *o = opts;

	(void)argc;
	return runai_assets_describe(ctx, RAI_WL_ENVIRONMENT, "environment",
	    environment_cols, argv[0], o->output);
}

static const struct rai_example environment_list_examples[] = {
	{ "runai environment list", "the project's environments" },
	{ "runai environment describe pytorch -o yaml", "one of them whole" },
	{ NULL, NULL }
};

static const struct rai_cmd environment_list = {
	.name = "list",
	.summary = "list the environments",
	.synopsis = "[-p <project> | -A] [--json|--yaml|--table] "
	    "[--no-headers] [--columns <id,...>]",
	.description = "Lists the control plane's environments the project "
	    "(-p, else the default one) may use: its own and those of the "
	    "scopes above it (its department, the cluster, the tenant); with "
	    "-A those of every scope. The columns, by id: name, scope, "
	    "project, image, description, createdAt, and with --columns "
	    "kind, createdBy and id. In Kubernetes mode there are none: "
	    "environments are a control plane's.",
	.examples = environment_list_examples,
	.opts = runai_asset_list_opts,
	.opts_size = sizeof(struct runai_asset_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_environment_list,
};

static const struct rai_cmd environment_describe = {
	.name = "describe",
	.summary = "show one of the environments",
	.synopsis = "<name> [-p <project>] [-o table|json|yaml]",
	.description = "Shows the environment called <name> that the project "
	    "(-p, else the default one) may use: the list's columns, one a "
	    "line, then its spec; where the name is taken in several scopes, "
	    "the narrowest scope's. -o json or yaml prints the control "
	    "plane's own object.",
	.opts = runai_asset_describe_opts,
	.opts_size = sizeof(struct runai_asset_describe_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_ENVIRONMENT,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_environment_describe,
};

static const struct rai_cmd *const environment_subcmds[] = {
	&environment_describe,
	&environment_list,
	NULL
};

const struct rai_cmd runai_cmd_environment = {
	.name = "environment",
	.summary = "the control plane's environments",
	.synopsis = "list|describe",
	.description = "Environments are a control plane's assets that "
	    "submit names with --environment: an image, its pull policy, "
	    "command, tools and variables. 'environment list' lists them, "
	    "'environment describe NAME' shows one.",
	.subcmds = environment_subcmds,
};
