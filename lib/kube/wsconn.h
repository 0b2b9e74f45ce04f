/*
 * kube_wsconn: one upgraded WebSocket connection to the API server, the
 * I/O half shared by exec/attach (kube/exec) and port-forward
 * (kube/portforward); the frames themselves are kube_ws (pure).
 *
 * The socket is made by libcurl (rai_http_connect), so proxies, TLS and
 * client certificates are those of every other request; the Upgrade
 * request carries the same Authorization (renewed once after a 401).
 * After the upgrade, frames are queued (sendq) and sent as the socket
 * takes them (kube_wsconn_flush), without blocking: a caller's poll()
 * loop asks for POLLOUT while kube_wsconn_unsent() > 0.
 */
#ifndef KUBE_WSCONN_H
#define KUBE_WSCONN_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

struct kube_client;
struct rai_http_conn;

#define KUBE_WSCONN_WRITE_CHUNK	((size_t)64 * 1024)
/* after our close frame, how long the server has to answer it */
#define KUBE_WSCONN_CLOSE_WAIT_MS 2000

struct kube_wsconn {
	struct rai_http_conn	*conn;
	char			 protocol[32];	/* the subprotocol chosen */
	struct rai_buf		 early;	/* bytes right behind the answer */
	struct rai_buf		 sendq;	/* encoded frames */
	size_t			 sendq_off;	/* moved to wbuf */
	/*
	 * The bytes of the write in progress. TLS wants a write that could
	 * not finish retried with the same buffer and length, so they wait
	 * here, where appending to sendq cannot move them. Allocated at
	 * the first write: many connections set up at once stay small.
	 */
	char			*wbuf;
	size_t			 wlen, woff;
	uint32_t		 rnd;		/* for masks */
	int			 close_sent;
	long			 close_deadline;	/* rai_now_ms() */
	struct kube_wsconn_hs	*hs;	/* the upgrade in progress, or NULL */
};

/*
 * Upgrades path with the subprotocols offered (NULL-terminated, best
 * first) and readies ws. 0: ws->protocol holds the one chosen and
 * ws->early the frames that came with the answer. -1 with err: the
 * server's refusal (its Status), a failed connection, a broken
 * handshake. Either way kube_wsconn_release frees ws.
 */
int	kube_wsconn_open(struct kube_wsconn *ws, struct kube_client *,
	    const char *path, const char *const offered[], struct rai_err *);
void	kube_wsconn_release(struct kube_wsconn *);
/*
 * The same upgrade without blocking, for a loop that sets up many at
 * once: start it (-1 with err: it failed at once), then while
 * kube_wsconn_handshake says 0, poll what kube_wsconn_handshake_wait
 * fills in (until *wake_at, rai_now_ms) and hand it the revents. 1:
 * upgraded, as after kube_wsconn_open; -1 with err as there.
 */
struct pollfd;
int	kube_wsconn_start(struct kube_wsconn *, struct kube_client *,
	    const char *path, const char *const offered[], unsigned flags,
	    struct rai_err *);
/* kube_wsconn_start's flag: bulk data (RAI_HTTP_CONN_BULK's reads) */
#define KUBE_WSCONN_BULK	1u
int	kube_wsconn_handshake(struct kube_wsconn *, short revents,
	    struct rai_err *);
void	kube_wsconn_handshake_wait(const struct kube_wsconn *,
	    struct pollfd *, long *wake_at);

int	kube_wsconn_fd(const struct kube_wsconn *);
/* A fresh mask for the next frame (masks guard proxies, not secrets). */
void	kube_wsconn_mask(struct kube_wsconn *, unsigned char mask[4]);
/* Bytes queued and not yet taken by the socket. */
size_t	kube_wsconn_unsent(const struct kube_wsconn *);
/* Sends what the socket takes now; -1 with err when the connection fails. */
int	kube_wsconn_flush(struct kube_wsconn *, struct rai_err *);
/* Queues a close frame (once) and starts the wait for the server's. */
int	kube_wsconn_queue_close(struct kube_wsconn *, int code, struct rai_err *);
/* Queues the pong a ping asks for. */
int	kube_wsconn_pong(struct kube_wsconn *, const char *payload, size_t len,
	    struct rai_err *);
/*
 * The answer a control frame asks for, as a kube_ws_ctrl_fn would give
 * it: a pong for a ping; for a close, *close_received set and our close
 * queued. A pong needs nothing. Returns as those.
 */
int	kube_wsconn_answer_control(struct kube_wsconn *, int opcode,
	    const char *payload, size_t len, int *close_received,
	    struct rai_err *);
/*
 * Receives what has arrived into buf: 0 with *n bytes (0 = nothing
 * now), 1 at the end of the connection, -1 with err.
 */
int	kube_wsconn_recv(struct kube_wsconn *, char *buf, size_t len,
	    size_t *n, struct rai_err *);
/*
 * Reads all the socket has now and feeds it to dec: TLS may hold
 * decrypted bytes poll() cannot see, so one wake-up reads until the
 * socket has nothing more, or until *stop is set (by dec's callbacks,
 * e.g. on a close frame). 0, with *eof set at the connection's end;
 * -1 with err (the socket's or dec's).
 */
struct kube_ws_dec;
int	kube_wsconn_drain(struct kube_wsconn *, struct kube_ws_dec *,
	    const int *stop, int *eof, struct rai_err *);

#endif
