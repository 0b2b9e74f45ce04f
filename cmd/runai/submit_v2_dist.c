/*
 * The CLI v2's "training pytorch|tensorflow|mpi|xgboost|jax submit":
 * runai submit-dist under the v2 grammar. Each framework has its own
 * option table with the v2 flag names, filling submit-dist's options
 * struct, and runs submit-dist's code (runai_submit_dist_run): the same
 * training-operator job in Kubernetes mode, the same distributed
 * request in control-plane mode. JAX is made by a control plane only
 * (2.24 or later).
 */
#include <stddef.h>

#include "runai.h"
#include "submit_opts.h"
#include "submit_v2_map.h"
#include "submit_v2_opts.h"

#include "core/banned.h"

#define T	struct runai_dist_opts

/* The master's own values, over its copy of the workers' pod. */
#define V2_MASTER_ROWS \
	{ .long_name = "master-command", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.command), .argh = "<command>", \
	  .help = "the master's command and arguments, one string" }, \
	{ .long_name = "master-args", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.args), .argh = "<args>", \
	  .help = "the master's arguments, one string" }, \
	{ .long_name = "master-environment-variable", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.master.env), .argh = "<name=value>", \
	  .help = "a variable of the master's, over the workers'" }, \
	{ .long_name = "master-environment", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.master.env), .argh = "<name=value>", \
	  .help = "a variable of the master's (CLI 2.18-2.20 spelling)" }, \
	{ .long_name = "master-gpu-devices-request", .type = RAI_OPT_INT, \
	  .offset = offsetof(T, v2.master.gpu_devices), .argh = "<n>", \
	  .flags = RAI_OPT_TRISTATE, .help = "the master's whole GPUs" }, \
	{ .long_name = "master-gpu-portion-request", .type = RAI_OPT_DOUBLE, \
	  .offset = offsetof(T, v2.master.gpu_portion), .argh = "<portion>", \
	  .help = "the master's portion of one GPU" }, \
	{ .long_name = "master-gpu-portion-limit", .type = RAI_OPT_DOUBLE, \
	  .offset = offsetof(T, v2.master.gpu_portion_limit), \
	  .argh = "<portion>", .help = "the portion the master may grow to" }, \
	{ .long_name = "master-cpu-core-request", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.cpu), .argh = "<cores>", \
	  .help = "the master's CPU cores" }, \
	{ .long_name = "master-cpu-core-limit", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.cpu_limit), .argh = "<cores>", \
	  .help = "the master's CPU cores at most" }, \
	{ .long_name = "master-cpu-memory-request", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.memory), .argh = "<size>", \
	  .help = "the master's memory" }, \
	{ .long_name = "master-cpu-memory-limit", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.master.memory_limit), .argh = "<size>", \
	  .help = "the master's memory at most" }, \
	{ .long_name = "master-extended-resource", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.master.extended_resources), \
	  .argh = "<resource=quantity>", \
	  .help = "an extended resource of the master's" }, \
	{ .long_name = "master-no-pvcs", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.master.no_pvcs), \
	  .help = "mount none of the claims on the master" }, \
	{ .long_name = "master-restart-policy", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, v2.master.restart_policy), .argh = "<policy>", \
	  .help = "the master's pod: Always, OnFailure or Never (default)", \
	  .choices = runai_v2_restart_policies, .comp = RAI_COMP_CHOICES }

/* What every framework takes besides the shared v2 rows. */
#define V2_DIST_ROWS \
	RUNAI_V2_OPTS_ALL(T), \
	{ .long_name = "workers", .type = RAI_OPT_INT, \
	  .offset = offsetof(T, workers), .argh = "<n>", .def = "1", \
	  .help = "worker pods, besides the master or launcher (default 1)" }, \
	{ .long_name = "restart-policy", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, v2.restart_policy), .argh = "<policy>", \
	  .help = "the workers' pods: Always, OnFailure or Never (default)", \
	  .choices = runai_v2_restart_policies, .comp = RAI_COMP_CHOICES }, \
	{ .long_name = "clean-pod-policy", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, clean_pod_policy), .argh = "<policy>", \
	  .help = "pods removed when the job ends: None, All or Running " \
	      "(the operator's default)", \
	  .choices = runai_v2_clean_policies, .comp = RAI_COMP_CHOICES }, \
	RUNAI_V2_REFUSED(T, "template", "<name>", "a workload template"), \
	RUNAI_V2_REFUSED(T, "external-url", "<container=n>", \
	    "reach a container port at a URL")

