/*
 * The HTTP transport shared by kube_client and backend: one libcurl easy
 * handle reused for keep-alive, every option that matters set per
 * request (a reused handle keeps whatever the last request left), and
 * the retry loop. The callbacks only record what they see in struct
 * xfer; all decisions are taken after curl_easy_perform returns.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/ssl.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/log.h"
#include "core/time.h"
#include "core/tls_ca.h"

#include "core/banned.h"

/* The body of a failed stream's answer. */
#define ERROR_BODY_MAX		((size_t)1 << 20)
#define RETRY_AFTER_MAX		86400
#define LOG_BODY_8		((size_t)1024)
#define LOG_BODY_9		((size_t)10240)
/* Redaction looks at this much more than it shows, so cut secrets match. */
#define LOG_REDACT_SLACK	((size_t)65536)

/*
 * Debian's libcurl brings in GnuTLS (through librtmp and libldap), whose
 * constructor sets itself up in every process that loads it: about
 * 0.8 MB of resident memory at each start, for a library these programs
 * never call (transfers are limited to http and https, which
 * go through OpenSSL). GnuTLS skips that set-up when the program defines
 * this function and it returns non-zero: the public
 * GNUTLS_SKIP_GLOBAL_INIT hook of its header, written out here so the
 * build needs no GnuTLS headers. The linker exports it from each program
 * because the library it overrides is among the ones linked.
 */
int _gnutls_global_init_skip(void);	/* NOLINT(cert-dcl37-c,bugprone-reserved-identifier): GnuTLS's name */

int
_gnutls_global_init_skip(void)	/* NOLINT(cert-dcl37-c,bugprone-reserved-identifier) */
{
	return 1;
}

struct rai_http {
	CURL			*curl;
	char			 errbuf[CURL_ERROR_SIZE];
	long			 request_timeout_ms;
	int			 max_retries;
	size_t			 max_response;
	char			*tls_server_name;
	char			*user_agent;
	rai_http_auth_fn	*auth;
	rai_http_renew_fn	*renew;
	void			*auth_ud;
	uint32_t		 rnd;		/* xorshift, for jitter */
	int			 parallel;	/* connections for prefetches */
	int			 far;		/* waits show they pay: use them */
	int			 no_compression;
	CURLM			*multi;		/* the prefetches' transfers */
	CURLSH			*share;		/* TLS sessions, connections */
	X509_STORE		*ca_store;	/* the configured CA, parsed once */
	struct prefetch		*pre;		/* sent ahead, not yet asked for */
	struct prefetch		*adopted;	/* ... and the one being read */
	CURLM			*smulti;	/* side streams, side by side */
};

/* What the callbacks saw during one attempt. */
struct xfer {
	struct rai_http			*h;
	const struct rai_http_req	*req;
	struct rai_http_resp		*resp;
	int				 overflow;
	int				 stopped;
	int				 sink_failed;
	int				 header_timeout;
	struct rai_err			 sink_err;
	struct timespec			 start;
};

/*
 * A GET sent ahead (rai_http_prefetch) on a connection of its own. Its
 * xfer first buffers the answer; once rai_http_do asks for the same URL
 * it takes the caller's request, so the rest of a 2xx body goes straight
 * to the caller's sink as in a request of its own.
 */
struct prefetch {
	struct prefetch		*next;
	CURL			*curl;
	struct rai_http_req	 req;		/* method and URL: ours */
	char			*url;
	char			*accept;
	char			*eff;		/* target's URL */
	struct curl_slist	*hdrs, *connect_to;
	struct xfer		 x;
	struct rai_http_resp	 resp;
	int			 started;	/* on the multi handle */
	int			 done;
	CURLcode		 code;
	char			 errbuf[CURL_ERROR_SIZE];
};

static void	prefetch_free_all(struct rai_http *);
static int	prefetch_adopt(struct rai_http *, const struct rai_http_req *,
		    struct rai_http_resp *, struct rai_err *);

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

/* ---- logging ---- */

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

static int
debug_cb(CURL *c, curl_infotype type, char *data, size_t len, void *ud)
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
static void
log_curl_command(const struct rai_http_req *req, const struct curl_slist *hdrs)
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

static long long
elapsed_us(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - start->tv_sec) * 1000000 +
	    (now.tv_nsec - start->tv_nsec) / 1000;
}

static long
elapsed_ms(const struct timespec *start)
{
	return (long)(elapsed_us(start) / 1000);
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

static size_t
header_cb(char *p, size_t size, size_t nmemb, void *ud)
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

static int
status_ok(long status)
{
	return status >= 200 && status < 300;
}

static size_t
write_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * nmemb;
	int rc;

	if (x->req->on_data != NULL && status_ok(x->resp->status)) {
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
static int
progress_cb(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
    curl_off_t ulnow)
{
	struct xfer *x = ud;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	if (x->resp->status == 0 && x->h->request_timeout_ms > 0 &&
	    elapsed_ms(&x->start) > x->h->request_timeout_ms) {
		x->header_timeout = 1;
		return 1;
	}
	return 0;
}

/* ---- handle ---- */

static long
env_long(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return def;
	errno = 0;
	n = strtol(v, &end, 10);
	if (*end != '\0' || errno != 0 || n < 0)
		return def;
	return n;
}

static char *
user_agent(const char *product)
{
	const curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);
	struct utsname u;
	char os[sizeof(u.sysname)] = "unknown";
	size_t i;

	if (uname(&u) == 0) {
		snprintf(os, sizeof(os), "%s", u.sysname);
		for (i = 0; os[i] != '\0'; i++)
			os[i] = (char)tolower((unsigned char)os[i]);
	}
	return xasprintf("%s (%s) libcurl/%s",
	    product != NULL ? product : "runai/" RAI_VERSION, os, vi->version);
}

static int
set_blob(CURL *c, CURLoption opt, const void *data, size_t len,
    const char *what, struct rai_err *err)
{
	struct curl_blob blob;
	CURLcode rc;

	blob.data = (void *)(uintptr_t)data;	/* curl copies it */
	blob.len = len;
	blob.flags = CURL_BLOB_COPY;
	rc = curl_easy_setopt(c, opt, &blob);
	if (rc != CURLE_OK)
		return rai_err_set(err, RAI_E_CONFIG, "cannot use the %s: %s",
		    what, curl_easy_strerror(rc));
	return 0;
}

/* Whether libcurl hands its SSL_CTX callbacks an OpenSSL SSL_CTX. */
static int
tls_is_openssl(void)
{
	const curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);

	return vi->ssl_version != NULL &&
	    strncmp(vi->ssl_version, "OpenSSL/", 8) == 0;
}

