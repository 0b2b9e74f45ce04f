/*
 * Researcher work through the control plane: see cp_work.h. Lists are
 * read page by page (cp_pager); names become ids through the API's
 * filterBy, and what a server answers is checked against what was asked
 * (project, cluster, name), since one that ignores filterBy must not make
 * runai act on another project's workload.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/time.h"
#include "kube/quantity.h"
#include "runai/cp.h"
#include "runai/cp_pager.h"
#include "runai/cp_pages.h"
#include "runai/cp_request.h"
#include "runai/cp_request_dinf.h"
#include "runai/cp_work.h"
#include "runai/dist.h"
#include "runai/git_sync.h"

#include "core/banned.h"

/* ---- names and paging ---- */

/* Whether id is a UUID's text (hex digits and '-'), safe in a path. */
static int
plain_uuid(const char *id)
{
	const char *p;

	if (id == NULL || *id == '\0' || strlen(id) > 64)
		return 0;
	for (p = id; *p != '\0'; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-')
			return 0;
	return 1;
}

/*
 * Whether a listed object is on the cluster in use: one that names
 * another cluster is not (UUIDs compare without regard to case); one
 * that names none, or with no cluster known, is taken.
 */
static int
on_cluster(const cJSON *it, const char *cluster)
{
	const char *id = rai_json_str(it, "clusterId");

	return cluster == NULL || id == NULL || strcasecmp(id, cluster) == 0;
}

/*
 * Drops from all what was not asked for: objects of another cluster
 * (cluster NULL: no check), and with field set, those whose field is not
 * want. The filterBy of the request asked for the same; a server that
 * ignores it must not have runai show or act on another project's or
 * cluster's objects.
 */
static void
keep_only(cJSON *all, const char *cluster, const char *field,
    const char *want)
{
	cJSON *it = all != NULL ? all->child : NULL, *next;
	const char *v;

	for (; it != NULL; it = next) {
		next = it->next;
		v = field != NULL ? rai_json_str(it, field) : NULL;
		if (on_cluster(it, cluster) && (field == NULL || (v != NULL &&
		    strcmp(v, want) == 0)))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(all, it));
	}
}

static int
get_all(struct cp *c, const char *path, const char *key, cJSON **all,
    struct rai_err *err)
{
	return cp_pager_read(c, path, key, "next", all, err);
}

/* ---- projects ---- */

static int
by_project_name(const void *a, const void *b)
{
	return strcmp(((const struct rai_project *)a)->name,
	    ((const struct rai_project *)b)->name);
}

int
cp_projects(struct cp *c, struct rai_project_list *pl, struct rai_err *err)
{
	const cJSON *it, *res;
	char *cf = cp_cluster_filter(c, "?filterBy="), *path;
	cJSON *all;
	size_t n = 0;
	int rc;

	memset(pl, 0, sizeof(*pl));
	path = xasprintf("/api/v1/org-unit/projects%s", cf);
	rc = get_all(c, path, "projects", &all, err);
	free(path);
	free(cf);
	if (rc == -1)
		return -1;
	keep_only(all, cp_cluster(c, "id"), NULL, NULL);
	pl->v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*pl->v));
	cJSON_ArrayForEach(it, all) {
		struct rai_project *p = &pl->v[n++];

		p->name = xstrdup(rai_json_str_or(it, "name", ""));
		p->has_quota = 1;
		/* the project's GPUs: its node pools' deserved GPUs */
		cJSON_ArrayForEach(res, rai_json_array(it, "resources"))
			p->deserved_gpus += rai_json_num(res, "gpu.deserved", 0);
		p->interactive_affinity = xcalloc(1, sizeof(char *));
		p->train_affinity = xcalloc(1, sizeof(char *));
	}
	pl->n = n;
	qsort(pl->v, pl->n, sizeof(*pl->v), by_project_name);
	cJSON_Delete(all);
	return 0;
}

/*
 * A project's field as text: a string, or a whole number as the
 * documents' examples give a project's id (33) where the schema says
 * string; NULL for anything else. Caller frees.
 */
static char *
field_text(const cJSON *obj, const char *path)
{
	const cJSON *v = rai_json_get(obj, path);

	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	    v->valuedouble < 1e15 && v->valuedouble == (double)(long long)
	    v->valuedouble)
		return xasprintf("%lld", (long long)v->valuedouble);
	return NULL;
}

