/*
 * adm_tar: the header parser on synthetic blocks (ustar, GNU, base-256,
 * checksums), PAX records, and whole archives written here byte by
 * byte: GNU long names, PAX path and sizes over 8 GiB (a sparse file),
 * hard and symbolic links, truncation and corruption with their offsets.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "adm/gunzip.h"
#include "adm/tar.h"
#include "core/err.h"
#include "harness.h"

#define GIB	((uint64_t)1 << 30)

static void
set_octal(unsigned char *f, size_t len, uint64_t v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%0*llo", (int)(len - 1),
	    (unsigned long long)v);
	memcpy(f, tmp, len - 1);
	f[len - 1] = '\0';
}

static void
set_base256(unsigned char *f, size_t len, uint64_t v)
{
	size_t i;

	memset(f, 0, len);
	for (i = len; i > 1; i--, v >>= 8)
		f[i - 1] = (unsigned char)(v & 0xff);
	f[0] = 0x80;
}

static void
checksum(unsigned char *b)
{
	unsigned sum = 0;
	size_t i;

	memset(b + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += b[i];
	snprintf((char *)b + 148, 8, "%06o", sum);
	b[155] = ' ';
}

/* A ustar header; the caller may change fields and call checksum(). */
static void
hdr(unsigned char *b, const char *name, char type, uint64_t size)
{
	memset(b, 0, 512);
	memcpy(b, name, strlen(name) < 100 ? strlen(name) : 100);
	set_octal(b + 100, 8, 0644);
	set_octal(b + 108, 8, 0);
	set_octal(b + 116, 8, 0);
	set_octal(b + 124, 12, size);
	set_octal(b + 136, 12, 1700000000);
	b[156] = (unsigned char)type;
	memcpy(b + 257, "ustar\0" "00", 8);
	checksum(b);
}

TEST(ustar_header)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;

	hdr(b, "blobs/sha256/abc", '0', 1234);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, "blobs/sha256/abc");
	T_UINT_EQ(h.size, 1234);
	T_INT_EQ(h.type, ADM_TAR_FILE);
	T_INT_EQ(h.ustar, 1);
	T_INT_EQ(h.mtime, 1700000000);
	T_UINT_EQ(h.mode, 0644);

	/* the prefix field joins the name */
	memcpy(b + 345, "some/long/prefix", 16);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, "some/long/prefix/blobs/sha256/abc");

	/* a name filling all 100 bytes has no NUL */
	hdr(b, "", '0', 0);
	memset(b, 'n', 100);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_INT_EQ(strlen(h.name), 100);

	hdr(b, "d/", '5', 0);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_INT_EQ(h.type, ADM_TAR_DIR);
	hdr(b, "l", '2', 0);
	memcpy(b + 157, "../target", 9);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_INT_EQ(h.type, ADM_TAR_SYMLINK);
	T_STR_EQ(h.linkname, "../target");
	rai_err_release(&err);
}

TEST(gnu_header_ignores_prefix)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;

	hdr(b, "././@LongLink", 'L', 300);
	memcpy(b + 257, "ustar  \0", 8);
	/* GNU keeps atime there; it must not become part of the name */
	memcpy(b + 345, "14000000000", 11);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, "././@LongLink");
	T_INT_EQ(h.type, ADM_TAR_LONGNAME);
	T_UINT_EQ(h.size, 300);
	rai_err_release(&err);
}

TEST(base256_size_over_8gib)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;

	hdr(b, "big", '0', 0);
	set_base256(b + 124, 12, 10 * GIB + 7);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_UINT_EQ(h.size, 10 * GIB + 7);

	/* negative (0xff...) is refused */
	memset(b + 124, 0xff, 12);
	checksum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	rai_err_release(&err);
}

