/*
 * describe job on Kubernetes objects: the workload, the pods it owns
 * and the events about either, made into the neutral record (fields in
 * the original CLI's order, the Pods table with each pod's role and
 * age, a distributed job's conditions, the events oldest first) and the
 * original CLI's -o json structure (pkg/types/training.go).
 */
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
#include "kube/quantity.h"
#include "runai/dist.h"
#include "runai/job.h"
#include "runai/job_pod.h"
#include "runai/wl_kube_detail.h"

#include "core/banned.h"

/* What describe reads beyond the list view. */
struct objs {
	const struct rai_job_view *v;
	cJSON	*wl;		/* the workload object */
	cJSON	*pods;		/* array of the job's pods */
	cJSON	*events;	/* array, sorted by time */
};

static const struct kube_res *
res_of(const char *kind)
{
	if (rai_dist_by_kind(kind) != NULL)
		return rai_dist_by_kind(kind)->res;
	if (strcmp(kind, "Job") == 0)
		return &KUBE_RES_JOBS;
	if (strcmp(kind, "Deployment") == 0)
		return &KUBE_RES_DEPLOYMENTS;
	if (strcmp(kind, "StatefulSet") == 0)
		return &KUBE_RES_STATEFULSETS;
	return &KUBE_RES_RUNAIJOBS;
}

static int
event_about(const cJSON *ev, const struct objs *o)
{
	const char *uid = rai_json_str_or(ev, "involvedObject.uid", "");
	const char *name = rai_json_str_or(ev, "involvedObject.name", "");
	const cJSON *p;
	const char *pg;

	if (strcmp(uid, o->v->uid) == 0)
		return 1;
	cJSON_ArrayForEach(p, o->pods) {
		pg = rai_json_annotation(p, "pod-group-name");
		if (strcmp(uid, rai_json_str_or(p, "metadata.uid", "")) == 0 ||
		    (pg != NULL && strcmp(name, pg) == 0))
			return 1;
	}
	return 0;
}

static const char *
event_time(const cJSON *ev)
{
	const char *t = rai_json_str(ev, "lastTimestamp");

	if (t == NULL)
		t = rai_json_str(ev, "eventTime");
	return t ? t : rai_json_str_or(ev, "metadata.creationTimestamp", "");
}

static int
event_cmp(const void *a, const void *b)
{
	return strcmp(event_time(*(cJSON *const *)a),
	    event_time(*(cJSON *const *)b));
}

static int
fetch_events(struct kube_client *c, const char *ns, struct objs *o,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL, *items, *e, **v = NULL;
	size_t n = 0, i;

	if (kube_list(c, &KUBE_RES_EVENTS, ns, &lo, &list, err) == -1)
		return -1;
	items = cJSON_GetObjectItemCaseSensitive(list, "items");
	v = xcalloc((size_t)cJSON_GetArraySize(items) + 1, sizeof(*v));
	while ((e = cJSON_DetachItemFromArray(items, 0)) != NULL) {
		if (event_about(e, o))
			v[n++] = e;
		else
			cJSON_Delete(e);
	}
	qsort(v, n, sizeof(*v), event_cmp);
	o->events = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(o->events, v[i]);
	free(v);
	cJSON_Delete(list);
	return 0;
}

