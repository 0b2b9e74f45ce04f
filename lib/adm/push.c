/*
 * adm_push: the push/verify engine over the libcurl multi interface
 * (see adm_push.h for the flow). One job per (repository, blob digest)
 * and one per target manifest; each job is a small state machine that
 * runs one request at a time, so "jobs" running jobs are "jobs"
 * transfers in flight.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/image.h"
#include "adm/push.h"
#include "adm/reg_client.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"

#include "core/banned.h"

#define UPLOAD_BUFFER		(2L << 20)	/* libcurl allows up to 2 MiB */
#define PUSH_BACKOFF_BASE_MS	500L
#define PUSH_BACKOFF_CAP_MS	8000L
#define MAX_RESTARTS		3	/* upload sessions lost (404) per blob */
#define MAX_RENEWALS		3	/* 401s answered by new credentials, per step */
#define TICK_MS			250
#define MANIFEST_ACCEPT		"Accept: " ADM_MT_OCI_MANIFEST ", " \
				ADM_MT_DOCKER_MANIFEST ", " ADM_MT_OCI_INDEX \
				", " ADM_MT_DOCKER_LIST

/* ---- the model of one run ---- */

struct target {
	const struct adm_archive *a;
	const struct adm_image	*im;
	char			*source;	/* the source reference */
	char			*repo;
	char			*tag;
	char			*full;		/* "host/repo:tag" */
	const char		*manifest;	/* bytes to push */
	size_t			 manifest_len;
	const char		*media_type;
	char			 digest[ADM_DIGEST_MAX];
	char			*own_manifest;	/* rebuilt for --compress gzip */
};

/* One blob's bytes: where they come from and what they must hash to. */
struct source {
	char			 digest[ADM_DIGEST_MAX];
	uint64_t		 size;
	const struct adm_archive *a;
	const struct adm_blob	*b;
	int			 gzip;		/* b, gzip-compressed: */
	const struct adm_gz_layer *gz;		/* its gzip copy, or NULL */
	const char		*present_in;	/* a repository that has it now */
	const struct job	*owner;		/* the job working on it now */
	int			 counted;	/* in bytes_total already */
	char			*bad;		/* why the archive's bytes are wrong */
};

enum job_kind { JOB_BLOB, JOB_MANIFEST };

enum step {
	S_HEAD,			/* blob there? */
	S_MOUNT,		/* POST ?mount=&from= */
	S_POST,			/* open an upload session */
	S_PUT_WHOLE,		/* PUT ?digest= with the whole body */
	S_PATCH,		/* streamed PATCH with the whole body */
	S_PUT_FINAL,		/* PUT ?digest= with no body */
	S_MANIFEST_PUT,
	S_MANIFEST_HEAD,	/* verify */
};

enum job_state { J_WAITING, J_RUNNING, J_DONE, J_FAILED };

struct push;

struct job {
	struct push		*p;
	enum job_kind		 kind;
	enum job_state		 state;
	enum step		 step;
	const char		*repo;
	struct source		*src;		/* JOB_BLOB */
	struct target		*t;		/* JOB_MANIFEST */
	char			*location;	/* upload session URL */
	int			 attempts;	/* retries so far */
	long			 waited_ms;	/* their backoffs, added up */
	int			 restarts;
	int			 renewed;	/* 401s answered by renewing, this step */
	unsigned		 token_gen;	/* the token the request carried */
	long long		 not_before;	/* backoff: ms clock */
	long long		 started_ms;
	/* the transfer in flight */
	CURL			*easy;
	struct curl_slist	*hdrs;
	struct adm_resp		 resp;
	char			 errbuf[CURL_ERROR_SIZE];
	char			*url;
	/* the body */
	uint64_t		 sent;
	struct adm_blob_loc	 loc;
	int			 have_loc;
	size_t			 mem_off;
	int			 body_failed;
	struct rai_err		 berr;
};

struct push {
	const struct adm_push_opts *o;
	struct adm_reg_addr	 addr;
	struct adm_reg_client	 client;
	struct target		*targets;
	size_t			 ntargets;
	struct source		*sources;
	size_t			 nsources;
	struct job		*jobs;
	size_t			 njobs;
	CURLM			*multi;
	int			 running;
	int			 failed;	/* a fatal error: stop */
	char			*first_bad;	/* the first image not pushed, why */
	struct rai_err		 first_err;
	struct adm_push_stats	 st;
	long long		 t0;
	unsigned		 rnd;
	uint64_t		 threshold;
	int			 max_jobs;
	int			 retries;
	char			*first_missing;	/* verify: for the error */
	struct adm_gz_layer	*gz;
	size_t			 ngz;
};

