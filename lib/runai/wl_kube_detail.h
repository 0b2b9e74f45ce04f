/*
 * wl_kube_detail: describe job's record from Kubernetes objects - the
 * workload, its pods and the events about either - in the original
 * CLI's fields, and its -o json structure.
 */
#ifndef RUNAI_WL_KUBE_DETAIL_H
#define RUNAI_WL_KUBE_DETAIL_H

#include "core/err.h"
#include "kube/client.h"
#include "runai/wl.h"

int	 rai_wl_kube_detail(struct kube_client *, const char *ns,
	    const char *project, const char *job, int doc,
	    struct rai_job_detail *, struct rai_err *);
/*
 * The last lines of the log of why->log_pod's container (none named:
 * nothing asked) into why->log; the control plane's describe reads them
 * so too, on the cluster's Kubernetes API.
 */
int	 rai_wl_kube_log_tail(struct kube_client *, const char *ns,
	    struct rai_job_why *, struct rai_err *);

#endif
