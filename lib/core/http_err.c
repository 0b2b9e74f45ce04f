/*
 * An HTTP error answer as a rai_err. The body is always read: a
 * Kubernetes Status is the most useful thing a server says, and
 * throwing it away (as the official C client does) leaves users with
 * bare status codes. Any other body is shown as a short, sanitised
 * excerpt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http_err.h"
#include "core/json.h"

#include "core/banned.h"

#define BODY_EXCERPT	200

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
	/* a message of blanks says nothing: the status phrase instead */
	if (err->message != NULL && err->message[0] == '\0') {
		free(err->message);
		err->message = NULL;
	}
	details = rai_json_get(root, "details");
	if (details != NULL) {
		err->kind_name = dup_or_null(rai_json_str(details, "kind"));
		err->obj_name = dup_or_null(rai_json_str(details, "name"));
		if (rai_json_num(details, "retryAfterSeconds", 0) > 0)
			err->retry_after =
			    (int)rai_json_long(details, "retryAfterSeconds", 0, 0,
			    86400);
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
