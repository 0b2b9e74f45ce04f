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
#include "runai/wl_kube.h"

#include "core/banned.h"

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

/* The project (and namespace) the source resolved, kept for the command. */
static int
resolve_project(struct rai_ctx *ctx, struct rai_err *err)
{
	struct runai_app *app = RUNAI_APP(ctx);

	if (app->project != NULL)
		return 0;
	if (rai_wl_resolve(app->wl, "run 'runai config project <name>' or "
	    "use -p <name>", err) == -1)
		return -1;
	app->project = xstrdup(app->wl->project);
	if (app->namespace == NULL && app->wl->ns != NULL)
		app->namespace = xstrdup(app->wl->ns);
	return 0;
}

/*
 * The source of the jobs: the control plane when the context names one
 * (cp_mode.c), else the cluster's Kubernetes API through the kubeconfig.
 */
int
runai_prepare(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct runai_app *app = RUNAI_APP(ctx);
	struct rai_kube_globals kg = kube_globals(g);
	int cp = 0;

	if (!(flags & (RAI_CMD_NEED_CONFIG | RAI_CMD_NEED_CLIENT |
	    RAI_CMD_NEED_PROJECT)))
		return 0;
	if ((cp = runai_cp_select(ctx, &kg, err)) == -1)
		return -1;
	if (cp) {
		/* no cluster to connect to, no namespace */
		if (runai_cp_supported(ctx, &kg, err) == -1)
			return -1;
	} else {
		if (rai_kube_setup(RUNAI_KUBE(ctx), &kg, flags,
		    "runai/" RAI_VERSION, err) == -1)
			return -1;
		if (app->wl == NULL)
			app->wl = rai_wl_kube_open(RUNAI_KUBE(ctx), g->project);
	}
	return (flags & RAI_CMD_NEED_PROJECT) ? resolve_project(ctx, err) : 0;
}

void
runai_teardown(struct rai_ctx *ctx)
{
	struct runai_app *app = RUNAI_APP(ctx);

	/* whatever the command, a 403 reads as the reference CLI's "Access denied" */
	runai_job_err_forbidden(rai_ctx_err(ctx));
	/* a 401 in Kubernetes mode: which credential, and the way out */
	if (runai_control_plane(ctx) == NULL)
		kube_session_explain_401(&app->kube, rai_ctx_err(ctx));
	rai_wl_free(app->wl);
	app->wl = NULL;
	kube_session_close(&app->kube);
	cJSON_Delete(app->cli_config);
	app->cli_config = NULL;
	app->cli_config_read = 0;
	free(app->project);
	free(app->namespace);
	app->project = app->namespace = NULL;
	app->cluster_api = 0;
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