#define V2_NO_MASTER_ROW \
	{ .long_name = "no-master", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, no_master), \
	  .help = "workers only, worker 0 leads" }

static const struct rai_opt pytorch_opts[] = {
	V2_DIST_ROWS,
	V2_MASTER_ROWS,
	V2_NO_MASTER_ROW,
	{ .long_name = "min-replicas", .type = RAI_OPT_INT,
	  .offset = offsetof(T, v2.min_replicas), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "elastic: the fewest workers it runs with" },
	{ .long_name = "max-replicas", .type = RAI_OPT_INT,
	  .offset = offsetof(T, v2.max_replicas), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "elastic: the most workers it grows to" },
	RAI_OPT_END
};

static const struct rai_opt tensorflow_opts[] = {
	V2_DIST_ROWS,
	V2_MASTER_ROWS,
	V2_NO_MASTER_ROW,
	RAI_OPT_END
};

static const struct rai_opt mpi_opts[] = {
	V2_DIST_ROWS,
	V2_MASTER_ROWS,
	{ .long_name = "slots-per-worker", .type = RAI_OPT_INT,
	  .offset = offsetof(T, slots), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "processes per worker in the hostfile (default 1)" },
	RAI_OPT_END
};

static const struct rai_opt xgboost_opts[] = {
	V2_DIST_ROWS,
	V2_MASTER_ROWS,
	RAI_OPT_END
};

/* no master: a JAX job is its workers */
static const struct rai_opt jax_opts[] = {
	V2_DIST_ROWS,
	RAI_OPT_END
};

#undef T

static const struct runai_v2_kind pytorch_kind = {
	.what = "PyTorch training", .group = "training pytorch",
	.distributed = 1, .dist = RAI_DIST_PYTORCH,
};
static const struct runai_v2_kind tensorflow_kind = {
	.what = "TensorFlow training", .group = "training tensorflow",
	.distributed = 1, .dist = RAI_DIST_TF,
};
static const struct runai_v2_kind mpi_kind = {
	.what = "MPI training", .group = "training mpi",
	.distributed = 1, .dist = RAI_DIST_MPI,
};
static const struct runai_v2_kind xgboost_kind = {
	.what = "XGBoost training", .group = "training xgboost",
	.distributed = 1, .dist = RAI_DIST_XGBOOST,
};
static const struct runai_v2_kind jax_kind = {
	.what = "JAX training", .group = "training jax",
	.distributed = 1, .dist = RAI_DIST_JAX,
};

static int
v2_dist_submit(struct rai_ctx *ctx, struct runai_dist_opts *o,
    const struct runai_v2_kind *k, int argc, char **argv)
{
	struct runai_v2_common c = { o->prefix, &o->env, o->gpu_memory };

	runai_v2_flags_unset(&o->v2, ctx->cmd->opts, o);
	/* MPI's table alone has --slots-per-worker */
	if (k->dist != RAI_DIST_MPI)
		o->slots = -1;
	if (runai_v2_check(ctx, o, &o->v2, k, &c, argc, argv) == -1)
		return -1;
	o->v2kind = k;
	return runai_submit_dist_run(ctx, o, k->dist, argc, argv);
}

#define V2_DIST_RUN(fn, kind) \
	static int \
	fn(struct rai_ctx *ctx, void *opts, int argc, char **argv) \
	{ \
		return v2_dist_submit(ctx, opts, &(kind), argc, argv); \
	}

V2_DIST_RUN(cmd_pytorch_submit, pytorch_kind)
V2_DIST_RUN(cmd_tensorflow_submit, tensorflow_kind)
V2_DIST_RUN(cmd_mpi_submit, mpi_kind)
V2_DIST_RUN(cmd_xgboost_submit, xgboost_kind)
V2_DIST_RUN(cmd_jax_submit, jax_kind)

