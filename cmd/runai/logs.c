/*
 * runai logs JOB: the log of the job's chief (newest) pod, or of --pod,
 * streamed to stdout as it arrives.
 *
 * Better than the reference in three ways: a starting pod is waited
 * for (one line on stderr, then a bounded poll) instead of failing at
 * once; -f survives a broken connection, reconnecting with backoff and
 * resuming where it stopped with no line lost or repeated (rai_logs.h
 * says how); and a follow that ends checks why: a finished pod ends the
 * command, a running one means the stream was cut.
 *
 * Ctrl-C and a reader that goes away (runai logs -f job | head) end the
 * command through the signal's default action, quietly, like every other
 * command; with SIGPIPE ignored a write fails with EPIPE, which ends it
 * quietly with status 0.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/client.h"
#include "runai.h"
#include "runai/job_pod.h"
#include "runai/logs.h"
#include "logs_all.h"

#include "core/banned.h"

#define POLL_MS			500	/* while a pod starts */
#define MAX_ATTEMPTS		10	/* reconnects in a row without output */
#define WHY_EVERY		4	/* polls between asking why a pod waits */
/* logs -f: the job was preempted or suspended under it */
#define EXIT_STOPPED		3

static const struct rai_opt logs_opts[] = {
	{ .short_name = 'f', .long_name = "follow", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct logs_opts, follow),
	  .help = "follow the log until the pod ends" },
	{ .short_name = 't', .long_name = "tail", .type = RAI_OPT_INT,
	  .offset = offsetof(struct logs_opts, tail), .argh = "<lines>",
	  .help = "only the last <lines> lines; -1 for all", .def = "-1" },
	{ .long_name = "since", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct logs_opts, since), .argh = "<duration>",
	  .help = "only lines newer than this, e.g. 10m or 2h" },
	{ .long_name = "since-time", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct logs_opts, since_time), .argh = "<time>",
	  .help = "only lines from this RFC 3339 time on" },
	{ .long_name = "timestamps", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct logs_opts, timestamps),
	  .help = "start each line with its RFC 3339 time" },
	{ .long_name = "previous", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct logs_opts, previous),
	  .help = "the log of the container's previous instance (before its "
	      "last restart)" },
	{ .long_name = "limit-bytes", .type = RAI_OPT_INT,
	  .offset = offsetof(struct logs_opts, limit_bytes), .argh = "<n>",
	  .help = "at most <n> bytes of each log" },
	RUNAI_OPT_POD(struct logs_opts, pod),
	RUNAI_OPT_CONTAINER(struct logs_opts, container),
	RUNAI_OPT_POD_TIMEOUT(struct logs_opts, start_timeout),
	RUNAI_OPT_WAIT_TIMEOUT(struct logs_opts, start_timeout),
	{ .long_name = "all-pods", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct logs_opts, all_pods),
	  .help = "every pod's log, each line after [<pod>]" },
	RAI_OPT_END
};

static int
check_opts(const struct logs_opts *o, struct rai_err *err)
{
	if (o->limit_bytes < 0)
		return rai_err_set(err, RAI_E_USAGE, "--limit-bytes must be "
		    "positive, not %ld", o->limit_bytes);
	if (o->tail < -1)
		return rai_err_set(err, RAI_E_USAGE, "--tail must be -1 (all "
		    "lines) or more, not %ld", o->tail);
	if (o->since > 0 && o->since_time != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--since and --since-time "
		    "cannot be used together");
	if (o->all_pods && o->pod != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--all-pods prints every "
		    "pod's log: not with --pod");
	if (o->since_time != NULL &&
	    rai_parse_rfc3339(o->since_time) == (time_t)-1)
		return rai_err_set(err, RAI_E_USAGE, "--since-time '%s' is "
		    "not an RFC 3339 time such as 2024-05-06T07:08:09Z",
		    o->since_time);
	return 0;
}

/* Whether any option narrows or follows the log. */
static int
narrowed(const struct logs_opts *o)
{
	return o->follow || o->tail != -1 || o->since > 0 ||
	    o->since_time != NULL || o->timestamps || o->pod != NULL ||
	    o->previous || o->limit_bytes > 0 ||
	    o->container != NULL || o->all_pods;
}

