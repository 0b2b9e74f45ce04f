/*
 * runai project list|set: the original CLI's project commands, now
 * "list projects" and "config project", still accepted.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd project_list = {
	.name = "list",
	.summary = "list projects",
	.forward = "list projects",
	.deprecated = "use 'runai list projects'",
};

static const struct rai_cmd project_set = {
	.name = "set",
	.summary = "set the default project",
	.forward = "config project",
	.deprecated = "use 'runai config project'",
};

static const struct rai_cmd *const project_subcmds[] = {
	&project_list,
	&project_set,
	NULL
};

const struct rai_cmd runai_cmd_project = {
	.name = "project",
	.summary = "project commands (old names)",
	.deprecated = "use 'runai list projects' and 'runai config project'",
	.subcmds = project_subcmds,
};
