/*
 * GETs sent ahead on connections of their own (rai_http_prefetch), the
 * queue of those not gone out yet, the lanes they may use, and the
 * request path's adoption of one. Apart from the request path, which
 * calls in here (http_prefetch_adopt, http_note_wait) while nothing
 * here calls it: a prefetch is built from the pieces in http_xfer.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_log.h"
#include "core/http_prefetch.h"
#include "core/http_xfer.h"
#include "core/log.h"

#include "core/banned.h"

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

void
http_note_wait(struct rai_http *h, CURL *c)
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
	return http_write_cb(p, size, nmemb, ud);
}

void
http_prefetch_free(struct rai_http *h, struct prefetch *pf)
{
	if (h->multi != NULL && pf->started)
		curl_multi_remove_handle(h->multi, pf->curl);
	curl_easy_cleanup(pf->curl);
	http_slist_free_secret(pf->hdrs);
	curl_slist_free_all(pf->connect_to);
	rai_err_release(&pf->x.sink_err);
	rai_http_resp_release(&pf->resp);
	free(pf->eff);
	free(pf->url);
	free(pf->accept);
	free(pf);
}

void
http_prefetch_free_all(struct rai_http *h)
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
	http_log_curl_command(&pf->req, pf->hdrs);
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
 * known to be far, else one (http_note_wait). The queue is kept here: with
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
	return LANE_WAIT_US - http_elapsed_us(&q->x.start);
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
			http_note_wait(h, pf->curl);
		}
	}
	if (prefetch_waiting(h)) {
		(void)lane_deadline_us(h);
		prefetch_fill(h);
	}
	return 0;
}

struct prefetch *
http_prefetch_new(struct rai_http *h, const char *url, const char *accept,
    const char *auth, struct rai_err *err)
{
	struct prefetch *pf = xcalloc(1, sizeof(*pf));
	CURL *c;

	c = http_copy_handle(h);
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
	http_reset_resp(&pf->resp, h->max_response);
	if (http_target(h, url, &pf->eff, &pf->connect_to, err) == -1) {
		http_prefetch_free(h, pf);
		return NULL;
	}
	pf->hdrs = http_request_headers(&pf->req, auth);
	http_set_method(c, &pf->req);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING,
	    http_accept_encoding(h, &pf->req));
	curl_easy_setopt(c, CURLOPT_URL, pf->eff);
	curl_easy_setopt(c, CURLOPT_CONNECT_TO, pf->connect_to);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, pf->hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, prefetch_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &pf->x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_header_cb);
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
	pf = http_prefetch_new(h, url, accept, auth, &err);
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
		http_prefetch_free(h, pf);
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
			http_prefetch_free(h, pf);
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

	if (x->req->on_data == NULL || !http_status_ok(pf->resp.status) ||
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
	if (http_status_ok(r->status))
		return 0;
	return (r->status == 401 && h->renew != NULL) ||
	    (h->max_retries > 0 && rai_http_retryable(req->flags, CURLE_OK,
	    r->status, r->retry_after, 0));
}

/*
 * rai_http_do's answer from a prefetch of req's URL: 0 or -1 as
 * rai_http_do returns; 1 when there is none, or it must be asked again.
 */
int
http_prefetch_adopt(struct rai_http *h, const struct rai_http_req *req,
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
	http_log_outcome(&pf->x, pf->code);
	http_log_timing(pf->curl);
	if (!pf->x.stopped && !pf->x.sink_failed && pf->resp.streamed == 0 &&
	    prefetch_ask_again(h, req, pf))
		goto out;	/* nothing seen yet: the ordinary path decides */
	if (req->on_data == NULL || !http_status_ok(pf->resp.status))
		rai_http_log_body("Response Body", pf->resp.body.data,
		    pf->resp.body.len);
	keep = *resp;
	*resp = pf->resp;
	pf->resp = keep;
	pf->x.resp = resp;
	if (pf->x.stopped || (!pf->x.sink_failed && pf->code == CURLE_OK &&
	    http_status_ok(resp->status)))
		rc = 0;
	else {
		memcpy(h->errbuf, pf->errbuf, sizeof(h->errbuf));
		(void)http_attempt_error(&pf->x, pf->code, err);
		rc = -1;
	}
out:
	h->adopted = NULL;
	http_prefetch_free(h, pf);
	return rc;
}
