/*
 * adm_image: reading image archives in place (see adm_image.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "adm/image.h"
#include "adm/tar.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"

#include "core/banned.h"

#define HASH_CHUNK	((size_t)1 << 20)
#define ANN_CONTAINERD	"io.containerd.image.name"
#define ANN_REF_NAME	"org.opencontainers.image.ref.name"

const char *
adm_image_format_name(enum adm_image_format f)
{
	switch (f) {
	case ADM_FMT_DOCKER_LEGACY:
		return "docker-legacy";
	case ADM_FMT_DOCKER_OCI:
		return "docker-oci";
	case ADM_FMT_OCI_DIR:
		return "oci-dir";
	default:
		return "oci-archive";
	}
}

/* ---- digests ---- */

static void
hex_digest(const unsigned char *md, char out[ADM_DIGEST_MAX])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	memcpy(out, "sha256:", 7);
	for (i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[md[i] >> 4];
		out[7 + 2 * i + 1] = hex[md[i] & 0xf];
	}
	out[7 + 64] = '\0';
}

void
adm_sha256_mem(const void *p, size_t n, char out[ADM_DIGEST_MAX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	EVP_Digest(p, n, md, &mdlen, EVP_sha256(), NULL);
	hex_digest(md, out);
}

int
adm_sha256_fd(int fd, uint64_t off, uint64_t size, char out[ADM_DIGEST_MAX],
    struct rai_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	char *buf;
	uint64_t done = 0;
	ssize_t r;
	int rc = -1;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return rai_err_set(err, RAI_E_NOMEM, "cannot allocate a hash");
	buf = xmalloc(HASH_CHUNK);
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		rai_err_set(err, RAI_E_INTERNAL, "sha256 init failed");
		goto out;
	}
	while (done < size) {
		size_t want = size - done < HASH_CHUNK ? (size_t)(size - done) :
		    HASH_CHUNK;

		r = pread(fd, buf, want, (off_t)(off + done));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			rai_err_errno(err, errno, "reading at offset %" PRIu64,
			    off + done);
			goto out;
		}
		if (r == 0) {
			rai_err_set(err, RAI_E_PROTO, "file ends at offset %"
			    PRIu64 ", %" PRIu64 " bytes short", off + done,
			    size - done);
			goto out;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)r);
		done += (uint64_t)r;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	hex_digest(md, out);
	rc = 0;
out:
	free(buf);
	EVP_MD_CTX_free(ctx);
	return rc;
}

int
adm_digest_valid(const char *d)
{
	size_t i;

	if (d == NULL || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71)
		return 0;
	for (i = 7; i < 71; i++)
		if (!((d[i] >= '0' && d[i] <= '9') ||
		    (d[i] >= 'a' && d[i] <= 'f')))
			return 0;
	return 1;
}

/* ---- where blobs are ---- */

int
adm_blob_locate(const struct adm_archive *a, const char *path,
    struct adm_blob_loc *loc, struct rai_err *err)
{
	const struct adm_tar_entry *e;
	struct stat st;
	char *full;
	int fd;

	memset(loc, 0, sizeof(*loc));
	loc->fd = -1;
	if (a->tar != NULL) {
		if ((e = adm_tar_find(a->tar, path)) == NULL)
			return rai_err_set(err, RAI_E_NOTFOUND, "'%s': missing "
			    "blob '%s'", a->path, path);
		loc->fd = a->tar->fd;
		loc->offset = e->offset;
		loc->size = e->size;
		return 0;
	}
	if (strstr(path, "..") != NULL || path[0] == '/')
		return rai_err_set(err, RAI_E_PROTO, "'%s': refusing blob path "
		    "'%s'", a->path, path);
	full = xasprintf("%s/%s", a->path, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	free(full);
	if (fd == -1 && errno == ENOENT)
		return rai_err_set(err, RAI_E_NOTFOUND, "'%s': missing blob "
		    "'%s'", a->path, path);
	if (fd == -1)
		return rai_err_errno(err, errno, "'%s': opening '%s'", a->path,
		    path);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return rai_err_set(err, RAI_E_PROTO, "'%s': '%s' is not a "
		    "regular file", a->path, path);
	}
	loc->fd = fd;
	loc->owned = 1;
	loc->size = (uint64_t)st.st_size;
	return 0;
}

