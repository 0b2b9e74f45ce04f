/*
 * runai template list|get|describe: the original CLI's template
 * commands, now "list templates" and "describe template", still
 * accepted.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

static const struct rai_cmd template_list = {
	.name = "list",
	.summary = "list the submit templates",
	.forward = "list templates",
	.deprecated = "use 'runai list templates'",
};

static const struct rai_cmd template_get = {
	.name = "get",
	.summary = "show a submit template",
	.forward = "describe template",
	.deprecated = "use 'runai describe template'",
};

static const struct rai_cmd template_describe = {
	.name = "describe",
	.summary = "show a submit template",
	.forward = "describe template",
	.deprecated = "use 'runai describe template'",
};

static const struct rai_cmd *const template_subcmds[] = {
	&template_describe,
	&template_get,
	&template_list,
	NULL
};

const struct rai_cmd runai_cmd_template = {
	.name = "template",
	.summary = "template commands (old names)",
	.deprecated = "use 'runai list templates' and 'runai describe "
	    "template'",
	.subcmds = template_subcmds,
};
