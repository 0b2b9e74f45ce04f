/*
 * Projects, read the way the pre-researcher-service CLI did: the
 * projects.run.ai CRD through the API server (HTTPS, the user's own
 * credentials), with the namespace labels as the fallback.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai/project.h"

#include "core/banned.h"

static char **
str_array(const cJSON *arr)
{
	const cJSON *it;
	char **v;
	size_t n = 0;

	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			v[n++] = xstrdup(it->valuestring);
	return v;
}

static void
free_strv(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static int
project_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_project *)a)->name,
	    ((const struct rai_project *)b)->name);
}

static struct rai_project *
list_push(struct rai_project_list *pl, const char *name)
{
	struct rai_project *p;

	pl->v = xreallocarray(pl->v, pl->n + 1, sizeof(*pl->v));
	p = &pl->v[pl->n++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	return p;
}

void
rai_projects_from_crd(const cJSON *list, struct rai_project_list *pl)
{
	const cJSON *item;
	struct rai_project *p;
	const char *name, *dept;

	memset(pl, 0, sizeof(*pl));
	cJSON_ArrayForEach(item, rai_json_array(list, "items")) {
		name = rai_json_str(item, "metadata.name");
		if (name == NULL)
			continue;
		p = list_push(pl, name);
		dept = rai_json_str(item, "spec.department");
		p->department = (dept && *dept) ? xstrdup(dept) : NULL;
		p->deserved_gpus = rai_json_num(item, "spec.deservedGpus", 0);
		p->interactive_limit_secs = rai_json_long(item,
		    "spec.interactiveJobTimeLimitSecs", 0, 0, INT32_MAX);
		p->interactive_affinity = str_array(rai_json_array(item,
		    "spec.nodeAffinityInteractive"));
		p->train_affinity = str_array(rai_json_array(item,
		    "spec.nodeAffinityTrain"));
		p->has_quota = 1;
	}
	if (pl->n > 1)
		qsort(pl->v, pl->n, sizeof(*pl->v), project_cmp);
}

void
rai_projects_from_namespaces(const cJSON *list, struct rai_project_list *pl)
{
	const cJSON *item;
	const char *queue;
	struct rai_project *p;

	memset(pl, 0, sizeof(*pl));
	cJSON_ArrayForEach(item, rai_json_array(list, "items")) {
		queue = rai_json_label(item, RAI_PROJECT_LABEL);
		if (queue == NULL || *queue == '\0' ||
		    rai_project_find(pl, queue) != NULL)
			continue;
		p = list_push(pl, queue);
		p->interactive_affinity = xcalloc(1, sizeof(char *));
		p->train_affinity = xcalloc(1, sizeof(char *));
	}
	if (pl->n > 1)
		qsort(pl->v, pl->n, sizeof(*pl->v), project_cmp);
}

int
rai_projects_fetch(struct kube_client *c, struct rai_project_list *pl,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL;
	int found = 0;

	if (kube_has_group_version(c, KUBE_RES_PROJECTS.group,
	    KUBE_RES_PROJECTS.version, &found, err) == -1)
		return -1;
	if (found) {
		if (kube_list(c, &KUBE_RES_PROJECTS, NULL, &lo, &list, err) == -1)
			return -1;
		rai_projects_from_crd(list, pl);
		cJSON_Delete(list);
		return 0;
	}
	lo.label_selector = RAI_PROJECT_LABEL;
	if (kube_list(c, &KUBE_RES_NAMESPACES, NULL, &lo, &list, err) == -1)
		return -1;
	rai_projects_from_namespaces(list, pl);
	cJSON_Delete(list);
	return 0;
}

#define GPU_RESOURCE		"nvidia.com/gpu"
#define GPU_MEMORY_LABEL	"nvidia.com/gpu.memory"
#define DEFAULT_GPU_MIB		81920.0

static double
quantity_or(const char *s, double def)
{
	double v;

	return (s != NULL && rai_quantity_parse(s, &v) == 0) ? v : def;
}

/* A resource of a requests/limits object: "2", 2 or absent (-1). */
static double
resource_at(const cJSON *res, const char *name)
{
	const cJSON *v = rai_json_child(res, name);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return quantity_or(cJSON_GetStringValue(v), -1);
}

/* MiB per GPU of the named node; unbound: the smallest of the GPU nodes. */
static double
gpu_mib_of(const cJSON *nodes, const char *name)
{
	const cJSON *n;
	double mib, least = 0;

	cJSON_ArrayForEach(n, rai_json_array(nodes, "items")) {
		mib = quantity_or(rai_json_label(n, GPU_MEMORY_LABEL), 0);
		if (mib <= 0)
			mib = DEFAULT_GPU_MIB;
		if (name != NULL &&
		    strcmp(rai_json_str_or(n, "metadata.name", ""), name) == 0)
			return mib;
		if (resource_at(rai_json_get(n, "status.allocatable"),
		    GPU_RESOURCE) >= 1 && (least == 0 || mib < least))
			least = mib;
	}
	return least > 0 ? least : DEFAULT_GPU_MIB;
}

/* As kube-sim and Run:ai count them (gpus.py's gpu_request). */
static double
pod_gpus(const cJSON *pod, const cJSON *nodes)
{
	const cJSON *c, *res;
	double frac, mb, v, total = 0;

	mb = quantity_or(rai_json_annotation(pod, "gpu-memory"), 0);
	if (mb > 0)
		return mb / gpu_mib_of(nodes, rai_json_str(pod,
		    "spec.nodeName"));
	frac = quantity_or(rai_json_annotation(pod, "gpu-fraction"), 0);
	if (frac > 0 && frac < 1)
		return frac;
	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers")) {
		res = rai_json_get(c, "resources.limits");
		if ((v = resource_at(res, GPU_RESOURCE)) < 0)
			v = resource_at(rai_json_get(c, "resources.requests"),
			    GPU_RESOURCE);
		if (v > 0)
			total += v;
	}
	return frac > total ? frac : total;
}