/* The string at path of the project called name. */
static int
project_field(struct cp *c, const char *name, const char *path, char **out,
    struct rai_err *err)
{
	const cJSON *first;
	cJSON *all;
	char *url, *cf;
	int rc;

	if (cp_check_name("project", name, err) == -1)
		return -1;
	cf = cp_cluster_filter(c, ",");
	url = xasprintf("/api/v1/org-unit/projects?filterBy=name==%s%s", name,
	    cf);
	rc = get_all(c, url, "projects", &all, err);
	free(url);
	if (rc == -1) {
		free(cf);
		return -1;
	}
	keep_only(all, cp_cluster(c, "id"), "name", name);
	first = cJSON_GetArrayItem(all, 0);
	if (first == NULL) {
		cJSON_Delete(all);
		rc = *cf != '\0' ? rai_err_set(err, RAI_E_NOTFOUND, "project "
		    "'%s' not found on cluster '%s' of the control plane", name,
		    cp_cluster(c, "name")) : rai_err_set(err, RAI_E_NOTFOUND,
		    "project '%s' not found on the control plane", name);
		free(cf);
		return rc;
	}
	free(cf);
	*out = field_text(first, path);
	cJSON_Delete(all);
	if (*out == NULL || **out == '\0') {
		free(*out);
		*out = NULL;
		return rai_err_set(err, RAI_E_PROTO, "project '%s' has no %s on "
		    "the control plane", name, path);
	}
	return 0;
}

int
cp_project_id(struct cp *c, const char *name, char **id, struct rai_err *err)
{
	return project_field(c, name, "id", id, err);
}

int
cp_project_namespace(struct cp *c, const char *name, char **ns,
    struct rai_err *err)
{
	return project_field(c, name, "status.namespace", ns, err);
}

/* ---- workloads as job views ---- */

static const struct {
	const char	*phase;
	const char	*status;
} phase_status[] = {
	{ "Creating", "Pending" }, { "Initializing", "ContainerCreating" },
	{ "Pending", "Pending" }, { "Resuming", "Pending" },
	{ "Running", "Running" }, { "Updating", "Running" },
	{ "Degraded", "Running" }, { "Stopping", "Suspended" },
	{ "Stopped", "Suspended" }, { "Completed", "Succeeded" },
	{ "Failed", "Failed" }, { "Deleting", "Terminating" },
	{ "Terminating", "Terminating" }, { "Unknown", "Unknown" },
};

const char *
cp_phase_status(const char *phase)
{
	size_t i;

	for (i = 0; phase != NULL && i < sizeof(phase_status) /
	    sizeof(phase_status[0]); i++)
		if (strcmp(phase_status[i].phase, phase) == 0)
			return phase_status[i].status;
	return "Unknown";
}

/*
 * The original CLI's TYPE column for the API's workload type; a
 * distributed one by its framework, as Kubernetes mode names its
 * training-operator jobs.
 */
static const char *
job_type(const char *type, const char *framework)
{
	const struct rai_dist_framework *fw;
	char kind[64];

	if (type == NULL)
		return "";
	if (strcmp(type, "Distributed") == 0 && framework != NULL) {
		snprintf(kind, sizeof(kind), "%sJob", framework);
		if ((fw = rai_dist_by_kind(kind)) != NULL)
			return fw->title;
	}
	if (strcmp(type, "Training") == 0)
		return "Train";
	if (strcmp(type, "Workspace") == 0)
		return "Interactive";
	return type;
}

