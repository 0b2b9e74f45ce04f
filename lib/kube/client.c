/*
 * The Kubernetes API over rai_http: the resource types, paths with
 * escaping, the client itself (its rai_http, credentials and whether
 * to ask for compression), JSON requests, get, the writes (create,
 * update, patch, delete) and the discovery probes. Everything the
 * server says on failure ends up in rai_err.
 *
 * Lists are in client_list.c and streamed GETs (watches, raw streams)
 * in client_stream.c; they build on what this file shares through
 * kube/client_int.h and nothing here calls them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "core/url.h"
#include "kube/auth.h"
#include "kube/client.h"
#include "kube/client_int.h"
#include "kube/config.h"

#include "core/banned.h"

const struct kube_res KUBE_RES_NAMESPACES = { "", "v1", "namespaces", 0 };
const struct kube_res KUBE_RES_NODES = { "", "v1", "nodes", 0 };
const struct kube_res KUBE_RES_PODS = { "", "v1", "pods", 1 };
const struct kube_res KUBE_RES_CONFIGMAPS = { "", "v1", "configmaps", 1 };
const struct kube_res KUBE_RES_SECRETS = { "", "v1", "secrets", 1 };
const struct kube_res KUBE_RES_SERVICES = { "", "v1", "services", 1 };
const struct kube_res KUBE_RES_EVENTS = { "", "v1", "events", 1 };
const struct kube_res KUBE_RES_PVCS = { "", "v1", "persistentvolumeclaims", 1 };
const struct kube_res KUBE_RES_JOBS = { "batch", "v1", "jobs", 1 };
const struct kube_res KUBE_RES_DEPLOYMENTS = { "apps", "v1", "deployments", 1 };
const struct kube_res KUBE_RES_STATEFULSETS = { "apps", "v1", "statefulsets",
    1 };
const struct kube_res KUBE_RES_RUNAIJOBS = { "run.ai", "v1", "runaijobs", 1 };
const struct kube_res KUBE_RES_INGRESSES = { "networking.k8s.io", "v1",
    "ingresses", 1 };
const struct kube_res KUBE_RES_PROJECTS = { "run.ai", "v1", "projects", 0 };
const struct kube_res KUBE_RES_SSAR = { "authorization.k8s.io", "v1",
    "selfsubjectaccessreviews", 0 };

/* ---- paths ---- */

static int
unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

/* RFC 3986: everything outside the unreserved set is percent-encoded. */
static void
add_escaped(struct rai_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (unreserved(*p)) {
			rai_buf_addch(b, *p);
			continue;
		}
		rai_buf_addch(b, '%');
		rai_buf_addch(b, hex[*p >> 4]);
		rai_buf_addch(b, hex[*p & 15]);
	}
}

static void
add_segment(struct rai_buf *b, const char *s)
{
	rai_buf_addch(b, '/');
	/* "." and ".." would be taken as dot-segments by URL normalisers */
	if (strcmp(s, ".") == 0)
		rai_buf_addstr(b, "%2E");
	else if (strcmp(s, "..") == 0)
		rai_buf_addstr(b, "%2E%2E");
	else
		add_escaped(b, s);
}

int
client_nonempty(const char *s)
{
	return s != NULL && *s != '\0';
}

static void
group_version_path(struct rai_buf *b, const char *group, const char *version)
{
	if (!client_nonempty(group))
		rai_buf_addstr(b, "/api");
	else {
		rai_buf_addstr(b, "/apis");
		add_segment(b, group);
	}
	add_segment(b, version);
}

char *
kube_path(const struct kube_res *res, const char *ns, const char *name,
    const char *subresource)
{
	struct rai_buf b = RAI_BUF_INIT;

	group_version_path(&b, res->group, res->version);
	if (res->namespaced && client_nonempty(ns)) {
		add_segment(&b, "namespaces");
		add_segment(&b, ns);
	}
	add_segment(&b, res->plural);
	if (client_nonempty(name)) {
		add_segment(&b, name);
		if (client_nonempty(subresource))
			add_segment(&b, subresource);
	}
	return rai_buf_detach(&b, NULL);
}

