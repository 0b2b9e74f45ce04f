/*
 * The end of a host's session in the SSH engine (ssh.c has the map): its
 * error, the session and socket dropped at once, and the failure that
 * follows: a jittered exponential backoff before the next session, or
 * for good (a refused key or login, --once). The lowest of the engine's
 * files: every other one ends a host through it, and it calls none of
 * them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "rntop/gpustat.h"
#include "rntop/hosts.h"
#include "rntop/ssh_host.h"

#include "core/banned.h"

static double
random01(struct rntop_ssh *e)
{
	/* xorshift64*: jitter only, not security */
	e->rng ^= e->rng >> 12;
	e->rng ^= e->rng << 25;
	e->rng ^= e->rng >> 27;
	return (double)((e->rng * 2685821657736338717ull) >> 11) /
	    9007199254740992.0;
}

void
rntop_ssh_set_error(struct host *h, enum rntop_ssh_fail f, char *take)
{
	free(h->error);
	h->error = take;
	h->fail = f;
}

/* libssh2's last error message, or fallback. */
const char *
rntop_ssh_msg(struct host *h, const char *fallback)
{
	char *msg = NULL;
	int len = 0;

	if (h->s != NULL &&
	    libssh2_session_last_error(h->s, &msg, &len, 0) != 0 &&
	    msg != NULL && *msg != '\0')
		return msg;
	return fallback;
}

void
rntop_ssh_release_slot(struct host *h)
{
	if (h->counted) {
		h->counted = 0;
		h->eng->connecting--;
	}
}

void
rntop_ssh_parser_stop(struct host *h)
{
	unsigned long k;
	const char *line;

	if (h->ps_live) {
		/* its last lines outlive it, for the caller to read */
		if (h->ps.noise > 0 && h->noise_kept == NULL)
			h->noise_kept = xcalloc(RNTOP_NOISE_KEEP,
			    sizeof(*h->noise_kept));
		for (k = 1; k <= h->ps.noise; k++)
			if ((line = rntop_gpustat_noise_line(&h->ps, k)) != NULL)
				snprintf(h->noise_kept[(h->noise_base + k - 1) %
				    RNTOP_NOISE_KEEP], sizeof(h->noise_kept[0]),
				    "%s", line);
		h->noise_base += h->ps.noise;
		rntop_gpustat_release(&h->ps);
		h->ps_live = 0;
	}
}

/* Drops the session and socket at once (no goodbye round trips). */
void
rntop_ssh_teardown(struct host *h)
{
	rntop_ssh_release_slot(h);
	rntop_ssh_parser_stop(h);
	if (h->fd != -1)
		shutdown(h->fd, SHUT_RDWR);	/* libssh2 cannot block now */
	if (h->agent != NULL) {
		libssh2_agent_disconnect(h->agent);
		libssh2_agent_free(h->agent);
		h->agent = NULL;
		h->agent_id = NULL;
	}
	if (h->s != NULL) {
		/* sends fail on the shut socket, so channels free at once */
		(void)libssh2_session_free(h->s);
		/* and what libssh2 left (a key exchange's keys) goes too */
		(void)rntop_ssh_mem_release(&h->smem);
		h->s = NULL;
		h->trim_at = 0;
	}
	h->ch = NULL;
	h->ch_phase = CH_NONE;
	if (h->fd != -1) {
		close(h->fd);
		h->fd = -1;
	}
	if (h->holds_socket) {
		h->holds_socket = 0;
		h->eng->sockets--;
	}
	if (h->ai != NULL) {
		freeaddrinfo(h->ai);
		h->ai = h->ai_cur = NULL;
	}
	free(h->auth_tried);
	h->auth_tried = NULL;
}

/* A failure: the host backs off (or stops for good). */
void
rntop_ssh_fail_host(struct host *h, enum rntop_ssh_fail f, int sticky, char
    *take)
{
	struct rntop_ssh *e = h->eng;
	double delay;

	rntop_ssh_teardown(h);
	rntop_ssh_set_error(h, f, take);
	if (!e->conf.reconnect) {
		h->state = RNTOP_SSH_FAILED;
		h->wake_at = 0;
		return;
	}
	/* a refused key or login will not fix itself soon */
	delay = sticky ? e->conf.backoff_max :
	    rntop_backoff(h->attempt, e->conf.backoff_base,
	    e->conf.backoff_max, random01(e));
	if (delay < 0.05)
		delay = 0.05;
	if (h->attempt < 30)
		h->attempt++;
	h->state = RNTOP_SSH_BACKOFF;
	h->retry_at = e->now + delay;
	h->wake_at = h->retry_at;
}

int
rntop_ssh_transport_error(int rc)
{
	return rc == LIBSSH2_ERROR_SOCKET_RECV ||
	    rc == LIBSSH2_ERROR_SOCKET_SEND ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_NONE || rc == LIBSSH2_ERROR_TIMEOUT ||
	    rc == LIBSSH2_ERROR_KEX_FAILURE || rc == LIBSSH2_ERROR_DECRYPT;
}

void
rntop_ssh_lost(struct host *h, int rc)
{
	rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
	    xasprintf("connection to %s lost: %s", h->kh_name, rntop_ssh_msg(h,
	    rc == 0 ? "closed by the server" : "error")));
}

int
rntop_ssh_slot_free(const struct rntop_ssh *e)
{
	return e->connecting < e->conf.max_connecting &&
	    (e->conf.max_sessions == 0 || e->sockets < e->conf.max_sessions);
}

int
rntop_ssh_rotating(const struct rntop_ssh *e)
{
	return e->conf.reconnect && e->conf.loop_ms > 0 &&
	    e->conf.max_sessions > 0 && e->n > (size_t)e->conf.max_sessions;
}

double
rntop_ssh_dead_after(const struct rntop_ssh *e)
{
	return 2 * (e->conf.interval + e->conf.timeout);
}