void
adm_blob_loc_release(struct adm_blob_loc *loc)
{
	if (loc->owned && loc->fd != -1)
		close(loc->fd);
	loc->fd = -1;
	loc->owned = 0;
}

static int
has_member(const struct adm_archive *a, const char *path)
{
	struct adm_blob_loc loc;
	int ok;

	ok = adm_blob_locate(a, path, &loc, NULL) == 0;
	if (ok)
		adm_blob_loc_release(&loc);
	return ok;
}

/* Reads a whole small member; *len set, data NUL-terminated. */
static int
read_member(const struct adm_archive *a, const char *path, char **data,
    size_t *len, struct rai_err *err)
{
	struct adm_blob_loc loc;
	size_t got = 0;
	ssize_t r;
	char *buf;

	*data = NULL;
	if (adm_blob_locate(a, path, &loc, err) == -1)
		return -1;
	if (loc.size > ADM_JSON_MAX) {
		adm_blob_loc_release(&loc);
		return rai_err_set(err, RAI_E_PROTO, "'%s': '%s' is too large "
		    "(%" PRIu64 " bytes, at most %zu)", a->path, path,
		    loc.size, ADM_JSON_MAX);
	}
	buf = xmalloc((size_t)loc.size + 1);
	while (got < loc.size) {
		r = pread(loc.fd, buf + got, (size_t)loc.size - got,
		    (off_t)(loc.offset + got));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == -1)
				rai_err_errno(err, errno, "'%s': reading '%s'",
				    a->path, path);
			else
				rai_err_set(err, RAI_E_PROTO, "'%s': '%s' is "
				    "truncated", a->path, path);
			free(buf);
			adm_blob_loc_release(&loc);
			return -1;
		}
		got += (size_t)r;
	}
	adm_blob_loc_release(&loc);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

static int
read_json(const struct adm_archive *a, const char *path, cJSON **out,
    char **raw, size_t *rawlen, struct rai_err *err)
{
	char *data, *what;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (read_member(a, path, &data, &len, err) == -1)
		return -1;
	what = xasprintf("'%s': '%s'", a->path, path);
	rc = rai_json_parse(data, len, what, out, err);
	free(what);
	if (rc == 0 && raw != NULL) {
		*raw = data;
		*rawlen = len;
	} else {
		free(data);
	}
	return rc;
}

static char *
blob_path(const char *digest)
{
	return xasprintf("blobs/sha256/%s", digest + 7);
}

static int
check_digest(const struct adm_archive *a, const char *what, const char *want,
    const char *got, struct rai_err *err)
{
	if (strcmp(want, got) == 0)
		return 0;
	return rai_err_set(err, RAI_E_PROTO, "'%s': digest mismatch in blob "
	    "'%s': expected %s, content has %s", a->path, what, want, got);
}

int
adm_blob_verify(const struct adm_archive *a, const struct adm_blob *b,
    struct rai_err *err)
{
	struct adm_blob_loc loc;
	char got[ADM_DIGEST_MAX];
	int rc;

	if (adm_blob_locate(a, b->path, &loc, err) == -1)
		return -1;
	if (loc.size != b->size) {
		adm_blob_loc_release(&loc);
		return rai_err_set(err, RAI_E_PROTO, "'%s': size mismatch in "
		    "blob '%s': expected %" PRIu64 " bytes, found %" PRIu64,
		    a->path, b->path, b->size, loc.size);
	}
	rc = adm_sha256_fd(loc.fd, loc.offset, loc.size, got, err);
	adm_blob_loc_release(&loc);
	if (rc == -1) {
		rai_err_prefix(err, "'%s': blob '%s'", a->path, b->path);
		return -1;
	}
	return check_digest(a, b->path, b->digest, got, err);
}

