/*
 * The push engine's answers (push.c has the map of the engine): each
 * step's answer moves its job on (HEAD, mount, POST, PATCH, PUT, the
 * manifests, verify's HEADs), retries what a retry can mend with a
 * backoff (a body step from a new session), renews credentials after
 * a 401, starts a lost upload session again, and tells a corrupt
 * archive from bytes changed on the way when the registry refuses a
 * digest. Apart from the way out (push_job.c) because it is the other
 * half of the state machine: it only ever calls down into that one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/push.h"
#include "adm/push_answer.h"
#include "adm/push_job.h"
#include "adm/reg_client.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"

#include "core/banned.h"

#define PUSH_BACKOFF_BASE_MS	500L
#define PUSH_BACKOFF_CAP_MS	8000L
#define MAX_RESTARTS		3	/* upload sessions lost (404) per blob */
#define MAX_RENEWALS		3	/* 401s answered by new credentials, per step */

/* ---- finishing a step ---- */

static void
job_done(struct push *p, struct job *j)
{
	j->state = J_DONE;
	adm_push_body_release(j);
	if (j->kind == JOB_BLOB) {
		j->src->owner = NULL;
		j->src->present_in = j->repo;
	}
}

void
adm_push_job_fail(struct push *p, struct job *j, struct rai_err *err)
{
	j->state = J_FAILED;
	if (j->kind == JOB_BLOB && j->src->owner == j)
		j->src->owner = NULL;
	adm_push_body_release(j);
	if (!p->failed)
		rai_err_move(&p->first_err, err);
	else
		rai_err_release(err);
	p->failed = 1;
}

/*
 * A blob whose bytes in the archive do not match their digest: this job
 * and every other one of the same blob end, and the images that need it
 * are not pushed (adm_push_make_manifest_jobs), while the rest of the push goes
 * on.
 */
static void
blob_bad(struct push *p, struct job *j)
{
	size_t i;

	if (j->src->bad == NULL)
		j->src->bad = xstrdup(j->berr.message != NULL ?
		    j->berr.message : "the archive is corrupt");
	for (i = 0; i < p->njobs; i++) {
		struct job *o = &p->jobs[i];

		if (o->kind == JOB_BLOB && o->src == j->src &&
		    o->state == J_WAITING)
			o->state = J_FAILED;
	}
	j->state = J_FAILED;
	if (j->src->owner == j)
		j->src->owner = NULL;
	adm_push_body_release(j);
	rai_err_release(&j->berr);
}

/* Whether the answer's first {"errors":[{"code"}]} is code. */
static int
answer_code_is(const struct job *j, const char *code)
{
	cJSON *root;
	int is;

	if (j->resp.body.len == 0)
		return 0;
	root = cJSON_ParseWithLength(j->resp.body.data, j->resp.body.len);
	is = strcmp(rai_json_str_or(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(root, "errors"), 0), "code", ""),
	    code) == 0;
	cJSON_Delete(root);
	return is;
}

/* The registry's {"errors":[{"code","message","detail"}]}, short. */
static void
registry_error(struct push *p, struct job *j, struct rai_err *err)
{
	const char *code = NULL, *msg = NULL;
	cJSON *root = NULL, *e0;
	char what[200];

	if (j->kind == JOB_BLOB)
		snprintf(what, sizeof(what), "blob %.19s in '%s'",
		    j->src->digest, j->repo);
	else
		snprintf(what, sizeof(what), "manifest '%s'", j->t->full);
	if (j->resp.body.len > 0)
		root = cJSON_ParseWithLength(j->resp.body.data,
		    j->resp.body.len);
	e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root,
	    "errors"), 0);
	code = rai_json_str(e0, "code");
	msg = rai_json_str(e0, "message");
	rai_err_set(err, j->resp.status == 401 || j->resp.status == 403 ?
	    RAI_E_AUTH : RAI_E_HTTP, "%s %s: %s answered HTTP %ld%s%s%s%s",
	    adm_push_step_method(j->step), what, p->client.host, j->resp.status,
	    code != NULL ? " " : "", code != NULL ? code : "",
	    msg != NULL ? ": " : "", msg != NULL ? msg : "");
	err->http_status = j->resp.status;
	err->retry_after = j->resp.retry_after;
	cJSON_Delete(root);
}

