/*
 * kube_ws: the WebSocket client side of RFC 6455 and the Kubernetes
 * exec/attach channel protocol on top of it, pure (no I/O): the caller
 * moves the bytes (curl CONNECT_ONLY) and feeds them in any chunks.
 *
 *	handshake	kube_ws_key, kube_ws_accept,
 *			kube_ws_check_upgrade
 *	client frames	kube_ws_encode, kube_ws_encode_close (masked)
 *	server frames	struct kube_ws_dec: data messages are handed
 *			out in pieces as they arrive, so memory stays
 *			constant however long a stream is; control
 *			frames whole
 *	channels	struct kube_chan on the decoder's data
 *			callback, kube_chan_encode_*, kube_chan_status
 *
 * Errors from the peer are RAI_E_PROTO; misuse by the caller (a frame
 * that cannot be sent) is RAI_E_INTERNAL.
 */
#ifndef KUBE_WS_H
#define KUBE_WS_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

enum kube_ws_opcode {
	KUBE_WS_CONT	= 0x0,
	KUBE_WS_TEXT	= 0x1,
	KUBE_WS_BINARY	= 0x2,
	KUBE_WS_CLOSE	= 0x8,
	KUBE_WS_PING	= 0x9,
	KUBE_WS_PONG	= 0xa,
};

/* Close codes (RFC 6455 §7.4.1) we send or see. */
#define KUBE_WS_CLOSE_NORMAL	1000
#define KUBE_WS_CLOSE_GOING_AWAY 1001
#define KUBE_WS_CLOSE_PROTOCOL	1002
#define KUBE_WS_CLOSE_NO_STATUS	1005	/* close without a code */
#define KUBE_WS_CLOSE_TOO_BIG	1009

#define KUBE_WS_CTRL_MAX	125	/* payload of a control frame */
#define KUBE_WS_HEADER_MAX	14	/* 2 + 8 (length) + 4 (mask) */

/* ---- handshake (RFC 6455 §4) ---- */

/*
 * The Sec-WebSocket-Key for 16 random bytes the caller drew: 24 base64
 * characters and a NUL.
 */
void	kube_ws_key(const unsigned char nonce[16], char out[25]);

/*
 * The Sec-WebSocket-Accept a server must answer to key:
 * base64(SHA-1(key "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")), 28
 * characters and a NUL.
 */
void	kube_ws_accept(const char *key, char out[29]);

/*
 * Checks the server's answer to an upgrade sent with key: status 101,
 * "Upgrade: websocket" (any case), a "Connection" holding the token
 * "upgrade" (any case, among others), the right Sec-WebSocket-Accept
 * and a Sec-WebSocket-Protocol that is one of offered (a NULL-terminated
 * list; NULL or empty when none was offered). Absent headers are NULL
 * or "". Returns 0 with *chosen pointing at the offered[] entry (NULL
 * when none was offered), or -1 (RAI_E_PROTO, one line quoting what the
 * server sent) with *chosen unchanged. A server that answers no
 * subprotocol when some were offered fails: Kubernetes would then speak
 * a protocol we do not.
 */
int	kube_ws_check_upgrade(const char *key, long status,
	    const char *upgrade_hdr, const char *connection_hdr,
	    const char *accept_hdr, const char *protocol_hdr,
	    const char *const offered[], const char **chosen,
	    struct rai_err *);

/* ---- client frames ---- */

/*
 * XORs len bytes at buf with mask, buf[0] being the payload's byte
 * number offset (masking goes by position, so a payload can be masked
 * in parts).
 */
void	kube_ws_mask(void *buf, size_t len, const unsigned char mask[4],
	    uint64_t offset);

/*
 * Appends one frame to out: header (the shortest length form), mask,
 * and payload masked with mask (client frames always are). opcode is a
 * kube_ws_opcode; fin 0 leaves a message open for KUBE_WS_CONT frames.
 * Returns 0, or -1 with out unchanged: a control frame over 125 bytes
 * or with fin 0, an unknown opcode (RAI_E_INTERNAL), or out's cap
 * (RAI_E_INTERNAL: the caller must drain out before adding more).
 */
int	kube_ws_encode(struct rai_buf *out, int opcode, int fin,
	    const unsigned char mask[4], const void *payload, size_t len,
	    struct rai_err *);
/* One whole binary message of head then payload, copied once. */
int	kube_ws_encode_binary2(struct rai_buf *out, const unsigned char mask[4],
	    const void *head, size_t headlen, const void *payload, size_t len,
	    struct rai_err *);

