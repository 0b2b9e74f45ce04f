/*
 * Job views: see rai_job.h. Column rules are those of the reference CLI
 * (runai-cli-contract §3.2, §3.3); fetching keeps slimmed pods and
 * compact views only, so 10,000 jobs fit in little memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "kube_client.h"
#include "rai_alloc.h"
#include "rai_buf.h"
#include "rai_job.h"
#include "rai_json.h"
#include "rai_out.h"
#include "rai_quantity.h"

#include "banned.h"

#define INVALID_AGE_S	30	/* an orphan ConfigMap younger may be a submit */

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

/* Rule 3 of §3.2: what the workload object itself says, or NULL. */
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

/* The newest pod leads the job, as in the reference CLI. */
static const cJSON *
chief_pod(const cJSON *pods)
{
	const cJSON *p, *best = NULL;
	const char *bt = "", *t;

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

static void
gpu_cell(struct rai_job_view *v, const cJSON *wl, const cJSON *pods,
    const cJSON *chief)
{
	char a[32], r[32];
	int chief_running = chief != NULL && strcmp(rai_json_str_or(chief,
	    "status.phase", ""), "Running") == 0;

	v->gpu_mem_requested = requested_memory(wl, pods);
	v->gpus_requested = v->gpu_mem_requested > 0 ? 0 :
	    requested_gpus(wl, pods);
	v->gpus_allocated = ann_num(wl, "runai-current-allocated-gpus",
	    chief_running ? v->gpus_requested : 0);
	if (v->gpus_allocated == 0 && v->finished)
		snprintf(a, sizeof(a), "-");
	else
		snprintf(a, sizeof(a), "%g", v->gpus_allocated);
	if (v->gpu_mem_requested > 0)
		fmt_si(v->gpu_mem_requested, r, sizeof(r));
	else
		snprintf(r, sizeof(r), "%g", v->gpus_requested);
	v->gpus = xasprintf("%s (%s)", a, r);
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

/* §3.3: ExternalDNS, else ExternalIP, else the annotation, else internal. */
static const char *
node_address(const cJSON *nodes)
{
	const cJSON *n, *a, *items = rai_json_array(nodes, "items");
	const char *ext = NULL, *annot = NULL, *in_dns = NULL, *in_ip = NULL;
	const char *t;

	if (items == NULL)
		items = nodes;
	cJSON_ArrayForEach(n, items) {
		if (annot == NULL)
			annot = rai_json_annotation(n,
			    "runai/external-node-ip");
		cJSON_ArrayForEach(a, rai_json_array(n, "status.addresses")) {
			t = rai_json_str_or(a, "type", "");
			if (strcmp(t, "ExternalDNS") == 0)
				return rai_json_str_or(a, "address", "");
			if (strcmp(t, "ExternalIP") == 0 && ext == NULL)
				ext = rai_json_str(a, "address");
			if (strcmp(t, "InternalDNS") == 0)
				in_dns = rai_json_str(a, "address");
			if (strcmp(t, "InternalIP") == 0)
				in_ip = rai_json_str(a, "address");
		}
	}
	if (ext != NULL)
		return ext;
	if (annot != NULL)
		return annot;
	return in_dns ? in_dns : in_ip ? in_ip : "";
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

static void
add_url(struct rai_buf *b, const char *url)
{
	if (b->len)
		rai_buf_addstr(b, ", ");
	rai_buf_addstr(b, url);
}

static void
service_urls(struct rai_buf *b, const cJSON *svc, const cJSON *nodes)
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
			snprintf(url, sizeof(url), "%s:%ld",
			    node_address(nodes),
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

static char *
job_urls(const cJSON *chief, const cJSON *services, const cJSON *nodes)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *s, *items = rai_json_array(services, "items");
	const cJSON *labels = rai_json_get(chief, "metadata.labels");
	const char *ns = rai_json_str_or(chief, "metadata.namespace", "");
	char *out;

	if (items == NULL)
		items = services;
	if (chief == NULL)
		items = NULL;
	cJSON_ArrayForEach(s, items) {
		if (strcmp(rai_json_str_or(s, "metadata.namespace", ns), ns)
		    != 0 || !selector_matches(rai_json_get(s, "spec.selector"),
		    labels))
			continue;
		service_urls(&b, s, nodes);
		break;
	}
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

void
rai_job_view_make(const cJSON *wl, const cJSON *pods, const cJSON *services,
    const cJSON *nodes, const char *project, struct rai_job_view *v)
{
	const cJSON *chief = chief_pod(pods);
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
	v->service_urls = job_urls(chief, services, nodes);
	v->created = rai_parse_rfc3339(rai_json_str_or(wl,
	    "metadata.creationTimestamp", ""));
	if (v->created == (time_t)-1)
		v->created = 0;
	v->created_by_cli = app != NULL && strcmp(app, "runaijob") == 0;
	gpu_cell(v, wl, pods, chief);
	pod_counts(v, wl, pods);
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
}

void
rai_job_view_release(struct rai_job_view *v)
{
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
	jl->v = NULL;
	jl->n = 0;
}

/* ---- fetching ---- */

struct owned_pod {
	const char	*owner;	/* controller uid, points into pod */
	cJSON		*pod;	/* slimmed, owned */
};

struct fetch {
	struct kube_client	*c;
	const struct rai_job_fetch_opts *o;
	const char		*kind;	/* of the workloads listed */
	struct owned_pod	*pods;
	size_t			 npods, cap_pods;
	cJSON			*services;	/* List or NULL */
	cJSON			*nodes;		/* List or NULL */
	cJSON			*projects;	/* {ns: project} */
	struct rai_job_list	*jl;
	size_t			 cap;
	cJSON			*deferred;	/* workloads needing pods */
};

static void
pods_forget(struct fetch *f)
{
	size_t i;

	for (i = 0; i < f->npods; i++)
		cJSON_Delete(f->pods[i].pod);
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

/*
 * What views read from a pod, moved into a new small object; the rest
 * (env, volumes, managedFields, conditions...) is freed with the page.
 */
static cJSON *
slim_pod(cJSON *pod)
{
	static const char *const meta_keys[] = { "name", "namespace",
	    "creationTimestamp", "deletionTimestamp", "labels", "annotations",
	    "ownerReferences", NULL };
	static const char *const spec_keys[] = { "nodeName", "initContainers",
	    NULL };
	static const char *const status_keys[] = { "phase", "reason",
	    "containerStatuses", "initContainerStatuses", NULL };
	cJSON *o = cJSON_CreateObject(), *m, *sp, *st, *cs;

	m = cJSON_AddObjectToObject(o, "metadata");
	sp = cJSON_AddObjectToObject(o, "spec");
	st = cJSON_AddObjectToObject(o, "status");
	move_items(m, cJSON_GetObjectItemCaseSensitive(pod, "metadata"),
	    meta_keys);
	move_items(sp, cJSON_GetObjectItemCaseSensitive(pod, "spec"),
	    spec_keys);
	move_items(st, cJSON_GetObjectItemCaseSensitive(pod, "status"),
	    status_keys);
	/* Of the container statuses only the state is read. */
	cJSON_ArrayForEach(cs, cJSON_GetObjectItemCaseSensitive(st,
	    "containerStatuses")) {
		cJSON_DeleteItemFromObjectCaseSensitive(cs, "image");
		cJSON_DeleteItemFromObjectCaseSensitive(cs, "imageID");
		cJSON_DeleteItemFromObjectCaseSensitive(cs,
		    "containerID");
		cJSON_DeleteItemFromObjectCaseSensitive(cs,
		    "lastState");
	}
	cJSON_Delete(pod);
	return o;
}

static const char *
controller_uid(const cJSON *pod)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rai_json_array(pod, "metadata.ownerReferences"))
		if (rai_json_bool(r, "controller", 0))
			return rai_json_str(r, "uid");
	return NULL;
}

static int
pods_page(void *ud, cJSON *page, struct rai_err *err)
{
	struct fetch *f = ud;
	cJSON *items, *p;
	const char *owner;

	(void)err;
	if (page == NULL) {
		pods_forget(f);
		return 0;
	}
	items = cJSON_GetObjectItemCaseSensitive(page, "items");
	while ((p = cJSON_DetachItemFromArray(items, 0)) != NULL) {
		if ((owner = controller_uid(p)) == NULL) {
			cJSON_Delete(p);
			continue;
		}
		p = slim_pod(p);
		if (f->npods == f->cap_pods) {
			f->cap_pods = f->cap_pods ? f->cap_pods * 2 : 64;
			f->pods = xreallocarray(f->pods, f->cap_pods,
			    sizeof(*f->pods));
		}
		f->pods[f->npods].owner = controller_uid(p);
		f->pods[f->npods++].pod = p;
	}
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
	struct owned_pod key = { uid, NULL }, *hit;
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

static const char *
project_of(struct fetch *f, const cJSON *obj)
{
	return rai_json_str(f->projects, rai_json_str_or(obj,
	    "metadata.namespace", ""));
}

static int
is_runai_workload(const cJSON *wl)
{
	return strcmp(rai_json_str_or(wl, "spec.template.spec.schedulerName",
	    ""), "runai-scheduler") == 0 &&
	    rai_json_label(wl, "mpi_job_name") == NULL;
}

static int
has_service_in(struct fetch *f, const char *ns)
{
	const cJSON *sv;

	cJSON_ArrayForEach(sv, rai_json_array(f->services, "items"))
		if (strcmp(rai_json_str_or(sv, "metadata.namespace", ""), ns)
		    == 0)
			return 1;
	return 0;
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

	rai_job_view_make(wl, pods, f->services, f->nodes, project_of(f, wl),
	    new_view(f));
	cJSON_Delete(pods);
}

static int
workloads_page(void *ud, cJSON *page, struct rai_err *err)
{
	struct fetch *f = ud;
	cJSON *items, *wl, *next;

	(void)err;
	if (page == NULL)
		return 0;	/* views are rebuilt by name below: harmless */
	items = cJSON_GetObjectItemCaseSensitive(page, "items");
	for (wl = items ? items->child : NULL; wl != NULL; wl = next) {
		next = wl->next;
		if (!is_runai_workload(wl))
			continue;
		if (f->o && f->o->name && strcmp(f->o->name,
		    rai_json_str_or(wl, "metadata.name", "")) != 0)
			continue;
		if (cJSON_GetObjectItemCaseSensitive(wl, "kind") == NULL)
			cJSON_AddStringToObject(wl, "kind", f->kind);
		if (!needs_pods(f, wl)) {
			make_view(f, wl);
			continue;
		}
		cJSON_DetachItemViaPointer(items, wl);
		cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(
		    wl, "metadata"), "managedFields");
		cJSON_AddItemToArray(f->deferred, wl);
	}
	return 0;
}

static const struct kube_res res_replicasets = {
	"apps", "v1", "replicasets", 1
};

struct rs_owner {
	const char	*rs;		/* ReplicaSet uid */
	const char	*deployment;	/* its controller's uid */
};

static int
rs_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rs_owner *)a)->rs,
	    ((const struct rs_owner *)b)->rs);
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

