/*
 * kube_spdy: SPDY/3.1 framing, the client's half, as kubectl speaks it
 * to a kubelet for port forwarding (since Kubernetes 1.31 carried in a
 * WebSocket's binary messages, subprotocol SPDY/3.1+portforward.k8s.io).
 * Pure: bytes in, frames out, and frames appended to a buffer.
 *
 * Every frame has 8 bytes of head and a payload. A control frame's head
 * has its high bit set, the version (3), the type, 8 bits of flags and
 * a 24-bit length; a data frame's head is the stream id (31 bits), the
 * flags (FIN = 1) and the length. Header blocks (SYN_STREAM, SYN_REPLY,
 * HEADERS) are a 32-bit count, then 32-bit-length-prefixed names and
 * values, compressed by one zlib stream per direction for the whole
 * session, primed with SPDY/3's dictionary and sync-flushed after each
 * block: every block that arrives must be inflated, in order, even one
 * nobody reads, or the next cannot be.
 *
 * Flow control is left out on purpose: the kubelet's SPDY library
 * (spdystream) neither sends WINDOW_UPDATE nor waits for one, so the
 * transport's back-pressure is what bounds both sides; WINDOW_UPDATE
 * and SETTINGS frames are read and passed on like the others.
 */
#ifndef KUBE_SPDY_H
#define KUBE_SPDY_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "core/buf.h"
#include "core/err.h"

enum kube_spdy_type {
	KUBE_SPDY_DATA		= 0,	/* not a control type: a data frame */
	KUBE_SPDY_SYN_STREAM	= 1,
	KUBE_SPDY_SYN_REPLY	= 2,
	KUBE_SPDY_RST_STREAM	= 3,
	KUBE_SPDY_SETTINGS	= 4,
	KUBE_SPDY_PING		= 6,
	KUBE_SPDY_GOAWAY	= 7,
	KUBE_SPDY_HEADERS	= 8,
	KUBE_SPDY_WINDOW_UPDATE	= 9,
};

#define KUBE_SPDY_FLAG_FIN	0x01
#define KUBE_SPDY_HEAD		8
#define KUBE_SPDY_LENGTH_MAX	((size_t)0xffffff)
/* a control frame or an inflated header block larger than this is refused */
#define KUBE_SPDY_CONTROL_MAX	((size_t)1 << 20)

/* RST_STREAM status codes */
#define KUBE_SPDY_PROTOCOL_ERROR	1
#define KUBE_SPDY_REFUSED_STREAM	3
#define KUBE_SPDY_CANCEL		5

/* SPDY/3's zlib dictionary (1423 bytes, built once). */
const unsigned char *kube_spdy_dictionary(size_t *len);

/*
 * One frame as it arrives. A data frame comes in pieces as its bytes
 * do (data/len, `last` on the final one, which may be empty); a control
 * frame comes whole once. stream_id: data, SYN_*, RST_STREAM, HEADERS
 * and WINDOW_UPDATE frames. value: RST_STREAM's and GOAWAY's status,
 * PING's id, WINDOW_UPDATE's delta; GOAWAY's last good stream is in
 * stream_id. data/len of a SYN_STREAM, SYN_REPLY or HEADERS frame: its
 * inflated header block (see kube_spdy_header).
 */
struct kube_spdy_frame {
	int		 type;
	unsigned	 flags;
	uint32_t	 stream_id;
	uint32_t	 value;
	const char	*data;
	size_t		 len;
	int		 last;
};

/* 0, or -1 with err to stop the feed. */
typedef int kube_spdy_frame_fn(void *ud, const struct kube_spdy_frame *,
	    struct rai_err *);

struct kube_spdy {
	z_stream		 def, inf;	/* our blocks; the peer's */
	int			 def_ready, inf_ready;
	unsigned char		 head[KUBE_SPDY_HEAD];
	size_t			 head_len;
	size_t			 left;		/* the current payload's bytes to come */
	struct rai_buf		 control;	/* a control frame's payload so far */
	struct rai_buf		 block;		/* an inflated header block */
	kube_spdy_frame_fn	*fn;
	void			*ud;
};

void	kube_spdy_init(struct kube_spdy *, kube_spdy_frame_fn *, void *ud);
void	kube_spdy_release(struct kube_spdy *);

/*
 * Bytes from the peer, split anywhere. Returns 0, or -1 with err:
 * RAI_E_PROTO for a broken frame (a version other than 3, a control
 * frame too short for its type or over KUBE_SPDY_CONTROL_MAX, a header
 * block that does not inflate or parse), or fn's error. Unknown control
 * types are skipped, as SPDY asks.
 */
int	kube_spdy_feed(struct kube_spdy *, const void *data, size_t len,
	    struct rai_err *);

/*
 * A SYN_STREAM for stream id (odd: the client's) with the headers
 * nv = { name, value, ..., NULL }, names lower-case as SPDY/3 wants.
 * Returns 0, or -1 with err (zlib's failure, out's cap), out unchanged.
 */
int	kube_spdy_syn_stream(struct kube_spdy *, struct rai_buf *out,
	    uint32_t id, unsigned flags, const char *const nv[],
	    struct rai_err *);
/* The 8-byte head of a data frame carrying len bytes (<= LENGTH_MAX). */
void	kube_spdy_data_head(unsigned char head[KUBE_SPDY_HEAD], uint32_t id,
	    unsigned flags, size_t len);
/* RST_STREAM, PING (the answer echoes the id) and GOAWAY frames. */
int	kube_spdy_rst_stream(struct rai_buf *out, uint32_t id,
	    uint32_t status);
int	kube_spdy_ping(struct rai_buf *out, uint32_t id);
int	kube_spdy_goaway(struct rai_buf *out, uint32_t last_id,
	    uint32_t status);

/*
 * The value of header name in an inflated block (the first when the
 * name repeats; SPDY joins repeated values with NUL bytes). 1 with
 * val and vlen pointing into block, 0 when absent.
 */
int	kube_spdy_header(const char *block, size_t len, const char *name,
	    const char **val, size_t *vlen);

#endif
