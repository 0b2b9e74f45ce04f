/*
 * The error value. Setters own their strings; rai_err_release frees
 * them. Turning an HTTP answer into one is core/http_err.c's work.
 */
/* the definitions of the setters; see err.h */
#define RAI_ERR_IMPL

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
#include "core/text.h"

#include "core/banned.h"

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

/*
 * A message and a reason are often the server's words (a Kubernetes
 * Status, a provider's error_description), and hints quote names it
 * sent: all of it is shown cleaned, one line each.
 */
void
rai_err_print(const struct rai_err *err, FILE *fp, const char *progname)
{
	char *msg = rai_text_sanitize(err->message ? err->message :
	    "unknown error");
	char *reason = rai_text_sanitize(err->reason);

	if (err->kind == RAI_E_HTTP && reason[0] != '\0')
		fprintf(fp, "%s: error from server (%s): %s\n", progname,
		    reason, msg);
	else if (err->kind == RAI_E_HTTP)
		fprintf(fp, "%s: error from server: %s\n", progname, msg);
	else
		fprintf(fp, "%s: error: %s\n", progname, msg);
	free(msg);
	free(reason);
	if (err->hint != NULL) {
		msg = rai_text_sanitize(err->hint);
		fprintf(fp, "hint: %s\n", msg);
		free(msg);
	}
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