/*
 * Deployment pods are owned by ReplicaSets: make their owner the
 * Deployment. The uids point into *rsl, which must outlive the views.
 */
static int
owners_through_replicasets(struct fetch *f, const char *ns, cJSON **rsl,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	struct rs_owner *map = NULL, key, *hit;
	const cJSON *rs;
	const char *up;
	size_t n = 0, i;

	if (kube_list(f->c, &res_replicasets, ns, &lo, rsl, err) == -1)
		return -1;
	map = xcalloc((size_t)cJSON_GetArraySize(rai_json_array(*rsl,
	    "items")) + 1, sizeof(*map));
	cJSON_ArrayForEach(rs, rai_json_array(*rsl, "items")) {
		if ((up = controller_uid(rs)) == NULL)
			continue;
		map[n].rs = rai_json_str_or(rs, "metadata.uid", "");
		map[n++].deployment = up;
	}
	qsort(map, n, sizeof(*map), rs_cmp);
	for (i = 0; i < f->npods && n > 0; i++) {
		key.rs = f->pods[i].owner;
		if ((hit = bsearch(&key, map, n, sizeof(*map), rs_cmp)))
			f->pods[i].owner = hit->deployment;
	}
	free(map);
	return 0;
}

/* The pods of the workloads that need them, then their views. */
static int
deferred_views(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *wl;
	cJSON *rsl = NULL;
	int rc = -1;

	if (cJSON_GetArraySize(f->deferred) == 0)
		return 0;
	lo.field_selector = "spec.schedulerName=runai-scheduler";
	if (kube_list_pages(f->c, &KUBE_RES_PODS, ns, &lo, pods_page, f,
	    err) == -1)
		return -1;
	if (has_deployment(f->deferred) &&
	    owners_through_replicasets(f, ns, &rsl, err) == -1)
		goto out;
	if (f->npods > 0)
		qsort(f->pods, f->npods, sizeof(*f->pods), owned_cmp);
	cJSON_ArrayForEach(wl, f->deferred)
		make_view(f, wl);
	rc = 0;
out:
	cJSON_Delete(rsl);
	return rc;
}

