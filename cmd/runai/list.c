/* runai list: the parent of "list clusters|projects|nodes". */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const list_subcmds[] = {
	&runai_cmd_list_clusters,
	&runai_cmd_list_jobs,
	&runai_cmd_list_nodes,
	&runai_cmd_list_projects,
	&runai_cmd_list_templates,
	NULL
};

const struct rai_cmd runai_cmd_list = {
	.name = "list",
	.summary = "list jobs, clusters, projects, nodes or templates",
	.synopsis = "[jobs|clusters|projects|nodes|templates] [options]",
	.description = "Shows one kind of object as a table, or with -o as "
	    "JSON, YAML or names for scripts. Without a kind it lists jobs, "
	    "as \"list jobs\".",
	.opts = runai_list_jobs_opts,
	.opts_size = sizeof(struct runai_list_jobs_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.subcmds = list_subcmds,
	.run = runai_list_jobs_run,
};