/*
 * A close frame: code (big-endian) and reason (NULL = ""), or an empty
 * payload when code is 0. code must be 0 or one an endpoint may send
 * (1000-4999 but 1004, 1005, 1006, 1015); reason at most 123 bytes.
 * Returns as kube_ws_encode.
 */
int	kube_ws_encode_close(struct rai_buf *out, int code,
	    const char *reason, const unsigned char mask[4], struct rai_err *);

/* ---- server frames ---- */

/* Flags of a kube_ws_data_fn call. */
enum kube_ws_data_flags {
	KUBE_WS_FIRST	= 1 << 0,	/* the message's first piece */
	KUBE_WS_LAST	= 1 << 1,	/* its last */
};

/*
 * A piece of a data message, opcode being the message's (KUBE_WS_TEXT
 * or KUBE_WS_BINARY), as soon as its bytes arrive: the pieces of one
 * message come in order, the first with KUBE_WS_FIRST, the last with
 * KUBE_WS_LAST (one piece: both). len is 0 only in a call flagged
 * KUBE_WS_LAST: an empty message, or one whose last frame was empty.
 * data points into the fed bytes (valid during the call only). Returns
 * 0 to go on, or -1 with err set to stop.
 */
typedef int kube_ws_data_fn(void *ud, int opcode, const char *data,
	    size_t len, unsigned flags, struct rai_err *);

/*
 * A whole control frame (KUBE_WS_CLOSE, _PING or _PONG), also between
 * the frames of a data message. Answering (pong, close) is the
 * caller's business. Returns as kube_ws_data_fn.
 */
typedef int kube_ws_ctrl_fn(void *ud, int opcode, const char *payload,
	    size_t len, struct rai_err *);

struct kube_ws_dec {
	int		 state;
	unsigned char	 hdr[KUBE_WS_HEADER_MAX];
	unsigned	 hdr_len;	/* header bytes read */
	unsigned	 hdr_need;	/* its size, known from byte 1 on */
	int		 opcode;	/* of the frame being read */
	int		 fin;
	uint64_t	 left;		/* its payload bytes to come */
	int		 msg_opcode;	/* open message's, 0 = none */
	int		 msg_first;	/* its next piece is its first */
	uint64_t	 msg_len;	/* its bytes so far */
	size_t		 max_msg;	/* 0 = no cap */
	char		 ctrl[KUBE_WS_CTRL_MAX];
	size_t		 ctrl_len;
	uint64_t	 off;		/* bytes fed, for messages */
	kube_ws_data_fn	*data_fn;
	kube_ws_ctrl_fn	*ctrl_fn;
	void		*data_ud;
	void		*ctrl_ud;
};

/*
 * max_msg caps one data message, all its frames together (0 = no
 * cap: pieces are never held, so only the caller's use needs one).
 * Either callback may be NULL (its messages are dropped). The decoder
 * allocates nothing.
 */
void	kube_ws_dec_init(struct kube_ws_dec *, size_t max_msg,
	    kube_ws_data_fn *, kube_ws_ctrl_fn *, void *data_ud,
	    void *ctrl_ud);

/*
 * Feeds len bytes (any split: one byte at a time works) and calls the
 * callbacks for what they complete. Returns 0, or -1 with err set: a
 * callback's error, or RAI_E_PROTO naming the byte and the fault (a
 * masked frame, RSV bits, an unknown opcode, a control frame over 125
 * bytes or fragmented, a 1-byte close payload, a continuation with no
 * open message, a new message while one is open, a length with its top
 * bit set, a message over max_msg, any byte after a close frame). After
 * -1 the decoder stays failed: feeding again fails (RAI_E_INTERNAL).
 */
int	kube_ws_dec_feed(struct kube_ws_dec *, const void *data, size_t len,
	    struct rai_err *);

/* 1 once a close frame was read (and handed to the ctrl callback). */
int	kube_ws_dec_closed(const struct kube_ws_dec *);

/*
 * At the end of the connection: -1 (RAI_E_PROTO) when it ended inside
 * a frame or a fragmented message, else 0. Whether the server closed
 * properly is kube_ws_dec_closed's answer.
 */
int	kube_ws_dec_finish(const struct kube_ws_dec *, struct rai_err *);

/* Nothing to free today; for symmetry with the other framers. */
void	kube_ws_dec_release(struct kube_ws_dec *);

