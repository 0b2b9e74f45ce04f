/*
 * kube/spdy: SPDY/3's dictionary as the spec prints it; frames made by
 * another implementation (the emulator's Python codec) read back, split
 * at every byte; our SYN_STREAM read by a second session (the shared
 * zlib stream across blocks); header lookups that stay inside the
 * block; and the faults a broken server can commit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/spdy.h"

#include "harness.h"

/*
 * From kubesim.spdy.Codec: SYN_REPLY 1 {x-kube: sim}, SYN_REPLY 3,
 * DATA 3 "hello" FIN, RST_STREAM 5 CANCEL, PING 2, GOAWAY 7, SYN_REPLY 9
 * {x-kube: again} (its block compressed against the first two).
 */
static const char python_frames[] =
	"\x80\x03\x00\x02\x00\x00\x00\x22\x00\x00\x00\x01\x78\xbb\xe3\xc6"
	"\xa7\xc2\x02\xa6\x23\x46\x50\x5a\xaa\xd0\xcd\x2e\x4d\x02\xa5\x2a"
	"\xe6\xe2\xcc\x5c\x00\x00\x00\x00\xff\xff\x80\x03\x00\x02\x00\x00"
	"\x00\x0d\x00\x00\x00\x03\x02\x52\x0c\x00\x00\x00\x00\xff\xff\x00"
	"\x00\x00\x03\x01\x00\x00\x05\x68\x65\x6c\x6c\x6f\x80\x03\x00\x03"
	"\x00\x00\x00\x08\x00\x00\x00\x05\x00\x00\x00\x05\x80\x03\x00\x06"
	"\x00\x00\x00\x04\x00\x00\x00\x02\x80\x03\x00\x07\x00\x00\x00\x08"
	"\x00\x00\x00\x07\x00\x00\x00\x00\x80\x03\x00\x02\x00\x00\x00\x11"
	"\x00\x00\x00\x09\xc2\x90\x60\x4d\x4c\x07\xba\x09\x00\x00\x00\xff"
	"\xff";

/* What the frames said, as one line each. */
struct seen {
	struct rai_buf	 log;
	struct rai_buf	 data;		/* the data frames' bytes, joined */
	int		 fail_on;	/* a type whose frame fails the feed */
};

static int
record(void *ud, const struct kube_spdy_frame *f, struct rai_err *err)
{
	struct seen *s = ud;
	const char *v;
	size_t vlen;

	if (f->type == s->fail_on)
		return rai_err_set(err, RAI_E_INTERNAL, "stop");
	if (f->type == KUBE_SPDY_DATA) {
		rai_buf_add(&s->data, f->data, f->len);
		if (f->last)
			rai_buf_addf(&s->log, "data %u flags %u\n",
			    f->stream_id, f->flags);
		return 0;
	}
	rai_buf_addf(&s->log, "type %d id %u value %u", f->type,
	    f->stream_id, f->value);
	if (f->type == KUBE_SPDY_SYN_REPLY || f->type == KUBE_SPDY_SYN_STREAM) {
		if (kube_spdy_header(f->data, f->len, "x-kube", &v, &vlen))
			rai_buf_addf(&s->log, " x-kube=%.*s", (int)vlen, v);
		if (kube_spdy_header(f->data, f->len, "port", &v, &vlen))
			rai_buf_addf(&s->log, " port=%.*s", (int)vlen, v);
		if (kube_spdy_header(f->data, f->len, "streamtype", &v, &vlen))
			rai_buf_addf(&s->log, " streamtype=%.*s", (int)vlen, v);
	}
	rai_buf_addch(&s->log, '\n');
	return 0;
}

static void
seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->fail_on = -1;
}

static void
seen_release(struct seen *s)
{
	rai_buf_release(&s->log);
	rai_buf_release(&s->data);
}

static const char python_log[] =
	"type 2 id 1 value 0 x-kube=sim\n"
	"type 2 id 3 value 0\n"
	"data 3 flags 1\n"
	"type 3 id 5 value 5\n"
	"type 6 id 0 value 2\n"
	"type 7 id 7 value 0\n"
	"type 2 id 9 value 0 x-kube=again\n";

