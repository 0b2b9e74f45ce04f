/*
 * The transport's pure decisions: which failures are retried, how long
 * to wait, how Retry-After and durations are read, how caps are named.
 */
#include <curl/curl.h>

#include "core/http.h"

#include "harness.h"

#define IDEM	RAI_HTTP_IDEMPOTENT
#define NORETRY	RAI_HTTP_NO_RETRY

static const struct {
	unsigned	 flags;
	int		 code;
	long		 status;
	size_t		 streamed;
	int		 want;
	int		 retry_after;	/* seconds; 0 when the row omits it */
} retry_cases[] = {
	/* idempotent: transport failures that may be transient */
	{ IDEM, CURLE_COULDNT_CONNECT, 0, 0, 1 },
	{ IDEM, CURLE_OPERATION_TIMEDOUT, 0, 0, 1 },
	{ IDEM, CURLE_GOT_NOTHING, 0, 0, 1 },
	{ IDEM, CURLE_RECV_ERROR, 0, 0, 1 },
	{ IDEM, CURLE_SEND_ERROR, 0, 0, 1 },
	{ IDEM, CURLE_PARTIAL_FILE, 200, 0, 1 },
	/* ... but not configuration or TLS trouble */
	{ IDEM, CURLE_COULDNT_RESOLVE_HOST, 0, 0, 0 },
	{ IDEM, CURLE_PEER_FAILED_VERIFICATION, 0, 0, 0 },
	{ IDEM, CURLE_SSL_CONNECT_ERROR, 0, 0, 0 },
	{ IDEM, CURLE_WRITE_ERROR, 0, 0, 0 },
	{ IDEM, CURLE_URL_MALFORMAT, 0, 0, 0 },
	/* idempotent: statuses that say "later" */
	{ IDEM, CURLE_OK, 429, 0, 1 },
	{ IDEM, CURLE_OK, 500, 0, 1 },
	{ IDEM, CURLE_OK, 502, 0, 1 },
	{ IDEM, CURLE_OK, 503, 0, 1 },
	{ IDEM, CURLE_OK, 504, 0, 1 },
	{ IDEM, CURLE_OK, 501, 0, 0 },
	{ IDEM, CURLE_OK, 400, 0, 0 },
	{ IDEM, CURLE_OK, 401, 0, 0 },
	{ IDEM, CURLE_OK, 403, 0, 0 },
	{ IDEM, CURLE_OK, 404, 0, 0 },
	{ IDEM, CURLE_OK, 409, 0, 0 },
	{ IDEM, CURLE_OK, 410, 0, 0 },
	{ IDEM, CURLE_OK, 422, 0, 0 },
	/* not idempotent: only when nothing can have been sent */
	{ 0, CURLE_COULDNT_CONNECT, 0, 0, 1 },
	{ 0, CURLE_OPERATION_TIMEDOUT, 0, 0, 0 },
	{ 0, CURLE_GOT_NOTHING, 0, 0, 0 },
	{ 0, CURLE_SEND_ERROR, 0, 0, 0 },
	{ 0, CURLE_OK, 503, 0, 0 },
	{ 0, CURLE_OK, 500, 0, 0 },
	/* not idempotent, but the server did not act on it */
	{ 0, CURLE_OK, 429, 0, 1 },
	{ 0, CURLE_OK, 503, 0, 1, 5 },
	{ 0, CURLE_OK, 500, 0, 1, 1 },
	{ 0, CURLE_OK, 409, 0, 0, 5 },
	{ NORETRY, CURLE_OK, 429, 0, 0 },
	/* never when told so, or once a stream delivered data */
	{ IDEM | NORETRY, CURLE_COULDNT_CONNECT, 0, 0, 0 },
	{ IDEM | NORETRY, CURLE_OK, 503, 0, 0 },
	{ NORETRY, CURLE_COULDNT_CONNECT, 0, 0, 0 },
	{ IDEM, CURLE_PARTIAL_FILE, 200, 1, 0 },
	{ IDEM, CURLE_RECV_ERROR, 200, 4096, 0 },
};

TEST(retry_decisions)
{
	size_t i;

	for (i = 0; i < sizeof(retry_cases) / sizeof(retry_cases[0]); i++) {
		int got = rai_http_retryable(retry_cases[i].flags,
		    retry_cases[i].code, retry_cases[i].status,
		    retry_cases[i].retry_after, retry_cases[i].streamed);

		if (got != retry_cases[i].want)
			printf("# case %zu: flags %u code %d status %ld\n", i,
			    retry_cases[i].flags, retry_cases[i].code,
			    retry_cases[i].status);
		T_INT_EQ(got, retry_cases[i].want);
	}
}

static const struct {
	int	 attempt;
	long	 lo;
	long	 hi;
} backoff_cases[] = {
	{ 1, 150, 250 },
	{ 2, 300, 500 },
	{ 3, 600, 1000 },
	{ 4, 1200, 2000 },
	{ 5, 2400, 4000 },
	/* 6400 is capped at 5 s, jittered, then capped again */
	{ 6, 3750, 5000 },
	{ 20, 3750, 5000 },
	{ 1000, 3750, 5000 },
};

