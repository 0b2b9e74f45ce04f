/*
 * Job lists: see job.h. Every list is read item by item and each object
 * becomes a compact view (job_view.c) as soon as it can, so 10,000 jobs
 * fit in little memory; what waits for its pods is kept slimmed
 * (job_slim.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
#include "runai/dist.h"
#include "runai/job.h"
#include "runai/job_slim.h"
#include "runai/job_urls.h"

#include "core/banned.h"

#define INVALID_AGE_S	30	/* an orphan ConfigMap younger may be a submit */
/*
 * Page size of the workload lists. Items are parsed as they arrive, so
 * memory does not grow with the page; fewer pages spare the server the
 * per-page cost (and us a round trip each).
 */
#define JOB_PAGE	5000
/* The events a job's reason reads: a workload's preemptions. */
#define PREEMPTED_EVENTS	"reason=Preempted,involvedObject.kind!=Pod"

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
	cJSON			*ingresses;	/* nginx Ingresses (a List) */
	cJSON			*controllers;	/* the ingress controller's */
	char			**svc_ns;	/* namespaces with a service */
	size_t			 nsvc_ns;
	struct rai_node_addr	 nodes;
	struct rai_svc_index	 six;
	struct ns_project	*projects;	/* sorted by ns */
	size_t			 nprojects, cap_projects;
	struct rai_job_list	*jl;
	size_t			 cap;
	cJSON			*deferred;	/* workloads needing pods */
	struct view_key		*vkeys;		/* views by (ns, name) */
	size_t			 nvkeys;
	time_t			 now;
	cJSON			*preempted;	/* the workloads' events */
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
wants_reasons(const struct fetch *f)
{
	return f->o != NULL && f->o->want_reasons;
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
	f->pods[f->npods++].pod = wants_reasons(f) ? rai_job_slim_pod_why(p) :
	    rai_job_slim_pod(p);
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

	if (wants_reasons(f))	/* the pods say why a job waits */
		return 1;
	for (i = 0; keys[i] != NULL; i++)
		if (rai_json_annotation(wl, keys[i]) == NULL)
			return 1;
	if (rai_json_annotation(wl, "runai-podgroup-requested-gpus") == NULL &&
	    rai_json_annotation(wl, "runai-podgroup-requested-gpus-memory") ==
	    NULL)
		return 1;
	if (rai_json_annotation(wl, "runai-used-nodes") == NULL &&
	    rai_job_ann_num(wl, "runai-running-pods", 0) +
	    rai_job_ann_num(wl, "runai-pending-pods", 0) > 0)
		return 1;
	return has_service_in(f, rai_json_str_or(wl, "metadata.namespace",
	    ""));
}

/* Why the job waits or stopped: its pods, its Failed condition, events. */
static void
view_reason(struct fetch *f, const cJSON *wl, const cJSON *pods,
    struct rai_job_view *v)
{
	struct rai_why_facts facts;
	struct rai_job_why why;

	memset(&facts, 0, sizeof(facts));
	facts.status = v->status;
	facts.project = v->project;
	rai_why_from_pods(&facts, pods);
	rai_why_from_workload(&facts, wl);
	rai_why_from_events(&facts, f->preempted, v->uid);
	rai_job_why_make(&facts, time(NULL), &why);
	rai_job_view_set_why(v, &why);
	rai_job_why_release(&why);
}

static void
make_view(struct fetch *f, const cJSON *wl)
{
	cJSON *pods = pods_of(f, rai_json_str_or(wl, "metadata.uid", ""));
	struct rai_job_view *v = new_view(f);

	rai_job_view_indexed(wl, pods, &f->six, project_of(f, wl), v);
	if (wants_reasons(f))
		view_reason(f, wl, pods, v);
	cJSON_Delete(pods);
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
			if (strcmp(rai_job_kind(d), f->kind) == 0)
				cJSON_Delete(cJSON_DetachItemViaPointer(
				    f->deferred, d));
		}
		return 0;
	}
	if (cJSON_GetObjectItemCaseSensitive(wl, "kind") == NULL)
		cJSON_AddStringToObject(wl, "kind", f->kind);
	rai_job_lift_dist_template(wl);
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
	cJSON_AddItemToArray(f->deferred, rai_job_slim_workload(wl));
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
		if (strcmp(rai_job_kind(wl), "Deployment") == 0)
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
		rai_job_view_invalid(cm, project_of(f, cm), new_view(f));
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
	cJSON_AddItemToArray(f->services, rai_job_slim_service(svc));
	return 0;
}