TEST(dictionary_is_the_specs)
{
	size_t len;
	const unsigned char *d = kube_spdy_dictionary(&len);

	T_UINT_EQ(len, 1423);
	T_UINT_EQ(adler32(1, d, (uInt)len), 0xe3c6a7c2u);
}

TEST(python_frames_read_back_at_any_split)
{
	size_t len = sizeof(python_frames) - 1, cut;

	for (cut = 0; cut <= len; cut++) {
		struct rai_err err = RAI_ERR_INIT;
		struct kube_spdy sp;
		struct seen s;

		seen_init(&s);
		kube_spdy_init(&sp, record, &s);
		T_INT_EQ(kube_spdy_feed(&sp, python_frames, cut, &err), 0);
		T_INT_EQ(kube_spdy_feed(&sp, python_frames + cut, len - cut,
		    &err), 0);
		T_STR_EQ(rai_buf_str(&s.log), python_log);
		T_STR_EQ(rai_buf_str(&s.data), "hello");
		kube_spdy_release(&sp);
		seen_release(&s);
		rai_err_release(&err);
	}
}

TEST(python_frames_read_back_a_byte_at_a_time)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_spdy sp;
	struct seen s;
	size_t i;

	seen_init(&s);
	kube_spdy_init(&sp, record, &s);
	for (i = 0; i < sizeof(python_frames) - 1; i++)
		T_INT_EQ(kube_spdy_feed(&sp, python_frames + i, 1, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), python_log);
	kube_spdy_release(&sp);
	seen_release(&s);
}

/* Our SYN_STREAMs (two blocks on one zlib stream) as a server reads them. */
TEST(syn_stream_round_trip)
{
	const char *const error_nv[] = { "streamtype", "error", "port", "8888",
	    "requestid", "0", NULL };
	const char *const data_nv[] = { "streamtype", "data", "port", "8888",
	    "requestid", "0", NULL };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf out = RAI_BUF_INIT;
	struct kube_spdy client, server;
	unsigned char head[KUBE_SPDY_HEAD];
	struct seen s;

	seen_init(&s);
	kube_spdy_init(&client, record, &s);
	kube_spdy_init(&server, record, &s);
	T_INT_EQ(kube_spdy_syn_stream(&client, &out, 1, 0, error_nv, &err), 0);
	kube_spdy_data_head(head, 1, KUBE_SPDY_FLAG_FIN, 0);
	rai_buf_add(&out, head, sizeof(head));
	T_INT_EQ(kube_spdy_syn_stream(&client, &out, 3, 0, data_nv, &err), 0);
	kube_spdy_data_head(head, 3, 0, 2);
	rai_buf_add(&out, head, sizeof(head));
	rai_buf_add(&out, "hi", 2);
	T_INT_EQ(kube_spdy_rst_stream(&out, 3, KUBE_SPDY_CANCEL), 0);
	T_INT_EQ(kube_spdy_ping(&out, 4), 0);
	T_INT_EQ(kube_spdy_goaway(&out, 0, 0), 0);
	T_INT_EQ(kube_spdy_feed(&server, out.data, out.len, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log),
	    "type 1 id 1 value 0 port=8888 streamtype=error\n"
	    "data 1 flags 1\n"
	    "type 1 id 3 value 0 port=8888 streamtype=data\n"
	    "data 3 flags 0\n"
	    "type 3 id 3 value 5\n"
	    "type 6 id 0 value 4\n"
	    "type 7 id 0 value 0\n");
	T_STR_EQ(rai_buf_str(&s.data), "hi");
	kube_spdy_release(&client);
	kube_spdy_release(&server);
	rai_buf_release(&out);
	seen_release(&s);
}

TEST(header_lookup_stays_inside_the_block)
{
	/* one pair x=yz, then a count that promises more than is there */
	static const char block[] = "\0\0\0\2\0\0\0\1x\0\0\0\2yz\0\0\0\011" "ab";
	const char *v = NULL;
	size_t vlen = 0, len = sizeof(block) - 1, cut;

	T_INT_EQ(kube_spdy_header(block, len, "x", &v, &vlen), 1);
	T_UINT_EQ(vlen, 2);
	T_INT_EQ(memcmp(v, "yz", 2), 0);
	T_INT_EQ(kube_spdy_header(block, len, "ab", &v, &vlen), 0);
	T_INT_EQ(kube_spdy_header(block, len, "y", &v, &vlen), 0);
	for (cut = 0; cut < 15; cut++)
		T_INT_EQ(kube_spdy_header(block, cut, "x", &v, &vlen), 0);
}

