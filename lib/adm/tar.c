/*
 * adm_tar: indexing an uncompressed tar in place (see adm_tar.h).
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

#include "adm/gunzip.h"
#include "adm/tar.h"
#include "core/alloc.h"
#include "core/err.h"

#include "core/banned.h"

/* ustar header field offsets and lengths */
#define F_NAME		0
#define L_NAME		100
#define F_MODE		100
#define L_MODE		8
#define F_SIZE		124
#define L_SIZE		12
#define F_MTIME		136
#define L_MTIME		12
#define F_CHKSUM	148
#define L_CHKSUM	8
#define F_TYPE		156
#define F_LINK		157
#define L_LINK		100
#define F_MAGIC		257
#define F_PREFIX	345
#define L_PREFIX	155

#define MAX_LINK_HOPS	16

int
adm_tar_parse_num(const unsigned char *f, size_t len, uint64_t *out,
    struct rai_err *err)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len == 0)
		return rai_err_set(err, RAI_E_PROTO, "empty numeric field");
	if (f[0] & 0x80) {
		/* base-256: big-endian two's complement, first byte's high bit is the flag */
		if (f[0] & 0x40)
			return rai_err_set(err, RAI_E_PROTO,
			    "negative base-256 numeric field");
		v = f[0] & 0x3f;
		for (i = 1; i < len; i++) {
			if (v > (UINT64_MAX >> 8) || (v << 8) > INT64_MAX)
				return rai_err_set(err, RAI_E_PROTO,
				    "base-256 numeric field out of range");
			v = (v << 8) | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < len && (f[i] == ' ' || f[i] == '\0'))
		i++;
	if (i == len) {
		*out = 0;
		return 0;
	}
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (UINT64_MAX >> 3))
			return rai_err_set(err, RAI_E_PROTO,
			    "octal numeric field out of range");
		v = (v << 3) | (uint64_t)(f[i] - '0');
	}
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return rai_err_set(err, RAI_E_PROTO,
			    "malformed octal numeric field");
	*out = v;
	return 0;
}

/* Copies a field that may fill its whole width without a NUL. */
static void
field_str(char *dst, const unsigned char *f, size_t len)
{
	size_t n = 0;

	while (n < len && f[n] != '\0')
		n++;
	memcpy(dst, f, n);
	dst[n] = '\0';
}

static enum adm_tar_type
type_of(char t)
{
	switch (t) {
	case '0': case '\0': case '7':
		return ADM_TAR_FILE;
	case '1':
		return ADM_TAR_HARDLINK;
	case '2':
		return ADM_TAR_SYMLINK;
	case '5':
		return ADM_TAR_DIR;
	case 'L':
		return ADM_TAR_LONGNAME;
	case 'K':
		return ADM_TAR_LONGLINK;
	case 'x':
		return ADM_TAR_PAX;
	case 'g':
		return ADM_TAR_PAX_GLOBAL;
	default:
		return ADM_TAR_OTHER;
	}
}

int
adm_tar_parse_header(const unsigned char blk[ADM_TAR_BLOCK],
    struct adm_tar_hdr *h, struct rai_err *err)
{
	uint64_t want, usum = 0;
	int64_t ssum = 0;
	size_t i;
	int zero = 1;
	char prefix[L_PREFIX + 1], name[L_NAME + 1];

