/*
 * A control plane's assets as rows and documents: see cp_assets.h. The
 * lists are read whole (the asset lists take no offset or limit) and a
 * name is chosen here, so that a name needs no escaping and one asset
 * is found the same way it is listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_assets.h"
#include "runai/cp_nodes.h"
#include "runai/cp_pages.h"
#include "runai/cp_work.h"

#include "core/banned.h"

static const char *const list_paths[] = {
	[RAI_WL_ENVIRONMENT] = "/api/v1/asset/environment",
	[RAI_WL_COMPUTE] = "/api/v1/asset/compute",
	[RAI_WL_DATASOURCE] = "/api/v1/asset/datasource",
	[RAI_WL_CREDENTIAL] = "/api/v1/asset/credentials",
	[RAI_WL_TEMPLATE] = "/api/v1/workload-templates",
};

/*
 * The API's kinds as the CLI v2 grammar's --type names them, and the key
 * a data source's or credential's spec sits under in its list entry.
 */
static const struct {
	const char	*api;
	const char	*cli;
	const char	*spec_key;
} kinds[] = {
	{ "nfs", "nfs", "nfs" }, { "pvc", "pvc", "pvc" }, { "s3", "s3", "s3" },
	{ "git", "git", "git" }, { "hostPath", "hostPath", "hostPath" },
	{ "config-map", "configMap", "config_map" },
	{ "secret-volume", "secretVolume", "secret" },
	{ "data-volume", "dataVolume", NULL },
	{ "accessKey", "accessKey", "accessKey" },
	{ "password", "password", "password" },
	{ "dockerRegistry", "dockerRegistry", "dockerRegistry" },
	{ "genericSecret", "genericSecret", "genericSecret" },
	{ "ngcApiKey", "ngcApiKey", "ngcApiKey" },
};

static const char *
cli_kind(const char *api)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].api, api) == 0)
			return kinds[i].cli;
	return api;
}

/* A data source's or credential's own spec in its list entry. */
static const cJSON *
own_spec(const cJSON *e)
{
	const char *kind = rai_json_str_or(e, "meta.kind", "");
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].api, kind) == 0 && kinds[i].spec_key != NULL)
			return rai_json_child(rai_json_child(e, "spec"),
			    kinds[i].spec_key);
	return rai_json_child(e, "spec");
}

static void
put_str(cJSON *row, const char *key, const char *v)
{
	if (v != NULL)
		cJSON_AddStringToObject(row, key, v);
	else
		cJSON_AddNullToObject(row, key);
}

static void
put_num(cJSON *row, const char *key, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		cJSON_AddNumberToObject(row, key, v->valuedouble);
	else
		cJSON_AddNullToObject(row, key);
}

/* A compute resource's GPUs: "1", "0.5" of one, "2 x 0.5", "1 x 10G". */
static char *
compute_gpu(const cJSON *spec)
{
	double n = rai_json_num(spec, "gpuDevicesRequest", 0);
	const char *type = rai_json_str_or(spec, "gpuRequestType", "");
	const char *mem = rai_json_str(spec, "gpuMemoryRequest");
	double portion = rai_json_num(spec, "gpuPortionRequest", 0);

	if (strcmp(type, "portion") == 0 || (portion > 0 && n <= 1))
		return n > 1 ? xasprintf("%g x %g", n, portion) :
		    xasprintf("%g", portion);
	if (strcmp(type, "memory") == 0 || mem != NULL)
		return xasprintf("%g x %s", n > 0 ? n : 1, mem != NULL ? mem :
		    "?");
	return xasprintf("%g", n);
}

/* What a data source mounts, in a word or two. */
static char *
datasource_target(const char *kind, const cJSON *s)
{
	if (strcmp(kind, "nfs") == 0)
		return xasprintf("%s:%s", rai_json_str_or(s, "server", ""),
		    rai_json_str_or(s, "path", ""));
	if (strcmp(kind, "pvc") == 0)
		return xstrdup(rai_json_str_or(s, "claimName", ""));
	if (strcmp(kind, "s3") == 0)
		return xasprintf("%s%s%s", rai_json_str_or(s, "url", ""),
		    rai_json_str(s, "url") != NULL ? "/" : "",
		    rai_json_str_or(s, "bucket", ""));
	if (strcmp(kind, "git") == 0)
		return xasprintf("%s%s%s", rai_json_str_or(s, "repository", ""),
		    rai_json_str(s, "branch") != NULL ? "@" : "",
		    rai_json_str_or(s, "branch", ""));
	if (strcmp(kind, "hostPath") == 0)
		return xstrdup(rai_json_str_or(s, "path", ""));
	if (strcmp(kind, "config-map") == 0)
		return xstrdup(rai_json_str_or(s, "configMap", ""));
	return xstrdup(rai_json_str_or(s, "credentialAssetId", ""));
}