static int
feed_fails(const char *bytes, size_t len, const char *want)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_spdy sp;
	struct seen s;
	int ok;

	seen_init(&s);
	kube_spdy_init(&sp, record, &s);
	ok = kube_spdy_feed(&sp, bytes, len, &err) == -1 &&
	    err.kind == RAI_E_PROTO && err.message != NULL &&
	    strstr(err.message, want) != NULL;
	if (!ok)
		printf("# fed %zu bytes, wanted '%s', got '%s'\n", len, want,
		    err.message ? err.message : "(success)");
	kube_spdy_release(&sp);
	seen_release(&s);
	rai_err_release(&err);
	return ok;
}

TEST(broken_frames_are_refused)
{
	/* version 2 */
	T_INT_EQ(feed_fails("\x80\x02\x00\x06\x00\x00\x00\x04\0\0\0\1", 12,
	    "another version"), 1);
	/* a PING of 2 bytes */
	T_INT_EQ(feed_fails("\x80\x03\x00\x06\x00\x00\x00\x02\0\1", 10,
	    "too short"), 1);
	/* a RST_STREAM of 4 */
	T_INT_EQ(feed_fails("\x80\x03\x00\x03\x00\x00\x00\x04\0\0\0\1", 12,
	    "too short"), 1);
	/* a control frame of 16 MiB - 1 */
	T_INT_EQ(feed_fails("\x80\x03\x00\x02\x00\xff\xff\xff", 8,
	    "over 1 MiB"), 1);
	/* a header block that is not zlib */
	T_INT_EQ(feed_fails("\x80\x03\x00\x02\x00\x00\x00\x08\0\0\0\1abcd",
	    16, "does not inflate"), 1);
	/* a SYN_REPLY without its stream id */
	T_INT_EQ(feed_fails("\x80\x03\x00\x02\x00\x00\x00\x02\0\0", 10,
	    "too short"), 1);
}

TEST(unknown_control_frames_are_skipped)
{
	/* type 0x77 with 3 bytes, then a PING: only the PING is seen */
	static const char in[] = "\x80\x03\x00\x77\x00\x00\x00\x03" "abc"
	    "\x80\x03\x00\x06\x00\x00\x00\x04\0\0\0\x08";
	struct rai_err err = RAI_ERR_INIT;
	struct kube_spdy sp;
	struct seen s;

	seen_init(&s);
	kube_spdy_init(&sp, record, &s);
	T_INT_EQ(kube_spdy_feed(&sp, in, sizeof(in) - 1, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), "type 6 id 0 value 8\n");
	kube_spdy_release(&sp);
	seen_release(&s);
}

TEST(a_callbacks_error_stops_the_feed)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_spdy sp;
	struct seen s;

	seen_init(&s);
	s.fail_on = KUBE_SPDY_RST_STREAM;
	kube_spdy_init(&sp, record, &s);
	T_INT_EQ(kube_spdy_feed(&sp, python_frames, sizeof(python_frames) - 1,
	    &err), -1);
	T_STR_EQ(err.message, "stop");
	T_STR_EQ(rai_buf_str(&s.log), "type 2 id 1 value 0 x-kube=sim\n"
	    "type 2 id 3 value 0\n" "data 3 flags 1\n");
	kube_spdy_release(&sp);
	seen_release(&s);
	rai_err_release(&err);
}

int
main(void)
{
	RUN(dictionary_is_the_specs);
	RUN(python_frames_read_back_at_any_split);
	RUN(python_frames_read_back_a_byte_at_a_time);
	RUN(syn_stream_round_trip);
	RUN(header_lookup_stays_inside_the_block);
	RUN(broken_frames_are_refused);
	RUN(unknown_control_frames_are_skipped);
	RUN(a_callbacks_error_stops_the_feed);
	return t_done();
}
