/*
 * runai resume JOB... | -A: clears spec.suspend so the job controller
 * starts the job's pods again (as suspend.c sets it).
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static int
cmd_resume(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_suspend_opts *o = opts;

	return runai_act_on_jobs(ctx, o->all, argc, argv, RAI_WL_RESUME);
}

static const struct rai_example resume_examples[] = {
	{ "runai resume train1", "start the suspended job train1 again" },
	{ "runai resume -A", "resume every job of the default project" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_resume = {
	.name = "resume",
	.summary = "resume suspended jobs",
	.synopsis = "[-p project] <job>... | -A",
	.description = "Resumes each named job of the project by clearing "
	    "spec.suspend on its RunaiJob (or batch Job); the job controller "
	    "then creates its pods again. Resuming a job that is not "
	    "suspended changes nothing. The same controller version check as "
	    "\"runai suspend\" applies. A job that cannot be resumed is "
	    "reported and the others are still resumed; the exit status is "
	    "then 1.",
	.examples = resume_examples,
	.opts = runai_suspend_opts,
	.opts_size = sizeof(struct runai_suspend_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP,
	.run = cmd_resume,
};
