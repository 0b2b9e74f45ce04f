/*
 * The Run:ai control-plane client: base URL and bearer credentials on
 * top of rai_http. Everything about transport lives there; this file
 * only knows the backend's paths and answer shapes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "kube/auth.h"
#include "runai/backend.h"

#include "core/banned.h"

#define VERSION_MAX	64	/* a longer "version" is not one */

struct backend {
	struct rai_http		*http;
	char			*url;		/* no trailing '/' */
	struct kube_auth	*auth;		/* borrowed */
	char			*id_token;	/* secret */
};

#define CAUSES_MAX	32	/* policy violations kept from one answer */

static int
backend_auth(void *ud, char **out, struct rai_err *err)
{
	struct backend *b = ud;

	if (b->auth != NULL)
		return kube_auth_header(b->auth, out, err);
	*out = b->id_token != NULL ? xasprintf("Bearer %s", b->id_token) :
	    NULL;
	return 0;
}

static int
backend_renew(void *ud)
{
	struct backend *b = ud;

	if (b->auth == NULL)
		return 0;
	kube_auth_invalidate(b->auth);
	return 1;
}

static char *
base_url(const char *url)
{
	char *u = xstrdup(url);
	size_t n = strlen(u);

	while (n > 0 && u[n - 1] == '/')
		u[--n] = '\0';
	return u;
}

int
backend_new(struct backend **out, const struct backend_opts *o,
    struct rai_err *err)
{
	struct rai_http_opts ho;
	struct backend *b;
	const char *url = o->url;

	if (url == NULL || *url == '\0')
		url = getenv("RUNAI_BACKEND_URL");
	if (url == NULL || *url == '\0') {
		rai_err_set(err, RAI_E_CONFIG, "no Run:ai backend URL is "
		    "configured");
		rai_err_set_hint(err, "set RUNAI_BACKEND_URL to the control "
		    "plane's address");
		return -1;
	}
	if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
		return rai_err_set(err, RAI_E_CONFIG, "backend URL '%s' is not "
		    "an http:// or https:// URL", url);
	b = xcalloc(1, sizeof(*b));
	b->url = base_url(url);
	b->auth = o->auth;
	if (o->id_token != NULL)
		b->id_token = xstrdup(o->id_token);
	memset(&ho, 0, sizeof(ho));
	ho.ca = o->ca;
	ho.ca_len = o->ca_len;
	ho.insecure = o->insecure;
	ho.proxy = o->proxy;
	ho.connect_timeout_ms = o->connect_timeout_ms;
	ho.request_timeout_ms = o->request_timeout_ms;
	ho.max_retries = o->max_retries;
	ho.max_response = o->max_response;
	ho.user_agent = o->user_agent;
	ho.auth = backend_auth;
	ho.renew = backend_renew;
	ho.auth_ud = b;
	if (o->auth_fn != NULL) {
		ho.auth = o->auth_fn;
		ho.renew = o->renew_fn;
		ho.auth_ud = o->auth_ud;
	}
	if (rai_http_new(&b->http, &ho, err) == -1) {
		backend_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

void
backend_free(struct backend *b)
{
	if (b == NULL)
		return;
	rai_http_free(b->http);
	rai_free_secret(b->id_token);
	free(b->url);
	free(b);
}

const char *
backend_url(const struct backend *b)
{
	return b->url;
}

static int
backend_get(struct backend *b, const char *path, struct rai_http_resp *resp,
    char **urlp, struct rai_err *err)
{
	struct rai_http_req req;

	memset(&req, 0, sizeof(req));
	*urlp = xasprintf("%s%s", b->url, path);
	req.method = "GET";
	req.url = *urlp;
	req.flags = RAI_HTTP_IDEMPOTENT;
	return rai_http_do(b->http, &req, resp, err);
}

int
backend_get_json(struct backend *b, const char *path, cJSON **out,
    struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	char *url = NULL, *what = NULL;
	int rc = -1;

	if (backend_get(b, path, &resp, &url, err) == -1)
		goto out;
	what = xasprintf("response from GET %s", url);
	rc = rai_json_parse(resp.body.data, resp.body.len, what, out, err);
out:
	rai_http_resp_release(&resp);
	free(what);
	free(url);
	return rc;
}

/* complianceIssues[] → err->causes (field, details). */
static void
envelope_causes(const cJSON *issues, struct rai_err *err)
{
	const cJSON *it;
	size_t n = 0;

	if (!cJSON_IsArray(issues))
		return;
	err->causes = xcalloc(CAUSES_MAX, sizeof(*err->causes));
	cJSON_ArrayForEach(it, issues) {
		if (n == CAUSES_MAX)
			break;
		err->causes[n].field = xstrdup(rai_json_str_or(it, "field",
		    ""));
		err->causes[n].message = xstrdup(rai_json_str_or(it, "details",
		    ""));
		err->causes[n].reason = xstrdup(rai_json_str_or(it, "rule",
		    ""));
		n++;
	}
	err->ncauses = n;
}

/*
 * The control plane's error envelope {code, message, details?,
 * complianceIssues?} replaces the generic words of a non-2xx answer;
 * any other body keeps what rai_err_from_http made of it.
 */
static void
envelope_error(const struct rai_http_resp *resp, struct rai_err *err)
{
	cJSON *root;
	const char *msg, *details;

	if (resp->status < 400 || resp->body.len == 0 ||
	    (root = cJSON_ParseWithLength(resp->body.data, resp->body.len)) ==
	    NULL)
		return;
	msg = rai_json_str(root, "message");
	details = rai_json_str(root, "details");
	if (msg != NULL && *msg != '\0') {
		free(err->message);
		err->message = details != NULL && *details != '\0' ?
		    xasprintf("%s: %s", msg, details) : xstrdup(msg);
		envelope_causes(rai_json_child(root, "complianceIssues"), err);
	}
	cJSON_Delete(root);
}

int
backend_call(struct backend *b, const char *method, const char *path,
    const cJSON *body, long *status, cJSON **out, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct rai_http_req req;
	char *url = xasprintf("%s%s", b->url, path), *text = NULL, *what;
	int rc = -1;

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.url = url;
	/* reads may be repeated; a create or an action only where the
	 * server says it did not act (the transport's default) */
	req.flags = strcmp(method, "GET") == 0 ? RAI_HTTP_IDEMPOTENT : 0;
	if (body != NULL) {
		text = rai_json_print(body);
		req.body = text;
		req.body_len = strlen(text);
		req.content_type = "application/json";
	}
	*out = NULL;
	if (rai_http_do(b->http, &req, &resp, err) == -1) {
		envelope_error(&resp, err);
		goto done;
	}
	*status = resp.status;
	rc = 0;
	if (resp.body.len > 0) {
		what = xasprintf("response from %s %s", method, url);
		rc = rai_json_parse(resp.body.data, resp.body.len, what, out,
		    err);
		free(what);
	}
done:
	rai_http_resp_release(&resp);
	rai_free_secret(text);	/* a token request's body holds secrets */
	free(url);
	return rc;
}

/* A version is short and printable; anything else is not an answer. */
static int
version_text(const char *s, size_t len, char **out)
{
	size_t i;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0 || len > VERSION_MAX)
		return -1;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]))
			return -1;
	*out = xstrndup(s, len);
	return 0;
}