/* Where a data source is mounted in the container. */
static const char *
datasource_mount(const char *kind, const cJSON *s)
{
	if (strcmp(kind, "nfs") == 0 || strcmp(kind, "hostPath") == 0 ||
	    strcmp(kind, "config-map") == 0 || strcmp(kind, "secret-volume") == 0)
		return rai_json_str(s, "mountPath");
	return rai_json_str(s, "path");
}

static void
kind_columns(cJSON *row, enum rai_wl_asset_kind kind, const cJSON *e)
{
	const char *api = rai_json_str_or(e, "meta.kind", "");
	const cJSON *spec = own_spec(e);
	char *s;

	switch (kind) {
	case RAI_WL_ENVIRONMENT:
		put_str(row, "image", rai_json_str(spec, "image"));
		break;
	case RAI_WL_COMPUTE:
		s = compute_gpu(spec);
		cJSON_AddStringToObject(row, "gpu", s);
		free(s);
		put_num(row, "cpu", rai_json_child(spec, "cpuCoreRequest"));
		put_str(row, "memory", rai_json_str(spec, "cpuMemoryRequest"));
		break;
	case RAI_WL_DATASOURCE:
		s = datasource_target(api, spec);
		cJSON_AddStringToObject(row, "target", s);
		free(s);
		put_str(row, "mountPath", datasource_mount(api, spec));
		break;
	case RAI_WL_CREDENTIAL:
		put_str(row, "target", rai_json_str(spec, "url"));
		break;
	case RAI_WL_TEMPLATE:
		break;
	}
}

static cJSON *
asset_row(enum rai_wl_asset_kind kind, const cJSON *e)
{
	cJSON *row = cJSON_CreateObject();
	const cJSON *m = rai_json_child(e, "meta");

	put_str(row, "name", rai_json_str(m, "name"));
	put_str(row, "kind", cli_kind(rai_json_str_or(m, "kind", "")));
	put_str(row, "scope", rai_json_str(m, "scope"));
	put_str(row, "project", rai_json_str(m, "projectName"));
	put_str(row, "description", rai_json_str(m, "description"));
	kind_columns(row, kind, e);
	put_str(row, "createdBy", rai_json_str(m, "createdBy"));
	put_str(row, "createdAt", rai_json_str(m, "createdAt"));
	put_str(row, "id", rai_json_str(m, "id"));
	return row;
}

/* A workload template (SupersetTemplate) as a row. */
static cJSON *
template_row(const cJSON *t)
{
	cJSON *row = cJSON_CreateObject();
	const cJSON *m = rai_json_child(t, "meta");

	put_str(row, "name", rai_json_str(m, "name"));
	put_str(row, "kind", "template");
	put_str(row, "scope", rai_json_str(m, "scopeType"));
	cJSON_AddNullToObject(row, "project");
	put_str(row, "description", rai_json_str(m, "description"));
	put_str(row, "workloadType", rai_json_str(m, "workloadType"));
	put_str(row, "createdBy", rai_json_str(m, "createdBy"));
	put_str(row, "createdAt", rai_json_str(m, "createdAt"));
	put_str(row, "id", rai_json_str(m, "id"));
	return row;
}

/*
 * Whether a template applies in the project and cluster: one of a
 * project or cluster must be theirs; the tenant's, the system's and a
 * department's are offered to all.
 */
static int
template_applies(const cJSON *t, const char *project_id,
    const char *cluster_id)
{
	const char *scope = rai_json_str_or(t, "meta.scopeType", "");
	char pid[32];

	if (project_id == NULL)
		return 1;
	if (strcmp(scope, "project") == 0) {
		snprintf(pid, sizeof(pid), "%.0f", rai_json_num(t,
		    "meta.projectId", -1));
		return strcmp(pid, project_id) == 0;
	}
	if (strcmp(scope, "cluster") == 0)
		return cluster_id != NULL && strcmp(rai_json_str_or(t,
		    "meta.clusterId", ""), cluster_id) == 0;
	return 1;
}

static int
read_templates(struct cp *c, cJSON **all, struct rai_err *err)
{
	struct cp_pages pg = { .limit = CP_PAGE_LIMIT,
	    .next_at = "pagination.nextOffset" };

	if (!cp_release_since(c, 2, 23))
		return rai_err_set(err, RAI_E_CONFIG, "the control plane's "
		    "workload templates are listed from 2.23 on (this is %s)",
		    cp_cluster(c, "version") != NULL ? cp_cluster(c,
		    "version") : "not known");
	return cp_pages_read(c, "/api/v1/workload-templates", "entries", &pg,
	    all, err);
}