static int
has_job(struct fetch *f, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < f->jl->n; i++)
		if (strcmp(f->jl->v[i].name, name) == 0 &&
		    strcmp(f->jl->v[i].namespace, ns) == 0)
			return 1;
	return 0;
}

static int
invalid_jobs(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *cm;
	cJSON *cms = NULL;
	time_t now = time(NULL), t;

	lo.label_selector = "base-name";
	if (kube_list(f->c, &KUBE_RES_CONFIGMAPS, ns, &lo, &cms, err) == -1)
		return -1;
	cJSON_ArrayForEach(cm, rai_json_array(cms, "items")) {
		const char *name = rai_json_str_or(cm, "metadata.name", "");

		if (f->o && f->o->name && strcmp(f->o->name, name) != 0)
			continue;
		t = rai_parse_rfc3339(rai_json_str_or(cm,
		    "metadata.creationTimestamp", ""));
		if (t == (time_t)-1 || now - t <= INVALID_AGE_S ||
		    has_job(f, rai_json_str_or(cm, "metadata.namespace", ""),
		    name))
			continue;
		invalid_view(cm, project_of(f, cm), new_view(f));
	}
	cJSON_Delete(cms);
	return 0;
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

/* {namespace: project} from the runai/queue labels. */
static int
fetch_projects(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *n;
	cJSON *nss = NULL;

	if (ns != NULL && f->o != NULL && f->o->project != NULL) {
		f->projects = cJSON_CreateObject();
		cJSON_AddStringToObject(f->projects, ns, f->o->project);
		return 0;
	}
	lo.label_selector = "runai/queue";
	if (kube_list(f->c, &KUBE_RES_NAMESPACES, NULL, &lo, &nss, err) == -1)
		return -1;
	f->projects = cJSON_CreateObject();
	cJSON_ArrayForEach(n, rai_json_array(nss, "items"))
		cJSON_AddStringToObject(f->projects, rai_json_str_or(n,
		    "metadata.name", ""), rai_json_label(n, "runai/queue"));
	cJSON_Delete(nss);
	return 0;
}

static int
needs_nodes(const cJSON *services)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, rai_json_array(services, "items"))
		if (strcmp(rai_json_str_or(s, "spec.type", ""), "NodePort")
		    == 0)
			return 1;
	return 0;
}

