/*
 * The workload interface on the Run:ai control plane's REST API. The
 * API work is cp_work's, cp_nodes' and cp_metrics'; this file makes
 * their answers the neutral records both modes print, and finds the
 * way to a job's pods for the streams.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/config.h"
#include "runai/cluster_api.h"
#include "runai/cp_assets.h"
#include "runai/cp_manifest.h"
#include "runai/cp_metrics.h"
#include "runai/cp_nodes.h"
#include "runai/cp_dist_inference.h"
#include "runai/cp_objects.h"
#include "runai/cp_pages.h"
#include "runai/cp_update.h"
#include "runai/cp_work.h"
#include "runai/wl_cp.h"
#include "runai/wl_kube_detail.h"

#include "core/banned.h"

/* The API has no watch: the list is asked for again this often. */
#define WATCH_POLL_MS	2000L

struct wl_cp {
	struct rai_wl		 base;
	struct rai_wl_cp_opts	 o;
	char			*default_project;
};

#define CP(wl)		(((struct wl_cp *)(wl))->o.cp)
#define OPTS(wl)	(&((struct wl_cp *)(wl))->o)

/* -p, else the default project of the settings; NULL when neither. */
static const char *
project_or_default(const struct rai_wl *wl)
{
	const char *def = ((const struct wl_cp *)wl)->default_project;

	if (wl->asked_project != NULL)
		return wl->asked_project;
	return def != NULL && *def != '\0' ? def : NULL;
}

static int
cp_resolve(struct rai_wl *wl, const char *hint, struct rai_err *err)
{
	const char *p = project_or_default(wl);

	(void)hint;	/* -A is the same with and without a default */
	if (p != NULL) {
		wl->project = xstrdup(p);
		return 0;
	}
	rai_err_set(err, RAI_E_CONFIG, "no default project is set");
	rai_err_set_hint(err, "run 'runai config project <name>' or use -p "
	    "<name>");
	return -1;
}

static int
cp_wl_projects(struct rai_wl *wl, int usage, struct rai_project_list *pl,
    const char **def, struct rai_err *err)
{
	(void)usage;	/* the control plane's list has no use in it */
	if (cp_projects(CP(wl), pl, err) == -1)
		return -1;
	*def = project_or_default(wl);
	return 0;
}

static int
cp_wl_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_err *err)
{
	if (cp_jobs(CP(wl), all ? NULL : wl->project, jl, err) == -1)
		return -1;
	rai_job_queue(jl->v, jl->n);	/* each waiting job's place */
	return 0;
}

static int
cp_jobs_wait(struct rai_wl *wl, int all, const struct rai_job_list *last,
    struct rai_err *err)
{
	(void)wl;
	(void)all;
	(void)last;
	(void)err;
	rai_sleep_ms(WATCH_POLL_MS);
	return 1;
}

static int
cp_job_names(struct rai_wl *wl, struct rai_strv *names, struct rai_err *err)
{
	struct rai_job_list jl = { 0 };
	size_t i;

	if (cp_jobs(CP(wl), wl->project, &jl, err) == -1)
		return -1;
	for (i = 0; i < jl.n; i++)
		rai_strv_push(names, jl.v[i].name);
	rai_job_list_release(&jl);
	return 0;
}

static int
cp_act(struct rai_wl *wl, const char *job, enum rai_wl_action a,
    int *unchanged, struct rai_err *err)
{
	static const enum cp_action actions[] = {
		[RAI_WL_DELETE] = CP_DELETE,
		[RAI_WL_SUSPEND] = CP_SUSPEND,
		[RAI_WL_RESUME] = CP_RESUME,
	};
	cJSON *w = NULL;
	int rc;

	*unchanged = 0;
	rc = cp_job_find(CP(wl), wl->project, job, &w, err) == 0 &&
	    cp_job_belongs(CP(wl), w, wl->project, err) == 0 &&
	    cp_job_action(CP(wl), w, actions[a], err) == 0 ? 0 : -1;
	cJSON_Delete(w);
	return rc;
}

