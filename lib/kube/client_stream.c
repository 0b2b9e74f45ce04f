/*
 * Streamed GETs: watches (events parsed from the lines kube_lines
 * frames), line streams (logs -f) and raw byte streams, one at a time
 * or several read at once by one loop on core's side streams. Apart
 * from client.c because nothing there waits on a stream; it builds on
 * the client's URL and its transport.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/json.h"
#include "kube/client.h"
#include "kube/client_int.h"
#include "kube/client_stream.h"
#include "kube/stream.h"

#include "core/banned.h"

/* How long past timeoutSeconds a watch may run before we give up. */
#define WATCH_SLACK_S		30
#define STREAM_ACCEPT		"application/json, */*"

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
	rai_err_from_http(&s->ev_err, rai_json_long(obj, "code", 500, 0, 999),
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
	char *url = client_url_of(c, path);
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
	char *url = client_url_of(c, path);
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
		client_path_query_long(&b, "timeoutSeconds", timeout_s);
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
	w->url = client_url_of(c, path);
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
	r->url = client_url_of(c, path);
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
