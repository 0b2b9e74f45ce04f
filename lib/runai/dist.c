/*
 * Distributed training jobs around submit's pod template: one replica
 * spec for the chief (Master, TF's Chief, MPI's Launcher) and one for
 * the workers, each with its own copy of the template, as the
 * training operator's API types spell them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/quantity.h"
#include "runai/dist.h"
#include "runai/submit_kv.h"

#include "core/banned.h"

#define LABEL_TYPE	"training.kubeflow.org/replica-type"
#define LABEL_ROLE	"training.kubeflow.org/job-role"
#define LABEL_INDEX	"training.kubeflow.org/replica-index"

const struct kube_res RAI_RES_PYTORCHJOBS = { "kubeflow.org", "v1",
	"pytorchjobs", 1 };
const struct kube_res RAI_RES_TFJOBS = { "kubeflow.org", "v1", "tfjobs", 1 };
const struct kube_res RAI_RES_XGBOOSTJOBS = { "kubeflow.org", "v1",
	"xgboostjobs", 1 };
const struct kube_res RAI_RES_MPIJOBS = { "kubeflow.org", "v2beta1",
	"mpijobs", 1 };

static const struct rai_dist_framework frameworks[RAI_DIST_NKINDS] = {
	[RAI_DIST_PYTORCH] = { "pytorch", "PyTorch", "PyTorchJob",
	    "kubeflow.org/v1", &RAI_RES_PYTORCHJOBS, "pytorchjob.kubeflow.org",
	    "pytorchReplicaSpecs", "pytorch", "Master", 1 },
	[RAI_DIST_MPI] = { "mpi", "MPI", "MPIJob", "kubeflow.org/v2beta1",
	    &RAI_RES_MPIJOBS, "mpijob.v2beta1.kubeflow.org", "mpiReplicaSpecs", "mpi",
	    "Launcher", 0 },
	[RAI_DIST_TF] = { "tf", "TensorFlow", "TFJob", "kubeflow.org/v1",
	    &RAI_RES_TFJOBS, "tfjob.kubeflow.org", "tfReplicaSpecs",
	    "tensorflow", "Chief", 1 },
	[RAI_DIST_XGBOOST] = { "xgboost", "XGBoost", "XGBoostJob",
	    "kubeflow.org/v1", &RAI_RES_XGBOOSTJOBS, "xgboostjob.kubeflow.org",
	    "xgbReplicaSpecs", "xgboost", "Master", 0 },
};

const struct rai_dist_framework *
rai_dist_framework(enum rai_dist_kind k)
{
	return k >= 0 && k < RAI_DIST_NKINDS ? &frameworks[k] : NULL;
}

const struct rai_dist_framework *
rai_dist_by_word(const char *word)
{
	size_t i;

	for (i = 0; word != NULL && i < RAI_DIST_NKINDS; i++)
		if (strcmp(frameworks[i].word, word) == 0)
			return &frameworks[i];
	return NULL;
}

const struct rai_dist_framework *
rai_dist_by_kind(const char *kind)
{
	size_t i;

	for (i = 0; kind != NULL && i < RAI_DIST_NKINDS; i++)
		if (strcmp(frameworks[i].kind, kind) == 0)
			return &frameworks[i];
	return NULL;
}

static const char *const restart_policies[] = { "Always", "OnFailure",
	"Never", NULL };

static int
is_restart_policy(const char *p)
{
	size_t i;

	for (i = 0; restart_policies[i] != NULL; i++)
		if (strcmp(restart_policies[i], p) == 0)
			return 1;
	return 0;
}

/* What the CLI v2 adds: the workers' restart policy, elastic bounds. */
static int
check_v2(const struct rai_dist_spec *d, struct rai_err *err)
{
	if (d->restart_policy != NULL && !is_restart_policy(d->restart_policy))
		return rai_err_set(err, RAI_E_USAGE, "--restart-policy is "
		    "Always, OnFailure or Never, not '%s'", d->restart_policy);
	if ((d->min_replicas != 0 || d->max_replicas != 0) &&
	    d->kind != RAI_DIST_PYTORCH)
		return rai_err_set(err, RAI_E_USAGE, "--min-replicas and "
		    "--max-replicas are for PyTorch jobs");
	if (d->min_replicas < 0 || d->max_replicas < 0 ||
	    (d->max_replicas > 0 && d->min_replicas > d->max_replicas))
		return rai_err_set(err, RAI_E_USAGE, "--min-replicas %ld and "
		    "--max-replicas %ld: each 1 or more, the least first",
		    d->min_replicas, d->max_replicas);
	return 0;
}

