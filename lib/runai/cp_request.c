/*
 * The control plane's create requests, pure: a workload's body from
 * submit's spec (see cp_request.h), and the names the API's filters
 * may carry.
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
#include "kube/quantity.h"
#include "runai/cp.h"
#include "runai/cp_request.h"
#include "runai/cp_request_pod.h"
#include "runai/git_sync.h"

#include "core/banned.h"

/*
 * Names go into filterBy values unescaped, so only what Kubernetes
 * names may hold is accepted (and no ',' that would split the filter).
 */
int
cp_check_name(const char *what, const char *name, struct rai_err *err)
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

/* ---- submit ---- */

static void
add_words(cJSON *spec, const char *key, const char *const *w, size_t n)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (n == 0)
		return;
	/* one string the API takes: each word as a shell reads it back */
	for (i = 0; i < n; i++) {
		if (i > 0)
			rai_buf_addch(&b, ' ');
		rai_buf_add_shell_word(&b, w[i]);
	}
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
add_git(cJSON *storage, const struct rai_submit_spec *s, struct rai_err *err)
{
	struct rai_git_sync g;
	cJSON *o;
	int rc = -1;

	if (rai_git_sync_parse_with(s->git_sync, s->git_sync_password, &g,
	    err) == -1)
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
	    (s->git_sync != NULL && add_git(storage, s, err) == -1) ?
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
		if (cp_check_name("node pool", one, err) == -1) {
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

int
cp_container_fields(cJSON *spec, const struct rai_submit_spec *s,
    struct rai_err *err)
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
	return add_env(spec, &s->env, err);
}

static int
request_spec(cJSON *spec, const struct rai_submit_spec *s,
    const char *release, struct rai_err *err)
{
	if (cp_container_fields(spec, s, err) == -1 ||
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
	/* last: it adds to the compute, storage and security made above */
	if (cp_request_pod(spec, s, release, err) == -1)
		return -1;
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
	case RAI_DIST_JAX:	return "JAX";
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

/*
 * What the CLI v2 adds: JAX (2.24 on), the workers' restart policy
 * (2.21 on), PyTorch's elastic bounds.
 */
static int
dist_v2(cJSON *spec, const struct rai_dist_spec *d, const char *release,
    struct rai_err *err)
{
	if (d->kind == RAI_DIST_JAX && !cp_version_at_least(release, 2, 24))
		return rai_err_set(err, RAI_E_USAGE, "JAX jobs need a control "
		    "plane of 2.24 or later (this is %s)", release);
	if (d->restart_policy != NULL && !cp_version_at_least(release, 2, 21))
		return rai_err_set(err, RAI_E_USAGE, "--restart-policy needs a "
		    "control plane of 2.21 or later (this is %s)", release);
	if (d->restart_policy != NULL)
		cJSON_AddStringToObject(spec, "restartPolicy", d->restart_policy);
	if (d->min_replicas > 0)
		cJSON_AddNumberToObject(spec, "minReplicas",
		    (double)d->min_replicas);
	if (d->max_replicas > 0)
		cJSON_AddNumberToObject(spec, "maxReplicas",
		    (double)d->max_replicas);
	return 0;
}

int
cp_dist_request(cJSON *body, const struct rai_dist_spec *d,
    const char *release, struct rai_err *err)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(body, "spec"), *master;

	if (d->clean_pod_policy != NULL && !cp_version_at_least(release, 2, 21))
		return rai_err_set(err, RAI_E_USAGE, "--clean-pod-policy needs "
		    "a control plane of 2.21 or later (this is %s)", release);
	if (dist_v2(spec, d, release, err) == -1)
		return -1;
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
	} else if (!d->no_master && d->kind != RAI_DIST_JAX && d->master == NULL)
		cJSON_AddBoolToObject(body, "masterSpecSameAsWorker", 1);
	/* a master with values of its own (the CLI v2's --master-*) */
	return cp_request_master(body, d, release, err);
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

/* ---- inference ---- */

/*
 * What cp_submit_request may put in a spec that an inference's has no
 * field for: a console, a job's completions and retries, deletion after
 * completion, the pod's host namespaces.
 */
static const char *const not_inference[] = { "tty", "stdin", "completions",
	"parallelism", "backoffLimit", "autoDeletionTimeAfterCompletionSeconds",
	"security", NULL };

/*
 * A setting given that release has no field for before 2.minor (the
 * first release whose document has it).
 */
static int
inference_needs(const char *flag, int given, int minor, const char *release,
    struct rai_err *err)
{
	if (!given || cp_version_at_least(release, 2, minor))
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "%s needs a control plane of 2.%d "
	    "or later (this is %s)", flag, minor, release);
}

/*
 * 2.18 has the serving port's number and protocol, and of the
 * autoscaling the bounds, the retention and a built-in metric with its
 * threshold; 2.21 adds the rest, the serving port's access and custom
 * metrics. The serving configuration (the request timeout) is from
 * 2.22, the release its field's description names.
 */
static int
inference_release_check(const struct rai_inference_spec *inf,
    const char *release, struct rai_err *err)
{
	const int access = inf->auth_type != NULL || inf->users.n > 0 ||
	    inf->groups.n > 0 || inf->cluster_local;

	if (inf->metric != NULL && !rai_inference_builtin_metric(inf->metric) &&
	    !cp_version_at_least(release, 2, 21))
		return rai_err_set(err, RAI_E_USAGE, "--metric %s: a control "
		    "plane before 2.21 (this is %s) knows throughput, "
		    "concurrency and latency only", inf->metric, release);
	return inference_needs("--initial-replicas", inf->initial_replicas >= 0,
	    21, release, err) == -1 ||
	    inference_needs("--activation-replicas",
	    inf->activation_replicas >= 0, 21, release, err) == -1 ||
	    inference_needs("--concurrency-hard-limit",
	    inf->concurrency_limit >= 0, 21, release, err) == -1 ||
	    inference_needs("--scale-down-delay-seconds",
	    inf->scale_down_delay >= 0, 21, release, err) == -1 ||
	    inference_needs("--metric-threshold-percentage",
	    inf->metric_threshold_pct >= 0, 21, release, err) == -1 ||
	    inference_needs("--initialization-timeout-seconds",
	    inf->init_timeout >= 0, 21, release, err) == -1 ||
	    inference_needs("--serving-port's access settings", access, 21,
	    release, err) == -1 ||
	    inference_needs("--request-timeout-seconds",
	    inf->request_timeout >= 0, 22, release, err) == -1 ? -1 : 0;
}

void
cp_add_names(cJSON *o, const char *key, const struct rai_strv *names)
{
	cJSON *arr;
	size_t i;

	if (names->n == 0)
		return;
	arr = cJSON_AddArrayToObject(o, key);
	for (i = 0; i < names->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(names->v[i]));
}

static void
add_serving_port(cJSON *spec, const struct rai_inference_spec *inf)
{
	cJSON *sp;

	if (inf->port < 0)
		return;
	sp = cJSON_AddObjectToObject(spec, "servingPort");
	cJSON_AddNumberToObject(sp, "container", (double)inf->port);
	if (inf->protocol != NULL)
		cJSON_AddStringToObject(sp, "protocol", inf->protocol);
	if (inf->auth_type != NULL)
		cJSON_AddStringToObject(sp, "authorizationType", inf->auth_type);
	cp_add_names(sp, "authorizedUsers", &inf->users);
	cp_add_names(sp, "authorizedGroups", &inf->groups);
	if (inf->cluster_local)
		cJSON_AddBoolToObject(sp, "clusterLocalAccessOnly", 1);
}

/* key = n in *o (made on first use) when n was given. */
static void
add_count(cJSON *parent, const char *object, cJSON **o, const char *key,
    double n)
{
	if (n < 0)
		return;
	if (*o == NULL)
		*o = cJSON_AddObjectToObject(parent, object);
	cJSON_AddNumberToObject(*o, key, n);
}

/*
 * The autoscaling given, and the timeouts: the initialization timeout
 * moved from autoscaling to the serving configuration in 2.22 (2.24's
 * document keeps the old field, to be ignored).
 */
static void
add_scaling(cJSON *spec, const struct rai_inference_spec *inf,
    const char *release)
{
	const int serving = cp_version_at_least(release, 2, 22);
	cJSON *a = NULL, *sc = NULL;

	add_count(spec, "autoscaling", &a, "minReplicas",
	    (double)inf->min_replicas);
	add_count(spec, "autoscaling", &a, "maxReplicas",
	    (double)inf->max_replicas);
	add_count(spec, "autoscaling", &a, "initialReplicas",
	    (double)inf->initial_replicas);
	add_count(spec, "autoscaling", &a, "activationReplicas",
	    (double)inf->activation_replicas);
	if (inf->metric != NULL) {
		if (a == NULL)
			a = cJSON_AddObjectToObject(spec, "autoscaling");
		cJSON_AddStringToObject(a, "metric", inf->metric);
	}
	add_count(spec, "autoscaling", &a, "metricThreshold",
	    (double)inf->metric_threshold);
	add_count(spec, "autoscaling", &a, "metricThresholdPercentage",
	    inf->metric_threshold_pct);
	add_count(spec, "autoscaling", &a, "concurrencyHardLimit",
	    (double)inf->concurrency_limit);
	add_count(spec, "autoscaling", &a, "scaleDownDelaySeconds",
	    (double)inf->scale_down_delay);
	add_count(spec, "autoscaling", &a, "scaleToZeroRetentionSeconds",
	    (double)inf->scale_to_zero_retention);
	if (serving)
		add_count(spec, "servingConfiguration", &sc,
		    "initializationTimeoutSeconds", (double)inf->init_timeout);
	else
		add_count(spec, "autoscaling", &a,
		    "initializationTimeoutSeconds", (double)inf->init_timeout);
	add_count(spec, "servingConfiguration", &sc, "requestTimeoutSeconds",
	    (double)inf->request_timeout);
}

int
cp_inference_scaling(cJSON *spec, const struct rai_inference_spec *inf,
    const char *release, struct rai_err *err)
{
	if (inference_release_check(inf, release, err) == -1)
		return -1;
	add_scaling(spec, inf, release);
	return 0;
}

int
cp_inference_request(cJSON *body, const struct rai_inference_spec *inf,
    const char *release, struct rai_err *err)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(body, "spec");
	size_t i;

	for (i = 0; not_inference[i] != NULL; i++)
		if (cJSON_GetObjectItemCaseSensitive(spec,
		    not_inference[i]) != NULL)
			return rai_err_set(err, RAI_E_USAGE, "an inference "
			    "workload has no %s", not_inference[i]);
	if (rai_inference_check(inf, err) == -1 ||
	    inference_release_check(inf, release, err) == -1)
		return -1;
	add_serving_port(spec, inf);
	add_scaling(spec, inf, release);
	return 0;
}
