/*
 * runai submit-dist pytorch|mpi|tf|xgboost: a distributed training job
 * for the Kubeflow training operator, its pods scheduled by the Run:ai
 * scheduler as one gang. The pod template, name reservation, labels,
 * annotations and rollback are submit's (lib/runai/submit.c,
 * submit_apply.c, submit_send.c); the job around the template is
 * lib/runai/dist.c's. "runai submit-mpi" is the original CLI's name.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strv.h"
#include "runai.h"
#include "runai/dist.h"
#include "runai/submit.h"
#include "submit_opts.h"
#include "submit_send.h"

#include "core/banned.h"


static const char *const clean_policies[] = { "Running", "All", "None",
	NULL };

#define OFF(f)	offsetof(struct runai_dist_opts, f)

static const struct rai_opt dist_opts[] = {
	RUNAI_SUBMIT_OPTS_NAME(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_CONTAINER(struct runai_dist_opts),
	{ .long_name = "workers", .type = RAI_OPT_INT, .offset = OFF(workers),
	  .argh = "<n>", .def = "1",
	  .help = "worker pods, besides the master or launcher (default 1)" },
	{ .long_name = "processes", .type = RAI_OPT_INT,
	  .offset = OFF(workers), .argh = "<n>", .help = "worker pods",
	  .deprecated = "use --workers" },
	{ .long_name = "no-master", .type = RAI_OPT_BOOL,
	  .offset = OFF(no_master),
	  .help = "pytorch, tf: workers only, worker 0 leads" },
	{ .long_name = "slots-per-worker", .type = RAI_OPT_INT,
	  .offset = OFF(slots), .argh = "<n>", .flags = RAI_OPT_TRISTATE,
	  .help = "mpi: processes per worker in the hostfile (default 1)" },
	{ .long_name = "clean-pod-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(clean_pod_policy), .argh = "<policy>",
	  .help = "pods removed when the job ends: Running (the operator's "
	      "default), All or None",
	  .choices = clean_policies, .comp = RAI_COMP_CHOICES },
	{ .short_name = 't', .long_name = "tty", .type = RAI_OPT_BOOL,
	  .offset = OFF(tty),
	  .help = "give every pod's container a terminal (needs --stdin), "
	      "for runai attach" },
	{ .long_name = "stdin", .type = RAI_OPT_BOOL, .offset = OFF(stdin_open),
	  .help = "keep every pod's standard input open, for runai attach" },
	RUNAI_SUBMIT_OPTS_RESOURCES(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_STORAGE(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_NODE_TYPE(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_RUN_AS_USER(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_POD_META(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_USER(struct runai_dist_opts),
	RUNAI_SUBMIT_OPTS_DRY_RUN(struct runai_dist_opts),
	RAI_OPT_END
};

/* Everything a dist job is made of, kept together for the render. */
struct dist_job {
	struct rai_dist_spec	 dist;
	struct rai_submit_custom custom;
	struct rai_submit_spec	 spec;
};

/*
 * A kind with no Kubernetes object of runai's (JAX, which a control
 * plane makes) gets no custom workload: its pod template is still
 * checked, as a plain job's.
 */
static int
job_from_opts(struct rai_ctx *ctx, struct dist_job *j, enum rai_dist_kind kind,
    struct runai_dist_opts *o, const char *name, char **cmd, size_t ncmd)
{
	struct rai_submit_spec *s = &j->spec;

	memset(&j->dist, 0, sizeof(j->dist));
	j->dist.kind = kind;
	j->dist.workers = o->workers;
	j->dist.no_master = o->no_master;
	j->dist.slots = o->slots;
	j->dist.clean_pod_policy = o->clean_pod_policy;
	rai_submit_spec_init(s);
	RUNAI_SUBMIT_SPEC_COMMON(s, o);
	if (rai_dist_framework(kind) != NULL) {
		rai_dist_custom(&j->dist, &j->custom);
		s->custom = &j->custom;
	}
	s->name = name;
	s->cmd = (const char *const *)cmd;
	s->ncmd = ncmd;
	s->is_command = o->command;
	s->tty = o->tty;
	s->stdin_open = o->stdin_open;
	if (o->v2kind == NULL)
		return 0;
	runai_v2_fill_dist(&o->v2, &j->dist);
	return runai_v2_fill_spec(&o->v2, o->v2kind, s, rai_ctx_err(ctx));
}

