/*
 * runai submit's objects, rendered the way the reference CLI's Helm chart
 * renders them (same kinds, names, labels, annotations, volumes,
 * Service and Ingress), minus its bugs: environment values keep their
 * '=', the Ingress is networking.k8s.io/v1, --create-home-dir defaults
 * on with --run-as-user as its help always said, and fractions above
 * one are refused instead of sent to the scheduler (submit_spec.c checks
 * the spec and parses its flags; this file renders what passed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/yaml.h"
#include "runai/git_sync.h"
#include "runai/submit.h"
#include "runai/submit_pod.h"

#include "core/banned.h"

#define SCHEDULER	"runai-scheduler"
#define GPU_RESOURCE	"nvidia.com/gpu"

/* ---- rendering ---- */

/* The chart's labels on a workload, its pod template and its objects. */
static cJSON *
common_labels(const struct rai_submit_spec *s)
{
	cJSON *l = cJSON_CreateObject();

	cJSON_AddStringToObject(l, "app", "runaijob");
	cJSON_AddStringToObject(l, "chart", RAI_SUBMIT_CHART);
	cJSON_AddStringToObject(l, "release", s->name);
	cJSON_AddStringToObject(l, "heritage", "Helm");
	cJSON_AddStringToObject(l, "createdBy", "RunaiJob");
	return l;
}

static cJSON *
new_object(const char *api_version, const char *kind,
    const struct rai_submit_spec *s, const char *name, cJSON **meta)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "apiVersion", api_version);
	cJSON_AddStringToObject(o, "kind", kind);
	*meta = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(*meta, "name", name);
	cJSON_AddStringToObject(*meta, "namespace", s->namespace);
	return o;
}

static void
add_obj(struct rai_submit_objs *objs, const struct kube_res *res,
    const char *app_kind, cJSON *obj)
{
	/* the caller checked the count against RAI_SUBMIT_MAX_OBJS */
	objs->v[objs->n].res = res;
	objs->v[objs->n].app_kind = app_kind;
	objs->v[objs->n].obj = obj;
	objs->n++;
}

static void
add_env_entry(cJSON *env, const char *name, const char *value)
{
	cJSON *e = cJSON_CreateObject(), *ref;
	const char *comma = NULL;
	char *secret;

	cJSON_AddStringToObject(e, "name", name);
	/* K=SECRET:<secret>,<key> reads the value from a Secret */
	if (strncmp(value, "SECRET:", 7) == 0)
		comma = strchr(value + 7, ',');
	if (comma != NULL && comma > value + 7 && comma[1] != '\0') {
		ref = cJSON_AddObjectToObject(cJSON_AddObjectToObject(e,
		    "valueFrom"), "secretKeyRef");
		secret = xstrndup(value + 7, (size_t)(comma - value - 7));
		cJSON_AddStringToObject(ref, "name", secret);
		cJSON_AddStringToObject(ref, "key", comma + 1);
		free(secret);
	} else {
		cJSON_AddStringToObject(e, "value", value);
	}
	cJSON_AddItemToArray(env, e);
}

static int
render_env(const struct rai_submit_spec *s, cJSON *container,
    struct rai_err *err)
{
	cJSON *env = cJSON_CreateArray();
	const char *name, *value;
	char *buf, num[32];
	size_t i;

	for (i = 0; i < s->env.n; i++) {
		if (rai_submit_parse_env(s->env.v[i], &buf, &name, &value,
		    err) == -1) {
			cJSON_Delete(env);
			return -1;
		}
		add_env_entry(env, name, value);
		free(buf);
	}
	if (s->run_as_user && s->ids_from_token) {
		snprintf(num, sizeof(num), "%ld", s->uid);
		add_env_entry(env, "LDAP_UID", num);
		snprintf(num, sizeof(num), "%ld", s->gid);
		add_env_entry(env, "LDAP_GID", num);
	}
	if (s->create_home_dir == 1 ||
	    (s->create_home_dir == RAI_UNSET && s->run_as_user))
		add_env_entry(env, "HOME", RAI_SUBMIT_HOME);
	if (cJSON_GetArraySize(env) > 0)
		cJSON_AddItemToObject(container, "env", env);
	else
		cJSON_Delete(env);
	return 0;
}

