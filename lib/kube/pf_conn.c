/*
 * One forwarded connection: the local socket and the pod's bytes
 * waiting for it, and the pod's side, a WebSocket of its own
 * (kube_wsconn, framed by kube_pf_demux) or a pair of streams in a SPDY
 * tunnel; its reads, its end, its poll entries and its step in a round,
 * each side kept from outrunning the other. The loop (pf_loop.c) owns
 * the connections and the tunnels and calls in here; nothing here
 * calls the loop.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/time.h"
#include "kube/pf_conn.h"
#include "kube/pf_tunnel.h"
#include "kube/portforward.h"
#include "kube/ws.h"
#include "kube/wsconn.h"

#include "core/banned.h"

#define RECV_CHUNK		((size_t)64 * 1024)
#define LOCAL_CHUNK		((size_t)32 * 1024)
/* pod bytes written to the local side in pieces this large */
#define LOCAL_BATCH		((size_t)256 * 1024)
/* the local side is not read while this much waits for the WebSocket */
#define SENDQ_HIGH		((size_t)256 * 1024)
/* a data message larger than this is a broken peer */
#define MESSAGE_MAX		((size_t)16 * 1024 * 1024)

static const char *const subprotocols[] = { KUBE_PF_PROTOCOL, NULL };

/* ---- one forwarded connection ---- */

static size_t
tolocal_left(const struct conn *c)
{
	return c->tolocal.len - c->tolocal_off;
}

/* Pod bytes wait in tolocal, to reach the local side in few writes. */
static int
on_pod_data(void *ud, const char *data, size_t len, struct rai_err *err)
{
	struct conn *c = ud;

	(void)err;
	if (!c->local_gone)
		rai_buf_add(&c->tolocal, data, len);
	return 0;
}

void
pf_flush_local(struct conn *c)
{
	ssize_t n;

	while (tolocal_left(c) > 0 && !c->local_gone) {
		n = send(c->fd, c->tolocal.data + c->tolocal_off,
		    tolocal_left(c), MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == -1) {
			c->local_gone = 1;
			break;
		}
		c->tolocal_off += (size_t)n;
	}
	rai_buf_reset(&c->tolocal);
	c->tolocal_off = 0;
}

static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct conn *c = ud;

	return kube_wsconn_answer_control(c->ws, opcode, payload, len,
	    &c->close_received, err);
}

/*
 * Reads the WebSocket while the local side keeps up: pod bytes gather
 * in tolocal and go out LOCAL_BATCH at a time; once the local side
 * takes no more, the rest stays in the socket (or in TLS: c->more says
 * a read is owed when tolocal drains, as poll() cannot see TLS's bytes).
 */
int
pf_read_ws(struct conn *c, struct rai_err *err)
{
	char buf[RECV_CHUNK];
	size_t n;
	int rc;

	c->more = 0;
	while (!c->close_received && !c->ws_eof) {
		if (tolocal_left(c) >= LOCAL_BATCH) {
			pf_flush_local(c);
			if (tolocal_left(c) > 0) {
				c->more = 1;
				return 0;
			}
		}
		rc = kube_wsconn_recv(c->ws, buf, sizeof(buf), &n, err);
		if (rc == -1)
			return -1;
		if (rc == 1)
			c->ws_eof = 1;
		if (rc == 1 || n == 0)
			break;
		if (kube_ws_dec_feed(&c->dec, buf, n, err) == -1)
			return -1;
	}
	pf_flush_local(c);
	return 0;
}

static int
read_local(struct conn *c, struct rai_err *err)
{
	char buf[LOCAL_CHUNK];
	unsigned char mask[4];
	ssize_t n;

	n = recv(c->fd, buf, sizeof(buf), 0);
	if (n == -1 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		/* the end of its half (or a reset): the answer may still come */
		c->local_eof = 1;
		if (n == -1)
			c->local_gone = 1;
		/* SPDY can tell the pod; the channel protocol cannot */
		if (c->tun != NULL && n == 0 && !c->pair.data_end)
			return kube_pf_tunnel_fin(&c->tun->t, &c->pair, err);
		return 0;
	}
	if (c->tun != NULL)
		return kube_pf_tunnel_send(&c->tun->t, &c->pair, buf,
		    (size_t)n, err);
	kube_wsconn_mask(c->ws, mask);
	return kube_chan_encode_data(&c->ws->sendq, 0, buf, (size_t)n, mask,
	    err);
}

