/*
 * A distributed inference's create request, made from submit's
 * (cp_request.c): see cp_request_dinf.h.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/strv.h"
#include "runai/cp.h"
#include "runai/cp_request.h"
#include "runai/cp_request_dinf.h"
#include "runai/submit.h"

#include "core/banned.h"

/* What the API's spec holds beside the leader and the worker. */
static const char *const group_fields[] = { "category", "nodePools",
	"preemptibility", "priorityClass", NULL };

/* The fields the API's leader (and worker) has. */
static const char *const pod_fields[] = { "annotations", "args", "command",
	"compute", "createHomeDir", "environmentVariables", "image",
	"imagePullPolicy", "imagePullSecrets", "labels",
	"nodeAffinityRequired", "nodeType", "podAffinity", "probes",
	"security", "storage", "tolerations", "workingDir", NULL };

static int
listed(const char *key, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strcmp(key, *words) == 0)
			return 1;
	return 0;
}

/* key = s in o, in place of what o had. */
static void
set_string(cJSON *o, const char *key, const char *s)
{
	if (s == NULL)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, s);
}

static void
set_number(cJSON *o, const char *key, double n)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddNumberToObject(o, key, n);
}

/*
 * The leader's spec split: the group's fields moved to spec, and a
 * field the API's leader has not refused by name.
 */
static int
split_leader(cJSON *leader, cJSON *spec, struct rai_err *err)
{
	cJSON *f;
	size_t i;

	for (i = 0; group_fields[i] != NULL; i++) {
		f = cJSON_DetachItemFromObjectCaseSensitive(leader,
		    group_fields[i]);
		if (f != NULL)
			cJSON_AddItemToObject(spec, group_fields[i], f);
	}
	cJSON_ArrayForEach(f, leader)
		if (!listed(f->string, pod_fields))
			return rai_err_set(err, RAI_E_USAGE, "a distributed "
			    "inference workload has no %s", f->string);
	return 0;
}

/* The workers' container: the leader's, with their own values over it. */
static int
worker_of(const cJSON *leader, const struct rai_dist_inference *d,
    cJSON **out, struct rai_err *err)
{
	cJSON *w = cJSON_Duplicate(leader, 1), *compute, *env;
	struct rai_submit_spec envs;

	*out = NULL;
	set_string(w, "image", d->worker_image);
	set_string(w, "command", d->worker_command);
	set_string(w, "args", d->worker_args);
	if (d->worker_env.n > 0) {
		/* cp_container_fields judges and shapes the variables */
		rai_submit_spec_init(&envs);
		envs.env = d->worker_env;
		env = cJSON_CreateObject();
		if (cp_container_fields(env, &envs, err) == -1) {
			cJSON_Delete(env);
			cJSON_Delete(w);
			return -1;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(w,
		    "environmentVariables");
		cJSON_AddItemToObject(w, "environmentVariables",
		    cJSON_DetachItemFromObjectCaseSensitive(env,
		    "environmentVariables"));
		cJSON_Delete(env);
	}
	compute = cJSON_GetObjectItemCaseSensitive(w, "compute");
	if (compute == NULL && (d->worker_gpus >= 0 || d->worker_cpu >= 0 ||
	    d->worker_memory != NULL))
		compute = cJSON_AddObjectToObject(w, "compute");
	if (d->worker_gpus >= 0) {
		/* whole devices: the leader's portion or memory is not theirs */
		cJSON_DeleteItemFromObjectCaseSensitive(compute,
		    "gpuRequestType");
		cJSON_DeleteItemFromObjectCaseSensitive(compute,
		    "gpuPortionRequest");
		cJSON_DeleteItemFromObjectCaseSensitive(compute,
		    "gpuMemoryRequest");
		set_number(compute, "gpuDevicesRequest", (double)d->worker_gpus);
	}
	if (d->worker_cpu >= 0)
		set_number(compute, "cpuCoreRequest", d->worker_cpu);
	set_string(compute, "cpuMemoryRequest", d->worker_memory);
	*out = w;
	return 0;
}

static void
add_serving(cJSON *spec, const struct rai_dist_serving *sv)
{
	cJSON *p;

	if (sv->port < 0)
		return;
	p = cJSON_AddObjectToObject(spec, "servingPort");
	cJSON_AddNumberToObject(p, "port", (double)sv->port);
	if (sv->auth_type != NULL)
		cJSON_AddStringToObject(p, "authorizationType", sv->auth_type);
	cp_add_names(p, "authorizedUsers", &sv->users);
	cp_add_names(p, "authorizedGroups", &sv->groups);
	if (sv->expose_externally)
		cJSON_AddBoolToObject(p, "exposeExternally", 1);
	if (sv->exposed_url != NULL)
		cJSON_AddStringToObject(p, "exposedUrl", sv->exposed_url);
}

static void
add_group_settings(cJSON *spec, const struct rai_dist_inference *d)
{
	if (d->replicas >= 0)
		cJSON_AddNumberToObject(spec, "replicas", (double)d->replicas);
	if (d->workers >= 0)
		cJSON_AddNumberToObject(spec, "workers", (double)d->workers);
	if (d->startup_policy != NULL)
		cJSON_AddStringToObject(spec, "startupPolicy",
		    d->startup_policy);
	if (d->restart_policy != NULL)
		cJSON_AddStringToObject(spec, "restartPolicy",
		    d->restart_policy);
	add_serving(spec, &d->serving);
}

int
cp_dist_inference_request(cJSON *body, const struct rai_dist_inference *d,
    const char *release, struct rai_err *err)
{
	cJSON *leader, *spec, *worker = NULL;

	if (!cp_version_at_least(release, 2, CP_DIST_INFERENCE_MINOR))
		return rai_err_set(err, RAI_E_USAGE, "distributed inference "
		    "needs a control plane of 2.%d or later (this is %s)",
		    CP_DIST_INFERENCE_MINOR, release);
	if (rai_dist_inference_check(d, err) == -1)
		return -1;
	leader = cJSON_DetachItemFromObjectCaseSensitive(body, "spec");
	if (leader == NULL)
		leader = cJSON_CreateObject();
	spec = cJSON_AddObjectToObject(body, "spec");
	cJSON_AddItemToObject(spec, "leader", leader);
	if (split_leader(leader, spec, err) == -1)
		return -1;
	set_string(leader, "command", d->command);
	set_string(leader, "args", d->args);
	add_group_settings(spec, d);
	if (d->workers > 0) {
		if (worker_of(leader, d, &worker, err) == -1)
			return -1;
		cJSON_AddItemToObject(spec, "worker", worker);
	}
	return 0;
}
