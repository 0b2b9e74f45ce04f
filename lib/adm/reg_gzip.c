/*
 * adm_reg_gzip: a deterministic gzip stream over a file range, and
 * --compress gzip ahead of an upload (see adm_registry.h). Determinism
 * is what lets a rerun of a push find, by HEAD, the layers an earlier
 * run compressed and uploaded: the header carries no time and no name,
 * and level and strategy are fixed. Each distinct uncompressed legacy
 * layer is compressed once, in parallel, into an unlinked spool file
 * the upload then reads, so the upload knows digest and size up front.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "adm/image.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"

#include "core/banned.h"

#define GZ_IN_CHUNK	((size_t)256 << 10)
#define READ_CHUNK	((size_t)256 << 10)
/* Fast: a push is I/O bound; and the level is part of the digest. */
#define GZ_LEVEL	1

struct adm_gz_reader {
	int		 fd;
	uint64_t	 offset;
	uint64_t	 size;
	uint64_t	 done;		/* input bytes read */
	z_stream	 z;
	gz_header	 head;
	unsigned char	*in;
	int		 finished;	/* Z_STREAM_END seen */
	EVP_MD_CTX	*md;
	char		 in_digest[72];
};

struct adm_gz_reader *
adm_gz_reader_new(int fd, uint64_t offset, uint64_t size)
{
	struct adm_gz_reader *r = xcalloc(1, sizeof(*r));

	r->fd = fd;
	r->offset = offset;
	r->size = size;
	r->in = xmalloc(GZ_IN_CHUNK);
	/* windowBits 15 + 16: a gzip wrapper; memLevel 8 as gzip(1) */
	if (deflateInit2(&r->z, GZ_LEVEL, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		rai_die("out of memory starting zlib");
	r->head.time = 0;
	r->head.os = 255;	/* "unknown": the same on every system */
	deflateSetHeader(&r->z, &r->head);
	if ((r->md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(r->md, EVP_sha256(), NULL) != 1)
		rai_die("out of memory starting sha256");
	return r;
}

/* Refills the input from the file; -1 with err on a read error. */
static int
refill(struct adm_gz_reader *r, struct rai_err *err)
{
	size_t want = r->size - r->done < GZ_IN_CHUNK ?
	    (size_t)(r->size - r->done) : GZ_IN_CHUNK;
	ssize_t n;

	do
		n = pread(r->fd, r->in, want, (off_t)(r->offset + r->done));
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return rai_err_errno(err, errno, "reading at offset %" PRIu64,
		    r->offset + r->done);
	if (n == 0)
		return rai_err_set(err, RAI_E_PROTO, "file ends at offset %"
		    PRIu64 ", %" PRIu64 " bytes short", r->offset + r->done,
		    r->size - r->done);
	EVP_DigestUpdate(r->md, r->in, (size_t)n);
	r->done += (uint64_t)n;
	r->z.next_in = r->in;
	r->z.avail_in = (uInt)n;
	return 0;
}

static void
finish_digest(struct adm_gz_reader *r)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	EVP_DigestFinal_ex(r->md, md, &len);
	memcpy(r->in_digest, "sha256:", 7);
	for (i = 0; i < 32; i++) {
		r->in_digest[7 + 2 * i] = hex[md[i] >> 4];
		r->in_digest[8 + 2 * i] = hex[md[i] & 0xf];
	}
	r->in_digest[71] = '\0';
}

ssize_t
adm_gz_read(struct adm_gz_reader *r, void *buf, size_t len,
    struct rai_err *err)
{
	int zr;

	if (r->finished || len == 0)
		return 0;
	r->z.next_out = buf;
	r->z.avail_out = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	while (r->z.avail_out > 0) {
		if (r->z.avail_in == 0 && r->done < r->size &&
		    refill(r, err) == -1)
			return -1;
		zr = deflate(&r->z, r->done == r->size ? Z_FINISH :
		    Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			r->finished = 1;
			finish_digest(r);
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return rai_err_set(err, RAI_E_INTERNAL, "deflate "
			    "failed (%d)", zr);
	}
	return (ssize_t)(len - r->z.avail_out);
}

void
adm_gz_input_digest(const struct adm_gz_reader *r, char out[72])
{
	memcpy(out, r->in_digest, 72);
}

void
adm_gz_reader_free(struct adm_gz_reader *r)
{
	if (r == NULL)
		return;
	deflateEnd(&r->z);
	EVP_MD_CTX_free(r->md);
	free(r->in);
	free(r);
}

/* ---- --compress gzip ahead of an upload ---- */

int
adm_gz_is_plain_layer(const struct adm_image *im, const struct adm_blob *b)
{
	return im->synthesized && strcmp(b->media_type, ADM_MT_OCI_LAYER) == 0;
}

/* An unlinked temporary file under $TMPDIR (default /var/tmp). */
static int
spool_open(int *fd, struct rai_err *err)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int f;

	if (dir == NULL || *dir == '\0')
		dir = "/var/tmp";
	path = xasprintf("%s/runai-adm-layer.XXXXXX", dir);
	f = mkstemp(path);
	if (f == -1) {
		rai_err_errno(err, errno, "cannot create a temporary file in "
		    "'%s' for a compressed layer", dir);
		rai_err_set_hint(err, "point TMPDIR at a writable directory "
		    "with room for the compressed layers");
		free(path);
		return -1;
	}
	unlink(path);
	free(path);
	*fd = f;
	return 0;
}

static int
spool_write(int fd, const char *buf, size_t n, const char *what,
    struct rai_err *err)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, buf, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1) {
			rai_err_errno(err, errno, "writing the compressed '%s' "
			    "under $TMPDIR", what);
			rai_err_set_hint(err, "point TMPDIR at a directory "
			    "with room for the compressed layers");
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * --compress gzip: compresses a legacy layer once, into a spool file
 * the upload then reads (so the CPU work is done once), learning the
 * digest and size the upload will have (the same on every run), and
 * checking the layer against its own digest on the way.
 */
static int
gzip_measure(struct adm_gz_layer *m)
{
	const struct adm_archive *a = m->a;
	const struct adm_blob *b = m->b;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	struct rai_err *err = &m->err;
	struct adm_blob_loc loc;
	struct adm_gz_reader *gz;
	EVP_MD_CTX *ctx;
	char *buf, in[72];
	ssize_t n;
	int rc = -1;

	if (adm_blob_locate(a, b->path, &loc, err) == -1)
		return -1;
	if (m->spool && spool_open(&m->fd, err) == -1) {
		adm_blob_loc_release(&loc);
		return -1;
	}
	gz = adm_gz_reader_new(loc.fd, loc.offset, b->size);
	ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	buf = xmalloc(READ_CHUNK);
	m->size = 0;
	while ((n = adm_gz_read(gz, buf, READ_CHUNK, err)) > 0) {
		if (m->spool && spool_write(m->fd, buf, (size_t)n, b->path,
		    err) == -1)
			goto out;
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		m->size += (uint64_t)n;
	}
	if (n == 0) {
		adm_gz_input_digest(gz, in);
		if (strcmp(in, b->digest) != 0) {
			rai_err_set(err, RAI_E_PROTO, "'%s': digest mismatch "
			    "in blob '%s': expected %s, content has %s; the "
			    "archive is corrupt", a->path, b->path, b->digest,
			    in);
		} else {
			static const char hex[] = "0123456789abcdef";

			EVP_DigestFinal_ex(ctx, md, &mdlen);
			memcpy(m->digest, "sha256:", 7);
			for (i = 0; i < 32; i++) {
				m->digest[7 + 2 * i] = hex[md[i] >> 4];
				m->digest[8 + 2 * i] = hex[md[i] & 0xf];
			}
			m->digest[71] = '\0';
			rc = 0;
		}
	} else {
		rai_err_prefix(err, "'%s': compressing '%s'", a->path,
		    b->path);
	}
out:
	free(buf);
	EVP_MD_CTX_free(ctx);
	adm_gz_reader_free(gz);
	adm_blob_loc_release(&loc);
	return rc;
}

struct gz_pool {
	struct adm_gz_layer	*v;
	size_t			 n;
	size_t			 next;
	pthread_mutex_t		 mu;
};

static void *
gz_worker(void *arg)
{
	struct gz_pool *pool = arg;
	struct adm_gz_layer *m;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&pool->mu);
		i = pool->next++;
		pthread_mutex_unlock(&pool->mu);
		if (i >= pool->n)
			return NULL;
		m = &pool->v[i];
		m->rc = gzip_measure(m);
	}
}