/* Over: the server closed, or the local side is gone. */
int
pf_conn_over(const struct conn *c)
{
	if (c->local_gone)
		return 1;
	if (c->tun != NULL)
		return !c->waiting && c->pair.data_end && c->pair.error_end &&
		    tolocal_left(c) == 0;
	if (c->ws_eof || (c->close_received && kube_wsconn_unsent(c->ws) == 0))
		return tolocal_left(c) == 0;
	return 0;
}

const char *
pf_err_text(const struct rai_err *err)
{
	return err->message != NULL ? err->message : "unknown error";
}

void
pf_report(struct conn *c, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	if (c->pf->event == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->pf->event(c->pf->ud, KUBE_PF_EV_ERROR, c->l, text);
}

void
pf_conn_free(struct conn *c)
{
	if (c->ws != NULL) {
		kube_wsconn_release(c->ws);
		free(c->ws);
	}
	if (c->tun != NULL)
		kube_pf_tunnel_detach(&c->tun->t, &c->pair);
	kube_pf_pair_release(&c->pair);
	kube_ws_dec_release(&c->dec);
	kube_pf_demux_release(&c->demux);
	rai_buf_release(&c->tolocal);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* Ends a connection: our close frame (best effort), the error text. */
void
pf_conn_end(struct conn *c)
{
	struct rai_err ignored = RAI_ERR_INIT;
	const char *text = c->tun != NULL ? rai_buf_str(&c->pair.error) :
	    kube_pf_demux_error(&c->demux);

	if (c->ws != NULL && !c->upgrading && !c->ws_eof &&
	    kube_wsconn_queue_close(c->ws, KUBE_WS_CLOSE_NORMAL, &ignored) == 0)
		(void)kube_wsconn_flush(c->ws, &ignored);
	rai_err_release(&ignored);
	if (*text != '\0')
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, text);
	if (c->fd >= 0)
		(void)shutdown(c->fd, SHUT_RDWR);
}

/* Pod bytes that came through the tunnel. */
static void
on_pair_data(void *ud, const char *data, size_t len)
{
	struct conn *c = ud;

	c->answered = 1;
	if (!c->local_gone)
		rai_buf_add(&c->tolocal, data, len);
}

/* A connection just accepted, its bytes not going anywhere yet. */
struct conn *
pf_conn_new(struct kube_pf *pf, const struct kube_pf_listener *l, int fd)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	c->pf = pf;
	c->l = l;
	c->fd = fd;
	rai_buf_init(&c->tolocal, 0);
	kube_pf_demux_init(&c->demux, l->remote_port, on_pod_data, c);
	kube_ws_dec_init(&c->dec, MESSAGE_MAX, kube_pf_demux_on_data,
	    on_control, &c->demux, c);
	kube_pf_pair_init(&c->pair, on_pair_data, c);
	return c;
}

/*
 * Starts the connection's own WebSocket; -1 when it failed at once
 * (reported). The handshake goes on in the loop (conn_upgrade), beside
 * every other connection's.
 */
int
pf_conn_start_ws(struct conn *c)
{
	struct rai_err err = RAI_ERR_INIT;
	char *path = kube_pf_path(c->pf->ns, c->pf->pod, c->l->remote_port);
	int rc;

	c->upgrading = 1;
	c->ws = xmalloc(sizeof(*c->ws));
	/* one of many connections, each small to hold */
	rc = kube_wsconn_start(c->ws, c->pf->kc, path, subprotocols, 0, &err);
	free(path);
	if (rc == -1)
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(&err));
	rai_err_release(&err);
	return rc;
}

/* The handshake's next step: 0 on the way or done, -1 failed (err). */
static int
conn_upgrade(struct conn *c, short revents, struct rai_err *err)
{
	int rc = kube_wsconn_handshake(c->ws, revents, err);

	if (rc != 1)
		return rc;
	c->upgrading = 0;
	if (kube_ws_dec_feed(&c->dec, c->ws->early.data, c->ws->early.len,
	    err) == -1)
		return -1;
	/* what TLS read ahead with the upgrade's answer: poll() cannot see it */
	return pf_read_ws(c, err);
}

/* The pod's bytes that gather for one connection: write them if due. */
int
pf_conn_full(struct conn *c)
{
	if (tolocal_left(c) >= LOCAL_BATCH)
		pf_flush_local(c);
	return tolocal_left(c) >= LOCAL_BATCH;
}


