/*
 * -v tracing of the transport: the headers libcurl sends and receives,
 * bodies, the curl command that repeats a request, each request's
 * outcome and its timing, every one of them through the redaction
 * helpers (core/log). Apart from the request path so that every kind
 * of transfer (the handle's own, those sent ahead, side streams) logs
 * the same way; it decides nothing.
 */
#include <stdint.h>
#include <string.h>

#include <curl/curl.h>

#include "core/buf.h"
#include "core/http.h"
#include "core/http_log.h"
#include "core/http_xfer.h"
#include "core/log.h"

#include "core/banned.h"

#define LOG_BODY_8		((size_t)1024)
#define LOG_BODY_9		((size_t)10240)
/* Redaction looks at this much more than it shows, so cut secrets match. */
#define LOG_REDACT_SLACK	((size_t)65536)

static size_t
body_log_limit(void)
{
	if (rai_log_enabled(RAI_LOG_ALL))
		return SIZE_MAX;
	if (rai_log_enabled(RAI_LOG_CURL))
		return LOG_BODY_9;
	return LOG_BODY_8;
}

void
rai_http_log_body(const char *label, const char *data, size_t len)
{
	struct rai_buf red;
	size_t limit, look, shown;

	if (!rai_log_enabled(RAI_LOG_BODY) || len == 0)
		return;
	limit = body_log_limit();
	look = (limit == SIZE_MAX || len <= limit + LOG_REDACT_SLACK) ? len :
	    limit + LOG_REDACT_SLACK;
	/* redaction can only grow a body by a few bytes per secret */
	rai_buf_init(&red, SIZE_MAX / 2);
	rai_redact_body(data, look, &red);
	shown = red.len < limit ? red.len : limit;
	/* the sink ends the line; a body's own final newline would double it */
	while (shown > 0 && (red.data[shown - 1] == '\n' ||
	    red.data[shown - 1] == '\r'))
		shown--;
	if (red.len > limit || look < len)
		rai_log(RAI_LOG_BODY, "%s: %.*s [truncated %zu bytes]", label,
		    (int)shown, rai_buf_str(&red), len - (shown < len ?
		    shown : len));
	else
		rai_log(RAI_LOG_BODY, "%s: %.*s", label, (int)shown,
		    rai_buf_str(&red));
	rai_buf_release_secret(&red);
}

static void
log_header_line(int level, const char *prefix, const char *line, size_t len)
{
	struct rai_buf red = RAI_BUF_INIT;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len == 0 || !rai_log_enabled(level))
		return;
	rai_redact_header(line, len, &red);
	rai_log(level, "%s%s", prefix, rai_buf_str(&red));
	rai_buf_release_secret(&red);
}

static void
log_header_block(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		log_header_line(RAI_LOG_HDRS, "> ", p, (size_t)(nl - p));
		p = nl + 1;
	}
}

int
http_debug_cb(CURL *c, curl_infotype type, char *data, size_t len, void *ud)
{
	(void)c;
	(void)ud;
	switch (type) {
	case CURLINFO_TEXT:
		log_header_line(RAI_LOG_CURL, "* ", data, len);
		break;
	case CURLINFO_HEADER_OUT:
		log_header_block(data, len);
		break;
	case CURLINFO_HEADER_IN:
		log_header_line(len >= 5 && strncmp(data, "HTTP/", 5) == 0 ?
		    RAI_LOG_HDRS : RAI_LOG_BODY, "< ", data, len);
		break;
	default:
		/* bodies are logged whole, redacted, by rai_http_do */
		break;
	}
	return 0;
}

/* Single-quoted for a POSIX shell. */
static void
shell_quote(struct rai_buf *b, const char *s, size_t len)
{
	size_t i;

	rai_buf_addch(b, '\'');
	for (i = 0; i < len; i++) {
		if (s[i] == '\'')
			rai_buf_addstr(b, "'\\''");
		else
			rai_buf_addch(b, s[i]);
	}
	rai_buf_addch(b, '\'');
}

/* client-go's DebugCurlCommand: what to paste to repeat the request. */
void
http_log_curl_command(const struct rai_http_req *req,
    const struct curl_slist *hdrs)
{
	struct rai_buf b, red = RAI_BUF_INIT;
	const struct curl_slist *p;

	if (!rai_log_enabled(RAI_LOG_CURL))
		return;
	rai_buf_init(&b, SIZE_MAX / 2);
	rai_buf_addf(&b, "curl -v -X%s", req->method);
	for (p = hdrs; p != NULL; p = p->next) {
		if (p->data[strlen(p->data) - 1] == ':')
			continue;	/* a header we suppress */
		rai_buf_reset(&red);
		rai_redact_header(p->data, strlen(p->data), &red);
		rai_buf_addstr(&b, " -H ");
		shell_quote(&b, rai_buf_str(&red), red.len);
	}
	if (req->body != NULL)
		rai_buf_addstr(&b, " --data-binary @-");
	rai_buf_addch(&b, ' ');
	shell_quote(&b, req->url, strlen(req->url));
	rai_log(RAI_LOG_CURL, "%s", rai_buf_str(&b));
	rai_buf_release_secret(&red);
	rai_buf_release_secret(&b);
}

void
http_log_outcome(const struct xfer *x, CURLcode code)
{
	const struct rai_http_req *req = x->req;
	long ms = http_elapsed_ms(&x->start);

	if (!rai_log_enabled(RAI_LOG_REQ))
		return;
	if (x->resp->status != 0)
		rai_log(RAI_LOG_REQ, "%s %s %ld%s%s in %ld ms", req->method,
		    req->url, x->resp->status, x->resp->reason[0] ? " " : "",
		    x->resp->reason, ms);
	else
		rai_log(RAI_LOG_REQ, "%s %s failed in %ld ms: %s", req->method,
		    req->url, ms, x->h->errbuf[0] ? x->h->errbuf :
		    curl_easy_strerror(code));
}

/* client-go's V(9) timing breakdown, cumulative from the start. */
void
http_log_timing(CURL *c)
{
	curl_off_t dns = 0, conn = 0, tls = 0, first = 0, total = 0;

	if (!rai_log_enabled(RAI_LOG_CURL))
		return;
	curl_easy_getinfo(c, CURLINFO_NAMELOOKUP_TIME_T, &dns);
	curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &conn);
	curl_easy_getinfo(c, CURLINFO_APPCONNECT_TIME_T, &tls);
	curl_easy_getinfo(c, CURLINFO_STARTTRANSFER_TIME_T, &first);
	curl_easy_getinfo(c, CURLINFO_TOTAL_TIME_T, &total);
	rai_log(RAI_LOG_CURL, "timing: dns %.1f ms, connect %.1f ms, tls %.1f "
	    "ms, first byte %.1f ms, total %.1f ms", (double)dns / 1000,
	    (double)conn / 1000, (double)tls / 1000, (double)first / 1000,
	    (double)total / 1000);
}
