/*
 * The workload interface on Kubernetes objects: the cluster's API as
 * the original CLI used it (RunaiJobs and the other kinds of job, pods,
 * Project objects or namespace labels, Prometheus for use). describe's
 * record is made in wl_kube_detail.c.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/config.h"
#include "kube/quantity.h"
#include "kube/token.h"
#include "runai/submit_apply.h"
#include "runai/wl_kube.h"
#include "runai/wl_kube_detail.h"
#include "runai/wl_kube_manifest.h"
#include "runai/wl_kube_objects.h"
#include "runai/workload.h"

#include "core/banned.h"

struct wl_kube {
	struct rai_wl		 base;
	struct kube_session	*ks;		/* the program run's, borrowed */
	long			 listed_ms;	/* when jobs last listed */
	int			 watched;	/* jobs_wait ran before */
};

#define KUBE(wl)	((struct wl_kube *)(wl))
#define CLIENT(wl)	(KUBE(wl)->ks->client)

/*
 * The project: -p wins, then the current context's namespace label
 * (runai/queue), as the reference CLI resolves it.
 */
static int
kube_resolve(struct rai_wl *wl, const char *hint, struct rai_err *err)
{
	const char *ctx_ns = KUBE(wl)->ks->conn.namespace;

	if (wl->asked_project != NULL) {
		if (rai_project_namespace(CLIENT(wl), wl->asked_project,
		    &wl->ns, err) == -1)
			return -1;
		wl->project = xstrdup(wl->asked_project);
		return 0;
	}
	if (rai_namespace_project(CLIENT(wl), ctx_ns, &wl->project,
	    err) == -1)
		return -1;
	if (wl->project == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no default project is set");
		rai_err_set_hint(err, "%s", hint);
		return -1;
	}
	wl->ns = xstrdup(ctx_ns);
	return 0;
}

static int
kube_projects(struct rai_wl *wl, int usage, struct rai_project_list *pl,
    const char **def, struct rai_err *err)
{
	if (rai_projects_fetch(CLIENT(wl), pl, err) == -1)
		return -1;
	if (usage && rai_projects_fetch_usage(CLIENT(wl), pl, err) == -1) {
		rai_project_list_release(pl);
		return -1;
	}
	*def = rai_project_from_namespace_name(KUBE(wl)->ks->conn.namespace);
	return 0;
}

static int
kube_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_err *err)
{
	struct rai_job_fetch_opts fo = { NULL, 1, all ? NULL : wl->project,
	    wl->want_reasons };

	KUBE(wl)->listed_ms = rai_now_ms();
	return rai_jobs_fetch(CLIENT(wl), all ? NULL : wl->ns, &fo, jl, err);
}

/* ---- watching the jobs ---- */

/* A new list at most this often, however fast the events come. */
#define RELIST_MIN_MS	1000

struct watch_state {
	char	*rv;		/* where the next watches start */
	int	 changed;	/* a job or one of its pods changed */
};

/*
 * A job changed: stop (the stream is of no more use: the list that
 * follows shows the change and the watches start again after it). A
 * bookmark only moves where the watches resume.
 */
static int
on_event(void *ud, const char *type, const cJSON *obj)
{
	struct watch_state *ws = ud;
	const char *v = rai_json_str(obj, "metadata.resourceVersion");

	if (strcmp(type, "BOOKMARK") != 0) {
		ws->changed = 1;
		return 1;
	}
	if (v != NULL) {
		free(ws->rv);
		ws->rv = xstrdup(v);
	}
	return 0;
}

/* A pod counts when it is a job's: the runai-scheduler places it. */
static int
on_pod_event(void *ud, const char *type, const cJSON *obj)
{
	if (strcmp(type, "BOOKMARK") != 0 && strcmp(rai_json_str_or(obj,
	    "spec.schedulerName", ""), "runai-scheduler") != 0)
		return 0;
	return on_event(ud, type, obj);
}

