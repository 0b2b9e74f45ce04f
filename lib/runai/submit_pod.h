/*
 * The parts of submit's pod template that the CLI v2's flags add, as
 * Kubernetes objects: NFS, ConfigMap, Secret and emptyDir volumes,
 * tolerations, the termination grace period, explicit user and group
 * ids, capabilities, extended resources and the GPU limits. Pure;
 * submit.c calls these while it renders the pod template.
 */
#ifndef RAI_SUBMIT_POD_H
#define RAI_SUBMIT_POD_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/submit_spec.h"

/* The volumes into volumes, each mounted in mounts. */
int	 rai_submit_pod_volumes(const struct rai_submit_spec *, cJSON *mounts,
	    cJSON *volumes, struct rai_err *);
/*
 * Tolerations, grace period, ids and runAsNonRoot on the pod (its
 * securityContext pod_sc); capabilities on the container's (ctr_sc).
 */
int	 rai_submit_pod_extra(const struct rai_submit_spec *, cJSON *pod,
	    cJSON *pod_sc, cJSON *ctr_sc, struct rai_err *);
/*
 * Extended resources into the container's limits; the GPU portion and
 * memory limits as the pod annotations the scheduler reads.
 */
int	 rai_submit_pod_resources(const struct rai_submit_spec *,
	    cJSON *limits, cJSON *annotations, struct rai_err *);

#endif