/* The cluster's own endpoint serves a log as it is, with no options. */
static int
refuse_narrowed(struct rai_err *err)
{
	rai_err_set(err, RAI_E_USAGE, "without a kubeconfig for the cluster, "
	    "logs come through the cluster's own endpoint, which takes no "
	    "options: not -f, --tail, --since, --since-time, --timestamps, "
	    "--pod, -c or --all-pods");
	rai_err_set_hint(err, "a kubeconfig context that reaches the cluster's "
	    "API server gives them all");
	return -1;
}

/* A job with no pod, or a Pending one: whether it may start soon. */
static int
starts_soon(struct rai_ctx *ctx, const char *job, const cJSON *pod,
    int polls, struct rai_err *err)
{
	if (polls % WHY_EVERY != 0 ||
	    (pod != NULL && !logs_phase_is(pod, "Pending")))
		return 1;
	return runai_job_not_starting(ctx, job, err) == 0;
}

/*
 * The pod to read, once it has started: Running, or already finished.
 * A pod still starting (or a job without pods yet) is polled until
 * --pod-running-timeout, with one line on stderr for each thing waited
 * for; a job that cannot start soon (over quota, its image not pulled:
 * job_why.c) ends the wait at once with the reason.
 */
static int
wait_for_pod(struct rai_ctx *ctx, const char *job,
    const struct logs_opts *o, cJSON **out, struct rai_err *err)
{
	long deadline = rai_now_ms() + o->start_timeout * 1000;
	char *said = NULL;
	const char *name;
	cJSON *pod = NULL;
	int rc = -1, polls;

	for (polls = 0; ; polls++) {
		if (rai_job_pod(RUNAI_CLIENT(ctx), RUNAI_NS(ctx),
		    RUNAI_PROJECT(ctx), job, o->pod, &pod,
		    err) == -1) {
			if (strcmp(err->reason, RAI_JOB_REASON_NO_PODS) != 0)
				goto out;
			if (rai_now_ms() >= deadline) {
				rai_err_set(err, RAI_E_NOTFOUND, "job %s has "
				    "no pods, please use \"runai describe "
				    "job\" to get more information.", job);
				goto out;
			}
			name = "";
		} else {
			name = rai_json_str_or(pod, "metadata.name", "");
			if (logs_phase_is(pod, "Running") || logs_finished(pod)) {
				*out = pod;
				pod = NULL;
				rc = 0;
				goto out;
			}
			if (rai_now_ms() >= deadline) {
				rai_err_set(err, RAI_E_NOTFOUND, "instance %s "
				    "is not running, please use \"runai "
				    "describe job\" to get more information.",
				    name);
				goto out;
			}
		}
		rai_err_release(err);
		if (!starts_soon(ctx, job, pod, polls, err))
			goto out;
		if (said == NULL || strcmp(said, name) != 0) {
			if (*name)
				rai_text_put(stderr, "Waiting for pod ", name,
				    " to start...\n");
			else
				fprintf(stderr, "Waiting for job %s to get a "
				    "pod...\n", job);
			free(said);
			said = xstrdup(name);
		}
		rai_err_release(err);
		cJSON_Delete(pod);
		pod = NULL;
		rai_sleep_ms(POLL_MS);
	}
out:
	free(said);
	cJSON_Delete(pod);
	return rc;
}

enum pod_now { POD_RUNS, POD_FINISHED, POD_GONE };

/* After a follow ended: has the pod (the same one) finished or gone? */
static int
pod_now(struct rai_ctx *ctx, const cJSON *pod, enum pod_now *st,
    struct rai_err *err)
{
	cJSON *now = NULL;

	if (kube_get(RUNAI_CLIENT(ctx), &KUBE_RES_PODS, RUNAI_NS(ctx),
	    rai_json_str_or(pod, "metadata.name", ""), &now, err) == -1) {
		if (err->kind != RAI_E_HTTP || err->http_status != 404)
			return -1;
		rai_err_release(err);
		*st = POD_GONE;
		return 0;
	}
	if (strcmp(rai_json_str_or(now, "metadata.uid", ""),
	    rai_json_str_or(pod, "metadata.uid", "")) != 0)
		*st = POD_GONE;
	else
		*st = logs_finished(now) ? POD_FINISHED : POD_RUNS;
	cJSON_Delete(now);
	return 0;
}

/*
 * The followed pod was deleted: a job preempted or suspended ends the
 * command with a line saying so (who, when) and EXIT_STOPPED; any other
 * deletion is an error.
 */
static int
pod_gone(struct rai_ctx *ctx, const char *job, const char *pod,
    struct sink *s)
{
	char *line;

