/*
 * kube/portforward's pure parts: [LOCAL:]REMOTE as kubectl reads it,
 * the request path, and the demux of one port's channels (the port
 * prefix on each channel, data pieces in order however the frames are
 * split, the error channel's text, and the server's protocol faults).
 * And the listener: loopback, the system's pick for port 0.
 */
#include <sys/socket.h>
#include <netinet/in.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/portforward.h"
#include "kube/ws.h"

#include "harness.h"

TEST(spec_forms)
{
	struct rai_err err = RAI_ERR_INIT;
	unsigned l = 9, r = 9;

	T_INT_EQ(kube_pf_parse_spec("8888", &l, &r, &err), 0);
	T_UINT_EQ(l, 8888);
	T_UINT_EQ(r, 8888);
	T_INT_EQ(kube_pf_parse_spec("5000:8888", &l, &r, &err), 0);
	T_UINT_EQ(l, 5000);
	T_UINT_EQ(r, 8888);
	T_INT_EQ(kube_pf_parse_spec(":6006", &l, &r, &err), 0);
	T_UINT_EQ(l, 0);
	T_UINT_EQ(r, 6006);
	T_INT_EQ(kube_pf_parse_spec("0:6006", &l, &r, &err), 0);
	T_UINT_EQ(l, 0);
	T_INT_EQ(kube_pf_parse_spec("65535:1", &l, &r, &err), 0);
	T_UINT_EQ(l, 65535);
}

TEST(spec_refusals)
{
	static const char *const bad[] = { "", ":", "0", "70000", "80:",
	    "x", "1:2:3", "-1", "+80", "123456", "80 ", "0:0" };
	struct rai_err err = RAI_ERR_INIT;
	unsigned l, r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_INT_EQ(kube_pf_parse_spec(bad[i], &l, &r, &err), -1);
		T_INT_EQ(err.kind, RAI_E_USAGE);
		T_STR_CONTAINS(err.message, "invalid port '");
		rai_err_release(&err);
	}
}

TEST(path_names_the_port)
{
	char *p = kube_pf_path("runai-team-a", "nb 1", 8888);

	T_STR_EQ(p, "/api/v1/namespaces/runai-team-a/pods/nb%201/portforward"
	    "?ports=8888");
	free(p);
}

/* ---- the demux ---- */

struct sink {
	struct rai_buf	data;
	int		fail;
};

static int
collect(void *ud, const char *data, size_t len, struct rai_err *err)
{
	struct sink *s = ud;

	T_INT_EQ(len > 0, 1);
	if (s->fail)
		return rai_err_set(err, RAI_E_IO, "local side broke");
	rai_buf_add(&s->data, data, len);
	return 0;
}

/* Server frames (unmasked) for messages: channel byte + payload. */
static void
message(struct rai_buf *b, int channel, const void *p, size_t len)
{
	unsigned char hdr[4];
	size_t n = len + 1;

	hdr[0] = 0x82;
	if (n < 126) {
		hdr[1] = (unsigned char)n;
		rai_buf_add(b, hdr, 2);
	} else {
		hdr[1] = 126;
		hdr[2] = (unsigned char)(n >> 8);
		hdr[3] = (unsigned char)n;
		rai_buf_add(b, hdr, 4);
	}
	hdr[0] = (unsigned char)channel;
	rai_buf_add(b, hdr, 1);
	rai_buf_add(b, p, len);
}

/* Feeds b to a fresh decoder + demux `step` bytes at a time. */
static int
feed(const struct rai_buf *b, size_t step, unsigned port, struct sink *s,
    struct kube_pf_demux *d, struct rai_err *err)
{
	struct kube_ws_dec dec;
	size_t off, n;

	kube_pf_demux_init(d, port, collect, s);
	kube_ws_dec_init(&dec, 0, kube_pf_demux_on_data, NULL, d, NULL);
	for (off = 0; off < b->len; off += n) {
		n = b->len - off < step ? b->len - off : step;
		if (kube_ws_dec_feed(&dec, b->data + off, n, err) == -1)
			return -1;
	}
	return 0;
}

static void
stream_for(struct rai_buf *b, unsigned port)
{
	unsigned char pfx[2] = { (unsigned char)port,
	    (unsigned char)(port >> 8) };
	char big[3000];

	memset(big, 'z', sizeof(big));
	message(b, 0, pfx, 2);
	message(b, 1, pfx, 2);
	message(b, 0, "HTTP/1.0 200 OK\r\n", 17);
	message(b, 0, big, sizeof(big));
	message(b, 1, "error forwarding ", 17);
	message(b, 1, "port 8888", 9);
}

