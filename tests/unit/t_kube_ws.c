/*
 * kube_ws: the RFC 6455 examples, every protocol error, the same
 * messages however the bytes are chunked (whole, byte by byte, random
 * sizes), exact encoder bytes, encode/decode round trips, and the
 * Kubernetes channel demux and Status.
 *
 * Server frames are built here by hand and client frames unmasked by a
 * plain loop, so an encoder bug and a decoder bug cannot cancel out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/ws.h"

#include "harness.h"

static const unsigned char rfc_mask[4] = { 0x37, 0xfa, 0x21, 0x3d };

static uint32_t
lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* An unmasked (server) frame, written without the encoder. */
static void
server_frame(struct rai_buf *b, int opcode, int fin, const void *p,
    size_t len)
{
	unsigned char h[10];
	size_t n = 2;
	int i;

	h[0] = (unsigned char)((fin ? 0x80 : 0) | opcode);
	if (len < 126)
		h[1] = (unsigned char)len;
	else if (len < 65536) {
		h[1] = 126;
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)len;
		n = 4;
	} else {
		h[1] = 127;
		for (i = 0; i < 8; i++)
			h[2 + i] = (unsigned char)((uint64_t)len >>
			    (56 - 8 * i));
		n = 10;
	}
	rai_buf_add(b, h, n);
	rai_buf_add(b, p, len);
}

/* A channel message from the server: the channel byte, then data. */
static void
server_chan(struct rai_buf *b, int channel, const char *data)
{
	struct rai_buf m = RAI_BUF_INIT;

	rai_buf_addch(&m, channel);
	rai_buf_addstr(&m, data);
	server_frame(b, KUBE_WS_BINARY, 1, m.data, m.len);
	rai_buf_release(&m);
}

/*
 * Turns the client frame at the start of b into the server frame it
 * stands for: mask bit cleared, key removed, payload unmasked. Returns
 * the header size it found, 0 when the frame was not masked.
 */
static size_t
unmask_frame(struct rai_buf *b)
{
	unsigned char *u = (unsigned char *)b->data, key[4];
	size_t hlen = 2, i;

	if (b->len < 2 || !(u[1] & 0x80))
		return 0;
	if ((u[1] & 0x7f) == 126)
		hlen = 4;
	else if ((u[1] & 0x7f) == 127)
		hlen = 10;
	memcpy(key, u + hlen, 4);
	memmove(u + hlen, u + hlen + 4, b->len - hlen - 4);
	b->len -= 4;
	u[1] &= 0x7f;
	for (i = hlen; i < b->len; i++)
		u[i] ^= key[(i - hlen) & 3];
	return hlen + 4;
}

/* ---- a decoder that logs what it gets ---- */

struct got {
	struct rai_buf	 log;	/* "text:Hello|ping:..|ERR(..)" */
	struct rai_buf	 msg;	/* the message being put together */
	int		 open;
	int		 pieces;
	int		 bad;	/* a FIRST/LAST rule was broken */
	int		 fail_data;	/* fail at piece n, 0 never */
	int		 fail_ctrl;
	int		 nctrl;
};

static void
got_init(struct got *g)
{
	memset(g, 0, sizeof(*g));
	rai_buf_init(&g->log, 0);
	rai_buf_init(&g->msg, 0);
}

static void
got_release(struct got *g)
{
	rai_buf_release(&g->log);
	rai_buf_release(&g->msg);
}

static const char *
op_name(int opcode)
{
	switch (opcode) {
	case KUBE_WS_TEXT: return "text";
	case KUBE_WS_BINARY: return "binary";
	case KUBE_WS_CLOSE: return "close";
	case KUBE_WS_PING: return "ping";
	case KUBE_WS_PONG: return "pong";
	}
	return "?";
}

/* Bytes into the log, anything unprintable as \xHH. */
static void
log_bytes(struct rai_buf *log, const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '|')
			rai_buf_addch(log, c);
		else
			rai_buf_addf(log, "\\x%02x", c);
	}
}

static int
got_data(void *ud, int opcode, const char *data, size_t len, unsigned flags,
    struct rai_err *err)
{
	struct got *g = ud;

	g->pieces++;
	if (flags & KUBE_WS_FIRST) {
		if (g->open)
			g->bad++;
		g->open = 1;
		rai_buf_reset(&g->msg);
	} else if (!g->open)
		g->bad++;
	if (len == 0 && !(flags & KUBE_WS_LAST))
		g->bad++;
	rai_buf_add(&g->msg, data, len);
	if (flags & KUBE_WS_LAST) {
		rai_buf_addf(&g->log, "%s:", op_name(opcode));
		log_bytes(&g->log, g->msg.data ? g->msg.data : "", g->msg.len);
		rai_buf_addch(&g->log, '|');
		g->open = 0;
	}
	if (g->pieces == g->fail_data)
		return rai_err_set(err, RAI_E_IO, "data callback says no");
	return 0;
}

static int
got_ctrl(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct got *g = ud;

	rai_buf_addf(&g->log, "%s:", op_name(opcode));
	log_bytes(&g->log, payload, len);
	rai_buf_addch(&g->log, '|');
	if (++g->nctrl == g->fail_ctrl)
		return rai_err_set(err, RAI_E_IO, "control callback says no");
	return 0;
}

/*
 * Feeds in chunks (chunk 0 = random sizes from seed); returns the log,
 * ending in "ERR(<kind>): <message>" when a feed failed and "BAD" when
 * a FIRST/LAST rule was broken. *pieces, if given, counts data calls.
 */
static char *
decode_log(const void *in, size_t len, size_t chunk, uint32_t seed,
    size_t max_msg, int *pieces)
{
	const char *p = in;
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got g;
	size_t off = 0, n;
	int rc = 0;

	got_init(&g);
	kube_ws_dec_init(&d, max_msg, got_data, got_ctrl, &g, &g);
	while (off < len && rc == 0) {
		n = chunk ? chunk : 1 + lcg(&seed) % 23;
		if (n > len - off)
			n = len - off;
		rc = kube_ws_dec_feed(&d, p + off, n, &err);
		off += n;
	}
	if (rc != 0)
		rai_buf_addf(&g.log, "ERR(%s): %s", rai_err_kind_name(err.kind),
		    err.message);
	if (g.bad)
		rai_buf_addstr(&g.log, "BAD");
	if (pieces != NULL)
		*pieces = g.pieces;
	kube_ws_dec_release(&d);
	rai_err_release(&err);
	rai_buf_release(&g.msg);
	return rai_buf_detach(&g.log, NULL);
}

/* ---- handshake ---- */