static const char *
ns_project(const cJSON *namespaces, const char *ns)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, rai_json_array(namespaces, "items"))
		if (strcmp(rai_json_str_or(n, "metadata.name", ""), ns) == 0)
			return rai_json_label(n, RAI_PROJECT_LABEL);
	return NULL;
}

void
rai_projects_usage(struct rai_project_list *pl, const cJSON *namespaces,
    const cJSON *pods, const cJSON *nodes)
{
	const cJSON *pod;
	const char *project, *phase;
	struct rai_project *p;
	size_t i;

	for (i = 0; i < pl->n; i++)
		pl->v[i].gpus_allocated = pl->v[i].gpus_queued = 0;
	cJSON_ArrayForEach(pod, rai_json_array(pods, "items")) {
		phase = rai_json_str_or(pod, "status.phase", "Pending");
		if (strcmp(phase, "Pending") != 0 &&
		    strcmp(phase, "Running") != 0)
			continue;
		project = ns_project(namespaces,
		    rai_json_str_or(pod, "metadata.namespace", ""));
		p = project ? (struct rai_project *)(uintptr_t)
		    rai_project_find(pl, project) : NULL;
		if (p == NULL)
			continue;
		if (rai_json_str(pod, "spec.nodeName") != NULL)
			p->gpus_allocated += pod_gpus(pod, nodes);
		else if (strcmp(phase, "Pending") == 0)
			p->gpus_queued += pod_gpus(pod, nodes);
	}
	/* sums of fractions drift: GPUs come in thousandths at most */
	for (i = 0; i < pl->n; i++) {
		pl->v[i].gpus_allocated =
		    round(pl->v[i].gpus_allocated * 1000) / 1000;
		pl->v[i].gpus_queued = round(pl->v[i].gpus_queued * 1000) / 1000;
	}
}

int
rai_projects_fetch_usage(struct kube_client *c, struct rai_project_list *pl,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *namespaces = NULL, *pods = NULL, *nodes = NULL;
	int rc = -1;

	lo.label_selector = RAI_PROJECT_LABEL;
	if (kube_list(c, &KUBE_RES_NAMESPACES, NULL, &lo, &namespaces,
	    err) == -1)
		goto out;
	lo.label_selector = NULL;
	if (kube_list(c, &KUBE_RES_NODES, NULL, &lo, &nodes, err) == -1)
		goto out;
	lo.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
	if (kube_list(c, &KUBE_RES_PODS, NULL, &lo, &pods, err) == -1)
		goto out;
	rai_projects_usage(pl, namespaces, pods, nodes);
	rc = 0;
out:
	cJSON_Delete(namespaces);
	cJSON_Delete(pods);
	cJSON_Delete(nodes);
	return rc;
}

const struct rai_project *
rai_project_find(const struct rai_project_list *pl, const char *name)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (strcmp(pl->v[i].name, name) == 0)
			return &pl->v[i];
	return NULL;
}

void
rai_project_list_release(struct rai_project_list *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++) {
		free(pl->v[i].name);
		free(pl->v[i].department);
		free_strv(pl->v[i].interactive_affinity);
		free_strv(pl->v[i].train_affinity);
	}
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

int
rai_project_namespace(struct kube_client *c, const char *project, char **ns,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	struct rai_buf sel = RAI_BUF_INIT;
	cJSON *list = NULL;
	const cJSON *first;
	const char *name;
	int rc = -1;

	rai_buf_addf(&sel, "%s=%s", RAI_PROJECT_LABEL, project);
	lo.label_selector = rai_buf_str(&sel);
	if (kube_list(c, &KUBE_RES_NAMESPACES, NULL, &lo, &list, err) == -1)
		goto out;
	first = cJSON_GetArrayItem(rai_json_array(list, "items"), 0);
	name = rai_json_str(first, "metadata.name");
	if (name == NULL) {
		rai_err_set(err, RAI_E_NOTFOUND, "project '%s' not found",
		    project);
		rai_err_set_hint(err, "run 'runai list projects' to see the "
		    "projects you can use");
		goto out;
	}
	*ns = xstrdup(name);
	rc = 0;
out:
	cJSON_Delete(list);
	rai_buf_release(&sel);
	return rc;
}

int
rai_namespace_project(struct kube_client *c, const char *ns, char **project,
    struct rai_err *err)
{
	cJSON *obj = NULL;
	const char *queue;

	if (kube_get(c, &KUBE_RES_NAMESPACES, NULL, ns, &obj, err) == -1) {
		if (err->http_status != 404)
			return -1;
		rai_err_release(err);
		*project = NULL;
		return 0;
	}
	queue = rai_json_label(obj, RAI_PROJECT_LABEL);
	*project = (queue && *queue) ? xstrdup(queue) : NULL;
	cJSON_Delete(obj);
	return 0;
}

const char *
rai_project_from_namespace_name(const char *ns)
{
	size_t n = strlen(RAI_NAMESPACE_PREFIX);

	if (ns == NULL || strncmp(ns, RAI_NAMESPACE_PREFIX, n) != 0 ||
	    ns[n] == '\0')
		return NULL;
	return ns + n;
}
