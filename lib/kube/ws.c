/*
 * WebSocket framing (RFC 6455) and the Kubernetes channel protocol,
 * without I/O. Debian 12's libcurl has no WebSocket support, so the
 * transport speaks it over CONNECT_ONLY and hands us the bytes.
 *
 * The decoder never holds a data message: each frame's payload goes to
 * the callback straight from the fed chunk, so a 100 MiB stdout stream
 * costs no memory and no copy here. Only control frames (at most 125
 * bytes) and frame headers (at most 14) are kept across chunks.
 */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/json.h"
#include "kube/ws.h"

#include "core/banned.h"

#define WS_GUID		"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define QUOTE_MAX	64	/* of a peer's string in a message */

/*
 * A peer's bytes made fit for a one-line message: control bytes become
 * '?', and more than QUOTE_MAX bytes end in "...".
 */
static void
quote(char *buf, size_t bufsz, const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len && i < QUOTE_MAX && n + 1 < bufsz; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (i < len && n + 3 < bufsz) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}

/* ---- handshake ---- */

void
kube_ws_key(const unsigned char nonce[16], char out[25])
{
	EVP_EncodeBlock((unsigned char *)out, nonce, 16);
}

void
kube_ws_accept(const char *key, char out[29])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;

	/* two updates: no concatenated copy of a key of any length */
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		rai_die("out of memory hashing the WebSocket key");
	if (EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, key, strlen(key)) != 1 ||
	    EVP_DigestUpdate(ctx, WS_GUID, strlen(WS_GUID)) != 1 ||
	    EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 20)
		rai_die("SHA-1 is not available from OpenSSL");
	EVP_MD_CTX_free(ctx);
	EVP_EncodeBlock((unsigned char *)out, md, 20);
}

/* s without leading and trailing blanks, as *start and *len. */
static void
trim(const char *s, const char **start, size_t *len)
{
	size_t n;

	if (s == NULL)
		s = "";
	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	*start = s;
	*len = n;
}

static int
span_eq(const char *s, size_t len, const char *word, int nocase)
{
	if (strlen(word) != len)
		return 0;
	return nocase ? strncasecmp(s, word, len) == 0 :
	    memcmp(s, word, len) == 0;
}

/* Whether a comma-separated header value holds token (any case). */
static int
has_token(const char *list, const char *token)
{
	const char *p = list, *comma, *t;
	char item[256];
	size_t n, tlen;

	if (list == NULL)
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			trim(item, &t, &tlen);
			if (span_eq(t, tlen, token, 1))
				return 1;
		}
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

static int
upgrade_error(struct rai_err *err, const char *what, const char *hdr)
{
	char q[QUOTE_MAX + 4];
	const char *s;
	size_t len;

	trim(hdr, &s, &len);
	if (len == 0)
		return rai_err_set(err, RAI_E_PROTO, "WebSocket upgrade "
		    "failed: no %s header in the answer", what);
	quote(q, sizeof(q), s, len);
	return rai_err_set(err, RAI_E_PROTO, "WebSocket upgrade failed: "
	    "unexpected %s '%s'", what, q);
}

static int
check_protocol(const char *hdr, const char *const offered[],
    const char **chosen, struct rai_err *err)
{
	struct rai_buf list = RAI_BUF_INIT;
	char q[QUOTE_MAX + 4];
	const char *s;
	size_t len, i;

	trim(hdr, &s, &len);
	for (i = 0; offered != NULL && offered[i] != NULL; i++)
		if (len > 0 && span_eq(s, len, offered[i], 0)) {
			*chosen = offered[i];
			return 0;
		}
	if (len == 0 && i == 0) {
		*chosen = NULL;
		return 0;
	}
	if (len > 0) {
		quote(q, sizeof(q), s, len);
		return rai_err_set(err, RAI_E_PROTO, "WebSocket upgrade "
		    "failed: the server chose subprotocol '%s', which was not "
		    "offered", q);
	}
	for (i = 0; offered[i] != NULL; i++)
		rai_buf_addf(&list, "%s%s", i ? ", " : "", offered[i]);
	rai_err_set(err, RAI_E_PROTO, "WebSocket upgrade failed: the server "
	    "chose no subprotocol (offered %s)", rai_buf_str(&list));
	rai_buf_release(&list);
	return -1;
}

