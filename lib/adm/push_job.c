/*
 * The push engine's jobs on the way out (push.c has the map of the
 * engine): events, the bodies a request sends (read from the archive
 * or the --compress gzip spool, not hashed), and starting a step: its
 * method, URL, credentials and headers on a libcurl easy handle in the
 * multi handle. What comes back is push_answer.c's; this file is the
 * lowest of the engine's and calls none of the others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "adm/image.h"
#include "adm/push.h"
#include "adm/push_job.h"
#include "adm/reg_client.h"
#include "adm/reg_gzip.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/time.h"

#include "core/banned.h"

#define UPLOAD_BUFFER		(2L << 20)	/* libcurl allows up to 2 MiB */
#define MANIFEST_ACCEPT		"Accept: " ADM_MT_OCI_MANIFEST ", " \
				ADM_MT_DOCKER_MANIFEST ", " ADM_MT_OCI_INDEX \
				", " ADM_MT_DOCKER_LIST

/* ---- events ---- */

void
adm_push_emit(struct push *p, struct adm_push_event *ev)
{
	p->st.elapsed_ms = rai_now_ms() - p->t0;
	ev->stats = &p->st;
	if ((ev->type == ADM_EV_MISSING || ev->type == ADM_EV_DIFFERENT) &&
	    p->first_missing == NULL)
		p->first_missing = ev->type == ADM_EV_MISSING ?
		    xasprintf("%s %s is missing in '%s'", ev->kind,
		    ev->target != NULL ? ev->target : ev->digest, ev->repo) :
		    xasprintf("'%s' is %s, not %s", ev->target, ev->found,
		    ev->digest);
	if (p->o->on_event != NULL)
		p->o->on_event(p->o->ud, ev);
}

void
adm_push_emit_job(struct push *p, enum adm_push_ev_type type,
    const struct job *j, const char *from, const char *found)
{
	struct adm_push_event ev = { 0 };

	ev.type = type;
	ev.repo = j->repo;
	ev.from = from;
	ev.found = found;
	if (j->kind == JOB_BLOB) {
		ev.kind = "blob";
		ev.digest = j->src->digest;
		ev.size = j->src->size;
		ev.done = j->sent;
	} else {
		ev.kind = "manifest";
		ev.digest = j->t->digest;
		ev.size = j->t->manifest_len;
		ev.source = j->t->source;
		ev.target = j->t->full;
	}
	adm_push_emit(p, &ev);
}

/* ---- request bodies ---- */

/* The archive does not hold what its digests say. */
static int
corrupt(struct job *j, const char *want, const char *got)
{
	const struct source *s = j->src;

	rai_err_set(&j->berr, RAI_E_PROTO, "'%s': digest mismatch in blob "
	    "'%s': expected %s, content has %s; the archive is corrupt",
	    s->a->path, s->b->path, want, got);
	j->body_failed = 1;
	return -1;
}

/*
 * A --compress gzip copy refused as DIGEST_INVALID: its digest was
 * taken as it was written, from a layer checked as it was read, so
 * only the file under TMPDIR, or the archive its stored blocks are
 * framed from, can have changed since. 0 it still hashes
 * to its digest, -1 it does not or cannot be read (err).
 */
static int
spool_at_fault(const struct source *s, struct rai_err *err)
{
	char got[ADM_DIGEST_MAX];

	if (adm_gz_layer_sha256(s->gz, got, err) == -1)
		return -1;
	if (strcmp(got, s->digest) == 0)
		return 0;
	return rai_err_set(err, RAI_E_IO, "the gzip copy of blob '%s' of "
	    "'%s' made for --compress changed after it was made (in the "
	    "temporary directory, or the archive it frames blocks from): "
	    "expected %s, content has %s",
	    s->b->path, s->a->path, s->digest, got);
}

/*
 * The registry refused a blob's closing PUT as DIGEST_INVALID: what it
 * received does not hash to the digest. Bytes are not hashed as they
 * are sent (the registry hashes them anyway, and a blob it refuses is
 * never stored), so only now is our copy hashed, to say whose fault
 * it is: 1 the archive's (j->berr says why), 0 not ours (the bytes
 * changed on the way), -1 our copy could not be read or changed on
 * disk (err).
 */
int
adm_push_archive_at_fault(struct job *j, struct rai_err *err)
{
	const struct source *s = j->src;
	struct adm_blob_loc loc;
	char got[ADM_DIGEST_MAX];
	int rc;

	if (s->gz != NULL)
		return spool_at_fault(s, err);
	if (adm_blob_locate(s->a, s->b->path, &loc, err) == -1)
		return -1;
	rc = adm_sha256_fd(loc.fd, loc.offset, loc.size, got, err);
	adm_blob_loc_release(&loc);
	if (rc == -1)
		return -1;
	if (strcmp(got, s->digest) == 0)
		return 0;
	corrupt(j, s->digest, got);
	return 1;
}

