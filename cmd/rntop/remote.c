/*
 * The SSH collector: the hosts of the command line and --hostfile
 * (resolve.c), all watched by the library's SSH engine (lib/rntop/ssh),
 * whose sockets the monitor loop polls with its own. --once is done
 * when every host answered or failed, or at connect timeout + timeout;
 * live, the first answers of every host are news, later ones wait for
 * the loop's interval.
 *
 * The engine counts time in seconds from its caller's clock: it gets
 * rai_now_ms() / 1000, so its deadlines and ours are one clock.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collector.h"
#include "core/alloc.h"
#include "resolve.h"
#include "rntop/ssh.h"

#include "core/banned.h"

/*
 * With owners, a host's owner block is asked for again when its GPUs'
 * memory in use changes (a process came or went), and at least this
 * often otherwise (seconds): each block is an nvidia-smi run there.
 */
#define OWNER_REFRESH_S	30

struct remote {
	struct rntop_collector	 c;		/* first: what the loop sees */
	const struct rntop_opts	*o;
	struct rntop_ssh	*eng;
	long long		 start;
	long long		 first_answer;	/* when a host first answered */
	long long		 now;		/* of the step reading */
	int			 first_done;	/* the first report was due */
	/*
	 * The engine's entry per host (all), of which the loop polls only
	 * the live sockets: poll() refuses more entries than RLIMIT_NOFILE,
	 * so with a low limit the idle hosts' entries must not go to it.
	 * map[k] is the host of the loop's entry k.
	 */
	struct pollfd		*all;
	size_t			*map;
	size_t			 nall;
};

/* The engine's clock: the same one, in seconds. */
static double
engine_time(long long ms)
{
	return (double)ms / 1000;
}

static void
on_snapshot(void *ud, size_t idx, const struct rntop_snap *s)
{
	struct remote *r = ud;

	if (r->first_answer == 0)
		r->first_answer = r->now;
	rntop_host_take_snap(&r->c.hosts[idx], s, r->now);
}

static void
on_procs(void *ud, size_t idx, const struct rntop_procs *p)
{
	struct remote *r = ud;
	struct rntop_host *h = &r->c.hosts[idx];

	rntop_procs_copy(&h->procs, p);
	h->have_procs = 1;
}

static enum rntop_host_state
failure_state(enum rntop_ssh_fail f)
{
	switch (f) {
	case RNTOP_SSHF_DOWN: return RNTOP_HOST_DOWN;
	case RNTOP_SSHF_HOSTKEY: return RNTOP_HOST_HOSTKEY;
	case RNTOP_SSHF_AUTH: return RNTOP_HOST_AUTH;
	case RNTOP_SSHF_TIMEOUT: return RNTOP_HOST_TIMEOUT;
	default: return RNTOP_HOST_ERROR;
	}
}

static void
set_own_text(char **dst, char *msg)
{
	rntop_host_set_text(dst, msg);
	free(msg);
}

/*
 * A host taking turns for the sockets (rntop/ssh.h, max_sessions) that
 * answered: resting, waiting for a socket or connecting for its next
 * one-shot, its data is as live as a polled host's between polls.
 */
static int
between_turns(const struct rntop_ssh_status *st, const struct rntop_host *h)
{
	if (!st->polling || !h->have_snap)
		return 0;
	switch (st->state) {
	case RNTOP_SSH_REST:
	case RNTOP_SSH_IDLE:
	case RNTOP_SSH_CONNECT:
	case RNTOP_SSH_HANDSHAKE:
	case RNTOP_SSH_AUTH:
		return 1;
	default:
		return 0;
	}
}