int
kube_ws_check_upgrade(const char *key, long status, const char *upgrade_hdr,
    const char *connection_hdr, const char *accept_hdr,
    const char *protocol_hdr, const char *const offered[],
    const char **chosen, struct rai_err *err)
{
	char want[29];
	const char *s;
	size_t len;

	if (status != 101)
		return rai_err_set(err, RAI_E_PROTO, "WebSocket upgrade "
		    "failed: status %ld where 101 Switching Protocols was "
		    "expected", status);
	trim(upgrade_hdr, &s, &len);
	if (!span_eq(s, len, "websocket", 1))
		return upgrade_error(err, "Upgrade", upgrade_hdr);
	if (!has_token(connection_hdr, "upgrade"))
		return upgrade_error(err, "Connection", connection_hdr);
	kube_ws_accept(key, want);
	trim(accept_hdr, &s, &len);
	if (!span_eq(s, len, want, 0))
		return upgrade_error(err, "Sec-WebSocket-Accept", accept_hdr);
	return check_protocol(protocol_hdr, offered, chosen, err);
}

/* ---- client frames ---- */

void
kube_ws_mask(void *buf, size_t len, const unsigned char mask[4],
    uint64_t offset)
{
	unsigned char *p = buf, m[8];
	uint64_t w, mw;
	size_t i;

	for (i = 0; i < 8; i++)
		m[i] = mask[(offset + i) & 3];
	/*
	 * Eight bytes a step: the mask repeats every four, so the phase
	 * never changes. memcpy keeps unaligned words defined; compilers
	 * make it a plain load and store.
	 */
	memcpy(&mw, m, 8);
	for (; len >= 32; p += 32, len -= 32)
		for (i = 0; i < 32; i += 8) {
			memcpy(&w, p + i, 8);
			w ^= mw;
			memcpy(p + i, &w, 8);
		}
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		w ^= mw;
		memcpy(p, &w, 8);
	}
	for (i = 0; i < len; i++)
		p[i] ^= m[i];
}

static int
is_control(int opcode)
{
	return (opcode & 0x8) != 0;
}

static int
valid_opcode(int opcode)
{
	switch (opcode) {
	case KUBE_WS_CONT:
	case KUBE_WS_TEXT:
	case KUBE_WS_BINARY:
	case KUBE_WS_CLOSE:
	case KUBE_WS_PING:
	case KUBE_WS_PONG:
		return 1;
	}
	return 0;
}

static const char *
opcode_name(int opcode)
{
	switch (opcode) {
	case KUBE_WS_CONT: return "continuation";
	case KUBE_WS_TEXT: return "text";
	case KUBE_WS_BINARY: return "binary";
	case KUBE_WS_CLOSE: return "close";
	case KUBE_WS_PING: return "ping";
	case KUBE_WS_PONG: return "pong";
	}
	return "unknown";
}

static size_t
put_header(unsigned char *h, int opcode, int fin, const unsigned char mask[4],
    uint64_t len)
{
	size_t n = 2;
	int i;

	h[0] = (unsigned char)((fin ? 0x80 : 0) | opcode);
	if (len < 126)
		h[1] = (unsigned char)(0x80 | len);
	else if (len <= 0xffff) {
		h[1] = 0x80 | 126;
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)len;
		n = 4;
	} else {
		h[1] = 0x80 | 127;
		for (i = 0; i < 8; i++)
			h[2 + i] = (unsigned char)(len >> (56 - 8 * i));
		n = 10;
	}
	memcpy(h + n, mask, 4);
	return n + 4;
}

/*
 * One masked frame whose payload is pre then payload (the channel byte
 * and the data), copied once into out and masked there.
 */
static int
encode(struct rai_buf *out, int opcode, int fin, const unsigned char mask[4],
    const void *pre, size_t prelen, const void *payload, size_t len,
    struct rai_err *err)
{
	unsigned char h[KUBE_WS_HEADER_MAX];
	size_t start = out->len, hlen, total;
	char size[32];