static int
by_gz_size_desc(const void *x, const void *y)
{
	const struct adm_gz_layer *a = x, *b = y;

	return a->b->size > b->b->size ? -1 : a->b->size < b->b->size;
}

/*
 * Every distinct uncompressed legacy layer is compressed once ahead, to
 * learn the digest the upload will have. That is CPU work, so it runs
 * on up to threads threads (each with its own reads, zlib stream and
 * hash), largest layers first.
 */
int
adm_gz_layers_prepare(struct adm_archive *const *arcs, size_t narcs,
    int threads, int spool, struct adm_gz_layer **out, size_t *nout,
    struct rai_err *err)
{
	struct gz_pool pool = { 0 };
	struct adm_gz_layer *v = NULL;
	pthread_t tid[64];
	size_t n = 0, i, k, l, g, nthreads;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	*out = NULL;
	*nout = 0;
	for (i = 0; i < narcs; i++)
		for (k = 0; k < arcs[i]->nimages; k++) {
			const struct adm_image *im = &arcs[i]->images[k];

			for (l = 0; l < im->nlayers; l++) {
				const struct adm_blob *b = &im->layers[l];

				if (!adm_gz_is_plain_layer(im, b))
					continue;
				for (g = 0; g < n; g++)
					if (strcmp(v[g].b->digest, b->digest) ==
					    0)
						break;
				if (g < n)
					continue;
				v = xreallocarray(v, n + 1, sizeof(*v));
				memset(&v[n], 0, sizeof(v[0]));
				v[n].fd = -1;
				v[n].spool = spool;
				v[n].a = arcs[i];
				v[n].b = b;
				n++;
			}
		}
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), by_gz_size_desc);
	pool.v = v;
	pool.n = n;
	pthread_mutex_init(&pool.mu, NULL);
	nthreads = threads > 0 ? (size_t)threads : 1;
	if (ncpu > 0 && nthreads > (size_t)ncpu)
		nthreads = (size_t)ncpu;
	if (nthreads > n)
		nthreads = n;
	if (nthreads > sizeof(tid) / sizeof(tid[0]))
		nthreads = sizeof(tid) / sizeof(tid[0]);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, gz_worker, &pool) != 0)
			break;
	if (i == 0)	/* no thread at all: do it here */
		gz_worker(&pool);
	for (k = 0; k < i; k++)
		pthread_join(tid[k], NULL);
	pthread_mutex_destroy(&pool.mu);
	for (i = 0; i < n; i++)
		if (v[i].rc == -1) {
			rai_err_move(err, &v[i].err);
			adm_gz_layers_free(v, n);
			return -1;
		}
	*out = v;
	*nout = n;
	return 0;
}

void
adm_gz_layers_free(struct adm_gz_layer *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		rai_err_release(&v[i].err);
		if (v[i].fd != -1)
			close(v[i].fd);
	}
	free(v);
}