/* The variables libcurl reads a proxy from, when none is set. */
static const char *const proxy_vars[] = { "https_proxy", "HTTPS_PROXY",
    "http_proxy", "all_proxy", "ALL_PROXY", NULL };

int
rai_http_proxy_may_apply(const char *proxy)
{
	const char *v;
	size_t i;

	if (proxy != NULL && *proxy != '\0')
		return 1;
	for (i = 0; proxy_vars[i] != NULL; i++)
		if ((v = getenv(proxy_vars[i])) != NULL && *v != '\0')
			return 1;
	return 0;
}

/*
 * libcurl runs the SSL_CTX callback for a TLS proxy's own connection
 * too, where the cluster's CA must not stand in for the proxy's. Where
 * the proxy may be https:// (set, or from the variables libcurl reads),
 * the CA goes to libcurl as a blob, which it applies to the cluster's
 * connections alone.
 */
static int
proxy_may_be_tls(const struct rai_http_opts *o)
{
	const char *v;
	size_t i;

	if (o->proxy != NULL && *o->proxy != '\0')
		return strncasecmp(o->proxy, "https://", 8) == 0;
	for (i = 0; proxy_vars[i] != NULL; i++)
		if ((v = getenv(proxy_vars[i])) != NULL &&
		    strncasecmp(v, "https://", 8) == 0)
			return 1;
	return 0;
}

/* Each new connection verifies with the CA parsed once (tls_ca.c). */
static CURLcode
shared_ca_ctx(CURL *curl, void *ssl_ctx, void *ud)
{
	const struct rai_http *h = ud;

	(void)curl;
	if (h != NULL)
		rai_tls_ca_use(ssl_ctx, h->ca_store);
	return CURLE_OK;
}

static int
setup_tls(struct rai_http *h, const struct rai_http_opts *o,
    struct rai_err *err)
{
	CURL *c = h->curl;

	if (o->ca_len > 0) {
		if (tls_is_openssl() && !proxy_may_be_tls(o) &&
		    (h->ca_store = rai_tls_ca_load(o->ca, o->ca_len)) != NULL) {
			/* nothing for libcurl to parse at each connection */
			curl_easy_setopt(c, CURLOPT_CAINFO, NULL);
			curl_easy_setopt(c, CURLOPT_SSL_CTX_FUNCTION,
			    shared_ca_ctx);
			curl_easy_setopt(c, CURLOPT_SSL_CTX_DATA, h);
		} else if (set_blob(c, CURLOPT_CAINFO_BLOB, o->ca, o->ca_len,
		    "certificate authority", err) == -1)
			return -1;
		/* only the configured CA: the system store must not widen it */
		curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	}
	if (o->cert_len > 0) {
		curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
		if (set_blob(c, CURLOPT_SSLCERT_BLOB, o->cert, o->cert_len,
		    "client certificate", err) == -1)
			return -1;
	}
	if (o->key_len > 0) {
		curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
		if (set_blob(c, CURLOPT_SSLKEY_BLOB, o->key, o->key_len,
		    "client key", err) == -1)
			return -1;
	}
	if (o->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (o->tls_server_name != NULL && *o->tls_server_name != '\0')
		h->tls_server_name = xstrdup(o->tls_server_name);
	return 0;
}

static void
apply_limits(struct rai_http *h, const struct rai_http_opts *o)
{
	long ms = -1;
	const char *v;

	h->request_timeout_ms = o->request_timeout_ms;
	if (h->request_timeout_ms <= 0) {
		v = getenv("RUNAI_REQUEST_TIMEOUT");
		if (v != NULL)
			ms = rai_http_parse_duration_ms(v);
		h->request_timeout_ms = ms > 0 ? ms :
		    RAI_HTTP_REQUEST_TIMEOUT_MS;
	}
	h->max_retries = o->max_retries >= 0 ? o->max_retries :
	    (int)env_long("RUNAI_MAX_RETRIES", RAI_HTTP_DEFAULT_RETRIES);
	if (h->max_retries > 100)
		h->max_retries = 100;
	h->parallel = (int)env_long("RUNAI_PARALLEL_REQUESTS",
	    RAI_HTTP_DEFAULT_PARALLEL);
	if (h->parallel > RAI_HTTP_MAX_PARALLEL)
		h->parallel = RAI_HTTP_MAX_PARALLEL;
	/* a number given is used as it is; the default waits for evidence */
	h->far = getenv("RUNAI_PARALLEL_REQUESTS") != NULL;
	h->max_response = o->max_response;
	if (h->max_response == 0)
		h->max_response = (size_t)env_long("RUNAI_MAX_RESPONSE", 0);
	if (h->max_response == 0)
		h->max_response = RAI_BUF_DEFAULT_MAX;
}

int
rai_http_new(struct rai_http **out, const struct rai_http_opts *o,
    struct rai_err *err)
{
	struct rai_http *h;
	char *ua;
	CURL *c;

	if ((c = curl_easy_init()) == NULL)
		return rai_err_set(err, RAI_E_INTERNAL,
		    "cannot create a libcurl handle");
	h = xcalloc(1, sizeof(*h));
	h->curl = c;
	/*
	 * One TLS session cache for this handle and its copies (requests
	 * sent ahead, upgraded streams): a second connection to the same
	 * server resumes the first one's session instead of a full handshake.
	 * And one pool of connections (best effort): a request sent ahead
	 * takes the connection an earlier request left idle. Upgraded
	 * streams are never handed out again (libcurl does not reuse a
	 * CONNECT_ONLY connection).
	 */
	if ((h->share = curl_share_init()) != NULL &&
	    curl_share_setopt(h->share, CURLSHOPT_SHARE,
	    CURL_LOCK_DATA_SSL_SESSION) == CURLSHE_OK) {
		(void)curl_share_setopt(h->share, CURLSHOPT_SHARE,
		    CURL_LOCK_DATA_CONNECT);
		curl_easy_setopt(c, CURLOPT_SHARE, h->share);
	}
	h->auth = o->auth;
	h->renew = o->renew;
	h->auth_ud = o->auth_ud;
	h->rnd = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16) ^
	    0x9e3779b9u;
	apply_limits(h, o);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	/* HTTP/2 would work, but 1.1 behaves the same against every peer */
	curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	h->no_compression = o->no_compression;
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
	    o->connect_timeout_ms > 0 ? o->connect_timeout_ms :
	    RAI_HTTP_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	ua = user_agent(o->user_agent);
	curl_easy_setopt(c, CURLOPT_USERAGENT, ua);	/* curl copies */
	h->user_agent = ua;
	if (o->proxy != NULL && *o->proxy != '\0')
		curl_easy_setopt(c, CURLOPT_PROXY, o->proxy);
	if (setup_tls(h, o, err) == -1) {
		rai_http_free(h);
		return -1;
	}
	*out = h;
	return 0;
}

