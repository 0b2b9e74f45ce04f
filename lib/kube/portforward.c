/*
 * Port forwarding: local listeners, and for each accepted connection a
 * WebSocket to the pod's portforward subresource (kube_wsconn), all
 * moved by one poll() loop. The channel framing is kube_pf_demux
 * (pure); this file moves bytes and keeps each side from outrunning
 * the other.
 */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
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
#define DEFAULT_MAX_CONNS	1024
/*
 * Connections whose WebSocket is still being set up: more wait in the
 * listener's backlog. Each costs a TLS context (tens of KB) while the
 * API server answers upgrades one after another anyway, so a burst of
 * 100 connections would hold 100 contexts for no time won; browsers open
 * about 6 connections to a host, which this leaves room for.
 */
#define MAX_UPGRADING		8
/* a check asked for by a stream's end waits this long after it and the last */
#define SUSPECT_GAP_MS		250L

static const char *const subprotocols[] = { KUBE_PF_PROTOCOL, NULL };

/* ---- pure parts ---- */

static int
parse_port(const char *s, size_t len, int zero_ok, unsigned *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 5)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > 65535 || (v == 0 && !zero_ok))
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
kube_pf_parse_spec(const char *spec, unsigned *local, unsigned *remote,
    struct rai_err *err)
{
	const char *colon = strchr(spec, ':');
	unsigned l = 0, r;

	if (colon == NULL) {
		if (parse_port(spec, strlen(spec), 0, &r) == -1)
			goto bad;
		l = r;
	} else {
		if (colon != spec && parse_port(spec, (size_t)(colon - spec), 1,
		    &l) == -1)
			goto bad;
		if (parse_port(colon + 1, strlen(colon + 1), 0, &r) == -1)
			goto bad;
	}
	*local = l;
	*remote = r;
	return 0;
bad:
	return rai_err_set(err, RAI_E_USAGE, "invalid port '%s': want "
	    "[LOCAL:]REMOTE with ports 1-65535 (an empty LOCAL picks a free "
	    "one)", spec);
}

char *
kube_pf_path(const char *ns, const char *pod, unsigned port)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base, num[8];

	base = kube_path(&KUBE_RES_PODS, ns, pod, "portforward");
	rai_buf_addstr(&b, base);
	free(base);
	snprintf(num, sizeof(num), "%u", port);
	kube_path_query(&b, "ports", num);
	return rai_buf_detach(&b, NULL);
}

void
kube_pf_demux_init(struct kube_pf_demux *d, unsigned port,
    kube_pf_data_fn *fn, void *ud)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->cur = -1;
	d->fn = fn;
	d->ud = ud;
	rai_buf_init(&d->error, KUBE_PF_ERROR_MAX + 1);
}

/* Takes the channel's port bytes from the front of a message's data. */
static int
eat_prefix(struct kube_pf_demux *d, const char **data, size_t *len,
    struct rai_err *err)
{
	unsigned *have = &d->prefix_len[d->cur];
	unsigned port;

	while (*have < 2 && *len > 0) {
		d->prefix[d->cur][(*have)++] = (unsigned char)**data;
		(*data)++;
		(*len)--;
	}
	if (*have < 2)
		return 0;
	port = d->prefix[d->cur][0] | (unsigned)d->prefix[d->cur][1] << 8;
	if (port != d->port)
		return rai_err_set(err, RAI_E_PROTO, "the server named port "
		    "%u on channel %d of a stream for port %u", port, d->cur,
		    d->port);
	return 0;
}