/* One host's state for outputs, from the engine and its data's age. */
static void
settle_host(struct remote *r, size_t i, long long now, int final)
{
	const struct rntop_opts *o = r->o;
	struct rntop_host *h = &r->c.hosts[i];
	struct rntop_ssh_status st;
	unsigned long k;
	int live;

	rntop_ssh_status(r->eng, i, &st);
	live = st.state == RNTOP_SSH_STREAM || st.state == RNTOP_SSH_POLL ||
	    st.state == RNTOP_SSH_DONE || st.state == RNTOP_SSH_INVENTORY ||
	    between_turns(&st, h);
	/* the fault lines among the new noise are kept */
	for (k = h->noise_seen + 1; k <= st.noise; k++)
		rntop_host_note_line(h, rntop_ssh_noise_line(r->eng, i, k), now);
	h->noise_seen = h->noise = st.noise;
	h->polling = st.polling;
	h->mode = st.state == RNTOP_SSH_DONE ? "once" :
	    st.polling ? "poll" : "stream";
	h->retry_in_ms = st.retry_at > 0 ?
	    (long long)((st.retry_at - engine_time(now)) * 1000) : 0;
	if (h->retry_in_ms < 0)
		h->retry_in_ms = 0;
	rntop_host_set_text(&h->warning, st.warning);
	rntop_host_set_text(&h->fingerprint, st.fingerprint);
	h->host_key = rntop_key_check_name(st.key);
	if (live && st.fail == RNTOP_SSHF_NONE && h->have_snap &&
	    (st.state == RNTOP_SSH_DONE ||
	    now - h->snap_ms < RNTOP_MS(o->interval + o->timeout))) {
		h->state = RNTOP_HOST_OK;
		rntop_host_set_text(&h->error, NULL);
	} else if (st.fail != RNTOP_SSHF_NONE) {
		h->state = failure_state(st.fail);
		rntop_host_set_text(&h->error, st.error);
	} else if (live && h->have_snap) {
		h->state = RNTOP_HOST_STALE;
		set_own_text(&h->error, xasprintf("no sample for %.1f s",
		    (double)(now - h->snap_ms) / 1000));
	} else if (final) {
		h->state = RNTOP_HOST_TIMEOUT;
		set_own_text(&h->error, xasprintf("no answer in %g s (%s)",
		    o->connect_timeout + o->timeout,
		    rntop_ssh_state_name(st.state)));
	} else {
		h->state = RNTOP_HOST_WAITING;
		rntop_host_set_text(&h->error, NULL);
	}
}

/*
 * The first report waits for every host, but no longer than an
 * interval after the first one answered: one hung host (its session
 * up, its nvidia-smi silent) must not hold back the others' numbers
 * for the whole --timeout. It then shows as waiting.
 */
static long long
first_due(const struct remote *r)
{
	return r->first_answer + RNTOP_MS(r->o->interval);
}

static int
remote_start(struct rntop_collector *col, long long now, struct rai_err *err)
{
	struct remote *r = (struct remote *)col;

	(void)err;
	r->start = r->now = now;
	return 0;
}

/* The entries with a socket, into pfd; returns how many. */
static size_t
compact_pollfds(struct remote *r, struct pollfd *pfd)
{
	size_t i, k = 0;

	for (i = 0; i < r->nall; i++)
		if (r->all[i].fd != -1) {
			pfd[k] = r->all[i];
			r->map[k++] = i;
		}
	return k;
}

static size_t
remote_pollfds(struct rntop_collector *col, struct pollfd *pfd,
    long long now, long long *wake)
{
	struct remote *r = (struct remote *)col;
	double wait = engine_time(*wake - now), before = wait;
	long long ms;
	size_t n;

	r->nall = rntop_ssh_pollfds(r->eng, r->all, engine_time(now), &wait);
	n = compact_pollfds(r, pfd);
	if (wait < before) {
		/* a millisecond late rather than a spin before the deadline */
		ms = wait <= 0 ? 0 : (long long)(wait * 1000) + 1;
		if (now + ms < *wake)
			*wake = now + ms;
	}
	if (r->o->once) {
		ms = RNTOP_MS(r->o->connect_timeout + r->o->timeout);
		if (r->start + ms < *wake)
			*wake = r->start + ms;
	}
	if (!r->o->once && !r->first_done && r->first_answer > 0 &&
	    first_due(r) < *wake)
		*wake = first_due(r);
	return n;
}