TEST(rfc_key_and_accept_example)
{
	char key[25], accept[29];

	kube_ws_key((const unsigned char *)"the sample nonce", key);
	T_STR_EQ(key, "dGhlIHNhbXBsZSBub25jZQ==");
	kube_ws_accept(key, accept);
	T_STR_EQ(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

static const char *const both[] = { KUBE_CHAN_V5, KUBE_CHAN_V4, NULL };
#define RFC_KEY		"dGhlIHNhbXBsZSBub25jZQ=="
#define RFC_ACCEPT	"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

TEST(upgrade_accepts_a_proper_answer)
{
	struct rai_err err = RAI_ERR_INIT;
	const char *chosen = NULL;

	T_INT_EQ(kube_ws_check_upgrade(RFC_KEY, 101, "websocket", "Upgrade",
	    RFC_ACCEPT, KUBE_CHAN_V4, both, &chosen, &err), 0);
	T_OK(chosen == both[1]);
	/* header words in any case, tokens among others, blanks around */
	chosen = NULL;
	T_INT_EQ(kube_ws_check_upgrade(RFC_KEY, 101, " WebSocket ",
	    "keep-alive, UPGRADE", " " RFC_ACCEPT "\t", " v5.channel.k8s.io",
	    both, &chosen, &err), 0);
	T_OK(chosen == both[0]);
	/* nothing offered, nothing chosen */
	chosen = both[0];
	T_INT_EQ(kube_ws_check_upgrade(RFC_KEY, 101, "websocket", "upgrade",
	    RFC_ACCEPT, NULL, NULL, &chosen, &err), 0);
	T_NULL(chosen);
	T_INT_EQ(err.kind, RAI_OK);
}

static char *
upgrade_msg(long status, const char *up, const char *conn, const char *acc,
    const char *proto, const char *const offered[])
{
	struct rai_err err = RAI_ERR_INIT;
	const char *chosen = "untouched";
	char *msg;

	if (kube_ws_check_upgrade(RFC_KEY, status, up, conn, acc, proto,
	    offered, &chosen, &err) == 0)
		return strdup("OK");
	msg = strdup(err.kind == RAI_E_PROTO && strcmp(chosen, "untouched")
	    == 0 ? err.message : "wrong kind or chosen touched");
	rai_err_release(&err);
	return msg;
}

TEST(upgrade_failures_say_what_was_wrong)
{
	static const struct {
		long		 status;
		const char	*up, *conn, *acc, *proto;
		int		 offer;
		const char	*want;
	} c[] = {
		{ 200, "websocket", "Upgrade", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: status 200 where 101 Switching "
		    "Protocols was expected" },
		{ 101, "h2c", "Upgrade", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: unexpected Upgrade 'h2c'" },
		{ 101, NULL, "Upgrade", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: no Upgrade header in the "
		    "answer" },
		{ 101, "websocket", "keep-alive", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: unexpected Connection "
		    "'keep-alive'" },
		{ 101, "websocket", "upgraded", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: unexpected Connection "
		    "'upgraded'" },
		{ 101, "websocket", "", RFC_ACCEPT, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: no Connection header in the "
		    "answer" },
		{ 101, "websocket", "Upgrade", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo",
		    KUBE_CHAN_V5, 1, "WebSocket upgrade failed: unexpected "
		    "Sec-WebSocket-Accept 's3pPLMBiTxaQ9kYGzzhZRbK+xOo'" },
		{ 101, "websocket", "Upgrade", "S3PPLMBITXAQ9KYGZZHZRBK+XOO=",
		    KUBE_CHAN_V5, 1, "WebSocket upgrade failed: unexpected "
		    "Sec-WebSocket-Accept 'S3PPLMBITXAQ9KYGZZHZRBK+XOO='" },
		{ 101, "websocket", "Upgrade", NULL, KUBE_CHAN_V5, 1,
		    "WebSocket upgrade failed: no Sec-WebSocket-Accept header "
		    "in the answer" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT, NULL, 1,
		    "WebSocket upgrade failed: the server chose no subprotocol "
		    "(offered v5.channel.k8s.io, v4.channel.k8s.io)" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT, " ", 1,
		    "WebSocket upgrade failed: the server chose no subprotocol "
		    "(offered v5.channel.k8s.io, v4.channel.k8s.io)" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT, "channel.k8s.io", 1,
		    "WebSocket upgrade failed: the server chose subprotocol "
		    "'channel.k8s.io', which was not offered" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT, "V4.CHANNEL.K8S.IO",
		    1, "WebSocket upgrade failed: the server chose subprotocol "
		    "'V4.CHANNEL.K8S.IO', which was not offered" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT, KUBE_CHAN_V4, 0,
		    "WebSocket upgrade failed: the server chose subprotocol "
		    "'v4.channel.k8s.io', which was not offered" },
		/* the server's bytes are quoted safely and cut short */
		{ 101, "web\x1b[2Jsocket", "Upgrade", RFC_ACCEPT, KUBE_CHAN_V5,
		    1, "WebSocket upgrade failed: unexpected Upgrade "
		    "'web?[2Jsocket'" },
		{ 101, "websocket", "Upgrade", RFC_ACCEPT,
		    "0123456789012345678901234567890123456789012345678901234567"
		    "89012345678901234567890123456789", 1,
		    "WebSocket upgrade failed: the server chose subprotocol "
		    "'0123456789012345678901234567890123456789012345678901234567"
		    "890123...', which was not offered" },
	};
	size_t i;
	char *msg;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		msg = upgrade_msg(c[i].status, c[i].up, c[i].conn, c[i].acc,
		    c[i].proto, c[i].offer ? both : NULL);
		T_STR_EQ(msg, c[i].want);
		free(msg);
	}
}

/* ---- decoder: the RFC 6455 §5.7 examples ---- */

TEST(rfc_single_frame_unmasked_text)
{
	static const char in[] = "\x81\x05Hello";
	char *got = decode_log(in, 7, 7, 0, 0, NULL);

	T_STR_EQ(got, "text:Hello|");
	free(got);
}

TEST(rfc_masked_frame_is_refused_from_a_server)
{
	static const char in[] = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51"
	    "\x58";
	char *got = decode_log(in, 11, 11, 0, 0, NULL);

	T_STR_EQ(got, "ERR(proto): WebSocket protocol error at byte 1: a "
	    "masked frame (servers never mask)");
	free(got);
}

TEST(rfc_fragmented_text_comes_in_two_pieces)
{
	static const char in[] = "\x01\x03Hel\x80\x02lo";
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got g;

	got_init(&g);
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &g, &g);
	/* the first fragment goes out before the second one arrives */
	T_INT_EQ(kube_ws_dec_feed(&d, in, 5, &err), 0);
	T_INT_EQ(g.pieces, 1);
	T_INT_EQ(g.open, 1);
	T_STR_EQ(rai_buf_str(&g.msg), "Hel");
	T_INT_EQ(kube_ws_dec_feed(&d, in + 5, 4, &err), 0);
	T_INT_EQ(g.pieces, 2);
	T_STR_EQ(rai_buf_str(&g.log), "text:Hello|");
	T_INT_EQ(g.bad, 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), 0);
	got_release(&g);
}

TEST(rfc_ping_and_pong)
{
	static const char in[] = "\x89\x05Hello\x8a\x05Hello";
	char *got = decode_log(in, 14, 14, 0, 0, NULL);

	T_STR_EQ(got, "ping:Hello|pong:Hello|");
	free(got);
}

TEST(rfc_256_byte_and_64_kib_lengths)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *p = malloc(65536), *got;
	int pieces;
	size_t i;

	for (i = 0; i < 65536; i++)
		p[i] = 'a' + i % 26;
	server_frame(&b, KUBE_WS_BINARY, 1, p, 256);
	T_MEM_EQ(b.data, "\x82\x7e\x01\x00", 4);
	server_frame(&b, KUBE_WS_BINARY, 1, p, 65536);
	T_MEM_EQ(b.data + 4 + 256, "\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00",
	    10);
	got = decode_log(b.data, b.len, b.len, 0, 0, &pieces);
	T_INT_EQ(pieces, 2);
	T_UINT_EQ(strlen(got), 7 + 256 + 1 + 7 + 65536 + 1);
	T_OK(strncmp(got, "binary:abcdef", 13) == 0);
	T_OK(memcmp(got + 7 + 256 + 1 + 7, p, 65536) == 0);
	free(got);
	rai_buf_release(&b);
	free(p);
}