/* ---- describe ---- */

/* An inference's replicas, and the bounds they scale between. */
static void
add_replicas(struct rai_job_detail *d, const cJSON *w)
{
	double n = rai_json_num(w, "requestedPods.number", -1);
	double lo = rai_json_num(w, "requestedPods.min", -1);
	double hi = rai_json_num(w, "requestedPods.max", -1);

	if (strcmp(rai_json_str_or(w, "type", ""), "Inference") != 0 || n < 0)
		return;
	if (lo >= 0 && hi >= 0)
		rai_job_detail_field(d, "REPLICAS", "%.0f (min %.0f, max %.0f)",
		    n, lo, hi);
	else
		rai_job_detail_field(d, "REPLICAS", "%.0f", n);
}

static void
add_fields(struct rai_job_detail *d, const cJSON *w)
{
	const struct rai_job_view *v = &d->v;

	rai_job_detail_field(d, "NAME", "%s", v->name);
	rai_job_detail_field(d, "ID", "%s", v->uid);
	rai_job_detail_field(d, "PROJECT", "%s", v->project);
	rai_job_detail_field(d, "NAMESPACE", "%s", v->namespace);
	rai_job_detail_field(d, "TYPE", "%s", v->type);
	rai_job_detail_field(d, "STATUS", "%s", v->status);
	rai_job_detail_field(d, "PHASE", "%s", rai_json_str_or(w, "phase",
	    ""));
	rai_job_detail_field(d, "IMAGE", "%s", v->image);
	rai_job_detail_field(d, "USER", "%s", v->user);
	rai_job_detail_field(d, "GPUs ALLOCATED (REQUESTED)", "%s", v->gpus);
	rai_job_detail_field(d, "RUNNING PODS", "%d", v->pods_running);
	rai_job_detail_field(d, "PENDING PODS", "%d", v->pods_pending);
	add_replicas(d, w);
	rai_job_detail_field(d, "CREATED", "%s", rai_json_str_or(w,
	    "createdAt", ""));
}

static void
add_pods(struct rai_job_detail *d, const cJSON *pods)
{
	const cJSON *p;
	struct rai_wl_pod *r;

	d->pods = xcalloc((size_t)cJSON_GetArraySize(pods) + 1,
	    sizeof(*d->pods));
	d->pod_cols = RAI_WL_POD_IMAGE;
	cJSON_ArrayForEach(p, pods) {
		r = &d->pods[d->npods++];
		r->name = xstrdup(rai_json_str_or(p, "name", ""));
		r->status = xstrdup(rai_json_str_or(p, "k8sPhase", ""));
		r->node = xstrdup(rai_json_str_or(p, "nodeName", "N/A"));
		r->image = xstrdup(rai_json_str_or(cJSON_GetArrayItem(
		    rai_json_array(p, "containers"), 0), "image", ""));
	}
}

static void
add_events(struct rai_job_detail *d, const cJSON *events)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, events)
		rai_job_detail_event(d, rai_json_str_or(e, "involvedObject.kind",
		    ""), rai_json_str_or(e, "involvedObject.name", ""),
		    rai_json_str_or(e, "type", ""), rai_parse_rfc3339(
		    rai_json_str_or(e, "createdAt", "")), rai_json_str_or(e,
		    "reason", ""), rai_json_str_or(e, "message", ""));
}

/*
 * -o json|yaml: the control plane's own objects as it gave them - the
 * workload in detail, as submitted, its pods and events (taken over).
 */
static int
make_doc(struct rai_wl *wl, struct rai_job_detail *d, const cJSON *w,
    cJSON **pods, cJSON **events, struct rai_err *err)
{
	cJSON *detailed = NULL, *submitted = NULL;

	if (cp_job_detail(CP(wl), w, &detailed, &submitted, err) == -1)
		return -1;
	d->doc = cJSON_CreateObject();
	cJSON_AddItemToObject(d->doc, "workload", detailed);
	cJSON_AddItemToObject(d->doc, "submitted", submitted != NULL ?
	    submitted : cJSON_CreateNull());
	cJSON_AddItemToObject(d->doc, "pods", *pods);
	cJSON_AddItemToObject(d->doc, "events", *events);
	*pods = *events = NULL;
	return 0;
}

