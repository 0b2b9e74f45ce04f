/*
 * runai inference distributed submit: a model served by groups of pods,
 * each a leader and its workers (a LeaderWorkerSet on the cluster), for
 * models larger than one node. Only a control plane (2.23 and later)
 * makes them; in Kubernetes mode the workload source refuses in one
 * line. The flags are the CLI v2's names: the leader's container as
 * inference submit takes it, but with --command and --arguments as
 * strings; the workers' where it differs, with --worker-*.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strv.h"
#include "kube/quantity.h"
#include "inference_scaling.h"
#include "request_print.h"
#include "runai.h"
#include "runai/dist_inference.h"
#include "runai/submit.h"
#include "runai/wl.h"

#include "core/banned.h"

/* The name the control plane completes when none is given. */
#define DEFAULT_PREFIX	"inference"

struct dinf_opts {
	const char	*prefix;
	/* the leader's container */
	const char	*image;
	const char	*pull_policy;
	const char	*command;
	const char	*arguments;
	struct rai_strv	 env;
	const char	*working_dir;
	long		 gpus;
	double		 gpu_portion;
	const char	*cpu;
	const char	*memory;
	const char	*node_type;
	struct rai_strv	 node_pools;
	struct rai_strv	 labels;
	struct rai_strv	 annotations;
	/* the groups */
	long		 replicas;
	long		 workers;
	const char	*startup_policy;
	const char	*restart_policy;
	const char	*serving_port;
	/* the workers' container where it differs */
	const char	*worker_image;
	const char	*worker_command;
	const char	*worker_arguments;
	struct rai_strv	 worker_env;
	long		 worker_gpus;
	const char	*worker_cpu;
	const char	*worker_memory;
	int		 dry_run;
	const char	*output;
};

static const char *const pull_policies[] = { "Always", "IfNotPresent",
	"Never", NULL };
static const char *const startup_policies[] = { "LeaderCreated",
	"LeaderReady", NULL };
static const char *const restart_policies[] = {
	"RecreateGroupOnPodRestart", "None", NULL };

#define OFF(f)	offsetof(struct dinf_opts, f)
#define COUNT_OPT(name, field, help_text) \
	{ .long_name = (name), .type = RAI_OPT_INT, .offset = OFF(field), \
	  .argh = "<n>", .flags = RAI_OPT_TRISTATE, .help = (help_text) }
#define TEXT_OPT(name, field, arg, help_text) \
	{ .long_name = (name), .type = RAI_OPT_STRING, .offset = OFF(field), \
	  .argh = (arg), .help = (help_text) }

