/*
 * The handle and the ordinary request path: one libcurl easy handle
 * reused for keep-alive, made with its TLS material and limits, every
 * option that matters set per request (a reused handle keeps whatever
 * the last request left), and rai_http_do's retry loop. On top of the
 * other files of the transport: a request takes the answer of one sent
 * ahead (http_prefetch.c) before it goes out itself.
 */
#include <ctype.h>
#include <errno.h>
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
#include "core/http_handle.h"
#include "core/http_log.h"
#include "core/http_prefetch.h"
#include "core/http_xfer.h"
#include "core/log.h"
#include "core/time.h"
#include "core/tls_ca.h"

#include "core/banned.h"

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
			    http_shared_ca_ctx);
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

/*
 * libcurl's global set-up (OpenSSL's with it: its configuration file,
 * its providers) on the first handle, not at start: a command that
 * sends no request (version, help, config) does not pay for it, a sixth
 * of what "runai version" cost. Single-threaded, as every caller is
 * when it makes its first handle.
 */
static void
http_global_init(void)
{
	static int done;

	if (!done) {
		(void)curl_global_init(CURL_GLOBAL_DEFAULT);
		done = 1;
	}
}

int
rai_http_new(struct rai_http **out, const struct rai_http_opts *o,
    struct rai_err *err)
{
	struct rai_http *h;
	char *ua;
	CURL *c;

	http_global_init();
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
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, http_debug_cb);
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
	http_prefetch_free_all(h);
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

/* ---- one attempt ---- */

static void
set_transfer(struct rai_http *h, struct xfer *x, struct curl_slist *hdrs)
{
	CURL *c = h->curl;
	int stream = x->req->on_data != NULL;

	http_set_method(c, x->req);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING,
	    http_accept_encoding(h, x->req));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, stream ?
	    x->req->stream_timeout_ms : h->request_timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, stream ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, http_progress_cb);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(c, CURLOPT_VERBOSE,
	    rai_log_enabled(RAI_LOG_HDRS) ? 1L : 0L);
	h->errbuf[0] = '\0';
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
	http_reset_resp(resp, max);
	if (h->auth != NULL && h->auth(h->auth_ud, &auth, err) == -1)
		return -1;
	if (http_target(h, req->url, &eff, &connect_to, err) == -1)
		goto out;
	hdrs = http_request_headers(req, auth);
	curl_easy_setopt(h->curl, CURLOPT_URL, eff);
	curl_easy_setopt(h->curl, CURLOPT_CONNECT_TO, connect_to);
	set_transfer(h, &x, hdrs);
	http_log_curl_command(req, hdrs);
	if (req->body != NULL)
		rai_http_log_body("Request Body", req->body, req->body_len);
	clock_gettime(CLOCK_MONOTONIC, &x.start);
	*code = curl_easy_perform(h->curl);
	/* our own time limit on a stream's start counts as a timeout */
	if (x.header_timeout)
		*code = CURLE_OPERATION_TIMEDOUT;
	http_log_outcome(&x, *code);
	http_log_timing(h->curl);
	http_note_wait(h, h->curl);
	rai_http_log_body("Response Body", resp->body.data, resp->body.len);
	if (x.stopped || (*code == CURLE_OK && http_status_ok(resp->status))) {
		rc = 0;
		goto out;
	}
	*final = http_attempt_error(&x, *code, err);
out:
	/* the handle must not keep pointers into this frame */
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h->curl, CURLOPT_CONNECT_TO, NULL);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, NULL);
	http_slist_free_secret(hdrs);
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
	if ((rc = http_prefetch_adopt(h, req, resp, err)) != 1)
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
