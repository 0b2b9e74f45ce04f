/*
 * Unit tests of lib/runai/dist.c: the training-operator job of each
 * framework around submit's pod template, against golden files (the
 * e2e test compares "runai submit-dist --dry-run" with the same files),
 * the flag checks, and the pod roles the reading commands go by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/yaml.h"
#include "runai/dist.h"
#include "runai/submit.h"

#include "harness.h"
#include "golden.h"
#include "submit_yaml.h"

/* The spec a command line makes (as submit_dist.c fills it). */
struct job {
	struct rai_dist_spec	 d;
	struct rai_submit_custom custom;
	struct rai_submit_spec	 s;
	const char		*env[2];
	const char		*cmd[4];
};

static void
job_init(struct job *j, enum rai_dist_kind k, const char *name,
    const char *image, long workers)
{
	memset(j, 0, sizeof(*j));
	j->d.kind = k;
	j->d.workers = workers;
	j->d.slots = -1;
	rai_dist_custom(&j->d, &j->custom);
	rai_submit_spec_init(&j->s);
	j->s.custom = &j->custom;
	j->s.name = name;
	j->s.project = "team-a";
	j->s.namespace = "runai-team-a";
	j->s.user = "john@acme.com";
	j->s.image = image;
}

static void
golden(const char *name, const struct job *j)
{
	char *y = t_submit_yaml(&j->s, j->s.name, 0);

	T_GOLDEN(name, y);
	free(y);
}

static cJSON *
render_job(const struct job *j)
{
	struct rai_submit_objs objs;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *w;

	T_INT_EQ(rai_submit_render(&j->s, &objs, &err), 0);
	rai_err_release(&err);
	if (objs.n == 0)
		return NULL;
	w = cJSON_Duplicate(objs.v[objs.n - 1].obj, 1);
	rai_submit_objs_release(&objs);
	return w;
}

/* The first container of one replica type's template. */
static const cJSON *
container_of(const cJSON *w, const char *specs, const char *type)
{
	const cJSON *r = rai_json_child(rai_json_child(rai_json_child(w,
	    "spec"), specs), type);

	return cJSON_GetArrayItem(rai_json_array(r, "template.spec.containers"),
	    0);
}

TEST(pytorch_master_and_workers)
{
	struct job j;

	job_init(&j, RAI_DIST_PYTORCH, "ddp", "pytorch/pytorch", 2);
	j.s.cli_command = "runai submit-dist pytorch ddp -i pytorch/pytorch "
	    "--workers 2 -g 1 -e EPOCHS=3 --clean-pod-policy All -- python "
	    "train.py";
	j.s.gpu = 1;
	j.env[0] = "EPOCHS=3";
	j.s.env.v = j.env;
	j.s.env.n = 1;
	j.cmd[0] = "python";
	j.cmd[1] = "train.py";
	j.s.cmd = j.cmd;
	j.s.ncmd = 2;
	j.d.clean_pod_policy = "All";
	golden("dist-pytorch.yaml", &j);
}

TEST(mpi_launcher_takes_the_command_and_no_gpu)
{
	struct job j;
	const cJSON *launcher, *worker;
	cJSON *w;

	job_init(&j, RAI_DIST_MPI, "hvd", "horovod/horovod", 2);
	j.s.cli_command = "runai submit-dist mpi hvd -i horovod/horovod "
	    "--workers 2 -g 2 --slots-per-worker 2 -- mpirun python train.py";
	j.s.gpu = 2;
	j.d.slots = 2;
	j.cmd[0] = "mpirun";
	j.cmd[1] = "python";
	j.cmd[2] = "train.py";
	j.s.cmd = j.cmd;
	j.s.ncmd = 3;
	golden("dist-mpi.yaml", &j);
	w = render_job(&j);
	T_STR_EQ(rai_json_str(w, "apiVersion"), "kubeflow.org/v2beta1");
	launcher = container_of(w, "mpiReplicaSpecs", "Launcher");
	worker = container_of(w, "mpiReplicaSpecs", "Worker");
	T_NULL(rai_json_child(rai_json_get(launcher, "resources.limits"),
	    "nvidia.com/gpu"));
	T_NOT_NULL(rai_json_child(rai_json_get(worker, "resources.limits"),
	    "nvidia.com/gpu"));
	T_NOT_NULL(rai_json_array(launcher, "args"));
	T_NULL(rai_json_array(worker, "args"));
	cJSON_Delete(w);
}

