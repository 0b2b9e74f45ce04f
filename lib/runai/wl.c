/*
 * The workload interface's calls: each goes to the source's table, or
 * says in one line that this source has no such operation. And the
 * neutral records' helpers, shared by both sources.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/redact.h"
#include "runai/wl.h"

#include "core/banned.h"

static int
unsupported(const struct rai_wl *wl, const char *what, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_CONFIG, "%s is not available %s",
	    what, wl->unsupported);
}

void
rai_wl_init(struct rai_wl *wl, const struct rai_wl_ops *ops,
    const char *asked_project, const char *unsupported_in)
{
	memset(wl, 0, sizeof(*wl));
	wl->ops = ops;
	if (asked_project != NULL && *asked_project != '\0')
		wl->asked_project = xstrdup(asked_project);
	wl->unsupported = unsupported_in;
}

void
rai_wl_release(struct rai_wl *wl)
{
	free(wl->asked_project);
	free(wl->project);
	free(wl->ns);
	wl->asked_project = wl->project = wl->ns = NULL;
}

void
rai_wl_free(struct rai_wl *wl)
{
	if (wl != NULL)
		wl->ops->free(wl);
}

int
rai_wl_resolve(struct rai_wl *wl, const char *hint, struct rai_err *err)
{
	if (wl->project != NULL)
		return 0;
	return wl->ops->resolve(wl, hint, err);
}

int
rai_wl_projects(struct rai_wl *wl, int usage, struct rai_project_list *pl,
    const char **def, struct rai_err *err)
{
	*def = NULL;
	if (wl->ops->projects == NULL)
		return unsupported(wl, "listing projects", err);
	return wl->ops->projects(wl, usage, pl, def, err);
}

int
rai_wl_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_err *err)
{
	if (wl->ops->jobs == NULL)
		return unsupported(wl, "listing jobs", err);
	return wl->ops->jobs(wl, all, jl, err);
}

int
rai_wl_jobs_wait(struct rai_wl *wl, int all, const struct rai_job_list *last,
    struct rai_err *err)
{
	if (wl->ops->jobs_wait == NULL)
		return unsupported(wl, "watching jobs", err);
	return wl->ops->jobs_wait(wl, all, last, err);
}

int
rai_wl_job_names(struct rai_wl *wl, struct rai_strv *names,
    struct rai_err *err)
{
	if (wl->ops->job_names == NULL)
		return unsupported(wl, "listing jobs", err);
	return wl->ops->job_names(wl, names, err);
}

int
rai_wl_describe(struct rai_wl *wl, const char *job, int doc,
    struct rai_job_detail *d, struct rai_err *err)
{
	memset(d, 0, sizeof(*d));
	if (wl->ops->describe == NULL)
		return unsupported(wl, "describing jobs", err);
	return wl->ops->describe(wl, job, doc, d, err);
}

int
rai_wl_act_check(struct rai_wl *wl, enum rai_wl_action a,
    struct rai_err *err)
{
	return wl->ops->act_check != NULL ? wl->ops->act_check(wl, a, err) : 0;
}

int
rai_wl_act(struct rai_wl *wl, const char *job, enum rai_wl_action a,
    int *unchanged, struct rai_err *err)
{
	*unchanged = 0;
	if (wl->ops->act == NULL)
		return unsupported(wl, "changing jobs", err);
	return wl->ops->act(wl, job, a, unchanged, err);
}

int
rai_wl_submit(struct rai_wl *wl, struct rai_wl_submit *s, struct rai_err *err)
{
	if (wl->ops->submit == NULL)
		return unsupported(wl, "submitting jobs", err);
	return wl->ops->submit(wl, s, err);
}

int
rai_wl_update(struct rai_wl *wl, struct rai_wl_update *u, struct rai_err *err)
{
	if (wl->ops->update == NULL)
		return unsupported(wl, "updating an inference workload", err);
	return wl->ops->update(wl, u, err);
}

int
rai_wl_scale(struct rai_wl *wl, struct rai_wl_scale *u, struct rai_err *err)
{
	if (wl->ops->scale == NULL)
		return unsupported(wl, "scaling a distributed inference", err);
	return wl->ops->scale(wl, u, err);
}

int
rai_wl_submit_manifest(struct rai_wl *wl, struct rai_wl_manifest *m,
    struct rai_err *err)
{
	const char *kind = rai_json_str(m->manifest, "kind");

	if (wl->ops->submit_manifest == NULL)
		return unsupported(wl, "submitting a manifest", err);
	/*
	 * A Secret is no workload, and its values would go where requests
	 * go: --dry-run's output and -v's body logs, which mask only what
	 * is named like a credential.
	 */
	if (kind != NULL && strcmp(kind, "Secret") == 0)
		return rai_err_set(err, RAI_E_USAGE, "a Secret is not a "
		    "workload; create it with kubectl, not through runai's "
		    "requests and their logs");
	if (wl->ops->submit_manifest(wl, m, err) == -1)
		return -1;
	/* a dry run's request is shown: credentials in it are masked */
	kube_redact(m->request);
	return 0;
}