static int
transient(int code, long status)
{
	/*
	 * a body cut off by a reset (the registry restarting): curl cannot
	 * rewind our read callback, but the retry sends the blob again from
	 * a new session, reading the archive afresh
	 */
	if (code == CURLE_SEND_FAIL_REWIND)
		return 1;
	if (code != CURLE_OK)
		return rai_http_retryable(RAI_HTTP_IDEMPOTENT, code, 0, 0, 0);
	return status == 408 || status == 429 || status == 500 ||
	    status == 502 || status == 503 || status == 504;
}

/*
 * A registry restarting (an upgrade, a node drained) is gone for tens of
 * seconds, longer than an API server's blip: from 0.5 s doubling to at
 * most 8 s, the default 10 retries wait about a minute in all. A
 * Retry-After wins.
 */
long
adm_push_backoff_ms(int attempt, int retry_after, unsigned rnd)
{
	long d = PUSH_BACKOFF_BASE_MS;

	if (retry_after > 0)
		return rai_http_backoff_ms(attempt, retry_after, rnd);
	while (--attempt > 0 && d < PUSH_BACKOFF_CAP_MS)
		d *= 2;
	if (d > PUSH_BACKOFF_CAP_MS)
		d = PUSH_BACKOFF_CAP_MS;
	/* +-25%, so that the jobs do not come back in lockstep */
	return d - d / 4 + (long)(rnd % (unsigned)(d / 2 + 1));
}

/* The bytes of j's body sent so far go again: the bound grows by them. */
static void
resend_body(struct push *p, struct job *j)
{
	p->st.bytes_resent += j->sent;
}

/* Retries the step (a body step: from a new session) after a backoff. */
static int
retry_later(struct push *p, struct job *j, const char *why)
{
	struct adm_push_event ev = { 0 };
	long delay;

	if (j->attempts >= p->retries)
		return 0;
	j->attempts++;
	p->st.retries++;
	delay = adm_push_backoff_ms(j->attempts, j->resp.retry_after,
	    p->rnd = p->rnd * 1103515245u + 12345u);
	j->waited_ms += delay;
	j->not_before = rai_now_ms() + delay;
	if (j->step == S_PUT_WHOLE || j->step == S_PATCH ||
	    j->step == S_PUT_FINAL) {
		resend_body(p, j);
		j->sent = 0;
		free(j->location);
		j->location = NULL;
		j->step = S_POST;
	}
	j->state = J_WAITING;
	ev.type = ADM_EV_RETRY;
	ev.repo = j->repo;
	ev.kind = j->kind == JOB_BLOB ? "blob" : "manifest";
	ev.digest = j->kind == JOB_BLOB ? j->src->digest : j->t->digest;
	ev.target = j->kind == JOB_MANIFEST ? j->t->full : NULL;
	ev.message = why;
	ev.delay_ms = delay;
	ev.attempt = j->attempts;
	ev.max_attempts = p->retries;
	ev.waited_ms = j->waited_ms;
	adm_push_emit(p, &ev);
	return 1;
}

static void
next_step(struct job *j, enum step s)
{
	j->step = s;
	j->state = J_WAITING;
	j->renewed = 0;
	j->not_before = 0;
}

static int
take_location(struct push *p, struct job *j, struct rai_err *err)
{
	char *l;

	if (j->resp.location == NULL || *j->resp.location == '\0')
		return rai_err_set(err, RAI_E_PROTO, "%s %s: the registry "
		    "answered %ld without a Location",
		    adm_push_step_method(j->step), j->repo, j->resp.status);
	l = adm_push_resolve_location(p->client.base, j->resp.location);
	/*
	 * An upload may go to another origin (a storage front end), which
	 * gets no credentials; but the layers the user asked to send over
	 * TLS must not cross the network in clear text.
	 */
	if (!p->client.plain_http && strncasecmp(l, "http://", 7) == 0) {
		rai_err_set(err, RAI_E_PROTO, "registry '%s' is https but "
		    "sends the upload of %s to plain http ('%.200s'); refusing "
		    "to send the layers in clear text", p->client.host, j->repo,
		    l);
		free(l);
		return -1;
	}
	free(j->location);
	j->location = l;
	return 0;
}

static void
blob_uploaded(struct push *p, struct job *j, struct rai_err *err)
{
	if (j->resp.digest != NULL && strcmp(j->resp.digest,
	    j->src->digest) != 0) {
		rai_err_set(err, RAI_E_PROTO, "blob %s in '%s': the registry "
		    "stored it as %s", j->src->digest, j->repo, j->resp.digest);
		adm_push_job_fail(p, j, err);
		return;
	}
	p->st.uploaded++;
	adm_push_emit_job(p, ADM_EV_BLOB_UPLOADED, j, NULL, NULL);
	job_done(p, j);
}