/*
 * What is watched, each from the list's resourceVersion: the RunaiJobs
 * (whose scheduler annotations follow their pods), the pods themselves
 * (every kind's, distributed jobs' workers too) and the training
 * operator's kinds.
 */
#define NWATCH	(2 + RAI_DIST_NKINDS)

static int
start_watches(struct kube_client *c, const char *ns, struct watch_state *ws,
    struct kube_watch **w, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const struct kube_res *res;
	char *from = xstrdup(ws->rv);
	int i, rc = 0;

	lo.resource_version = from;
	for (i = 0; i < NWATCH && rc == 0; i++) {
		res = i == 0 ? &KUBE_RES_RUNAIJOBS : i == 1 ? &KUBE_RES_PODS :
		    rai_dist_framework((enum rai_dist_kind)(i - 2))->res;
		rc = kube_watch_start(c, res, ns, &lo, 0,
		    i == 1 ? on_pod_event : on_event, ws, &w[i], err);
	}
	free(from);
	return rc;
}

static void
stop_watches(struct kube_watch **w)
{
	int i;

	for (i = 0; i < NWATCH; i++) {
		kube_watch_free(w[i]);
		w[i] = NULL;
	}
}

/* Whether a watch besides number i is still open. */
static int
others(struct kube_watch *const *w, int i)
{
	int j;

	for (j = 0; j < NWATCH; j++)
		if (j != i && w[j] != NULL)
			return 1;
	return 0;
}

/*
 * Waits for a change: 1 when one came, 0 when the server ended a watch
 * without one, -1 on errors. A kind the cluster does not serve, or that
 * we may not watch (pods of every namespace, say), is left out; with
 * nothing left to watch, that is the error.
 */
static int
wait_change(struct kube_watch **w, struct watch_state *ws,
    struct rai_err *err)
{
	int i, r;

	for (;;) {
		if (kube_watches_wait(w, NWATCH, 1000, err) == -1)
			return -1;
		for (i = 0; i < NWATCH; i++) {
			if (w[i] == NULL ||
			    (r = kube_watch_result(w[i], err)) == 1)
				continue;
			if (ws->changed)
				return 1;
			if (r == 0)
				return 0;
			if (err->kind != RAI_E_HTTP ||
			    (err->http_status != 404 &&
			    err->http_status != 403) || !others(w, i))
				return -1;
			rai_log(RAI_LOG_NOTE, "not watching %s: %s", i == 0 ?
			    "RunaiJobs" : i == 1 ? "pods" : "a training kind",
			    err->message != NULL ? err->message : "refused");
			rai_err_release(err);
			kube_watch_free(w[i]);
			w[i] = NULL;
		}
		if (ws->changed)
			return 1;
	}
}

/* Where a watch starts when the list gave none (run.ai not served). */
static char *
current_rv(struct kube_client *c, const char *ns, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *l = NULL;
	char *rv;

	lo.limit = 1;
	lo.single_page = 1;
	if (kube_list(c, &KUBE_RES_RUNAIJOBS, ns, &lo, &l, err) == -1)
		return NULL;
	rv = xstrdup(rai_json_str_or(l, "metadata.resourceVersion", ""));
	cJSON_Delete(l);
	return rv;
}

/*
 * How long a watch waits for the API server to come back: 60 s, or
 * $RUNAI_RECONNECT_TIMEOUT (seconds, or a duration such as 2m).
 */
#define RECONNECT_DEFAULT_S	60

static long
reconnect_max_s(void)
{
	const char *v = getenv("RUNAI_RECONNECT_TIMEOUT");
	struct rai_err ignored = RAI_ERR_INIT;
	long s;

	if (v == NULL || rai_parse_duration(v, &s, &ignored) == -1 || s < 0)
		s = RECONNECT_DEFAULT_S;
	rai_err_release(&ignored);
	return s;
}

/*
 * A watch that broke the way a restarting or overloaded API server
 * breaks it (connection cut or refused, 5xx, 429), or whose
 * resourceVersion is too old (410 Gone), is mended by a new list.
 */
