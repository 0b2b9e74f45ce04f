/*
 * Projects page by page, node pools and claims through the control
 * plane: see cp_objects.h.
 *
 * The claims are the control plane's PVC data sources, not a list of
 * the cluster's claims: the control plane has no such list, and reading
 * the cluster's API would need the cluster's kubeconfig, which
 * control-plane mode does not ask for. A data source names its claim,
 * and the control plane reports whether the claim is in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_nodes.h"
#include "runai/cp_objects.h"
#include "runai/cp_pages.h"
#include "runai/cp_work.h"

#include "core/banned.h"

/* ---- projects ---- */

static int
by_project_name(const void *a, const void *b)
{
	return strcmp(((const struct rai_project *)a)->name,
	    ((const struct rai_project *)b)->name);
}

/* A Project as the view both modes print, with its GPUs in use. */
static void
project_view(const cJSON *it, struct rai_project *p)
{
	const cJSON *res;
	double asked;

	memset(p, 0, sizeof(*p));
	p->name = xstrdup(rai_json_str_or(it, "name", ""));
	if (rai_json_str(it, "parent.name") != NULL)
		p->department = xstrdup(rai_json_str(it, "parent.name"));
	p->has_quota = 1;
	/* the project's GPUs: its node pools' deserved GPUs */
	cJSON_ArrayForEach(res, rai_json_array(it, "resources"))
		p->deserved_gpus += rai_json_num(res, "gpu.deserved", 0);
	p->gpus_allocated = rai_json_num(it, "status.quotaStatus.allocated.gpu",
	    0);
	/* asked for and not given: waiting for a node */
	asked = rai_json_num(it, "status.quotaStatus.requested.gpu", 0);
	p->gpus_queued = asked > p->gpus_allocated ? asked - p->gpus_allocated :
	    0;
	p->interactive_affinity = xcalloc(1, sizeof(char *));
	p->train_affinity = xcalloc(1, sizeof(char *));
}

int
cp_project_page(struct cp *c, struct cp_pages *pg, struct rai_project_list *pl,
    struct rai_err *err)
{
	char *cf = cp_cluster_filter(c, "?filterBy="), *path;
	const cJSON *it;
	cJSON *all;
	int rc;

	memset(pl, 0, sizeof(*pl));
	/* sorted by the API, so that pages follow one another */
	path = xasprintf("/api/v1/org-unit/projects%s%ssortBy=name", cf,
	    *cf != '\0' ? "&" : "?");
	pg->next_at = "next";
	rc = cp_pages_read(c, path, "projects", pg, &all, err);
	free(path);
	free(cf);
	if (rc == -1)
		return -1;
	pl->v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*pl->v));
	cJSON_ArrayForEach(it, all)
		project_view(it, &pl->v[pl->n++]);
	qsort(pl->v, pl->n, sizeof(*pl->v), by_project_name);
	cJSON_Delete(all);
	return 0;
}

/* ---- node pools ---- */

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
pool_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_wl_node_pool *)a)->name,
	    ((const struct rai_wl_node_pool *)b)->name);
}

static void
add_node(struct rai_wl_node_pool *p, const char *name, size_t len)
{
	if (len == 0)
		return;
	p->nodes = xreallocarray(p->nodes, p->nnodes + 2, sizeof(*p->nodes));
	p->nodes[p->nnodes++] = xstrndup(name, len);
	p->nodes[p->nnodes] = NULL;
}

/*
 * 2.18's nodes: one string, a JSON array of names or names between
 * commas.
 */
static void
add_node_text(struct rai_wl_node_pool *p, const char *text)
{
	const cJSON *n;
	const char *comma;
	cJSON *arr = NULL;

	if (text == NULL)
		return;
	if (*text == '[' && (arr = cJSON_Parse(text)) != NULL &&
	    cJSON_IsArray(arr)) {
		cJSON_ArrayForEach(n, arr)
			if (cJSON_IsString(n))
				add_node(p, n->valuestring,
				    strlen(n->valuestring));
		cJSON_Delete(arr);
		return;
	}
	cJSON_Delete(arr);
	for (; *text != '\0'; text = *comma ? comma + 1 : comma) {
		comma = text + strcspn(text, ",");
		while (*text == ' ')
			text++;
		add_node(p, text, (size_t)(comma - text));
	}
}

static void
pool_view(const cJSON *it, struct rai_wl_node_pool *p, int legacy)
{
	const cJSON *n;
	char id[32];

	memset(p, 0, sizeof(*p));
	p->name = xstrdup(rai_json_str_or(it, "name", ""));
	if (legacy) {
		/* 2.18: a numeric id, the phase under "status" */
		snprintf(id, sizeof(id), "%.0f", rai_json_num(it, "id", 0));
		p->id = xstrdup(id);
		if (rai_json_str(it, "status") != NULL)
			p->phase = xstrdup(rai_json_str(it, "status"));
		add_node_text(p, rai_json_str(it, "nodes"));
	} else {
		p->id = xstrdup(rai_json_str_or(it, "id", ""));
		if (rai_json_str(it, "phase") != NULL)
			p->phase = xstrdup(rai_json_str(it, "phase"));
		cJSON_ArrayForEach(n, rai_json_array(it, "status.nodes"))
			if (cJSON_IsString(n))
				add_node(p, n->valuestring,
				    strlen(n->valuestring));
	}
	p->label_key = xstrdup(rai_json_str_or(it, "labelKey", ""));
	p->label_value = xstrdup(rai_json_str_or(it, "labelValue", ""));
	p->is_default = rai_json_bool(it, "isDefault", 0);
	if (p->nodes == NULL)
		p->nodes = xcalloc(1, sizeof(*p->nodes));
	qsort(p->nodes, p->nnodes, sizeof(*p->nodes), str_cmp);
}

