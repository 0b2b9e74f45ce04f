/*
 * runai suspend JOB... | -A: sets spec.suspend on the job's RunaiJob (or
 * batch/v1 Job); the controller then removes its pods. "resume" clears it
 * (resume.c). Both need runai-job-controller v0.1.8 or later.
 */
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "runai.h"
#include "runai/workload.h"

#include "core/banned.h"

const struct rai_opt runai_suspend_opts[] = {
	{ .short_name = 'A', .long_name = "all", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_suspend_opts, all),
	  .help = "act on every job of the project" },
	RAI_OPT_END
};

/* 0 done, -1 failed (reported on stderr). */
static int
suspend_job(struct rai_ctx *ctx, const char *job, int suspend)
{
	struct rai_err err = RAI_ERR_INIT;
	int unchanged;

	if (rai_workload_set_suspend(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), job,
	    suspend,
	    &unchanged, &err) == 0) {
		if (unchanged)
			fprintf(ctx->out, "Job %s is %s.\n", job, suspend ?
			    "already suspended" : "not suspended");
		else
			fprintf(ctx->out, "Job %s %s successfully.\n", job,
			    suspend ? "suspended" : "resumed");
		return 0;
	}
	if (err.kind == RAI_E_NOTFOUND) {
		rai_err_set(&err, RAI_E_NOTFOUND,
		    "Job %s not found in project %s", job, RUNAI_PROJECT(ctx));
		rai_err_set_hint(&err, "If the job exists in a different "
		    "project, use -p <project-name>.");
	} else if (err.http_status == 403)
		runai_job_err_forbidden(&err);
	else
		rai_err_prefix(&err, "Job %s failed to %s", job,
		    suspend ? "suspend" : "resume");
	fflush(ctx->out);
	rai_err_print(&err, stderr, ctx->prog->name);
	rai_err_release(&err);
	return -1;
}

int
runai_suspend_run(struct rai_ctx *ctx, const struct runai_suspend_opts *o,
    int argc, char **argv, int suspend)
{
	char **names;
	size_t i, n;
	int failed = 0, ok;

	if (RUNAI_CP(ctx) != NULL)
		return runai_job_action_cp(ctx, o->all, argc, argv,
		    suspend ? "suspend" : "resume");
	if (runai_job_names(ctx, o->all, argc, argv, &names, &n) == -1)
		return -1;
	if (n > 0 && rai_job_controller_supports_suspend(RUNAI_CLIENT(ctx), &ok,
	    rai_ctx_err(ctx)) == 0 && !ok) {
		runai_job_names_free(names, n);
		return rai_err_set(rai_ctx_err(ctx), RAI_E_CONFIG,
		    "runai job controller version should be >=0.1.8");
	}
	for (i = 0; i < n; i++)
		if (suspend_job(ctx, names[i], suspend) == -1)
			failed = 1;
	runai_job_names_free(names, n);
	return failed;
}

static int
cmd_suspend(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return runai_suspend_run(ctx, opts, argc, argv, 1);
}

static const struct rai_example suspend_examples[] = {
	{ "runai suspend train1", "stop train1; its pods are deleted" },
	{ "runai suspend -A", "suspend every job of the default project" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_suspend = {
	.name = "suspend",
	.summary = "suspend jobs, releasing their pods and GPUs",
	.synopsis = "[-p project] <job>... | -A",
	.description = "Suspends each named job of the project by setting "
	    "spec.suspend on its RunaiJob (or batch Job). The job controller "
	    "then deletes the job's pods, so their logs are lost, and "
	    "\"runai list\" shows the job as Suspended until \"runai resume\". "
	    "Suspending a suspended job changes nothing.\n\n"
	    "Clusters whose runai-job-controller is older than v0.1.8 cannot "
	    "suspend jobs; the command then refuses. A job that cannot be "
	    "suspended is reported and the others are still suspended; the "
	    "exit status is then 1.",
	.examples = suspend_examples,
	.opts = runai_suspend_opts,
	.opts_size = sizeof(struct runai_suspend_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT,
	.run = cmd_suspend,
};
