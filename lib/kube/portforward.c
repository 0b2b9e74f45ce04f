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
/*
 * Tunnels at once: the one new connections take, and those of pods the
 * check has let go, kept while their connections finish.
 */
#define MAX_TUNNELS		8
/* connections taken from a listener's backlog in one round, in a tunnel */
#define ACCEPT_BATCH		64

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
	/* carried by a SPDY tunnel instead of a WebSocket of its own */
	struct tunnel			*tun;
	struct kube_pf_pair		 pair;
	int				 waiting;	/* for the tunnel's upgrade */
	int				 answered;	/* the pod sent bytes */
};

/* A SPDY tunnel and what the loop keeps about it. */
struct tunnel {
	struct kube_pf_tunnel	 t;
	unsigned		 gen;	/* the pod_gen it was opened for */
	unsigned		 port;	/* the remote port of its upgrade path */
	int			 more;	/* TLS may hold bytes not read yet */
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

	return kube_wsconn_answer_control(c->ws, opcode, payload, len,
	    &c->close_received, err);
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
static int
conn_over(const struct conn *c)
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
static void
conn_end(struct conn *c)
{
	struct rai_err ignored = RAI_ERR_INIT;
	const char *text = c->tun != NULL ? rai_buf_str(&c->pair.error) :
	    kube_pf_demux_error(&c->demux);

	if (c->ws != NULL && !c->upgrading && !c->ws_eof &&
	    kube_wsconn_queue_close(c->ws, KUBE_WS_CLOSE_NORMAL, &ignored) == 0)
		(void)kube_wsconn_flush(c->ws, &ignored);
	rai_err_release(&ignored);
	if (*text != '\0')
		report(c, "an error occurred forwarding %u -> %u: %s",
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
static struct conn *
conn_new(struct kube_pf *pf, const struct kube_pf_listener *l, int fd)
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
static int
conn_start_ws(struct conn *c)
{
	struct rai_err err = RAI_ERR_INIT;
	char *path = kube_pf_path(c->pf->ns, c->pf->pod, c->l->remote_port);
	int rc;

	c->upgrading = 1;
	c->ws = xmalloc(sizeof(*c->ws));
	rc = kube_wsconn_start(c->ws, c->pf->kc, path, subprotocols, &err);
	free(path);
	if (rc == -1)
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(&err));
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
	return read_ws(c, err);
}

/* ---- the loop ---- */

enum pf_mode {
	MODE_UNKNOWN,	/* no upgrade answered yet: offer the tunnel */
	MODE_TUNNEL,	/* the server speaks SPDY in a WebSocket */
	MODE_CHANNELS,	/* it does not (before 1.31): a WebSocket each */
};

struct loop {
	struct kube_pf	*pf;
	struct conn	**conns;
	size_t		 nconns;
	size_t		 max_conns;
	struct tunnel	*tuns[MAX_TUNNELS];
	size_t		 ntuns;
	enum pf_mode	 mode;
	struct pollfd	*pfds;
	int		 suspect;	/* a stream's end asks for a check */
	long		 suspect_at;	/* since when (rai_now_ms) */
	int		 fds_out;	/* no descriptor left: wait for a close */
	int		 answered;	/* this round showed the pod alive */
	int		 again;		/* a tunnel failed outside a step: poll 0 */
	long		 last_check;
	long		 wake_at;	/* next timer: a handshake, announce_by; -1 */
	long		 announce_by;	/* KUBE_PF_EV_READY's latest; -1: sent */
};

/* ---- the announcement ---- */

static void
announce(struct loop *lp)
{
	if (lp->announce_by == -1)
		return;
	lp->announce_by = -1;
	if (lp->pf->event != NULL)
		lp->pf->event(lp->pf->ud, KUBE_PF_EV_READY, NULL, NULL);
}

/* ---- tunnels ---- */

static void
tun_free(struct loop *lp, size_t i)
{
	struct tunnel *tun = lp->tuns[i];

	kube_pf_tunnel_close(&tun->t);
	kube_pf_tunnel_release(&tun->t);
	free(tun);
	lp->tuns[i] = lp->tuns[--lp->ntuns];
}

/* The tunnel a new connection to port joins, made when none will do. */
static struct tunnel *
tun_for(struct loop *lp, const struct kube_pf_listener *l,
    struct rai_err *err)
{
	struct tunnel *tun;
	char *path;
	size_t i;
	int rc;

	for (i = 0; i < lp->ntuns; i++) {
		tun = lp->tuns[i];
		if (tun->gen == lp->pf->pod_gen && (tun->t.upgrading ||
		    kube_pf_tunnel_usable(&tun->t)))
			return tun;
	}
	if (lp->ntuns == MAX_TUNNELS)
		return rai_err_set(err, RAI_E_INTERNAL, "%d tunnels to the "
		    "pod are open already", MAX_TUNNELS), NULL;
	tun = xcalloc(1, sizeof(*tun));
	tun->gen = lp->pf->pod_gen;
	tun->port = l->remote_port;
	/* the port names the channel protocol's one, if the server picks it */
	path = kube_pf_path(lp->pf->ns, lp->pf->pod, l->remote_port);
	rc = kube_pf_tunnel_start(&tun->t, lp->pf->kc, path, err);
	free(path);
	if (rc == -1) {
		kube_pf_tunnel_release(&tun->t);
		free(tun);
		return NULL;
	}
	lp->tuns[lp->ntuns++] = tun;
	return tun;
}

/* A connection's streams open in its tunnel (up by now). */
static int
conn_open_pair(struct conn *c, struct rai_err *err)
{
	if (kube_pf_tunnel_open(&c->tun->t, &c->pair, c->l->remote_port,
	    err) == -1)
		return -1;
	c->waiting = 0;
	return 0;
}

/* The pod's bytes that gather for one connection: write them if due. */
static int
conn_full(struct conn *c)
{
	if (tolocal_left(c) >= LOCAL_BATCH)
		flush_local(c);
	return tolocal_left(c) >= LOCAL_BATCH;
}

/* Some connection on the tunnel holds a batch its client has not taken. */
static int
tun_full(const struct loop *lp, const struct tunnel *tun)
{
	size_t i;

	for (i = 0; i < lp->nconns; i++)
		if (lp->conns[i]->tun == tun && conn_full(lp->conns[i]))
			return 1;
	return 0;
}

/*
 * Reads the tunnel while every connection on it keeps up. There is no
 * flow control per stream (see kube/spdy.h): once one connection's
 * client takes no more, the whole tunnel waits, as kubectl's does.
 */
static int
tun_read(struct loop *lp, struct tunnel *tun, struct rai_err *err)
{
	size_t i, n;
	int rc = 0;

	tun->more = 0;
	for (;;) {
		if (tun_full(lp, tun)) {
			tun->more = 1;
			break;
		}
		rc = kube_pf_tunnel_read(&tun->t, &n, err);
		if (rc != 0 || n == 0)
			break;
	}
	for (i = 0; i < lp->nconns; i++)
		if (lp->conns[i]->tun == tun)
			flush_local(lp->conns[i]);
	return rc == -1 ? -1 : 0;
}

/* The tunnel failed its waiting connections: each says so and goes. */
static void
report_tun(struct loop *lp, const struct tunnel *tun,
    const struct rai_err *err)
{
	struct conn *c;
	size_t i;

	for (i = 0; i < lp->nconns; i++) {
		c = lp->conns[i];
		if (c->tun != tun || !c->waiting)
			continue;
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(err));
		c->refused = 1;
		c->waiting = 0;
		c->tun = NULL;	/* nothing of it to let go */
	}
}

/* A tunnel failed under its connections: said once, by the first. */
static void
report_tun_error(struct loop *lp, const struct tunnel *tun,
    const struct rai_err *err)
{
	size_t i;

	for (i = 0; i < lp->nconns; i++)
		if (lp->conns[i]->tun == tun) {
			report(lp->conns[i], "an error occurred forwarding "
			    "%u -> %u: %s", lp->conns[i]->l->local_port,
			    lp->conns[i]->l->remote_port, err_text(err));
			return;
		}
}

/*
 * The server answered with the channel protocol (an API server before
 * 1.31): from now on a WebSocket per connection. The first one waiting
 * for the port of the upgrade's path takes the upgraded WebSocket; the
 * others start their own. With nobody waiting it is closed.
 */
static void
tun_to_channels(struct loop *lp, struct tunnel *tun)
{
	struct rai_err err = RAI_ERR_INIT;
	struct conn *c;
	size_t i;
	int taken = 0;

	lp->mode = MODE_CHANNELS;
	for (i = 0; i < lp->nconns; i++) {
		c = lp->conns[i];
		if (c->tun != tun)
			continue;
		c->tun = NULL;
		c->waiting = 0;
		if (taken || c->l->remote_port != tun->port) {
			c->refused = conn_start_ws(c) == -1;
			continue;
		}
		taken = 1;
		c->ws = kube_pf_tunnel_take_ws(&tun->t);
		c->upgrading = 0;
		if (kube_ws_dec_feed(&c->dec, c->ws->early.data,
		    c->ws->early.len, &err) == -1 || read_ws(c, &err) == -1) {
			report(c, "an error occurred forwarding %u -> %u: %s",
			    c->l->local_port, c->l->remote_port,
			    err_text(&err));
			c->refused = 1;
		}
		rai_err_release(&err);
	}
	if (!taken)
		kube_pf_tunnel_close(&tun->t);
}

/* The tunnel's upgrade answered: its waiting connections go on. */
static void
tun_up(struct loop *lp, struct tunnel *tun)
{
	struct rai_err err = RAI_ERR_INIT;
	struct conn *c;
	size_t i;

	lp->answered = 1;
	if (!kube_pf_tunnel_is_spdy(&tun->t)) {
		tun_to_channels(lp, tun);
		return;
	}
	lp->mode = MODE_TUNNEL;
	if (kube_pf_tunnel_begin(&tun->t, &err) == 0)
		for (i = 0; i < lp->nconns; i++) {
			c = lp->conns[i];
			if (c->tun == tun && c->waiting &&
			    conn_open_pair(c, &err) == -1)
				break;
		}
	if (err.message != NULL)
		report_tun(lp, tun, &err);	/* those still waiting */
	/* what TLS read ahead with the upgrade's answer: poll() cannot see it */
	else if (tun_read(lp, tun, &err) == -1)
		report_tun_error(lp, tun, &err);
	rai_err_release(&err);
}

static void
tun_events(struct tunnel *tun, struct pollfd *p, long *wake_at)
{
	p->revents = 0;
	if (tun->t.upgrading) {
		kube_pf_tunnel_handshake_wait(&tun->t, p, &tun->t.wake_at);
		if (*wake_at == -1 || tun->t.wake_at < *wake_at)
			*wake_at = tun->t.wake_at;
		return;
	}
	if (tun->t.eof || tun->t.ws == NULL) {
		p->fd = -1;
		p->events = 0;
		return;
	}
	p->fd = kube_pf_tunnel_fd(&tun->t);
	p->events = 0;
	if (!tun->more && !tun->t.close_received)
		p->events |= POLLIN;
	if (kube_pf_tunnel_unsent(&tun->t) > 0)
		p->events |= POLLOUT;
}

static int
tun_has_conns(const struct loop *lp, const struct tunnel *tun)
{
	size_t i;

	for (i = 0; i < lp->nconns; i++)
		if (lp->conns[i]->tun == tun)
			return 1;
	return 0;
}

/* Moves a tunnel's bytes; 1 when it is done with (free it). */
static int
tun_step(struct loop *lp, struct tunnel *tun, const struct pollfd *p)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc;