static size_t
read_cb(char *buf, size_t size, size_t nitems, void *ud)
{
	struct job *j = ud;
	const struct source *s = j->src;
	size_t want = size * nitems;
	ssize_t n;

	if (j->kind == JOB_MANIFEST) {
		n = (ssize_t)(j->t->manifest_len - j->mem_off);
		if ((size_t)n > want)
			n = (ssize_t)want;
		memcpy(buf, j->t->manifest + j->mem_off, (size_t)n);
		j->mem_off += (size_t)n;
		return (size_t)n;
	}
	if (j->sent >= s->size)
		return 0;
	if ((uint64_t)want > s->size - j->sent)
		want = (size_t)(s->size - j->sent);
	if (s->gz != NULL)
		n = adm_gz_layer_pread(s->gz, buf, want, j->sent);
	else
		do
			n = pread(j->loc.fd, buf, want, (off_t)(j->loc.offset +
			    j->sent));
		while (n == -1 && errno == EINTR);
	if (n < 0) {
		rai_err_errno(&j->berr, errno, "'%s': reading '%s'",
		    s->a->path, s->b->path);
		j->body_failed = 1;
		return CURL_READFUNC_ABORT;
	}
	if (n == 0) {
		rai_err_set(&j->berr, RAI_E_PROTO, "'%s': blob '%s' ends "
		    "early; the archive is corrupt", s->a->path, s->b->path);
		j->body_failed = 1;
		return CURL_READFUNC_ABORT;
	}
	j->sent += (uint64_t)n;
	j->p->st.bytes_sent += (uint64_t)n;
	return (size_t)n;
}

void
adm_push_body_release(struct job *j)
{
	if (j->have_loc)
		adm_blob_loc_release(&j->loc);
	j->have_loc = 0;
}

static int
body_open(struct job *j, struct rai_err *err)
{
	const struct source *s = j->src;

	adm_push_body_release(j);
	j->sent = 0;
	j->body_failed = 0;
	if (s->gz != NULL) {
		/* compressed ahead: read_cb reads the spooled copy */
		memset(&j->loc, 0, sizeof(j->loc));
		j->loc.fd = -1;
		j->loc.size = s->size;
	} else if (adm_blob_locate(s->a, s->b->path, &j->loc, err) == -1) {
		return -1;
	}
	j->have_loc = 1;
	if (j->loc.size != s->size)
		return rai_err_set(err, RAI_E_PROTO, "'%s': size mismatch in "
		    "blob '%s'", s->a->path, s->b->path);
	return 0;
}

/* ---- starting a step ---- */

const char *
adm_push_step_method(enum step s)
{
	switch (s) {
	case S_HEAD:
	case S_MANIFEST_HEAD:
		return "HEAD";
	case S_MOUNT:
	case S_POST:
		return "POST";
	case S_PATCH:
		return "PATCH";
	default:
		return "PUT";
	}
}

static char *
step_url(struct push *p, struct job *j)
{
	const char *base = p->client.base;

	switch (j->step) {
	case S_HEAD:
		return xasprintf("%s/v2/%s/blobs/%s", base, j->repo,
		    j->src->digest);
	case S_MOUNT:
		return xasprintf("%s/v2/%s/blobs/uploads/?mount=%s&from=%s",
		    base, j->repo, j->src->digest, j->src->present_in);
	case S_POST:
		return xasprintf("%s/v2/%s/blobs/uploads/", base, j->repo);
	case S_PUT_WHOLE:
	case S_PUT_FINAL:
		return adm_push_digest_url(j->location, j->src->digest);
	case S_PATCH:
		return xstrdup(j->location);
	case S_MANIFEST_PUT:
	case S_MANIFEST_HEAD:
		return xasprintf("%s/v2/%s/manifests/%s", base, j->repo,
		    j->t->tag);
	}
	return NULL;
}

/*
 * Credentials go only to the registry itself: an upload Location may
 * point elsewhere (a storage front end), which must not see them.
 */
static int
same_origin(const char *base, const char *url)
{
	size_t n = strlen(base);

	return strncmp(url, base, n) == 0 && (url[n] == '/' || url[n] ==
	    '\0' || url[n] == '?');
}

static void
add_header(struct job *j, const char *line)
{
	j->hdrs = curl_slist_append(j->hdrs, line);
}