	if (!valid_opcode(opcode))
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send a "
		    "WebSocket frame with opcode 0x%x", (unsigned)opcode);
	if (len > SIZE_MAX - prelen)
		return rai_err_set(err, RAI_E_INTERNAL, "WebSocket payload "
		    "too large");
	total = prelen + len;
	if (is_control(opcode) && !fin)
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send a %s "
		    "frame without FIN: control frames are never fragmented",
		    opcode_name(opcode));
	if (is_control(opcode) && total > KUBE_WS_CTRL_MAX)
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send a %s "
		    "frame of %zu bytes: control frames carry at most 125",
		    opcode_name(opcode), total);
	hlen = put_header(h, opcode, fin, mask, total);
	if (rai_buf_add(out, h, hlen) == -1 ||
	    rai_buf_add(out, pre, prelen) == -1 ||
	    rai_buf_add(out, payload, len) == -1) {
		/* leave out as it was: no half frame may ever be sent */
		out->len = start;
		if (out->data != NULL)
			out->data[start] = '\0';
		rai_http_format_size(hlen + total, size, sizeof(size));
		return rai_err_set(err, RAI_E_INTERNAL, "a WebSocket frame of "
		    "%s does not fit the send buffer", size);
	}
	kube_ws_mask(out->data + start + hlen, total, mask, 0);
	return 0;
}

int
kube_ws_encode(struct rai_buf *out, int opcode, int fin,
    const unsigned char mask[4], const void *payload, size_t len,
    struct rai_err *err)
{
	return encode(out, opcode, fin, mask, NULL, 0, payload, len, err);
}

int
kube_ws_encode_binary2(struct rai_buf *out, const unsigned char mask[4],
    const void *head, size_t headlen, const void *payload, size_t len,
    struct rai_err *err)
{
	return encode(out, KUBE_WS_BINARY, 1, mask, head, headlen, payload,
	    len, err);
}

static int
close_code_sendable(int code)
{
	if (code < 1000 || code > 4999)
		return 0;
	return code != 1004 && code != 1005 && code != 1006 && code != 1015;
}

int
kube_ws_encode_close(struct rai_buf *out, int code, const char *reason,
    const unsigned char mask[4], struct rai_err *err)
{
	unsigned char be[2];
	size_t rlen = reason != NULL ? strlen(reason) : 0;

	if (code == 0 && rlen == 0)
		return encode(out, KUBE_WS_CLOSE, 1, mask, NULL, 0, NULL, 0,
		    err);
	if (!close_code_sendable(code))
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send "
		    "WebSocket close code %d", code);
	if (rlen > KUBE_WS_CTRL_MAX - 2)
		return rai_err_set(err, RAI_E_INTERNAL, "WebSocket close "
		    "reason longer than 123 bytes");
	be[0] = (unsigned char)(code >> 8);
	be[1] = (unsigned char)code;
	return encode(out, KUBE_WS_CLOSE, 1, mask, be, 2, reason, rlen, err);
}

/* ---- server frames ---- */

enum {
	DEC_HEADER,
	DEC_PAYLOAD,
	DEC_CLOSED,	/* a close frame came: nothing may follow */
	DEC_FAILED,
};

void
kube_ws_dec_init(struct kube_ws_dec *d, size_t max_msg,
    kube_ws_data_fn *data_fn, kube_ws_ctrl_fn *ctrl_fn, void *data_ud,
    void *ctrl_ud)
{
	memset(d, 0, sizeof(*d));
	d->state = DEC_HEADER;
	d->hdr_need = 2;
	d->max_msg = max_msg;
	d->data_fn = data_fn;
	d->ctrl_fn = ctrl_fn;
	d->data_ud = data_ud;
	d->ctrl_ud = ctrl_ud;
}

void
kube_ws_dec_release(struct kube_ws_dec *d)
{
	(void)d;
}

int
kube_ws_dec_closed(const struct kube_ws_dec *d)
{
	return d->state == DEC_CLOSED;
}

/* d->off is the offset of the byte that shows the fault. */
static int
dec_error(struct kube_ws_dec *d, struct rai_err *err, const char *what)
{
	d->state = DEC_FAILED;
	return rai_err_set(err, RAI_E_PROTO, "WebSocket protocol error at "
	    "byte %llu: %s", (unsigned long long)d->off, what);
}

