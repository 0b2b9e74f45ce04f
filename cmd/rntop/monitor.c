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

#include "core/alloc.h"
#include "rntop.h"

#include "core/banned.h"

#define RNTOP_BACKOFF_MAX	60.0

volatile sig_atomic_t rntop_stop_signal;

static void
on_signal(int sig)
{
	rntop_stop_signal = sig;
}

void
rntop_catch_signals(void)
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
	struct rntop_hist	 cluster;	/* the cluster's utilisation */
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
	rntop_hist_push(&m->host.hist, s);
	rntop_hist_push_cluster(&m->cluster, &m->host, 1);
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
int
rntop_stdout_failed(struct rai_err *err)
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
	while (!rntop_stop_signal) {
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
	if (rntop_stdout_failed(err) == -1)
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
	while (!rntop_stop_signal && !m->quit) {
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
			rntop_ui_draw(m->ui, h, 1, o->interval, &m->cluster);
			drawn = now;
			m->redraw = 0;
		}
		if (m->fresh || now >= next_emit) {
			settle(m, now);
			if (m->ui != NULL) {
				rntop_ui_draw(m->ui, h, 1, o->interval, &m->cluster);
				drawn = now;
			} else {
				rntop_report_json(stdout, h, 1, o->interval,
				    0);
				if ((rc = rntop_stdout_failed(err)) != 0)
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
	if (!o->local)
		return rntop_remote_run(ctx, o, argc, argv);
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
	rntop_catch_signals();
	/* the screen on a terminal; elsewhere, --batch's JSON Lines */
	if (!o->once && !o->batch && isatty(0) && isatty(1) &&
	    (m.ui = rntop_ui_start(&(struct rntop_ui_conf){
	    .color = o->color == -1 ? ctx->color : o->color,
	    .mem_unit = o->mem_unit, .sort = o->sort }, err)) == NULL) {
		rc = -1;
		goto out;
	}
	m.start = rntop_now();
	rc = o->once ? run_once(&m, err) : run_batch(&m, err);
	rntop_ui_end(m.ui);
out:
	rntop_child_release(&m.host.child);
	rntop_snap_release(&m.host.snap);
	rntop_hist_release(&m.host.hist);
	rntop_hist_release(&m.cluster);
	free(m.host.error);
	free(m.host.name);
	free(m.exe);
	return rc;
}

static const char *const strict_choices[] = { "yes", "accept-new", "no",
	NULL };
static const char *const unit_choices[] = { "mib", "mb", "gib", "gb", NULL };
static const char *const sort_choices[] = { "host", "util", "mem", "state",
	NULL };

static const struct rai_opt monitor_opts[] = {
	{ 0, "local", RAI_OPT_BOOL, offsetof(struct rntop_opts, local), NULL,
	    "watch this machine: run nvidia-smi here, without SSH", NULL,
	    NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "hostfile", RAI_OPT_STRING, offsetof(struct rntop_opts, hostfile),
	    "<file>", "read hosts from this file, one [user@]host[:port] a "
	    "line", NULL, NULL, RAI_COMP_FILE, 0, NULL },
	{ 'l', "username", RAI_OPT_STRING,
	    offsetof(struct rntop_opts, username), "<user>",
	    "log in as this user where the host names none", NULL, NULL,
	    RAI_COMP_NONE, 0, NULL },
	{ 'i', "identity", RAI_OPT_LIST, offsetof(struct rntop_opts, identity),
	    "<file>", "a private key file to try after ssh-agent (repeatable)",
	    NULL, NULL, RAI_COMP_FILE, 0, NULL },
	{ 0, "known-hosts", RAI_OPT_STRING,
	    offsetof(struct rntop_opts, known_hosts), "<file>",
	    "the known_hosts file (default: ~/.ssh/known_hosts)", NULL, NULL,
	    RAI_COMP_FILE, 0, NULL },
	{ 0, "strict-host-key-checking", RAI_OPT_ENUM,
	    offsetof(struct rntop_opts, strict), "<mode>",
	    "unknown host keys: refuse (yes), learn (accept-new) or ignore (no)",
	    NULL, strict_choices, RAI_COMP_CHOICES, 0, NULL },
	{ 'F', "ssh-config", RAI_OPT_STRING,
	    offsetof(struct rntop_opts, ssh_config), "<file>",
	    "the ssh_config file \"ssh -G\" reads", NULL, NULL, RAI_COMP_FILE,
	    0, NULL },
	{ 0, "no-ssh-config", RAI_OPT_BOOL,
	    offsetof(struct rntop_opts, no_ssh_config), NULL,
	    "do not resolve hosts with \"ssh -G\"", NULL, NULL,
	    RAI_COMP_NONE, 0, NULL },
	{ 0, "no-agent", RAI_OPT_BOOL, offsetof(struct rntop_opts, no_agent),
	    NULL, "do not ask ssh-agent for keys", NULL, NULL, RAI_COMP_NONE, 0,
	    NULL },
	{ 0, "concurrency", RAI_OPT_INT,
	    offsetof(struct rntop_opts, concurrency), "<count>",
	    "connections being set up at once", "64", NULL, RAI_COMP_NONE, 0,
	    NULL },
	{ 0, "connect-timeout", RAI_OPT_DOUBLE,
	    offsetof(struct rntop_opts, connect_timeout), "<seconds>",
	    "seconds to connect, check the host key and log in", "10", NULL,
	    RAI_COMP_NONE, 0, NULL },
	{ 0, "reconnect-max", RAI_OPT_DOUBLE,
	    offsetof(struct rntop_opts, reconnect_max), "<seconds>",
	    "longest wait before reconnecting to a failed host", "60", NULL,
	    RAI_COMP_NONE, 0, NULL },
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
	{ 0, "color", RAI_OPT_BOOL, offsetof(struct rntop_opts, color), NULL,
	    "colour the screen (--no-color: never)", NULL, NULL,
	    RAI_COMP_NONE, RAI_OPT_NEGATABLE | RAI_OPT_TRISTATE, NULL },
	{ 0, "mem-unit", RAI_OPT_ENUM, offsetof(struct rntop_opts, mem_unit),
	    "<unit>", "memory unit on the screen", "mib", unit_choices,
	    RAI_COMP_CHOICES, 0, NULL },
	{ 0, "sort", RAI_OPT_ENUM, offsetof(struct rntop_opts, sort), "<key>",
	    "first sort order on the screen (the s key cycles)", "host",
	    sort_choices, RAI_COMP_CHOICES, 0, NULL },
	RAI_OPT_END
};

static const struct rai_example monitor_examples[] = {
	{ "rntop gpu1 gpu2 alice@gpu3:2222",
	    "three nodes on a live screen, over SSH" },
	{ "rntop --hostfile nodes.txt --once | jq .cluster",
	    "one JSON snapshot of every node in nodes.txt" },
	{ "rntop --hostfile nodes.txt --batch -d 1 -o gpus.csv",
	    "JSON Lines every second, and rntop's CSV log for rntop-board" },
	{ "rntop --strict-host-key-checking accept-new -l ops gpu1",
	    "learn gpu1's host key on first use, log in as ops" },
	{ "rntop --local", "this machine's GPUs, without SSH" },
	{ NULL, NULL }
};

const struct rai_cmd rntop_cmd_monitor = {
	.name = "monitor",
	.summary = "watch GPUs on a screen, as JSON or in a CSV log "
	    "(the default command)",
	.synopsis = "[options] [user@]host[:port]... | --hostfile <file> | "
	    "--local",
	.description = "Runs nvidia-smi on every host over SSH (or here, "
	    "with --local) and reports every GPU's utilisation, memory, "
	    "temperature and power, with the cluster figures weighted by GPU "
	    "(each GPU with a known value counts once) and their coverage "
	    "(hosts answering, GPUs unknown). A value nvidia-smi does not "
	    "know ([N/A], [Not Supported], a lost GPU, utilisation under MIG) "
	    "is null, never 0, and the reason is kept under \"unknown\".\n\n"
	    "This is the default command: \"rntop gpu1 --once\" is \"rntop "
	    "monitor gpu1 --once\".\n\n"
	    "Hosts come from the command line and --hostfile (one "
	    "[user@]host[:port] a line; '#' starts a comment; words after the "
	    "host are ignored). Each is resolved like OpenSSH does, by "
	    "running \"ssh -G\" (with -F, -l and the port; no shell), so "
	    "aliases, HostName, User, Port, IdentityFile, UserKnownHostsFile "
	    "and StrictHostKeyChecking from ssh_config apply; "
	    "--no-ssh-config, or no ssh installed, uses the name as given, "
	    "the login name and port 22. ProxyJump and ProxyCommand are not "
	    "supported. Keys: ssh-agent first ($SSH_AUTH_SOCK, unless "
	    "--no-agent), then -i files, then the IdentityFiles (by default "
	    "~/.ssh/id_ed25519, id_ecdsa, id_rsa); never passwords. The host "
	    "key is checked against known_hosts (hashed names, "
	    "\"[host]:port\" entries and @revoked honoured; @cert-authority "
	    "lines are ignored): with --strict-host-key-checking yes (the "
	    "default) an unknown or changed key is refused, accept-new "
	    "learns unknown keys (appended to the first known_hosts file) "
	    "but refuses changed ones, no accepts anything with a warning. "
	    "Errors name the server's key by its SHA256 fingerprint, as "
	    "ssh-keygen -l prints it.\n\n"
	    "One SSH connection per host, all driven from one loop, at most "
	    "--concurrency being set up at once, each within "
	    "--connect-timeout. On each connection rntop first runs a "
	    "one-shot query, then keeps one \"nvidia-smi -lms\" stream "
	    "running (an nvidia-smi without loop mode is polled every "
	    "interval instead). The remote command is fixed text plus the "
	    "--nvidia-smi path (letters, digits and /._+- only) and numbers; "
	    "a watchdog on the remote side ends nvidia-smi when the "
	    "connection closes. A host whose data is older than interval + "
	    "timeout is stale; a stream silent twice that long, a lost "
	    "connection or a failing nvidia-smi is dropped and retried after "
	    "a random delay that doubles up to --reconnect-max; a refused "
	    "host key or login waits --reconnect-max.\n\n"
	    "On a terminal, without --once or --batch, it shows a screen in "
	    "three parts like the original rntop: Cluster (utilisation with "
	    "its history, memory, coverage), Nodes (a row per host: state, "
	    "GPUs, utilisation, memory, age or error) and GPUs (a row per GPU "
	    "with a sparkline of its utilisation), coloured like the original "
	    "rntop, where red means waste (utilisation under 10 %, memory "
	    "under 50 %) and green a busy GPU (80 % and more); --no-color "
	    "turns colours off. Keys: q quits; ? shows help; the arrows, "
	    "j/k, PgUp/PgDn, space, Home/End scroll; s cycles the sort of "
	    "the hosts (host, util, mem, state); / filters hosts by name "
	    "(Enter keeps, Esc drops); p pauses the display; ^L redraws. "
	    "When standard input or output is not a terminal, it prints "
	    "--batch's JSON Lines instead.\n\n"
	    "--once connects to every host, asks once and prints one JSON "
	    "document when all have answered or failed (or after "
	    "--connect-timeout + --timeout); the exit status is 1 when a host "
	    "gave no data (it is still reported, with its status and "
	    "error). --batch prints one JSON line per interval, flushed at "
	    "once, until -n lines or a signal; the first when every host "
	    "has answered or failed, or after --timeout.\n\n"
	    "The JSON: {time, interval, cluster: {hosts, hosts_ok, gpus, "
	    "gpus_lost, gpus_unknown, gpus_utilization_known, "
	    "gpus_memory_known, utilization, memory_used, memory_total, "
	    "memory_percent}, hosts: [{name, status (ok, waiting, stale, "
	    "timeout, error, down, auth or hostkey), error, age, "
	    "noise_lines, and over SSH address, mode (stream, poll or once), "
	    "fingerprint, warning, retry_in; gpus: [{index, uuid, name, "
	    "utilization, memory_used, memory_total, temperature, power, "
	    "mig, lost, unknown}]}]}, in %, MiB, degrees C and W. The "
	    "cluster figures count the GPUs of hosts that are ok; "
	    "gpus_unknown counts GPUs without a utilisation, and those of "
	    "hosts that stopped answering. Only ok and stale hosts list "
	    "GPUs.\n\n"
	    "--local runs nvidia-smi on this machine instead, without a "
	    "shell, with LC_ALL=C; it is stopped when rntop exits.\n\n"
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