static const struct rai_opt dinf_opts[] = {
	TEXT_OPT("name-prefix", prefix, "<prefix>", "no name: the control "
	    "plane names it <prefix>-<random> (default " DEFAULT_PREFIX ")"),
	{ .short_name = 'i', .long_name = "image", .type = RAI_OPT_STRING,
	  .offset = OFF(image), .argh = "<image>",
	  .help = "the image that serves the model (required)" },
	{ .long_name = "image-pull-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(pull_policy), .argh = "<policy>",
	  .help = "Always, IfNotPresent or Never",
	  .choices = pull_policies, .comp = RAI_COMP_CHOICES },
	TEXT_OPT("command", command, "<command>", "the leader's command, "
	    "in place of the image's entrypoint (one string)"),
	TEXT_OPT("arguments", arguments, "<args>", "the leader's arguments "
	    "(one string)"),
	{ .short_name = 'e', .long_name = "environment-variable",
	  .type = RAI_OPT_LIST, .offset = OFF(env), .argh = "<name=value>",
	  .help = "an environment variable of the leader (and the workers)" },
	TEXT_OPT("working-dir", working_dir, "<dir>", "the containers' "
	    "working directory"),
	{ .short_name = 'g', .long_name = "gpu-devices-request",
	  .type = RAI_OPT_INT, .offset = OFF(gpus), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE, .help = "whole GPUs per pod" },
	{ .long_name = "gpu-portion-request", .type = RAI_OPT_DOUBLE,
	  .offset = OFF(gpu_portion), .argh = "<portion>",
	  .help = "a part of one GPU per pod, above 0 and at most 1" },
	TEXT_OPT("cpu-core-request", cpu, "<cores>", "CPU cores per pod, "
	    "e.g. 2 or 0.5"),
	TEXT_OPT("cpu-memory-request", memory, "<size>", "memory per pod, "
	    "e.g. 4G"),
	TEXT_OPT("node-type", node_type, "<type>", "run on nodes labelled "
	    "run.ai/type=<type>"),
	{ .long_name = "node-pools", .type = RAI_OPT_LIST,
	  .offset = OFF(node_pools), .argh = "<pool>",
	  .help = "a node pool to run on; repeated, in order of preference" },
	{ .long_name = "label", .type = RAI_OPT_LIST, .offset = OFF(labels),
	  .argh = "<key=value>", .help = "a label on the pods" },
	{ .long_name = "annotation", .type = RAI_OPT_LIST,
	  .offset = OFF(annotations), .argh = "<key=value>",
	  .help = "an annotation on the pods" },
	COUNT_OPT("replicas", replicas, "groups of a leader and its workers "
	    "(default 1)"),
	COUNT_OPT("workers", workers, "worker pods in each group, besides "
	    "the leader (default 0)"),
	{ .long_name = "startup-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(startup_policy), .argh = "<policy>",
	  .help = "the workers start once the leader is LeaderCreated "
	      "(default) or LeaderReady",
	  .choices = startup_policies, .comp = RAI_COMP_CHOICES },
	{ .long_name = "restart-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(restart_policy), .argh = "<policy>",
	  .help = "a failed pod restarts its group "
	      "(RecreateGroupOnPodRestart, default) or alone (None)",
	  .choices = restart_policies, .comp = RAI_COMP_CHOICES },
	TEXT_OPT("serving-port", serving_port, "<port|container=port,...>",
	    "the port the leader serves on, with authorization-type=, "
	    "authorized-users=, authorized-groups=, expose-externally, "
	    "exposed-url="),
	TEXT_OPT("worker-image", worker_image, "<image>", "the workers' "
	    "image (default the leader's)"),
	TEXT_OPT("worker-command", worker_command, "<command>", "the "
	    "workers' command (default the leader's)"),
	TEXT_OPT("worker-arguments", worker_arguments, "<args>", "the "
	    "workers' arguments (default the leader's)"),
	{ .long_name = "worker-environment-variable", .type = RAI_OPT_LIST,
	  .offset = OFF(worker_env), .argh = "<name=value>",
	  .help = "the workers' variables, in place of the leader's" },
	{ .long_name = "worker-gpu-devices-request", .type = RAI_OPT_INT,
	  .offset = OFF(worker_gpus), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE, .help = "whole GPUs per worker" },
	TEXT_OPT("worker-cpu-core-request", worker_cpu, "<cores>", "CPU "
	    "cores per worker"),
	TEXT_OPT("worker-cpu-memory-request", worker_memory, "<size>",
	    "memory per worker"),
	RUNAI_DRY_RUN_OPTS(struct dinf_opts, dry_run, output),
	RAI_OPT_END
};

/* Everything the workload is made of, kept together until it is sent. */
struct dinf_job {
	struct rai_submit_spec		 spec;	/* the leader's container */
	struct rai_dist_inference	 d;
	char				*node_pools;	/* "a,b" */
};

#define USAGE(ctx, ...) \
	rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, __VA_ARGS__)

