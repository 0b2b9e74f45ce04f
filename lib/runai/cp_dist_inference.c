/*
 * A distributed inference scaled through the control plane: see
 * cp_dist_inference.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
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

/* The workload called u->name in its project, and where it is. */
static int
find_dist_inference(struct cp *c, struct cp_scale *u, struct rai_err *err)
{
	cJSON *wl = NULL;
	const char *type, *id;
	int rc = 0;

	if (cp_job_find(c, u->project, u->name, &wl, err) == -1)
		return -1;
	type = rai_json_str(wl, "type");
	id = rai_json_str(wl, "id");
	if (type == NULL || strcmp(type, "DistributedInference") != 0)
		rc = rai_err_set(err, RAI_E_NOTFOUND, "'%s' in project %s is of "
		    "type %s, not a distributed inference", u->name,
		    u->project, type != NULL ? type : "(none)");
	else if (id == NULL)
		rc = rai_err_set(err, RAI_E_PROTO, "the control plane listed "
		    "'%s' without an id", u->name);
	else
		u->path = xasprintf(CP_DIST_INFERENCES_PATH "/%s", id);
	cJSON_Delete(wl);
	return rc;
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
	if (find_dist_inference(c, u, err) == -1)
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