static void
render_resources(const struct rai_submit_spec *s, cJSON *container)
{
	cJSON *r = cJSON_AddObjectToObject(container, "resources");
	cJSON *limits = cJSON_AddObjectToObject(r, "limits");
	cJSON *requests = cJSON_AddObjectToObject(r, "requests");

	/* whole GPUs are a device limit; fractions are an annotation */
	if (s->gpu >= 1)
		cJSON_AddNumberToObject(limits, GPU_RESOURCE, s->gpu);
	if (s->cpu_limit != NULL)
		cJSON_AddStringToObject(limits, "cpu", s->cpu_limit);
	if (s->memory_limit != NULL)
		cJSON_AddStringToObject(limits, "memory", s->memory_limit);
	if (s->cpu != NULL)
		cJSON_AddStringToObject(requests, "cpu", s->cpu);
	if (s->memory != NULL)
		cJSON_AddStringToObject(requests, "memory", s->memory);
}

static void
add_mount(cJSON *mounts, const char *path, const char *name, int ro)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "mountPath", path);
	cJSON_AddStringToObject(m, "name", name);
	if (ro)
		cJSON_AddBoolToObject(m, "readOnly", 1);
	cJSON_AddItemToArray(mounts, m);
}

static cJSON *
add_volume(cJSON *volumes, const char *name)
{
	cJSON *v = cJSON_CreateObject();

	cJSON_AddStringToObject(v, "name", name);
	cJSON_AddItemToArray(volumes, v);
	return v;
}

static cJSON *
render_pvc_object(const struct rai_submit_spec *s, const struct rai_pvc *p,
    const char *name)
{
	cJSON *meta, *o = new_object("v1", "PersistentVolumeClaim", s, name,
	    &meta), *spec, *modes;

	cJSON_AddItemToObject(meta, "labels", common_labels(s));
	spec = cJSON_AddObjectToObject(o, "spec");
	modes = cJSON_AddArrayToObject(spec, "accessModes");
	cJSON_AddItemToArray(modes, cJSON_CreateString("ReadWriteOnce"));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(
	    cJSON_AddObjectToObject(spec, "resources"), "requests"),
	    "storage", p->size);
	if (*p->storage_class != '\0')
		cJSON_AddStringToObject(spec, "storageClassName",
		    p->storage_class);
	cJSON_AddStringToObject(spec, "volumeMode", "Filesystem");
	return o;
}

/*
 * Host paths, claims, /dev/shm and the home directory, with the chart's
 * volume names (host-path-volume-<i>, pvc-volume-<i>, dshm, user-data).
 */
/* --git-sync: the clone's emptyDir, seen at the target path. */
static int
render_code_volume(const struct rai_submit_spec *s, cJSON *mounts,
    cJSON *volumes, struct rai_err *err)
{
	struct rai_git_sync g;

	if (rai_git_sync_parse_with(s->git_sync,
	    s->git_sync_password, &g, err) == -1)
		return -1;
	add_mount(mounts, g.target, RAI_GIT_SYNC_VOLUME, 0);
	cJSON_AddObjectToObject(add_volume(volumes, RAI_GIT_SYNC_VOLUME),
	    "emptyDir");
	rai_git_sync_release(&g);
	return 0;
}