	memset(h, 0, sizeof(*h));
	for (i = 0; i < ADM_TAR_BLOCK && zero; i++)
		zero = blk[i] == 0;
	if (zero)
		return ADM_TAR_HDR_ZERO;
	for (i = 0; i < ADM_TAR_BLOCK; i++) {
		unsigned char c = (i >= F_CHKSUM && i < F_CHKSUM + L_CHKSUM) ?
		    ' ' : blk[i];
		usum += c;
		ssum += (signed char)c;
	}
	if (adm_tar_parse_num(blk + F_CHKSUM, L_CHKSUM, &want, err) == -1) {
		rai_err_set(err, RAI_E_PROTO, "header checksum field is not "
		    "a number");
		return -1;
	}
	if (want != usum && (int64_t)want != ssum)
		return rai_err_set(err, RAI_E_PROTO, "header checksum mismatch "
		    "(stored %" PRIu64 ", computed %" PRIu64 ")", want, usum);
	h->typeflag = (char)blk[F_TYPE];
	h->type = type_of(h->typeflag);
	h->ustar = memcmp(blk + F_MAGIC, "ustar", 5) == 0;
	if (adm_tar_parse_num(blk + F_SIZE, L_SIZE, &h->size, err) == -1 ||
	    adm_tar_parse_num(blk + F_MODE, L_MODE, &h->mode, err) == -1) {
		rai_err_prefix(err, "header size or mode");
		return -1;
	}
	{
		uint64_t mt;

		/* mtime only informs; a bad one is not worth failing */
		h->mtime = adm_tar_parse_num(blk + F_MTIME, L_MTIME, &mt,
		    NULL) == 0 && mt <= INT64_MAX ? (int64_t)mt : 0;
	}
	field_str(name, blk + F_NAME, L_NAME);
	field_str(h->linkname, blk + F_LINK, L_LINK);
	prefix[0] = '\0';
	/* the GNU format keeps atime/ctime where ustar has its prefix */
	if (h->ustar && memcmp(blk + F_MAGIC, "ustar  ", 8) != 0)
		field_str(prefix, blk + F_PREFIX, L_PREFIX);
	if (prefix[0] != '\0')
		snprintf(h->name, sizeof(h->name), "%s/%s", prefix, name);
	else
		snprintf(h->name, sizeof(h->name), "%s", name);
	if (h->type == ADM_TAR_HARDLINK || h->type == ADM_TAR_SYMLINK ||
	    h->type == ADM_TAR_DIR)
		h->size = h->type == ADM_TAR_DIR ? h->size : 0;
	return ADM_TAR_HDR_OK;
}

void
adm_tar_pax_release(struct adm_tar_pax *p)
{
	free(p->path);
	free(p->linkpath);
	memset(p, 0, sizeof(*p));
}

int
adm_tar_parse_pax(const char *data, size_t len, struct adm_tar_pax *p,
    struct rai_err *err)
{
	size_t off = 0;

	while (off < len) {
		size_t reclen = 0, i = off, klen;
		const char *rec, *eq, *val, *end;

		if (data[off] == '\0')	/* padding some writers leave */
			break;
		while (i < len && data[i] >= '0' && data[i] <= '9') {
			if (reclen > len)
				break;
			reclen = reclen * 10 + (size_t)(data[i] - '0');
			i++;
		}
		if (i == off || i >= len || data[i] != ' ' || reclen == 0 ||
		    reclen > len - off)
			return rai_err_set(err, RAI_E_PROTO, "malformed PAX "
			    "record at byte %zu", off);
		rec = data + i + 1;
		end = data + off + reclen - 1;
		if (rec > end || *end != '\n')
			return rai_err_set(err, RAI_E_PROTO, "malformed PAX "
			    "record at byte %zu", off);
		eq = memchr(rec, '=', (size_t)(end - rec));
		if (eq == NULL)
			return rai_err_set(err, RAI_E_PROTO, "PAX record "
			    "without '=' at byte %zu", off);
		klen = (size_t)(eq - rec);
		val = eq + 1;
		if (klen == 4 && memcmp(rec, "path", 4) == 0) {
			free(p->path);
			p->path = xstrndup(val, (size_t)(end - val));
			p->set |= ADM_PAX_PATH;
		} else if (klen == 8 && memcmp(rec, "linkpath", 8) == 0) {
			free(p->linkpath);
			p->linkpath = xstrndup(val, (size_t)(end - val));
			p->set |= ADM_PAX_LINKPATH;
		} else if (klen == 4 && memcmp(rec, "size", 4) == 0) {
			uint64_t v = 0;
			const char *q;

			if (val == end)
				return rai_err_set(err, RAI_E_PROTO, "empty "
				    "PAX size at byte %zu", off);
			for (q = val; q < end; q++) {
				if (*q < '0' || *q > '9' ||
				    v > (UINT64_MAX - 9) / 10)
					return rai_err_set(err, RAI_E_PROTO,
					    "malformed PAX size at byte %zu",
					    off);
				v = v * 10 + (uint64_t)(*q - '0');
			}
			if (v > INT64_MAX)
				return rai_err_set(err, RAI_E_PROTO,
				    "PAX size out of range at byte %zu", off);
			p->size = v;
			p->set |= ADM_PAX_SIZE;
		}
		off += reclen;
	}
	return 0;
}