/* CPU cores above 0, memory a quantity: each flag by its name. */
static int
check_quantities(struct rai_ctx *ctx, const struct dinf_opts *o,
    double *worker_cpu)
{
	const struct {
		const char	*name;
		const char	*v;
		int		 cores;
		double		*out;	/* where the value goes, or NULL */
	} q[] = {
		{ "cpu-core-request", o->cpu, 1, NULL },
		{ "cpu-memory-request", o->memory, 0, NULL },
		{ "worker-cpu-core-request", o->worker_cpu, 1, worker_cpu },
		{ "worker-cpu-memory-request", o->worker_memory, 0, NULL },
	};
	double v;
	size_t i;

	*worker_cpu = -1;
	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		if (q[i].v == NULL)
			continue;
		if (rai_quantity_parse(q[i].v, &v) == -1 ||
		    (q[i].cores && !(v > 0)))
			return USAGE(ctx, "--%s '%s' is not %s", q[i].name,
			    q[i].v, q[i].cores ? "a number of cores above 0 "
			    "(for example 2 or 0.5)" : "a quantity (for "
			    "example 4G or 512Mi)");
		if (q[i].out != NULL)
			*q[i].out = v;
	}
	if (rai_opt_given(ctx, "gpu-portion-request") &&
	    !(o->gpu_portion > 0 && o->gpu_portion <= 1))
		return USAGE(ctx, "--gpu-portion-request must be above 0 and at "
		    "most 1");
	if (rai_opt_given(ctx, "gpu-portion-request") && o->gpus >= 0)
		return USAGE(ctx, "-g/--gpu-devices-request and "
		    "--gpu-portion-request exclude each other");
	return 0;
}

static void
make_leader(struct rai_ctx *ctx, const struct dinf_opts *o,
    struct dinf_job *j, const char *name)
{
	struct rai_submit_spec *s = &j->spec;

	rai_submit_spec_init(s);
	s->name = name;
	s->image = o->image;
	s->image_pull_policy = o->pull_policy;
	s->working_dir = o->working_dir;
	s->env = o->env;
	s->gpu = o->gpus > 0 ? (double)o->gpus : 0;
	if (rai_opt_given(ctx, "gpu-portion-request"))
		s->gpu = o->gpu_portion;
	s->cpu = o->cpu;
	s->memory = o->memory;
	s->node_type = o->node_type;
	s->node_pools = j->node_pools = rai_strv_join(&o->node_pools, ",");
	s->pod_labels = o->labels;
	s->pod_annotations = o->annotations;
}

static int
make_groups(struct rai_ctx *ctx, const struct dinf_opts *o,
    struct rai_dist_inference *d, double worker_cpu)
{
	rai_dist_inference_init(d);
	d->replicas = o->replicas;
	d->workers = o->workers;
	d->startup_policy = o->startup_policy;
	d->restart_policy = o->restart_policy;
	d->command = o->command;
	d->args = o->arguments;
	d->worker_image = o->worker_image;
	d->worker_command = o->worker_command;
	d->worker_args = o->worker_arguments;
	d->worker_env = o->worker_env;
	d->worker_gpus = o->worker_gpus;
	d->worker_cpu = worker_cpu;
	d->worker_memory = o->worker_memory;
	if (o->serving_port != NULL && rai_dist_serving_parse(o->serving_port,
	    &d->serving, rai_ctx_err(ctx)) == -1)
		return -1;
	return rai_dist_inference_check(d, rai_ctx_err(ctx));
}

static int
split_args(struct rai_ctx *ctx, const struct dinf_opts *o, int argc,
    char **argv, const char **name)
{
	*name = argc == 1 ? argv[0] : NULL;
	if (argc > 1)
		return USAGE(ctx, "one name, please (got '%s' too); the "
		    "command is --command and --arguments", argv[1]);
	if (*name != NULL && o->prefix != NULL)
		return USAGE(ctx, "--name-prefix is for a name the control plane "
		    "makes: give it or a name ('%s'), not both", *name);
	return 0;
}