const char *
rai_wl_manifest_name(const struct rai_wl_manifest *m, int *is_prefix)
{
	const char *own = rai_json_str(m->manifest, "metadata.name");

	*is_prefix = 0;
	if (m->name != NULL)
		return m->name;
	if (m->prefix == NULL && own != NULL && *own != '\0')
		return own;
	*is_prefix = 1;
	return m->prefix != NULL ? m->prefix : "workload";
}

int
rai_wl_top_jobs(struct rai_wl *wl, int all, struct rai_job_list *jl,
    struct rai_prom_vec *m, time_t now, struct rai_err *qerr,
    struct rai_err *err)
{
	if (wl->ops->top_jobs == NULL)
		return unsupported(wl, "the jobs' use", err);
	return wl->ops->top_jobs(wl, all, jl, m, now, qerr, err);
}

int
rai_wl_nodes(struct rai_wl *wl, struct rai_node_list *nl, struct rai_err *err)
{
	if (wl->ops->nodes == NULL)
		return unsupported(wl, "listing nodes", err);
	return wl->ops->nodes(wl, nl, err);
}

int
rai_wl_node_metrics(struct rai_wl *wl, const struct rai_node_list *nl,
    const char *only, struct rai_prom_vec *m, time_t now,
    struct rai_err *qerr, struct rai_err *err)
{
	if (wl->ops->node_metrics == NULL)
		return unsupported(wl, "the nodes' use", err);
	return wl->ops->node_metrics(wl, nl, only, m, now, qerr, err);
}

int
rai_wl_node_gpus(struct rai_wl *wl, struct rai_node_list *nl,
    struct rai_err *err)
{
	/* a source that knows no GPU by index shows none */
	return wl->ops->node_gpus != NULL ? wl->ops->node_gpus(wl, nl, err) : 0;
}

int
rai_wl_clusters(struct rai_wl *wl, struct rai_wl_clusters *cl,
    struct rai_err *err)
{
	memset(cl, 0, sizeof(*cl));
	if (wl->ops->clusters == NULL)
		return unsupported(wl, "listing clusters", err);
	return wl->ops->clusters(wl, cl, err);
}

int
rai_wl_stream(struct rai_wl *wl, const char *what, int log,
    struct rai_wl_stream *st, struct rai_err *err)
{
	memset(st, 0, sizeof(*st));
	if (wl->ops->stream == NULL)
		return unsupported(wl, "reaching a job's pods", err);
	return wl->ops->stream(wl, what, log, st, err);
}

int
rai_wl_cluster_log(struct rai_wl *wl, const char *job,
    kube_bytes_fn *on_bytes, void *ud, struct rai_err *err)
{
	if (wl->ops->cluster_log == NULL)
		return unsupported(wl, "a log through the cluster's endpoint",
		    err);
	return wl->ops->cluster_log(wl, job, on_bytes, ud, err);
}

/*
 * A source that reads its projects whole pages through them itself: the
 * list from the start (an index a call before gave as next), cut at
 * max_items, or at page_size for one page.
 */
static int
whole_project_page(struct rai_wl *wl, int usage, struct rai_wl_page *pg,
    struct rai_project_list *pl, const char **def, struct rai_err *err)
{
	struct rai_project_list drop = { 0 };
	char *end;
	long from = 0;
	size_t i, keep, n = 0;