static void
remote_step(struct rntop_collector *col, const struct pollfd *pfd, size_t n,
    long long now)
{
	struct remote *r = (struct remote *)col;
	size_t k;

	r->now = now;
	for (k = 0; k < n; k++)
		r->all[r->map[k]].revents = pfd[k].revents;
	rntop_ssh_step(r->eng, r->all, r->nall, engine_time(now));
}

static int
remote_news(struct rntop_collector *col, long long now)
{
	struct remote *r = (struct remote *)col;

	if (r->first_done)
		return 0;
	if (rntop_ssh_settled(r->eng) ||
	    (r->first_answer > 0 && now >= first_due(r))) {
		r->first_done = 1;
		return 1;
	}
	if (now >= r->start + RNTOP_MS(r->o->timeout))
		r->first_done = 1;
	return 0;
}

static int
remote_done(struct rntop_collector *col, long long now)
{
	struct remote *r = (struct remote *)col;

	return rntop_ssh_settled(r->eng) || now >= r->start +
	    RNTOP_MS(r->o->connect_timeout + r->o->timeout);
}

static void
remote_settle(struct rntop_collector *col, long long now, int final)
{
	struct remote *r = (struct remote *)col;
	size_t i;

	for (i = 0; i < r->c.nhosts; i++)
		settle_host(r, i, now, final);
}

static void
remote_free(struct rntop_collector *col)
{
	struct remote *r = (struct remote *)col;

	if (r == NULL)
		return;
	rntop_ssh_free(r->eng);
	rntop_hosts_release(r->c.hosts, r->c.nhosts);
	free(r->all);
	free(r->map);
	free(r->c.hosts);
	free(r);
}

static const struct rntop_collector_ops remote_ops = {
	.start = remote_start,
	.pollfds = remote_pollfds,
	.step = remote_step,
	.news = remote_news,
	.done = remote_done,
	.settle = remote_settle,
	.free = remote_free,
};

/*
 * Descriptors kept free beside the hosts' sockets: the terminal, the
 * cluster's watches, ssh-agent during authentication, a known_hosts
 * file being read, the --log file.
 */
#define FD_RESERVE	24

/* Descriptors open now (0, 1, 2 and what came before). */
static long
fds_open(void)
{
	DIR *d = opendir("/dev/fd");
	struct dirent *de;
	long n = 0;

	if (d == NULL)
		return 3;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

/*
 * One socket per host: lifts the soft fd limit to the hard one, and
 * returns how many sockets fit under it beside what is open and the
 * reserve (0: no limit). Hosts past that take turns (rntop/ssh.h).
 */
static int
socket_budget(void)
{
	struct rlimit rl;
	long room;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX)
		return 0;
	room = (long)rl.rlim_cur - fds_open() - FD_RESERVE;
	return room < 1 ? 1 : (int)room;
}

static int
check_opts(const struct rntop_opts *o, struct rai_err *err)
{
	if (o->concurrency < 1 || o->concurrency > 4096)
		return rai_err_set(err, RAI_E_USAGE, "--concurrency must be "
		    "from 1 to 4096");
	if (!(o->connect_timeout >= 0.1 && o->connect_timeout <= 3600))
		return rai_err_set(err, RAI_E_USAGE, "--connect-timeout must "
		    "be from 0.1 to 3600 seconds");
	if (!(o->reconnect_max >= 0.1 && o->reconnect_max <= 86400))
		return rai_err_set(err, RAI_E_USAGE, "--reconnect-max must be "
		    "from 0.1 to 86400 seconds");
	if (o->nvidia_smi != NULL && !rntop_remote_path_ok(o->nvidia_smi))
		return rai_err_set(err, RAI_E_USAGE, "--nvidia-smi '%s' cannot "
		    "be sent to a remote shell: use letters, digits and /._+- "
		    "only", o->nvidia_smi);
	if (o->username != NULL && !rntop_user_name_ok(o->username))
		return rai_err_set(err, RAI_E_USAGE, "bad user name '%s'",
		    o->username);
	return 0;
}

