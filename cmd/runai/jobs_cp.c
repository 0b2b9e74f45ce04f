/*
 * The researcher commands in backend (control-plane) mode: list
 * projects and jobs with the Kubernetes-mode tables, submit, describe
 * job, delete, suspend and resume. Each Kubernetes-mode command calls
 * in here when RUNAI_CP(ctx) is set; the API work is lib/runai/cp_work.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "core/text.h"
#include "core/time.h"
#include "runai.h"
#include "runai/cp.h"
#include "runai/cp_work.h"
#include "runai/job.h"
#include "runai/project.h"
#include "runai/submit.h"

#include "core/banned.h"

#define WATCH_POLL_MS	2000L	/* the API has no watch */

int
runai_cp_project_id(struct rai_ctx *ctx, const char *project, char **id)
{
	return cp_project_id(RUNAI_CP(ctx), project, id, rai_ctx_err(ctx));
}

int
runai_list_projects_cp(struct rai_ctx *ctx, const char *output)
{
	struct rai_project_list pl = { 0 };
	struct rai_err *err = rai_ctx_err(ctx);
	enum rai_out_fmt fmt;
	const char *def = NULL;
	int rc;

	if (runai_output_format(ctx, output, &fmt) == -1 ||
	    cp_projects(RUNAI_CP(ctx), &pl, err) == -1)
		return -1;
	if (runai_cp_project(ctx, &def, err) == -1) {
		rai_err_release(err);	/* no default is fine for a list */
		def = NULL;
	}
	rc = runai_print_projects(ctx, &pl, fmt, def);
	rai_project_list_release(&pl);
	return rc;
}

/* One listing into buf (the table or document as it would print). */
static int
render_jobs(struct rai_ctx *ctx, enum rai_out_fmt fmt, const char *project,
    char **buf, size_t *len)
{
	struct rai_job_list jl = { 0 };
	FILE *out = ctx->out, *mem;
	int rc;

	if (cp_jobs(RUNAI_CP(ctx), project, &jl, rai_ctx_err(ctx)) == -1)
		return -1;
	if ((mem = open_memstream(buf, len)) == NULL) {
		rai_job_list_release(&jl);
		return rai_err_errno(rai_ctx_err(ctx), errno, "open_memstream");
	}
	ctx->out = mem;
	rc = runai_print_jobs(ctx, &jl, fmt, project);
	ctx->out = out;
	fclose(mem);
	rai_job_list_release(&jl);
	return rc;
}

/*
 * The list, and with --watch the list again whenever it changes: the
 * API has no watch, so it is polled every WATCH_POLL_MS.
 */
int
runai_list_jobs_cp(struct rai_ctx *ctx, const char *output, int all,
    int watch)
{
	struct rai_err *err = rai_ctx_err(ctx);
	enum rai_out_fmt fmt;
	const char *project = NULL;
	char *buf = NULL, *last = NULL;
	size_t len = 0;
	int rc;

	if (runai_output_format(ctx, output, &fmt) == -1 ||
	    (!all && runai_cp_project(ctx, &project, err) == -1))
		return -1;
	for (;;) {
		if ((rc = render_jobs(ctx, fmt, project, &buf, &len)) == -1)
			break;
		if (last == NULL || strcmp(last, buf) != 0) {
			fwrite(buf, 1, len, ctx->out);
			fflush(ctx->out);
		}
		free(last);
		last = buf;
		buf = NULL;
		if (!watch || ferror(ctx->out))
			break;
		rai_sleep_ms(WATCH_POLL_MS);
	}
	free(buf);
	free(last);
	return rc;
}

/* ---- delete, suspend, resume ---- */

static const struct {
	const char	*name;
	enum cp_action	 action;
	const char	*done;		/* in the original CLI's words */
} actions[] = {
	{ "delete", CP_DELETE, "deleted" },
	{ "suspend", CP_SUSPEND, "suspended" },
	{ "resume", CP_RESUME, "resumed" },
};

/* 0 done, -1 failed (reported on stderr, as the other jobs still go). */
static int
act_on(struct rai_ctx *ctx, const char *project, const char *job,
    size_t a)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *wl = NULL;
	int rc = -1;

	if (cp_job_find(RUNAI_CP(ctx), project, job, &wl, &err) == 0 &&
	    cp_job_action(RUNAI_CP(ctx), wl, actions[a].action, &err) == 0) {
		fprintf(ctx->out, "Job %s %s successfully.\n", job,
		    actions[a].done);
		rc = 0;
	} else {
		if (err.kind != RAI_E_NOTFOUND)
			rai_err_prefix(&err, "Failed to %s job %s",
			    actions[a].name, job);
		fflush(ctx->out);
		rai_err_print(&err, stderr, ctx->prog->name);
	}
	cJSON_Delete(wl);
	rai_err_release(&err);
	return rc;
}

