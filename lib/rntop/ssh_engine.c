/*
 * The SSH engine's entry points (ssh.c has the map): the engine made
 * and the remote commands chosen, hosts added, each host's sockets and
 * next deadline for the caller's poll(), and the step that moves each
 * host through its states (connect, handshake with the host key check,
 * authentication, the nvidia-smi channel, backoff); what the caller
 * may read about a host; the end. On top of the other files: it calls
 * into each, none of them into it.
 */
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "rntop/gpustat.h"
#include "rntop/hosts.h"
#include "rntop/owner.h"
#include "rntop/ssh.h"
#include "rntop/ssh_chan.h"
#include "rntop/ssh_engine.h"
#include "rntop/ssh_host.h"
#include "rntop/ssh_kh.h"
#include "rntop/ssh_session.h"

#include "core/banned.h"

static int	 libssh2_ready;

/*
 * With RNTOP_GPUSTAT_QUERY_LIMITS, the commands an older nvidia-smi
 * that refuses its fields gets instead (RNTOP_GPUSTAT_QUERY).
 */
static void
basic_commands(struct rntop_ssh *e, int owners)
{
	long ms = e->conf.loop_ms > 0 ? e->conf.loop_ms : 1000;

	free(e->cmd_once_basic);
	free(e->cmd_loop_basic);
	e->cmd_once_basic = e->cmd_loop_basic = NULL;
	if (strcmp(e->query, RNTOP_GPUSTAT_QUERY_LIMITS) != 0)
		return;
	e->cmd_once_basic = owners ? rntop_remote_command_owners(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, 0) : rntop_remote_command(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, 0);
	e->cmd_loop_basic = owners ? rntop_remote_command_owners(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, ms) : rntop_remote_command(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, ms);
}