static int
submit(struct rai_ctx *ctx, const struct dinf_opts *o, struct dinf_job *j)
{
	struct rai_wl_submit s = { 0 };

	s.spec = &j->spec;
	s.dist_inference = &j->d;
	s.prefix = o->prefix != NULL ? o->prefix : DEFAULT_PREFIX;
	s.dry_run = o->dry_run;
	return runai_submit_and_say(ctx, &s, "inference distributed", o->output);
}

static int
cmd_dinf_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct dinf_opts *o = opts;
	struct dinf_job *j = xcalloc(1, sizeof(*j));
	const char *name;
	double worker_cpu = -1;
	int rc = -1;

	rai_dist_inference_init(&j->d);
	/* the option parser has refused negative counts */
	if (split_args(ctx, o, argc, argv, &name) == -1 ||
	    check_quantities(ctx, o, &worker_cpu) == -1)
		goto out;
	make_leader(ctx, o, j, name);
	if (inference_check_offline(ctx, &j->spec, o->prefix, DEFAULT_PREFIX,
	    o->dry_run, o->output) == -1 ||
	    make_groups(ctx, o, &j->d, worker_cpu) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		goto out;
	rc = submit(ctx, o, j);
out:
	rai_dist_inference_release(&j->d);
	free(j->node_pools);
	free(j);
	return rc;
}

static const struct rai_example dinf_examples[] = {
	{ "runai inference distributed submit llm -p team-a -i "
	  "vllm/vllm-openai -g 8 --workers 1 --serving-port 8000 "
	  "--command 'vllm serve meta-llama/Llama-3.1-405B' "
	  "--arguments '--tensor-parallel-size 8 --pipeline-parallel-size 2'",
	    "one group of a leader and one worker, 8 GPUs each, served on "
	    "port 8000" },
	{ "runai inference distributed submit llm2 -i img -g 4 --workers 3 "
	  "--replicas 2 --worker-image img-worker --startup-policy "
	  "LeaderReady",
	    "two groups of four pods, the workers from their own image, "
	    "started once their leader is ready" },
	{ "runai inference distributed submit llm3 -i img --workers 1 "
	  "--dry-run",
	    "print the request instead of sending it" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_inference_dist_submit = {
	.name = "submit",
	.summary = "submit a distributed inference workload (control-plane "
	    "mode)",
	.synopsis = "[<name>] -i <image> [--workers <n>] [--replicas <n>] "
	    "[--serving-port <port>] [options]",
	.description = "Asks the control plane (2.23 and later) for a "
	    "distributed inference workload in the project: a model served "
	    "by --replicas groups (default 1), each a leader pod and "
	    "--workers worker pods (default 0, the leader alone). On the "
	    "cluster each group is a LeaderWorkerSet's; the leader serves "
	    "--serving-port. Only a control plane makes them; in "
	    "Kubernetes mode the command says so and sends nothing.\n\n"
	    "Without a name the control plane names it <prefix>-<random>, "
	    "the prefix " DEFAULT_PREFIX " or --name-prefix. --command and "
	    "--arguments are one string each. The workers run the leader's "
	    "container, GPUs and CPU but for what a --worker-* flag gives; "
	    "--worker-environment-variable replaces the leader's variables "
	    "for them. -g and the CPU and memory flags are per pod.\n\n"
	    "--serving-port takes PORT, or container=PORT followed by any "
	    "of: ,authorization-type= public, authenticatedUsers, "
	    "authorizedUsers (with ,authorized-users=a:b) or "
	    "authorizedGroups (with ,authorized-groups=g:h); "
	    ",expose-externally, with ,exposed-url=URL; ,protocol=http.\n\n"
	    "--dry-run prints the request and where it would go, as YAML "
	    "(or JSON with -o json), the values of variables named like "
	    "secrets redacted. 'runai inference distributed scale' changes "
	    "the number of groups.",
	.examples = dinf_examples,
	.opts = dinf_opts,
	.opts_size = sizeof(struct dinf_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_dinf_submit,
};
