/*
 * rntop monitor (the default command): watch the GPUs of this machine
 * (--local) with batch output: --once (one JSON snapshot) or --batch
 * (JSON Lines, one per refresh, flushed), plus the original rntop's CSV
 * log (--output). Collection over SSH and the interactive screen come
 * later; asking for them says so.
 *
 * --once runs nvidia-smi once; --batch keeps one "nvidia-smi -lms N"
 * stream running and reports each snapshot as it comes (nvidia-smi
 * paces them), and when none comes for interval + timeout, the host's
 * state all the same. A host whose newest snapshot is older than
 * interval + timeout is stale;
 * a stream silent that long is killed and restarted with backoff; a
 * failing nvidia-smi is restarted too. Unknown values stay null.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rai_alloc.h"
#include "rntop.h"

#include "banned.h"

#define RNTOP_BACKOFF_MAX	60.0

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

struct monitor {
	const struct rntop_opts	*o;
	struct rntop_host	 host;		/* one for now: --local */
	char			*exe;
	char			 loop_ms[32];
	enum rntop_host_state	 fail_state;	/* with host.error */
	unsigned long		 noise_base;	/* of earlier children */
	double			 start;
	int			 fresh;		/* a snapshot not reported yet */
	struct rntop_ui		*ui;		/* the screen, or NULL */
	int			 quit;		/* q typed */
	int			 redraw;	/* the screen wants a redraw */
};

static void
set_error(struct monitor *m, enum rntop_host_state st, char *msg)
{
	free(m->host.error);
	m->host.error = msg;
	m->fail_state = st;
}

static void
on_snapshot(void *ud, const struct rntop_snap *s)
{
	struct monitor *m = ud;

	rntop_snap_copy(&m->host.snap, s);
	m->host.have_snap = 1;
	m->host.snap_time = rntop_now();
	m->host.backoff = 0;
	m->fresh = 1;
	set_error(m, RNTOP_HOST_OK, NULL);
}

static int
start_child(struct monitor *m, int loop, struct rai_err *err)
{
	char *argv[8];
	int n = 0;

	argv[n++] = m->exe;
	argv[n++] = (char *)(uintptr_t)("--query-gpu=" RNTOP_GPUSTAT_QUERY);
	argv[n++] = (char *)(uintptr_t)"--format=csv,noheader,nounits";
	if (loop) {
		argv[n++] = (char *)(uintptr_t)"-lms";
		argv[n++] = m->loop_ms;
	}
	argv[n] = NULL;
	m->host.restart_at = 0;
	return rntop_child_start(&m->host.child, m->exe, argv, on_snapshot, m,
	    err);
}

static int
child_running(const struct rntop_child *c)
{
	return c->pid > 0 || c->out_fd != -1;
}

/* Waits up to wait seconds for output of the child and parses it. */
static void
pump(struct monitor *m, double wait)
{
	struct rntop_child *c = &m->host.child;
	struct pollfd pfd[3];
	nfds_t n = 0, i;
	int ms = wait <= 0 ? 0 : (int)(wait * 1000) + 1, keys;

	if (m->ui != NULL) {
		/* a resize (SIGWINCH) interrupts poll: getch tells */
		keys = rntop_ui_keys(m->ui);
		m->quit |= keys & RNTOP_UI_QUIT;
		m->redraw |= keys & RNTOP_UI_REDRAW;
		if (m->quit || m->redraw)
			return;
		pfd[n++] = (struct pollfd){ .fd = 0, .events = POLLIN };
	}
	if (c->out_fd != -1)
		pfd[n++] = (struct pollfd){ .fd = c->out_fd, .events = POLLIN };
	if (c->err_fd != -1)
		pfd[n++] = (struct pollfd){ .fd = c->err_fd, .events = POLLIN };
	if (n == 0 || (m->ui != NULL && n == 1)) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return;
	}
	if (poll(pfd, n, ms) <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (pfd[i].fd != 0)
			rntop_child_read(c, pfd[i].fd);
		else if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			m->quit = 1;	/* the terminal went away */
	}
	m->host.noise = m->noise_base + c->ps.noise;
}