TEST(numeric_fields)
{
	struct rai_err err = RAI_ERR_INIT;
	uint64_t v;

	T_INT_EQ(adm_tar_parse_num((const unsigned char *)"  0755 \0", 8, &v,
	    &err), 0);
	T_UINT_EQ(v, 0755);
	T_INT_EQ(adm_tar_parse_num((const unsigned char *)"\0\0\0\0", 4, &v,
	    &err), 0);
	T_UINT_EQ(v, 0);
	T_INT_EQ(adm_tar_parse_num((const unsigned char *)"0000009\0", 8, &v,
	    &err), -1);
	T_INT_EQ(adm_tar_parse_num((const unsigned char *)"12 34\0\0\0", 8,
	    &v, &err), -1);
	/* the largest 11-digit octal: 8 GiB - 1 */
	T_INT_EQ(adm_tar_parse_num((const unsigned char *)"77777777777\0",
	    12, &v, &err), 0);
	T_UINT_EQ(v, 8 * GIB - 1);
	{
		unsigned char f[12];

		/* 2^63 does not fit an off_t */
		memset(f, 0, sizeof(f));
		f[0] = 0x80;
		f[4] = 0x80;
		T_INT_EQ(adm_tar_parse_num(f, 12, &v, &err), -1);
	}
	rai_err_release(&err);
}

TEST(checksum_verified)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;

	hdr(b, "manifest.json", '0', 10);
	b[3] ^= 0x20;
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), -1);
	T_STR_CONTAINS(err.message, "checksum mismatch");

	/* a signed-char sum (old writers) is accepted */
	hdr(b, "x", '0', 0);
	b[0] = 0xe9;
	{
		int sum = 0;
		size_t i;

		memset(b + 148, ' ', 8);
		for (i = 0; i < 512; i++)
			sum += (signed char)b[i];
		snprintf((char *)b + 148, 8, "%06o", (unsigned)sum);
	}
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);

	memset(b, 0, 512);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_ZERO);
	rai_err_release(&err);
}

TEST(pax_records)
{
	struct adm_tar_pax p = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	const char *rec = "30 mtime=1700000000.123456789\n"
	    "20 path=a/long/name\n" "26 linkpath=../other/file\n"
	    "20 size=10737418240\n";

	T_INT_EQ(adm_tar_parse_pax(rec, strlen(rec), &p, &err), 0);
	T_INT_EQ(p.set, ADM_PAX_PATH | ADM_PAX_LINKPATH | ADM_PAX_SIZE);
	T_STR_EQ(p.path, "a/long/name");
	T_STR_EQ(p.linkpath, "../other/file");
	T_UINT_EQ(p.size, 10 * GIB);
	adm_tar_pax_release(&p);

	/* a length that runs past the data, no newline, no '=' */
	T_INT_EQ(adm_tar_parse_pax("99 path=x\n", 10, &p, &err), -1);
	T_STR_CONTAINS(err.message, "malformed PAX record");
	T_INT_EQ(adm_tar_parse_pax("10 path=xy", 10, &p, &err), -1);
	T_INT_EQ(adm_tar_parse_pax("9 pathxy\n", 9, &p, &err), -1);
	T_INT_EQ(adm_tar_parse_pax("12 size=1x2\n", 12, &p, &err), -1);
	T_INT_EQ(adm_tar_parse_pax("0 \n", 3, &p, &err), -1);
	adm_tar_pax_release(&p);
	rai_err_release(&err);
}

TEST(normalize_and_compression)
{
	char s[64];

	snprintf(s, sizeof(s), "./a//b/./c/");
	adm_tar_normalize(s);
	T_STR_EQ(s, "a/b/c");
	snprintf(s, sizeof(s), "/abs");
	adm_tar_normalize(s);
	T_STR_EQ(s, "abs");
	T_INT_EQ(adm_compress_detect((const unsigned char *)"\x1f\x8b\x08", 3),
	    ADM_COMPRESS_GZIP);
	T_INT_EQ(adm_compress_detect((const unsigned char *)"\x28\xb5\x2f\xfd",
	    4), ADM_COMPRESS_ZSTD);
	T_INT_EQ(adm_compress_detect((const unsigned char *)"BZh9", 4),
	    ADM_COMPRESS_BZIP2);
	T_INT_EQ(adm_compress_detect((const unsigned char *)"\xfd" "7zXZ\0",
	    6), ADM_COMPRESS_XZ);
	T_INT_EQ(adm_compress_detect((const unsigned char *)"ustar", 5),
	    ADM_COMPRESS_NONE);
	T_INT_EQ(adm_compress_detect((const unsigned char *)"\x1f", 1),
	    ADM_COMPRESS_NONE);
}

