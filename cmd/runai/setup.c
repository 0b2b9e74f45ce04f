/*
 * What every runai command gets before it runs (the kube session and
 * the project, as far as its flags ask) and after (the 403 message and
 * the session closed), and the -o parsing the commands share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "core/alloc.h"
#include "kube/client.h"
#include "runai.h"
#include "runai/cp.h"
#include "runai/project.h"

#include "core/banned.h"

/*
 * The project: -p wins, then the current context's namespace label
 * (runai/queue), as the reference CLI resolves it.
 */
int
runai_resolve_project(struct rai_ctx *ctx, const char *hint, char **project,
    char **ns, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	const char *ctx_ns = RUNAI_KUBE(ctx)->conn.namespace;

	*project = *ns = NULL;
	if (g->project != NULL && *g->project != '\0') {
		if (rai_project_namespace(RUNAI_CLIENT(ctx), g->project, ns,
		    err) == -1)
			return -1;
		*project = xstrdup(g->project);
		return 0;
	}
	if (rai_namespace_project(RUNAI_CLIENT(ctx), ctx_ns, project,
	    err) == -1)
		return -1;
	if (*project == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no default project is set");
		rai_err_set_hint(err, "%s", hint);
		return -1;
	}
	*ns = xstrdup(ctx_ns);
	return 0;
}

/*
 * The original CLI's --loglevel: debug shows the requests (as -v=6);
 * info, warn and error are the default. -v wins when both are given.
 */
static struct rai_kube_globals
kube_globals(const struct runai_globals *g)
{
	struct rai_kube_globals k = g->kube;

	if (k.verbosity == 0 && g->loglevel != NULL &&
	    strcmp(g->loglevel, "debug") == 0)
		k.verbosity = 6;
	return k;
}

int
runai_prepare(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct rai_kube_globals kg = kube_globals(g);

	if ((flags & (RAI_CMD_NEED_CONFIG | RAI_CMD_NEED_CLIENT |
	    RAI_CMD_NEED_PROJECT)) && runai_cp_select(ctx, &kg, err) == -1)
		return -1;
	if (RUNAI_CP(ctx) != NULL)	/* backend mode: no cluster, no namespace */
		return runai_cp_supported(ctx, &kg, err);
	if (rai_kube_setup(RUNAI_KUBE(ctx), &kg, flags,
	    "runai/" RAI_VERSION, err) == -1)
		return -1;
	if ((flags & RAI_CMD_NEED_PROJECT) && RUNAI_NS(ctx) == NULL)
		return runai_resolve_project(ctx, "run 'runai config project "
		    "<name>' or use -p <name>", &RUNAI_PROJECT(ctx),
		    &RUNAI_NS(ctx), err);
	return 0;
}

void
runai_teardown(struct rai_ctx *ctx)
{
	struct runai_app *app = RUNAI_APP(ctx);

	/* whatever the command, a 403 reads as the reference CLI's "Access denied" */
	runai_job_err_forbidden(rai_ctx_err(ctx));
	kube_session_close(&app->kube);
	cp_free(app->cp);
	app->cp = NULL;
	cJSON_Delete(app->cli_config);
	app->cli_config = NULL;
	app->cli_config_read = 0;
	free(app->project);
	free(app->namespace);
	app->project = app->namespace = NULL;
}

int
runai_output_format(struct rai_ctx *ctx, const char *s, enum rai_out_fmt *fmt)
{
	(void)ctx;
	*fmt = RAI_OUT_TABLE;
	if (s == NULL || *s == '\0')
		return 0;
	return rai_out_parse(s, fmt, rai_ctx_err(ctx));
}

/* The cluster's 403, whatever the command, in the reference CLI's words. */
void
runai_job_err_forbidden(struct rai_err *err)
{
	char *server;

	if (err->http_status != 403)
		return;
	server = err->message;
	err->message = NULL;
	rai_err_set(err, RAI_E_AUTH, "Access denied. You are not authorized "
	    "to perform this action.");
	if (server != NULL)
		rai_err_set_hint(err, "%s", server);
	free(server);
}
