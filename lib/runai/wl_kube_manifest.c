/*
 * wl_kube_manifest: a manifest as a workload of the project's
 * namespace; see wl_kube_manifest.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/client.h"
#include "runai/wl_kube_manifest.h"

#include "core/banned.h"

/* What the manifest and the flags can get wrong before any request. */
static int
check_manifest(const struct rai_wl_manifest *m, const char *ns,
    const char *project, struct rai_err *err)
{
	const char *own_ns = rai_json_str(m->manifest, "metadata.namespace");

	if (m->category != NULL || m->preemptibility != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--%s is the control "
		    "plane's; Kubernetes mode has no field for it",
		    m->category != NULL ? "category" : "preemptibility");
	if (rai_json_str(m->manifest, "apiVersion") == NULL ||
	    rai_json_str(m->manifest, "kind") == NULL)
		return rai_err_set(err, RAI_E_USAGE, "the manifest has no "
		    "apiVersion and kind");
	if (own_ns != NULL && strcmp(own_ns, ns) != 0)
		return rai_err_set(err, RAI_E_USAGE, "the manifest is for "
		    "namespace %s, and project %s's is %s (leave "
		    "metadata.namespace out)", own_ns, project, ns);
	return 0;
}

static cJSON *
object_of(cJSON *o, const char *key)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsObject(it))
		return it;
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	return cJSON_AddObjectToObject(o, key);
}

/* The object to create: in ns, named (or a name made), labelled. */
static cJSON *
make_object(const struct rai_wl_manifest *m, const char *ns,
    const char *project)
{
	cJSON *obj = cJSON_Duplicate(m->manifest, 1);
	cJSON *meta = object_of(obj, "metadata"), *labels;
	int is_prefix;
	const char *name = rai_wl_manifest_name(m, &is_prefix);
	char *base;

	rai_json_set_str(meta, "namespace", ns);
	if (is_prefix) {
		/* the API server adds five characters of its own */
		cJSON_DeleteItemFromObjectCaseSensitive(meta, "name");
		base = xasprintf("%s-", name);
		rai_json_set_str(meta, "generateName", base);
		free(base);
	} else {
		rai_json_set_str(meta, "name", name);
	}
	labels = object_of(meta, "labels");
	rai_json_set_str(labels, "runai/queue", project);
	if (m->priority != NULL)
		rai_json_set_str(labels, "priorityClassName", m->priority);
	return obj;
}

int
rai_wl_kube_manifest(struct kube_client *c, const char *ns,
    const char *project, struct rai_wl_manifest *m, struct rai_err *err)
{
	struct kube_kind_res kr;
	cJSON *obj, *out = NULL;
	const char *kind = rai_json_str(m->manifest, "kind");
	int rc;

	if (check_manifest(m, ns, project, err) == -1 ||
	    kube_kind_resource(c, rai_json_str(m->manifest, "apiVersion"),
	    kind, &kr, err) == -1)
		return -1;
	if (!kr.res.namespaced) {
		kube_kind_res_release(&kr);
		return rai_err_set(err, RAI_E_USAGE, "a %s is cluster-wide; a "
		    "workload lives in its project's namespace", kind);
	}
	obj = make_object(m, ns, project);
	if (m->dry_run) {
		m->request = obj;
		m->request_path = kube_path(&kr.res, ns, NULL, NULL);
		kube_kind_res_release(&kr);
		return 0;
	}
	rc = kube_create(c, &kr.res, ns, obj, 0, &out, err);
	if (rc == 0)
		m->made = xstrdup(rai_json_str_or(out, "metadata.name", "?"));
	cJSON_Delete(out);
	cJSON_Delete(obj);
	kube_kind_res_release(&kr);
	return rc;
}
