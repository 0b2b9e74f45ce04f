/*
 * What exec, bash and attach share: waiting for the job's pod to run
 * (Running and Ready, polled each second up to a timeout), the
 * terminal set-up around the stream, and the remote exit status as
 * ours.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/log.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/exec.h"
#include "runai.h"
#include "runai/job_pod.h"

#include "core/banned.h"

#define POLL_INTERVAL_MS	1000L
/* polls between asking why a pod that is not there waits */
#define WHY_EVERY		3
/* typed-ahead input kept for a retry with another shell */
#define REPLAY_MAX		((size_t)1 << 20)

static int
pod_ready(const cJSON *pod)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(pod, "status.conditions"))
		if (strcmp(rai_json_str_or(c, "type", ""), "Ready") == 0)
			return strcmp(rai_json_str_or(c, "status", ""),
			    "True") == 0;
	return 0;
}

static const char *
pod_phase(const cJSON *pod)
{
	return rai_json_str_or(pod, "status.phase", "Unknown");
}

static const char *
pod_name(const cJSON *pod)
{
	return rai_json_str_or(pod, "metadata.name", "");
}

/* A job whose pods are not made yet: worth waiting for. */
static int
no_pods_yet(const struct rai_err *err)
{
	return strcmp(err->reason, RAI_JOB_REASON_NO_PODS) == 0;
}

static void
say_waiting(const struct runai_session_opts *o, int *said)
{
	if (*said || !o->waiting_message)
		return;
	fprintf(stderr, "Waiting for pod to start running...\n");
	*said = 1;
}

/* Sleeps between polls; 1 when o->stop_fd became readable first. */
static int
pause_between_polls(const struct runai_session_opts *o)
{
	struct pollfd p;

	if (o->stop_fd == NULL) {
		rai_sleep_ms(POLL_INTERVAL_MS);
		return 0;
	}
	p.fd = *o->stop_fd;
	p.events = POLLIN;
	p.revents = 0;
	return poll(&p, 1, (int)POLL_INTERVAL_MS) > 0;
}

/*
 * Every few polls while the job has no pod or its pod is Pending: a job
 * that cannot start soon (job_why.c) ends the wait at once, saying why.
 */
static int
starts_soon(struct rai_ctx *ctx, const struct runai_session_opts *o,
    int polls, struct rai_err *err)
{
	if (!o->ask_why || polls % WHY_EVERY != 0)
		return 1;
	return runai_job_not_starting(ctx, o->job, err) == 0;
}

/* The job's pod once it runs; errors say why it never will. */
static int
wait_for_pod(struct rai_ctx *ctx, const struct runai_session_opts *o,
    cJSON **pod, struct rai_err *err)
{
	long deadline = rai_now_ms() + o->wait_ms;
	const char *phase;
	int said = 0, polls;

	for (polls = 0; ; polls++) {
		*pod = NULL;
		if (rai_job_pod(RUNAI_CLIENT(ctx), RUNAI_NS(ctx),
		    RUNAI_PROJECT(ctx), o->job, o->pod, pod,
		    err) == -1) {
			if (!no_pods_yet(err) || rai_now_ms() >= deadline)
				return -1;
			rai_err_release(err);
			if (!starts_soon(ctx, o, polls, err))
				return -1;
			say_waiting(o, &said);
		} else {
			phase = pod_phase(*pod);
			if (strcmp(phase, "Succeeded") == 0 ||
			    strcmp(phase, "Failed") == 0) {
				rai_err_set(err, RAI_E_NOTFOUND, "Can't connect to "
				    "the pod: %s in phase: %s", pod_name(*pod),
				    phase);
				goto fail;
			}
			if (strcmp(phase, "Running") == 0 && pod_ready(*pod))
				return 0;
			if (rai_now_ms() >= deadline) {
				rai_err_set(err, RAI_E_NOTFOUND, "Unable to run "
				    "command in a pod that is not running");
				goto fail;
			}
			if (strcmp(phase, "Pending") == 0 &&
			    !starts_soon(ctx, o, polls, err))
				goto fail;
			say_waiting(o, &said);
			cJSON_Delete(*pod);
		}
		if (pause_between_polls(o)) {
			*pod = NULL;
			return rai_err_set(err, RAI_E_IO, "stopped while "
			    "waiting for the pod");
		}
	}
fail:
	cJSON_Delete(*pod);
	*pod = NULL;
	return -1;
}