	if (tun->t.upgrading) {
		if ((p->fd == -1 || p->revents == 0) &&
		    rai_now_ms() < tun->t.wake_at)
			return 0;
		rc = kube_pf_tunnel_handshake(&tun->t, p->fd == -1 ? 0 :
		    p->revents, &err);
		if (rc != 0)
			announce(lp);
		if (rc == 1)
			tun_up(lp, tun);
		else if (rc == -1) {
			report_tun(lp, tun, &err);
			lp->suspect = 1;
		}
		rai_err_release(&err);
		return rc == -1;
	}
	if (tun->t.ws == NULL)
		return !tun_has_conns(lp, tun);
	rc = 0;
	if ((p->revents & (POLLIN | POLLHUP | POLLERR)) || (tun->more &&
	    !tun_full(lp, tun)))
		rc = tun_read(lp, tun, &err);
	if (rc == 0 && !tun->t.eof)
		rc = kube_pf_tunnel_flush(&tun->t, &err);
	if (rc == -1)
		report_tun_error(lp, tun, &err);
	rai_err_release(&err);
	if (tun->t.eof)
		lp->suspect = 1;
	/* one nobody will use again goes once its connections are done */
	return (tun->t.eof || tun->gen != lp->pf->pod_gen ||
	    !kube_pf_tunnel_usable(&tun->t)) && !tun_has_conns(lp, tun);
}

