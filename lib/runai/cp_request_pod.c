/*
 * What the CLI v2's flags add to a control-plane create request (see
 * cp_request_pod.h), in the documents' field names. The values were
 * checked with the spec (submit_kv.c); what a release lacks is refused
 * here, naming the flag and the release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/quantity.h"
#include "runai/cp.h"
#include "runai/cp_request_pod.h"
#include "runai/submit_kv.h"

#include "core/banned.h"

/* spec's object under key, made when it has none yet. */
static cJSON *
object_of(cJSON *spec, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(spec, key);

	return o != NULL ? o : cJSON_AddObjectToObject(spec, key);
}

static int
too_old(const char *flag, const char *release, int major, int minor,
    struct rai_err *err)
{
	return rai_err_set(err, RAI_E_USAGE, "%s needs a control plane of "
	    "%d.%d or later (this is %s)", flag, major, minor, release);
}

static int
add_compute(cJSON *spec, const struct rai_submit_spec *s,
    struct rai_err *err)
{
	struct rai_extended e;
	struct rai_kv kv;
	cJSON *c, *arr, *o;
	size_t i;

	if (s->gpu_portion_limit == 0 && s->gpu_memory_limit == NULL &&
	    s->extended_resources.n == 0)
		return 0;
	c = object_of(spec, "compute");
	if (s->gpu_portion_limit > 0)
		cJSON_AddNumberToObject(c, "gpuPortionLimit", s->gpu_portion_limit);
	if (s->gpu_memory_limit != NULL)
		cJSON_AddStringToObject(c, "gpuMemoryLimit", s->gpu_memory_limit);
	if (s->extended_resources.n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(c, "extendedResources");
	for (i = 0; i < s->extended_resources.n; i++) {
		if (rai_parse_extended(s->extended_resources.v[i], &kv, &e,
		    err) == -1)
			return -1;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "resource", e.resource);
		cJSON_AddStringToObject(o, "quantity", e.quantity);
		cJSON_AddItemToArray(arr, o);
		rai_kv_release(&kv);
	}
	return 0;
}

static int
add_nfs(cJSON *storage, const struct rai_strv *list, struct rai_err *err)
{
	struct rai_kv kv;
	struct rai_nfs n;
	cJSON *arr, *o;
	size_t i;

	arr = cJSON_AddArrayToObject(storage, "nfs");
	for (i = 0; i < list->n; i++) {
		if (rai_parse_nfs(list->v[i], &kv, &n, err) == -1)
			return -1;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "server", n.server);
		cJSON_AddStringToObject(o, "path", n.path);
		cJSON_AddStringToObject(o, "mountPath", n.mount_path);
		cJSON_AddBoolToObject(o, "readOnly", n.read_only);
		cJSON_AddItemToArray(arr, o);
		rai_kv_release(&kv);
	}
	return 0;
}

/* configMapVolume, secretVolume and emptyDirVolume entries. */
static int
add_named(cJSON *storage, enum rai_named_kind k, const struct rai_strv *list,
    struct rai_err *err)
{
	static const char *const keys[] = { "configMapVolume", "secretVolume",
		"emptyDirVolume" };
	struct rai_named_volume v;
	struct rai_kv kv;
	cJSON *arr, *o;
	size_t i;

	arr = cJSON_AddArrayToObject(storage, keys[k]);
	for (i = 0; i < list->n; i++) {
		if (rai_parse_named_volume(k, list->v[i], &kv, &v, err) == -1)
			return -1;
		o = cJSON_CreateObject();
		if (k == RAI_VOL_CONFIGMAP) {
			cJSON_AddStringToObject(o, "configMap", v.name);
			cJSON_AddStringToObject(o, "mountPath", v.path);
		} else if (k == RAI_VOL_SECRET) {
			cJSON_AddStringToObject(o, "secret", v.name);
			cJSON_AddStringToObject(o, "mountPath", v.path);
		} else {
			cJSON_AddStringToObject(o, "name", v.name);
			cJSON_AddStringToObject(o, "path", v.path);
			if (v.medium != NULL)
				cJSON_AddStringToObject(o, "medium", v.medium);
			if (v.size_limit != NULL)
				cJSON_AddStringToObject(o, "sizeLimit",
				    v.size_limit);
		}
		cJSON_AddItemToArray(arr, o);
		rai_kv_release(&kv);
	}
	return 0;
}

static int
add_storage(cJSON *spec, const struct rai_submit_spec *s, const char *release,
    struct rai_err *err)
{
	cJSON *st;

	if (s->empty_dirs.n > 0 && !cp_version_at_least(release, 2, 22))
		return too_old("--empty-dir-volume", release, 2, 22, err);
	if (s->nfs.n == 0 && s->configmap_volumes.n == 0 &&
	    s->secret_volumes.n == 0 && s->empty_dirs.n == 0)
		return 0;
	st = object_of(spec, "storage");
	return (s->nfs.n > 0 && add_nfs(st, &s->nfs, err) == -1) ||
	    (s->configmap_volumes.n > 0 && add_named(st, RAI_VOL_CONFIGMAP,
	    &s->configmap_volumes, err) == -1) ||
	    (s->secret_volumes.n > 0 && add_named(st, RAI_VOL_SECRET,
	    &s->secret_volumes, err) == -1) ||
	    (s->empty_dirs.n > 0 && add_named(st, RAI_VOL_EMPTYDIR,
	    &s->empty_dirs, err) == -1) ? -1 : 0;
}

