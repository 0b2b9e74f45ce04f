/*
 * adm_push, on top of the push engine (push.c has the map): the plan,
 * the registry's /v2/ probe, then the loop that keeps at most --jobs
 * transfers on one libcurl multi handle, hands each finished one to
 * push_answer.c and ticks progress; blobs first, then the manifests of
 * the targets whose blobs are all good; verify's summary. The driver is
 * apart from the state machine it drives, so calls only go down.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "adm/image.h"
#include "adm/push.h"
#include "adm/push_answer.h"
#include "adm/push_job.h"
#include "adm/push_plan.h"
#include "adm/push_run.h"
#include "adm/reg_client.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/time.h"

#include "core/banned.h"

#define TICK_MS			250

/* ---- the loop ---- */

static int
can_start(const struct push *p, const struct job *j, long long now)
{
	if (j->state != J_WAITING || j->not_before > now)
		return 0;
	/* one job per digest at a time: the next one mounts or skips */
	if (j->kind == JOB_BLOB && p->o->mode == ADM_PUSH_UPLOAD &&
	    j->src->owner != NULL && j->src->owner != j)
		return 0;
	return 1;
}

static void
emit_progress(struct push *p)
{
	struct adm_push_event ev = { 0 };
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		struct job *j = &p->jobs[i];

		if (j->state == J_RUNNING && j->kind == JOB_BLOB &&
		    (j->step == S_PUT_WHOLE || j->step == S_PATCH))
			adm_push_emit_job(p, ADM_EV_BLOB_PROGRESS, j, NULL,
			    NULL);
	}
	ev.type = ADM_EV_TICK;
	adm_push_emit(p, &ev);
}

static void
cancel_all(struct push *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		struct job *j = &p->jobs[i];

		if (j->easy != NULL) {
			adm_push_end_transfer(p, j);
			adm_push_cancel_session(p, j);
		}
		adm_push_body_release(j);
	}
}

static int
pending(const struct push *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++)
		if (p->jobs[i].state == J_WAITING ||
		    p->jobs[i].state == J_RUNNING)
			return 1;
	return 0;
}

static int
run_jobs(struct push *p, struct rai_err *err)
{
	long long last_tick = 0, now;
	struct rai_err serr = RAI_ERR_INIT;
	CURLMsg *m;
	size_t i;
	int still, left;

	while (!p->failed && pending(p)) {
		now = rai_now_ms();
		for (i = 0; i < p->njobs && p->running < p->max_jobs; i++) {
			struct job *j = &p->jobs[i];

			if (!can_start(p, j, now))
				continue;
			if (adm_push_start_job(p, j, &serr) == -1) {
				adm_push_end_transfer(p, j);
				adm_push_job_fail(p, j, &serr);
				break;
			}
			/* a blob job holds its digest until it ends */
		}
		if (p->failed)
			break;
		curl_multi_perform(p->multi, &still);
		while ((m = curl_multi_info_read(p->multi, &left)) != NULL) {
			struct job *j = NULL;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
			    (char **)&j);
			adm_push_finish(p, j, m->data.result);
		}
		if (p->failed)
			break;
		now = rai_now_ms();
		if (now - last_tick >= TICK_MS) {
			emit_progress(p);
			last_tick = now;
		}
		curl_multi_poll(p->multi, NULL, 0, p->running > 0 ? 100 : 20,
		    NULL);
	}
	cancel_all(p);
	if (p->failed) {
		rai_err_move(err, &p->first_err);
		return -1;
	}
	return 0;
}

/* ---- the whole run ---- */

/*
 * A registry that is down or starting when the push begins (restarted
 * with the cluster, say) gets the same retries as one gone in mid-push:
 * refused or timed-out connections, 429 and 5xx. A TLS failure, an
 * unknown host or a refusal of the credentials will not change by
 * waiting.
 */
static int
ping_retryable(const struct rai_err *err)
{
	switch (err->kind) {
	case RAI_E_NET:
		return err->curl_code == CURLE_COULDNT_CONNECT ||
		    err->curl_code == CURLE_OPERATION_TIMEDOUT ||
		    err->curl_code == CURLE_GOT_NOTHING ||
		    err->curl_code == CURLE_SEND_ERROR ||
		    err->curl_code == CURLE_RECV_ERROR;
	case RAI_E_HTTP:
		return err->http_status == 429 || err->http_status >= 500;
	default:
		return 0;
	}
}

/* 1 after waiting out a backoff (err released), 0: give up with err. */
static int
ping_retry(struct push *p, int *attempt, long *waited, struct rai_err *err)
{
	struct adm_push_event ev = { 0 };
	long delay;

	if (!ping_retryable(err) || *attempt >= p->retries)
		return 0;
	++*attempt;
	p->st.retries++;
	delay = adm_push_backoff_ms(*attempt, err->retry_after,
	    p->rnd = p->rnd * 1103515245u + 12345u);
	*waited += delay;
	ev.type = ADM_EV_RETRY;
	ev.kind = "registry";
	ev.message = err->message;
	ev.delay_ms = delay;
	ev.attempt = *attempt;
	ev.max_attempts = p->retries;
	ev.waited_ms = *waited;
	adm_push_emit(p, &ev);
	rai_err_release(err);
	rai_sleep_ms(delay);
	return 1;
}

