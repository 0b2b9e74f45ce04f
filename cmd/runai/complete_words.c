/*
 * The names runai's shell completion offers from the kubeconfig, the
 * cluster or the control plane: clusters (contexts), projects, jobs,
 * nodes, templates and assets. In control-plane mode they come through
 * the workload interface, as the commands read them.
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
#include "runai/template.h"

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

/* The submit templates' names (Kubernetes mode). */
static void
complete_templates(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out, struct rai_err *err)
{
	const cJSON *cm;
	cJSON *items;

	if (rai_template_list(RUNAI_CLIENT(ctx), &items, err) == -1)
		return;
	cJSON_ArrayForEach(cm, items)
		if (strncmp(rai_template_name(cm), prefix, strlen(prefix)) == 0)
			rai_strv_push(out, rai_template_name(cm));
	cJSON_Delete(items);
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

/* A name once: one taken in several scopes comes in a row, sorted. */
static void
push_prefixed(struct rai_strv *out, const char *name, const char *prefix)
{
	if (name == NULL || strncmp(name, prefix, strlen(prefix)) != 0)
		return;
	if (out->n > 0 && strcmp(out->v[out->n - 1], name) == 0)
		return;
	rai_strv_push(out, name);
}

/* The asset kind a completion asks for; -1 for none. */
static int
asset_kind(enum rai_comp comp)
{
	switch (comp) {
	case RAI_COMP_TEMPLATE:		return RAI_WL_TEMPLATE;
	case RAI_COMP_ENVIRONMENT:	return RAI_WL_ENVIRONMENT;
	case RAI_COMP_COMPUTE:		return RAI_WL_COMPUTE;
	case RAI_COMP_DATASOURCE:	return RAI_WL_DATASOURCE;
	case RAI_COMP_CREDENTIAL:	return RAI_WL_CREDENTIAL;
	default:			return -1;
	}
}

/* The names of a source's assets (the project's, or all without one). */
static void
complete_assets(struct rai_ctx *ctx, enum rai_wl_asset_kind kind,
    const char *prefix, struct rai_strv *out, struct rai_err *err)
{
	struct rai_wl_asset_query q = { 0 };
	struct rai_wl_assets as;
	const cJSON *row;

	q.all = RUNAI_GLOBALS(ctx)->project == NULL;
	if (rai_wl_assets(RUNAI_WL(ctx), kind, &q, &as, err) == -1)
		return;
	cJSON_ArrayForEach(row, as.rows)
		push_prefixed(out, cJSON_GetStringValue(cJSON_GetObjectItem(row,
		    "name")), prefix);
	rai_wl_assets_release(&as);
}

/* The jobs of -p's project, else the default one, through the source. */
static void
complete_job_names(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out, struct rai_err *err)
{
	struct rai_strv names = { NULL, 0 };
	size_t i;

	if (rai_wl_resolve(RUNAI_WL(ctx), "", err) == -1 ||
	    rai_wl_job_names(RUNAI_WL(ctx), &names, err) == -1)
		return;
	for (i = 0; i < names.n; i++)
		push_prefixed(out, names.v[i], prefix);
	rai_strv_release(&names);
}

/*
 * Words from the source's table: what the commands themselves list, in
 * either mode (the control plane's, in control-plane mode).
 */
static void
complete_from_source(struct rai_ctx *ctx, enum rai_comp comp,
    const char *prefix, struct rai_strv *out, struct rai_err *err)
{
	struct rai_project_list pl = { 0 };
	struct rai_wl_clusters cl;
	const char *def;
	size_t i;

	if (comp == RAI_COMP_CLUSTER) {
		if (rai_wl_clusters(RUNAI_WL(ctx), &cl, err) == -1)
			return;
		for (i = 0; i < cl.n; i++)
			push_prefixed(out, cl.v[i].name, prefix);
		rai_wl_clusters_release(&cl);
	} else if (comp == RAI_COMP_PROJECT) {
		if (rai_wl_projects(RUNAI_WL(ctx), 0, &pl, &def, err) == -1)
			return;
		for (i = 0; i < pl.n; i++)
			push_prefixed(out, pl.v[i].name, prefix);
		rai_project_list_release(&pl);
	} else if (comp == RAI_COMP_JOB) {
		complete_job_names(ctx, prefix, out, err);
	} else if (asset_kind(comp) != -1) {
		complete_assets(ctx, (enum rai_wl_asset_kind)asset_kind(comp),
		    prefix, out, err);
	}
}

/*
 * Control-plane mode: the control plane's words, with a short time
 * limit; 1 when the context is in that mode (and the words are given).
 */
static int
complete_cp(struct rai_ctx *ctx, enum rai_comp comp, const char *prefix,
    struct rai_strv *out, struct rai_err *err)
{
	struct rai_kube_globals kg = RUNAI_GLOBALS(ctx)->kube;

	if (kg.request_timeout == 0 && getenv("RUNAI_REQUEST_TIMEOUT") == NULL)
		kg.request_timeout = (COMPLETE_TIMEOUT_MS + 999) / 1000;
	if (runai_cp_select(ctx, &kg, err) != 1)
		return 0;
	if (comp == RAI_COMP_CLUSTER || comp == RAI_COMP_PROJECT ||
	    comp == RAI_COMP_JOB || asset_kind(comp) != -1)
		complete_from_source(ctx, comp, prefix, out, err);
	return 1;
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

	if (comp != RAI_COMP_CONTEXT && complete_cp(ctx, comp, prefix, out,
	    &err) == 1)
		goto out;
	rai_err_release(&err);
	if (load_config(ctx, &err) == -1)
		goto out;
	if (comp == RAI_COMP_CONTEXT || comp == RAI_COMP_CLUSTER) {
		complete_contexts(ctx, prefix, out);
		goto out;
	}
	if (comp != RAI_COMP_PROJECT && comp != RAI_COMP_NODE &&
	    comp != RAI_COMP_JOB && comp != RAI_COMP_POD &&
	    comp != RAI_COMP_TEMPLATE)
		goto out;
	/* a budget the user set (RUNAI_REQUEST_TIMEOUT) wins over ours */
	co.request_timeout_ms = getenv("RUNAI_REQUEST_TIMEOUT") != NULL ? 0 :
	    COMPLETE_TIMEOUT_MS;
	co.user_agent = "runai/" RAI_VERSION;
	if (kube_session_connect(RUNAI_KUBE(ctx), &co, &err) == -1)
		goto out;
	if (comp == RAI_COMP_PROJECT)
		complete_projects(ctx, prefix, out, &err);
	else if (comp == RAI_COMP_TEMPLATE)
		complete_templates(ctx, prefix, out, &err);
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