static int cp_stream(struct rai_wl *, const char *, int,
    struct rai_wl_stream *, struct rai_err *);

/*
 * Why the job waits or stopped, from its phase message and conditions;
 * a queued one's place (the project's list again), a stopped one's last
 * log lines (on the cluster's Kubernetes API, where it can be reached).
 * What cannot be read is left out with a note.
 */
static void
add_why(struct rai_wl *wl, struct rai_job_detail *d, const cJSON *w)
{
	struct rai_why_facts facts;
	struct rai_wl_stream st = { 0 };
	struct rai_job_list jl;
	struct rai_err err = { 0 };

	memset(&facts, 0, sizeof(facts));
	facts.status = d->v.status;
	facts.project = d->v.project;
	rai_why_from_cp(&facts, w);
	rai_job_why_make(&facts, time(NULL), &d->why);
	if (rai_why_queued(d->why.kind)) {
		if (cp_jobs(CP(wl), wl->project, &jl, &err) == 0) {
			rai_job_queue(jl.v, jl.n);
			rai_job_why_queue(&d->why, jl.v, jl.n, NULL, d->v.name);
			rai_job_list_release(&jl);
		} else
			rai_log(RAI_LOG_NOTE, "the project's queue: %s",
			    err.message != NULL ? err.message : "");
		rai_err_release(&err);
	}
	if (d->why.log_pod == NULL)
		return;
	if (cp_stream(wl, "runai describe job", 1, &st, &err) == -1 ||
	    (st.client != NULL && rai_wl_kube_log_tail(st.client, st.ns,
	    &d->why, &err) == -1))
		rai_log(RAI_LOG_NOTE, "the log of pod %s: %s", d->why.log_pod,
		    err.message != NULL ? err.message : "");
	rai_err_release(&err);
}

static int
cp_describe(struct rai_wl *wl, const char *job, int doc,
    struct rai_job_detail *d, struct rai_err *err)
{
	cJSON *w = NULL, *pods = NULL, *events = NULL;
	int rc = -1;

	if (cp_job_find(CP(wl), wl->project, job, &w, err) == 0 &&
	    cp_job_list_of(CP(wl), w, "pods", &pods, err) == 0 &&
	    cp_job_list_of(CP(wl), w, "events", &events, err) == 0) {
		cp_job_view(w, &d->v);
		add_fields(d, w);
		add_pods(d, pods);
		add_events(d, events);
		add_why(wl, d, w);
		rc = doc ? make_doc(wl, d, w, &pods, &events, err) : 0;
		if (rc == 0 && doc)
			rai_job_why_doc(d->doc, &d->why);
	}
	cJSON_Delete(w);
	cJSON_Delete(pods);
	cJSON_Delete(events);
	return rc;
}

/* ---- submit ---- */

/*
 * A dry run's request is shown: variables named like secrets redacted,
 * in every container of it (a distributed inference's leader and
 * worker, an MPI launcher's copy).
 */
static void
redact(cJSON *node)
{
	cJSON *c, *e;

	cJSON_ArrayForEach(c, node) {
		if (c->string == NULL ||
		    strcmp(c->string, "environmentVariables") != 0) {
			redact(c);
			continue;
		}
		cJSON_ArrayForEach(e, c)
			if (rai_is_secret_name(rai_json_str_or(e, "name", ""),
			    strlen(rai_json_str_or(e, "name", ""))))
				rai_json_set_str(e, "value", "<redacted>");
	}
}

/*
 * The name submit reports: the one runai sent, which is the job's (an
 * answer may carry none, or null); for a name the control plane makes
 * from a prefix, the answer's, else the workload's by the answer's id,
 * else the prefix.
 */
