/*
 * The nvidia-smi channel of a host (ssh.c has the map): the stream or a
 * one-shot run on the session, its rows framed by rntop_gpustat, the
 * refused query asked again without the limits' fields, the fallback to
 * one-shot polling, nvidia-smi's failure told from its exit status and
 * stderr; the stream's silence, quiet-flush and poll timers; and the
 * owner blocks beside the stream, asked for on the channel's input when
 * memory in use changes (known empty without asking while every GPU
 * reads 0 MiB). Apart from the session, which only opens the first
 * channel; it ends a host only through ssh_host.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "rntop/gpustat.h"
#include "rntop/owner.h"
#include "rntop/ssh_chan.h"
#include "rntop/ssh_host.h"

#include "core/banned.h"

#define READ_ROUNDS	16	/* reads per channel per step: fairness */

/* Whether a GPU came, went or changed its memory in use. */
static int
memory_changed(const struct rntop_snap *a, const struct rntop_snap *b)
{
	size_t i;
	unsigned mv = RNTOP_V(RNTOP_F_MEM_USED);

	if (a->n != b->n)
		return 1;
	for (i = 0; i < a->n; i++) {
		const struct rntop_gpu *x = &a->gpus[i], *y = &b->gpus[i];

		if (x->index != y->index || strcmp(x->uuid, y->uuid) != 0 ||
		    (x->valid & mv) != (y->valid & mv) ||
		    ((x->valid & mv) && x->mem_used != y->mem_used))
			return 1;
	}
	return 0;
}

/*
 * Whether every GPU of s is known to hold no memory: then no process
 * runs on any (each CUDA context holds some; an idle H100 or H200
 * reads 0 MiB, tests/fixtures/nvidia-smi/real). Unknown is not 0, and
 * a GPU in MIG mode (or of unknown mode) never counts: its processes
 * live in instances this figure does not describe.
 */
static int
no_memory_in_use(const struct rntop_snap *s)
{
	size_t i;
	unsigned mv = RNTOP_V(RNTOP_F_MEM_USED), gv = RNTOP_V(RNTOP_F_MIG);

	if (s->n == 0)
		return 0;
	for (i = 0; i < s->n; i++) {
		const struct rntop_gpu *g = &s->gpus[i];

		if (!(g->valid & mv) || g->mem_used > 0 || !(g->valid & gv) ||
		    g->mig)
			return 0;
	}
	return 1;
}

static void own_known_empty(struct host *);

/*
 * With owners beside the stream: a new block is asked for when the
 * GPUs' memory in use changed since the last request (a process came or
 * went: every GPU process holds memory), or the last one is older than
 * owner_every (a pod may have replaced a process of the same size).
 * Each block costs the host an nvidia-smi start; a steady host asks
 * rarely, and an idle one (no memory in use anywhere) never: its block
 * is known to list no process (own_known_empty). One request at a
 * time; one lost is given up after the stream's dead time.
 */
static void
own_request(struct host *h, const struct rntop_snap *s)
{
	struct rntop_ssh *e = h->eng;

	if (e->procs_cb == NULL || !h->ch_loop)
		return;
	if (h->own_ref.n == 0) {
		/* the block the command prints at its start is for these */
		rntop_snap_copy(&h->own_ref, s);
		return;
	}
	if (h->own_pending && e->now - h->own_asked <= rntop_ssh_dead_after(e))
		return;
	if (!memory_changed(s, &h->own_ref) &&
	    e->now - h->own_asked < e->conf.owner_every)
		return;
	rntop_snap_copy(&h->own_ref, s);
	if (no_memory_in_use(s)) {
		own_known_empty(h);
		return;
	}
	h->own_want = 1;
	h->own_pending = 0;
}

/*
 * The block of a host with no memory in use, without an nvidia-smi
 * run: no process, the driver and CUDA versions of the last block
 * (they do not change under a running stream).
 */
static void
own_known_empty(struct host *h)
{
	struct rntop_procs none;

	memset(&none, 0, sizeof(none));
	none.apps_ok = 1;
	memcpy(none.driver, h->of.cur.driver, sizeof(none.driver));
	memcpy(none.cuda, h->of.cur.cuda, sizeof(none.cuda));
	h->own_want = 0;
	h->own_pending = 0;
	h->own_asked = h->eng->now;
	h->eng->procs_cb(h->eng->ud, h->idx, &none);
}