void
rai_http_free(struct rai_http *h)
{
	if (h == NULL)
		return;
	prefetch_free_all(h);
	if (h->smulti != NULL)
		curl_multi_cleanup(h->smulti);
	curl_easy_cleanup(h->curl);
	if (h->share != NULL)
		curl_share_cleanup(h->share);
	X509_STORE_free(h->ca_store);	/* connections hold their own refs */
	free(h->tls_server_name);
	free(h->user_agent);
	free(h);
}

long
rai_http_request_timeout_ms(const struct rai_http *h)
{
	return h->request_timeout_ms;
}

size_t
rai_http_max_response(const struct rai_http *h)
{
	return h->max_response;
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

/* ---- one attempt ---- */

static void
slist_free_secret(struct curl_slist *l)
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

static struct curl_slist *
request_headers(const struct rai_http_req *req, const char *auth)
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

static void
set_method(CURL *c, const struct rai_http_req *req)
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
static int
target(struct rai_http *h, const char *url, char **eff,
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

static void
reset_resp(struct rai_http_resp *r, size_t max)
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
static const char *
accept_encoding(const struct rai_http *h, const struct rai_http_req *req)
{
	return h->no_compression || (req->flags & RAI_HTTP_IDENTITY) ? NULL : "";
}

static void
set_transfer(struct rai_http *h, struct xfer *x, struct curl_slist *hdrs)
{
	CURL *c = h->curl;
	int stream = x->req->on_data != NULL;

	set_method(c, x->req);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING,
	    accept_encoding(h, x->req));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, stream ?
	    x->req->stream_timeout_ms : h->request_timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, stream ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(c, CURLOPT_VERBOSE,
	    rai_log_enabled(RAI_LOG_HDRS) ? 1L : 0L);
	h->errbuf[0] = '\0';
}

static void
log_outcome(const struct xfer *x, CURLcode code)
{
	const struct rai_http_req *req = x->req;
	long ms = elapsed_ms(&x->start);

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
static void
log_timing(CURL *c)
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

/*
 * Whether sending lists ahead on connections of their own pays: each new
 * connection costs this process about a millisecond of CPU (libcurl
 * makes a TLS context for it, then a resumed handshake) and the server
 * a handshake, while it saves the round trips the requests would wait
 * one after another. A server on the same host or a near one answers a
 * small request in about a millisecond: there the extra connections
 * cost more than they save (a list -A of 1,000 jobs, 4 connections
 * against 1: 22.3 ms against 19.7). So requests are sent ahead on one
 * connection until one of them has waited LANE_WAIT_US for the first
 * byte of its answer; from then on, on up to h->parallel.
 */
#define LANE_WAIT_US	3000

static void
note_wait(struct rai_http *h, CURL *c)
{
	curl_off_t sent = 0, first = 0;

	if (h->far || curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME_T,
	    &sent) != CURLE_OK || curl_easy_getinfo(c,
	    CURLINFO_STARTTRANSFER_TIME_T, &first) != CURLE_OK)
		return;
	if (first > 0 && first - sent >= LANE_WAIT_US) {
		h->far = 1;
		rai_log(RAI_LOG_CURL, "an answer took %.1f ms to start: "
		    "requests sent ahead go out at once", (double)(first -
		    sent) / 1000);
	}
}

/*
 * The proxy said no to the CONNECT tunnel (its answer is not the
 * server's): said so, with what to do about a 407. 1 when it was that.
 */
static int
proxy_refused(CURL *c, CURLcode code, const char *url, struct rai_err *err)
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
static int
attempt_error(struct xfer *x, CURLcode code, struct rai_err *err)
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
	if (proxy_refused(h->curl, code, req->url, err))
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
 * One attempt. 0: done (2xx or a stream stopped by its sink). -1: err
 * filled, *code the curl result, *final set when a retry cannot help.
 */
static int
attempt(struct rai_http *h, const struct rai_http_req *req,
    struct rai_http_resp *resp, CURLcode *code, int *final,
    struct rai_err *err)
{
	struct xfer x;
	struct curl_slist *hdrs = NULL, *connect_to = NULL;
	char *auth = NULL, *eff = NULL;
	size_t max = h->max_response;
	int rc = -1;

	memset(&x, 0, sizeof(x));
	x.h = h;
	x.req = req;
	x.resp = resp;
	*code = CURLE_OK;
	*final = 1;
	if (req->on_data != NULL && max > ERROR_BODY_MAX)
		max = ERROR_BODY_MAX;
	reset_resp(resp, max);
	if (h->auth != NULL && h->auth(h->auth_ud, &auth, err) == -1)
		return -1;
	if (target(h, req->url, &eff, &connect_to, err) == -1)
		goto out;
	hdrs = request_headers(req, auth);
	curl_easy_setopt(h->curl, CURLOPT_URL, eff);
	curl_easy_setopt(h->curl, CURLOPT_CONNECT_TO, connect_to);
	set_transfer(h, &x, hdrs);
	log_curl_command(req, hdrs);
	if (req->body != NULL)
		rai_http_log_body("Request Body", req->body, req->body_len);
	clock_gettime(CLOCK_MONOTONIC, &x.start);
	*code = curl_easy_perform(h->curl);
	/* our own time limit on a stream's start counts as a timeout */
	if (x.header_timeout)
		*code = CURLE_OPERATION_TIMEDOUT;
	log_outcome(&x, *code);
	log_timing(h->curl);
	note_wait(h, h->curl);
	rai_http_log_body("Response Body", resp->body.data, resp->body.len);
	if (x.stopped || (*code == CURLE_OK && status_ok(resp->status))) {
		rc = 0;
		goto out;
	}
	*final = attempt_error(&x, *code, err);
out:
	/* the handle must not keep pointers into this frame */
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h->curl, CURLOPT_CONNECT_TO, NULL);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, NULL);
	slist_free_secret(hdrs);
	curl_slist_free_all(connect_to);
	rai_err_release(&x.sink_err);
	rai_free_secret(auth);
	free(eff);
	return rc;
}

static unsigned
next_rand(struct rai_http *h)
{
	uint32_t x = h->rnd;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	h->rnd = x;
	return x;
}