static int
render_storage(const struct rai_submit_spec *s, cJSON *container,
    cJSON *pod, struct rai_submit_objs *objs, struct rai_err *err)
{
	cJSON *mounts = cJSON_CreateArray(), *volumes = cJSON_CreateArray();
	struct rai_volume hv;
	struct rai_pvc pvc;
	char name[64], claim[128];
	size_t i;

	for (i = 0; i < s->volumes.n; i++) {
		if (rai_submit_parse_volume(s->volumes.v[i], &hv, err) == -1)
			goto fail;
		snprintf(name, sizeof(name), "host-path-volume-%zu", i);
		add_mount(mounts, hv.path, name, hv.read_only);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(add_volume(
		    volumes, name), "hostPath"), "path", hv.host);
		rai_volume_release(&hv);
	}
	for (i = 0; i < s->pvcs.n; i++) {
		if (rai_submit_parse_pvc(s->pvcs.v[i], &pvc, err) == -1)
			goto fail;
		snprintf(name, sizeof(name), "pvc-volume-%zu", i);
		if (pvc.dynamic)
			snprintf(claim, sizeof(claim), "pvc-%s-%zu", s->name, i);
		else
			snprintf(claim, sizeof(claim), "%s", pvc.claim);
		add_mount(mounts, pvc.path, name, pvc.read_only);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(add_volume(
		    volumes, name), "persistentVolumeClaim"), "claimName",
		    claim);
		if (pvc.dynamic)
			add_obj(objs, &KUBE_RES_PVCS, "persistentvolumeclaim",
			    render_pvc_object(s, &pvc, claim));
		rai_pvc_release(&pvc);
	}
	if (s->git_sync != NULL && render_code_volume(s, mounts, volumes,
	    err) == -1)
		goto fail;
	if (s->large_shm) {
		add_mount(mounts, "/dev/shm", "dshm", 0);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(add_volume(
		    volumes, "dshm"), "emptyDir"), "medium", "Memory");
	}
	if (s->create_home_dir == 1 ||
	    (s->create_home_dir == RAI_UNSET && s->run_as_user)) {
		add_mount(mounts, RAI_SUBMIT_HOME, "user-data", 0);
		cJSON_AddObjectToObject(add_volume(volumes, "user-data"),
		    "emptyDir");
	}
	if (rai_submit_pod_volumes(s, mounts, volumes, err) == -1)
		goto fail;
	if (cJSON_GetArraySize(mounts) > 0) {
		cJSON_AddItemToObject(container, "volumeMounts", mounts);
		cJSON_AddItemToObject(pod, "volumes", volumes);
	} else {
		cJSON_Delete(mounts);
		cJSON_Delete(volumes);
	}
	return 0;
fail:
	cJSON_Delete(mounts);
	cJSON_Delete(volumes);
	return -1;
}

static void
add_string_array(cJSON *o, const char *key, const char *const *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

static int
render_ports(const struct rai_submit_spec *s, cJSON *container,
    struct rai_err *err)
{
	cJSON *ports, *p;
	struct rai_port port;
	size_t i;

	if (s->ports.n == 0)
		return 0;
	ports = cJSON_AddArrayToObject(container, "ports");
	for (i = 0; i < s->ports.n; i++) {
		if (rai_submit_parse_port(s->ports.v[i], &port, err) == -1)
			return -1;
		p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "containerPort", (double)port.target);
		cJSON_AddStringToObject(p, "protocol", "TCP");
		cJSON_AddItemToArray(ports, p);
	}
	return 0;
}

/*
 * Behind an ingress the notebook serves under the ingress path, which
 * it must be told.
 */
static void
render_notebook_command(const struct rai_submit_spec *s, cJSON *c)
{
	char *base = xasprintf("--NotebookApp.base_url=/%s-%s", s->project,
	    s->name);

	cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "command"),
	    cJSON_CreateString("start-notebook.sh"));
	cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "args"),
	    cJSON_CreateString(base));
	free(base);
}

static cJSON *
render_container(const struct rai_submit_spec *s, cJSON *pod,
    struct rai_submit_objs *objs, struct rai_err *err)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddStringToObject(c, "name", s->name);
	cJSON_AddStringToObject(c, "image", s->image);
	cJSON_AddStringToObject(c, "imagePullPolicy",
	    s->image_pull_policy ? s->image_pull_policy : "Always");
	if (s->ncmd > 0)
		add_string_array(c, s->is_command ? "command" : "args", s->cmd,
		    s->ncmd);
	else if (s->jupyter && s->service_type != NULL &&
	    strcmp(s->service_type, "ingress") == 0)
		render_notebook_command(s, c);
	if (s->working_dir != NULL)
		cJSON_AddStringToObject(c, "workingDir", s->working_dir);
	if (s->stdin_open)
		cJSON_AddBoolToObject(c, "stdin", 1);
	if (s->tty)
		cJSON_AddBoolToObject(c, "tty", 1);
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(c, "securityContext"),
	    "allowPrivilegeEscalation", !s->prevent_privilege_escalation);
	render_resources(s, c);
	if (render_env(s, c, err) == -1 || render_ports(s, c, err) == -1 ||
	    render_storage(s, c, pod, objs, err) == -1) {
		cJSON_Delete(c);
		return NULL;
	}
	return c;
}