static int
add_toleration(cJSON *arr, const char *arg, const char *release,
    struct rai_err *err)
{
	struct rai_toleration t;
	struct rai_kv kv;
	cJSON *o;

	if (rai_parse_toleration(arg, &kv, &t, err) == -1)
		return -1;
	/* "any effect" is a value of its own from 2.21; before, no effect */
	if (t.effect != NULL && strcmp(t.effect, "Any") == 0 &&
	    !cp_version_at_least(release, 2, 21)) {
		rai_kv_release(&kv);
		return too_old("--toleration effect=Any", release, 2, 21, err);
	}
	o = cJSON_CreateObject();
	if (t.key != NULL)
		cJSON_AddStringToObject(o, "key", t.key);
	cJSON_AddStringToObject(o, "operator", t.op);
	if (t.value != NULL)
		cJSON_AddStringToObject(o, "value", t.value);
	if (t.effect != NULL)
		cJSON_AddStringToObject(o, "effect", t.effect);
	if (t.seconds >= 0)
		cJSON_AddNumberToObject(o, "seconds", (double)t.seconds);
	cJSON_AddItemToArray(arr, o);
	rai_kv_release(&kv);
	return 0;
}

static int
add_scheduling(cJSON *spec, const struct rai_submit_spec *s,
    const char *release, struct rai_err *err)
{
	cJSON *arr;
	size_t i;

	if (s->termination_grace >= 0) {
		if (!cp_version_at_least(release, 2, 20))
			return too_old("--termination-grace-period", release, 2,
			    20, err);
		cJSON_AddNumberToObject(spec, "terminationGracePeriodSeconds",
		    (double)s->termination_grace);
	}
	if (s->tolerations.n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(spec, "tolerations");
	for (i = 0; i < s->tolerations.n; i++)
		if (add_toleration(arr, s->tolerations.v[i], release, err) == -1)
			return -1;
	return 0;
}

/* Explicit ids are the "custom" source; the groups one string "1,2". */
static void
add_security(cJSON *spec, const struct rai_submit_spec *s)
{
	cJSON *sec, *caps;
	size_t i;

	if (s->run_as_uid < 0 && s->run_as_gid < 0 &&
	    s->supplemental_groups == NULL && !s->run_as_non_root &&
	    s->capabilities.n == 0 && !s->allow_privilege_escalation)
		return;
	sec = object_of(spec, "security");
	if (s->run_as_uid >= 0 || s->run_as_gid >= 0 ||
	    s->supplemental_groups != NULL)
		cJSON_AddStringToObject(sec, "uidGidSource", "custom");
	if (s->run_as_uid >= 0)
		cJSON_AddNumberToObject(sec, "runAsUid", (double)s->run_as_uid);
	if (s->run_as_gid >= 0)
		cJSON_AddNumberToObject(sec, "runAsGid", (double)s->run_as_gid);
	if (s->supplemental_groups != NULL)
		cJSON_AddStringToObject(sec, "supplementalGroups",
		    s->supplemental_groups);
	if (s->run_as_non_root)
		cJSON_AddBoolToObject(sec, "runAsNonRoot", 1);
	if (s->allow_privilege_escalation)
		cJSON_AddBoolToObject(sec, "allowPrivilegeEscalation", 1);
	if (s->capabilities.n == 0)
		return;
	caps = cJSON_AddArrayToObject(sec, "capabilities");
	for (i = 0; i < s->capabilities.n; i++)
		cJSON_AddItemToArray(caps, cJSON_CreateString(
		    s->capabilities.v[i]));
}

int
cp_request_pod(cJSON *spec, const struct rai_submit_spec *s,
    const char *release, struct rai_err *err)
{
	if (add_compute(spec, s, err) == -1 ||
	    add_storage(spec, s, release, err) == -1 ||
	    add_scheduling(spec, s, release, err) == -1)
		return -1;
	add_security(spec, s);
	return 0;
}

/* ---- a distributed workload's master ---- */

/* What masterSpec has not: the workers' count and the job's own. */
static const char *const spec_only[] = { "distributedFramework",
	"numWorkers", "slotsPerWorker", "minReplicas", "maxReplicas",
	"cleanPodPolicy", "sshAuthMountPath", "mpiLauncherCreationPolicy",
	"completions", "parallelism", NULL };

static cJSON *
master_spec(cJSON *body)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "masterSpec");
	size_t i;

	if (m != NULL)
		return m;
	m = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(body, "spec"), 1);
	for (i = 0; spec_only[i] != NULL; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(m, spec_only[i]);
	cJSON_AddItemToObject(body, "masterSpec", m);
	return m;
}