/* NAME before "--" (or --name, not both); the command after it. */
static int
job_name(struct rai_ctx *ctx, const struct runai_dist_opts *o, int argc,
    char **argv, const char **name, int *ncmd)
{
	int npos = ctx->dashdash >= 0 ? ctx->dashdash : argc;

	*ncmd = argc - npos;
	*name = npos == 1 ? argv[0] : o->name;
	if (npos > 1 || (npos == 1 && o->name != NULL))
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "name the "
		    "job once: one NAME or --name; the command goes after "
		    "\"--\"");
	return 0;
}

/* The flags alone, before any request: a render with stand-in names. */
static int
check_offline(struct rai_ctx *ctx, const struct runai_dist_opts *o,
    struct dist_job *j)
{
	struct rai_submit_spec s = j->spec;
	struct rai_submit_objs objs;

	if (o->output != NULL && !o->dry_run)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "-o/--output "
		    "is for --dry-run");
	if (o->name != NULL && o->prefix != NULL)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "--job-name-prefix is for generated names: give it or a "
		    "name, not both");
	if (rai_dist_check(&j->dist, rai_ctx_err(ctx)) == -1)
		return -1;
	if (s.name == NULL)
		s.name = "job-0";
	s.project = "project";
	s.namespace = "namespace";
	if (rai_submit_render(&s, &objs, rai_ctx_err(ctx)) == -1)
		return -1;
	rai_submit_objs_release(&objs);
	return 0;
}

/* How long a v2 command's --attach waits for its pod to run. */
#define ATTACH_WAIT_S	30

/*
 * Sends the job; a v2 command's --attach then goes through the
 * cluster's Kubernetes API (as attach does) to the lead pod.
 */
static int
send_job(struct rai_ctx *ctx, const struct runai_dist_opts *o,
    struct dist_job *j)
{
	struct rai_wl_submit s = { 0 };
	int rc;

	s.spec = &j->spec;
	s.dist = &j->dist;
	s.prefix = o->prefix;
	s.dry_run = o->dry_run;
	s.user = o->user;
	rc = runai_submit_send(ctx, &s, o->output != NULL &&
	    strcmp(o->output, "json") == 0, o->strict, o->v2kind);
	if (rc == 0 && o->v2kind != NULL && o->v2.attach && !o->dry_run) {
		fflush(ctx->out);
		rc = runai_stream_setup(ctx, rai_ctx_err(ctx)) == -1 ? -1 :
		    runai_attach(ctx, s.name, NULL, runai_v2_attach_wait(&o->v2,
		    ATTACH_WAIT_S));
	}
	rai_wl_submit_release(&s);
	return rc;
}

int
runai_submit_dist_run(struct rai_ctx *ctx, struct runai_dist_opts *o,
    enum rai_dist_kind kind, int argc, char **argv)
{
	struct dist_job *j = xcalloc(1, sizeof(*j));
	char *cmdline = NULL;
	const char *name;
	int ncmd, rc = -1;