static void
log_retry(const struct rai_http_req *req, const struct rai_http_resp *resp,
    CURLcode code, long delay)
{
	if (!rai_log_enabled(RAI_LOG_NOTE))
		return;
	if (code == CURLE_OK)
		rai_log(RAI_LOG_NOTE, "retrying %s %s in %.1fs (%ld%s%s)",
		    req->method, req->url, (double)delay / 1000,
		    resp->status, resp->reason[0] ? " " : "", resp->reason);
	else
		rai_log(RAI_LOG_NOTE, "retrying %s %s in %.1fs (%s)",
		    req->method, req->url, (double)delay / 1000,
		    curl_easy_strerror(code));
}

int
rai_http_do(struct rai_http *h, const struct rai_http_req *req,
    struct rai_http_resp *resp, struct rai_err *err)
{
	CURLcode code;
	int retries = 0, renewed = 0, final;
	long delay;
	int rc;

	/* sent ahead: its answer, unless it must be asked again */
	if ((rc = prefetch_adopt(h, req, resp, err)) != 1)
		return rc;
	for (;;) {
		if (attempt(h, req, resp, &code, &final, err) == 0) {
			/* an earlier attempt's error is history now */
			if (retries > 0 || renewed)
				rai_err_release(err);
			return 0;
		}
		if (final)
			return -1;
		/* a rejected token: renew once, whatever the method */
		if (resp->status == 401 && !renewed && h->renew != NULL &&
		    resp->streamed == 0 && h->renew(h->auth_ud)) {
			renewed = 1;
			rai_log(RAI_LOG_NOTE, "%s %s: 401, retrying with "
			    "renewed credentials", req->method, req->url);
			continue;
		}
		if (retries >= h->max_retries ||
		    !rai_http_retryable(req->flags, (int)code, resp->status,
		    err->retry_after, resp->streamed))
			return -1;
		retries++;
		delay = rai_http_backoff_ms(retries, err->retry_after,
		    next_rand(h));
		log_retry(req, resp, code, delay);
		rai_sleep_ms(delay);
	}
}

/* ---- requests sent ahead ---- */

/*
 * Independent GETs go out at once: each prefetch starts a transfer on a
 * connection of its own (at most h->parallel at a time; the rest wait
 * here, not in libcurl, see prefetch_fill), and the caller's later
 * rai_http_do of the same URL takes its answer. Callers keep asking in
 * their own order, so what they do with the answers is exactly what a
 * serial run does; only the waiting overlaps. A transport error, or an
 * answer the ordinary path would retry or renew credentials for, before
 * the caller has seen a byte is dropped and asked again through that
 * path, with its retries and messages (prefetch_ask_again).
 */

static size_t
prefetch_write_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	return write_cb(p, size, nmemb, ud);
}

static void
prefetch_free(struct rai_http *h, struct prefetch *pf)
{
	if (h->multi != NULL && pf->started)
		curl_multi_remove_handle(h->multi, pf->curl);
	curl_easy_cleanup(pf->curl);
	slist_free_secret(pf->hdrs);
	curl_slist_free_all(pf->connect_to);
	rai_err_release(&pf->x.sink_err);
	rai_http_resp_release(&pf->resp);
	free(pf->eff);
	free(pf->url);
	free(pf->accept);
	free(pf);
}

static void
prefetch_free_all(struct rai_http *h)
{
	rai_http_prefetch_drop(h);
	if (h->multi != NULL)
		curl_multi_cleanup(h->multi);
	h->multi = NULL;
}

/* Puts a prefetch on the multi handle: its request goes out now. */
static int
prefetch_start(struct rai_http *h, struct prefetch *pf)
{
	if (curl_multi_add_handle(h->multi, pf->curl) != CURLM_OK)
		return -1;
	log_curl_command(&pf->req, pf->hdrs);
	pf->started = 1;
	clock_gettime(CLOCK_MONOTONIC, &pf->x.start);
	return 0;
}

static int
in_flight(const struct prefetch *pf)
{
	return pf != NULL && pf->started && !pf->done;
}

/*
 * Starts waiting prefetches, in the order they were sent ahead, while
 * fewer than the lanes are in flight: h->parallel once the server is
 * known to be far, else one (note_wait). The queue is kept here: with
 * more transfers than connections allowed, libcurl 7.88 parks the rest
 * as pending and moves one on as another finishes, and now and then
 * one stays parked with every connection idle until the next wait
 * times out (a list -A took 1,024 ms instead of 20, 1 run in 200). One
 * that cannot be started stays unstarted: the caller's own request will
 * ask for it.
 */
static void
prefetch_fill(struct rai_http *h)
{
	int busy = in_flight(h->adopted), lanes = h->far ? h->parallel : 1;
	struct prefetch *pf;

	for (pf = h->pre; pf != NULL; pf = pf->next)
		busy += in_flight(pf);
	for (pf = h->pre; pf != NULL && busy < lanes; pf = pf->next)
		if (!pf->started && prefetch_start(h, pf) == 0)
			busy++;
}

/*
 * LANE_WAIT_US less how long q has waited for the first byte of its
 * answer; LLONG_MAX when it is not waiting for one.
 */
static long long
wait_left_us(const struct prefetch *q)
{
	if (!in_flight(q) || q->resp.status != 0)
		return LLONG_MAX;
	return LANE_WAIT_US - elapsed_us(&q->x.start);
}

/*
 * While one lane is used: the microseconds until a request in flight
 * with no answer yet has waited LANE_WAIT_US (0: one has, and far is
 * now set), or -1 when no wait is being timed.
 */
static long long
lane_deadline_us(struct rai_http *h)
{
	const struct prefetch *pf, *late = NULL;
	long long left, soonest;

	if (h->far)
		return -1;
	if ((soonest = wait_left_us(h->adopted)) <= 0)
		late = h->adopted;
	for (pf = h->pre; pf != NULL && late == NULL; pf = pf->next)
		if ((left = wait_left_us(pf)) <= 0)
			late = pf;
		else if (left < soonest)
			soonest = left;
	if (late != NULL) {
		h->far = 1;
		rai_log(RAI_LOG_CURL, "no answer yet after %d ms to GET %s: "
		    "requests sent ahead go out at once", LANE_WAIT_US / 1000,
		    late->url);
		return 0;
	}
	return soonest == LLONG_MAX ? -1 : soonest;
}

/* Whether some prefetch is still waiting to be started. */
static int
prefetch_waiting(const struct rai_http *h)
{
	const struct prefetch *pf;

	for (pf = h->pre; pf != NULL; pf = pf->next)
		if (!pf->started)
			return 1;
	return 0;
}