static char *
submitted_name(struct rai_wl *wl, const cJSON *answer,
    const struct rai_wl_submit *s)
{
	const char *got = rai_json_str(answer, "name");
	char *named;

	if (s->spec->name != NULL && *s->spec->name != '\0')
		return xstrdup(s->spec->name);
	if (got != NULL && *got != '\0')
		return xstrdup(got);
	named = cp_job_name_of(CP(wl), rai_json_str(answer, "workloadId"));
	return named != NULL ? named : xstrdup(s->prefix != NULL ? s->prefix :
	    "job");
}

static int
cp_submit_op(struct rai_wl *wl, struct rai_wl_submit *s, struct rai_err *err)
{
	cJSON *out = NULL;

	/* what these flags do lies beyond the spec: refused, not lost */
	if (s->jupyter || s->user != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--%s is not supported in "
		    "control-plane mode yet", s->jupyter ? "jupyter" : "user");
	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	s->spec->project = wl->project;
	if ((s->inference != NULL || s->dist_inference != NULL ?
	    cp_submit_inference(CP(wl), s->spec, s->inference,
	    s->dist_inference, s->prefix, s->dry_run, &out, err) :
	    cp_submit(CP(wl), s->spec, s->dist, s->prefix, s->tmpl,
	    s->dry_run, &out, err)) == -1)
		return -1;
	if (s->dry_run) {
		redact(out);
		s->request = out;
		s->request_path = s->dist_inference != NULL ?
		    CP_DIST_INFERENCES_PATH : s->inference != NULL ?
		    CP_INFERENCES_PATH : cp_submit_path(s->spec, s->dist);
		return 0;
	}
	s->name = submitted_name(wl, out, s);
	cJSON_Delete(out);
	return 0;
}

static int
cp_manifest_op(struct rai_wl *wl, struct rai_wl_manifest *m,
    struct rai_err *err)
{
	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	return cp_submit_manifest(CP(wl), wl->project, m, err);
}

static int
cp_scale_op(struct rai_wl *wl, struct rai_wl_scale *u, struct rai_err *err)
{
	struct cp_scale cs = { 0 };
	int rc;

	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	cs.project = wl->project;
	cs.name = u->job;
	cs.replicas = u->replicas;
	cs.dry_run = u->dry_run;
	rc = cp_scale_dist_inference(CP(wl), &cs, err);
	if (rc == 0 && u->dry_run) {
		u->request = cs.request;
		u->request_path = cs.path;
		cs.request = NULL;
		cs.path = NULL;
	}
	cp_scale_release(&cs);
	return rc;
}

static int
cp_update_op(struct rai_wl *wl, struct rai_wl_update *u, struct rai_err *err)
{
	struct cp_update cu = { 0 };
	int rc;

	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	cu.project = wl->project;
	cu.name = u->job;
	cu.spec = u->spec;
	cu.scaling = u->scaling;
	cu.dry_run = u->dry_run;
	rc = cp_update_inference(CP(wl), &cu, err);
	if (rc == 0 && u->dry_run) {
		redact(cu.request);
		u->request = cu.request;
		u->request_path = cu.path;
		cu.request = NULL;
		cu.path = NULL;
	}
	cp_update_release(&cu);
	return rc;
}

/* ---- use ---- */

/* The control plane's names for top job's numbers, in its order. */
static const char *const job_metrics[RAI_TOP_JOB_NMETRICS] = {
	"GPU_UTILIZATION",
	"GPU_MEMORY_REQUEST_BYTES",
	"GPU_MEMORY_USAGE_BYTES",
	"CPU_REQUEST_CORES",
	"CPU_USAGE_CORES",
	"CPU_MEMORY_REQUEST_BYTES",
	"CPU_MEMORY_USAGE_BYTES",
};

/*
 * The same numbers as top node's from the node metrics (2.21+): the
 * GPU's memory and idle time have no node metric there ("-").
 */
static const char *const node_metrics[RAI_TOP_NODE_NMETRICS] = {
	"CPU_UTILIZATION",
	"CPU_MEMORY_USAGE_BYTES",
	"GPU_UTILIZATION_PER_GPU",
	"GPU_MEMORY_USAGE_BYTES_PER_GPU",
	NULL,
	NULL,
};