enum adm_compress
adm_compress_detect(const unsigned char *p, size_t len)
{
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return ADM_COMPRESS_GZIP;
	if (len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return ADM_COMPRESS_ZSTD;
	if (len >= 3 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h')
		return ADM_COMPRESS_BZIP2;
	if (len >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
		return ADM_COMPRESS_XZ;
	return ADM_COMPRESS_NONE;
}

const char *
adm_compress_name(enum adm_compress c)
{
	switch (c) {
	case ADM_COMPRESS_GZIP:
		return "gzip";
	case ADM_COMPRESS_ZSTD:
		return "zstd";
	case ADM_COMPRESS_BZIP2:
		return "bzip2";
	case ADM_COMPRESS_XZ:
		return "xz";
	default:
		return "none";
	}
}

static const char *
decompress_cmd(enum adm_compress c)
{
	switch (c) {
	case ADM_COMPRESS_GZIP:
		return "gunzip -k";
	case ADM_COMPRESS_ZSTD:
		return "zstd -d";
	case ADM_COMPRESS_BZIP2:
		return "bunzip2 -k";
	default:
		return "unxz -k";
	}
}

void
adm_tar_normalize(char *s)
{
	char *r = s, *w = s;

	while (r[0] == '.' && r[1] == '/')
		r += 2;
	while (*r == '/')
		r++;
	while (*r != '\0') {
		if (r[0] == '/' && (r[1] == '/' || r[1] == '\0')) {
			r++;
			continue;
		}
		if (r[0] == '/' && r[1] == '.' && r[2] == '/') {
			r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Reads exactly n bytes at off; -1 with the error set. */
static int
read_at(const struct adm_tar *t, void *buf, size_t n, uint64_t off,
    struct rai_err *err)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(t->fd, (char *)buf + got, n - got,
		    (off_t)(t->base + off + got));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return rai_err_errno(err, errno, "reading '%s' at "
			    "offset %" PRIu64, t->path, off + got);
		if (r == 0)
			return rai_err_set(err, RAI_E_PROTO, "'%s' is truncated "
			    "at offset %" PRIu64, t->path, off + got);
		got += (size_t)r;
	}
	return 0;
}

static void
add_entry(struct adm_tar *t, char *name, char *link, enum adm_tar_type type,
    uint64_t size, uint64_t off, uint64_t hdr_off)
{
	struct adm_tar_entry *e;

	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 64;
		t->v = xreallocarray(t->v, t->alloc, sizeof(*t->v));
	}
	e = &t->v[t->n++];
	adm_tar_normalize(name);
	e->name = name;
	e->linkname = link;
	e->type = type;
	e->size = type == ADM_TAR_FILE ? size : 0;
	e->offset = t->base + off;	/* in the file, for pread */
	e->hdr_offset = hdr_off;
}

/* Reads a GNU long name or PAX data member into a NUL-terminated string. */
static char *
read_meta(struct adm_tar *t, uint64_t off, uint64_t size, struct rai_err *err)
{
	char *s;

	if (size > ADM_TAR_META_MAX) {
		rai_err_set(err, RAI_E_PROTO, "'%s': extended header at offset "
		    "%" PRIu64 " is too large (%" PRIu64 " bytes)", t->path,
		    off - ADM_TAR_BLOCK, size);
		return NULL;
	}
	s = xmalloc((size_t)size + 1);
	if (read_at(t, s, (size_t)size, off, err) == -1) {
		free(s);
		return NULL;
	}
	s[size] = '\0';
	return s;
}

static int
index_members(struct adm_tar *t, struct rai_err *err)
{
	unsigned char blk[ADM_TAR_BLOCK];
	struct adm_tar_pax global = { 0 }, local = { 0 };
	struct adm_tar_hdr h;
	char *longname = NULL, *longlink = NULL, *meta;
	uint64_t off = 0, first_hdr = 0, data, next, padded;
	int rc, pending = 0, ended = 0;

	for (;;) {
		if (off == t->file_size) {
			if (off == 0)
				rai_err_set(err, RAI_E_PROTO, "'%s' is empty, "
				    "not a tar archive", t->path);
			else
				rai_err_set(err, RAI_E_PROTO, "'%s' is "
				    "truncated at offset %" PRIu64 ": no "
				    "end-of-archive blocks", t->path, off);
			goto fail;
		}
		if (t->file_size - off < ADM_TAR_BLOCK) {
			rai_err_set(err, RAI_E_PROTO, "'%s' is truncated at "
			    "offset %" PRIu64 ": partial header block",
			    t->path, off);
			goto fail;
		}
		if (read_at(t, blk, sizeof(blk), off, err) == -1)
			goto fail;
		rc = adm_tar_parse_header(blk, &h, err);
		if (rc == -1) {
			if (off == 0)
				rai_err_set(err, RAI_E_PROTO, "'%s' is not a "
				    "tar archive (no valid header at offset "
				    "0)", t->path);
			else
				rai_err_prefix(err, "'%s': corrupt tar header "
				    "at offset %" PRIu64, t->path, off);
			goto fail;
		}
		if (rc == ADM_TAR_HDR_ZERO) {
			ended = 1;
			break;
		}
		if (!pending)
			first_hdr = off;
		data = off + ADM_TAR_BLOCK;
		if (local.set & ADM_PAX_SIZE)
			h.size = local.size;
		else if ((global.set & ADM_PAX_SIZE) &&
		    h.type != ADM_TAR_PAX && h.type != ADM_TAR_PAX_GLOBAL)
			h.size = global.size;
		if (h.type == ADM_TAR_HARDLINK || h.type == ADM_TAR_SYMLINK)
			h.size = 0;
		if (h.size > t->file_size - data) {
			rai_err_set(err, RAI_E_PROTO, "'%s' is truncated: member "
			    "'%s' at offset %" PRIu64 " needs %" PRIu64
			    " bytes, the file has %" PRIu64 " left", t->path,
			    h.name, off, h.size, t->file_size - data);
			goto fail;
		}
		padded = (h.size + ADM_TAR_BLOCK - 1) / ADM_TAR_BLOCK *
		    ADM_TAR_BLOCK;
		next = data + padded;
		switch (h.type) {
		case ADM_TAR_LONGNAME:
		case ADM_TAR_LONGLINK:
			if ((meta = read_meta(t, data, h.size, err)) == NULL)
				goto fail;
			if (h.type == ADM_TAR_LONGNAME) {
				free(longname);
				longname = meta;
			} else {
				free(longlink);
				longlink = meta;
			}
			pending = 1;
			break;
		case ADM_TAR_PAX:
		case ADM_TAR_PAX_GLOBAL:
			if ((meta = read_meta(t, data, h.size, err)) == NULL)
				goto fail;
			rc = adm_tar_parse_pax(meta, (size_t)h.size,
			    h.type == ADM_TAR_PAX ? &local : &global, err);
			free(meta);
			if (rc == -1) {
				rai_err_prefix(err, "'%s': PAX header at offset "
				    "%" PRIu64, t->path, off);
				goto fail;
			}
			pending = h.type == ADM_TAR_PAX || pending;
			break;
		default: {
			char *name, *link = NULL;

			if (local.set & ADM_PAX_PATH)
				name = xstrdup(local.path);
			else if (longname != NULL)
				name = xstrdup(longname);
			else if (global.set & ADM_PAX_PATH)
				name = xstrdup(global.path);
			else
				name = xstrdup(h.name);
			if (h.type == ADM_TAR_HARDLINK ||
			    h.type == ADM_TAR_SYMLINK) {
				if (local.set & ADM_PAX_LINKPATH)
					link = xstrdup(local.linkpath);
				else if (longlink != NULL)
					link = xstrdup(longlink);
				else if (global.set & ADM_PAX_LINKPATH)
					link = xstrdup(global.linkpath);
				else
					link = xstrdup(h.linkname);
			}
			add_entry(t, name, link, h.type, h.size, data,
			    first_hdr);
			adm_tar_pax_release(&local);
			free(longname);
			free(longlink);
			longname = longlink = NULL;
			pending = 0;
			break;
		}
		}
		off = next;
	}
	adm_tar_pax_release(&local);
	adm_tar_pax_release(&global);
	free(longname);
	free(longlink);
	if (ended && pending)
		return rai_err_set(err, RAI_E_PROTO, "'%s': extended header at "
		    "offset %" PRIu64 " is not followed by a member", t->path,
		    first_hdr);
	return 0;
fail:
	adm_tar_pax_release(&local);
	adm_tar_pax_release(&global);
	free(longname);
	free(longlink);
	return -1;
}

/* A gzip archive is read from its inflated copy from here on. */
static int
stage_gzip(struct adm_tar *t, uint64_t max_inflate, struct rai_err *err)
{
	struct stat st;
	int fd;

	if (adm_gunzip_stage_range(t->fd, t->base, t->file_size, t->path,
	    max_inflate, &fd, err) == -1)
		return -1;
	close(t->fd);
	t->fd = fd;
	t->base = 0;
	if (fstat(fd, &st) == -1)
		return rai_err_errno(err, errno, "'%s'", t->path);
	t->file_size = (uint64_t)st.st_size;
	return 0;
}

int
adm_tar_open_range(int fd, uint64_t off, uint64_t size, const char *label,
    uint64_t max_inflate, struct adm_tar **out, struct rai_err *err)
{
	unsigned char magic[8];
	struct adm_tar *t;
	enum adm_compress c;
	ssize_t n;

	*out = NULL;
	t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	t->path = xstrdup(label);
	t->base = off;
	t->file_size = size;
	n = pread(fd, magic, size < sizeof(magic) ? (size_t)size :
	    sizeof(magic), (off_t)off);
	if (n == -1) {
		rai_err_errno(err, errno, "reading '%s'", label);
		goto fail;
	}
	c = adm_compress_detect(magic, (size_t)n);
	if (c == ADM_COMPRESS_GZIP) {
		if (stage_gzip(t, max_inflate, err) == -1)
			goto fail;
		c = ADM_COMPRESS_NONE;
	}
	if (c != ADM_COMPRESS_NONE) {
		rai_err_set(err, RAI_E_PROTO, "'%s' is %s-compressed; "
		    "images need an uncompressed tar", label,
		    adm_compress_name(c));
		rai_err_set_hint(err, "decompress first: %s '%s'",
		    decompress_cmd(c), label);
		goto fail;
	}
	if (index_members(t, err) == -1)
		goto fail;
	*out = t;
	return 0;
fail:
	adm_tar_free(t);
	return -1;
}

int
adm_tar_open_fd(int fd, const char *path, uint64_t max_inflate,
    struct adm_tar **out, struct rai_err *err)
{
	struct stat st;

	*out = NULL;
	if (fstat(fd, &st) == -1) {
		rai_err_errno(err, errno, "'%s'", path);
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return rai_err_set(err, RAI_E_PROTO, "'%s' is a directory, not "
		    "a tar archive", path);
	}
	return adm_tar_open_range(fd, 0, (uint64_t)st.st_size, path,
	    max_inflate, out, err);
}

int
adm_tar_open(const char *path, uint64_t max_inflate, struct adm_tar **out,
    struct rai_err *err)
{
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return rai_err_set(err, RAI_E_NOTFOUND, "'%s' does not "
			    "exist", path);
		return rai_err_errno(err, errno, "opening '%s'", path);
	}
	return adm_tar_open_fd(fd, path, max_inflate, out, err);
}

void
adm_tar_free(struct adm_tar *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].linkname);
	}
	free(t->v);
	if (t->fd != -1)
		close(t->fd);
	free(t->path);
	free(t);
}