static int
check_master_gpu(const struct rai_dist_master *m, struct rai_err *err)
{
	if (m->gpu_portion < 0 || m->gpu_portion > 1)
		return rai_err_set(err, RAI_E_USAGE, "--master-gpu-portion-request "
		    "is a portion of one GPU: more than 0, at most 1");
	if (m->gpu_portion > 0 && m->gpu_devices > 1)
		return rai_err_set(err, RAI_E_USAGE, "a portion of each of several "
		    "GPUs (--master-gpu-devices-request more than 1 with "
		    "--master-gpu-portion-request) is not supported by this runai "
		    "yet");
	if (m->gpu_portion_limit != 0 && (m->gpu_portion == 0 ||
	    m->gpu_portion_limit < m->gpu_portion || m->gpu_portion_limit > 1))
		return rai_err_set(err, RAI_E_USAGE, "--master-gpu-portion-limit "
		    "goes with --master-gpu-portion-request, from it to 1");
	return 0;
}

static int
check_master_values(const struct rai_dist_master *m, struct rai_err *err)
{
	static const char *const flags[] = { "--master-cpu-core-request",
		"--master-cpu-core-limit", "--master-cpu-memory-request",
		"--master-cpu-memory-limit" };
	const char *const q[] = { m->cpu, m->cpu_limit, m->memory,
		m->memory_limit };
	struct rai_extended e;
	struct rai_kv kv;
	const char *eq;
	double v;
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (q[i] != NULL && (rai_quantity_parse(q[i], &v) == -1 || v < 0))
			return rai_err_set(err, RAI_E_USAGE, "%s '%s' is not a "
			    "quantity", flags[i], q[i]);
	for (i = 0; i < m->env.n; i++)
		if ((eq = strchr(m->env.v[i], '=')) == NULL || eq == m->env.v[i])
			return rai_err_set(err, RAI_E_USAGE, "--master-environment-"
			    "variable '%s': give NAME=VALUE", m->env.v[i]);
	for (i = 0; i < m->extended_resources.n; i++) {
		if (rai_parse_extended(m->extended_resources.v[i], &kv, &e,
		    err) == -1)
			return -1;
		rai_kv_release(&kv);
	}
	return 0;
}

/* The master's own values: for a job that has a master. */
static int
check_master(const struct rai_dist_spec *d, struct rai_err *err)
{
	const struct rai_dist_master *m = d->master;
	struct rai_strv words = { NULL, 0 };
	int rc;

	if (m == NULL)
		return 0;
	if (d->no_master || d->kind == RAI_DIST_JAX)
		return rai_err_set(err, RAI_E_USAGE, "the --master-* flags are "
		    "for a job with a master (not with --no-master)");
	if (m->restart_policy != NULL && !is_restart_policy(m->restart_policy))
		return rai_err_set(err, RAI_E_USAGE, "--master-restart-policy is "
		    "Always, OnFailure or Never, not '%s'", m->restart_policy);
	rc = (m->command != NULL && rai_split_words("--master-command",
	    m->command, &words, err) == -1) || (m->args != NULL &&
	    rai_split_words("--master-args", m->args, &words, err) == -1);
	rai_strv_release(&words);
	if (rc)
		return -1;
	return check_master_gpu(m, err) == -1 ||
	    check_master_values(m, err) == -1 ? -1 : 0;
}