/* A callback said -1; make sure the caller gets a reason. */
static int
cb_failed(struct kube_ws_dec *d, struct rai_err *err)
{
	d->state = DEC_FAILED;
	if (err != NULL && err->kind == RAI_OK)
		rai_err_set(err, RAI_E_INTERNAL, "a WebSocket callback failed "
		    "without saying why");
	return -1;
}

static int
dec_byte0(struct kube_ws_dec *d, unsigned char c, struct rai_err *err)
{
	char what[80];
	int op = c & 0x0f;

	if (c & 0x70) {
		snprintf(what, sizeof(what), "reserved bits 0x%02x set (no "
		    "extension was negotiated)", c & 0x70u);
		return dec_error(d, err, what);
	}
	switch (op) {
	case KUBE_WS_CONT:
		if (d->msg_opcode == 0)
			return dec_error(d, err, "a continuation frame with no "
			    "message to continue");
		break;
	case KUBE_WS_TEXT:
	case KUBE_WS_BINARY:
		if (d->msg_opcode != 0)
			return dec_error(d, err, "a new data frame while a "
			    "fragmented message is open");
		break;
	case KUBE_WS_CLOSE:
	case KUBE_WS_PING:
	case KUBE_WS_PONG:
		if (!(c & 0x80)) {
			snprintf(what, sizeof(what), "a fragmented %s frame",
			    opcode_name(op));
			return dec_error(d, err, what);
		}
		break;
	default:
		snprintf(what, sizeof(what), "unknown opcode 0x%x",
		    (unsigned)op);
		return dec_error(d, err, what);
	}
	d->opcode = op;
	d->fin = (c & 0x80) != 0;
	return 0;
}

static int
dec_byte1(struct kube_ws_dec *d, unsigned char c, struct rai_err *err)
{
	char what[80];
	unsigned len7 = c & 0x7fu;

	if (c & 0x80)
		return dec_error(d, err, "a masked frame (servers never mask)");
	if (is_control(d->opcode) && len7 > KUBE_WS_CTRL_MAX) {
		snprintf(what, sizeof(what), "a %s frame longer than 125 bytes",
		    opcode_name(d->opcode));
		return dec_error(d, err, what);
	}
	d->hdr_need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
	return 0;
}

static int
deliver_data(struct kube_ws_dec *d, int opcode, const char *p, size_t n,
    unsigned flags, struct rai_err *err)
{
	if (d->data_fn != NULL &&
	    d->data_fn(d->data_ud, opcode, p, n, flags, err) != 0)
		return cb_failed(d, err);
	return 0;
}

/* A whole control frame: the close ends the stream. */
static int
deliver_ctrl(struct kube_ws_dec *d, struct rai_err *err)
{
	d->state = d->opcode == KUBE_WS_CLOSE ? DEC_CLOSED : DEC_HEADER;
	if (d->ctrl_fn != NULL && d->ctrl_fn(d->ctrl_ud, d->opcode, d->ctrl,
	    d->ctrl_len, err) != 0)
		return cb_failed(d, err);
	return 0;
}

/* The header is complete: check the length and start the payload. */
static int
dec_frame(struct kube_ws_dec *d, struct rai_err *err)
{
	uint64_t len = d->hdr[1] & 0x7f;
	char what[80], size[32];
	unsigned i;
	int opcode;

	if (len == 126)
		len = (uint64_t)d->hdr[2] << 8 | d->hdr[3];
	else if (len == 127)
		for (i = 0, len = 0; i < 8; i++)
			len = len << 8 | d->hdr[2 + i];
	d->hdr_len = 0;
	d->hdr_need = 2;
	if (len >> 63)
		return dec_error(d, err, "a frame length with its top bit set");
	d->left = len;
	d->state = DEC_PAYLOAD;
	if (is_control(d->opcode)) {
		if (d->opcode == KUBE_WS_CLOSE && len == 1)
			return dec_error(d, err, "a close frame with a 1-byte "
			    "payload");
		d->ctrl_len = 0;
		return len == 0 ? deliver_ctrl(d, err) : 0;
	}
	if (d->opcode != KUBE_WS_CONT) {
		d->msg_opcode = d->opcode;
		d->msg_first = 1;
		d->msg_len = 0;
	}
	if (d->max_msg != 0 && len > d->max_msg - d->msg_len) {
		rai_http_format_size(d->max_msg, size, sizeof(size));
		snprintf(what, sizeof(what), "a message larger than %s", size);
		return dec_error(d, err, what);
	}
	d->msg_len += len;
	if (len > 0)
		return 0;
	/* an empty frame: only the end of a message is worth a call */
	d->state = DEC_HEADER;
	if (!d->fin)
		return 0;
	opcode = d->msg_opcode;
	d->msg_opcode = 0;
	return deliver_data(d, opcode, "", 0,
	    KUBE_WS_LAST | (d->msg_first ? KUBE_WS_FIRST : 0), err);
}