	if (job_name(ctx, o, argc, argv, &name, &ncmd) == -1 ||
	    job_from_opts(ctx, j, kind, o, name, argv + argc - ncmd,
	    (size_t)ncmd) == -1 ||
	    check_offline(ctx, o, j) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		goto out;
	/* in Kubernetes mode, what only a control plane makes is refused */
	if (o->v2kind != NULL && runai_v2_check_mode(o->v2kind, &j->spec,
	    RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS, rai_ctx_err(ctx)) == -1)
		goto out;
	if (RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS)
		j->spec.cli_command = cmdline = runai_submit_cmdline(ctx);
	rc = send_job(ctx, o, j);
out:
	free(cmdline);
	free(j);
	if (o->v2kind != NULL)
		runai_v2_flags_release(&o->v2);
	return rc;
}

/* The training operator's API must be served, or nothing would run. */
static int
cmd_submit_dist(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct rai_dist_framework *fw = rai_dist_by_word(ctx->cmd->name);

	return runai_submit_dist_run(ctx, opts,
	    (enum rai_dist_kind)(fw - rai_dist_framework(0)), argc, argv);
}

static const struct rai_example dist_examples[] = {
	{ "runai submit-dist pytorch ddp1 -i pytorch/pytorch --workers 3 -g 1 "
	  "-- torchrun train.py",
	    "a master and three workers, one GPU each; the operator sets "
	    "MASTER_ADDR, WORLD_SIZE and RANK" },
	{ "runai submit-dist mpi hvd1 -i horovod/horovod --workers 2 -g 2 "
	  "--slots-per-worker 2 -- mpirun python train.py",
	    "an MPI launcher runs mpirun over two workers with two slots "
	    "each" },
	{ "runai submit-dist tf tf1 -i tensorflow/tensorflow --workers 2 "
	  "--no-master -g 1",
	    "two TensorFlow workers, TF_CONFIG naming both" },
	{ "runai submit-dist xgboost xgb1 -i kubeflow/xgboost --workers 2 "
	  "--dry-run",
	    "print the XGBoostJob instead of creating it" },
	{ NULL, NULL }
};

#define DIST_DESCRIPTION \
	"Creates a Kubeflow training-operator job in the project: a " \
	"PyTorchJob, TFJob or XGBoostJob (kubeflow.org/v1) or an MPIJob " \
	"(kubeflow.org/v2beta1), whose pods the Run:ai scheduler places " \
	"as one gang: all of them start together, or none does and the " \
	"job waits Pending until the cluster can hold them all.\n\n" \
	"The job has a master (TensorFlow: a chief; MPI: a launcher, " \
	"which runs the command and takes no GPU) and --workers workers; " \
	"--no-master leaves the master out (PyTorch, TensorFlow), worker " \
	"0 then leads. Every pod runs the same image and command with the " \
	"same -g GPUs, environment, volumes and claims; the operator adds " \
	"what the framework needs to find its peers (MASTER_ADDR, " \
	"MASTER_PORT, WORLD_SIZE and RANK; TF_CONFIG; the MPI hostfile " \
	"and OMPI_* variables) and a headless Service per pod.\n\n" \
	"A failed pod fails the job. When it ends, --clean-pod-policy " \
	"says which pods are removed: Running (the operator's default), " \
	"All or None.\n\n" \
	"The name, its reservation, the labels and annotations, the " \
	"user, --dry-run and the rollback on failure or interruption are " \
	"those of \"runai submit\".\n\n" \
	"In control-plane mode the control plane's distributed workload " \
	"is made instead: the master a copy of the worker, none with " \
	"--no-master, or for MPI a launcher that runs the command; " \
	"--clean-pod-policy needs 2.21 or later; --dry-run prints the " \
	"request."

#define DIST_SUBCMD(var, word, what) \
	static const struct rai_cmd var = { \
		.name = (word), \
		.summary = "submit a distributed " what " job", \
		.synopsis = "[<name>] -i <image> [--workers <n>] [options] " \
		    "[-- <command> [<arg>...]]", \
		.description = DIST_DESCRIPTION, \
		.examples = dist_examples, \
		.opts = dist_opts, \
		.opts_size = sizeof(struct runai_dist_opts), \
		.args_min = 0, \
		.args_max = -1, \
		.flags = RUNAI_CMD_CP, \
		.run = cmd_submit_dist, \
	}

DIST_SUBCMD(dist_pytorch, "pytorch", "PyTorch");
DIST_SUBCMD(dist_mpi, "mpi", "MPI");
DIST_SUBCMD(dist_tf, "tf", "TensorFlow");
DIST_SUBCMD(dist_xgboost, "xgboost", "XGBoost");

static const struct rai_cmd *const dist_subcmds[] = {
	&dist_pytorch, &dist_mpi, &dist_tf, &dist_xgboost, NULL
};

const struct rai_cmd runai_cmd_submit_dist = {
	.name = "submit-dist",
	.summary = "submit a distributed training job (pytorch, mpi, tf, "
	    "xgboost)",
	.synopsis = "pytorch|mpi|tf|xgboost [<name>] -i <image> [options]",
	.description = DIST_DESCRIPTION,
	.examples = dist_examples,
	.subcmds = dist_subcmds,
};

const struct rai_cmd runai_cmd_submit_mpi = {
	.name = "submit-mpi",
	.summary = "submit an MPI job (old name of submit-dist mpi)",
	.forward = "submit-dist mpi",
	.deprecated = "use 'runai submit-dist mpi'",
};