static int
watch_retryable(const struct rai_err *err)
{
	if (err->kind == RAI_E_NET)
		return 1;
	return err->kind == RAI_E_HTTP && (err->http_status == 410 ||
	    err->http_status == 429 || err->http_status >= 500);
}

/*
 * After a broken watch: waits, with backoff, until the API server
 * answers a list again (1: list again and watch from there), or fails
 * once reconnect_max_s() have gone by without an answer.
 */
static int
wait_server(struct wl_kube *k, const char *ns, struct rai_err *err)
{
	long start = rai_now_ms(), delay, max_s = reconnect_max_s();
	unsigned rnd = (unsigned)start;
	int attempt = 0;
	char *rv;

	for (;;) {
		delay = rai_http_backoff_ms(++attempt, 0, rnd);
		rnd = rnd * 1103515245u + 12345u;
		if (rai_now_ms() - start + delay > max_s * 1000) {
			rai_err_prefix(err, "watching the jobs: the API server "
			    "did not answer again within %ld s", max_s);
			return -1;
		}
		rai_log(RAI_LOG_NOTE, "watch of the jobs broke: %s; "
		    "reconnecting in %.1fs", err->message != NULL ?
		    err->message : "no answer", (double)delay / 1000);
		rai_err_release(err);
		rai_sleep_ms(delay);
		if ((rv = current_rv(k->ks->client, ns, err)) != NULL) {
			free(rv);
			return 1;
		}
		if (!watch_retryable(err))
			return -1;
	}
}

/*
 * A burst of events costs one list, not one each: the watches stop at
 * the first change, the list then shows every change made so far, and
 * the next watches start at the list's resourceVersion, so the rest of
 * the burst is not replayed; lists are also at least RELIST_MIN_MS
 * apart.
 */
static int
kube_jobs_wait(struct rai_wl *wl, int all, const struct rai_job_list *last,
    struct rai_err *err)
{
	struct wl_kube *k = KUBE(wl);
	const char *ns = all ? NULL : wl->ns;
	struct kube_watch *w[NWATCH] = { 0 };
	struct watch_state ws = { NULL, 0 };
	int rc;

	if (last->resource_version != NULL)
		ws.rv = xstrdup(last->resource_version);
	else if (k->watched)
		return rai_err_set(err, RAI_E_PROTO, "the RunaiJob list has no "
		    "resourceVersion to watch from");
	else if ((ws.rv = current_rv(k->ks->client, ns, err)) == NULL)
		return -1;
	k->watched = 1;
	rc = start_watches(k->ks->client, ns, &ws, w, err);
	if (rc == 0)
		rc = wait_change(w, &ws, err);
	stop_watches(w);
	free(ws.rv);
	/* the server closing a watch (as it does now and then) is no end */
	if (rc == 0)
		rc = 1;
	else if (rc == -1 && watch_retryable(err))
		rc = wait_server(k, ns, err);
	if (rc == 1)
		rai_sleep_ms(RELIST_MIN_MS - (rai_now_ms() - k->listed_ms));
	return rc;
}

/* ---- acting on jobs ---- */