/* name without "prefix/" when it lies under it, else NULL */
static const char *
under(const char *name, const char *prefix, size_t plen)
{
	if (strncmp(name, prefix, plen) != 0 || name[plen] != '/' ||
	    name[plen + 1] == '\0')
		return NULL;
	return name + plen + 1;
}

int
adm_tar_subdir(const struct adm_tar *t, const char *prefix,
    const char *label, struct adm_tar **out, struct rai_err *err)
{
	struct adm_tar *s;
	const char *rel, *lrel;
	size_t i, plen = strlen(prefix);
	int fd;

	*out = NULL;
	if ((fd = dup(t->fd)) == -1)
		return rai_err_errno(err, errno, "'%s'", label);
	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->path = xstrdup(label);
	s->file_size = t->file_size;
	/* the offsets copied are in the file already: no base added */
	for (i = 0; i < t->n; i++) {
		const struct adm_tar_entry *e = &t->v[i];

		if ((rel = under(e->name, prefix, plen)) == NULL)
			continue;
		/* a hard link names its target from the tar's root */
		lrel = e->linkname != NULL && e->type == ADM_TAR_HARDLINK ?
		    under(e->linkname, prefix, plen) : NULL;
		add_entry(s, xstrdup(rel), e->linkname == NULL ? NULL :
		    xstrdup(lrel != NULL ? lrel : e->linkname), e->type,
		    e->size, e->offset, e->hdr_offset);
	}
	s->base = t->base;
	*out = s;
	return 0;
}