static void
render_pod_security(const struct rai_submit_spec *s, cJSON *pod)
{
	cJSON *sc = cJSON_AddObjectToObject(pod, "securityContext"), *g;
	size_t i;

	if (!s->run_as_user)
		return;
	cJSON_AddNumberToObject(sc, "runAsUser", (double)s->uid);
	cJSON_AddNumberToObject(sc, "runAsGroup", (double)s->gid);
	if (s->ngroups > 0) {
		g = cJSON_AddArrayToObject(sc, "supplementalGroups");
		for (i = 0; i < s->ngroups; i++)
			cJSON_AddItemToArray(g,
			    cJSON_CreateNumber((double)s->groups[i]));
	}
}

/* KEY=VALUE pairs into o, where o has no such key yet. */
static void
add_pairs(cJSON *o, const struct rai_strv *pairs)
{
	const char *eq;
	char *key;
	size_t i;

	for (i = 0; i < pairs->n; i++) {
		if ((eq = strchr(pairs->v[i], '=')) == NULL)
			continue;
		key = xstrndup(pairs->v[i], (size_t)(eq - pairs->v[i]));
		if (cJSON_GetObjectItemCaseSensitive(o, key) == NULL)
			cJSON_AddStringToObject(o, key, eq + 1);
		free(key);
	}
}

/* Pod-template annotations the scheduler reads besides the GPU ones. */
static void
render_device_annotations(const struct rai_submit_spec *s, cJSON *ann)
{
	char key[64];

	if (s->mig_profile != NULL) {
		snprintf(key, sizeof(key), "nvidia.com/mig-%s", s->mig_profile);
		cJSON_AddStringToObject(ann, key, "1");
	}
	if (s->elastic)
		cJSON_AddStringToObject(ann, "elastic", "true");
	if (s->mps)
		cJSON_AddStringToObject(ann, "mps", "true");
}

static int
render_init_containers(const struct rai_submit_spec *s, cJSON *pod,
    struct rai_err *err)
{
	struct rai_git_sync g;
	char *secret;

	if (rai_git_sync_parse_with(s->git_sync,
	    s->git_sync_password, &g, err) == -1)
		return -1;
	secret = rai_submit_git_secret_name(s->name);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(pod, "initContainers"),
	    rai_git_sync_container(&g, secret));
	free(secret);
	rai_git_sync_release(&g);
	return 0;
}

static cJSON *
render_template(const struct rai_submit_spec *s, struct rai_submit_objs *objs,
    struct rai_err *err)
{
	cJSON *t = cJSON_CreateObject(), *meta, *ann, *pod, *containers, *c;
	char buf[64];
	long mb;

	meta = cJSON_AddObjectToObject(t, "metadata");
	ann = cJSON_AddObjectToObject(meta, "annotations");
	if (s->gpu > 0 && s->gpu < 1) {
		snprintf(buf, sizeof(buf), "%g", s->gpu);
		cJSON_AddStringToObject(ann, "gpu-fraction", buf);
	}
	if (s->gpu_memory != NULL &&
	    rai_submit_gpu_memory_mb(s->gpu_memory, &mb, err) == 0) {
		snprintf(buf, sizeof(buf), "%ld", mb);
		cJSON_AddStringToObject(ann, "gpu-memory", buf);
	}
	render_device_annotations(s, ann);
	if (s->user != NULL)
		cJSON_AddStringToObject(ann, "user", s->user);
	cJSON_AddItemToObject(meta, "labels", common_labels(s));
	/* the user's own come last and never replace runai's */
	add_pairs(cJSON_GetObjectItemCaseSensitive(meta, "labels"),
	    &s->pod_labels);
	add_pairs(ann, &s->pod_annotations);

