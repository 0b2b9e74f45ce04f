/*
 * The pieces every transfer of the transport shares, on the handle
 * itself or on one of its copies: the callbacks, which only record
 * what they see in struct xfer (all decisions are taken after the
 * transfer), the request's headers, method and target, the error an
 * attempt ends with, and a copy of the handle with the shared TLS
 * session cache and CA. Apart so that the request path, the requests
 * sent ahead, side streams and raw connections all build on it while
 * it calls none of them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/http_xfer.h"
#include "core/tls_ca.h"

#include "core/banned.h"

long long
http_elapsed_us(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - start->tv_sec) * 1000000 +
	    (now.tv_nsec - start->tv_nsec) / 1000;
}

long
http_elapsed_ms(const struct timespec *start)
{
	return (long)(http_elapsed_us(start) / 1000);
}

/* ---- callbacks ---- */

/* "Name: value\r\n" -> value, when the name matches. */
static int
header_value(const char *p, size_t len, const char *name, const char **v,
    size_t *vlen)
{
	size_t n = strlen(name);

	if (len <= n || p[n] != ':' || strncasecmp(p, name, n) != 0)
		return 0;
	p += n + 1;
	len -= n + 1;
	while (len > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)p[len - 1]))
		len--;
	*v = p;
	*vlen = len;
	return 1;
}

/* "HTTP/1.1 503 Service Unavailable": a new header block starts. */
static void
status_line(struct xfer *x, const char *p, size_t len)
{
	const char *sp = memchr(p, ' ', len), *end = p + len;
	size_t n;
	long code = 0;

	if (sp != NULL) {
		for (sp++; sp < end && isdigit((unsigned char)*sp); sp++)
			code = code * 10 + (*sp - '0');
		while (sp < end && *sp == ' ')
			sp++;
	} else
		sp = end;
	n = (size_t)(end - sp);
	while (n > 0 && isspace((unsigned char)sp[n - 1]))
		n--;
	if (n >= sizeof(x->resp->reason))
		n = sizeof(x->resp->reason) - 1;
	memcpy(x->resp->reason, sp, n);
	x->resp->reason[n] = '\0';
	x->resp->status = code;
	x->resp->retry_after = 0;
	free(x->resp->content_type);
	x->resp->content_type = NULL;
}

size_t
http_header_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * nmemb, vlen;
	const char *v;
	char tmp[64];

	if (len >= 5 && strncmp(p, "HTTP/", 5) == 0)
		status_line(x, p, len);
	else if (header_value(p, len, "content-type", &v, &vlen)) {
		free(x->resp->content_type);
		x->resp->content_type = xstrndup(v, vlen);
	} else if (header_value(p, len, "retry-after", &v, &vlen)) {
		if (vlen >= sizeof(tmp))
			vlen = sizeof(tmp) - 1;
		memcpy(tmp, v, vlen);
		tmp[vlen] = '\0';
		x->resp->retry_after = rai_http_parse_retry_after(tmp,
		    time(NULL));
	}
	return len;
}

int
http_status_ok(long status)
{
	return status >= 200 && status < 300;
}

size_t
http_write_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * nmemb;
	int rc;

	if (x->req->on_data != NULL && http_status_ok(x->resp->status)) {
		rc = x->req->on_data(x->req->on_data_ud, p, len, &x->sink_err);
		if (rc < 0) {
			x->sink_failed = 1;
			return 0;	/* aborts the transfer */
		}
		x->resp->streamed += len;
		if (rc > 0) {
			x->stopped = 1;
			return 0;
		}
		return len;
	}
	if (rai_buf_add(&x->resp->body, p, len) == -1) {
		x->overflow = 1;
		return 0;
	}
	return len;
}

/* Streams have no total timeout, but the answer must start in time. */
int
http_progress_cb(void *ud, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	if (x->resp->status == 0 && x->h->request_timeout_ms > 0 &&
	    http_elapsed_ms(&x->start) > x->h->request_timeout_ms) {
		x->header_timeout = 1;
		return 1;
	}
	return 0;
}