int
adm_archive_verify(const struct adm_archive *a, struct rai_err *err)
{
	const char **seen = NULL;
	size_t nseen = 0, i, j, k;
	int rc = 0;

	for (i = 0; i < a->nimages && rc == 0; i++) {
		const struct adm_image *im = &a->images[i];

		for (j = 0; j <= im->nlayers && rc == 0; j++) {
			const struct adm_blob *b = j == 0 ? &im->config :
			    &im->layers[j - 1];

			for (k = 0; k < nseen; k++)
				if (strcmp(seen[k], b->digest) == 0)
					break;
			if (k < nseen)
				continue;
			rc = adm_blob_verify(a, b, err);
			seen = xreallocarray(seen, nseen + 1, sizeof(*seen));
			seen[nseen++] = b->digest;
		}
	}
	free(seen);
	return rc;
}

/* ---- the model ---- */

static void
blob_release(struct adm_blob *b)
{
	free(b->media_type);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

static void
image_release(struct adm_image *im)
{
	size_t i;

	for (i = 0; i < im->nrefs; i++)
		free(im->refs[i]);
	free(im->refs);
	free(im->manifest);
	free(im->manifest_media_type);
	blob_release(&im->config);
	for (i = 0; i < im->nlayers; i++)
		blob_release(&im->layers[i]);
	free(im->layers);
	memset(im, 0, sizeof(*im));
}

void
adm_archive_free(struct adm_archive *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->nimages; i++)
		image_release(&a->images[i]);
	free(a->images);
	adm_tar_free(a->tar);
	free(a->path);
	free(a);
}

static struct adm_image *
new_image(struct adm_archive *a)
{
	a->images = xreallocarray(a->images, a->nimages + 1,
	    sizeof(*a->images));
	memset(&a->images[a->nimages], 0, sizeof(a->images[0]));
	return &a->images[a->nimages++];
}

static void
add_ref(struct adm_image *im, const char *ref)
{
	size_t i;

	for (i = 0; i < im->nrefs; i++)
		if (strcmp(im->refs[i], ref) == 0)
			return;
	im->refs = xreallocarray(im->refs, im->nrefs + 1, sizeof(*im->refs));
	im->refs[im->nrefs++] = xstrdup(ref);
}

/* Size of a member; missing members fail naming the blob. */
static int
member_size(const struct adm_archive *a, const char *path, uint64_t *size,
    struct rai_err *err)
{
	struct adm_blob_loc loc;

	if (adm_blob_locate(a, path, &loc, err) == -1)
		return -1;
	*size = loc.size;
	adm_blob_loc_release(&loc);
	return 0;
}

/*
 * A descriptor {mediaType, digest, size} into b; checks the blob is
 * there with that size.
 */
static int
load_descriptor(const struct adm_archive *a, const cJSON *d, const char *what,
    struct adm_blob *b, struct rai_err *err)
{
	const char *digest = rai_json_str(d, "digest");
	const cJSON *sz = rai_json_get(d, "size");
	uint64_t have;

	if (!adm_digest_valid(digest))
		return rai_err_set(err, RAI_E_PROTO, "'%s': %s has %s digest "
		    "'%s' (only sha256 is supported)", a->path, what,
		    digest == NULL ? "no" : "an invalid",
		    digest == NULL ? "" : digest);
	if (!cJSON_IsNumber(sz) || sz->valuedouble < 0)
		return rai_err_set(err, RAI_E_PROTO, "'%s': %s %s has no valid "
		    "size", a->path, what, digest);
	snprintf(b->digest, sizeof(b->digest), "%s", digest);
	b->size = (uint64_t)sz->valuedouble;
	b->media_type = xstrdup(rai_json_str_or(d, "mediaType", ""));
	b->path = blob_path(digest);
	if (member_size(a, b->path, &have, err) == -1)
		return -1;
	if (have != b->size)
		return rai_err_set(err, RAI_E_PROTO, "'%s': size mismatch in "
		    "blob '%s': the descriptor says %" PRIu64 " bytes, the "
		    "blob has %" PRIu64, a->path, b->path, b->size, have);
	return 0;
}

