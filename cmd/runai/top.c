/* runai top: the parent of "top node|job" (usage from Prometheus). */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd *const top_subcmds[] = {
	&runai_cmd_top_job,
	&runai_cmd_top_node,
	NULL
};

const struct rai_cmd runai_cmd_top = {
	.name = "top",
	.summary = "show the CPU, memory and GPU use of nodes or jobs",
	.synopsis = "node|job [options]",
	.description = "Shows live use of nodes or running jobs as the "
	    "Run:ai metrics in Prometheus report it. Prometheus is the "
	    "kube-prometheus-stack Service in namespace monitoring, reached "
	    "through the API server's service proxy.",
	.args_min = 0,
	.args_max = -1,
	.subcmds = top_subcmds,
};
