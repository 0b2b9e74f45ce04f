/*
 * The error value. Setters own their strings; rai_err_release frees
 * them. rai_err_from_http always reads the body: a Kubernetes Status is
 * the most useful thing a server says, and throwing it away (as the
 * official C client does) leaves users with bare status codes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"

#include "core/banned.h"

#define BODY_EXCERPT	200

void
rai_err_release(struct rai_err *err)
{
	size_t i;

	if (err == NULL)
		return;
	free(err->message);
	free(err->hint);
	free(err->kind_name);
	free(err->obj_name);
	for (i = 0; i < err->ncauses; i++) {
		free(err->causes[i].field);
		free(err->causes[i].reason);
		free(err->causes[i].message);
	}
	free(err->causes);
	memset(err, 0, sizeof(*err));
}

void
rai_err_move(struct rai_err *dst, struct rai_err *src)
{
	if (dst == src)
		return;
	rai_err_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

static int
err_vset(struct rai_err *err, enum rai_err_kind kind, const char *fmt,
    va_list ap)
{
	rai_err_release(err);
	err->kind = kind;
	err->message = xvasprintf(fmt, ap);
	return -1;
}

int
rai_err_set(struct rai_err *err, enum rai_err_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	err_vset(err, kind, fmt, ap);
	va_end(ap);
	return -1;
}

int
rai_err_errno(struct rai_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	char *what;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	rai_err_set(err, RAI_E_IO, "%s: %s", what, strerror(errnum));
	err->sys_errno = errnum;
	free(what);
	return -1;
}

static int
curl_is_tls_error(int code)
{
	switch (code) {
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
		return 1;
	}
	return 0;
}

int
rai_err_from_curl(struct rai_err *err, int code, const char *url,
    const char *errbuf)
{
	const char *detail;

	if (err == NULL)
		return -1;
	detail = (errbuf != NULL && errbuf[0] != '\0') ? errbuf :
	    curl_easy_strerror((CURLcode)code);
	if (code == CURLE_OPERATION_TIMEDOUT)
		rai_err_set(err, RAI_E_NET, "request to '%s' timed out: %s",
		    url, detail);
	else if (curl_is_tls_error(code)) {
		rai_err_set(err, RAI_E_NET,
		    "TLS connection to '%s' failed: %s (curl %d)", url, detail,
		    code);
		rai_err_set_hint(err, "check the cluster's certificate-authority "
		    "in the kubeconfig (or --kubeconfig/--context)");
	} else
		rai_err_set(err, RAI_E_NET, "cannot connect to '%s': %s (curl %d)",
		    url, detail, code);
	err->curl_code = code;
	return -1;
}

static const char *
http_reason_phrase(long status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 413: return "Request Entity Too Large";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	return "Unknown Status";
}

/* Reason words kube-apiserver would use, for bodies without a Status. */
static const char *
http_reason_word(long status)
{
	switch (status) {
	case 400: return "BadRequest";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "NotFound";
	case 405: return "MethodNotAllowed";
	case 406: return "NotAcceptable";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 413: return "RequestEntityTooLarge";
	case 415: return "UnsupportedMediaType";
	case 422: return "Invalid";
	case 429: return "TooManyRequests";
	case 500: return "InternalError";
	case 503: return "ServiceUnavailable";
	case 504: return "Timeout";
	}
	return "";
}

/* A printable one-line excerpt: control characters become '?'. */
static char *
body_excerpt(const char *body, size_t len)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i, n = len < BODY_EXCERPT ? len : BODY_EXCERPT;
	int space = 0;

	/* cppcheck-suppress knownConditionTrueFalse ; it assumes len == 0 from one caller */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)body[i];

		if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
			space = 1;
			continue;
		}
		if (space && b.len > 0)
			rai_buf_addch(&b, ' ');
		space = 0;
		rai_buf_addch(&b, (c < 0x20 || c == 0x7f) ? '?' : c);
	}
	/* cppcheck-suppress knownConditionTrueFalse ; as above */
	if (len > n)
		rai_buf_addstr(&b, "...");
	return rai_buf_detach(&b, NULL);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
status_causes(struct rai_err *err, const cJSON *details)
{
	const cJSON *causes = rai_json_array(details, "causes");
	const cJSON *c;
	size_t n = 0;

	if (causes == NULL)
		return;
	err->causes = xcalloc((size_t)cJSON_GetArraySize(causes),
	    sizeof(*err->causes));
	cJSON_ArrayForEach(c, causes) {
		err->causes[n].field = dup_or_null(rai_json_str(c, "field"));
		err->causes[n].reason = dup_or_null(rai_json_str(c, "reason"));
		err->causes[n].message = dup_or_null(rai_json_str(c, "message"));
		n++;
	}
	err->ncauses = n;
}