void
kube_path_query(struct rai_buf *b, const char *key, const char *value)
{
	if (!client_nonempty(value))
		return;
	rai_buf_addch(b, strchr(rai_buf_str(b), '?') != NULL ? '&' : '?');
	add_escaped(b, key);
	rai_buf_addch(b, '=');
	add_escaped(b, value);
}

void
client_path_query_long(struct rai_buf *b, const char *key, long value)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", value);
	kube_path_query(b, key, num);
}

/* ---- client ---- */

static int
client_auth(void *ud, char **out, struct rai_err *err)
{
	struct kube_client *c = ud;

	return kube_auth_header(c->auth, out, err);
}

/* Only credentials that can come out different next time are renewed. */
static int
client_renew(void *ud)
{
	struct kube_client *c = ud;

	switch (c->conn->auth) {
	case KUBE_AUTH_TOKEN_FILE:
	case KUBE_AUTH_EXEC:
	case KUBE_AUTH_OIDC:
		kube_auth_invalidate(c->auth);
		return 1;
	default:
		return 0;
	}
}

/*
 * Whether to ask for answers uncompressed. kubectl asks for gzip unless
 * the cluster says disable-compression; runai also leaves it out when
 * the server is on this machine (kind, k3s, kubectl proxy, a tunnel):
 * over loopback there is no bandwidth to save, and for a list of 1,000
 * jobs the server's deflate and our inflate take longer than sending
 * the 20 times larger body. Kubernetes keeps compression off between
 * its own control-plane components for the same reason. Through a proxy
 * (proxy-url, or https_proxy and its kin) the path may be long again,
 * and 127.0.0.1 is the proxy's own machine: compression stays on there.
 */
static int
wants_identity(const struct kube_conn *conn)
{
	if (conn->disable_compression)
		return 1;
	if (rai_http_proxy_may_apply(conn->proxy_url) ||
	    !rai_url_is_local(conn->server))
		return 0;
	rai_log(RAI_LOG_HDRS, "%s is on this machine: answers are asked "
	    "for uncompressed", conn->server);
	return 1;
}

