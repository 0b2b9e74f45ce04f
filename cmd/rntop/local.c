/*
 * The local collector (--local): this machine's GPUs, one host named
 * "localhost", from nvidia-smi run here (child.c).
 *
 * --once runs nvidia-smi once and waits for it up to --timeout. Live,
 * one "nvidia-smi -lms N" stream keeps running and each snapshot is
 * news as it comes (nvidia-smi paces them). A host whose newest
 * snapshot is older than interval + timeout is stale; a stream silent
 * that long is killed and restarted with backoff, and so is a failing
 * nvidia-smi. Unknown values stay unknown.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "collector.h"
#include "core/alloc.h"

#include "core/banned.h"

#define BACKOFF_MAX_MS	60000
#define BACKOFF_MIN_MS	1000
#define REAP_POLL_MS	10	/* output closed: look for its exit */

struct local {
	struct rntop_collector	 c;		/* first: what the loop sees */
	const struct rntop_opts	*o;
	struct rntop_host	 host;
	struct rntop_child	 child;
	char			*exe;
	char			 loop_ms[32];
	long long		 timeout;
	long long		 silent;	/* interval + timeout */
	long long		 quiet;		/* a burst of rows has ended */
	long long		 start;
	long long		 now;		/* of the step reading */
	long long		 restart_at;	/* 0 = running or not due */
	long long		 backoff;
	enum rntop_host_state	 fail_state;	/* with host.error */
	unsigned long		 noise_base;	/* of earlier children */
	int			 fresh;		/* a snapshot not reported yet */
	int			 basic;		/* no limits: nvidia-smi refused */
};

static void
set_error(struct local *l, enum rntop_host_state st, char *msg)
{
	free(l->host.error);
	l->host.error = msg;
	l->fail_state = st;
}

static void
on_snapshot(void *ud, const struct rntop_snap *s)
{
	struct local *l = ud;

	rntop_host_take_snap(&l->host, s, l->now);
	l->backoff = 0;
	l->fresh = 1;
	set_error(l, RNTOP_HOST_OK, NULL);
}

static void	 retire_child(struct local *, long long);

static int
start_child(struct local *l, struct rai_err *err)
{
	char *argv[8];
	int n = 0;

	argv[n++] = l->exe;
	argv[n++] = (char *)(uintptr_t)(l->basic ?
	    "--query-gpu=" RNTOP_GPUSTAT_QUERY :
	    "--query-gpu=" RNTOP_GPUSTAT_QUERY_LIMITS);
	argv[n++] = (char *)(uintptr_t)"--format=csv,noheader,nounits";
	if (!l->o->once) {
		argv[n++] = (char *)(uintptr_t)"-lms";
		argv[n++] = l->loop_ms;
	}
	argv[n] = NULL;
	l->restart_at = 0;
	if (rntop_child_start(&l->child, l->exe, argv, on_snapshot, l,
	    err) == -1)
		return -1;
	rntop_gpustat_limits(&l->child.ps, !l->basic);
	return 0;
}

/*
 * An older nvidia-smi refuses the whole query for the limits' fields:
 * it is asked again at once without them (its refusal is rntop's own
 * question declined, so it is not counted as a line about the GPUs).
 */
static void
retry_without_limits(struct local *l, long long now)
{
	struct rntop_child *c = &l->child;
	struct rai_err serr = RAI_ERR_INIT;

	if (l->basic || c->out_fd != -1 || l->host.have_snap ||
	    !rntop_gpustat_refused(&c->ps))
		return;
	l->basic = 1;
	/* its output ended with the refusal: it is exiting, or gone */
	rntop_child_stop(c);
	rntop_child_release(c);
	if (start_child(l, &serr) == -1) {
		set_error(l, RNTOP_HOST_ERROR, xstrdup(serr.message ?
		    serr.message : "cannot run nvidia-smi"));
		if (!l->o->once)
			retire_child(l, now);
	}
	rai_err_release(&serr);
}

/* msg, then what the child said if anything ("msg (said: ...)"). */
static char *
said_too(const struct rntop_child *c, char *msg)
{
	char *said = rntop_child_said(c), *both;

	if (said == NULL)
		return msg;
	both = xasprintf("%s (it said: %s)", msg, said);
	free(said);
	free(msg);
	return both;
}

