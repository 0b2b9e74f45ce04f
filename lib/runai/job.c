/*
 * Job views: see rai_job.h. Column rules, service URLs included, are
 * those of the reference CLI; fetching keeps slimmed pods and compact
 * views only, so 10,000 jobs fit in little memory.
 */
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai/dist.h"
#include "runai/job.h"

#include "core/banned.h"

#define INVALID_AGE_S	30	/* an orphan ConfigMap younger may be a submit */
/*
 * Page size of the workload lists. Items are parsed as they arrive, so
 * memory does not grow with the page; fewer pages spare the server the
 * per-page cost (and us a round trip each).
 */
#define JOB_PAGE	5000

static const char *const finished_statuses[] = {
	"Succeeded", "Failed", "Deleted", "Preempted", "TimedOut", NULL
};

static int
is_finished(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && finished_statuses[i] != NULL; i++)
		if (strcmp(s, finished_statuses[i]) == 0)
			return 1;
	return 0;
}

static int
condition_true(const cJSON *obj, const char *type)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(obj, "status.conditions")) {
		if (strcmp(rai_json_str_or(c, "type", ""), type) == 0 &&
		    strcmp(rai_json_str_or(c, "status", ""), "True") == 0)
			return 1;
	}
	return 0;
}

static const char *
kind_of(const cJSON *wl)
{
	return rai_json_str_or(wl, "kind", "");
}

/*
 * What the workload object itself says (Suspended, Failed, Pending), or
 * NULL: the third choice of rai_job_status.
 */
static const char *
workload_status(const cJSON *wl)
{
	const char *kind = kind_of(wl);

	if (strcmp(kind, "RunaiJob") == 0 || strcmp(kind, "Job") == 0) {
		if (rai_json_bool(wl, "spec.suspend", 0) ||
		    condition_true(wl, "Suspended"))
			return "Suspended";
		if (condition_true(wl, "Failed"))
			return "Failed";
		if (strcmp(kind, "Job") == 0 &&
		    rai_json_get(wl, "status.completionTime") == NULL &&
		    rai_json_num(wl, "status.active", 0) == 0 &&
		    rai_json_annotation(wl, "runai-calculated-status") == NULL)
			return "Pending";
	}
	if (rai_dist_by_kind(kind) != NULL) {
		if (rai_json_bool(wl, "spec.runPolicy.suspend", 0) ||
		    condition_true(wl, "Suspended"))
			return "Suspended";
		if (condition_true(wl, "Failed"))
			return "Failed";
		if (condition_true(wl, "Succeeded"))
			return "Succeeded";
	}
	if (strcmp(kind, "StatefulSet") == 0 &&
	    rai_json_num(wl, "status.replicas", 0) == 0)
		return "Pending";
	return NULL;
}

static const char *
container_reason(const cJSON *cs, char *buf, size_t len)
{
	const cJSON *w = rai_json_get(cs, "state.waiting");
	const cJSON *t = rai_json_get(cs, "state.terminated");
	const char *r;

	if (w != NULL && (r = rai_json_str(w, "reason")) != NULL && *r)
		return r;
	if (t != NULL) {
		if ((r = rai_json_str(t, "reason")) != NULL && *r)
			return r;
		if (rai_json_num(t, "signal", 0) != 0)
			snprintf(buf, len, "Signal:%d",
			    (int)rai_json_num(t, "signal", 0));
		else
			snprintf(buf, len, "ExitCode:%d",
			    (int)rai_json_num(t, "exitCode", 0));
		return buf;
	}
	return NULL;
}

/* Init containers still at work: "Init:1/2", "Init:ErrImagePull", or NULL. */
static const char *
init_status(const cJSON *pod, char *buf, size_t len)
{
	const cJSON *ics = rai_json_array(pod, "status.initContainerStatuses");
	const cJSON *cs;
	const char *r;
	char tmp[32];
	int n = cJSON_GetArraySize(rai_json_array(pod, "spec.initContainers"));
	int i = 0;

	cJSON_ArrayForEach(cs, ics) {
		const cJSON *t = rai_json_get(cs, "state.terminated");

		if (t != NULL && rai_json_num(t, "exitCode", 0) == 0) {
			i++;
			continue;
		}
		r = container_reason(cs, tmp, sizeof(tmp));
		if (r != NULL && strcmp(r, "PodInitializing") != 0) {
			snprintf(buf, len, "Init:%s", r);
			return buf;
		}
		snprintf(buf, len, "Init:%d/%d", i, n);
		return buf;
	}
	return NULL;
}

const char *
rai_pod_status(const cJSON *pod, char *buf, size_t len)
{
	const char *reason = rai_json_str(pod, "status.reason");
	const char *s = rai_json_str_or(pod, "status.phase", "Unknown");
	const cJSON *cs, *arr;
	char tmp[32];

	if (reason != NULL && *reason)
		s = reason;
	if (init_status(pod, buf, len) != NULL)
		return buf;
	arr = rai_json_array(pod, "status.containerStatuses");
	cJSON_ArrayForEach(cs, arr) {
		const char *r = container_reason(cs, tmp, sizeof(tmp));

		if (r != NULL) {
			s = r;
			break;
		}
	}
	if (rai_json_get(pod, "metadata.deletionTimestamp") != NULL)
		s = strcmp(reason ? reason : "", "NodeLost") == 0 ?
		    "Unknown" : "Terminating";
	snprintf(buf, len, "%s", s);
	return buf;
}

const char *
rai_job_status(const cJSON *wl, const cJSON *chief, char *buf, size_t len)
{
	const char *calc = rai_json_annotation(wl, "runai-calculated-status");
	const char *s;

	if (is_finished(calc))
		s = calc;
	else if ((s = rai_json_annotation(wl, "unschedulable")) != NULL &&
	    strcmp(s, "true") == 0)
		s = "Unschedulable";
	else if ((s = workload_status(wl)) != NULL)
		;
	else if (calc != NULL && *calc)
		s = calc;
	else if (chief == NULL)
		s = "Unknown";
	else
		return rai_pod_status(chief, buf, len);
	snprintf(buf, len, "%s", s);
	return buf;
}

/*
 * A distributed job's lead pod: its master (TF's chief, MPI's
 * launcher), else worker 0; NULL for other jobs' pods.
 */
