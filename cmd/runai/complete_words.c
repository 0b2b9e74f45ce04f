/*
 * The names runai's shell completion offers from the kubeconfig and the
 * cluster: contexts, projects, jobs and nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "core/strv.h"
#include "kube/client.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/job.h"
#include "runai/project.h"

#include "core/banned.h"

/* Dynamic completion must never make a shell wait long. */
#define COMPLETE_TIMEOUT_MS	1500

static int
load_config(struct rai_ctx *ctx, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);

	return kube_session_load(RUNAI_KUBE(ctx), g->kube.kubeconfig,
	    g->kube.context, err);
}

static void
complete_contexts(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out)
{
	struct kube_context_info ci;
	size_t i;

	for (i = 0; i < kube_config_ncontexts(RUNAI_KUBE(ctx)->kcfg); i++)
		if (kube_config_context(RUNAI_KUBE(ctx)->kcfg, i, &ci) == 0 &&
		    strncmp(ci.name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, ci.name);
}

static void
complete_projects(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out, struct rai_err *err)
{
	struct rai_project_list pl = { 0 };
	size_t i;

	if (rai_projects_fetch(RUNAI_CLIENT(ctx), &pl, err) == -1)
		return;
	for (i = 0; i < pl.n; i++)
		if (strncmp(pl.v[i].name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, pl.v[i].name);
	rai_project_list_release(&pl);
}

/* The names of a List's items that start with prefix. */
static void
push_names(const cJSON *list, const char *prefix, struct rai_strv *out)
{
	const cJSON *item;
	const char *name;

	cJSON_ArrayForEach(item, cJSON_GetObjectItem(list, "items")) {
		name = cJSON_GetStringValue(cJSON_GetObjectItem(
		    cJSON_GetObjectItem(item, "metadata"), "name"));
		if (name != NULL && strncmp(name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, name);
	}
}

static void
complete_nodes(struct rai_ctx *ctx, const char *prefix, struct rai_strv *out,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL;

	if (kube_list(RUNAI_CLIENT(ctx), &KUBE_RES_NODES, NULL, &lo, &list,
	    err) == -1)
		return;
	push_names(list, prefix, out);
	cJSON_Delete(list);
}

/* Jobs (valid and invalid) of -p's project, else the context namespace. */
static void
complete_jobs(struct rai_ctx *ctx, const char *prefix, struct rai_strv *out,
    struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	char **names = NULL, *ns = NULL;
	size_t i, n = 0;

	if (g->project != NULL && *g->project != '\0' &&
	    rai_project_namespace(RUNAI_CLIENT(ctx), g->project, &ns,
	    err) == -1)
		return;
	if (rai_job_names(RUNAI_CLIENT(ctx),
	    ns ? ns : RUNAI_KUBE(ctx)->conn.namespace, &names,
	    &n, err) == 0)
		for (i = 0; i < n; i++)
			if (strncmp(names[i], prefix, strlen(prefix)) == 0)
				rai_strv_push(out, names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ns);
}

/* The pods of Run:ai jobs (a distributed job's several) in the namespace. */
static void
complete_pods(struct rai_ctx *ctx, const char *prefix, struct rai_strv *out,
    struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL;
	char *ns = NULL;

	if (g->project != NULL && *g->project != '\0' &&
	    rai_project_namespace(RUNAI_CLIENT(ctx), g->project, &ns,
	    err) == -1)
		return;
	lo.field_selector = "spec.schedulerName=runai-scheduler";
	if (kube_list(RUNAI_CLIENT(ctx), &KUBE_RES_PODS, ns ? ns :
	    RUNAI_KUBE(ctx)->conn.namespace, &lo, &list, err) == 0)
		push_names(list, prefix, out);
	cJSON_Delete(list);
	free(ns);
}

/*
 * Names for the shell. Failures are silent (a completion that prints
 * errors into the command line is worse than none) and bounded in time.
 */
int
runai_complete(struct rai_ctx *ctx, enum rai_comp comp, const char *prefix,
    struct rai_strv *out)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_client_opts co = { 0 };

	if (load_config(ctx, &err) == -1)
		goto out;
	if (comp == RAI_COMP_CONTEXT) {
		complete_contexts(ctx, prefix, out);
		goto out;
	}
	if (comp != RAI_COMP_PROJECT && comp != RAI_COMP_NODE &&
	    comp != RAI_COMP_JOB && comp != RAI_COMP_POD)
		goto out;
	/* a budget the user set (RUNAI_REQUEST_TIMEOUT) wins over ours */
	co.request_timeout_ms = getenv("RUNAI_REQUEST_TIMEOUT") != NULL ? 0 :
	    COMPLETE_TIMEOUT_MS;
	co.user_agent = "runai/" RAI_VERSION;
	if (kube_session_connect(RUNAI_KUBE(ctx), &co, &err) == -1)
		goto out;
	if (comp == RAI_COMP_PROJECT)
		complete_projects(ctx, prefix, out, &err);
	else if (comp == RAI_COMP_JOB)
		complete_jobs(ctx, prefix, out, &err);
	else if (comp == RAI_COMP_POD)
		complete_pods(ctx, prefix, out, &err);
	else
		complete_nodes(ctx, prefix, out, &err);
out:
	rai_err_release(&err);
	return 0;
}