/* Writes a pending request (one newline); libssh2 may say later. */
static void
own_write(struct host *h)
{
	ssize_t n;

	if (!h->own_want || h->ch == NULL)
		return;
	n = libssh2_channel_write(h->ch, "\n", 1);
	if (n == LIBSSH2_ERROR_EAGAIN)
		return;
	/* an error here shows as a lost channel on the next read */
	h->own_want = 0;
	h->own_pending = n == 1;
	h->own_asked = h->eng->now;
}

static void
on_snap(void *ud, const struct rntop_snap *s)
{
	struct host *h = ud;

	h->ch_snaps++;
	h->answered = 1;
	/* a reconnected stream's first sample frames at its last row */
	rntop_snap_copy(&h->inventory, s);
	rntop_ssh_set_error(h, RNTOP_SSHF_NONE, NULL);
	if (h->eng->cb != NULL)
		h->eng->cb(h->eng->ud, h->idx, s);
	own_request(h, s);
}

static void
on_procs(void *ud, const struct rntop_procs *p)
{
	struct host *h = ud;

	h->own_pending = 0;
	h->eng->procs_cb(h->eng->ud, h->idx, p);
}

static void
on_owner_line(void *ud, const char *line, size_t len)
{
	struct host *h = ud;

	rntop_ownerframe_line(&h->of, line, len);
}

/* Live with reconnects: a long-running stream per host, not a one-shot. */
int
rntop_ssh_streaming(const struct rntop_ssh *e)
{
	return e->conf.reconnect && e->conf.loop_ms > 0;
}

void
rntop_ssh_open_channel(struct host *h, int loop)
{
	rntop_ssh_parser_stop(h);
	rntop_gpustat_init(&h->ps, on_snap, h);
	rntop_gpustat_limits(&h->ps, h->eng->cmd_once_basic != NULL &&
	    !h->basic);
	h->ps_live = 1;
	if (h->eng->procs_cb != NULL) {
		rntop_ownerframe_release(&h->of);
		rntop_ownerframe_init(&h->of, on_procs, h);
		rntop_gpustat_side(&h->ps, RNTOP_OWNER_PREFIX, on_owner_line,
		    h);
	}
	if (loop && h->inventory.n > 0)
		rntop_gpustat_expect(&h->ps, &h->inventory);
	rai_buf_reset(&h->errbuf);
	h->ch_loop = loop;
	h->ch_snaps = 0;
	/* the stream's command prints one owner block unasked */
	h->own_want = 0;
	h->own_pending = 1;
	h->own_asked = h->eng->now;
	h->own_ref.n = 0;
	h->ch_phase = CH_OPEN;
	h->last_out = h->eng->now;
	h->deadline = h->eng->now + h->eng->conf.timeout;
}

