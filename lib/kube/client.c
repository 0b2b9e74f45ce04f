/*
 * The Kubernetes API over rai_http: paths with escaping, the typed verbs
 * (get, list with pagination, create, update, patch, delete), discovery
 * probes, and the two streams (watch events and raw lines) framed by
 * kube_lines. Everything the server says on failure ends up in rai_err.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/json.h"
#include "core/log.h"
#include "core/url.h"
#include "kube/auth.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/stream.h"

#include "core/banned.h"

#define LIST_LIMIT		500
/* How long past timeoutSeconds a watch may run before we give up. */
#define WATCH_SLACK_S		30
#define STREAM_ACCEPT		"application/json, */*"

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

struct kube_client {
	struct rai_http		*http;
	struct kube_auth	*auth;
	const struct kube_conn	*conn;		/* borrowed */
	char			*server;	/* no trailing '/' */
};

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

static int
nonempty(const char *s)
{
	return s != NULL && *s != '\0';
}

static void
group_version_path(struct rai_buf *b, const char *group, const char *version)
{
	if (!nonempty(group))
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
	if (res->namespaced && nonempty(ns)) {
		add_segment(&b, "namespaces");
		add_segment(&b, ns);
	}
	add_segment(&b, res->plural);
	if (nonempty(name)) {
		add_segment(&b, name);
		if (nonempty(subresource))
			add_segment(&b, subresource);
	}
	return rai_buf_detach(&b, NULL);
}

void
kube_path_query(struct rai_buf *b, const char *key, const char *value)
{
	if (!nonempty(value))
		return;
	rai_buf_addch(b, strchr(rai_buf_str(b), '?') != NULL ? '&' : '?');
	add_escaped(b, key);
	rai_buf_addch(b, '=');
	add_escaped(b, value);
}

static void
path_query_long(struct rai_buf *b, const char *key, long value)
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

	if (!nonempty(conn->server))
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

static char *
url_of(const struct kube_client *c, const char *path)
{
	return xasprintf("%s%s", c->server, path);
}

char *
kube_client_url(const struct kube_client *c, const char *path)
{
	return url_of(c, path);
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
	char *url = url_of(c, req->path);
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

static int
request_json(struct kube_client *c, const char *method, const char *path,
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
	if (nonempty(ns))
		return ns;
	if (obj != NULL &&
	    nonempty(s = rai_json_str(obj, "metadata.namespace")))
		return s;
	return nonempty(c->conn->namespace) ? c->conn->namespace : "default";
}

int
kube_get(struct kube_client *c, const struct kube_res *res, const char *ns,
    const char *name, cJSON **out, struct rai_err *err)
{
	char *path;
	int rc;

	if (!nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_get: no %s name "
		    "given", res->plural);
	path = kube_path(res, object_ns(c, res, ns, NULL), name, NULL);
	rc = request_json(c, "GET", path, NULL, NULL, KUBE_REQ_IDEMPOTENT, out,
	    err);
	free(path);
	return rc;
}

/* ---- list ---- */

static char *
list_path(const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, const char *cont)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base = kube_path(res, ns, NULL, NULL);

	rai_buf_addstr(&b, base);
	free(base);
	kube_path_query(&b, "labelSelector", lo->label_selector);
	kube_path_query(&b, "fieldSelector", lo->field_selector);
	path_query_long(&b, "limit", lo->limit > 0 ? lo->limit : LIST_LIMIT);
	kube_path_query(&b, "continue", cont);
	/* a continue token carries its own snapshot; both is a 400 */
	if (cont == NULL)
		kube_path_query(&b, "resourceVersion", lo->resource_version);
	return rai_buf_detach(&b, NULL);
}

/* items may be absent or null in an empty list; anything else is wrong. */
static int
list_items(const struct kube_client *c, const char *path, cJSON *list,
    cJSON **items, struct rai_err *err)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(list, "items");

	if (it == NULL || cJSON_IsNull(it)) {
		cJSON_DeleteItemFromObjectCaseSensitive(list, "items");
		it = cJSON_AddArrayToObject(list, "items");
	}
	if (!cJSON_IsArray(it))
		return rai_err_set(err, RAI_E_PROTO, "response from GET %s%s: "
		    "expected a list with an 'items' array", c->server, path);
	*items = it;
	return 0;
}

