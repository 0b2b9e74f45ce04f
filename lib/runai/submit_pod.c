/*
 * The pod template's parts the CLI v2's flags add, as Kubernetes
 * objects (see submit_pod.h). The values were checked with the spec
 * (submit_spec.c through submit_kv.c); parsing them again here cannot
 * fail for a checked spec, but an error is still passed on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "runai/submit_kv.h"
#include "runai/submit_pod.h"
#include "runai/submit_spec.h"

#include "core/banned.h"

static void
add_mount(cJSON *mounts, const char *path, const char *name, int ro)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "mountPath", path);
	cJSON_AddStringToObject(m, "name", name);
	if (ro)
		cJSON_AddBoolToObject(m, "readOnly", 1);
	cJSON_AddItemToArray(mounts, m);
}

/* The volume named name, its source an object under key. */
static cJSON *
add_source(cJSON *volumes, const char *name, const char *key)
{
	cJSON *v = cJSON_CreateObject();

	cJSON_AddStringToObject(v, "name", name);
	cJSON_AddItemToArray(volumes, v);
	return cJSON_AddObjectToObject(v, key);
}

static int
nfs_volumes(const struct rai_submit_spec *s, cJSON *mounts, cJSON *volumes,
    struct rai_err *err)
{
	struct rai_kv kv;
	struct rai_nfs n;
	cJSON *src;
	char name[64];
	size_t i;

	for (i = 0; i < s->nfs.n; i++) {
		if (rai_parse_nfs(s->nfs.v[i], &kv, &n, err) == -1)
			return -1;
		snprintf(name, sizeof(name), "nfs-volume-%zu", i);
		src = add_source(volumes, name, "nfs");
		cJSON_AddStringToObject(src, "server", n.server);
		cJSON_AddStringToObject(src, "path", n.path);
		if (n.read_only)
			cJSON_AddBoolToObject(src, "readOnly", 1);
		add_mount(mounts, n.mount_path, name, n.read_only);
		rai_kv_release(&kv);
	}
	return 0;
}

/* ConfigMap, Secret and emptyDir volumes, named <kind>-volume-<i>. */
static int
named_volumes(const struct rai_submit_spec *s, enum rai_named_kind k,
    cJSON *mounts, cJSON *volumes, struct rai_err *err)
{
	static const char *const prefix[] = { "configmap", "secret",
		"empty-dir" };
	const struct rai_strv *list = k == RAI_VOL_CONFIGMAP ?
	    &s->configmap_volumes : k == RAI_VOL_SECRET ? &s->secret_volumes :
	    &s->empty_dirs;
	struct rai_named_volume v;
	struct rai_kv kv;
	cJSON *src;
	char name[64];
	size_t i;

	for (i = 0; i < list->n; i++) {
		if (rai_parse_named_volume(k, list->v[i], &kv, &v, err) == -1)
			return -1;
		snprintf(name, sizeof(name), "%s-volume-%zu", prefix[k], i);
		if (k == RAI_VOL_CONFIGMAP) {
			src = add_source(volumes, name, "configMap");
			cJSON_AddStringToObject(src, "name", v.name);
		} else if (k == RAI_VOL_SECRET) {
			src = add_source(volumes, name, "secret");
			cJSON_AddStringToObject(src, "secretName", v.name);
		} else {
			src = add_source(volumes, name, "emptyDir");
			if (v.medium != NULL)
				cJSON_AddStringToObject(src, "medium", v.medium);
			if (v.size_limit != NULL)
				cJSON_AddStringToObject(src, "sizeLimit",
				    v.size_limit);
		}
		/* a ConfigMap's or Secret's files are read-only in any case */
		add_mount(mounts, v.path, name, k != RAI_VOL_EMPTYDIR);
		rai_kv_release(&kv);
	}
	return 0;
}

int
rai_submit_pod_volumes(const struct rai_submit_spec *s, cJSON *mounts,
    cJSON *volumes, struct rai_err *err)
{
	return nfs_volumes(s, mounts, volumes, err) == -1 ||
	    named_volumes(s, RAI_VOL_CONFIGMAP, mounts, volumes, err) == -1 ||
	    named_volumes(s, RAI_VOL_SECRET, mounts, volumes, err) == -1 ||
	    named_volumes(s, RAI_VOL_EMPTYDIR, mounts, volumes, err) == -1 ?
	    -1 : 0;
}

static int
add_tolerations(const struct rai_submit_spec *s, cJSON *pod,
    struct rai_err *err)
{
	struct rai_toleration t;
	struct rai_kv kv;
	cJSON *arr, *o;
	size_t i;

