/*
 * cp_update: an inference's update through the control plane; see
 * cp_update.h. The API replaces a field given whole, so a variable or
 * an autoscaling setting given alone would drop the others: the body
 * carries the workload's own list and object with the given ones set
 * over them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_request.h"
#include "runai/cp_update.h"
#include "runai/cp_work.h"

#include "core/banned.h"

/*
 * A whole number of the workload's autoscaling, -1 when it has none (or
 * a negative one); clamped to int32, as the API's fields are.
 */
static long
count_of(const cJSON *a, const char *key)
{
	return rai_json_long(cJSON_GetObjectItemCaseSensitive(a, key), "", -1,
	    -1, INT32_MAX);
}

/* The autoscaling object as the checks read it (strings borrowed). */
static void
scaling_of(const cJSON *a, struct rai_inference_spec *s)
{
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(a,
	    "metricThresholdPercentage");

	rai_inference_spec_init(s);
	s->min_replicas = count_of(a, "minReplicas");
	s->max_replicas = count_of(a, "maxReplicas");
	s->initial_replicas = count_of(a, "initialReplicas");
	s->activation_replicas = count_of(a, "activationReplicas");
	s->metric = rai_json_str(a, "metric");
	s->metric_threshold = count_of(a, "metricThreshold");
	s->metric_threshold_pct = cJSON_IsNumber(pct) ? pct->valuedouble : -1;
	s->concurrency_limit = count_of(a, "concurrencyHardLimit");
	s->scale_down_delay = count_of(a, "scaleDownDelaySeconds");
	s->scale_to_zero_retention = count_of(a,
	    "scaleToZeroRetentionSeconds");
}

/* A copy of what the workload has under key, without its nulls. */
static cJSON *
current_copy(const cJSON *current, const char *key, int array)
{
	const cJSON *have = cJSON_GetObjectItemCaseSensitive(current, key);
	cJSON *copy, *it, *next;

	if (array ? !cJSON_IsArray(have) : !cJSON_IsObject(have))
		return array ? cJSON_CreateArray() : cJSON_CreateObject();
	copy = cJSON_Duplicate(have, 1);
	for (it = copy->child; it != NULL; it = next) {
		next = it->next;
		if (cJSON_IsNull(it))
			cJSON_Delete(cJSON_DetachItemViaPointer(copy, it));
	}
	return copy;
}

/* The workload's variables, each given one set over its own by name. */
static void
merge_env(cJSON *spec, const cJSON *current)
{
	cJSON *given = cJSON_DetachItemFromObjectCaseSensitive(spec,
	    "environmentVariables");
	cJSON *merged, *g, *have;
	const char *name;
	int i, n;

	if (given == NULL)
		return;
	merged = current_copy(current, "environmentVariables", 1);
	while ((g = cJSON_DetachItemFromArray(given, 0)) != NULL) {
		name = rai_json_str(g, "name");
		n = cJSON_GetArraySize(merged);
		for (i = 0; i < n; i++) {
			have = cJSON_GetArrayItem(merged, i);
			if (name != NULL && rai_json_str(have, "name") != NULL &&
			    strcmp(rai_json_str(have, "name"), name) == 0)
				break;
		}
		if (i < n)
			cJSON_ReplaceItemInArray(merged, i, g);
		else
			cJSON_AddItemToArray(merged, g);
	}
	cJSON_Delete(given);
	cJSON_AddItemToObject(spec, "environmentVariables", merged);
}

/*
 * The given autoscaling set over the workload's, judged whole: a new
 * maximum must still be above the minimum it has, a metric keep its
 * threshold.
 */
static int
merge_scaling(cJSON *spec, const cJSON *current, struct rai_err *err)
{
	cJSON *given = cJSON_DetachItemFromObjectCaseSensitive(spec,
	    "autoscaling");
	cJSON *merged, *g;
	struct rai_inference_spec whole;
	int rc;

	if (given == NULL)
		return 0;
	merged = current_copy(current, "autoscaling", 0);
	/*
	 * In place, so the workload's order of keys stays; by a copy of the
	 * key, which cJSON frees in g before it copies the one it is given.
	 */
	while ((g = given->child) != NULL) {
		char *key = xstrdup(g->string);

		cJSON_DetachItemViaPointer(given, g);
		if (cJSON_HasObjectItem(merged, key))
			cJSON_ReplaceItemInObjectCaseSensitive(merged, key, g);
		else
			cJSON_AddItemToObject(merged, key, g);
		free(key);
	}
	cJSON_Delete(given);
	scaling_of(merged, &whole);
	rc = rai_inference_check(&whole, err);
	if (rc == -1)
		rai_err_prefix(err, "with the inference's other autoscaling "
		    "settings");
	cJSON_AddItemToObject(spec, "autoscaling", merged);
	return rc;
}

int
cp_update_body(const cJSON *current, const struct rai_submit_spec *s,
    const struct rai_inference_spec *scaling, const char *release,
    cJSON **body, struct rai_err *err)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *spec = cJSON_AddObjectToObject(b, "spec");

	*body = NULL;
	if (cp_container_fields(spec, s, err) == -1 ||
	    cp_inference_scaling(spec, scaling, release, err) == -1)
		goto fail;
	/* the serving timeouts are submit's; the update has no field */
	cJSON_DeleteItemFromObjectCaseSensitive(spec, "servingConfiguration");
	if (s->create_home_dir == 1)
		cJSON_AddBoolToObject(spec, "createHomeDir", 1);
	if (spec->child == NULL) {
		rai_err_set(err, RAI_E_USAGE, "nothing to update: give the "
		    "image, its command, variables or autoscaling settings");
		goto fail;
	}
	merge_env(spec, current);
	if (merge_scaling(spec, current, err) == -1)
		goto fail;
	*body = b;
	return 0;
fail:
	cJSON_Delete(b);
	return -1;
}

void
cp_update_release(struct cp_update *u)
{
	cJSON_Delete(u->request);
	free(u->path);
	u->request = NULL;
	u->path = NULL;
}

int
cp_update_inference(struct cp *c, struct cp_update *u, struct rai_err *err)
{
	cJSON *now = NULL, *answer = NULL;
	char *release;
	int rc;

	if (cp_cluster(c, "id") == NULL)
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", cp_url(c));
	/* a copy: the session's record may be read again by the calls */
	release = cp_cluster(c, "version") != NULL ?
	    xstrdup(cp_cluster(c, "version")) : NULL;
	if (!cp_version_at_least(release, 2, CP_UPDATE_MINOR))
		rc = rai_err_set(err, RAI_E_USAGE, "updating an inference needs "
		    "a control plane of 2.%d or later (this is %s)",
		    CP_UPDATE_MINOR, release);
	else if ((rc = cp_job_path_of_type(c, u->project, u->name,
	    "Inference", "an inference", CP_INFERENCES_PATH, &u->path,
	    err)) == 0 &&
	    (rc = cp_call(c, "GET", u->path, NULL, NULL, &now, err)) == 0)
		rc = cp_update_body(cJSON_GetObjectItemCaseSensitive(now,
		    "spec"), u->spec, u->scaling, release, &u->request, err);
	cJSON_Delete(now);
	free(release);
	if (rc == -1 || u->dry_run)
		return rc;
	/* 200 in 2.21, 202 from 2.24: any 2xx is done or accepted */
	rc = cp_call(c, "PATCH", u->path, u->request, NULL, &answer, err);
	cJSON_Delete(answer);
	return rc;
}
