/*
 * Node accounting. Only pods that hold resources count: bound to the
 * node and Running or Pending; a node that is not Ready holds none.
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
#include "runai/nodes.h"

#include "core/banned.h"

#define GPU_RESOURCE	"nvidia.com/gpu"
#define ROLE_PREFIX	"node-role.kubernetes.io/"

static double
quantity_at(const cJSON *map, const char *key)
{
	const cJSON *v = rai_json_child(map, key);
	double q = 0;

	if (cJSON_IsString(v))
		rai_quantity_parse(v->valuestring, &q);
	else if (cJSON_IsNumber(v))
		q = v->valuedouble;
	return q;
}

static char *
node_status(const cJSON *node, int *ready)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *cond;
	const char *type, *status;

	*ready = 0;
	cJSON_ArrayForEach(cond, rai_json_array(node, "status.conditions")) {
		type = rai_json_str(cond, "type");
		status = rai_json_str(cond, "status");
		if (type == NULL || status == NULL)
			continue;
		if (strcmp(type, "Ready") == 0)
			*ready = strcmp(status, "True") == 0;
		if (strcmp(status, "True") == 0)
			rai_buf_addf(&b, "%s%s", b.len ? "," : "", type);
	}
	if (!*ready)
		rai_buf_addf(&b, "%sNotReady", b.len ? "," : "");
	if (rai_json_bool(node, "spec.unschedulable", 0))
		rai_buf_addf(&b, "%sUnschedulable", b.len ? "," : "");
	return rai_buf_detach(&b, NULL);
}

static char *
node_ip(const cJSON *node)
{
	const cJSON *a;
	const char *type;

	cJSON_ArrayForEach(a, rai_json_array(node, "status.addresses")) {
		type = rai_json_str(a, "type");
		if (type != NULL && strcmp(type, "InternalIP") == 0 &&
		    rai_json_str(a, "address") != NULL)
			return xstrdup(rai_json_str(a, "address"));
	}
	return xstrdup("unknown");
}

static char *
node_role(const cJSON *node)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *l;
	const char *legacy;
	size_t n = strlen(ROLE_PREFIX);

	cJSON_ArrayForEach(l, rai_json_get(node, "metadata.labels")) {
		if (l->string != NULL && strncmp(l->string, ROLE_PREFIX, n) == 0 &&
		    l->string[n] != '\0')
			rai_buf_addf(&b, "%s%s", b.len ? "," : "",
			    l->string + n);
	}
	legacy = rai_json_label(node, "kubernetes.io/role");
	if (b.len == 0 && legacy != NULL && *legacy != '\0')
		rai_buf_addstr(&b, legacy);
	if (b.len == 0)
		rai_buf_addstr(&b, "<none>");
	return rai_buf_detach(&b, NULL);
}

static void
node_capacity(struct rai_node_view *v, const cJSON *node)
{
	const cJSON *cap = rai_json_get(node, "status.capacity");
	const cJSON *alloc = rai_json_get(node, "status.allocatable");
	const char *count = rai_json_label(node, "nvidia.com/gpu.count");
	const char *product = rai_json_label(node, "nvidia.com/gpu.product");
	double labelled = 0, shared = 0;

	v->cpu_allocatable = quantity_at(alloc, "cpu");
	v->mem_allocatable = quantity_at(alloc, "memory");
	v->gpu_capacity = quantity_at(cap, GPU_RESOURCE);
	/* GPUs the device plugin shares out are counted by the label only */
	if (count != NULL && rai_quantity_parse(count, &labelled) == 0 &&
	    labelled > v->gpu_capacity)
		shared = labelled - v->gpu_capacity;
	v->gpu_allocatable = quantity_at(alloc, GPU_RESOURCE) + shared;
	v->gpu_unhealthy = v->gpu_capacity - quantity_at(alloc, GPU_RESOURCE);
	v->gpu_capacity += shared;
	v->gpu_type = xstrdup(product ? product : "");
}

static int
pod_is_active(const cJSON *pod)
{
	const char *phase = rai_json_str(pod, "status.phase");

	return phase != NULL && (strcmp(phase, "Running") == 0 ||
	    strcmp(phase, "Pending") == 0);
}

static double
pod_gpus(const cJSON *pod)
{
	const char *fraction = rai_json_annotation(pod, "gpu-fraction");
	const cJSON *c;
	double f = 0, total = 0;

	if (fraction != NULL && rai_quantity_parse(fraction, &f) == 0)
		return f;
	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers"))
		total += quantity_at(rai_json_get(c, "resources.limits"),
		    GPU_RESOURCE);
	return total;
}

static void
pod_add_requests(struct rai_node_view *v, const cJSON *pod)
{
	const cJSON *c, *req;

	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers")) {
		req = rai_json_get(c, "resources.requests");
		v->cpu_allocated += quantity_at(req, "cpu");
		v->mem_allocated += quantity_at(req, "memory");
	}
	v->gpu_allocated += pod_gpus(pod);
}

static int
view_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rai_node_view *)a)->name,
	    ((const struct rai_node_view *)b)->name);
}

/* The views are sorted by name: a pod finds its node by bisection. */
static struct rai_node_view *
find_view(struct rai_node_list *nl, const char *name)
{
	struct rai_node_view key;

	memset(&key, 0, sizeof(key));
	key.name = (char *)(uintptr_t)name;
	return bsearch(&key, nl->v, nl->n, sizeof(*nl->v), view_cmp);
}

