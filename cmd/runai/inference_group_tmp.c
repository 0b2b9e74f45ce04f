/*
 * TEMPORARY: "runai inference" until the CLI v2 noun groups are built
 * (they will replace this file): submit, and list, describe and delete
 * as other names of the original grammar's "list jobs", "describe job"
 * and "delete", which show every type of workload, inferences included.
 * Those three are hidden: the engine's pages and -h do not describe a
 * forward that is not deprecated.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd inference_list = {
	.name = "list",
	.summary = "list workloads (as runai list jobs)",
	.forward = "list jobs",
	.flags = RAI_CMD_HIDDEN,
};

static const struct rai_cmd inference_describe = {
	.name = "describe",
	.summary = "describe a workload (as runai describe job)",
	.forward = "describe job",
	.flags = RAI_CMD_HIDDEN,
};

static const struct rai_cmd inference_delete = {
	.name = "delete",
	.summary = "delete workloads (as runai delete)",
	.forward = "delete",
	.flags = RAI_CMD_HIDDEN,
};

static const struct rai_cmd *const inference_subcmds[] = {
	&runai_cmd_inference_submit,
	&inference_list,
	&inference_describe,
	&inference_delete,
	NULL
};

const struct rai_cmd runai_cmd_inference_group_tmp = {
	.name = "inference",
	.summary = "inference workloads (control-plane mode)",
	.subcmds = inference_subcmds,
};
