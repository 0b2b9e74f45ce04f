/*
 * runai describe job NAME: the reference's key/value view of one job
 * (NAME:, STATUS:, ... COMMAND LINE:), its pods and the events about
 * the job and its pods.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/dist.h"
#include "runai/job.h"
#include "runai/job_pod.h"
#include "runai/project.h"

#include "core/banned.h"

struct describe_job_opts {
	const char	*output;
	int		 events;	/* the old -e: events are always shown */
};

static const struct rai_opt describe_job_opts[] = {
	RUNAI_OPT_OUTPUT(struct describe_job_opts, output),
	{ .short_name = 'e', .long_name = "events", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct describe_job_opts, events),
	  .help = "show the job's events",
	  .deprecated = "events are always shown" },
	RAI_OPT_END
};

static const struct rai_col pod_cols[] = {
	{ "POD", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "TYPE", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "NODE", NULL, 0 },
	{ NULL, NULL, 0 }
};

static const struct rai_col event_cols[] = {
	{ "SOURCE", NULL, 0 },
	{ "TYPE", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "MESSAGE", NULL, 0 },
	{ NULL, NULL, 0 }
};

/* What describe shows beyond the list view. */
struct job_detail {
	struct rai_job_view	 v;
	cJSON			*pods;		/* array of the job's pods */
	cJSON			*events;	/* array, sorted by time */
	cJSON			*wl;		/* the workload object */
};

static const struct rai_col condition_cols[] = {
	{ "TYPE", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "REASON", NULL, 0 },
	{ "MESSAGE", NULL, 0 },
	{ NULL, NULL, 0 }
};

static const struct kube_res *
res_of(const char *kind)
{
	if (rai_dist_by_kind(kind) != NULL)
		return rai_dist_by_kind(kind)->res;
	if (strcmp(kind, "Job") == 0)
		return &KUBE_RES_JOBS;
	if (strcmp(kind, "Deployment") == 0)
		return &KUBE_RES_DEPLOYMENTS;
	if (strcmp(kind, "StatefulSet") == 0)
		return &KUBE_RES_STATEFULSETS;
	return &KUBE_RES_RUNAIJOBS;
}

static int
event_about(const cJSON *ev, const struct job_detail *d)
{
	const char *uid = rai_json_str_or(ev, "involvedObject.uid", "");
	const char *name = rai_json_str_or(ev, "involvedObject.name", "");
	const cJSON *p;
	const char *pg;

	if (strcmp(uid, d->v.uid) == 0)
		return 1;
	cJSON_ArrayForEach(p, d->pods) {
		pg = rai_json_annotation(p, "pod-group-name");
		if (strcmp(uid, rai_json_str_or(p, "metadata.uid", "")) == 0 ||
		    (pg != NULL && strcmp(name, pg) == 0))
			return 1;
	}
	return 0;
}

static const char *
event_time(const cJSON *ev)
{
	const char *t = rai_json_str(ev, "lastTimestamp");

	if (t == NULL)
		t = rai_json_str(ev, "eventTime");
	if (t == NULL)	/* the control plane's events (backend mode) */
		t = rai_json_str(ev, "createdAt");
	return t ? t : rai_json_str_or(ev, "metadata.creationTimestamp", "");
}

static int
event_cmp(const void *a, const void *b)
{
	return strcmp(event_time(*(cJSON *const *)a),
	    event_time(*(cJSON *const *)b));
}

static int
fetch_events(struct kube_client *c, const char *ns, struct job_detail *d,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL, *items, *e, **v = NULL;
	size_t n = 0, i;

	if (kube_list(c, &KUBE_RES_EVENTS, ns, &lo, &list, err) == -1)
		return -1;
	items = cJSON_GetObjectItemCaseSensitive(list, "items");
	v = xcalloc((size_t)cJSON_GetArraySize(items) + 1, sizeof(*v));
	while ((e = cJSON_DetachItemFromArray(items, 0)) != NULL) {
		if (event_about(e, d))
			v[n++] = e;
		else
			cJSON_Delete(e);
	}
	qsort(v, n, sizeof(*v), event_cmp);
	d->events = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(d->events, v[i]);
	free(v);
	cJSON_Delete(list);
	return 0;
}