void
cp_job_view(const cJSON *wl, struct rai_job_view *v)
{
	const char *phase = rai_json_str(wl, "phase");
	const cJSON *images = rai_json_array(wl, "images");
	int requested = (int)rai_json_long(wl, "requestedPods.number", 1, 0,
	    INT32_MAX);

	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(wl, "name", ""));
	v->namespace = xstrdup(rai_json_str_or(wl, "namespace", ""));
	v->project = xstrdup(rai_json_str_or(wl, "projectName", ""));
	v->uid = xstrdup(rai_json_str_or(wl, "id", ""));
	v->kind = xstrdup(rai_json_str_or(wl, "type", ""));
	v->status = xstrdup(cp_phase_status(phase));
	v->type = xstrdup(job_type(rai_json_str(wl, "type"),
	    rai_json_str(wl, "distributedFramework")));
	v->user = xstrdup(rai_json_str_or(wl, "submittedBy", ""));
	v->node = xstrdup("");
	v->image = xstrdup(cJSON_IsString(cJSON_GetArrayItem(images, 0)) ?
	    cJSON_GetArrayItem(images, 0)->valuestring : "");
	v->service_urls = xstrdup("");
	v->command_line = xstrdup("");
	v->finished = phase != NULL && (strcmp(phase, "Completed") == 0 ||
	    strcmp(phase, "Failed") == 0);
	/* a suspended job waits for nothing */
	if (phase != NULL && (strcmp(phase, "Stopped") == 0 ||
	    strcmp(phase, "Stopping") == 0))
		requested = 0;
	v->gpus_allocated = rai_json_num(wl, "allocatedResources.gpu", 0);
	v->gpus_requested = rai_json_num(wl,
	    "podsRequestedResources.gpu.request", 0);
	rai_job_view_gpu_cell(v);
	v->pods_running = (int)rai_json_long(wl, "runningPods", 0, 0,
	    INT32_MAX);
	v->pods_pending = v->finished || v->pods_running >= requested ? 0 :
	    requested - v->pods_running;
	v->created = rai_parse_rfc3339(rai_json_str_or(wl, "createdAt", ""));
	v->created_by_cli = strcmp(rai_json_str_or(wl, "source", ""),
	    "CLI") == 0;
	/* why it waits or stopped: its phase message and conditions */
	rai_job_view_why_cp(v, wl);
}

static int
by_uid(const void *a, const void *b)
{
	const struct rai_job_view *const *x = a, *const *y = b;

	return strcmp((*x)->uid, (*y)->uid);
}

/* The views by uid, to find a pod's job without a scan per pod. */
struct node_fill {
	struct rai_job_view	**byuid;
	size_t			  n;
};

/*
 * A pod on a node names its job's NODE ("<multiple>" for a second one).
 * A job's NODE is "" (finished) or "-" (not) until a pod names one: no
 * node is called "-".
 */
static void
fill_from_pod(struct node_fill *nf, const cJSON *p)
{
	struct rai_job_view key, *kp = &key, **hit;
	const char *node = rai_json_str(p, "nodeName");
	const char *was;
	size_t i;

	if (node == NULL)
		return;
	memset(&key, 0, sizeof(key));
	key.uid = (char *)(uintptr_t)rai_json_str_or(p, "workloadId", "");
	if ((hit = bsearch(&kp, nf->byuid, nf->n, sizeof(*nf->byuid),
	    by_uid)) == NULL)
		return;
	/* every view of that uid: back to the first, then on */
	for (i = (size_t)(hit - nf->byuid); i > 0 &&
	    by_uid(&nf->byuid[i - 1], &kp) == 0; i--)
		;
	for (; i < nf->n && by_uid(&nf->byuid[i], &kp) == 0; i++) {
		was = nf->byuid[i]->node;
		if (strcmp(was, node) == 0)
			continue;
		rai_job_view_set_node(nf->byuid[i], *was == '\0' ||
		    strcmp(was, "-") == 0 ? node : "<multiple>");
	}
}

/* One page of the cluster's pods, as it comes. */
static int
nodes_page(void *ud, cJSON *pods, struct rai_err *err)
{
	const cJSON *p;

	(void)err;
	cJSON_ArrayForEach(p, pods)
		fill_from_pod(ud, p);
	cJSON_Delete(pods);
	return 0;
}

/*
 * The NODE column: the node of the job's pods ("<multiple>" when they
 * are on several), from one list of the pods of the cluster in use (the
 * documents let pods be filtered by cluster, not by project), not every
 * pod of the tenant; read page by page, never whole.
 */
