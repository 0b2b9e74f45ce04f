/*
 * runai list projects: every project with its GPU quota, the default one
 * marked; -o wide adds the GPUs its pods hold and wait for. Read from the projects.run.ai CRD (namespaces when the cluster
 * has none), as the reference did before its researcher-service.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/project.h"

#include "core/banned.h"

struct list_projects_opts {
	const char	*output;
};

static const struct rai_opt list_projects_opts[] = {
	RUNAI_OPT_OUTPUT(struct list_projects_opts, output),
	RAI_OPT_END
};

static const struct rai_col project_cols[] = {
	{ "PROJECT", NULL, 0 },
	{ "DEPARTMENT", NULL, 0 },
	{ "DESERVED GPUs", NULL, 0 },
	{ "ALLOCATED GPUs", NULL, RAI_COL_WIDE },
	{ "QUEUED GPUs", NULL, RAI_COL_WIDE },
	{ "INT LIMIT", NULL, 0 },
	{ "INT AFFINITY", NULL, 0 },
	{ "TRAIN AFFINITY", NULL, 0 },
	{ NULL, NULL, 0 }
};

static void
add_joined(struct rai_table *t, char **v)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		rai_buf_addf(&b, "%s%s", i ? ";" : "", v[i]);
	rai_table_add(t, b.len ? rai_buf_str(&b) : "-");
	rai_buf_release(&b);
}

static void
add_project_row(struct rai_table *t, const struct rai_project *p,
    const char *def)
{
	char num[32], dur[32];

	if (def != NULL && strcmp(p->name, def) == 0)
		rai_table_addf(t, "%s (default)", p->name);
	else
		rai_table_add(t, p->name);
	rai_table_add(t, p->department ? p->department : "-");
	if (!p->has_quota)
		rai_table_add(t, "deleted");
	else
		rai_table_add(t, p->deserved_gpus > 0 ?
		    rai_fmt_num(p->deserved_gpus, num, sizeof(num)) : "-");
	rai_table_add(t, rai_fmt_num(p->gpus_allocated, num, sizeof(num)));
	rai_table_add(t, rai_fmt_num(p->gpus_queued, num, sizeof(num)));
	rai_table_add(t, p->interactive_limit_secs > 0 ?
	    rai_fmt_go_duration(p->interactive_limit_secs, dur, sizeof(dur)) :
	    "-");
	add_joined(t, p->interactive_affinity);
	add_joined(t, p->train_affinity);
	rai_table_end_row(t);
}

static cJSON *
str_array_json(char **v)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
	return arr;
}

/* The documented -o json|yaml schema: one object per project. */
static cJSON *
projects_json(const struct rai_project_list *pl, const char *def)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	size_t i;

	for (i = 0; i < pl->n; i++) {
		const struct rai_project *p = &pl->v[i];

		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", p->name);
		if (p->department)
			cJSON_AddStringToObject(o, "department", p->department);
		if (p->has_quota)
			cJSON_AddNumberToObject(o, "deservedGpus",
			    p->deserved_gpus);
		cJSON_AddNumberToObject(o, "interactiveJobTimeLimitSecs",
		    (double)p->interactive_limit_secs);
		cJSON_AddItemToObject(o, "interactiveNodeAffinity",
		    str_array_json(p->interactive_affinity));
		cJSON_AddItemToObject(o, "trainNodeAffinity",
		    str_array_json(p->train_affinity));
		cJSON_AddBoolToObject(o, "default",
		    def != NULL && strcmp(def, p->name) == 0);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int
print_projects(struct rai_ctx *ctx, const struct rai_project_list *pl,
    enum rai_out_fmt fmt, const char *def)
{
	struct rai_table *t;
	cJSON *doc;
	size_t i;
	int rc;

	if (fmt == RAI_OUT_NAME) {
		for (i = 0; i < pl->n; i++)
			rai_text_put(ctx->out, "project/", pl->v[i].name,
			    "\n");
		return 0;
	}
	if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		doc = projects_json(pl, def);
		rc = rai_out_doc(ctx->out, fmt, doc, rai_ctx_err(ctx));
		cJSON_Delete(doc);
		return rc;
	}
	t = rai_table_new(project_cols, fmt == RAI_OUT_WIDE);
	for (i = 0; i < pl->n; i++)
		add_project_row(t, &pl->v[i], def);
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	return 0;
}

static int
cmd_list_projects(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct list_projects_opts *o = opts;
	struct rai_project_list pl = { 0 };
	enum rai_out_fmt fmt;
	const char *def;
	int rc;

	(void)argc;
	(void)argv;
	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	if (rai_wl_projects(RUNAI_WL(ctx), fmt == RAI_OUT_WIDE, &pl, &def,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	rc = print_projects(ctx, &pl, fmt, def);
	rai_project_list_release(&pl);
	return rc;
}

static const struct rai_example list_projects_examples[] = {
	{ "runai list projects", "show every project and its GPU quota" },
	{ "runai list projects -o wide", "also the GPUs allocated and queued" },
	{ "runai list projects -o name", "only the names, one per line" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_list_projects = {
	.name = "projects",
	.aliases = (const char *const[]){ "project", NULL },
	.summary = "list the projects and their GPU quotas",
	.synopsis = "[-o wide|json|yaml|name]",
	.description = "Lists the cluster's projects (run.ai/v1 Project "
	    "objects) sorted by name, with their department, deserved GPUs, "
	    "interactive time limit and node affinities; \"-\" marks an unset "
	    "value. The project of the current context is marked "
	    "\"(default)\". On a cluster without the Project CRD the projects "
	    "come from namespace labels and have no quota (\"deleted\"). "
	    "With -o wide two columns follow DESERVED GPUs: ALLOCATED GPUs, "
	    "the GPUs held by the project's pods that are placed on a node "
	    "and not finished, and QUEUED GPUs, those asked for by its "
	    "Pending pods that wait for a node (fractions and gpu-memory "
	    "requests count as shares of a GPU). "
	    "With -o json or yaml each project is an object with the fields "
	    "name, department, deservedGpus, interactiveJobTimeLimitSecs, "
	    "interactiveNodeAffinity, trainNodeAffinity and default.",
	.examples = list_projects_examples,
	.opts = list_projects_opts,
	.opts_size = sizeof(struct list_projects_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_list_projects,
};
