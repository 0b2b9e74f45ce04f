/*
 * A tar archive written as a stream: ustar headers, pax records for
 * long names and big sizes, and zlib's deflate around it all when the
 * archive is gzip'ed (see tar_write.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/tar_write.h"

#include "core/banned.h"

#define CHUNK		((size_t)64 * 1024)
#define NAME_LEN	100
#define PREFIX_LEN	155

struct rai_tarw {
	int		 fd;
	unsigned	 flags;
	mode_t		 mode;
	int64_t		 mtime;
	int		 zinit;		/* z is set up (deflateEnd owed) */
	z_stream	 z;
	unsigned char	*out;		/* CHUNK bytes: deflate's output */
	unsigned char	*in;		/* CHUNK bytes: a file member's data */
	uint64_t	 written;
	uint64_t	 pax_seq;	/* numbers the pax headers' names */
	int		 finished;
};

/* ---- the pure parts ---- */

static void
put_octal(unsigned char *field, size_t len, uint64_t v)
{
	char tmp[32];

	/* len - 1 digits and a NUL, as GNU tar and bsdtar write them */
	snprintf(tmp, sizeof(tmp), "%0*llo", (int)(len - 1),
	    (unsigned long long)v);
	memcpy(field, tmp, len - 1);
	field[len - 1] = '\0';
}

/* GNU's base-256: the high bit of the first byte set, big-endian after. */
static void
put_base256(unsigned char *field, size_t len, uint64_t v)
{
	size_t i;

	memset(field, 0, len);
	for (i = len; i > 1; i--, v >>= 8)
		field[i - 1] = (unsigned char)(v & 0xff);
	field[0] = 0x80;
}

/*
 * Text into a header field, without a NUL: a full field needs none, and
 * the block was zeroed, so a shorter one ends with one already.
 */
static void
put_text(unsigned char *field, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		field[i] = (unsigned char)s[i];
}

/*
 * Where name splits into ustar's prefix and name fields: the index of
 * the '/' between them, or 0 when name fits the name field alone, or -1
 * when it fits neither way.
 */
static long
split_at(const char *name)
{
	size_t len = strlen(name), i;

	if (len <= NAME_LEN)
		return 0;
	/* the first '/' that leaves at most 100 bytes after it */
	for (i = 1; i < len && i <= PREFIX_LEN; i++)
		if (name[i] == '/' && len - i - 1 <= NAME_LEN && len - i > 1)
			return (long)i;
	return -1;
}

unsigned
rai_tar_header(unsigned char blk[RAI_TAR_BLOCK], const char *name, char type,
    uint64_t size, mode_t mode, int64_t mtime)
{
	unsigned needs = 0, sum = 0;
	long cut = split_at(name);
	size_t i;

	memset(blk, 0, RAI_TAR_BLOCK);
	if (cut > 0) {
		put_text(blk + 345, name, (size_t)cut);
		put_text(blk, name + cut + 1, strlen(name) - (size_t)cut - 1);
	} else if (cut == 0) {
		put_text(blk, name, strlen(name));
	} else {
		put_text(blk, name, NAME_LEN);
		needs |= RAI_TAR_NEEDS_PATH;
	}
	put_octal(blk + 100, 8, mode & 07777);
	put_octal(blk + 108, 8, 0);			/* uid */
	put_octal(blk + 116, 8, 0);			/* gid */
	if (size > RAI_TAR_USTAR_MAX_SIZE) {
		put_base256(blk + 124, 12, size);
		needs |= RAI_TAR_NEEDS_SIZE;
	} else
		put_octal(blk + 124, 12, size);
	put_octal(blk + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	blk[156] = (unsigned char)type;
	put_text(blk + 257, "ustar", 6);		/* magic, NUL */
	put_text(blk + 263, "00", 2);			/* version */
	/* the checksum is summed with its own field as eight blanks */
	memset(blk + 148, ' ', 8);
	for (i = 0; i < RAI_TAR_BLOCK; i++)
		sum += blk[i];
	put_octal(blk + 148, 7, sum);
	blk[155] = ' ';
	return needs;
}

static size_t
digits(size_t n)
{
	size_t d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

void
rai_tar_pax_record(struct rai_buf *b, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3;	/* ' ', '=', '\n' */
	size_t len = body + digits(body);

	/* counting its own digits may add one: 99 + 2 is 101 */
	if (digits(len) != digits(body))
		len = body + digits(len);
	rai_buf_addf(b, "%zu %s=%s\n", len, key, value);
}

/* ---- writing ---- */

static int
write_all(struct rai_tarw *w, const unsigned char *p, size_t len,
    struct rai_err *err)
{
	ssize_t n;

	while (len > 0) {
		n = write(w->fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return rai_err_errno(err, errno, "cannot write the "
			    "archive");
		p += n;
		len -= (size_t)n;
		w->written += (uint64_t)n;
	}
	return 0;
}

/* Runs deflate over what z holds with flush, writing each full output. */
static int
deflate_out(struct rai_tarw *w, int flush, struct rai_err *err)
{
	int zrc;

	do {
		w->z.next_out = w->out;
		w->z.avail_out = CHUNK;
		zrc = deflate(&w->z, flush);
		if (zrc == Z_STREAM_ERROR)
			return rai_err_set(err, RAI_E_INTERNAL, "deflate: %s",
			    w->z.msg != NULL ? w->z.msg : "stream error");
		if (write_all(w, w->out, CHUNK - w->z.avail_out, err) == -1)
			return -1;
	} while (w->z.avail_out == 0 || (flush == Z_FINISH &&
	    zrc != Z_STREAM_END));
	return 0;
}

static int
put(struct rai_tarw *w, const void *data, size_t len, struct rai_err *err)
{
	if (!(w->flags & RAI_TARW_GZIP))
		return write_all(w, data, len, err);
	/* zlib's lengths are unsigned int: CHUNK-sized pieces */
	while (len > 0) {
		size_t n = len < CHUNK ? len : CHUNK;

		w->z.next_in = (Bytef *)(uintptr_t)data;
		w->z.avail_in = (uInt)n;
		if (deflate_out(w, Z_NO_FLUSH, err) == -1)
			return -1;
		data = (const unsigned char *)data + n;
		len -= n;
	}
	return 0;
}

/* Zeros up to the next block boundary after size bytes of data. */
static int
pad(struct rai_tarw *w, uint64_t size, struct rai_err *err)
{
	static const unsigned char zeros[RAI_TAR_BLOCK];
	size_t rest = (size_t)(size % RAI_TAR_BLOCK);

	return rest == 0 ? 0 : put(w, zeros, RAI_TAR_BLOCK - rest, err);
}

/*
 * The pax header before a member: its path and size records, under a
 * name of its own ("PaxHeaders.N"), as bsdtar names them.
 */
static int
put_pax(struct rai_tarw *w, const char *name, uint64_t size, unsigned needs,
    struct rai_err *err)
{
	unsigned char blk[RAI_TAR_BLOCK];
	struct rai_buf rec = RAI_BUF_INIT;
	char hname[64], num[32];
	int rc;

	if (needs & RAI_TAR_NEEDS_PATH)
		rai_tar_pax_record(&rec, "path", name);
	if (needs & RAI_TAR_NEEDS_SIZE) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)size);
		rai_tar_pax_record(&rec, "size", num);
	}
	snprintf(hname, sizeof(hname), "PaxHeaders.%llu",
	    (unsigned long long)++w->pax_seq);
	(void)rai_tar_header(blk, hname, 'x', rec.len, w->mode, w->mtime);
	rc = put(w, blk, sizeof(blk), err) == -1 ||
	    put(w, rec.data, rec.len, err) == -1 ||
	    pad(w, rec.len, err) == -1 ? -1 : 0;
	rai_buf_release(&rec);
	return rc;
}

