/*
 * The parts of a control-plane create request that the CLI v2's flags
 * add, pure: GPU limits and extended resources (compute), NFS,
 * ConfigMap, Secret and emptyDir volumes (storage), tolerations, the
 * termination grace period, explicit ids, capabilities (security); a
 * distributed workload's master with values of its own. cp_request.c
 * calls these once the request's own spec is built.
 */
#ifndef RUNAI_CP_REQUEST_POD_H
#define RUNAI_CP_REQUEST_POD_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/dist.h"
#include "runai/submit_spec.h"

/*
 * Adds them to spec (the request's "spec"). release is the control
 * plane's (NULL = the newest): a field it has not yet is refused naming
 * it, RAI_E_USAGE.
 */
int	 cp_request_pod(cJSON *spec, const struct rai_submit_spec *,
	    const char *release, struct rai_err *);

/*
 * A distributed request's master with its own values (d->master): over
 * the masterSpec the body has (MPI's launcher), else over a copy of the
 * workers' spec without the fields only it takes. Its restart policy
 * needs 2.21, as the workers'.
 */
int	 cp_request_master(cJSON *body, const struct rai_dist_spec *d,
	    const char *release, struct rai_err *);

#endif
