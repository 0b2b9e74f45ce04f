/*
 * runai project set NAME: the CLI v2 grammar's "config project": the
 * default project, kept in the kubeconfig (the context's namespace in
 * Kubernetes mode, beside the context in control-plane mode).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/project.h"

#include "core/banned.h"

static int
set_namespace(struct rai_ctx *ctx, const char *project, struct rai_err *err)
{
	char *ns = NULL;
	int rc;

	if (RUNAI_KUBE(ctx)->conn.context == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no current context to set the "
		    "project in");
		rai_err_set_hint(err, "run 'runai cluster set <name>' first");
		return -1;
	}
	if (rai_project_namespace(RUNAI_CLIENT(ctx), project, &ns, err) == -1)
		return -1;
	rc = kube_config_set_context_namespace(RUNAI_KUBE(ctx)->kcfg,
	    RUNAI_KUBE(ctx)->conn.context, ns, err);
	free(ns);
	return rc;
}

static int
cmd_project_set(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);
	int rc;

	(void)opts;
	(void)argc;
	if (runai_control_plane(ctx) != NULL)
		rc = runai_cp_set_project(ctx, argv[0], err);
	else
		rc = set_namespace(ctx, argv[0], err);
	if (rc == -1)
		return -1;
	rai_text_put(ctx->out, "project ", argv[0], " configured successfully\n");
	return 0;
}

static const struct rai_example project_set_examples[] = {
	{ "runai project set team-a", "work in team-a when -p is not given" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_project_set = {
	.name = "set",
	.summary = "set the default project",
	.synopsis = "<project>",
	.description = "Makes <project> the default of later commands, as "
	    "'runai config project' does: in Kubernetes mode the namespace "
	    "labelled runai/queue=<project> becomes the current context's "
	    "namespace; in control-plane mode the control plane's project is "
	    "kept beside the context.",
	.examples = project_set_examples,
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_PROJECT,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_project_set,
};
