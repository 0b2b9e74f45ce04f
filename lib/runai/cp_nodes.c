/*
 * Nodes and clusters through the control plane: see cp_nodes.h. The
 * node list's path depends on the release (GET /api/v1/nodes from
 * 2.23, the cluster's own nodes path before), chosen from the version
 * the login probed, so no request is spent finding out. The numbers
 * come from GET /api/v1/nodes/telemetry grouped by node, one request
 * per telemetry type the release has.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_nodes.h"
#include "runai/nodes.h"

#include "core/banned.h"

int
cp_release_since(struct cp *c, int major, int minor)
{
	const char *v = cp_cluster(c, "version");

	return v != NULL && cp_version_at_least(v, major, minor);
}

int
cp_clusters(struct cp *c, cJSON **clusters, struct rai_err *err)
{
	*clusters = NULL;
	if (cp_call(c, "GET", "/api/v1/clusters", NULL, NULL, clusters,
	    err) == -1)
		return -1;
	if (!cJSON_IsArray(*clusters)) {
		cJSON_Delete(*clusters);
		*clusters = NULL;
		return rai_err_set(err, RAI_E_PROTO, "the control plane's "
		    "cluster list is not an array");
	}
	return 0;
}

/* The probed cluster's id, copied (the store may be read again). */
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

/* ---- telemetry ---- */

enum telemetry {
	T_TOTAL_GPUS, T_FREE_GPUS, T_ALLOCATED_GPUS, T_TOTAL_CPU,
	T_ALLOCATED_CPU, T_TOTAL_MEM, T_ALLOCATED_MEM, T_COUNT
};

static const struct {
	const char	*type;
	int		 since_minor;	/* the 2.x release that has it */
} telemetry[T_COUNT] = {
	{ "TOTAL_GPUS", 18 }, { "FREE_GPUS", 18 }, { "ALLOCATED_GPUS", 21 },
	{ "TOTAL_CPU_CORES", 21 }, { "ALLOCATED_CPU_CORES", 21 },
	{ "TOTAL_CPU_MEMORY_BYTES", 21 }, { "ALLOCATED_CPU_MEMORY_BYTES", 21 },
};

/* The view's number a telemetry type gives. */
static double *
field_of(struct rai_node_view *v, enum telemetry t)
{
	switch (t) {
	case T_TOTAL_GPUS:	return &v->gpu_allocatable;
	case T_FREE_GPUS:	return &v->gpu_free;
	case T_ALLOCATED_GPUS:	return &v->gpu_allocated;
	case T_TOTAL_CPU:	return &v->cpu_allocatable;
	case T_ALLOCATED_CPU:	return &v->cpu_allocated;
	case T_TOTAL_MEM:	return &v->mem_allocatable;
	default:		return &v->mem_allocated;
	}
}

/* The node a telemetry value is grouped under, or NULL. */
static const char *
value_node(const cJSON *value)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, rai_json_array(value, "groups"))
		if (strcmp(rai_json_str_or(g, "key", ""), "Node") == 0)
			return rai_json_str(g, "value");
	return NULL;
}

/* Fills field of every view from one telemetry type; NaN stays where
 * the answer names no such node. */
static int
read_telemetry(struct cp *c, const char *cluster, enum telemetry t,
    struct rai_node_list *nl, struct rai_err *err)
{
	const cJSON *val;
	const char *node, *s;
	cJSON *out = NULL;
	char *path, *end;
	double d;
	size_t i;

	path = xasprintf("/api/v1/nodes/telemetry?telemetryType=%s&groupBy="
	    "Node&clusterId=%s", telemetry[t].type, cluster);
	if (cp_call(c, "GET", path, NULL, NULL, &out, err) == -1) {
		free(path);
		return -1;
	}
	free(path);
	cJSON_ArrayForEach(val, rai_json_array(out, "values")) {
		if ((node = value_node(val)) == NULL ||
		    (s = rai_json_str(val, "value")) == NULL)
			continue;
		d = strtod(s, &end);
		if (end == s || *end != '\0')
			continue;
		for (i = 0; i < nl->n; i++)
			if (strcmp(nl->v[i].name, node) == 0)
				*field_of(&nl->v[i], t) = d;
	}
	cJSON_Delete(out);
	return 0;
}

/* ---- nodes ---- */

static int
view_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_node_view *)a)->name,
	    ((const struct rai_node_view *)b)->name);
}

static void
view_of(const cJSON *n, struct rai_node_view *v)
{
	const cJSON *gpu = rai_json_get(n, "gpuInfo");

	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(n, "name", ""));
	v->status = xstrdup(rai_json_str_or(n, "status", "Unknown"));
	v->ready = strcmp(v->status, "Ready") == 0;
	v->ip = xstrdup("");
	v->role = xstrdup("");
	v->gpu_type = xstrdup(rai_json_str_or(gpu, "gpuType", ""));
	v->node_pool = xstrdup(rai_json_str_or(n, "nodePool", ""));
	if (rai_json_str(n, "id") != NULL)
		v->id = xstrdup(rai_json_str(n, "id"));
	v->gpu_capacity = rai_json_num(gpu, "gpuCount", 0);
	v->cpu_allocatable = v->cpu_allocated = NAN;
	v->mem_allocatable = v->mem_allocated = NAN;
	v->gpu_allocatable = v->gpu_allocated = v->gpu_free = NAN;
}

/* What the telemetry left unknown but the others give. */
static void
complete(struct rai_node_view *v)
{
	if (isnan(v->gpu_allocatable))
		v->gpu_allocatable = v->gpu_capacity;
	if (isnan(v->gpu_allocated) && !isnan(v->gpu_free))
		v->gpu_allocated = v->gpu_allocatable - v->gpu_free;
	v->gpu_unhealthy = v->gpu_capacity > v->gpu_allocatable ?
	    v->gpu_capacity - v->gpu_allocatable : 0;
}

int
cp_nodes(struct cp *c, struct rai_node_list *nl, struct rai_err *err)
{
	char *cluster, *path;
	cJSON *out = NULL;
	const cJSON *n;
	size_t i;
	int t, rc;

	memset(nl, 0, sizeof(*nl));
	if ((cluster = cluster_id(c, err)) == NULL)
		return -1;
	/* /api/v1/nodes from 2.23 (the tenant's: this cluster's asked
	 * for); the cluster's path is deprecated there */
	path = cp_release_since(c, 2, 23) ? xasprintf("/api/v1/nodes?"
	    "filterBy=clusterUuid==%s", cluster) :
	    xasprintf("/api/v1/clusters/%s/nodes", cluster);
	rc = cp_call(c, "GET", path, NULL, NULL, &out, err);
	free(path);
	if (rc == -1) {
		free(cluster);
		return -1;
	}
	nl->v = xcalloc((size_t)cJSON_GetArraySize(rai_json_array(out,
	    "nodes")) + 1, sizeof(*nl->v));
	cJSON_ArrayForEach(n, rai_json_array(out, "nodes"))
		view_of(n, &nl->v[nl->n++]);
	cJSON_Delete(out);
	qsort(nl->v, nl->n, sizeof(*nl->v), view_cmp);
	for (t = 0; t < T_COUNT && nl->n > 0; t++) {
		if (!cp_release_since(c, 2, telemetry[t].since_minor))
			continue;
		if (read_telemetry(c, cluster, (enum telemetry)t, nl,
		    err) == -1) {
			rai_node_list_release(nl);
			free(cluster);
			return -1;
		}
	}
	for (i = 0; i < nl->n; i++)
		complete(&nl->v[i]);
	free(cluster);
	return 0;
}