static const cJSON *
first_container(const cJSON *pod)
{
	return cJSON_GetArrayItem(rai_json_array(pod, "spec.containers"), 0);
}

/* The container to use: --container when given, else the first one. */
static const cJSON *
pick_container(const cJSON *pod, const char *want, struct rai_err *err)
{
	const cJSON *c;

	if (want == NULL)
		return first_container(pod);
	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers"))
		if (strcmp(rai_json_str_or(c, "name", ""), want) == 0)
			return c;
	rai_err_set(err, RAI_E_NOTFOUND, "container %s not found in pod %s",
	    want, pod_name(pod));
	return NULL;
}

/*
 * Streams with a terminal when one was asked for and stdin is one;
 * otherwise plain pipes (kubectl says so and goes on, as we do).
 */
static int
tty_usable(const struct runai_session_opts *o)
{
	if (!o->tty)
		return 0;
	if (isatty(STDIN_FILENO))
		return 1;
	if (o->warn_no_tty)
		fprintf(stderr, "Unable to use a TTY - input is not a "
		    "terminal\n");
	return 0;
}

/* Input a try that may be retried read, for the retry. */
struct input_log {
	struct rai_buf	 kept;
	int		 keep;		/* collect (a retry may follow) */
	int		 replay;	/* send kept first */
	int		 ended;		/* stdin ended in the earlier try */
};

static int
stream(struct rai_ctx *ctx, const char *path, int use_stdin, int tty,
    struct input_log *in, struct kube_exec_result *res, struct rai_err *err)
{
	struct kube_exec_io io;
	int winch_fd = -1, stop_fd = -1, term_fd = STDIN_FILENO, rc, sig;

	memset(&io, 0, sizeof(io));
	io.in_fd = use_stdin && !in->ended ? STDIN_FILENO : -1;
	if (use_stdin && in->replay) {
		io.replay = in->kept.data;
		io.replay_len = in->kept.len;
		io.replay_eof = in->ended;
	}
	if (use_stdin && in->keep)
		io.keep = &in->kept;
	io.out_fd = STDOUT_FILENO;
	io.err_fd = STDERR_FILENO;
	if (runai_signals_catch(&winch_fd, &stop_fd) == -1)
		return rai_err_errno(err, errno, "cannot watch for signals");
	io.winch_fd = tty ? winch_fd : -1;
	io.stop_fd = stop_fd;
	if (tty) {
		io.size = runai_term_size;
		io.ud = &term_fd;
	}
	fflush(ctx->out);
	if (tty && runai_term_raw(STDIN_FILENO) == -1) {
		runai_signals_release();
		return rai_err_errno(err, errno, "cannot set the terminal to "
		    "raw mode");
	}
	rc = kube_exec_run(RUNAI_CLIENT(ctx), path, &io, res, err);
	in->ended = in->ended || res->input_ended;
	runai_term_restore();
	sig = runai_signals_release();
	if (rc == 0 && res->stopped)
		res->exit_code = 128 + sig;
	return rc;
}

/*
 * The runtime's own words when a command cannot start, from the
 * Status the kubelet wraps them in ("... unable to start container
 * process: exec: "x": executable file not found in $PATH: unknown"),
 * or NULL.
 */
static char *
start_failure(const struct rai_err *err)
{
	static const char mark[] = "unable to start container process: ";
	const char *texts[8], *p, *end;
	size_t i, n = 0;

	texts[n++] = err->message;
	for (i = 0; i < err->ncauses && n < 8; i++)
		texts[n++] = err->causes[i].message;
	for (i = 0; i < n; i++) {
		if (texts[i] == NULL || (p = strstr(texts[i], mark)) == NULL)
			continue;
		p += sizeof(mark) - 1;
		end = p + strlen(p);
		if (end - p > 9 && strcmp(end - 9, ": unknown") == 0)
			end -= 9;
		return xstrndup(p, (size_t)(end - p));
	}
	return NULL;
}

