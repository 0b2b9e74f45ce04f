/*
 * Port forwarding's loop: the listening sockets, and one poll() loop
 * over every accepted connection (pf_conn.c) and every SPDY tunnel
 * (kube/pf_tunnel): the protocol the server speaks, tunnels opened and
 * let go, connections accepted, routed and dropped, the check that may
 * turn to another pod, and KUBE_PF_EV_READY. The listeners live here,
 * not with the pure parts (portforward.c), because accepted connections
 * are made non-blocking as they are (set_nonblock) and calls go one
 * way, from here to the other two files.
 */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/time.h"
#include "kube/pf_conn.h"
#include "kube/pf_loop.h"
#include "kube/pf_tunnel.h"
#include "kube/portforward.h"
#include "kube/ws.h"
#include "kube/wsconn.h"

#include "core/banned.h"

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

/* Some connection on the tunnel holds a batch its client has not taken. */
static int
tun_full(const struct loop *lp, const struct tunnel *tun)
{
	size_t i;

	for (i = 0; i < lp->nconns; i++)
		if (lp->conns[i]->tun == tun && pf_conn_full(lp->conns[i]))
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
			pf_flush_local(lp->conns[i]);
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
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(err));
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
			pf_report(lp->conns[i], "an error occurred forwarding "
			    "%u -> %u: %s", lp->conns[i]->l->local_port,
			    lp->conns[i]->l->remote_port, pf_err_text(err));
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
			c->refused = pf_conn_start_ws(c) == -1;
			continue;
		}
		taken = 1;
		c->ws = kube_pf_tunnel_take_ws(&tun->t);
		c->upgrading = 0;
		if (kube_ws_dec_feed(&c->dec, c->ws->early.data,
		    c->ws->early.len, &err) == -1 ||
		    pf_read_ws(c, &err) == -1) {
			pf_report(c, "an error occurred forwarding "
			    "%u -> %u: %s", c->l->local_port,
			    c->l->remote_port, pf_err_text(&err));
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
		return pf_conn_start_ws(c);
	if ((c->tun = tun_for(lp, c->l, &err)) == NULL) {
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(&err));
		rai_err_release(&err);
		return -1;
	}
	c->waiting = 1;
	if (!c->tun->t.upgrading && conn_open_pair(c, &err) == -1) {
		pf_report(c, "an error occurred forwarding %u -> %u: %s",
		    c->l->local_port, c->l->remote_port, pf_err_text(&err));
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
	c = pf_conn_new(lp->pf, l, fd);
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

	pf_conn_end(c);
	/* the server ending or refusing a stream can mean the pod went away */
	if (c->close_received || c->ws_eof || c->refused ||
	    (c->tun != NULL && (c->pair.data_end || c->tun->t.eof)))
		lp->suspect = 1;
	pf_conn_free(c);
	lp->conns[i] = lp->conns[--lp->nconns];
	lp->fds_out = 0;
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
		pf_conn_events(lp->conns[i], &lp->pfds[base + 2 * i],
		    &lp->wake_at);
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
		if (pf_conn_step(lp->conns[i], &lp->pfds[base + 2 * i]) == -1)
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
		    pf_conn_over(lp->conns[i])))
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