/* ---- connections ---- */

/*
 * Where a connection just accepted goes: its own WebSocket where the
 * server speaks only the channel protocol, else a tunnel. -1 when that
 * failed at once (said).
 */
static int
conn_route(struct loop *lp, struct conn *c)
{
	struct rai_err err = RAI_ERR_INIT;

	if (lp->mode == MODE_CHANNELS)
		return conn_start_ws(c);
	if ((c->tun = tun_for(lp, c->l, &err)) == NULL) {
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(&err));
		rai_err_release(&err);
		return -1;
	}
	c->waiting = 1;
	if (!c->tun->t.upgrading && conn_open_pair(c, &err) == -1) {
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(&err));
		rai_err_release(&err);
		return -1;
	}
	return 0;
}

/* Accepts one connection from l's backlog: 1, or 0 when none came. */
static int
accept_one(struct loop *lp, const struct kube_pf_listener *l)
{
	struct conn *c;
	int fd;

	if ((fd = accept(l->fd, NULL, NULL)) == -1) {
		/* the backlog keeps the client until a connection ends */
		if (errno == EMFILE || errno == ENFILE)
			lp->fds_out = lp->nconns > 0;
		return 0;
	}
	if (set_nonblock(fd) == -1 || fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		close(fd);
		return 1;
	}
	if (lp->pf->event != NULL)
		lp->pf->event(lp->pf->ud, KUBE_PF_EV_CONNECTION, l, NULL);
	c = conn_new(lp->pf, l, fd);
	lp->conns[lp->nconns++] = c;
	if (conn_route(lp, c) == -1) {
		c->refused = 1;
		lp->suspect = 1;
	}
	return 1;
}

