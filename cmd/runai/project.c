/*
 * runai project list|set: the CLI v2 grammar's project commands, beside
 * the original's "list projects" and "config project". list is here,
 * read a page at a time where the source pages (the control plane's
 * list) and cut where asked; set is project_set.c.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "cli/warn.h"
#include "runai.h"

#include "core/banned.h"

/* The largest page the control plane serves. */
#define PAGE_SIZE_MAX	500

struct project_list_opts {
	struct rai_listing_opts	 listing;
	long			 page_size;
	long			 max_items;
	const char		*next_token;
	int			 no_pagination;
};

static const struct rai_opt project_list_opts[] = {
	RAI_LISTING_OPTS(struct project_list_opts, listing),
	{ .long_name = "page-size", .type = RAI_OPT_INT,
	  .offset = offsetof(struct project_list_opts, page_size),
	  .argh = "<n>", .def = "100",
	  .help = "projects per request to the control plane (1 to 500)" },
	{ .long_name = "max-items", .type = RAI_OPT_INT,
	  .offset = offsetof(struct project_list_opts, max_items),
	  .argh = "<n>", .def = "-1",
	  .help = "show at most this many projects (-1: every one)" },
	{ .long_name = "next-token", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct project_list_opts, next_token),
	  .argh = "<token>",
	  .help = "go on where a list cut short stopped (its next token)" },
	{ .long_name = "no-pagination", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct project_list_opts, no_pagination),
	  .help = "only the first page" },
	RAI_OPT_END
};

static const struct rai_listing_col project_cols[] = {
	{ "name", "Project", 0 },
	{ "gpuQuota", "GPU Quota", 0 },
	{ "allocatedGpus", "Allocated GPUs", 0 },
	{ "allocationRatio", "Allocation Ratio", 0 },
	{ "queuedGpus", "Queued GPUs", 0 },
	{ "default", "Default", 0 },
	{ "department", "Department", RAI_LISTING_EXTRA },
	{ NULL, NULL, 0 }
};

static int
check_paging(const struct project_list_opts *o, struct rai_err *err)
{
	if (o->page_size < 1 || o->page_size > PAGE_SIZE_MAX)
		return rai_err_set(err, RAI_E_USAGE, "--page-size must be 1 to "
		    "%d, not %ld", PAGE_SIZE_MAX, o->page_size);
	if (o->max_items == 0 || o->max_items < -1)
		return rai_err_set(err, RAI_E_USAGE, "--max-items must be 1 or "
		    "more, or -1 for every project, not %ld", o->max_items);
	return 0;
}

/* A number to two decimals, as the tables show GPUs. */
static double
round2(double v)
{
	return round(v * 100) / 100;
}

static cJSON *
project_row(const struct rai_project *p, const char *def)
{
	cJSON *row = cJSON_CreateObject();

	cJSON_AddStringToObject(row, "name", p->name);
	if (p->has_quota)
		cJSON_AddNumberToObject(row, "gpuQuota", p->deserved_gpus);
	else
		cJSON_AddNullToObject(row, "gpuQuota");
	cJSON_AddNumberToObject(row, "allocatedGpus", round2(p->gpus_allocated));
	/* what share of its quota the project holds; none without one */
	if (p->has_quota && p->deserved_gpus > 0)
		cJSON_AddNumberToObject(row, "allocationRatio",
		    round2(p->gpus_allocated / p->deserved_gpus));
	else
		cJSON_AddNullToObject(row, "allocationRatio");
	cJSON_AddNumberToObject(row, "queuedGpus", round2(p->gpus_queued));
	cJSON_AddBoolToObject(row, "default", def != NULL &&
	    strcmp(def, p->name) == 0);
	rai_listing_put_str(row, "department", p->department);
	return row;
}

static int
cmd_project_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct project_list_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_wl_page pg = { 0 };
	struct rai_project_list pl = { 0 };
	const char *def;
	cJSON *rows;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	if (check_paging(o, err) == -1 ||
	    rai_listing_check(&o->listing, err) == -1)
		return -1;
	pg.page_size = o->page_size;
	pg.max_items = o->max_items > 0 ? o->max_items : 0;
	pg.start = o->next_token;
	pg.one_page = o->no_pagination;
	if (rai_wl_project_page(RUNAI_WL(ctx), 1, &pg, &pl, &def, err) == -1)
		return -1;
	rows = cJSON_CreateArray();
	for (i = 0; i < pl.n; i++)
		cJSON_AddItemToArray(rows, project_row(&pl.v[i], def));
	rc = rai_listing_print(ctx->out, &o->listing, project_cols, rows, err);
	/* on stderr: the list on stdout stays one document */
	if (rc == 0 && pg.next != NULL) {
		fflush(ctx->out);
		fprintf(stderr, "Next token: %s\n", pg.next);
	}
	cJSON_Delete(rows);
	free(pg.next);
	rai_project_list_release(&pl);
	return rc;
}

static const struct rai_example project_list_examples[] = {
	{ "runai project list", "every project, with its GPU quota and use" },
	{ "runai project list --max-items 10 --json", "the first ten, as "
	    "JSON" },
	{ "runai project list --no-pagination --page-size 50",
	    "one page of 50; its next token on stderr" },
	{ NULL, NULL }
};

static const struct rai_cmd project_list = {
	.name = "list",
	.summary = "list the projects, their GPU quotas and use",
	.synopsis = "[--json|--yaml|--table] [--page-size <n>] "
	    "[--max-items <n>] [--next-token <token>] [--no-pagination]",
	.description = "Lists the projects 'runai list projects' lists, "
	    "sorted by name, with each one's GPU quota, the GPUs its "
	    "workloads hold and that share of the quota, the GPUs they wait "
	    "for, and whether it is the default project. The columns, by id: "
	    "name, gpuQuota, allocatedGpus, allocationRatio, queuedGpus, "
	    "default, and with --columns department.\n\n"
	    "A control plane's list is read --page-size projects at a time "
	    "(100 unless given; at most 500); --max-items stops after that "
	    "many and --no-pagination after the first page. A list cut short "
	    "prints its next token on stderr, which --next-token takes to go "
	    "on from there. In Kubernetes mode the list is read whole and cut "
	    "the same way.",
	.examples = project_list_examples,
	.opts = project_list_opts,
	.opts_size = sizeof(struct project_list_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_project_list,
};

static const struct rai_cmd *const project_subcmds[] = {
	&project_list,
	&runai_cmd_project_set,
	NULL
};

const struct rai_cmd runai_cmd_project = {
	.name = "project",
	.summary = "list the projects and choose the default one",
	.synopsis = "list|set",
	.description = "The CLI v2 grammar's project commands: 'project "
	    "list' and 'project set NAME'. 'runai list projects' and 'runai "
	    "config project' do the same in the original grammar.",
	.subcmds = project_subcmds,
};
