/*
 * rai_tarw, the tar writer of the support bundle: its headers read back
 * field by field (name and prefix, octal and base-256 sizes, the
 * checksum) with adm/tar.c's parser, pax records at the lengths where
 * counting their own digits adds one, and whole archives, plain and
 * gzip'ed, read back by adm_tar_open: long names through pax, sizes
 * around the block size, a member streamed from a file in several
 * pieces, and the errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adm/gunzip.h"
#include "adm/tar.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/tar_write.h"
#include "harness.h"

/* A name of n bytes: letters, with a '/' at each index of slashes. */
static char *
name_of(size_t n, const size_t *slashes, size_t nslashes)
{
	char *s = calloc(1, n + 1);
	size_t i;

	if (s == NULL)
		abort();
	for (i = 0; i < n; i++)
		s[i] = (char)('a' + i % 26);
	for (i = 0; i < nslashes; i++)
		s[slashes[i]] = '/';
	return s;
}

/* The checksum as the header says it, against the sum of its bytes. */
static void
check_sum(const unsigned char *b)
{
	unsigned sum = 0, said;
	char field[9];
	size_t i;

	for (i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	memcpy(field, b + 148, 8);
	field[8] = '\0';
	said = (unsigned)strtoul(field, NULL, 8);
	T_UINT_EQ(said, sum);
	/* six digits, a NUL, a blank: as GNU tar writes it */
	T_INT_EQ(b[154], '\0');
	T_INT_EQ(b[155], ' ');
}

TEST(header_short_name)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;

	T_UINT_EQ(rai_tar_header(b, "dir/file.log", '0', 1234, 0600,
	    1700000000), 0);
	check_sum(b);
	T_MEM_EQ(b + 100, "0000600", 8);
	T_MEM_EQ(b + 124, "00000002322", 12);	/* 1234 */
	T_MEM_EQ(b + 136, "14524770400", 12);	/* 1700000000 */
	T_MEM_EQ(b + 257, "ustar\0" "00", 8);
	T_INT_EQ(b[156], '0');
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, "dir/file.log");
	T_UINT_EQ(h.size, 1234);
	T_UINT_EQ(h.mode, 0600);
	T_INT_EQ(h.mtime, 1700000000);
	T_INT_EQ(h.ustar, 1);
	T_INT_EQ(h.type, ADM_TAR_FILE);
	rai_err_release(&err);
}

/* What fits ustar's fields, and what needs a pax path record. */
TEST(header_name_and_prefix)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;
	size_t at20[] = { 20 }, at180[] = { 180 }, at129[] = { 129 };
	char *n100 = name_of(100, NULL, 0), *n101 = name_of(101, NULL, 0);
	char *n230 = name_of(230, at20, 1), *n250 = name_of(250, at180, 1);
	char *n230b = name_of(230, at129, 1);

	/* 100 bytes fill the name field, without a NUL */
	T_UINT_EQ(rai_tar_header(b, n100, '0', 0, 0600, 0), 0);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, n100);
	/* prefix 129, name 100: the largest split */
	T_UINT_EQ(rai_tar_header(b, n230b, '0', 0, 0600, 0), 0);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, n230b);
	/* no '/' to split at; 209 bytes after the only one; a prefix of
	 * 180: each needs pax, and its field holds the first 100 bytes */
	T_UINT_EQ(rai_tar_header(b, n101, '0', 0, 0600, 0),
	    RAI_TAR_NEEDS_PATH);
	T_MEM_EQ(b, n101, 100);
	check_sum(b);
	T_UINT_EQ(rai_tar_header(b, n230, '0', 0, 0600, 0),
	    RAI_TAR_NEEDS_PATH);
	T_UINT_EQ(rai_tar_header(b, n250, '0', 0, 0600, 0),
	    RAI_TAR_NEEDS_PATH);
	T_MEM_EQ(b + 345, "\0", 1);	/* no prefix written */
	free(n100);
	free(n101);
	free(n230);
	free(n230b);
	free(n250);
	rai_err_release(&err);
}

TEST(header_prefix_split_reads_back)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;
	size_t slashes[] = { 60, 150, 190 };
	char *n = name_of(240, slashes, 3);

	/* the first '/' with at most 100 bytes after it: index 150 */
	T_UINT_EQ(rai_tar_header(b, n, '0', 7, 0600, 0), 0);
	T_MEM_EQ(b + 345, n, 150);
	T_INT_EQ(b[345 + 150], '\0');
	T_STR_EQ((const char *)b, n + 151);
	check_sum(b);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_STR_EQ(h.name, n);
	free(n);
	rai_err_release(&err);
}