/* bash is not in every image: a shell that cannot start gets sh instead. */
static int
missing_executable(const struct rai_err *err)
{
	char *why = start_failure(err);
	int missing = why != NULL &&
	    (strstr(why, "executable file not found") != NULL ||
	    strstr(why, "no such file or directory") != NULL);

	free(why);
	return missing;
}

/* A command that could not start, said in one short line. */
static void
explain_start_failure(struct rai_err *err, const char *argv0, const char *pod)
{
	char *why = start_failure(err);

	if (why == NULL)
		return;
	rai_err_set(err, RAI_E_NOTFOUND, "cannot run %s in pod %s: %s", argv0, pod,
	    why);
	free(why);
}

static int
run_streams(struct rai_ctx *ctx, const struct runai_session_opts *o,
    const char *pod, const cJSON *container, int tty,
    struct kube_exec_result *res, struct rai_err *err)
{
	const char *cname = rai_json_str(container, "name");
	char *const *argv = o->argv;
	struct input_log in;
	char *path;
	int rc, i;

	memset(&in, 0, sizeof(in));
	rai_buf_init(&in.kept, REPLAY_MAX);
	for (i = 0; ; i++) {
		in.keep = i == 0 && o->fallback_argv != NULL;
		in.replay = i > 0;
		path = kube_exec_path(RUNAI_NS(ctx), pod, cname, argv,
		    o->use_stdin, tty);
		rc = stream(ctx, path, o->use_stdin, tty, &in, res, err);
		free(path);
		if (rc == 0)
			break;
		if (o->fallback_argv == NULL || i > 0 ||
		    res->keep_overflow || !missing_executable(err)) {
			explain_start_failure(err, argv[0], pod);
			break;
		}
		rai_log(RAI_LOG_NOTE, "%s is not in the image; trying %s",
		    argv[0], o->fallback_argv[0]);
		rai_err_release(err);
		argv = o->fallback_argv;
	}
	rai_buf_release_secret(&in.kept);
	return rc;
}

/* attach follows the container: its tty and stdin settings decide. */
static void
attach_modes(const struct runai_session_opts *o, const cJSON *container,
    int *use_stdin, int *tty)
{
	*use_stdin = o->use_stdin && rai_json_bool(container, "stdin", 0);
	*tty = o->tty && rai_json_bool(container, "tty", 0);
}

int
runai_pod_session(struct rai_ctx *ctx, const struct runai_session_opts *o,
    struct rai_err *err)
{
	struct runai_session_opts eff = *o;
	struct kube_exec_result res;
	const cJSON *container;
	cJSON *pod = NULL;
	int rc = -1, tty;

	memset(&res, 0, sizeof(res));	/* a failed start leaves it unset */
	eff.ask_why = 1;
	if (wait_for_pod(ctx, &eff, &pod, err) == -1)
		return -1;
	if ((container = pick_container(pod, o->container, err)) == NULL)
		goto out;
	if (o->argv == NULL)
		attach_modes(o, container, &eff.use_stdin, &eff.tty);
	tty = tty_usable(&eff);
	if (o->argv == NULL) {
		if (o->pod == NULL)
			rai_text_put(stderr, "Connecting to pod ", pod_name(pod),
			    "\n");
		if (eff.use_stdin && tty)
			fprintf(stderr, "If you don't see a command prompt, "
			    "try pressing enter.\n");
	}
	if (run_streams(ctx, &eff, pod_name(pod), container, tty, &res,
	    err) == -1)
		goto out;
	rc = res.exit_code;
	if (rc < 0 || rc > 255)
		rc = 1;
out:
	cJSON_Delete(pod);
	return rc;
}

/* For port-forward: the job's pod once it runs and is ready. */
int
runai_pod_wait(struct rai_ctx *ctx, const struct runai_session_opts *o,
    cJSON **pod, struct rai_err *err)
{
	return wait_for_pod(ctx, o, pod, err);
}