static int
fetch_services(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };

	if (f->o == NULL || !f->o->want_services)
		return 0;
	if (kube_list(f->c, &KUBE_RES_SERVICES, ns, &lo, &f->services,
	    err) == -1)
		return -1;
	if (needs_nodes(f->services) &&
	    kube_list(f->c, &KUBE_RES_NODES, NULL, &lo, &f->nodes, err) == -1)
		return -1;
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

	/* Listed straight away: a 404 says run.ai is not served. */
	f->kind = "RunaiJob";
	if (kube_list_pages(f->c, &KUBE_RES_RUNAIJOBS, ns, &lo,
	    workloads_page, f, err) == -1) {
		if (err->kind != RAI_E_HTTP || err->http_status != 404)
			return -1;
		rai_err_release(err);
	}
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		f->kind = kinds[i];
		if (kube_list_pages(f->c, res[i], ns, &lo, workloads_page, f,
		    err) == -1)
			return -1;
	}
	return 0;
}

int
rai_jobs_fetch(struct kube_client *c, const char *ns,
    const struct rai_job_fetch_opts *o, struct rai_job_list *jl,
    struct rai_err *err)
{
	struct fetch f = { 0 };
	int rc = -1;

	f.c = c;
	f.o = o;
	f.jl = jl;
	f.deferred = cJSON_CreateArray();
	memset(jl, 0, sizeof(*jl));
	if (fetch_projects(&f, ns, err) == -1 ||
	    fetch_services(&f, ns, err) == -1)
		goto out;
	if (fetch_workloads(&f, ns, err) == -1 ||
	    deferred_views(&f, ns, err) == -1 ||
	    invalid_jobs(&f, ns, err) == -1)
		goto out;
	if (jl->n > 0)
		qsort(jl->v, jl->n, sizeof(*jl->v), view_cmp);
	rc = 0;
out:
	if (rc == -1)
		rai_job_list_release(jl);
	pods_forget(&f);
	free(f.pods);
	cJSON_Delete(f.services);
	cJSON_Delete(f.nodes);
	cJSON_Delete(f.projects);
	cJSON_Delete(f.deferred);
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
	for (i = 0; i < jl.n; i++) {
		(*names)[i] = jl.v[i].name;
		jl.v[i].name = NULL;
	}
	*n = jl.n;
	qsort(*names, *n, sizeof(**names), name_cmp);
	rai_job_list_release(&jl);
	return 0;
}