TEST(header_sizes)
{
	unsigned char b[512];
	struct adm_tar_hdr h;
	struct rai_err err = RAI_ERR_INIT;
	uint64_t big = RAI_TAR_USTAR_MAX_SIZE + 1, v = 0;

	T_UINT_EQ(rai_tar_header(b, "max", '0', RAI_TAR_USTAR_MAX_SIZE, 0600,
	    0), 0);
	T_MEM_EQ(b + 124, "77777777777", 12);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_UINT_EQ(h.size, RAI_TAR_USTAR_MAX_SIZE);
	/* 8 GiB: base-256 in the field, and a pax size record asked for */
	T_UINT_EQ(rai_tar_header(b, "big", '0', big, 0600, 0),
	    RAI_TAR_NEEDS_SIZE);
	T_INT_EQ(b[124], 0x80);
	T_INT_EQ(adm_tar_parse_num(b + 124, 12, &v, &err), 0);
	T_UINT_EQ(v, big);
	check_sum(b);
	T_UINT_EQ(rai_tar_header(b, "pax", 'x', 40, 0600, 0), 0);
	T_INT_EQ(adm_tar_parse_header(b, &h, &err), ADM_TAR_HDR_OK);
	T_INT_EQ(h.type, ADM_TAR_PAX);
	rai_err_release(&err);
}

/* Every length from 1 to 1100 bytes: the record counts itself right. */
TEST(pax_record_lengths)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct adm_tar_pax pax = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	char *value;
	size_t n, bad = 0;

	for (n = 1; n <= 1100; n++) {
		value = name_of(n, NULL, 0);
		rai_buf_reset(&b);
		rai_tar_pax_record(&b, "path", value);
		if (strtoul(b.data, NULL, 10) != b.len || b.data[b.len - 1]
		    != '\n')
			bad++;
		if (adm_tar_parse_pax(b.data, b.len, &pax, &err) == -1 ||
		    pax.path == NULL || strcmp(pax.path, value) != 0)
			bad++;
		adm_tar_pax_release(&pax);
		free(value);
	}
	T_UINT_EQ(bad, 0);
	/* the edge: a body of 98 bytes makes 100, one of 99 makes 102 */
	rai_buf_reset(&b);
	value = name_of(98 - 8, NULL, 0);	/* "path=" ' ' '\n' and 2 */
	rai_tar_pax_record(&b, "path", value);
	T_UINT_EQ(b.len, 99);
	free(value);
	rai_buf_reset(&b);
	value = name_of(92, NULL, 0);
	rai_tar_pax_record(&b, "path", value);
	T_UINT_EQ(b.len, 102);
	T_STR_CONTAINS(b.data, "102 path=");
	free(value);
	rai_buf_release(&b);
	rai_err_release(&err);
}

static char tmpl_dir[] = "/tmp/t_tar_write.XXXXXX";

static char *
temp_path(const char *leaf)
{
	size_t n = strlen(tmpl_dir) + strlen(leaf) + 2;
	char *p = malloc(n);

	if (p == NULL)
		abort();
	snprintf(p, n, "%s/%s", tmpl_dir, leaf);
	return p;
}

/* A file of n pseudo-random bytes (several of the writer's pieces). */
static int
data_file(size_t n, unsigned char **copy)
{
	unsigned char *d = malloc(n);
	char *path = temp_path("data");
	uint32_t x = 2463534242u;
	size_t i;
	int fd;

	if (d == NULL)
		abort();
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		d[i] = (unsigned char)x;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd == -1 || write(fd, d, n) != (ssize_t)n)
		abort();
	unlink(path);
	free(path);
	*copy = d;
	return fd;
}

/* The member's data, read in place from the indexed archive. */
static int
member_is(const struct adm_tar *t, const char *name, const void *data,
    size_t len)
{
	const struct adm_tar_entry *e = adm_tar_find(t, name);
	unsigned char *got;
	int same;

	if (e == NULL || e->size != len) {
		printf("# %s: %s\n", name, e == NULL ? "missing" : "size");
		return 0;
	}
	got = malloc(len + 1);
	if (got == NULL)
		abort();
	same = pread(t->fd, got, len, (off_t)(t->base + e->offset)) ==
	    (ssize_t)len && memcmp(got, data, len) == 0;
	free(got);
	return same;
}