	pod = cJSON_AddObjectToObject(t, "spec");
	cJSON_AddStringToObject(pod, "schedulerName", SCHEDULER);
	/* a Deployment's pods must restart; a job's pods must not */
	if (!s->inference)
		cJSON_AddStringToObject(pod, "restartPolicy", "Never");
	cJSON_AddBoolToObject(pod, "hostIPC", s->host_ipc);
	cJSON_AddBoolToObject(pod, "hostNetwork", s->host_network);
	render_pod_security(s, pod);
	if (s->node_type != NULL)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(pod,
		    "nodeSelector"), "run.ai/type", s->node_type);
	if (s->git_sync != NULL && render_init_containers(s, pod, err) == -1) {
		cJSON_Delete(t);
		return NULL;
	}
	containers = cJSON_AddArrayToObject(pod, "containers");
	if ((c = render_container(s, pod, objs, err)) == NULL) {
		cJSON_Delete(t);
		return NULL;
	}
	cJSON_AddItemToArray(containers, c);
	if (rai_submit_pod_extra(s, pod, cJSON_GetObjectItemCaseSensitive(pod,
	    "securityContext"), cJSON_GetObjectItemCaseSensitive(c,
	    "securityContext"), err) == -1 ||
	    rai_submit_pod_resources(s, cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(c, "resources"), "limits"), ann,
	    err) == -1) {
		cJSON_Delete(t);
		return NULL;
	}
	return t;
}

/* The workload's labels and annotations, whatever its kind. */
static void
workload_meta(const struct rai_submit_spec *s, cJSON *meta)
{
	cJSON *labels, *ann;
	char idx[32];

	labels = common_labels(s);
	if (s->interactive)
		cJSON_AddStringToObject(labels, "priorityClassName",
		    s->preemptible ? "interactive-preemptible" : "build");
	if (s->job_index >= 0) {
		snprintf(idx, sizeof(idx), "%ld", s->job_index);
		cJSON_AddStringToObject(labels, "runai/job-index", idx);
	}
	cJSON_AddItemToObject(meta, "labels", labels);
	ann = cJSON_AddObjectToObject(meta, "annotations");
	if (s->cli_command != NULL)
		cJSON_AddStringToObject(ann, "runai-cli-command",
		    s->cli_command);
	if (s->user != NULL)
		cJSON_AddStringToObject(ann, "user", s->user);
}

/* A custom kind's workload: our metadata, its spec around our pods. */
static cJSON *
render_custom(const struct rai_submit_spec *s, struct rai_submit_objs *objs,
    struct rai_err *err)
{
	const struct rai_submit_custom *k = s->custom;
	cJSON *meta, *tmpl, *w = new_object(k->api_version, k->kind, s,
	    s->name, &meta);

	workload_meta(s, meta);
	if ((tmpl = render_template(s, objs, err)) == NULL ||
	    k->fill(s, k->arg, cJSON_AddObjectToObject(w, "spec"), tmpl,
	    err) == -1) {
		cJSON_Delete(w);
		return NULL;
	}
	return w;
}

static cJSON *
render_workload(const struct rai_submit_spec *s, struct rai_submit_objs *objs,
    struct rai_err *err)
{
	cJSON *meta, *spec, *tmpl, *w;

	if (s->inference)
		w = new_object("apps/v1", "Deployment", s, s->name, &meta);
	else if (s->batch_job)
		w = new_object("batch/v1", "Job", s, s->name, &meta);
	else
		w = new_object("run.ai/v1", "RunaiJob", s, s->name, &meta);
	workload_meta(s, meta);
	spec = cJSON_AddObjectToObject(w, "spec");
	if (s->inference) {
		cJSON_AddNumberToObject(spec, "replicas",
		    s->replicas > 0 ? (double)s->replicas : 1);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(
		    cJSON_AddObjectToObject(spec, "selector"), "matchLabels"),
		    "release", s->name);
	} else if (s->interactive) {
		cJSON_AddNumberToObject(spec, "completions", 1);
		cJSON_AddNumberToObject(spec, "backoffLimit", 0);
	} else {
		if (s->completions > 0)
			cJSON_AddNumberToObject(spec, "completions",
			    (double)s->completions);
		if (s->backoff_limit >= 0)
			cJSON_AddNumberToObject(spec, "backoffLimit",
			    (double)s->backoff_limit);
	}
	if (s->parallelism > 0)
		cJSON_AddNumberToObject(spec, "parallelism",
		    (double)s->parallelism);
	if (s->ttl_after_finish >= 0)
		cJSON_AddNumberToObject(spec, "ttlSecondsAfterFinished",
		    (double)s->ttl_after_finish);
	if ((tmpl = render_template(s, objs, err)) == NULL) {
		cJSON_Delete(w);
		return NULL;
	}
	cJSON_AddItemToObject(spec, "template", tmpl);
	return w;
}