static int
kube_job_names(struct rai_wl *wl, struct rai_strv *names, struct rai_err *err)
{
	char **v;
	size_t n, i;

	if (rai_workload_names(CLIENT(wl), wl->ns, &v, &n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		rai_strv_push(names, v[i]);
		free(v[i]);
	}
	free(v);
	return 0;
}

static int
kube_act_check(struct rai_wl *wl, enum rai_wl_action a, struct rai_err *err)
{
	int ok;

	if (a == RAI_WL_DELETE)
		return 0;
	/* a version that cannot be read allows it, as in the reference */
	if (rai_job_controller_supports_suspend(CLIENT(wl), &ok, err) == -1) {
		rai_err_release(err);
		return 0;
	}
	if (!ok)
		return rai_err_set(err, RAI_E_CONFIG, "runai job controller "
		    "version should be >=0.1.8");
	return 0;
}

static int
kube_act(struct rai_wl *wl, const char *job, enum rai_wl_action a,
    int *unchanged, struct rai_err *err)
{
	if (a == RAI_WL_DELETE)
		return rai_workload_delete(CLIENT(wl), wl->ns, job, err);
	return rai_workload_set_suspend(CLIENT(wl), wl->ns, job,
	    a == RAI_WL_SUSPEND, unchanged, err);
}

/* ---- submit ---- */

/* The id-token's claims when the kubeconfig user logs in with OIDC. */
static cJSON *
token_claims(const struct kube_conn *conn)
{
	if (conn->auth != KUBE_AUTH_OIDC || conn->oidc.id_token == NULL)
		return NULL;
	return kube_jwt_claims(conn->oidc.id_token);
}

/* RunaiJob where the cluster serves it, else batch/v1 Job. */
static int
use_batch_job(struct kube_client *c, int *batch, struct rai_err *err)
{
	int found = 0;

	if (kube_has_group_version(c, "run.ai", "v1", &found, err) == -1)
		return -1;
	*batch = !found;
	if (*batch)
		rai_log(RAI_LOG_NOTE, "run.ai/v1 is not served: submitting a "
		    "batch/v1 Job");
	return 0;
}

/* A distributed job needs the training operator's kind. */
static int
dist_served(struct kube_client *c, const struct rai_dist_spec *dist,
    struct rai_err *err)
{
	const struct rai_dist_framework *fw = rai_dist_framework(dist->kind);
	int found = 0;

	if (kube_has_group_version(c, fw->res->group, fw->res->version,
	    &found, err) == -1)
		return -1;
	if (found)
		return 0;
	rai_err_set(err, RAI_E_NOTFOUND, "the cluster does not serve %s (%ss)",
	    fw->api_version, fw->kind);
	rai_err_set_hint(err, "distributed jobs need the Kubeflow training "
	    "operator%s", fw->res == &RAI_RES_MPIJOBS ? " or the MPI "
	    "operator" : "");
	return -1;
}

/*
 * Who submits: the user (the flag, else the id-token's email, else the
 * local user), the cluster policy's enforced flags, --run-as-user ids,
 * the job index; and whether a RunaiJob can be made at all.
 */
static int
fill_spec(struct wl_kube *k, struct rai_wl_submit *s, long *groups,
    char **user, cJSON **claims, struct rai_err *err)
{
	struct rai_submit_spec *spec = s->spec;
	struct rai_cluster_policy policy;

	spec->project = k->base.project;
	spec->namespace = k->base.ns;
	rai_cluster_policy_read(k->ks->client, &policy);
	if (policy.enforce_run_as_user)
		spec->run_as_user = 1;
	if (policy.enforce_prevent_privilege_escalation)
		spec->prevent_privilege_escalation = 1;
	*claims = token_claims(&k->ks->conn);
	*user = s->user != NULL ? xstrdup(s->user) :
	    rai_submit_default_user(*claims);
	spec->user = *user;
	if (spec->run_as_user)
		rai_submit_ids(spec, *claims, groups, RAI_SUBMIT_MAX_GROUPS);
	if (s->dist == NULL && spec->custom == NULL && !spec->batch_job &&
	    !spec->inference && use_batch_job(k->ks->client,
	    &spec->batch_job, err) == -1)
		return -1;
	spec->job_index = rai_job_index_next(k->ks->client, s->dry_run);
	return 0;
}

/* The dry run's objects: the ConfigMap first, as they are sent. */
static cJSON *
dry_run_list(const struct rai_submit_result *res)
{
	cJSON *list = cJSON_CreateObject(), *items;
	size_t i;

	cJSON_AddStringToObject(list, "apiVersion", "v1");
	cJSON_AddStringToObject(list, "kind", "List");
	items = cJSON_AddArrayToObject(list, "items");
	cJSON_AddItemToArray(items, cJSON_Duplicate(res->configmap, 1));
	for (i = 0; i < res->objs.n; i++)
		cJSON_AddItemToArray(items, cJSON_Duplicate(res->objs.v[i].obj,
		    1));
	return list;
}

static int
kube_submit_manifest(struct rai_wl *wl, struct rai_wl_manifest *m,
    struct rai_err *err)
{
	if (rai_wl_resolve(wl, NULL, err) == -1)
		return -1;
	return rai_wl_kube_manifest(CLIENT(wl), wl->ns, wl->project, m, err);
}

static int
kube_submit(struct rai_wl *wl, struct rai_wl_submit *s, struct rai_err *err)
{
	struct wl_kube *k = KUBE(wl);
	struct rai_submit_result res;
	long groups[RAI_SUBMIT_MAX_GROUPS];
	char *user = NULL;
	cJSON *claims = NULL;
	const char *base = NULL;
	int rc = -1;

	/* the control plane makes an inference's serving objects, not runai */
	if (s->inference != NULL || s->dist_inference != NULL)
		return rai_err_set(err, RAI_E_CONFIG, "inference workloads exist "
		    "only with a Run:ai control plane, and this context is in "
		    "Kubernetes mode ('runai config control-plane URL' sets one)");
	if (s->spec->node_pools != NULL || s->spec->non_preemptible) {
		rai_err_set(err, RAI_E_USAGE, "--%s is for control-plane mode",
		    s->spec->node_pools != NULL ? "node-pools" :
		    "non-preemptible");
		rai_err_set_hint(err, "in Kubernetes mode, --node-type picks "
		    "the nodes");
		return -1;
	}
	if ((s->dist != NULL && dist_served(k->ks->client, s->dist,
	    err) == -1) || fill_spec(k, s, groups, &user, &claims, err) == -1)
		goto out;
	if (s->spec->name == NULL)
		base = s->prefix != NULL ? s->prefix : "job";
	rc = rai_submit_apply(k->ks->client, s->spec, base, s->dry_run ?
	    RAI_SUBMIT_DRY_RUN : 0, s->stop, &res, err);
	if (rc == 0) {
		/* the spec's name pointed into res, which goes now */
		s->name = xstrdup(res.name);
		s->spec->name = s->name;
		if (s->dry_run) {
			s->request = dry_run_list(&res);
			s->request_is_list = 1;
		}
		rai_submit_result_release(&res);
	}
out:
	/* the spec pointed at these; it is not used again after submit */
	s->spec->user = NULL;
	free(user);
	cJSON_Delete(claims);
	return rc;
}

/* ---- use ---- */

static const char *const job_queries[RAI_TOP_JOB_NMETRICS] = {
	"runai_pod_group_gpu_utilization",
	"runai_pod_group_gpu_memory_allocated_bytes",
	"runai_pod_group_gpu_memory_used_bytes",
	"runai_active_job_cpu_requested_cores",
	"runai_pod_group_cpu_usage_cores",
	"runai_active_job_memory_requested_bytes",
	"runai_pod_group_memory_used_bytes",
};

static const char *const node_queries[RAI_TOP_NODE_NMETRICS] = {
	"runai_node_cpu_utilization",
	"runai_node_memory_used_bytes",
	"runai_node_gpu_utilization",
	"runai_node_gpu_used_memory",
	"runai_node_gpu_total_memory",
	"runai_node_gpu_last_not_idle_time",
};

static int
kube_top_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_prom_vec *m, time_t now, struct rai_err *qerr,
    struct rai_err *err)
{
	struct rai_job_fetch_opts fo = { NULL, 0, NULL };
	char *svc = NULL;
	int rc = -1;