/*
 * The jobs, and for each running one GET /api/v1/workloads/{id}/metrics;
 * the metrics are optional: the first failure goes to qerr and no more
 * are asked for.
 */
static int
cp_top_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_prom_vec *m, time_t now, struct rai_err *qerr,
    struct rai_err *err)
{
	char *path;
	size_t i;
	int rc;

	if (cp_jobs(CP(wl), all ? NULL : wl->project, jl, err) == -1)
		return -1;
	for (i = 0; i < jl->n; i++) {
		if (strcmp(jl->v[i].status, "Running") != 0)
			continue;
		path = xasprintf("/api/v1/workloads/%s/metrics", jl->v[i].uid);
		rc = cp_metrics(CP(wl), path, job_metrics, RAI_TOP_JOB_NMETRICS,
		    RAI_TOP_JOB_LABEL, jl->v[i].uid, now, m, qerr);
		free(path);
		if (rc == -1)
			break;
	}
	return 0;
}

static int
cp_wl_nodes(struct rai_wl *wl, struct rai_node_list *nl, struct rai_err *err)
{
	return cp_nodes(CP(wl), nl, err);
}

/*
 * Each node's metrics from GET /api/v1/nodes/{id}/metrics; a release
 * without node metrics (before 2.21: no node ids) shows capacity only.
 */
static int
cp_node_metrics(struct rai_wl *wl, const struct rai_node_list *nl,
    const char *only, struct rai_prom_vec *m, time_t now,
    struct rai_err *qerr, struct rai_err *err)
{
	char *path;
	size_t i;
	int rc;

	(void)err;
	for (i = 0; i < nl->n; i++) {
		if (nl->v[i].id == NULL || (only != NULL &&
		    strcmp(only, nl->v[i].name) != 0))
			continue;
		path = xasprintf("/api/v1/nodes/%s/metrics", nl->v[i].id);
		rc = cp_metrics(CP(wl), path, node_metrics,
		    RAI_TOP_NODE_NMETRICS, "node", nl->v[i].name, now, m, qerr);
		free(path);
		if (rc == -1)
			break;
	}
	return 0;
}

/*
 * The clusters the control plane serves; the one logged in to is
 * current, with the default project beside it.
 */
static int
cp_wl_clusters(struct rai_wl *wl, struct rai_wl_clusters *cl,
    struct rai_err *err)
{
	const char *project = project_or_default(wl), *current;
	struct rai_wl_cluster *r;
	const cJSON *it;
	cJSON *all = NULL;
	char *cur;

	if (cp_clusters(CP(wl), &all, err) == -1)
		return -1;
	/* the one chosen is current; none while the choice is open */
	if (cp_cluster_use(CP(wl), err) == -1)
		rai_err_release(err);
	/* copied: the session may read its store again */
	current = cp_cluster(CP(wl), "id");
	cur = current != NULL ? xstrdup(current) : NULL;
	cl->where = xasprintf("Clusters of the control plane %s:",
	    cp_url(CP(wl)));
	cl->has_state = 1;
	cl->v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*cl->v));
	cJSON_ArrayForEach(it, all) {
		r = &cl->v[cl->n++];
		r->name = xstrdup(rai_json_str_or(it, "name", ""));
		r->current = cur != NULL && strcmp(rai_json_str_or(it, "uuid",
		    ""), cur) == 0;
		r->project = xstrdup(r->current && project != NULL ? project :
		    "");
		r->state = xstrdup(rai_json_str_or(it, "status.state", "-"));
		r->version = xstrdup(rai_json_str_or(it, "version", "-"));
		r->id = xstrdup(rai_json_str_or(it, "uuid", ""));
	}
	cJSON_Delete(all);
	free(cur);
	return 0;
}

/* ---- the CLI v2 grammar's objects ---- */

/*
 * The projects a page at a time: the next token is the offset the
 * control plane gave for the page after.
 */