static const char *
service_type_name(const char *flag)
{
	if (strcmp(flag, "nodeport") == 0)
		return "NodePort";
	if (strcmp(flag, "loadbalancer") == 0)
		return "LoadBalancer";
	return "ClusterIP";
}

static cJSON *
render_service(const struct rai_submit_spec *s, struct rai_err *err)
{
	cJSON *meta, *o = new_object("v1", "Service", s, s->name, &meta);
	cJSON *spec, *ports, *p;
	struct rai_port port;
	int nodeport = strcmp(s->service_type, "nodeport") == 0;
	char name[32];
	size_t i;

	cJSON_AddItemToObject(meta, "labels", common_labels(s));
	spec = cJSON_AddObjectToObject(o, "spec");
	cJSON_AddStringToObject(spec, "type",
	    service_type_name(s->service_type));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(spec, "selector"),
	    "release", s->name);
	ports = cJSON_AddArrayToObject(spec, "ports");
	for (i = 0; i < s->ports.n; i++) {
		if (rai_submit_parse_port(s->ports.v[i], &port, err) == -1) {
			cJSON_Delete(o);
			return NULL;
		}
		p = cJSON_CreateObject();
		snprintf(name, sizeof(name), "%ld-port", port.target);
		cJSON_AddStringToObject(p, "name", name);
		cJSON_AddNumberToObject(p, "port", (double)port.port);
		cJSON_AddNumberToObject(p, "targetPort", (double)port.target);
		cJSON_AddStringToObject(p, "protocol", "TCP");
		/* "A:B" with nodeport asks for node port A */
		if (nodeport && port.pair)
			cJSON_AddNumberToObject(p, "nodePort", (double)port.port);
		cJSON_AddItemToArray(ports, p);
	}
	return o;
}

static cJSON *
render_ingress(const struct rai_submit_spec *s, struct rai_err *err)
{
	cJSON *meta, *o = new_object("networking.k8s.io/v1", "Ingress", s,
	    s->name, &meta);
	cJSON *rule, *paths, *p, *svc;
	struct rai_port port;
	char path[300];
	size_t i;

	cJSON_AddItemToObject(meta, "labels", common_labels(s));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "annotations"),
	    "kubernetes.io/ingress.class", "nginx");
	/* one rule without a host: the ingress controller's address */
	rule = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_AddObjectToObject(o,
	    "spec"), "rules"), rule);
	paths = cJSON_AddArrayToObject(cJSON_AddObjectToObject(rule, "http"),
	    "paths");
	for (i = 0; i < s->ports.n; i++) {
		if (rai_submit_parse_port(s->ports.v[i], &port, err) == -1) {
			cJSON_Delete(o);
			return NULL;
		}
		if (s->ports.n == 1)
			snprintf(path, sizeof(path), "/%s-%s", s->project,
			    s->name);
		else
			snprintf(path, sizeof(path), "/%s-%s-%ld", s->project,
			    s->name, port.port);
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", path);
		cJSON_AddStringToObject(p, "pathType", "Prefix");
		svc = cJSON_AddObjectToObject(cJSON_AddObjectToObject(p,
		    "backend"), "service");
		cJSON_AddStringToObject(svc, "name", s->name);
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(svc, "port"),
		    "number", (double)port.port);
		cJSON_AddItemToArray(paths, p);
	}
	return o;
}

char *
rai_submit_git_secret_name(const char *job)
{
	return xasprintf("%s-git-sync", job);
}

