/*
 * runai logs --all-pods: every pod of a job, each line after "[<pod>] ".
 *
 * Without -f the pods' logs are read one after the other, the lead's
 * first. With -f they are followed at once, kubectl's way: one
 * follow=true stream per running pod, all moved on by one wait
 * (kube_raws_wait over the HTTP layer's side streams), instead of asking
 * every pod again each second. A pod's log so far is read first with a
 * plain GET, the lead's first, so the old lines come out in the order
 * the pods are listed; its stream then starts just before the last line
 * printed (rai_logs drops what it has printed already). A stream that
 * ends while its pod runs is started again the same way, after a
 * backoff when it brought nothing. Each pod's bytes are held until a
 * line is whole, so two pods' lines never mix within a line. The job's
 * pods are listed again every LIST_MS (and at once when a stream ends):
 * a pod that starts (a worker the operator replaced) joins, one that is
 * deleted leaves with its last partial line printed. It ends when every
 * pod has finished and its log is read to the end, or on Ctrl-C (the
 * signal's default action, as for every command).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

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

/* One pod's log (not followed), each line after "[<pod>] ". */
static int
pod_log_prefixed(struct rai_ctx *ctx, const cJSON *pod,
    const struct logs_opts *o, struct sink *s)
{
	const char *container;
	char *path, *name = rai_text_sanitize(rai_json_str_or(pod,
	    "metadata.name", ""));
	char *prefix = xasprintf("[%s] ", name);
	int rc = -1;

	if (logs_pick_container(pod, o->container, &container,
	    rai_ctx_err(ctx)) == -1)
		goto out;
	s->prefix = prefix;
	path = logs_path(RUNAI_NS(ctx), rai_json_str_or(pod, "metadata.name",
	    ""), container, o, NULL);
	rc = kube_stream_raw(RUNAI_CLIENT(ctx), path, logs_on_bytes, s,
	    rai_ctx_err(ctx));
	free(path);
	/* a last line without its newline ends here, not in the next pod */
	if (rc == 0 && s->mid_line && logs_write_all(s, "\n", 1) == 0)
		s->mid_line = 0;
out:
	s->prefix = NULL;
	free(prefix);
	free(name);
	return rc;
}

/* One pod of --all-pods: 0 on to the next, else stop with rc. */
static int
all_pods_one(struct rai_ctx *ctx, const cJSON *pod,
    const struct logs_opts *o, struct sink *s, int *rc)
{
	if (logs_phase_is(pod, "Pending"))
		return 0;	/* no log yet */
	*rc = pod_log_prefixed(ctx, pod, o, s);
	if (s->gone || s->werrno || s->overflow) {
		rai_err_release(rai_ctx_err(ctx));
		*rc = logs_sink_result(s, rai_ctx_err(ctx));
		return 1;
	}
	return *rc != 0;
}

/* --all-pods: the job's pods one after the other, the lead first. */
int
logs_all_pods(struct rai_ctx *ctx, const char *job, const struct logs_opts *o,
    struct sink *s)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_job_view v;
	const cJSON *p, *lead;
	cJSON *pods = NULL;
	int rc = -1;

	if (rai_job_find(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), RUNAI_PROJECT(ctx),
	    job, 0, &v, err) == -1)
		return -1;
	if (rai_job_pods(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), v.uid, &pods,
	    err) == -1)
		goto out;
	rc = 0;
	lead = rai_job_chief(pods);
	if (lead != NULL && all_pods_one(ctx, lead, o, s, &rc))
		goto out;
	cJSON_ArrayForEach(p, pods)
		if (p != lead && all_pods_one(ctx, p, o, s, &rc))
			break;
out:
	cJSON_Delete(pods);
	rai_job_view_release(&v);
	return rc;
}

#define LIST_MS		1500	/* between two lists of the job's pods */

struct follow_all;