/* Each new connection verifies with the CA parsed once (tls_ca.c). */
CURLcode
http_shared_ca_ctx(CURL *curl, void *ssl_ctx, void *ud)
{
	const struct rai_http *h = ud;

	(void)curl;
	if (h != NULL)
		rai_tls_ca_use(ssl_ctx, h->ca_store);
	return CURLE_OK;
}

/* ---- a request's pieces ---- */

void
http_slist_free_secret(struct curl_slist *l)
{
	struct curl_slist *p;

	for (p = l; p != NULL; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

static struct curl_slist *
slist_add(struct curl_slist *l, const char *name, const char *value)
{
	struct curl_slist *n;
	char *line = xasprintf("%s: %s", name, value);

	n = curl_slist_append(l, line);
	rai_free_secret(line);
	if (n == NULL)
		rai_die("out of memory building request headers");
	return n;
}

struct curl_slist *
http_request_headers(const struct rai_http_req *req, const char *auth)
{
	struct curl_slist *l = NULL;

	l = slist_add(l, "Accept", req->accept ? req->accept :
	    "application/json");
	if (req->body != NULL && req->content_type != NULL)
		l = slist_add(l, "Content-Type", req->content_type);
	if (auth != NULL)
		l = slist_add(l, "Authorization", auth);
	/* no 100-continue round trip for large bodies */
	l = curl_slist_append(l, "Expect:");
	if (l == NULL)
		rai_die("out of memory building request headers");
	return l;
}

void
http_set_method(CURL *c, const struct rai_http_req *req)
{
	int has_body = req->body != NULL ||
	    strcmp(req->method, "POST") == 0 ||
	    strcmp(req->method, "PUT") == 0 ||
	    strcmp(req->method, "PATCH") == 0;

	curl_easy_setopt(c, CURLOPT_NOBODY, 0L);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	if (has_body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(req->body ? req->body_len : 0));
		curl_easy_setopt(c, CURLOPT_POSTFIELDS,
		    req->body ? req->body : "");
	}
	if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(req->method, "GET") != 0 &&
	    !(has_body && strcmp(req->method, "POST") == 0))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
}

/*
 * libcurl 7.88 cannot set SNI apart from the URL's host, so the URL names
 * the tls-server-name and CONNECT_TO sends the connection to the real
 * host and port: the certificate is then checked against that name.
 */
int
http_target(struct rai_http *h, const char *url, char **eff,
    struct curl_slist **connect_to, struct rai_err *err)
{
	CURLU *u;
	char *host = NULL, *port = NULL, *s = NULL, *entry;
	int rc = -1;

	*eff = NULL;
	*connect_to = NULL;
	if (h->tls_server_name == NULL) {
		*eff = xstrdup(url);
		return 0;
	}
	if ((u = curl_url()) == NULL)
		rai_die("out of memory parsing a URL");
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_PATH_AS_IS) !=
	    CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) !=
	    CURLUE_OK ||
	    curl_url_set(u, CURLUPART_HOST, h->tls_server_name, 0) !=
	    CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &s, 0) != CURLUE_OK) {
		rai_err_set(err, RAI_E_CONFIG, "cannot use tls-server-name "
		    "'%s' with the server URL '%s'", h->tls_server_name, url);
		goto out;
	}
	entry = xasprintf("%s:%s:%s:%s", h->tls_server_name, port, host, port);
	*connect_to = curl_slist_append(NULL, entry);
	free(entry);
	if (*connect_to == NULL)
		rai_die("out of memory building CONNECT_TO");
	*eff = xstrdup(s);
	rc = 0;
out:
	curl_free(host);
	curl_free(port);
	curl_free(s);
	curl_url_cleanup(u);
	return rc;
}