TEST(backoff_grows_exponentially_with_bounded_jitter)
{
	size_t i;
	unsigned rnd;
	long d, min, max;

	for (i = 0; i < sizeof(backoff_cases) / sizeof(backoff_cases[0]); i++) {
		min = 1L << 30;
		max = 0;
		for (rnd = 0; rnd < 5000; rnd += 7) {
			d = rai_http_backoff_ms(backoff_cases[i].attempt, 0,
			    rnd * 2654435761u);
			if (d < min)
				min = d;
			if (d > max)
				max = d;
		}
		T_INT_EQ(min >= backoff_cases[i].lo, 1);
		T_INT_EQ(max <= backoff_cases[i].hi, 1);
		/* the jitter really varies the delay */
		T_INT_EQ(max > min, 1);
	}
}

TEST(backoff_jitter_extremes)
{
	T_INT_EQ(rai_http_backoff_ms(1, 0, 0), 150);
	T_INT_EQ(rai_http_backoff_ms(1, 0, 100), 250);
	T_INT_EQ(rai_http_backoff_ms(1, 0, 101), 150);
	T_INT_EQ(rai_http_backoff_ms(2, 0, 0), 300);
}

TEST(retry_after_wins_over_backoff_and_is_capped)
{
	T_INT_EQ(rai_http_backoff_ms(1, 1, 12345), 1000);
	T_INT_EQ(rai_http_backoff_ms(5, 2, 12345), 2000);
	T_INT_EQ(rai_http_backoff_ms(1, 30, 0), 30000);
	T_INT_EQ(rai_http_backoff_ms(1, 31, 0), 30000);
	T_INT_EQ(rai_http_backoff_ms(1, 86400, 0), 30000);
	/* 0 and below mean "no advice": plain backoff */
	T_INT_EQ(rai_http_backoff_ms(1, 0, 0), 150);
	T_INT_EQ(rai_http_backoff_ms(1, -5, 0), 150);
}

TEST(retry_after_header_values)
{
	/* Wed, 21 Oct 2015 07:28:00 GMT */
	time_t t = 1445412480;

	T_INT_EQ(rai_http_parse_retry_after("1", t), 1);
	T_INT_EQ(rai_http_parse_retry_after("120", t), 120);
	T_INT_EQ(rai_http_parse_retry_after("  7 \r\n", t), 7);
	T_INT_EQ(rai_http_parse_retry_after("0", t), 0);
	T_INT_EQ(rai_http_parse_retry_after("99999999999999999999", t), 86400);
	T_INT_EQ(rai_http_parse_retry_after("1000000", t), 86400);
	T_INT_EQ(rai_http_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT",
	    t - 12), 12);
	T_INT_EQ(rai_http_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT",
	    t), 0);
	T_INT_EQ(rai_http_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT",
	    t + 60), 0);
	T_INT_EQ(rai_http_parse_retry_after("-3", t), 0);
	T_INT_EQ(rai_http_parse_retry_after("1.5", t), 0);
	T_INT_EQ(rai_http_parse_retry_after("5s", t), 0);
	T_INT_EQ(rai_http_parse_retry_after("soon", t), 0);
	T_INT_EQ(rai_http_parse_retry_after("", t), 0);
	T_INT_EQ(rai_http_parse_retry_after(NULL, t), 0);
}

TEST(durations)
{
	T_INT_EQ(rai_http_parse_duration_ms("1"), 1000);
	T_INT_EQ(rai_http_parse_duration_ms("1.5"), 1500);
	T_INT_EQ(rai_http_parse_duration_ms("2s"), 2000);
	T_INT_EQ(rai_http_parse_duration_ms("250ms"), 250);
	T_INT_EQ(rai_http_parse_duration_ms("2m"), 120000);
	T_INT_EQ(rai_http_parse_duration_ms("1h"), 3600000);
	T_INT_EQ(rai_http_parse_duration_ms("0"), 0);
	T_INT_EQ(rai_http_parse_duration_ms(""), -1);
	T_INT_EQ(rai_http_parse_duration_ms(NULL), -1);
	T_INT_EQ(rai_http_parse_duration_ms("x"), -1);
	T_INT_EQ(rai_http_parse_duration_ms("5 s"), -1);
	T_INT_EQ(rai_http_parse_duration_ms("-1"), -1);
	T_INT_EQ(rai_http_parse_duration_ms("3d"), -1);
}

TEST(sizes_in_messages)
{
	char buf[32];

	rai_http_format_size((size_t)64 << 20, buf, sizeof(buf));
	T_STR_EQ(buf, "64 MiB");
	rai_http_format_size(512 * 1024, buf, sizeof(buf));
	T_STR_EQ(buf, "512 KiB");
	rai_http_format_size(2000, buf, sizeof(buf));
	T_STR_EQ(buf, "2000 bytes");
	rai_http_format_size(1, buf, sizeof(buf));
	T_STR_EQ(buf, "1 byte");
	rai_http_format_size(((size_t)1 << 20) + 1024, buf, sizeof(buf));
	T_STR_EQ(buf, "1025 KiB");
}

int
main(void)
{
	RUN(retry_decisions);
	RUN(backoff_grows_exponentially_with_bounded_jitter);
	RUN(backoff_jitter_extremes);
	RUN(retry_after_wins_over_backoff_and_is_capped);
	RUN(retry_after_header_values);
	RUN(durations);
	RUN(sizes_in_messages);
	return t_done();
}