	if (s->tolerations.n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(pod, "tolerations");
	for (i = 0; i < s->tolerations.n; i++) {
		if (rai_parse_toleration(s->tolerations.v[i], &kv, &t,
		    err) == -1)
			return -1;
		o = cJSON_CreateObject();
		if (t.key != NULL)
			cJSON_AddStringToObject(o, "key", t.key);
		cJSON_AddStringToObject(o, "operator", t.op);
		if (t.value != NULL)
			cJSON_AddStringToObject(o, "value", t.value);
		/* Kubernetes tolerates every effect when none is named */
		if (t.effect != NULL && strcmp(t.effect, "Any") != 0)
			cJSON_AddStringToObject(o, "effect", t.effect);
		if (t.seconds >= 0)
			cJSON_AddNumberToObject(o, "tolerationSeconds",
			    (double)t.seconds);
		cJSON_AddItemToArray(arr, o);
		rai_kv_release(&kv);
	}
	return 0;
}

/* --run-as-uid, --run-as-gid, --supplemental-groups, --run-as-non-root. */
static int
add_ids(const struct rai_submit_spec *s, cJSON *pod_sc, struct rai_err *err)
{
	long groups[RAI_SUBMIT_MAX_GROUPS];
	size_t i, n;
	cJSON *g;

	if (s->run_as_uid >= 0)
		cJSON_AddNumberToObject(pod_sc, "runAsUser",
		    (double)s->run_as_uid);
	if (s->run_as_gid >= 0)
		cJSON_AddNumberToObject(pod_sc, "runAsGroup",
		    (double)s->run_as_gid);
	if (s->run_as_non_root)
		cJSON_AddBoolToObject(pod_sc, "runAsNonRoot", 1);
	if (s->supplemental_groups == NULL)
		return 0;
	if (rai_parse_groups(s->supplemental_groups, groups,
	    RAI_SUBMIT_MAX_GROUPS, &n, err) == -1)
		return -1;
	g = cJSON_AddArrayToObject(pod_sc, "supplementalGroups");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(g, cJSON_CreateNumber((double)groups[i]));
	return 0;
}

int
rai_submit_pod_extra(const struct rai_submit_spec *s, cJSON *pod,
    cJSON *pod_sc, cJSON *ctr_sc, struct rai_err *err)
{
	cJSON *add;
	size_t i;

	if (s->termination_grace >= 0)
		cJSON_AddNumberToObject(pod, "terminationGracePeriodSeconds",
		    (double)s->termination_grace);
	if (s->capabilities.n > 0) {
		add = cJSON_AddArrayToObject(cJSON_AddObjectToObject(ctr_sc,
		    "capabilities"), "add");
		for (i = 0; i < s->capabilities.n; i++)
			cJSON_AddItemToArray(add,
			    cJSON_CreateString(s->capabilities.v[i]));
	}
	return add_tolerations(s, pod, err) == -1 ||
	    add_ids(s, pod_sc, err) == -1 ? -1 : 0;
}

static int
add_extended(const struct rai_submit_spec *s, cJSON *limits,
    struct rai_err *err)
{
	struct rai_extended e;
	struct rai_kv kv;
	size_t i;

	for (i = 0; i < s->extended_resources.n; i++) {
		if (rai_parse_extended(s->extended_resources.v[i], &kv, &e,
		    err) == -1)
			return -1;
		/* a limit alone: Kubernetes makes the request the same */
		cJSON_DeleteItemFromObjectCaseSensitive(limits, e.resource);
		cJSON_AddStringToObject(limits, e.resource, e.quantity);
		rai_kv_release(&kv);
	}
	return 0;
}

int
rai_submit_pod_resources(const struct rai_submit_spec *s, cJSON *limits,
    cJSON *annotations, struct rai_err *err)
{
	char buf[64];
	long mb;

	/* beside gpu-fraction and gpu-memory, as the scheduler reads them */
	if (s->gpu_portion_limit > 0) {
		snprintf(buf, sizeof(buf), "%g", s->gpu_portion_limit);
		cJSON_AddStringToObject(annotations, "gpu-fraction-limit", buf);
	}
	if (s->gpu_memory_limit != NULL) {
		if (rai_submit_gpu_memory_mb(s->gpu_memory_limit, &mb, err) == -1)
			return -1;
		snprintf(buf, sizeof(buf), "%ld", mb);
		cJSON_AddStringToObject(annotations, "gpu-memory-limit", buf);
	}
	return add_extended(s, limits, err);
}