void
http_reset_resp(struct rai_http_resp *r, size_t max)
{
	free(r->content_type);
	r->content_type = NULL;
	r->status = 0;
	r->retry_after = 0;
	r->streamed = 0;
	r->reason[0] = '\0';
	rai_buf_reset(&r->body);
	r->body.max = max;
}

/* libcurl's Accept-Encoding: "" = every coding it can decode; NULL = none. */
const char *
http_accept_encoding(const struct rai_http *h, const struct rai_http_req *req)
{
	return h->no_compression || (req->flags & RAI_HTTP_IDENTITY) ? NULL : "";
}

/*
 * The proxy said no to the CONNECT tunnel (its answer is not the
 * server's): said so, with what to do about a 407. 1 when it was that.
 */
int
http_proxy_refused(CURL *c, CURLcode code, const char *url, struct rai_err *err)
{
	long cc = 0;

	if (code == CURLE_OK || curl_easy_getinfo(c, CURLINFO_HTTP_CONNECTCODE,
	    &cc) != CURLE_OK || cc < 300)
		return 0;
	rai_err_set(err, RAI_E_NET, "the proxy refused the tunnel to '%s' "
	    "(HTTP %ld)", url, cc);
	if (cc == 407)
		rai_err_set_hint(err, "the proxy wants credentials: give them in "
		    "its URL, http://USER:PASSWORD@HOST:PORT (https_proxy, or "
		    "the kubeconfig's proxy-url)");
	err->curl_code = (int)code;
	return 1;
}

/*
 * Turns what one attempt saw into err; returns 1 when a retry cannot
 * help.
 */
int
http_attempt_error(struct xfer *x, CURLcode code, struct rai_err *err)
{
	struct rai_http *h = x->h;
	const struct rai_http_req *req = x->req;
	struct rai_http_resp *resp = x->resp;
	char size[32], detail[CURL_ERROR_SIZE + 64];

	if (x->sink_failed) {
		rai_err_move(err, &x->sink_err);
		return 1;
	}
	if (x->overflow) {
		rai_http_format_size(resp->body.max, size, sizeof(size));
		rai_err_set(err, RAI_E_PROTO, "response from %s %s exceeds %s",
		    req->method, req->url, size);
		return 1;
	}
	if (x->header_timeout) {
		snprintf(detail, sizeof(detail), "no answer after %ld ms",
		    h->request_timeout_ms);
		rai_err_from_curl(err, CURLE_OPERATION_TIMEDOUT, req->url,
		    detail);
		return 0;
	}
	if (code == CURLE_OK) {
		rai_err_from_http(err, resp->status, resp->content_type,
		    resp->body.data, resp->body.len, resp->retry_after);
		return 0;
	}
	if (http_proxy_refused(h->curl, code, req->url, err))
		return 0;
	if (resp->status != 0) {
		/* the answer started, then the transfer broke off */
		rai_err_set(err, RAI_E_NET, "reading the response from %s %s "
		    "failed: %s (curl %d)", req->method, req->url,
		    h->errbuf[0] ? h->errbuf : curl_easy_strerror(code),
		    (int)code);
		err->curl_code = (int)code;
		err->http_status = resp->status;
		return 0;
	}
	rai_err_from_curl(err, (int)code, req->url, h->errbuf);
	return 0;
}

/*
 * A copy of the client's handle for a connection of its own. libcurl's
 * copy leaves the share out (7.88 does), so the copy is given the TLS
 * session cache here: its connection resumes a session the others got
 * (an abbreviated handshake: no certificates sent or checked again).
 */
CURL *
http_copy_handle(struct rai_http *h)
{
	CURL *c = curl_easy_duphandle(h->curl);

	if (c == NULL)
		rai_die("out of memory copying a libcurl handle");
	if (h->share != NULL)
		curl_easy_setopt(c, CURLOPT_SHARE, h->share);
	return c;
}
