/*
 * kube_pf: port forwarding to a pod through the API server, every local
 * connection moved by one poll() loop. Two protocols:
 *
 * - SPDY tunnelled in one WebSocket (kube/pf_tunnel), offered first and
 *   served by API servers since 1.31: a pair of streams per connection,
 *   all of them in one TLS connection; a FIN half-closes.
 * - The channel protocol of clients that speak no SPDY, which older
 *   servers answer with: subprotocol v4.channel.k8s.io, one WebSocket
 *   per connection, the i-th port of `ports=` on channels 2*i (data)
 *   and 2*i+1 (the kubelet's error text), the server's first message on
 *   each channel being the port number, two bytes little-endian;
 *   clients send plain data on the data channel. It cannot tell the pod
 *   that the local client ended its half: the pod sees the end only
 *   when it closes the connection itself.
 *
 * Either way a side that cannot take more stops the reading of the
 * other (back-pressure both ways); a local client that ends its half
 * still gets the pod's answer; the pod's end ends the local connection
 * once what it sent is written.
 *
 *	pure		kube_pf_parse_spec, kube_pf_path, struct kube_pf_demux
 *			(portforward.c)
 *	sockets		kube_pf_listen (pf_loop.c)
 *	the loop	kube_pf_run (pf_loop.c; each connection: pf_conn.c)
 *
 * Nothing here prints: what a user should hear comes as events.
 */
#ifndef KUBE_PORTFORWARD_H
#define KUBE_PORTFORWARD_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

struct kube_client;

#define KUBE_PF_PROTOCOL	"v4.channel.k8s.io"
#define KUBE_PF_ERROR_MAX	((size_t)64 << 10)

/*
 * "[LOCAL:]REMOTE" as kubectl reads it: "8888" is 8888 both sides,
 * ":8888" and "0:8888" a local port the system picks (*local 0),
 * "5000:8888".
 * Ports are 1-65535. Returns 0, or -1 (RAI_E_USAGE, one line).
 */
int	kube_pf_parse_spec(const char *spec, unsigned *local, unsigned *remote,
	    struct rai_err *);

/* .../pods/POD/portforward?ports=PORT. Caller frees. */
char	*kube_pf_path(const char *ns, const char *pod, unsigned port);

/* ---- the channels of one port ---- */

/* Data from the pod, as it arrives (len > 0). 0, or -1 with err to stop. */
typedef int kube_pf_data_fn(void *ud, const char *data, size_t len,
	    struct rai_err *);

struct kube_pf_demux {
	unsigned	 port;		/* the port each channel must name */
	int		 cur;		/* the message's channel, -1 = not yet */
	unsigned char	 prefix[2][2];	/* each channel's port bytes */
	unsigned	 prefix_len[2];
	struct rai_buf	 error;		/* the error channel's text */
	kube_pf_data_fn	*fn;
	void		*ud;
};

void	kube_pf_demux_init(struct kube_pf_demux *, unsigned port,
	    kube_pf_data_fn *, void *ud);
/*
 * The kube_ws_data_fn to give the decoder (the demux as its data_ud).
 * Fails with RAI_E_PROTO on a text message, a channel other than 0 and
 * 1, or a port prefix that names another port; else with fn's error.
 * Error text over KUBE_PF_ERROR_MAX is dropped.
 */
int	kube_pf_demux_on_data(void *demux, int opcode, const char *data,
	    size_t len, unsigned flags, struct rai_err *);
/* The error channel's text so far ("" when none), NUL-terminated. */
const char *kube_pf_demux_error(const struct kube_pf_demux *);
void	kube_pf_demux_release(struct kube_pf_demux *);

/* ---- listening ---- */

struct kube_pf_listener {
	int		 fd;
	unsigned	 local_port;	/* as bound (the system's pick for 0) */
	unsigned	 remote_port;
	char		 addr[64];	/* "127.0.0.1", "[::1]" */
};

/*
 * A listening socket on addr (an IPv4 or IPv6 literal, or "localhost"
 * for 127.0.0.1) and port (0: any free one), non-blocking. Returns 0
 * with l filled (fd, local_port, addr), or -1 with err (an address that
 * is not a literal: RAI_E_USAGE; a port in use: the errno).
 */
int	kube_pf_listen(const char *addr, unsigned port,
	    struct kube_pf_listener *l, struct rai_err *);

/* ---- the loop ---- */

enum kube_pf_event {
	KUBE_PF_EV_CONNECTION,	/* a local connection was accepted */
	KUBE_PF_EV_ERROR,	/* one connection failed: text says why */
	/*
	 * Once per run (no listener, no text): the first tunnel's set-up
	 * is over (up, answered with the channel protocol, or failed), or
	 * KUBE_PF_ANNOUNCE_WAIT_MS went by first. The time to say that
	 * the forwarder is ready: kubectl says so once its session is up.
	 */
	KUBE_PF_EV_READY,
};

/*
 * The longest a slow upgrade holds up KUBE_PF_EV_READY (port-forward's
 * help and the README say 5 seconds).
 */
#define KUBE_PF_ANNOUNCE_WAIT_MS	5000L

struct kube_pf;

/*
 * Called every tick_ms, and soon after a stream ended in a way that may
 * mean the pod went away (the server ended it, or refused a new one):
 * the caller checks its pod and may point pf->pod at another. 0 to go
 * on, 1 to end kube_pf_run as stop_fd would, -1 with err to end it with
 * that error. May block (the loop waits for it).
 */
typedef int kube_pf_check_fn(void *ud, struct kube_pf *, int suspect,
	    struct rai_err *);
typedef void kube_pf_event_fn(void *ud, enum kube_pf_event,
	    const struct kube_pf_listener *, const char *text);

struct kube_pf {
	struct kube_client		*kc;
	const char			*ns;
	const char			*pod;	/* the check may change it */
	/*
	 * The check adds one when it turns to another pod (also one of the
	 * same name made again): tunnels opened to the old one then take
	 * no new connections.
	 */
	unsigned			 pod_gen;
	struct kube_pf_listener		*listeners;
	size_t				 nlisteners;
	int				 stop_fd;	/* readable: end */
	long				 tick_ms;	/* 0: no ticks */
	size_t				 max_conns;	/* 0: 1024 */
	kube_pf_check_fn		*check;	/* NULL: none */
	kube_pf_event_fn		*event;	/* NULL: none */
	void				*ud;
};

/*
 * Forwards until stop_fd is readable (0) or the check fails (-1 with
 * its err); a failure of the loop itself (poll) is -1 too. Connections
 * open at the end are closed. The listeners stay the caller's.
 */
int	kube_pf_run(struct kube_pf *, struct rai_err *);

#endif
