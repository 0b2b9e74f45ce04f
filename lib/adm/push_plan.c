/*
 * The push engine's plan (push.c has the map of the engine): each image
 * reference becomes a target (--map rules, the same image twice
 * allowed, two images under one tag refused), each distinct blob a
 * source (a legacy layer under --compress gzip its compressed copy,
 * with the manifest rebuilt around it), and the jobs are made of them:
 * a blob job per (repository, digest), largest first, and a manifest
 * job per target whose blobs are all good. Apart from the transfers
 * because nothing here touches the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/image.h"
#include "adm/push.h"
#include "adm/push_job.h"
#include "adm/push_plan.h"
#include "adm/reg_client.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"

#include "core/banned.h"

/* ---- targets and sources ---- */

void
adm_push_target_release(struct target *t)
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
		struct source *s;
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
		s = add_source(p, a, b, d, sz, 1);
		s->gz = &p->gz[k];
		if (p->gz[k].bad != NULL && s->bad == NULL)
			s->bad = xstrdup(p->gz[k].bad);
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
void
adm_push_make_blob_jobs(struct push *p)
{
	const char **ds;
	size_t i, k, n;

	for (i = 0; i < p->ntargets; i++) {
		struct target *t = &p->targets[i];

		ds = xcalloc(t->im->nlayers + 2, sizeof(*ds));
		n = target_blobs(p, t, ds);
		for (k = 0; k < n; k++) {
			struct source *s = find_source(p, ds[k]);

			/* known bad (--compress gzip found it): never sent */
			if (s->bad == NULL && !has_blob_job(p, t->repo, s)) {
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

void
adm_push_make_manifest_jobs(struct push *p, enum step step)
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
			adm_push_emit(p, &ev);
			continue;
		}
		j = new_job(p, JOB_MANIFEST, p->targets[i].repo);
		j->t = &p->targets[i];
		j->step = step;
	}
}

/* ---- the plan of a run ---- */

int
adm_push_plan(struct push *p, struct adm_archive *const *arcs, size_t narcs,
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
		adm_push_emit(p, &ev);
	}
	return 0;
}
