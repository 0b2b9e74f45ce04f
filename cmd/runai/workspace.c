/*
 * runai workspace VERB: the CLI v2 grammar's interactive jobs (the
 * original grammar's "runai submit --interactive" and the commands on
 * its jobs).
 */
#include <stddef.h>

#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

RUNAI_WL_VERBS(ws, "a workspace", "workspaces");

static const struct rai_cmd *const ws_subcmds[] = {
	&runai_cmd_workspace_submit,
	RUNAI_WL_VERB_ENTRIES(ws),
	NULL
};

const struct rai_cmd runai_cmd_workspace = {
	.name = "workspace",
	.summary = "submit and manage workspaces (interactive workloads)",
	.subcmds = ws_subcmds,
};