/* ---- decoder: chunking ---- */

/* Frames of every kind, fragments with control frames between. */
static void
make_stream(struct rai_buf *b)
{
	char big[70000];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('A' + i % 57);
	server_frame(b, KUBE_WS_TEXT, 1, "", 0);
	server_frame(b, KUBE_WS_BINARY, 1, "one", 3);
	server_frame(b, KUBE_WS_BINARY, 0, "fr", 2);
	server_frame(b, KUBE_WS_PING, 1, "p1", 2);
	server_frame(b, KUBE_WS_CONT, 0, "ag", 2);
	server_frame(b, KUBE_WS_PONG, 1, "", 0);
	server_frame(b, KUBE_WS_CONT, 0, "", 0);
	server_frame(b, KUBE_WS_CONT, 1, "ment", 4);
	server_frame(b, KUBE_WS_TEXT, 0, "", 0);
	server_frame(b, KUBE_WS_CONT, 1, "", 0);
	server_frame(b, KUBE_WS_BINARY, 0, "", 0);
	server_frame(b, KUBE_WS_CONT, 1, "late", 4);
	server_frame(b, KUBE_WS_BINARY, 1, "\x00\xff|\\", 4);
	server_frame(b, KUBE_WS_BINARY, 1, big, 125);
	server_frame(b, KUBE_WS_BINARY, 0, big, 126);
	server_frame(b, KUBE_WS_PING, 1, big, 125);
	server_frame(b, KUBE_WS_CONT, 1, big, sizeof(big));
	server_frame(b, KUBE_WS_CLOSE, 1, "\x03\xe8" "bye", 5);
}

TEST(byte_at_a_time_equals_whole)
{
	static const char prefix[] = "text:|binary:one|ping:p1|pong:|"
	    "binary:fragment|text:|binary:late|binary:\\x00\\xff\\x7c\\x5c|"
	    "binary:ABC";
	struct rai_buf b = RAI_BUF_INIT;
	char *whole, *bytes, *got;
	uint32_t seed;
	size_t chunk;
	int pieces;

	make_stream(&b);
	whole = decode_log(b.data, b.len, b.len, 0, 0, &pieces);
	/* one call per non-empty data frame, plus one per empty end */
	T_INT_EQ(pieces, 11);
	T_OK(strncmp(whole, prefix, strlen(prefix)) == 0);
	T_OK(strstr(whole, "close:\\x03\\xe8bye|") != NULL);
	T_NULL(strstr(whole, "ERR"));
	T_NULL(strstr(whole, "BAD"));
	bytes = decode_log(b.data, b.len, 1, 0, 0, &pieces);
	T_STR_EQ(bytes, whole);
	T_OK(pieces > 70000);
	for (seed = 1; seed <= 200; seed++) {
		got = decode_log(b.data, b.len, 0, seed, 0, NULL);
		T_STR_EQ(got, whole);
		free(got);
	}
	for (chunk = 2; chunk < 40; chunk++) {
		got = decode_log(b.data, b.len, chunk, 0, 0, NULL);
		T_STR_EQ(got, whole);
		free(got);
	}
	free(whole);
	free(bytes);
	rai_buf_release(&b);
}

TEST(control_frame_between_fragments_comes_between_pieces)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got g;

	server_frame(&b, KUBE_WS_BINARY, 0, "Hel", 3);
	server_frame(&b, KUBE_WS_PING, 1, "x", 1);
	server_frame(&b, KUBE_WS_CONT, 1, "lo", 2);
	got_init(&g);
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &g, &g);
	T_INT_EQ(kube_ws_dec_feed(&d, b.data, 5, &err), 0);
	T_INT_EQ(g.pieces, 1);
	T_STR_EQ(rai_buf_str(&g.log), "");
	T_INT_EQ(kube_ws_dec_feed(&d, b.data + 5, 3, &err), 0);
	T_STR_EQ(rai_buf_str(&g.log), "ping:x|");
	T_INT_EQ(g.open, 1);
	T_INT_EQ(kube_ws_dec_feed(&d, b.data + 8, b.len - 8, &err), 0);
	T_STR_EQ(rai_buf_str(&g.log), "ping:x|binary:Hello|");
	T_INT_EQ(g.bad, 0);
	got_release(&g);
	rai_buf_release(&b);
}

TEST(control_frames_reach_their_own_ud)
{
	static const char in[] = "\x82\x01x\x89\x01y";
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got data, ctrl;

	got_init(&data);
	got_init(&ctrl);
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &data, &ctrl);
	T_INT_EQ(kube_ws_dec_feed(&d, in, 6, &err), 0);
	T_STR_EQ(rai_buf_str(&data.log), "binary:x|");
	T_STR_EQ(rai_buf_str(&ctrl.log), "ping:y|");
	/* no callbacks: everything is dropped, nothing breaks */
	kube_ws_dec_init(&d, 0, NULL, NULL, NULL, NULL);
	T_INT_EQ(kube_ws_dec_feed(&d, in, 6, &err), 0);
	got_release(&data);
	got_release(&ctrl);
}

/* ---- decoder: protocol errors ---- */

static const struct {
	const char	*in;
	size_t		 len;
	size_t		 max_msg;
	const char	*want;
} bad[] = {
#define E(s) "ERR(proto): WebSocket protocol error at byte " s
	{ "\x81\x85\x37\xfa\x21\x3d", 6, 0,
	    E("1: a masked frame (servers never mask)") },
	{ "\xc2\x00", 2, 0,
	    E("0: reserved bits 0x40 set (no extension was negotiated)") },
	{ "\x82\x00\x92\x00", 4, 0,
	    E("2: reserved bits 0x10 set (no extension was negotiated)") },
	{ "\xa2\x00", 2, 0,
	    E("0: reserved bits 0x20 set (no extension was negotiated)") },
	{ "\x83\x00", 2, 0, E("0: unknown opcode 0x3") },
	{ "\x87\x00", 2, 0, E("0: unknown opcode 0x7") },
	{ "\x8b\x00", 2, 0, E("0: unknown opcode 0xb") },
	{ "\x8f\x00", 2, 0, E("0: unknown opcode 0xf") },
	{ "\x89\x7e\x00\x7e", 4, 0,
	    E("1: a ping frame longer than 125 bytes") },
	{ "\x88\x7f\x00\x00\x00\x00\x00\x00\x00\x7e", 10, 0,
	    E("1: a close frame longer than 125 bytes") },
	{ "\x09\x00", 2, 0, E("0: a fragmented ping frame") },
	{ "\x08\x00", 2, 0, E("0: a fragmented close frame") },
	{ "\x0a\x00", 2, 0, E("0: a fragmented pong frame") },
	{ "\x80\x00", 2, 0,
	    E("0: a continuation frame with no message to continue") },
	{ "\x82\x01x\x00\x00", 5, 0,
	    E("3: a continuation frame with no message to continue") },
	{ "\x01\x01" "a\x81\x01" "b", 6, 0,
	    E("3: a new data frame while a fragmented message is open") },
	{ "\x02\x00\x89\x00\x82\x00", 6, 0,
	    E("4: a new data frame while a fragmented message is open") },
	{ "\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10, 0,
	    E("9: a frame length with its top bit set") },
	{ "\x82\x7f\xff\xff\xff\xff\xff\xff\xff\xff", 10, 0,
	    E("9: a frame length with its top bit set") },
	{ "\x88\x01\x03", 3, 0, E("1: a close frame with a 1-byte payload") },
	{ "\x82\x0bxxxxxxxxxxx", 13, 10,
	    E("1: a message larger than 10 bytes") },
	{ "\x82\x7e\x04\x01", 4, 1024,
	    E("3: a message larger than 1 KiB") },
	{ "\x02\x06xxxxxx\x89\x00\x80\x05xxxxx", 17, 10,
	    E("11: a message larger than 10 bytes") },
	{ "\x88\x00\x81\x00", 4, 0, E("2: data after the close frame") },
	{ "\x88\x02\x03\xe8\x89", 5, 0, E("4: data after the close frame") },
#undef E
};

