/*
 * Projects, read the way the pre-researcher-service CLI did: the
 * projects.run.ai CRD through the API server (HTTPS, the user's own
 * credentials), with the namespace labels as the fallback.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "kube/client.h"
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
		p->interactive_limit_secs = (long)rai_json_num(item,
		    "spec.interactiveJobTimeLimitSecs", 0);
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