/* Resolves every target and hands it to the engine. */
static int
add_hosts(struct remote *r, const struct rntop_targets *ts,
    struct rai_err *err)
{
	struct rntop_resolved *rs = xcalloc(ts->n, sizeof(*rs));
	size_t i;
	int rc;

	rc = rntop_resolve_all(r->o, ts, rs, err);
	r->c.hosts = xcalloc(ts->n, sizeof(*r->c.hosts));
	for (i = 0; rc == 0 && i < ts->n; i++) {
		const struct rntop_resolved *rv = &rs[i];
		struct rntop_host *h = &r->c.hosts[r->c.nhosts];
		struct rntop_ssh_target t;

		memset(&t, 0, sizeof(t));
		t.name = ts->v[i].spec;
		t.hostname = rv->hostname;
		t.user = rv->user;
		t.port = rv->port;
		t.identities = rv->ids.v;
		t.nidentities = rv->ids.n;
		t.known_hosts = rv->kh.v;
		t.nknown_hosts = rv->kh.n;
		t.global_known_hosts = rv->gkh.v;
		t.nglobal_known_hosts = rv->gkh.n;
		t.strict = rv->strict;
		rntop_ssh_add(r->eng, &t);
		h->name = xstrdup(ts->v[i].spec);
		h->address = rntop_resolved_address(rv);
		r->c.nhosts++;
	}
	for (i = 0; i < ts->n; i++)
		rntop_resolved_release(&rs[i]);
	free(rs);
	return rc;
}

struct rntop_collector *
rntop_remote_open(const struct rntop_opts *o, int argc, char **argv,
    struct rai_err *err)
{
	struct rntop_targets ts = { NULL, 0 };
	struct rntop_ssh_conf conf;
	struct remote *r = xcalloc(1, sizeof(*r));

	r->o = o;
	r->c.ops = &remote_ops;
	if (check_opts(o, err) == -1 ||
	    rntop_collect_targets(o, argc, argv, &ts, err) == -1)
		goto fail;
	memset(&conf, 0, sizeof(conf));
	conf.use_agent = !o->no_agent;
	conf.nvidia_smi = o->nvidia_smi ? o->nvidia_smi : "nvidia-smi";
	conf.query = RNTOP_GPUSTAT_QUERY_LIMITS;
	conf.loop_ms = o->once ? 0 : (long)RNTOP_MS(o->interval);
	conf.interval = o->interval;
	conf.connect_timeout = o->connect_timeout;
	conf.timeout = o->timeout;
	conf.keepalive = 15;
	conf.backoff_base = o->reconnect_max < 2 ? o->reconnect_max / 2 : 1;
	conf.backoff_max = o->reconnect_max;
	conf.max_connecting = (int)o->concurrency;
	conf.max_sessions = socket_budget();
	conf.reconnect = !o->once;
	conf.owner_every = o->interval > OWNER_REFRESH_S ? o->interval :
	    OWNER_REFRESH_S;
	if ((r->eng = rntop_ssh_new(&conf, on_snapshot, r, err)) == NULL ||
	    (o->processes && rntop_ssh_owners(r->eng, on_procs, err) == -1) ||
	    add_hosts(r, &ts, err) == -1)
		goto fail;
	rntop_targets_release(&ts);
	r->c.max_fds = rntop_ssh_count(r->eng);
	r->all = xcalloc(r->c.max_fds + 1, sizeof(*r->all));
	r->map = xcalloc(r->c.max_fds + 1, sizeof(*r->map));
	r->c.report_every = RNTOP_MS(o->interval);
	return &r->c;
fail:
	rntop_targets_release(&ts);
	remote_free(&r->c);
	return NULL;
}