static int
fill_nodes(struct cp *c, struct rai_job_list *jl, struct rai_err *err)
{
	struct node_fill nf;
	char *cf, *path;
	size_t i;
	int rc;

	if (jl->n == 0)
		return 0;
	nf.n = jl->n;
	nf.byuid = xcalloc(jl->n, sizeof(*nf.byuid));
	for (i = 0; i < jl->n; i++)
		nf.byuid[i] = &jl->v[i];
	qsort(nf.byuid, nf.n, sizeof(*nf.byuid), by_uid);
	cf = cp_cluster_filter(c, "?filterBy=");
	path = xasprintf("/api/v1/workloads/pods%s", cf);
	rc = cp_pager_each(c, path, "pods", "next", nodes_page, &nf, err);
	free(path);
	free(cf);
	free(nf.byuid);
	return rc;
}

static int
by_project_then_name(const void *a, const void *b)
{
	const struct rai_job_view *x = a, *y = b;
	int c = strcmp(x->project, y->project);

	return c != 0 ? c : strcmp(x->name, y->name);
}

/* What cp_jobs's pages go into. */
struct jobs_read {
	struct cp		*c;
	const char		*project;	/* NULL: every project's */
	struct rai_job_list	*jl;
	size_t			 cap;
};

/*
 * One page of workloads, as it comes: those asked for become views, each
 * with its strings in one block (under 200 bytes of text with the
 * view), the page's JSON goes.
 */
static int
jobs_page(void *ud, cJSON *items, struct rai_err *err)
{
	struct jobs_read *r = ud;
	const cJSON *it;

	(void)err;
	keep_only(items, cp_cluster(r->c, "id"), r->project != NULL ?
	    "projectName" : NULL, r->project);
	cJSON_ArrayForEach(it, items) {
		if (r->jl->n == r->cap) {
			r->cap *= 2;
			r->jl->v = xreallocarray(r->jl->v, r->cap,
			    sizeof(*r->jl->v));
		}
		cp_job_view(it, &r->jl->v[r->jl->n]);
		/* a pending (preempted) or suspended job is on no node until
		   fill_nodes finds a pod of it on one */
		if (!r->jl->v[r->jl->n].finished)
			rai_job_view_set_node(&r->jl->v[r->jl->n], "-");
		rai_job_view_pack(&r->jl->v[r->jl->n++]);
	}
	cJSON_Delete(items);
	return 0;
}

int
cp_jobs(struct cp *c, const char *project, struct rai_job_list *jl,
    struct rai_err *err)
{
	struct jobs_read r;
	char *path, *cf;
	int rc;

	memset(jl, 0, sizeof(*jl));
	r.c = c;
	r.project = project;
	r.jl = jl;
	r.cap = 64;
	if (project != NULL && cp_check_name("project", project, err) == -1)
		return -1;
	cf = cp_cluster_filter(c, project != NULL ? "," : "?filterBy=");
	path = project != NULL ? xasprintf("/api/v1/workloads?filterBy="
	    "projectName==%s%s", project, cf) :
	    xasprintf("/api/v1/workloads%s", cf);
	jl->v = xcalloc(r.cap, sizeof(*jl->v));
	rc = cp_pager_each(c, path, "workloads", "next", jobs_page, &r, err);
	free(path);
	free(cf);
	if (rc == -1 || fill_nodes(c, jl, err) == -1) {
		rai_job_list_release(jl);
		return -1;
	}
	qsort(jl->v, jl->n, sizeof(*jl->v), by_project_then_name);
	return 0;
}

int
cp_job_find(struct cp *c, const char *project, const char *name,
    cJSON **workload, struct rai_err *err)
{
	cJSON *all;
	char *path, *cf;
	int rc, n;

	if (cp_check_name("project", project, err) == -1 ||
	    cp_check_name("job", name, err) == -1)
		return -1;
	cf = cp_cluster_filter(c, ",");
	path = xasprintf("/api/v1/workloads?filterBy=name==%s,projectName==%s"
	    "%s", name, project, cf);
	rc = get_all(c, path, "workloads", &all, err);
	free(path);
	free(cf);
	if (rc == -1)
		return -1;
	keep_only(all, cp_cluster(c, "id"), "name", name);
	keep_only(all, NULL, "projectName", project);
	n = cJSON_GetArraySize(all);
	if (n != 1) {
		cJSON_Delete(all);
		if (n == 0)
			return rai_err_set(err, RAI_E_NOTFOUND, "Job %s does not "
			    "exist in project %s. If the job exists in a "
			    "different project, use -p <project-name>.", name,
			    project);
		return rai_err_set(err, RAI_E_PROTO, "%d workloads are called "
		    "%s in project %s", n, name, project);
	}
	*workload = cJSON_DetachItemFromArray(all, 0);
	cJSON_Delete(all);
	return 0;
}