/* ---- whole archives in a temp file ---- */

struct w {
	unsigned char	*p;
	size_t		 n;
};

static void
w_add(struct w *w, const void *data, size_t n)
{
	w->p = realloc(w->p, w->n + n);
	memcpy(w->p + w->n, data, n);
	w->n += n;
}

/* a member: header then data padded to 512 */
static void
w_member(struct w *w, const char *name, char type, const char *link,
    const void *data, size_t n)
{
	unsigned char b[512], z[512] = { 0 };

	hdr(b, name, type, n);
	if (link != NULL) {
		memcpy(b + 157, link, strlen(link));
		checksum(b);
	}
	w_add(w, b, 512);
	if (n > 0) {
		w_add(w, data, n);
		if (n % 512)
			w_add(w, z, 512 - n % 512);
	}
}

static void
w_end(struct w *w)
{
	unsigned char z[1024] = { 0 };

	w_add(w, z, sizeof(z));
}

static char tmpl[] = "/tmp/t_adm_tar.XXXXXX";

static const char *
w_file(const struct w *w)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s", tmpl);
	fd = mkstemp(path);
	if (fd == -1 || write(fd, w->p, w->n) != (ssize_t)w->n)
		abort();
	close(fd);
	return path;
}

TEST(archive_links_and_long_names)
{
	struct w w = { 0 };
	struct adm_tar *t = NULL;
	struct rai_err err = RAI_ERR_INIT;
	const struct adm_tar_entry *e;
	char longname[300], pax[128];
	const char *path;
	size_t i;

	for (i = 0; i < 250; i++)
		longname[i] = 'a' + (char)(i % 26);
	memcpy(longname + 100, "/", 1);
	snprintf(longname + 250, sizeof(longname) - 250, "/layer.tar");
	w_member(&w, "./dir/", '5', NULL, NULL, 0);
	w_member(&w, "./dir/file", '0', NULL, "hello", 5);
	/* GNU long name: the 'L' member's data names the next member */
	w_member(&w, "././@LongLink", 'L', NULL, longname,
	    strlen(longname) + 1);
	w_member(&w, "truncated-name", '0', NULL, "0123456789", 10);
	/* PAX path, applied to the next member only */
	snprintf(pax, sizeof(pax), "%d path=pax/named/blob\n", 23);
	w_member(&w, "PaxHeaders/x", 'x', NULL, pax, strlen(pax));
	w_member(&w, "short", '0', NULL, "pax data", 8);
	w_member(&w, "hard", '1', "dir/file", NULL, 0);
	w_member(&w, "sub/sym", '2', "../hard", NULL, 0);
	w_member(&w, "loop1", '2', "loop2", NULL, 0);
	w_member(&w, "loop2", '2', "loop1", NULL, 0);
	w_end(&w);
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), 0);
	if (t == NULL) {
		printf("# %s\n", err.message);
		goto out;
	}
	T_UINT_EQ(t->n, 8);
	T_STR_EQ(t->v[0].name, "dir");
	e = adm_tar_find(t, "dir/file");
	T_NOT_NULL(e);
	if (e != NULL) {
		T_UINT_EQ(e->size, 5);
		T_UINT_EQ(e->offset, 2 * 512);
		T_UINT_EQ(e->hdr_offset, 512);
	}
	e = adm_tar_find(t, longname);
	T_NOT_NULL(e);
	if (e != NULL) {
		T_UINT_EQ(e->size, 10);
		T_UINT_EQ(e->hdr_offset, 3 * 512);
		T_UINT_EQ(e->offset, 6 * 512);
	}
	T_NULL(adm_tar_find(t, "truncated-name"));
	e = adm_tar_find(t, "./pax/named/blob");
	T_NOT_NULL(e);
	if (e != NULL)
		T_UINT_EQ(e->size, 8);
	T_NULL(adm_tar_find(t, "short"));
	/* hard link and a symlink to it both land on dir/file */
	T_OK(adm_tar_find(t, "hard") == adm_tar_find(t, "dir/file"));
	T_OK(adm_tar_find(t, "sub/sym") == adm_tar_find(t, "dir/file"));
	T_NULL(adm_tar_find(t, "loop1"));
	T_NULL(adm_tar_find(t, "dir"));
	T_NULL(adm_tar_find(t, "nope"));
