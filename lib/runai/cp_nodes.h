/*
 * cp_nodes: the cluster's nodes and the control plane's clusters in
 * backend mode. Nodes come as the node views Kubernetes mode prints
 * (struct rai_node_view): name, status and GPU type from the node list,
 * the numbers from the node telemetry grouped by node. What the
 * release does not report is NaN (an address, a role, and before 2.21
 * CPU and memory), so a printer can show it as unknown, not as zero.
 */
#ifndef RUNAI_CP_NODES_H
#define RUNAI_CP_NODES_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/nodes.h"

/*
 * Whether the probed cluster's release is at least major.minor (0 when
 * nothing was probed).
 */
int	 cp_release_since(struct cp *, int major, int minor);

/* The control plane's clusters: its bare array (caller cJSON_Deletes). */
int	 cp_clusters(struct cp *, cJSON **clusters, struct rai_err *);

/*
 * The nodes of the logged-in cluster, sorted by name, with node_pool
 * set and id where the release gives one (2.21+); ip and role are ""
 * (the API has neither).
 */
int	 cp_nodes(struct cp *, struct rai_node_list *, struct rai_err *);

#endif
