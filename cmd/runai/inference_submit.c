/*
 * runai inference submit: an inference workload - a model served on a
 * port, its replicas scaled by the control plane between bounds, by a
 * metric. Only a control plane makes inference workloads (Knative on
 * its cluster); in Kubernetes mode the workload source refuses in one
 * line. The flags are the CLI v2's names. The container and its
 * resources go into submit's spec, the serving and autoscaling into
 * lib/runai/inference.h's; both are checked before anything is sent.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strv.h"
#include "inference_scaling.h"
#include "request_print.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/inference.h"
#include "runai/submit.h"
#include "runai/wl.h"

#include "core/banned.h"

/* The name the control plane completes when none is given. */
#define DEFAULT_PREFIX	"inference"
/* The least GPU memory a workload may ask for, in bytes. */
#define GPU_MEMORY_MIN	100e6

struct inference_opts {
	const char	*prefix;
	/* the container */
	const char	*image;
	const char	*pull_policy;
	int		 command;
	struct rai_strv	 env;
	const char	*working_dir;
	/* its resources */
	long		 gpus;
	double		 gpu_portion;
	const char	*gpu_memory;
	double		 cpu;
	double		 cpu_limit;
	const char	*memory;
	const char	*memory_limit;
	int		 large_shm;
	/* where it runs */
	const char	*node_type;
	struct rai_strv	 node_pools;
	struct rai_strv	 labels;
	struct rai_strv	 annotations;
	/* serving and autoscaling */
	const char	*serving_port;
	struct inference_scaling_opts	 scaling;
	long		 init_timeout;
	long		 request_timeout;
	int		 dry_run;
	const char	*output;
};

static const char *const pull_policies[] = { "Always", "IfNotPresent",
	"Never", NULL };

#define OFF(f)	offsetof(struct inference_opts, f)
/* a whole number the API takes, -1 until given */
#define COUNT_OPT(name, field, help_text) \
	{ .long_name = (name), .type = RAI_OPT_INT, .offset = OFF(field), \
	  .argh = "<n>", .flags = RAI_OPT_TRISTATE, .help = (help_text) }

static const struct rai_opt inference_opts[] = {
	{ .long_name = "name-prefix", .type = RAI_OPT_STRING,
	  .offset = OFF(prefix), .argh = "<prefix>",
	  .help = "no name: the control plane names it <prefix>-<random> "
	      "(default " DEFAULT_PREFIX ")" },
	{ .short_name = 'i', .long_name = "image", .type = RAI_OPT_STRING,
	  .offset = OFF(image), .argh = "<image>",
	  .help = "the image that serves the model (required)" },
	{ .long_name = "image-pull-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(pull_policy), .argh = "<policy>",
	  .help = "Always, IfNotPresent or Never",
	  .choices = pull_policies, .comp = RAI_COMP_CHOICES },
	{ .short_name = 'c', .long_name = "command", .type = RAI_OPT_BOOL,
	  .offset = OFF(command),
	  .help = "the words after -- replace the image's entrypoint" },
	{ .short_name = 'e', .long_name = "environment-variable",
	  .type = RAI_OPT_LIST, .offset = OFF(env), .argh = "<name=value>",
	  .help = "an environment variable of the container" },
	{ .long_name = "working-dir", .type = RAI_OPT_STRING,
	  .offset = OFF(working_dir), .argh = "<dir>",
	  .help = "the container's working directory" },
	{ .short_name = 'g', .long_name = "gpu-devices-request",
	  .type = RAI_OPT_INT, .offset = OFF(gpus), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE, .help = "whole GPUs per replica" },
	{ .long_name = "gpu-portion-request", .type = RAI_OPT_DOUBLE,
	  .offset = OFF(gpu_portion), .argh = "<portion>",
	  .help = "a part of one GPU per replica, above 0 and at most 1" },
	{ .long_name = "gpu-memory-request", .type = RAI_OPT_STRING,
	  .offset = OFF(gpu_memory), .argh = "<size>",
	  .help = "GPU memory of one GPU per replica, e.g. 4G (at least "
	      "100M)" },
	{ .long_name = "cpu-core-request", .type = RAI_OPT_DOUBLE,
	  .offset = OFF(cpu), .argh = "<cores>",
	  .help = "CPU cores per replica, e.g. 2 or 0.5" },
	{ .long_name = "cpu-core-limit", .type = RAI_OPT_DOUBLE,
	  .offset = OFF(cpu_limit), .argh = "<cores>",
	  .help = "CPU cores per replica at most" },
	{ .long_name = "cpu-memory-request", .type = RAI_OPT_STRING,
	  .offset = OFF(memory), .argh = "<size>",
	  .help = "memory per replica, e.g. 4G" },
	{ .long_name = "cpu-memory-limit", .type = RAI_OPT_STRING,
	  .offset = OFF(memory_limit), .argh = "<size>",
	  .help = "memory per replica at most" },
	{ .long_name = "large-shm", .type = RAI_OPT_BOOL,
	  .offset = OFF(large_shm), .help = "mount a memory-backed /dev/shm" },
	{ .long_name = "node-type", .type = RAI_OPT_STRING,
	  .offset = OFF(node_type), .argh = "<type>",
	  .help = "run on nodes labelled run.ai/type=<type>" },
	{ .long_name = "node-pools", .type = RAI_OPT_LIST,
	  .offset = OFF(node_pools), .argh = "<pool>",
	  .help = "a node pool to run on; repeated, in order of preference" },
	{ .long_name = "label", .type = RAI_OPT_LIST, .offset = OFF(labels),
	  .argh = "<key=value>", .help = "a label on the replicas' pods" },
	{ .long_name = "annotation", .type = RAI_OPT_LIST,
	  .offset = OFF(annotations), .argh = "<key=value>",
	  .help = "an annotation on the replicas' pods" },
	{ .long_name = "serving-port", .type = RAI_OPT_STRING,
	  .offset = OFF(serving_port), .argh = "<port|container=port,...>",
	  .help = "the port the model is served on, with protocol=, "
	      "authorization-type=, authorized-users=, authorized-groups=, "
	      "cluster-local-access-only" },
	INFERENCE_SCALING_OPTS(struct inference_opts, scaling),
	COUNT_OPT("initialization-timeout-seconds", init_timeout,
	    "how long a replica may take to become ready"),
	COUNT_OPT("request-timeout-seconds", request_timeout,
	    "how long one request may take"),
	RUNAI_DRY_RUN_OPTS(struct inference_opts, dry_run, output),
	RAI_OPT_END
};