/* Ends the child and plans its restart. */
static void
retire_child(struct local *l, long long now)
{
	rntop_child_stop(&l->child);
	l->noise_base += l->child.ps.noise;
	l->backoff = l->backoff == 0 ? RNTOP_MS(l->o->interval) :
	    l->backoff * 2;
	if (l->backoff < BACKOFF_MIN_MS)
		l->backoff = BACKOFF_MIN_MS;
	if (l->backoff > BACKOFF_MAX_MS)
		l->backoff = BACKOFF_MAX_MS;
	l->restart_at = now + l->backoff;
}

/* The stream's nvidia-smi: ended, closed, silent, or due to restart. */
static void
supervise(struct local *l, long long now)
{
	struct rntop_child *c = &l->child;
	struct rai_err serr = RAI_ERR_INIT;

	if (rntop_child_running(c)) {
		if (c->out_fd == -1 && rntop_child_reap(c)) {
			if (!l->host.have_snap || l->host.snap_ms < c->started)
				set_error(l, RNTOP_HOST_ERROR,
				    rntop_child_failure(c));
			else
				set_error(l, RNTOP_HOST_ERROR,
				    xstrdup("nvidia-smi stopped"));
			retire_child(l, now);
		} else if (c->out_fd == -1 && now - c->last_out > 1000) {
			set_error(l, RNTOP_HOST_ERROR, xstrdup("nvidia-smi "
			    "closed its output but did not exit; restarting "
			    "it"));
			retire_child(l, now);
		} else if (c->out_fd != -1 && now - c->last_out >= l->silent) {
			set_error(l, RNTOP_HOST_TIMEOUT, said_too(c,
			    xasprintf("nvidia-smi sent nothing for %g s; "
			    "restarting it", l->o->interval + l->o->timeout)));
			retire_child(l, now);
		}
	} else if (l->restart_at > 0 && now >= l->restart_at) {
		rntop_child_release(c);
		if (start_child(l, &serr) == -1) {
			set_error(l, RNTOP_HOST_ERROR, xstrdup(serr.message ?
			    serr.message : "cannot run nvidia-smi"));
			retire_child(l, now);
		}
		rai_err_release(&serr);
	}
	/*
	 * A loop iteration's rows come in one burst: when they went quiet,
	 * the rows read are the whole snapshot even when it cannot be told
	 * from its rows (the first one, a GPU gone).
	 */
	if (c->out_fd != -1 && c->ps.cur.n > 0 && now - c->last_out >= l->quiet)
		rntop_gpustat_flush(&c->ps);
}

static int
local_start(struct rntop_collector *col, long long now, struct rai_err *err)
{
	struct local *l = (struct local *)col;

	l->start = l->now = now;
	return start_child(l, err);
}

static void
wake_by(long long *wake, long long t)
{
	if (t < *wake)
		*wake = t;
}

static size_t
local_pollfds(struct rntop_collector *col, struct pollfd *pfd,
    long long now, long long *wake)
{
	struct local *l = (struct local *)col;
	const struct rntop_child *c = &l->child;
	size_t n = 0;

	if (c->out_fd != -1)
		pfd[n++] = (struct pollfd){ .fd = c->out_fd, .events = POLLIN };
	if (c->err_fd != -1)
		pfd[n++] = (struct pollfd){ .fd = c->err_fd, .events = POLLIN };
	if (rntop_child_running(c) && c->out_fd == -1)
		wake_by(wake, now + REAP_POLL_MS);
	if (l->o->once) {
		wake_by(wake, l->start + l->timeout);
		return n;
	}
	if (l->restart_at > 0)
		wake_by(wake, l->restart_at);
	if (c->out_fd != -1)
		wake_by(wake, c->last_out + l->silent);
	if (c->out_fd != -1 && c->ps.cur.n > 0)
		wake_by(wake, c->last_out + l->quiet);
	return n;
}

/* When new noise came, its latest line may be a fault to keep. */
static void
note_fault(struct local *l, long long now)
{
	unsigned long k;

	/* a retired child's lines were looked at before it went */
	if (l->host.noise_seen < l->noise_base)
		l->host.noise_seen = l->noise_base;
	for (k = l->host.noise_seen + 1; k <= l->host.noise; k++)
		rntop_host_note_line(&l->host, rntop_gpustat_noise_line(
		    &l->child.ps, k - l->noise_base), now);
	l->host.noise_seen = l->host.noise;
}

