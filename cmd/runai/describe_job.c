/*
 * runai describe job NAME: the key/value view of one job (NAME:,
 * STATUS:, ...: the fields the source gives, in its order), its pods,
 * a distributed job's conditions and the events about the job and its
 * pods, from the workload interface's record (lib/runai/wl.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/text.h"
#include "runai.h"

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

static const struct rai_col event_cols[] = {
	{ "SOURCE", NULL, 0 },
	{ "TYPE", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "MESSAGE", NULL, 0 },
	{ NULL, NULL, 0 }
};

static const struct rai_col condition_cols[] = {
	{ "TYPE", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "REASON", NULL, 0 },
	{ "MESSAGE", NULL, 0 },
	{ NULL, NULL, 0 }
};

const struct runai_detail_view runai_detail_all = {
	.sections = RUNAI_DETAIL_GENERAL | RUNAI_DETAIL_PODS |
	    RUNAI_DETAIL_EVENTS,
	.pod_limit = -1,
	.event_limit = -1,
};

/* The Pods table has the columns the source fills, in this order. */
static void
pod_columns(unsigned which, struct rai_col *cols)
{
	size_t n = 0;

	cols[n++] = (struct rai_col){ "POD", NULL, 0 };
	cols[n++] = (struct rai_col){ "STATUS", NULL, 0 };
	if (which & RAI_WL_POD_TYPE)
		cols[n++] = (struct rai_col){ "TYPE", NULL, 0 };
	if (which & RAI_WL_POD_AGE)
		cols[n++] = (struct rai_col){ "AGE", NULL, 0 };
	cols[n++] = (struct rai_col){ "NODE", NULL, 0 };
	if (which & RAI_WL_POD_IMAGE)
		cols[n++] = (struct rai_col){ "IMAGE", NULL, 0 };
	cols[n] = (struct rai_col){ NULL, NULL, 0 };
}

/* How many of n rows a limit keeps (< 0: all). */
static size_t
limited(size_t n, long limit)
{
	return limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
}