static void
emit(struct push *p, struct adm_push_event *ev)
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

static void
emit_job(struct push *p, enum adm_push_ev_type type, const struct job *j,
    const char *from, const char *found)
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
	emit(p, &ev);
}

/* ---- URLs ---- */

char *
adm_push_resolve_location(const char *base, const char *loc)
{
	if (strncmp(loc, "http://", 7) == 0 || strncmp(loc, "https://",
	    8) == 0)
		return xstrdup(loc);
	if (loc[0] == '/')
		return xasprintf("%s%s", base, loc);
	return xasprintf("%s/%s", base, loc);
}

char *
adm_push_digest_url(const char *loc, const char *digest)
{
	return xasprintf("%s%sdigest=%s", loc, strchr(loc, '?') != NULL ?
	    "&" : "?", digest);
}

/* ---- targets and sources ---- */

static void
target_release(struct target *t)
{
	free(t->source);
	free(t->repo);
	free(t->tag);
	free(t->full);
	free(t->own_manifest);
}

static struct source *
find_source(struct push *p, const char *digest)
{
	size_t i;

	for (i = 0; i < p->nsources; i++)
		if (strcmp(p->sources[i].digest, digest) == 0)
			return &p->sources[i];
	return NULL;
}


/*
 * --compress gzip: compresses a legacy layer once to learn the digest
 * and size the upload will have (same bytes every time), and checks the
 * layer against its own digest on the way.
 */
static struct source *
add_source(struct push *p, const struct adm_archive *a,
    const struct adm_blob *b, const char *digest, uint64_t size, int gzip)
{
	struct source *s = find_source(p, digest);

	if (s != NULL)
		return s;
	p->sources = xreallocarray(p->sources, p->nsources + 1,
	    sizeof(*p->sources));
	s = &p->sources[p->nsources++];
	memset(s, 0, sizeof(*s));
	snprintf(s->digest, sizeof(s->digest), "%s", digest);
	s->size = size;
	s->a = a;
	s->b = b;
	s->gzip = gzip;
	return s;
}

static cJSON *
descriptor(const char *mt, const char *digest, uint64_t size)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "mediaType", mt);
	cJSON_AddStringToObject(o, "digest", digest);
	cJSON_AddNumberToObject(o, "size", (double)size);
	return o;
}

/* A legacy image's manifest with its layers gzipped: sources added. */
static int
gzip_manifest(struct push *p, const struct adm_archive *a,
    const struct adm_image *im, char **out, struct rai_err *err)
{
	cJSON *m = cJSON_CreateObject(), *layers;
	size_t i;

	cJSON_AddNumberToObject(m, "schemaVersion", 2);
	cJSON_AddStringToObject(m, "mediaType", ADM_MT_OCI_MANIFEST);
	cJSON_AddItemToObject(m, "config", descriptor(im->config.media_type,
	    im->config.digest, im->config.size));
	layers = cJSON_AddArrayToObject(m, "layers");
	for (i = 0; i < im->nlayers; i++) {
		const struct adm_blob *b = &im->layers[i];
		char d[ADM_DIGEST_MAX];
		uint64_t sz;
		size_t k;

		if (!adm_gz_is_plain_layer(im, b)) {
			cJSON_AddItemToArray(layers, descriptor(b->media_type,
			    b->digest, b->size));
			continue;
		}
		/* compressed ahead by adm_gz_layers_prepare */
		for (k = 0; k < p->ngz; k++)
			if (strcmp(p->gz[k].b->digest, b->digest) == 0)
				break;
		if (k == p->ngz) {
			cJSON_Delete(m);
			return rai_err_set(err, RAI_E_INTERNAL, "layer %s was "
			    "not compressed ahead", b->digest);
		}
		memcpy(d, p->gz[k].digest, sizeof(d));
		sz = p->gz[k].size;
		add_source(p, a, b, d, sz, 1)->gz = &p->gz[k];
		cJSON_AddItemToArray(layers, descriptor(ADM_MT_OCI_LAYER
		    "+gzip", d, sz));
	}
	*out = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	return 0;
}

