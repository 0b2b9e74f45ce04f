/*
 * kube_lines: however a byte stream is chunked (whole, byte by byte, or
 * random sizes under many seeds), the same lines come out, each as soon
 * as its '\n' arrives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube_stream.h"
#include "rai_buf.h"
#include "rai_err.h"

#include "harness.h"

/* Lines seen, each written as "<len>:<bytes>|" so that any byte is safe. */
struct seen {
	struct rai_buf	 log;
	int		 n;
	int		 stop_after;	/* 0 = never stop */
};

static int
collect(void *ud, const char *line, size_t len)
{
	struct seen *s = ud;

	rai_buf_addf(&s->log, "%zu:", len);
	rai_buf_add(&s->log, line, len);
	rai_buf_addch(&s->log, '|');
	s->n++;
	return s->stop_after > 0 && s->n >= s->stop_after;
}

static uint32_t
lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/*
 * Feeds input in chunks (chunk 0 = random sizes from seed) and returns
 * the framed lines, finish included; NULL when a feed failed.
 */
static char *
frame(const char *in, size_t len, size_t chunk, uint32_t seed,
    size_t max_line)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	rai_buf_init(&s.log, 0);
	kube_lines_init(&l, max_line, collect, &s);
	while (off < len && rc == 0) {
		n = chunk ? chunk : 1 + lcg(&seed) % 17;
		if (n > len - off)
			n = len - off;
		rc = kube_lines_feed(&l, in + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = kube_lines_finish(&l, &err);
	kube_lines_release(&l);
	rai_err_release(&err);
	if (rc != 0) {
		rai_buf_release(&s.log);
		return NULL;
	}
	return rai_buf_detach(&s.log, NULL);
}

static const struct {
	const char	*in;
	const char	*want;
} cases[] = {
	{ "", "" },
	{ "a\n", "1:a|" },
	{ "a\nbb\nccc\n", "1:a|2:bb|3:ccc|" },
	{ "no newline at all", "17:no newline at all|" },
	{ "one\ntail", "3:one|4:tail|" },
	{ "\n\n\n", "0:|0:|0:|" },
	{ "x\n\ny\n", "1:x|0:|1:y|" },
	/* \r is data: logs keep it, the watch parser skips it as space */
	{ "a\r\nb\r\n", "2:a\r|2:b\r|" },
	{ "\r\n", "1:\r|" },
	{ "{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"DELETED\"",
	    "28:{\"type\":\"ADDED\",\"object\":{}}|17:{\"type\":\"DELETED\"|" },
	{ "utf-8 \xc3\xb1\n\xe2\x82\xac", "8:utf-8 \xc3\xb1|3:\xe2\x82\xac|" },
};

TEST(whole_input_gives_expected_lines)
{
	size_t i;
	char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = frame(cases[i].in, strlen(cases[i].in), 4096, 0, 0);
		T_STR_EQ(got, cases[i].want);
		free(got);
	}
}

TEST(one_byte_chunks_give_the_same_lines)
{
	size_t i;
	char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = frame(cases[i].in, strlen(cases[i].in), 1, 0, 0);
		T_STR_EQ(got, cases[i].want);
		free(got);
	}
}

/* A longer stream with lines of every length around the chunk sizes. */
static char *
make_stream(size_t *lenp)
{
	struct rai_buf b = RAI_BUF_INIT;
	int i, j;

	for (i = 0; i < 300; i++) {
		for (j = 0; j < i % 41; j++)
			rai_buf_addch(&b, 'a' + (i + j) % 26);
		if (i % 7 == 0)
			rai_buf_addch(&b, '\r');
		rai_buf_addch(&b, '\n');
	}
	rai_buf_addstr(&b, "unterminated tail");
	return rai_buf_detach(&b, lenp);
}

TEST(random_chunks_under_many_seeds_give_the_same_lines)
{
	size_t len, i;
	char *in = make_stream(&len), *whole, *bytes, *got;
	uint32_t seed;

	whole = frame(in, len, len, 0, 0);
	bytes = frame(in, len, 1, 0, 0);
	T_NOT_NULL(whole);
	T_STR_EQ(bytes, whole);
	for (seed = 1; seed <= 500; seed++) {
		got = frame(in, len, 0, seed, 0);
		T_STR_EQ(got, whole);
		free(got);
	}
	for (i = 2; i < 64; i++) {
		got = frame(in, len, i, 0, 0);
		T_STR_EQ(got, whole);
		free(got);
	}
	free(in);
	free(whole);
	free(bytes);
}

