/*
 * adm_reg_gzip: the deterministic block gzip of adm_reg_gzip.h, on a
 * pool of threads, and --compress gzip ahead of an upload (see
 * adm_registry.h). Determinism is what lets a rerun of a push find, by
 * HEAD, the layers an earlier run compressed and uploaded; the block
 * format makes it hold whatever the number of threads. Each distinct
 * uncompressed legacy layer is compressed once into an unlinked spool
 * file the upload then reads, so the upload knows digest and size up
 * front. Blocks stored as they are (data that does not compress) are
 * not copied into the spool: the upload frames them again from the
 * archive. Writing them would cost a page of memory, or disk, for every
 * page of the layer for nothing.
 *
 * Threads: the first free thread takes the next job (largest first) and
 * owns it: it writes the job's blocks in order, hashing input and
 * output (sha256 is sequential), and compresses blocks itself while it
 * waits. A thread with no job to own helps the owned jobs by
 * compressing their next blocks. A block needs a slot (its input with
 * the dictionary, its output); the slots are a fixed pool, which bounds
 * the memory. No wait can last forever: the lowest unwritten block of a
 * job holding slots is always claimed, so it completes and frees one.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#define ZLIB_CONST	/* next_in is const: the input is never written */
#include <zlib.h>

#include "adm/image.h"
#include "adm/reg_gzip.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"

#include "core/banned.h"

/* Fast: a push is I/O bound; and the level is part of the digest. */
#define GZ_LEVEL	1
#define STORED_MAX	65535u
#define STORED_HEADER	5
#define MAX_THREADS	64

/* ---- the block format ---- */

struct adm_gz_deflater {
	z_stream	 z;		/* the block */
	z_stream	 sample;	/* the incompressibility probe */
	unsigned char	*sample_out;
};

static size_t
sample_cap(void)
{
	return ADM_GZ_SAMPLE + ADM_GZ_SAMPLE / 8 + 64;
}