static char *
upper_dup(const char *s)
{
	char *u = xstrdup(s), *p;

	for (p = u; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return u;
}

static const char *
pod_status(const cJSON *p)
{
	const char *s = rai_json_annotation(p, "runai-calculated-status");

	return s ? s : rai_json_str_or(p, "status.phase", "Unknown");
}

/* A distributed job's pods: the replicas of every replica type. */
static double
dist_replicas(const struct objs *o)
{
	const struct rai_dist_framework *fw = rai_dist_by_kind(o->v->kind);
	const cJSON *r;
	double n = 0;

	cJSON_ArrayForEach(r, rai_json_get(rai_json_get(o->wl, "spec"),
	    fw->specs_key))
		n += rai_json_num(r, "replicas", 1);
	return n;
}

static double
ann_num(const cJSON *obj, const char *key, double def)
{
	const char *s = rai_json_annotation(obj, key);
	char *end;
	double v;

	if (s == NULL)
		return def;
	v = strtod(s, &end);
	return end == s ? def : v;
}

static int
count_phase(const cJSON *pods, const char *phase)
{
	const cJSON *p;
	int n = 0;

	cJSON_ArrayForEach(p, pods)
		n += strcmp(rai_json_str_or(p, "status.phase", ""), phase) == 0;
	return n;
}

/* PodInitialized of the earliest pod to its Ready change when finished. */
static long
training_seconds(const struct objs *o, time_t now)
{
	const cJSON *p, *c;
	time_t start = 0, end = now, t;

	cJSON_ArrayForEach(p, o->pods) {
		cJSON_ArrayForEach(c, rai_json_array(p, "status.conditions")) {
			t = rai_parse_rfc3339(rai_json_str_or(c,
			    "lastTransitionTime", ""));
			if (t == (time_t)-1)
				continue;
			if (strcmp(rai_json_str_or(c, "type", ""),
			    "Initialized") == 0 && (start == 0 || t < start))
				start = t;
			if (o->v->finished && strcmp(rai_json_str_or(c, "type",
			    ""), "Ready") == 0)
				end = t;
		}
	}
	return start == 0 || end < start ? 0 : (long)(end - start);
}

/* The original CLI's "KEY: value" lines, in its order. */
static void
add_fields(struct rai_job_detail *d, const struct objs *o, time_t now)
{
	const struct rai_job_view *v = o->v;
	int dist = rai_dist_by_kind(v->kind) != NULL;
	double par = dist ? dist_replicas(o) : rai_json_num(o->wl,
	    "spec.parallelism", 1);
	double comp = dist ? par : rai_json_num(o->wl, "spec.completions", 1);
	double mem = ann_num(o->wl, "runai-current-allocated-gpus-memory", 0);
	char dur[32];

	rai_fmt_go_duration(training_seconds(o, now), dur, sizeof(dur));
	rai_job_detail_field(d, "NAME", "%s", v->name);
	rai_job_detail_field(d, "NAMESPACE", "%s", v->namespace);
	rai_job_detail_field(d, "TYPE", "%s", v->type);
	rai_job_detail_field(d, "STATUS", "%s", v->status);
	rai_job_detail_field(d, "TRAINING DURATION", "%s", dur);
	rai_job_detail_field(d, "GPUS", "%g", v->gpus_requested);
	rai_job_detail_field(d, "TOTAL REQUESTED GPUS", "%g", ann_num(o->wl,
	    "runai-total-requested-gpus", v->gpus_requested * comp));
	rai_job_detail_field(d, "ALLOCATED GPUS", "%g", v->gpus_allocated);
	if (mem > 0)
		rai_job_detail_field(d, "ALLOCATED GPUS MEMORY", "%gM", mem);
	else
		rai_job_detail_field(d, "ALLOCATED GPUS MEMORY", "0");
	rai_job_detail_field(d, "RUNNING PODS", "%d", v->pods_running);
	rai_job_detail_field(d, "PENDING PODS", "%d", v->pods_pending);
	rai_job_detail_field(d, "PARALLELISM", "%g", par);
	rai_job_detail_field(d, "COMPLETIONS", "%g", comp);
	rai_job_detail_field(d, "SUCCEEDED PODS", "%d", count_phase(o->pods,
	    "Succeeded"));
	rai_job_detail_field(d, "FAILED PODS", "%d", count_phase(o->pods,
	    "Failed"));
	rai_job_detail_field(d, "IS DISTRIBUTED WORKLOAD", "%s", par > 1 ?
	    "true" : "false");
	rai_job_detail_field(d, "CREATED BY CLI", "%s", v->created_by_cli ?
	    "true" : "false");
	rai_job_detail_field(d, "SERVICE URL(S)", "%s", v->service_urls);
	rai_job_detail_field(d, "COMMAND LINE", "%s", *v->command_line ?
	    v->command_line : "N/A");
}

static void
add_pods(struct rai_job_detail *d, const struct objs *o)
{
	const cJSON *p;
	const char *node, *ip;
	struct rai_wl_pod *r;

	d->pods = xcalloc((size_t)cJSON_GetArraySize(o->pods) + 1,
	    sizeof(*d->pods));
	d->pod_cols = RAI_WL_POD_TYPE | RAI_WL_POD_AGE;
	cJSON_ArrayForEach(p, o->pods) {
		r = &d->pods[d->npods++];
		r->name = xstrdup(rai_json_str_or(p, "metadata.name", ""));
		r->status = upper_dup(pod_status(p));
		/* a distributed job's pods differ by their role */
		r->type = upper_dup(rai_dist_pod_role(p) ?
		    rai_dist_pod_role(p) : o->v->type);
		r->created = rai_parse_rfc3339(rai_json_str_or(p,
		    "metadata.creationTimestamp", ""));
		node = rai_json_str_or(p, "spec.nodeName", "");
		ip = rai_json_str_or(p, "status.hostIP", "");
		if (*node && *ip)
			r->node = xasprintf("%s/%s", node, ip);
		else
			r->node = xstrdup(*ip ? ip : *node ? node : "N/A");
	}
}

/* The training operator's conditions on a distributed job, in order. */
static void
add_conditions(struct rai_job_detail *d, const struct objs *o)
{
	const cJSON *conds = rai_json_array(o->wl, "status.conditions"), *c;
	struct rai_wl_condition *r;

	if (rai_dist_by_kind(o->v->kind) == NULL)
		return;
	d->has_conditions = 1;
	d->conditions = xcalloc((size_t)cJSON_GetArraySize(conds) + 1,
	    sizeof(*d->conditions));
	cJSON_ArrayForEach(c, conds) {
		r = &d->conditions[d->nconditions++];
		r->type = xstrdup(rai_json_str_or(c, "type", ""));
		r->status = xstrdup(rai_json_str_or(c, "status", ""));
		r->at = rai_parse_rfc3339(rai_json_str_or(c,
		    "lastTransitionTime", ""));
		r->reason = xstrdup(rai_json_str_or(c, "reason", ""));
		r->message = xstrdup(rai_json_str_or(c, "message", ""));
	}
}

static void
add_events(struct rai_job_detail *d, const struct objs *o)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, o->events)
		rai_job_detail_event(d, rai_json_str_or(e, "involvedObject.kind",
		    ""), rai_json_str_or(e, "involvedObject.name", ""),
		    rai_json_str_or(e, "type", ""), rai_parse_rfc3339(event_time(e)),
		    rai_json_str_or(e, "reason", ""), rai_json_str_or(e, "message",
		    ""));
}