static void
round_trip(unsigned flags)
{
	struct rai_tarw_opts o = { flags, 0600, 1700000000 };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_tarw *w = NULL;
	struct adm_tar *t = NULL;
	size_t slashes[] = { 10, 120, 260 };
	char *path = temp_path(flags ? "a.tar.gz" : "a.tar");
	char *longname = name_of(320, slashes, 3), *split;
	unsigned char *big = NULL, block[512], magic[2];
	size_t split_slash[] = { 100 };
	struct stat st;
	int fd, dfd;

	split = name_of(180, split_slash, 1);
	memset(block, 'z', sizeof(block));
	dfd = data_file(200 * 1024 + 7, &big);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	T_INT_EQ(rai_tarw_open(fd, &o, &w, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "top/small.txt", "hello\n", 6, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "top/empty.log", "", 0, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "top/block", block, sizeof(block), &err), 0);
	T_INT_EQ(rai_tarw_add(w, longname, "long", 4, &err), 0);
	T_INT_EQ(rai_tarw_add(w, split, "split", 5, &err), 0);
	T_INT_EQ(rai_tarw_add_fd(w, "top/big.log", dfd, 200 * 1024 + 7, &err),
	    0);
	T_INT_EQ(rai_tarw_finish(w, &err), 0);
	T_INT_EQ(fstat(fd, &st), 0);
	T_UINT_EQ(rai_tarw_written(w), (uint64_t)st.st_size);
	if (!flags) {
		/* in blocks: small 2, empty 1, block 2, long 4 (pax header
		 * and record, header, data), split 2, big 1 + 401, end 2 */
		T_INT_EQ(st.st_size, 415 * 512);
	} else {
		T_INT_EQ(pread(fd, magic, 2, 0), 2);
		T_INT_EQ(adm_compress_detect(magic, 2), ADM_COMPRESS_GZIP);
	}
	close(fd);
	T_INT_EQ(adm_tar_open(path, ADM_INFLATE_DEFAULT, &t, &err), 0);
	if (t == NULL) {
		printf("# %s\n", err.message);
		goto out;
	}
	T_UINT_EQ(t->n, 6);
	T_OK(member_is(t, "top/small.txt", "hello\n", 6));
	T_OK(member_is(t, "top/empty.log", "", 0));
	T_OK(member_is(t, "top/block", block, sizeof(block)));
	T_OK(member_is(t, longname, "long", 4));
	T_OK(member_is(t, split, "split", 5));
	T_OK(member_is(t, "top/big.log", big, 200 * 1024 + 7));
	/* the pax header is no member of its own */
	T_NULL(adm_tar_find(t, "PaxHeaders.1"));
out:
	adm_tar_free(t);
	rai_tarw_free(w);
	close(dfd);
	unlink(path);
	free(path);
	free(big);
	free(longname);
	free(split);
	rai_err_release(&err);
}

TEST(archive_plain_round_trip)
{
	round_trip(0);
}

TEST(archive_gzip_round_trip)
{
	round_trip(RAI_TARW_GZIP);
}

TEST(errors)
{
	struct rai_tarw_opts o = { 0, 0, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_tarw *w = NULL;
	char *path = temp_path("short"), *data = temp_path("three");
	int fd, ro, dfd;

	/* a file shorter than the size the header promised */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	dfd = open(data, O_RDWR | O_CREAT | O_TRUNC, 0600);
	T_INT_EQ(write(dfd, "abc", 3), 3);
	T_INT_EQ(rai_tarw_open(fd, &o, &w, &err), 0);
	T_INT_EQ(rai_tarw_add_fd(w, "x.log", dfd, 10, &err), -1);
	T_STR_EQ(err.message, "the data of 'x.log' ended after 3 of 10 bytes");
	rai_tarw_free(w);
	close(dfd);
	unlink(data);
	free(data);
	close(fd);
	/* an archive that cannot be written */
	ro = open(path, O_RDONLY);
	T_INT_EQ(rai_tarw_open(ro, &o, &w, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "x", "y", 1, &err), -1);
	T_INT_EQ(err.kind, RAI_E_IO);
	T_INT_EQ(err.sys_errno, EBADF);
	T_STR_CONTAINS(err.message, "cannot write the archive");
	rai_tarw_free(w);
	close(ro);
	/* nothing after the end, and no nameless member */
	fd = open(path, O_RDWR | O_TRUNC);
	T_INT_EQ(rai_tarw_open(fd, &o, &w, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "", "y", 1, &err), -1);
	T_INT_EQ(rai_tarw_finish(w, &err), 0);
	T_INT_EQ(rai_tarw_add(w, "late", "y", 1, &err), -1);
	T_INT_EQ(err.kind, RAI_E_INTERNAL);
	rai_tarw_free(w);
	close(fd);
	unlink(path);
	free(path);
	rai_err_release(&err);
}

int
main(void)
{
	if (mkdtemp(tmpl_dir) == NULL)
		abort();
	RUN(header_short_name);
	RUN(header_name_and_prefix);
	RUN(header_prefix_split_reads_back);
	RUN(header_sizes);
	RUN(pax_record_lengths);
	RUN(archive_plain_round_trip);
	RUN(archive_gzip_round_trip);
	RUN(errors);
	rmdir(tmpl_dir);
	return t_done();
}
