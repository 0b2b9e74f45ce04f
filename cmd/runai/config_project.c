/* runai config project <name>: make a project the default. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "kube/config.h"
#include "runai.h"
#include "runai/project.h"

#include "core/banned.h"

int
runai_config_project(struct rai_ctx *ctx, const char *project)
{
	struct rai_err *err = rai_ctx_err(ctx);
	char *ns = NULL;
	int rc = -1;

	/* a control plane keeps the project beside the context */
	if (runai_control_plane(ctx) != NULL)
		return runai_cp_config_project(ctx, project);
	if (RUNAI_KUBE(ctx)->conn.context == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no current context to set the "
		    "project in");
		rai_err_set_hint(err, "run 'runai config cluster <context>' "
		    "first");
		return -1;
	}
	if (rai_project_namespace(RUNAI_CLIENT(ctx), project, &ns, err) == -1)
		return -1;
	if (kube_config_set_context_namespace(RUNAI_KUBE(ctx)->kcfg,
	    RUNAI_KUBE(ctx)->conn.context, ns,
	    err) == -1)
		goto out;
	fprintf(ctx->out, "Project %s has been set as default project\n",
	    project);
	rc = 0;
out:
	free(ns);
	return rc;
}

static int
cmd_config_project(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)opts;
	(void)argc;
	return runai_config_project(ctx, argv[0]);
}

static const struct rai_example config_project_examples[] = {
	{ "runai config project team-a", "submit to team-a when -p is not "
	    "given" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_project = {
	.name = "project",
	.aliases = (const char *const[]){ "projects", NULL },
	.summary = "set the default project",
	.synopsis = "<project>",
	.description = "Finds the namespace of <project> (the one labelled "
	    "runai/queue=<project>) and makes it the namespace of the current "
	    "kubeconfig context, in the file that defines that context. "
	    "Commands without -p then use this project.",
	.examples = config_project_examples,
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_PROJECT,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_config_project,
};
