/* runai config: the parent of "config cluster" and "config project". */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const config_subcmds[] = {
	&runai_cmd_config_cluster,
	&runai_cmd_config_control_plane,
	&runai_cmd_config_project,
	NULL
};

const struct rai_cmd runai_cmd_config = {
	.name = "config",
	.summary = "set the default cluster or project",
	.synopsis = "cluster|project <name>",
	.description = "Changes the defaults that later commands use. Both "
	    "are kept in the kubeconfig, so kubectl sees the same choice: "
	    "the cluster is the current context, the project is that "
	    "context's namespace.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = config_subcmds,
};