char *
cp_job_name_of(struct cp *c, const char *id)
{
	struct rai_err err = RAI_ERR_INIT;
	const char *name;
	cJSON *wl = NULL;
	char *path, *out = NULL;

	if (!plain_uuid(id))
		return NULL;
	path = xasprintf("/api/v1/workloads/%s", id);
	if (cp_call(c, "GET", path, NULL, NULL, &wl, &err) == 0 &&
	    (name = rai_json_str(wl, "name")) != NULL && *name != '\0')
		out = xstrdup(name);
	rai_err_release(&err);
	cJSON_Delete(wl);
	free(path);
	return out;
}

int
cp_job_belongs(struct cp *c, const cJSON *wl, const char *project,
    struct rai_err *err)
{
	const char *has = rai_json_str_or(wl, "projectName", "");
	const char *name = rai_json_str_or(wl, "name", "?");

	if (strcmp(has, project) != 0)
		return rai_err_set(err, RAI_E_PROTO, "the control plane answered "
		    "workload %s of project '%s' for project '%s': refused",
		    name, has, project);
	if (!on_cluster(wl, cp_cluster(c, "id")))
		return rai_err_set(err, RAI_E_PROTO, "the control plane answered "
		    "workload %s of another cluster than '%s': refused", name,
		    cp_cluster(c, "name") != NULL ? cp_cluster(c, "name") : "");
	return 0;
}

/* ---- templates ---- */

/*
 * Whether a template (SupersetTemplate) applies in the project and
 * cluster: one scoped to a project or cluster must be theirs; the
 * tenant's, the system's and a department's are offered to all.
 */
static int
template_applies(const cJSON *t, const char *project_id,
    const char *cluster_id)
{
	const char *scope = rai_json_str_or(t, "meta.scopeType", "");
	char pid[32];

	if (strcmp(scope, "project") == 0) {
		snprintf(pid, sizeof(pid), "%.0f", rai_json_num(t,
		    "meta.projectId", -1));
		return strcmp(pid, project_id) == 0;
	}
	if (strcmp(scope, "cluster") == 0)
		return strcmp(rai_json_str_or(t, "meta.clusterId", ""),
		    cluster_id) == 0;
	return 1;
}

int
cp_template_id(struct cp *c, const char *name, const char *type,
    const char *project_id, const char *cluster_id, char **id,
    struct rai_err *err)
{
	const cJSON *t, *hit = NULL;
	cJSON *all;
	char *path;
	int n = 0, rc;

	if (cp_check_name("template", name, err) == -1)
		return -1;
	path = xasprintf("/api/v1/workload-templates?filterBy=name==%s,"
	    "workloadType==%s", name, type);
	rc = cp_pager_read(c, path, "entries", "pagination.nextOffset", &all, err);
	free(path);
	if (rc == -1)
		return -1;
	keep_only(all, NULL, "meta.name", name);
	keep_only(all, NULL, "meta.workloadType", type);
	cJSON_ArrayForEach(t, all)
		if (template_applies(t, project_id, cluster_id) && n++ == 0)
			hit = t;
	if (n == 1)
		*id = xstrdup(rai_json_str_or(hit, "meta.id", ""));
	cJSON_Delete(all);
	if (n == 0)
		return rai_err_set(err, RAI_E_NOTFOUND, "no %s template '%s' on "
		    "the control plane for this project", type, name);
	if (n > 1)
		return rai_err_set(err, RAI_E_CONFIG, "%d %s templates called "
		    "'%s' apply to this project; the control plane cannot tell "
		    "which is meant", n, type, name);
	return 0;
}

/*
 * The template's id into the request (2.23+: before, the API has no
 * field for it, and the flag is refused naming the release).
 */
static int
add_template(cJSON *body, struct cp *c, const char *tmpl,
    const struct rai_submit_spec *s, const char *pid, const char *cluster,
    const char *release, struct rai_err *err)
{
	char *id = NULL;

	if (tmpl == NULL)
		return 0;
	if (!cp_version_at_least(release, 2, 23))
		return rai_err_set(err, RAI_E_USAGE, "--template needs a control "
		    "plane of 2.23 or later (this is %s)", release);
	if (cp_template_id(c, tmpl, s->interactive ? "Workspace" : "Training",
	    pid, cluster, &id, err) == -1)
		return -1;
	cJSON_AddStringToObject(body, "templateId", id);
	free(id);
	return 0;
}