TEST(every_protocol_error_is_named_at_its_byte)
{
	size_t i;
	char *got, *bytes;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		got = decode_log(bad[i].in, bad[i].len, bad[i].len, 0,
		    bad[i].max_msg, NULL);
		bytes = decode_log(bad[i].in, bad[i].len, 1, 0,
		    bad[i].max_msg, NULL);
		T_STR_CONTAINS(got, bad[i].want);
		T_STR_EQ(bytes, got);
		free(got);
		free(bytes);
	}
}

TEST(a_message_at_the_cap_passes)
{
	static const char in[] = "\x02\x05xxxxx\x89\x00\x80\x05yyyyy";
	char *got = decode_log(in, 16, 16, 0, 10, NULL);

	T_STR_EQ(got, "ping:|binary:xxxxxyyyyy|");
	free(got);
	/* the cap is per message, not per stream */
	got = decode_log("\x82\x0axxxxxxxxxx\x82\x0ayyyyyyyyyy", 24, 1, 0, 10,
	    NULL);
	T_STR_EQ(got, "binary:xxxxxxxxxx|binary:yyyyyyyyyy|");
	free(got);
}

TEST(after_an_error_the_decoder_stays_failed)
{
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;

	kube_ws_dec_init(&d, 0, NULL, NULL, NULL, NULL);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x83", 1, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x81\x00", 2, &err), -1);
	T_INT_EQ(err.kind, RAI_E_INTERNAL);
	T_STR_EQ(err.message, "WebSocket stream fed after an error");
	T_INT_EQ(kube_ws_dec_feed(&d, "", 0, &err), -1);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), -1);
	T_INT_EQ(kube_ws_dec_closed(&d), 0);
	rai_err_release(&err);
}

TEST(a_callback_error_stops_the_decoder)
{
	static const char in[] = "\x82\x01" "a\x82\x01" "b\x89\x00\x89\x00";
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got g;

	got_init(&g);
	g.fail_data = 1;
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &g, &g);
	T_INT_EQ(kube_ws_dec_feed(&d, in, sizeof(in) - 1, &err), -1);
	T_INT_EQ(err.kind, RAI_E_IO);
	T_STR_EQ(err.message, "data callback says no");
	T_INT_EQ(g.pieces, 1);
	T_INT_EQ(kube_ws_dec_feed(&d, in + 3, 3, &err), -1);
	T_INT_EQ(g.pieces, 1);
	rai_err_release(&err);
	got_release(&g);

	got_init(&g);
	g.fail_ctrl = 1;
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &g, &g);
	T_INT_EQ(kube_ws_dec_feed(&d, in, sizeof(in) - 1, &err), -1);
	T_STR_EQ(err.message, "control callback says no");
	T_STR_EQ(rai_buf_str(&g.log), "binary:a|binary:b|ping:|");
	rai_err_release(&err);
	got_release(&g);
}

static int
fail_silently(void *ud, int opcode, const char *data, size_t len,
    unsigned flags, struct rai_err *err)
{
	return -1;
}

TEST(a_callback_failing_without_a_reason_still_gives_one)
{
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;

	kube_ws_dec_init(&d, 0, fail_silently, NULL, NULL, NULL);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x82\x00", 2, &err), -1);
	T_INT_EQ(err.kind, RAI_E_INTERNAL);
	T_NOT_NULL(err.message);
	rai_err_release(&err);
}

TEST(close_is_reported_and_ends_the_stream)
{
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;
	struct got g;

	got_init(&g);
	kube_ws_dec_init(&d, 0, got_data, got_ctrl, &g, &g);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x88\x02\x03", 3, &err), 0);
	T_INT_EQ(kube_ws_dec_closed(&d), 0);
	T_INT_EQ(kube_ws_dec_feed(&d, "\xe8", 1, &err), 0);
	T_INT_EQ(kube_ws_dec_closed(&d), 1);
	T_STR_EQ(rai_buf_str(&g.log), "close:\\x03\\xe8|");
	T_INT_EQ(kube_ws_dec_feed(&d, "", 0, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), 0);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x81", 1, &err), -1);
	T_STR_EQ(err.message, "WebSocket protocol error at byte 4: data "
	    "after the close frame");
	rai_err_release(&err);
	got_release(&g);
}

TEST(finish_fails_inside_a_frame_or_message)
{
	struct kube_ws_dec d;
	struct rai_err err = RAI_ERR_INIT;

	kube_ws_dec_init(&d, 0, NULL, NULL, NULL, NULL);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), 0);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x82", 1, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), -1);
	T_STR_EQ(err.message, "WebSocket stream ended at byte 1, inside a "
	    "frame");
	T_INT_EQ(kube_ws_dec_feed(&d, "\x02x", 2, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), -1);
	T_INT_EQ(kube_ws_dec_feed(&d, "y", 1, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), 0);
	T_INT_EQ(kube_ws_dec_feed(&d, "\x02\x00", 2, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_EQ(err.message, "WebSocket stream ended at byte 6, inside a "
	    "fragmented message");
	T_INT_EQ(kube_ws_dec_feed(&d, "\x80\x00", 2, &err), 0);
	T_INT_EQ(kube_ws_dec_finish(&d, &err), 0);
	rai_err_release(&err);
}

TEST(close_payload_parses)
{
	const char *reason = "untouched";
	size_t rlen = 99;
	int code = 0;

	T_INT_EQ(kube_ws_parse_close("\x03\xe8" "bye", 5, &code, &reason,
	    &rlen), 0);
	T_INT_EQ(code, 1000);
	T_UINT_EQ(rlen, 3);
	T_MEM_EQ(reason, "bye", 3);
	T_INT_EQ(kube_ws_parse_close("\x0f\xa0", 2, &code, &reason, &rlen), 0);
	T_INT_EQ(code, 4000);
	T_UINT_EQ(rlen, 0);
	T_INT_EQ(kube_ws_parse_close("", 0, &code, &reason, &rlen), 0);
	T_INT_EQ(code, KUBE_WS_CLOSE_NO_STATUS);
	T_INT_EQ(code, 1005);
	T_STR_EQ(reason, "");
	T_UINT_EQ(rlen, 0);
	code = 7;
	T_INT_EQ(kube_ws_parse_close("\x03", 1, &code, &reason, &rlen), -1);
	T_INT_EQ(code, 7);
	T_INT_EQ(kube_ws_parse_close("\x03\xe9", 2, &code, NULL, NULL), 0);
	T_INT_EQ(code, 1001);
}

/* ---- encoder ---- */

TEST(mask_matches_a_plain_loop_at_any_offset_and_alignment)
{
	unsigned char buf[200], want[200];
	size_t start, len, i;
	uint64_t off;

	for (start = 0; start < 9; start++)
		for (len = 0; len < 80; len++)
			for (off = 0; off < 5; off++) {
				for (i = 0; i < sizeof(buf); i++)
					buf[i] = want[i] =
					    (unsigned char)(i * 7);
				for (i = 0; i < len; i++)
					want[start + i] ^=
					    rfc_mask[(off + i) % 4];
				kube_ws_mask(buf + start, len, rfc_mask, off);
				T_MEM_EQ(buf, want, sizeof(buf));
			}
	/* a payload masked in parts equals one masked whole */
	memset(buf, 'z', sizeof(buf));
	memset(want, 'z', sizeof(want));
	kube_ws_mask(want, 200, rfc_mask, 0);
	kube_ws_mask(buf, 13, rfc_mask, 0);
	kube_ws_mask(buf + 13, 100, rfc_mask, 13);
	kube_ws_mask(buf + 113, 87, rfc_mask, 113);
	T_MEM_EQ(buf, want, 200);
}

TEST(encoder_writes_the_rfc_bytes)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_TEXT, 1, rfc_mask, "Hello", 5,
	    &err), 0);
	T_UINT_EQ(b.len, 11);
	T_MEM_EQ(b.data, "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11);
	rai_buf_reset(&b);
	/* the pong answering the RFC's ping */
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_PONG, 1, rfc_mask, "Hello", 5,
	    &err), 0);
	T_MEM_EQ(b.data, "\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11);
	rai_buf_reset(&b);
	/* fragments: no FIN, then a FIN continuation */
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_TEXT, 0, rfc_mask, "Hel", 3,
	    &err), 0);
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_CONT, 1, rfc_mask, "lo", 2,
	    &err), 0);
	T_UINT_EQ(b.len, 9 + 8);
	T_MEM_EQ(b.data, "\x01\x83\x37\xfa\x21\x3d\x7f\x9f\x4d", 9);
	T_MEM_EQ(b.data + 9, "\x80\x82\x37\xfa\x21\x3d\x5b\x95", 8);
	rai_buf_reset(&b);
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_PING, 1, rfc_mask, NULL, 0, &err),
	    0);
	T_UINT_EQ(b.len, 6);
	T_MEM_EQ(b.data, "\x89\x80\x37\xfa\x21\x3d", 6);
	rai_buf_release(&b);
}

