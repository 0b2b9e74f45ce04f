/*
 * One forwarded connection (pf_conn.c), for the loop (pf_loop.c): the
 * connection's and the tunnel's structs, and what the loop asks of a
 * connection.
 */
#ifndef KUBE_PF_CONN_H
#define KUBE_PF_CONN_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/pf_tunnel.h"
#include "kube/portforward.h"
#include "kube/ws.h"

struct kube_wsconn;
struct pollfd;

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

/* A connection just accepted, its bytes not going anywhere yet. */
struct conn *pf_conn_new(struct kube_pf *, const struct kube_pf_listener *,
	    int fd);
/* Its own WebSocket started; -1 when that failed at once (reported). */
int	 pf_conn_start_ws(struct conn *);
/* Ends a connection: our close frame (best effort), the error text. */
void	 pf_conn_end(struct conn *);
void	 pf_conn_free(struct conn *);
/* Over: the server closed, or the local side is gone. */
int	 pf_conn_over(const struct conn *);
/* A batch of the pod's bytes waits that its client has not taken. */
int	 pf_conn_full(struct conn *);
/* Reads the WebSocket while the local side keeps up. */
int	 pf_read_ws(struct conn *, struct rai_err *);
/* Writes the pod's bytes to the local side, as far as it takes them. */
void	 pf_flush_local(struct conn *);
/* Its poll entries, at p[0] (local) and p[1] (its own WebSocket). */
void	 pf_conn_events(struct conn *, struct pollfd *p, long *wake_at);
/* Moves what its poll entries allow; -1: drop it. */
int	 pf_conn_step(struct conn *, const struct pollfd *p);
/* KUBE_PF_EV_ERROR with the text, for the connection's listener. */
void	 pf_report(struct conn *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
const char *pf_err_text(const struct rai_err *);

#endif
