/*
 * runai suspend JOB... | -A: sets spec.suspend on the job's RunaiJob (or
 * batch/v1 Job); the controller then removes its pods. "resume" clears it
 * (resume.c). Both need runai-job-controller v0.1.8 or later.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

const struct rai_opt runai_suspend_opts[] = {
	{ .short_name = 'A', .long_name = "all", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_suspend_opts, all),
	  .help = "act on every job of the project" },
	RAI_OPT_END
};

static int
cmd_suspend(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_suspend_opts *o = opts;

	return runai_act_on_jobs(ctx, o->all, argc, argv, RAI_WL_SUSPEND);
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
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP,
	.run = cmd_suspend,
};