	if (pg->start != NULL) {
		from = strtol(pg->start, &end, 10);
		if (end == pg->start || *end != '\0' || from < 0)
			return rai_err_set(err, RAI_E_USAGE, "'%s' is no next "
			    "token of this list", pg->start);
	}
	if (rai_wl_projects(wl, usage, pl, def, err) == -1)
		return -1;
	if ((size_t)from > pl->n)
		from = (long)pl->n;
	keep = pl->n - (size_t)from;
	if (pg->max_items > 0 && (size_t)pg->max_items < keep)
		keep = (size_t)pg->max_items;
	if (pg->one_page && pg->page_size > 0 && (size_t)pg->page_size < keep)
		keep = (size_t)pg->page_size;
	if ((size_t)from + keep < pl->n)
		pg->next = xasprintf("%zu", (size_t)from + keep);
	/* the projects before the start and after the cut are let go */
	drop.v = xcalloc(pl->n + 1, sizeof(*drop.v));
	for (i = 0; i < pl->n; i++)
		if (i < (size_t)from || i >= (size_t)from + keep)
			drop.v[drop.n++] = pl->v[i];
		else
			pl->v[n++] = pl->v[i];
	pl->n = n;
	rai_project_list_release(&drop);
	return 0;
}

int
rai_wl_project_page(struct rai_wl *wl, int usage, struct rai_wl_page *pg,
    struct rai_project_list *pl, const char **def, struct rai_err *err)
{
	*def = NULL;
	pg->next = NULL;
	memset(pl, 0, sizeof(*pl));
	if (wl->ops->project_page == NULL)
		return whole_project_page(wl, usage, pg, pl, def, err);
	return wl->ops->project_page(wl, usage, pg, pl, def, err);
}

int
rai_wl_node_pools(struct rai_wl *wl, struct rai_wl_node_pools *np,
    struct rai_err *err)
{
	memset(np, 0, sizeof(*np));
	if (wl->ops->node_pools == NULL)
		return unsupported(wl, "listing node pools", err);
	return wl->ops->node_pools(wl, np, err);
}

int
rai_wl_pvcs(struct rai_wl *wl, struct rai_wl_pvcs *pv, struct rai_err *err)
{
	memset(pv, 0, sizeof(*pv));
	if (wl->ops->pvcs == NULL)
		return unsupported(wl, "listing claims", err);
	return wl->ops->pvcs(wl, pv, err);
}

static const char *const asset_nouns[] = {
	[RAI_WL_ENVIRONMENT] = "environments",
	[RAI_WL_COMPUTE] = "compute resources",
	[RAI_WL_DATASOURCE] = "data sources",
	[RAI_WL_CREDENTIAL] = "credentials",
	[RAI_WL_TEMPLATE] = "templates",
};

const char *
rai_wl_asset_noun(enum rai_wl_asset_kind kind)
{
	return asset_nouns[kind];
}

int
rai_wl_assets(struct rai_wl *wl, enum rai_wl_asset_kind kind,
    const struct rai_wl_asset_query *q, struct rai_wl_assets *as,
    struct rai_err *err)
{
	memset(as, 0, sizeof(*as));
	if (wl->ops->assets == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "listing %s is not "
		    "available %s", rai_wl_asset_noun(kind), wl->unsupported);
	return wl->ops->assets(wl, kind, q, as, err);
}

/* ---- records ---- */

void
rai_job_detail_field(struct rai_job_detail *d, const char *key,
    const char *fmt, ...)
{
	va_list ap;

	d->fields = xreallocarray(d->fields, d->nfields + 1,
	    sizeof(*d->fields));
	va_start(ap, fmt);
	d->fields[d->nfields].value = xvasprintf(fmt, ap);
	va_end(ap);
	d->fields[d->nfields].key = xstrdup(key);
	d->nfields++;
}