static const cJSON *
dist_chief(const cJSON *pods)
{
	const cJSON *p, *worker0 = NULL;
	const char *role;

	cJSON_ArrayForEach(p, pods) {
		if ((role = rai_dist_pod_role(p)) == NULL)
			continue;
		if (strcmp(role, "master") == 0 || strcmp(role, "chief") == 0 ||
		    strcmp(role, "launcher") == 0)
			return p;
		if (strcmp(role, "worker") == 0 && rai_dist_pod_index(p) == 0)
			worker0 = p;
	}
	return worker0;
}

const cJSON *
rai_job_chief(const cJSON *pods)
{
	const cJSON *p, *best = dist_chief(pods);
	const char *bt = "", *t;

	if (best != NULL)
		return best;
	cJSON_ArrayForEach(p, pods) {
		t = rai_json_str_or(p, "metadata.creationTimestamp", "");
		if (best == NULL || strcmp(t, bt) > 0) {
			best = p;
			bt = t;
		}
	}
	return best;
}

static const char *
job_type(const cJSON *wl)
{
	const char *pc = rai_json_label(wl, "priorityClassName");
	const char *kind = kind_of(wl);

	if (pc != NULL && strcmp(pc, "interactive-preemptible") == 0)
		return "Interactive-Preemptible";
	if (pc != NULL && strcmp(pc, "build") == 0)
		return "Interactive";
	if (strcmp(kind, "Deployment") == 0)
		return "Inference";
	if (strcmp(kind, "StatefulSet") == 0)
		return "Interactive";
	if (rai_dist_by_kind(kind) != NULL)
		return rai_dist_by_kind(kind)->title;
	return "Train";
}

static const char *
job_user(const cJSON *wl)
{
	const char *u;

	if ((u = rai_json_annotation(wl, "user")) != NULL)
		return u;
	if ((u = rai_json_str(rai_json_get(wl,
	    "spec.template.metadata.annotations"), "user")) != NULL)
		return u;
	return rai_json_str_or(rai_json_get(wl,
	    "spec.template.metadata.labels"), "user", "");
}

static double
ann_num(const cJSON *obj, const char *key, double def)
{
	const char *s = rai_json_annotation(obj, key);
	double v;

	if (s == NULL || rai_quantity_parse(s, &v) == -1)
		return def;
	return v;
}

/* Requested GPU memory in bytes: annotation (MB) else Σ pods' gpu-memory. */
static double
requested_memory(const cJSON *wl, const cJSON *pods)
{
	const cJSON *p;
	double mb = ann_num(wl, "runai-podgroup-requested-gpus-memory", -1);

	if (mb >= 0)
		return mb * 1e6;
	mb = 0;
	cJSON_ArrayForEach(p, pods)
		mb += ann_num(p, "gpu-memory", 0);
	return mb * 1e6;
}

static double
requested_gpus(const cJSON *wl, const cJSON *pods)
{
	const cJSON *p, *lim;
	double v = ann_num(wl, "runai-podgroup-requested-gpus", -1);
	const char *s;

	if (v >= 0)
		return v;
	v = 0;
	cJSON_ArrayForEach(p, pods)
		v += ann_num(p, "gpu-fraction", 0);
	if (v > 0)
		return v;
	lim = rai_json_get(wl, "spec.template.spec.containers");
	lim = rai_json_get(cJSON_GetArrayItem(lim, 0), "resources.limits");
	s = rai_json_str(rai_json_child(lim, "nvidia.com/gpu"), "");
	if (s == NULL && cJSON_IsNumber(rai_json_child(lim, "nvidia.com/gpu")))
		return rai_json_child(lim, "nvidia.com/gpu")->valuedouble;
	if (s != NULL && rai_quantity_parse(s, &v) == 0)
		return v;
	return 0;
}

/* Decimal SI, as resource.Quantity prints bytes: "1G", "500M", "1500M". */
static void
fmt_si(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "", "k", "M", "G", "T", "P" };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1000 &&
	    (long long)bytes % 1000 == 0) {
		bytes /= 1000;
		u++;
	}
	snprintf(buf, len, "%.0f%s", bytes, units[u]);
}

static int
is_whole(double g)
{
	return g == floor(g);
}

static void
gpu_cell(struct rai_job_view *v, const cJSON *wl, const cJSON *pods,
    const cJSON *chief)
{
	int chief_running = chief != NULL && strcmp(rai_json_str_or(chief,
	    "status.phase", ""), "Running") == 0;

	v->gpu_mem_requested = requested_memory(wl, pods);
	v->gpus_requested = v->gpu_mem_requested > 0 ? 0 :
	    requested_gpus(wl, pods);
	v->gpus_allocated = ann_num(wl, "runai-current-allocated-gpus",
	    chief_running ? v->gpus_requested : 0);
	rai_job_view_gpu_cell(v);
}

/*
 * g as "%.2f" (fractional) or "%g" prints it. A whole count below a
 * million (every GPU count) is written digit by digit: a list prints
 * two per job, and glibc's float formatting was most of a row's cost.
 */
static void
fmt_gpus(double g, int fractional, char *buf, size_t len)
{
	char digits[8];
	size_t n = 0, i;
	long w;

	if (fractional || !(g >= 0 && g < 1e6) || signbit(g) ||
	    len <= sizeof(digits)) {
		snprintf(buf, len, fractional ? "%.2f" : "%g", g);
		return;
	}
	w = (long)g;
	do
		digits[n++] = (char)('0' + w % 10);
	while ((w /= 10) > 0);
	for (i = 0; i < n; i++)
		buf[i] = digits[n - 1 - i];
	buf[n] = '\0';
}

void
rai_job_view_gpu_cell(struct rai_job_view *v)
{
	char a[32], r[32];
	size_t na, nr;
	int fractional;

	/*
	 * Fractions print with two decimals (0.30 (0.30), suspended 0.00
	 * (0.10)) as the later original CLI prints them; whole GPUs as
	 * integers.
	 */
	fractional = !is_whole(v->gpus_requested) ||
	    !is_whole(v->gpus_allocated);
	if (v->gpus_allocated == 0 && v->finished)
		snprintf(a, sizeof(a), "-");
	else
		fmt_gpus(v->gpus_allocated, fractional, a, sizeof(a));
	if (v->gpu_mem_requested > 0)
		fmt_si(v->gpu_mem_requested, r, sizeof(r));
	else
		fmt_gpus(v->gpus_requested, fractional, r, sizeof(r));
	/* "a (r)" */
	na = strlen(a);
	nr = strlen(r);
	free(v->gpus);
	v->gpus = xmalloc(na + nr + 4);
	memcpy(v->gpus, a, na);
	memcpy(v->gpus + na, " (", 2);
	memcpy(v->gpus + na + 2, r, nr);
	memcpy(v->gpus + na + 2 + nr, ")", 2);
}

