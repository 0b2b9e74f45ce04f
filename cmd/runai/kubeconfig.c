/* runai kubeconfig: the parent of the Run:ai CLI v2's "kubeconfig set". */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const kubeconfig_subcmds[] = {
	&runai_cmd_kubeconfig_set,
	NULL
};

const struct rai_cmd runai_cmd_kubeconfig = {
	.name = "kubeconfig",
	.summary = "give kubectl the control plane's login",
	.synopsis = "set [--username <name>] [--bypass-validation]",
	.description = "Changes the kubeconfig so that kubectl and other "
	    "Kubernetes clients reach the cluster with the control plane's "
	    "login: 'kubeconfig set'.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = kubeconfig_subcmds,
};
