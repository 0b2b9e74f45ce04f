/*
 * Distributed training jobs around submit's pod template: one replica
 * spec for the chief (Master, TF's Chief, MPI's Launcher) and one for
 * the workers, each with its own copy of the template, as the
 * training operator's API types spell them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "runai/dist.h"

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

/* What the CLI v2 adds: the workers' restart policy, elastic bounds. */
static int
check_v2(const struct rai_dist_spec *d, struct rai_err *err)
{
	size_t i;

	for (i = 0; d->restart_policy != NULL && restart_policies[i] != NULL;
	    i++)
		if (strcmp(restart_policies[i], d->restart_policy) == 0)
			break;
	if (d->restart_policy != NULL && restart_policies[i] == NULL)
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

int
rai_dist_check(const struct rai_dist_spec *d, struct rai_err *err)
{
	const struct rai_dist_framework *fw = rai_dist_framework(d->kind);

	if (check_v2(d, err) == -1)
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
		add_replica(specs, fw->chief, 1, chief, NULL);
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