static void
pod_counts(struct rai_job_view *v, const cJSON *wl, const cJSON *pods)
{
	const cJSON *p;
	const char *ph;

	v->pods_running = (int)ann_num(wl, "runai-running-pods", -1);
	v->pods_pending = (int)ann_num(wl, "runai-pending-pods", -1);
	if (v->pods_running >= 0 && v->pods_pending >= 0)
		return;
	v->pods_running = v->pods_pending = 0;
	cJSON_ArrayForEach(p, pods) {
		ph = rai_json_str_or(p, "status.phase", "");
		v->pods_running += strcmp(ph, "Running") == 0;
		v->pods_pending += strcmp(ph, "Pending") == 0;
	}
}
static char *
job_node(const cJSON *wl, const cJSON *chief)
{
	const char *n = rai_json_annotation(wl, "runai-used-nodes");

	if (n == NULL || *n == '\0')
		n = chief ? rai_json_str_or(chief, "spec.nodeName", "") : "";
	if (strstr(n, ", ") != NULL)
		n = "<multiple>";
	return xstrdup(n);
}

/*
 * The node address of service URLs: the first ExternalDNS, else the
 * first ExternalIP, else the first runai/external-node-ip annotation,
 * else the last InternalDNS, else the last InternalIP.
 * Fed node by node, so the node list need not be held.
 */
struct node_addr {
	char	*ext_dns, *ext_ip, *annot, *in_dns, *in_ip;
};

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

static void
node_addr_add(struct node_addr *na, const cJSON *node)
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

static const char *
node_addr_pick(const struct node_addr *na)
{
	if (na->ext_dns != NULL)
		return na->ext_dns;
	if (na->ext_ip != NULL)
		return na->ext_ip;
	if (na->annot != NULL)
		return na->annot;
	return na->in_dns ? na->in_dns : na->in_ip ? na->in_ip : "";
}

static void
node_addr_release(struct node_addr *na)
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

/*
 * Services by namespace and one selector pair: a pod's service is found
 * by looking up its own labels, not by trying every service (a project
 * with a service per job would make that quadratic). A selector matches
 * only if all its pairs do, so any one pair can key it.
 */
struct svc_key {
	const char	*ns;	/* "" for a service without one: any ns */
	const char	*key;
	const char	*value;
	size_t		 idx;	/* list order: the first match wins */
	const cJSON	*svc;
};

struct svc_index {
	struct svc_key	*k;
	size_t		 n;
	const char	*node_addr;	/* for NodePort URLs */
};

