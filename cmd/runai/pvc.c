/*
 * runai pvc list: the project's PersistentVolumeClaims. In Kubernetes
 * mode the claims of the project's namespace; in control-plane mode the
 * control plane's PVC data sources the project may use, each naming its
 * claim (lib/runai/cp_objects.c says why).
 */
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "runai.h"

#include "core/banned.h"

struct pvc_list_opts {
	struct rai_listing_opts	 listing;
};

static const struct rai_opt pvc_list_opts[] = {
	RAI_LISTING_OPTS(struct pvc_list_opts, listing),
	RAI_OPT_END
};

static const struct rai_listing_col pvc_cols[] = {
	{ "name", "Name", 0 },
	{ "status", "Status", 0 },
	{ "size", "Size", 0 },
	{ "accessModes", "Access Modes", 0 },
	{ "storageClass", "Storage Class", 0 },
	{ "createdAt", "Created", 0 },
	{ "dataSource", "Data Source", RAI_LISTING_EXTRA },
	{ "scope", "Scope", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static cJSON *
pvc_row(const struct rai_wl_pvc *v)
{
	cJSON *row = cJSON_CreateObject();

	cJSON_AddStringToObject(row, "name", v->name);
	rai_listing_put_str(row, "status", v->status);
	rai_listing_put_str(row, "size", v->size);
	rai_listing_put_str(row, "accessModes", v->access_modes);
	rai_listing_put_str(row, "storageClass", v->storage_class);
	rai_listing_put_str(row, "createdAt", v->created);
	rai_listing_put_str(row, "dataSource", v->asset);
	rai_listing_put_str(row, "scope", v->scope);
	return row;
}

static int
cmd_pvc_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct pvc_list_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_wl_pvcs pv;
	cJSON *rows;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	if (rai_listing_check(&o->listing, err) == -1 ||
	    rai_wl_pvcs(RUNAI_WL(ctx), &pv, err) == -1)
		return -1;
	rows = cJSON_CreateArray();
	for (i = 0; i < pv.n; i++)
		cJSON_AddItemToArray(rows, pvc_row(&pv.v[i]));
	rc = rai_listing_print(ctx->out, &o->listing, pvc_cols, rows, err);
	cJSON_Delete(rows);
	rai_wl_pvcs_release(&pv);
	return rc;
}

static const struct rai_example pvc_list_examples[] = {
	{ "runai pvc list -p team-a", "the claims team-a's workloads can "
	    "mount" },
	{ NULL, NULL }
};

static const struct rai_cmd pvc_list = {
	.name = "list",
	.summary = "list the project's PersistentVolumeClaims",
	.synopsis = "[-p <project>] [--json|--yaml|--table] [--no-headers] "
	    "[--columns <id,...>]",
	.description = "Lists the claims of the project (-p, else the "
	    "default one). In Kubernetes mode they are the "
	    "PersistentVolumeClaims of the project's namespace, with their "
	    "phase, capacity (else the size asked for), access modes and "
	    "storage class. In control-plane mode they are the control "
	    "plane's PVC data sources the project may use: its own and those "
	    "of the scopes above it, each with the claim it names, the size "
	    "and class it asks for, and the control plane's word on it; the "
	    "control plane lists no claims of its own, and its data sources "
	    "are what workloads mount by name. The columns, by id: name, "
	    "status, size, accessModes, storageClass, createdAt, and with "
	    "--columns dataSource and scope (control-plane mode's).",
	.examples = pvc_list_examples,
	.opts = pvc_list_opts,
	.opts_size = sizeof(struct pvc_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_pvc_list,
};

static const struct rai_cmd *const pvc_subcmds[] = {
	&pvc_list,
	NULL
};

const struct rai_cmd runai_cmd_pvc = {
	.name = "pvc",
	.summary = "list the project's claims",
	.synopsis = "list",
	.description = "The CLI v2 grammar's claim commands: 'pvc list'.",
	.subcmds = pvc_subcmds,
};