TEST(encoder_uses_the_shortest_length_form)
{
	static const struct {
		size_t		 len;
		const char	*hdr;
		size_t		 hlen;
	} c[] = {
		{ 0, "\x82\x80", 2 },
		{ 125, "\x82\xfd", 2 },
		{ 126, "\x82\xfe\x00\x7e", 4 },
		{ 256, "\x82\xfe\x01\x00", 4 },
		{ 65535, "\x82\xfe\xff\xff", 4 },
		{ 65536, "\x82\xff\x00\x00\x00\x00\x00\x01\x00\x00", 10 },
		{ 1 << 20, "\x82\xff\x00\x00\x00\x00\x00\x10\x00\x00", 10 },
	};
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	char *p = calloc(1, 1 << 20);
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		rai_buf_reset(&b);
		T_INT_EQ(kube_ws_encode(&b, KUBE_WS_BINARY, 1, rfc_mask, p,
		    c[i].len, &err), 0);
		T_UINT_EQ(b.len, c[i].hlen + 4 + c[i].len);
		T_MEM_EQ(b.data, c[i].hdr, c[i].hlen);
		T_MEM_EQ(b.data + c[i].hlen, rfc_mask, 4);
	}
	free(p);
	rai_buf_release(&b);
}

TEST(close_frames_encode_code_and_reason)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	static const unsigned char zero[4] = { 0, 0, 0, 0 };

	T_INT_EQ(kube_ws_encode_close(&b, 1000, "bye", zero, &err), 0);
	T_UINT_EQ(b.len, 11);
	T_MEM_EQ(b.data, "\x88\x85\0\0\0\0\x03\xe8" "bye", 11);
	rai_buf_reset(&b);
	T_INT_EQ(kube_ws_encode_close(&b, 1001, NULL, rfc_mask, &err), 0);
	T_MEM_EQ(b.data, "\x88\x82\x37\xfa\x21\x3d\x34\x13", 8);
	rai_buf_reset(&b);
	T_INT_EQ(kube_ws_encode_close(&b, 0, "", rfc_mask, &err), 0);
	T_UINT_EQ(b.len, 6);
	T_MEM_EQ(b.data, "\x88\x80\x37\xfa\x21\x3d", 6);
	rai_buf_release(&b);
}

TEST(frames_that_cannot_be_sent_leave_the_buffer_alone)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	char p[200], reason[125];

	memset(p, 'x', sizeof(p));
	memset(reason, 'r', 124);
	reason[124] = '\0';
	rai_buf_addstr(&b, "queued");
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_PING, 1, rfc_mask, p, 126, &err),
	    -1);
	T_INT_EQ(err.kind, RAI_E_INTERNAL);
	T_STR_EQ(err.message, "cannot send a ping frame of 126 bytes: control "
	    "frames carry at most 125");
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_PING, 0, rfc_mask, p, 1, &err),
	    -1);
	T_STR_EQ(err.message, "cannot send a ping frame without FIN: control "
	    "frames are never fragmented");
	T_INT_EQ(kube_ws_encode(&b, 3, 1, rfc_mask, p, 1, &err), -1);
	T_STR_EQ(err.message, "cannot send a WebSocket frame with opcode 0x3");
	T_INT_EQ(kube_ws_encode(&b, -8, 1, rfc_mask, p, 1, &err), -1);
	T_INT_EQ(kube_ws_encode_close(&b, 1005, NULL, rfc_mask, &err), -1);
	T_STR_EQ(err.message, "cannot send WebSocket close code 1005");
	T_INT_EQ(kube_ws_encode_close(&b, 999, NULL, rfc_mask, &err), -1);
	T_INT_EQ(kube_ws_encode_close(&b, 5000, NULL, rfc_mask, &err), -1);
	T_INT_EQ(kube_ws_encode_close(&b, 0, "why", rfc_mask, &err), -1);
	T_INT_EQ(kube_ws_encode_close(&b, 1000, reason, rfc_mask, &err), -1);
	T_STR_EQ(err.message, "WebSocket close reason longer than 123 bytes");
	reason[123] = '\0';
	T_INT_EQ(kube_ws_encode_close(&b, 4999, reason, rfc_mask, &err), 0);
	T_UINT_EQ(b.len, 6 + 2 + 4 + 125);
	T_MEM_EQ(b.data, "queued", 6);
	rai_buf_release(&b);

	/* over the cap: nothing of the frame stays */
	rai_buf_init(&b, 20);
	rai_buf_addstr(&b, "queued");
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_BINARY, 1, rfc_mask, p, 8, &err),
	    0);
	T_UINT_EQ(b.len, 20);
	b.len = 6;
	T_INT_EQ(kube_ws_encode(&b, KUBE_WS_BINARY, 1, rfc_mask, p, 9, &err),
	    -1);
	T_STR_EQ(err.message, "a WebSocket frame of 15 bytes does not fit "
	    "the send buffer");
	T_UINT_EQ(b.len, 6);
	T_STR_EQ(rai_buf_str(&b), "queued");
	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_STDIN, p, 8, rfc_mask,
	    &err), -1);
	T_STR_EQ(rai_buf_str(&b), "queued");
	rai_buf_release(&b);
	rai_err_release(&err);
}