static int
svc_key_cmp(const void *a, const void *b)
{
	const struct svc_key *x = a, *y = b;
	int d;

	if ((d = strcmp(x->ns, y->ns)) != 0 ||
	    (d = strcmp(x->key, y->key)) != 0 ||
	    (d = strcmp(x->value, y->value)) != 0)
		return d;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* services: a List or an array of Service objects (may be NULL). */
static void
svc_index_build(struct svc_index *ix, const cJSON *services,
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

static void
svc_index_release(struct svc_index *ix)
{
	free(ix->k);
	memset(ix, 0, sizeof(*ix));
}

/* The first service (in list order) of ns keyed by key=value whose
 * whole selector matches labels, if it comes before *best_idx. */
static void
svc_lookup(const struct svc_index *ix, const char *ns, const char *key,
    const char *value, const cJSON *labels, const cJSON **best,
    size_t *best_idx)
{
	struct svc_key probe = { ns, key, value, 0, NULL };
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

static void
service_urls(struct rai_buf *b, const cJSON *svc, const char *node_addr)
{
	const char *type = rai_json_str_or(svc, "spec.type", "ClusterIP");
	const cJSON *ing = cJSON_GetArrayItem(rai_json_array(svc,
	    "status.loadBalancer.ingress"), 0);
	const char *host = rai_json_str(ing, "hostname");
	const cJSON *p;
	char url[512];
	long port;

	if (host == NULL)
		host = rai_json_str(ing, "ip");
	cJSON_ArrayForEach(p, rai_json_array(svc, "spec.ports")) {
		port = (long)rai_json_num(p, "port", 0);
		if (strcmp(type, "NodePort") == 0)
			snprintf(url, sizeof(url), "%s:%ld", node_addr,
			    (long)rai_json_num(p, "nodePort", 0));
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
static char *
job_urls(const cJSON *chief, const struct svc_index *ix)
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
		service_urls(&b, best, ix->node_addr);
	out = xstrdup(b.len ? rai_buf_str(&b) : "");
	rai_buf_release(&b);
	return out;
}

static char *
job_image(const cJSON *wl)
{
	const cJSON *c = cJSON_GetArrayItem(rai_json_array(wl,
	    "spec.template.spec.containers"), 0);

	return xstrdup(rai_json_str_or(c, "image", ""));
}

static char *
job_project(const cJSON *chief, const char *project)
{
	const char *p = rai_json_label(chief, "project");

	if (p == NULL || *p == '\0')
		p = project ? project : "";
	return xstrdup(p);
}

/*
 * A view's strings in one allocation with the view's own block: with
 * 10,000 jobs, 13 small allocations each cost more than the text.
 */
static void
pack_view(struct rai_job_view *v)
{
	char **slot[] = { &v->name, &v->namespace, &v->project, &v->uid,
	    &v->kind, &v->status, &v->type, &v->user, &v->node, &v->image,
	    &v->gpus, &v->service_urls, &v->command_line };
	size_t i, len[sizeof(slot) / sizeof(slot[0])], total = 0;
	char *mem, *p;

	for (i = 0; i < sizeof(slot) / sizeof(slot[0]); i++)
		total += (len[i] = strlen(*slot[i])) + 1;
	p = mem = xmalloc(total);
	for (i = 0; i < sizeof(slot) / sizeof(slot[0]); i++) {
		char *old = *slot[i];

		memcpy(p, old, len[i] + 1);
		free(old);
		*slot[i] = p;
		p += len[i] + 1;
	}
	v->mem = mem;
}

static void
view_make(const cJSON *wl, const cJSON *pods, const struct svc_index *ix,
    const char *project, struct rai_job_view *v)
{
	const cJSON *chief = rai_job_chief(pods);
	const char *app = rai_json_label(wl, "app");
	const char *cmd = rai_json_annotation(wl, "runai-cli-command");
	char buf[64];

	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(wl, "metadata.name", ""));
	v->namespace = xstrdup(rai_json_str_or(wl, "metadata.namespace", ""));
	v->uid = xstrdup(rai_json_str_or(wl, "metadata.uid", ""));
	v->kind = xstrdup(kind_of(wl));
	v->status = xstrdup(rai_job_status(wl, chief, buf, sizeof(buf)));
	v->finished = is_finished(v->status);
	v->type = xstrdup(job_type(wl));
	v->user = xstrdup(job_user(wl));
	v->node = job_node(wl, chief);
	v->image = job_image(wl);
	v->project = job_project(chief, project);
	v->command_line = xstrdup(cmd ? cmd : "");
	v->service_urls = job_urls(chief, ix);
	v->created = rai_parse_rfc3339(rai_json_str_or(wl,
	    "metadata.creationTimestamp", ""));
	if (v->created == (time_t)-1)
		v->created = 0;
	v->created_by_cli = app != NULL && strcmp(app, "runaijob") == 0;
	gpu_cell(v, wl, pods, chief);
	pod_counts(v, wl, pods);
	pack_view(v);
}

void
rai_job_view_make(const cJSON *wl, const cJSON *pods, const cJSON *services,
    const cJSON *nodes, const char *project, struct rai_job_view *v)
{
	const cJSON *items = rai_json_array(nodes, "items"), *n;
	struct node_addr na = { 0 };
	struct svc_index ix;

	if (items == NULL && cJSON_IsArray(nodes))
		items = nodes;
	cJSON_ArrayForEach(n, items)
		node_addr_add(&na, n);
	svc_index_build(&ix, services, node_addr_pick(&na));
	view_make(wl, pods, &ix, project, v);
	svc_index_release(&ix);
	node_addr_release(&na);
}

static void
invalid_view(const cJSON *cm, const char *project, struct rai_job_view *v)
{
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(cm, "metadata.name", ""));
	v->namespace = xstrdup(rai_json_str_or(cm, "metadata.namespace", ""));
	v->project = xstrdup(project ? project : "");
	v->uid = xstrdup("");
	v->kind = xstrdup("");
	v->status = xstrdup("Invalid job");
	v->type = xstrdup("");
	v->user = xstrdup("");
	v->node = xstrdup("");
	v->image = xstrdup("");
	v->gpus = xstrdup("");
	v->service_urls = xstrdup("");
	v->command_line = xstrdup("");
	v->created = rai_parse_rfc3339(rai_json_str_or(cm,
	    "metadata.creationTimestamp", ""));
	if (v->created == (time_t)-1)
		v->created = 0;
	v->invalid = 1;
	pack_view(v);
}

void
rai_job_view_release(struct rai_job_view *v)
{
	if (v->mem != NULL) {
		free(v->mem);
		memset(v, 0, sizeof(*v));
		return;
	}
	free(v->name);
	free(v->namespace);
	free(v->project);
	free(v->uid);
	free(v->kind);
	free(v->status);
	free(v->type);
	free(v->user);
	free(v->node);
	free(v->image);
	free(v->gpus);
	free(v->service_urls);
	free(v->command_line);
	memset(v, 0, sizeof(*v));
}

void
rai_job_list_release(struct rai_job_list *jl)
{
	size_t i;

	for (i = 0; i < jl->n; i++)
		rai_job_view_release(&jl->v[i]);
	free(jl->v);
	free(jl->resource_version);
	memset(jl, 0, sizeof(*jl));
}

/* ---- fetching ---- */

/*
 * Everything is listed item by item (kube_list_items): a workload whose
 * scheduler annotations give every cell becomes a compact view at once
 * and is freed; the others are kept slimmed until their pods are read,
 * and pods are kept slimmed only while they are needed. Lookups go
 * through sorted arrays, never a scan per job.
 */

struct owned_pod {
	char		*owner;	/* controller uid */
	cJSON		*pod;	/* slimmed, owned */
};

struct ns_project {
	char		*ns;
	char		*project;
};

struct view_key {
	const char	*ns;
	const char	*name;
};

struct fetch {
	struct kube_client	*c;
	const struct rai_job_fetch_opts *o;
	const char		*kind;	/* of the workloads listed */
	struct owned_pod	*pods;
	size_t			 npods, cap_pods;
	cJSON			*services;	/* array of slimmed Services */
	char			**svc_ns;	/* namespaces with a service */
	size_t			 nsvc_ns;
	struct node_addr	 nodes;
	struct svc_index	 six;
	struct ns_project	*projects;	/* sorted by ns */
	size_t			 nprojects, cap_projects;
	struct rai_job_list	*jl;
	size_t			 cap;
	cJSON			*deferred;	/* workloads needing pods */
	struct view_key		*vkeys;		/* views by (ns, name) */
	size_t			 nvkeys;
	time_t			 now;
};

static void
pods_forget(struct fetch *f)
{
	size_t i;

	for (i = 0; i < f->npods; i++) {
		free(f->pods[i].owner);
		cJSON_Delete(f->pods[i].pod);
	}
	f->npods = 0;
}

/* Moves src[key] (if any) into dst. */
static void
move_item(cJSON *dst, cJSON *src, const char *key)
{
	cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(src, key);

	if (it != NULL)
		cJSON_AddItemToObject(dst, key, it);
}

static void
move_items(cJSON *dst, cJSON *src, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		move_item(dst, src, *keys);
}

static cJSON *
object_in(cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Of each container status only its state is read. */
static void
states_only(cJSON *statuses)
{
	cJSON *cs, *st, *slim;

	cJSON_ArrayForEach(cs, statuses) {
		st = cJSON_DetachItemFromObjectCaseSensitive(cs, "state");
		while ((slim = cs->child) != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(cs, slim));
		if (st != NULL)
			cJSON_AddItemToObject(cs, "state", st);
	}
}

/*
 * What views read from a pod, moved into a new small object; the rest
 * (env, volumes, managedFields, conditions...) is freed at once.
 */
static cJSON *
slim_pod(cJSON *pod)
{
	static const char *const meta_keys[] = { "name", "namespace",
	    "creationTimestamp", "deletionTimestamp", "labels", NULL };
	static const char *const ann_keys[] = { "gpu-fraction", "gpu-memory",
	    NULL };
	static const char *const spec_keys[] = { "nodeName", NULL };
	static const char *const status_keys[] = { "phase", "reason",
	    "containerStatuses", "initContainerStatuses", NULL };
	cJSON *o = cJSON_CreateObject(), *m, *sp, *st, *a, *inits;
	int n;

	m = cJSON_AddObjectToObject(o, "metadata");
	sp = cJSON_AddObjectToObject(o, "spec");
	st = cJSON_AddObjectToObject(o, "status");
	move_items(m, object_in(pod, "metadata"), meta_keys);
	a = cJSON_AddObjectToObject(m, "annotations");
	move_items(a, object_in(object_in(pod, "metadata"), "annotations"),
	    ann_keys);
	move_items(sp, object_in(pod, "spec"), spec_keys);
	/* Of the init containers only their number is read. */
	n = cJSON_GetArraySize(object_in(object_in(pod, "spec"),
	    "initContainers"));
	if (n > 0) {
		inits = cJSON_AddArrayToObject(sp, "initContainers");
		while (n-- > 0)
			cJSON_AddItemToArray(inits, cJSON_CreateNull());
	}
	move_items(st, object_in(pod, "status"), status_keys);
	states_only(object_in(st, "containerStatuses"));
	states_only(object_in(st, "initContainerStatuses"));
	cJSON_Delete(pod);
	return o;
}

/*
 * What views read from a workload kept until its pods are known: the
 * metadata, spec.suspend, the template's labels, annotations, scheduler
 * and first container's image and limits, and the status fields that
 * workload_status reads.
 */
static cJSON *
slim_workload(cJSON *wl)
{
	static const char *const meta_keys[] = { "name", "namespace", "uid",
	    "creationTimestamp", "labels", "annotations", NULL };
	static const char *const status_keys[] = { "conditions",
	    "completionTime", "active", "replicas", NULL };
	static const char *const tmeta_keys[] = { "labels", "annotations",
	    NULL };
	cJSON *o = cJSON_CreateObject(), *spec, *tmpl, *tspec, *c, *c0;
	cJSON *wspec = object_in(wl, "spec");
	cJSON *wtmpl = object_in(wspec, "template");
	cJSON *wtspec = object_in(wtmpl, "spec");

	move_item(o, wl, "kind");
	move_items(cJSON_AddObjectToObject(o, "metadata"),
	    object_in(wl, "metadata"), meta_keys);
	spec = cJSON_AddObjectToObject(o, "spec");
	move_item(spec, wspec, "suspend");
	tmpl = cJSON_AddObjectToObject(spec, "template");
	move_items(cJSON_AddObjectToObject(tmpl, "metadata"),
	    object_in(wtmpl, "metadata"), tmeta_keys);
	tspec = cJSON_AddObjectToObject(tmpl, "spec");
	move_item(tspec, wtspec, "schedulerName");
	c0 = cJSON_GetArrayItem(object_in(wtspec, "containers"), 0);
	if (c0 != NULL) {
		c = cJSON_CreateObject();
		move_item(c, c0, "image");
		move_item(cJSON_AddObjectToObject(c, "resources"),
		    object_in(c0, "resources"), "limits");
		cJSON_AddItemToArray(cJSON_AddArrayToObject(tspec,
		    "containers"), c);
	}
	move_items(cJSON_AddObjectToObject(o, "status"), object_in(wl,
	    "status"), status_keys);
	cJSON_Delete(wl);
	return o;
}

static const char *
controller_uid(const cJSON *obj)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rai_json_array(obj, "metadata.ownerReferences"))
		if (rai_json_bool(r, "controller", 0))
			return rai_json_str(r, "uid");
	return NULL;
}

static int
pod_item(void *ud, cJSON *p, struct rai_err *err)
{
	struct fetch *f = ud;
	const char *owner;

	(void)err;
	if (p == NULL) {
		pods_forget(f);
		return 0;
	}
	if ((owner = controller_uid(p)) == NULL) {
		cJSON_Delete(p);
		return 0;
	}
	if (f->npods == f->cap_pods) {
		f->cap_pods = f->cap_pods ? f->cap_pods * 2 : 64;
		f->pods = xreallocarray(f->pods, f->cap_pods,
		    sizeof(*f->pods));
	}
	f->pods[f->npods].owner = xstrdup(owner);
	f->pods[f->npods++].pod = slim_pod(p);
	return 0;
}

static int
owned_cmp(const void *a, const void *b)
{
	const struct owned_pod *x = a, *y = b;

	return strcmp(x->owner, y->owner);
}

/* The pods a workload controls, as an array of references. */
static cJSON *
pods_of(struct fetch *f, const char *uid)
{
	struct owned_pod key = { (char *)(uintptr_t)uid, NULL }, *hit;
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	if (f->npods == 0 || (hit = bsearch(&key, f->pods, f->npods,
	    sizeof(*f->pods), owned_cmp)) == NULL)
		return arr;
	i = (size_t)(hit - f->pods);
	while (i > 0 && strcmp(f->pods[i - 1].owner, uid) == 0)
		i--;
	for (; i < f->npods && strcmp(f->pods[i].owner, uid) == 0; i++)
		cJSON_AddItemReferenceToArray(arr, f->pods[i].pod);
	return arr;
}

static struct rai_job_view *
new_view(struct fetch *f)
{
	if (f->jl->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->jl->v = xreallocarray(f->jl->v, f->cap, sizeof(*f->jl->v));
	}
	return &f->jl->v[f->jl->n++];
}

/* Drops the views a restarted list had given (kind, or invalid ones). */
static void
forget_views(struct fetch *f, const char *kind, int invalid)
{
	size_t i, k = 0;

	for (i = 0; i < f->jl->n; i++) {
		if (invalid ? f->jl->v[i].invalid :
		    strcmp(f->jl->v[i].kind, kind) == 0)
			rai_job_view_release(&f->jl->v[i]);
		else
			f->jl->v[k++] = f->jl->v[i];
	}
	f->jl->n = k;
}

static int
ns_project_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ns_project *)a)->ns,
	    ((const struct ns_project *)b)->ns);
}

