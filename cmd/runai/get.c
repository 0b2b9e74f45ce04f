/*
 * runai get JOB: the original CLI's first name for "describe job",
 * still accepted.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

const struct rai_cmd runai_cmd_get = {
	.name = "get",
	.summary = "show a job's details (old name of describe job)",
	.forward = "describe job",
	.deprecated = "use 'runai describe job'",
};