/* Reads a JSON blob named by its digest, checking digest and size. */
static int
read_blob_json(const struct adm_archive *a, const struct adm_blob *b,
    cJSON **out, char **raw, size_t *rawlen, struct rai_err *err)
{
	char got[ADM_DIGEST_MAX], *data;
	size_t len;

	*out = NULL;
	if (read_json(a, b->path, out, &data, &len, err) == -1)
		return -1;
	adm_sha256_mem(data, len, got);
	if (check_digest(a, b->path, b->digest, got, err) == -1) {
		cJSON_Delete(*out);
		*out = NULL;
		free(data);
		return -1;
	}
	if (raw != NULL) {
		*raw = data;
		*rawlen = len;
	} else {
		free(data);
	}
	return 0;
}

static void
sum_sizes(struct adm_image *im)
{
	size_t i;

	im->total_size = im->config.size;
	for (i = 0; i < im->nlayers; i++)
		im->total_size += im->layers[i].size;
}

/* An image manifest descriptor: the manifest, its config and layers. */
static int
load_oci_manifest(struct adm_archive *a, const struct adm_blob *mb,
    const char *const *refs, size_t nrefs, struct rai_err *err)
{
	struct adm_image *im;
	const cJSON *layers, *l;
	cJSON *m = NULL;
	size_t i;
	char what[64];

	im = new_image(a);
	for (i = 0; i < nrefs; i++)
		add_ref(im, refs[i]);
	snprintf(im->manifest_digest, sizeof(im->manifest_digest), "%s",
	    mb->digest);
	if (read_blob_json(a, mb, &m, &im->manifest, &im->manifest_len,
	    err) == -1)
		return -1;
	im->manifest_media_type = xstrdup(rai_json_str_or(m, "mediaType",
	    mb->media_type));
	if (load_descriptor(a, rai_json_get(m, "config"), "the config of "
	    "manifest", &im->config, err) == -1)
		goto fail;
	layers = rai_json_array(m, "layers");
	if (layers == NULL) {
		rai_err_set(err, RAI_E_PROTO, "'%s': manifest '%s' has no "
		    "layers array", a->path, mb->path);
		goto fail;
	}
	im->layers = xcalloc((size_t)cJSON_GetArraySize(layers) + 1,
	    sizeof(*im->layers));
	cJSON_ArrayForEach(l, layers) {
		snprintf(what, sizeof(what), "layer %zu of manifest",
		    im->nlayers + 1);
		if (load_descriptor(a, l, what, &im->layers[im->nlayers],
		    err) == -1) {
			im->nlayers++;
			goto fail;
		}
		im->nlayers++;
	}
	{
		/* the config is small: check it now */
		cJSON *cfg = NULL;

		if (read_blob_json(a, &im->config, &cfg, NULL, NULL,
		    err) == -1)
			goto fail;
		cJSON_Delete(cfg);
	}
	sum_sizes(im);
	cJSON_Delete(m);
	return 0;
fail:
	cJSON_Delete(m);
	return -1;
}

static int
is_index_type(const char *mt)
{
	return mt != NULL && (strcmp(mt, ADM_MT_OCI_INDEX) == 0 ||
	    strcmp(mt, ADM_MT_DOCKER_LIST) == 0);
}

/* Refs of a descriptor from its annotations, else from manifest.json. */
static size_t
descriptor_refs(const cJSON *d, const char **refs, size_t max)
{
	const cJSON *ann = rai_json_get(d, "annotations");
	const char *full = rai_json_str(rai_json_child(ann, ANN_CONTAINERD),
	    "");
	const char *name = rai_json_str(rai_json_child(ann, ANN_REF_NAME),
	    "");
	size_t n = 0;

	(void)max;
	if (full != NULL && *full != '\0')
		refs[n++] = full;
	else if (name != NULL && *name != '\0')
		refs[n++] = name;
	return n;
}