static void
detail_release(struct job_detail *d)
{
	rai_job_view_release(&d->v);
	cJSON_Delete(d->pods);
	cJSON_Delete(d->events);
	cJSON_Delete(d->wl);
}

static void
upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

static const char *
pod_status(const cJSON *p)
{
	const char *s = rai_json_annotation(p, "runai-calculated-status");

	return s ? s : rai_json_str_or(p, "status.phase", "Unknown");
}

static void
print_pods(struct rai_ctx *ctx, const struct job_detail *d, time_t now)
{
	struct rai_table *t = rai_table_new(pod_cols, 0);
	const cJSON *p;
	const char *node, *ip;
	char st[64], type[64], age[16];

	cJSON_ArrayForEach(p, d->pods) {
		snprintf(st, sizeof(st), "%s", pod_status(p));
		upper(st);
		/* a distributed job's pods differ by their role */
		snprintf(type, sizeof(type), "%s", rai_dist_pod_role(p) ?
		    rai_dist_pod_role(p) : d->v.type);
		upper(type);
		node = rai_json_str_or(p, "spec.nodeName", "");
		ip = rai_json_str_or(p, "status.hostIP", "");
		rai_table_add(t, rai_json_str_or(p, "metadata.name", ""));
		rai_table_add(t, st);
		rai_table_add(t, type);
		rai_table_add(t, rai_out_age(rai_parse_rfc3339(rai_json_str_or(
		    p, "metadata.creationTimestamp", "")), now, age));
		if (*node && *ip)
			rai_table_addf(t, "%s/%s", node, ip);
		else
			rai_table_add(t, *ip ? ip : *node ? node : "N/A");
		rai_table_end_row(t);
	}
	fprintf(ctx->out, "\nPods:\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

void
runai_print_events(struct rai_ctx *ctx, const cJSON *events, time_t now)
{
	struct rai_table *t;
	const cJSON *e;
	char kind[64], age[16];

	fprintf(ctx->out, "\nEvents:\n");
	if (cJSON_GetArraySize(events) == 0) {
		fprintf(ctx->out, "No events for resources\n");
		return;
	}
	t = rai_table_new(event_cols, 0);
	rai_table_add(t, "--------");
	rai_table_add(t, "----");
	rai_table_add(t, "---");
	rai_table_add(t, "-------");
	rai_table_end_row(t);
	cJSON_ArrayForEach(e, events) {
		size_t i;

		snprintf(kind, sizeof(kind), "%s", rai_json_str_or(e,
		    "involvedObject.kind", ""));
		for (i = 0; kind[i]; i++)
			if (kind[i] >= 'A' && kind[i] <= 'Z')
				kind[i] = (char)(kind[i] - 'A' + 'a');
		rai_table_addf(t, "%s/%s", kind, rai_json_str_or(e,
		    "involvedObject.name", ""));
		rai_table_add(t, rai_json_str_or(e, "type", ""));
		rai_table_add(t, rai_out_age(rai_parse_rfc3339(event_time(e)),
		    now, age));
		rai_table_addf(t, "[%s] %s", rai_json_str_or(e, "reason", ""),
		    rai_json_str_or(e, "message", ""));
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

/* The training operator's conditions on a distributed job, in order. */
static void
print_conditions(struct rai_ctx *ctx, const struct job_detail *d, time_t now)
{
	struct rai_table *t;
	const cJSON *c;
	char age[16];

	if (rai_dist_by_kind(d->v.kind) == NULL)
		return;
	fprintf(ctx->out, "\nConditions:\n");
	t = rai_table_new(condition_cols, 0);
	cJSON_ArrayForEach(c, rai_json_array(d->wl, "status.conditions")) {
		rai_table_add(t, rai_json_str_or(c, "type", ""));
		rai_table_add(t, rai_json_str_or(c, "status", ""));
		rai_table_add(t, rai_out_age(rai_parse_rfc3339(rai_json_str_or(
		    c, "lastTransitionTime", "")), now, age));
		rai_table_add(t, rai_json_str_or(c, "reason", ""));
		rai_table_add(t, rai_json_str_or(c, "message", ""));
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

/* A distributed job's pods: the replicas of every replica type. */
static double
dist_replicas(const struct job_detail *d)
{
	const struct rai_dist_framework *fw = rai_dist_by_kind(d->v.kind);
	const cJSON *r;
	double n = 0;

	cJSON_ArrayForEach(r, rai_json_get(rai_json_get(d->wl, "spec"),
	    fw->specs_key))
		n += rai_json_num(r, "replicas", 1);
	return n;
}

static double
ann_num(const cJSON *obj, const char *key, double def)
{
	const char *s = rai_json_annotation(obj, key);
	char *end;
	double v;

	if (s == NULL)
		return def;
	v = strtod(s, &end);
	return end == s ? def : v;
}

static int
count_phase(const cJSON *pods, const char *phase)
{
	const cJSON *p;
	int n = 0;

	cJSON_ArrayForEach(p, pods)
		n += strcmp(rai_json_str_or(p, "status.phase", ""), phase) == 0;
	return n;
}

/* PodInitialized of the earliest pod to its Ready change when finished. */
static long
training_seconds(const struct job_detail *d, time_t now)
{
	const cJSON *p, *c;
	time_t start = 0, end = now, t;

	cJSON_ArrayForEach(p, d->pods) {
		cJSON_ArrayForEach(c, rai_json_array(p, "status.conditions")) {
			t = rai_parse_rfc3339(rai_json_str_or(c,
			    "lastTransitionTime", ""));
			if (t == (time_t)-1)
				continue;
			if (strcmp(rai_json_str_or(c, "type", ""),
			    "Initialized") == 0 && (start == 0 || t < start))
				start = t;
			if (d->v.finished && strcmp(rai_json_str_or(c, "type",
			    ""), "Ready") == 0)
				end = t;
		}
	}
	return start == 0 || end < start ? 0 : (long)(end - start);
}

static void
print_wide(struct rai_ctx *ctx, const struct job_detail *d)
{
	const struct rai_job_view *v = &d->v;
	FILE *o = ctx->out;
	time_t now = time(NULL);
	int dist = rai_dist_by_kind(v->kind) != NULL;
	double par = dist ? dist_replicas(d) : rai_json_num(d->wl,
	    "spec.parallelism", 1);
	double comp = dist ? par : rai_json_num(d->wl, "spec.completions", 1);
	double mem = ann_num(d->wl, "runai-current-allocated-gpus-memory", 0);
	char dur[32], q[32];

	rai_fmt_go_duration(training_seconds(d, now), dur, sizeof(dur));
	/* annotations and status are anyone's who may edit a job here */
	rai_text_put(o, "NAME: ", v->name, "\n");
	rai_text_put(o, "NAMESPACE: ", v->namespace, "\n");
	rai_text_put(o, "TYPE: ", v->type, "\n");
	rai_text_put(o, "STATUS: ", v->status, "\n");
	fprintf(o, "TRAINING DURATION: %s\n", dur);
	fprintf(o, "GPUS: %g\n", v->gpus_requested);
	fprintf(o, "TOTAL REQUESTED GPUS: %g\n", ann_num(d->wl,
	    "runai-total-requested-gpus", v->gpus_requested * comp));
	fprintf(o, "ALLOCATED GPUS: %g\n", v->gpus_allocated);
	snprintf(q, sizeof(q), "%gM", mem);
	fprintf(o, "ALLOCATED GPUS MEMORY: %s\n", mem > 0 ? q : "0");
	fprintf(o, "RUNNING PODS: %d\n", v->pods_running);
	fprintf(o, "PENDING PODS: %d\n", v->pods_pending);
	fprintf(o, "PARALLELISM: %g\n", par);
	fprintf(o, "COMPLETIONS: %g\n", comp);
	fprintf(o, "SUCCEEDED PODS: %d\n", count_phase(d->pods, "Succeeded"));
	fprintf(o, "FAILED PODS: %d\n", count_phase(d->pods, "Failed"));
	fprintf(o, "IS DISTRIBUTED WORKLOAD: %s\n", par > 1 ? "true" :
	    "false");
	fprintf(o, "CREATED BY CLI: %s\n", v->created_by_cli ? "true" :
	    "false");
	rai_text_put(o, "SERVICE URL(S): ", v->service_urls, "\n");
	rai_text_put(o, "COMMAND LINE: ", *v->command_line ? v->command_line :
	    "N/A", "\n");
	print_pods(ctx, d, now);
	print_conditions(ctx, d, now);
	runai_print_events(ctx, d->events, now);
}

/* The reference's -o json|yaml structure (pkg/types/training.go). */
static cJSON *
detail_json(const struct job_detail *d)
{
	cJSON *o = cJSON_CreateObject(), *inst, *i;
	const cJSON *p, *chief = rai_job_chief(d->pods);
	const char *chief_t = chief ? rai_json_str_or(chief,
	    "metadata.creationTimestamp", "") : "";
	char st[64], age[16];
	time_t now = time(NULL);

	cJSON_AddStringToObject(o, "name", d->v.name);
	cJSON_AddStringToObject(o, "namespace", d->v.namespace);
	cJSON_AddStringToObject(o, "duration", "");
	cJSON_AddStringToObject(o, "status", d->v.status);
	cJSON_AddStringToObject(o, "trainer", d->v.type);
	cJSON_AddStringToObject(o, "chiefName", chief ? rai_json_str_or(chief,
	    "metadata.name", "") : "");
	inst = cJSON_AddArrayToObject(o, "instances");
	cJSON_ArrayForEach(p, d->pods) {
		i = cJSON_CreateObject();
		snprintf(st, sizeof(st), "%s", pod_status(p));
		upper(st);
		cJSON_AddStringToObject(i, "status", st);
		cJSON_AddStringToObject(i, "name", rai_json_str_or(p,
		    "metadata.name", ""));
		cJSON_AddStringToObject(i, "age", rai_out_age(
		    rai_parse_rfc3339(chief_t), now, age));
		cJSON_AddStringToObject(i, "node", rai_json_str_or(p,
		    "status.hostIP", ""));
		cJSON_AddBoolToObject(i, "chief", p == chief);
		cJSON_AddItemToArray(inst, i);
	}
	cJSON_AddStringToObject(o, "priority", "N/A");
	cJSON_AddStringToObject(o, "commandLine", d->v.command_line);
	return o;
}

static int
cmd_describe_job(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct describe_job_opts *o = opts;
	struct job_detail d;
	enum rai_out_fmt fmt;
	struct rai_err *err = rai_ctx_err(ctx);
	cJSON *j;
	int rc = -1;

	(void)argc;
	if (RUNAI_CP(ctx) != NULL)
		return runai_describe_job_cp(ctx, argv[0], o->output);
	memset(&d, 0, sizeof(d));
	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	if (rai_job_find(RUNAI_CLIENT(ctx), RUNAI_NS(ctx),
	    RUNAI_PROJECT(ctx), argv[0], 1, &d.v, err) == -1 ||
	    kube_get(RUNAI_CLIENT(ctx), res_of(d.v.kind), RUNAI_NS(ctx),
	    d.v.name,
	    &d.wl, err) == -1 ||
	    rai_job_pods(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), d.v.uid, &d.pods,
	    err) == -1 ||
	    fetch_events(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), &d, err) == -1)
		goto out;
	rc = 0;
	if (fmt == RAI_OUT_NAME)
		rai_text_put(ctx->out, "job/", d.v.name, "\n");
	else if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		j = detail_json(&d);
		rc = rai_out_doc(ctx->out, fmt, j, rai_ctx_err(ctx));
		cJSON_Delete(j);
	} else
		print_wide(ctx, &d);
out:
	detail_release(&d);
	return rc;
}

static const struct rai_example describe_job_examples[] = {
	{ "runai describe job train-1", "status, pods and events" },
	{ "runai describe job train-1 -p team-a -o json", "for scripts" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_describe_job = {
	.name = "job",
	.aliases = (const char *const[]){ "jobs", NULL },
	.summary = "show a job's status, pods and events",
	.synopsis = "<name> [-o wide|json|yaml|name]",
	.description = "Shows the job's fields as \"KEY: value\" lines, then "
	    "its pods (status, type, age, node) and the events about the "
	    "job and its pods, oldest first. -o json and -o yaml print the "
	    "reference CLI's structure: name, namespace, duration, status, "
	    "trainer, chiefName, instances (status, name, age, node, "
	    "chief), priority and commandLine.",
	.examples = describe_job_examples,
	.opts = describe_job_opts,
	.opts_size = sizeof(struct describe_job_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT,
	.run = cmd_describe_job,
};