/* encode -> unmask -> decode gives the payload back, whole or chunked */
TEST(round_trip_for_every_length_form)
{
	static const size_t sizes[] = { 0, 1, 125, 126, 65535, 65536,
	    1 << 20 };
	struct rai_buf b = RAI_BUF_INIT, want = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	char *p = malloc(1 << 20), *got;
	size_t i, j;
	int pieces;

	for (j = 0; j < (1 << 20); j++)
		p[j] = (char)('a' + (j * 31 + j / 7) % 26);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		rai_buf_reset(&b);
		T_INT_EQ(kube_ws_encode(&b, KUBE_WS_BINARY, 1, rfc_mask, p,
		    sizes[i], &err), 0);
		/* masked: the payload on the wire is not the data */
		if (sizes[i] > 0)
			T_OK(memcmp(b.data + b.len - sizes[i], p,
			    sizes[i]) != 0);
		T_UINT_EQ(unmask_frame(&b), sizes[i] < 126 ? 6 :
		    sizes[i] < 65536 ? 8 : 14);
		rai_buf_reset(&want);
		rai_buf_addstr(&want, "binary:");
		rai_buf_add(&want, p, sizes[i]);
		rai_buf_addch(&want, '|');
		got = decode_log(b.data, b.len, b.len, 0, 0, &pieces);
		T_STR_EQ(got, rai_buf_str(&want));
		T_INT_EQ(pieces, 1);
		free(got);
		got = decode_log(b.data, b.len, 0, (uint32_t)i + 1, 0, NULL);
		T_STR_EQ(got, rai_buf_str(&want));
		free(got);
		/* and a ping of the sizes a control frame may have */
		if (sizes[i] > 125)
			continue;
		rai_buf_reset(&b);
		T_INT_EQ(kube_ws_encode(&b, KUBE_WS_PING, 1, rfc_mask, p,
		    sizes[i], &err), 0);
		unmask_frame(&b);
		got = decode_log(b.data, b.len, 1, 0, 0, NULL);
		T_OK(strncmp(got, "ping:", 5) == 0 &&
		    strlen(got) == 5 + sizes[i] + 1);
		free(got);
	}
	free(p);
	rai_buf_release(&b);
	rai_buf_release(&want);
}

/* ---- channels ---- */

struct chans {
	struct rai_buf	 out;
	struct rai_buf	 err;
	struct rai_buf	 log;	/* "status:..|", "close:N|" */
	int		 pieces[256];
	int		 fail_on;	/* its pieces fail; 0 never */
};

static void
chans_init(struct chans *c)
{
	memset(c, 0, sizeof(*c));
	rai_buf_init(&c->out, 0);
	rai_buf_init(&c->err, 0);
	rai_buf_init(&c->log, 0);
}

static void
chans_release(struct chans *c)
{
	rai_buf_release(&c->out);
	rai_buf_release(&c->err);
	rai_buf_release(&c->log);
}

static int
on_chan(void *ud, int channel, const char *data, size_t len,
    struct rai_err *err)
{
	struct chans *c = ud;

	c->pieces[channel & 0xff]++;
	if (channel == KUBE_CHAN_STDOUT)
		rai_buf_add(&c->out, data, len);
	else if (channel == KUBE_CHAN_STDERR)
		rai_buf_add(&c->err, data, len);
	else if (channel == KUBE_CHAN_ERROR) {
		rai_buf_addstr(&c->log, "status:");
		log_bytes(&c->log, data, len);
		rai_buf_addch(&c->log, '|');
	} else if (channel == KUBE_CHAN_CLOSE)
		rai_buf_addf(&c->log, "close:%d|", len == 1 ? data[0] : -1);
	else
		rai_buf_addf(&c->log, "channel%d?|", channel);
	if (len == 0)
		rai_buf_addstr(&c->log, "EMPTY|");
	if (channel == c->fail_on)
		return rai_err_set(err, RAI_E_IO, "channel callback says no");
	return 0;
}

/* Feeds through decoder and demux; "ERR: <message>" on failure. */
static int
chan_run(const void *in, size_t len, size_t chunk, uint32_t seed,
    struct chans *c, struct kube_chan *ch, struct rai_err *err)
{
	const char *p = in;
	struct kube_ws_dec d;
	size_t off = 0, n;
	int rc = 0;

	kube_chan_init(ch, on_chan, c);
	kube_ws_dec_init(&d, 0, kube_chan_on_data, NULL, ch, NULL);
	while (off < len && rc == 0) {
		n = chunk ? chunk : 1 + lcg(&seed) % 13;
		if (n > len - off)
			n = len - off;
		rc = kube_ws_dec_feed(&d, p + off, n, err);
		off += n;
	}
	kube_ws_dec_release(&d);
	return rc;
}

static void
make_session(struct rai_buf *b)
{
	/* the bare channel byte a server sends when the streams open */
	server_chan(b, KUBE_CHAN_STDOUT, "");
	server_chan(b, KUBE_CHAN_STDERR, "");
	server_chan(b, KUBE_CHAN_ERROR, "");
	server_chan(b, KUBE_CHAN_STDOUT, "hello ");
	server_chan(b, KUBE_CHAN_STDERR, "warning\n");
	/* stdout in three frames, a ping and an empty message between */
	server_frame(b, KUBE_WS_BINARY, 0, "\x01wo", 3);
	server_frame(b, KUBE_WS_PING, 1, "", 0);
	server_frame(b, KUBE_WS_CONT, 0, "r", 1);
	server_frame(b, KUBE_WS_CONT, 1, "ld\n", 3);
	server_frame(b, KUBE_WS_BINARY, 1, "", 0);
	server_frame(b, KUBE_WS_BINARY, 1, "\x01\x00\x01", 3);
	server_frame(b, KUBE_WS_BINARY, 1, "\x01\x00\x01", 3);
	server_frame(b, KUBE_WS_BINARY, 0, "\x03{\"status\":", 11);
	server_frame(b, KUBE_WS_CONT, 1, "\"Success\"}", 10);
	server_frame(b, KUBE_WS_CLOSE, 1, "\x03\xe8", 2);
}

TEST(channels_are_demultiplexed_however_chunked)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_chan ch;
	struct chans c;
	const char *status;
	size_t len, chunk;
	uint32_t seed;

	make_session(&b);
	for (chunk = 0; chunk <= b.len; chunk = chunk < 20 ? chunk + 1 :
	    b.len) {
		for (seed = 1; seed <= (chunk == 0 ? 100u : 1u); seed++) {
			chans_init(&c);
			T_INT_EQ(chan_run(b.data, b.len, chunk, seed, &c, &ch,
			    &err), 0);
			T_UINT_EQ(c.out.len, 16);
			T_MEM_EQ(c.out.data, "hello world\n\0\x01\0\x01", 16);
			T_STR_EQ(rai_buf_str(&c.err), "warning\n");
			T_STR_EQ(rai_buf_str(&c.log),
			    "status:{\"status\":\"Success\"}|");
			status = kube_chan_error(&ch, &len);
			T_UINT_EQ(len, 20);
			T_STR_EQ(status, "{\"status\":\"Success\"}");
			kube_chan_release(&ch);
			chans_release(&c);
		}
		if (chunk == b.len)
			break;
	}
	rai_buf_release(&b);
	rai_err_release(&err);
}