static const char *
project_of(struct fetch *f, const cJSON *obj)
{
	struct ns_project key = { 0 }, *hit;

	key.ns = (char *)(uintptr_t)rai_json_str_or(obj,
	    "metadata.namespace", "");
	if (f->nprojects == 0 || (hit = bsearch(&key, f->projects,
	    f->nprojects, sizeof(*f->projects), ns_project_cmp)) == NULL)
		return NULL;
	return hit->project;
}

static int
is_runai_workload(const cJSON *wl)
{
	return strcmp(rai_json_str_or(wl, "spec.template.spec.schedulerName",
	    ""), "runai-scheduler") == 0 &&
	    rai_json_label(wl, "mpi_job_name") == NULL;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
has_service_in(struct fetch *f, const char *ns)
{
	return f->nsvc_ns > 0 && bsearch(&ns, f->svc_ns, f->nsvc_ns,
	    sizeof(*f->svc_ns), str_cmp) != NULL;
}

/*
 * Whether the scheduler's annotations give every cell, so the pods need
 * not be read (they are most of what a list costs on a big cluster).
 * The PROJECT cell then comes from the namespace's project.
 */
static int
needs_pods(struct fetch *f, const cJSON *wl)
{
	static const char *const keys[] = { "runai-calculated-status",
	    "runai-running-pods", "runai-pending-pods",
	    "runai-current-allocated-gpus", NULL };
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		if (rai_json_annotation(wl, keys[i]) == NULL)
			return 1;
	if (rai_json_annotation(wl, "runai-podgroup-requested-gpus") == NULL &&
	    rai_json_annotation(wl, "runai-podgroup-requested-gpus-memory") ==
	    NULL)
		return 1;
	if (rai_json_annotation(wl, "runai-used-nodes") == NULL &&
	    ann_num(wl, "runai-running-pods", 0) +
	    ann_num(wl, "runai-pending-pods", 0) > 0)
		return 1;
	return has_service_in(f, rai_json_str_or(wl, "metadata.namespace",
	    ""));
}

static void
make_view(struct fetch *f, const cJSON *wl)
{
	cJSON *pods = pods_of(f, rai_json_str_or(wl, "metadata.uid", ""));

	view_make(wl, pods, &f->six, project_of(f, wl), new_view(f));
	cJSON_Delete(pods);
}

/*
 * A distributed job's pods come from one template per replica type;
 * the columns read spec.template, so the workers' template (the lead's
 * when there are no workers) is moved there.
 */
static void
lift_dist_template(cJSON *wl)
{
	const struct rai_dist_framework *fw = rai_dist_by_kind(kind_of(wl));
	cJSON *specs, *r, *spec = object_in(wl, "spec");

	if (fw == NULL || spec == NULL || (specs = object_in(spec,
	    fw->specs_key)) == NULL)
		return;
	if ((r = object_in(specs, "Worker")) == NULL &&
	    (r = object_in(specs, fw->chief)) == NULL)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(spec, "template");
	move_item(spec, r, "template");
	cJSON_DeleteItemFromObjectCaseSensitive(spec, fw->specs_key);
}

static int
workload_item(void *ud, cJSON *wl, struct rai_err *err)
{
	struct fetch *f = ud;
	cJSON *d, *next;

	(void)err;
	if (wl == NULL) {	/* the list starts over */
		forget_views(f, f->kind, 0);
		for (d = f->deferred->child; d != NULL; d = next) {
			next = d->next;
			if (strcmp(kind_of(d), f->kind) == 0)
				cJSON_Delete(cJSON_DetachItemViaPointer(
				    f->deferred, d));
		}
		return 0;
	}
	if (cJSON_GetObjectItemCaseSensitive(wl, "kind") == NULL)
		cJSON_AddStringToObject(wl, "kind", f->kind);
	lift_dist_template(wl);
	if (!is_runai_workload(wl) || (f->o && f->o->name &&
	    strcmp(f->o->name, rai_json_str_or(wl, "metadata.name", "")) !=
	    0)) {
		cJSON_Delete(wl);
		return 0;
	}
	if (!needs_pods(f, wl)) {
		make_view(f, wl);
		cJSON_Delete(wl);
		return 0;
	}
	cJSON_AddItemToArray(f->deferred, slim_workload(wl));
	return 0;
}

static const struct kube_res res_replicasets = {
	"apps", "v1", "replicasets", 1
};

struct rs_owner {
	char	*rs;		/* ReplicaSet uid */
	char	*deployment;	/* its controller's uid */
};

struct rs_map {
	struct rs_owner	*m;
	size_t		 n, cap;
};

static int
rs_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rs_owner *)a)->rs,
	    ((const struct rs_owner *)b)->rs);
}

