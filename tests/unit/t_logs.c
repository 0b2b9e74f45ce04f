/*
 * rai_logs: the timestamp prefix is stripped or kept, whatever the
 * chunking; and a followed log that is cut any number of times, at any
 * byte, and resumed from rai_logs_resume()'s sinceTime against a server
 * that honours seconds only (a real API server) or microseconds
 * (kube-sim), prints every line exactly once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "runai/logs.h"

#include "harness.h"

struct line {
	long long	 sec;
	long		 nsec;
	const char	*text;
};

enum server_kind { SECONDS, MICROS };

/* 2024-05-06T07:08:09Z */
#define T0	1714979289LL

/* Several lines per second, equal timestamps, one at a whole second. */
static const struct line lines[] = {
	{ T0, 0, "first line at a whole second" },
	{ T0, 100, "second" },
	{ T0, 100, "same timestamp as the one before" },
	{ T0, 100, "same timestamp as the one before" },
	{ T0, 999999999, "" },
	{ T0 + 1, 5, "a longer line with spaces   and a tab\there" },
	{ T0 + 1, 5000, "x" },
	{ T0 + 1, 5000, "y" },
	{ T0 + 3, 123456789, "after a gap" },
	{ T0 + 3, 123456789, "after a gap" },
	{ T0 + 3, 123457000, "a line of utf-8: \xc3\xa9t\xc3\xa9" },
	{ T0 + 4, 0, "last, without a newline" },
};
#define NLINES	(sizeof(lines) / sizeof(lines[0]))

static void
stamp(const struct line *l, struct rai_buf *b)
{
	time_t sec = (time_t)l->sec;
	struct tm tm;
	char day[32];

	gmtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	rai_buf_addf(b, "%s.%09ldZ", day, l->nsec);
}

/* What the server sends: every line at or after since (NULL = all). */
static void
serve(enum server_kind kind, const char *since, struct rai_buf *b)
{
	struct rai_logs_time t = { 0, 0 };
	size_t i;

	rai_buf_reset(b);
	if (since != NULL)
		T_INT_EQ(rai_logs_parse_time(since, strlen(since), &t), 0);
	for (i = 0; i < NLINES; i++) {
		if (since != NULL && (lines[i].sec < t.sec ||
		    (kind == MICROS && lines[i].sec == t.sec &&
		    lines[i].nsec < t.nsec)))
			continue;
		stamp(&lines[i], b);
		rai_buf_addf(b, " %s%s", lines[i].text,
		    i + 1 < NLINES ? "\n" : "");
	}
}

static void
expected(int keep, struct rai_buf *b)
{
	size_t i;

	for (i = 0; i < NLINES; i++) {
		if (keep) {
			stamp(&lines[i], b);
			rai_buf_addch(b, ' ');
		}
		rai_buf_addf(b, "%s%s", lines[i].text, i + 1 < NLINES ?
		    "\n" : "");
	}
}

static uint32_t
lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

static void
feed_chunks(struct rai_logs *l, const char *p, size_t len, size_t chunk,
    uint32_t *rnd, struct rai_buf *out)
{
	size_t n;

	while (len > 0) {
		n = chunk ? chunk : 1 + lcg(rnd) % 97;
		if (n > len)
			n = len;
		T_INT_EQ(rai_logs_feed(l, p, n, out), 0);
		p += n;
		len -= n;
	}
}

/*
 * Follows the log through cuts: each connection is cut after `cut`
 * bytes (0 = a random number under 400 each time) until one gets
 * through. Returns the number of connections, 0 when stuck.
 */