/* Everything an inference is made of, kept together until it is sent. */
struct inference_job {
	struct rai_submit_spec		 spec;
	struct rai_inference_spec	 inf;
	char				 cpu[32];
	char				 cpu_limit[32];
	char				*node_pools;	/* "a,b" */
};

/* ---- the flags alone ---- */

#define USAGE(ctx, ...) \
	rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, __VA_ARGS__)

/*
 * A fraction given negative (the engine itself refuses a negative
 * count): caught by name, before it could read as "not given".
 */
static int
check_negatives(struct rai_ctx *ctx, const struct inference_opts *o)
{
	const struct {
		const char	*name;
		double		 v;
	} n[] = {
		{ "gpu-portion-request", o->gpu_portion },
		{ "cpu-core-request", o->cpu },
		{ "cpu-core-limit", o->cpu_limit },
	};
	size_t i;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (rai_opt_given(ctx, n[i].name) && !(n[i].v >= 0))
			return USAGE(ctx, "--%s must not be negative",
			    n[i].name);
	return 0;
}

/*
 * The GPUs of one replica: whole ones, a portion of one, or memory of
 * one; the spec holds a portion as a fraction below 1.
 */
static int
gpus_of(struct rai_ctx *ctx, const struct inference_opts *o, double *gpu)
{
	int portion = rai_opt_given(ctx, "gpu-portion-request");
	double bytes;

	*gpu = o->gpus > 0 ? (double)o->gpus : 0;
	if ((portion || o->gpu_memory != NULL) && o->gpus > 1)
		return USAGE(ctx, "--gpu-%s-request is of one GPU: with it, "
		    "-g/--gpu-devices-request is 1 or left out", portion ?
		    "portion" : "memory");
	if (portion && o->gpu_memory != NULL)
		return USAGE(ctx, "--gpu-portion-request and "
		    "--gpu-memory-request exclude each other");
	if (portion && !(o->gpu_portion > 0 && o->gpu_portion <= 1))
		return USAGE(ctx, "--gpu-portion-request must be above 0 and at "
		    "most 1");
	if (portion)
		*gpu = o->gpu_portion;
	else if (o->gpu_memory != NULL)
		*gpu = 0;	/* the memory asks for the one GPU */
	if (o->gpu_memory != NULL && (rai_quantity_parse(o->gpu_memory,
	    &bytes) == -1 || bytes < GPU_MEMORY_MIN))
		return USAGE(ctx, "--gpu-memory-request '%s' must be a quantity "
		    "of at least 100M, e.g. 4G", o->gpu_memory);
	return 0;
}