/* Moves the transfers on; marks the finished ones. -1: the multi broke. */
static int
prefetch_pump(struct rai_http *h, int wait_ms)
{
	struct prefetch *pf;
	CURLMsg *m;
	long long lane_us;
	int running, left;

	if (wait_ms > 0 && prefetch_waiting(h) &&
	    (lane_us = lane_deadline_us(h)) >= 0 && lane_us / 1000 < wait_ms)
		wait_ms = (int)(lane_us / 1000) + 1;
	if (wait_ms > 0 && curl_multi_poll(h->multi, NULL, 0, wait_ms,
	    NULL) != CURLM_OK)
		return -1;
	if (curl_multi_perform(h->multi, &running) != CURLM_OK)
		return -1;
	while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		for (pf = h->pre; pf != NULL; pf = pf->next)
			if (pf->curl == m->easy_handle)
				break;
		if (pf == NULL && h->adopted != NULL &&
		    h->adopted->curl == m->easy_handle)
			pf = h->adopted;
		if (pf != NULL) {
			pf->done = 1;
			pf->code = m->data.result;
			note_wait(h, pf->curl);
		}
	}
	if (prefetch_waiting(h)) {
		(void)lane_deadline_us(h);
		prefetch_fill(h);
	}
	return 0;
}

/*
 * A copy of the client's handle for a connection of its own. libcurl's
 * copy leaves the share out (7.88 does), so the copy is given the TLS
 * session cache here: its connection resumes a session the others got
 * (an abbreviated handshake: no certificates sent or checked again).
 */
static CURL *
copy_handle(struct rai_http *h)
{
	CURL *c = curl_easy_duphandle(h->curl);

	if (c == NULL)
		rai_die("out of memory copying a libcurl handle");
	if (h->share != NULL)
		curl_easy_setopt(c, CURLOPT_SHARE, h->share);
	return c;
}

static struct prefetch *
prefetch_new(struct rai_http *h, const char *url, const char *accept,
    const char *auth, struct rai_err *err)
{
	struct prefetch *pf = xcalloc(1, sizeof(*pf));
	CURL *c;

	c = copy_handle(h);
	pf->curl = c;
	pf->url = xstrdup(url);
	pf->accept = accept != NULL ? xstrdup(accept) : NULL;
	pf->req.method = "GET";
	pf->req.url = pf->url;
	pf->req.accept = pf->accept;
	pf->req.flags = RAI_HTTP_IDEMPOTENT;
	pf->x.h = h;
	pf->x.req = &pf->req;
	pf->x.resp = &pf->resp;
	reset_resp(&pf->resp, h->max_response);
	if (target(h, url, &pf->eff, &pf->connect_to, err) == -1) {
		prefetch_free(h, pf);
		return NULL;
	}
	pf->hdrs = request_headers(&pf->req, auth);
	set_method(c, &pf->req);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING,
	    accept_encoding(h, &pf->req));
	curl_easy_setopt(c, CURLOPT_URL, pf->eff);
	curl_easy_setopt(c, CURLOPT_CONNECT_TO, pf->connect_to);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, pf->hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, prefetch_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &pf->x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &pf->x);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->request_timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, pf->errbuf);
	curl_easy_setopt(c, CURLOPT_VERBOSE,
	    rai_log_enabled(RAI_LOG_HDRS) ? 1L : 0L);
	clock_gettime(CLOCK_MONOTONIC, &pf->x.start);
	return pf;
}

void
rai_http_prefetch(struct rai_http *h, const char *url, const char *accept)
{
	struct prefetch *pf, **tail;
	struct rai_err err = RAI_ERR_INIT;
	char *auth = NULL;

	if (h->parallel < 2)
		return;
	for (tail = &h->pre; *tail != NULL; tail = &(*tail)->next)
		if (strcmp((*tail)->url, url) == 0)
			return;		/* already on its way */
	/* no CURLMOPT_MAX_TOTAL_CONNECTIONS: prefetch_fill keeps the cap */
	if (h->multi == NULL && (h->multi = curl_multi_init()) == NULL)
		rai_die("out of memory creating a libcurl multi handle");
	/* no credential now: the ordinary path will say why */
	if (h->auth != NULL && h->auth(h->auth_ud, &auth, &err) == -1) {
		rai_err_release(&err);
		return;
	}
	pf = prefetch_new(h, url, accept, auth, &err);
	rai_free_secret(auth);
	if (pf == NULL) {
		rai_err_release(&err);
		return;
	}
	*tail = pf;
	prefetch_fill(h);
	(void)prefetch_pump(h, 0);	/* its request goes out now */
}

void
rai_http_prefetch_drop(struct rai_http *h)
{
	struct prefetch *pf;

	while ((pf = h->pre) != NULL) {
		h->pre = pf->next;
		prefetch_free(h, pf);
	}
}

static struct prefetch *
prefetch_take(struct rai_http *h, const struct rai_http_req *req)
{
	struct prefetch **pp, *pf;

	if (strcmp(req->method, "GET") != 0 || req->body != NULL ||
	    (req->flags & RAI_HTTP_IDENTITY))
		return NULL;
	for (pp = &h->pre; *pp != NULL; pp = &pf->next) {
		pf = *pp;
		if (strcmp(pf->url, req->url) != 0 ||
		    strcmp(pf->accept != NULL ? pf->accept : "",
		    req->accept != NULL ? req->accept : "") != 0)
			continue;
		*pp = pf->next;
		pf->next = NULL;
		/* the caller waits for it now: it goes out, lane or not */
		if (!pf->started && prefetch_start(h, pf) == -1) {
			prefetch_free(h, pf);
			return NULL;
		}
		return pf;
	}
	return NULL;
}

/* Hands what came before the caller asked to its sink. */
static void
prefetch_flush(struct prefetch *pf)
{
	struct xfer *x = &pf->x;
	int rc;

	if (x->req->on_data == NULL || !status_ok(pf->resp.status) ||
	    pf->resp.body.len == 0)
		return;
	rc = x->req->on_data(x->req->on_data_ud, pf->resp.body.data,
	    pf->resp.body.len, &x->sink_err);
	if (rc < 0)
		x->sink_failed = 1;
	else {
		pf->resp.streamed += pf->resp.body.len;
		x->stopped = rc > 0;
	}
	rai_buf_reset(&pf->resp.body);
}

