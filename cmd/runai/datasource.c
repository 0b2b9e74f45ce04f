/*
 * runai datasource list|describe: the control plane's data sources
 * (NFS, PVC, S3, Git, host paths, ConfigMaps, secrets), as the CLI v2
 * grammar shows them (asset_print.c prints both).
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_listing_col datasource_cols[] = {
	{ "name", "Data Source", 0 },
	{ "scope", "Scope", 0 },
	{ "project", "Project", 0 },
	{ "kind", "Type", 0 },
	{ "target", "Target", 0 },
	{ "mountPath", "Mount Path", 0 },
	{ "description", "Description", 0 },
	{ "createdAt", "Created", 0 },
	{ "createdBy", "Created By", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static const char *const datasource_types[] = {
	"nfs", "pvc", "s3", "git", "hostPath", "configMap", "secretVolume", NULL
};

static const struct rai_opt datasource_list_opts[] = {
	RUNAI_OPT_ASSET_ALL(struct runai_asset_list_opts),
	{ .long_name = "type", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_asset_list_opts, type),
	  .argh = "<type>", .help = "only the data sources of this type",
	  .choices = datasource_types, .comp = RAI_COMP_CHOICES },
	RAI_LISTING_OPTS(struct runai_asset_list_opts, listing),
	RAI_OPT_END
};

static int
cmd_datasource_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_assets_list(ctx, RAI_WL_DATASOURCE, datasource_cols, opts);
}

static int
cmd_datasource_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_asset_describe_opts *o = opts;

	(void)argc;
	return runai_assets_describe(ctx, RAI_WL_DATASOURCE, "datasource",
	    datasource_cols, argv[0], o->output);
}

static const struct rai_example datasource_list_examples[] = {
	{ "runai datasource list --type pvc", "the PVC data sources" },
	{ NULL, NULL }
};

static const struct rai_cmd datasource_list = {
	.name = "list",
	.summary = "list the data sources",
	.synopsis = "[-p <project> | -A] [--type <type>] "
	    "[--json|--yaml|--table] [--no-headers] [--columns <id,...>]",
	.description = "Lists the control plane's data sources the project "
	    "(-p, else the default one) may use: its own and those of the "
	    "scopes above it (its department, the cluster, the tenant); with "
	    "-A those of every scope. --type keeps one type: nfs, pvc, s3, "
	    "git, hostPath, configMap or secretVolume. The columns, by id: "
	    "name, scope, project, kind, target (what is mounted), "
	    "mountPath, description, createdAt, and with --columns createdBy "
	    "and id. In Kubernetes mode there are none: data sources are a "
	    "control plane's.",
	.examples = datasource_list_examples,
	.opts = datasource_list_opts,
	.opts_size = sizeof(struct runai_asset_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_datasource_list,
};

static const struct rai_cmd datasource_describe = {
	.name = "describe",
	.summary = "show one of the data sources",
	.synopsis = "<name> [-p <project>] [-o table|json|yaml]",
	.description = "Shows the data source called <name> that the project "
	    "(-p, else the default one) may use: the list's columns, one a "
	    "line, then its spec; where the name is taken in several scopes, "
	    "the narrowest scope's. -o json or yaml prints the control "
	    "plane's own object.",
	.opts = runai_asset_describe_opts,
	.opts_size = sizeof(struct runai_asset_describe_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_DATASOURCE,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_datasource_describe,
};

static const struct rai_cmd *const datasource_subcmds[] = {
	&datasource_describe,
	&datasource_list,
	NULL
};

const struct rai_cmd runai_cmd_datasource = {
	.name = "datasource",
	.summary = "the control plane's data sources",
	.synopsis = "list|describe",
	.description = "Data sources are a control plane's assets that "
	    "submit names with --datasource: an NFS export, a claim, an S3 "
	    "bucket, a Git repository, a host path, a ConfigMap or a secret, "
	    "and where it is mounted. 'datasource list' lists them, "
	    "'datasource describe NAME' shows one.",
	.subcmds = datasource_subcmds,
};