/* Up to n payload bytes at p; returns how many were used, or -1. */
static int
dec_payload(struct kube_ws_dec *d, const char *p, size_t n, size_t *used,
    struct rai_err *err)
{
	unsigned flags = 0;
	int opcode = d->msg_opcode;

	if (n > d->left)
		n = (size_t)d->left;
	*used = n;
	d->left -= n;
	if (is_control(d->opcode)) {
		memcpy(d->ctrl + d->ctrl_len, p, n);
		d->ctrl_len += n;
		return d->left == 0 ? deliver_ctrl(d, err) : 0;
	}
	if (d->msg_first)
		flags |= KUBE_WS_FIRST;
	d->msg_first = 0;
	if (d->left == 0) {
		d->state = DEC_HEADER;
		if (d->fin) {
			flags |= KUBE_WS_LAST;
			d->msg_opcode = 0;
		}
	}
	return deliver_data(d, opcode, p, n, flags, err);
}

int
kube_ws_dec_feed(struct kube_ws_dec *d, const void *data, size_t len,
    struct rai_err *err)
{
	const char *p = data;
	size_t used;
	int rc = 0;

	if (d->state == DEC_FAILED)
		return rai_err_set(err, RAI_E_INTERNAL, "WebSocket stream fed "
		    "after an error");
	while (len > 0 && rc == 0) {
		switch (d->state) {
		case DEC_CLOSED:
			return dec_error(d, err, "data after the close frame");
		case DEC_HEADER:
			d->hdr[d->hdr_len++] = (unsigned char)*p;
			if (d->hdr_len == 1)
				rc = dec_byte0(d, (unsigned char)*p, err);
			else if (d->hdr_len == 2)
				rc = dec_byte1(d, (unsigned char)*p, err);
			if (rc == 0 && d->hdr_len == d->hdr_need)
				rc = dec_frame(d, err);
			used = 1;
			break;
		default:
			rc = dec_payload(d, p, len, &used, err);
			break;
		}
		p += used;
		len -= used;
		d->off += used;
	}
	if (rc != 0)
		d->state = DEC_FAILED;
	return rc == 0 ? 0 : -1;
}

int
kube_ws_dec_finish(const struct kube_ws_dec *d, struct rai_err *err)
{
	const char *what = NULL;

	if (d->state == DEC_FAILED)
		return rai_err_set(err, RAI_E_INTERNAL, "WebSocket stream "
		    "finished after an error");
	if (d->state == DEC_PAYLOAD || d->hdr_len > 0)
		what = "inside a frame";
	else if (d->msg_opcode != 0)
		what = "inside a fragmented message";
	if (what == NULL)
		return 0;
	return rai_err_set(err, RAI_E_PROTO, "WebSocket stream ended at byte "
	    "%llu, %s", (unsigned long long)d->off, what);
}

int
kube_ws_parse_close(const char *payload, size_t len, int *code,
    const char **reason, size_t *reason_len)
{
	const unsigned char *u = (const unsigned char *)payload;

	if (len == 1)
		return -1;
	*code = len == 0 ? KUBE_WS_CLOSE_NO_STATUS : u[0] << 8 | u[1];
	if (reason != NULL)
		*reason = len == 0 ? "" : payload + 2;
	if (reason_len != NULL)
		*reason_len = len == 0 ? 0 : len - 2;
	return 0;
}