static int
cp_wl_project_page(struct rai_wl *wl, int usage, struct rai_wl_page *pg,
    struct rai_project_list *pl, const char **def, struct rai_err *err)
{
	struct cp_pages cpg = { 0 };
	char *end;

	(void)usage;	/* the control plane's projects carry their use */
	if (pg->start != NULL) {
		cpg.offset = strtol(pg->start, &end, 10);
		if (end == pg->start || *end != '\0' || cpg.offset < 0)
			return rai_err_set(err, RAI_E_USAGE, "'%s' is no next "
			    "token of the control plane's project list",
			    pg->start);
	}
	cpg.limit = pg->page_size > 0 ? pg->page_size : CP_PAGE_LIMIT;
	cpg.max_items = pg->max_items;
	cpg.one_page = pg->one_page;
	if (cp_project_page(CP(wl), &cpg, pl, err) == -1)
		return -1;
	if (cpg.next >= 0)
		pg->next = xasprintf("%ld", cpg.next);
	*def = project_or_default(wl);
	return 0;
}

static int
cp_wl_node_pools(struct rai_wl *wl, struct rai_wl_node_pools *np,
    struct rai_err *err)
{
	return cp_node_pools(CP(wl), np, err);
}

static int
cp_wl_pvcs(struct rai_wl *wl, struct rai_wl_pvcs *pv, struct rai_err *err)
{
	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	return cp_pvcs(CP(wl), wl->project, pv, err);
}

/* The project's assets (and its scopes' above), or every one with all. */
static int
cp_wl_assets(struct rai_wl *wl, enum rai_wl_asset_kind kind,
    const struct rai_wl_asset_query *q, struct rai_wl_assets *as,
    struct rai_err *err)
{
	if (!q->all && rai_wl_resolve(wl, NULL, err) == -1) {
		rai_err_set_hint(err, "run 'runai config project <name>', use "
		    "-p <name>, or -A for every scope");
		return -1;
	}
	return cp_assets(CP(wl), kind, q->all ? NULL : wl->project, q, as,
	    err);
}

/* ---- streams ---- */

/*
 * The cluster's Kubernetes API client. A context whose user has no
 * credentials of its own sends the control plane's token, which a
 * cluster with Run:ai's cluster authentication accepts (the token is
 * the one of this moment: a stream outliving it is not renewed).
 */
static int
stream_client(struct rai_wl *wl, struct rai_err *err)
{
	struct rai_wl_cp_opts *o = OPTS(wl);
	struct kube_session *ks = o->ks;
	struct kube_client_opts co = { 0 };
	char *token = NULL;

	if (ks->client != NULL)
		return 0;
	if (o->load_kubeconfig(o->ud, err) == -1)
		return -1;
	kube_conn_release(&ks->conn);
	if (kube_config_resolve(ks->kcfg, &ks->conn, err) == -1)
		return -1;
	if (ks->conn.auth == KUBE_AUTH_NONE) {
		if (cp_access_token(o->cp, &token, err) == -1)
			return -1;
		ks->conn.auth = KUBE_AUTH_TOKEN;
		ks->conn.token = token;
	}
	co.request_timeout_ms = o->request_timeout_ms;
	co.max_retries = -1;
	co.user_agent = o->user_agent;
	return kube_client_new(&ks->client, &ks->conn, &co, err);
}

/* A log may come through the cluster's own endpoint, when one is known. */
static int
has_cluster_endpoint(struct rai_wl *wl)
{
	const char *domain = cp_cluster(CP(wl), "domain");

	return domain != NULL && *domain != '\0';
}