struct pod_follow {
	struct pod_follow *next;
	struct follow_all *fa;
	char		*name;
	char		*uid;
	char		*container;	/* NULL: the only one */
	char		*prefix;	/* "[<pod>] ", cleaned */
	struct rai_logs	 filter;
	struct rai_buf	 held;		/* a line not yet whole */
	/* after a first answer that printed nothing: where the next starts,
	 * so --tail and --since narrow the old lines only once */
	char		 since0[RAI_LOGS_SINCE_MAX];
	struct kube_raw	*st;		/* its follow stream, while open */
	size_t		 got;		/* bytes its streams brought */
	long		 due_ms;	/* when to ask next */
	int		 attempts;	/* asks in a row that brought nothing */
	int		 primed;	/* its log so far is read */
	int		 fin;		/* the last list saw it finished */
	int		 ended;		/* its last stream ended cleanly */
	int		 seen;		/* in the last list */
	int		 done;		/* finished and read to the end */
};

struct follow_all {
	struct rai_ctx		*ctx;
	const struct logs_opts	*o;
	struct sink		*s;
	struct pod_follow	*pods;
	int			 relist;	/* a stream ended: list now */
	unsigned		 rnd;		/* backoff jitter */
};

static void
pod_follow_free(struct pod_follow *pf)
{
	kube_raw_free(pf->st);
	free(pf->name);
	free(pf->uid);
	free(pf->container);
	free(pf->prefix);
	rai_buf_release(&pf->held);
	free(pf);
}

static int
sink_broken(const struct sink *s)
{
	return s->gone || s->werrno || s->overflow;
}

/* Prints the whole lines of a pod's held bytes; *all: the rest too. */
static int
print_held(struct sink *s, struct pod_follow *pf, int all)
{
	const char *p = pf->held.data, *nl;
	size_t n = 0;
	int rc = 0;

	while (n < pf->held.len && (nl = memchr(p + n, '\n',
	    pf->held.len - n)) != NULL)
		n = (size_t)(nl - p) + 1;
	if (all && n < pf->held.len) {
		rai_buf_addch(&pf->held, '\n');
		p = pf->held.data;
		n = pf->held.len;
	}
	if (n == 0)
		return 0;
	rai_buf_reset(&s->out);
	rai_buf_add(&s->out, p, n);
	s->prefix = pf->prefix;
	s->mid_line = 0;
	rc = logs_flush_out(s);
	s->prefix = NULL;
	rai_buf_consume(&pf->held, n);
	return rc;
}

/* A pod's bytes, from its plain read or its stream. */
static int
on_pod_bytes(void *ud, const char *data, size_t len)
{
	struct pod_follow *pf = ud;
	struct sink *s = pf->fa->s;

	pf->got += len;
	rai_buf_reset(&s->out);
	if (rai_logs_feed(&pf->filter, data, len, &s->out) == -1 ||
	    rai_buf_add(&pf->held, s->out.data, s->out.len) == -1) {
		s->overflow = 1;
		return 1;
	}
	rai_buf_reset(&s->out);
	return print_held(s, pf, 0) == -1;
}

/* The pod's log is read to its end: the last partial line too. */
static int
pod_finish(struct follow_all *fa, struct pod_follow *pf)
{
	pf->done = 1;
	if (rai_logs_end(&pf->filter, &fa->s->out) == -1 ||
	    rai_buf_add(&pf->held, fa->s->out.data, fa->s->out.len) == -1) {
		fa->s->overflow = 1;
		return -1;
	}
	rai_buf_reset(&fa->s->out);
	return print_held(fa->s, pf, 1);
}

