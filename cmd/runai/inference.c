/*
 * runai inference VERB: the control plane's inference workloads
 * (Kubernetes mode has none: the source says so in one line).
 */
#include <stddef.h>

#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

static const struct rai_cmd inf_list = RUNAI_WL_LIST("inference workloads");
static const struct rai_cmd inf_describe =
    RUNAI_WL_DESCRIBE("an inference workload");
static const struct rai_cmd inf_delete =
    RUNAI_WL_DELETE("an inference workload");
static const struct rai_cmd inf_streams[] = {
	RUNAI_WL_STREAMS("an inference workload")
};

static const struct rai_cmd *const inf_subcmds[] = {
	&runai_cmd_inference_submit,
	&inf_list,
	&inf_describe,
	&inf_delete,
	&inf_streams[0],	/* logs */
	&inf_streams[1],	/* exec */
	&inf_streams[2],	/* bash */
	&inf_streams[4],	/* port-forward */
	NULL
};

const struct rai_cmd runai_cmd_inference = {
	.name = "inference",
	.summary = "manage inference workloads (control-plane mode)",
	.subcmds = inf_subcmds,
};