static struct adm_image *
find_image(struct adm_archive *a, const char *manifest_digest)
{
	size_t i;

	for (i = 0; i < a->nimages; i++)
		if (strcmp(a->images[i].manifest_digest, manifest_digest) == 0)
			return &a->images[i];
	return NULL;
}

static int load_index(struct adm_archive *, const cJSON *idx,
    const char *const *refs, size_t nrefs, int depth, struct rai_err *);

static int
load_index_descriptors(struct adm_archive *a, const cJSON *manifests,
    const char *const *inherited, size_t ninherited, int depth,
    struct rai_err *err)
{
	const cJSON *d;
	size_t nchild = 0, npresent = 0;

	cJSON_ArrayForEach(d, manifests) {
		struct adm_blob mb = { 0 };
		struct adm_image *same;
		const char *own[1];
		const char *const *refs = inherited;
		size_t nrefs = ninherited, n;
		int rc;

		n = descriptor_refs(d, own, 1);
		if (n > 0) {
			refs = own;
			nrefs = n;
		}
		nchild++;
		if (depth > 0 && !adm_digest_valid(rai_json_str(d, "digest")))
			continue;
		if (depth > 0) {
			/* platforms not pulled are absent: skip them */
			char *p = blob_path(rai_json_str(d, "digest"));
			int present = has_member(a, p);

			free(p);
			if (!present)
				continue;
		}
		if (load_descriptor(a, d, "the manifest in index.json", &mb,
		    err) == -1) {
			blob_release(&mb);
			return -1;
		}
		npresent++;
		if (is_index_type(mb.media_type)) {
			cJSON *child = NULL;

			if (depth >= 4) {
				blob_release(&mb);
				return rai_err_set(err, RAI_E_PROTO, "'%s': "
				    "image indexes nested too deep", a->path);
			}
			rc = read_blob_json(a, &mb, &child, NULL, NULL, err);
			if (rc == 0)
				rc = load_index(a, child, refs, nrefs,
				    depth + 1, err);
			cJSON_Delete(child);
		} else if ((same = find_image(a, mb.digest)) != NULL) {
			/* one descriptor per tag: one image, several refs */
			for (n = 0; n < nrefs; n++)
				add_ref(same, refs[n]);
			rc = 0;
		} else {
			rc = load_oci_manifest(a, &mb, refs, nrefs, err);
		}
		blob_release(&mb);
		if (rc == -1)
			return -1;
	}
	if (depth > 0 && nchild > 0 && npresent == 0)
		return rai_err_set(err, RAI_E_NOTFOUND, "'%s': missing blob: "
		    "none of the %zu manifests of an image index is in the "
		    "archive", a->path, nchild);
	return 0;
}

static int
load_index(struct adm_archive *a, const cJSON *idx, const char *const *refs,
    size_t nrefs, int depth, struct rai_err *err)
{
	return load_index_descriptors(a, rai_json_array(idx, "manifests"),
	    refs, nrefs, depth, err);
}

/* For Docker >= 25 archives: RepoTags of the manifest.json entry whose
 * Config is this image's config blob. */
static void
refs_from_manifest_json(struct adm_archive *a, const cJSON *mj)
{
	const cJSON *e, *t;
	size_t i;

	for (i = 0; i < a->nimages; i++) {
		struct adm_image *im = &a->images[i];

		if (im->nrefs > 0)
			continue;
		cJSON_ArrayForEach(e, mj) {
			char *c = xstrdup(rai_json_str_or(e, "Config", ""));

			adm_tar_normalize(c);
			if (strcmp(c, im->config.path) == 0)
				cJSON_ArrayForEach(t, rai_json_array(e,
				    "RepoTags"))
					if (cJSON_IsString(t))
						add_ref(im, t->valuestring);
			free(c);
		}
	}
}