/* One page: parsed, checked, its continue token copied out. */
static int
list_page(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, const char *cont, cJSON **page,
    char **next, struct rai_err *err)
{
	char *path = list_path(res, ns, lo, cont);
	cJSON *items;
	const char *tok;
	int rc = -1;

	*page = NULL;
	if (request_json(c, "GET", path, NULL, NULL, KUBE_REQ_IDEMPOTENT, page,
	    err) == -1)
		goto out;
	if (list_items(c, path, *page, &items, err) == -1) {
		cJSON_Delete(*page);
		*page = NULL;
		goto out;
	}
	tok = rai_json_str(*page, "metadata.continue");
	*next = nonempty(tok) ? xstrdup(tok) : NULL;
	rc = 0;
out:
	free(path);
	return rc;
}

/*
 * One paged walk for both kube_list_pages and kube_list_items: step
 * fetches the page at cont, hands on what it holds, and sets *next to
 * the following page's token; restart tells the caller to forget what
 * earlier pages gave when the walk starts over.
 */
struct walker {
	int	(*step)(struct kube_client *, const struct kube_res *,
		    const char *ns, const struct kube_list_opts *,
		    const char *cont, struct walker *, char **next,
		    struct rai_err *);
	int	(*restart)(struct walker *, struct rai_err *);
	kube_page_fn	*page_fn;
	kube_item_fn	*item_fn;
	void		*ud;
	char		**rv;		/* items: the list's resourceVersion */
};

/*
 * Walks the pages. *expired tells the caller that the snapshot behind a
 * continue token was compacted (410), the one failure worth starting
 * over for.
 */
static int
walk_once(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, struct walker *w, int *expired,
    struct rai_err *err)
{
	char *cont = NULL, *next = NULL;
	int rc = -1;

	*expired = 0;
	for (;;) {
		if (w->step(c, res, ns, lo, cont, w, &next, err) == -1) {
			*expired = cont != NULL && err->http_status == 410;
			goto out;
		}
		if (lo->single_page || next == NULL)
			break;
		if (cont != NULL && strcmp(cont, next) == 0) {
			rai_err_set(err, RAI_E_PROTO, "the server sent the "
			    "same continue token twice while listing %s",
			    res->plural);
			goto out;
		}
		free(cont);
		cont = next;
		next = NULL;
	}
	rc = 0;
out:
	free(cont);
	free(next);
	return rc;
}

/* The walk, started over once when its snapshot expires. */
static int
walk(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, struct walker *w, struct rai_err *err)
{
	struct kube_list_opts none;
	int expired;

	if (lo == NULL) {
		memset(&none, 0, sizeof(none));
		lo = &none;
	}
	if (!res->namespaced)
		ns = NULL;
	if (walk_once(c, res, ns, lo, w, &expired, err) == 0)
		return 0;
	if (!expired)
		return -1;
	rai_log(RAI_LOG_NOTE, "listing %s: continue token expired, "
	    "starting again", res->plural);
	rai_err_release(err);
	if (w->restart(w, err) == -1)
		return -1;
	return walk_once(c, res, ns, lo, w, &expired, err);
}

static int
page_step(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, const char *cont, struct walker *w,
    char **next, struct rai_err *err)
{
	cJSON *page = NULL;
	int rc;

	if (list_page(c, res, ns, lo, cont, &page, next, err) == -1)
		return -1;
	rc = w->page_fn(w->ud, page, err);
	cJSON_Delete(page);
	if (rc == -1) {
		free(*next);
		*next = NULL;
	}
	return rc;
}

static int
page_restart(struct walker *w, struct rai_err *err)
{
	return w->page_fn(w->ud, NULL, err);
}

int
kube_list_pages(struct kube_client *c, const struct kube_res *res,
    const char *ns, const struct kube_list_opts *lo, kube_page_fn *fn,
    void *ud, struct rai_err *err)
{
	struct walker w;

	memset(&w, 0, sizeof(w));
	w.step = page_step;
	w.restart = page_restart;
	w.page_fn = fn;
	w.ud = ud;
	return walk(c, res, ns, lo, &w, err);
}

/* kube_list's collector: the first page becomes the result. */
struct list_merge {
	cJSON	*result;
};