static int
check_quantities(struct rai_ctx *ctx, const struct inference_opts *o)
{
	double v;

	if (rai_opt_given(ctx, "cpu-core-request") && !(o->cpu > 0))
		return USAGE(ctx, "--cpu-core-request must be above 0");
	if (rai_opt_given(ctx, "cpu-core-limit") && !(o->cpu_limit > 0))
		return USAGE(ctx, "--cpu-core-limit must be above 0");
	if (o->memory != NULL && rai_quantity_parse(o->memory, &v) == -1)
		return USAGE(ctx, "--cpu-memory-request '%s' is not a quantity "
		    "(for example 4G or 512Mi)", o->memory);
	if (o->memory_limit != NULL &&
	    rai_quantity_parse(o->memory_limit, &v) == -1)
		return USAGE(ctx, "--cpu-memory-limit '%s' is not a quantity "
		    "(for example 4G or 512Mi)", o->memory_limit);
	return 0;
}

static int
make_spec(struct rai_ctx *ctx, const struct inference_opts *o,
    struct inference_job *j, const char *name, char **cmd, size_t ncmd)
{
	struct rai_submit_spec *s = &j->spec;
	double gpu;

	if (check_negatives(ctx, o) == -1 || gpus_of(ctx, o, &gpu) == -1 ||
	    check_quantities(ctx, o) == -1)
		return -1;
	rai_submit_spec_init(s);
	s->name = name;
	s->image = o->image;
	s->image_pull_policy = o->pull_policy;
	s->working_dir = o->working_dir;
	s->cmd = (const char *const *)cmd;
	s->ncmd = ncmd;
	s->is_command = o->command;
	s->env = o->env;
	s->gpu = gpu;
	s->gpu_memory = o->gpu_memory;
	if (rai_opt_given(ctx, "cpu-core-request")) {
		snprintf(j->cpu, sizeof(j->cpu), "%g", o->cpu);
		s->cpu = j->cpu;
	}
	if (rai_opt_given(ctx, "cpu-core-limit")) {
		snprintf(j->cpu_limit, sizeof(j->cpu_limit), "%g", o->cpu_limit);
		s->cpu_limit = j->cpu_limit;
	}
	s->memory = o->memory;
	s->memory_limit = o->memory_limit;
	s->large_shm = o->large_shm;
	s->node_type = o->node_type;
	s->node_pools = j->node_pools = rai_strv_join(&o->node_pools, ",");
	s->pod_labels = o->labels;
	s->pod_annotations = o->annotations;
	return 0;
}

static int
make_inference(struct rai_ctx *ctx, const struct inference_opts *o,
    struct rai_inference_spec *inf)
{
	rai_inference_spec_init(inf);
	if (o->serving_port != NULL && rai_inference_parse_port(o->serving_port,
	    inf, rai_ctx_err(ctx)) == -1)
		return -1;
	if (inference_scaling_fill(ctx, &o->scaling, inf) == -1)
		return -1;
	inf->init_timeout = o->init_timeout;
	inf->request_timeout = o->request_timeout;
	return rai_inference_check(inf, rai_ctx_err(ctx));
}

/* NAME before "--", or --name-prefix; the command after "--". */
static int
split_args(struct rai_ctx *ctx, const struct inference_opts *o, int argc,
    char **argv, const char **name, int *ncmd)
{
	int npos = ctx->dashdash >= 0 ? ctx->dashdash : argc;

	*ncmd = argc - npos;
	*name = npos == 1 ? argv[0] : NULL;
	if (npos > 1)
		return USAGE(ctx, "one name, please: the container's command "
		    "goes after \"--\" (got '%s' too)", argv[1]);
	if (*name != NULL && o->prefix != NULL)
		return USAGE(ctx, "--name-prefix is for a name the control plane "
		    "makes: give it or a name ('%s'), not both", *name);
	return 0;
}

/* ---- sending ---- */