int
rai_dist_check(const struct rai_dist_spec *d, struct rai_err *err)
{
	const struct rai_dist_framework *fw = rai_dist_framework(d->kind);

	if (check_v2(d, err) == -1 || check_master(d, err) == -1)
		return -1;
	if (fw == NULL && d->kind == RAI_DIST_JAX)
		return d->workers < 1 || d->no_master || d->slots >= 0 ?
		    rai_err_set(err, RAI_E_USAGE, "a JAX job is --workers "
		    "workers (1 or more), no master, no slots") : 0;
	if (fw == NULL)
		return rai_err_set(err, RAI_E_INTERNAL, "submit-dist: no such "
		    "framework");
	if (d->no_master && !fw->chief_optional)
		return rai_err_set(err, RAI_E_USAGE, "--no-master: an %s "
		    "always has its %s", fw->kind, d->kind == RAI_DIST_MPI ?
		    "launcher" : "master");
	if (d->workers < 0)
		return rai_err_set(err, RAI_E_USAGE, "--workers must be 0 or "
		    "more, not %ld", d->workers);
	if (d->workers == 0 && (d->no_master || d->kind == RAI_DIST_MPI))
		return rai_err_set(err, RAI_E_USAGE, "--workers must be at "
		    "least 1 %s", d->no_master ? "with --no-master" :
		    "for an MPI job");
	if (d->slots >= 0 && d->kind != RAI_DIST_MPI)
		return rai_err_set(err, RAI_E_USAGE, "--slots-per-worker is "
		    "for MPI jobs");
	if (d->slots == 0)
		return rai_err_set(err, RAI_E_USAGE, "--slots-per-worker must "
		    "be at least 1");
	return 0;
}

/* ---- the job's spec ---- */

static cJSON *
first_container(cJSON *tmpl)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(tmpl, "spec"), "containers"), 0);
}

/* The operator finds the training container by its name. */
static void
name_container(cJSON *tmpl, const char *name)
{
	cJSON *c = first_container(tmpl);

	if (c != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(c, "name",
		    cJSON_CreateString(name));
}

/* MPI's launcher only starts mpirun: it needs no GPU. */
static void
drop_gpus(cJSON *tmpl)
{
	cJSON *limits = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(first_container(tmpl),
	    "resources"), "limits");
	cJSON *ann = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(tmpl, "metadata"), "annotations");

	cJSON_DeleteItemFromObjectCaseSensitive(limits, "nvidia.com/gpu");
	cJSON_DeleteItemFromObjectCaseSensitive(ann, "gpu-fraction");
	cJSON_DeleteItemFromObjectCaseSensitive(ann, "gpu-memory");
}

/* MPI's workers run the image's own entrypoint (sshd); mpirun reaches
 * them from the launcher, which runs the command. */
static void
drop_command(cJSON *tmpl)
{
	cJSON *c = first_container(tmpl);

	cJSON_DeleteItemFromObjectCaseSensitive(c, "command");
	cJSON_DeleteItemFromObjectCaseSensitive(c, "args");
}

/*
 * By default a failed pod fails the job, as a failed pod of "runai
 * submit"; policy (the workers' --restart-policy) says otherwise, on
 * the replica and its pods alike.
 */
static void
add_replica(cJSON *specs, const char *type, long n, cJSON *tmpl,
    const char *policy)
{
	cJSON *r = cJSON_AddObjectToObject(specs, type);

	if (policy == NULL)
		policy = "Never";
	cJSON_AddNumberToObject(r, "replicas", (double)n);
	cJSON_AddStringToObject(r, "restartPolicy", policy);
	cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    tmpl, "spec"), "restartPolicy", cJSON_CreateString(policy));
	cJSON_AddItemToObject(r, "template", tmpl);
}

static void
add_run_policy(const struct rai_dist_spec *d, cJSON *spec)
{
	cJSON *elastic;

	if (d->clean_pod_policy != NULL)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(spec,
		    "runPolicy"), "cleanPodPolicy", d->clean_pod_policy);
	if (d->min_replicas == 0 && d->max_replicas == 0)
		return;
	/* PyTorch's elastic training: the workers may grow and shrink */
	elastic = cJSON_AddObjectToObject(spec, "elasticPolicy");
	if (d->min_replicas > 0)
		cJSON_AddNumberToObject(elastic, "minReplicas",
		    (double)d->min_replicas);
	if (d->max_replicas > 0)
		cJSON_AddNumberToObject(elastic, "maxReplicas",
		    (double)d->max_replicas);
}

