/*
 * The monitor loop, the same for every collector and every output. Each
 * turn: a report when one is due (the collector has news, or the
 * interval is up), the screen when it needs drawing, then one poll() on
 * the terminal and the collector's descriptors until the next deadline
 * (ours or the collector's), then the collector reads and runs its
 * timers. SIGINT, SIGTERM and SIGHUP end the loop cleanly; SIGPIPE is
 * ignored so a reader leaving shows as EPIPE. One clock: rai_now_ms().
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "core/alloc.h"
#include "kwatch.h"
#include "core/time.h"
#include "loop.h"
#include "report.h"

#include "core/banned.h"

#define DRAW_EVERY_MS	1000	/* ages on the screen move on */
#define IDLE_WAKE_MS	60000	/* no deadline at all: look again then */

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

struct loop {
	const struct rntop_opts	*o;
	struct rntop_collector	*c;
	struct rntop_owners	*ow;		/* with the cluster, else NULL */
	struct rntop_ui		*ui;		/* the screen, or NULL */
	struct rntop_hist	 cluster;	/* the cluster's utilisation */
	struct pollfd		*pfd;		/* the terminal, the collector's */
	long long		 start;
	int			 quit;		/* q typed, or no terminal */
	int			 redraw;	/* the screen wants a redraw */
};

/* 1 when the reader of stdout left, -1 (err) on a write error, else 0. */
static int
stdout_failed(struct rai_err *err)
{
	if (!ferror(stdout))
		return 0;
	if (errno == EPIPE) {
		clearerr(stdout);
		return 1;
	}
	rai_err_errno(err, errno, "write to stdout failed");
	clearerr(stdout);
	return -1;
}

/*
 * Waits until wake at most for the terminal and the collector's
 * descriptors, then has the collector do what came or fell due.
 */