	if (rai_logs_end(&s->filter, &s->out) == -1 || logs_flush_out(s) == -1)
		return logs_sink_result(s, rai_ctx_err(ctx));
	if (!runai_job_stopped(ctx, job, &line))
		return rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND, "pod %s "
		    "of job %s was deleted", pod, job);
	fflush(ctx->out);
	rai_text_put(stderr, "runai: ", line, "\n");
	free(line);
	return EXIT_STOPPED;
}

static int
follow(struct rai_ctx *ctx, const char *job, const cJSON *pod,
    const char *container, const struct logs_opts *o, struct sink *s)
{
	struct rai_err *err = rai_ctx_err(ctx);
	const char *name = rai_json_str_or(pod, "metadata.name", ""), *why;
	char since[RAI_LOGS_SINCE_MAX], *path;
	int resumed = 0, attempts = 0, rc;
	unsigned rnd = (unsigned)getpid() ^ (unsigned)rai_now_ms();
	enum pod_now st;
	size_t before;
	long delay;

	for (;;) {
		path = logs_path(RUNAI_NS(ctx), name, container, o,
		    resumed ? since : NULL);
		before = s->written;
		rc = kube_stream_raw(RUNAI_CLIENT(ctx), path, logs_on_bytes, s, err);
		free(path);
		if (s->gone || s->werrno || s->overflow) {
			rai_err_release(err);
			return logs_sink_result(s, err);
		}
		if (rc == 0) {
			if (pod_now(ctx, pod, &st, err) == -1) {
				if (!logs_retryable(err))
					return -1;
				rc = -1;	/* ask again after the backoff */
			} else if (st == POD_FINISHED) {
				if (rai_logs_end(&s->filter, &s->out) == -1 ||
				    logs_flush_out(s) == -1)
					return logs_sink_result(s, err);
				return 0;
			} else if (st == POD_GONE)
				return pod_gone(ctx, job, name, s);
		} else if (!logs_retryable(err))
			return -1;
		if (s->written > before)
			attempts = 0;
		if (++attempts > MAX_ATTEMPTS) {
			if (rc == 0)
				rai_err_set(err, RAI_E_NET, "the log stream of "
				    "pod %s keeps ending", name);
			rai_err_prefix(err, "following pod %s (gave up after "
			    "%d tries)", name, MAX_ATTEMPTS);
			return -1;
		}
		resumed = rai_logs_resume(&s->filter, since, sizeof(since));
		delay = rai_http_backoff_ms(attempts, 0, rnd);
		rnd = rnd * 1103515245u + 12345u;
		why = rc == 0 || err->message == NULL ? "" : err->message;
		rai_log(RAI_LOG_NOTE, "log stream of pod %s %s%s%s; "
		    "reconnecting in %.1fs%s%s", name, rc == 0 ?
		    "ended while the pod runs" : "broke", *why ? ": " : "", why,
		    (double)delay / 1000, resumed ? " from " : "",
		    resumed ? since : "");
		rai_err_release(err);
		rai_sleep_ms(delay);
	}
}

static int
cmd_logs(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct logs_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	const char *container;
	struct sink s;
	cJSON *pod = NULL;
	char *path;
	int rc = -1;

	(void)argc;
	memset(&s, 0, sizeof(s));
	if (check_opts(o, err) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, err) == -1)
		goto out;
	if (RUNAI_APP(ctx)->cluster_api) {
		fflush(ctx->out);
		s.fd = fileno(ctx->out);
		rai_logs_init(&s.filter, 0, 0);
		rc = narrowed(o) ? refuse_narrowed(err) :
		    rai_wl_cluster_log(RUNAI_WL(ctx), argv[0], logs_on_bytes,
		    &s, err);
		if (s.gone || s.werrno || s.overflow) {
			rai_err_release(err);
			rc = logs_sink_result(&s, err);
		}
		goto out;
	}
	if (o->all_pods) {
		fflush(ctx->out);
		s.fd = fileno(ctx->out);
		rai_logs_init(&s.filter, 0, o->timestamps);
		rc = o->follow ? logs_follow_all_pods(ctx, argv[0], o, &s) :
		    logs_all_pods(ctx, argv[0], o, &s);
		goto out;
	}
	if (wait_for_pod(ctx, argv[0], o, &pod, err) == -1 ||
	    logs_pick_container(pod, o->container, &container, err) == -1)
		goto out;
	fflush(ctx->out);
	s.fd = fileno(ctx->out);
	/* following always asks for timestamps: they place the resume */
	rai_logs_init(&s.filter, o->follow, o->timestamps);
	if (o->follow)
		rc = follow(ctx, argv[0], pod, container, o, &s);
	else {
		path = logs_path(RUNAI_NS(ctx), rai_json_str_or(pod,
		    "metadata.name", ""), container, o, NULL);
		rc = kube_stream_raw(RUNAI_CLIENT(ctx), path, logs_on_bytes, &s,
		    err);
		free(path);
		if (s.gone || s.werrno || s.overflow) {
			rai_err_release(err);
			rc = logs_sink_result(&s, err);
		}
	}