/* One answer of an upload-mode blob step; 0 handled, -1 fatal (err). */
static int
blob_answer(struct push *p, struct job *j, struct rai_err *err)
{
	long st = j->resp.status;
	int big = j->src->size > p->threshold;

	switch (j->step) {
	case S_HEAD:
		if (st == 200) {
			p->st.skipped++;
			adm_push_emit_job(p, ADM_EV_BLOB_SKIPPED, j, NULL,
			    NULL);
			job_done(p, j);
			return 0;
		}
		if (st != 404)
			break;
		if (p->o->mode == ADM_PUSH_DRY_RUN) {
			/* another repository's copy would be mounted */
			if (j->src->present_in == NULL)
				p->st.bytes_to_send += j->src->size;
			adm_push_emit_job(p, ADM_EV_BLOB_NEEDED, j,
			    j->src->present_in, NULL);
			job_done(p, j);
			return 0;
		}
		next_step(j, j->src->present_in != NULL &&
		    strcmp(j->src->present_in, j->repo) != 0 ? S_MOUNT :
		    S_POST);
		return 0;
	case S_MOUNT:
		if (st == 201) {
			p->st.mounted++;
			adm_push_emit_job(p, ADM_EV_BLOB_MOUNTED, j,
			    j->src->present_in, NULL);
			job_done(p, j);
			return 0;
		}
		/* a 202: the registry opened a normal session instead */
		/* FALLTHROUGH */
	case S_POST:
		if (st != 202)
			break;
		if (take_location(p, j, err) == -1)
			return -1;
		next_step(j, big ? S_PATCH : S_PUT_WHOLE);
		return 0;
	case S_PATCH:
		if (st != 202)
			break;
		if (take_location(p, j, err) == -1)
			return -1;
		next_step(j, S_PUT_FINAL);
		return 0;
	case S_PUT_WHOLE:
	case S_PUT_FINAL:
		if (st != 201)
			break;
		blob_uploaded(p, j, err);
		return 0;
	default:
		break;
	}
	registry_error(p, j, err);
	return -1;
}

static int
manifest_answer(struct push *p, struct job *j, struct rai_err *err)
{
	long st = j->resp.status;

	if (j->step == S_MANIFEST_HEAD) {
		if (st == 404) {
			p->st.missing++;
			adm_push_emit_job(p, ADM_EV_MISSING, j, NULL, NULL);
		} else if (st == 200 && j->resp.digest != NULL &&
		    strcmp(j->resp.digest, j->t->digest) != 0) {
			p->st.different++;
			adm_push_emit_job(p, ADM_EV_DIFFERENT, j, NULL,
			    j->resp.digest);
		} else if (st == 200) {
			p->st.manifests++;
			adm_push_emit_job(p, ADM_EV_PRESENT, j, NULL, NULL);
		} else {
			registry_error(p, j, err);
			return -1;
		}
		job_done(p, j);
		return 0;
	}
	if (st != 201) {
		registry_error(p, j, err);
		return -1;
	}
	if (j->resp.digest != NULL && strcmp(j->resp.digest, j->t->digest) !=
	    0)
		return rai_err_set(err, RAI_E_PROTO, "manifest '%s': the "
		    "registry stored it as %s, expected %s", j->t->full,
		    j->resp.digest, j->t->digest);
	p->st.manifests++;
	j->t->pushed = 1;
	adm_push_emit_job(p, ADM_EV_MANIFEST_PUSHED, j, NULL, NULL);
	job_done(p, j);
	return 0;
}

static int
verify_blob_answer(struct push *p, struct job *j, struct rai_err *err)
{
	if (j->resp.status == 200) {
		p->st.skipped++;
		adm_push_emit_job(p, ADM_EV_PRESENT, j, NULL, NULL);
	} else if (j->resp.status == 404) {
		p->st.missing++;
		adm_push_emit_job(p, ADM_EV_MISSING, j, NULL, NULL);
	} else {
		registry_error(p, j, err);
		return -1;
	}
	job_done(p, j);
	return 0;
}

static const char *
curl_why(int code, long status, char *buf, size_t n)
{
	if (code != CURLE_OK)
		snprintf(buf, n, "%s", curl_easy_strerror((CURLcode)code));
	else
		snprintf(buf, n, "HTTP %ld", status);
	return buf;
}

