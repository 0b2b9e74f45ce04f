/*
 * runai inference VERB: the control plane's inference workloads
 * (Kubernetes mode has none: the source says so in one line), also as
 * "runai inference standard VERB"; and "runai inference distributed
 * VERB", served by groups of a leader and its workers.
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

/*
 * CLI v2 from 2.23 calls the same commands "inference standard ...",
 * beside "inference distributed" and "inference nim": both names work.
 */
#define INFERENCE_VERBS \
	&runai_cmd_inference_submit, \
	&runai_cmd_inference_update, \
	&inf_list, \
	&inf_describe, \
	&inf_delete, \
	&inf_streams[0],	/* logs */ \
	&inf_streams[1],	/* exec */ \
	&inf_streams[2],	/* bash */ \
	&inf_streams[4]		/* port-forward */

static const struct rai_cmd *const standard_subcmds[] = {
	INFERENCE_VERBS,
	NULL
};

static const struct rai_cmd inf_standard = {
	.name = "standard",
	.summary = "the same commands, by the name CLI v2 gives them from "
	    "2.23",
	.subcmds = standard_subcmds,
};

/* The same shared verbs, for the distributed ones alone. */
static const struct rai_cmd dinf_list =
    RUNAI_WL_LIST("distributed inference workloads");
static const struct rai_cmd dinf_describe =
    RUNAI_WL_DESCRIBE("a distributed inference workload");
static const struct rai_cmd dinf_delete =
    RUNAI_WL_DELETE("a distributed inference workload");

/*
 * No logs, exec, bash or port-forward yet: they find a job's pods on
 * the cluster by their owners, and a LeaderWorkerSet's pods belong to
 * StatefulSets of its own, which runai does not follow. Offered, they
 * would say the workload does not exist.
 */
static const struct rai_cmd *const distributed_subcmds[] = {
	&runai_cmd_inference_dist_submit,
	&runai_cmd_inference_dist_scale,
	&dinf_list,
	&dinf_describe,
	&dinf_delete,
	NULL
};

static const struct rai_cmd inf_distributed = {
	.name = "distributed",
	.summary = "inference served by groups of a leader and its workers "
	    "(control plane 2.23+)",
	.subcmds = distributed_subcmds,
};

static const struct rai_cmd *const inf_subcmds[] = {
	INFERENCE_VERBS,
	&inf_standard,
	&inf_distributed,
	NULL
};

const struct rai_cmd runai_cmd_inference = {
	.name = "inference",
	.summary = "manage inference workloads (control-plane mode)",
	.subcmds = inf_subcmds,
};