/* The host's state now, from what it sent and when. */
static void
settle(struct monitor *m, double now)
{
	struct rntop_host *h = &m->host;
	double limit = m->o->interval + m->o->timeout;

	if (h->have_snap && now - h->snap_time <= limit)
		h->state = RNTOP_HOST_OK;
	else if (h->have_snap)
		h->state = RNTOP_HOST_STALE;
	else if (m->fail_state != RNTOP_HOST_OK)
		h->state = m->fail_state;
	else if (now - m->start < m->o->timeout)
		h->state = RNTOP_HOST_WAITING;
	else
		h->state = RNTOP_HOST_TIMEOUT;
	if (h->state == RNTOP_HOST_STALE && h->error == NULL)
		set_error(m, RNTOP_HOST_STALE, xasprintf("no sample for %.1f s",
		    now - h->snap_time));
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
retire_child(struct monitor *m, double now)
{
	struct rntop_host *h = &m->host;

	rntop_child_stop(&h->child);
	m->noise_base += h->child.ps.noise;
	h->backoff = h->backoff == 0 ? m->o->interval :
	    h->backoff * 2;
	if (h->backoff < 1)
		h->backoff = 1;
	if (h->backoff > RNTOP_BACKOFF_MAX)
		h->backoff = RNTOP_BACKOFF_MAX;
	h->restart_at = now + h->backoff;
}

/* Reports a write error on stdout, unless the reader left. */
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

static int
run_once(struct monitor *m, struct rai_err *err)
{
	struct rntop_host *h = &m->host;
	double now, deadline;
	int rc = 0;

	if (start_child(m, 0, err) == -1)
		return -1;
	deadline = m->start + m->o->timeout;
	while (!stop_signal) {
		now = rntop_now();
		if (h->child.out_fd == -1 && rntop_child_reap(&h->child))
			break;
		if (now >= deadline)
			break;
		pump(m, h->child.out_fd == -1 ? 0.01 : deadline - now);
	}
	now = rntop_now();
	if (!h->have_snap)
		rntop_gpustat_flush(&h->child.ps);
	if (h->have_snap)
		set_error(m, RNTOP_HOST_OK, NULL);
	else if (h->child.out_fd == -1)
		set_error(m, RNTOP_HOST_ERROR,
		    rntop_child_failure(&h->child));
	else
		set_error(m, RNTOP_HOST_TIMEOUT, said_too(&h->child,
		    xasprintf("nvidia-smi did not answer in %g s",
		    m->o->timeout)));
	rntop_child_stop(&h->child);
	m->host.noise = m->noise_base + h->child.ps.noise;
	settle(m, now);
	if (h->state == RNTOP_HOST_WAITING)
		h->state = RNTOP_HOST_TIMEOUT;
	rntop_report_json(stdout, h, 1, m->o->interval, 1);
	if (stdout_failed(err) == -1)
		return -1;
	if (m->o->output != NULL &&
	    rntop_report_csv(m->o->output, h, 1, err) == -1)
		return -1;
	if (h->state != RNTOP_HOST_OK)
		rc = 1;
	return rc;
}

static int
run_batch(struct monitor *m, struct rai_err *err)
{
	const struct rntop_opts *o = m->o;
	struct rntop_host *h = &m->host;
	struct rntop_child *c = &h->child;
	double now, next_emit, wait, silent = o->interval + o->timeout;
	double drawn = 0;
	double quiet = o->interval / 4 < 0.05 ? 0.05 :
	    o->interval / 4 > 0.5 ? 0.5 : o->interval / 4;
	long records = 0;
	int rc = 0;

	if (start_child(m, 1, err) == -1)
		return -1;
	next_emit = m->start + o->timeout;
	while (!stop_signal && !m->quit) {
		now = rntop_now();
		if (child_running(c)) {
			if (c->out_fd == -1 && rntop_child_reap(c)) {
				if (!h->have_snap ||
				    h->snap_time < c->started)
					set_error(m, RNTOP_HOST_ERROR,
					    rntop_child_failure(c));
				else
					set_error(m, RNTOP_HOST_ERROR,
					    xstrdup("nvidia-smi stopped"));
				retire_child(m, now);
			} else if (c->out_fd == -1 && now - c->last_out > 1) {
				/* closed its output but does not exit */
				set_error(m, RNTOP_HOST_ERROR, xstrdup(
				    "nvidia-smi closed its output but did not "
				    "exit; restarting it"));
				retire_child(m, now);
			} else if (c->out_fd != -1 &&
			    now - c->last_out > silent) {
				set_error(m, RNTOP_HOST_TIMEOUT, said_too(c,
				    xasprintf("nvidia-smi sent nothing for "
				    "%g s; restarting it", silent)));
				retire_child(m, now);
			}
		} else if (h->restart_at > 0 && now >= h->restart_at) {
			struct rai_err serr = RAI_ERR_INIT;

			rntop_child_release(c);
			if (start_child(m, 1, &serr) == -1) {
				set_error(m, RNTOP_HOST_ERROR,
				    xstrdup(serr.message ? serr.message :
				    "cannot run nvidia-smi"));
				retire_child(m, now);
			}
			rai_err_release(&serr);
		}
		/*
		 * A loop iteration's rows come in one burst: when they went
		 * quiet, the rows read are the whole snapshot even when it
		 * cannot be told from its rows (the first one, a GPU gone).
		 */
		if (c->out_fd != -1 && c->ps.cur.n > 0 &&
		    now - c->last_out >= quiet)
			rntop_gpustat_flush(&c->ps);
		if (m->ui != NULL && (m->redraw || now - drawn >= 1)) {
			settle(m, now);
			rntop_ui_draw(m->ui, h, 1, o->interval);
			drawn = now;
			m->redraw = 0;
		}
		if (m->fresh || now >= next_emit) {
			settle(m, now);
			if (m->ui != NULL) {
				rntop_ui_draw(m->ui, h, 1, o->interval);
				drawn = now;
			} else {
				rntop_report_json(stdout, h, 1, o->interval,
				    0);
				if ((rc = stdout_failed(err)) != 0)
					break;
			}
			if (o->output != NULL &&
			    records % o->output_every == 0 &&
			    rntop_report_csv(o->output, h, 1, err) == -1) {
				rc = -1;
				break;
			}
			records++;
			m->fresh = 0;
			next_emit = now + silent;
			if (o->iterations > 0 && records >= o->iterations)
				break;
		}
		wait = next_emit - now;
		if (h->restart_at > 0 && h->restart_at - now < wait)
			wait = h->restart_at - now;
		if (child_running(c) && c->out_fd == -1 && wait > 0.01)
			wait = 0.01;	/* waiting to reap */
		if (c->out_fd != -1 && c->last_out + silent - now < wait)
			wait = c->last_out + silent - now;
		if (c->out_fd != -1 && c->ps.cur.n > 0 &&
		    c->last_out + quiet - now < wait)
			wait = c->last_out + quiet - now;
		if (m->ui != NULL && drawn + 1 - now < wait)
			wait = drawn + 1 - now;
		pump(m, wait);
	}
	rntop_child_stop(c);
	return rc < 0 ? -1 : 0;
}

static int
monitor_run(struct rai_ctx *ctx, void *optsp, int argc, char **argv)
{
	const struct rntop_opts *o = optsp;
	struct rai_err *err = rai_ctx_err(ctx);
	struct monitor m;
	int rc;

	if (o->once && o->batch)
		return rai_err_set(err, RAI_E_USAGE,
		    "--once and --batch cannot be used together");
	if (o->once && o->iterations > 0)
		return rai_err_set(err, RAI_E_USAGE,
		    "-n/--iterations goes with --batch");
	if (o->iterations < 0)
		return rai_err_set(err, RAI_E_USAGE,
		    "-n/--iterations must be 0 (no end) or more");
	if (!(o->interval >= 0.05 && o->interval <= 86400))
		return rai_err_set(err, RAI_E_USAGE,
		    "--interval must be from 0.05 to 86400 seconds");
	if (!(o->timeout >= 0.1 && o->timeout <= 3600))
		return rai_err_set(err, RAI_E_USAGE,
		    "--timeout must be from 0.1 to 3600 seconds");
	if (o->output_every < 1)
		return rai_err_set(err, RAI_E_USAGE,
		    "--output-every must be 1 or more");
	if (!o->local) {
		rai_err_set(err, RAI_E_USAGE, argc == 0 ?
		    "no hosts to watch" : "watching hosts over SSH is not "
		    "built yet");
		rai_err_set_hint(err, "use --local to watch this machine's "
		    "GPUs");
		return -1;
	}
	if (argc > 1 || (argc == 1 && strcmp(argv[0], "localhost") != 0))
		return rai_err_set(err, RAI_E_USAGE, "--local watches this "
		    "machine only; leave out the host names");
	memset(&m, 0, sizeof(m));
	m.o = o;
	m.fail_state = RNTOP_HOST_OK;
	if (rntop_find_exe(o->nvidia_smi ? o->nvidia_smi : "nvidia-smi",
	    &m.exe, err) == -1)
		return -1;
	snprintf(m.loop_ms, sizeof(m.loop_ms), "%ld",
	    (long)(o->interval * 1000 + 0.5));
	m.host.name = xstrdup("localhost");
	m.host.child.pid = -1;
	m.host.child.out_fd = m.host.child.err_fd = -1;
	catch_signals();
	/* the screen on a terminal; elsewhere, --batch's JSON Lines */
	if (!o->once && !o->batch && isatty(0) && isatty(1) &&
	    (m.ui = rntop_ui_start(ctx->color, err)) == NULL) {
		rc = -1;
		goto out;
	}
	m.start = rntop_now();
	rc = o->once ? run_once(&m, err) : run_batch(&m, err);
	rntop_ui_end(m.ui);
out:
	rntop_child_release(&m.host.child);
	rntop_snap_release(&m.host.snap);
	free(m.host.error);
	free(m.host.name);
	free(m.exe);
	return rc;
}

static const struct rai_opt monitor_opts[] = {
	{ 0, "local", RAI_OPT_BOOL, offsetof(struct rntop_opts, local), NULL,
	    "watch this machine: run nvidia-smi here, without SSH", NULL,
	    NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "nvidia-smi", RAI_OPT_STRING,
	    offsetof(struct rntop_opts, nvidia_smi), "<path>",
	    "the nvidia-smi program to run (default: found on PATH)", NULL,
	    NULL, RAI_COMP_FILE, 0, NULL },
	{ 0, "once", RAI_OPT_BOOL, offsetof(struct rntop_opts, once), NULL,
	    "print one JSON snapshot and exit", NULL, NULL, RAI_COMP_NONE, 0,
	    NULL },
	{ 0, "batch", RAI_OPT_BOOL, offsetof(struct rntop_opts, batch), NULL,
	    "print one JSON line per refresh", NULL, NULL, RAI_COMP_NONE, 0,
	    NULL },
	{ 'n', "iterations", RAI_OPT_INT,
	    offsetof(struct rntop_opts, iterations), "<count>",
	    "stop after this many refreshes (0: never)", "0",
	    NULL, RAI_COMP_NONE, 0, NULL },
	{ 'd', "interval", RAI_OPT_DOUBLE,
	    offsetof(struct rntop_opts, interval), "<seconds>",
	    "seconds between refreshes", "2", NULL, RAI_COMP_NONE, 0, NULL },
	{ 't', "timeout", RAI_OPT_DOUBLE,
	    offsetof(struct rntop_opts, timeout), "<seconds>",
	    "seconds a host may stay silent past the interval before it is "
	    "stale", "10", NULL, RAI_COMP_NONE, 0, NULL },
	{ 'o', "output", RAI_OPT_STRING, offsetof(struct rntop_opts, output),
	    "<file>", "append samples to this CSV log (rntop's format)", NULL,
	    NULL, RAI_COMP_FILE, 0, NULL },
	{ 0, "output-every", RAI_OPT_INT,
	    offsetof(struct rntop_opts, output_every), "<count>",
	    "log the first refresh and then every Nth", "6", NULL,
	    RAI_COMP_NONE, 0, NULL },
	RAI_OPT_END
};

static const struct rai_example monitor_examples[] = {
	{ "rntop --local", "this machine's GPUs on a live screen" },
	{ "rntop --local --once", "one JSON snapshot of this machine's GPUs" },
	{ "rntop --local --batch -d 1 | jq -c .cluster",
	    "the cluster figures every second, as JSON Lines" },
	{ "rntop --local --batch -n 10 -o gpus.csv --output-every 1",
	    "ten refreshes, each logged to gpus.csv for rntop-board" },
	{ NULL, NULL }
};

const struct rai_cmd rntop_cmd_monitor = {
	.name = "monitor",
	.summary = "watch GPUs on a screen, as JSON or in a CSV log "
	    "(the default command)",
	.synopsis = "--local [--once | --batch] [options]",
	.description = "Runs nvidia-smi and reports every GPU's "
	    "utilisation, memory, temperature and power, with the cluster "
	    "figures weighted by GPU (each GPU with a known value counts "
	    "once) and their coverage (hosts answering, GPUs with known "
	    "values). A value nvidia-smi does not know ([N/A], [Not "
	    "Supported], a lost GPU, utilisation under MIG) is null, never "
	    "0, and the reason is kept under \"unknown\".\n\n"
	    "This is the default command: \"rntop --local --once\" is "
	    "\"rntop monitor --local --once\". For now it watches this "
	    "machine only (--local); watching many nodes over SSH is not "
	    "built yet.\n\n"
	    "On a terminal, without --once or --batch, it shows a screen: "
	    "the cluster line, a row per host and a row per GPU, coloured "
	    "like the original rntop, where red means waste (utilisation "
	    "under 10 %, memory under 50 %) and green a busy GPU (80 % and "
	    "more). Keys: q quits; the arrows, j/k, PgUp/PgDn, space, "
	    "Home/End and g/G scroll the GPUs; ^L redraws. When standard "
	    "input or output is not a terminal, it prints --batch's JSON "
	    "Lines instead.\n\n"
	    "--once runs nvidia-smi once and prints one JSON document; the "
	    "exit status is 1 when a host gave no data (it is still "
	    "reported, with its status and error). --batch keeps one "
	    "\"nvidia-smi -lms\" stream running and prints one JSON line per "
	    "refresh (each sample nvidia-smi takes, every interval), "
	    "flushed at once, until -n lines or a signal; when no sample "
	    "comes for interval + timeout seconds it prints a line all the "
	    "same, with the host \"stale\" (or \"timeout\" or \"error\" "
	    "with the reason). An nvidia-smi that stays silent that long is "
	    "killed "
	    "and restarted, and one that fails is restarted with backoff. "
	    "nvidia-smi runs without a shell, with LC_ALL=C, and is stopped "
	    "when rntop exits.\n\n"
	    "The JSON: {time, interval, cluster: {hosts, hosts_ok, gpus, "
	    "gpus_lost, gpus_utilization_known, gpus_memory_known, "
	    "utilization, memory_used, memory_total, memory_percent}, "
	    "hosts: [{name, status (ok, waiting, stale, timeout or error), "
	    "error, age, noise_lines, gpus: [{index, uuid, name, "
	    "utilization, memory_used, memory_total, temperature, power, "
	    "mig, lost, unknown}]}]}, in %, MiB, degrees C and W. The "
	    "cluster figures count the GPUs of hosts that are ok.\n\n"
	    "--output appends the original rntop's CSV log, read by "
	    "rntop-board: the header "
	    "timestamp,node,index,utilization,memory_used,memory_total when "
	    "the file is empty, then one line per GPU of each answering "
	    "host, with the local time as YYYY/MM/DD HH:MM:SS.mmm and "
	    "memory in MiB; an unknown value is an empty field.",
	.examples = monitor_examples,
	.opts = monitor_opts,
	.opts_size = sizeof(struct rntop_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_HOST,
	.run = monitor_run,
};
