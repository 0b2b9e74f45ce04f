/*
 * wl_kube: the workload interface (runai/wl.h) on Kubernetes objects,
 * through the program run's kube session (its client, its context's
 * namespace for the default project, its kubeconfig for the clusters).
 */
#ifndef RUNAI_WL_KUBE_H
#define RUNAI_WL_KUBE_H

#include "kube/session.h"
#include "runai/wl.h"

/* ks is borrowed and must be connected before the first operation. */
struct rai_wl *rai_wl_kube_open(struct kube_session *ks,
	    const char *asked_project);

#endif