int
kube_client_new(struct kube_client **out, const struct kube_conn *conn,
    const struct kube_client_opts *opts, struct rai_err *err)
{
	struct rai_http_opts ho;
	struct kube_client *c;
	size_t n;

	if (!client_nonempty(conn->server))
		return rai_err_set(err, RAI_E_CONFIG, "no server is set for "
		    "context '%s'", conn->context ? conn->context : "");
	memset(&ho, 0, sizeof(ho));
	c = xcalloc(1, sizeof(*c));
	c->conn = conn;
	c->server = xstrdup(conn->server);
	n = strlen(c->server);
	while (n > 0 && c->server[n - 1] == '/')
		c->server[--n] = '\0';
	c->auth = kube_auth_new(conn);
	ho.ca = conn->ca.data;
	ho.ca_len = conn->ca.len;
	ho.cert = conn->cert.data;
	ho.cert_len = conn->cert.len;
	ho.key = conn->key.data;
	ho.key_len = conn->key.len;
	ho.insecure = conn->insecure;
	ho.tls_server_name = conn->tls_server_name;
	ho.proxy = conn->proxy_url;
	ho.no_compression = wants_identity(conn);
	ho.max_retries = -1;
	if (opts != NULL) {
		ho.connect_timeout_ms = opts->connect_timeout_ms;
		ho.request_timeout_ms = opts->request_timeout_ms;
		ho.max_retries = opts->max_retries;
		ho.max_response = opts->max_response;
		ho.user_agent = opts->user_agent;
	}
	ho.auth = client_auth;
	ho.renew = client_renew;
	ho.auth_ud = c;
	if (rai_http_new(&c->http, &ho, err) == -1) {
		kube_client_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
kube_client_free(struct kube_client *c)
{
	if (c == NULL)
		return;
	rai_http_free(c->http);
	kube_auth_free(c->auth);
	free(c->server);
	free(c);
}

const struct kube_conn *
kube_client_conn(const struct kube_client *c)
{
	return c->conn;
}

void
kube_resp_release(struct kube_resp *r)
{
	free(r->content_type);
	r->content_type = NULL;
	rai_buf_release(&r->body);
	r->status = 0;
}

static unsigned
http_flags(unsigned flags)
{
	unsigned f = 0;

	if (flags & KUBE_REQ_IDEMPOTENT)
		f |= RAI_HTTP_IDEMPOTENT;
	if (flags & KUBE_REQ_NO_RETRY)
		f |= RAI_HTTP_NO_RETRY;
	return f;
}

char *
client_url_of(const struct kube_client *c, const char *path)
{
	return xasprintf("%s%s", c->server, path);
}

char *
kube_client_url(const struct kube_client *c, const char *path)
{
	return client_url_of(c, path);
}

struct rai_http *
kube_client_http(struct kube_client *c)
{
	return c->http;
}

int
kube_client_do(struct kube_client *c, const struct kube_req *req,
    struct kube_resp *resp, struct rai_err *err)
{
	struct rai_http_req hr;
	struct rai_http_resp hresp = RAI_HTTP_RESP_INIT;
	char *url = client_url_of(c, req->path);
	int rc;

	memset(&hr, 0, sizeof(hr));
	hr.method = req->method;
	hr.url = url;
	hr.accept = req->accept;
	hr.content_type = req->content_type;
	hr.body = req->body;
	hr.body_len = req->body_len;
	hr.flags = http_flags(req->flags);
	rc = rai_http_do(c->http, &hr, &hresp, err);
	kube_resp_release(resp);
	resp->status = hresp.status;
	resp->content_type = hresp.content_type;
	hresp.content_type = NULL;
	resp->body = hresp.body;
	rai_buf_init(&hresp.body, 0);
	rai_http_resp_release(&hresp);
	free(url);
	return rc;
}

/* ---- JSON requests ---- */

static int
json_ctype(const char *ctype)
{
	return ctype == NULL || strstr(ctype, "json") != NULL;
}

/* The body as a JSON object, or RAI_E_PROTO saying what came instead. */
static int
parse_object(const struct kube_client *c, const char *method,
    const char *path, const struct kube_resp *resp, cJSON **out,
    struct rai_err *err)
{
	char *what = xasprintf("response from %s %s%s", method, c->server,
	    path);
	char *msg;
	cJSON *obj = NULL;
	int rc = -1;

	if (rai_json_parse(resp->body.data, resp->body.len, what, &obj,
	    err) == -1) {
		if (!json_ctype(resp->content_type)) {
			msg = xasprintf("%s (Content-Type '%s')", err->message,
			    resp->content_type);
			rai_err_set(err, RAI_E_PROTO, "%s", msg);
			free(msg);
		}
		goto out;
	}
	if (!cJSON_IsObject(obj)) {
		rai_err_set(err, RAI_E_PROTO, "%s: expected a JSON object",
		    what);
		cJSON_Delete(obj);
		goto out;
	}
	*out = obj;
	rc = 0;
out:
	free(what);
	return rc;
}

int
client_request_json(struct kube_client *c, const char *method, const char *path,
    const char *ctype, const char *body, unsigned flags, cJSON **out,
    struct rai_err *err)
{
	struct kube_req req;
	struct kube_resp resp = KUBE_RESP_INIT;
	int rc = -1;

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.content_type = ctype;
	req.body = body;
	req.body_len = body != NULL ? strlen(body) : 0;
	req.flags = flags;
	if (kube_client_do(c, &req, &resp, err) == -1)
		goto out;
	if (out == NULL)
		rc = 0;
	else
		rc = parse_object(c, method, path, &resp, out, err);
out:
	kube_resp_release(&resp);
	return rc;
}

/* Namespace for one object: the argument, the object's, the context's. */
static const char *
object_ns(const struct kube_client *c, const struct kube_res *res,
    const char *ns, const cJSON *obj)
{
	const char *s;

	if (!res->namespaced)
		return NULL;
	if (client_nonempty(ns))
		return ns;
	if (obj != NULL &&
	    client_nonempty(s = rai_json_str(obj, "metadata.namespace")))
		return s;
	return client_nonempty(c->conn->namespace) ? c->conn->namespace :
	    "default";
}

int
kube_get(struct kube_client *c, const struct kube_res *res, const char *ns,
    const char *name, cJSON **out, struct rai_err *err)
{
	char *path;
	int rc;

	if (!client_nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_get: no %s name "
		    "given", res->plural);
	path = kube_path(res, object_ns(c, res, ns, NULL), name, NULL);
	rc = client_request_json(c, "GET", path, NULL, NULL,
	    KUBE_REQ_IDEMPOTENT, out, err);
	free(path);
	return rc;
}

/* ---- writes ---- */

static char *
write_path(const struct kube_res *res, const char *ns, const char *name,
    unsigned flags)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *p = kube_path(res, ns, name, NULL);

	rai_buf_addstr(&b, p);
	free(p);
	if (flags & KUBE_DRY_RUN)
		kube_path_query(&b, "dryRun", "All");
	return rai_buf_detach(&b, NULL);
}

static int
write_object(struct kube_client *c, const char *method, const char *path,
    const char *ctype, const char *body, cJSON **out, struct rai_err *err)
{
	return client_request_json(c, method, path, ctype, body, 0, out, err);
}

int
kube_create(struct kube_client *c, const struct kube_res *res,
    const char *ns, const cJSON *obj, unsigned flags, cJSON **out,
    struct rai_err *err)
{
	char *path, *body;
	int rc;

	path = write_path(res, object_ns(c, res, ns, obj), NULL, flags);
	if ((body = cJSON_PrintUnformatted(obj)) == NULL)
		rai_die("out of memory printing JSON");
	rc = write_object(c, "POST", path, "application/json", body, out, err);
	cJSON_free(body);
	free(path);
	return rc;
}

int
kube_update(struct kube_client *c, const struct kube_res *res,
    const char *ns, const cJSON *obj, unsigned flags, cJSON **out,
    struct rai_err *err)
{
	const char *name = rai_json_str(obj, "metadata.name");
	char *path, *body;
	int rc;

	if (!client_nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_update: the %s "
		    "object has no metadata.name", res->plural);
	path = write_path(res, object_ns(c, res, ns, obj), name, flags);
	if ((body = cJSON_PrintUnformatted(obj)) == NULL)
		rai_die("out of memory printing JSON");
	rc = write_object(c, "PUT", path, "application/json", body, out, err);
	cJSON_free(body);
	free(path);
	return rc;
}

static const char *
patch_ctype(enum kube_patch_type type)
{
	switch (type) {
	case KUBE_PATCH_MERGE:
		return "application/merge-patch+json";
	case KUBE_PATCH_STRATEGIC:
		return "application/strategic-merge-patch+json";
	case KUBE_PATCH_JSON:
		return "application/json-patch+json";
	}
	return "application/merge-patch+json";
}

int
kube_patch(struct kube_client *c, const struct kube_res *res,
    const char *ns, const char *name, enum kube_patch_type type,
    const char *patch, unsigned flags, cJSON **out, struct rai_err *err)
{
	char *path;
	int rc;

	if (!client_nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_patch: no %s "
		    "name given", res->plural);
	path = write_path(res, object_ns(c, res, ns, NULL), name, flags);
	rc = write_object(c, "PATCH", path, patch_ctype(type), patch, out, err);
	free(path);
	return rc;
}

int
kube_delete(struct kube_client *c, const struct kube_res *res,
    const char *ns, const char *name, const char *propagation,
    unsigned flags, cJSON **out, struct rai_err *err)
{
	char *path, *body = NULL;
	int rc;

	if (!client_nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_delete: no %s "
		    "name given", res->plural);
	path = write_path(res, object_ns(c, res, ns, NULL), name, flags);
	if (client_nonempty(propagation)) {
		cJSON *opts = cJSON_CreateObject();

		cJSON_AddStringToObject(opts, "kind", "DeleteOptions");
		cJSON_AddStringToObject(opts, "apiVersion", "v1");
		cJSON_AddStringToObject(opts, "propagationPolicy", propagation);
		body = cJSON_PrintUnformatted(opts);
		cJSON_Delete(opts);
		if (body == NULL)
			rai_die("out of memory printing JSON");
	}
	rc = write_object(c, "DELETE", path, body ? "application/json" : NULL,
	    body, out, err);
	cJSON_free(body);
	free(path);
	return rc;
}

/* ---- discovery ---- */

int
kube_has_group_version(struct kube_client *c, const char *group,
    const char *version, int *found, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	int rc;

	group_version_path(&b, group, version);
	rc = client_request_json(c, "GET", rai_buf_str(&b), NULL, NULL,
	    KUBE_REQ_IDEMPOTENT, NULL, err);
	rai_buf_release(&b);
	if (rc == 0) {
		*found = 1;
		return 0;
	}
	if (err->kind == RAI_E_HTTP && err->http_status == 404) {
		rai_err_release(err);
		*found = 0;
		return 0;
	}
	return -1;
}

void
kube_kind_res_release(struct kube_kind_res *k)
{
	free(k->group);
	free(k->version);
	free(k->plural);
	memset(k, 0, sizeof(*k));
}

/* The resource of resources[] that is kind itself (not a subresource). */
static const cJSON *
resource_of_kind(const cJSON *list, const char *kind)
{
	const cJSON *r;
	const char *name, *k;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(list,
	    "resources")) {
		name = rai_json_str(r, "name");
		k = rai_json_str(r, "kind");
		if (name != NULL && k != NULL && strchr(name, '/') == NULL &&
		    strcmp(k, kind) == 0)
			return r;
	}
	return NULL;
}

