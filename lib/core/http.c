/*
 * The transport's decisions that need no handle: whether a failed
 * attempt may be repeated and how long to wait before it, a
 * Retry-After value, durations and sizes as text, and releasing an
 * answer. The unit tests call them directly.
 *
 * The transport itself is in the http_*.c files (core/http.h lists
 * them), which share their internals through core/http_xfer.h. That
 * header includes core/http.h, so this file, one with its header in the
 * layer rule's eyes, includes none of theirs and calls none of them.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "core/buf.h"
#include "core/http.h"

#include "core/banned.h"

#define RETRY_AFTER_MAX		86400

/* ---- pure helpers ---- */

int
rai_http_retryable(unsigned flags, int curl_code, long status,
    int retry_after, size_t streamed)
{
	if ((flags & RAI_HTTP_NO_RETRY) || streamed > 0)
		return 0;
	/*
	 * Without idempotence a request is repeated only when it never left,
	 * or when the server says it did not act on it: a 429 (the API
	 * server's rate limits turn requests away before handling them), or
	 * a 5xx that asks to come back (Retry-After), as client-go does.
	 */
	if (!(flags & RAI_HTTP_IDEMPOTENT))
		return curl_code == CURLE_COULDNT_CONNECT ||
		    (curl_code == CURLE_OK && (status == 429 ||
		    (status >= 500 && status <= 599 && retry_after > 0)));
	switch (curl_code) {
	case CURLE_OK:
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
	switch (status) {
	case 429:
	case 500:
	case 502:
	case 503:
	case 504:
		return 1;
	}
	return 0;
}

long
rai_http_backoff_ms(int attempt, int retry_after, unsigned rnd)
{
	long d = RAI_HTTP_BACKOFF_BASE_MS;

	if (retry_after > 0)
		return (long)(retry_after > RAI_HTTP_RETRY_AFTER_CAP_S ?
		    RAI_HTTP_RETRY_AFTER_CAP_S : retry_after) * 1000;
	while (--attempt > 0 && d < RAI_HTTP_BACKOFF_CAP_MS)
		d *= 2;
	if (d > RAI_HTTP_BACKOFF_CAP_MS)
		d = RAI_HTTP_BACKOFF_CAP_MS;
	/* +-25% so that many clients do not retry in lockstep */
	d = d - d / 4 + (long)(rnd % (unsigned)(d / 2 + 1));
	return d > RAI_HTTP_BACKOFF_CAP_MS ? RAI_HTTP_BACKOFF_CAP_MS : d;
}

int
rai_http_parse_retry_after(const char *v, time_t now)
{
	char *end;
	long n;
	time_t t;

	if (v == NULL)
		return 0;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '\0')
		return 0;
	if (isdigit((unsigned char)*v)) {
		errno = 0;
		n = strtol(v, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\r' ||
		    *end == '\n')
			end++;
		if (*end != '\0')
			return 0;
		if (errno == ERANGE || n > RETRY_AFTER_MAX)
			return RETRY_AFTER_MAX;
		return (int)n;
	}
	t = curl_getdate(v, NULL);
	if (t == -1 || t <= now)
		return 0;
	return t - now > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : (int)(t - now);
}

long
rai_http_parse_duration_ms(const char *s)
{
	char *end;
	double v, mult;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v < 0)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mult = 1000;
	else if (strcmp(end, "ms") == 0)
		mult = 1;
	else if (strcmp(end, "m") == 0)
		mult = 60000;
	else if (strcmp(end, "h") == 0)
		mult = 3600000;
	else
		return -1;
	if (v * mult > (double)LONG_MAX / 2)
		return -1;
	return (long)(v * mult + 0.5);
}

void
rai_http_format_size(size_t n, char *buf, size_t bufsz)
{
	const size_t kib = 1024, mib = kib * 1024;

	if (n >= mib && n % mib == 0)
		snprintf(buf, bufsz, "%zu MiB", n / mib);
	else if (n >= kib && n % kib == 0)
		snprintf(buf, bufsz, "%zu KiB", n / kib);
	else
		snprintf(buf, bufsz, "%zu byte%s", n, n == 1 ? "" : "s");
}

void
rai_http_resp_release(struct rai_http_resp *r)
{
	free(r->content_type);
	r->content_type = NULL;
	rai_buf_release(&r->body);
	r->status = 0;
	r->retry_after = 0;
	r->streamed = 0;
	r->reason[0] = '\0';
}
