/*
 * Side streams (rai_http_stream_start): several GETs whose bodies reach
 * their sinks as they arrive, all moved on by one wait. Each is a
 * prefetch (http_prefetch.c) that is the caller's from the start, on a
 * multi handle of its own; apart from the prefetches because nothing
 * queues them or adopts them.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_log.h"
#include "core/http_prefetch.h"
#include "core/http_stream.h"
#include "core/http_xfer.h"

#include "core/banned.h"

/* ---- side streams: several bodies read at once ---- */

/*
 * A side stream is a prefetch whose sink is the caller's from the start,
 * on a multi handle of its own with no cap on connections (each stream
 * holds one for as long as it lasts), moved on by rai_http_streams_wait.
 */
struct rai_http_stream {
	struct prefetch	*pf;
};

int
rai_http_stream_start(struct rai_http *h, const struct rai_http_req *req,
    struct rai_http_stream **out, struct rai_err *err)
{
	struct prefetch *pf;
	char *auth = NULL;

	if (h->smulti == NULL && (h->smulti = curl_multi_init()) == NULL)
		rai_die("out of memory creating a libcurl multi handle");
	if (h->auth != NULL && h->auth(h->auth_ud, &auth, err) == -1)
		return -1;
	pf = http_prefetch_new(h, req->url, req->accept, auth, err);
	rai_free_secret(auth);
	if (pf == NULL)
		return -1;
	pf->x.req = req;
	curl_easy_setopt(pf->curl, CURLOPT_ACCEPT_ENCODING,
	    http_accept_encoding(h, req));
	curl_easy_setopt(pf->curl, CURLOPT_TIMEOUT_MS, req->stream_timeout_ms);
	curl_easy_setopt(pf->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(pf->curl, CURLOPT_XFERINFOFUNCTION, http_progress_cb);
	curl_easy_setopt(pf->curl, CURLOPT_XFERINFODATA, &pf->x);
	if (req->on_data != NULL)
		http_reset_resp(&pf->resp, ERROR_BODY_MAX);
	http_log_curl_command(req, pf->hdrs);
	if (curl_multi_add_handle(h->smulti, pf->curl) != CURLM_OK) {
		http_prefetch_free(h, pf);
		return rai_err_set(err, RAI_E_INTERNAL, "libcurl refused a "
		    "stream of %s", req->url);
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->pf = pf;
	return 0;
}

int
rai_http_streams_wait(struct rai_http *h, long wait_ms,
    struct rai_http_stream *const *streams, size_t n)
{
	CURLMsg *m;
	size_t i;
	int running, left;

	if (h->smulti == NULL)
		return 0;
	if (wait_ms > 0 && curl_multi_poll(h->smulti, NULL, 0,
	    (int)(wait_ms > INT_MAX ? INT_MAX : wait_ms), NULL) != CURLM_OK)
		return -1;
	if (curl_multi_perform(h->smulti, &running) != CURLM_OK)
		return -1;
	while ((m = curl_multi_info_read(h->smulti, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		for (i = 0; i < n; i++)
			if (streams[i] != NULL &&
			    streams[i]->pf->curl == m->easy_handle) {
				streams[i]->pf->done = 1;
				streams[i]->pf->code = m->data.result;
			}
	}
	return 0;
}

int
rai_http_stream_result(struct rai_http *h, struct rai_http_stream *st,
    struct rai_http_resp *resp, struct rai_err *err)
{
	struct prefetch *pf = st->pf;
	struct rai_http_resp keep;

	if (!pf->done && !pf->x.stopped && !pf->x.sink_failed)
		return 1;
	if (pf->x.header_timeout)
		pf->code = CURLE_OPERATION_TIMEDOUT;
	if (pf->x.stopped || pf->x.sink_failed)
		pf->code = CURLE_OK;
	http_log_outcome(&pf->x, pf->code);
	keep = *resp;
	*resp = pf->resp;
	pf->resp = keep;
	pf->x.resp = resp;
	if (pf->x.stopped || (!pf->x.sink_failed && pf->code == CURLE_OK &&
	    http_status_ok(resp->status)))
		return 0;
	memcpy(h->errbuf, pf->errbuf, sizeof(h->errbuf));
	(void)http_attempt_error(&pf->x, pf->code, err);
	return -1;
}

void
rai_http_stream_free(struct rai_http *h, struct rai_http_stream *st)
{
	if (st == NULL)
		return;
	if (h->smulti != NULL)
		curl_multi_remove_handle(h->smulti, st->pf->curl);
	st->pf->x.req = &st->pf->req;	/* the caller's may be gone */
	http_prefetch_free(h, st->pf);
	free(st);
}