TEST(tf_without_chief)
{
	struct job j;

	job_init(&j, RAI_DIST_TF, "tfd", "tensorflow/tensorflow", 2);
	j.s.cli_command = "runai submit-dist tf tfd -i tensorflow/tensorflow "
	    "--workers 2 --no-master -g 1 --large-shm";
	j.s.gpu = 1;
	j.s.large_shm = 1;
	j.d.no_master = 1;
	golden("dist-tf.yaml", &j);
}

TEST(xgboost_master_and_worker)
{
	struct job j;

	job_init(&j, RAI_DIST_XGBOOST, "xgb", "kubeflow/xgboost", 1);
	j.s.cli_command = "runai submit-dist xgboost xgb -i kubeflow/xgboost "
	    "--workers 1 --cpu 2 --memory 4G";
	j.s.cpu = "2";
	j.s.memory = "4G";
	golden("dist-xgboost.yaml", &j);
}

static void
expect_error(struct job *j, const char *msg)
{
	struct rai_submit_objs objs;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rai_dist_check(&j->d, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_CONTAINS(err.message, msg);
	rai_err_release(&err);
	/* the render refuses it too, leaving nothing behind */
	T_INT_EQ(rai_submit_render(&j->s, &objs, &err), -1);
	T_UINT_EQ(objs.n, 0);
	rai_err_release(&err);
}

TEST(checks)
{
	static const struct {
		enum rai_dist_kind	 kind;
		long			 workers;
		int			 no_master;
		long			 slots;
		const char		*msg;
	} cases[] = {
		{ RAI_DIST_MPI, 2, 1, -1,
		    "--no-master: an MPIJob always has its launcher" },
		{ RAI_DIST_XGBOOST, 2, 1, -1,
		    "--no-master: an XGBoostJob always has its master" },
		{ RAI_DIST_PYTORCH, -1, 0, -1, "--workers must be 0 or more" },
		{ RAI_DIST_MPI, 0, 0, -1, "at least 1 for an MPI job" },
		{ RAI_DIST_TF, 0, 1, -1, "at least 1 with --no-master" },
		{ RAI_DIST_PYTORCH, 1, 0, 2, "--slots-per-worker is for MPI jobs" },
		{ RAI_DIST_MPI, 1, 0, 0, "--slots-per-worker must be at least 1" },
	};
	struct job j;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_init(&j, cases[i].kind, "j", "img", cases[i].workers);
		j.d.no_master = cases[i].no_master;
		j.d.slots = cases[i].slots;
		expect_error(&j, cases[i].msg);
	}
}

TEST(a_master_alone_is_a_job)
{
	struct job j;
	cJSON *w;

	job_init(&j, RAI_DIST_PYTORCH, "solo", "img", 0);
	w = render_job(&j);
	T_NOT_NULL(rai_json_get(rai_json_get(w, "spec.pytorchReplicaSpecs"),
	    "Master"));
	T_NULL(rai_json_get(rai_json_get(w, "spec.pytorchReplicaSpecs"),
	    "Worker"));
	cJSON_Delete(w);
}

TEST(frameworks_and_roles)
{
	static const char pod[] = "{\"metadata\":{\"labels\":{"
	    "\"training.kubeflow.org/replica-type\":\"worker\","
	    "\"training.kubeflow.org/replica-index\":\"3\"}}}";
	static const char launcher[] = "{\"metadata\":{\"labels\":{"
	    "\"training.kubeflow.org/job-role\":\"launcher\"}}}";
	cJSON *p = cJSON_Parse(pod), *l = cJSON_Parse(launcher);

	T_STR_EQ(rai_dist_by_word("tf")->kind, "TFJob");
	T_STR_EQ(rai_dist_by_kind("MPIJob")->word, "mpi");
	T_NULL(rai_dist_by_kind("RunaiJob"));
	T_NULL(rai_dist_by_word("jax"));
	T_STR_EQ(rai_dist_pod_role(p), "worker");
	T_INT_EQ(rai_dist_pod_index(p), 3);
	T_STR_EQ(rai_dist_pod_role(l), "launcher");
	T_INT_EQ(rai_dist_pod_index(l), -1);
	T_NULL(rai_dist_pod_role(NULL));
	cJSON_Delete(p);
	cJSON_Delete(l);
}

int
main(void)
{
	RUN(pytorch_master_and_workers);
	RUN(mpi_launcher_takes_the_command_and_no_gpu);
	RUN(tf_without_chief);
	RUN(xgboost_master_and_worker);
	RUN(checks);
	RUN(a_master_alone_is_a_job);
	RUN(frameworks_and_roles);
	return t_done();
}