static int
submit_inference(struct rai_ctx *ctx, const struct inference_opts *o,
    struct inference_job *j)
{
	struct rai_wl_submit s = { 0 };

	s.spec = &j->spec;
	s.inference = &j->inf;
	s.prefix = o->prefix != NULL ? o->prefix : DEFAULT_PREFIX;
	s.dry_run = o->dry_run;
	return runai_submit_and_say(ctx, &s, "inference", o->output);
}

static int
cmd_inference_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct inference_opts *o = opts;
	struct inference_job *j = xcalloc(1, sizeof(*j));
	const char *name;
	int ncmd, rc = -1;

	if (split_args(ctx, o, argc, argv, &name, &ncmd) == -1 ||
	    make_spec(ctx, o, j, name, argv + argc - ncmd,
	    (size_t)ncmd) == -1 || inference_check_offline(ctx, &j->spec, o->prefix,
	    DEFAULT_PREFIX, o->dry_run, o->output) == -1 ||
	    make_inference(ctx, o, &j->inf) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		goto out;
	rc = submit_inference(ctx, o, j);
out:
	rai_inference_spec_release(&j->inf);
	free(j->node_pools);
	free(j);
	return rc;
}

static const struct rai_example inference_examples[] = {
	{ "runai inference submit llm1 -p team-a -i vllm/vllm-openai -g 1 "
	  "--serving-port 8000",
	    "one replica on one GPU, served on port 8000" },
	{ "runai inference submit llm2 -i vllm/vllm-openai -g 1 "
	  "--serving-port 8000 --min-replicas 1 --max-replicas 4 "
	  "--metric concurrency --metric-threshold 8",
	    "one to four replicas, one more for every eight requests in "
	    "flight" },
	{ "runai inference submit grpc1 -i img --serving-port "
	  "container=9000,protocol=grpc --min-replicas 0 --max-replicas 1",
	    "served over gRPC, scaled to zero when idle" },
	{ "runai inference submit llm3 -i img --serving-port 8000 --dry-run",
	    "print the request instead of sending it" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_inference_submit = {
	.name = "submit",
	.summary = "submit an inference workload (control-plane mode)",
	.synopsis = "[<name>] -i <image> [--serving-port <port>] [options] "
	    "[-- <command> [<arg>...]]",
	.description = "Asks the control plane for an inference workload in "
	    "the project: a model served on --serving-port, in replicas the "
	    "control plane scales (on the cluster, Knative serves them). "
	    "Only a control plane makes inference workloads; in Kubernetes "
	    "mode the command says so and sends nothing.\n\n"
	    "Without a name the control plane names it <prefix>-<random>, "
	    "the prefix " DEFAULT_PREFIX " or --name-prefix. The words after "
	    "\"--\" are the image's arguments, or its command with "
	    "-c/--command. -g, --gpu-portion-request, --gpu-memory-request "
	    "and the CPU and memory flags are per replica.\n\n"
	    "--serving-port takes PORT, or container=PORT followed by any "
	    "of: ,protocol= http or grpc; ,authorization-type= public, "
	    "authenticatedUsers or authorizedUsersOrGroups, the last with "
	    ",authorized-users=a:b or ,authorized-groups=g:h (one of them); "
	    ",cluster-local-access-only.\n\n"
	    "The replicas run between --min-replicas (default 1; 0 scales "
	    "to zero when idle) and --max-replicas (default the minimum, or 1). "
	    "Where they may vary, --metric says by what (throughput, "
	    "concurrency, latency or a custom metric), with "
	    "--metric-threshold, the value per replica; from 0 to 1 the "
	    "network's activity alone decides. Only throughput and "
	    "concurrency scale to zero and take "
	    "--metric-threshold-percentage.\n\n"
	    "What differs by release is decided from the version the login "
	    "found: 2.18 takes the serving port, the bounds, a built-in "
	    "metric with its threshold and the scale-to-zero retention; "
	    "2.21 adds the other autoscaling flags, the serving port's "
	    "access and custom metrics; --request-timeout-seconds needs "
	    "2.22. A flag the release has no field for is refused (exit 2), "
	    "not dropped.\n\n"
	    "--dry-run prints the request and where it would go, as YAML "
	    "(or JSON with -o json), the values of variables named like "
	    "secrets redacted.",
	.examples = inference_examples,
	.opts = inference_opts,
	.opts_size = sizeof(struct inference_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_inference_submit,
};
