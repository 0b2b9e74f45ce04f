/*
 * wl_cp: the workload interface (runai/wl.h) on the Run:ai control
 * plane's REST API (lib/runai/cp_work, cp_nodes, cp_metrics). Streams
 * go through the cluster's Kubernetes API with the kubeconfig's
 * credentials (or the control plane's token where the context's user
 * has none), in the namespace the control plane names for the project;
 * without a way there, a training's log comes through the cluster's own
 * endpoint (lib/runai/cluster_api).
 */
#ifndef RUNAI_WL_CP_H
#define RUNAI_WL_CP_H

#include "kube/session.h"
#include "runai/cp.h"
#include "runai/wl.h"

struct rai_wl_cp_opts {
	struct cp		*cp;		/* taken over */
	const char		*asked_project;	/* -p, or NULL */
	const char		*default_project;	/* the settings' */
	/* streams: the program run's session (borrowed), and how its
	 * kubeconfig is loaded when it is not yet (0, or -1 and err) */
	struct kube_session	*ks;
	int			(*load_kubeconfig)(void *ud, struct rai_err *);
	void			*ud;
	long			 request_timeout_ms;
	const char		*user_agent;
};

struct rai_wl *rai_wl_cp_open(const struct rai_wl_cp_opts *);
/* The control-plane session behind a source of rai_wl_cp_open. */
struct cp *rai_wl_cp_session(struct rai_wl *);

#endif