/*
 * A blob's closing PUT refused as DIGEST_INVALID (the registry's own
 * check of what it received): a corrupt archive loses only the images
 * with that blob, as a short read does; any other cause fails the push
 * with the registry's words. 0: not that answer.
 */
static int
refused_digest(struct push *p, struct job *j)
{
	struct rai_err err = RAI_ERR_INIT;

	if (j->kind != JOB_BLOB || (j->step != S_PUT_WHOLE &&
	    j->step != S_PUT_FINAL) || !answer_code_is(j, "DIGEST_INVALID"))
		return 0;
	switch (adm_push_archive_at_fault(j, &err)) {
	case 1:
		adm_push_cancel_session(p, j);
		blob_bad(p, j);
		return 1;
	case 0:
		registry_error(p, j, &err);
		rai_err_set_hint(&err, "%s of the blob does hash to its "
		    "digest: the bytes changed on the way to the registry (a "
		    "proxy in between?)", j->src->gz != NULL ?
		    "the gzip copy made for --compress" : "the archive's copy");
		break;
	default:
		break;
	}
	adm_push_job_fail(p, j, &err);
	return 1;
}

void
adm_push_finish(struct push *p, struct job *j, CURLcode code)
{
	struct rai_err err = RAI_ERR_INIT;
	char why[128], what[160];
	long st = 0;
	int rc;

	curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &st);
	j->resp.status = st;
	rai_log(RAI_LOG_REQ, "%s %.*s %ld in %lld ms",
	    adm_push_step_method(j->step), (int)strcspn(j->url, "?"), j->url,
	    st, rai_now_ms() - j->started_ms);
	adm_push_end_transfer(p, j);
	if (j->body_failed) {
		/*
		 * the archive is wrong: no retry can help, but only the
		 * images with this blob are lost; the others go on
		 */
		adm_push_cancel_session(p, j);
		blob_bad(p, j);
		return;
	}
	if (code != CURLE_OK || transient((int)code, st)) {
		/* TLS and other failures that a retry cannot mend fail now */
		if (transient((int)code, st) && retry_later(p, j,
		    curl_why((int)code, st, why, sizeof(why))))
			return;
		if (code != CURLE_OK) {
			snprintf(what, sizeof(what), "%s %s",
			    adm_push_step_method(j->step), j->kind == JOB_BLOB ?
			    j->src->digest : j->t->full);
			adm_reg_client_curl_err(&p->client, (int)code, what,
			    j->errbuf, &err);
		} else {
			registry_error(p, j, &err);
		}
		if (j->attempts > 0)
			rai_err_set_hint(&err, "gave up after %d retries over "
			    "%.1fs; --retries sets how many (at most 20)",
			    j->attempts, (double)j->waited_ms / 1000.0);
		adm_push_job_fail(p, j, &err);
		return;
	}
	if (st == 401 && (j->renewed < MAX_RENEWALS || j->token_gen !=
	    p->client.token_gen)) {
		/*
		 * Renew a few times per step (other jobs may use a short-lived
		 * token up); when another job renewed the token since this
		 * request left, just try again with the new one.
		 */
		if (j->token_gen == p->client.token_gen) {
			j->renewed++;
			if (adm_reg_client_renew(&p->client, &err) == -1) {
				adm_push_job_fail(p, j, &err);
				return;
			}
		}
		j->state = J_WAITING;
		if (j->step == S_PUT_WHOLE || j->step == S_PATCH) {
			resend_body(p, j);
			j->sent = 0;
		}
		return;
	}
	if (st == 404 && j->kind == JOB_BLOB && (j->step == S_PUT_WHOLE ||
	    j->step == S_PATCH || j->step == S_PUT_FINAL) &&
	    j->restarts < MAX_RESTARTS) {
		/* the upload session died: start a new one */
		j->restarts++;
		resend_body(p, j);
		j->sent = 0;
		free(j->location);
		j->location = NULL;
		next_step(j, S_POST);
		return;
	}
	if (st == 400 && refused_digest(p, j))
		return;
	if (j->kind == JOB_MANIFEST)
		rc = manifest_answer(p, j, &err);
	else if (p->o->mode == ADM_PUSH_VERIFY)
		rc = verify_blob_answer(p, j, &err);
	else
		rc = blob_answer(p, j, &err);
	if (rc == -1)
		adm_push_job_fail(p, j, &err);
	else
		rai_err_release(&err);
}