static int
merge_page(void *ud, cJSON *page, struct rai_err *err)
{
	struct list_merge *m = ud;
	cJSON *items, *it;
	const char *rv;

	(void)err;
	if (page == NULL) {		/* starting over */
		cJSON_Delete(m->result);
		m->result = NULL;
		return 0;
	}
	if (m->result == NULL) {
		/* take the page's members; the walk frees the empty shell */
		m->result = cJSON_CreateObject();
		while ((it = page->child) != NULL) {
			cJSON_DetachItemViaPointer(page, it);
			cJSON_AddItemToObject(m->result, it->string, it);
		}
		return 0;
	}
	items = cJSON_GetObjectItemCaseSensitive(m->result, "items");
	while ((it = cJSON_DetachItemFromArray(
	    cJSON_GetObjectItemCaseSensitive(page, "items"), 0)) != NULL)
		cJSON_AddItemToArray(items, it);
	rv = rai_json_str(page, "metadata.resourceVersion");
	if (rv != NULL)
		rai_json_set_str(m->result, "metadata.resourceVersion", rv);
	return 0;
}

int
kube_list(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, cJSON **out, struct rai_err *err)
{
	struct list_merge m = { NULL };
	cJSON *meta;

	if (kube_list_pages(c, res, ns, lo, merge_page, &m, err) == -1) {
		cJSON_Delete(m.result);
		return -1;
	}
	if (lo == NULL || !lo->single_page) {
		meta = cJSON_GetObjectItemCaseSensitive(m.result, "metadata");
		cJSON_DeleteItemFromObjectCaseSensitive(meta, "continue");
		cJSON_DeleteItemFromObjectCaseSensitive(meta,
		    "remainingItemCount");
	}
	*out = m.result;
	return 0;
}

/* ---- lists item by item ---- */

struct item_page {
	const char	*what;		/* "response from GET <url>" */
	kube_item_fn	*fn;
	void		*ud;
	struct kube_items framer;
	char		*cont;		/* metadata.continue */
	char		*rv;		/* metadata.resourceVersion */
	int		 sink_failed;	/* the error is ours, not the wire's */
	int		 value_failed;	/* ... and not the framer's */
};

static void
set_owned(char **dst, const char *v)
{
	free(*dst);
	*dst = nonempty(v) ? xstrdup(v) : NULL;
}

/* One value of the List: an item, the metadata, or what we skip. */
static int
item_value1(struct item_page *p, const char *key, const char *json,
    size_t len, struct rai_err *err)
{
	cJSON *obj = NULL;

	if (key != NULL && strcmp(key, "items") == 0) {
		if (len == 4 && memcmp(json, "null", 4) == 0)
			return 0;
		return rai_err_set(err, RAI_E_PROTO, "%s: expected a list "
		    "with an 'items' array", p->what);
	}
	if (key != NULL && strcmp(key, "metadata") != 0)
		return 0;	/* kind, apiVersion */
	rai_http_log_body(key != NULL ? "Response Body (metadata)" :
	    "Response Body (item)", json, len);
	if (rai_json_parse(json, len, p->what, &obj, err) == -1)
		return -1;
	if (!cJSON_IsObject(obj)) {
		cJSON_Delete(obj);
		return rai_err_set(err, RAI_E_PROTO, "%s: %s is not a JSON "
		    "object", p->what, key != NULL ? "metadata" : "an item");
	}
	if (key != NULL) {
		set_owned(&p->cont, rai_json_str(obj, "continue"));
		set_owned(&p->rv, rai_json_str(obj, "resourceVersion"));
		cJSON_Delete(obj);
		return 0;
	}
	return p->fn(p->ud, obj, err);
}

/* An item the framer found whole and parsed where it lay. */
static int
item_tree(void *ud, cJSON *obj, const char *json, size_t len,
    struct rai_err *err)
{
	struct item_page *p = ud;

	rai_http_log_body("Response Body (item)", json, len);
	if (p->fn(p->ud, obj, err) == -1) {
		p->value_failed = 1;
		return -1;
	}
	return 0;
}

static int
item_value(void *ud, const char *key, const char *json, size_t len,
    struct rai_err *err)
{
	struct item_page *p = ud;

	if (item_value1(p, key, json, len, err) == -1) {
		p->value_failed = 1;
		return -1;
	}
	return 0;
}

static int
item_data(void *ud, const char *data, size_t len, struct rai_err *err)
{
	struct item_page *p = ud;

	if (kube_items_feed(&p->framer, data, len, err) == -1) {
		p->sink_failed = 1;
		return -1;
	}
	return 0;
}

