/*
 * rntop and the cluster: see kcluster.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kcluster.h"
#include "kube/quantity.h"
#include "rntop/hosts.h"

#include "core/banned.h"

int
rntop_cluster_wanted(const struct rntop_opts *o,
    const struct rai_kube_globals *g)
{
	const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");
	char *path;
	int found;

	if (o->no_cluster)
		return 0;
	if (g->kubeconfig != NULL || g->context != NULL ||
	    o->nodes_from_cluster)
		return 2;
	if (env != NULL && *env != '\0')
		return 1;
	if (home == NULL || *home == '\0')
		return 0;
	path = xasprintf("%s/.kube/config", home);
	found = access(path, R_OK) == 0;
	free(path);
	return found;
}

int
rntop_cluster_open(struct kube_session *ks, const struct rai_kube_globals *g,
    struct rai_err *err)
{
	return rai_kube_setup(ks, g, RAI_CMD_NEED_CLIENT,
	    "rntop/" RAI_VERSION, err);
}

static int
has_gpus(const cJSON *node)
{
	const cJSON *cap = rai_json_get(node, "status.capacity");
	const cJSON *q = cap ? rai_json_child(cap, "nvidia.com/gpu") : NULL;
	double v = 0;

	if (q == NULL || !cJSON_IsString(q))
		return q != NULL && cJSON_IsNumber(q) && q->valuedouble > 0;
	return rai_quantity_parse(q->valuestring, &v) == 0 && v > 0;
}

static char *
internal_ip(const cJSON *node)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, rai_json_array(node, "status.addresses")) {
		const char *t = rai_json_str(a, "type");
		const char *v = rai_json_str(a, "address");

		if (t != NULL && v != NULL && strcmp(t, "InternalIP") == 0)
			return xstrdup(v);
	}
	return NULL;
}

int
rntop_cluster_nodes(struct kube_session *ks, const char *selector,
    struct rntop_knodes *out, struct rai_err *err)
{
	struct kube_list_opts lo;
	const cJSON *it;
	cJSON *list = NULL;

	memset(&lo, 0, sizeof(lo));
	lo.label_selector = selector;
	if (kube_list(ks->client, &KUBE_RES_NODES, NULL, &lo, &list,
	    err) == -1)
		return -1;
	cJSON_ArrayForEach(it, rai_json_array(list, "items")) {
		const char *name = rai_json_str(it, "metadata.name");

		if (name == NULL || !has_gpus(it))
			continue;
		out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
		out->v[out->n].name = xstrdup(name);
		out->v[out->n].ip = internal_ip(it);
		out->n++;
	}
	cJSON_Delete(list);
	return 0;
}

void
rntop_cluster_node_hosts(const struct rntop_knodes *ns,
    const char *node_address, struct rai_strv *hosts)
{
	int by_ip = node_address != NULL &&
	    strcmp(node_address, "internal-ip") == 0;
	size_t i;

	for (i = 0; i < ns->n; i++)
		rai_strv_push(hosts, by_ip && ns->v[i].ip != NULL ?
		    ns->v[i].ip : ns->v[i].name);
}

/* "host" of "user@host:port" (IPv6 in brackets kept as typed). */
static char *
address_host(const char *address)
{
	const char *at = strrchr(address, '@'), *p = at ? at + 1 : address;
	const char *colon = strrchr(p, ':');

	if (*p == '[') {
		const char *close = strchr(p, ']');

		return close ? xstrndup(p + 1, (size_t)(close - p - 1)) :
		    xstrdup(p);
	}
	return colon ? xstrndup(p, (size_t)(colon - p)) : xstrdup(p);
}

/* The node of a host, by its name as typed, else by its address. */
static const char *
node_for(const struct rntop_host *h, const char *typed,
    const struct rntop_knodes *ns)
{
	char *addr = h->address ? address_host(h->address) : NULL;
	const char *found = NULL;
	size_t i;

	for (i = 0; i < ns->n && found == NULL; i++)
		if (typed != NULL && strcmp(ns->v[i].name, typed) == 0)
			found = ns->v[i].name;
	for (i = 0; i < ns->n && found == NULL && addr != NULL; i++)
		if (strcmp(ns->v[i].name, addr) == 0 ||
		    (ns->v[i].ip != NULL && strcmp(ns->v[i].ip, addr) == 0))
			found = ns->v[i].name;
	free(addr);
	return found;
}

void
rntop_cluster_match(struct rntop_host *hosts, size_t n,
    const struct rntop_knodes *ns)
{
	struct rntop_target t;
	struct rai_err err = RAI_ERR_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		if (rntop_target_parse(hosts[i].name, &t, &err) == -1)
			rai_err_release(&err);
		rntop_host_set_text(&hosts[i].node, ns == NULL ? t.host :
		    node_for(&hosts[i], t.host, ns));
		free(t.spec);
		free(t.user);
		free(t.host);
	}
}

void
rntop_knodes_release(struct rntop_knodes *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++) {
		free(ns->v[i].name);
		free(ns->v[i].ip);
	}
	free(ns->v);
	ns->v = NULL;
	ns->n = 0;
}