/*
 * What l's backlog holds, up to ACCEPT_BATCH, where connections join a
 * tunnel that is up: each costs two SPDY streams, and a burst's go out
 * together. Otherwise one per poll(): accepting the whole backlog at
 * once would start every handshake of a burst together, which holds
 * more memory (a TLS context each) for no time won, since the server
 * takes the handshakes one after another anyway.
 */
static void
accept_some(struct loop *lp, const struct kube_pf_listener *l)
{
	size_t n = 0;

	while (accept_one(lp, l) && ++n < ACCEPT_BATCH &&
	    lp->mode == MODE_TUNNEL && lp->nconns < lp->max_conns)
		;
}

/* Sends what the round queued on the tunnels, without waiting a poll(). */
static void
flush_tunnels(struct loop *lp)
{
	struct rai_err ignored = RAI_ERR_INIT;
	size_t i;

	for (i = 0; i < lp->ntuns; i++)
		if (!lp->tuns[i]->t.upgrading && !lp->tuns[i]->t.eof &&
		    kube_pf_tunnel_unsent(&lp->tuns[i]->t) > 0 &&
		    kube_pf_tunnel_flush(&lp->tuns[i]->t, &ignored) == -1)
			lp->again = 1;	/* its connections end next round */
	rai_err_release(&ignored);
}

static void
drop_conn(struct loop *lp, size_t i)
{
	struct conn *c = lp->conns[i];

	conn_end(c);
	/* the server ending or refusing a stream can mean the pod went away */
	if (c->close_received || c->ws_eof || c->refused ||
	    (c->tun != NULL && (c->pair.data_end || c->tun->t.eof)))
		lp->suspect = 1;
	conn_free(c);
	lp->conns[i] = lp->conns[--lp->nconns];
	lp->fds_out = 0;
}

/* One connection's poll entries, at pfds[0] (local) and [1] (WebSocket). */
static void
conn_events(struct conn *c, struct pollfd *p, long *wake_at)
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
		flush_local(c);
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
		report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, err_text(&err));
		c->refused = 1;
	}
	rai_err_release(&err);
	return c->refused ? -1 : 0;
}

/* Moves what one connection's poll entries allow; -1: drop it. */
static int
conn_step(struct conn *c, const struct pollfd *p)
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
			report(c, "an error occurred forwarding %u -> %u: %s",
			    c->l->local_port, c->l->remote_port,
			    err_text(&err));
			c->local_gone = 1;
		}
		rai_err_release(&err);
		return conn_over(c) ? -1 : 0;
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

/* ---- the check ---- */

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

	if (lp->again)
		return 0;
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
 * through meanwhile, or bytes from the pod, show the pod was still there
 * and answer it, so a burst of short connections does not stop the loop
 * for a GET after each other one. `before`: the earlier rounds'
 * question, unanswered; lp->suspect: this round's.
 */