/* One page, streamed into the walker's item_fn; *next gets its token. */
static int
item_step(struct kube_client *c, const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, const char *cont, struct walker *w,
    char **next, struct rai_err *err)
{
	kube_item_fn *fn = w->item_fn;
	void *ud = w->ud;
	char **rv = w->rv;
	struct rai_http_req hr;
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct item_page p;
	char *path = list_path(res, ns, lo, cont);
	char *url = url_of(c, path), *msg;
	int rc;

	memset(&p, 0, sizeof(p));
	p.what = msg = xasprintf("response from GET %s", url);
	p.fn = fn;
	p.ud = ud;
	kube_items_init(&p.framer, rai_http_max_response(c->http), item_value,
	    &p);
	kube_items_parse(&p.framer, item_tree);
	memset(&hr, 0, sizeof(hr));
	hr.method = "GET";
	hr.url = url;
	hr.flags = RAI_HTTP_IDEMPOTENT;
	hr.on_data = item_data;
	hr.on_data_ud = &p;
	hr.stream_timeout_ms = rai_http_request_timeout_ms(c->http);
	rc = rai_http_do(c->http, &hr, &resp, err);
	if (rc == 0 && kube_items_finish(&p.framer, err) == -1) {
		p.sink_failed = 1;
		rc = -1;
	}
	/* the framer's own words lack the URL */
	if (rc == -1 && p.sink_failed && !p.value_failed) {
		char *m = xasprintf("%s: %s", p.what, err->message);

		rai_err_set(err, RAI_E_PROTO, "%s", m);
		free(m);
	}
	if (rc == 0) {
		*next = p.cont;
		p.cont = NULL;
		if (rv != NULL && p.rv != NULL) {
			free(*rv);
			*rv = p.rv;
			p.rv = NULL;
		}
	}
	free(p.cont);
	free(p.rv);
	kube_items_release(&p.framer);
	rai_http_resp_release(&resp);
	free(msg);
	free(url);
	free(path);
	return rc;
}

static int
item_restart(struct walker *w, struct rai_err *err)
{
	return w->item_fn(w->ud, NULL, err);
}

void
kube_list_prefetch(struct kube_client *c, const struct kube_res *res,
    const char *ns, const struct kube_list_opts *lo)
{
	struct kube_list_opts none;
	char *path, *url;

	if (lo == NULL) {
		memset(&none, 0, sizeof(none));
		lo = &none;
	}
	/* the first page's URL, exactly as walk and item_step build it */
	path = list_path(res, res->namespaced ? ns : NULL, lo, NULL);
	url = url_of(c, path);
	rai_http_prefetch(c->http, url, NULL);
	free(url);
	free(path);
}

void
kube_prefetch_drop(struct kube_client *c)
{
	rai_http_prefetch_drop(c->http);
}