TEST(stdout_is_handed_out_as_it_arrives)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_chan ch;
	struct chans c;
	char big[100000];
	size_t i;

	big[0] = KUBE_CHAN_STDOUT;
	for (i = 1; i < sizeof(big); i++)
		big[i] = (char)i;
	server_frame(&b, KUBE_WS_BINARY, 1, big, sizeof(big));
	chans_init(&c);
	T_INT_EQ(chan_run(b.data, b.len, 1000, 0, &c, &ch, &err), 0);
	/* 101 chunks (header and channel byte in the first): 101 pieces */
	T_INT_EQ(c.pieces[KUBE_CHAN_STDOUT], 101);
	T_UINT_EQ(c.out.len, sizeof(big) - 1);
	T_MEM_EQ(c.out.data, big + 1, sizeof(big) - 1);
	/* nothing was held: the demux owns no stdout buffer */
	T_UINT_EQ(ch.error.alloc, 0);
	kube_chan_release(&ch);
	chans_release(&c);
	rai_buf_release(&b);
}

TEST(close_channel_messages_name_the_channel)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_chan ch;
	struct chans c;

	server_frame(&b, KUBE_WS_BINARY, 1, "\xff\x01", 2);
	server_frame(&b, KUBE_WS_BINARY, 0, "\xff", 1);
	server_frame(&b, KUBE_WS_CONT, 1, "\x02", 1);
	chans_init(&c);
	T_INT_EQ(chan_run(b.data, b.len, 1, 0, &c, &ch, &err), 0);
	T_STR_EQ(rai_buf_str(&c.log), "close:1|close:2|");
	kube_chan_release(&ch);
	chans_release(&c);
	rai_buf_release(&b);
}

static char *
chan_error(const char *in, size_t len, size_t chunk, int fail_on)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_chan ch;
	struct chans c;
	char *msg;

	chans_init(&c);
	c.fail_on = fail_on;
	if (chan_run(in, len, chunk, 0, &c, &ch, &err) == 0)
		msg = strdup("OK");
	else
		msg = strdup(err.message);
	rai_err_release(&err);
	kube_chan_release(&ch);
	chans_release(&c);
	return msg;
}

TEST(channel_protocol_errors)
{
	static const struct {
		const char	*in;
		size_t		 len;
		const char	*want;
	} c[] = {
		{ "\x81\x02\x01x", 4, "the server sent a text message where "
		    "the channel protocol has binary ones" },
		{ "\x81\x00", 2, "the server sent a text message where the "
		    "channel protocol has binary ones" },
		{ "\x82\x02\x05x", 4, "the server sent a message on unknown "
		    "channel 5" },
		{ "\x82\x01\xfe", 3, "the server sent a message on unknown "
		    "channel 254" },
		{ "\x82\x02\x00x", 4, "the server sent data on the stdin "
		    "channel" },
		{ "\x82\x02\x04x", 4, "the server sent data on the resize "
		    "channel" },
		{ "\x82\x01\xff", 3, "the server sent a close-channel message "
		    "naming no channel" },
		{ "\x82\x02\xff\x05", 4, "the server sent a close-channel "
		    "message naming no channel" },
		{ "\x82\x03\xff\x01\x02", 5, "the server sent a close-channel "
		    "message of more than one byte" },
		{ "\x82\x02\x01x", 4, "channel callback says no" },
		/* a bare stdin or resize byte is the stream-start message */
		{ "\x82\x01\x00\x82\x01\x04", 6, "OK" },
	};
	size_t i, chunk;
	char *msg;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (chunk = 1; chunk <= c[i].len; chunk += c[i].len - 1) {
			msg = chan_error(c[i].in, c[i].len, chunk,
			    strstr(c[i].want, "says no") ? KUBE_CHAN_STDOUT :
			    0);
			T_STR_EQ(msg, c[i].want);
			free(msg);
		}
}

TEST(error_channel_is_capped_at_64_kib)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *big = malloc(KUBE_CHAN_ERROR_MAX + 2), *msg;

	memset(big, ' ', KUBE_CHAN_ERROR_MAX + 2);
	big[0] = KUBE_CHAN_ERROR;
	server_frame(&b, KUBE_WS_BINARY, 1, big, KUBE_CHAN_ERROR_MAX + 1);
	msg = chan_error(b.data, b.len, 4096, 0);
	T_STR_EQ(msg, "OK");
	free(msg);
	/* two messages count together */
	server_frame(&b, KUBE_WS_BINARY, 1, "\x03 ", 2);
	msg = chan_error(b.data, b.len, 4096, 0);
	T_STR_EQ(msg, "the server's error channel carried more than 64 KiB");
	free(msg);
	free(big);
	rai_buf_release(&b);
}

static int
status(const char *json, int *code, struct rai_err *err)
{
	return kube_chan_status(json, strlen(json), code, err);
}

TEST(status_success_and_exit_codes)
{
	static const char exit7[] = "{\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"command terminated with non-zero exit code: error "
	    "executing command [sh -c exit 7], exit code 7\",\"reason\":"
	    "\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":"
	    "\"ExitCode\",\"message\":\"7\"}]}}";
	struct rai_err err = RAI_ERR_INIT;
	int code = -1;

	T_INT_EQ(kube_chan_status("", 0, &code, &err), 0);
	T_INT_EQ(code, 0);
	code = -1;
	T_INT_EQ(status("{\"metadata\":{},\"status\":\"Success\"}", &code,
	    &err), 0);
	T_INT_EQ(code, 0);
	T_INT_EQ(kube_chan_status(exit7, strlen(exit7), &code, &err), 0);
	T_INT_EQ(code, 7);
	T_INT_EQ(status("{\"status\":\"Failure\",\"reason\":"
	    "\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":\"Other\","
	    "\"message\":\"1\"},{\"reason\":\"ExitCode\",\"message\":\"255\"}]}}",
	    &code, &err), 0);
	T_INT_EQ(code, 255);
	T_INT_EQ(err.kind, RAI_OK);
}

TEST(status_failures_become_errors)
{
	static const char internal[] = "{\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"Internal error occurred: error executing command in "
	    "container: container not found (\\\"c\\\")\",\"reason\":"
	    "\"InternalError\",\"details\":{\"causes\":[{\"message\":\"error "
	    "executing command in container\"}]},\"code\":500}";
	static const char noexit[] = "{\"status\":\"Failure\",\"reason\":"
	    "\"NonZeroExitCode\",\"message\":\"command terminated\",\"details\":"
	    "{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"seven\"}]}}";
	struct rai_err err = RAI_ERR_INIT;
	int code = 42;

	T_INT_EQ(kube_chan_status(internal, strlen(internal), &code, &err), -1);
	T_INT_EQ(code, 42);
	T_INT_EQ(err.kind, RAI_E_HTTP);
	T_INT_EQ(err.http_status, 500);
	T_STR_EQ(err.reason, "InternalError");
	T_STR_EQ(err.message, "Internal error occurred: error executing "
	    "command in container: container not found (\"c\")");
	T_UINT_EQ(err.ncauses, 1);
	/* no code: 500; a bad exit code: the Status' own words */
	T_INT_EQ(kube_chan_status(noexit, strlen(noexit), &code, &err), -1);
	T_INT_EQ(err.kind, RAI_E_HTTP);
	T_INT_EQ(err.http_status, 500);
	T_STR_EQ(err.reason, "NonZeroExitCode");
	T_STR_EQ(err.message, "command terminated");
	T_INT_EQ(status("{\"status\":\"Failure\",\"code\":403,"
	    "\"reason\":\"Forbidden\",\"kind\":\"Other\"}", &code, &err), -1);
	T_INT_EQ(err.http_status, 403);
	T_STR_EQ(err.reason, "Forbidden");
	T_STR_EQ(err.message, "403 Forbidden");
	T_INT_EQ(code, 42);
	rai_err_release(&err);
}

