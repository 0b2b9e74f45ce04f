/*
 * runai delete JOB... | -A: removes jobs of the project with everything
 * submit made for them (the objects its name-reservation ConfigMap
 * lists, then the ConfigMap). Each name is handled on its own; a
 * failure is reported and the others still go.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

struct delete_opts {
	int	all;
};

static const struct rai_opt delete_opts[] = {
	{ .short_name = 'A', .long_name = "all", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct delete_opts, all),
	  .help = "delete every job of the project" },
	RAI_OPT_END
};

static int
cmd_delete(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct delete_opts *o = opts;

	return runai_act_on_jobs(ctx, o->all, argc, argv, RAI_WL_DELETE);
}

static const struct rai_example delete_examples[] = {
	{ "runai delete train1", "delete the job train1 of the default project" },
	{ "runai delete -p team-a job1 job2", "delete two jobs of project team-a" },
	{ "runai delete -A", "delete every job of the default project" },
	{ NULL, NULL }
};

/*
 * "runai delete job JOB...": the later original CLI's spelling of the
 * same command, so both kinds of published guides work.
 */
const struct rai_cmd runai_cmd_delete_job = {
	.name = "job",
	.aliases = (const char *const[]){ "jobs", NULL },
	.summary = "delete jobs (the same as runai delete)",
	.synopsis = "[-p project] <job>... | -A",
	.description = "The same as runai delete, spelled as later versions "
	    "of the original CLI spell it.",
	.opts = delete_opts,
	.opts_size = sizeof(struct delete_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP,
	.run = cmd_delete,
};

static const struct rai_cmd *const delete_subcmds[] = {
	&runai_cmd_delete_job,
	NULL
};

const struct rai_cmd runai_cmd_delete = {
	.name = "delete",
	.summary = "delete jobs and the objects submitted with them",
	.synopsis = "[-p project] [job] <job>... | -A",
	.description = "Deletes each named job of the project: the objects "
	    "listed in the job's name-reservation ConfigMap (the workload, "
	    "its Service, Ingress and PVCs), then the ConfigMap. A job "
	    "without that ConfigMap is found by kind (RunaiJob, Job, "
	    "Deployment, StatefulSet or a pod of the runai-scheduler) and "
	    "deleted with its Service, Ingress and ConfigMap of the same "
	    "name. Deletion propagates in the background, so the job's pods "
	    "go too.\n\n"
	    "With -A every job of the project is deleted. A job that cannot "
	    "be deleted is reported and the others are still deleted; the "
	    "exit status is then 1.\n\n"
	    "\"runai delete job <job>...\" is the same command, as later "
	    "versions of the original CLI spell it; a job named \"job\" is "
	    "then deleted with \"runai delete job job\".",
	.examples = delete_examples,
	.opts = delete_opts,
	.opts_size = sizeof(struct delete_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP,
	.subcmds = delete_subcmds,
	.run = cmd_delete,
};
