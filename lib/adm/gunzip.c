/*
 * Gzip-compressed image archives: the bytes are inflated once into an
 * unlinked temporary file, which the tar reader then reads in place
 * like any archive. Nothing is left behind whatever happens, and a
 * full disk is a clear error, not a truncated archive. The inflated
 * size is capped (a ratio of the compressed size, or --max-inflate, and
 * the free space), since a few MB of gzip can inflate to hundreds of GB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <zlib.h>

#include "adm/gunzip.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/log.h"

#include "core/banned.h"

#define CHUNK	((size_t)256 * 1024)

/* The most the staged copy may grow to, and which limit that is. */
struct stage_limit {
	uint64_t	 bytes;
	enum { LIMIT_RATIO, LIMIT_OPTION, LIMIT_SPACE, LIMIT_NONE } by;
	const char	*dir;
};

static const char *
stage_dir(void)
{
	const char *d = getenv("TMPDIR");

	/* /var/tmp: big archives do not belong in a RAM-backed /tmp */
	return d != NULL && *d != '\0' ? d : "/var/tmp";
}

/*
 * The trailer's ISIZE: the uncompressed size modulo 2^32, so a lower
 * bound of what the file needs (a last member's only, when there are
 * several; still a lower bound).
 */
static uint64_t
announced_size(int fd, uint64_t off, uint64_t size)
{
	unsigned char t[4];

	if (size < 18 || pread(fd, t, 4, (off_t)(off + size - 4)) != 4)
		return 0;
	return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
	    (uint64_t)t[3] << 24;
}

static int
check_space(const char *dir, uint64_t need, const char *path,
    uint64_t *free_bytes, struct rai_err *err)
{
	struct statvfs vfs;
	uint64_t avail;

	if (statvfs(dir, &vfs) == -1) {
		rai_err_errno(err, errno, "cannot use %s to decompress '%s'",
		    dir, path);
		rai_err_set_hint(err, "set TMPDIR to a writable directory");
		return -1;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*free_bytes = avail;
	if (avail >= need)
		return 0;
	rai_err_set(err, RAI_E_IO, "decompressing '%s' needs at least %llu "
	    "MiB in %s, which has %llu MiB free", path,
	    (unsigned long long)(need >> 20), dir,
	    (unsigned long long)(avail >> 20));
	rai_err_set_hint(err, "set TMPDIR to a directory with more space, "
	    "or gunzip the archive first");
	return -1;
}

static struct stage_limit
stage_limit(uint64_t max_inflate, uint64_t compressed, uint64_t free_bytes,
    const char *dir)
{
	struct stage_limit l = { UINT64_MAX, LIMIT_NONE, dir };

	if (max_inflate == ADM_INFLATE_DEFAULT) {
		l.by = LIMIT_RATIO;
		l.bytes = compressed > UINT64_MAX / ADM_INFLATE_RATIO ?
		    UINT64_MAX : compressed * ADM_INFLATE_RATIO;
	} else if (max_inflate != ADM_INFLATE_ANY) {
		l.by = LIMIT_OPTION;
		l.bytes = max_inflate;
	}
	if (free_bytes < l.bytes) {
		l.by = LIMIT_SPACE;
		l.bytes = free_bytes;
	}
	return l;
}

/* A size for messages: whole KiB, MiB or GiB, rounded down. */
static const char *
fmt_size(uint64_t n, char buf[32])
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB" };
	int u = 0;

	while (u < 3 && n >= 1024) {
		n >>= 10;
		u++;
	}
	snprintf(buf, 32, "%llu %s", (unsigned long long)n, unit[u]);
	return buf;
}

static int
over_limit(const struct stage_limit *l, const char *path, struct rai_err *err)
{
	char size[32];

	fmt_size(l->bytes, size);
	switch (l->by) {
	case LIMIT_RATIO:
		rai_err_set(err, RAI_E_PROTO, "'%s' inflates to more than %s, "
		    "%d times its compressed size: refused as a likely gzip "
		    "bomb", path, size, ADM_INFLATE_RATIO);
		rai_err_set_hint(err, "if the archive is genuine, allow more "
		    "with --max-inflate SIZE (such as 200Gi)");
		break;
	case LIMIT_OPTION:
		rai_err_set(err, RAI_E_PROTO, "'%s' inflates to more than the "
		    "%s that --max-inflate allows", path, size);
		break;
	default:
		rai_err_set(err, RAI_E_IO, "decompressing '%s' needs more than "
		    "the %s free in %s", path, size, l->dir);
		rai_err_set_hint(err, "set TMPDIR to a directory with more "
		    "space, or gunzip the archive first");
		break;
	}
	return -1;
}