/* ---- the Kubernetes channel protocol ---- */

void
kube_chan_init(struct kube_chan *c, kube_chan_fn *fn, void *ud)
{
	memset(c, 0, sizeof(*c));
	c->cur = -1;
	rai_buf_init(&c->error, KUBE_CHAN_ERROR_MAX);
	c->fn = fn;
	c->ud = ud;
}

void
kube_chan_release(struct kube_chan *c)
{
	rai_buf_release(&c->error);
}

const char *
kube_chan_error(const struct kube_chan *c, size_t *len)
{
	if (len != NULL)
		*len = c->error.len;
	return rai_buf_str(&c->error);
}

static int
chan_deliver(struct kube_chan *c, int channel, const char *data, size_t len,
    struct rai_err *err)
{
	if (c->fn != NULL && c->fn(c->ud, channel, data, len, err) != 0) {
		if (err != NULL && err->kind == RAI_OK)
			rai_err_set(err, RAI_E_INTERNAL, "a channel callback "
			    "failed without saying why");
		return -1;
	}
	return 0;
}

static int
chan_piece(struct kube_chan *c, const char *data, size_t len,
    struct rai_err *err)
{
	switch (c->cur) {
	case KUBE_CHAN_STDOUT:
	case KUBE_CHAN_STDERR:
		return chan_deliver(c, c->cur, data, len, err);
	case KUBE_CHAN_ERROR:
		if (rai_buf_add(&c->error, data, len) == -1)
			return rai_err_set(err, RAI_E_PROTO, "the server's "
			    "error channel carried more than 64 KiB");
		return 0;
	case KUBE_CHAN_CLOSE:
		if (len > 1 || c->close_len > 0)
			return rai_err_set(err, RAI_E_PROTO, "the server sent "
			    "a close-channel message of more than one byte");
		c->close_id = (unsigned char)data[0];
		c->close_len = 1;
		return 0;
	}
	return rai_err_set(err, RAI_E_PROTO, "the server sent data on the %s "
	    "channel", c->cur == KUBE_CHAN_STDIN ? "stdin" : "resize");
}

static int
chan_end(struct kube_chan *c, struct rai_err *err)
{
	switch (c->cur) {
	case KUBE_CHAN_ERROR:
		if (c->msg_len == 0)	/* the stream-start message */
			return 0;
		return chan_deliver(c, c->cur, c->error.data, c->error.len,
		    err);
	case KUBE_CHAN_CLOSE:
		if (c->close_len != 1 || c->close_id > KUBE_CHAN_RESIZE)
			return rai_err_set(err, RAI_E_PROTO, "the server sent "
			    "a close-channel message naming no channel");
		return chan_deliver(c, c->cur, (const char *)&c->close_id, 1,
		    err);
	}
	return 0;
}

int
kube_chan_on_data(void *chan, int opcode, const char *data, size_t len,
    unsigned flags, struct rai_err *err)
{
	struct kube_chan *c = chan;

	if (opcode != KUBE_WS_BINARY)
		return rai_err_set(err, RAI_E_PROTO, "the server sent a text "
		    "message where the channel protocol has binary ones");
	if (flags & KUBE_WS_FIRST) {
		c->cur = -1;
		c->msg_len = 0;
		c->close_len = 0;
	}
	if (c->cur == -1 && len > 0) {
		c->cur = (unsigned char)data[0];
		if (c->cur > KUBE_CHAN_RESIZE && c->cur != KUBE_CHAN_CLOSE)
			return rai_err_set(err, RAI_E_PROTO, "the server sent "
			    "a message on unknown channel %d", c->cur);
		data++;
		len--;
	}
	c->msg_len += len;
	if (len > 0 && chan_piece(c, data, len, err) == -1)
		return -1;
	if (flags & KUBE_WS_LAST) {
		if (c->cur != -1 && chan_end(c, err) == -1)
			return -1;
		c->cur = -1;
	}
	return 0;
}

