/*
 * runai list jobs: the Run:ai workloads of a project (or of all with -A)
 * with status, GPUs and pods as the reference CLI shows them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
#include "runai.h"
#include "runai/dist.h"
#include "runai/job.h"
#include "runai/project.h"

#include "core/banned.h"

const struct rai_opt runai_list_jobs_opts[] = {
	RUNAI_OPT_OUTPUT(struct runai_list_jobs_opts, output),
	{ .short_name = 'A', .long_name = "all-projects", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_list_jobs_opts, all),
	  .help = "list the jobs of every project" },
	{ .short_name = 'w', .long_name = "watch", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_list_jobs_opts, watch),
	  .help = "print the list again whenever a job changes" },
	RAI_OPT_END
};

static const struct rai_col job_cols[] = {
	{ "NAME", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "NODE", NULL, 0 },
	{ "IMAGE", NULL, 0 },
	{ "TYPE", NULL, 0 },
	{ "PROJECT", NULL, 0 },
	{ "USER", NULL, 0 },
	{ "GPUs Allocated (Requested)", NULL, 0 },
	{ "PODs Running (Pending)", NULL, 0 },
	{ "SERVICE URL(S)", NULL, 0 },
	{ NULL, NULL, 0 }
};

static void
add_job_row(struct rai_table *t, const struct rai_job_view *v, time_t now)
{
	char age[16];
	int i;

	rai_table_add(t, v->name);
	rai_table_add(t, v->status);
	if (v->invalid) {
		for (i = 0; i < 9; i++)
			rai_table_add(t, "");
		rai_table_end_row(t);
		return;
	}
	rai_table_add(t, rai_out_age(v->created, now, age));
	rai_table_add(t, v->node);
	rai_table_add(t, v->image);
	rai_table_add(t, v->type);
	rai_table_add(t, v->project);
	rai_table_add(t, v->user);
	rai_table_add(t, v->gpus);
	rai_table_addf(t, "%d (%d)", v->pods_running, v->pods_pending);
	rai_table_add(t, v->service_urls);
	rai_table_end_row(t);
}

/* The documented -o json|yaml schema: one object per job view. */
static cJSON *
job_json(const struct rai_job_view *v)
{
	cJSON *o = cJSON_CreateObject(), *g;

	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "namespace", v->namespace);
	cJSON_AddStringToObject(o, "project", v->project);
	cJSON_AddStringToObject(o, "status", v->status);
	cJSON_AddBoolToObject(o, "invalid", v->invalid);
	if (v->invalid)
		return o;
	cJSON_AddStringToObject(o, "kind", v->kind);
	cJSON_AddStringToObject(o, "uid", v->uid);
	cJSON_AddStringToObject(o, "type", v->type);
	cJSON_AddStringToObject(o, "user", v->user);
	cJSON_AddStringToObject(o, "node", v->node);
	cJSON_AddStringToObject(o, "image", v->image);
	g = cJSON_AddObjectToObject(o, "gpus");
	cJSON_AddNumberToObject(g, "allocated", v->gpus_allocated);
	cJSON_AddNumberToObject(g, "requested", v->gpus_requested);
	cJSON_AddNumberToObject(g, "requestedMemoryBytes",
	    v->gpu_mem_requested);
	g = cJSON_AddObjectToObject(o, "pods");
	cJSON_AddNumberToObject(g, "running", v->pods_running);
	cJSON_AddNumberToObject(g, "pending", v->pods_pending);
	cJSON_AddStringToObject(o, "serviceUrls", v->service_urls);
	cJSON_AddBoolToObject(o, "createdByCli", v->created_by_cli);
	cJSON_AddNumberToObject(o, "creationTimestamp", (double)v->created);
	return o;
}

/*
 * Prints the views and releases each as soon as it is printed (or
 * copied into the table), so the list and its output are not both held
 * whole.
 */
int
runai_print_jobs(struct rai_ctx *ctx, struct rai_job_list *jl,
    enum rai_out_fmt fmt, const char *project)
{
	struct rai_table *t;
	cJSON *list, *items;
	time_t now = time(NULL);
	size_t i;
	int rc;

	if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		list = cJSON_CreateObject();
		cJSON_AddStringToObject(list, "kind", "List");
		items = cJSON_AddArrayToObject(list, "items");
		for (i = 0; i < jl->n; i++) {
			cJSON_AddItemToArray(items, job_json(&jl->v[i]));
			rai_job_view_release(&jl->v[i]);
		}
		rc = rai_out_doc(ctx->out, fmt, list, rai_ctx_err(ctx));
		cJSON_Delete(list);
		return rc;
	}
	if (fmt == RAI_OUT_NAME) {
		for (i = 0; i < jl->n; i++)
			fprintf(ctx->out, "job/%s\n", jl->v[i].name);
		return 0;
	}
	if (project != NULL)
		fprintf(ctx->out, "Showing jobs for project %s\n", project);
	t = rai_table_new(job_cols, fmt == RAI_OUT_WIDE);
	for (i = 0; i < jl->n; i++) {
		add_job_row(t, &jl->v[i], now);
		rai_job_view_release(&jl->v[i]);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	return 0;
}