static char **
copy_strv(const char *const *v, size_t n)
{
	char **c = n ? xcalloc(n, sizeof(*c)) : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

static void
free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct rntop_ssh *
rntop_ssh_new(const struct rntop_ssh_conf *conf, rntop_ssh_snap_cb cb,
    void *ud, struct rai_err *err)
{
	struct rntop_ssh *e;
	struct timespec ts;

	if (conf->nvidia_smi == NULL || !rntop_remote_path_ok(conf->nvidia_smi))
		return rai_err_set(err, RAI_E_USAGE, "--nvidia-smi '%s' cannot "
		    "be sent to a remote shell: use letters, digits and "
		    "/._+- only", conf->nvidia_smi ? conf->nvidia_smi : ""),
		    NULL;
	if (!libssh2_ready) {
		if (libssh2_init(0) != 0)
			return rai_err_set(err, RAI_E_SSH, "cannot start "
			    "libssh2"), NULL;
		libssh2_ready = 1;
	}
	e = xcalloc(1, sizeof(*e));
	e->conf = *conf;
	e->nvidia_smi = xstrdup(conf->nvidia_smi);
	e->query = xstrdup(conf->query);
	e->conf.nvidia_smi = e->nvidia_smi;
	e->conf.query = e->query;
	e->cmd_once = rntop_remote_command(e->nvidia_smi, e->query, 0);
	e->cmd_loop = rntop_remote_command(e->nvidia_smi, e->query,
	    conf->loop_ms > 0 ? conf->loop_ms : 1000);
	basic_commands(e, 0);
	if (e->cmd_once == NULL || e->cmd_loop == NULL) {
		rntop_ssh_free(e);
		return rai_err_set(err, RAI_E_INTERNAL, "bad remote query"),
		    NULL;
	}
	if (e->conf.max_connecting < 1)
		e->conf.max_connecting = 1;
	if (e->conf.max_sessions < 0)
		e->conf.max_sessions = 0;
	e->cb = cb;
	e->ud = ud;
	clock_gettime(CLOCK_REALTIME, &ts);
	e->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	    ((uint64_t)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
	return e;
}

int
rntop_ssh_owners(struct rntop_ssh *e, rntop_ssh_procs_cb cb,
    struct rai_err *err)
{
	char *once, *loop;

	once = rntop_remote_command_owners(e->nvidia_smi, e->query, 0);
	loop = rntop_remote_command_owners(e->nvidia_smi, e->query,
	    e->conf.loop_ms > 0 ? e->conf.loop_ms : 1000);
	if (once == NULL || loop == NULL) {
		free(once);
		free(loop);
		return rai_err_set(err, RAI_E_INTERNAL, "bad remote query");
	}
	free(e->cmd_once);
	free(e->cmd_loop);
	e->cmd_once = once;
	e->cmd_loop = loop;
	basic_commands(e, 1);
	e->procs_cb = cb;
	return 0;
}

size_t
rntop_ssh_add(struct rntop_ssh *e, const struct rntop_ssh_target *t)
{
	struct host *h = xcalloc(1, sizeof(*h));

	h->eng = e;
	h->idx = e->n;
	h->name = xstrdup(t->name);
	h->hostname = xstrdup(t->hostname);
	h->user = xstrdup(t->user);
	h->port = t->port > 0 ? t->port : 22;
	/* known_hosts names a host as OpenSSH does: "[host]:port" off 22 */
	h->kh_name = h->port == 22 ? xstrdup(h->hostname) :
	    xasprintf("[%s]:%d", h->hostname, h->port);
	h->ids = copy_strv(t->identities, t->nidentities);
	h->nids = t->nidentities;
	h->kh = copy_strv(t->known_hosts, t->nknown_hosts);
	h->nkh = t->nknown_hosts;
	h->gkh = copy_strv(t->global_known_hosts, t->nglobal_known_hosts);
	h->ngkh = t->nglobal_known_hosts;
	h->strict = t->strict == RNTOP_SHK_UNSET ? RNTOP_SHK_YES : t->strict;
	h->fd = -1;
	h->state = RNTOP_SSH_IDLE;
	h->wake_at = 0;
	rai_buf_init(&h->errbuf, STDERR_MAX + 1);
	e->hosts = xreallocarray(e->hosts, e->n + 1, sizeof(*e->hosts));
	e->hosts[e->n++] = h;
	return h->idx;
}

size_t
rntop_ssh_count(const struct rntop_ssh *e)
{
	return e->n;
}

/* When this host next needs a step without socket activity. */
static double
next_wake(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	double w = 0, quiet = e->conf.interval / 4;

	if (quiet < 0.05)
		quiet = 0.05;
	if (quiet > 0.5)
		quiet = 0.5;
#define SOONER(t) do { double t_ = (t); if (w == 0 || t_ < w) w = t_; } while (0)
	switch (h->state) {
	case RNTOP_SSH_CONNECT:
	case RNTOP_SSH_HANDSHAKE:
	case RNTOP_SSH_AUTH:
		SOONER(h->deadline);
		break;
	case RNTOP_SSH_BACKOFF:
	case RNTOP_SSH_REST:
		SOONER(h->retry_at);
		break;
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		if (h->ch_phase != CH_NONE && h->ch_loop)
			SOONER(h->last_out + rntop_ssh_dead_after(e));
		if (h->ch_phase != CH_NONE && rntop_ssh_first_rows_due(h))
			SOONER(h->deadline);
		if (h->ch_phase == CH_READ && h->ch_loop && h->ps_live &&
		    h->ps.cur.n > 0)
			SOONER(h->last_out + quiet);
		if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE)
			SOONER(h->next_poll);
		if (e->conf.keepalive > 0)
			SOONER(e->now + e->conf.keepalive);
		break;
	default:
		break;
	}
#undef SOONER
	return w;
}

static void
step_host(struct host *h, short revents)
{
	struct rntop_ssh *e = h->eng;
	int rc;

	switch (h->state) {
	case RNTOP_SSH_IDLE:
		if (rntop_ssh_slot_free(e))
			rntop_ssh_start_connect(h);
		break;
	case RNTOP_SSH_BACKOFF:
	case RNTOP_SSH_REST:
		if (e->now >= h->retry_at) {
			h->state = RNTOP_SSH_IDLE;
			if (rntop_ssh_slot_free(e))
				rntop_ssh_start_connect(h);
		}
		break;
	case RNTOP_SSH_CONNECT:
		if (e->now > h->deadline) {
			rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
			    xasprintf("cannot connect to %s port %d: timed out",
			    h->hostname, h->port));
			break;
		}
		rntop_ssh_step_connect(h, revents);
		if (h->state != RNTOP_SSH_HANDSHAKE)
			break;
		/* FALLTHROUGH */
	case RNTOP_SSH_HANDSHAKE:
		rc = libssh2_session_handshake(h->s, h->fd);
		if (rc == LIBSSH2_ERROR_EAGAIN) {
			if (e->now > h->deadline)
				rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
				    xasprintf("SSH handshake with %s timed out",
				    h->kh_name));
			break;
		}
		if (rc != 0) {
			rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
			    xasprintf("SSH handshake with %s failed: %s",
			    h->kh_name, rntop_ssh_msg(h, "error")));
			break;
		}
		if (rntop_ssh_check_hostkey(h) == -1)
			break;
		h->state = RNTOP_SSH_AUTH;
		/* FALLTHROUGH */
	case RNTOP_SSH_AUTH:
		if (e->now > h->deadline) {
			rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
			    xasprintf("authentication with %s timed out",
			    h->kh_name));
			break;
		}
		rntop_ssh_step_auth(h);
		if (h->state != RNTOP_SSH_INVENTORY &&
		    h->state != RNTOP_SSH_POLL)
			break;
		/* FALLTHROUGH */
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		/* a channel may finish and the next one start in one go */
		for (rc = 0; rc < 3; rc++) {
			enum chan_phase before = h->ch_phase;

			if (rntop_ssh_step_channel(h) == -1)
				break;
			if (h->ch_phase == before || h->ch_phase != CH_OPEN)
				break;
		}
		if (h->state == RNTOP_SSH_INVENTORY ||
		    h->state == RNTOP_SSH_STREAM || h->state == RNTOP_SSH_POLL)
			rntop_ssh_step_timers(h);
		/* a poll due now opens its channel: run it at once */
		if (h->ch_phase == CH_OPEN && h->state == RNTOP_SSH_POLL)
			rntop_ssh_step_channel(h);
		break;
	case RNTOP_SSH_DONE:
	case RNTOP_SSH_FAILED:
		break;
	}
	h->wake_at = next_wake(h);
}

