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
#include "core/time.h"
#include "runai.h"
#include "runai/job.h"

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
	{ "REASON", NULL, RAI_COL_WIDE },
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
		for (i = 0; i < 10; i++)
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
	rai_table_add(t, v->reason != NULL && *v->reason ? v->reason : "-");
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
	cJSON_AddStringToObject(o, "reason", v->reason != NULL ? v->reason :
	    "");
	cJSON_AddStringToObject(o, "reasonKind", rai_why_kind_name(
	    v->why_kind));
	if (v->queue_len > 0) {
		g = cJSON_AddObjectToObject(o, "queue");
		cJSON_AddNumberToObject(g, "position", v->queue_pos);
		cJSON_AddNumberToObject(g, "length", v->queue_len);
	}
	return o;
}

/*
 * Prints the views and releases each as soon as it is printed (or
 * copied into the table), so the list and its output are not both held
 * whole.
 */
static int
print_jobs(struct rai_ctx *ctx, struct rai_job_list *jl, enum rai_out_fmt fmt,
    const char *project)
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

/* One listing into *buf, as it would print. */
static int
render_jobs(struct rai_ctx *ctx, struct rai_job_list *jl,
    enum rai_out_fmt fmt, const char *project, char **buf, size_t *len)
{
	FILE *out = ctx->out, *mem;
	int rc;

	if ((mem = open_memstream(buf, len)) == NULL)
		return rai_err_errno(rai_ctx_err(ctx), errno, "open_memstream");
	ctx->out = mem;
	rc = print_jobs(ctx, jl, fmt, project);
	ctx->out = out;
	fclose(mem);
	return rc;
}

/*
 * The list, then again whenever the source says the jobs may have
 * changed (Kubernetes: a watch event; the control plane: a poll), when
 * it reads differently: over the old one on a terminal, after it
 * otherwise. Ends when the source ends its wait, on an error, or ^C.
 */
static int
watch_jobs(struct rai_ctx *ctx, int all, enum rai_out_fmt fmt,
    const char *project)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_job_list jl = { 0 };
	char *buf = NULL, *last = NULL;
	size_t len = 0;
	int rc;

	for (;;) {
		if ((rc = rai_wl_jobs(RUNAI_WL(ctx), all, &jl, err)) == 0)
			rc = render_jobs(ctx, &jl, fmt, project, &buf, &len);
		if (rc != 0 || buf == NULL)
			break;
		if (last == NULL || strcmp(last, buf) != 0) {
			if (last != NULL)
				fputs(ctx->out_tty ? "\033[H\033[2J" : "\n",
				    ctx->out);
			fwrite(buf, 1, len, ctx->out);
			fflush(ctx->out);
		}
		free(last);
		last = buf;
		buf = NULL;
		if (ferror(ctx->out))
			break;
		rc = rai_wl_jobs_wait(RUNAI_WL(ctx), all, &jl, err);
		rai_job_list_release(&jl);
		if (rc != 1)
			break;
	}
	rai_job_list_release(&jl);
	free(buf);
	free(last);
	return rc;
}

int
runai_list_jobs_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_list_jobs_opts *o = opts;
	struct rai_wl *wl = RUNAI_WL(ctx);
	struct rai_job_list jl = { 0 };
	enum rai_out_fmt fmt;
	const char *project = NULL;
	int rc;

	(void)argc;
	(void)argv;
	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	/* why each job waits: the wide table and the documents show it */
	wl->want_reasons = fmt == RAI_OUT_WIDE || fmt == RAI_OUT_JSON ||
	    fmt == RAI_OUT_YAML;
	if (!o->all) {
		if (rai_wl_resolve(wl, RUNAI_HINT_PROJECT_OR_ALL,
		    rai_ctx_err(ctx)) == -1)
			return -1;
		project = wl->project;
	}
	if (o->watch)
		return watch_jobs(ctx, o->all, fmt, project);
	if (rai_wl_jobs(wl, o->all, &jl, rai_ctx_err(ctx)) == -1)
		return -1;
	rc = print_jobs(ctx, &jl, fmt, project);
	rai_job_list_release(&jl);
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
	    "service URLs (a NodePort's node address and port, a load "
	    "balancer's address, or for an ingress job the nginx ingress "
	    "controller's address and the job's path). -o wide adds REASON: why the job waits or "
	    "stopped, in words and with the cluster's numbers (\"over quota "
	    "by 3 GPUs\", \"over fair share by 2 GPUs\", \"queued 2 of 3 "
	    "in team-a\", \"waiting for 1 of 3 pods\", \"no node has 4 free "
	    "GPUs (largest free: 3)\", \"2 of 2 nodes unschedulable\", "
	    "\"preempted by team-d at 10:02\", \"image pull failing: IMAGE\", "
	    "\"suspended\", \"exited 3: Error\"), and \"-\" when there is "
	    "nothing to say; runai describe job explains it further. A job is "
	    "a RunaiJob, Job, Deployment or "
	    "StatefulSet scheduled by the runai-scheduler. A name "
	    "reservation left without its workload shows as \"Invalid "
	    "job\". Jobs are sorted by project, then name.\n\n"
	    "-o json and -o yaml print a List whose items are these job "
	    "views (name, namespace, project, status, invalid, kind, uid, "
	    "type, user, node, image, gpus.allocated, gpus.requested, "
	    "gpus.requestedMemoryBytes, pods.running, pods.pending, "
	    "serviceUrls, createdByCli, creationTimestamp in Unix "
	    "seconds, reason, reasonKind - over-quota, fair-share, gang, "
	    "no-fit, nodes, preempted, image-pull, suspended, failed, "
	    "crashing, scheduler, waiting, or \"\" - and for a job waiting "
	    "in its project's queue queue.position and queue.length), not "
	    "the raw workloads; -o name prints job/<name>.\n\n"
	    "--watch prints the list again whenever a job or one of its "
	    "pods changes: it watches the RunaiJobs, the pods the "
	    "runai-scheduler places (those of every kind of job, a "
	    "distributed job's workers too) and the training operator's "
	    "PyTorchJobs, MPIJobs, TFJobs and XGBoostJobs, all at once. The "
	    "new list goes over the old one on a terminal, after it "
	    "otherwise (a list that reads as the last one is not printed "
	    "again), until the server ends a watch or Ctrl-C. A burst of "
	    "changes gives one new list, and lists come at most once a "
	    "second. In control-plane mode, whose API has no watch, the "
	    "list is asked for every two seconds.",
	.examples = list_jobs_examples,
	.opts = runai_list_jobs_opts,
	.opts_size = sizeof(struct runai_list_jobs_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = runai_list_jobs_run,
};