/* ---- a connection's round ---- */

/* One connection's poll entries, at pfds[0] (local) and [1] (WebSocket). */
void
pf_conn_events(struct conn *c, struct pollfd *p, long *wake_at)
{
	size_t unsent;

	p[0].revents = p[1].revents = 0;
	p[1].fd = -1;
	p[1].events = 0;
	if (c->upgrading) {
		/* the local side waits (in its socket) for the WebSocket */
		p[0].fd = -1;
		p[0].events = 0;
		kube_wsconn_handshake_wait(c->ws, &p[1], &c->wake_at);
		if (*wake_at == -1 || c->wake_at < *wake_at)
			*wake_at = c->wake_at;
		return;
	}
	p[0].fd = c->waiting || c->refused ? -1 : c->fd;
	p[0].events = 0;
	if (c->tun != NULL) {
		if (!c->local_eof && !c->pair.data_end &&
		    kube_pf_tunnel_unsent(&c->tun->t) < SENDQ_HIGH)
			p[0].events |= POLLIN;
		if (tolocal_left(c) > 0)
			p[0].events |= POLLOUT;
		return;
	}
	if (c->ws == NULL)
		return;
	unsent = kube_wsconn_unsent(c->ws);
	if (!c->local_eof && unsent < SENDQ_HIGH && !c->close_received &&
	    !c->ws->close_sent)
		p[0].events |= POLLIN;
	if (tolocal_left(c) > 0)
		p[0].events |= POLLOUT;
	p[1].fd = kube_wsconn_fd(c->ws);
	if (tolocal_left(c) == 0 && !c->ws_eof && !c->close_received)
		p[1].events |= POLLIN;
	if (unsent > 0)
		p[1].events |= POLLOUT;
}

/* A connection in a tunnel: its local side only (the loop moves the tunnel). */
static int
tunnelled_step(struct conn *c, const struct pollfd *p, struct rai_err *err)
{
	if (c->local_eof && (p[0].revents & (POLLHUP | POLLERR)))
		c->local_gone = 1;
	if (p[0].revents & POLLOUT)
		pf_flush_local(c);
	if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !c->local_eof)
		return read_local(c, err);
	return 0;
}

/* The handshake of a connection's own WebSocket; -1: drop it. */
static int
upgrade_step(struct conn *c, const struct pollfd *p)
{
	struct rai_err err = RAI_ERR_INIT;

	/* a step when its socket or its timer says so */
	if ((p[1].fd == -1 || p[1].revents == 0) && rai_now_ms() < c->wake_at)
		return 0;
	if (conn_upgrade(c, p[1].fd == -1 ? 0 : p[1].revents, &err) == -1) {
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(&err));
		c->refused = 1;
	}
	rai_err_release(&err);
	return c->refused ? -1 : 0;
}

/* Moves what one connection's poll entries allow; -1: drop it. */
int
pf_conn_step(struct conn *c, const struct pollfd *p)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc = 0;

	if (c->refused)
		return -1;
	if (c->upgrading)
		return upgrade_step(c, p);
	if (c->waiting)
		return 0;
	if (c->tun != NULL) {
		if (tunnelled_step(c, p, &err) == -1) {
			pf_report(c, "an error occurred forwarding "
			    "%u -> %u: %s", c->l->local_port,
			    c->l->remote_port, pf_err_text(&err));
			c->local_gone = 1;
		}
		rai_err_release(&err);
		return pf_conn_over(c) ? -1 : 0;
	}
	/* a hang-up or error the client will not read past: it is gone */
	if (c->local_eof && (p[0].revents & (POLLHUP | POLLERR)))
		c->local_gone = 1;
	if (p[0].revents & POLLOUT) {
		pf_flush_local(c);
		if (c->more && tolocal_left(c) == 0)
			rc = pf_read_ws(c, &err);
	}
	if (rc == 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
		rc = pf_read_ws(c, &err);
	if (rc == 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    !c->local_eof)
		rc = read_local(c, &err);
	if (rc == 0)
		rc = kube_wsconn_flush(c->ws, &err);
	if (rc == -1) {
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(&err));
		c->ws_eof = 1;
	}
	rai_err_release(&err);
	return rc == -1 || pf_conn_over(c) ? -1 : 0;
}