/* Fills err from a Status object; 0 if it was one, -1 if not. */
static int
status_parse(struct rai_err *err, const char *body, size_t len)
{
	cJSON *root;
	const char *kind, *reason, *message;
	const cJSON *details;

	root = cJSON_ParseWithLength(body, len);
	if (root == NULL)
		return -1;
	kind = rai_json_str(root, "kind");
	if (kind == NULL || strcmp(kind, "Status") != 0) {
		cJSON_Delete(root);
		return -1;
	}
	reason = rai_json_str(root, "reason");
	message = rai_json_str(root, "message");
	if (reason != NULL)
		snprintf(err->reason, sizeof(err->reason), "%s", reason);
	if (message != NULL && message[0] != '\0')
		err->message = body_excerpt(message, strlen(message));
	details = rai_json_get(root, "details");
	if (details != NULL) {
		err->kind_name = dup_or_null(rai_json_str(details, "kind"));
		err->obj_name = dup_or_null(rai_json_str(details, "name"));
		if (rai_json_num(details, "retryAfterSeconds", 0) > 0)
			err->retry_after =
			    (int)rai_json_num(details, "retryAfterSeconds", 0);
		status_causes(err, details);
	}
	cJSON_Delete(root);
	return 0;
}

int
rai_err_from_http(struct rai_err *err, long status, const char *ctype,
    const char *body, size_t len, int retry_after)
{
	if (err == NULL)
		return -1;
	rai_err_release(err);
	err->kind = RAI_E_HTTP;
	err->http_status = status;
	err->retry_after = retry_after;
	if (body != NULL && len > 0 && status_parse(err, body, len) == 0) {
		if (err->reason[0] == '\0')
			snprintf(err->reason, sizeof(err->reason), "%s",
			    http_reason_word(status));
		if (err->message == NULL)
			err->message = xasprintf("%ld %s", status,
			    http_reason_phrase(status));
		return -1;
	}
	snprintf(err->reason, sizeof(err->reason), "%s",
	    http_reason_word(status));
	if (body != NULL && len > 0) {
		char *excerpt = body_excerpt(body, len);

		err->message = xasprintf("%ld %s: %s", status,
		    http_reason_phrase(status), excerpt);
		free(excerpt);
	} else
		err->message = xasprintf("%ld %s", status,
		    http_reason_phrase(status));
	(void)ctype;
	return -1;
}

void
rai_err_prefix(struct rai_err *err, const char *fmt, ...)
{
	va_list ap;
	char *prefix, *msg;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	prefix = xvasprintf(fmt, ap);
	va_end(ap);
	msg = xasprintf("%s: %s", prefix, err->message ? err->message : "");
	free(prefix);
	free(err->message);
	err->message = msg;
}

void
rai_err_set_hint(struct rai_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	free(err->hint);
	va_start(ap, fmt);
	err->hint = xvasprintf(fmt, ap);
	va_end(ap);
}

void
rai_err_print(const struct rai_err *err, FILE *fp, const char *progname)
{
	const char *msg = err->message ? err->message : "unknown error";

	if (err->kind == RAI_E_HTTP && err->reason[0] != '\0')
		fprintf(fp, "%s: error from server (%s): %s\n", progname,
		    err->reason, msg);
	else if (err->kind == RAI_E_HTTP)
		fprintf(fp, "%s: error from server: %s\n", progname, msg);
	else
		fprintf(fp, "%s: error: %s\n", progname, msg);
	if (err->hint != NULL)
		fprintf(fp, "hint: %s\n", err->hint);
}

int
rai_err_exit_code(const struct rai_err *err)
{
	if (err->kind == RAI_OK)
		return 0;
	if (err->kind == RAI_E_USAGE)
		return 2;
	return 1;
}

const char *
rai_err_kind_name(enum rai_err_kind kind)
{
	switch (kind) {
	case RAI_OK: return "ok";
	case RAI_E_USAGE: return "usage";
	case RAI_E_CONFIG: return "config";
	case RAI_E_AUTH: return "auth";
	case RAI_E_NET: return "net";
	case RAI_E_HTTP: return "http";
	case RAI_E_PROTO: return "proto";
	case RAI_E_SSH: return "ssh";
	case RAI_E_IO: return "io";
	case RAI_E_NOTFOUND: return "notfound";
	case RAI_E_NOMEM: return "nomem";
	case RAI_E_INTERNAL: return "internal";
	}
	return "unknown";
}