static int
add_target(struct push *p, const struct adm_archive *a,
    const struct adm_image *im, const char *ref, const char *manifest,
    size_t mlen, const char *mt, const char *digest, struct rai_err *err)
{
	struct target *t;
	char *repo, *tag;
	size_t i;

	if (adm_map_target(p->o->maps, p->o->nmaps, p->addr.path, ref, &repo,
	    &tag, err) == -1) {
		rai_err_prefix(err, "'%s'", a->path);
		return -1;
	}
	for (i = 0; i < p->ntargets; i++) {
		t = &p->targets[i];
		if (strcmp(t->repo, repo) != 0 || strcmp(t->tag, tag) != 0)
			continue;
		if (strcmp(t->digest, digest) == 0) {
			free(repo);
			free(tag);
			return 0;	/* the same image twice */
		}
		rai_err_set(err, RAI_E_USAGE, "'%s' in %s and '%s' in %s both "
		    "map to '%s:%s' but are different images (%.19s... and "
		    "%.19s...); rename one with --map", t->source, t->a->path,
		    ref, a->path, repo, tag, t->digest, digest);
		free(repo);
		free(tag);
		return -1;
	}
	p->targets = xreallocarray(p->targets, p->ntargets + 1,
	    sizeof(*p->targets));
	t = &p->targets[p->ntargets++];
	memset(t, 0, sizeof(*t));
	t->a = a;
	t->im = im;
	t->source = xstrdup(ref);
	t->repo = repo;
	t->tag = tag;
	t->full = xasprintf("%s/%s:%s", p->addr.host, repo, tag);
	t->manifest = manifest;
	t->manifest_len = mlen;
	t->media_type = mt;
	snprintf(t->digest, sizeof(t->digest), "%s", digest);
	return 0;
}

static int
plan_image(struct push *p, const struct adm_archive *a,
    const struct adm_image *im, struct rai_err *err)
{
	const char *manifest = im->manifest, *mt = im->manifest_media_type;
	char digest[ADM_DIGEST_MAX], *own = NULL;
	size_t mlen = im->manifest_len, i, first = p->ntargets;
	int gz = p->o->compress == ADM_PUSH_COMPRESS_GZIP;

	if (im->nrefs == 0)
		return rai_err_set(err, RAI_E_USAGE, "'%s': image %s has no "
		    "reference to push it under", a->path,
		    im->manifest_digest);
	snprintf(digest, sizeof(digest), "%s", im->manifest_digest);
	if (gz && im->synthesized) {
		if (gzip_manifest(p, a, im, &own, err) == -1)
			return -1;
		manifest = own;
		mlen = strlen(own);
		mt = ADM_MT_OCI_MANIFEST;
		adm_sha256_mem(own, mlen, digest);
	}
	add_source(p, a, &im->config, im->config.digest, im->config.size, 0);
	for (i = 0; i < im->nlayers; i++)
		if (!(gz && adm_gz_is_plain_layer(im, &im->layers[i])))
			add_source(p, a, &im->layers[i], im->layers[i].digest,
			    im->layers[i].size, 0);
	for (i = 0; i < im->nrefs; i++)
		if (add_target(p, a, im, im->refs[i], manifest, mlen, mt,
		    digest, err) == -1) {
			free(own);
			return -1;
		}
	if (p->ntargets > first)
		p->targets[first].own_manifest = own;	/* one owner */
	else
		free(own);
	return 0;
}

/* The blob digests an image's manifest names. */
static size_t
target_blobs(struct push *p, const struct target *t, const char **out)
{
	cJSON *m = cJSON_ParseWithLength(t->manifest, t->manifest_len);
	const cJSON *l;
	size_t n = 0;

	struct source *s;

	if (m == NULL)
		return 0;
	/* every digest was added as a source by plan_image */
	if ((s = find_source(p, rai_json_str_or(m, "config.digest", ""))) !=
	    NULL)
		out[n++] = s->digest;
	cJSON_ArrayForEach(l, rai_json_array(m, "layers"))
		if ((s = find_source(p, rai_json_str_or(l, "digest", ""))) !=
		    NULL && n < t->im->nlayers + 1)
			out[n++] = s->digest;
	cJSON_Delete(m);
	return n;
}

