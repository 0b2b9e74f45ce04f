/*
 * runai inference update: changes a running inference workload in
 * place - its image, command, variables or autoscaling - through the
 * control plane (2.21 and later; Kubernetes mode has no inference
 * workloads, and the workload source says so in one line). The flags
 * are inference submit's names for the same fields; what is not given
 * stays as it is.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/strv.h"
#include "inference_scaling.h"
#include "request_print.h"
#include "runai.h"
#include "runai/inference.h"
#include "runai/submit.h"
#include "runai/wl.h"

#include "core/banned.h"

struct update_opts {
	const char			*image;
	const char			*pull_policy;
	int				 command;
	struct rai_strv			 env;
	const char			*working_dir;
	int				 create_home_dir;
	struct inference_scaling_opts	 scaling;
	int				 dry_run;
	const char			*output;
};

static const char *const pull_policies[] = { "Always", "IfNotPresent",
	"Never", NULL };

#define OFF(f)	offsetof(struct update_opts, f)

static const struct rai_opt update_opts[] = {
	{ .short_name = 'i', .long_name = "image", .type = RAI_OPT_STRING,
	  .offset = OFF(image), .argh = "<image>",
	  .help = "serve the model from this image" },
	{ .long_name = "image-pull-policy", .type = RAI_OPT_ENUM,
	  .offset = OFF(pull_policy), .argh = "<policy>",
	  .help = "Always, IfNotPresent or Never",
	  .choices = pull_policies, .comp = RAI_COMP_CHOICES },
	{ .short_name = 'c', .long_name = "command", .type = RAI_OPT_BOOL,
	  .offset = OFF(command),
	  .help = "the words after -- replace the image's entrypoint" },
	{ .short_name = 'e', .long_name = "environment-variable",
	  .type = RAI_OPT_LIST, .offset = OFF(env), .argh = "<name=value>",
	  .help = "set a variable of the container (the others stay)" },
	{ .long_name = "working-dir", .type = RAI_OPT_STRING,
	  .offset = OFF(working_dir), .argh = "<dir>",
	  .help = "the container's working directory" },
	{ .long_name = "create-home-dir", .type = RAI_OPT_BOOL,
	  .offset = OFF(create_home_dir),
	  .help = "make a home directory for the container's user" },
	INFERENCE_SCALING_OPTS(struct update_opts, scaling),
	RUNAI_DRY_RUN_OPTS(struct update_opts, dry_run, output),
	RAI_OPT_END
};

#define USAGE(ctx, ...) \
	rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, __VA_ARGS__)

/* The name before "--", the command after it. */
static int
split_args(struct rai_ctx *ctx, int argc, char **argv, const char **name,
    int *ncmd)
{
	int npos = ctx->dashdash >= 0 ? ctx->dashdash : argc;

	*ncmd = argc - npos;
	if (npos != 1)
		return USAGE(ctx, npos == 0 ? "which inference? give its name" :
		    "one name, please: the container's command goes after "
		    "\"--\"");
	*name = argv[0];
	return 0;
}

/* The container's fields given, in submit's spec (the others unset). */
static int
make_spec(struct rai_ctx *ctx, const struct update_opts *o, const char *name,
    char **cmd, size_t ncmd, struct rai_submit_spec *s)
{
	if (o->command && ncmd == 0)
		return USAGE(ctx, "-c/--command takes the command after \"--\"");
	if (runai_dry_run_check(ctx, o->dry_run, o->output) == -1)
		return -1;
	if (o->image != NULL && *o->image == '\0')
		return USAGE(ctx, "-i/--image must not be empty");
	rai_submit_spec_init(s);
	s->name = name;
	s->image = o->image;
	s->image_pull_policy = o->pull_policy;
	s->working_dir = o->working_dir;
	s->cmd = (const char *const *)cmd;
	s->ncmd = ncmd;
	s->is_command = o->command;
	s->env = o->env;
	s->create_home_dir = o->create_home_dir ? 1 : RAI_UNSET;
	return 0;
}

