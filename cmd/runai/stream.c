/*
 * Where a job's pods are reached - by logs, exec, bash, attach and
 * port-forward, and by submit's --attach and forwarding once the job is
 * made: the source's client and the project's namespace, asked of the
 * workload interface once and kept in the program's state (RUNAI_NS).
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "runai.h"

#include "core/banned.h"

int
runai_stream_setup(struct rai_ctx *ctx, struct rai_err *err)
{
	struct runai_app *app = RUNAI_APP(ctx);
	struct rai_wl_stream st;
	char *what;
	int rc;

	if (app->namespace != NULL || app->cluster_api)
		return 0;
	what = xasprintf("%s %s", ctx->prog->name, ctx->cmdpath);
	rc = rai_wl_stream(app->wl, what,
	    (ctx->cmd->flags & RUNAI_CMD_LOG) != 0, &st, err);
	free(what);
	if (rc == -1)
		return -1;
	if (app->project == NULL && app->wl->project != NULL)
		app->project = xstrdup(app->wl->project);
	if (st.ns != NULL)
		app->namespace = xstrdup(st.ns);
	app->cluster_api = st.cluster_log;
	return 0;
}
