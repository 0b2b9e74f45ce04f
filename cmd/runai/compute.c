/*
 * runai compute list|describe: the control plane's compute resources
 * (the GPUs, CPU and memory a workload asks for), as the CLI v2 grammar
 * shows them (asset_print.c prints both).
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_listing_col compute_cols[] = {
	{ "name", "Compute Resource", 0 },
	{ "scope", "Scope", 0 },
	{ "project", "Project", 0 },
	{ "gpu", "GPU", 0 },
	{ "cpu", "CPU", 0 },
	{ "memory", "Memory", 0 },
	{ "description", "Description", 0 },
	{ "createdAt", "Created", 0 },
	{ "kind", "Kind", RAI_LISTING_EXTRA },
	{ "createdBy", "Created By", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static int
cmd_compute_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_assets_list(ctx, RAI_WL_COMPUTE, compute_cols, opts);
}

static int
cmd_compute_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_asset_describe_opts *o = opts;

	(void)argc;
	return runai_assets_describe(ctx, RAI_WL_COMPUTE, "compute",
	    compute_cols, argv[0], o->output);
}

static const struct rai_example compute_list_examples[] = {
	{ "runai compute list -A", "every compute resource" },
	{ NULL, NULL }
};

static const struct rai_cmd compute_list = {
	.name = "list",
	.summary = "list the compute resources",
	.synopsis = "[-p <project> | -A] [--json|--yaml|--table] "
	    "[--no-headers] [--columns <id,...>]",
	.description = "Lists the control plane's compute resources the "
	    "project (-p, else the default one) may use: its own and those "
	    "of the scopes above it (its department, the cluster, the "
	    "tenant); with -A those of every scope. The columns, by id: "
	    "name, scope, project, gpu (devices, or a portion of one: \"2 x "
	    "0.5\"), cpu, memory, description, createdAt, and with --columns "
	    "kind, createdBy and id. In Kubernetes mode there are none: "
	    "compute resources are a control plane's.",
	.examples = compute_list_examples,
	.opts = runai_asset_list_opts,
	.opts_size = sizeof(struct runai_asset_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_compute_list,
};

static const struct rai_cmd compute_describe = {
	.name = "describe",
	.summary = "show one of the compute resources",
	.synopsis = "<name> [-p <project>] [-o table|json|yaml]",
	.description = "Shows the compute resource called <name> that the "
	    "project (-p, else the default one) may use: the list's columns, "
	    "one a line, then its spec; where the name is taken in several "
	    "scopes, the narrowest scope's. -o json or yaml prints the "
	    "control plane's own object.",
	.opts = runai_asset_describe_opts,
	.opts_size = sizeof(struct runai_asset_describe_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_COMPUTE,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_compute_describe,
};

static const struct rai_cmd *const compute_subcmds[] = {
	&compute_describe,
	&compute_list,
	NULL
};

const struct rai_cmd runai_cmd_compute = {
	.name = "compute",
	.summary = "the control plane's compute resources",
	.synopsis = "list|describe",
	.description = "Compute resources are a control plane's assets that "
	    "submit names with --compute: the GPUs (devices, portions or "
	    "memory), CPU cores and memory a workload asks for. 'compute "
	    "list' lists them, 'compute describe NAME' shows one.",
	.subcmds = compute_subcmds,
};
