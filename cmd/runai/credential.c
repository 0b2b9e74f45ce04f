/*
 * runai credential list|describe: the control plane's credentials
 * (their names and kinds; never their secrets), as the CLI v2 grammar
 * shows them (asset_print.c prints both).
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_listing_col credential_cols[] = {
	{ "name", "Credential", 0 },
	{ "scope", "Scope", 0 },
	{ "project", "Project", 0 },
	{ "kind", "Type", 0 },
	{ "target", "Registry", 0 },
	{ "description", "Description", 0 },
	{ "createdAt", "Created", 0 },
	{ "createdBy", "Created By", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static const char *const credential_types[] = {
	"accessKey", "dockerRegistry", "password", "genericSecret", "ngcApiKey",
	NULL
};

static const struct rai_opt credential_list_opts[] = {
	RUNAI_OPT_ASSET_ALL(struct runai_asset_list_opts),
	{ .long_name = "type", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_asset_list_opts, type),
	  .argh = "<type>", .help = "only the credentials of this type",
	  .choices = credential_types, .comp = RAI_COMP_CHOICES },
	RAI_LISTING_OPTS(struct runai_asset_list_opts, listing),
	RAI_OPT_END
};

static int
cmd_credential_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_assets_list(ctx, RAI_WL_CREDENTIAL, credential_cols, opts);
}

static int
cmd_credential_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_asset_describe_opts *o = opts;

	(void)argc;
	return runai_assets_describe(ctx, RAI_WL_CREDENTIAL, "credential",
	    credential_cols, argv[0], o->output);
}

static const struct rai_example credential_list_examples[] = {
	{ "runai credential list --type dockerRegistry", "the registry credentials" },
	{ NULL, NULL }
};

static const struct rai_cmd credential_list = {
	.name = "list",
	.summary = "list the credentials",
	.synopsis = "[-p <project> | -A] [--type <type>] "
	    "[--json|--yaml|--table] [--no-headers] [--columns <id,...>]",
	.description = "Lists the control plane's credentials the project "
	    "(-p, else the default one) may use: its own and those of the "
	    "scopes above it (its department, the cluster, the tenant); with "
	    "-A those of every scope. --type keeps one type: accessKey, "
	    "dockerRegistry, password, genericSecret or ngcApiKey. The "
	    "columns, by id: name, scope, project, kind, target (a "
	    "registry's URL), description, createdAt, and with --columns "
	    "createdBy and id. In Kubernetes mode there are none: "
	    "credentials are a control plane's.",
	.examples = credential_list_examples,
	.opts = credential_list_opts,
	.opts_size = sizeof(struct runai_asset_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_credential_list,
};

static const struct rai_cmd credential_describe = {
	.name = "describe",
	.summary = "show one of the credentials",
	.synopsis = "<name> [-p <project>] [-o table|json|yaml]",
	.description = "Shows the credential called <name> that the project "
	    "(-p, else the default one) may use: the list's columns, one a "
	    "line, then its spec; where the name is taken in several scopes, "
	    "the narrowest scope's. -o json or yaml prints the control "
	    "plane's own object.",
	.opts = runai_asset_describe_opts,
	.opts_size = sizeof(struct runai_asset_describe_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_CREDENTIAL,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP,
	.run = cmd_credential_describe,
};

static const struct rai_cmd *const credential_subcmds[] = {
	&credential_describe,
	&credential_list,
	NULL
};

const struct rai_cmd runai_cmd_credential = {
	.name = "credential",
	.summary = "the control plane's credentials",
	.synopsis = "list|describe",
	.description = "Credentials are a control plane's assets that data "
	    "sources and registries use: access keys, registry logins, "
	    "passwords, generic secrets and NGC API keys. 'credential list' "
	    "lists them, 'credential describe NAME' shows one; the control "
	    "plane never gives their secrets out.",
	.subcmds = credential_subcmds,
};