/* {"version": "x"}, {"data": {"version": "x"}}, "x", or plain text x. */
static int
parse_version(const struct rai_http_resp *resp, char **out)
{
	const char *s = rai_buf_str(&resp->body);
	const char *v = NULL;
	cJSON *root;
	size_t i = 0;
	int rc = -1;

	while (i < resp->body.len && isspace((unsigned char)s[i]))
		i++;
	/* a bare "0.1.11" would parse as the JSON number 0.1 */
	if (i == resp->body.len || (s[i] != '{' && s[i] != '"'))
		return version_text(s, resp->body.len, out);
	if ((root = cJSON_ParseWithLength(s, resp->body.len)) == NULL)
		return -1;
	if (cJSON_IsString(root))
		v = cJSON_GetStringValue(root);
	else if ((v = rai_json_str(root, "version")) == NULL)
		v = rai_json_str(root, "data.version");
	if (v != NULL)
		rc = version_text(v, strlen(v), out);
	cJSON_Delete(root);
	return rc;
}

int
backend_version(struct backend *b, char **version, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	char *url = NULL;
	int rc = -1;

	if (backend_get(b, "/api/v1/version", &resp, &url, err) == -1)
		goto out;
	if (parse_version(&resp, version) == -1) {
		rai_err_set(err, RAI_E_PROTO, "response from GET %s: expected "
		    "a version, got %zu bytes of something else", url,
		    resp.body.len);
		goto out;
	}
	rc = 0;
out:
	rai_http_resp_release(&resp);
	free(url);
	return rc;
}