static struct job *
new_job(struct push *p, enum job_kind kind, const char *repo)
{
	struct job *j;

	p->jobs = xreallocarray(p->jobs, p->njobs + 1, sizeof(*p->jobs));
	j = &p->jobs[p->njobs++];
	memset(j, 0, sizeof(*j));
	j->p = p;
	j->kind = kind;
	j->repo = repo;
	adm_resp_init(&j->resp);
	return j;
}

static int
has_blob_job(const struct push *p, const char *repo, const struct source *s)
{
	size_t i;

	for (i = 0; i < p->njobs; i++)
		if (p->jobs[i].kind == JOB_BLOB && p->jobs[i].src == s &&
		    strcmp(p->jobs[i].repo, repo) == 0)
			return 1;
	return 0;
}

static int
by_size_desc(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	uint64_t sx = x->kind == JOB_BLOB ? x->src->size : 0;
	uint64_t sy = y->kind == JOB_BLOB ? y->src->size : 0;

	if (x->kind != y->kind)
		return x->kind == JOB_BLOB ? -1 : 1;
	return sx > sy ? -1 : sx < sy ? 1 : 0;
}

/* Blob jobs, one per (repository, digest), largest first. */
static void
make_blob_jobs(struct push *p)
{
	const char **ds;
	size_t i, k, n;

	for (i = 0; i < p->ntargets; i++) {
		struct target *t = &p->targets[i];

		ds = xcalloc(t->im->nlayers + 2, sizeof(*ds));
		n = target_blobs(p, t, ds);
		for (k = 0; k < n; k++) {
			struct source *s = find_source(p, ds[k]);

			if (!has_blob_job(p, t->repo, s)) {
				struct job *j = new_job(p, JOB_BLOB, t->repo);

				j->src = s;
				j->step = S_HEAD;
				/*
				 * once a blob: its other repositories mount
				 * it, sending nothing
				 */
				if (!s->counted)
					p->st.bytes_total += s->size;
				s->counted = 1;
			}
		}
		free(ds);
	}
	qsort(p->jobs, p->njobs, sizeof(*p->jobs), by_size_desc);
	p->st.blobs = p->njobs;
}

/* The reason target t cannot be pushed (a bad blob), or NULL. */
static const char *
target_bad(struct push *p, const struct target *t)
{
	const char **ds = xcalloc(t->im->nlayers + 2, sizeof(*ds));
	const char *why = NULL;
	struct source *s;
	size_t k, n = target_blobs(p, t, ds);

	for (k = 0; k < n && why == NULL; k++)
		if ((s = find_source(p, ds[k])) != NULL)
			why = s->bad;
	free(ds);
	return why;
}

static void
make_manifest_jobs(struct push *p, enum step step)
{
	struct adm_push_event ev = { 0 };
	const char *why;
	size_t i;

	for (i = 0; i < p->ntargets; i++) {
		struct job *j;

		if ((why = target_bad(p, &p->targets[i])) != NULL) {
			p->st.not_pushed++;
			if (p->first_bad == NULL)
				p->first_bad = xasprintf("'%s': %s",
				    p->targets[i].full, why);
			ev.type = ADM_EV_IMAGE_FAILED;
			ev.kind = "manifest";
			ev.source = p->targets[i].source;
			ev.target = p->targets[i].full;
			ev.digest = p->targets[i].digest;
			ev.message = why;
			emit(p, &ev);
			continue;
		}
		j = new_job(p, JOB_MANIFEST, p->targets[i].repo);
		j->t = &p->targets[i];
		j->step = step;
	}
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
static int
archive_at_fault(struct job *j, struct rai_err *err)
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

static void
body_release(struct job *j)
{
	if (j->have_loc)
		adm_blob_loc_release(&j->loc);
	j->have_loc = 0;
}

static int
body_open(struct job *j, struct rai_err *err)
{
	const struct source *s = j->src;

	body_release(j);
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

static const char *
step_method(enum step s)
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
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, step_method(j->step));
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

static int
start_job(struct push *p, struct job *j, struct rai_err *err)
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
			emit_job(p, ADM_EV_BLOB_START, j, NULL, NULL);
	}
	curl_multi_add_handle(p->multi, e);
	p->running++;
	return 0;
}