/* One list, printed; *rv (if not NULL) gets where a watch starts. */
static int
list_once(struct rai_ctx *ctx, const char *ns, enum rai_out_fmt fmt,
    const char *project, char **rv)
{
	struct rai_job_fetch_opts fo = { NULL, 1, project };
	struct rai_job_list jl = { 0 };
	int rc;

	if (rai_jobs_fetch(RUNAI_CLIENT(ctx), ns, &fo, &jl,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	rc = runai_print_jobs(ctx, &jl, fmt, project);
	if (rv != NULL) {
		free(*rv);
		*rv = jl.resource_version;
		jl.resource_version = NULL;
	}
	rai_job_list_release(&jl);
	fflush(ctx->out);
	return rc;
}

/* Redraws at most this often, however fast the events come. */
#define REDRAW_MIN_MS	1000

struct watch_state {
	char	*rv;		/* where the next watches start */
	int	 changed;	/* a job or one of its pods changed */
};

/*
 * A job changed: stop (the stream is of no more use: the list that
 * follows shows the change and the watches start again after it). A
 * bookmark only moves where the watches resume.
 */
static int
on_event(void *ud, const char *type, const cJSON *obj)
{
	struct watch_state *ws = ud;
	const char *v = rai_json_str(obj, "metadata.resourceVersion");

	if (strcmp(type, "BOOKMARK") != 0) {
		ws->changed = 1;
		return 1;
	}
	if (v != NULL) {
		free(ws->rv);
		ws->rv = xstrdup(v);
	}
	return 0;
}

/* A pod counts when it is a job's: the runai-scheduler places it. */
static int
on_pod_event(void *ud, const char *type, const cJSON *obj)
{
	if (strcmp(type, "BOOKMARK") != 0 && strcmp(rai_json_str_or(obj,
	    "spec.schedulerName", ""), "runai-scheduler") != 0)
		return 0;
	return on_event(ud, type, obj);
}

/*
 * What --watch follows, each from the list's resourceVersion: the
 * RunaiJobs (whose scheduler annotations follow their pods), the pods
 * themselves (every kind's, distributed jobs' workers too) and the
 * training operator's kinds.
 */
#define NWATCH	(2 + RAI_DIST_NKINDS)

static int
start_watches(struct rai_ctx *ctx, const char *ns, struct watch_state *ws,
    struct kube_watch **w, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const struct kube_res *res;
	char *from = xstrdup(ws->rv);
	int i, rc = 0;

	lo.resource_version = from;
	for (i = 0; i < NWATCH && rc == 0; i++) {
		res = i == 0 ? &KUBE_RES_RUNAIJOBS : i == 1 ? &KUBE_RES_PODS :
		    rai_dist_framework((enum rai_dist_kind)(i - 2))->res;
		rc = kube_watch_start(RUNAI_CLIENT(ctx), res, ns, &lo, 0,
		    i == 1 ? on_pod_event : on_event, ws, &w[i], err);
	}
	free(from);
	return rc;
}

static void
stop_watches(struct kube_watch **w)
{
	int i;

	for (i = 0; i < NWATCH; i++) {
		kube_watch_free(w[i]);
		w[i] = NULL;
	}
}

/* Whether a watch besides number i is still open. */
static int
others(struct kube_watch *const *w, int i)
{
	int j;

	for (j = 0; j < NWATCH; j++)
		if (j != i && w[j] != NULL)
			return 1;
	return 0;
}

/*
 * Waits for a change: 1 when one came, 0 when the server ended a watch
 * without one, -1 on errors. A kind the cluster does not serve, or that
 * we may not watch (pods of every namespace, say), is left out; with
 * nothing left to watch, that is the error.
 */
static int
wait_change(struct kube_watch **w, struct watch_state *ws,
    struct rai_err *err)
{
	int i, r;

	for (;;) {
		if (kube_watches_wait(w, NWATCH, 1000, err) == -1)
			return -1;
		for (i = 0; i < NWATCH; i++) {
			if (w[i] == NULL ||
			    (r = kube_watch_result(w[i], err)) == 1)
				continue;
			if (ws->changed)
				return 1;
			if (r == 0)
				return 0;
			if (err->kind != RAI_E_HTTP ||
			    (err->http_status != 404 &&
			    err->http_status != 403) || !others(w, i))
				return -1;
			rai_log(RAI_LOG_NOTE, "not watching %s: %s", i == 0 ?
			    "RunaiJobs" : i == 1 ? "pods" : "a training kind",
			    err->message != NULL ? err->message : "refused");
			rai_err_release(err);
			kube_watch_free(w[i]);
			w[i] = NULL;
		}
		if (ws->changed)
			return 1;
	}
}

/*
 * Redraws after changes until the server ends a watch (or ^C). A burst
 * of events costs one list, not one each: the watches stop at the first
 * change, the list then shows every change made so far, and the next
 * watches start at the list's resourceVersion, so the rest of the burst
 * is not replayed; lists are also at least REDRAW_MIN_MS apart.
 */
static int
watch_jobs(struct rai_ctx *ctx, const char *ns, char **rv,
    enum rai_out_fmt fmt, const char *project)
{
	struct kube_watch *w[NWATCH] = { 0 };
	struct watch_state ws = { *rv, 0 };
	long drawn = rai_now_ms();
	int rc = -1;

	*rv = NULL;
	for (;;) {
		ws.changed = 0;
		if (start_watches(ctx, ns, &ws, w, rai_ctx_err(ctx)) == -1)
			break;
		rc = wait_change(w, &ws, rai_ctx_err(ctx));
		stop_watches(w);
		if (rc != 1)
			break;	/* an error, or the server ended a watch */
		rai_sleep_ms(REDRAW_MIN_MS - (rai_now_ms() - drawn));
		if (ctx->out_tty)
			fputs("\033[H\033[2J", ctx->out);
		else
			fputc('\n', ctx->out);
		if ((rc = list_once(ctx, ns, fmt, project, &ws.rv)) == -1)
			break;
		drawn = rai_now_ms();
		if (ws.rv == NULL) {
			rc = rai_err_set(rai_ctx_err(ctx), RAI_E_PROTO,
			    "the RunaiJob list has no resourceVersion to "
			    "watch from");
			break;
		}
	}
	stop_watches(w);
	free(ws.rv);
	return rc;
}

/* Where a watch starts when the list gave none (run.ai not served). */
static char *
current_rv(struct rai_ctx *ctx, const char *ns)
{
	struct kube_list_opts lo = { 0 };
	cJSON *l = NULL;
	char *rv;

	lo.limit = 1;
	lo.single_page = 1;
	if (kube_list(RUNAI_CLIENT(ctx), &KUBE_RES_RUNAIJOBS, ns, &lo, &l,
	    rai_ctx_err(ctx)) == -1)
		return NULL;
	rv = xstrdup(rai_json_str_or(l, "metadata.resourceVersion", ""));
	cJSON_Delete(l);
	return rv;
}

int
runai_list_jobs_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_list_jobs_opts *o = opts;
	enum rai_out_fmt fmt;
	char *project = NULL, *ns = NULL, *rv = NULL;
	int rc = -1;

	(void)argc;
	(void)argv;
	if (RUNAI_CP(ctx) != NULL)
		return runai_list_jobs_cp(ctx, o->output, o->all, o->watch);
	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	if (!o->all && runai_resolve_project(ctx, RUNAI_HINT_PROJECT_OR_ALL,
	    &project, &ns, rai_ctx_err(ctx)) == -1)
		goto out;
	rc = list_once(ctx, ns, fmt, project, o->watch ? &rv : NULL);
	if (rc == 0 && o->watch && rv == NULL &&
	    (rv = current_rv(ctx, ns)) == NULL)
		rc = -1;
	if (rc == 0 && o->watch)
		rc = watch_jobs(ctx, ns, &rv, fmt, project);
out:
	free(rv);
	free(project);
	free(ns);
	return rc;
}

static const struct rai_example list_jobs_examples[] = {
	{ "runai list jobs", "the jobs of the current project" },
	{ "runai list -A", "the jobs of every project" },
	{ "runai list jobs -p team-a -o json", "for scripts" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_list_jobs = {
	.name = "jobs",
	.aliases = (const char *const[]){ "job", NULL },
	.summary = "list the jobs of a project",
	.synopsis = "[-A] [-w] [-o wide|json|yaml|name]",
	.description = "Shows each job of the project (or, with -A, of every "
	    "project): its status, age, node, image, type, project, user, "
	    "GPUs allocated and requested, running and pending pods and "
	    "service URLs. A job is a RunaiJob, Job, Deployment or "
	    "StatefulSet scheduled by the runai-scheduler. A name "
	    "reservation left without its workload shows as \"Invalid "
	    "job\". Jobs are sorted by project, then name.\n\n"
	    "-o json and -o yaml print a List whose items are these job "
	    "views (name, namespace, project, status, invalid, kind, uid, "
	    "type, user, node, image, gpus.allocated, gpus.requested, "
	    "gpus.requestedMemoryBytes, pods.running, pods.pending, "
	    "serviceUrls, createdByCli, creationTimestamp in Unix "
	    "seconds), not the raw workloads; -o name prints job/<name>.\n\n"
	    "--watch prints the list again whenever a job or one of its "
	    "pods changes: it watches the RunaiJobs, the pods the "
	    "runai-scheduler places (those of every kind of job, a "
	    "distributed job's workers too) and the training operator's "
	    "PyTorchJobs, MPIJobs, TFJobs and XGBoostJobs, all at once. The "
	    "new list goes over the old one on a terminal, after it "
	    "otherwise, until the server ends a watch or Ctrl-C. A burst of "
	    "changes gives one new list, and lists come at most once a "
	    "second.",
	.examples = list_jobs_examples,
	.opts = runai_list_jobs_opts,
	.opts_size = sizeof(struct runai_list_jobs_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = runai_list_jobs_run,
};
