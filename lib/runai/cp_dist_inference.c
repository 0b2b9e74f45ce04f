/*
 * A distributed inference scaled through the control plane: see
 * cp_dist_inference.h.
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_dist_inference.h"
#include "runai/cp_work.h"

#include "core/banned.h"

void
cp_scale_release(struct cp_scale *u)
{
	cJSON_Delete(u->request);
	free(u->path);
	u->request = NULL;
	u->path = NULL;
}

int
cp_scale_dist_inference(struct cp *c, struct cp_scale *u,
    struct rai_err *err)
{
	const char *release = cp_cluster(c, "version");
	cJSON *answer = NULL;
	int rc;

	if (cp_cluster(c, "id") == NULL)
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", cp_url(c));
	if (!cp_version_at_least(release, 2, CP_DIST_INFERENCE_MINOR))
		return rai_err_set(err, RAI_E_USAGE, "distributed inference "
		    "needs a control plane of 2.%d or later (this is %s)",
		    CP_DIST_INFERENCE_MINOR, release);
	if (u->replicas < 0 || u->replicas > RAI_DIST_INFERENCE_MAX)
		return rai_err_set(err, RAI_E_USAGE, "--replicas must be from 0 "
		    "to %d", RAI_DIST_INFERENCE_MAX);
	if (cp_job_path_of_type(c, u->project, u->name,
	    "DistributedInference", "a distributed inference",
	    CP_DIST_INFERENCES_PATH, &u->path, err) == -1)
		return -1;
	u->request = cJSON_CreateObject();
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(u->request, "spec"),
	    "replicas", (double)u->replicas);
	if (u->dry_run)
		return 0;
	/* 202 with the workload: accepted */
	rc = cp_call(c, "PATCH", u->path, u->request, NULL, &answer, err);
	cJSON_Delete(answer);
	return rc;
}