/* ---- the master's own values (checked with the spec) ---- */

/* The container's key as the words of text (none: the key goes). */
static void
set_words(cJSON *c, const char *key, const char *text)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_strv w = { NULL, 0 };
	cJSON *arr;
	size_t i;

	cJSON_DeleteItemFromObjectCaseSensitive(c, key);
	if (text == NULL || rai_split_words(key, text, &w, &err) == -1) {
		rai_err_release(&err);
		return;
	}
	arr = cJSON_AddArrayToObject(c, key);
	for (i = 0; i < w.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(w.v[i]));
	rai_strv_release(&w);
}

/* NAME=VALUE over the container's variable of that name, or added. */
static void
set_env(cJSON *c, const struct rai_strv *env)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(c, "env"), *e, *old;
	const char *eq;
	char *name;
	size_t i;

	if (arr == NULL && env->n > 0)
		arr = cJSON_AddArrayToObject(c, "env");
	for (i = 0; i < env->n; i++) {
		eq = strchr(env->v[i], '=');
		name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddStringToObject(e, "value", eq + 1);
		cJSON_ArrayForEach(old, arr)
			if (strcmp(rai_json_str_or(old, "name", ""), name) == 0)
				break;
		if (old != NULL)
			cJSON_ReplaceItemViaPointer(arr, old, e);
		else
			cJSON_AddItemToArray(arr, e);
		free(name);
	}
}

/* container.resources.<which>, made when missing. */
static cJSON *
resources_of(cJSON *c, const char *which)
{
	cJSON *r = cJSON_GetObjectItemCaseSensitive(c, "resources"), *o;

	if (r == NULL)
		r = cJSON_AddObjectToObject(c, "resources");
	o = cJSON_GetObjectItemCaseSensitive(r, which);
	return o != NULL ? o : cJSON_AddObjectToObject(r, which);
}

static void
set_quantity(cJSON *c, const char *which, const char *key, const char *v)
{
	cJSON *o;

	if (v == NULL)
		return;
	o = resources_of(c, which);
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, v);
}

/* The master's GPUs in place of the workers': whole, or a portion. */
static void
set_gpus(cJSON *tmpl, cJSON *c, const struct rai_dist_master *m)
{
	static const char *const keys[] = { "gpu-fraction",
		"gpu-fraction-limit", "gpu-memory", "gpu-memory-limit" };
	cJSON *ann = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(tmpl, "metadata"), "annotations");
	cJSON *limits;
	char buf[32];
	size_t i;

	if (m->gpu_devices < 0 && m->gpu_portion == 0)
		return;
	limits = resources_of(c, "limits");
	cJSON_DeleteItemFromObjectCaseSensitive(limits, "nvidia.com/gpu");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cJSON_DeleteItemFromObjectCaseSensitive(ann, keys[i]);
	if (m->gpu_portion > 0) {
		snprintf(buf, sizeof(buf), "%g", m->gpu_portion);
		cJSON_AddStringToObject(ann, "gpu-fraction", buf);
		if (m->gpu_portion_limit > 0) {
			snprintf(buf, sizeof(buf), "%g", m->gpu_portion_limit);
			cJSON_AddStringToObject(ann, "gpu-fraction-limit", buf);
		}
	} else if (m->gpu_devices > 0)
		cJSON_AddNumberToObject(limits, "nvidia.com/gpu",
		    (double)m->gpu_devices);
}

/* --master-no-pvcs: the claims' volumes go, and their mounts. */
static void
drop_claims(cJSON *tmpl, cJSON *c)
{
	cJSON *vols = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(tmpl, "spec"), "volumes");
	cJSON *mounts = cJSON_GetObjectItemCaseSensitive(c, "volumeMounts");
	cJSON *v, *mnt, *next;
	const char *name;

	for (v = vols != NULL ? vols->child : NULL; v != NULL; v = next) {
		next = v->next;
		if (rai_json_get(v, "persistentVolumeClaim") == NULL)
			continue;
		name = rai_json_str_or(v, "name", "");
		cJSON_ArrayForEach(mnt, mounts)
			if (strcmp(rai_json_str_or(mnt, "name", ""), name) == 0)
				break;
		if (mnt != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(mounts, mnt));
		cJSON_Delete(cJSON_DetachItemViaPointer(vols, v));
	}
	/* none left: no empty lists either */
	if (cJSON_GetArraySize(mounts) == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(c, "volumeMounts");
	if (cJSON_GetArraySize(vols) == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(tmpl, "spec"), "volumes");
}

