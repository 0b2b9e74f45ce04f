/*
 * Node pools, claims and templates from the cluster's own objects: see
 * wl_kube_objects.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"
#include "runai/template.h"
#include "runai/wl_kube_objects.h"

#include "core/banned.h"

/* Run:ai's node pools as the cluster keeps them. */
static const struct kube_res NODEPOOLS = { "run.ai", "v1alpha1", "nodepools",
    0 };

#define DEFAULT_POOL	"default"

/* ---- node pools ---- */

static struct rai_wl_node_pool *
pool_add(struct rai_wl_node_pools *np, const char *name)
{
	struct rai_wl_node_pool *p;

	np->v = xreallocarray(np->v, np->n + 1, sizeof(*np->v));
	p = &np->v[np->n++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->nodes = xcalloc(1, sizeof(*p->nodes));
	p->label_key = xstrdup("");
	p->label_value = xstrdup("");
	return p;
}

static void
pool_from_object(struct rai_wl_node_pools *np, const cJSON *obj)
{
	struct rai_wl_node_pool *p;
	const char *phase = rai_json_str(obj, "status.phase");

	p = pool_add(np, rai_json_str_or(obj, "metadata.name", ""));
	free(p->label_key);
	free(p->label_value);
	p->label_key = xstrdup(rai_json_str_or(obj, "spec.labelKey", ""));
	p->label_value = xstrdup(rai_json_str_or(obj, "spec.labelValue", ""));
	if (phase != NULL)
		p->phase = xstrdup(phase);
}

static int
pool_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_wl_node_pool *)a)->name,
	    ((const struct rai_wl_node_pool *)b)->name);
}

/* The NodePool objects; none (and no error) where the kind is not served. */
static int
read_pools(struct kube_client *c, struct rai_wl_node_pools *np,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *it;
	cJSON *list = NULL;

	if (kube_list(c, &NODEPOOLS, NULL, &lo, &list, err) == -1) {
		if (err->http_status != 404)
			return -1;
		rai_err_release(err);
		return 0;
	}
	cJSON_ArrayForEach(it, rai_json_array(list, "items"))
		pool_from_object(np, it);
	cJSON_Delete(list);
	return 0;
}

/* The pool a node's labels put it in: the first by name, else the default. */
static struct rai_wl_node_pool *
pool_of(struct rai_wl_node_pools *np, const cJSON *node)
{
	const char *v;
	size_t i;

	for (i = 0; i < np->n; i++) {
		if (*np->v[i].label_key == '\0')
			continue;
		v = rai_json_label(node, np->v[i].label_key);
		if (v != NULL && strcmp(v, np->v[i].label_value) == 0)
			return &np->v[i];
	}
	for (i = 0; i < np->n; i++)
		if (np->v[i].is_default)
			return &np->v[i];
	return NULL;
}

/* The default pool: the one called so, else one made for it. */
static void
mark_default(struct rai_wl_node_pools *np)
{
	size_t i;

	for (i = 0; i < np->n; i++)
		if (strcmp(np->v[i].name, DEFAULT_POOL) == 0) {
			np->v[i].is_default = 1;
			return;
		}
	pool_add(np, DEFAULT_POOL)->is_default = 1;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
rai_wl_kube_node_pools(struct kube_client *c, struct rai_wl_node_pools *np,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	struct rai_wl_node_pool *p;
	const cJSON *node;
	cJSON *nodes = NULL;
	size_t i;

	memset(np, 0, sizeof(*np));
	if (read_pools(c, np, err) == -1 ||
	    kube_list(c, &KUBE_RES_NODES, NULL, &lo, &nodes, err) == -1) {
		rai_wl_node_pools_release(np);
		return -1;
	}
	mark_default(np);
	qsort(np->v, np->n, sizeof(*np->v), pool_cmp);
	cJSON_ArrayForEach(node, rai_json_array(nodes, "items")) {
		p = pool_of(np, node);
		p->nodes = xreallocarray(p->nodes, p->nnodes + 2,
		    sizeof(*p->nodes));
		p->nodes[p->nnodes++] = xstrdup(rai_json_str_or(node,
		    "metadata.name", ""));
		p->nodes[p->nnodes] = NULL;
	}
	for (i = 0; i < np->n; i++)
		qsort(np->v[i].nodes, np->v[i].nnodes,
		    sizeof(*np->v[i].nodes), name_cmp);
	cJSON_Delete(nodes);
	return 0;
}

/* ---- claims ---- */

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* "RWO,ROX" from a claim's spec.accessModes. */
static char *
access_modes(const cJSON *modes)
{
	static const struct {
		const char	*mode;
		const char	*abbr;
	} names[] = {
		{ "ReadWriteOnce", "RWO" }, { "ReadOnlyMany", "ROX" },
		{ "ReadWriteMany", "RWX" }, { "ReadWriteOncePod", "RWOP" },
	};
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *m;
	const char *abbr;
	char *out;
	size_t i;

	cJSON_ArrayForEach(m, modes) {
		if (!cJSON_IsString(m))
			continue;
		abbr = m->valuestring;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(names[i].mode, m->valuestring) == 0)
				abbr = names[i].abbr;
		rai_buf_addf(&b, "%s%s", b.len ? "," : "", abbr);
	}
	out = b.len ? xstrdup(rai_buf_str(&b)) : NULL;
	rai_buf_release(&b);
	return out;
}