/*
 * Where a create request goes: the cluster and release of the login
 * (copied: the store is read again as the calls below renew) and the
 * project's id.
 */
struct submit_target {
	char	*cluster;
	char	*release;
	char	*pid;
};

static int
target_open(struct cp *c, const char *project, struct submit_target *t,
    struct rai_err *err)
{
	t->cluster = cp_cluster(c, "id") != NULL ?
	    xstrdup(cp_cluster(c, "id")) : NULL;
	t->release = cp_cluster(c, "version") != NULL ?
	    xstrdup(cp_cluster(c, "version")) : NULL;
	t->pid = NULL;
	if (t->cluster == NULL)
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", cp_url(c));
	return cp_project_id(c, project, &t->pid, err);
}

static void
target_close(struct submit_target *t)
{
	free(t->cluster);
	free(t->release);
	free(t->pid);
}

/* POSTs body (taken) to path, or with dry_run hands it back as *out. */
static int
send_or_show(struct cp *c, const char *path, cJSON *body, int dry_run,
    cJSON **out, struct rai_err *err)
{
	int rc;

	if (dry_run) {
		*out = body;
		return 0;
	}
	rc = cp_call(c, "POST", path, body, NULL, out, err);
	cJSON_Delete(body);
	return rc;
}

int
cp_submit(struct cp *c, const struct rai_submit_spec *s,
    const struct rai_dist_spec *dist, const char *prefix, const char *tmpl,
    int dry_run, cJSON **out, struct rai_err *err)
{
	struct submit_target t;
	cJSON *body = NULL;
	int rc = -1;

	*out = NULL;
	if (target_open(c, s->project, &t, err) == -1 ||
	    cp_submit_request(s, prefix, t.pid, t.cluster, t.release, &body,
	    err) == -1 || (dist != NULL && cp_dist_request(body, dist,
	    t.release, err) == -1) || add_template(body, c, tmpl, s, t.pid,
	    t.cluster, t.release, err) == -1)
		cJSON_Delete(body);
	else
		rc = send_or_show(c, cp_submit_path(s, dist), body, dry_run, out,
		    err);
	target_close(&t);
	return rc;
}

int
cp_submit_inference(struct cp *c, const struct rai_submit_spec *s,
    const struct rai_inference_spec *inf,
    const struct rai_dist_inference *dinf, const char *prefix, int dry_run,
    cJSON **out, struct rai_err *err)
{
	struct submit_target t;
	cJSON *body = NULL;
	int rc = -1;

	*out = NULL;
	if (target_open(c, s->project, &t, err) == -1 ||
	    cp_submit_request(s, prefix, t.pid, t.cluster, t.release, &body,
	    err) == -1 || (dinf != NULL ? cp_dist_inference_request(body,
	    dinf, t.release, err) : cp_inference_request(body, inf,
	    t.release, err)) == -1)
		cJSON_Delete(body);
	else
		rc = send_or_show(c, dinf != NULL ? CP_DIST_INFERENCES_PATH :
		    CP_INFERENCES_PATH, body, dry_run, out, err);
	target_close(&t);
	return rc;
}

int
cp_job_path_of_type(struct cp *c, const char *project, const char *name,
    const char *type, const char *noun, const char *collection, char **path,
    struct rai_err *err)
{
	cJSON *wl = NULL;
	const char *got, *id;
	int rc = 0;

	*path = NULL;
	if (cp_job_find(c, project, name, &wl, err) == -1)
		return -1;
	got = rai_json_str(wl, "type");
	id = rai_json_str(wl, "id");
	if (got == NULL || strcmp(got, type) != 0)
		rc = rai_err_set(err, RAI_E_NOTFOUND, "'%s' in project %s is of "
		    "type %s, not %s", name, project, got != NULL ? got :
		    "(none)", noun);
	else if (id == NULL)
		rc = rai_err_set(err, RAI_E_PROTO, "the control plane listed "
		    "'%s' without an id", name);
	else
		*path = xasprintf("%s/%s", collection, id);
	cJSON_Delete(wl);
	return rc;
}

