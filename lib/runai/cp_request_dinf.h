/*
 * cp_request_dinf: a distributed inference's create request for the
 * control plane (POST /api/v1/workloads/distributed-inferences), pure.
 * The CLI has "runai inference distributed" from 2.23; the first API
 * document published with the paths is 2.24's.
 */
#ifndef RUNAI_CP_REQUEST_DINF_H
#define RUNAI_CP_REQUEST_DINF_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/dist_inference.h"

#define CP_DIST_INFERENCES_PATH	"/api/v1/workloads/distributed-inferences"
/* The first release with distributed inference. */
#define CP_DIST_INFERENCE_MINOR	23

/*
 * Makes a create request (cp_submit_request's, whose spec is the
 * leader's container) a distributed inference's, pure: the leader's
 * fields under spec.leader, the workers' (the leader's copy with the
 * --worker-* values over it) under spec.worker when there are workers,
 * and beside them the groups, the policies and the serving port.
 * RAI_E_USAGE for a release before 2.23, and for what the leader's spec
 * holds that the API's leader has no field for (a console, ports,
 * completions...), naming the field.
 */
int	 cp_dist_inference_request(cJSON *body,
	    const struct rai_dist_inference *, const char *release,
	    struct rai_err *);

#endif