static void
account_pods(struct rai_node_list *nl, const cJSON *pods)
{
	const cJSON *pod;
	struct rai_node_view *v;
	const char *node;

	cJSON_ArrayForEach(pod, rai_json_array(pods, "items")) {
		node = rai_json_str(pod, "spec.nodeName");
		if (node == NULL || !pod_is_active(pod))
			continue;
		v = find_view(nl, node);
		if (v != NULL && v->ready)
			pod_add_requests(v, pod);
	}
}

static void
forget_pods(struct rai_node_list *nl)
{
	size_t i;

	for (i = 0; i < nl->n; i++) {
		nl->v[i].cpu_allocated = 0;
		nl->v[i].mem_allocated = 0;
		nl->v[i].gpu_allocated = 0;
	}
}

static void
views_from_nodes(const cJSON *nodes, struct rai_node_list *nl)
{
	const cJSON *node;
	struct rai_node_view *v;
	const char *name;

	memset(nl, 0, sizeof(*nl));
	cJSON_ArrayForEach(node, rai_json_array(nodes, "items")) {
		name = rai_json_str(node, "metadata.name");
		if (name == NULL)
			continue;
		nl->v = xreallocarray(nl->v, nl->n + 1, sizeof(*nl->v));
		v = &nl->v[nl->n++];
		memset(v, 0, sizeof(*v));
		v->name = xstrdup(name);
		v->status = node_status(node, &v->ready);
		v->ip = node_ip(node);
		v->role = node_role(node);
		node_capacity(v, node);
	}
	if (nl->n > 1)
		qsort(nl->v, nl->n, sizeof(*nl->v), view_cmp);
}

/*
 * Sums of many small quantities drift (1100 x 1m is 3.5999...): CPU and
 * GPUs come in thousandths at most and memory in bytes, so round there.
 */
static double
round_to(double x, double unit)
{
	return round(x / unit) * unit;
}

static void
compute_free(struct rai_node_list *nl)
{
	struct rai_node_view *v;
	size_t i;

	for (i = 0; i < nl->n; i++) {
		v = &nl->v[i];
		v->cpu_allocated = round_to(v->cpu_allocated, 0.001);
		v->mem_allocated = round_to(v->mem_allocated, 1);
		v->gpu_allocated = round_to(v->gpu_allocated, 0.001);
		v->gpu_free = v->gpu_capacity - v->gpu_allocated;
		if (v->gpu_free < 0)
			v->gpu_free = 0;
	}
}

void
rai_nodes_view(const cJSON *nodes, const cJSON *pods,
    struct rai_node_list *nl)
{
	views_from_nodes(nodes, nl);
	account_pods(nl, pods);
	compute_free(nl);
}

/* Pods arrive page by page so a large cluster is never held at once. */
static int
account_page(void *ud, cJSON *page, struct rai_err *err)
{
	struct rai_node_list *nl = ud;

	(void)err;
	if (page == NULL)
		forget_pods(nl);	/* the list starts over */
	else
		account_pods(nl, page);
	return 0;
}

int
rai_nodes_fetch(struct kube_client *c, struct rai_node_list *nl,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *nodes = NULL;

	if (kube_list(c, &KUBE_RES_NODES, NULL, &lo, &nodes, err) == -1)
		return -1;
	views_from_nodes(nodes, nl);
	cJSON_Delete(nodes);
	lo.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
	if (kube_list_pages(c, &KUBE_RES_PODS, NULL, &lo, account_page, nl,
	    err) == -1) {
		rai_node_list_release(nl);
		return -1;
	}
	compute_free(nl);
	return 0;
}

void
rai_node_list_release(struct rai_node_list *nl)
{
	size_t i;

	for (i = 0; i < nl->n; i++) {
		free(nl->v[i].name);
		free(nl->v[i].status);
		free(nl->v[i].ip);
		free(nl->v[i].role);
		free(nl->v[i].gpu_type);
		free(nl->v[i].node_pool);
		free(nl->v[i].id);
		free(nl->v[i].gpu_use);
	}
	free(nl->v);
	memset(nl, 0, sizeof(*nl));
}

int
rai_node_list_require(const struct rai_node_list *nl, int argc,
    char *const argv[], struct rai_err *err)
{
	struct rai_buf missing = RAI_BUF_INIT, known = RAI_BUF_INIT;
	size_t i;
	int a, found;

	for (a = 0; a < argc; a++) {
		for (i = 0, found = 0; i < nl->n && !found; i++)
			found = strcmp(nl->v[i].name, argv[a]) == 0;
		if (!found)
			rai_buf_addf(&missing, "%s%s", missing.len ? " " : "",
			    argv[a]);
	}
	if (missing.len == 0)
		return 0;
	for (i = 0; i < nl->n; i++)
		rai_buf_addf(&known, "%s%s", i ? ", " : "", nl->v[i].name);
	rai_err_set(err, RAI_E_NOTFOUND, "No match found for node(s) '[%s]'",
	    rai_buf_str(&missing));
	rai_err_set_hint(err, "available nodes: %s",
	    known.len ? rai_buf_str(&known) : "(none)");
	rai_buf_release(&missing);
	rai_buf_release(&known);
	return -1;
}

int
rai_node_wanted(int argc, char *const argv[], const char *name)
{
	int i;

	if (argc == 0)
		return 1;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}