	if (rai_prom_find(CLIENT(wl), &svc, err) == 0 &&
	    rai_jobs_fetch(CLIENT(wl), all ? NULL : wl->ns, &fo, jl,
	    err) == 0) {
		rai_prom_query_all(CLIENT(wl), svc, job_queries,
		    RAI_TOP_JOB_NMETRICS, now, m, qerr);
		rc = 0;
	}
	free(svc);
	return rc;
}

static int
kube_nodes(struct rai_wl *wl, struct rai_node_list *nl, struct rai_err *err)
{
	return rai_nodes_fetch(CLIENT(wl), nl, err);
}

/* Prometheus's numbers for every node at once (only is not needed). */
static int
kube_node_metrics(struct rai_wl *wl, const struct rai_node_list *nl,
    const char *only, struct rai_prom_vec *m, time_t now,
    struct rai_err *qerr, struct rai_err *err)
{
	char *svc = NULL;

	(void)nl;
	(void)only;
	if (rai_prom_find(CLIENT(wl), &svc, err) == -1)
		return -1;
	rai_prom_query_all(CLIENT(wl), svc, node_queries,
	    RAI_TOP_NODE_NMETRICS, now, m, qerr);
	free(svc);
	return 0;
}

/* More is not a real node. */
#define MAX_NODE_GPUS	64