/*
 * Whether a prefetch that gave the caller nothing yet is asked again:
 * after a transport error, or an answer the ordinary path would retry
 * (429, 5xx) or renew credentials for (401). A 2xx is taken, and so is
 * an error no retry changes (403, 404, ...), as a first attempt's is.
 */
static int
prefetch_ask_again(const struct rai_http *h, const struct rai_http_req *req,
    const struct prefetch *pf)
{
	const struct rai_http_resp *r = &pf->resp;

	if (pf->code != CURLE_OK)
		return 1;
	if (status_ok(r->status))
		return 0;
	return (r->status == 401 && h->renew != NULL) ||
	    (h->max_retries > 0 && rai_http_retryable(req->flags, CURLE_OK,
	    r->status, r->retry_after, 0));
}

/*
 * rai_http_do's answer from a prefetch of req's URL: 0 or -1 as
 * rai_http_do returns; 1 when there is none, or it must be asked again.
 */
static int
prefetch_adopt(struct rai_http *h, const struct rai_http_req *req,
    struct rai_http_resp *resp, struct rai_err *err)
{
	struct prefetch *pf = prefetch_take(h, req);
	struct rai_http_resp keep;
	int rc = 1;

	if (pf == NULL)
		return 1;
	h->adopted = pf;
	pf->x.req = req;	/* from now on its sink gets the bytes */
	prefetch_flush(pf);
	while (!pf->done && !pf->x.stopped && !pf->x.sink_failed)
		if (prefetch_pump(h, 1000) == -1)
			break;
	if (!pf->done && !pf->x.stopped && !pf->x.sink_failed) {
		if (pf->resp.streamed == 0)
			goto out;	/* the multi broke: ask again */
		pf->code = CURLE_RECV_ERROR;
	}
	if (pf->x.stopped || pf->x.sink_failed)
		pf->code = CURLE_OK;
	log_outcome(&pf->x, pf->code);
	log_timing(pf->curl);
	if (!pf->x.stopped && !pf->x.sink_failed && pf->resp.streamed == 0 &&
	    prefetch_ask_again(h, req, pf))
		goto out;	/* nothing seen yet: the ordinary path decides */
	if (req->on_data == NULL || !status_ok(pf->resp.status))
		rai_http_log_body("Response Body", pf->resp.body.data,
		    pf->resp.body.len);
	keep = *resp;
	*resp = pf->resp;
	pf->resp = keep;
	pf->x.resp = resp;
	if (pf->x.stopped || (!pf->x.sink_failed && pf->code == CURLE_OK &&
	    status_ok(resp->status)))
		rc = 0;
	else {
		memcpy(h->errbuf, pf->errbuf, sizeof(h->errbuf));
		(void)attempt_error(&pf->x, pf->code, err);
		rc = -1;
	}
out:
	h->adopted = NULL;
	prefetch_free(h, pf);
	return rc;
}

/* ---- side streams: several bodies read at once ---- */

/*
 * A side stream is a prefetch whose sink is the caller's from the start,
 * on a multi handle of its own with no cap on connections (each stream
 * holds one for as long as it lasts), moved on by rai_http_streams_wait.
 */
struct rai_http_stream {
	struct prefetch	*pf;
};

int
rai_http_stream_start(struct rai_http *h, const struct rai_http_req *req,
    struct rai_http_stream **out, struct rai_err *err)
{
	struct prefetch *pf;
	char *auth = NULL;