TEST(demux_any_split)
{
	static const size_t steps[] = { 1, 2, 3, 7, 100, 100000 };
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_pf_demux d;
	struct sink s;
	size_t i;

	stream_for(&b, 8888);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		memset(&s, 0, sizeof(s));
		T_INT_EQ(feed(&b, steps[i], 8888, &s, &d, &err), 0);
		T_UINT_EQ(s.data.len, 17 + 3000);
		T_MEM_EQ(s.data.data, "HTTP/1.0 200 OK\r\n", 17);
		T_INT_EQ(s.data.data[s.data.len - 1], 'z');
		T_STR_EQ(kube_pf_demux_error(&d),
		    "error forwarding port 8888");
		kube_pf_demux_release(&d);
		rai_buf_release(&s.data);
	}
	rai_buf_release(&b);
}

TEST(demux_prefix_split_across_messages)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_pf_demux d;
	struct sink s;

	memset(&s, 0, sizeof(s));
	/* 0x1f90 = 8080: low byte in one message, high byte + data next */
	message(&b, 0, "\x90", 1);
	message(&b, 0, "\x1f" "abc", 4);
	message(&b, 0, "", 0);	/* an empty message: nothing */
	T_INT_EQ(feed(&b, 1, 8080, &s, &d, &err), 0);
	T_UINT_EQ(s.data.len, 3);
	T_MEM_EQ(s.data.data, "abc", 3);
	T_STR_EQ(kube_pf_demux_error(&d), "");
	kube_pf_demux_release(&d);
	rai_buf_release(&s.data);
	rai_buf_release(&b);
}

static void
refused(const char *want, struct rai_buf *b, int fail_sink)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_pf_demux d;
	struct sink s;

	memset(&s, 0, sizeof(s));
	s.fail = fail_sink;
	T_INT_EQ(feed(b, 5, 8888, &s, &d, &err), -1);
	T_STR_CONTAINS(err.message, want);
	rai_err_release(&err);
	kube_pf_demux_release(&d);
	rai_buf_release(&s.data);
	rai_buf_reset(b);
}

TEST(demux_refusals)
{
	struct rai_buf b = RAI_BUF_INIT;

	message(&b, 0, "\x90\x1f", 2);		/* 8080, not 8888 */
	refused("named port 8080 on channel 0 of a stream for port 8888",
	    &b, 0);
	message(&b, 2, "\xb8\x22", 2);		/* a second port's channel */
	refused("channel 2 of a one-port stream", &b, 0);
	rai_buf_addstr(&b, "\x81\x02hi");	/* a text message */
	refused("text message", &b, 0);
	message(&b, 0, "\xb8\x22" "data", 6);	/* the local side fails */
	refused("local side broke", &b, 1);
	rai_buf_release(&b);
}

TEST(demux_error_text_is_capped)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_pf_demux d;
	struct sink s;
	char chunk[60000];
	int i;

	memset(&s, 0, sizeof(s));
	memset(chunk, 'e', sizeof(chunk));
	message(&b, 1, "\xb8\x22", 2);
	for (i = 0; i < 3; i++)
		message(&b, 1, chunk, sizeof(chunk));
	T_INT_EQ(feed(&b, 65536, 8888, &s, &d, &err), 0);
	T_UINT_EQ(strlen(kube_pf_demux_error(&d)), KUBE_PF_ERROR_MAX);
	kube_pf_demux_release(&d);
	rai_buf_release(&b);
}

TEST(listen_on_loopback_with_a_free_port)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_pf_listener l, l2;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	T_INT_EQ(kube_pf_listen("127.0.0.1", 0, &l, &err), 0);
	T_INT_EQ(l.local_port > 0, 1);
	T_STR_EQ(l.addr, "127.0.0.1");
	T_INT_EQ(getsockname(l.fd, (struct sockaddr *)&sin, &sl), 0);
	T_UINT_EQ(ntohl(sin.sin_addr.s_addr), INADDR_LOOPBACK);
	/* the same port again: in use */
	T_INT_EQ(kube_pf_listen("127.0.0.1", l.local_port, &l2, &err), -1);
	T_STR_CONTAINS(err.message, "unable to listen on 127.0.0.1:");
	rai_err_release(&err);
	T_INT_EQ(kube_pf_listen("example.com", 0, &l2, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	rai_err_release(&err);
	close(l.fd);
}

int
main(void)
{
	RUN(spec_forms);
	RUN(spec_refusals);
	RUN(path_names_the_port);
	RUN(demux_any_split);
	RUN(demux_prefix_split_across_messages);
	RUN(demux_refusals);
	RUN(demux_error_text_is_capped);
	RUN(listen_on_loopback_with_a_free_port);
	return t_done();
}