out:
	adm_tar_free(t);
	unlink(path);
	free(w.p);
	rai_err_release(&err);
}

TEST(archive_pax_size_over_8gib_sparse)
{
	struct w w = { 0 };
	struct adm_tar *t = NULL;
	struct rai_err err = RAI_ERR_INIT;
	const char *rec = "20 size=10737418245\n";
	const char *path;
	uint64_t total;
	int fd;

	w_member(&w, "PaxHeaders/big", 'x', NULL, rec, strlen(rec));
	/* the ustar size field cannot hold it; writers put 0 there */
	w_member(&w, "huge.layer", '0', NULL, NULL, 0);
	path = w_file(&w);
	/* data and end blocks are holes: no 10 GiB written */
	total = w.n + (10 * GIB + 5 + 511) / 512 * 512 + 1024;
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, (off_t)total), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), 0);
	if (t != NULL) {
		T_UINT_EQ(t->n, 1);
		T_UINT_EQ(t->v[0].size, 10 * GIB + 5);
		T_UINT_EQ(t->v[0].offset, 3 * 512);
	} else {
		printf("# %s\n", err.message);
	}
	adm_tar_free(t);
	/* one byte short of the data: truncated, naming the member */
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, (off_t)(w.n + 10 * GIB + 4)), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is truncated: member 'huge.layer' at "
	    "offset 1024");
	unlink(path);
	free(w.p);
	rai_err_release(&err);
}

TEST(archive_errors)
{
	struct w w = { 0 };
	struct adm_tar *t = NULL;
	struct rai_err err = RAI_ERR_INIT;
	const char *path;
	int fd;

	w_member(&w, "a", '0', NULL, "aaaa", 4);
	w_member(&w, "b", '0', NULL, "bbbb", 4);
	w_end(&w);

	/* a corrupt second header: named with its offset */
	w.p[1024 + 1] = 'X';
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_CONTAINS(err.message, "corrupt tar header at offset 1024");
	T_STR_CONTAINS(err.message, "checksum mismatch");
	unlink(path);
	w.p[1024 + 1] = '\0';

	/* the first block bad: not a tar at all */
	w.p[0] = 'Z';
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is not a tar archive");
	unlink(path);
	w.p[0] = 'a';

	path = w_file(&w);
	/* cut at a member boundary: no end-of-archive blocks */
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, 2048), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "truncated at offset 2048: no "
	    "end-of-archive");
	/* cut inside the second member's data */
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, 1024 + 512 + 2), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is truncated: member 'b' at offset 1024");
	/* cut inside a header */
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, 1024 + 100), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "truncated at offset 1024: partial header");
	fd = open(path, O_WRONLY);
	T_INT_EQ(ftruncate(fd, 0), 0);
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is empty");
	unlink(path);

	/* gzip magic but no gzip stream: inflating it fails clearly */
	memcpy(w.p, "\x1f\x8b\x08\x00", 4);
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is not valid gzip");
	unlink(path);

	/* zstd magic: refused with the command to run */
	memcpy(w.p, "\x28\xb5\x2f\xfd", 4);
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "is zstd-compressed");
	T_STR_CONTAINS(err.hint, "zstd -d");
	unlink(path);

	T_INT_EQ(adm_tar_open("/nonexistent/x.tar", ADM_INFLATE_DEFAULT, &t,
	    &err), -1);
	T_INT_EQ(err.kind, RAI_E_NOTFOUND);
	T_NULL(t);

	/* an extended header with no member after it */
	free(w.p);
	memset(&w, 0, sizeof(w));
	w_member(&w, "PaxHeaders/x", 'x', NULL, "20 path=orphan/name\n", 20);
	w_end(&w);
	path = w_file(&w);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), -1);
	T_STR_CONTAINS(err.message, "not followed by a member");
	unlink(path);
	free(w.p);
	rai_err_release(&err);
}

