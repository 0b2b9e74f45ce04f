/*
 * "runai workload describe NAME" and each group's describe: the job's
 * fields, pods and events from the same record as "runai describe
 * job", with the CLI v2 grammar's options: -o table|json|yaml, the
 * sections by name (--events=false), row limits and the events' order.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "cli/out.h"
#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

static const char *const describe_formats[] = { "table", "json", "yaml",
	NULL };
static const char *const event_orders[] = { "asc", "desc", NULL };

const struct rai_opt runai_wl_describe_opts[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_wl_describe_opts, output),
	  .argh = "<format>", .def = "table",
	  .help = "table (the default), json or yaml",
	  .choices = describe_formats, .comp = RAI_COMP_CHOICES },
	{ .long_name = "general", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_wl_describe_opts, general),
	  .def = "1", .flags = RAI_OPT_NEGATABLE,
	  .help = "show the general section (=false: leave it out)" },
	{ .long_name = "pods", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_wl_describe_opts, pods),
	  .def = "1", .flags = RAI_OPT_NEGATABLE,
	  .help = "show the pods (=false: leave them out)" },
	{ .long_name = "events", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_wl_describe_opts, events),
	  .def = "1", .flags = RAI_OPT_NEGATABLE,
	  .help = "show the events (=false: leave them out)" },
	{ .long_name = "pod-limit", .type = RAI_OPT_INT,
	  .offset = offsetof(struct runai_wl_describe_opts, pod_limit),
	  .argh = "<n>", .def = "10",
	  .help = "pods shown at most (-1: all)" },
	{ .long_name = "event-limit", .type = RAI_OPT_INT,
	  .offset = offsetof(struct runai_wl_describe_opts, event_limit),
	  .argh = "<n>", .def = "50",
	  .help = "events shown at most (-1: all)" },
	{ .long_name = "sortEvents", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_wl_describe_opts, sort_events),
	  .argh = "<order>", .def = "asc",
	  .help = "events oldest first (asc) or newest first (desc)",
	  .choices = event_orders, .comp = RAI_COMP_CHOICES },
	{ .long_name = "type", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_wl_describe_opts, type),
	  .argh = "<type>",
	  .help = "workload describe: the workload must be of this type "
	      "(workspace, training or inference)" },
	{ .long_name = "framework", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_wl_describe_opts, framework),
	  .argh = "<name>",
	  .help = "workload describe: the training must be of this "
	      "framework" },
	RAI_OPT_END
};

/* workload describe --type/--framework narrow the group to check. */
static int
narrow_group(struct rai_ctx *ctx, const struct runai_wl_describe_opts *o,
    struct runai_wl_group *g)
{
	if (o->framework != NULL) {
		g->kind = RUNAI_WL_FRAMEWORK;
		g->framework = o->framework;
		g->noun = o->framework;
	} else if (o->type != NULL && strcasecmp(o->type, "workspace") == 0) {
		g->kind = RUNAI_WL_WORKSPACE;
		g->noun = "workspace";
	} else if (o->type != NULL && strcasecmp(o->type, "training") == 0) {
		g->kind = RUNAI_WL_TRAINING;
		g->noun = "training";
	} else if (o->type != NULL && strcasecmp(o->type, "inference") == 0) {
		g->kind = RUNAI_WL_INFERENCE;
		g->noun = "inference";
	} else if (o->type != NULL) {
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "invalid "
		    "value '%s' for --type: expected workspace, training or "
		    "inference", o->type);
	}
	return 0;
}

int
runai_wl_describe_run(struct rai_ctx *ctx, void *opts, int argc,
    char **argv)
{
	const struct runai_wl_describe_opts *o = opts;
	struct runai_detail_view view = {
		.pod_limit = o->pod_limit,
		.event_limit = o->event_limit,
		.newest_first = strcmp(o->sort_events, "desc") == 0,
	};
	enum rai_out_fmt fmt = strcmp(o->output, "json") == 0 ? RAI_OUT_JSON :
	    strcmp(o->output, "yaml") == 0 ? RAI_OUT_YAML : RAI_OUT_TABLE;
	struct rai_err *err = rai_ctx_err(ctx);
	struct runai_wl_group g;
	struct rai_job_detail d;
	int rc = -1;

	(void)argc;
	runai_wl_group_of(ctx, &g);
	if (runai_wl_group_usable(ctx, &g) == -1 ||
	    narrow_group(ctx, o, &g) == -1)
		return -1;
	view.sections = (o->general ? RUNAI_DETAIL_GENERAL : 0) |
	    (o->pods ? RUNAI_DETAIL_PODS : 0) |
	    (o->events ? RUNAI_DETAIL_EVENTS : 0);
	/* the record names the job's type: no list is needed to check it */
	if (rai_wl_describe(RUNAI_WL(ctx), argv[0], fmt != RAI_OUT_TABLE, &d,
	    err) == -1) {
		if (err->kind == RAI_E_NOTFOUND && g.kind != RUNAI_WL_ANY)
			runai_wl_group_check(ctx, &g, argv[0], NULL, err);
	} else if ((rc = runai_wl_group_check(ctx, &g, argv[0], &d.v,
	    err)) == 0) {
		if (fmt != RAI_OUT_TABLE)
			rc = rai_out_doc(ctx->out, fmt, d.doc, err);
		else
			runai_job_detail_print(ctx, &d, &view);
	}
	rai_job_detail_release(&d);
	return rc;
}