TEST(status_garbage_is_a_protocol_error)
{
	static const struct {
		const char	*in;
		const char	*want;
	} c[] = {
		{ "not json", "malformed Status on the error channel: "
		    "'not json'" },
		{ "{}", "malformed Status on the error channel: '{}'" },
		{ " ", "malformed Status on the error channel: ' '" },
		{ "[1]", "malformed Status on the error channel: '[1]'" },
		{ "{\"status\":\"Unknown\"}", "malformed Status on the error "
		    "channel: '{\"status\":\"Unknown\"}'" },
		{ "{\"status\":1}", "malformed Status on the error channel: "
		    "'{\"status\":1}'" },
		{ "{\"status\":\"Success\"", "malformed Status on the error "
		    "channel: '{\"status\":\"Success\"'" },
		{ "\x1b]0;x\x07", "malformed Status on the error channel: "
		    "'?]0;x?'" },
	};
	struct rai_err err = RAI_ERR_INIT;
	size_t i;
	int code = 42;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		T_INT_EQ(kube_chan_status(c[i].in, strlen(c[i].in), &code,
		    &err), -1);
		T_INT_EQ(err.kind, RAI_E_PROTO);
		T_STR_EQ(err.message, c[i].want);
		T_INT_EQ(code, 42);
	}
	/* only len bytes are read */
	T_INT_EQ(kube_chan_status("{\"status\":\"Success\"}trailing", 20,
	    &code, &err), 0);
	rai_err_release(&err);
}

TEST(channel_encoders_write_exact_bytes)
{
	static const unsigned char zero[4] = { 0, 0, 0, 0 };
	static const char resize[] = "\x82\x99\0\0\0\0\x04{\"Width\":80,"
	    "\"Height\":24}";
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_STDIN, "ls\n", 3, zero,
	    &err), 0);
	T_UINT_EQ(b.len, 10);
	T_MEM_EQ(b.data, "\x82\x84\0\0\0\0\0ls\n", 10);
	rai_buf_reset(&b);
	/* masked from the channel byte on */
	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_STDIN, "Hello", 5,
	    rfc_mask, &err), 0);
	T_MEM_EQ(b.data, "\x82\x86\x37\xfa\x21\x3d\x37\xb2\x44\x51\x5b\x95",
	    12);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_STDIN, NULL, 0, zero,
	    &err), 0);
	T_MEM_EQ(b.data, "\x82\x81\0\0\0\0\0", 7);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_resize(&b, 80, 24, zero, &err), 0);
	T_UINT_EQ(b.len, sizeof(resize) - 1);
	T_MEM_EQ(b.data, resize, sizeof(resize) - 1);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_resize(&b, 65535, 0, zero, &err), 0);
	T_STR_EQ(b.data + 7, "{\"Width\":65535,\"Height\":0}");
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_close(&b, KUBE_CHAN_STDIN, zero, &err), 0);
	T_UINT_EQ(b.len, 8);
	T_MEM_EQ(b.data, "\x82\x82\0\0\0\0\xff\x00", 8);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_close(&b, KUBE_CHAN_STDIN, rfc_mask, &err),
	    0);
	T_MEM_EQ(b.data, "\x82\x82\x37\xfa\x21\x3d\xc8\xfa", 8);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_close(&b, KUBE_CHAN_STDERR, zero, &err), 0);
	T_MEM_EQ(b.data, "\x82\x82\0\0\0\0\xff\x02", 8);
	rai_buf_reset(&b);
	T_INT_EQ(kube_chan_encode_data(&b, 5, "x", 1, zero, &err), -1);
	T_STR_EQ(err.message, "cannot send on channel 5");
	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_CLOSE, "x", 1, zero,
	    &err), -1);
	T_INT_EQ(kube_chan_encode_close(&b, -1, zero, &err), -1);
	T_INT_EQ(kube_chan_encode_resize(&b, 65536, 24, zero, &err), -1);
	T_INT_EQ(err.kind, RAI_E_INTERNAL);
	T_STR_EQ(err.message, "cannot send a terminal size of 65536x24");
	T_UINT_EQ(b.len, 0);
	rai_buf_release(&b);
	rai_err_release(&err);
}

/* What the server reads from our stdin frames, unmasked: channel 0. */
TEST(stdin_round_trips_through_the_channel_encoder)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	char *p = malloc(70000), *got;
	size_t i;

	for (i = 0; i < 70000; i++)
		p[i] = (char)(i % 251);
	T_INT_EQ(kube_chan_encode_data(&b, KUBE_CHAN_STDIN, p, 70000,
	    rfc_mask, &err), 0);
	T_UINT_EQ(b.len, 14 + 70001);
	unmask_frame(&b);
	T_UINT_EQ(b.len, 10 + 70001);
	T_INT_EQ(b.data[10], 0);
	T_MEM_EQ(b.data + 11, p, 70000);
	got = decode_log(b.data, b.len, 1, 0, 0, NULL);
	T_OK(strncmp(got, "binary:\\x00\\x00\\x01\\x02", 23) == 0);
	free(got);
	free(p);
	rai_buf_release(&b);
}

int
main(void)
{
	RUN(rfc_key_and_accept_example);
	RUN(upgrade_accepts_a_proper_answer);
	RUN(upgrade_failures_say_what_was_wrong);
	RUN(rfc_single_frame_unmasked_text);
	RUN(rfc_masked_frame_is_refused_from_a_server);
	RUN(rfc_fragmented_text_comes_in_two_pieces);
	RUN(rfc_ping_and_pong);
	RUN(rfc_256_byte_and_64_kib_lengths);
	RUN(byte_at_a_time_equals_whole);
	RUN(control_frame_between_fragments_comes_between_pieces);
	RUN(control_frames_reach_their_own_ud);
	RUN(every_protocol_error_is_named_at_its_byte);
	RUN(a_message_at_the_cap_passes);
	RUN(after_an_error_the_decoder_stays_failed);
	RUN(a_callback_error_stops_the_decoder);
	RUN(a_callback_failing_without_a_reason_still_gives_one);
	RUN(close_is_reported_and_ends_the_stream);
	RUN(finish_fails_inside_a_frame_or_message);
	RUN(close_payload_parses);
	RUN(mask_matches_a_plain_loop_at_any_offset_and_alignment);
	RUN(encoder_writes_the_rfc_bytes);
	RUN(encoder_uses_the_shortest_length_form);
	RUN(close_frames_encode_code_and_reason);
	RUN(frames_that_cannot_be_sent_leave_the_buffer_alone);
	RUN(round_trip_for_every_length_form);
	RUN(channels_are_demultiplexed_however_chunked);
	RUN(stdout_is_handed_out_as_it_arrives);
	RUN(close_channel_messages_name_the_channel);
	RUN(channel_protocol_errors);
	RUN(error_channel_is_capped_at_64_kib);
	RUN(status_success_and_exit_codes);
	RUN(status_failures_become_errors);
	RUN(status_garbage_is_a_protocol_error);
	RUN(channel_encoders_write_exact_bytes);
	RUN(stdin_round_trips_through_the_channel_encoder);
	return t_done();
}