/* The code of a NonZeroExitCode Status, or -1. */
static int
nonzero_exit(const cJSON *root)
{
	const cJSON *causes = rai_json_array(root, "details.causes"), *cause;
	const char *msg, *reason = rai_json_str(root, "reason");
	char *end;
	long v;

	if (reason == NULL || strcmp(reason, "NonZeroExitCode") != 0)
		return -1;
	cJSON_ArrayForEach(cause, causes) {
		reason = rai_json_str(cause, "reason");
		msg = rai_json_str(cause, "message");
		if (reason == NULL || strcmp(reason, "ExitCode") != 0 ||
		    msg == NULL || !isdigit((unsigned char)msg[0]))
			continue;
		v = strtol(msg, &end, 10);
		if (*end == '\0' && v > 0 && v <= INT_MAX)
			return (int)v;
	}
	return -1;
}

/*
 * The server's failure as rai_err_from_http gives it. The error
 * channel's Status has no "kind" (it is marshalled bare), so one is
 * added for rai_err to know it.
 */
static int
status_error(cJSON *root, struct rai_err *err)
{
	double code = rai_json_num(root, "code", 0);
	char *text;

	cJSON_DeleteItemFromObjectCaseSensitive(root, "kind");
	if (cJSON_AddStringToObject(root, "kind", "Status") == NULL)
		rai_die("out of memory reading a Status");
	text = rai_json_print(root);
	rai_err_from_http(err, code >= 400 && code <= 599 ? (long)code : 500,
	    "application/json", text, strlen(text), 0);
	free(text);
	return -1;
}

int
kube_chan_status(const char *json, size_t len, int *exit_code,
    struct rai_err *err)
{
	char q[QUOTE_MAX + 4];
	const char *status;
	cJSON *root;
	int rc, code;

	if (len == 0) {
		*exit_code = 0;
		return 0;
	}
	root = cJSON_ParseWithLength(json, len);
	status = root != NULL ? rai_json_str(root, "status") : NULL;
	if (status != NULL && strcmp(status, "Success") == 0) {
		*exit_code = 0;
		rc = 0;
	} else if (status != NULL && strcmp(status, "Failure") == 0) {
		if ((code = nonzero_exit(root)) != -1) {
			*exit_code = code;
			rc = 0;
		} else
			rc = status_error(root, err);
	} else {
		quote(q, sizeof(q), json, len);
		rc = rai_err_set(err, RAI_E_PROTO, "malformed Status on the "
		    "error channel: '%s'", q);
	}
	cJSON_Delete(root);
	return rc;
}

static int
check_channel(int channel, struct rai_err *err)
{
	if (channel < KUBE_CHAN_STDIN || channel > KUBE_CHAN_RESIZE)
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send on "
		    "channel %d", channel);
	return 0;
}

int
kube_chan_encode_data(struct rai_buf *out, int channel, const void *data,
    size_t len, const unsigned char mask[4], struct rai_err *err)
{
	unsigned char ch = (unsigned char)channel;

	if (check_channel(channel, err) == -1)
		return -1;
	return encode(out, KUBE_WS_BINARY, 1, mask, &ch, 1, data, len, err);
}

int
kube_chan_encode_resize(struct rai_buf *out, unsigned cols, unsigned rows,
    const unsigned char mask[4], struct rai_err *err)
{
	unsigned char ch = KUBE_CHAN_RESIZE;
	char json[48];
	int n;

	/* TerminalSize is two uint16 on the server */
	if (cols > 0xffff || rows > 0xffff)
		return rai_err_set(err, RAI_E_INTERNAL, "cannot send a "
		    "terminal size of %ux%u", cols, rows);
	n = snprintf(json, sizeof(json), "{\"Width\":%u,\"Height\":%u}",
	    cols, rows);
	return encode(out, KUBE_WS_BINARY, 1, mask, &ch, 1, json, (size_t)n,
	    err);
}

int
kube_chan_encode_close(struct rai_buf *out, int channel,
    const unsigned char mask[4], struct rai_err *err)
{
	unsigned char msg[2];

	if (check_channel(channel, err) == -1)
		return -1;
	msg[0] = KUBE_CHAN_CLOSE;
	msg[1] = (unsigned char)channel;
	return encode(out, KUBE_WS_BINARY, 1, mask, NULL, 0, msg, 2, err);
}
