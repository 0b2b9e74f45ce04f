/*
 * kube_pf_tunnel: port forwarding over one WebSocket for many
 * connections, the way kubectl has done it since Kubernetes 1.31: the
 * subprotocol SPDY/3.1+portforward.k8s.io carries a SPDY session
 * (kube/spdy) in binary messages, and each forwarded connection is a
 * pair of SPDY streams, "error" and "data", whose headers name the port
 * and a request id shared by the pair. Once the server (the kubelet)
 * has both it connects to the port in the pod; the data stream then
 * carries the bytes both ways and a FIN on it half-closes; the error
 * stream carries the kubelet's text when the port cannot be reached.
 * A burst of connections so costs one TLS connection and one upgrade,
 * where the one-WebSocket-per-connection protocol (kube/portforward)
 * costs one of each per connection.
 *
 * The upgrade offers the channel protocol too: an API server before
 * 1.31 answers with it, and the caller then forwards one connection per
 * WebSocket (kube_pf_tunnel_is_spdy says which).
 *
 * No SPDY flow control (see kube/spdy.h): the caller stops reading the
 * tunnel while a connection cannot take the pod's bytes, as kubectl's
 * SPDY library does.
 */
#ifndef KUBE_PF_TUNNEL_H
#define KUBE_PF_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/spdy.h"
#include "kube/ws.h"

struct kube_client;
struct kube_wsconn;
struct pollfd;

#define KUBE_PF_TUNNEL_PROTOCOL	"SPDY/3.1+portforward.k8s.io"

/* Pod bytes for the pair whose ud it is (len > 0). */
typedef void kube_pf_pair_data_fn(void *ud, const char *data, size_t len);

/* One forwarded connection's streams, owned by the caller. */
struct kube_pf_pair {
	uint32_t		 error_id, data_id;	/* 0: not opened */
	int			 data_end;	/* the server's FIN or RST */
	int			 error_end;
	int			 reset;		/* ended by an RST */
	int			 fin_sent;	/* our half of the data stream */
	struct rai_buf		 error;		/* the error stream's text */
	kube_pf_pair_data_fn	*data;
	void			*ud;
};

void	kube_pf_pair_init(struct kube_pf_pair *, kube_pf_pair_data_fn *,
	    void *ud);
void	kube_pf_pair_release(struct kube_pf_pair *);

struct kube_pf_tunnel {
	struct kube_wsconn	*ws;
	struct kube_ws_dec	 dec;
	struct kube_spdy	 spdy;
	struct kube_pf_pair	**pairs;	/* those attached */
	size_t			 npairs, cap;
	uint32_t		 next_id;	/* the next stream id (odd) */
	unsigned		 next_request;
	int			 upgrading;
	int			 close_received;
	int			 eof;		/* the connection ended or failed */
	int			 goaway;	/* the server takes no new streams */
	long			 wake_at;	/* the handshake's timer */
};

/*
 * Starts the upgrade of path (.../pods/P/portforward?ports=PORT),
 * offering the tunnel first and the channel protocol second. 0, or -1
 * with err when it failed at once; kube_pf_tunnel_release frees t
 * either way.
 */
int	kube_pf_tunnel_start(struct kube_pf_tunnel *, struct kube_client *,
	    const char *path, struct rai_err *);
/* As kube_wsconn_handshake: 0 on the way, 1 upgraded, -1 with err. */
int	kube_pf_tunnel_handshake(struct kube_pf_tunnel *, short revents,
	    struct rai_err *);
void	kube_pf_tunnel_handshake_wait(const struct kube_pf_tunnel *,
	    struct pollfd *, long *wake_at);
/* After the upgrade: 1 when the server chose the tunnel. */
int	kube_pf_tunnel_is_spdy(const struct kube_pf_tunnel *);
/*
 * The upgraded WebSocket, taken out of t for the channel protocol (the
 * server chose it); t is then empty and only to be released.
 */
struct kube_wsconn *kube_pf_tunnel_take_ws(struct kube_pf_tunnel *);
/* The frames that came with the upgrade's answer, fed in. */
int	kube_pf_tunnel_begin(struct kube_pf_tunnel *, struct rai_err *);

/* New pairs may still be opened (up, no GOAWAY, not ended). */
int	kube_pf_tunnel_usable(const struct kube_pf_tunnel *);
/* Opens p's two streams for port and attaches p. 0, or -1 with err. */
int	kube_pf_tunnel_open(struct kube_pf_tunnel *, struct kube_pf_pair *,
	    unsigned port, struct rai_err *);
/* Queues bytes for the pod on p's data stream (up to LENGTH_MAX). */
int	kube_pf_tunnel_send(struct kube_pf_tunnel *, struct kube_pf_pair *,
	    const char *data, size_t len, struct rai_err *);
/* Ends our half of p's data stream (once). */
int	kube_pf_tunnel_fin(struct kube_pf_tunnel *, struct kube_pf_pair *,
	    struct rai_err *);
/*
 * Detaches p: streams the server has not ended are reset (CANCEL), so
 * the kubelet drops the pod's connection. Best effort.
 */
void	kube_pf_tunnel_detach(struct kube_pf_tunnel *, struct kube_pf_pair *);

/*
 * Reads what the socket has (one chunk), feeding the session: 0 with
 * *n bytes read (0: nothing now), 1 at the connection's end (every
 * attached pair is then ended), -1 with err (a broken session: the
 * pairs are ended too).
 */
int	kube_pf_tunnel_read(struct kube_pf_tunnel *, size_t *n,
	    struct rai_err *);
int	kube_pf_tunnel_fd(const struct kube_pf_tunnel *);
size_t	kube_pf_tunnel_unsent(const struct kube_pf_tunnel *);
int	kube_pf_tunnel_flush(struct kube_pf_tunnel *, struct rai_err *);
/* GOAWAY and the WebSocket's close, sent as far as the socket takes them. */
void	kube_pf_tunnel_close(struct kube_pf_tunnel *);
void	kube_pf_tunnel_release(struct kube_pf_tunnel *);

#endif