/* Whether any flag that changes the workload was given. */
static int
changes_anything(const struct rai_submit_spec *s,
    const struct rai_inference_spec *inf)
{
	return s->image != NULL || s->image_pull_policy != NULL ||
	    s->working_dir != NULL || s->ncmd > 0 || s->env.n > 0 ||
	    s->create_home_dir == 1 || inf->min_replicas >= 0 ||
	    inf->max_replicas >= 0 || inf->initial_replicas >= 0 ||
	    inf->activation_replicas >= 0 || inf->metric != NULL ||
	    inf->metric_threshold >= 0 || inf->metric_threshold_pct >= 0 ||
	    inf->concurrency_limit >= 0 || inf->scale_down_delay >= 0 ||
	    inf->scale_to_zero_retention >= 0;
}

static int
cmd_inference_update(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct update_opts *o = opts;
	struct rai_submit_spec spec;
	struct rai_inference_spec inf;
	struct rai_wl_update u = { 0 };
	const char *name = NULL;
	int ncmd = 0, rc;

	rai_inference_spec_init(&inf);
	if (split_args(ctx, argc, argv, &name, &ncmd) == -1 ||
	    make_spec(ctx, o, name, argv + argc - ncmd, (size_t)ncmd,
	    &spec) == -1 ||
	    inference_scaling_fill(ctx, &o->scaling, &inf) == -1 ||
	    rai_inference_check_bounds(&inf, rai_ctx_err(ctx)) == -1)
		return -1;
	if (!changes_anything(&spec, &inf))
		return USAGE(ctx, "nothing to update: give -i, the command after "
		    "\"--\", -e, --working-dir or an autoscaling flag");
	if (runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		return -1;
	u.job = name;
	u.spec = &spec;
	u.scaling = &inf;
	u.dry_run = o->dry_run;
	rc = rai_wl_update(RUNAI_WL(ctx), &u, rai_ctx_err(ctx));
	if (rc == 0 && o->dry_run)
		rc = runai_print_request(ctx, "PATCH", u.request_path, u.request,
		    o->output);
	else if (rc == 0)
		runai_say_done(ctx, "inference", name, "updated");
	rai_wl_update_release(&u);
	return rc;
}

static const struct rai_example update_examples[] = {
	{ "runai inference update llm1 -p team-a -i vllm/vllm-openai:v0.6",
	    "serve from a newer image" },
	{ "runai inference update llm1 --max-replicas 8",
	    "allow up to eight replicas; the other autoscaling settings stay" },
	{ "runai inference update llm1 -e LOG_LEVEL=debug --dry-run",
	    "print the request: the variable set over the workload's own" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_inference_update = {
	.name = "update",
	.summary = "change an inference workload in place (control-plane mode)",
	.synopsis = "<name> [-i <image>] [-e <name=value>]... "
	    "[autoscaling flags] [-- <command> [<arg>...]]",
	.description = "Asks the control plane to change a running inference "
	    "workload of the project: the image and its pull policy, the "
	    "command (the words after \"--\"; the image's arguments, or its "
	    "command with -c/--command), environment variables, the working "
	    "directory, and the autoscaling. What is not given stays as it "
	    "is: -e sets one variable and keeps the others, and an "
	    "autoscaling flag keeps the workload's other autoscaling "
	    "settings, the result judged whole as submit judges it (a new "
	    "--max-replicas may not fall below the minimum it has).\n\n"
	    "Control planes of 2.21 and later update inferences; an older "
	    "one, Kubernetes mode, or a workload that is not an inference is "
	    "refused in one line, and nothing is sent. --dry-run prints the "
	    "request and where it would go, as YAML (or JSON with -o json), "
	    "the values of variables named like secrets redacted.",
	.examples = update_examples,
	.opts = update_opts,
	.opts_size = sizeof(struct update_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_inference_update,
};
