/*
 * runai delete JOB... | -A: removes jobs of the project with everything
 * submit made for them (the objects its name-reservation ConfigMap
 * lists, then the ConfigMap). Each name is handled on its own; a
 * failure is reported and the others still go.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/err.h"
#include "runai.h"
#include "runai/workload.h"

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

/* Job names from argv or, with -A, from the project; usage checked. */
int
runai_job_names(struct rai_ctx *ctx, int all, int argc, char **argv,
    char ***names, size_t *n)
{
	size_t i;

	*names = NULL;
	*n = 0;
	if (all && argc > 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "-A/--all cannot be used with job names");
	if (!all && argc == 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "no job given: name one or more jobs, or use -A/--all");
	if (all) {
		return rai_workload_names(RUNAI_CLIENT(ctx), RUNAI_NS(ctx),
		    names,
		    n, rai_ctx_err(ctx));
	}
	*names = xcalloc((size_t)argc, sizeof(**names));
	for (i = 0; i < (size_t)argc; i++)
		(*names)[i] = xstrdup(argv[i]);
	*n = (size_t)argc;
	return 0;
}

void
runai_job_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* 0 deleted, -1 failed (reported on stderr). */
static int
delete_job(struct rai_ctx *ctx, const char *job)
{
	struct rai_err err = RAI_ERR_INIT;

	if (rai_workload_delete(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), job,
	    &err) == 0) {
		fprintf(ctx->out, "Job %s deleted successfully.\n", job);
		return 0;
	}
	if (err.kind == RAI_E_NOTFOUND)
		rai_err_set(&err, RAI_E_NOTFOUND, "Job %s does not exist in "
		    "project %s. If the job exists in a different project, "
		    "use -p <project-name>.", job, RUNAI_PROJECT(ctx));
	else if (err.http_status == 403)
		runai_job_err_forbidden(&err);
	else
		rai_err_prefix(&err, "Failed to delete job %s", job);
	fflush(ctx->out);
	rai_err_print(&err, stderr, ctx->prog->name);
	rai_err_release(&err);
	return -1;
}

static int
cmd_delete(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct delete_opts *o = opts;
	char **names;
	size_t i, n;
	int failed = 0;

	if (RUNAI_CP(ctx) != NULL)
		return runai_job_action_cp(ctx, o->all, argc, argv, "delete");
	if (runai_job_names(ctx, o->all, argc, argv, &names, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (delete_job(ctx, names[i]) == -1)
			failed = 1;
	runai_job_names_free(names, n);
	return failed;
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
	.flags = RAI_CMD_NEED_PROJECT,
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
	.flags = RAI_CMD_NEED_PROJECT,
	.subcmds = delete_subcmds,
	.run = cmd_delete,
};