static void
wipe_headers(struct curl_slist *h)
{
	for (; h != NULL; h = h->next)
		explicit_bzero(h->data, strlen(h->data));
}

static void
set_body(struct job *j, CURL *e, int chunked, curl_off_t len)
{
	curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
	/*
	 * the largest libcurl takes: each loop turn refills a socket with
	 * more, which counts when this one thread competes for the CPU
	 */
	curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, UPLOAD_BUFFER);
	curl_easy_setopt(e, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(e, CURLOPT_READDATA, j);
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
	    adm_push_step_method(j->step));
	if (chunked)
		add_header(j, "Transfer-Encoding: chunked");
	else
		curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, len);
}

static int
configure(struct push *p, struct job *j, CURL *e, struct rai_err *err)
{
	char ct[160];

	switch (j->step) {
	case S_HEAD:
	case S_MANIFEST_HEAD:
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
		if (j->step == S_MANIFEST_HEAD)
			add_header(j, MANIFEST_ACCEPT);
		break;
	case S_MOUNT:
	case S_POST:
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, 0L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
		break;
	case S_PUT_WHOLE:
	case S_PATCH:
		if (body_open(j, err) == -1)
			return -1;
		add_header(j, "Content-Type: application/octet-stream");
		set_body(j, e, j->step == S_PATCH, (curl_off_t)j->src->size);
		break;
	case S_PUT_FINAL:
		curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)0);
		curl_easy_setopt(e, CURLOPT_READFUNCTION, read_cb);
		curl_easy_setopt(e, CURLOPT_READDATA, j);
		break;
	case S_MANIFEST_PUT:
		j->mem_off = 0;
		snprintf(ct, sizeof(ct), "Content-Type: %s", j->t->media_type);
		add_header(j, ct);
		set_body(j, e, 0, (curl_off_t)j->t->manifest_len);
		break;
	}
	return 0;
}

int
adm_push_start_job(struct push *p, struct job *j, struct rai_err *err)
{
	char *auth = NULL;
	CURL *e;

	if ((e = curl_easy_init()) == NULL)
		return rai_err_set(err, RAI_E_NOMEM, "cannot start libcurl");
	j->easy = e;
	j->errbuf[0] = '\0';
	adm_resp_release(&j->resp);
	free(j->url);
	j->url = step_url(p, j);
	adm_reg_client_setup(&p->client, e);
	curl_easy_setopt(e, CURLOPT_URL, j->url);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, j->errbuf);
	curl_easy_setopt(e, CURLOPT_PRIVATE, j);
	adm_resp_attach(&j->resp, e);
	add_header(j, "Expect:");
	if (same_origin(p->client.base, j->url) &&
	    adm_reg_client_header(&p->client, &auth, err) == -1)
		return -1;
	if (auth != NULL) {
		add_header(j, auth);
		rai_free_secret(auth);
	}
	if (configure(p, j, e, err) == -1)
		return -1;
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, j->hdrs);
	j->state = J_RUNNING;
	j->started_ms = rai_now_ms();
	j->token_gen = p->client.token_gen;
	if (j->kind == JOB_BLOB) {
		j->src->owner = j;
		if (j->step == S_PUT_WHOLE || j->step == S_PATCH)
			adm_push_emit_job(p, ADM_EV_BLOB_START, j, NULL, NULL);
	}
	curl_multi_add_handle(p->multi, e);
	p->running++;
	return 0;
}

void
adm_push_end_transfer(struct push *p, struct job *j)
{
	if (j->easy == NULL)
		return;
	curl_multi_remove_handle(p->multi, j->easy);
	curl_easy_cleanup(j->easy);
	j->easy = NULL;
	wipe_headers(j->hdrs);
	curl_slist_free_all(j->hdrs);
	j->hdrs = NULL;
	p->running--;
}

/* Best effort: tell the registry to drop a session we give up on. */
void
adm_push_cancel_session(struct push *p, struct job *j)
{
	char *auth = NULL;
	struct curl_slist *h = NULL;
	CURL *e;

	if (j->location == NULL || (e = curl_easy_init()) == NULL)
		return;
	adm_reg_client_setup(&p->client, e);
	curl_easy_setopt(e, CURLOPT_URL, j->location);
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
	curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 5000L);
	if (same_origin(p->client.base, j->location) &&
	    adm_reg_client_header(&p->client, &auth, NULL) == 0 &&
	    auth != NULL) {
		h = curl_slist_append(h, auth);
		rai_free_secret(auth);
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	(void)curl_easy_perform(e);
	wipe_headers(h);
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
}