static void
local_step(struct rntop_collector *col, const struct pollfd *pfd, size_t n,
    long long now)
{
	struct local *l = (struct local *)col;
	struct rntop_child *c = &l->child;
	size_t i;

	l->now = now;
	for (i = 0; i < n; i++)
		if (pfd[i].revents != 0 &&
		    (pfd[i].fd == c->out_fd || pfd[i].fd == c->err_fd))
			rntop_child_read(c, pfd[i].fd);
	retry_without_limits(l, now);
	if (!l->o->once)
		supervise(l, now);
	/* a retired child's lines are in noise_base already */
	l->host.noise = l->noise_base +
	    (rntop_child_running(c) ? c->ps.noise : 0);
	note_fault(l, now);
}

static int
local_news(struct rntop_collector *col, long long now)
{
	struct local *l = (struct local *)col;
	int fresh = l->fresh;

	(void)now;
	l->fresh = 0;
	return fresh;
}

static int
local_done(struct rntop_collector *col, long long now)
{
	struct local *l = (struct local *)col;

	retry_without_limits(l, now);
	if (l->child.out_fd == -1 && rntop_child_reap(&l->child))
		return 1;
	return now >= l->start + l->timeout;
}

/* --once is over: what nvidia-smi gave, or why it gave nothing. */
static void
finish_once(struct local *l)
{
	struct rntop_child *c = &l->child;

	if (!l->host.have_snap)
		rntop_gpustat_flush(&c->ps);
	if (l->host.have_snap)
		set_error(l, RNTOP_HOST_OK, NULL);
	else if (c->out_fd == -1)
		set_error(l, RNTOP_HOST_ERROR, rntop_child_failure(c));
	else
		set_error(l, RNTOP_HOST_TIMEOUT, said_too(c,
		    xasprintf("nvidia-smi did not answer in %g s",
		    l->o->timeout)));
	l->host.noise = l->noise_base + c->ps.noise;
	note_fault(l, l->now);
	rntop_child_stop(c);
}

static void
local_settle(struct rntop_collector *col, long long now, int final)
{
	struct local *l = (struct local *)col;
	struct rntop_host *h = &l->host;

	l->now = now;
	if (final)
		finish_once(l);
	/* a report due because nothing came for that long finds it stale */
	if (h->have_snap && now - h->snap_ms < l->silent)
		h->state = RNTOP_HOST_OK;
	else if (h->have_snap)
		h->state = RNTOP_HOST_STALE;
	else if (l->fail_state != RNTOP_HOST_OK)
		h->state = l->fail_state;
	else if (now - l->start < l->timeout && !final)
		h->state = RNTOP_HOST_WAITING;
	else
		h->state = RNTOP_HOST_TIMEOUT;
	if (h->state == RNTOP_HOST_STALE && h->error == NULL)
		set_error(l, RNTOP_HOST_STALE, xasprintf("no sample for "
		    "%.1f s", (double)(now - h->snap_ms) / 1000));
}

static void
local_free(struct rntop_collector *col)
{
	struct local *l = (struct local *)col;

	if (l == NULL)
		return;
	rntop_child_release(&l->child);
	rntop_hosts_release(&l->host, 1);
	free(l->exe);
	free(l);
}

static const struct rntop_collector_ops local_ops = {
	.start = local_start,
	.pollfds = local_pollfds,
	.step = local_step,
	.news = local_news,
	.done = local_done,
	.settle = local_settle,
	.free = local_free,
};

struct rntop_collector *
rntop_local_open(const struct rntop_opts *o, int argc, char **argv,
    struct rai_err *err)
{
	struct local *l;
	long long quiet = RNTOP_MS(o->interval) / 4;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "localhost") != 0)) {
		rai_err_set(err, RAI_E_USAGE, "--local watches this machine "
		    "only; leave out the host names");
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	l->o = o;
	if (rntop_find_exe(o->nvidia_smi ? o->nvidia_smi : "nvidia-smi",
	    &l->exe, err) == -1) {
		free(l);
		return NULL;
	}
	snprintf(l->loop_ms, sizeof(l->loop_ms), "%lld",
	    RNTOP_MS(o->interval));
	l->timeout = RNTOP_MS(o->timeout);
	l->silent = RNTOP_MS(o->interval + o->timeout);
	l->quiet = quiet < 50 ? 50 : quiet > 500 ? 500 : quiet;
	l->fail_state = RNTOP_HOST_OK;
	l->host.name = xstrdup("localhost");
	rntop_child_init(&l->child);
	l->c.ops = &local_ops;
	l->c.hosts = &l->host;
	l->c.nhosts = 1;
	l->c.max_fds = 2;
	l->c.report_every = l->silent;
	return &l->c;
}