/* The tracker of a listed pod, made when it is first seen running. */
static struct pod_follow *
pod_follow_of(struct follow_all *fa, const cJSON *pod, struct rai_err *err)
{
	const char *uid = rai_json_str_or(pod, "metadata.uid", "");
	const char *container;
	struct pod_follow *pf, **tail;
	char *clean;

	for (tail = &fa->pods; (pf = *tail) != NULL; tail = &pf->next)
		if (strcmp(pf->uid, uid) == 0)
			return pf;
	if (logs_pick_container(pod, fa->o->container, &container, err) == -1)
		return NULL;
	pf = xcalloc(1, sizeof(*pf));
	pf->fa = fa;
	pf->name = xstrdup(rai_json_str_or(pod, "metadata.name", ""));
	pf->uid = xstrdup(uid);
	pf->container = container != NULL ? xstrdup(container) : NULL;
	clean = rai_text_sanitize(pf->name);
	pf->prefix = xasprintf("[%s] ", clean);
	free(clean);
	/* stamped: the timestamps place each resume */
	rai_logs_init(&pf->filter, 1, fa->o->timestamps);
	rai_buf_init(&pf->held, RAI_BUF_LINE_MAX);
	if (fa->pods != NULL)
		rai_log(RAI_LOG_NOTE, "following pod %s too", pf->name);
	*tail = pf;
	return pf;
}

/* The next ask of a pod after one that failed or brought nothing. */
static void
pod_backoff(struct follow_all *fa, struct pod_follow *pf)
{
	pf->due_ms = rai_now_ms() + rai_http_backoff_ms(++pf->attempts, 0,
	    fa->rnd);
	fa->rnd = fa->rnd * 1103515245u + 12345u;
}

/*
 * A failed ask: 0 to ask again later (a passing network failure, a pod
 * gone or whose container has not started), else -1.
 */
static int
pod_failed(struct follow_all *fa, struct pod_follow *pf, struct rai_err *err)
{
	if (logs_retryable(err) || (err->kind == RAI_E_HTTP &&
	    (err->http_status == 400 || err->http_status == 404))) {
		rai_log(RAI_LOG_NOTE, "log of pod %s: %s; asking again",
		    pf->name, err->message != NULL ? err->message :
		    "no answer");
		rai_err_release(err);
		if (pf->got > 0)	/* it got somewhere: a short wait */
			pf->attempts = 0;
		pod_backoff(fa, pf);
		return 0;
	}
	return -1;
}

/* The request of a pod's log, followed or not, from where it stopped. */
static char *
pod_path(struct follow_all *fa, struct pod_follow *pf, int follow)
{
	struct logs_opts po = *fa->o;
	char since[RAI_LOGS_SINCE_MAX];
	int resumed;

	po.follow = follow;
	po.timestamps = 1;
	resumed = rai_logs_resume(&pf->filter, since, sizeof(since));
	return logs_path(RUNAI_NS(fa->ctx), pf->name, pf->container, &po,
	    resumed ? since : pf->since0[0] ? pf->since0 : NULL);
}

/* A pod's log so far, with a plain GET: -1 when all must stop. */
static int
pod_prime(struct follow_all *fa, struct pod_follow *pf, struct rai_err *err)
{
	const struct logs_opts *o = fa->o;
	struct rai_logs_time now = { (long long)time(NULL), 0 };
	char *path = pod_path(fa, pf, 0);
	int rc;

	pf->got = 0;
	rc = kube_stream_raw(RUNAI_CLIENT(fa->ctx), path, on_pod_bytes, pf,
	    err);
	free(path);
	if (sink_broken(fa->s))
		return -1;
	if (rc == -1)
		return pod_failed(fa, pf, err);
	if (o->tail >= 0 || o->since > 0 || o->since_time != NULL)
		rai_logs_format_since(&now, pf->since0, sizeof(pf->since0));
	pf->primed = 1;
	pf->due_ms = 0;
	return pf->fin ? pod_finish(fa, pf) : 0;
}

/* Opens a pod's follow stream from where its log stopped. */
static int
pod_open(struct follow_all *fa, struct pod_follow *pf, struct rai_err *err)
{
	char *path = pod_path(fa, pf, 1);
	int rc;

	pf->got = 0;
	pf->ended = 0;
	rc = kube_raw_start(RUNAI_CLIENT(fa->ctx), path, on_pod_bytes, pf,
	    &pf->st, err);
	free(path);
	return rc;
}