int
kube_kind_resource(struct kube_client *c, const char *api_version,
    const char *kind, struct kube_kind_res *out, struct rai_err *err)
{
	const char *slash = strchr(api_version, '/');
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *r;
	cJSON *list = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->group = slash != NULL ?
	    xstrndup(api_version, (size_t)(slash - api_version)) : xstrdup("");
	out->version = xstrdup(slash != NULL ? slash + 1 : api_version);
	group_version_path(&b, out->group, out->version);
	rc = client_request_json(c, "GET", rai_buf_str(&b), NULL, NULL,
	    KUBE_REQ_IDEMPOTENT, &list, err);
	rai_buf_release(&b);
	if (rc == -1 && err->kind == RAI_E_HTTP && err->http_status == 404) {
		rai_err_release(err);
		rc = rai_err_set(err, RAI_E_NOTFOUND, "the cluster does not "
		    "serve %s", api_version);
	}
	if (rc == 0 && (r = resource_of_kind(list, kind)) == NULL)
		rc = rai_err_set(err, RAI_E_NOTFOUND, "the cluster has no kind "
		    "%s in %s", kind, api_version);
	else if (rc == 0) {
		out->plural = xstrdup(rai_json_str(r, "name"));
		out->res.namespaced = cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(r, "namespaced"));
	}
	cJSON_Delete(list);
	if (rc == -1) {
		kube_kind_res_release(out);
		return -1;
	}
	out->res.group = out->group;
	out->res.version = out->version;
	out->res.plural = out->plural;
	return 0;
}

int
kube_server_version(struct kube_client *c, char **git_version,
    struct rai_err *err)
{
	cJSON *obj = NULL;
	const char *v;

	if (client_request_json(c, "GET", "/version", NULL, NULL,
	    KUBE_REQ_IDEMPOTENT, &obj, err) == -1)
		return -1;
	v = rai_json_str(obj, "gitVersion");
	if (!client_nonempty(v)) {
		cJSON_Delete(obj);
		return rai_err_set(err, RAI_E_PROTO, "response from GET "
		    "%s/version has no gitVersion", c->server);
	}
	*git_version = xstrdup(v);
	cJSON_Delete(obj);
	return 0;
}