/* ---- legacy docker save: synthesise the manifest ---- */

/* "<64 hex>.json" or "blobs/sha256/<64 hex>": the digest the name gives */
static int
digest_from_name(const char *path, char out[ADM_DIGEST_MAX])
{
	const char *base = strrchr(path, '/');
	char d[ADM_DIGEST_MAX + 8];

	base = base != NULL ? base + 1 : path;
	if (strncmp(path, "blobs/sha256/", 13) == 0 && strlen(base) == 64)
		snprintf(d, sizeof(d), "sha256:%s", base);
	else if (strlen(base) == 69 && strcmp(base + 64, ".json") == 0)
		snprintf(d, sizeof(d), "sha256:%.64s", base);
	else
		return 0;
	if (!adm_digest_valid(d))
		return 0;
	memcpy(out, d, ADM_DIGEST_MAX);
	return 1;
}

static const char *
layer_media_type(const struct adm_archive *a, const char *path)
{
	struct adm_blob_loc loc;
	unsigned char magic[8];
	ssize_t n = 0;

	if (adm_blob_locate(a, path, &loc, NULL) == 0) {
		n = pread(loc.fd, magic, loc.size < sizeof(magic) ?
		    (size_t)loc.size : sizeof(magic), (off_t)loc.offset);
		adm_blob_loc_release(&loc);
	}
	switch (adm_compress_detect(magic, n > 0 ? (size_t)n : 0)) {
	case ADM_COMPRESS_GZIP:
		return ADM_MT_OCI_LAYER "+gzip";
	case ADM_COMPRESS_ZSTD:
		return ADM_MT_OCI_LAYER "+zstd";
	default:
		return ADM_MT_OCI_LAYER;
	}
}

static cJSON *
descriptor_json(const struct adm_blob *b)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "mediaType", b->media_type);
	cJSON_AddStringToObject(o, "digest", b->digest);
	cJSON_AddNumberToObject(o, "size", (double)b->size);
	return o;
}

static void
synthesize_manifest(struct adm_image *im)
{
	cJSON *m = cJSON_CreateObject(), *layers;
	size_t i;

	cJSON_AddNumberToObject(m, "schemaVersion", 2);
	cJSON_AddStringToObject(m, "mediaType", ADM_MT_OCI_MANIFEST);
	cJSON_AddItemToObject(m, "config", descriptor_json(&im->config));
	layers = cJSON_AddArrayToObject(m, "layers");
	for (i = 0; i < im->nlayers; i++)
		cJSON_AddItemToArray(layers, descriptor_json(&im->layers[i]));
	im->manifest = cJSON_PrintUnformatted(m);
	im->manifest_len = strlen(im->manifest);
	im->manifest_media_type = xstrdup(ADM_MT_OCI_MANIFEST);
	im->synthesized = 1;
	adm_sha256_mem(im->manifest, im->manifest_len, im->manifest_digest);
	cJSON_Delete(m);
}

static int
load_legacy_entry(struct adm_archive *a, const cJSON *e, size_t idx,
    struct rai_err *err)
{
	struct adm_image *im = new_image(a);
	const char *cfgname = rai_json_str(e, "Config");
	const cJSON *layers = rai_json_array(e, "Layers"), *l, *t, *diff_ids;
	char *raw = NULL, name_digest[ADM_DIGEST_MAX];
	cJSON *cfg = NULL;
	size_t rawlen = 0, i = 0;
	int rc = -1;