static void
end_transfer(struct push *p, struct job *j)
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

/* ---- finishing a step ---- */

static void
job_done(struct push *p, struct job *j)
{
	j->state = J_DONE;
	body_release(j);
	if (j->kind == JOB_BLOB) {
		j->src->owner = NULL;
		j->src->present_in = j->repo;
	}
}

/* Best effort: tell the registry to drop a session we give up on. */
static void
cancel_session(struct push *p, struct job *j)
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

static void
job_fail(struct push *p, struct job *j, struct rai_err *err)
{
	j->state = J_FAILED;
	if (j->kind == JOB_BLOB && j->src->owner == j)
		j->src->owner = NULL;
	body_release(j);
	if (!p->failed)
		rai_err_move(&p->first_err, err);
	else
		rai_err_release(err);
	p->failed = 1;
}

/*
 * A blob whose bytes in the archive do not match their digest: this job
 * and every other one of the same blob end, and the images that need it
 * are not pushed (make_manifest_jobs), while the rest of the push goes
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
	body_release(j);
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
	    step_method(j->step), what, p->client.host, j->resp.status,
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
static long
push_backoff_ms(int attempt, int retry_after, unsigned rnd)
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
	delay = push_backoff_ms(j->attempts, j->resp.retry_after,
	    p->rnd = p->rnd * 1103515245u + 12345u);
	j->waited_ms += delay;
	j->not_before = rai_now_ms() + delay;
	if (j->step == S_PUT_WHOLE || j->step == S_PATCH ||
	    j->step == S_PUT_FINAL) {
		p->st.bytes_sent -= j->sent;
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
	emit(p, &ev);
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
		    "answered %ld without a Location", step_method(j->step),
		    j->repo, j->resp.status);
	l = adm_push_resolve_location(p->client.base, j->resp.location);
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
		job_fail(p, j, err);
		return;
	}
	p->st.uploaded++;
	emit_job(p, ADM_EV_BLOB_UPLOADED, j, NULL, NULL);
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
			emit_job(p, ADM_EV_BLOB_SKIPPED, j, NULL, NULL);
			job_done(p, j);
			return 0;
		}
		if (st != 404)
			break;
		if (p->o->mode == ADM_PUSH_DRY_RUN) {
			/* another repository's copy would be mounted */
			if (j->src->present_in == NULL)
				p->st.bytes_to_send += j->src->size;
			emit_job(p, ADM_EV_BLOB_NEEDED, j, j->src->present_in,
			    NULL);
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
			emit_job(p, ADM_EV_BLOB_MOUNTED, j, j->src->present_in,
			    NULL);
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
			emit_job(p, ADM_EV_MISSING, j, NULL, NULL);
		} else if (st == 200 && j->resp.digest != NULL &&
		    strcmp(j->resp.digest, j->t->digest) != 0) {
			p->st.different++;
			emit_job(p, ADM_EV_DIFFERENT, j, NULL, j->resp.digest);
		} else if (st == 200) {
			p->st.manifests++;
			emit_job(p, ADM_EV_PRESENT, j, NULL, NULL);
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
	emit_job(p, ADM_EV_MANIFEST_PUSHED, j, NULL, NULL);
	job_done(p, j);
	return 0;
}

static int
verify_blob_answer(struct push *p, struct job *j, struct rai_err *err)
{
	if (j->resp.status == 200) {
		p->st.skipped++;
		emit_job(p, ADM_EV_PRESENT, j, NULL, NULL);
	} else if (j->resp.status == 404) {
		p->st.missing++;
		emit_job(p, ADM_EV_MISSING, j, NULL, NULL);
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
	switch (archive_at_fault(j, &err)) {
	case 1:
		cancel_session(p, j);
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
	job_fail(p, j, &err);
	return 1;
}

static void
finish(struct push *p, struct job *j, CURLcode code)
{
	struct rai_err err = RAI_ERR_INIT;
	char why[128], what[160];
	long st = 0;
	int rc;

	curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &st);
	j->resp.status = st;
	rai_log(RAI_LOG_REQ, "%s %.*s %ld in %lld ms", step_method(j->step),
	    (int)strcspn(j->url, "?"), j->url, st, rai_now_ms() -
	    j->started_ms);
	end_transfer(p, j);
	if (j->body_failed) {
		/*
		 * the archive is wrong: no retry can help, but only the
		 * images with this blob are lost; the others go on
		 */
		cancel_session(p, j);
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
			    step_method(j->step), j->kind == JOB_BLOB ?
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
		job_fail(p, j, &err);
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
				job_fail(p, j, &err);
				return;
			}
		}
		j->state = J_WAITING;
		if (j->step == S_PUT_WHOLE || j->step == S_PATCH) {
			p->st.bytes_sent -= j->sent;
			j->sent = 0;
		}
		return;
	}
	if (st == 404 && j->kind == JOB_BLOB && (j->step == S_PUT_WHOLE ||
	    j->step == S_PATCH || j->step == S_PUT_FINAL) &&
	    j->restarts < MAX_RESTARTS) {
		/* the upload session died: start a new one */
		j->restarts++;
		p->st.bytes_sent -= j->sent;
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
		job_fail(p, j, &err);
	else
		rai_err_release(&err);
}

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
			emit_job(p, ADM_EV_BLOB_PROGRESS, j, NULL, NULL);
	}
	ev.type = ADM_EV_TICK;
	emit(p, &ev);
}

