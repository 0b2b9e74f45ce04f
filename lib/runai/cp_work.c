/*
 * Researcher work through the control plane: see cp_work.h. Lists are
 * read page by page (offset/limit, following "next"); names become ids
 * through the API's filterBy.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/time.h"
#include "kube/quantity.h"
#include "runai/cp.h"
#include "runai/cp_work.h"
#include "runai/dist.h"
#include "runai/git_sync.h"

#include "core/banned.h"

#define PAGE_LIMIT	500	/* the API's largest page */
#define PAGES_MAX	200	/* 100000 items: a runaway "next" stops */

/* ---- names and paging ---- */

/*
 * Names go into filterBy values unescaped, so only what Kubernetes
 * names may hold is accepted (and no ',' that would split the filter).
 */
static int
check_name(const char *what, const char *name, struct rai_err *err)
{
	const char *p;

	if (name == NULL || *name == '\0' || strlen(name) > 253)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s name '%s'",
		    what, name != NULL ? name : "");
	for (p = name; *p != '\0'; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '-' && *p != '.')
			return rai_err_set(err, RAI_E_USAGE, "invalid %s name "
			    "'%s': lowercase letters, digits, '-' and '.' only",
			    what, name);
	return 0;
}

/*
 * "clusterId==ID" for the cluster in use, so that lists and look-ups
 * stay on it (a project's name may be taken on several clusters); ""
 * when none is known, or its id is not a plain UUID. Caller frees.
 */