static void
set_string(cJSON *o, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	if (v != NULL)
		cJSON_AddStringToObject(o, key, v);
}

/* {key: name, value_key: value} over the entry of that name, or added. */
static void
set_named(cJSON *arr, const char *key, const char *name,
    const char *value_key, const char *value)
{
	cJSON *e = cJSON_CreateObject(), *old;

	cJSON_AddStringToObject(e, key, name);
	cJSON_AddStringToObject(e, value_key, value);
	cJSON_ArrayForEach(old, arr)
		if (strcmp(rai_json_str_or(old, key, ""), name) == 0)
			break;
	if (old != NULL)
		cJSON_ReplaceItemViaPointer(arr, old, e);
	else
		cJSON_AddItemToArray(arr, e);
}

static void
master_env(cJSON *m, const struct rai_strv *env)
{
	cJSON *arr;
	const char *eq;
	char *name;
	size_t i;

	if (env->n == 0)
		return;
	arr = cJSON_GetObjectItemCaseSensitive(m, "environmentVariables");
	if (arr == NULL)
		arr = cJSON_AddArrayToObject(m, "environmentVariables");
	for (i = 0; i < env->n; i++) {
		eq = strchr(env->v[i], '=');
		name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
		set_named(arr, "name", name, "value", eq + 1);
		free(name);
	}
}

static void
master_gpus(cJSON *c, const struct rai_dist_master *d)
{
	static const char *const keys[] = { "gpuDevicesRequest",
		"gpuRequestType", "gpuPortionRequest", "gpuPortionLimit",
		"gpuMemoryRequest", "gpuMemoryLimit", "migProfile", NULL };
	size_t i;

	if (d->gpu_devices < 0 && d->gpu_portion == 0)
		return;
	for (i = 0; keys[i] != NULL; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, keys[i]);
	if (d->gpu_portion > 0) {
		cJSON_AddNumberToObject(c, "gpuDevicesRequest", 1);
		cJSON_AddStringToObject(c, "gpuRequestType", "portion");
		cJSON_AddNumberToObject(c, "gpuPortionRequest", d->gpu_portion);
		if (d->gpu_portion_limit > 0)
			cJSON_AddNumberToObject(c, "gpuPortionLimit",
			    d->gpu_portion_limit);
	} else
		cJSON_AddNumberToObject(c, "gpuDevicesRequest",
		    (double)d->gpu_devices);
}

/* CPU cores as the API's number ("500m" is 0.5). */
static void
set_cores(cJSON *c, const char *key, const char *q)
{
	double v;

	if (q == NULL || rai_quantity_parse(q, &v) == -1)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(c, key);
	cJSON_AddNumberToObject(c, key, v);
}

static void
master_compute(cJSON *m, const struct rai_dist_master *d)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_extended e;
	struct rai_kv kv;
	cJSON *c = object_of(m, "compute"), *arr;
	size_t i;

	master_gpus(c, d);
	set_cores(c, "cpuCoreRequest", d->cpu);
	set_cores(c, "cpuCoreLimit", d->cpu_limit);
	if (d->memory != NULL)
		set_string(c, "cpuMemoryRequest", d->memory);
	if (d->memory_limit != NULL)
		set_string(c, "cpuMemoryLimit", d->memory_limit);
	if (d->extended_resources.n == 0)
		return;
	arr = cJSON_GetObjectItemCaseSensitive(c, "extendedResources");
	if (arr == NULL)
		arr = cJSON_AddArrayToObject(c, "extendedResources");
	for (i = 0; i < d->extended_resources.n; i++)
		if (rai_parse_extended(d->extended_resources.v[i], &kv, &e,
		    &err) == 0) {
			set_named(arr, "resource", e.resource, "quantity",
			    e.quantity);
			rai_kv_release(&kv);
		}
	rai_err_release(&err);
}

/* --master-no-pvcs: no claims, and no storage left empty. */
static void
drop_claims(cJSON *m)
{
	cJSON *st = cJSON_GetObjectItemCaseSensitive(m, "storage");

	cJSON_DeleteItemFromObjectCaseSensitive(st, "pvc");
	if (st != NULL && st->child == NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(m, "storage");
}

int
cp_request_master(cJSON *body, const struct rai_dist_spec *d,
    const char *release, struct rai_err *err)
{
	const struct rai_dist_master *mo = d->master;
	cJSON *m;

	if (mo == NULL)
		return 0;
	if (mo->restart_policy != NULL && !cp_version_at_least(release, 2, 21))
		return too_old("--master-restart-policy", release, 2, 21, err);
	m = master_spec(body);
	if (mo->command != NULL) {
		set_string(m, "command", mo->command);
		set_string(m, "args", mo->args);
	} else if (mo->args != NULL)
		set_string(m, "args", mo->args);
	master_env(m, &mo->env);
	master_compute(m, mo);
	if (mo->no_pvcs)
		drop_claims(m);
	if (mo->restart_policy != NULL)
		set_string(m, "restartPolicy", mo->restart_policy);
	return 0;
}
