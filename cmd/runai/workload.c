/*
 * runai workload submit|list|describe|delete|logs|exec: the CLI v2
 * grammar's commands over every kind of workload (workspaces,
 * trainings, inference) at once; submit takes a Kubernetes manifest.
 */
#include <stddef.h>

#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

static const struct rai_cmd workload_list = RUNAI_WL_LIST("workloads");
static const struct rai_cmd workload_describe =
    RUNAI_WL_DESCRIBE("a workload");

static const struct rai_cmd workload_delete = {
	.name = "delete",
	.summary = "delete workloads",
	.synopsis = "<name>... [-y]",
	.description = "Deletes each workload named, of any type, after "
	    "asking on the terminal (-y: without asking; needed when stdin "
	    "is no terminal). A failure is reported and the other names "
	    "still go.",
	.opts = runai_wl_delete_opts,
	.opts_size = sizeof(struct runai_wl_act_opts),
	.args_min = 1,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RUNAI_WL_FLAGS,
	.run = runai_wl_delete_run,
};

static const struct rai_cmd *const workload_subcmds[] = {
	&runai_cmd_workload_submit,
	&workload_list,
	&workload_describe,
	&workload_delete,
	&(const struct rai_cmd)RUNAI_WL_FORWARD("logs",
	    "print the logs of a workload"),
	&(const struct rai_cmd)RUNAI_WL_FORWARD("exec",
	    "run a command in a workload's pod"),
	NULL
};

const struct rai_cmd runai_cmd_workload = {
	.name = "workload",
	.summary = "submit manifests; list, describe and delete workloads of "
	    "every type",
	.subcmds = workload_subcmds,
};