/* The jobs of project for -A, by name. */
static int
all_names(struct rai_ctx *ctx, const char *project, struct rai_strv *names)
{
	struct rai_job_list jl = { 0 };
	size_t i;

	if (cp_jobs(RUNAI_CP(ctx), project, &jl, rai_ctx_err(ctx)) == -1)
		return -1;
	for (i = 0; i < jl.n; i++)
		rai_strv_push(names, jl.v[i].name);
	rai_job_list_release(&jl);
	return 0;
}

int
runai_job_action_cp(struct rai_ctx *ctx, int all, int argc, char **argv,
    const char *action)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_strv names = { NULL, 0 };
	const char *project;
	size_t a, i;
	int failed = 0;

	for (a = 0; strcmp(actions[a].name, action) != 0; a++)
		;
	if (all && argc > 0)
		return rai_err_set(err, RAI_E_USAGE, "-A/--all cannot be used "
		    "with job names");
	if (!all && argc == 0)
		return rai_err_set(err, RAI_E_USAGE, "no job given: name one or "
		    "more jobs, or use -A/--all");
	if (runai_cp_project(ctx, &project, err) == -1)
		return -1;
	if (all && all_names(ctx, project, &names) == -1)
		return -1;
	for (i = 0; !all && i < (size_t)argc; i++)
		rai_strv_push(&names, argv[i]);
	for (i = 0; i < names.n; i++)
		if (act_on(ctx, project, names.v[i], a) == -1)
			failed = 1;
	rai_strv_release(&names);
	return failed;
}

/* ---- describe job ---- */

static const struct rai_col pod_cols[] = {
	{ "POD", NULL, 0 }, { "STATUS", NULL, 0 }, { "NODE", NULL, 0 },
	{ "IMAGE", NULL, 0 }, { NULL, NULL, 0 }
};

static void
print_pods(struct rai_ctx *ctx, const cJSON *pods)
{
	struct rai_table *t = rai_table_new(pod_cols, 0);
	const cJSON *p;

	cJSON_ArrayForEach(p, pods) {
		rai_table_add(t, rai_json_str_or(p, "name", ""));
		rai_table_add(t, rai_json_str_or(p, "k8sPhase", ""));
		rai_table_add(t, rai_json_str_or(p, "nodeName", "N/A"));
		rai_table_add(t, rai_json_str_or(cJSON_GetArrayItem(
		    rai_json_array(p, "containers"), 0), "image", ""));
		rai_table_end_row(t);
	}
	fprintf(ctx->out, "\nPods:\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

static void
print_detail(struct rai_ctx *ctx, const struct rai_job_view *v,
    const cJSON *wl, const cJSON *pods, const cJSON *events)
{
	FILE *o = ctx->out;

	rai_text_put(o, "NAME: ", v->name, "\n");
	rai_text_put(o, "ID: ", v->uid, "\n");
	rai_text_put(o, "PROJECT: ", v->project, "\n");
	rai_text_put(o, "NAMESPACE: ", v->namespace, "\n");
	rai_text_put(o, "TYPE: ", v->type, "\n");
	rai_text_put(o, "STATUS: ", v->status, "\n");
	rai_text_put(o, "PHASE: ", rai_json_str_or(wl, "phase", ""), "\n");
	rai_text_put(o, "IMAGE: ", v->image, "\n");
	rai_text_put(o, "USER: ", v->user, "\n");
	rai_text_put(o, "GPUs ALLOCATED (REQUESTED): ", v->gpus, "\n");
	fprintf(o, "RUNNING PODS: %d\n", v->pods_running);
	fprintf(o, "PENDING PODS: %d\n", v->pods_pending);
	rai_text_put(o, "CREATED: ", rai_json_str_or(wl, "createdAt", ""),
	    "\n");
	print_pods(ctx, pods);
	runai_print_events(ctx, events, time(NULL));
}

/*
 * -o json|yaml: the control plane's own objects as it gave them - the
 * workload in detail, as submitted, its pods and events (taken over).
 */
static int
print_objects(struct rai_ctx *ctx, enum rai_out_fmt fmt, const cJSON *wl,
    cJSON **pods, cJSON **events)
{
	struct rai_err *err = rai_ctx_err(ctx);
	cJSON *detailed = NULL, *submitted = NULL, *doc;
	int rc;

	if (cp_job_detail(RUNAI_CP(ctx), wl, &detailed, &submitted,
	    err) == -1)
		return -1;
	doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "workload", detailed);
	cJSON_AddItemToObject(doc, "submitted", submitted != NULL ? submitted :
	    cJSON_CreateNull());
	cJSON_AddItemToObject(doc, "pods", *pods);
	cJSON_AddItemToObject(doc, "events", *events);
	*pods = *events = NULL;
	rc = rai_out_doc(ctx->out, fmt, doc, err);
	cJSON_Delete(doc);
	return rc;
}

int
runai_describe_job_cp(struct rai_ctx *ctx, const char *job,
    const char *output)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_job_view v;
	enum rai_out_fmt fmt;
	cJSON *wl = NULL, *pods = NULL, *events = NULL;
	const char *project;
	int rc = -1;

	memset(&v, 0, sizeof(v));
	if (runai_output_format(ctx, output, &fmt) == -1 ||
	    runai_cp_project(ctx, &project, err) == -1 ||
	    cp_job_find(RUNAI_CP(ctx), project, job, &wl, err) == -1 ||
	    cp_job_list_of(RUNAI_CP(ctx), wl, "pods", &pods, err) == -1 ||
	    cp_job_list_of(RUNAI_CP(ctx), wl, "events", &events, err) == -1)
		goto out;
	cp_job_view(wl, &v);
	rc = 0;
	if (fmt == RAI_OUT_NAME)
		rai_text_put(ctx->out, "job/", v.name, "\n");
	else if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML)
		rc = print_objects(ctx, fmt, wl, &pods, &events);
	else
		print_detail(ctx, &v, wl, pods, events);
