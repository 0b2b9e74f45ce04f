/*
 * Lists: pagination with one restart when the snapshot behind a
 * continue token expires (410), whole (kube_list), page by page
 * (kube_list_pages) or item by item as the bytes arrive
 * (kube_list_items, framed by kube_items), and the first page sent
 * ahead (kube_list_prefetch). Apart from client.c, whose JSON requests
 * it builds on; nothing there calls in here.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "kube/client.h"
#include "kube/client_int.h"
#include "kube/client_list.h"
#include "kube/stream.h"

#include "core/banned.h"

#define LIST_LIMIT		500

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
	client_path_query_long(&b, "limit", lo->limit > 0 ? lo->limit :
	    LIST_LIMIT);
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
	if (client_request_json(c, "GET", path, NULL, NULL, KUBE_REQ_IDEMPOTENT,
	    page, err) == -1)
		goto out;
	if (list_items(c, path, *page, &items, err) == -1) {
		cJSON_Delete(*page);
		*page = NULL;
		goto out;
	}
	tok = rai_json_str(*page, "metadata.continue");
	*next = client_nonempty(tok) ? xstrdup(tok) : NULL;
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
	*dst = client_nonempty(v) ? xstrdup(v) : NULL;
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
	char *url = client_url_of(c, path), *msg;
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
	url = client_url_of(c, path);
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