/*
 * A gzip file of n zero bytes (a bomb in small: a thousand to one);
 * with forged_size the trailer claims 0 bytes, so only the inflating
 * itself can notice the size.
 */
static int
gzip_zeros(size_t n, int forged_size, char *path)
{
	static unsigned char zeros[65536], out[65536];
	z_stream zs;
	size_t left = n, chunk;
	int fd, flush;

	strcpy(path, "/tmp/t_adm_gz.XXXXXX");
	if ((fd = mkstemp(path)) == -1)
		return -1;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	do {
		chunk = left < sizeof(zeros) ? left : sizeof(zeros);
		left -= chunk;
		flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
		zs.next_in = zeros;
		zs.avail_in = (uInt)chunk;
		do {
			zs.next_out = out;
			zs.avail_out = sizeof(out);
			deflate(&zs, flush);
			if (write(fd, out, sizeof(out) - zs.avail_out) < 0)
				return -1;
		} while (zs.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&zs);
	if (forged_size && (lseek(fd, -4, SEEK_END) == -1 ||
	    write(fd, "\0\0\0\0", 4) != 4))
		return -1;
	return fd;
}

TEST(gunzip_caps_the_inflated_size)
{
	struct rai_err err = RAI_ERR_INIT;
	char path[64];
	struct stat st;
	int fd, staged, forged;

	setenv("TMPDIR", "/tmp", 1);
	for (forged = 0; forged <= 1; forged++) {
		fd = gzip_zeros((size_t)8 << 20, forged, path);
		T_INT_EQ(fd == -1, 0);
		/* the default ratio: 8 MiB from about 8 KiB is refused */
		T_INT_EQ(adm_gunzip_stage(fd, path, ADM_INFLATE_DEFAULT,
		    &staged, &err), -1);
		T_STR_CONTAINS(err.message, "likely gzip bomb");
		T_STR_CONTAINS(err.hint, "--max-inflate");
		T_INT_EQ(staged, -1);
		rai_err_release(&err);
		/* an explicit limit below the size */
		T_INT_EQ(adm_gunzip_stage(fd, path, (uint64_t)1 << 20,
		    &staged, &err), -1);
		T_STR_CONTAINS(err.message, "more than the 1 MiB that "
		    "--max-inflate allows");
		rai_err_release(&err);
		if (!forged) {
			/* allowed: the whole file is staged */
			T_INT_EQ(adm_gunzip_stage(fd, path, (uint64_t)8 << 20,
			    &staged, &err), 0);
			T_INT_EQ(fstat(staged, &st), 0);
			T_INT_EQ(st.st_size, (off_t)8 << 20);
			close(staged);
			T_INT_EQ(adm_gunzip_stage(fd, path, ADM_INFLATE_ANY,
			    &staged, &err), 0);
			close(staged);
		}
		close(fd);
		unlink(path);
	}
}

int
main(void)
{
	RUN(ustar_header);
	RUN(gnu_header_ignores_prefix);
	RUN(base256_size_over_8gib);
	RUN(numeric_fields);
	RUN(checksum_verified);
	RUN(pax_records);
	RUN(normalize_and_compression);
	RUN(archive_links_and_long_names);
	RUN(archive_pax_size_over_8gib_sparse);
	RUN(archive_errors);
	RUN(gunzip_caps_the_inflated_size);
	return t_done();
}