static int
read_assets(struct cp *c, enum rai_wl_asset_kind kind, const char *pid,
    cJSON **all, struct rai_err *err)
{
	char *path;
	cJSON *out = NULL;
	int rc;

	if (kind == RAI_WL_TEMPLATE)
		return read_templates(c, all, err);
	path = pid != NULL ? xasprintf("%s?projectId=%s", list_paths[kind],
	    pid) : xstrdup(list_paths[kind]);
	rc = cp_call(c, "GET", path, NULL, NULL, &out, err);
	free(path);
	if (rc == -1)
		return -1;
	*all = cJSON_DetachItemFromObjectCaseSensitive(out, "entries");
	cJSON_Delete(out);
	if (!cJSON_IsArray(*all)) {
		cJSON_Delete(*all);
		*all = NULL;
		return rai_err_set(err, RAI_E_PROTO, "the control plane's %s "
		    "list has no entries", rai_wl_asset_noun(kind));
	}
	return 0;
}

/* Whether an entry is one the query asks for. */
static int
wanted(const cJSON *e, enum rai_wl_asset_kind kind,
    const struct rai_wl_asset_query *q, const char *pid, const char *cid)
{
	const char *name = rai_json_str_or(e, "meta.name", "");

	if (q->name != NULL && strcmp(q->name, name) != 0)
		return 0;
	if (kind == RAI_WL_TEMPLATE)
		return template_applies(e, pid, cid);
	return q->type == NULL || strcmp(q->type,
	    cli_kind(rai_json_str_or(e, "meta.kind", ""))) == 0;
}

/* The scopes from the narrowest, which comes first among one name's. */
static int
scope_rank(const cJSON *row)
{
	static const char *const order[] = { "project", "department",
	    "cluster", "tenant", "system" };
	const char *s = rai_json_str_or(row, "scope", "");
	int i;

	for (i = 0; i < 5; i++)
		if (strcmp(order[i], s) == 0)
			return i;
	return 5;
}

/* A row and its document, and where the API gave them. */
struct pair {
	cJSON	*row;
	cJSON	*doc;
	size_t	 at;
};

/* By name, then scope, the narrowest first; else in the API's order. */
static int
pair_cmp(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	int c = strcmp(rai_json_str_or(a->row, "name", ""),
	    rai_json_str_or(b->row, "name", ""));

	if (c == 0)
		c = scope_rank(a->row) - scope_rank(b->row);
	if (c == 0)
		c = a->at < b->at ? -1 : a->at > b->at;
	return c;
}

/*
 * The rows and documents, sorted (the API's order is its own). Built
 * whole and appended in order: cJSON_InsertItemInArray of Debian's
 * cJSON 1.7.15 refuses an index inside the array.
 */
static void
add_sorted(struct rai_wl_assets *as, struct pair *v, size_t n)
{
	size_t i;

	qsort(v, n, sizeof(*v), pair_cmp);
	as->rows = cJSON_CreateArray();
	as->docs = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(as->rows, v[i].row);
		cJSON_AddItemToArray(as->docs, v[i].doc);
	}
}

int
cp_assets(struct cp *c, enum rai_wl_asset_kind kind, const char *project,
    const struct rai_wl_asset_query *q, struct rai_wl_assets *as,
    struct rai_err *err)
{
	char *pid = NULL, *cid = NULL;
	cJSON *all = NULL, *e;
	struct pair *v = NULL;
	size_t n = 0;
	int rc = -1;

	memset(as, 0, sizeof(*as));
	if (project != NULL && cp_project_id(c, project, &pid, err) == -1)
		return -1;
	if (cp_cluster(c, "id") != NULL)
		cid = xstrdup(cp_cluster(c, "id"));
	if (read_assets(c, kind, pid, &all, err) == -1)
		goto out;
	v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*v));
	while ((e = cJSON_DetachItemFromArray(all, 0)) != NULL) {
		if (!wanted(e, kind, q, pid, cid)) {
			cJSON_Delete(e);
			continue;
		}
		v[n].row = kind == RAI_WL_TEMPLATE ? template_row(e) :
		    asset_row(kind, e);
		v[n].doc = e;
		v[n].at = n;
		n++;
	}
	add_sorted(as, v, n);
	rc = 0;
out:
	free(v);
	cJSON_Delete(all);
	free(pid);
	free(cid);
	return rc;
}
