/*
 * The CLI v2's "workspace submit" and "training [standard] submit":
 * runai submit under the v2 grammar. Each has its own option table with
 * the v2 flag names (submit_v2_opts.h), filling runai submit's options
 * struct, and runs runai submit's code (runai_submit_run): the same
 * objects in Kubernetes mode, the same request in control-plane mode.
 * What the v2 flags add to the spec is submit_v2_map.c's. The groups
 * these commands go into are made elsewhere.
 */
#include <stddef.h>

#include "runai.h"
#include "submit_opts.h"
#include "submit_v2_map.h"
#include "submit_v2_opts.h"

#include "core/banned.h"

#define T	struct runai_submit_opts

#define V2_TEMPLATE_ROW \
	{ .long_name = "template", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, template_name), .argh = "<name>", \
	  .help = "take the values of a template: the control plane's " \
	      "workload template, in Kubernetes mode runai's" }

static const struct rai_opt workspace_opts[] = {
	RUNAI_V2_OPTS_ALL(T),
	V2_TEMPLATE_ROW,
	{ .long_name = "preemptible", .type = RAI_OPT_BOOL,
	  .offset = offsetof(T, v2.preemptible),
	  .help = "the workspace may be preempted to free GPUs" },
	{ .long_name = "external-url", .type = RAI_OPT_LIST,
	  .offset = offsetof(T, v2.external_urls), .argh = "<container=n>",
	  .help = "reach a container port at a URL (an ingress)" },
	RAI_OPT_END
};

static const struct rai_opt training_opts[] = {
	RUNAI_V2_OPTS_ALL(T),
	V2_TEMPLATE_ROW,
	{ .long_name = "runs", .type = RAI_OPT_INT,
	  .offset = offsetof(T, v2.runs), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "successful runs that complete the training" },
	{ .long_name = "parallelism", .type = RAI_OPT_INT,
	  .offset = offsetof(T, v2.parallelism), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "runs at once (needs --runs)" },
	RUNAI_V2_REFUSED(T, "external-url", "<container=n>",
	    "reach a container port at a URL"),
	RAI_OPT_END
};

#undef T

static const struct runai_v2_kind workspace_kind = {
	.what = "workspace", .group = "workspace", .interactive = 1,
};
static const struct runai_v2_kind training_kind = {
	.what = "training", .group = "training",
};

static int
v2_submit(struct rai_ctx *ctx, struct runai_submit_opts *o,
    const struct runai_v2_kind *k, int argc, char **argv)
{
	struct runai_v2_common c = { o->prefix, &o->env, o->gpu_memory };

	runai_v2_flags_unset(&o->v2, ctx->cmd->opts, o);
	if (runai_v2_check(ctx, o, &o->v2, k, &c, argc, argv) == -1)
		return -1;
	/* the kind says interactive; --attach is submit's own */
	o->v2kind = k;
	o->interactive = k->interactive;
	o->attach = o->v2.attach;
	return runai_submit_run(ctx, o, argc, argv);
}

static int
cmd_workspace_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return v2_submit(ctx, opts, &workspace_kind, argc, argv);
}

static int
cmd_training_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return v2_submit(ctx, opts, &training_kind, argc, argv);
}

#define V2_SUBMIT_DESCRIPTION(what) \
	"The job runs the image; the words after \"--\" are the arguments " \
	"of its entrypoint, or with -c/--command its command. NAME names " \
	"it; without NAME, --name-prefix P gives a name made of P and a " \
	"suffix. The flags are those of the Run:ai CLI v2; runai makes " \
	"the " what " with runai submit's code, so in Kubernetes mode the " \
	"objects are runai submit's (a RunaiJob with its name reservation, " \
	"a Service for --port, claims for --new-pvc) and in control-plane " \
	"mode the control plane's API gets the same request.\n\n" \
	"GPUs: -g N whole GPUs, or a portion of one with " \
	"--gpu-portion-request (and --gpu-portion-limit), or GPU memory " \
	"with --gpu-memory-request (and --gpu-memory-limit). Volumes: " \
	"--existing-pvc, --new-pvc, --host-path (read-only unless " \
	"readwrite), --nfs, --git-sync, --configmap-map-volume, " \
	"--secret-volume, --empty-dir-volume. Flags this runai cannot " \
	"carry yet (--s3, --priority, --compute, --wait-for-submit...) " \
	"are accepted and refused with one line naming them; some are " \
	"refused in one mode only (--node-pools in Kubernetes mode, " \
	"--env-secret in control-plane mode, fields a control plane's " \
	"release does not have).\n\n" \
	"It prints the " what "'s name and the describe command to follow " \
	"it; --dry-run prints the objects (Kubernetes mode) or the request " \
	"(control-plane mode) instead of sending them."

static const struct rai_example workspace_examples[] = {
	{ "runai workspace submit nb1 -i jupyter/base-notebook -g 1 "
	  "--port service-type=NodePort,container=8888",
	    "a workspace on one GPU, its port 8888 on every node" },
	{ "runai workspace submit --name-prefix dev -i ubuntu "
	  "--gpu-portion-request 0.5 -- sleep infinity",
	    "half a GPU; the image's entrypoint given sleep infinity" },
	{ "runai workspace submit ws1 -i ubuntu --existing-pvc "
	  "claimname=data,path=/data --dry-run",
	    "print what would be made" },
	{ NULL, NULL }
};

static const struct rai_example training_examples[] = {
	{ "runai training submit tr1 -i pytorch/pytorch -g 1 -c -- python3 "
	  "train.py",
	    "a training on one GPU running python3 train.py" },
	{ "runai training submit tr2 -i img --runs 4 --parallelism 2 "
	  "--toleration key=gpu,operator=Exists",
	    "four runs, two at a time, on nodes tainted gpu" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_workspace_submit = {
	.name = "submit",
	.summary = "submit a workspace (an interactive job)",
	.synopsis = "[<name>] -i <image> [options] [-- <command> [<arg>...]]",
	.description = "Submits a workspace: an interactive job that runs "
	    "until it is stopped, not preempted unless --preemptible (or "
	    "--preemptibility preemptible) is given.\n\n"
	    V2_SUBMIT_DESCRIPTION("workspace"),
	.examples = workspace_examples,
	.opts = workspace_opts,
	.opts_size = sizeof(struct runai_submit_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_workspace_submit,
};

const struct rai_cmd runai_cmd_training_submit = {
	.name = "submit",
	.summary = "submit a standard training (one pod per run)",
	.synopsis = "[<name>] -i <image> [options] [-- <command> [<arg>...]]",
	.description = "Submits a standard training: a job whose pod runs "
	    "to completion (--runs of them, --parallelism at once), retried "
	    "up to --backoff-limit times, preemptible unless "
	    "--preemptibility non-preemptible is given (control-plane mode, "
	    "2.24 or later).\n\n"
	    V2_SUBMIT_DESCRIPTION("training"),
	.examples = training_examples,
	.opts = training_opts,
	.opts_size = sizeof(struct runai_submit_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_training_submit,
};