static int
cp_stream(struct rai_wl *wl, const char *what, int log,
    struct rai_wl_stream *st, struct rai_err *err)
{
	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	if (wl->ns == NULL && cp_project_namespace(CP(wl), wl->project,
	    &wl->ns, err) == -1)
		return -1;
	if (stream_client(wl, err) == 0) {
		st->client = OPTS(wl)->ks->client;
		st->ns = wl->ns;
		return 0;
	}
	if (log && has_cluster_endpoint(wl)) {
		rai_log(RAI_LOG_NOTE, "no way to the cluster's Kubernetes API "
		    "(%s): the log comes through the cluster's own endpoint",
		    err->message != NULL ? err->message : "");
		rai_err_release(err);
		st->cluster_log = 1;
		return 0;
	}
	rai_err_prefix(err, "in control-plane mode '%s' goes through the "
	    "cluster's Kubernetes API", what);
	rai_err_set_hint(err, "the kubeconfig context must reach the "
	    "cluster's API server; the control plane has no API for it");
	return -1;
}

/*
 * A training's log through the cluster's own /cluster-api endpoint on
 * the domain the control plane names, with its token; it serves the log
 * as it is, so only a training's can be read.
 */
static int
cp_cluster_log(struct rai_wl *wl, const char *job, kube_bytes_fn *on_bytes,
    void *ud, struct rai_err *err)
{
	struct cluster_api_req r = { .project = wl->project, .workload = job,
	    .user_agent = OPTS(wl)->user_agent };
	const char *type;
	cJSON *w = NULL;
	char *domain, *token = NULL;
	int rc = -1;

	if (cp_job_find(CP(wl), wl->project, job, &w, err) == -1)
		return -1;
	type = rai_json_str_or(w, "type", "");
	if (strcmp(type, "Training") != 0) {
		rai_err_set(err, RAI_E_CONFIG, "without a kubeconfig for the "
		    "cluster only a training's log can be read (through the "
		    "cluster's own endpoint); %s is a %s", job, type);
		rai_err_set_hint(err, "a kubeconfig context that reaches the "
		    "cluster's API server reads every job's log");
		cJSON_Delete(w);
		return -1;
	}
	cJSON_Delete(w);
	/* cp_cluster's answer lasts only until the next call on cp */
	domain = xstrdup(cp_cluster(CP(wl), "domain") != NULL ?
	    cp_cluster(CP(wl), "domain") : "");
	if (cp_access_token(CP(wl), &token, err) == 0) {
		r.domain = domain;
		r.token = token;
		rc = cluster_api_logs(&r, on_bytes, ud, err);
	}
	rai_free_secret(token);
	free(domain);
	return rc;
}

static void
cp_wl_free(struct rai_wl *wl)
{
	struct wl_cp *c = (struct wl_cp *)wl;

	cp_free(c->o.cp);
	free(c->default_project);
	rai_wl_release(wl);
	free(c);
}

static const struct rai_wl_ops cp_ops = {
	.resolve = cp_resolve,
	.projects = cp_wl_projects,
	.jobs = cp_wl_jobs,
	.jobs_wait = cp_jobs_wait,
	.job_names = cp_job_names,
	.describe = cp_describe,
	.act = cp_act,
	.submit = cp_submit_op,
	.update = cp_update_op,
	.scale = cp_scale_op,
	.submit_manifest = cp_manifest_op,
	.top_jobs = cp_top_jobs,
	.nodes = cp_wl_nodes,
	.node_metrics = cp_node_metrics,
	.clusters = cp_wl_clusters,
	.stream = cp_stream,
	.cluster_log = cp_cluster_log,
	.free = cp_wl_free,
	.project_page = cp_wl_project_page,
	.node_pools = cp_wl_node_pools,
	.pvcs = cp_wl_pvcs,
	.assets = cp_wl_assets,
};

struct rai_wl *
rai_wl_cp_open(const struct rai_wl_cp_opts *o)
{
	struct wl_cp *c = xcalloc(1, sizeof(*c));

	rai_wl_init(&c->base, &cp_ops, o->asked_project,
	    "in control-plane mode yet");
	c->o = *o;
	c->o.asked_project = c->o.default_project = NULL;
	if (o->default_project != NULL)
		c->default_project = xstrdup(o->default_project);
	return &c->base;
}

struct cp *
rai_wl_cp_session(struct rai_wl *wl)
{
	return wl != NULL && wl->ops == &cp_ops ? CP(wl) : NULL;
}