out:
	rai_buf_release(&s.out);
	cJSON_Delete(pod);
	return rc;
}

static const struct rai_example logs_examples[] = {
	{ "runai logs train-1", "the log of the job's newest pod" },
	{ "runai logs train-1 -f --tail 20",
	    "the last 20 lines, then new ones as they come" },
	{ "runai logs train-1 --since 10m --timestamps",
	    "the last ten minutes, each line with its time" },
	{ "runai logs train-1 --pod train-1-abcde -c sidecar",
	    "another pod and container of the job" },
	{ "runai logs ddp1 --all-pods --tail 5",
	    "the last lines of every pod of a distributed job" },
	{ "runai logs ddp1 --all-pods -f --tail 0",
	    "the new lines of every pod, as they come" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_logs = {
	.name = "logs",
	.summary = "print the log of a job's pod",
	.synopsis = "<job> [-f] [--tail <lines>] [--since <duration> | "
	    "--since-time <time>] [--timestamps] [--pod <pod>] "
	    "[-c <container>] [--all-pods]",
	.description = "Prints the log of the job's pod: the only one, or "
	    "the newest when the job has several, or the one --pod names; "
	    "a distributed job's master or launcher (else worker 0). "
	    "--all-pods prints every pod's log instead, the lead's first, "
	    "each line after \"[<pod>] \"; with -f it follows them all at "
	    "once, one log stream per running pod (each line printed once "
	    "and whole, never mixed with another pod's; a stream that ends "
	    "while its pod runs is opened again where it stopped), taking in pods that start later (a replaced "
	    "worker) and letting go of deleted ones, until every pod has "
	    "finished or Ctrl-C. "
	    "A pod that is still starting is waited for, up to "
	    "--pod-running-timeout, with a line on stderr saying so; a pod "
	    "that does not start in that time is an error. A job that "
	    "cannot start soon - non-preemptible work over its project's "
	    "quota, no node taking pods, an image that cannot be pulled, "
	    "a suspended job - is an error at once, with the reason "
	    "runai describe job gives.\n\n"
	    "With -f the log is followed until the pod ends or Ctrl-C. "
	    "When the job is preempted (its GPUs taken back for another "
	    "project) or suspended while its log is followed, the command "
	    "ends with a line on stderr saying so - by which project and "
	    "when, or when it was suspended - and exit status 3. "
	    "When the connection breaks, runai logs reconnects with "
	    "backoff and resumes after the last line it printed: no line "
	    "is lost or printed twice. It gives up after 10 tries in a row "
	    "that bring nothing (about 30 seconds); -v shows each "
	    "reconnect.\n\n"
	    "--tail, --since and --since-time narrow what is printed first; "
	    "--since and --since-time cannot be used together. --tail 0 "
	    "prints no old lines, which makes sense with -f.\n\n"
	    "In control-plane mode the log comes through the cluster's "
	    "Kubernetes API; with no kubeconfig for the cluster, a "
	    "training's log (only) comes through the cluster's own "
	    "endpoint instead, which takes none of the options above.",
	.examples = logs_examples,
	.opts = logs_opts,
	.opts_size = sizeof(struct logs_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RUNAI_CMD_STREAM | RUNAI_CMD_LOG,	/* runai_prepare() once the flags are checked */
	.run = cmd_logs,
	.exit_status = "0\nthe log was printed; with -f, the pod finished\n\n"
	    "1\nthe operation failed: an error from the server, the network, "
	    "the configuration or local files; a pod that did not start in "
	    "time, or a job that cannot start soon\n\n"
	    "2\nusage error: an unknown command or option, a bad option "
	    "value, or the wrong number of arguments\n\n"
	    "3\nwith -f: the job was preempted or suspended while its log "
	    "was followed (the last line on stderr says by whom or when)",
};
