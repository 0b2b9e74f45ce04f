/*
 * rntop and the cluster: whether to read it (a kubeconfig given or
 * found), the session opened through the shared kube setup, the GPU
 * nodes (for --nodes-from-cluster and for naming each host's node),
 * and the pod watcher and owner view the monitor loop uses.
 */
#ifndef RNTOP_KCLUSTER_H
#define RNTOP_KCLUSTER_H

#include <stddef.h>

#include "cli/kube_setup.h"
#include "core/err.h"
#include "core/strv.h"
#include "host.h"
#include "rntop.h"

struct rntop_knode {
	char	*name;
	char	*ip;		/* InternalIP, NULL when none */
};

struct rntop_knodes {
	struct rntop_knode	*v;
	size_t			 n;
};

/*
 * Whether rntop reads the cluster, and whether a failure to is fatal:
 * 2 when asked for (--kubeconfig, --context, --nodes-from-cluster), 1
 * when a kubeconfig is only found ($KUBECONFIG, ~/.kube/config), 0
 * with --no-cluster or none.
 */
int	 rntop_cluster_wanted(const struct rntop_opts *,
	    const struct rai_kube_globals *);
/* Opens ks (kubeconfig, context, client) as runai does. */
int	 rntop_cluster_open(struct kube_session *,
	    const struct rai_kube_globals *, struct rai_err *);
/* The nodes with GPUs (nvidia.com/gpu capacity), by --selector. */
int	 rntop_cluster_nodes(struct kube_session *, const char *selector,
	    struct rntop_knodes *, struct rai_err *);
/* The SSH host of each node, by --node-address, appended to hosts. */
void	 rntop_cluster_node_hosts(const struct rntop_knodes *,
	    const char *node_address, struct rai_strv *hosts);
/*
 * Names each host's node: the node whose name is the host's name (as
 * typed, without user and port), or whose name or InternalIP is the
 * address it connects to; none: NULL. nodes NULL (they could not be
 * listed): the host's name as typed, the common case.
 */
void	 rntop_cluster_match(struct rntop_host *, size_t n,
	    const struct rntop_knodes *nodes);
void	 rntop_knodes_release(struct rntop_knodes *);

#endif