static int
put_header(struct rai_tarw *w, const char *name, uint64_t size,
    struct rai_err *err)
{
	unsigned char blk[RAI_TAR_BLOCK];
	unsigned needs;

	if (w->finished)
		return rai_err_set(err, RAI_E_INTERNAL, "tar: a member after "
		    "the end");
	if (*name == '\0')
		return rai_err_set(err, RAI_E_INTERNAL, "tar: a member "
		    "without a name");
	needs = rai_tar_header(blk, name, '0', size, w->mode, w->mtime);
	if (needs != 0 && put_pax(w, name, size, needs, err) == -1)
		return -1;
	return put(w, blk, sizeof(blk), err);
}

int
rai_tarw_open(int fd, const struct rai_tarw_opts *o, struct rai_tarw **out,
    struct rai_err *err)
{
	struct rai_tarw *w = xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->flags = o->flags;
	w->mode = o->mode != 0 ? o->mode : 0600;
	w->mtime = o->mtime;
	if (w->flags & RAI_TARW_GZIP) {
		/* 15 + 16: a gzip wrapper (header and trailer) around deflate */
		if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
		    15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(w);
			return rai_err_set(err, RAI_E_NOMEM, "cannot set up "
			    "gzip compression");
		}
		w->zinit = 1;
		w->out = xmalloc(CHUNK);
	}
	*out = w;
	return 0;
}

int
rai_tarw_add(struct rai_tarw *w, const char *name, const void *data,
    size_t len, struct rai_err *err)
{
	if (put_header(w, name, len, err) == -1 ||
	    put(w, data, len, err) == -1)
		return -1;
	return pad(w, len, err);
}

int
rai_tarw_add_fd(struct rai_tarw *w, const char *name, int fd, uint64_t size,
    struct rai_err *err)
{
	uint64_t off = 0;
	ssize_t n;
	size_t want;

	if (put_header(w, name, size, err) == -1)
		return -1;
	if (w->in == NULL)
		w->in = xmalloc(CHUNK);
	while (off < size) {
		want = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
		n = pread(fd, w->in, want, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return rai_err_errno(err, errno, "cannot read the data "
			    "of '%s'", name);
		/* the header promised size bytes: the archive is broken */
		if (n == 0)
			return rai_err_set(err, RAI_E_IO, "the data of '%s' "
			    "ended after %llu of %llu bytes", name,
			    (unsigned long long)off, (unsigned long long)size);
		if (put(w, w->in, (size_t)n, err) == -1)
			return -1;
		off += (uint64_t)n;
	}
	return pad(w, size, err);
}

int
rai_tarw_finish(struct rai_tarw *w, struct rai_err *err)
{
	static const unsigned char end[2 * RAI_TAR_BLOCK];

	if (w->finished)
		return 0;
	if (put(w, end, sizeof(end), err) == -1)
		return -1;
	w->finished = 1;
	if (!(w->flags & RAI_TARW_GZIP))
		return 0;
	w->z.next_in = NULL;
	w->z.avail_in = 0;
	return deflate_out(w, Z_FINISH, err);
}

uint64_t
rai_tarw_written(const struct rai_tarw *w)
{
	return w->written;
}

void
rai_tarw_free(struct rai_tarw *w)
{
	if (w == NULL)
		return;
	if (w->zinit)
		(void)deflateEnd(&w->z);
	free(w->out);
	free(w->in);
	free(w);
}