static int
follow(enum server_kind kind, int keep, size_t cut, size_t chunk,
    uint32_t seed, struct rai_buf *out)
{
	struct rai_buf body = RAI_BUF_INIT;
	struct rai_logs l;
	char since[RAI_LOGS_SINCE_MAX];
	int have_since = 0, conns;
	uint32_t rnd = seed;
	size_t n;

	rai_logs_init(&l, 1, keep);
	for (conns = 1; conns < 5000; conns++) {
		serve(kind, have_since ? since : NULL, &body);
		n = cut ? cut : 1 + lcg(&rnd) % 400;
		if (n >= body.len) {
			feed_chunks(&l, body.data, body.len, chunk, &rnd, out);
			T_INT_EQ(rai_logs_end(&l, out), 0);
			rai_buf_release(&body);
			return conns;
		}
		feed_chunks(&l, body.data, n, chunk, &rnd, out);
		have_since = rai_logs_resume(&l, since, sizeof(since));
	}
	rai_buf_release(&body);
	return 0;
}

static int reported;

static int
follow_matches(enum server_kind kind, int keep, size_t cut, size_t chunk,
    uint32_t seed)
{
	struct rai_buf want = RAI_BUF_INIT, got = RAI_BUF_INIT;
	int ok;

	expected(keep, &want);
	ok = follow(kind, keep, cut, chunk, seed, &got) > 0 &&
	    got.len == want.len && memcmp(got.data, want.data, got.len) == 0;
	if (!ok && reported++ < 3) {
		printf("# server %s, keep %d, cut %zu, chunk %zu, seed %u:\n",
		    kind == SECONDS ? "seconds" : "micros", keep, cut, chunk,
		    (unsigned)seed);
		T_STR_EQ(rai_buf_str(&got), rai_buf_str(&want));
	}
	rai_buf_release(&want);
	rai_buf_release(&got);
	return ok;
}

/* ---- tests ---- */