static int
node_item(void *ud, cJSON *node, struct rai_err *err)
{
	struct fetch *f = ud;

	(void)err;
	if (node == NULL)
		rai_node_addr_release(&f->nodes);
	else
		rai_node_addr_add(&f->nodes, node);
	cJSON_Delete(node);
	return 0;
}

/*
 * The Ingresses of ns and, if an nginx one is there, the ingress
 * controller's Service in any namespace: for the URLs of ClusterIP
 * services (job_urls.h). Not every user may list either: a refusal
 * leaves those URLs empty, as a cluster without an ingress does.
 */
static void
fetch_ingresses(struct fetch *f, const char *ns)
{
	struct kube_list_opts lo = { 0 };
	struct rai_err e = RAI_ERR_INIT;
	const cJSON *ing;
	int nginx = 0;

	if (kube_list(f->c, &KUBE_RES_INGRESSES, ns, NULL, &f->ingresses,
	    &e) == -1) {
		rai_err_release(&e);
		return;
	}
	cJSON_ArrayForEach(ing, rai_json_array(f->ingresses, "items"))
		nginx |= rai_ingress_is_nginx(ing);
	lo.label_selector = "app=nginx-ingress";
	if (nginx && kube_list(f->c, &KUBE_RES_SERVICES, NULL, &lo,
	    &f->controllers, &e) == -1)
		rai_err_release(&e);
}

static int
fetch_services(struct fetch *f, const char *ns, struct rai_err *err)
{
	int clusterip = 0;
	const cJSON *s;
	int nodeport = 0;
	size_t n = 0, i;

	f->services = cJSON_CreateArray();
	if (f->o == NULL || !f->o->want_services)
		goto index;
	if (kube_list_items(f->c, &KUBE_RES_SERVICES, ns, NULL, service_item,
	    f, NULL, err) == -1)
		return -1;
	cJSON_ArrayForEach(s, f->services) {
		nodeport |= strcmp(rai_json_str_or(s, "spec.type", ""),
		    "NodePort") == 0;
		clusterip |= strcmp(rai_json_str_or(s, "spec.type",
		    "ClusterIP"), "ClusterIP") == 0;
	}
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
	rai_svc_index_build(&f->six, f->services,
	    rai_node_addr_pick(&f->nodes));
	if (clusterip) {
		fetch_ingresses(f, ns);
		rai_svc_index_set_ingress(&f->six, f->ingresses,
		    f->controllers);
	}
	return 0;
}

static int
event_item(void *ud, cJSON *e, struct rai_err *err)
{
	struct fetch *f = ud;

	(void)err;
	if (e == NULL) {
		cJSON_Delete(f->preempted);
		f->preempted = cJSON_CreateArray();
		return 0;
	}
	cJSON_AddItemToArray(f->preempted, e);
	return 0;
}

/*
 * The Preempted events about workloads (not their pods: the workload
 * has its own), for the reasons of jobs that wait to run again.
 */
static int
fetch_preempted(struct fetch *f, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };

	f->preempted = cJSON_CreateArray();
	if (!wants_reasons(f))
		return 0;
	lo.field_selector = PREEMPTED_EVENTS;
	return kube_list_items(f->c, &KUBE_RES_EVENTS, ns, &lo, event_item, f,
	    NULL, err);
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
	if (wants_reasons(f)) {
		memset(&lo, 0, sizeof(lo));
		lo.field_selector = PREEMPTED_EVENTS;
		kube_list_prefetch(f->c, &KUBE_RES_EVENTS, ns, &lo);
	}
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
	/* with reasons every workload waits for its pods: events first */
	if (fetch_workloads(&f, ns, err) == -1 ||
	    fetch_preempted(&f, ns, err) == -1 ||
	    deferred_views(&f, ns, err) == -1 ||
	    invalid_jobs(&f, ns, err) == -1)
		goto out;
	if (jl->n > 0)
		qsort(jl->v, jl->n, sizeof(*jl->v), view_cmp);
	if (wants_reasons(&f))
		rai_job_queue(jl->v, jl->n);
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
	rai_svc_index_release(&f.six);
	free(f.svc_ns);
	cJSON_Delete(f.services);
	cJSON_Delete(f.ingresses);
	cJSON_Delete(f.controllers);
	rai_node_addr_release(&f.nodes);
	cJSON_Delete(f.deferred);
	cJSON_Delete(f.preempted);
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