static void
print_pods(struct rai_ctx *ctx, const struct rai_job_detail *d, time_t now,
    long limit)
{
	struct rai_col cols[8];
	struct rai_table *t;
	const struct rai_wl_pod *p;
	char age[16];
	size_t i;

	pod_columns(d->pod_cols, cols);
	t = rai_table_new(cols, 0);
	for (i = 0; i < limited(d->npods, limit); i++) {
		p = &d->pods[i];
		rai_table_add(t, p->name);
		rai_table_add(t, p->status);
		if (d->pod_cols & RAI_WL_POD_TYPE)
			rai_table_add(t, p->type);
		if (d->pod_cols & RAI_WL_POD_AGE)
			rai_table_add(t, rai_out_age(p->created, now, age));
		rai_table_add(t, p->node);
		if (d->pod_cols & RAI_WL_POD_IMAGE)
			rai_table_add(t, p->image);
		rai_table_end_row(t);
	}
	fprintf(ctx->out, "\nPods:\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

static void
print_conditions(struct rai_ctx *ctx, const struct rai_job_detail *d,
    time_t now)
{
	const struct rai_wl_condition *c;
	struct rai_table *t;
	char age[16];
	size_t i;

	if (!d->has_conditions)
		return;
	fprintf(ctx->out, "\nConditions:\n");
	t = rai_table_new(condition_cols, 0);
	for (i = 0; i < d->nconditions; i++) {
		c = &d->conditions[i];
		rai_table_add(t, c->type);
		rai_table_add(t, c->status);
		rai_table_add(t, rai_out_age(c->at, now, age));
		rai_table_add(t, c->reason);
		rai_table_add(t, c->message);
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

static void
print_events(struct rai_ctx *ctx, const struct rai_job_detail *d, time_t now,
    const struct runai_detail_view *view)
{
	const struct rai_wl_event *e;
	struct rai_table *t;
	char age[16];
	size_t i, n = limited(d->nevents, view->event_limit);

	fprintf(ctx->out, "\nEvents:\n");
	if (d->nevents == 0) {
		fprintf(ctx->out, "No events for resources\n");
		return;
	}
	t = rai_table_new(event_cols, 0);
	rai_table_add(t, "--------");
	rai_table_add(t, "----");
	rai_table_add(t, "---");
	rai_table_add(t, "-------");
	rai_table_end_row(t);
	for (i = 0; i < n; i++) {
		/* the newest first: from the end of the oldest-first list */
		e = view->newest_first ? &d->events[d->nevents - 1 - i] :
		    &d->events[i];
		rai_table_add(t, e->source);
		rai_table_add(t, e->type);
		rai_table_add(t, rai_out_age(e->at, now, age));
		rai_table_addf(t, "[%s] %s", e->reason, e->message);
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

/*
 * "Why pending:" or "Why it stopped:" with the reason, then the longer
 * lines and a stopped container's last log lines, indented; nothing for
 * a job running or done as it should.
 */
static void
print_why(struct rai_ctx *ctx, const struct rai_job_why *w)
{
	const char *title = rai_job_why_title(w);
	size_t i;

	if (title == NULL)
		return;
	fprintf(ctx->out, "\n%s: ", title);
	rai_text_put(ctx->out, "", w->reason, "\n");
	for (i = 0; i < w->lines.n; i++)
		rai_text_put(ctx->out, "  ", w->lines.v[i], "\n");
	if (w->log.n > 0)
		fprintf(ctx->out, "  Last lines of its log:\n");
	for (i = 0; i < w->log.n; i++)
		rai_text_put(ctx->out, "    ", w->log.v[i], "\n");
}

/* Every text here is anyone's who may edit a job: printed cleaned. */
void
runai_job_detail_print(struct rai_ctx *ctx, const struct rai_job_detail *d,
    const struct runai_detail_view *view)
{
	time_t now = time(NULL);
	size_t i;

	if (view->sections & RUNAI_DETAIL_GENERAL) {
		for (i = 0; i < d->nfields; i++) {
			fprintf(ctx->out, "%s: ", d->fields[i].key);
			rai_text_put(ctx->out, "", d->fields[i].value, "\n");
		}
		print_why(ctx, &d->why);
	}
	if (view->sections & RUNAI_DETAIL_PODS)
		print_pods(ctx, d, now, view->pod_limit);
	if (view->sections & RUNAI_DETAIL_GENERAL)
		print_conditions(ctx, d, now);
	if (view->sections & RUNAI_DETAIL_EVENTS)
		print_events(ctx, d, now, view);
}

static int
cmd_describe_job(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct describe_job_opts *o = opts;
	struct rai_job_detail d;
	enum rai_out_fmt fmt;
	int rc = -1, doc;

	(void)argc;
	if (runai_output_format(ctx, o->output, &fmt) == -1)
		return -1;
	doc = fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML;
	if (rai_wl_describe(RUNAI_WL(ctx), argv[0], doc, &d,
	    rai_ctx_err(ctx)) == 0) {
		rc = 0;
		if (fmt == RAI_OUT_NAME)
			rai_text_put(ctx->out, "job/", d.v.name, "\n");
		else if (doc)
			rc = rai_out_doc(ctx->out, fmt, d.doc, rai_ctx_err(ctx));
		else
			runai_job_detail_print(ctx, &d, &runai_detail_all);
	}
	rai_job_detail_release(&d);
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
	    "for a job that waits \"Why pending:\" and for one that failed "
	    "or was suspended \"Why it stopped:\" - the reason, in words "
	    "and with the cluster's numbers, and what lies behind it: the "
	    "project's quota or fair share, the gang's pods, the free GPUs, "
	    "the job's place among its project's waiting jobs, who preempted "
	    "it and when, the scheduler's own message, a failed container's "
	    "exit code and reason and the last lines of its log - then its "
	    "pods (status, type, age, node) and the events about the job and "
	    "its pods, oldest first. -o json and -o yaml print the reference "
	    "CLI's structure: name, namespace, duration, status, trainer, "
	    "chiefName, instances (status, name, age, node, chief), priority "
	    "and commandLine, and why: title, reason, kind, details, and "
	    "where known queue (position, length), exitCode and log.",
	.examples = describe_job_examples,
	.opts = describe_job_opts,
	.opts_size = sizeof(struct describe_job_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP,
	.run = cmd_describe_job,
};
