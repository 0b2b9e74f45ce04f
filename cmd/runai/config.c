/*
 * runai config: the parent of "config cluster", "config project" and
 * "config control-plane", and of the Run:ai CLI v2's "config set",
 * "config describe" and "config generate".
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const config_subcmds[] = {
	&runai_cmd_config_cluster,
	&runai_cmd_config_control_plane,
	&runai_cmd_config_describe,
	&runai_cmd_config_generate,
	&runai_cmd_config_project,
	&runai_cmd_config_set,
	NULL
};

const struct rai_cmd runai_cmd_config = {
	.name = "config",
	.summary = "set the default cluster or project, or show the settings",
	.synopsis = "cluster|project|control-plane|set|describe|generate ...",
	.description = "Changes the defaults that later commands use. They "
	    "are kept in the kubeconfig, so kubectl sees the same choice: "
	    "the cluster is the current context, the project is that "
	    "context's namespace, and a control plane (control-plane mode) "
	    "is kept beside the context. 'config set' changes several at "
	    "once, 'config describe' shows them and 'config generate' writes "
	    "them to a file.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = config_subcmds,
};