/* The first stderr line, sanitised, or NULL. */
static char *
stderr_line(struct host *h)
{
	const char *s;
	char *line, *p;
	size_t n;

	if (h->errbuf.len == 0)
		return NULL;
	s = rai_buf_str(&h->errbuf);
	n = strcspn(s, "\r\n");
	if (n > 200)
		n = 200;
	line = xstrndup(s, n);
	for (p = line; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	return line;
}

/* Why a channel gave no data: its exit status and what it said. */
static char *
nvsmi_failure(struct host *h, int status, const char *sig)
{
	char *said = NULL, *msg;
	char how[96];

	if (h->ps_live && h->ps.last_noise[0] != '\0')
		said = xstrdup(h->ps.last_noise);
	else
		said = stderr_line(h);
	if (sig != NULL)
		snprintf(how, sizeof(how), "nvidia-smi was killed by SIG%s",
		    sig);
	else if (status == 127)
		snprintf(how, sizeof(how), "nvidia-smi not found on %s "
		    "(exit 127)", h->name);
	else
		snprintf(how, sizeof(how), "nvidia-smi exited with status %d",
		    status);
	if (said != NULL && *said != '\0')
		msg = xasprintf("%s: %s", how, said);
	else
		msg = xstrdup(status == 0 && sig == NULL ?
		    "nvidia-smi listed no GPUs" : how);
	free(said);
	return msg;
}

/* A one-shot or the stream ended (the channel is closed and freed). */
static void
channel_done(struct host *h, int status, char *sig)
{
	struct rntop_ssh *e = h->eng;
	unsigned long got;

	if (h->ps_live)
		rntop_gpustat_finish(&h->ps);
	got = h->ch_snaps;
	/*
	 * An older nvidia-smi refused the limits' fields: the same again
	 * at once without them; the refusal was rntop's question, not a
	 * line about the GPUs, so it is not kept as noise.
	 */
	if (got == 0 && !h->basic && e->cmd_once_basic != NULL &&
	    h->ps_live && rntop_gpustat_refused(&h->ps)) {
		h->basic = 1;
		rntop_gpustat_release(&h->ps);
		h->ps_live = 0;
		free(sig);
		rntop_ssh_open_channel(h, h->ch_loop);
		return;
	}
	if (h->ch_loop) {
		/*
		 * No sample at all: the loop form may not work here (an old
		 * nvidia-smi refuses -lms), so one-shots are tried; they fail
		 * with the same message when nvidia-smi itself is broken. A
		 * missing nvidia-smi (127) is not worth the round trip.
		 */
		if (got == 0 && !h->polling && status != 127 && sig == NULL) {
			h->polling = 1;
			h->polled_ok = 0;
			h->state = RNTOP_SSH_POLL;
			h->next_poll = e->now;
			rntop_ssh_parser_stop(h);
			free(sig);
			return;
		}
		rntop_ssh_fail_host(h, RNTOP_SSHF_NVSMI, 0, nvsmi_failure(h,
		    status, sig));
		free(sig);
		return;
	}
	if (got == 0) {
		/*
		 * Polling never worked either: nvidia-smi is broken, not its
		 * loop form, so the next session tries the stream again.
		 */
		if (h->polling && !h->polled_ok)
			h->polling = 0;
		rntop_ssh_fail_host(h, RNTOP_SSHF_NVSMI, 0, nvsmi_failure(h,
		    status, sig));
		free(sig);
		return;
	}
	if (h->polling)
		h->polled_ok = 1;
	free(sig);
	rntop_ssh_parser_stop(h);
	if (!e->conf.reconnect || e->conf.loop_ms == 0) {
		/* --once: the answer is in; leave politely but quickly */
		rntop_ssh_teardown(h);
		h->state = RNTOP_SSH_DONE;
		h->wake_at = 0;
		return;
	}
	if (rntop_ssh_rotating(e)) {
		/* too few descriptors for all: the next host's turn */
		rntop_ssh_teardown(h);
		h->state = RNTOP_SSH_REST;
		h->retry_at = e->now + e->conf.interval;
		return;
	}
	if (h->polling) {
		h->state = RNTOP_SSH_POLL;
		return;
	}
	h->state = RNTOP_SSH_STREAM;
	rntop_ssh_open_channel(h, 1);
}

/* Reads stdout and stderr until libssh2 has nothing more; 1 at EOF. */
static int
drain(struct host *h)
{
	char buf[16384];
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		n = libssh2_channel_read_ex(h->ch, 0, buf, sizeof(buf));
		if (n > 0) {
			h->last_out = h->eng->now;
			rntop_gpustat_feed(&h->ps, buf, (size_t)n);
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			break;
		return (int)n;
	}
	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		n = libssh2_channel_read_ex(h->ch, SSH_EXTENDED_DATA_STDERR,
		    buf, sizeof(buf));
		if (n > 0) {
			if (h->errbuf.len < STDERR_MAX)
				rai_buf_add(&h->errbuf, buf,
				    (size_t)n < STDERR_MAX - h->errbuf.len ?
				    (size_t)n : STDERR_MAX - h->errbuf.len);
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			break;
		return (int)n;
	}
	return libssh2_channel_eof(h->ch) ? 1 : 0;
}

/* Drives the channel; returns -1 when the host failed (torn down). */
int
rntop_ssh_step_channel(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	char *sig = NULL;
	int rc, status;

	switch (h->ch_phase) {
	case CH_NONE:
		return 0;
	case CH_OPEN:
		h->ch = libssh2_channel_open_session(h->s);
		if (h->ch == NULL) {
			rc = libssh2_session_last_errno(h->s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return 0;
			if (rntop_ssh_transport_error(rc))
				rntop_ssh_lost(h, rc);
			else
				rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
				    xasprintf("%s "
				    "refused a session channel: %s", h->kh_name,
				    rntop_ssh_msg(h, "channel failure")));
			return -1;
		}
		h->ch_phase = CH_EXEC;
		/* FALLTHROUGH */
	case CH_EXEC:
		rc = libssh2_channel_exec(h->ch, h->basic ? (h->ch_loop ?
		    e->cmd_loop_basic : e->cmd_once_basic) : h->ch_loop ?
		    e->cmd_loop : e->cmd_once);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc != 0) {
			if (rntop_ssh_transport_error(rc))
				rntop_ssh_lost(h, rc);
			else
				rntop_ssh_fail_host(h, RNTOP_SSHF_NVSMI, 0,
				    xasprintf("%s refused to run a command: %s",
				    h->kh_name, rntop_ssh_msg(h,
				    "exec failed")));
			return -1;
		}
		h->ch_phase = CH_READ;
		/* FALLTHROUGH */
	case CH_READ:
		own_write(h);
		rc = drain(h);
		if (rc < 0) {
			rntop_ssh_lost(h, rc);
			return -1;
		}
		if (rc == 0) {
			own_write(h);	/* asked for by a sample just read */
			return 0;
		}
		h->ch_phase = CH_CLOSE;
		/* FALLTHROUGH */
	case CH_CLOSE:
		rc = libssh2_channel_close(h->ch);
		if (rc == 0)
			rc = libssh2_channel_wait_closed(h->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc != 0 && rntop_ssh_transport_error(rc)) {
			rntop_ssh_lost(h, rc);
			return -1;
		}
		status = libssh2_channel_get_exit_status(h->ch);
		libssh2_channel_get_exit_signal(h->ch, &sig, NULL, NULL, NULL,
		    NULL, NULL);
		libssh2_channel_free(h->ch);
		h->ch = NULL;
		h->ch_phase = CH_NONE;
		channel_done(h, status, sig);
		return h->state == RNTOP_SSH_BACKOFF ||
		    h->state == RNTOP_SSH_FAILED ? -1 : 0;
	}
	return 0;
}