static int
active(const cJSON *pod)
{
	const char *ph = rai_json_str_or(pod, "status.phase", "");

	return strcmp(ph, "Running") == 0 || strcmp(ph, "Pending") == 0;
}

/*
 * Per GPU index: fractions where the pod says which GPU (runai-gpu),
 * then whole GPUs on the first free indexes.
 */
static void
gpu_use(const cJSON *pods, const char *node, double *use, int ngpu)
{
	const cJSON *p, *lim;
	const char *idx, *frac;
	double whole = 0, v;
	int i;

	cJSON_ArrayForEach(p, rai_json_array(pods, "items")) {
		if (!active(p) || strcmp(rai_json_str_or(p, "spec.nodeName",
		    ""), node) != 0)
			continue;
		frac = rai_json_annotation(p, "gpu-fraction");
		idx = rai_json_annotation(p, "runai-gpu");
		if (frac != NULL && idx != NULL &&
		    rai_quantity_parse(frac, &v) == 0) {
			i = (int)strtol(idx, NULL, 10);
			if (i >= 0 && i < ngpu)
				use[i] += v;
			continue;
		}
		cJSON_ArrayForEach(lim, rai_json_array(p, "spec.containers")) {
			const char *g = rai_json_str(rai_json_child(rai_json_get(
			    lim, "resources.limits"), "nvidia.com/gpu"), "");

			if (g != NULL && rai_quantity_parse(g, &v) == 0)
				whole += v;
		}
	}
	for (i = 0; i < ngpu && whole >= 1; i++)
		if (use[i] == 0) {
			use[i] = 1;
			whole -= 1;
		}
}

static int
kube_node_gpus(struct rai_wl *wl, struct rai_node_list *nl,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	struct rai_node_view *v;
	cJSON *pods = NULL;
	size_t i;

	if (nl->n == 0)
		return 0;
	lo.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
	if (kube_list(CLIENT(wl), &KUBE_RES_PODS, NULL, &lo, &pods, err) == -1)
		return -1;
	for (i = 0; i < nl->n; i++) {
		v = &nl->v[i];
		v->ngpu_use = (int)v->gpu_capacity;
		if (v->ngpu_use > MAX_NODE_GPUS)
			v->ngpu_use = MAX_NODE_GPUS;
		if (v->ngpu_use < 0)
			v->ngpu_use = 0;
		v->gpu_use = xcalloc((size_t)v->ngpu_use + 1,
		    sizeof(*v->gpu_use));
		gpu_use(pods, v->name, v->gpu_use, v->ngpu_use);
	}
	cJSON_Delete(pods);
	return 0;
}

/* ---- clusters, streams ---- */

static int
info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kube_context_info *)a)->name,
	    ((const struct kube_context_info *)b)->name);
}

/* The kubeconfig's contexts: no request goes to any cluster. */
static int
kube_clusters(struct rai_wl *wl, struct rai_wl_clusters *cl,
    struct rai_err *err)
{
	const struct kube_config *kc = KUBE(wl)->ks->kcfg;
	size_t i, n = kube_config_ncontexts(kc);
	const char *current = kube_config_current_context(kc), *project;
	struct kube_context_info *infos = xcalloc(n + 1, sizeof(*infos));