static void
cancel_all(struct push *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		struct job *j = &p->jobs[i];

		if (j->easy != NULL) {
			end_transfer(p, j);
			cancel_session(p, j);
		}
		body_release(j);
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
			if (start_job(p, j, &serr) == -1) {
				end_transfer(p, j);
				job_fail(p, j, &serr);
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
			finish(p, j, m->data.result);
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

static int
plan(struct push *p, struct adm_archive *const *arcs, size_t narcs,
    struct rai_err *err)
{
	struct adm_push_event ev = { 0 };
	size_t i, k;

	if (p->o->compress == ADM_PUSH_COMPRESS_GZIP &&
	    adm_gz_layers_prepare(arcs, narcs, 0,
	    p->o->mode == ADM_PUSH_UPLOAD, &p->gz, &p->ngz, err) == -1)
		return -1;
	for (i = 0; i < narcs; i++)
		for (k = 0; k < arcs[i]->nimages; k++)
			if (plan_image(p, arcs[i], &arcs[i]->images[k],
			    err) == -1)
				return -1;
	p->st.targets = p->ntargets;
	for (i = 0; i < p->ntargets; i++) {
		ev.type = ADM_EV_TARGET;
		ev.kind = "manifest";
		ev.source = p->targets[i].source;
		ev.target = p->targets[i].full;
		ev.repo = p->targets[i].repo;
		ev.digest = p->targets[i].digest;
		ev.size = p->targets[i].im->total_size;
		emit(p, &ev);
	}
	return 0;
}

static int
connect_registry(struct push *p, struct rai_err *err)
{
	const char **repos = xcalloc(p->ntargets + 1, sizeof(*repos));
	size_t n = 0, i, k;
	int rc;

	for (i = 0; i < p->ntargets; i++) {
		for (k = 0; k < n; k++)
			if (strcmp(repos[k], p->targets[i].repo) == 0)
				break;
		if (k == n)
			repos[n++] = p->targets[i].repo;
	}
	rc = adm_reg_client_ping(&p->client, repos, n,
	    p->o->mode == ADM_PUSH_UPLOAD, err);
	free(repos);
	return rc;
}

static void
push_release(struct push *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		body_release(&p->jobs[i]);
		adm_resp_release(&p->jobs[i].resp);
		free(p->jobs[i].location);
		free(p->jobs[i].url);
		rai_err_release(&p->jobs[i].berr);
	}
	free(p->jobs);
	for (i = 0; i < p->ntargets; i++)
		target_release(&p->targets[i]);
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
	if (plan(&p, arcs, narcs, err) == -1)
		goto out;
	make_blob_jobs(&p);
	if (o->mode == ADM_PUSH_VERIFY)
		make_manifest_jobs(&p, S_MANIFEST_HEAD);
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
		make_manifest_jobs(&p, S_MANIFEST_PUT);
		if (run_jobs(&p, err) == -1)
			goto out;
		if (p.st.not_pushed > 0) {
			rai_err_set(err, RAI_E_PROTO, "%zu of %zu image%s not "
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
	p.st.elapsed_ms = rai_now_ms() - p.t0;
	if (stats != NULL)
		*stats = p.st;
	push_release(&p);
	return rc;
}