/* The logged-in cluster's id, copied (the store may be read again). */
static char *
cluster_id(struct cp *c, struct rai_err *err)
{
	const char *id = cp_cluster(c, "id");

	if (id == NULL) {
		rai_err_set(err, RAI_E_AUTH, "not logged in to the control "
		    "plane %s; run 'runai login'", cp_url(c));
		return NULL;
	}
	return xstrdup(id);
}

static int
read_pools(struct cp *c, const char *cluster, int legacy, cJSON **all,
    struct rai_err *err)
{
	struct cp_pages pg = { .limit = CP_PAGE_LIMIT };
	char *path;
	int rc;

	if (legacy) {
		path = xasprintf("/v1/k8s/clusters/%s/node-pools", cluster);
		rc = cp_call(c, "GET", path, NULL, NULL, all, err);
		free(path);
		if (rc == 0 && !cJSON_IsArray(*all)) {
			cJSON_Delete(*all);
			*all = NULL;
			return rai_err_set(err, RAI_E_PROTO, "the control "
			    "plane's node pool list is not an array");
		}
		return rc;
	}
	/* the answer has no next: a full page says there may be more */
	path = xasprintf("/api/v1/node-pools?filterBy=clusterId==%s", cluster);
	rc = cp_pages_read(c, path, "nodepools", &pg, all, err);
	free(path);
	return rc;
}

int
cp_node_pools(struct cp *c, struct rai_wl_node_pools *np, struct rai_err *err)
{
	int legacy = !cp_release_since(c, 2, 19);
	const cJSON *it;
	cJSON *all = NULL;
	char *cluster;

	memset(np, 0, sizeof(*np));
	if ((cluster = cluster_id(c, err)) == NULL)
		return -1;
	if (read_pools(c, cluster, legacy, &all, err) == -1) {
		free(cluster);
		return -1;
	}
	free(cluster);
	np->v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*np->v));
	cJSON_ArrayForEach(it, all)
		pool_view(it, &np->v[np->n++], legacy);
	qsort(np->v, np->n, sizeof(*np->v), pool_cmp);
	cJSON_Delete(all);
	return 0;
}

/* ---- claims ---- */

static int
pvc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_wl_pvc *)a)->name,
	    ((const struct rai_wl_pvc *)b)->name);
}

/* "RWO,RWX" from a ClaimInfo's accessModes; NULL when none is set. */
static char *
access_modes(const cJSON *modes)
{
	static const struct {
		const char	*key;
		const char	*abbr;
	} names[] = {
		{ "readWriteOnce", "RWO" }, { "readOnlyMany", "ROX" },
		{ "readWriteMany", "RWX" }, { "readWriteOncePod", "RWOP" },
	};
	struct rai_buf b = RAI_BUF_INIT;
	char *out;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (rai_json_bool(modes, names[i].key, 0))
			rai_buf_addf(&b, "%s%s", b.len ? "," : "",
			    names[i].abbr);
	out = b.len ? xstrdup(rai_buf_str(&b)) : NULL;
	rai_buf_release(&b);
	return out;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
pvc_view(const cJSON *e, struct rai_wl_pvc *v)
{
	const cJSON *spec = rai_json_get(e, "spec.pvc");

	memset(v, 0, sizeof(*v));
	/* a claim the control plane makes itself may have no name yet */
	v->name = xstrdup(rai_json_str_or(spec, "claimName",
	    rai_json_str_or(e, "meta.name", "")));
	v->status = dup_or_null(rai_json_str(e, "status.status"));
	v->size = dup_or_null(rai_json_str(spec, "claimInfo.size"));
	v->access_modes = access_modes(rai_json_get(spec,
	    "claimInfo.accessModes"));
	v->storage_class = dup_or_null(rai_json_str(spec,
	    "claimInfo.storageClass"));
	v->created = dup_or_null(rai_json_str(e, "meta.createdAt"));
	v->asset = xstrdup(rai_json_str_or(e, "meta.name", ""));
	v->scope = dup_or_null(rai_json_str(e, "meta.scope"));
}

int
cp_pvcs(struct cp *c, const char *project, struct rai_wl_pvcs *pv,
    struct rai_err *err)
{
	const cJSON *e;
	cJSON *out = NULL;
	char *id = NULL, *path;
	int rc;

	memset(pv, 0, sizeof(*pv));
	if (cp_project_id(c, project, &id, err) == -1)
		return -1;
	path = xasprintf("/api/v1/asset/datasource?projectId=%s&statusInfo="
	    "true", id);
	rc = cp_call(c, "GET", path, NULL, NULL, &out, err);
	free(path);
	free(id);
	if (rc == -1)
		return -1;
	pv->v = xcalloc((size_t)cJSON_GetArraySize(rai_json_array(out,
	    "entries")) + 1, sizeof(*pv->v));
	cJSON_ArrayForEach(e, rai_json_array(out, "entries"))
		if (strcmp(rai_json_str_or(e, "meta.kind", ""), "pvc") == 0)
			pvc_view(e, &pv->v[pv->n++]);
	qsort(pv->v, pv->n, sizeof(*pv->v), pvc_cmp);
	cJSON_Delete(out);
	return 0;
}
