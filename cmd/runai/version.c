/*
 * runai version: the suite's version lines, then which mode the current
 * context is in and, in backend mode, the control plane and the version
 * of its cluster as the last login probed it (cached in the login
 * store, not guessed; "unknown" until a login).
 */
#include <stddef.h>
#include <stdio.h>

#include "cli/version.h"
#include "core/err.h"
#include "core/text.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

static int
cmd_version(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct rai_version_opts *o = opts;
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct rai_err err = RAI_ERR_INIT;
	struct cp *c;
	const char *v;

	(void)argc;
	(void)argv;
	rai_version_print(ctx->out, o->short_only);
	if (o->short_only)
		return 0;
	/* the mode is information here, never a reason to fail */
	if (runai_cp_select(ctx, &g->kube, &err) != 1) {
		fprintf(ctx->out, "Mode: kubernetes\n");
		rai_err_release(&err);
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
	return 0;
}

static const struct rai_example version_examples[] = {
	{ "runai version --short", "print only \"Version: X.Y.Z\"" },
	{ "runai version", "also the build, and the mode of the current "
	    "context" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_version = {
	.name = "version",
	.summary = "print the version and the mode",
	.synopsis = "[--short]",
	.description = "Prints the version, then the build's commit, compiler, "
	    "library versions and platform, then the mode of the current "
	    "context: \"Mode: kubernetes\", or \"Mode: control-plane\" with "
	    "the control plane's URL and the version its cluster reported at "
	    "the last 'runai login'. The first line is always \"Version: "
	    "X.Y.Z\".",
	.examples = version_examples,
	.opts = rai_version_opts,
	.opts_size = sizeof(struct rai_version_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_version,
};
