/*
 * runai inference distributed scale: a distributed inference's number
 * of groups (a leader and its workers each) changed in place, through
 * the control plane (2.23 and later).
 */
#include <stddef.h>
#include <stdio.h>

#include "request_print.h"
#include "runai.h"
#include "runai/wl.h"

#include "core/banned.h"

struct scale_opts {
	long		 replicas;
	int		 dry_run;
	const char	*output;
};

static const struct rai_opt scale_opts[] = {
	{ .long_name = "replicas", .type = RAI_OPT_INT,
	  .offset = offsetof(struct scale_opts, replicas), .argh = "<n>",
	  .flags = RAI_OPT_TRISTATE,
	  .help = "the groups to run, from 0 to 1000 (required)" },
	RUNAI_DRY_RUN_OPTS(struct scale_opts, dry_run, output),
	RAI_OPT_END
};

static int
cmd_dinf_scale(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct scale_opts *o = opts;
	struct rai_wl_scale s = { 0 };
	struct rai_err *err = rai_ctx_err(ctx);
	int rc;

	(void)argc;
	if (!rai_opt_given(ctx, "replicas"))
		return rai_err_set(err, RAI_E_USAGE, "--replicas is required: "
		    "the number of groups to run");
	if (runai_dry_run_check(ctx, o->dry_run, o->output) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, err) == -1)
		return -1;
	s.job = argv[0];
	s.replicas = o->replicas;
	s.dry_run = o->dry_run;
	rc = rai_wl_scale(RUNAI_WL(ctx), &s, err);
	if (rc == 0 && o->dry_run)
		rc = runai_print_request(ctx, "PATCH", s.request_path,
		    s.request, o->output);
	else if (rc == 0)
		printf("The distributed inference '%s' scales to %ld "
		    "replica%s\n", argv[0], o->replicas,
		    o->replicas == 1 ? "" : "s");
	rai_wl_scale_release(&s);
	return rc;
}

static const struct rai_example scale_examples[] = {
	{ "runai inference distributed scale llm --replicas 3 -p team-a",
	    "three groups of a leader and its workers" },
	{ "runai inference distributed scale llm --replicas 0",
	    "none: the workload stays, its pods go" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_inference_dist_scale = {
	.name = "scale",
	.summary = "change a distributed inference's number of groups",
	.synopsis = "<name> --replicas <n> [--dry-run [-o yaml|json]]",
	.description = "Asks the control plane (2.23 and later) to run "
	    "--replicas groups of the distributed inference workload <name>, "
	    "each a leader and its workers: groups are added or removed "
	    "whole. 0 keeps the workload with no pods. --dry-run prints the "
	    "request and where it would go instead of sending it.",
	.examples = scale_examples,
	.opts = scale_opts,
	.opts_size = sizeof(struct scale_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_dinf_scale,
};