TEST(unstamped_streams_pass_through)
{
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;
	char since[RAI_LOGS_SINCE_MAX];

	rai_logs_init(&l, 0, 0);
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:09Z a\nb", 24, &out), 0);
	T_INT_EQ(rai_logs_end(&l, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "2024-05-06T07:08:09Z a\nb");
	T_INT_EQ(rai_logs_resume(&l, since, sizeof(since)), 0);
	rai_buf_release(&out);
}

TEST(prefix_is_stripped_or_kept_whatever_the_chunks)
{
	struct rai_buf in = RAI_BUF_INIT, out = RAI_BUF_INIT,
	    want = RAI_BUF_INIT;
	struct rai_logs l;
	uint32_t rnd = 7;
	size_t chunk;
	int keep;

	serve(SECONDS, NULL, &in);
	for (keep = 0; keep <= 1; keep++) {
		rai_buf_reset(&want);
		expected(keep, &want);
		for (chunk = 0; chunk <= in.len; chunk++) {
			rai_logs_init(&l, 1, keep);
			rai_buf_reset(&out);
			feed_chunks(&l, in.data, in.len, chunk, &rnd, &out);
			T_INT_EQ(rai_logs_end(&l, &out), 0);
			T_STR_EQ(rai_buf_str(&out), rai_buf_str(&want));
		}
	}
	rai_buf_release(&in);
	rai_buf_release(&out);
	rai_buf_release(&want);
}

TEST(text_is_printed_as_it_arrives)
{
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;

	rai_logs_init(&l, 1, 0);
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:09.5Z", 22, &out), 0);
	T_INT_EQ(out.len, 0);		/* the prefix waits for its space */
	T_INT_EQ(rai_logs_feed(&l, " 10%", 4, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "10%");
	T_INT_EQ(rai_logs_feed(&l, "\r20%", 4, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "10%\r20%");
	rai_buf_release(&out);
}

TEST(lines_without_a_timestamp_are_printed_whole)
{
	static const char in[] =
	    "plain words\n"
	    "\n"
	    "2024-13-06T07:08:09Z bad month\n"
	    "2024-05-06T07:08:09Zjunk x\n"
	    "an-unbroken-run-of-characters-longer-than-any-timestamp-prefix\n"
	    "2024-05-06T07:08:09Z", *want =
	    "plain words\n"
	    "\n"
	    "2024-13-06T07:08:09Z bad month\n"
	    "2024-05-06T07:08:09Zjunk x\n"
	    "an-unbroken-run-of-characters-longer-than-any-timestamp-prefix\n"
	    "2024-05-06T07:08:09Z";
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;
	uint32_t rnd = 3;
	size_t chunk;

	for (chunk = 0; chunk < 9; chunk++) {
		rai_logs_init(&l, 1, 0);
		rai_buf_reset(&out);
		feed_chunks(&l, in, strlen(in), chunk, &rnd, &out);
		T_INT_EQ(rai_logs_end(&l, &out), 0);
		T_STR_EQ(rai_buf_str(&out), want);
	}
	rai_buf_release(&out);
}

TEST(nothing_printed_yet_means_start_over)
{
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;
	char since[RAI_LOGS_SINCE_MAX];

	rai_logs_init(&l, 1, 0);
	T_INT_EQ(rai_logs_resume(&l, since, sizeof(since)), 0);
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:0", 18, &out), 0);
	T_INT_EQ(rai_logs_resume(&l, since, sizeof(since)), 0);
	/* the cut prefix is forgotten, not printed later */
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:09Z a\n", 23, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "a\n");
	rai_buf_release(&out);
}

TEST(a_line_cut_in_the_middle_is_finished_not_repeated)
{
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;
	char since[RAI_LOGS_SINCE_MAX];
	const char *s = "2024-05-06T07:08:09.250000000Z hello world\n";

	rai_logs_init(&l, 1, 1);
	T_INT_EQ(rai_logs_feed(&l, s, 36, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "2024-05-06T07:08:09.250000000Z hello");
	T_INT_EQ(rai_logs_resume(&l, since, sizeof(since)), 1);
	T_STR_EQ(since, "2024-05-06T07:08:09.249999Z");
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:09.1Z older\n", 29,
	    &out), 0);
	T_INT_EQ(rai_logs_feed(&l, s, strlen(s), &out), 0);
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:09.250000000Z hello "
	    "world\n", 43, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "2024-05-06T07:08:09.250000000Z hello"
	    " world\n2024-05-06T07:08:09.250000000Z hello world\n");
	rai_buf_release(&out);
}

TEST(a_line_without_timestamp_takes_the_previous_lines_place)
{
	struct rai_buf out = RAI_BUF_INIT;
	struct rai_logs l;
	char since[RAI_LOGS_SINCE_MAX];
	const char *s = "2024-05-06T07:08:09Z a\nloose\n";

	rai_logs_init(&l, 1, 0);
	T_INT_EQ(rai_logs_feed(&l, s, strlen(s), &out), 0);
	T_INT_EQ(rai_logs_resume(&l, since, sizeof(since)), 1);
	T_STR_EQ(since, "2024-05-06T07:08:09.000000Z");
	T_INT_EQ(rai_logs_feed(&l, s, strlen(s), &out), 0);
	T_INT_EQ(rai_logs_feed(&l, "2024-05-06T07:08:10Z b\n", 23, &out), 0);
	T_STR_EQ(rai_buf_str(&out), "a\nloose\nb\n");
	rai_buf_release(&out);
}

TEST(times_parse_in_every_rfc3339_form)
{
	struct rai_logs_time t;
	char since[RAI_LOGS_SINCE_MAX];

	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09Z", 20, &t), 0);
	T_INT_EQ(t.sec, T0);
	T_INT_EQ(t.nsec, 0);
	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09.123456789Z", 30,
	    &t), 0);
	T_INT_EQ(t.sec, T0);
	T_INT_EQ(t.nsec, 123456789);
	/* Go's RFC3339Nano trims zeros */
	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09.12Z", 23, &t), 0);
	T_INT_EQ(t.nsec, 120000000);
	T_INT_EQ(rai_logs_parse_time("2024-05-06T09:08:09.5+02:00", 27, &t),
	    0);
	T_INT_EQ(t.sec, T0);
	T_INT_EQ(t.nsec, 500000000);
	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09", 19, &t), -1);
	T_INT_EQ(rai_logs_parse_time("2024-05-06 07:08:09Z", 20, &t), -1);
	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09Zx", 21, &t), -1);
	T_INT_EQ(rai_logs_parse_time("2024-05-06T07:08:09\0Z", 21, &t), -1);

	t.sec = T0;
	t.nsec = 0;
	rai_logs_format_since(&t, since, sizeof(since));
	T_STR_EQ(since, "2024-05-06T07:08:09.000000Z");
	t.nsec = 1999;
	rai_logs_format_since(&t, since, sizeof(since));
	T_STR_EQ(since, "2024-05-06T07:08:09.000000Z");
	t.nsec = 123456789;
	rai_logs_format_since(&t, since, sizeof(since));
	T_STR_EQ(since, "2024-05-06T07:08:09.123455Z");

	/* found by fuzz_logs: years below 1000 keep four digits, and a
	 * stamp before year 0 (an offset at 0000-01-01) takes the floor */
	T_INT_EQ(rai_logs_parse_time("0026-11-25T01:02:03+02:00", 25, &t), 0);
	rai_logs_format_since(&t, since, sizeof(since));
	T_STR_EQ(since, "0026-11-24T23:02:03.000000Z");
	T_INT_EQ(rai_logs_parse_time(since, strlen(since), &t), 0);
	T_INT_EQ(rai_logs_parse_time("0000-01-01T00:00:00+02:00", 25, &t), 0);
	rai_logs_format_since(&t, since, sizeof(since));
	T_STR_EQ(since, "0000-01-01T00:00:00.000000Z");
}