	if (h->smulti == NULL && (h->smulti = curl_multi_init()) == NULL)
		rai_die("out of memory creating a libcurl multi handle");
	if (h->auth != NULL && h->auth(h->auth_ud, &auth, err) == -1)
		return -1;
	pf = prefetch_new(h, req->url, req->accept, auth, err);
	rai_free_secret(auth);
	if (pf == NULL)
		return -1;
	pf->x.req = req;
	curl_easy_setopt(pf->curl, CURLOPT_ACCEPT_ENCODING,
	    accept_encoding(h, req));
	curl_easy_setopt(pf->curl, CURLOPT_TIMEOUT_MS, req->stream_timeout_ms);
	curl_easy_setopt(pf->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(pf->curl, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(pf->curl, CURLOPT_XFERINFODATA, &pf->x);
	if (req->on_data != NULL)
		reset_resp(&pf->resp, ERROR_BODY_MAX);
	log_curl_command(req, pf->hdrs);
	if (curl_multi_add_handle(h->smulti, pf->curl) != CURLM_OK) {
		prefetch_free(h, pf);
		return rai_err_set(err, RAI_E_INTERNAL, "libcurl refused a "
		    "stream of %s", req->url);
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->pf = pf;
	return 0;
}

int
rai_http_streams_wait(struct rai_http *h, long wait_ms,
    struct rai_http_stream *const *streams, size_t n)
{
	CURLMsg *m;
	size_t i;
	int running, left;

	if (h->smulti == NULL)
		return 0;
	if (wait_ms > 0 && curl_multi_poll(h->smulti, NULL, 0,
	    (int)(wait_ms > INT_MAX ? INT_MAX : wait_ms), NULL) != CURLM_OK)
		return -1;
	if (curl_multi_perform(h->smulti, &running) != CURLM_OK)
		return -1;
	while ((m = curl_multi_info_read(h->smulti, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		for (i = 0; i < n; i++)
			if (streams[i] != NULL &&
			    streams[i]->pf->curl == m->easy_handle) {
				streams[i]->pf->done = 1;
				streams[i]->pf->code = m->data.result;
			}
	}
	return 0;
}

int
rai_http_stream_result(struct rai_http *h, struct rai_http_stream *st,
    struct rai_http_resp *resp, struct rai_err *err)
{
	struct prefetch *pf = st->pf;
	struct rai_http_resp keep;

	if (!pf->done && !pf->x.stopped && !pf->x.sink_failed)
		return 1;
	if (pf->x.header_timeout)
		pf->code = CURLE_OPERATION_TIMEDOUT;
	if (pf->x.stopped || pf->x.sink_failed)
		pf->code = CURLE_OK;
	log_outcome(&pf->x, pf->code);
	keep = *resp;
	*resp = pf->resp;
	pf->resp = keep;
	pf->x.resp = resp;
	if (pf->x.stopped || (!pf->x.sink_failed && pf->code == CURLE_OK &&
	    status_ok(resp->status)))
		return 0;
	memcpy(h->errbuf, pf->errbuf, sizeof(h->errbuf));
	(void)attempt_error(&pf->x, pf->code, err);
	return -1;
}

void
rai_http_stream_free(struct rai_http *h, struct rai_http_stream *st)
{
	if (st == NULL)
		return;
	if (h->smulti != NULL)
		curl_multi_remove_handle(h->smulti, st->pf->curl);
	st->pf->x.req = &st->pf->req;	/* the caller's may be gone */
	prefetch_free(h, st->pf);
	free(st);
}

/* ---- raw connections (after an Upgrade) ---- */

struct rai_http_conn {
	CURL		*curl;
	/*
	 * The connection's own multi handle: it drives the connect without
	 * blocking, and keeps the connection for curl_easy_send/recv after.
	 */
	CURLM		*multi;
	char		 errbuf[CURL_ERROR_SIZE];
	int		 fd;
	/* while connecting */
	int		 connected;
	char		*url;		/* as asked, for messages */
	/*
	 * The sockets libcurl waits on (BAD: none), two while it tries
	 * IPv6 and IPv4 at once; the first is polled, the other tested.
	 */
	curl_socket_t	 wait_sock[2];
	int		 wait_what[2];	/* CURL_POLL_IN/OUT/INOUT */
	long		 timer_at;	/* rai_now_ms() libcurl wants a call; -1 */
	long		 deadline;	/* the connect timeout */
	struct curl_slist *connect_to_list;
};

/*
 * A stream's TLS reads what the socket holds, not a record header and
 * then its body: a fifth of the system calls for a long download. Bytes
 * read ahead are invisible to poll(), so readers of a rai_http_conn
 * read until it says "nothing now" before they poll again. Called only
 * by a libcurl built with OpenSSL.
 */
static CURLcode
stream_tls_ctx(CURL *curl, void *ssl_ctx, void *ud)
{
	(void)shared_ca_ctx(curl, ssl_ctx, ud);
	SSL_CTX_set_read_ahead((SSL_CTX *)ssl_ctx, 1);
	SSL_CTX_set_default_read_buffer_len((SSL_CTX *)ssl_ctx,
	    (size_t)64 * 1024);
	return CURLE_OK;
}

static size_t
discard_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	(void)p;
	(void)ud;
	return size * nmemb;
}

/* libcurl says which socket the connect waits on, and for what. */
static int
conn_socket_cb(CURL *easy, curl_socket_t sock, int what, void *ud,
    void *sockp)
{
	struct rai_http_conn *c = ud;

	int i = c->wait_sock[1] == sock ? 1 : 0;

	(void)easy;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		if (c->wait_sock[i] == sock)
			c->wait_sock[i] = CURL_SOCKET_BAD;
		if (c->wait_sock[0] == CURL_SOCKET_BAD) {
			c->wait_sock[0] = c->wait_sock[1];
			c->wait_what[0] = c->wait_what[1];
			c->wait_sock[1] = CURL_SOCKET_BAD;
		}
		return 0;
	}
	if (c->wait_sock[i] != sock && c->wait_sock[0] != CURL_SOCKET_BAD)
		i = 1;
	c->wait_sock[i] = sock;
	c->wait_what[i] = what;
	return 0;
}

static int
conn_timer_cb(CURLM *multi, long timeout_ms, void *ud)
{
	struct rai_http_conn *c = ud;

	(void)multi;
	c->timer_at = timeout_ms < 0 ? -1 : rai_now_ms() + timeout_ms;
	return 0;
}

int
rai_http_connect_start(struct rai_http *h, const char *url,
    struct rai_http_conn **out, struct rai_err *err)
{
	struct rai_http_conn *rc;
	struct curl_slist *connect_to = NULL;
	char *eff = NULL;

	*out = NULL;
	if (target(h, url, &eff, &connect_to, err) == -1)
		return -1;
	rc = xcalloc(1, sizeof(*rc));
	rc->fd = -1;
	rc->wait_sock[0] = rc->wait_sock[1] = CURL_SOCKET_BAD;
	rc->timer_at = -1;
	rc->url = xstrdup(url);
	/* libcurl's connect timeout applies; this only bounds a stuck one */
	rc->deadline = rai_now_ms() + rai_http_request_timeout_ms(h);
	/* a copy keeps TLS, proxy and timeouts; the pool stays for requests */
	rc->curl = copy_handle(h);
	if ((rc->multi = curl_multi_init()) == NULL)
		rai_die("out of memory copying a libcurl handle");
	curl_easy_setopt(rc->curl, CURLOPT_ERRORBUFFER, rc->errbuf);
	curl_easy_setopt(rc->curl, CURLOPT_URL, eff);
	curl_easy_setopt(rc->curl, CURLOPT_CONNECT_TO, connect_to);
	curl_easy_setopt(rc->curl, CURLOPT_CONNECT_ONLY, 1L);
	(void)curl_easy_setopt(rc->curl, CURLOPT_SSL_CTX_FUNCTION,
	    stream_tls_ctx);
	(void)curl_easy_setopt(rc->curl, CURLOPT_SSL_CTX_DATA, h);
	/*
	 * The copy carries the last request's callbacks and their data, a
	 * transfer long gone: a proxy's answer to CONNECT would be handed
	 * to them. Nothing of the tunnel's set-up is wanted.
	 */
	curl_easy_setopt(rc->curl, CURLOPT_HEADERFUNCTION, discard_cb);
	curl_easy_setopt(rc->curl, CURLOPT_HEADERDATA, NULL);
	curl_easy_setopt(rc->curl, CURLOPT_WRITEFUNCTION, discard_cb);
	curl_easy_setopt(rc->curl, CURLOPT_WRITEDATA, NULL);
	/* a plain-http server behind a proxy still needs a tunnel */
	curl_easy_setopt(rc->curl, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(rc->curl, CURLOPT_TIMEOUT_MS, 0L);
	curl_easy_setopt(rc->curl, CURLOPT_VERBOSE,
	    rai_log_enabled(RAI_LOG_CURL) ? 1L : 0L);
	curl_multi_setopt(rc->multi, CURLMOPT_SOCKETFUNCTION, conn_socket_cb);
	curl_multi_setopt(rc->multi, CURLMOPT_SOCKETDATA, rc);
	curl_multi_setopt(rc->multi, CURLMOPT_TIMERFUNCTION, conn_timer_cb);
	curl_multi_setopt(rc->multi, CURLMOPT_TIMERDATA, rc);
	/* the libcurl copy of CONNECT_TO is made at the connect: keep ours */
	rc->connect_to_list = connect_to;
	free(eff);
	if (curl_multi_add_handle(rc->multi, rc->curl) != CURLM_OK)
		rai_die("out of memory starting a connection");
	if (rai_http_conn_connect_step(rc, 0, err) == -1) {
		rai_http_conn_close(rc);
		return -1;
	}
	*out = rc;
	return 0;
}

/* The connect ended (well or not): its result, the socket. */
static int
connect_done(struct rai_http_conn *c, CURLcode code, struct rai_err *err)
{
	curl_socket_t sock = CURL_SOCKET_BAD;

	curl_easy_setopt(c->curl, CURLOPT_CONNECT_TO, NULL);
	curl_slist_free_all(c->connect_to_list);
	c->connect_to_list = NULL;
	if (code == CURLE_OK)
		code = curl_easy_getinfo(c->curl, CURLINFO_ACTIVESOCKET, &sock);
	if (code != CURLE_OK || sock == CURL_SOCKET_BAD) {
		if (code == CURLE_OK)
			code = CURLE_COULDNT_CONNECT;
		if (!proxy_refused(c->curl, code, c->url, err))
			rai_err_from_curl(err, (int)code, c->url, c->errbuf);
		return -1;
	}
	c->fd = (int)sock;
	c->connected = 1;
	return 1;
}

int
rai_http_conn_connect_step(struct rai_http_conn *c, short revents,
    struct rai_err *err)
{
	curl_socket_t sock = c->wait_sock[0], other = c->wait_sock[1];
	int running = 0, flags = 0, left;
	CURLMsg *msg;

	if (c->connected)
		return 1;
	if (sock != CURL_SOCKET_BAD && revents != 0) {
		if (revents & (POLLIN | POLLHUP))
			flags |= CURL_CSELECT_IN;
		if (revents & POLLOUT)
			flags |= CURL_CSELECT_OUT;
		if (revents & POLLERR)
			flags |= CURL_CSELECT_ERR;
		(void)curl_multi_socket_action(c->multi, sock, flags, &running);
	}
	/* the socket not polled: libcurl looks at it itself (no flags) */
	if (other != CURL_SOCKET_BAD && other == c->wait_sock[1])
		(void)curl_multi_socket_action(c->multi, other, 0, &running);
	if (c->timer_at != -1 && rai_now_ms() >= c->timer_at) {
		c->timer_at = -1;
		(void)curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0,
		    &running);
	}
	while ((msg = curl_multi_info_read(c->multi, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			return connect_done(c, msg->data.result, err);
	if (rai_now_ms() >= c->deadline) {
		rai_err_set(err, RAI_E_NET, "connecting to %s timed out",
		    c->url);
		return -1;
	}
	return 0;
}

/* How often a second socket (not polled) is looked at. */
#define OTHER_SOCKET_MS	20L

void
rai_http_conn_connect_wait(const struct rai_http_conn *c,
    struct pollfd *p, long *wake_at)
{
	p->fd = c->connected || c->wait_sock[0] == CURL_SOCKET_BAD ? -1 :
	    (int)c->wait_sock[0];
	p->events = 0;
	if (c->wait_what[0] & CURL_POLL_IN)
		p->events |= POLLIN;
	if (c->wait_what[0] & CURL_POLL_OUT)
		p->events |= POLLOUT;
	p->revents = 0;
	*wake_at = c->deadline;
	if (c->timer_at != -1 && c->timer_at < *wake_at)
		*wake_at = c->timer_at;
	if (c->wait_sock[1] != CURL_SOCKET_BAD &&
	    rai_now_ms() + OTHER_SOCKET_MS < *wake_at)
		*wake_at = rai_now_ms() + OTHER_SOCKET_MS;
}

int
rai_http_connect(struct rai_http *h, const char *url,
    struct rai_http_conn **out, struct rai_err *err)
{
	struct pollfd p;
	short revents = 0;
	long wake_at, left;
	int rc;

	if (rai_http_connect_start(h, url, out, err) == -1)
		return -1;
	while ((rc = rai_http_conn_connect_step(*out, revents, err)) == 0) {
		rai_http_conn_connect_wait(*out, &p, &wake_at);
		left = wake_at - rai_now_ms();
		if (left < 0)
			left = 0;
		if (poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left) == -1 &&
		    errno != EINTR) {
			rc = rai_err_errno(err, errno, "waiting for the "
			    "connection");
			break;
		}
		revents = p.fd == -1 ? 0 : p.revents;
	}
	if (rc == 1)
		return 0;
	rai_http_conn_close(*out);
	*out = NULL;
	return -1;
}

static int
conn_error(struct rai_http_conn *c, CURLcode code, const char *what,
    struct rai_err *err)
{
	rai_err_set(err, RAI_E_NET, "%s the connection failed: %s (curl %d)",
	    what, c->errbuf[0] ? c->errbuf : curl_easy_strerror(code),
	    (int)code);
	err->curl_code = (int)code;
	return -1;
}

int
rai_http_conn_send(struct rai_http_conn *c, const void *data, size_t len,
    size_t *n, struct rai_err *err)
{
	CURLcode code;

	*n = 0;
	c->errbuf[0] = '\0';
	code = curl_easy_send(c->curl, data, len, n);
	if (code == CURLE_AGAIN) {
		*n = 0;
		return 0;
	}
	if (code != CURLE_OK)
		return conn_error(c, code, "writing to", err);
	return 0;
}

int
rai_http_conn_recv(struct rai_http_conn *c, void *data, size_t len,
    size_t *n, struct rai_err *err)
{
	CURLcode code;

	*n = 0;
	c->errbuf[0] = '\0';
	code = curl_easy_recv(c->curl, data, len, n);
	if (code == CURLE_AGAIN) {
		*n = 0;
		return 0;
	}
	if (code != CURLE_OK)
		return conn_error(c, code, "reading from", err);
	return *n == 0 ? 1 : 0;
}

int
rai_http_conn_fd(const struct rai_http_conn *c)
{
	return c->fd;
}

void
rai_http_conn_close(struct rai_http_conn *c)
{
	if (c == NULL)
		return;
	if (c->multi != NULL && c->curl != NULL)
		(void)curl_multi_remove_handle(c->multi, c->curl);
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	if (c->multi != NULL)
		curl_multi_cleanup(c->multi);
	curl_slist_free_all(c->connect_to_list);
	free(c->url);
	free(c);
}

int
rai_http_authorization(struct rai_http *h, char **out, struct rai_err *err)
{
	*out = NULL;
	if (h->auth == NULL)
		return 0;
	return h->auth(h->auth_ud, out, err);
}

int
rai_http_renew(struct rai_http *h)
{
	return h->renew != NULL && h->renew(h->auth_ud);
}

const char *
rai_http_user_agent(const struct rai_http *h)
{
	return h->user_agent;
}