/* The pods whose turn it is: read what they have, or follow them. */
static int
ask_due(struct follow_all *fa, struct rai_err *err)
{
	struct pod_follow *pf;
	long now = rai_now_ms();

	for (pf = fa->pods; pf != NULL; pf = pf->next) {
		if (pf->done || pf->st != NULL || pf->due_ms > now)
			continue;
		if (!pf->primed ? pod_prime(fa, pf, err) == -1 :
		    pod_open(fa, pf, err) == -1)
			return -1;
	}
	return 0;
}

/* A stream that is over: the pod's end, or ask again. */
static int
stream_over(struct follow_all *fa, struct pod_follow *pf, int rc,
    struct rai_err *err)
{
	kube_raw_free(pf->st);
	pf->st = NULL;
	if (sink_broken(fa->s))
		return -1;
	if (rc == -1)
		return pod_failed(fa, pf, err);
	if (pf->fin)
		return pod_finish(fa, pf);
	/* ended while the last list saw the pod run: list again first */
	pf->ended = 1;
	fa->relist = 1;
	if (pf->got > 0) {	/* it brought lines: again soon */
		pf->attempts = 0;
		pf->due_ms = rai_now_ms() + 100;
	} else
		pod_backoff(fa, pf);
	rai_log(RAI_LOG_NOTE, "log stream of pod %s ended; asking again",
	    pf->name);
	return 0;
}

/* Waits up to wait_ms for the streams, then takes the ended ones. */
static int
wait_streams(struct follow_all *fa, long wait_ms, struct rai_err *err)
{
	struct kube_raw **rs;
	struct pod_follow *pf;
	size_t n = 0, i = 0;
	int rc = 0, r;

	for (pf = fa->pods; pf != NULL; pf = pf->next)
		n += pf->st != NULL;
	if (n == 0) {
		if (wait_ms > 0)
			rai_sleep_ms(wait_ms);
		return 0;
	}
	rs = xcalloc(n, sizeof(*rs));
	for (pf = fa->pods; pf != NULL; pf = pf->next)
		if (pf->st != NULL)
			rs[i++] = pf->st;
	rc = kube_raws_wait(rs, n, wait_ms, err);
	free(rs);
	for (pf = fa->pods; rc == 0 && pf != NULL; pf = pf->next) {
		if (pf->st == NULL)
			continue;
		if ((r = kube_raw_result(pf->st, err)) != 1)
			rc = stream_over(fa, pf, r, err);
	}
	return rc;
}

/* Drops the pods no longer listed, printing what they held. */
static int
drop_gone(struct follow_all *fa)
{
	struct pod_follow **pp = &fa->pods, *pf;
	int rc = 0;

	while ((pf = *pp) != NULL) {
		if (pf->seen) {
			pp = &pf->next;
			continue;
		}
		if (!pf->done && print_held(fa->s, pf, 1) == -1)
			rc = -1;
		if (!pf->done)
			rai_log(RAI_LOG_NOTE, "pod %s is gone", pf->name);
		*pp = pf->next;
		pod_follow_free(pf);
	}
	return rc;
}

/* One listed pod; *pending is set while it has not started. */
static int
list_pod(struct follow_all *fa, const cJSON *pod, int *pending,
    struct rai_err *err)
{
	struct pod_follow *pf;

	if (logs_phase_is(pod, "Pending")) {
		*pending = 1;
		return 0;
	}
	if ((pf = pod_follow_of(fa, pod, err)) == NULL)
		return -1;
	pf->seen = 1;
	pf->fin = logs_finished(pod);
	/* finished, its stream over: nothing more will come */
	if (pf->fin && pf->ended && !pf->done && pf->st == NULL)
		return pod_finish(fa, pf);
	return 0;
}