int
kube_list_items(struct kube_client *c, const struct kube_res *res,
    const char *ns, const struct kube_list_opts *lo, kube_item_fn *fn,
    void *ud, char **rv, struct rai_err *err)
{
	struct walker w;

	memset(&w, 0, sizeof(w));
	w.step = item_step;
	w.restart = item_restart;
	w.item_fn = fn;
	w.ud = ud;
	w.rv = rv;
	return walk(c, res, ns, lo, &w, err);
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
	return request_json(c, method, path, ctype, body, 0, out, err);
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

	if (!nonempty(name))
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

	if (!nonempty(name))
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

	if (!nonempty(name))
		return rai_err_set(err, RAI_E_INTERNAL, "kube_delete: no %s "
		    "name given", res->plural);
	path = write_path(res, object_ns(c, res, ns, NULL), name, flags);
	if (nonempty(propagation)) {
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
	rc = request_json(c, "GET", rai_buf_str(&b), NULL, NULL,
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

int
kube_server_version(struct kube_client *c, char **git_version,
    struct rai_err *err)
{
	cJSON *obj = NULL;
	const char *v;

	if (request_json(c, "GET", "/version", NULL, NULL, KUBE_REQ_IDEMPOTENT,
	    &obj, err) == -1)
		return -1;
	v = rai_json_str(obj, "gitVersion");
	if (!nonempty(v)) {
		cJSON_Delete(obj);
		return rai_err_set(err, RAI_E_PROTO, "response from GET "
		    "%s/version has no gitVersion", c->server);
	}
	*git_version = xstrdup(v);
	cJSON_Delete(obj);
	return 0;
}

/* ---- streams ---- */

struct stream {
	struct kube_client	*c;
	const char		*url;
	struct kube_lines	 lines;
	kube_line_fn		*line_fn;	/* raw lines (logs) */
	kube_watch_fn		*watch_fn;	/* parsed events */
	void			*ud;
	int			 failed;	/* ev_err holds why */
	struct rai_err		 ev_err;
};

static int
watch_error_event(struct stream *s, const cJSON *obj)
{
	const char *kind = rai_json_str(obj, "kind");
	char *text;

	if (kind == NULL || strcmp(kind, "Status") != 0)
		return rai_err_set(&s->ev_err, RAI_E_PROTO, "watch stream from "
		    "%s sent an ERROR event without a Status", s->url);
	if ((text = cJSON_PrintUnformatted(obj)) == NULL)
		rai_die("out of memory printing JSON");
	rai_err_from_http(&s->ev_err, (long)rai_json_num(obj, "code", 500),
	    "application/json", text, strlen(text), 0);
	cJSON_free(text);
	return -1;
}

/* One watch line: 0 go on, 1 stop, -1 failed (ev_err set). */
static int
watch_event(struct stream *s, const char *line, size_t len)
{
	char *what;
	const char *type;
	const cJSON *obj;
	cJSON *ev = NULL;
	int rc;

	what = xasprintf("watch event from %s", s->url);
	rc = rai_json_parse(line, len, what, &ev, &s->ev_err);
	free(what);
	if (rc == -1)
		return -1;
	type = rai_json_str(ev, "type");
	obj = rai_json_get(ev, "object");
	if (type == NULL || !cJSON_IsObject(obj))
		rc = rai_err_set(&s->ev_err, RAI_E_PROTO, "watch event from %s "
		    "has no type or object", s->url);
	else if (strcmp(type, "ERROR") == 0)
		rc = watch_error_event(s, obj);
	else
		rc = s->watch_fn(s->ud, type, obj) != 0;
	cJSON_Delete(ev);
	return rc;
}

static int
blank(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return 0;
	return 1;
}

static int
stream_line(void *ud, const char *line, size_t len)
{
	struct stream *s = ud;
	int rc;

	rai_http_log_body("Stream Line", line, len);
	if (s->line_fn != NULL)
		return s->line_fn(s->ud, line, len);
	if (blank(line, len))
		return 0;
	rc = watch_event(s, line, len);
	if (rc == -1)
		s->failed = 1;
	return rc != 0;
}

static int
stream_data(void *ud, const char *data, size_t len, struct rai_err *err)
{
	struct stream *s = ud;

	if (kube_lines_feed(&s->lines, data, len, err) == -1)
		return -1;
	if (s->failed) {
		rai_err_move(err, &s->ev_err);
		return -1;
	}
	return s->lines.stopped ? 1 : 0;
}

/* The stream ended (cleanly when rc is 0): what is left in the framer. */
static int
stream_end(struct stream *s, int rc, const struct rai_http_resp *resp,
    struct rai_err *err)
{
	int cut = rc == -1 && err->kind == RAI_E_NET && resp->streamed > 0;

	if (s->lines.stopped || (rc == -1 && !cut))
		return rc;
	if (s->lines.partial.len == 0)
		return rc;
	if (s->watch_fn != NULL)
		return rai_err_set(err, RAI_E_PROTO, "watch stream from %s "
		    "ended in the middle of an event", s->url);
	/* logs: the last line is data even without its newline */
	kube_lines_finish(&s->lines, NULL);
	return rc;
}

static int
run_stream(struct kube_client *c, const char *path, long timeout_ms,
    struct stream *s, struct rai_err *err)
{
	struct rai_http_req hr;
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	char *url = url_of(c, path);
	int rc;

	s->c = c;
	s->url = url;
	kube_lines_init(&s->lines, RAI_BUF_LINE_MAX, stream_line, s);
	memset(&hr, 0, sizeof(hr));
	hr.method = "GET";
	hr.url = url;
	hr.accept = s->watch_fn != NULL ? NULL : STREAM_ACCEPT;
	hr.flags = RAI_HTTP_IDEMPOTENT;
	hr.on_data = stream_data;
	hr.on_data_ud = s;
	hr.stream_timeout_ms = timeout_ms;
	rc = rai_http_do(c->http, &hr, &resp, err);
	rc = stream_end(s, rc, &resp, err);
	if (rc == 0)
		rai_err_release(err);
	kube_lines_release(&s->lines);
	rai_err_release(&s->ev_err);
	rai_http_resp_release(&resp);
	free(url);
	return rc;
}

int
kube_stream(struct kube_client *c, const char *path, kube_line_fn *fn,
    void *ud, struct rai_err *err)
{
	struct stream s;

	memset(&s, 0, sizeof(s));
	s.line_fn = fn;
	s.ud = ud;
	return run_stream(c, path, 0, &s, err);
}

struct raw_stream {
	kube_bytes_fn	*fn;
	void		*ud;
};

static int
raw_data(void *ud, const char *data, size_t len, struct rai_err *err)
{
	struct raw_stream *s = ud;

	(void)err;
	rai_http_log_body("Stream Data", data, len);
	return s->fn(s->ud, data, len) != 0;
}

int
kube_stream_raw(struct kube_client *c, const char *path, kube_bytes_fn *fn,
    void *ud, struct rai_err *err)
{
	struct rai_http_req hr;
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct raw_stream s;
	char *url = url_of(c, path);
	int rc;

	s.fn = fn;
	s.ud = ud;
	memset(&hr, 0, sizeof(hr));
	hr.method = "GET";
	hr.url = url;
	hr.accept = STREAM_ACCEPT;
	/* logs: the bytes as they come, not gzip (kept back, then inflated) */
	hr.flags = RAI_HTTP_IDEMPOTENT | RAI_HTTP_IDENTITY;
	hr.on_data = raw_data;
	hr.on_data_ud = &s;
	rc = rai_http_do(c->http, &hr, &resp, err);
	rai_http_resp_release(&resp);
	free(url);
	return rc;
}

/* The watch's path: the list's, with what a watch adds. */
static char *
watch_path(const struct kube_res *res, const char *ns,
    const struct kube_list_opts *lo, long timeout_s)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base;

	base = kube_path(res, res->namespaced ? ns : NULL, NULL, NULL);
	rai_buf_addstr(&b, base);
	free(base);
	kube_path_query(&b, "watch", "1");
	if (lo != NULL) {
		kube_path_query(&b, "labelSelector", lo->label_selector);
		kube_path_query(&b, "fieldSelector", lo->field_selector);
		kube_path_query(&b, "resourceVersion", lo->resource_version);
	}
	kube_path_query(&b, "allowWatchBookmarks", "true");
	if (timeout_s > 0)
		path_query_long(&b, "timeoutSeconds", timeout_s);
	return rai_buf_detach(&b, NULL);
}

int
kube_watch(struct kube_client *c, const struct kube_res *res,
    const char *ns, const struct kube_list_opts *lo, long timeout_s,
    kube_watch_fn *fn, void *ud, struct rai_err *err)
{
	struct stream s;
	char *path = watch_path(res, ns, lo, timeout_s);
	int rc;

	memset(&s, 0, sizeof(s));
	s.watch_fn = fn;
	s.ud = ud;
	rc = run_stream(c, path, timeout_s > 0 ?
	    (timeout_s + WATCH_SLACK_S) * 1000 : 0, &s, err);
	free(path);
	return rc;
}

/* ---- several watches at once ---- */

struct kube_watch {
	struct kube_client	*c;
	struct stream		 s;
	struct rai_http_req	 hr;
	struct rai_http_stream	*hs;
	char			*url;
	int			 ended;
};

int
kube_watch_start(struct kube_client *c, const struct kube_res *res,
    const char *ns, const struct kube_list_opts *lo, long timeout_s,
    kube_watch_fn *fn, void *ud, struct kube_watch **out,
    struct rai_err *err)
{
	struct kube_watch *w = xcalloc(1, sizeof(*w));
	char *path = watch_path(res, ns, lo, timeout_s);

	w->c = c;
	w->url = url_of(c, path);
	free(path);
	w->s.c = c;
	w->s.url = w->url;
	w->s.watch_fn = fn;
	w->s.ud = ud;
	kube_lines_init(&w->s.lines, RAI_BUF_LINE_MAX, stream_line, &w->s);
	w->hr.method = "GET";
	w->hr.url = w->url;
	w->hr.flags = RAI_HTTP_IDEMPOTENT;
	w->hr.on_data = stream_data;
	w->hr.on_data_ud = &w->s;
	w->hr.stream_timeout_ms = timeout_s > 0 ?
	    (timeout_s + WATCH_SLACK_S) * 1000 : 0;
	if (rai_http_stream_start(c->http, &w->hr, &w->hs, err) == -1) {
		kube_watch_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

/*
 * One wait on the side streams gathered in hs (n slots, NULL for the
 * ended ones; http NULL when none runs), which it frees. what names
 * the bytes waited for, in the error.
 */
static int
side_streams_wait(struct rai_http *http, struct rai_http_stream **hs,
    size_t n, long wait_ms, const char *what, struct rai_err *err)
{
	int rc = http == NULL ? 0 : rai_http_streams_wait(http, wait_ms, hs, n);

	free(hs);
	if (rc == -1)
		return rai_err_set(err, RAI_E_INTERNAL, "libcurl failed "
		    "while waiting for %s", what);
	return 0;
}

int
kube_watches_wait(struct kube_watch *const *ws, size_t n, long wait_ms,
    struct rai_err *err)
{
	struct rai_http_stream **hs;
	struct rai_http *http = NULL;
	size_t i;

	if (n == 0)
		return 0;
	hs = xcalloc(n, sizeof(*hs));
	for (i = 0; i < n; i++)
		if (ws[i] != NULL && !ws[i]->ended) {
			hs[i] = ws[i]->hs;
			http = ws[i]->c->http;
		}
	return side_streams_wait(http, hs, n, wait_ms, "watch events", err);
}

int
kube_watch_result(struct kube_watch *w, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	int rc;

	if (w->ended)
		return 0;
	rc = rai_http_stream_result(w->c->http, w->hs, &resp, err);
	if (rc == 1) {
		rai_http_resp_release(&resp);
		return 1;
	}
	rc = stream_end(&w->s, rc, &resp, err);
	if (rc == 0)
		rai_err_release(err);
	rai_http_resp_release(&resp);
	w->ended = 1;
	return rc;
}

void
kube_watch_free(struct kube_watch *w)
{
	if (w == NULL)
		return;
	rai_http_stream_free(w->c->http, w->hs);
	kube_lines_release(&w->s.lines);
	rai_err_release(&w->s.ev_err);
	free(w->url);
	free(w);
}

/* ---- several raw streams at once ---- */

struct kube_raw {
	struct kube_client	*c;
	struct raw_stream	 s;
	struct rai_http_req	 hr;
	struct rai_http_stream	*hs;
	char			*url;
	int			 ended;
};

int
kube_raw_start(struct kube_client *c, const char *path, kube_bytes_fn *fn,
    void *ud, struct kube_raw **out, struct rai_err *err)
{
	struct kube_raw *r = xcalloc(1, sizeof(*r));

	r->c = c;
	r->url = url_of(c, path);
	r->s.fn = fn;
	r->s.ud = ud;
	r->hr.method = "GET";
	r->hr.url = r->url;
	r->hr.accept = STREAM_ACCEPT;
	/* as kube_stream_raw: the bytes as they come, not gzip */
	r->hr.flags = RAI_HTTP_IDEMPOTENT | RAI_HTTP_IDENTITY;
	r->hr.on_data = raw_data;
	r->hr.on_data_ud = &r->s;
	if (rai_http_stream_start(c->http, &r->hr, &r->hs, err) == -1) {
		kube_raw_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int
kube_raws_wait(struct kube_raw *const *rs, size_t n, long wait_ms,
    struct rai_err *err)
{
	struct rai_http_stream **hs;
	struct rai_http *http = NULL;
	size_t i;

	if (n == 0)
		return 0;
	hs = xcalloc(n, sizeof(*hs));
	for (i = 0; i < n; i++)
		if (rs[i] != NULL && !rs[i]->ended) {
			hs[i] = rs[i]->hs;
			http = rs[i]->c->http;
		}
	return side_streams_wait(http, hs, n, wait_ms, "stream bytes", err);
}

int
kube_raw_result(struct kube_raw *r, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	int rc;

	if (r->ended)
		return 0;
	rc = rai_http_stream_result(r->c->http, r->hs, &resp, err);
	rai_http_resp_release(&resp);
	if (rc != 1)
		r->ended = 1;
	return rc;
}

void
kube_raw_free(struct kube_raw *r)
{
	if (r == NULL)
		return;
	rai_http_stream_free(r->c->http, r->hs);
	free(r->url);
	free(r);
}