static char *
cluster_filter(struct cp *c, const char *sep)
{
	const char *id = cp_cluster(c, "id"), *p;

	if (id == NULL || *id == '\0' || strlen(id) > 64)
		return xstrdup("");
	for (p = id; *p != '\0'; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-')
			return xstrdup("");
	return xasprintf("%sclusterId==%s", sep, id);
}

/*
 * GET path (with its query, if any) page by page, the next page's offset
 * at next (a dotted path: "next", or the templates' own
 * "pagination.nextOffset"); the items of key of every page are moved
 * into *all (an array the caller frees).
 */
static int
get_pages(struct cp *c, const char *path, const char *key, const char *next,
    cJSON **all, struct rai_err *err)
{
	cJSON *page, *items;
	long offset = 0;
	int pages;
	char *url;

	*all = cJSON_CreateArray();
	for (pages = 0; pages < PAGES_MAX; pages++) {
		url = xasprintf("%s%soffset=%ld&limit=%d", path,
		    strchr(path, '?') != NULL ? "&" : "?", offset, PAGE_LIMIT);
		page = NULL;
		if (cp_call(c, "GET", url, NULL, NULL, &page, err) == -1) {
			free(url);
			cJSON_Delete(*all);
			*all = NULL;
			return -1;
		}
		free(url);
		items = page != NULL ? cJSON_DetachItemFromObjectCaseSensitive(
		    page, key) : NULL;
		while (cJSON_IsArray(items) && cJSON_GetArraySize(items) > 0)
			cJSON_AddItemToArray(*all,
			    cJSON_DetachItemFromArray(items, 0));
		cJSON_Delete(items);
		offset = (long)rai_json_num(page, next, 0);
		cJSON_Delete(page);
		if (offset <= 0)
			return 0;
	}
	return 0;
}

static int
get_all(struct cp *c, const char *path, const char *key, cJSON **all,
    struct rai_err *err)
{
	return get_pages(c, path, key, "next", all, err);
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
	char *cf = cluster_filter(c, "?filterBy="), *path;
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

/* The string at path of the project called name. */
static int
project_field(struct cp *c, const char *name, const char *path, char **out,
    struct rai_err *err)
{
	const cJSON *first;
	const char *v;
	cJSON *all;
	char *url, *cf;
	int rc;

	if (check_name("project", name, err) == -1)
		return -1;
	cf = cluster_filter(c, ",");
	url = xasprintf("/api/v1/org-unit/projects?filterBy=name==%s%s", name,
	    cf);
	rc = get_all(c, url, "projects", &all, err);
	free(url);
	if (rc == -1) {
		free(cf);
		return -1;
	}
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
	if ((v = rai_json_str(first, path)) == NULL) {
		cJSON_Delete(all);
		return rai_err_set(err, RAI_E_PROTO, "project '%s' has no %s on "
		    "the control plane", name, path);
	}
	*out = xstrdup(v);
	cJSON_Delete(all);
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
	int requested = (int)rai_json_num(wl, "requestedPods.number", 1);

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
	v->pods_running = (int)rai_json_num(wl, "runningPods", 0);
	v->pods_pending = v->finished || v->pods_running >= requested ? 0 :
	    requested - v->pods_running;
	v->created = rai_parse_rfc3339(rai_json_str_or(wl, "createdAt", ""));
	v->created_by_cli = strcmp(rai_json_str_or(wl, "source", ""),
	    "CLI") == 0;
}

/*
 * The NODE column: the node of the job's pods ("<multiple>" when they
 * are on several), from one tenant-wide list of pods.
 */
static int
fill_nodes(struct cp *c, struct rai_job_list *jl, struct rai_err *err)
{
	const cJSON *p;
	const char *node, *wid;
	cJSON *pods;
	size_t i;

	if (jl->n == 0)
		return 0;
	if (get_all(c, "/api/v1/workloads/pods", "pods", &pods, err) == -1)
		return -1;
	cJSON_ArrayForEach(p, pods) {
		wid = rai_json_str_or(p, "workloadId", "");
		if ((node = rai_json_str(p, "nodeName")) == NULL)
			continue;
		for (i = 0; i < jl->n; i++) {
			struct rai_job_view *v = &jl->v[i];
			char *was = v->node;

			if (strcmp(v->uid, wid) != 0 || strcmp(was, node) == 0)
				continue;
			v->node = xstrdup(*was == '\0' ? node : "<multiple>");
			free(was);
		}
	}
	cJSON_Delete(pods);
	return 0;
}

static int
by_project_then_name(const void *a, const void *b)
{
	const struct rai_job_view *x = a, *y = b;
	int c = strcmp(x->project, y->project);

	return c != 0 ? c : strcmp(x->name, y->name);
}

int
cp_jobs(struct cp *c, const char *project, struct rai_job_list *jl,
    struct rai_err *err)
{
	const cJSON *it;
	cJSON *all;
	char *path, *cf;
	size_t n = 0;
	int rc;

	memset(jl, 0, sizeof(*jl));
	if (project != NULL && check_name("project", project, err) == -1)
		return -1;
	cf = cluster_filter(c, project != NULL ? "," : "?filterBy=");
	path = project != NULL ? xasprintf("/api/v1/workloads?filterBy="
	    "projectName==%s%s", project, cf) :
	    xasprintf("/api/v1/workloads%s", cf);
	rc = get_all(c, path, "workloads", &all, err);
	free(path);
	free(cf);
	if (rc == -1)
		return -1;
	jl->v = xcalloc((size_t)cJSON_GetArraySize(all) + 1, sizeof(*jl->v));
	cJSON_ArrayForEach(it, all)
		cp_job_view(it, &jl->v[n++]);
	jl->n = n;
	cJSON_Delete(all);
	if (fill_nodes(c, jl, err) == -1) {
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

	if (check_name("project", project, err) == -1 ||
	    check_name("job", name, err) == -1)
		return -1;
	cf = cluster_filter(c, ",");
	path = xasprintf("/api/v1/workloads?filterBy=name==%s,projectName==%s"
	    "%s", name, project, cf);
	rc = get_all(c, path, "workloads", &all, err);
	free(path);
	free(cf);
	if (rc == -1)
		return -1;
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

/* ---- submit ---- */

/* One word for a command line the API takes as a string: quoted when
 * it holds what a shell would split or interpret. */
static void
put_word(struct rai_buf *b, const char *w)
{
	const char *p;
	int plain = *w != '\0';

	for (p = w; *p != '\0' && plain; p++)
		if (!isalnum((unsigned char)*p) && strchr("-_./=:,+@%", *p) ==
		    NULL)
			plain = 0;
	if (b->len > 0)
		rai_buf_addch(b, ' ');
	if (plain) {
		rai_buf_addstr(b, w);
		return;
	}
	rai_buf_addch(b, '\'');
	for (p = w; *p != '\0'; p++) {
		if (*p == '\'')
			rai_buf_addstr(b, "'\\''");
		else
			rai_buf_addch(b, *p);
	}
	rai_buf_addch(b, '\'');
}

static void
add_words(cJSON *spec, const char *key, const char *const *w, size_t n)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		put_word(&b, w[i]);
	cJSON_AddStringToObject(spec, key, rai_buf_str(&b));
	rai_buf_release(&b);
}

/* What backend mode cannot send yet: refused, not lost. */
static int
unsupported(const struct rai_submit_spec *s, const char *release,
    struct rai_err *err)
{
	const char *flag = s->inference ? "--inference" : s->run_as_user ?
	    "--run-as-user" : s->elastic ? "--elastic" : s->mps ? "--mps" :
	    s->batch_job ? "--old-job" : NULL;

	if (flag != NULL)
		return rai_err_set(err, RAI_E_USAGE, "%s is not supported in "
		    "control-plane mode yet", flag);
	/* MIG profiles left the API in 2.24 */
	if (s->mig_profile != NULL && cp_version_at_least(release, 2, 24))
		return rai_err_set(err, RAI_E_USAGE, "--mig-profile has no "
		    "field in the control plane's API from 2.24 (this is %s)",
		    release != NULL ? release : "the newest");
	return 0;
}

/*
 * What the API has fields for beyond the workload's own: the node type,
 * deletion after completion, the home directory and the pod's security
 * (host IPC and network, no privilege escalation).
 */
static void
add_scheduling_security(cJSON *spec, const struct rai_submit_spec *s)
{
	cJSON *sec;

	if (s->node_type != NULL)
		cJSON_AddStringToObject(spec, "nodeType", s->node_type);
	if (s->ttl_after_finish >= 0)
		cJSON_AddNumberToObject(spec,
		    "autoDeletionTimeAfterCompletionSeconds",
		    (double)s->ttl_after_finish);
	if (s->create_home_dir == 1)
		cJSON_AddBoolToObject(spec, "createHomeDir", 1);
	if (!s->host_ipc && !s->host_network &&
	    !s->prevent_privilege_escalation)
		return;
	sec = cJSON_AddObjectToObject(spec, "security");
	if (s->host_ipc)
		cJSON_AddBoolToObject(sec, "hostIpc", 1);
	if (s->host_network)
		cJSON_AddBoolToObject(sec, "hostNetwork", 1);
	if (s->prevent_privilege_escalation)
		cJSON_AddBoolToObject(sec, "allowPrivilegeEscalation", 0);
}

/* ---- labels, annotations, git ---- */

/* the API's longest label or annotation name (2.21 on; kept for all) */
#define META_NAME_MAX	63

/*
 * -l/-a KEY=VALUE as the API's [{name, value}] (the pairs were checked
 * offline). The API takes names of 63 characters at most, fewer than a
 * Kubernetes key with a prefix may have: longer ones are refused.
 */
static int
add_meta_pairs(cJSON *spec, const char *key, const char *flag,
    const struct rai_strv *pairs, struct rai_err *err)
{
	const char *eq;
	cJSON *arr, *o;
	char *name;
	size_t i;

	if (pairs->n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(spec, key);
	for (i = 0; i < pairs->n; i++) {
		eq = strchr(pairs->v[i], '=');
		if (eq == NULL || eq == pairs->v[i])
			return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': "
			    "use KEY=VALUE", flag, pairs->v[i]);
		if ((size_t)(eq - pairs->v[i]) > META_NAME_MAX)
			return rai_err_set(err, RAI_E_USAGE, "%s '%.*s': the "
			    "control plane takes names of at most %d characters",
			    flag, (int)(eq - pairs->v[i]), pairs->v[i],
			    META_NAME_MAX);
		name = xstrndup(pairs->v[i], (size_t)(eq - pairs->v[i]));
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", name);
		cJSON_AddStringToObject(o, "value", eq + 1);
		cJSON_AddItemToArray(arr, o);
		free(name);
	}
	return 0;
}

/*
 * --git-sync as storage.git: repository, branch or revision, and the
 * path it is cloned to. The API takes a clone's credentials only as the
 * name of a Secret already in the cluster, and has no git-sync image:
 * those parts are refused rather than dropped.
 */
static int
add_git(cJSON *storage, const char *conn, struct rai_err *err)
{
	struct rai_git_sync g;
	cJSON *o;
	int rc = -1;

	if (rai_git_sync_parse(conn, &g, err) == -1)
		return -1;
	if (rai_git_sync_has_credentials(&g))
		rai_err_set(err, RAI_E_USAGE, "--git-sync username= and "
		    "password= are not supported in control-plane mode: the "
		    "control plane takes a repository's credentials only from "
		    "a Secret in the cluster");
	else if (strcmp(g.image, RAI_GIT_SYNC_IMAGE) != 0)
		rai_err_set(err, RAI_E_USAGE, "--git-sync image= is not "
		    "supported in control-plane mode: the control plane picks "
		    "the image that clones");
	else {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "repository", g.source);
		if (g.branch != NULL)
			cJSON_AddStringToObject(o, "branch", g.branch);
		if (g.rev != NULL)
			cJSON_AddStringToObject(o, "revision", g.rev);
		cJSON_AddStringToObject(o, "path", g.target);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(storage, "git"), o);
		rc = 0;
	}
	rai_git_sync_release(&g);
	return rc;
}

/* ---- storage, ports, node pools, preemptibility ---- */

/* -v HOST:CTR[:ro]: the host's directory is path, the container's
 * mountPath (as the API is used, whatever its examples say). */
static int
add_host_paths(cJSON *storage, const struct rai_strv *volumes,
    struct rai_err *err)
{
	struct rai_volume v;
	cJSON *arr, *h;
	size_t i;

	if (volumes->n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(storage, "hostPath");
	for (i = 0; i < volumes->n; i++) {
		if (rai_submit_parse_volume(volumes->v[i], &v, err) == -1)
			return -1;
		h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "path", v.host);
		cJSON_AddStringToObject(h, "mountPath", v.path);
		cJSON_AddBoolToObject(h, "readOnly", v.read_only);
		cJSON_AddItemToArray(arr, h);
		rai_volume_release(&v);
	}
	return 0;
}

/* --pvc NAME:PATH[:ro] is an existing claim; [SC]:SIZE:PATH[:ro] a new
 * one the control plane makes (and names). */
static int
add_pvcs(cJSON *storage, const struct rai_strv *pvcs, struct rai_err *err)
{
	struct rai_pvc p;
	cJSON *arr, *o, *info;
	size_t i;

	if (pvcs->n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(storage, "pvc");
	for (i = 0; i < pvcs->n; i++) {
		if (rai_submit_parse_pvc(pvcs->v[i], &p, err) == -1)
			return -1;
		o = cJSON_CreateObject();
		if (!p.dynamic)
			cJSON_AddStringToObject(o, "claimName", p.claim);
		cJSON_AddStringToObject(o, "path", p.path);
		cJSON_AddBoolToObject(o, "existingPvc", !p.dynamic);
		cJSON_AddBoolToObject(o, "readOnly", p.read_only);
		if (p.dynamic) {
			info = cJSON_AddObjectToObject(o, "claimInfo");
			cJSON_AddStringToObject(info, "size", p.size);
			if (p.storage_class != NULL && *p.storage_class != '\0')
				cJSON_AddStringToObject(info, "storageClass",
				    p.storage_class);
		}
		cJSON_AddItemToArray(arr, o);
		rai_pvc_release(&p);
	}
	return 0;
}

static int
add_storage(cJSON *spec, const struct rai_submit_spec *s, struct rai_err *err)
{
	cJSON *storage;

	if (s->volumes.n == 0 && s->pvcs.n == 0 && s->git_sync == NULL)
		return 0;
	storage = cJSON_AddObjectToObject(spec, "storage");
	return add_pvcs(storage, &s->pvcs, err) == -1 ||
	    add_host_paths(storage, &s->volumes, err) == -1 ||
	    (s->git_sync != NULL && add_git(storage, s->git_sync, err) == -1) ?
	    -1 : 0;
}

/* The API's service type for -s (none: reachable inside the cluster). */
static const char *
service_type(const char *flag)
{
	if (flag != NULL && strcmp(flag, "nodeport") == 0)
		return "NodePort";
	if (flag != NULL && strcmp(flag, "loadbalancer") == 0)
		return "LoadBalancer";
	return "ClusterIP";
}

static int
is_ingress(const struct rai_submit_spec *s)
{
	return s->service_type != NULL &&
	    strcmp(s->service_type, "ingress") == 0;
}

/*
 * --port CTR, or EXT:CTR where EXT is the node's or balancer's port.
 * With -s ingress each port is an exposed URL instead, the URL the
 * control plane's own (an ingress has no port of its own to ask for).
 */
static int
add_ports(cJSON *spec, const struct rai_submit_spec *s, struct rai_err *err)
{
	struct rai_port port;
	cJSON *arr, *o;
	size_t i;

	if (s->ports.n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(spec, is_ingress(s) ? "exposedUrls" :
	    "ports");
	for (i = 0; i < s->ports.n; i++) {
		if (rai_submit_parse_port(s->ports.v[i], &port, err) == -1)
			return -1;
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddNumberToObject(o, "container", (double)port.target);
		if (is_ingress(s))
			continue;
		cJSON_AddStringToObject(o, "serviceType",
		    service_type(s->service_type));
		if (port.pair)
			cJSON_AddNumberToObject(o, "external", (double)port.port);
	}
	return 0;
}

/* --node-pools a,b: the order is the preference. */
static int
add_node_pools(cJSON *spec, const char *pools, struct rai_err *err)
{
	const char *p = pools, *comma;
	cJSON *arr;
	char *one;

	if (pools == NULL)
		return 0;
	arr = cJSON_AddArrayToObject(spec, "nodePools");
	for (;;) {
		comma = strchr(p, ',');
		one = comma != NULL ? xstrndup(p, (size_t)(comma - p)) :
		    xstrdup(p);
		if (check_name("node pool", one, err) == -1) {
			free(one);
			return -1;
		}
		cJSON_AddItemToArray(arr, cJSON_CreateString(one));
		free(one);
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

/*
 * From 2.24 the API takes preemptibility itself. Before, a workspace is
 * made preemptible by its priority class, a training is preemptible by
 * design, and a non-preemptible training cannot be asked for.
 */
static int
add_preemptibility(cJSON *spec, const struct rai_submit_spec *s,
    const char *release, struct rai_err *err)
{
	if (s->preemptible && s->non_preemptible)
		return rai_err_set(err, RAI_E_USAGE, "--preemptible and "
		    "--non-preemptible exclude each other");
	if (!s->preemptible && !s->non_preemptible)
		return 0;
	if (cp_version_at_least(release, 2, 24)) {
		cJSON_AddStringToObject(spec, "preemptibility", s->preemptible ?
		    "preemptible" : "non-preemptible");
		return 0;
	}
	if (s->preemptible && s->interactive)
		cJSON_AddStringToObject(spec, "priorityClass",
		    "interactive-preemptible");
	else if (s->non_preemptible && !s->interactive)
		return rai_err_set(err, RAI_E_USAGE, "--non-preemptible for a "
		    "training needs a control plane of 2.24 or later (this is "
		    "%s)", release);
	return 0;
}

static int
add_env(cJSON *spec, const struct rai_strv *env, struct rai_err *err)
{
	cJSON *arr, *e;
	const char *eq;
	char *name;
	size_t i;

	if (env->n == 0)
		return 0;
	arr = cJSON_AddArrayToObject(spec, "environmentVariables");
	for (i = 0; i < env->n; i++) {
		if ((eq = strchr(env->v[i], '=')) == NULL || eq == env->v[i])
			return rai_err_set(err, RAI_E_USAGE, "invalid "
			    "environment variable '%s': use NAME=VALUE",
			    env->v[i]);
		if (strncmp(eq + 1, "SECRET:", 7) == 0)
			return rai_err_set(err, RAI_E_USAGE, "secret environment "
			    "variables are not supported in control-plane mode "
			    "yet");
		name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", name);
		free(name);
		cJSON_AddStringToObject(e, "value", eq + 1);
		cJSON_AddItemToArray(arr, e);
	}
	return 0;
}

/* CPU cores as a number: "2", "0.5", "500m". */
static int
add_cores(cJSON *compute, const char *key, const char *q,
    struct rai_err *err)
{
	double v;

	if (q == NULL)
		return 0;
	if (rai_quantity_parse(q, &v) == -1 || v <= 0)
		return rai_err_set(err, RAI_E_USAGE, "invalid CPU amount '%s'",
		    q);
	cJSON_AddNumberToObject(compute, key, v);
	return 0;
}

static int
add_compute(cJSON *spec, const struct rai_submit_spec *s, struct rai_err *err)
{
	cJSON *c = cJSON_AddObjectToObject(spec, "compute");

	if (s->mig_profile != NULL) {
		cJSON_AddNumberToObject(c, "gpuDevicesRequest", 1);
		cJSON_AddStringToObject(c, "gpuRequestType", "migProfile");
		cJSON_AddStringToObject(c, "migProfile", s->mig_profile);
	} else if (s->gpu_memory != NULL) {
		cJSON_AddNumberToObject(c, "gpuDevicesRequest", 1);
		cJSON_AddStringToObject(c, "gpuRequestType", "memory");
		cJSON_AddStringToObject(c, "gpuMemoryRequest", s->gpu_memory);
	} else if (s->gpu > 0 && s->gpu < 1) {
		cJSON_AddNumberToObject(c, "gpuDevicesRequest", 1);
		cJSON_AddStringToObject(c, "gpuRequestType", "portion");
		cJSON_AddNumberToObject(c, "gpuPortionRequest", s->gpu);
	} else if (s->gpu >= 1) {
		if (s->gpu != floor(s->gpu))
			return rai_err_set(err, RAI_E_USAGE, "GPUs over 1 must be "
			    "whole: %g", s->gpu);
		cJSON_AddNumberToObject(c, "gpuDevicesRequest", s->gpu);
	}
	if (add_cores(c, "cpuCoreRequest", s->cpu, err) == -1 ||
	    add_cores(c, "cpuCoreLimit", s->cpu_limit, err) == -1)
		return -1;
	if (s->memory != NULL)
		cJSON_AddStringToObject(c, "cpuMemoryRequest", s->memory);
	if (s->memory_limit != NULL)
		cJSON_AddStringToObject(c, "cpuMemoryLimit", s->memory_limit);
	if (s->large_shm)
		cJSON_AddBoolToObject(c, "largeShmRequest", 1);
	return 0;
}

static int
request_spec(cJSON *spec, const struct rai_submit_spec *s,
    const char *release, struct rai_err *err)
{
	if (s->image != NULL)
		cJSON_AddStringToObject(spec, "image", s->image);
	if (s->image_pull_policy != NULL)
		cJSON_AddStringToObject(spec, "imagePullPolicy",
		    s->image_pull_policy);
	if (s->working_dir != NULL)
		cJSON_AddStringToObject(spec, "workingDir", s->working_dir);
	if (s->is_command && s->ncmd > 0) {
		add_words(spec, "command", s->cmd, 1);
		add_words(spec, "args", s->cmd + 1, s->ncmd - 1);
	} else
		add_words(spec, "args", s->cmd, s->ncmd);
	if (add_env(spec, &s->env, err) == -1 ||
	    add_compute(spec, s, err) == -1 || add_storage(spec, s, err) == -1 ||
	    add_ports(spec, s, err) == -1 ||
	    add_meta_pairs(spec, "labels", "--label", &s->pod_labels,
	    err) == -1 ||
	    add_meta_pairs(spec, "annotations", "--annotation",
	    &s->pod_annotations, err) == -1 ||
	    add_node_pools(spec, s->node_pools, err) == -1 ||
	    add_preemptibility(spec, s, release, err) == -1)
		return -1;
	add_scheduling_security(spec, s);
	/* a console to attach to */
	if (s->tty)
		cJSON_AddBoolToObject(spec, "tty", 1);
	if (s->stdin_open)
		cJSON_AddBoolToObject(spec, "stdin", 1);
	if (!s->interactive && s->completions > 0)
		cJSON_AddNumberToObject(spec, "completions",
		    (double)s->completions);
	if (!s->interactive && s->parallelism > 0)
		cJSON_AddNumberToObject(spec, "parallelism",
		    (double)s->parallelism);
	if (!s->interactive && s->backoff_limit >= 0)
		cJSON_AddNumberToObject(spec, "backoffLimit",
		    (double)s->backoff_limit);
	return 0;
}

int
cp_submit_request(const struct rai_submit_spec *s, const char *prefix,
    const char *project_id, const char *cluster_id, const char *release,
    cJSON **body, struct rai_err *err)
{
	cJSON *b;

	*body = NULL;
	if (unsupported(s, release, err) == -1)
		return -1;
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "name", s->name != NULL ? s->name :
	    prefix != NULL ? prefix : "job");
	if (s->name == NULL)
		cJSON_AddBoolToObject(b, "useGivenNameAsPrefix", 1);
	cJSON_AddStringToObject(b, "projectId", project_id);
	cJSON_AddStringToObject(b, "clusterId", cluster_id);
	if (request_spec(cJSON_AddObjectToObject(b, "spec"), s, release,
	    err) == -1) {
		cJSON_Delete(b);
		return -1;
	}
	*body = b;
	return 0;
}

/* The API's name of a framework. */
static const char *
framework_name(enum rai_dist_kind k)
{
	switch (k) {
	case RAI_DIST_PYTORCH:	return "PyTorch";
	case RAI_DIST_MPI:	return "MPI";
	case RAI_DIST_TF:	return "TF";
	default:		return "XGBoost";
	}
}

/* A fresh copy of from's key in to, if it has one. */
static void
move_item(cJSON *from, cJSON *to, const char *key)
{
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(from, key);

	if (v != NULL)
		cJSON_AddItemToObject(to, key, v);
}

int
cp_dist_request(cJSON *body, const struct rai_dist_spec *d,
    const char *release, struct rai_err *err)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(body, "spec"), *master;

	if (d->clean_pod_policy != NULL && !cp_version_at_least(release, 2, 21))
		return rai_err_set(err, RAI_E_USAGE, "--clean-pod-policy needs "
		    "a control plane of 2.21 or later (this is %s)", release);
	cJSON_AddStringToObject(spec, "distributedFramework",
	    framework_name(d->kind));
	cJSON_AddNumberToObject(spec, "numWorkers", (double)d->workers);
	if (d->kind == RAI_DIST_MPI)
		cJSON_AddNumberToObject(spec, "slotsPerWorker",
		    (double)(d->slots > 0 ? d->slots : 1));
	if (d->clean_pod_policy != NULL)
		cJSON_AddStringToObject(spec, "cleanPodPolicy",
		    d->clean_pod_policy);
	if (d->kind == RAI_DIST_MPI) {
		/* the launcher runs the command, on no GPU; the workers
		 * run what the operator gives them */
		master = cJSON_AddObjectToObject(body, "masterSpec");
		cJSON_AddItemToObject(master, "image", cJSON_Duplicate(
		    cJSON_GetObjectItemCaseSensitive(spec, "image"), 1));
		move_item(spec, master, "command");
		move_item(spec, master, "args");
		if (cJSON_GetObjectItemCaseSensitive(spec,
		    "environmentVariables") != NULL)
			cJSON_AddItemToObject(master, "environmentVariables",
			    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
			    spec, "environmentVariables"), 1));
	} else if (!d->no_master)
		cJSON_AddBoolToObject(body, "masterSpecSameAsWorker", 1);
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

	if (check_name("template", name, err) == -1)
		return -1;
	path = xasprintf("/api/v1/workload-templates?filterBy=name==%s,"
	    "workloadType==%s", name, type);
	rc = get_pages(c, path, "entries", "pagination.nextOffset", &all, err);
	free(path);
	if (rc == -1)
		return -1;
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

int
cp_submit(struct cp *c, const struct rai_submit_spec *s,
    const struct rai_dist_spec *dist, const char *prefix, const char *tmpl,
    int dry_run, cJSON **out, struct rai_err *err)
{
	/* copied: the store is read again as the calls below renew */
	char *cluster = cp_cluster(c, "id") != NULL ?
	    xstrdup(cp_cluster(c, "id")) : NULL;
	char *release = cp_cluster(c, "version") != NULL ?
	    xstrdup(cp_cluster(c, "version")) : NULL;
	char *pid = NULL;
	cJSON *body = NULL;
	int rc = -1;

	*out = NULL;
	if (cluster == NULL) {
		free(release);
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", cp_url(c));
	}
	if (cp_project_id(c, s->project, &pid, err) == -1 ||
	    cp_submit_request(s, prefix, pid, cluster, release, &body,
	    err) == -1 || (dist != NULL && cp_dist_request(body, dist, release,
	    err) == -1) || add_template(body, c, tmpl, s, pid, cluster, release,
	    err) == -1)
		goto out;
	if (dry_run) {
		*out = body;
		body = NULL;
		rc = 0;
	} else
		rc = cp_call(c, "POST", cp_submit_path(s, dist), body, NULL,
		    out, err);
out:
	cJSON_Delete(body);
	free(pid);
	free(cluster);
	free(release);
	return rc;
}

const char *
cp_submit_path(const struct rai_submit_spec *s,
    const struct rai_dist_spec *dist)
{
	if (dist != NULL)
		return "/api/v1/workloads/distributed";
	return s->interactive ? "/api/v1/workloads/workspaces" :
	    "/api/v1/workloads/trainings";
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

	if (kind == NULL || id == NULL)
		return rai_err_set(err, RAI_E_USAGE, "workload %s is of type %s, "
		    "which runai cannot manage yet", rai_json_str_or(wl, "name",
		    "?"), rai_json_str_or(wl, "type", "?"));
	/* a distributed workload is suspended from 2.20 only */
	if (a != CP_DELETE && strcmp(kind, "distributed") == 0 &&
	    cp_cluster(c, "version") != NULL &&
	    !cp_version_at_least(cp_cluster(c, "version"), 2, 20))
		return rai_err_set(err, RAI_E_USAGE, "suspending or resuming a "
		    "distributed workload needs a control plane of 2.20 or later "
		    "(this is %s)", cp_cluster(c, "version"));
	if (a == CP_DELETE)
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
