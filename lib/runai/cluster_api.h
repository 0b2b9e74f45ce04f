/*
 * cluster_api: the Run:ai cluster's own endpoint, /cluster-api on the
 * cluster's domain (the domain the control plane gives for it), which
 * Run:ai's newer CLI uses for what the control plane's REST API has no
 * call for. No published API document describes it; what is used here
 * is what clients are seen to send, with the control plane's bearer
 * token:
 *
 *   GET /cluster-api/status    a body containing "OK" when it serves
 *   /cluster-api/api/v1/<project>/workloads/training/runai/<name>/logs
 *                              a WebSocket (no subprotocol) whose
 *                              messages are the training's log bytes,
 *                              ended by the server's close
 *
 * No options of the log stream (follow, tail, container) are known, so
 * none are sent. Backend mode reads logs here only when the kubeconfig
 * gives no way to the cluster's Kubernetes API.
 */
#ifndef RUNAI_CLUSTER_API_H
#define RUNAI_CLUSTER_API_H

#include "core/err.h"
#include "kube/client.h"

struct cluster_api_req {
	const char	*domain;	/* https://host[:port] */
	const char	*token;		/* bearer (secret) */
	const char	*project;	/* the project's name */
	const char	*workload;	/* a training's name */
	long		 connect_timeout_ms;	/* 0 = default */
	const char	*user_agent;	/* NULL = runai/<version> */
};

/*
 * Checks the endpoint's status, then hands the training's log to
 * on_bytes as it arrives, until the server closes the stream (0). -1
 * with err: a domain that may not carry the token (plain http to a host
 * that is not a loopback address), a name that is not a Kubernetes
 * name, an endpoint that does not answer OK, a refused upgrade (the
 * server's text), a stream cut before its close, or on_bytes's -1.
 */
int	 cluster_api_logs(const struct cluster_api_req *,
	    kube_bytes_fn *on_bytes, void *ud, struct rai_err *);

#endif
