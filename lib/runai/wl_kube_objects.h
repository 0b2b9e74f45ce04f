/*
 * wl_kube_objects: the CLI v2 grammar's object groups on a cluster
 * alone - Run:ai's node pools with their nodes, a namespace's claims,
 * and the submit templates as asset rows.
 */
#ifndef RUNAI_WL_KUBE_OBJECTS_H
#define RUNAI_WL_KUBE_OBJECTS_H

#include "core/err.h"
#include "kube/client.h"
#include "runai/wl.h"

/*
 * The node pools Run:ai keeps on the cluster (run.ai/v1alpha1 NodePool,
 * cluster-scoped): a node is in the first pool, by name, whose
 * spec.labelKey and spec.labelValue it carries as a label, and the
 * default pool holds the nodes no other pool takes. Where the cluster
 * serves no NodePool, the default pool holds every node.
 */
int	 rai_wl_kube_node_pools(struct kube_client *, struct rai_wl_node_pools *,
	    struct rai_err *);

/* The PersistentVolumeClaims of namespace ns. */
int	 rai_wl_kube_pvcs(struct kube_client *, const char *ns,
	    struct rai_wl_pvcs *, struct rai_err *);

/* The submit templates (runai/template ConfigMaps) q's name chooses. */
int	 rai_wl_kube_templates(struct kube_client *,
	    const struct rai_wl_asset_query *, struct rai_wl_assets *,
	    struct rai_err *);

#endif
