/* runai list: the parent of "list clusters|projects|nodes". */
#include <stddef.h>

#include "runai.h"

#include "banned.h"

static const struct rai_cmd *const list_subcmds[] = {
	&runai_cmd_list_clusters,
	&runai_cmd_list_nodes,
	&runai_cmd_list_projects,
	NULL
};

const struct rai_cmd runai_cmd_list = {
	.name = "list",
	.summary = "list clusters, projects or nodes",
	.synopsis = "clusters|projects|nodes [options]",
	.description = "Shows one kind of object as a table, or with -o as "
	    "JSON, YAML or names for scripts.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = list_subcmds,
};