static void
apply_master(cJSON *chief, const struct rai_dist_master *m)
{
	cJSON *c = first_container(chief);
	struct rai_extended e;
	struct rai_err err = RAI_ERR_INIT;
	struct rai_kv kv;
	size_t i;

	if (m->command != NULL) {
		set_words(c, "command", m->command);
		set_words(c, "args", m->args);
	} else if (m->args != NULL)
		set_words(c, "args", m->args);
	set_env(c, &m->env);
	set_gpus(chief, c, m);
	set_quantity(c, "requests", "cpu", m->cpu);
	set_quantity(c, "limits", "cpu", m->cpu_limit);
	set_quantity(c, "requests", "memory", m->memory);
	set_quantity(c, "limits", "memory", m->memory_limit);
	for (i = 0; i < m->extended_resources.n; i++)
		if (rai_parse_extended(m->extended_resources.v[i], &kv, &e,
		    &err) == 0) {
			set_quantity(c, "limits", e.resource, e.quantity);
			rai_kv_release(&kv);
		}
	rai_err_release(&err);
	if (m->no_pvcs)
		drop_claims(chief, c);
}

static int
fill(const struct rai_submit_spec *s, const void *arg, cJSON *spec,
    cJSON *tmpl, struct rai_err *err)
{
	const struct rai_dist_spec *d = arg;
	const struct rai_dist_framework *fw = rai_dist_framework(d->kind);
	cJSON *specs, *chief = NULL;

	(void)s;
	if (rai_dist_check(d, err) == -1) {
		cJSON_Delete(tmpl);
		return -1;
	}
	name_container(tmpl, fw->container);
	if (d->kind == RAI_DIST_MPI) {
		cJSON_AddNumberToObject(spec, "slotsPerWorker",
		    d->slots > 0 ? (double)d->slots : 1);
		cJSON_AddStringToObject(spec, "mpiImplementation", "OpenMPI");
	}
	add_run_policy(d, spec);
	specs = cJSON_AddObjectToObject(spec, fw->specs_key);
	if (!d->no_master) {
		chief = cJSON_Duplicate(tmpl, 1);
		if (d->kind == RAI_DIST_MPI) {
			drop_gpus(chief);
			drop_command(tmpl);
		}
		if (d->master != NULL)
			apply_master(chief, d->master);
		add_replica(specs, fw->chief, 1, chief, d->master != NULL ?
		    d->master->restart_policy : NULL);
	}
	if (d->workers > 0)
		add_replica(specs, "Worker", d->workers, tmpl,
		    d->restart_policy);
	else
		cJSON_Delete(tmpl);
	return 0;
}

void
rai_dist_custom(const struct rai_dist_spec *d, struct rai_submit_custom *out)
{
	const struct rai_dist_framework *fw = rai_dist_framework(d->kind);

	memset(out, 0, sizeof(*out));
	out->api_version = fw->api_version;
	out->kind = fw->kind;
	out->app_kind = fw->app_kind;
	out->res = fw->res;
	out->fill = fill;
	out->arg = d;
}

/* ---- reading ---- */

const char *
rai_dist_pod_role(const cJSON *pod)
{
	const char *role = rai_json_label(pod, LABEL_TYPE);

	return role != NULL ? role : rai_json_label(pod, LABEL_ROLE);
}

long
rai_dist_pod_index(const cJSON *pod)
{
	const char *v = rai_json_label(pod, LABEL_INDEX);
	char *end;
	long i;

	if (v == NULL)
		return -1;
	i = strtol(v, &end, 10);
	return *end == '\0' && end != v && i >= 0 ? i : -1;
}