static int
open_staging(const char *dir, const char *path, struct rai_err *err)
{
	char *tmpl = xasprintf("%s/runai-adm-XXXXXX", dir);
	int fd = mkstemp(tmpl);

	if (fd == -1) {
		rai_err_errno(err, errno, "cannot make a file in %s to "
		    "decompress '%s'", dir, path);
		rai_err_set_hint(err, "set TMPDIR to a writable directory");
	} else {
		/* unlinked at once: the descriptor is all that holds it */
		unlink(tmpl);
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	free(tmpl);
	return fd;
}

static int
write_all(int fd, const unsigned char *p, size_t len, const char *dir,
    const char *path, struct rai_err *err)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			rai_err_errno(err, errno, "decompressing '%s' into %s",
			    path, dir);
			if (errno == ENOSPC)
				rai_err_set_hint(err, "set TMPDIR to a "
				    "directory with more space");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Inflates every gzip member of the size bytes of in at off into out, up
 * to the limit.
 */
static int
inflate_all(int in, uint64_t off, uint64_t size, int out,
    const struct stage_limit *limit, const char *path, struct rai_err *err)
{
	unsigned char *src = xmalloc(CHUNK), *dst = xmalloc(CHUNK);
	const char *dir = limit->dir;
	uint64_t written = 0;
	size_t have;
	z_stream zs;
	ssize_t n;
	int zrc = Z_OK, rc = -1, done = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		rai_die("out of memory starting zlib");
	while (!done) {
		n = pread(in, src, size < CHUNK ? (size_t)size : CHUNK,
		    (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			rai_err_errno(err, errno, "reading '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		off += (uint64_t)n;
		size -= (uint64_t)n;
		zs.next_in = src;
		zs.avail_in = (uInt)n;
		while (zs.avail_in > 0) {
			zs.next_out = dst;
			zs.avail_out = (uInt)CHUNK;
			zrc = inflate(&zs, Z_NO_FLUSH);
			if (zrc != Z_OK && zrc != Z_STREAM_END) {
				rai_err_set(err, RAI_E_PROTO, "'%s' is not "
				    "valid gzip at byte %lu: %s", path,
				    (unsigned long)zs.total_in,
				    zs.msg ? zs.msg : "corrupt data");
				goto out;
			}
			have = CHUNK - zs.avail_out;
			/* checked before the write: the limit is never passed */
			if (have > limit->bytes - written) {
				over_limit(limit, path, err);
				goto out;
			}
			if (write_all(out, dst, have, dir, path, err) == -1)
				goto out;
			written += have;
			/* concatenated members, as gzip itself reads them */
			if (zrc == Z_STREAM_END && inflateReset(&zs) != Z_OK)
				done = 1;
		}
	}
	if (zrc != Z_STREAM_END) {
		rai_err_set(err, RAI_E_PROTO, "'%s' is truncated: the gzip "
		    "stream ends early", path);
		goto out;
	}
	rc = 0;
out:
	inflateEnd(&zs);
	free(src);
	free(dst);
	return rc;
}

int
adm_gunzip_stage(int fd, const char *path, uint64_t max_inflate, int *out,
    struct rai_err *err)
{
	struct stat st;

	*out = -1;
	if (fstat(fd, &st) == -1)
		return rai_err_errno(err, errno, "'%s'", path);
	return adm_gunzip_stage_range(fd, 0, (uint64_t)st.st_size, path,
	    max_inflate, out, err);
}

int
adm_gunzip_stage_range(int fd, uint64_t off, uint64_t size, const char *path,
    uint64_t max_inflate, int *out, struct rai_err *err)
{
	const char *dir = stage_dir();
	struct stage_limit limit;
	uint64_t free_bytes = 0;
	int tmp;

	*out = -1;
	if (check_space(dir, announced_size(fd, off, size), path, &free_bytes,
	    err) == -1)
		return -1;
	/*
	 * Not judged by the trailer: a cut file's last bytes are no size,
	 * and a bomb's may lie. The bytes themselves are counted instead.
	 */
	limit = stage_limit(max_inflate, size, free_bytes, dir);
	if ((tmp = open_staging(dir, path, err)) == -1)
		return -1;
	rai_log(RAI_LOG_NOTE, "decompressing '%s' into %s", path, dir);
	if (inflate_all(fd, off, size, tmp, &limit, path, err) == -1) {
		if (err->kind == RAI_OK)
			rai_err_errno(err, errno, "reading '%s'", path);
		close(tmp);
		return -1;
	}
	*out = tmp;
	return 0;
}
