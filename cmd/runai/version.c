/*
 * runai version: the suite's version lines, then which mode the current
 * context is in and, in backend mode, the control plane and the version
 * of its cluster as the last login probed it (cached in the login
 * store, not guessed; "unknown" until a login).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/version.h"
#include "core/err.h"
#include "core/text.h"
#include "kube/client.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

struct version_opts {
	int	short_only;
	int	wide;
};

/* "unknown (why)", the why cleaned: it may be a server's text. */
static void
put_unknown(FILE *out, const char *label, struct rai_err *err)
{
	fprintf(out, "%sunknown (", label);
	rai_text_put(out, "", err->message != NULL ? err->message :
	    "no answer", ")\n");
	rai_err_release(err);
}

/* --wide in Kubernetes mode: the API server's version, asked. */
static void
kubernetes_wide(struct rai_ctx *ctx)
{
	struct rai_err err = RAI_ERR_INIT;
	char *v = NULL;

	if (runai_prepare(ctx, RAI_CMD_NEED_CLIENT, &err) == -1 ||
	    kube_server_version(RUNAI_CLIENT(ctx), &v, &err) == -1) {
		put_unknown(ctx->out, "ServerVersion: ", &err);
		return;
	}
	rai_text_put(ctx->out, "ServerVersion: ", v, "\n");
	free(v);
}

/* --wide in control-plane mode: the cluster the version is of. */
static void
control_plane_wide(struct rai_ctx *ctx, struct cp *c)
{
	struct rai_err err = RAI_ERR_INIT;
	const char *name, *id;

	if (cp_cluster_use(c, &err) == -1) {
		put_unknown(ctx->out, "ControlPlaneCluster: ", &err);
		return;
	}
	name = cp_cluster(c, "name");
	id = cp_cluster(c, "id");
	if (name == NULL || id == NULL) {
		fprintf(ctx->out, "ControlPlaneCluster: unknown (%s)\n",
		    cp_logged_in(c) ? "none chosen" : "not logged in");
		return;
	}
	rai_text_put(ctx->out, "ControlPlaneCluster: ", name, " (");
	rai_text_put(ctx->out, "", id, ")\n");
}

static int
cmd_version(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct version_opts *o = opts;
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct rai_err err = RAI_ERR_INIT;
	struct cp *c;
	const char *v;

	(void)argc;
	(void)argv;
	if (o->short_only && o->wide)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "--short and "
		    "--wide cannot be used together");
	rai_version_print(ctx->out, o->short_only);
	if (o->short_only)
		return 0;
	/* the mode is information here, never a reason to fail */
	if (runai_cp_select(ctx, &g->kube, &err) != 1) {
		fprintf(ctx->out, "Mode: kubernetes\n");
		rai_err_release(&err);
		if (o->wide)
			kubernetes_wide(ctx);
		return 0;
	}
	fprintf(ctx->out, "Mode: control-plane\n");
	c = runai_control_plane(ctx);
	rai_text_put(ctx->out, "ControlPlane: ", cp_url(c), "\n");
	/* the version is the chosen cluster's */
	if (cp_cluster_use(c, &err) == -1)
		rai_err_release(&err);
	/* the server's text, kept in the login store: printed cleaned */
	v = cp_cluster(c, "version");
	rai_text_put(ctx->out, "ControlPlaneVersion: ", v != NULL && *v ? v :
	    !cp_logged_in(c) ? "unknown (not logged in)" :
	    "unknown (no cluster chosen)", "\n");
	if (o->wide)
		control_plane_wide(ctx, c);
	return 0;
}

static const struct rai_opt version_opts_table[] = {
	{ .long_name = "short", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct version_opts, short_only),
	  .help = "print only the version line" },
	{ .long_name = "wide", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct version_opts, wide),
	  .help = "also the cluster's side: the API server's version, or the "
	      "control plane's cluster" },
	RAI_OPT_END
};

static const struct rai_example version_examples[] = {
	{ "runai version --short", "print only \"Version: X.Y.Z\"" },
	{ "runai version", "also the build, and the mode of the current "
	    "context" },
	{ "runai version --wide", "and the cluster's version" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_version = {
	.name = "version",
	.summary = "print the version and the mode",
	.synopsis = "[--short | --wide]",
	.description = "Prints the version, then the build's commit, compiler, "
	    "library versions and platform, then the mode of the current "
	    "context: \"Mode: kubernetes\", or \"Mode: control-plane\" with "
	    "the control plane's URL and the version its cluster reported at "
	    "the last 'runai login'. The first line is always \"Version: "
	    "X.Y.Z\"."
	    "\n\n"
	    "--wide adds the other side: in Kubernetes mode \"ServerVersion: "
	    "\" and the version the context's API server reports (asked "
	    "now), in control-plane mode \"ControlPlaneCluster: \" and the "
	    "name and id of the cluster the version is of. What cannot be "
	    "known reads \"unknown (why)\"; the command still succeeds.",
	.examples = version_examples,
	.opts = version_opts_table,
	.opts_size = sizeof(struct version_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_version,
};