void
rai_job_detail_event(struct rai_job_detail *d, const char *kind,
    const char *name, const char *type, time_t at, const char *reason,
    const char *message)
{
	struct rai_wl_event *e;
	char *k, *p;

	d->events = xreallocarray(d->events, d->nevents + 1,
	    sizeof(*d->events));
	e = &d->events[d->nevents++];
	/* the SOURCE column names the kind in lower case: pod/train-1-0 */
	k = xstrdup(kind);
	for (p = k; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	e->source = xasprintf("%s/%s", k, name);
	free(k);
	e->type = xstrdup(type);
	e->at = at;
	e->reason = xstrdup(reason);
	e->message = xstrdup(message);
}

void
rai_job_detail_release(struct rai_job_detail *d)
{
	size_t i;

	rai_job_view_release(&d->v);
	for (i = 0; i < d->nfields; i++) {
		free(d->fields[i].key);
		free(d->fields[i].value);
	}
	for (i = 0; i < d->npods; i++) {
		free(d->pods[i].name);
		free(d->pods[i].status);
		free(d->pods[i].type);
		free(d->pods[i].node);
		free(d->pods[i].image);
	}
	for (i = 0; i < d->nconditions; i++) {
		free(d->conditions[i].type);
		free(d->conditions[i].status);
		free(d->conditions[i].reason);
		free(d->conditions[i].message);
	}
	for (i = 0; i < d->nevents; i++) {
		free(d->events[i].source);
		free(d->events[i].type);
		free(d->events[i].reason);
		free(d->events[i].message);
	}
	free(d->fields);
	free(d->pods);
	free(d->conditions);
	free(d->events);
	cJSON_Delete(d->doc);
	rai_job_why_release(&d->why);
	memset(d, 0, sizeof(*d));
}

void
rai_wl_clusters_release(struct rai_wl_clusters *cl)
{
	size_t i;

	for (i = 0; i < cl->n; i++) {
		free(cl->v[i].name);
		free(cl->v[i].project);
		free(cl->v[i].state);
		free(cl->v[i].version);
		free(cl->v[i].id);
	}
	free(cl->v);
	free(cl->where);
	memset(cl, 0, sizeof(*cl));
}

void
rai_wl_submit_release(struct rai_wl_submit *s)
{
	free(s->name);
	cJSON_Delete(s->request);
	s->name = NULL;
	s->request = NULL;
}

void
rai_wl_manifest_release(struct rai_wl_manifest *m)
{
	free(m->made);
	cJSON_Delete(m->request);
	free(m->request_path);
	m->made = m->request_path = NULL;
	m->request = NULL;
}

void
rai_wl_update_release(struct rai_wl_update *u)
{
	cJSON_Delete(u->request);
	free(u->request_path);
	u->request = NULL;
	u->request_path = NULL;
}

void
rai_wl_scale_release(struct rai_wl_scale *u)
{
	cJSON_Delete(u->request);
	free(u->request_path);
	u->request = NULL;
	u->request_path = NULL;
}

void
rai_wl_node_pools_release(struct rai_wl_node_pools *np)
{
	size_t i, j;

	for (i = 0; i < np->n; i++) {
		free(np->v[i].name);
		free(np->v[i].id);
		free(np->v[i].label_key);
		free(np->v[i].label_value);
		free(np->v[i].phase);
		for (j = 0; j < np->v[i].nnodes; j++)
			free(np->v[i].nodes[j]);
		free(np->v[i].nodes);
	}
	free(np->v);
	memset(np, 0, sizeof(*np));
}

const char *
rai_wl_node_pool_of(const struct rai_wl_node_pools *np, const char *node)
{
	size_t i, j;

	for (i = 0; i < np->n; i++)
		for (j = 0; j < np->v[i].nnodes; j++)
			if (strcmp(np->v[i].nodes[j], node) == 0)
				return np->v[i].name;
	return NULL;
}

void
rai_wl_pvcs_release(struct rai_wl_pvcs *pv)
{
	size_t i;

	for (i = 0; i < pv->n; i++) {
		free(pv->v[i].name);
		free(pv->v[i].status);
		free(pv->v[i].size);
		free(pv->v[i].access_modes);
		free(pv->v[i].storage_class);
		free(pv->v[i].created);
		free(pv->v[i].asset);
		free(pv->v[i].scope);
	}
	free(pv->v);
	memset(pv, 0, sizeof(*pv));
}

void
rai_wl_assets_release(struct rai_wl_assets *as)
{
	cJSON_Delete(as->rows);
	cJSON_Delete(as->docs);
	as->rows = as->docs = NULL;
}
