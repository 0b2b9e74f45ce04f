/*
 * The SERVICE URL(S) column: the node address NodePort URLs name, and
 * the services indexed by namespace and selector pair so that each
 * job's chief pod finds its service by its own labels (see job_urls.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "runai/job_urls.h"

#include "core/banned.h"

static void
keep_first(char **dst, const char *v)
{
	if (*dst == NULL && v != NULL)
		*dst = xstrdup(v);
}

static void
keep_last(char **dst, const char *v)
{
	if (v == NULL)
		return;
	free(*dst);
	*dst = xstrdup(v);
}

void
rai_node_addr_add(struct rai_node_addr *na, const cJSON *node)
{
	const cJSON *a;
	const char *t;

	keep_first(&na->annot, rai_json_annotation(node,
	    "runai/external-node-ip"));
	cJSON_ArrayForEach(a, rai_json_array(node, "status.addresses")) {
		t = rai_json_str_or(a, "type", "");
		if (strcmp(t, "ExternalDNS") == 0)
			keep_first(&na->ext_dns, rai_json_str_or(a, "address",
			    ""));
		else if (strcmp(t, "ExternalIP") == 0)
			keep_first(&na->ext_ip, rai_json_str(a, "address"));
		else if (strcmp(t, "InternalDNS") == 0)
			keep_last(&na->in_dns, rai_json_str(a, "address"));
		else if (strcmp(t, "InternalIP") == 0)
			keep_last(&na->in_ip, rai_json_str(a, "address"));
	}
}

const char *
rai_node_addr_pick(const struct rai_node_addr *na)
{
	if (na->ext_dns != NULL)
		return na->ext_dns;
	if (na->ext_ip != NULL)
		return na->ext_ip;
	if (na->annot != NULL)
		return na->annot;
	return na->in_dns ? na->in_dns : na->in_ip ? na->in_ip : "";
}

void
rai_node_addr_release(struct rai_node_addr *na)
{
	free(na->ext_dns);
	free(na->ext_ip);
	free(na->annot);
	free(na->in_dns);
	free(na->in_ip);
	memset(na, 0, sizeof(*na));
}

static int
selector_matches(const cJSON *sel, const cJSON *labels)
{
	const cJSON *kv;

	if (cJSON_GetArraySize(sel) == 0)
		return 0;
	cJSON_ArrayForEach(kv, sel) {
		const char *l = rai_json_str(rai_json_child(labels, kv->string),
		    "");

		if (!cJSON_IsString(kv) || l == NULL ||
		    strcmp(l, kv->valuestring) != 0)
			return 0;
	}
	return 1;
}

static int
svc_key_cmp(const void *a, const void *b)
{
	const struct rai_svc_key *x = a, *y = b;
	int d;

	if ((d = strcmp(x->ns, y->ns)) != 0 ||
	    (d = strcmp(x->key, y->key)) != 0 ||
	    (d = strcmp(x->value, y->value)) != 0)
		return d;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* services: a List or an array of Service objects (may be NULL). */
void
rai_svc_index_build(struct rai_svc_index *ix, const cJSON *services,
    const char *node_addr)
{
	const cJSON *items = rai_json_array(services, "items"), *s, *sel;
	size_t cap;

	memset(ix, 0, sizeof(*ix));
	ix->node_addr = node_addr;
	if (items == NULL && cJSON_IsArray(services))
		items = services;
	cap = (size_t)cJSON_GetArraySize(items);
	if (cap == 0)
		return;
	ix->k = xcalloc(cap, sizeof(*ix->k));
	cJSON_ArrayForEach(s, items) {
		sel = rai_json_get(s, "spec.selector");
		if (sel == NULL || sel->child == NULL ||
		    !cJSON_IsString(sel->child) || sel->child->string == NULL)
			continue;	/* never matches */
		ix->k[ix->n].ns = rai_json_str_or(s, "metadata.namespace", "");
		ix->k[ix->n].key = sel->child->string;
		ix->k[ix->n].value = sel->child->valuestring;
		ix->k[ix->n].idx = ix->n;
		ix->k[ix->n++].svc = s;
	}
	qsort(ix->k, ix->n, sizeof(*ix->k), svc_key_cmp);
}