static int
connect_registry(struct push *p, struct rai_err *err)
{
	const char **repos = xcalloc(p->ntargets + 1, sizeof(*repos));
	size_t n = 0, i, k;
	long waited = 0;
	int rc, attempt = 0;

	for (i = 0; i < p->ntargets; i++) {
		for (k = 0; k < n; k++)
			if (strcmp(repos[k], p->targets[i].repo) == 0)
				break;
		if (k == n)
			repos[n++] = p->targets[i].repo;
	}
	while ((rc = adm_reg_client_ping(&p->client, repos, n,
	    p->o->mode == ADM_PUSH_UPLOAD, err)) == -1 &&
	    ping_retry(p, &attempt, &waited, err))
		;
	free(repos);
	return rc;
}

static void
push_release(struct push *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		adm_push_body_release(&p->jobs[i]);
		adm_resp_release(&p->jobs[i].resp);
		free(p->jobs[i].location);
		free(p->jobs[i].url);
		rai_err_release(&p->jobs[i].berr);
	}
	free(p->jobs);
	for (i = 0; i < p->ntargets; i++)
		adm_push_target_release(&p->targets[i]);
	free(p->targets);
	for (i = 0; i < p->nsources; i++)
		free(p->sources[i].bad);
	free(p->sources);
	free(p->first_bad);
	adm_gz_layers_free(p->gz, p->ngz);
	if (p->multi != NULL)
		curl_multi_cleanup(p->multi);
	adm_reg_client_release(&p->client);
	adm_reg_addr_release(&p->addr);
	rai_err_release(&p->first_err);
	free(p->first_missing);
}

/* Images, not references: an image with two tags is pushed once both are. */
static void
count_images(struct push *p)
{
	size_t i, k;
	int first, all;

	for (i = 0; i < p->ntargets; i++) {
		first = 1;
		for (k = 0; k < i && first; k++)
			first = p->targets[k].im != p->targets[i].im;
		if (!first)
			continue;
		all = 1;
		for (k = i; k < p->ntargets; k++)
			if (p->targets[k].im == p->targets[i].im)
				all &= p->targets[k].pushed;
		p->st.images++;
		p->st.images_pushed += all;
	}
}

static void
verify_summary_err(struct push *p, struct rai_err *err)
{
	size_t more = p->st.missing + p->st.different - 1;

	rai_err_set(err, RAI_E_NOTFOUND, "registry '%s' does not hold the "
	    "images as archived: %s%s", p->client.host,
	    p->first_missing != NULL ? p->first_missing : "?",
	    more > 0 ? " (and more, listed above)" : "");
}

int
adm_push(struct adm_archive *const *arcs, size_t narcs,
    const struct adm_push_opts *o, struct adm_push_stats *stats,
    struct rai_err *err)
{
	struct push p;
	int rc = -1;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.t0 = rai_now_ms();
	p.rnd = (unsigned)p.t0 ^ (unsigned)getpid();
	p.max_jobs = o->jobs > 0 ? o->jobs : ADM_PUSH_DEFAULT_JOBS;
	p.retries = o->retries >= 0 ? o->retries : ADM_PUSH_DEFAULT_RETRIES;
	p.threshold = o->patch_threshold > 0 ? o->patch_threshold :
	    ADM_PUSH_PATCH_THRESHOLD;
	if (adm_reg_addr_parse(o->registry, &p.addr, err) == -1)
		goto out;
	if (adm_push_plan(&p, arcs, narcs, err) == -1)
		goto out;
	adm_push_make_blob_jobs(&p);
	if (o->mode == ADM_PUSH_VERIFY)
		adm_push_make_manifest_jobs(&p, S_MANIFEST_HEAD);
	if (adm_reg_client_init(&p.client, &o->conn, &p.addr, err) == -1 ||
	    connect_registry(&p, err) == -1)
		goto out;
	p.st.connected = 1;
	if ((p.multi = curl_multi_init()) == NULL) {
		rai_err_set(err, RAI_E_NOMEM, "cannot start libcurl");
		goto out;
	}
	curl_multi_setopt(p.multi, CURLMOPT_MAX_HOST_CONNECTIONS,
	    (long)p.max_jobs);
	curl_multi_setopt(p.multi, CURLMOPT_MAXCONNECTS, (long)p.max_jobs + 2);
	if (run_jobs(&p, err) == -1)
		goto out;
	if (o->mode == ADM_PUSH_UPLOAD) {
		adm_push_make_manifest_jobs(&p, S_MANIFEST_PUT);
		if (run_jobs(&p, err) == -1)
			goto out;
		if (p.st.not_pushed > 0) {
			rai_err_set(err, RAI_E_PROTO, "%zu of %zu reference%s not "
			    "pushed (the others were): %s%s", p.st.not_pushed,
			    p.ntargets, p.ntargets == 1 ? "" : "s", p.first_bad,
			    p.st.not_pushed > 1 ? ", and more above" : "");
			goto out;
		}
	}
	if (o->mode == ADM_PUSH_VERIFY && (p.st.missing > 0 ||
	    p.st.different > 0)) {
		verify_summary_err(&p, err);
		goto out;
	}
	rc = 0;
out:
	count_images(&p);
	p.st.elapsed_ms = rai_now_ms() - p.t0;
	if (stats != NULL)
		*stats = p.st;
	push_release(&p);
	return rc;
}