int
kube_pf_demux_on_data(void *demux, int opcode, const char *data, size_t len,
    unsigned flags, struct rai_err *err)
{
	struct kube_pf_demux *d = demux;
	size_t room;

	if (opcode != KUBE_WS_BINARY)
		return rai_err_set(err, RAI_E_PROTO, "the server sent a text "
		    "message on a binary port-forward stream");
	if (flags & KUBE_WS_FIRST)
		d->cur = -1;
	if (d->cur == -1 && len > 0) {
		d->cur = (unsigned char)data[0];
		data++;
		len--;
		if (d->cur > 1)
			return rai_err_set(err, RAI_E_PROTO, "the server sent "
			    "data on channel %d of a one-port stream", d->cur);
	}
	if (d->cur >= 0 && d->prefix_len[d->cur] < 2 &&
	    eat_prefix(d, &data, &len, err) == -1)
		return -1;
	if (d->cur == 0 && len > 0)
		return d->fn(d->ud, data, len, err);
	if (d->cur == 1 && len > 0) {
		room = KUBE_PF_ERROR_MAX - d->error.len;
		rai_buf_add(&d->error, data, len < room ? len : room);
	}
	return 0;
}

const char *
kube_pf_demux_error(const struct kube_pf_demux *d)
{
	return d->error.len > 0 ? rai_buf_str(&d->error) : "";
}

void
kube_pf_demux_release(struct kube_pf_demux *d)
{
	rai_buf_release(&d->error);
}

/* ---- listening ---- */

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int
kube_pf_listen(const char *addr, unsigned port, struct kube_pf_listener *l,
    struct rai_err *err)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	memset(l, 0, sizeof(*l));
	if (strcmp(addr, "localhost") == 0)
		addr = "127.0.0.1";
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		sl = sizeof(*v4);
		snprintf(l->addr, sizeof(l->addr), "%s", addr);
	} else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		sl = sizeof(*v6);
		snprintf(l->addr, sizeof(l->addr), "[%s]", addr);
	} else
		return rai_err_set(err, RAI_E_USAGE, "invalid address '%s': "
		    "want an IP address or localhost", addr);
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return rai_err_errno(err, errno, "socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1 ||
	    listen(fd, 128) == -1 || set_nonblock(fd) == -1 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == -1) {
		rai_err_errno(err, errno, "unable to listen on %s:%u", l->addr,
		    port);
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->local_port = ntohs(ss.ss_family == AF_INET ? v4->sin_port :
	    v6->sin6_port);
	return 0;
}

/* ---- one forwarded connection ---- */

struct conn {
	struct kube_pf			*pf;
	const struct kube_pf_listener	*l;
	int				 fd;		/* the local side */
	struct kube_wsconn		*ws;
	struct kube_ws_dec		 dec;
	struct kube_pf_demux		 demux;
	struct rai_buf			 tolocal;	/* pod bytes not written yet */
	size_t				 tolocal_off;
	int				 local_eof;	/* the client ended its half */
	int				 local_gone;	/* it can take no more */
	int				 close_received;
	int				 ws_eof;
	int				 more;	/* the socket may hold unread bytes */
	int				 upgrading;	/* the handshake goes on */
	int				 refused;	/* it failed */
	long				 wake_at;	/* the handshake's timer */
};

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

static void
flush_local(struct conn *c)
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

	if (opcode == KUBE_WS_PING)
		return kube_wsconn_pong(c->ws, payload, len, err);
	if (opcode == KUBE_WS_CLOSE) {
		c->close_received = 1;
		return kube_wsconn_queue_close(c->ws, KUBE_WS_CLOSE_NORMAL, err);
	}
	return 0;
}

/*
 * Reads the WebSocket while the local side keeps up: pod bytes gather
 * in tolocal and go out LOCAL_BATCH at a time; once the local side
 * takes no more, the rest stays in the socket (or in TLS: c->more says
 * a read is owed when tolocal drains, as poll() cannot see TLS's bytes).
 */