/* The clone's credentials, when it has some, for the init container. */
static int
add_git_secret(const struct rai_submit_spec *s, struct rai_submit_objs *objs,
    struct rai_err *err)
{
	struct rai_git_sync g;
	cJSON *meta, *o, *data;
	char *name;

	if (rai_git_sync_parse_with(s->git_sync,
	    s->git_sync_password, &g, err) == -1)
		return -1;
	if (!rai_git_sync_has_credentials(&g)) {
		rai_git_sync_release(&g);
		return 0;
	}
	name = rai_submit_git_secret_name(s->name);
	o = new_object("v1", "Secret", s, name, &meta);
	cJSON_AddItemToObject(meta, "labels", common_labels(s));
	cJSON_AddStringToObject(o, "type", "Opaque");
	data = cJSON_AddObjectToObject(o, "stringData");
	cJSON_AddStringToObject(data, "username", g.username ? g.username : "");
	cJSON_AddStringToObject(data, "password", g.password ? g.password : "");
	add_obj(objs, &KUBE_RES_SECRETS, "secret", o);
	free(name);
	rai_git_sync_release(&g);
	return 0;
}

int
rai_submit_render(const struct rai_submit_spec *s,
    struct rai_submit_objs *objs, struct rai_err *err)
{
	cJSON *o;

	memset(objs, 0, sizeof(*objs));
	if (rai_submit_check_spec(s, err) == -1)
		return -1;
	/* PVCs, Secret, workload, Service, Ingress: room for all of them */
	if (s->pvcs.n > RAI_SUBMIT_MAX_OBJS - 4)
		return rai_err_set(err, RAI_E_USAGE, "at most %d --pvc flags",
		    RAI_SUBMIT_MAX_OBJS - 4);
	if (s->git_sync != NULL && add_git_secret(s, objs, err) == -1)
		goto fail;
	if (s->custom != NULL) {
		if ((o = render_custom(s, objs, err)) == NULL)
			goto fail;
		add_obj(objs, s->custom->res, s->custom->app_kind, o);
	} else if ((o = render_workload(s, objs, err)) == NULL)
		goto fail;
	else if (s->inference)
		add_obj(objs, &KUBE_RES_DEPLOYMENTS, "deployment.apps", o);
	else if (s->batch_job)
		add_obj(objs, &KUBE_RES_JOBS, "job.batch", o);
	else
		add_obj(objs, &KUBE_RES_RUNAIJOBS, "runaijob.run.ai", o);
	if (s->service_type == NULL)
		return 0;
	if ((o = render_service(s, err)) == NULL)
		goto fail;
	add_obj(objs, &KUBE_RES_SERVICES, "service", o);
	if (strcmp(s->service_type, "ingress") != 0)
		return 0;
	if ((o = render_ingress(s, err)) == NULL)
		goto fail;
	add_obj(objs, &KUBE_RES_INGRESSES, "ingress.networking.k8s.io", o);
	return 0;
fail:
	rai_submit_objs_release(objs);
	return -1;
}

void
rai_submit_objs_release(struct rai_submit_objs *objs)
{
	size_t i;

	for (i = 0; i < objs->n; i++)
		cJSON_Delete(objs->v[i].obj);
	memset(objs, 0, sizeof(*objs));
}

const struct rai_submit_obj *
rai_submit_workload(const struct rai_submit_objs *objs)
{
	size_t i;

	for (i = 0; i < objs->n; i++)
		if (objs->v[i].res == &KUBE_RES_RUNAIJOBS ||
		    objs->v[i].res == &KUBE_RES_JOBS ||
		    objs->v[i].res == &KUBE_RES_DEPLOYMENTS)
			return &objs->v[i];
	return NULL;
}

/* ---- the name-reservation ConfigMap ---- */

/*
 * The chart's values, keyed as the reference's values file, so a person
 * (or the reference CLI) reading the ConfigMap sees what was asked for.
 */