static void
wait_and_step(struct loop *lp, long long now, long long wake)
{
	struct rntop_collector *c = lp->c;
	long long ms;
	size_t n, i;
	int keys;

	lp->pfd[0] = (struct pollfd){ .fd = lp->ui != NULL ? 0 : -1,
	    .events = POLLIN };
	n = c->ops->pollfds(c, lp->pfd + 1, now, &wake);
	/* the cluster's pod lines: last, after the collector's */
	lp->pfd[n + 1] = (struct pollfd){ .fd = lp->ow != NULL ?
	    lp->ow->kw->fd : -1, .events = POLLIN };
	ms = wake - now;
	if (ms < 0)
		ms = 0;
	if (ms > INT_MAX)
		ms = INT_MAX;
	/* a signal or an error: nothing is ready, the timers still run */
	if (poll(lp->pfd, n + 2, (int)ms) == -1)
		for (i = 0; i <= n + 1; i++)
			lp->pfd[i].revents = 0;
	c->ops->step(c, lp->pfd + 1, n, rai_now_ms());
	if (lp->ow != NULL && lp->pfd[n + 1].revents != 0)
		rntop_kwatch_read(lp->ow->kw);
	if (lp->ui == NULL)
		return;
	if (lp->pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		lp->quit = 1;	/* the terminal went away */
	/* a resize (SIGWINCH) interrupts poll: getch tells */
	keys = rntop_ui_keys(lp->ui);
	if (keys & RNTOP_UI_CLEAR_GONE)
		rntop_hosts_clear_gone(c->hosts, c->nhosts);
	lp->quit |= keys & RNTOP_UI_QUIT;
	lp->redraw |= keys & RNTOP_UI_REDRAW;
}

static int
hosts_all_ok(const struct rntop_collector *c)
{
	size_t i;

	for (i = 0; i < c->nhosts; i++)
		if (c->hosts[i].state != RNTOP_HOST_OK)
			return 0;
	return 1;
}

/* A refresh tick for every host: a sample or a gap in its history. */
static void
tick(struct loop *lp, long long now)
{
	size_t i;

	for (i = 0; i < lp->c->nhosts; i++)
		rntop_host_tick(&lp->c->hosts[i], now,
		    RNTOP_MS(lp->o->interval));
}

/* Each host's health and duplicates, from the data just settled. */
static void
health(struct loop *lp, long long now)
{
	struct rntop_health_conf hc = { lp->o->temp_warn, lp->o->power_warn };
	size_t i;

	for (i = 0; i < lp->c->nhosts; i++)
		rntop_host_health(&lp->c->hosts[i], &hc, now);
	rntop_hosts_find_dups(lp->c->hosts, lp->c->nhosts);
}

/* --once: every host's answer, or why not, in one JSON document. */
static int
run_once(struct loop *lp, struct rai_err *err)
{
	const struct rntop_opts *o = lp->o;
	struct rntop_collector *c = lp->c;
	long long now;

	/* the pods' list has as long as the hosts have */
	long long deadline = lp->start + RNTOP_MS(o->connect_timeout +
	    o->timeout);

	while (!stop_signal) {
		now = rai_now_ms();
		if (c->ops->done(c, now) && (lp->ow == NULL ||
		    lp->ow->kw->settled || now >= deadline))
			break;
		wait_and_step(lp, now, now + IDLE_WAKE_MS < deadline ||
		    now >= deadline ? now + IDLE_WAKE_MS : deadline);
	}
	now = rai_now_ms();
	c->ops->settle(c, now, 1);
	tick(lp, now);
	health(lp, now);
	if (lp->ow != NULL)
		rntop_owners_update(lp->ow, c->hosts, c->nhosts, now);
	rntop_report_json(stdout, c->hosts, c->nhosts, o->interval, now, 1,
	    lp->ow);
	if (stdout_failed(err) == -1)
		return -1;
	if (o->output != NULL && rntop_report_csv(o->output, c->hosts,
	    c->nhosts, lp->ow, now, err) == -1)
		return -1;
	return hosts_all_ok(c) ? 0 : 1;
}

/*
 * Hosts up to now and, with the cluster, their owners joined again:
 * the pods an output points to are those of this moment.
 */
static void
settle(struct loop *lp, long long now)
{
	lp->c->ops->settle(lp->c, now, 0);
	health(lp, now);
	if (lp->ow != NULL)
		rntop_owners_update(lp->ow, lp->c->hosts, lp->c->nhosts, now);
}

/* One refresh: the screen or a JSON line, and the CSV log's Nth. */
static int
report(struct loop *lp, long long now, long records, struct rai_err *err)
{
	const struct rntop_opts *o = lp->o;
	struct rntop_collector *c = lp->c;
	int rc;

	settle(lp, now);
	tick(lp, now);
	rntop_cluster_hist_push(&lp->cluster, c->hosts, c->nhosts);
	if (lp->ui != NULL) {
		rntop_ui_draw(lp->ui, c->hosts, c->nhosts, o->interval,
		    &lp->cluster, lp->ow, now);
		lp->redraw = 0;
	} else {
		rntop_report_json(stdout, c->hosts, c->nhosts, o->interval,
		    now, 0, lp->ow);
		if ((rc = stdout_failed(err)) != 0)
			return rc;
	}
	if (o->output != NULL && records % o->output_every == 0 &&
	    rntop_report_csv(o->output, c->hosts, c->nhosts, lp->ow, now,
	    err) == -1)
		return -1;
	return 0;
}

/* --batch and the screen: a refresh per news or interval, until told. */
static int
run_live(struct loop *lp, struct rai_err *err)
{
	const struct rntop_opts *o = lp->o;
	struct rntop_collector *c = lp->c;
	/* the first refresh waits for the collector's news, up to --timeout */
	long long next = lp->start + RNTOP_MS(o->timeout), drawn = 0, now, wake;
	long records = 0;
	int rc = 0, news;

	while (!stop_signal && !lp->quit) {
		now = rai_now_ms();
		news = c->ops->news(c, now);
		if (news || now >= next) {
			if ((rc = report(lp, now, records, err)) != 0)
				break;
			if (lp->ui != NULL)
				drawn = now;
			records++;
			/* on the beat, without drifting; news starts one */
			next = news ? now + c->report_every :
			    next + c->report_every;
			if (next <= now)
				next = now + c->report_every;
			if (o->iterations > 0 && records >= o->iterations)
				break;
		}
		if (lp->ui != NULL &&
		    (lp->redraw || now - drawn >= DRAW_EVERY_MS)) {
			settle(lp, now);
			rntop_ui_draw(lp->ui, c->hosts, c->nhosts, o->interval,
			    &lp->cluster, lp->ow, now);
			drawn = now;
			lp->redraw = 0;
		}
		wake = next;
		if (lp->ui != NULL && drawn + DRAW_EVERY_MS < wake)
			wake = drawn + DRAW_EVERY_MS;
		wait_and_step(lp, now, wake);
	}
	return rc < 0 ? -1 : 0;
}

int
rntop_loop_run(const struct rntop_opts *o, const struct rntop_ui_conf *screen,
    struct rntop_collector *c, struct rntop_owners *ow, struct rai_err *err)
{
	struct loop lp;
	int rc;

	memset(&lp, 0, sizeof(lp));
	lp.o = o;
	lp.c = c;
	lp.ow = ow;
	catch_signals();
	if (screen != NULL && (lp.ui = rntop_ui_start(screen, err)) == NULL)
		return -1;
	lp.pfd = xcalloc(c->max_fds + 2, sizeof(*lp.pfd));
	lp.start = rai_now_ms();
	if (c->ops->start(c, lp.start, err) == -1)
		rc = -1;
	else
		rc = o->once ? run_once(&lp, err) : run_live(&lp, err);
	rntop_ui_end(lp.ui);
	rntop_hist_release(&lp.cluster);
	free(lp.pfd);
	/* ended by a signal: the status a shell gives a process it killed */
	if (rc != -1 && stop_signal != 0)
		rc = 128 + stop_signal;
	return rc;
}