	(void)err;
	for (i = 0; i < n; i++)
		kube_config_context(kc, i, &infos[i]);
	/* the reference printed Go map order; sorted is reproducible */
	qsort(infos, n, sizeof(*infos), info_cmp);
	cl->where = xstrdup("Configured clusters on this computer are:");
	cl->v = xcalloc(n + 1, sizeof(*cl->v));
	for (i = 0; i < n; i++) {
		project = rai_project_from_namespace_name(infos[i].namespace);
		cl->v[i].name = xstrdup(infos[i].name);
		cl->v[i].project = xstrdup(project != NULL ? project : "");
		cl->v[i].current = current != NULL &&
		    strcmp(infos[i].name, current) == 0;
	}
	cl->n = n;
	free(infos);
	return 0;
}

static int
wl_kube_stream(struct rai_wl *wl, const char *what, int log,
    struct rai_wl_stream *st, struct rai_err *err)
{
	(void)what;
	(void)log;
	/* the namespace is the project's: resolved here when not yet */
	if (rai_wl_resolve(wl, "run 'runai config project <name>' or use -p "
	    "<name>", err) == -1)
		return -1;
	st->client = CLIENT(wl);
	st->ns = wl->ns;
	return 0;
}

static int
kube_describe(struct rai_wl *wl, const char *job, int doc,
    struct rai_job_detail *d, struct rai_err *err)
{
	return rai_wl_kube_detail(CLIENT(wl), wl->ns, wl->project, job, doc,
	    d, err);
}

/* ---- the CLI v2 grammar's objects ---- */

static int
kube_node_pools(struct rai_wl *wl, struct rai_wl_node_pools *np,
    struct rai_err *err)
{
	return rai_wl_kube_node_pools(CLIENT(wl), np, err);
}

static int
kube_pvcs(struct rai_wl *wl, struct rai_wl_pvcs *pv, struct rai_err *err)
{
	if (rai_wl_resolve(wl, "run 'runai config project <name>' or use -p "
	    "<name>", err) == -1)
		return -1;
	return rai_wl_kube_pvcs(CLIENT(wl), wl->ns, pv, err);
}

/*
 * The submit templates; the other assets are a control plane's, and a
 * cluster alone has none to show.
 */
static int
kube_assets(struct rai_wl *wl, enum rai_wl_asset_kind kind,
    const struct rai_wl_asset_query *q, struct rai_wl_assets *as,
    struct rai_err *err)
{
	if (kind == RAI_WL_TEMPLATE)
		return rai_wl_kube_templates(CLIENT(wl), q, as, err);
	return rai_err_set(err, RAI_E_CONFIG, "%s are assets of a Run:ai "
	    "control plane, and Kubernetes mode uses none (see 'runai config "
	    "control-plane')", rai_wl_asset_noun(kind));
}

static void
kube_free(struct rai_wl *wl)
{
	rai_wl_release(wl);
	free(wl);
}

static const struct rai_wl_ops kube_ops = {
	.resolve = kube_resolve,
	.projects = kube_projects,
	.jobs = kube_jobs,
	.jobs_wait = kube_jobs_wait,
	.job_names = kube_job_names,
	.describe = kube_describe,
	.act_check = kube_act_check,
	.act = kube_act,
	.submit = kube_submit,
	.submit_manifest = kube_submit_manifest,
	.top_jobs = kube_top_jobs,
	.nodes = kube_nodes,
	.node_metrics = kube_node_metrics,
	.node_gpus = kube_node_gpus,
	.clusters = kube_clusters,
	.stream = wl_kube_stream,
	.free = kube_free,
	.node_pools = kube_node_pools,
	.pvcs = kube_pvcs,
	.assets = kube_assets,
};

struct rai_wl *
rai_wl_kube_open(struct kube_session *ks, const char *asked_project)
{
	struct wl_kube *k = xcalloc(1, sizeof(*k));

	rai_wl_init(&k->base, &kube_ops, asked_project, "in Kubernetes mode");
	k->base.caps = RAI_WL_MAKES_OBJECTS;
	k->ks = ks;
	return &k->base;
}