static cJSON *
values_of(const struct rai_submit_spec *s)
{
	cJSON *v = cJSON_CreateObject();

	cJSON_AddStringToObject(v, "name", s->name);
	cJSON_AddStringToObject(v, "project", s->project);
	cJSON_AddStringToObject(v, "image", s->image);
	cJSON_AddStringToObject(v, "imagePullPolicy",
	    s->image_pull_policy ? s->image_pull_policy : "Always");
	cJSON_AddBoolToObject(v, "interactive", s->interactive);
	if (s->gpu >= 1)
		cJSON_AddNumberToObject(v, "gpuInt", s->gpu);
	else if (s->gpu > 0)
		cJSON_AddNumberToObject(v, "gpuFraction", s->gpu);
	if (s->gpu_memory)
		cJSON_AddStringToObject(v, "gpuMemory", s->gpu_memory);
	if (s->cpu)
		cJSON_AddStringToObject(v, "cpu", s->cpu);
	if (s->cpu_limit)
		cJSON_AddStringToObject(v, "cpuLimit", s->cpu_limit);
	if (s->memory)
		cJSON_AddStringToObject(v, "memory", s->memory);
	if (s->memory_limit)
		cJSON_AddStringToObject(v, "memoryLimit", s->memory_limit);
	if (s->ncmd > 0) {
		cJSON_AddBoolToObject(v, "isCommand", s->is_command);
		add_string_array(v, s->is_command ? "command" : "args", s->cmd,
		    s->ncmd);
	}
	if (s->env.n > 0)
		add_string_array(v, "environment", s->env.v,
		    s->env.n);
	if (s->volumes.n > 0)
		add_string_array(v, "volumes", s->volumes.v,
		    s->volumes.n);
	if (s->pvcs.n > 0)
		add_string_array(v, "persistentVolumes",
		    s->pvcs.v, s->pvcs.n);
	if (s->ports.n > 0)
		add_string_array(v, "ports", s->ports.v,
		    s->ports.n);
	if (s->service_type)
		cJSON_AddStringToObject(v, "serviceType", s->service_type);
	if (s->node_type)
		cJSON_AddStringToObject(v, "nodeType", s->node_type);
	if (s->mig_profile)
		cJSON_AddStringToObject(v, "migDevice", s->mig_profile);
	if (s->elastic)
		cJSON_AddBoolToObject(v, "elastic", 1);
	if (s->inference)
		cJSON_AddBoolToObject(v, "isInference", 1);
	if (s->git_sync != NULL) {
		char *redacted = rai_git_sync_redact(s->git_sync);

		cJSON_AddStringToObject(v, "gitSync", redacted);
		free(redacted);
	}
	if (s->user)
		cJSON_AddStringToObject(v, "user", s->user);
	cJSON_AddBoolToObject(v, "shm", s->large_shm);
	return v;
}

static void
app_list(const struct rai_submit_objs *objs, struct rai_buf *b)
{
	const char *name;
	size_t i;

	for (i = 0; i < objs->n; i++) {
		name = rai_json_str(objs->v[i].obj, "metadata.name");
		rai_buf_addf(b, "%s%s/%s", i ? "\n" : "", objs->v[i].app_kind,
		    name ? name : "");
	}
}

cJSON *
rai_submit_configmap(const struct rai_submit_spec *s, const char *base_name,
    long base_index, const struct rai_submit_objs *objs)
{
	cJSON *meta, *cm = new_object("v1", "ConfigMap", s, s->name, &meta);
	cJSON *labels, *data, *values = values_of(s);
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	char idx[32];

	labels = cJSON_AddObjectToObject(meta, "labels");
	cJSON_AddStringToObject(labels, "createdBy", "arena");
	cJSON_AddStringToObject(labels, "base-name", base_name);
	snprintf(idx, sizeof(idx), "%ld", base_index);
	cJSON_AddStringToObject(labels, "base-name-index", idx);
	data = cJSON_AddObjectToObject(cm, "data");
	cJSON_AddStringToObject(data, RAI_SUBMIT_CHART_DIR,
	    RAI_SUBMIT_CHART_VER);
	if (rai_yaml_emit(values, &b, &err) == 0)
		cJSON_AddStringToObject(data, "values", rai_buf_str(&b));
	rai_err_release(&err);
	rai_buf_reset(&b);
	app_list(objs, &b);
	cJSON_AddStringToObject(data, "app", rai_buf_str(&b));
	rai_buf_release(&b);
	cJSON_Delete(values);
	return cm;
}