static void
pvc_view(const cJSON *o, struct rai_wl_pvc *v)
{
	const char *size = rai_json_str(o, "status.capacity.storage");

	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(o, "metadata.name", ""));
	v->status = dup_or_null(rai_json_str(o, "status.phase"));
	if (size == NULL)
		size = rai_json_str(o, "spec.resources.requests.storage");
	v->size = dup_or_null(size);
	v->access_modes = access_modes(rai_json_array(o, "spec.accessModes"));
	v->storage_class = dup_or_null(rai_json_str(o,
	    "spec.storageClassName"));
	v->created = dup_or_null(rai_json_str(o,
	    "metadata.creationTimestamp"));
}

static int
pvc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_wl_pvc *)a)->name,
	    ((const struct rai_wl_pvc *)b)->name);
}

int
rai_wl_kube_pvcs(struct kube_client *c, const char *ns, struct rai_wl_pvcs *pv,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *it;
	cJSON *list = NULL;

	memset(pv, 0, sizeof(*pv));
	if (kube_list(c, &KUBE_RES_PVCS, ns, &lo, &list, err) == -1)
		return -1;
	pv->v = xcalloc((size_t)cJSON_GetArraySize(rai_json_array(list,
	    "items")) + 1, sizeof(*pv->v));
	cJSON_ArrayForEach(it, rai_json_array(list, "items"))
		pvc_view(it, &pv->v[pv->n++]);
	qsort(pv->v, pv->n, sizeof(*pv->v), pvc_cmp);
	cJSON_Delete(list);
	return 0;
}

/* ---- templates ---- */

static void
put_str(cJSON *o, const char *key, const char *v)
{
	if (v != NULL && *v != '\0')
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/*
 * A template's row: the cluster's templates serve every project, so
 * their scope is the cluster; they are for any workload.
 */
static cJSON *
template_row(const cJSON *cm)
{
	cJSON *row = cJSON_CreateObject();

	put_str(row, "name", rai_template_name(cm));
	put_str(row, "kind", "template");
	put_str(row, "scope", "cluster");
	put_str(row, "project", NULL);
	put_str(row, "description", rai_template_description(cm));
	put_str(row, "workloadType", NULL);
	put_str(row, "createdBy", NULL);
	put_str(row, "createdAt", rai_json_str(cm, "metadata.creationTimestamp"));
	put_str(row, "id", rai_json_str(cm, "metadata.uid"));
	cJSON_AddBoolToObject(row, "admin", rai_template_is_admin(cm));
	return row;
}

/* What describe shows of a template: its fields and values as written. */
static cJSON *
template_doc(const cJSON *cm)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "name", rai_template_name(cm));
	cJSON_AddStringToObject(doc, "description",
	    rai_template_description(cm));
	cJSON_AddBoolToObject(doc, "admin", rai_template_is_admin(cm));
	cJSON_AddStringToObject(doc, "values", rai_template_values(cm));
	return doc;
}

int
rai_wl_kube_templates(struct kube_client *c, const struct rai_wl_asset_query *q,
    struct rai_wl_assets *as, struct rai_err *err)
{
	const cJSON *cm;
	cJSON *items;

	memset(as, 0, sizeof(*as));
	if (rai_template_list(c, &items, err) == -1)
		return -1;
	as->rows = cJSON_CreateArray();
	as->docs = cJSON_CreateArray();
	cJSON_ArrayForEach(cm, items) {
		if (q->name != NULL && strcmp(q->name,
		    rai_template_name(cm)) != 0)
			continue;
		cJSON_AddItemToArray(as->rows, template_row(cm));
		cJSON_AddItemToArray(as->docs, template_doc(cm));
	}
	cJSON_Delete(items);
	return 0;
}