struct adm_gz_deflater *
adm_gz_deflater_new(void)
{
	struct adm_gz_deflater *d = xcalloc(1, sizeof(*d));

	/* windowBits -15: raw deflate; memLevel 8 as gzip(1) */
	if (deflateInit2(&d->z, GZ_LEVEL, Z_DEFLATED, -15, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK ||
	    deflateInit2(&d->sample, GZ_LEVEL, Z_DEFLATED, -15, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		rai_die("out of memory starting zlib");
	d->sample_out = xmalloc(sample_cap());
	return d;
}

void
adm_gz_deflater_free(struct adm_gz_deflater *d)
{
	if (d == NULL)
		return;
	deflateEnd(&d->z);
	deflateEnd(&d->sample);
	free(d->sample_out);
	free(d);
}

size_t
adm_gz_block_bound(size_t len)
{
	/* deflate's worst case, a sync flush, or the stored framing */
	return len + len / 8 + 1024;
}

/*
 * Already compressed data: deflating it costs the most time for no gain.
 * The first bytes of the block decide, deterministically: a level 1
 * deflate of them must save at least 1/32.
 */
static int
incompressible(struct adm_gz_deflater *d, const unsigned char *in,
    size_t len)
{
	size_t n = len < ADM_GZ_SAMPLE ? len : ADM_GZ_SAMPLE, got;
	z_stream *s = &d->sample;

	if (deflateReset(s) != Z_OK)
		return 0;
	s->next_in = in;
	s->avail_in = (uInt)n;
	s->next_out = d->sample_out;
	s->avail_out = (uInt)sample_cap();
	/* as Python's compress() then flush(): the tests recompute it */
	(void)deflate(s, Z_NO_FLUSH);
	if (deflate(s, Z_FINISH) != Z_STREAM_END)
		return 0;
	got = sample_cap() - s->avail_out;
	return got * 32 > n * 31;
}

/* The header of a stored block of n bytes, not final. */
static void
stored_header(size_t n, unsigned char h[STORED_HEADER])
{
	h[0] = 0x00;	/* BFINAL 0, BTYPE 00, padding */
	h[1] = (unsigned char)(n & 0xff);
	h[2] = (unsigned char)(n >> 8);
	h[3] = (unsigned char)(~n & 0xff);
	h[4] = (unsigned char)((~n >> 8) & 0xff);
}

/* Stored blocks, not final; the stream is on a byte boundary here. */
static size_t
store(const unsigned char *in, size_t len, unsigned char *out)
{
	size_t o = 0, n;

	while (len > 0) {
		n = len < STORED_MAX ? len : STORED_MAX;
		stored_header(n, out + o);
		o += STORED_HEADER;
		memcpy(out + o, in, n);
		o += n;
		in += n;
		len -= n;
	}
	return o;
}

size_t
adm_gz_deflate_block(struct adm_gz_deflater *d, const unsigned char *dict,
    size_t dlen, const unsigned char *in, size_t len, unsigned char *out,
    size_t cap, int *stored)
{
	z_stream *z = &d->z;

	*stored = 0;
	if (len == 0)
		return 0;
	if (incompressible(d, in, len)) {
		*stored = 1;
		return store(in, len, out);
	}
	if (deflateReset(z) != Z_OK || (dlen > 0 && deflateSetDictionary(z,
	    dict, (uInt)dlen) != Z_OK))
		return 0;
	z->next_in = in;
	z->avail_in = (uInt)len;
	z->next_out = out;
	z->avail_out = (uInt)cap;
	/* all the input, then the flush: as the Python reference does */
	if (deflate(z, Z_NO_FLUSH) != Z_OK || deflate(z, Z_SYNC_FLUSH) !=
	    Z_OK || z->avail_in != 0 || z->avail_out == 0)
		return 0;
	return cap - z->avail_out;
}

void
adm_gz_header(unsigned char out[ADM_GZ_HEADER_LEN])
{
	/* magic, deflate, no flags, mtime 0, XFL 4 (fastest), OS 255 */
	static const unsigned char h[ADM_GZ_HEADER_LEN] = {
		0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0xff
	};

	memcpy(out, h, sizeof(h));
}

static void
put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

void
adm_gz_trailer(uint32_t crc, uint64_t size,
    unsigned char out[ADM_GZ_TRAILER_LEN])
{
	/* an empty final block with fixed codes: BFINAL 1, BTYPE 01, EOB */
	out[0] = 0x03;
	out[1] = 0x00;
	put_le32(out + 2, crc);
	put_le32(out + 6, (uint32_t)size);	/* ISIZE: the size mod 2^32 */
}

/* ---- compressing file ranges on a pool of threads ---- */

struct gz_stream;

struct gz_slot {
	struct gz_stream	*s;		/* NULL: free */
	size_t			 index;		/* block number in s */
	int			 ready;		/* compressed (or failed) */
	unsigned char		*in;		/* dictionary, then the block */
	size_t			 dict_len;
	size_t			 len;
	unsigned char		*out;
	size_t			 out_len;
	int			 stored;	/* out: in[] framed, stored */
	uint32_t		 crc;
	int			 rc;
	struct rai_err		 err;
};

struct gz_stream {
	struct adm_gz_job	*job;
	size_t			 nblocks;
	size_t			 claimed;	/* blocks handed to a thread */
	size_t			 written;	/* blocks written, in order */
	int			 taken;		/* a thread owns it */
	int			 owned;		/* and it has begun: others may help */
	int			 done;
	uLong			 crc;
	EVP_MD_CTX		*in_md;
	EVP_MD_CTX		*out_md;
	int			 rc;
	struct rai_err		 err;
};

struct gz_pool {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct gz_stream	*v;
	size_t			 n;
	struct gz_slot		*slots;
	size_t			 nslots;
	size_t			 ahead;		/* blocks claimed past the written */
	int			 stop;		/* a job failed */
};

int
adm_gz_auto_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void
hex_digest(EVP_MD_CTX *md, char out[ADM_DIGEST_MAX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	EVP_DigestFinal_ex(md, d, &len);
	memcpy(out, "sha256:", 7);
	for (i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 0xf];
	}
	out[71] = '\0';
}

/* Reads the block and its dictionary; -1 with the slot's err. */
static int
slot_read(struct gz_slot *sl)
{
	const struct adm_gz_job *j = sl->s->job;
	uint64_t start = (uint64_t)sl->index * ADM_GZ_BLOCK, at;
	size_t want, got = 0;
	ssize_t n;

	sl->dict_len = start < ADM_GZ_DICT ? (size_t)start : ADM_GZ_DICT;
	sl->len = j->size - start < ADM_GZ_BLOCK ? (size_t)(j->size -
	    start) : ADM_GZ_BLOCK;
	at = start - sl->dict_len;
	want = sl->dict_len + sl->len;
	while (got < want) {
		n = pread(j->fd, sl->in + got, want - got, (off_t)(j->offset +
		    at + got));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return rai_err_errno(&sl->err, errno, "reading at "
			    "offset %" PRIu64, j->offset + at + got);
		if (n == 0)
			return rai_err_set(&sl->err, RAI_E_PROTO, "file ends "
			    "at offset %" PRIu64 ", %" PRIu64 " bytes short",
			    j->offset + at + got, j->size - (at + got));
		got += (size_t)n;
	}
	return 0;
}

/* Called unlocked: the slot is this thread's until it is ready. */
static void
slot_compress(struct gz_slot *sl, struct adm_gz_deflater *d)
{
	int stored;

	sl->rc = slot_read(sl);
	if (sl->rc == -1)
		return;
	sl->crc = (uint32_t)crc32(0L, sl->in + sl->dict_len, (uInt)sl->len);
	sl->out_len = adm_gz_deflate_block(d, sl->in, sl->dict_len, sl->in +
	    sl->dict_len, sl->len, sl->out, adm_gz_block_bound(ADM_GZ_BLOCK),
	    &stored);
	sl->stored = stored;
	if (sl->out_len == 0)
		sl->rc = rai_err_set(&sl->err, RAI_E_INTERNAL, "deflate "
		    "failed");
}

static int
claimable(const struct gz_pool *pool, const struct gz_stream *s)
{
	return s->owned && !s->done && s->claimed < s->nblocks &&
	    s->claimed < s->written + pool->ahead;
}

/* Locked: a free slot for the next block of s, or NULL. */
static struct gz_slot *
claim(struct gz_pool *pool, struct gz_stream *s)
{
	size_t i;

	for (i = 0; i < pool->nslots; i++)
		if (pool->slots[i].s == NULL) {
			struct gz_slot *sl = &pool->slots[i];

			if (sl->in == NULL) {	/* the pool fills lazily */
				sl->in = xmalloc(ADM_GZ_DICT + ADM_GZ_BLOCK);
				sl->out = xmalloc(adm_gz_block_bound(
				    ADM_GZ_BLOCK));
			}
			sl->s = s;
			sl->index = s->claimed++;
			sl->ready = 0;
			sl->rc = 0;
			return sl;
		}
	return NULL;
}

/* Locked on entry and exit: compresses a claimed slot. */
static void
compress_claimed(struct gz_pool *pool, struct gz_slot *sl,
    struct adm_gz_deflater *d)
{
	pthread_mutex_unlock(&pool->mu);
	slot_compress(sl, d);
	pthread_mutex_lock(&pool->mu);
	sl->ready = 1;
	pthread_cond_broadcast(&pool->cv);
}

static struct gz_slot *
find_slot(struct gz_pool *pool, const struct gz_stream *s, size_t index)
{
	size_t i;

	for (i = 0; i < pool->nslots; i++)
		if (pool->slots[i].s == s && pool->slots[i].index == index)
			return &pool->slots[i];
	return NULL;
}

static void
slot_free(struct gz_slot *sl)
{
	rai_err_release(&sl->err);
	sl->s = NULL;
}

/* Appends a piece to the job's list; spooled ones next to each other merge. */
static void
add_piece(struct adm_gz_pieces *ps, uint64_t at, uint64_t len, uint64_t from,
    uint64_t in_len, int stored)
{
	struct adm_gz_piece *last = ps->n > 0 ? &ps->v[ps->n - 1] : NULL;

	if (!stored && last != NULL && !last->stored) {
		last->len += len;
		return;
	}
	/* a 10 GiB layer has 40,960 blocks; v is NULL until the first */
	if (ps->v == NULL || ps->n == ps->cap) {
		ps->cap = ps->cap > 0 ? ps->cap * 2 : 64;
		ps->v = xreallocarray(ps->v, ps->cap, sizeof(*ps->v));
	}
	ps->v[ps->n].at = at;
	ps->v[ps->n].len = len;
	ps->v[ps->n].from = from;
	ps->v[ps->n].in_len = in_len;
	ps->v[ps->n].stored = stored;
	ps->n++;
}

static int
out_write(struct gz_stream *s, const unsigned char *buf, size_t n)
{
	const struct adm_gz_job *j = s->job;
	struct adm_gz_pieces *ps = j->pieces;
	ssize_t w;

	EVP_DigestUpdate(s->out_md, buf, n);
	if (ps != NULL && j->out_fd != -1) {
		add_piece(ps, s->job->gz_size, n, ps->spooled, 0, 0);
		ps->spooled += n;
	}
	s->job->gz_size += n;
	while (j->out_fd != -1 && n > 0) {
		w = write(j->out_fd, buf, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1) {
			rai_err_errno(&s->err, errno, "writing the compressed "
			    "'%s' under $TMPDIR", j->what);
			rai_err_set_hint(&s->err, "point TMPDIR at a directory "
			    "with room for the compressed layers");
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Unlocked: the owner appends a ready block, in order. */
static int
commit(struct gz_stream *s, struct gz_slot *sl)
{
	if (sl->rc == -1) {
		rai_err_move(&s->err, &sl->err);
		return -1;
	}
	EVP_DigestUpdate(s->in_md, sl->in + sl->dict_len, sl->len);
	s->crc = crc32_combine(s->crc, sl->crc, (z_off_t)sl->len);
	if (sl->stored && s->job->pieces != NULL && s->job->out_fd != -1) {
		/* hashed as sent; the reader frames the input again */
		EVP_DigestUpdate(s->out_md, sl->out, sl->out_len);
		add_piece(s->job->pieces, s->job->gz_size, sl->out_len,
		    s->job->offset + (uint64_t)sl->index * ADM_GZ_BLOCK,
		    sl->len, 1);
		s->job->gz_size += sl->out_len;
		return 0;
	}
	return out_write(s, sl->out, sl->out_len);
}

static int
stream_begin(struct gz_stream *s)
{
	unsigned char h[ADM_GZ_HEADER_LEN];

	s->crc = crc32(0L, Z_NULL, 0);
	s->in_md = EVP_MD_CTX_new();
	s->out_md = EVP_MD_CTX_new();
	if (s->in_md == NULL || s->out_md == NULL ||
	    EVP_DigestInit_ex(s->in_md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestInit_ex(s->out_md, EVP_sha256(), NULL) != 1)
		rai_die("out of memory starting sha256");
	adm_gz_header(h);
	return out_write(s, h, sizeof(h));
}

static int
stream_end(struct gz_stream *s)
{
	unsigned char t[ADM_GZ_TRAILER_LEN];

	adm_gz_trailer((uint32_t)s->crc, s->job->size, t);
	if (out_write(s, t, sizeof(t)) == -1)
		return -1;
	hex_digest(s->out_md, s->job->digest);
	hex_digest(s->in_md, s->job->in_digest);
	return 0;
}

/*
 * Locked on entry and exit: the owner's loop. It writes the blocks in
 * order; while the next one is not ready it compresses blocks too.
 */
static void
own(struct gz_pool *pool, struct gz_stream *s, struct adm_gz_deflater *d)
{
	struct gz_slot *sl;
	int rc;

	pthread_mutex_unlock(&pool->mu);
	rc = stream_begin(s);
	pthread_mutex_lock(&pool->mu);
	s->owned = 1;
	pthread_cond_broadcast(&pool->cv);
	while (rc == 0 && !pool->stop && s->written < s->nblocks) {
		sl = find_slot(pool, s, s->written);
		if (sl != NULL && sl->ready) {
			pthread_mutex_unlock(&pool->mu);
			rc = commit(s, sl);
			pthread_mutex_lock(&pool->mu);
			slot_free(sl);
			s->written++;
			pthread_cond_broadcast(&pool->cv);
		} else if (claimable(pool, s) && (sl = claim(pool, s)) !=
		    NULL) {
			compress_claimed(pool, sl, d);
		} else {
			pthread_cond_wait(&pool->cv, &pool->mu);
		}
	}
	if (rc == 0 && !pool->stop) {
		pthread_mutex_unlock(&pool->mu);
		rc = stream_end(s);
		pthread_mutex_lock(&pool->mu);
	}
	if (rc == -1) {
		s->rc = -1;
		pool->stop = 1;
	}
	s->done = 1;
	pthread_cond_broadcast(&pool->cv);
}

/* Locked: compresses one block of a job another thread owns; 0 if none. */
static int
help(struct gz_pool *pool, struct adm_gz_deflater *d)
{
	struct gz_slot *sl;
	size_t i;

	for (i = 0; i < pool->n; i++) {
		if (!claimable(pool, &pool->v[i]))
			continue;
		if ((sl = claim(pool, &pool->v[i])) == NULL)
			return 0;
		compress_claimed(pool, sl, d);
		return 1;
	}
	return 0;
}

static int
all_done(const struct gz_pool *pool)
{
	size_t i;

	for (i = 0; i < pool->n; i++)
		if (!pool->v[i].done)
			return 0;
	return 1;
}

static void *
gz_worker(void *arg)
{
	struct gz_pool *pool = arg;
	struct adm_gz_deflater *d = adm_gz_deflater_new();
	size_t i;

	pthread_mutex_lock(&pool->mu);
	while (!pool->stop && !all_done(pool)) {
		for (i = 0; i < pool->n; i++)
			if (!pool->v[i].taken)
				break;
		if (i < pool->n) {
			pool->v[i].taken = 1;
			own(pool, &pool->v[i], d);
			continue;
		}
		if (!help(pool, d))
			pthread_cond_wait(&pool->cv, &pool->mu);
	}
	pthread_mutex_unlock(&pool->mu);
	adm_gz_deflater_free(d);
	return NULL;
}

int
adm_gz_run(struct adm_gz_job *jobs, size_t n, int threads,
    struct rai_err *err)
{
	struct gz_pool pool;
	pthread_t tid[MAX_THREADS];
	size_t i, k, nthreads, started;
	int rc = 0;

	memset(&pool, 0, sizeof(pool));
	if (n == 0)
		return 0;
	nthreads = threads > 0 ? (size_t)threads :
	    (size_t)adm_gz_auto_threads();
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	pool.v = xcalloc(n, sizeof(*pool.v));
	pool.n = n;
	for (i = 0; i < n; i++) {
		jobs[i].gz_size = 0;
		pool.v[i].job = &jobs[i];
		pool.v[i].nblocks = (size_t)((jobs[i].size + ADM_GZ_BLOCK - 1) /
		    ADM_GZ_BLOCK);
	}
	/* two blocks in flight per thread keep every thread busy */
	pool.nslots = 2 * nthreads + 2;
	pool.slots = xcalloc(pool.nslots, sizeof(*pool.slots));
	pool.ahead = pool.nslots;
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.cv, NULL);
	for (started = 0; started < nthreads; started++)
		if (pthread_create(&tid[started], NULL, gz_worker, &pool) != 0)
			break;
	if (started == 0)	/* no thread at all: do it here */
		gz_worker(&pool);
	for (k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	pthread_cond_destroy(&pool.cv);
	pthread_mutex_destroy(&pool.mu);
	for (i = 0; i < n; i++) {
		struct gz_stream *s = &pool.v[i];

		jobs[i].failed = s->rc == -1;
		if (s->rc == -1 && rc == 0) {
			rai_err_move(err, &s->err);
			rc = -1;
		}
		rai_err_release(&s->err);
		EVP_MD_CTX_free(s->in_md);
		EVP_MD_CTX_free(s->out_md);
	}
	for (i = 0; i < pool.nslots; i++) {
		rai_err_release(&pool.slots[i].err);
		free(pool.slots[i].in);
		free(pool.slots[i].out);
	}
	free(pool.slots);
	free(pool.v);
	return rc;
}

/* ---- reading a spooled gzip back ---- */

static ssize_t
pread_eintr(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, (off_t)off);
	while (n == -1 && errno == EINTR);
	return n;
}

/* The piece holding stream offset off, or NULL past the end. */
static const struct adm_gz_piece *
piece_at(const struct adm_gz_pieces *ps, uint64_t off)
{
	size_t lo = 0, hi = ps->n, mid;

	if (ps->n == 0)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ps->v[mid].at <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (off >= ps->v[lo].at + ps->v[lo].len)
		return NULL;
	return &ps->v[lo];
}

/* Up to len bytes at offset o of a stored piece: a header or its data. */
static ssize_t
stored_read(const struct adm_gz_piece *pc, int in_fd, unsigned char *buf,
    size_t len, uint64_t o)
{
	const uint64_t frame = STORED_MAX + STORED_HEADER;
	uint64_t c = o / frame, p = o % frame, rest = pc->in_len -
	    c * STORED_MAX;
	size_t n = rest < STORED_MAX ? (size_t)rest : STORED_MAX, k;
	unsigned char h[STORED_HEADER];

	if (p < STORED_HEADER) {
		stored_header(n, h);
		k = STORED_HEADER - (size_t)p;
		if (k > len)
			k = len;
		memcpy(buf, h + p, k);
		return (ssize_t)k;
	}
	k = n - (size_t)(p - STORED_HEADER);
	if (k > len)
		k = len;
	return pread_eintr(in_fd, buf, k, pc->from + c * STORED_MAX +
	    (p - STORED_HEADER));
}

ssize_t
adm_gz_pieces_pread(const struct adm_gz_pieces *ps, int spool_fd, int in_fd,
    void *buf, size_t len, uint64_t off)
{
	unsigned char *b = buf;
	const struct adm_gz_piece *pc;
	size_t got = 0, want;
	uint64_t o;
	ssize_t n;

	while (got < len && (pc = piece_at(ps, off + got)) != NULL) {
		o = off + got - pc->at;
		want = len - got;
		if (want > pc->len - o)
			want = (size_t)(pc->len - o);
		n = pc->stored ? stored_read(pc, in_fd, b + got, want, o) :
		    pread_eintr(spool_fd, b + got, want, pc->from + o);
		if (n == -1 && got == 0)
			return -1;
		if (n <= 0)	/* an error after some bytes, or a file short */
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void
adm_gz_pieces_release(struct adm_gz_pieces *ps)
{
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

ssize_t
adm_gz_layer_pread(const struct adm_gz_layer *l, void *buf, size_t len,
    uint64_t off)
{
	return adm_gz_pieces_pread(&l->pieces, l->fd, l->loc.fd, buf, len,
	    off);
}

int
adm_gz_layer_sha256(const struct adm_gz_layer *l,
    char digest[ADM_DIGEST_MAX], struct rai_err *err)
{
	const size_t cap = (size_t)1 << 20;
	unsigned char *buf = xmalloc(cap);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint64_t off = 0;
	ssize_t n;
	int rc = 0;

	if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		rai_die("out of memory starting sha256");
	while (off < l->size) {
		n = adm_gz_layer_pread(l, buf, cap, off);
		if (n <= 0) {
			rc = n == -1 ? rai_err_errno(err, errno, "reading "
			    "back the gzip copy of '%s'", l->b->path) :
			    rai_err_set(err, RAI_E_IO, "the gzip copy of '%s' "
			    "ends at %" PRIu64 " of %" PRIu64 " bytes",
			    l->b->path, off, l->size);
			break;
		}
		EVP_DigestUpdate(md, buf, (size_t)n);
		off += (uint64_t)n;
	}
	if (rc == 0)
		hex_digest(md, digest);
	EVP_MD_CTX_free(md);
	free(buf);
	return rc;
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
by_gz_size_desc(const void *x, const void *y)
{
	const struct adm_gz_layer *a = x, *b = y;

	return a->b->size > b->b->size ? -1 : a->b->size < b->b->size;
}

/* Every distinct uncompressed legacy layer of the archives, once. */
static struct adm_gz_layer *
plain_layers(struct adm_archive *const *arcs, size_t narcs, int spool,
    size_t *nout)
{
	struct adm_gz_layer *v = NULL;
	size_t n = 0, i, k, l, g;

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
	*nout = n;
	return v;
}

/*
 * Every distinct uncompressed legacy layer is compressed once ahead, to
 * learn the digest the upload will have: largest first, blocks on every
 * thread (adm_gz_run). Each is checked against its own digest on the
 * way: a corrupt one is marked bad before anything is sent.
 */
int
adm_gz_layers_prepare(struct adm_archive *const *arcs, size_t narcs,
    int threads, int spool, struct adm_gz_layer **out, size_t *nout,
    struct rai_err *err)
{
	struct adm_gz_layer *v;
	struct adm_gz_job *jobs;
	size_t n, i;
	int rc = -1;

	*out = NULL;
	*nout = 0;
	v = plain_layers(arcs, narcs, spool, &n);
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), by_gz_size_desc);
	jobs = xcalloc(n, sizeof(*jobs));
	for (i = 0; i < n; i++) {
		if (adm_blob_locate(v[i].a, v[i].b->path, &v[i].loc, err) == -1)
			goto out;
		v[i].have_loc = 1;
		if (spool && spool_open(&v[i].fd, err) == -1)
			goto out;
		jobs[i].fd = v[i].loc.fd;
		jobs[i].offset = v[i].loc.offset;
		jobs[i].size = v[i].b->size;
		jobs[i].out_fd = v[i].fd;
		jobs[i].pieces = spool ? &v[i].pieces : NULL;
		jobs[i].what = v[i].b->path;
	}
	if (adm_gz_run(jobs, n, threads, err) == -1) {
		for (i = 0; i + 1 < n && !jobs[i].failed; i++)
			;
		rai_err_prefix(err, "'%s': compressing '%s'", v[i].a->path,
		    v[i].b->path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		/*
		 * a corrupt layer leaves out the images that need it, not
		 * the whole push: the others are pushed as without gzip
		 */
		if (strcmp(jobs[i].in_digest, v[i].b->digest) != 0)
			v[i].bad = xasprintf("'%s': digest mismatch in blob "
			    "'%s': expected %s, content has %s; the archive is "
			    "corrupt", v[i].a->path, v[i].b->path,
			    v[i].b->digest, jobs[i].in_digest);
		memcpy(v[i].digest, jobs[i].digest, sizeof(v[i].digest));
		v[i].size = jobs[i].gz_size;
		if (!spool) {	/* digests only: the archive is not read again */
			adm_blob_loc_release(&v[i].loc);
			v[i].have_loc = 0;
		}
	}
	rc = 0;
out:
	free(jobs);
	if (rc == -1) {
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
		if (v[i].fd != -1)
			close(v[i].fd);
		if (v[i].have_loc)
			adm_blob_loc_release(&v[i].loc);
		adm_gz_pieces_release(&v[i].pieces);
		free(v[i].bad);
	}
	free(v);
}