	if (cfgname == NULL || layers == NULL)
		return rai_err_set(err, RAI_E_PROTO, "'%s': manifest.json entry "
		    "%zu has no Config or Layers", a->path, idx);
	cJSON_ArrayForEach(t, rai_json_array(e, "RepoTags"))
		if (cJSON_IsString(t))
			add_ref(im, t->valuestring);
	im->config.path = xstrdup(cfgname);
	adm_tar_normalize(im->config.path);
	im->config.media_type = xstrdup(ADM_MT_OCI_CONFIG);
	if (read_json(a, im->config.path, &cfg, &raw, &rawlen, err) == -1)
		return -1;
	adm_sha256_mem(raw, rawlen, im->config.digest);
	im->config.size = rawlen;
	free(raw);
	if (digest_from_name(im->config.path, name_digest) &&
	    check_digest(a, im->config.path, name_digest, im->config.digest,
	    err) == -1)
		goto out;
	diff_ids = rai_json_array(cfg, "rootfs.diff_ids");
	im->layers = xcalloc((size_t)cJSON_GetArraySize(layers) + 1,
	    sizeof(*im->layers));
	cJSON_ArrayForEach(l, layers) {
		struct adm_blob *b = &im->layers[im->nlayers++];
		const char *diff = rai_json_str(cJSON_GetArrayItem(diff_ids,
		    (int)i), "");

		i++;
		if (!cJSON_IsString(l)) {
			rai_err_set(err, RAI_E_PROTO, "'%s': manifest.json entry "
			    "%zu: layer %zu is not a path", a->path, idx, i);
			goto out;
		}
		b->path = xstrdup(l->valuestring);
		adm_tar_normalize(b->path);
		if (member_size(a, b->path, &b->size, err) == -1)
			goto out;
		b->media_type = xstrdup(layer_media_type(a, b->path));
		if (digest_from_name(b->path, b->digest))
			continue;
		if (strcmp(b->media_type, ADM_MT_OCI_LAYER) == 0 &&
		    adm_digest_valid(diff)) {
			/* uncompressed: sha256(layer.tar) is the diff_id */
			snprintf(b->digest, sizeof(b->digest), "%s", diff);
			continue;
		}
		{
			struct adm_blob_loc loc;
			int hrc;

			if (adm_blob_locate(a, b->path, &loc, err) == -1)
				goto out;
			hrc = adm_sha256_fd(loc.fd, loc.offset, loc.size,
			    b->digest, err);
			adm_blob_loc_release(&loc);
			if (hrc == -1)
				goto out;
		}
	}
	if (diff_ids != NULL && (size_t)cJSON_GetArraySize(diff_ids) !=
	    im->nlayers) {
		rai_err_set(err, RAI_E_PROTO, "'%s': image config '%s' lists %d "
		    "diff_ids for %zu layers", a->path, im->config.path,
		    cJSON_GetArraySize(diff_ids), im->nlayers);
		goto out;
	}
	synthesize_manifest(im);
	sum_sizes(im);
	rc = 0;
out:
	cJSON_Delete(cfg);
	return rc;
}

static int
load_legacy(struct adm_archive *a, const cJSON *mj, struct rai_err *err)
{
	const cJSON *e;
	size_t i = 0;

	if (!cJSON_IsArray(mj))
		return rai_err_set(err, RAI_E_PROTO, "'%s': manifest.json is "
		    "not an array", a->path);
	cJSON_ArrayForEach(e, mj)
		if (load_legacy_entry(a, e, i++, err) == -1)
			return -1;
	return 0;
}

static int
load_oci(struct adm_archive *a, struct rai_err *err)
{
	cJSON *idx = NULL, *mj = NULL;
	const cJSON *manifests;
	int rc = -1;

	if (read_json(a, "index.json", &idx, NULL, NULL, err) == -1)
		return -1;
	if (a->format == ADM_FMT_DOCKER_OCI &&
	    read_json(a, "manifest.json", &mj, NULL, NULL, err) == -1)
		goto out;
	manifests = rai_json_array(idx, "manifests");
	if (a->format == ADM_FMT_DOCKER_OCI &&
	    cJSON_GetArraySize(manifests) == 0) {
		/* Docker 25.0.0 wrote "manifests": null; manifest.json is right */
		rc = load_legacy(a, mj, err);
		goto out;
	}
	if (manifests == NULL && !cJSON_IsArray(rai_json_get(idx,
	    "manifests"))) {
		rai_err_set(err, RAI_E_PROTO, "'%s': index.json has no "
		    "manifests array", a->path);
		goto out;
	}
	if (load_index(a, idx, NULL, 0, 0, err) == -1)
		goto out;
	if (mj != NULL)
		refs_from_manifest_json(a, mj);
	rc = 0;
out:
	cJSON_Delete(idx);
	cJSON_Delete(mj);
	return rc;
}