static void
rs_map_release(struct rs_map *rm)
{
	size_t i;

	for (i = 0; i < rm->n; i++) {
		free(rm->m[i].rs);
		free(rm->m[i].deployment);
	}
	rm->n = 0;
}

static int
rs_item(void *ud, cJSON *rs, struct rai_err *err)
{
	struct rs_map *rm = ud;
	const char *up;

	(void)err;
	if (rs == NULL) {
		rs_map_release(rm);
		return 0;
	}
	if ((up = controller_uid(rs)) != NULL) {
		if (rm->n == rm->cap) {
			rm->cap = rm->cap ? rm->cap * 2 : 16;
			rm->m = xreallocarray(rm->m, rm->cap, sizeof(*rm->m));
		}
		rm->m[rm->n].rs = xstrdup(rai_json_str_or(rs, "metadata.uid",
		    ""));
		rm->m[rm->n++].deployment = xstrdup(up);
	}
	cJSON_Delete(rs);
	return 0;
}

static int
has_deployment(const cJSON *wls)
{
	const cJSON *wl;

	cJSON_ArrayForEach(wl, wls)
		if (strcmp(kind_of(wl), "Deployment") == 0)
			return 1;
	return 0;
}

/* Deployment pods are owned by ReplicaSets: make their owner the Deployment. */
static int
owners_through_replicasets(struct fetch *f, const char *ns,
    struct rai_err *err)
{
	struct rs_map rm = { NULL, 0, 0 };
	struct rs_owner key, *hit;
	size_t i;
	int rc = -1;

	if (kube_list_items(f->c, &res_replicasets, ns, NULL, rs_item, &rm,
	    NULL, err) == -1)
		goto out;
	if (rm.n > 0)
		qsort(rm.m, rm.n, sizeof(*rm.m), rs_cmp);
	for (i = 0; i < f->npods && rm.n > 0; i++) {
		key.rs = f->pods[i].owner;
		if ((hit = bsearch(&key, rm.m, rm.n, sizeof(*rm.m),
		    rs_cmp)) != NULL) {
			free(f->pods[i].owner);
			f->pods[i].owner = xstrdup(hit->deployment);
		}
	}
	rc = 0;
out:
	rs_map_release(&rm);
	free(rm.m);
	return rc;
}

/* The pods of the workloads that need them, then their views. */
static int
deferred_views(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *wl;

	if (f->deferred->child == NULL)
		return 0;
	lo.field_selector = "spec.schedulerName=runai-scheduler";
	if (kube_list_items(f->c, &KUBE_RES_PODS, ns, &lo, pod_item, f, NULL,
	    err) == -1)
		return -1;
	if (has_deployment(f->deferred) &&
	    owners_through_replicasets(f, ns, err) == -1)
		return -1;
	if (f->npods > 0)
		qsort(f->pods, f->npods, sizeof(*f->pods), owned_cmp);
	cJSON_ArrayForEach(wl, f->deferred)
		make_view(f, wl);
	pods_forget(f);
	cJSON_Delete(f->deferred);
	f->deferred = cJSON_CreateArray();
	return 0;
}