/* Lines of a log describe shows of a container that stopped. */
#define LOG_TAIL_LINES	5
#define LOG_TAIL_BYTES	"16384"

int
rai_wl_kube_log_tail(struct kube_client *c, const char *ns,
    struct rai_job_why *why, struct rai_err *err)
{
	struct kube_resp resp = KUBE_RESP_INIT;
	struct kube_req req = { 0 };
	struct rai_buf path = RAI_BUF_INIT;
	char *base, n[16];
	int rc;

	if (why->log_pod == NULL)
		return 0;
	base = kube_path(&KUBE_RES_PODS, ns, why->log_pod, "log");
	rai_buf_addstr(&path, base);
	free(base);
	kube_path_query(&path, "container", why->log_container);
	snprintf(n, sizeof(n), "%d", LOG_TAIL_LINES);
	kube_path_query(&path, "tailLines", n);
	kube_path_query(&path, "limitBytes", LOG_TAIL_BYTES);
	req.method = "GET";
	req.path = rai_buf_str(&path);
	req.accept = "*/*";
	req.flags = KUBE_REQ_IDEMPOTENT;
	if ((rc = kube_client_do(c, &req, &resp, err)) == 0)
		rai_job_why_log(why, resp.body.data != NULL ? resp.body.data :
		    "", resp.body.len, LOG_TAIL_LINES);
	kube_resp_release(&resp);
	rai_buf_release(&path);
	return rc;
}

/*
 * Why the job waits or stopped: its pods, its Failed condition, the
 * events about it; a queued one's place among its project's waiting
 * jobs (one more list), a stopped one's last log lines. What cannot be
 * read is left out with a note: describe shows the rest.
 */
