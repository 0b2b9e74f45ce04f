/*
 * What delete, suspend and resume share: the jobs named (or with -A
 * every job of the project), each acted on through the workload
 * interface in turn; a job that fails is reported on stderr in the
 * original CLI's words and the others still go (exit status 1 then).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/strv.h"
#include "runai.h"

#include "core/banned.h"

/* Job names from argv or, with -A, from the project; usage checked. */
static int
job_names(struct rai_ctx *ctx, int all, int argc, char **argv,
    struct rai_strv *names)
{
	int i;

	if (all && argc > 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "-A/--all cannot be used with job names");
	if (!all && argc == 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "no job given: name one or more jobs, or use -A/--all");
	if (all)
		return rai_wl_job_names(RUNAI_WL(ctx), names, rai_ctx_err(ctx));
	for (i = 0; i < argc; i++)
		rai_strv_push(names, argv[i]);
	return 0;
}

static void
say_done(struct rai_ctx *ctx, const char *job, enum rai_wl_action a,
    int unchanged)
{
	static const char *const done[] = {
		[RAI_WL_DELETE] = "deleted",
		[RAI_WL_SUSPEND] = "suspended",
		[RAI_WL_RESUME] = "resumed",
	};

	if (unchanged)
		fprintf(ctx->out, "Job %s is %s.\n", job, a == RAI_WL_SUSPEND ?
		    "already suspended" : "not suspended");
	else
		fprintf(ctx->out, "Job %s %s successfully.\n", job, done[a]);
}

/* The failure, in the original CLI's words for each action. */
static void
say_failed(struct rai_ctx *ctx, const char *job, enum rai_wl_action a,
    struct rai_err *err)
{
	const char *project = RUNAI_WL(ctx)->project;

	if (err->kind == RAI_E_NOTFOUND && a == RAI_WL_DELETE) {
		rai_err_set(err, RAI_E_NOTFOUND, "Job %s does not exist in "
		    "project %s. If the job exists in a different project, "
		    "use -p <project-name>.", job, project);
	} else if (err->kind == RAI_E_NOTFOUND) {
		rai_err_set(err, RAI_E_NOTFOUND, "Job %s not found in project "
		    "%s", job, project);
		rai_err_set_hint(err, "If the job exists in a different "
		    "project, use -p <project-name>.");
	} else if (err->http_status == 403) {
		runai_job_err_forbidden(err);
	} else {
		rai_err_prefix(err, "Failed to %s job %s", a == RAI_WL_DELETE ?
		    "delete" : a == RAI_WL_SUSPEND ? "suspend" : "resume", job);
	}
	fflush(ctx->out);
	rai_err_print(err, stderr, ctx->prog->name);
}

int
runai_act_on_jobs(struct rai_ctx *ctx, int all, int argc, char **argv,
    enum rai_wl_action a)
{
	struct rai_strv names = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	size_t i;
	int failed = 0, unchanged;

	if (job_names(ctx, all, argc, argv, &names) == -1)
		return -1;
	if (names.n > 0 && rai_wl_act_check(RUNAI_WL(ctx), a,
	    rai_ctx_err(ctx)) == -1) {
		rai_strv_release(&names);
		return -1;
	}
	for (i = 0; i < names.n; i++) {
		if (rai_wl_act(RUNAI_WL(ctx), names.v[i], a, &unchanged,
		    &err) == 0) {
			say_done(ctx, names.v[i], a, unchanged);
			continue;
		}
		say_failed(ctx, names.v[i], a, &err);
		rai_err_release(&err);
		failed = 1;
	}
	rai_strv_release(&names);
	return failed;
}