/* A one-shot, or a stream that has sent no row yet: --timeout applies. */
int
rntop_ssh_first_rows_due(const struct host *h)
{
	return !h->ch_loop || (h->ps_live && h->ps.rows == 0);
}

/* Timers of a connected host: silence, quiet flush, polls, keepalive. */
void
rntop_ssh_step_timers(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	double quiet = e->conf.interval / 4;
	int secs = 0;

	if (quiet < 0.05)
		quiet = 0.05;
	if (quiet > 0.5)
		quiet = 0.5;
	/*
	 * The caller marks data stale after interval + timeout; twice that
	 * the stream is given up (a hung driver keeps TCP and SSH happy).
	 */
	if (h->ch_phase != CH_NONE && h->ch_loop &&
	    e->now - h->last_out > rntop_ssh_dead_after(e)) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_TIMEOUT, 0,
		    xasprintf("nvidia-smi sent nothing for %g s; reconnecting",
		    rntop_ssh_dead_after(e)));
		return;
	}
	/* the stream's first rows are the inventory: the one-shot's limit */
	if (h->ch_phase != CH_NONE && rntop_ssh_first_rows_due(h) &&
	    e->now > h->deadline) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_TIMEOUT, 0,
		    xasprintf("nvidia-smi did not answer in %g s",
		    e->conf.timeout));
		return;
	}
	/* a loop iteration's rows come in one burst: quiet means complete */
	if (h->ch_phase == CH_READ && h->ch_loop && h->ps_live &&
	    h->ps.cur.n > 0 && e->now - h->last_out >= quiet) {
		rntop_gpustat_flush(&h->ps);
		own_write(h);
	}
	if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE &&
	    e->now >= h->next_poll) {
		h->next_poll = e->now + e->conf.interval;
		rntop_ssh_open_channel(h, 0);
	}
	/* two minutes of health forgive earlier failures */
	if (h->attempt > 0 && e->now - h->healthy_since > 120)
		h->attempt = 0;
	if (h->s != NULL && e->conf.keepalive > 0)
		libssh2_keepalive_send(h->s, &secs);
	/* a session's untouched buffer pages go back (rntop/ssh_mem.h) */
	if (h->s != NULL && h->trim_at > 0 && e->now >= h->trim_at) {
		(void)rntop_ssh_mem_trim(&h->smem);
		h->trim_at = e->now + RNTOP_SSH_TRIM_EVERY_S;
	}
}