TEST(each_line_is_delivered_when_its_newline_arrives)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "abc\nde", 6, &err), 0);
	T_INT_EQ(s.n, 1);
	T_STR_EQ(rai_buf_str(&s.log), "3:abc|");
	T_INT_EQ(kube_lines_feed(&l, "f", 1, &err), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(kube_lines_feed(&l, "\n", 1, &err), 0);
	T_INT_EQ(s.n, 2);
	T_STR_EQ(rai_buf_str(&s.log), "3:abc|3:def|");
	T_UINT_EQ(l.partial.len, 0);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(finish_delivers_only_a_pending_tail)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "a\n", 2, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(kube_lines_feed(&l, "b", 1, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), "1:a|1:b|");
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(a_line_at_the_cap_passes_one_over_fails)
{
	char *got;

	/* exactly 8 bytes, whole and byte by byte */
	got = frame("12345678\n", 9, 9, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	got = frame("12345678\n", 9, 1, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	/* an unterminated tail at the cap is fine too */
	got = frame("12345678", 8, 1, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	/* 9 bytes: in one chunk (no copy path), split, and unterminated */
	T_NULL(frame("123456789\n", 10, 10, 0, 8));
	T_NULL(frame("123456789\n", 10, 1, 0, 8));
	T_NULL(frame("1234\n123456789\n", 15, 7, 0, 8));
	T_NULL(frame("123456789", 9, 1, 0, 8));
}

TEST(an_over_long_line_is_a_protocol_error)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 4, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "abc", 3, &err), 0);
	T_INT_EQ(kube_lines_feed(&l, "de", 2, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_EQ(err.message, "a streamed line is longer than 4 bytes");
	T_INT_EQ(s.n, 0);
	rai_err_release(&err);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(default_cap_is_one_mib)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;
	size_t big = RAI_BUF_LINE_MAX + 1;
	char *line = malloc(big);

	memset(&s, 0, sizeof(s));
	memset(line, 'x', big);
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, line, big - 1, &err), 0);
	T_INT_EQ(kube_lines_feed(&l, "y", 1, &err), -1);
	T_STR_EQ(err.message, "a streamed line is longer than 1 MiB");
	rai_err_release(&err);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
	free(line);
}

TEST(a_callback_asking_to_stop_gets_no_more_lines)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "1\n2\n3\n4", 7, &err), 0);
	T_INT_EQ(l.stopped, 1);
	T_INT_EQ(kube_lines_feed(&l, "\n5\n", 3, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(s.n, 2);
	T_STR_EQ(rai_buf_str(&s.log), "1:1|1:2|");
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(a_long_line_fed_byte_by_byte_arrives_whole)
{
	size_t len = 256 * 1024, i;
	char *in = malloc(len + 1);
	char *got, want[32];

	for (i = 0; i < len; i++)
		in[i] = 'a' + i % 26;
	in[len] = '\n';
	got = frame(in, len + 1, 1, 0, 0);
	snprintf(want, sizeof(want), "%zu:", len);
	T_OK(got != NULL && strncmp(got, want, strlen(want)) == 0);
	T_OK(got != NULL && memcmp(got + strlen(want), in, len) == 0);
	free(got);
	free(in);
}

int
main(void)
{
	RUN(whole_input_gives_expected_lines);
	RUN(one_byte_chunks_give_the_same_lines);
	RUN(random_chunks_under_many_seeds_give_the_same_lines);
	RUN(each_line_is_delivered_when_its_newline_arrives);
	RUN(finish_delivers_only_a_pending_tail);
	RUN(a_line_at_the_cap_passes_one_over_fails);
	RUN(an_over_long_line_is_a_protocol_error);
	RUN(default_cap_is_one_mib);
	RUN(a_callback_asking_to_stop_gets_no_more_lines);
	RUN(a_long_line_fed_byte_by_byte_arrives_whole);
	return t_done();
}