static const struct adm_tar_entry *
lookup(const struct adm_tar *t, const char *name)
{
	size_t i;

	/* the last one wins, as when extracting */
	for (i = t->n; i > 0; i--)
		if (strcmp(t->v[i - 1].name, name) == 0)
			return &t->v[i - 1];
	return NULL;
}

/* dir of from + "/" + target, with "." and ".." resolved */
static char *
resolve_symlink(const char *from, const char *target)
{
	char *joined, *out, *seg, *p;
	const char *slash = strrchr(from, '/');
	size_t dlen = slash ? (size_t)(slash - from) : 0, olen = 0;

	if (target[0] == '/')
		joined = xstrdup(target + 1);
	else
		joined = xasprintf("%.*s%s%s", (int)dlen, from,
		    dlen ? "/" : "", target);
	out = xcalloc(1, strlen(joined) + 1);
	for (seg = joined; seg != NULL; seg = p) {
		p = strchr(seg, '/');
		if (p != NULL)
			*p++ = '\0';
		if (*seg == '\0' || strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			while (olen > 0 && out[olen - 1] != '/')
				olen--;
			if (olen > 0)
				olen--;
			out[olen] = '\0';
			continue;
		}
		if (olen > 0)
			out[olen++] = '/';
		memcpy(out + olen, seg, strlen(seg));
		olen += strlen(seg);
		out[olen] = '\0';
	}
	free(joined);
	return out;
}

const struct adm_tar_entry *
adm_tar_find(const struct adm_tar *t, const char *name)
{
	const struct adm_tar_entry *e;
	char *cur = xstrdup(name), *nxt;
	int hops;

	adm_tar_normalize(cur);
	for (hops = 0; hops <= MAX_LINK_HOPS; hops++) {
		e = lookup(t, cur);
		if (e == NULL || e->type == ADM_TAR_FILE ||
		    e->type == ADM_TAR_DIR || e->type == ADM_TAR_OTHER) {
			free(cur);
			return e != NULL && e->type == ADM_TAR_FILE ? e : NULL;
		}
		if (e->type == ADM_TAR_HARDLINK) {
			nxt = xstrdup(e->linkname);
			adm_tar_normalize(nxt);
		} else {
			nxt = resolve_symlink(e->name, e->linkname);
		}
		free(cur);
		cur = nxt;
	}
	free(cur);
	return NULL;
}