static int
view_key_cmp(const void *a, const void *b)
{
	const struct view_key *x = a, *y = b;
	int d;

	if ((d = strcmp(x->ns, y->ns)) != 0)
		return d;
	return strcmp(x->name, y->name);
}

/* (ns, name) of every view so far, for has_job. */
static void
index_views(struct fetch *f)
{
	size_t i;

	free(f->vkeys);
	f->vkeys = xcalloc(f->jl->n + 1, sizeof(*f->vkeys));
	for (i = 0; i < f->jl->n; i++) {
		f->vkeys[i].ns = f->jl->v[i].namespace;
		f->vkeys[i].name = f->jl->v[i].name;
	}
	f->nvkeys = f->jl->n;
	qsort(f->vkeys, f->nvkeys, sizeof(*f->vkeys), view_key_cmp);
}

static int
has_job(struct fetch *f, const char *ns, const char *name)
{
	struct view_key key = { ns, name };

	return f->nvkeys > 0 && bsearch(&key, f->vkeys, f->nvkeys,
	    sizeof(*f->vkeys), view_key_cmp) != NULL;
}

static int
configmap_item(void *ud, cJSON *cm, struct rai_err *err)
{
	struct fetch *f = ud;
	const char *name;
	time_t t;

	(void)err;
	if (cm == NULL) {
		forget_views(f, NULL, 1);
		return 0;
	}
	name = rai_json_str_or(cm, "metadata.name", "");
	t = rai_parse_rfc3339(rai_json_str_or(cm,
	    "metadata.creationTimestamp", ""));
	if ((f->o == NULL || f->o->name == NULL ||
	    strcmp(f->o->name, name) == 0) && t != (time_t)-1 &&
	    f->now - t > INVALID_AGE_S && !has_job(f, rai_json_str_or(cm,
	    "metadata.namespace", ""), name))
		invalid_view(cm, project_of(f, cm), new_view(f));
	cJSON_Delete(cm);
	return 0;
}

static int
invalid_jobs(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };

	lo.label_selector = "base-name";
	index_views(f);
	f->now = time(NULL);
	return kube_list_items(f->c, &KUBE_RES_CONFIGMAPS, ns, &lo,
	    configmap_item, f, NULL, err);
}

static int
view_cmp(const void *a, const void *b)
{
	const struct rai_job_view *x = a, *y = b;
	int d;

	if ((d = strcmp(x->project, y->project)) != 0)
		return d;
	if ((d = strcmp(x->name, y->name)) != 0)
		return d;
	return strcmp(x->namespace, y->namespace);
}

static void
projects_forget(struct fetch *f)
{
	size_t i;

	for (i = 0; i < f->nprojects; i++) {
		free(f->projects[i].ns);
		free(f->projects[i].project);
	}
	f->nprojects = 0;
}

static void
add_project(struct fetch *f, const char *ns, const char *project)
{
	if (f->nprojects == f->cap_projects) {
		f->cap_projects = f->cap_projects ? f->cap_projects * 2 : 16;
		f->projects = xreallocarray(f->projects, f->cap_projects,
		    sizeof(*f->projects));
	}
	f->projects[f->nprojects].ns = xstrdup(ns);
	f->projects[f->nprojects++].project = xstrdup(project);
}

static int
namespace_item(void *ud, cJSON *n, struct rai_err *err)
{
	struct fetch *f = ud;
	const char *q;

	(void)err;
	if (n == NULL) {
		projects_forget(f);
		return 0;
	}
	if ((q = rai_json_label(n, "runai/queue")) != NULL)
		add_project(f, rai_json_str_or(n, "metadata.name", ""), q);
	cJSON_Delete(n);
	return 0;
}

/* namespace -> project from the runai/queue labels. */
static int
fetch_projects(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };

	if (ns != NULL && f->o != NULL && f->o->project != NULL) {
		add_project(f, ns, f->o->project);
		return 0;
	}
	lo.label_selector = "runai/queue";
	if (kube_list_items(f->c, &KUBE_RES_NAMESPACES, NULL, &lo,
	    namespace_item, f, NULL, err) == -1)
		return -1;
	if (f->nprojects > 0)
		qsort(f->projects, f->nprojects, sizeof(*f->projects),
		    ns_project_cmp);
	return 0;
}

/* What job_urls reads from a Service. */
static cJSON *
slim_service(cJSON *svc)
{
	static const char *const meta_keys[] = { "name", "namespace", NULL };
	static const char *const spec_keys[] = { "type", "selector", "ports",
	    NULL };
	cJSON *o = cJSON_CreateObject();

	move_items(cJSON_AddObjectToObject(o, "metadata"), object_in(svc,
	    "metadata"), meta_keys);
	move_items(cJSON_AddObjectToObject(o, "spec"), object_in(svc, "spec"),
	    spec_keys);
	move_item(o, svc, "status");
	cJSON_Delete(svc);
	return o;
}

static int
service_item(void *ud, cJSON *svc, struct rai_err *err)
{
	struct fetch *f = ud;

	(void)err;
	if (svc == NULL) {
		cJSON_Delete(f->services);
		f->services = cJSON_CreateArray();
		return 0;
	}
	cJSON_AddItemToArray(f->services, slim_service(svc));
	return 0;
}

static int
node_item(void *ud, cJSON *node, struct rai_err *err)
{
	struct fetch *f = ud;

	(void)err;
	if (node == NULL)
		node_addr_release(&f->nodes);
	else
		node_addr_add(&f->nodes, node);
	cJSON_Delete(node);
	return 0;
}