#define V2_DIST_DESCRIPTION(lead, master) \
	"A distributed training: " lead ", every pod running the same " \
	"image, command, GPUs, environment and volumes; the pods start " \
	"together or not at all. The words after \"--\" are the " \
	"entrypoint's arguments, or with -c/--command its command. NAME " \
	"names it; without NAME, --name-prefix P gives a name made of P " \
	"and a suffix.\n\n" \
	"The flags are those of the Run:ai CLI v2; runai makes the job " \
	"with runai submit-dist's code: in Kubernetes mode the training " \
	"operator's object (with runai submit's name reservation), in " \
	"control-plane mode the control plane's distributed workload. " \
	master "Flags this runai cannot carry yet are accepted and refused " \
	"with one line naming them.\n\n" \
	"It prints the job's name and the describe command to follow it; " \
	"--dry-run prints the objects or the request instead."

/* What the --master-* flags do, for the frameworks that have a master. */
#define V2_MASTER_TEXT \
	"The --master-* flags give the master (launcher, chief) values of " \
	"its own over its copy of the workers' pod: --master-command and " \
	"--master-args are one string each, split as a shell splits them. "

static const struct rai_example pytorch_examples[] = {
	{ "runai training pytorch submit ddp1 -i pytorch/pytorch --workers 2 "
	  "-g 1 -c -- torchrun train.py",
	    "a master and two workers, one GPU each" },
	{ "runai training pytorch submit el1 -i pytorch/pytorch --workers 2 "
	  "--min-replicas 1 --max-replicas 4 --no-master",
	    "elastic: from one to four workers" },
	{ NULL, NULL }
};

static const struct rai_example mpi_examples[] = {
	{ "runai training mpi submit hvd1 -i horovod/horovod --workers 2 "
	  "--slots-per-worker 2 -c -- mpirun python train.py",
	    "a launcher runs mpirun over two workers" },
	{ NULL, NULL }
};

static const struct rai_example other_examples[] = {
	{ "runai training tensorflow submit tf1 -i tensorflow/tensorflow "
	  "--workers 2 --no-master",
	    "two TensorFlow workers" },
	{ "runai training xgboost submit xgb1 -i kubeflow/xgboost --workers 2 "
	  "--dry-run",
	    "print the job instead of making it" },
	{ "runai training jax submit jx1 -i jax-img --workers 4",
	    "four JAX workers (control-plane mode, 2.24 or later)" },
	{ NULL, NULL }
};

#define V2_DIST_CMD(var, table, runner, eg, what, lead, master) \
	const struct rai_cmd var = { \
		.name = "submit", \
		.summary = (what), \
		.synopsis = "[<name>] -i <image> [--workers <n>] [options] " \
		    "[-- <command> [<arg>...]]", \
		.description = V2_DIST_DESCRIPTION(lead, master), \
		.examples = (eg), \
		.opts = (table), \
		.opts_size = sizeof(struct runai_dist_opts), \
		.args_min = 0, \
		.args_max = -1, \
		.flags = RUNAI_CMD_CP, \
		.run = (runner), \
	}

V2_DIST_CMD(runai_cmd_pytorch_submit, pytorch_opts, cmd_pytorch_submit,
    pytorch_examples, "submit a distributed PyTorch training",
    "a master and --workers workers (or workers only with --no-master; "
    "elastic with --min-replicas and --max-replicas)", V2_MASTER_TEXT);
V2_DIST_CMD(runai_cmd_tensorflow_submit, tensorflow_opts,
    cmd_tensorflow_submit, other_examples,
    "submit a distributed TensorFlow training",
    "a chief and --workers workers (or workers only with --no-master)",
    V2_MASTER_TEXT);
V2_DIST_CMD(runai_cmd_mpi_submit, mpi_opts, cmd_mpi_submit, mpi_examples,
    "submit a distributed MPI training",
    "a launcher that runs the command and --workers workers, each with "
    "--slots-per-worker slots", V2_MASTER_TEXT);
V2_DIST_CMD(runai_cmd_xgboost_submit, xgboost_opts, cmd_xgboost_submit,
    other_examples, "submit a distributed XGBoost training",
    "a master and --workers workers", V2_MASTER_TEXT);
V2_DIST_CMD(runai_cmd_jax_submit, jax_opts, cmd_jax_submit, other_examples,
    "submit a distributed JAX training (control-plane mode)",
    "--workers workers, made by a control plane of 2.24 or later (not in "
    "Kubernetes mode)", "");
