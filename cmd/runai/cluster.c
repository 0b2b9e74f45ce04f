/*
 * runai cluster list|set: the original CLI's cluster commands, now
 * "list clusters" and "config cluster", still accepted.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd cluster_list = {
	.name = "list",
	.summary = "list the kubeconfig's clusters",
	.forward = "list clusters",
	.deprecated = "use 'runai list clusters'",
};

static const struct rai_cmd cluster_set = {
	.name = "set",
	.summary = "switch to another cluster",
	.forward = "config cluster",
	.deprecated = "use 'runai config cluster'",
};

static const struct rai_cmd *const cluster_subcmds[] = {
	&cluster_list,
	&cluster_set,
	NULL
};

const struct rai_cmd runai_cmd_cluster = {
	.name = "cluster",
	.summary = "cluster commands (old names)",
	.deprecated = "use 'runai list clusters' and 'runai config cluster'",
	.subcmds = cluster_subcmds,
};