out:
	rai_job_view_release(&v);
	cJSON_Delete(wl);
	cJSON_Delete(pods);
	cJSON_Delete(events);
	return rc;
}

/* ---- submit ---- */

/* The policy's verdict, one line per field, after the error itself. */
static void
print_violations(const struct rai_err *err)
{
	size_t i;
	char *f, *m;

	for (i = 0; i < err->ncauses; i++) {
		f = rai_text_sanitize(err->causes[i].field);
		m = rai_text_sanitize(err->causes[i].message);
		fprintf(stderr, "  %s: %s\n", f, m);
		free(f);
		free(m);
	}
}

/* Whether an environment variable's name says its value is a secret. */
static int
secret_name(const char *name)
{
	static const char *const words[] = { "PASSWORD", "PASSWD", "SECRET",
	    "TOKEN", "CREDENTIAL", "KEY", NULL };
	char *up = xstrdup(name), *p;
	size_t i;
	int hit = 0;

	for (p = up; *p != '\0'; p++)
		*p = (char)toupper((unsigned char)*p);
	for (i = 0; words[i] != NULL && !hit; i++)
		hit = strstr(up, words[i]) != NULL;
	free(up);
	return hit;
}

/*
 * --dry-run: the request as it would be POSTed, in YAML (or JSON with
 * -o json), the values of variables named like secrets redacted.
 */
static int
print_request(struct rai_ctx *ctx, const struct rai_submit_spec *spec,
    const struct rai_dist_spec *dist, cJSON *body, int json)
{
	cJSON *sp = cJSON_GetObjectItemCaseSensitive(body, "spec"), *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sp,
	    "environmentVariables"))
		if (secret_name(rai_json_str_or(e, "name", "")))
			rai_json_set_str(e, "value", "<redacted>");
	if (!json)
		fprintf(ctx->out, "# POST %s\n", cp_submit_path(spec, dist));
	return rai_out_doc(ctx->out, json ? RAI_OUT_JSON : RAI_OUT_YAML, body,
	    rai_ctx_err(ctx));
}

int
runai_submit_cp(struct rai_ctx *ctx, struct rai_submit_spec *spec,
    const struct rai_dist_spec *dist, const char *prefix, const char *tmpl,
    int dry_run, int json, char **name)
{
	/* what these flags do lies beyond the spec: refused, not lost */
	static const char *const local_only[] = { "jupyter", "user", NULL };
	struct rai_err *err = rai_ctx_err(ctx);
	const char *project;
	cJSON *out = NULL;
	size_t i;
	int rc;

	*name = NULL;
	for (i = 0; local_only[i] != NULL; i++)
		if (rai_opt_given(ctx, local_only[i]))
			return rai_err_set(err, RAI_E_USAGE, "--%s is not "
			    "supported in control-plane mode yet", local_only[i]);
	if (runai_cp_project(ctx, &project, err) == -1)
		return -1;
	spec->project = project;
	if (cp_submit(RUNAI_CP(ctx), spec, dist, prefix, tmpl, dry_run, &out,
	    err) == -1) {
		if (err->ncauses > 0) {
			rai_err_print(err, stderr, ctx->prog->name);
			print_violations(err);
			return 1;
		}
		return -1;
	}
	if (dry_run) {
		rc = print_request(ctx, spec, dist, out, json);
		cJSON_Delete(out);
		return rc;
	}
	*name = xstrdup(rai_json_str_or(out, "name", ""));
	cJSON_Delete(out);
	rai_text_put(ctx->out, "The job '", *name, "' has been submitted "
	    "successfully\n");
	fprintf(ctx->out, "You can run `runai describe job %s -p %s` to check "
	    "the job status\n", *name, project);
	return 0;
}