static void
add_why(struct kube_client *c, const char *ns, const char *project,
    struct rai_job_detail *d, const struct objs *o)
{
	struct rai_job_fetch_opts fo = { NULL, 0, project, 1 };
	struct rai_why_facts facts;
	struct rai_job_list jl;
	struct rai_err err = { 0 };

	memset(&facts, 0, sizeof(facts));
	facts.status = d->v.status;
	facts.project = d->v.project;
	rai_why_from_pods(&facts, o->pods);
	rai_why_from_workload(&facts, o->wl);
	rai_why_from_events(&facts, o->events, d->v.uid);
	rai_job_why_make(&facts, time(NULL), &d->why);
	if (rai_why_queued(d->why.kind)) {
		if (rai_jobs_fetch(c, ns, &fo, &jl, &err) == 0) {
			rai_job_why_queue(&d->why, jl.v, jl.n, ns, d->v.name);
			rai_job_list_release(&jl);
		} else
			rai_log(RAI_LOG_NOTE, "the project's queue: %s",
			    err.message != NULL ? err.message : "");
		rai_err_release(&err);
	}
	if (d->why.log_pod != NULL && rai_wl_kube_log_tail(c, ns, &d->why,
	    &err) == -1)
		rai_log(RAI_LOG_NOTE, "the log of pod %s: %s", d->why.log_pod,
		    err.message != NULL ? err.message : "");
	rai_err_release(&err);
}

/* The original CLI's -o json|yaml structure (pkg/types/training.go). */
static cJSON *
detail_json(const struct objs *ob, time_t now)
{
	const struct rai_job_view *v = ob->v;
	cJSON *o = cJSON_CreateObject(), *inst, *i;
	const cJSON *p, *chief = rai_job_chief(ob->pods);
	const char *chief_t = chief ? rai_json_str_or(chief,
	    "metadata.creationTimestamp", "") : "";
	char age[16], *st;

	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "namespace", v->namespace);
	cJSON_AddStringToObject(o, "duration", "");
	cJSON_AddStringToObject(o, "status", v->status);
	cJSON_AddStringToObject(o, "trainer", v->type);
	cJSON_AddStringToObject(o, "chiefName", chief ? rai_json_str_or(chief,
	    "metadata.name", "") : "");
	inst = cJSON_AddArrayToObject(o, "instances");
	cJSON_ArrayForEach(p, ob->pods) {
		i = cJSON_CreateObject();
		st = upper_dup(pod_status(p));
		cJSON_AddStringToObject(i, "status", st);
		free(st);
		cJSON_AddStringToObject(i, "name", rai_json_str_or(p,
		    "metadata.name", ""));
		cJSON_AddStringToObject(i, "age", rai_fmt_age(
		    rai_parse_rfc3339(chief_t), now, age));
		cJSON_AddStringToObject(i, "node", rai_json_str_or(p,
		    "status.hostIP", ""));
		cJSON_AddBoolToObject(i, "chief", p == chief);
		cJSON_AddItemToArray(inst, i);
	}
	cJSON_AddStringToObject(o, "priority", "N/A");
	cJSON_AddStringToObject(o, "commandLine", v->command_line);
	return o;
}

int
rai_wl_kube_detail(struct kube_client *c, const char *ns, const char *project,
    const char *job, int doc, struct rai_job_detail *d, struct rai_err *err)
{
	struct objs o = { &d->v, NULL, NULL, NULL };
	time_t now = time(NULL);
	int rc = -1;

	if (rai_job_find(c, ns, project, job, 1, &d->v, err) == 0 &&
	    kube_get(c, res_of(d->v.kind), ns, d->v.name, &o.wl, err) == 0 &&
	    rai_job_pods(c, ns, d->v.uid, &o.pods, err) == 0 &&
	    fetch_events(c, ns, &o, err) == 0) {
		add_fields(d, &o, now);
		add_pods(d, &o);
		add_conditions(d, &o);
		add_events(d, &o);
		add_why(c, ns, project, d, &o);
		if (doc) {
			d->doc = detail_json(&o, now);
			rai_job_why_doc(d->doc, &d->why);
		}
		rc = 0;
	}
	cJSON_Delete(o.wl);
	cJSON_Delete(o.pods);
	cJSON_Delete(o.events);
	return rc;
}