TEST(every_line_once_through_cuts_at_every_byte)
{
	static const size_t chunks[] = { 0, 1, 100000 };
	struct rai_buf all = RAI_BUF_INIT;
	size_t cut, c, bad = 0;
	int keep;

	serve(SECONDS, NULL, &all);
	/*
	 * Progress needs a cut past what is sent again: a seconds-only
	 * server resends the whole second (5 lines, 258 bytes here) ...
	 */
	for (keep = 0; keep <= 1; keep++)
		for (cut = 300; cut <= all.len + 1; cut++)
			for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
				bad += !follow_matches(SECONDS, keep, cut,
				    chunks[c], (uint32_t)cut);
	/* ... kube-sim from a microsecond before the last line printed */
	for (keep = 0; keep <= 1; keep++)
		for (cut = 300; cut <= all.len + 1; cut++)
			for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
				bad += !follow_matches(MICROS, keep, cut,
				    chunks[c], (uint32_t)cut);
	T_INT_EQ(bad, 0);
	rai_buf_release(&all);
}

TEST(every_line_once_through_random_cuts)
{
	uint32_t seed;
	size_t bad = 0;

	for (seed = 1; seed <= 1000; seed++) {
		bad += !follow_matches(SECONDS, (int)(seed & 1), 0, 0, seed);
		bad += !follow_matches(MICROS, (int)(seed & 1), 0, 0, seed);
	}
	T_INT_EQ(bad, 0);
}

TEST(a_short_cut_makes_no_progress_and_says_so)
{
	struct rai_buf got = RAI_BUF_INIT;

	/* shorter than the first prefix: nothing is ever printed */
	T_INT_EQ(follow(MICROS, 0, 20, 0, 1, &got), 0);
	T_INT_EQ(got.len, 0);
	rai_buf_release(&got);
}

int
main(void)
{
	RUN(unstamped_streams_pass_through);
	RUN(prefix_is_stripped_or_kept_whatever_the_chunks);
	RUN(text_is_printed_as_it_arrives);
	RUN(lines_without_a_timestamp_are_printed_whole);
	RUN(nothing_printed_yet_means_start_over);
	RUN(a_line_cut_in_the_middle_is_finished_not_repeated);
	RUN(a_line_without_timestamp_takes_the_previous_lines_place);
	RUN(times_parse_in_every_rfc3339_form);
	RUN(every_line_once_through_cuts_at_every_byte);
	RUN(every_line_once_through_random_cuts);
	RUN(a_short_cut_makes_no_progress_and_says_so);
	return t_done();
}