static int
fetch_services(struct fetch *f, const char *ns, struct rai_err *err)
{
	const cJSON *s;
	int nodeport = 0;
	size_t n = 0, i;

	f->services = cJSON_CreateArray();
	if (f->o == NULL || !f->o->want_services)
		goto index;
	if (kube_list_items(f->c, &KUBE_RES_SERVICES, ns, NULL, service_item,
	    f, NULL, err) == -1)
		return -1;
	cJSON_ArrayForEach(s, f->services)
		nodeport |= strcmp(rai_json_str_or(s, "spec.type", ""),
		    "NodePort") == 0;
	if (nodeport && kube_list_items(f->c, &KUBE_RES_NODES, NULL, NULL,
	    node_item, f, NULL, err) == -1)
		return -1;
index:
	f->svc_ns = xcalloc((size_t)cJSON_GetArraySize(f->services) + 1,
	    sizeof(*f->svc_ns));
	cJSON_ArrayForEach(s, f->services)
		f->svc_ns[n++] = (char *)(uintptr_t)rai_json_str_or(s,
		    "metadata.namespace", "");
	qsort(f->svc_ns, n, sizeof(*f->svc_ns), str_cmp);
	for (i = 0; i < n; i++)		/* each namespace once */
		if (f->nsvc_ns == 0 ||
		    strcmp(f->svc_ns[f->nsvc_ns - 1], f->svc_ns[i]) != 0)
			f->svc_ns[f->nsvc_ns++] = f->svc_ns[i];
	svc_index_build(&f->six, f->services, node_addr_pick(&f->nodes));
	return 0;
}

/* The training operator's jobs, where their CRDs are served. */
static int
fetch_dist_jobs(struct fetch *f, const char *ns,
    const struct kube_list_opts *lo, struct rai_err *err)
{
	const struct rai_dist_framework *fw;
	int k;

	for (k = 0; k < RAI_DIST_NKINDS; k++) {
		fw = rai_dist_framework((enum rai_dist_kind)k);
		f->kind = fw->kind;
		if (kube_list_items(f->c, fw->res, ns, lo, workload_item, f,
		    NULL, err) == -1) {
			/* not installed, or not ours to read: no such jobs */
			if (err->kind != RAI_E_HTTP || (err->http_status != 404 &&
			    err->http_status != 403))
				return -1;
			if (err->http_status == 403)
				rai_log(RAI_LOG_NOTE, "not allowed to list %s: "
				    "leaving them out", fw->res->plural);
			rai_err_release(err);
		}
	}
	return 0;
}

static int
fetch_workloads(struct fetch *f, const char *ns, struct rai_err *err)
{
	const struct kube_res *const res[] = { &KUBE_RES_JOBS,
	    &KUBE_RES_DEPLOYMENTS, &KUBE_RES_STATEFULSETS };
	static const char *const kinds[] = { "Job", "Deployment",
	    "StatefulSet" };
	struct kube_list_opts lo = { 0 };
	size_t i;

	/* The largest list: bigger pages, as items are streamed anyway. */
	lo.limit = JOB_PAGE;
	/* Listed straight away: a 404 says run.ai is not served. */
	f->kind = "RunaiJob";
	if (kube_list_items(f->c, &KUBE_RES_RUNAIJOBS, ns, &lo, workload_item,
	    f, &f->jl->resource_version, err) == -1) {
		if (err->kind != RAI_E_HTTP || err->http_status != 404)
			return -1;
		rai_err_release(err);
	}
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		f->kind = kinds[i];
		if (kube_list_items(f->c, res[i], ns, &lo, workload_item, f,
		    NULL, err) == -1)
			return -1;
	}
	return fetch_dist_jobs(f, ns, &lo, err);
}

/*
 * Every list the steps below read whatever the others give, sent at
 * once: their answers are taken in the steps' own order, so the views
 * are those of a serial run. The pods, ReplicaSets and nodes are asked
 * for only when the step before shows they are needed. Called after
 * the namespaces are read: the new connections then resume that
 * connection's TLS session instead of each making a full handshake.
 */
static void
prefetch_lists(struct fetch *f, const char *ns)
{
	const struct kube_res *const res[] = { &KUBE_RES_RUNAIJOBS,
	    &KUBE_RES_JOBS, &KUBE_RES_DEPLOYMENTS, &KUBE_RES_STATEFULSETS };
	struct kube_list_opts lo = { 0 };
	size_t i;
	int k;

	if (f->o != NULL && f->o->want_services)
		kube_list_prefetch(f->c, &KUBE_RES_SERVICES, ns, NULL);
	memset(&lo, 0, sizeof(lo));
	lo.limit = JOB_PAGE;
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		kube_list_prefetch(f->c, res[i], ns, &lo);
	for (k = 0; k < RAI_DIST_NKINDS; k++)
		kube_list_prefetch(f->c,
		    rai_dist_framework((enum rai_dist_kind)k)->res, ns, &lo);
	memset(&lo, 0, sizeof(lo));
	lo.label_selector = "base-name";
	kube_list_prefetch(f->c, &KUBE_RES_CONFIGMAPS, ns, &lo);
}

int
rai_jobs_fetch(struct kube_client *c, const char *ns,
    const struct rai_job_fetch_opts *o, struct rai_job_list *jl,
    struct rai_err *err)
{
	struct fetch f;
	int rc = -1;

	memset(&f, 0, sizeof(f));
	f.c = c;
	f.o = o;
	f.jl = jl;
	f.deferred = cJSON_CreateArray();
	memset(jl, 0, sizeof(*jl));
	if (fetch_projects(&f, ns, err) == -1)
		goto out;
	prefetch_lists(&f, ns);
	if (fetch_services(&f, ns, err) == -1)
		goto out;
	if (fetch_workloads(&f, ns, err) == -1 ||
	    deferred_views(&f, ns, err) == -1 ||
	    invalid_jobs(&f, ns, err) == -1)
		goto out;
	if (jl->n > 0)
		qsort(jl->v, jl->n, sizeof(*jl->v), view_cmp);
	rc = 0;
out:
	/* after an error: a later fetch must not read these old answers */
	kube_prefetch_drop(c);
	if (rc == -1)
		rai_job_list_release(jl);
	pods_forget(&f);
	free(f.pods);
	projects_forget(&f);
	free(f.projects);
	svc_index_release(&f.six);
	free(f.svc_ns);
	cJSON_Delete(f.services);
	node_addr_release(&f.nodes);
	cJSON_Delete(f.deferred);
	free(f.vkeys);
	return rc;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
rai_job_names(struct kube_client *c, const char *ns, char ***names,
    size_t *n, struct rai_err *err)
{
	struct rai_job_list jl;
	size_t i;

	*names = NULL;
	*n = 0;
	if (rai_jobs_fetch(c, ns, NULL, &jl, err) == -1)
		return -1;
	*names = xcalloc(jl.n + 1, sizeof(**names));
	for (i = 0; i < jl.n; i++)
		(*names)[i] = xstrdup(jl.v[i].name);
	*n = jl.n;
	qsort(*names, *n, sizeof(**names), name_cmp);
	rai_job_list_release(&jl);
	return 0;
}
