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

#endif
