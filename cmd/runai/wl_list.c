/*
 * "runai workload list", "runai workspace list", "runai training
 * [FRAMEWORK] list", "runai inference list": the jobs of the project
 * (or of every project with -A) that belong to the group, in the CLI
 * v2 grammar's columns. The rows come from the same workload interface
 * call as "runai list jobs", so both grammars list the same jobs.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "cli/out.h"
#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

const struct rai_opt runai_wl_list_opts[] = {
	{ .short_name = 'A', .long_name = "all", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_wl_list_opts, all),
	  .help = "the workloads of every project" },
	{ .long_name = "status", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_wl_list_opts, status),
	  .argh = "<status>",
	  .help = "only workloads in this status (Running, Pending, ...)" },
	{ .long_name = "type", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_wl_list_opts, type),
	  .argh = "<type>",
	  .help = "only workloads of this type: workspace, training or "
	      "inference" },
	{ .long_name = "framework", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_wl_list_opts, framework),
	  .argh = "<name>",
	  .help = "only distributed trainings of this framework (PyTorch, "
	      "TensorFlow, MPI, XGBoost)" },
	RAI_LISTING_OPTS(struct runai_wl_list_opts, out),
	RAI_OPT_END
};

static const struct rai_listing_col wl_cols[] = {
	{ "name", "Workload", 0 },
	{ "type", "Type", 0 },
	{ "status", "Status", 0 },
	{ "project", "Project", 0 },
	{ "preemptible", "Preemptible", 0 },
	{ "pods", "Running/Requested Pods", 0 },
	{ "gpu", "GPU Allocation", 0 },
	{ "framework", "Framework", RAI_LISTING_EXTRA },
	{ "node", "Node", RAI_LISTING_EXTRA },
	{ "image", "Image", RAI_LISTING_EXTRA },
	{ "user", "User", RAI_LISTING_EXTRA },
	{ "age", "Age", RAI_LISTING_EXTRA },
	{ "id", "ID", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

/*
 * Interactive jobs are not preemptible unless submitted so; trainings
 * are, and inference is not (the original CLI's priority classes).
 */
static int
preemptible(const struct rai_job_view *v)
{
	const char *type = v->type != NULL ? v->type : "";

	return strcmp(type, "Interactive-Preemptible") == 0 ||
	    strcmp(runai_wl_v2_type(v), "Training") == 0;
}

static cJSON *
wl_row(const struct rai_job_view *v, time_t now)
{
	cJSON *row = cJSON_CreateObject();
	char buf[64], age[16];

	cJSON_AddStringToObject(row, "name", v->name);
	cJSON_AddStringToObject(row, "type", runai_wl_v2_type(v));
	cJSON_AddStringToObject(row, "status", v->status);
	cJSON_AddStringToObject(row, "project", v->project);
	cJSON_AddStringToObject(row, "preemptible", preemptible(v) ?
	    "Yes" : "No");
	/* requested: the pods there are, running or waiting */
	snprintf(buf, sizeof(buf), "%d/%d", v->pods_running,
	    v->pods_running + v->pods_pending);
	cJSON_AddStringToObject(row, "pods", buf);
	snprintf(buf, sizeof(buf), "%.2f", v->gpus_allocated);
	cJSON_AddStringToObject(row, "gpu", buf);
	cJSON_AddStringToObject(row, "framework", runai_wl_framework(v));
	cJSON_AddStringToObject(row, "node", v->node);
	cJSON_AddStringToObject(row, "image", v->image);
	cJSON_AddStringToObject(row, "user", v->user);
	cJSON_AddStringToObject(row, "age", v->created ?
	    rai_out_age(v->created, now, age) : "");
	cJSON_AddStringToObject(row, "id", v->uid);
	return row;
}

static int
wanted(const struct runai_wl_group *g, const struct runai_wl_list_opts *o,
    const struct rai_job_view *v)
{
	if (v->invalid || !runai_wl_group_has(g, v))
		return 0;
	if (o->status != NULL && strcasecmp(o->status, v->status) != 0)
		return 0;
	if (o->type != NULL && strcasecmp(o->type, runai_wl_v2_type(v)) != 0)
		return 0;
	return o->framework == NULL ||
	    strcasecmp(o->framework, runai_wl_framework(v)) == 0;
}

static int
check_filters(struct rai_ctx *ctx, const struct runai_wl_list_opts *o)
{
	static const char *const types[] = { "workspace", "training",
		"inference", NULL };
	size_t i;

	if (o->type == NULL)
		return rai_listing_check(&o->out, rai_ctx_err(ctx));
	for (i = 0; types[i] != NULL; i++)
		if (strcasecmp(o->type, types[i]) == 0)
			return rai_listing_check(&o->out, rai_ctx_err(ctx));
	return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "invalid value "
	    "'%s' for --type: expected workspace, training or inference",
	    o->type);
}

int
runai_wl_list_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_wl_list_opts *o = opts;
	struct rai_wl *wl = RUNAI_WL(ctx);
	struct runai_wl_group g;
	struct rai_job_list jl = { 0 };
	cJSON *rows;
	time_t now = time(NULL);
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	runai_wl_group_of(ctx, &g);
	if (check_filters(ctx, o) == -1 || runai_wl_group_usable(ctx, &g) == -1)
		return -1;
	if (!o->all && rai_wl_resolve(wl, RUNAI_HINT_PROJECT_OR_ALL,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	if (rai_wl_jobs(wl, o->all, &jl, rai_ctx_err(ctx)) == -1)
		return -1;
	rows = cJSON_CreateArray();
	for (i = 0; i < jl.n; i++)
		if (wanted(&g, o, &jl.v[i]))
			cJSON_AddItemToArray(rows, wl_row(&jl.v[i], now));
	rai_job_list_release(&jl);
	rc = rai_listing_print(ctx->out, &o->out, wl_cols, rows,
	    rai_ctx_err(ctx));
	cJSON_Delete(rows);
	return rc;
}