/* Lists the job's pods, the lead first; *pending: some has not started. */
static int
list_pods(struct follow_all *fa, const char *uid, int *pending,
    struct rai_err *err)
{
	struct pod_follow *pf;
	const cJSON *p, *lead;
	cJSON *pods = NULL;
	int rc = 0;

	if (rai_job_pods(RUNAI_CLIENT(fa->ctx), RUNAI_NS(fa->ctx), uid, &pods,
	    err) == -1) {
		if (!logs_retryable(err))
			return -1;
		rai_err_release(err);
		*pending = 1;
		return 0;
	}
	*pending = 0;
	for (pf = fa->pods; pf != NULL; pf = pf->next)
		pf->seen = 0;
	lead = rai_job_chief(pods);
	if (lead != NULL)
		rc = list_pod(fa, lead, pending, err);
	cJSON_ArrayForEach(p, pods) {
		if (rc == -1)
			break;
		if (p != lead)
			rc = list_pod(fa, p, pending, err);
	}
	cJSON_Delete(pods);
	fa->relist = 0;
	return rc == 0 ? drop_gone(fa) : rc;
}

/* Whether some pod may log more. */
static int
any_live(const struct follow_all *fa)
{
	const struct pod_follow *pf;

	for (pf = fa->pods; pf != NULL; pf = pf->next)
		if (!pf->done)
			return 1;
	return 0;
}

/* How long to wait for the streams: until the next list or ask. */
static long
wait_ms_until(const struct follow_all *fa, long next_list)
{
	const struct pod_follow *pf;
	long until = next_list, now = rai_now_ms();

	for (pf = fa->pods; pf != NULL; pf = pf->next)
		if (!pf->done && pf->st == NULL && pf->due_ms < until)
			until = pf->due_ms;
	return until > now ? until - now : 0;
}

static int
follow_loop(struct follow_all *fa, const char *job, const char *uid,
    struct rai_err *err)
{
	long deadline = rai_now_ms() + fa->o->start_timeout * 1000;
	long next_list = 0;
	int pending = 0, started = 0, said = 0;

	for (;;) {
		if (fa->relist || rai_now_ms() >= next_list) {
			if (list_pods(fa, uid, &pending, err) == -1)
				return -1;
			next_list = rai_now_ms() + LIST_MS;
		}
		if (fa->pods != NULL)
			started = 1;
		if (started && !pending && !any_live(fa))
			return 0;
		if (!started && rai_now_ms() >= deadline)
			return rai_err_set(err, RAI_E_NOTFOUND, "no pod of job "
			    "%s has started, please use \"runai describe "
			    "job\" to get more information.", job);
		if (!started && !said++)
			fprintf(stderr, "Waiting for a pod of job %s to "
			    "start...\n", job);
		if (ask_due(fa, err) == -1 ||
		    wait_streams(fa, fa->relist ? 0 : wait_ms_until(fa,
		    next_list), err) == -1)
			return -1;
	}
}

int
logs_follow_all_pods(struct rai_ctx *ctx, const char *job,
    const struct logs_opts *o, struct sink *s)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct follow_all fa;
	struct pod_follow *pf;
	struct rai_job_view v;
	int rc;

	memset(&fa, 0, sizeof(fa));
	fa.ctx = ctx;
	fa.o = o;
	fa.s = s;
	fa.rnd = (unsigned)getpid() ^ (unsigned)rai_now_ms();
	if (rai_job_find(RUNAI_CLIENT(ctx), RUNAI_NS(ctx), RUNAI_PROJECT(ctx),
	    job, 0, &v, err) == -1)
		return -1;
	rc = follow_loop(&fa, job, v.uid, err);
	if (sink_broken(s)) {
		rai_err_release(err);
		rc = logs_sink_result(s, err);
	}
	while ((pf = fa.pods) != NULL) {
		fa.pods = pf->next;
		pod_follow_free(pf);
	}
	rai_job_view_release(&v);
	return rc;
}