/*
 * Splits a close frame's payload: *code (KUBE_WS_CLOSE_NO_STATUS when
 * empty) and the reason, not NUL-terminated (reason and reason_len may
 * be NULL). Returns 0, or -1 for a 1-byte payload (outputs untouched).
 */
int	kube_ws_parse_close(const char *payload, size_t len, int *code,
	    const char **reason, size_t *reason_len);

/* ---- the Kubernetes channel protocol ---- */

#define KUBE_CHAN_V5		"v5.channel.k8s.io"
#define KUBE_CHAN_V4		"v4.channel.k8s.io"

/* The first byte of every binary message. */
enum kube_chan_id {
	KUBE_CHAN_STDIN		= 0,
	KUBE_CHAN_STDOUT	= 1,
	KUBE_CHAN_STDERR	= 2,
	KUBE_CHAN_ERROR		= 3,	/* Status JSON at the end */
	KUBE_CHAN_RESIZE	= 4,	/* {"Width":..,"Height":..} */
	KUBE_CHAN_CLOSE		= 255,	/* v5: [id]: id ends */
};

#define KUBE_CHAN_ERROR_MAX	((size_t)64 << 10)

/*
 * What the server sent, by channel:
 *	KUBE_CHAN_STDOUT, _STDERR	each piece as it arrives
 *					(len > 0)
 *	KUBE_CHAN_ERROR			at the end of each of its
 *					messages that held text: all
 *					the channel's text so far
 *	KUBE_CHAN_CLOSE			data is one byte: the channel
 *					the server closed
 * Returns 0 to go on, or -1 with err set to stop.
 */
typedef int kube_chan_fn(void *ud, int channel, const char *data,
	    size_t len, struct rai_err *);

struct kube_chan {
	int		 cur;		/* its channel, -1 = none */
	uint64_t	 msg_len;	/* its bytes after the channel's */
	unsigned char	 close_id;	/* a KUBE_CHAN_CLOSE's byte */
	size_t		 close_len;
	struct rai_buf	 error;		/* KUBE_CHAN_ERROR's text */
	kube_chan_fn	*fn;
	void		*ud;
};

void	kube_chan_init(struct kube_chan *, kube_chan_fn *, void *ud);

/*
 * The kube_ws_data_fn to give the decoder, with the struct kube_chan
 * as its data_ud. Empty messages (a server sends one, the bare channel
 * byte, when a stream starts) are ignored. Fails with RAI_E_PROTO on a
 * text message (no base64 protocol is offered), an unknown channel,
 * data on stdin or resize (client-to-server channels), a close message
 * that is not one byte naming a channel 0-4, and an error channel over
 * KUBE_CHAN_ERROR_MAX; else with fn's error.
 */
int	kube_chan_on_data(void *chan, int opcode, const char *data,
	    size_t len, unsigned flags, struct rai_err *);

/* The error channel's text so far (NUL-terminated, "" when none). */
const char *kube_chan_error(const struct kube_chan *, size_t *len);

void	kube_chan_release(struct kube_chan *);

/*
 * How the remote command ended, from the error channel's Status. len 0
 * (nothing came: v5 and v4 both mean success) and {"status":"Success"}
 * give 0 with *exit_code 0; a NonZeroExitCode failure whose ExitCode
 * cause holds an integer gives 0 with that code. Any other failure
 * gives -1 with err filled from the Status as rai_err_from_http does
 * (RAI_E_HTTP, reason, message, causes; http_status is the Status'
 * code, 500 when it has none); anything that is not a Status, -1 with
 * RAI_E_PROTO. *exit_code is written only on success.
 */
int	kube_chan_status(const char *json, size_t len, int *exit_code,
	    struct rai_err *);

/*
 * Client messages, each one masked binary frame appended to out.
 * kube_chan_encode_data: the channel byte then len bytes of data, for
 * channels 0-4. kube_chan_encode_resize: {"Width":cols,"Height":rows}
 * on KUBE_CHAN_RESIZE, each at most 65535. kube_chan_encode_close:
 * [255, channel], v5 only (the caller knows what it negotiated).
 * Return as kube_ws_encode (RAI_E_INTERNAL on a bad argument).
 */
int	kube_chan_encode_data(struct rai_buf *out, int channel,
	    const void *data, size_t len, const unsigned char mask[4],
	    struct rai_err *);
int	kube_chan_encode_resize(struct rai_buf *out, unsigned cols,
	    unsigned rows, const unsigned char mask[4], struct rai_err *);
int	kube_chan_encode_close(struct rai_buf *out, int channel,
	    const unsigned char mask[4], struct rai_err *);

#endif