static int
read_ws(struct conn *c, struct rai_err *err)
{
	char buf[RECV_CHUNK];
	size_t n;
	int rc;

	c->more = 0;
	while (!c->close_received && !c->ws_eof) {
		if (tolocal_left(c) >= LOCAL_BATCH) {
			flush_local(c);
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
	flush_local(c);
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
		return 0;
	}
	kube_wsconn_mask(c->ws, mask);
	return kube_chan_encode_data(&c->ws->sendq, 0, buf, (size_t)n, mask,
	    err);
}

/* Over: the server closed, or the local side is gone. */
static int
conn_over(const struct conn *c)
{
	if (c->local_gone)
		return 1;
	if (c->ws_eof || (c->close_received && kube_wsconn_unsent(c->ws) == 0))
		return tolocal_left(c) == 0;
	return 0;
}

static const char *
err_text(const struct rai_err *err)
{
	return err->message != NULL ? err->message : "unknown error";
}

static void
report(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
report(struct conn *c, const char *fmt, ...)
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

static void
conn_free(struct conn *c)
{
	if (c->ws != NULL) {
		kube_wsconn_release(c->ws);
		free(c->ws);
	}
	kube_ws_dec_release(&c->dec);
	kube_pf_demux_release(&c->demux);
	rai_buf_release(&c->tolocal);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* Ends a connection: our close frame (best effort), the error text. */
static void
conn_end(struct conn *c)
{
	struct rai_err ignored = RAI_ERR_INIT;
	const char *text = kube_pf_demux_error(&c->demux);

	if (!c->upgrading && !c->ws_eof &&
	    kube_wsconn_queue_close(c->ws, KUBE_WS_CLOSE_NORMAL, &ignored) == 0)
		(void)kube_wsconn_flush(c->ws, &ignored);
	rai_err_release(&ignored);
	if (*text != '\0')
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, text);
	if (c->fd >= 0)
		(void)shutdown(c->fd, SHUT_RDWR);
}

/*
 * Starts the WebSocket for a connection just accepted; NULL when it
 * failed at once. The handshake goes on in the loop (conn_upgrade),
 * beside every other connection's.
 */
static struct conn *
conn_start(struct kube_pf *pf, const struct kube_pf_listener *l, int fd)
{
	struct rai_err err = RAI_ERR_INIT;
	struct conn *c = xcalloc(1, sizeof(*c));
	char *path = kube_pf_path(pf->ns, pf->pod, l->remote_port);
	int rc;

	c->pf = pf;
	c->l = l;
	c->fd = fd;
	c->upgrading = 1;
	rai_buf_init(&c->tolocal, 0);
	kube_pf_demux_init(&c->demux, l->remote_port, on_pod_data, c);
	kube_ws_dec_init(&c->dec, MESSAGE_MAX, kube_pf_demux_on_data,
	    on_control, &c->demux, c);
	c->ws = xmalloc(sizeof(*c->ws));
	rc = kube_wsconn_start(c->ws, pf->kc, path, subprotocols, &err);
	free(path);
	if (rc == -1) {
		report(c, "an error occurred forwarding %u -> %u: %s",
		    l->local_port, l->remote_port, err_text(&err));
		rai_err_release(&err);
		c->fd = -1;	/* the caller closes it */
		conn_free(c);
		return NULL;
	}
	return c;
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
	return read_ws(c, err);
}

/* ---- the loop ---- */

struct loop {
	struct kube_pf	*pf;
	struct conn	**conns;
	size_t		 nconns;
	size_t		 max_conns;
	struct pollfd	*pfds;
	int		 suspect;	/* a stream's end asks for a check */
	long		 suspect_at;	/* since when (rai_now_ms) */
	int		 fds_out;	/* no descriptor left: wait for a close */
	long		 last_check;
	long		 wake_at;	/* a handshake's timer (rai_now_ms), -1 */
};

/*
 * One connection from the listener's backlog per poll(): accepting the
 * whole backlog at once starts every handshake of a burst together,
 * which holds more memory (a TLS context each) for no time won, since
 * the server takes the handshakes one after another anyway.
 */
static void
accept_one(struct loop *lp, const struct kube_pf_listener *l)
{
	struct conn *c;
	int fd;

	if ((fd = accept(l->fd, NULL, NULL)) == -1) {
		/* the backlog keeps the client until a connection ends */
		if (errno == EMFILE || errno == ENFILE)
			lp->fds_out = lp->nconns > 0;
		return;
	}
	if (set_nonblock(fd) == -1 || fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		close(fd);
		return;
	}
	if (lp->pf->event != NULL)
		lp->pf->event(lp->pf->ud, KUBE_PF_EV_CONNECTION, l, NULL);
	if ((c = conn_start(lp->pf, l, fd)) == NULL) {
		close(fd);
		lp->suspect = 1;
		return;
	}
	lp->conns[lp->nconns++] = c;
}

static void
drop_conn(struct loop *lp, size_t i)
{
	struct conn *c = lp->conns[i];

	conn_end(c);
	/* the server ending or refusing a stream can mean the pod went away */
	if (c->close_received || c->ws_eof || c->refused)
		lp->suspect = 1;
	conn_free(c);
	lp->conns[i] = lp->conns[--lp->nconns];
	lp->fds_out = 0;
}

/* One connection's poll entries, at pfds[0] (local) and [1] (WebSocket). */
static void
conn_events(struct conn *c, struct pollfd *p, long *wake_at)
{
	if (c->upgrading) {
		/* the local side waits (in its socket) for the WebSocket */
		p[0].fd = -1;
		p[0].events = p[0].revents = 0;
		kube_wsconn_handshake_wait(c->ws, &p[1], &c->wake_at);
		if (*wake_at == -1 || c->wake_at < *wake_at)
			*wake_at = c->wake_at;
		return;
	}
	p[0].fd = c->fd;
	p[0].events = 0;
	if (!c->local_eof && kube_wsconn_unsent(c->ws) < SENDQ_HIGH &&
	    !c->close_received && !c->ws->close_sent)
		p[0].events |= POLLIN;
	if (tolocal_left(c) > 0)
		p[0].events |= POLLOUT;
	p[1].fd = kube_wsconn_fd(c->ws);
	p[1].events = 0;
	if (tolocal_left(c) == 0 && !c->ws_eof && !c->close_received)
		p[1].events |= POLLIN;
	if (kube_wsconn_unsent(c->ws) > 0)
		p[1].events |= POLLOUT;
	p[0].revents = p[1].revents = 0;
}

/* Moves what one connection's poll entries allow; -1: drop it. */
static int
conn_step(struct conn *c, const struct pollfd *p)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc = 0;

	if (c->upgrading) {
		/* a step when its socket or its timer says so */
		if ((p[1].fd == -1 || p[1].revents == 0) &&
		    rai_now_ms() < c->wake_at)
			return 0;
		if (conn_upgrade(c, p[1].fd == -1 ? 0 : p[1].revents,
		    &err) == -1) {
			report(c, "an error occurred forwarding %u -> %u: %s",
			    c->l->local_port, c->l->remote_port, err_text(&err));
			c->refused = 1;
		}
		rai_err_release(&err);
		return c->refused ? -1 : 0;
	}
	/* a hang-up or error the client will not read past: it is gone */
	if (c->local_eof && (p[0].revents & (POLLHUP | POLLERR)))
		c->local_gone = 1;
	if (p[0].revents & POLLOUT) {
		flush_local(c);
		if (c->more && tolocal_left(c) == 0)
			rc = read_ws(c, &err);
	}
	if (rc == 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
		rc = read_ws(c, &err);
	if (rc == 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    !c->local_eof)
		rc = read_local(c, &err);
	if (rc == 0)
		rc = kube_wsconn_flush(c->ws, &err);
	if (rc == -1) {
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(&err));
		c->ws_eof = 1;
	}
	rai_err_release(&err);
	return rc == -1 || conn_over(c) ? -1 : 0;
}

/* When the next check is due (rai_now_ms), or -1 for never. */
static long
check_due(const struct loop *lp)
{
	long due = -1;

	if (lp->pf->check == NULL)
		return -1;
	if (lp->pf->tick_ms > 0)
		due = lp->last_check + lp->pf->tick_ms;
	if (lp->suspect) {
		long at = (lp->last_check > lp->suspect_at ? lp->last_check :
		    lp->suspect_at) + SUSPECT_GAP_MS;

		if (due == -1 || at < due)
			due = at;
	}
	return due;
}

static int
poll_timeout(const struct loop *lp)
{
	long due = check_due(lp), left;

	if (lp->wake_at != -1 && (due == -1 || lp->wake_at < due))
		due = lp->wake_at;
	if (due == -1)
		return -1;
	left = due - rai_now_ms();
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

static int
maybe_check(struct loop *lp, struct rai_err *err)
{
	long due = check_due(lp);
	int suspect = lp->suspect, rc;

	if (due == -1 || rai_now_ms() < due)
		return 0;
	lp->suspect = 0;
	if ((rc = lp->pf->check(lp->pf->ud, lp->pf, suspect, err)) != 0)
		return rc;
	lp->last_check = rai_now_ms();
	return 0;
}

/*
 * A stream's end (as every connection to an HTTP/1.0 server ends) asks
 * for a check SUSPECT_GAP_MS later; an upgrade the API server let
 * through meanwhile shows the pod was still there and answers it, so a
 * burst of short connections does not stop the loop for a GET after
 * each other one. `before`: the earlier rounds' question, unanswered;
 * lp->suspect: this round's.
 */
static void
note_suspect(struct loop *lp, int before)
{
	if (lp->suspect && !before)
		lp->suspect_at = rai_now_ms();
	lp->suspect |= before;
}

static int
loop_step(struct loop *lp, struct rai_err *err)
{
	struct kube_pf *pf = lp->pf;
	size_t nl = pf->nlisteners, i, base = nl + 1;
	int n, accepting, suspect, was_upgrading, upgraded = 0;
	size_t upgrading = 0;

	for (i = 0; i < lp->nconns; i++)
		upgrading += lp->conns[i]->upgrading != 0;
	accepting = lp->nconns < lp->max_conns && !lp->fds_out &&
	    upgrading < MAX_UPGRADING;
	for (i = 0; i < nl; i++) {
		lp->pfds[i].fd = accepting ? pf->listeners[i].fd : -1;
		lp->pfds[i].events = POLLIN;
		lp->pfds[i].revents = 0;
	}
	lp->pfds[nl].fd = pf->stop_fd;
	lp->pfds[nl].events = POLLIN;
	lp->pfds[nl].revents = 0;
	lp->wake_at = -1;
	for (i = 0; i < lp->nconns; i++)
		conn_events(lp->conns[i], &lp->pfds[base + 2 * i], &lp->wake_at);
	n = poll(lp->pfds, base + 2 * lp->nconns, poll_timeout(lp));
	if (n == -1)
		return errno == EINTR ? 0 : rai_err_errno(err, errno,
		    "waiting for the forwarded connections");
	if (lp->pfds[nl].revents)
		return 1;
	suspect = lp->suspect;
	lp->suspect = 0;
	/* backwards: drop_conn moves the last connection into slot i */
	for (i = lp->nconns; i-- > 0;) {
		was_upgrading = lp->conns[i]->upgrading;
		if (conn_step(lp->conns[i], &lp->pfds[base + 2 * i]) == -1)
			drop_conn(lp, i);
		else if (was_upgrading && !lp->conns[i]->upgrading)
			upgraded = 1;
	}
	for (i = 0; i < nl; i++)
		if (lp->pfds[i].revents & POLLIN)
			accept_one(lp, &pf->listeners[i]);
	note_suspect(lp, suspect && !upgraded);
	return maybe_check(lp, err);
}

int
kube_pf_run(struct kube_pf *pf, struct rai_err *err)
{
	struct loop lp;
	int rc;

	memset(&lp, 0, sizeof(lp));
	lp.pf = pf;
	lp.max_conns = pf->max_conns > 0 ? pf->max_conns : DEFAULT_MAX_CONNS;
	lp.conns = xcalloc(lp.max_conns, sizeof(*lp.conns));
	lp.pfds = xcalloc(pf->nlisteners + 1 + 2 * lp.max_conns,
	    sizeof(*lp.pfds));
	lp.last_check = rai_now_ms();
	while ((rc = loop_step(&lp, err)) == 0)
		;
	while (lp.nconns > 0)
		drop_conn(&lp, lp.nconns - 1);
	free(lp.conns);
	free(lp.pfds);
	return rc == 1 ? 0 : -1;
}