static void
note_suspect(struct loop *lp, int before)
{
	if (lp->suspect && !before)
		lp->suspect_at = rai_now_ms();
	lp->suspect |= before;
}

/* ---- one round ---- */

static size_t
fill_pollfds(struct loop *lp)
{
	struct kube_pf *pf = lp->pf;
	size_t nl = pf->nlisteners, i, base = nl + 1, upgrading = 0;
	int accepting;

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
	base += 2 * lp->nconns;
	for (i = 0; i < lp->ntuns; i++)
		tun_events(lp->tuns[i], &lp->pfds[base + i], &lp->wake_at);
	if (lp->announce_by != -1 && (lp->wake_at == -1 ||
	    lp->announce_by < lp->wake_at))
		lp->wake_at = lp->announce_by;
	return base + lp->ntuns;
}

/*
 * The round's moves: the local sides (and the connections' own
 * WebSockets), then the tunnels, then the connections a tunnel ended.
 * Backwards: drop_conn moves the last connection into slot i.
 */
static void
step_all(struct loop *lp)
{
	size_t base = lp->pf->nlisteners + 1, tbase = base + 2 * lp->nconns;
	size_t i, ntuns = lp->ntuns;
	int was_upgrading;

	for (i = lp->nconns; i-- > 0;) {
		was_upgrading = lp->conns[i]->upgrading;
		if (conn_step(lp->conns[i], &lp->pfds[base + 2 * i]) == -1)
			drop_conn(lp, i);
		else if (was_upgrading && !lp->conns[i]->upgrading)
			lp->answered = 1;
	}
	for (i = ntuns; i-- > 0;)
		if (tun_step(lp, lp->tuns[i], &lp->pfds[tbase + i]) == 1)
			tun_free(lp, i);
	for (i = lp->nconns; i-- > 0;) {
		if (lp->conns[i]->answered)
			lp->answered = 1;
		lp->conns[i]->answered = 0;
		if (lp->conns[i]->refused || (lp->conns[i]->tun != NULL &&
		    conn_over(lp->conns[i])))
			drop_conn(lp, i);
	}
}

static int
loop_step(struct loop *lp, struct rai_err *err)
{
	struct kube_pf *pf = lp->pf;
	size_t nl = pf->nlisteners, i, npfds;
	int n, suspect;

	npfds = fill_pollfds(lp);
	n = poll(lp->pfds, npfds, poll_timeout(lp));
	if (n == -1)
		return errno == EINTR ? 0 : rai_err_errno(err, errno,
		    "waiting for the forwarded connections");
	if (lp->pfds[nl].revents)
		return 1;
	suspect = lp->suspect;
	lp->suspect = 0;
	lp->answered = 0;
	lp->again = 0;
	step_all(lp);
	if (lp->announce_by != -1 && rai_now_ms() >= lp->announce_by)
		announce(lp);
	for (i = 0; i < nl; i++)
		if (lp->pfds[i].revents & POLLIN)
			accept_some(lp, &pf->listeners[i]);
	flush_tunnels(lp);
	note_suspect(lp, suspect && !lp->answered);
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
	lp.pfds = xcalloc(pf->nlisteners + 1 + 2 * lp.max_conns + MAX_TUNNELS,
	    sizeof(*lp.pfds));
	lp.last_check = rai_now_ms();
	lp.announce_by = lp.last_check + KUBE_PF_ANNOUNCE_WAIT_MS;
	/*
	 * The tunnel is set up before the first connection, as kubectl sets
	 * up its session, so that connection does not wait for it; the
	 * caller hears KUBE_PF_EV_READY when that is over. (A server that
	 * answers with the channel protocol gets that WebSocket closed at
	 * once: a connection to the pod's port that carries nothing.) A
	 * start that failed at once is said by the first connection.
	 */
	if (pf->nlisteners > 0) {
		struct rai_err ignored = RAI_ERR_INIT;

		if (tun_for(&lp, &pf->listeners[0], &ignored) == NULL)
			announce(&lp);
		rai_err_release(&ignored);
	} else
		announce(&lp);
	while ((rc = loop_step(&lp, err)) == 0)
		;
	while (lp.nconns > 0)
		drop_conn(&lp, lp.nconns - 1);
	while (lp.ntuns > 0)
		tun_free(&lp, lp.ntuns - 1);
	free(lp.conns);
	free(lp.pfds);
	return rc == 1 ? 0 : -1;
}
