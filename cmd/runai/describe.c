/* runai describe: the parent of "describe job|node". */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const describe_subcmds[] = {
	&runai_cmd_describe_job,
	&runai_cmd_describe_node,
	&runai_cmd_describe_template,
	NULL
};

const struct rai_cmd runai_cmd_describe = {
	.name = "describe",
	.summary = "show the details of a job, node or template",
	.synopsis = "job|node|template <name> [options]",
	.description = "Shows one object in detail: its fields, its pods "
	    "and the events about them.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = describe_subcmds,
};