static short
wanted_events(struct host *h)
{
	int dirs;
	short ev = 0;

	switch (h->state) {
	case RNTOP_SSH_CONNECT:
		return POLLOUT;
	case RNTOP_SSH_HANDSHAKE:
	case RNTOP_SSH_AUTH:
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		if (h->s == NULL || h->fd == -1)
			return 0;
		/* between polls nothing reads: leave the socket alone */
		if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE)
			return 0;
		dirs = libssh2_session_block_directions(h->s);
		ev = POLLIN;
		if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
			ev |= POLLOUT;
		return ev;
	default:
		return 0;
	}
}

size_t
rntop_ssh_pollfds(struct rntop_ssh *e, struct pollfd *pfd, double now,
    double *wait)
{
	size_t i, n = 0;

	e->now = now;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];
		short ev = wanted_events(h);

		pfd[n].fd = ev ? h->fd : -1;
		pfd[n].events = ev;
		pfd[n].revents = 0;
		n++;
		if (h->wake_at > 0 && h->wake_at - now < *wait)
			*wait = h->wake_at - now;
		if (h->state == RNTOP_SSH_IDLE &&
		    rntop_ssh_slot_free(e))
			*wait = 0;
	}
	if (*wait < 0)
		*wait = 0;
	return n;
}

void
rntop_ssh_step(struct rntop_ssh *e, const struct pollfd *pfd, size_t n,
    double now)
{
	size_t i;

	e->now = now;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];
		short rev = i < n && pfd[i].fd == h->fd && h->fd != -1 ?
		    pfd[i].revents : 0;

		if (rev != 0 || (h->wake_at > 0 && now >= h->wake_at) ||
		    (h->state == RNTOP_SSH_IDLE &&
		    rntop_ssh_slot_free(e)))
			step_host(h, rev);
	}
}

int
rntop_ssh_settled(const struct rntop_ssh *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const struct host *h = e->hosts[i];

		switch (h->state) {
		case RNTOP_SSH_DONE:
		case RNTOP_SSH_FAILED:
		case RNTOP_SSH_BACKOFF:
		case RNTOP_SSH_REST:
			continue;
		case RNTOP_SSH_STREAM:
		case RNTOP_SSH_POLL:
			if (h->answered)
				continue;
			return 0;
		default:
			return 0;
		}
	}
	return 1;
}

void
rntop_ssh_status(const struct rntop_ssh *e, size_t idx,
    struct rntop_ssh_status *st)
{
	const struct host *h = e->hosts[idx];

	memset(st, 0, sizeof(*st));
	st->state = h->state;
	st->fail = h->fail;
	st->error = h->error;
	st->warning = h->warning;
	st->fingerprint = h->fp[0] ? h->fp : NULL;
	st->key = h->key;
	/* taking turns for the sockets is one-shot polling too */
	st->polling = h->polling || rntop_ssh_rotating(e);
	st->noise = h->noise_base + (h->ps_live ? h->ps.noise : 0);
	st->connects = h->connects;
	st->retry_at = h->state == RNTOP_SSH_BACKOFF ? h->retry_at : 0;
}

const char *
rntop_ssh_noise_line(const struct rntop_ssh *e, size_t idx, unsigned long k)
{
	const struct host *h = e->hosts[idx];
	unsigned long total = h->noise_base + (h->ps_live ? h->ps.noise : 0);

	if (k == 0 || k > total || total - k >= RNTOP_NOISE_KEEP)
		return NULL;
	if (k > h->noise_base)
		return rntop_gpustat_noise_line(&h->ps, k - h->noise_base);
	return h->noise_kept[(k - 1) % RNTOP_NOISE_KEEP];
}

void
rntop_ssh_free(struct rntop_ssh *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];

		/* closing the socket closes the channels: nvidia-smi ends */
		rntop_ssh_teardown(h);
		rntop_snap_release(&h->inventory);
		rntop_snap_release(&h->own_ref);
		rntop_ownerframe_release(&h->of);
		rai_buf_release(&h->errbuf);
		free(h->name);
		free(h->hostname);
		free(h->user);
		free(h->kh_name);
		free(h->noise_kept);
		free(h->error);
		free(h->warning);
		free_strv(h->ids, h->nids);
		free_strv(h->kh, h->nkh);
		free_strv(h->gkh, h->ngkh);
		free(h);
	}
	free(e->hosts);
	free(e->nvidia_smi);
	free(e->query);
	free(e->cmd_once);
	free(e->cmd_loop);
	free(e->cmd_once_basic);
	free(e->cmd_loop_basic);
	free(e);
}