void
rai_svc_index_release(struct rai_svc_index *ix)
{
	free(ix->k);
	free(ix->ingress_base);
	memset(ix, 0, sizeof(*ix));
}

/* The first service (in list order) of ns keyed by key=value whose
 * whole selector matches labels, if it comes before *best_idx. */
static void
svc_lookup(const struct rai_svc_index *ix, const char *ns, const char *key,
    const char *value, const cJSON *labels, const cJSON **best,
    size_t *best_idx)
{
	struct rai_svc_key probe = { ns, key, value, 0, NULL };
	size_t lo = 0, hi = ix->n, mid;

	while (lo < hi) {	/* the first entry >= probe */
		mid = lo + (hi - lo) / 2;
		if (svc_key_cmp(&ix->k[mid], &probe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && ix->k[lo].idx < *best_idx &&
	    strcmp(ix->k[lo].ns, ns) == 0 && strcmp(ix->k[lo].key, key) == 0 &&
	    strcmp(ix->k[lo].value, value) == 0; lo++) {
		if (selector_matches(rai_json_get(ix->k[lo].svc,
		    "spec.selector"), labels)) {
			*best = ix->k[lo].svc;
			*best_idx = ix->k[lo].idx;
			return;
		}
	}
}

static void
add_url(struct rai_buf *b, const char *url)
{
	if (b->len)
		rai_buf_addstr(b, ", ");
	rai_buf_addstr(b, url);
}

static const cJSON *
list_items(const cJSON *list)
{
	const cJSON *items = rai_json_array(list, "items");

	return items == NULL && cJSON_IsArray(list) ? list : items;
}

int
rai_ingress_is_nginx(const cJSON *ing)
{
	const char *cls = rai_json_str(ing, "spec.ingressClassName");

	if (cls == NULL)
		cls = rai_json_annotation(ing, "kubernetes.io/ingress.class");
	return cls != NULL && strcmp(cls, "nginx") == 0;
}

/*
 * The path of an nginx Ingress of ns whose backend is service name at
 * port; NULL when none.
 */
static const char *
ingress_path(const cJSON *ingresses, const char *ns, const char *name,
    long port)
{
	const cJSON *ing, *rule, *p;

	cJSON_ArrayForEach(ing, ingresses) {
		if (!rai_ingress_is_nginx(ing) || strcmp(rai_json_str_or(ing,
		    "metadata.namespace", ""), ns) != 0)
			continue;
		cJSON_ArrayForEach(rule, rai_json_array(ing, "spec.rules"))
			cJSON_ArrayForEach(p, rai_json_array(rule,
			    "http.paths")) {
				if (strcmp(rai_json_str_or(p,
				    "backend.service.name", ""), name) == 0 &&
				    rai_json_long(p,
				    "backend.service.port.number", -1, -1, 65535) == port)
					return rai_json_str_or(p, "path", "/");
			}
	}
	return NULL;
}

static void service_urls(struct rai_buf *, const cJSON *,
    const struct rai_svc_index *);

void
rai_svc_index_set_ingress(struct rai_svc_index *ix, const cJSON *ingresses,
    const cJSON *controllers)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *svc;
	size_t n;

	free(ix->ingress_base);
	ix->ingress_base = NULL;
	ix->ingresses = list_items(ingresses);
	cJSON_ArrayForEach(svc, list_items(controllers)) {
		service_urls(&b, svc, ix);
		if (b.len > 0)
			break;
	}
	if (b.len > 0) {
		n = strcspn(rai_buf_str(&b), ",");	/* its first port */
		/* a host:port answers plain HTTP: nginx's first port */
		ix->ingress_base = xasprintf("%s%.*s",
		    strstr(rai_buf_str(&b), "://") != NULL ||
		    strcmp(rai_buf_str(&b), "<pending>") == 0 ? "" : "http://",
		    (int)n, rai_buf_str(&b));
	}
	rai_buf_release(&b);
}

/* The controller's URL and the Ingress path of each port of svc. */
static void
ingress_urls(struct rai_buf *b, const cJSON *svc,
    const struct rai_svc_index *ix)
{
	const char *ns = rai_json_str_or(svc, "metadata.namespace", "");
	const char *name = rai_json_str_or(svc, "metadata.name", "");
	const char *path;
	const cJSON *p;
	char *url;

	if (ix->ingresses == NULL || ix->ingress_base == NULL)
		return;
	cJSON_ArrayForEach(p, rai_json_array(svc, "spec.ports")) {
		path = ingress_path(ix->ingresses, ns, name,
		    rai_json_long(p, "port", 0, 0, 65535));
		if (path == NULL)
			continue;
		if (strcmp(ix->ingress_base, "<pending>") == 0)
			url = xstrdup("<pending>");
		else
			url = xasprintf("%s%s%s", ix->ingress_base,
			    *path == '/' ? "" : "/", path);
		add_url(b, url);
		free(url);
	}
}

static void
service_urls(struct rai_buf *b, const cJSON *svc,
    const struct rai_svc_index *ix)
{
	const char *node_addr = ix->node_addr ? ix->node_addr : "";
	const char *type = rai_json_str_or(svc, "spec.type", "ClusterIP");
	const cJSON *ing = cJSON_GetArrayItem(rai_json_array(svc,
	    "status.loadBalancer.ingress"), 0);
	const char *host = rai_json_str(ing, "hostname");
	const cJSON *p;
	char url[512];
	long port;

	if (host == NULL)
		host = rai_json_str(ing, "ip");
	if (strcmp(type, "ClusterIP") == 0) {
		ingress_urls(b, svc, ix);
		return;
	}
	cJSON_ArrayForEach(p, rai_json_array(svc, "spec.ports")) {
		port = rai_json_long(p, "port", 0, 0, 65535);
		if (strcmp(type, "NodePort") == 0)
			snprintf(url, sizeof(url), "%s:%ld", node_addr,
			    rai_json_long(p, "nodePort", 0, 0, 65535));
		else if (strcmp(type, "LoadBalancer") != 0)
			continue;
		else if (host == NULL)
			snprintf(url, sizeof(url), "<pending>");
		else if (port == 80)
			snprintf(url, sizeof(url), "http://%s", host);
		else if (port == 443)
			snprintf(url, sizeof(url), "https://%s", host);
		else
			snprintf(url, sizeof(url), "%s:%ld", host, port);
		add_url(b, url);
	}
}

/* The URLs of the first service of the chief's namespace selecting it. */
char *
rai_job_urls(const cJSON *chief, const struct rai_svc_index *ix)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *labels = rai_json_get(chief, "metadata.labels"), *l;
	const cJSON *best = NULL;
	const char *ns = rai_json_str_or(chief, "metadata.namespace", "");
	size_t best_idx = (size_t)-1;
	char *out;

	if (chief == NULL || ix->n == 0)
		return xstrdup("");
	cJSON_ArrayForEach(l, labels) {
		if (!cJSON_IsString(l) || l->string == NULL)
			continue;
		svc_lookup(ix, ns, l->string, l->valuestring, labels, &best,
		    &best_idx);
		if (*ns != '\0')
			svc_lookup(ix, "", l->string, l->valuestring, labels,
			    &best, &best_idx);
	}
	if (best != NULL)
		service_urls(&b, best, ix);
	out = xstrdup(b.len ? rai_buf_str(&b) : "");
	rai_buf_release(&b);
	return out;
}