/* Which of the formats a's members make; -1 with err when none. */
static int
detect_format(struct adm_archive *a, int dir, struct rai_err *err)
{
	int oci = has_member(a, "oci-layout") && has_member(a, "index.json");

	if (dir) {
		if (!oci)
			return rai_err_set(err, RAI_E_PROTO, "'%s': unknown "
			    "layout: a directory must be an OCI image layout "
			    "(oci-layout and index.json)", a->path);
		a->format = ADM_FMT_OCI_DIR;
	} else if (oci) {
		a->format = has_member(a, "manifest.json") ?
		    ADM_FMT_DOCKER_OCI : ADM_FMT_OCI_ARCHIVE;
	} else if (has_member(a, "manifest.json")) {
		a->format = ADM_FMT_DOCKER_LEGACY;
	} else {
		return rai_err_set(err, RAI_E_PROTO, "'%s': unknown layout: "
		    "neither a docker save archive (manifest.json) nor an OCI "
		    "layout (oci-layout and index.json)", a->path);
	}
	return 0;
}

static int
load_images(struct adm_archive *a, struct rai_err *err)
{
	cJSON *mj = NULL;
	int rc;

	if (a->format != ADM_FMT_DOCKER_LEGACY)
		return load_oci(a, err);
	rc = read_json(a, "manifest.json", &mj, NULL, NULL, err) == -1 ||
	    load_legacy(a, mj, err) == -1 ? -1 : 0;
	cJSON_Delete(mj);
	return rc;
}

/* The archive at path, its members indexed, its format not yet known. */
static int
open_outer(const char *path, uint64_t max_inflate, struct adm_archive **out,
    int *dir, struct rai_err *err)
{
	struct adm_archive *a;
	struct stat st;

	*out = NULL;
	if (stat(path, &st) == -1) {
		if (errno == ENOENT)
			return rai_err_set(err, RAI_E_NOTFOUND, "'%s' does not "
			    "exist", path);
		return rai_err_errno(err, errno, "'%s'", path);
	}
	*dir = S_ISDIR(st.st_mode);
	a = xcalloc(1, sizeof(*a));
	a->path = xstrdup(path);
	if (!*dir && adm_tar_open(path, max_inflate, &a->tar, err) == -1) {
		adm_archive_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

int
adm_archive_open(const char *path, uint64_t max_inflate,
    struct adm_archive **out, struct rai_err *err)
{
	struct adm_archive *a;
	int dir = 0;

	*out = NULL;
	if (open_outer(path, max_inflate, &a, &dir, err) == -1)
		return -1;
	if (detect_format(a, dir, err) == -1 || load_images(a, err) == -1) {
		adm_archive_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

int
adm_archive_from_tar(struct adm_tar *tar, const char *label,
    struct adm_archive **out, struct rai_err *err)
{
	struct rai_err why = RAI_ERR_INIT;
	struct adm_archive *a = xcalloc(1, sizeof(*a));
	int rc = 1;

	*out = NULL;
	a->path = xstrdup(label);
	a->tar = tar;
	if (detect_format(a, 0, &why) == -1)
		rc = 0;
	else if (load_images(a, err) == -1)
		rc = -1;
	rai_err_release(&why);
	if (rc != 1) {
		a->tar = NULL;	/* the caller's still */
		adm_archive_free(a);
		return rc;
	}
	*out = a;
	return 1;
}