/* ---- actions ---- */

/* The type-specific collection of a workload ("trainings"), or NULL. */
static const char *
type_path(const char *type)
{
	if (type == NULL)
		return NULL;
	if (strcmp(type, "Training") == 0)
		return "trainings";
	if (strcmp(type, "Workspace") == 0)
		return "workspaces";
	if (strcmp(type, "Distributed") == 0)
		return "distributed";
	if (strcmp(type, "Inference") == 0)
		return "inferences";
	if (strcmp(type, "DistributedInference") == 0)
		return "distributed-inferences";
	return NULL;
}

int
cp_job_action(struct cp *c, const cJSON *wl, enum cp_action a,
    struct rai_err *err)
{
	const char *kind = type_path(rai_json_str(wl, "type"));
	const char *id = rai_json_str(wl, "id");
	cJSON *out = NULL;
	char *path;
	int rc;

	/*
	 * Another type (a manifest's kind, submitted through Workloads
	 * V2): deleted there from 2.24; it has no suspend.
	 */
	if (kind == NULL && id != NULL && a == CP_DELETE &&
	    cp_version_at_least(cp_cluster(c, "version"), 2, 24))
		kind = "v2";
	if (kind == NULL || id == NULL)
		return rai_err_set(err, RAI_E_USAGE, "workload %s is of type %s, "
		    "which runai cannot %s", rai_json_str_or(wl, "name", "?"),
		    rai_json_str_or(wl, "type", "?"), a == CP_DELETE ?
		    "delete on this control plane" : "suspend or resume");
	/* the API has no suspend or resume of an inference */
	if (a != CP_DELETE && strstr(kind, "inferences") != NULL)
		return rai_err_set(err, RAI_E_USAGE, "an inference workload "
		    "cannot be suspended or resumed, only deleted");
	/* a distributed workload is suspended from 2.20 only */
	if (a != CP_DELETE && strcmp(kind, "distributed") == 0 &&
	    cp_cluster(c, "version") != NULL &&
	    !cp_version_at_least(cp_cluster(c, "version"), 2, 20))
		return rai_err_set(err, RAI_E_USAGE, "suspending or resuming a "
		    "distributed workload needs a control plane of 2.20 or later "
		    "(this is %s)", cp_cluster(c, "version"));
	if (a == CP_DELETE && strcmp(kind, "v2") == 0)
		path = xasprintf("/api/v2/workloads/%s", id);
	else if (a == CP_DELETE)
		path = xasprintf("/api/v1/workloads/%s/%s", kind, id);
	else
		path = xasprintf("/api/v1/workloads/%s/%s/%s", kind, id,
		    a == CP_SUSPEND ? "suspend" : "resume");
	/* 200, 202 or 204 by release: any 2xx means done or accepted */
	rc = cp_call(c, a == CP_DELETE ? "DELETE" : "POST", path, NULL, NULL,
	    &out, err);
	cJSON_Delete(out);
	free(path);
	return rc;
}

int
cp_job_list_of(struct cp *c, const cJSON *wl, const char *what,
    cJSON **items, struct rai_err *err)
{
	char *path = xasprintf("/api/v1/workloads/%s/%s",
	    rai_json_str_or(wl, "id", ""), what);
	int rc = get_all(c, path, what, items, err);

	free(path);
	return rc;
}

int
cp_job_detail(struct cp *c, const cJSON *wl, cJSON **detailed,
    cJSON **submitted, struct rai_err *err)
{
	const char *kind = type_path(rai_json_str(wl, "type"));
	const char *id = rai_json_str_or(wl, "id", "");
	char *path;
	int rc;

	*detailed = *submitted = NULL;
	path = xasprintf("/api/v1/workloads/%s", id);
	rc = cp_call(c, "GET", path, NULL, NULL, detailed, err);
	free(path);
	if (rc == -1 || kind == NULL)
		return rc;
	path = xasprintf("/api/v1/workloads/%s/%s", kind, id);
	rc = cp_call(c, "GET", path, NULL, NULL, submitted, err);
	free(path);
	if (rc == -1) {
		cJSON_Delete(*detailed);
		*detailed = NULL;
	}
	return rc;
}
