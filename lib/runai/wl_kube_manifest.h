/*
 * wl_kube_manifest: "runai workload submit -f" in Kubernetes mode - the
 * manifest's object created in the project's namespace, its resource
 * found by the API server's discovery, labelled with the project's
 * queue (runai/queue, the label Run:ai's scheduler reads) and the
 * priority class where given (priorityClassName).
 */
#ifndef RUNAI_WL_KUBE_MANIFEST_H
#define RUNAI_WL_KUBE_MANIFEST_H

#include "core/err.h"
#include "kube/client.h"
#include "runai/wl.h"

/*
 * RAI_E_USAGE for a manifest without apiVersion or kind, of a
 * cluster-wide kind, or for another namespace, and for the control
 * plane's own --category and --preemptibility; RAI_E_NOTFOUND for a
 * kind the cluster does not serve.
 */
int	 rai_wl_kube_manifest(struct kube_client *, const char *ns,
	    const char *project, struct rai_wl_manifest *, struct rai_err *);

#endif
