/*
 * adm_image: the digest helpers the push will reuse (sha256 of memory
 * and of a file range read with pread, digest syntax), and archive
 * errors that need no fixture (the e2e tests build real archives).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adm/gunzip.h"
#include "adm/image.h"
#include "core/err.h"
#include "harness.h"

#define ABC_SHA256 "sha256:" \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define EMPTY_SHA256 "sha256:" \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

TEST(sha256_vectors)
{
	char d[ADM_DIGEST_MAX];

	adm_sha256_mem("abc", 3, d);
	T_STR_EQ(d, ABC_SHA256);
	adm_sha256_mem("", 0, d);
	T_STR_EQ(d, EMPTY_SHA256);
}

TEST(sha256_file_range)
{
	char path[] = "/tmp/t_adm_image.XXXXXX", d[ADM_DIGEST_MAX];
	struct rai_err err = RAI_ERR_INIT;
	char *big;
	size_t n = (3u << 20) + 17;	/* several pread chunks */
	int fd = mkstemp(path);

	T_OK(fd != -1);
	T_INT_EQ(write(fd, "xxabcyy", 7), 7);
	T_INT_EQ(adm_sha256_fd(fd, 2, 3, d, &err), 0);
	T_STR_EQ(d, ABC_SHA256);
	T_INT_EQ(adm_sha256_fd(fd, 7, 0, d, &err), 0);
	T_STR_EQ(d, EMPTY_SHA256);
	/* past the end: a clear error, not a wrong digest */
	T_INT_EQ(adm_sha256_fd(fd, 5, 10, d, &err), -1);
	T_STR_CONTAINS(err.message, "bytes short");
	big = malloc(n);
	memset(big, 'q', n);
	T_INT_EQ(pwrite(fd, big, n, 100), (long long)n);
	{
		char want[ADM_DIGEST_MAX];

		adm_sha256_mem(big, n, want);
		T_INT_EQ(adm_sha256_fd(fd, 100, n, d, &err), 0);
		T_STR_EQ(d, want);
	}
	free(big);
	close(fd);
	unlink(path);
	rai_err_release(&err);
}

TEST(digest_syntax)
{
	T_INT_EQ(adm_digest_valid(ABC_SHA256), 1);
	T_INT_EQ(adm_digest_valid("sha256:abc"), 0);
	T_INT_EQ(adm_digest_valid("sha512:" "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad"), 0);
	T_INT_EQ(adm_digest_valid("sha256:" "BA7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad"), 0);
	T_INT_EQ(adm_digest_valid(NULL), 0);
}

TEST(archive_open_errors)
{
	struct adm_archive *a = NULL;
	struct rai_err err = RAI_ERR_INIT;
	char dir[] = "/tmp/t_adm_image.XXXXXX";

	T_INT_EQ(adm_archive_open("/nonexistent/images.tar",
	    ADM_INFLATE_DEFAULT, &a, &err), -1);
	T_INT_EQ(err.kind, RAI_E_NOTFOUND);
	T_NULL(a);
	T_NOT_NULL(mkdtemp(dir));
	T_INT_EQ(adm_archive_open(dir, ADM_INFLATE_DEFAULT, &a, &err), -1);
	T_STR_CONTAINS(err.message, "unknown layout");
	rmdir(dir);
	T_STR_EQ(adm_image_format_name(ADM_FMT_DOCKER_LEGACY), "docker-legacy");
	T_STR_EQ(adm_image_format_name(ADM_FMT_OCI_ARCHIVE), "oci-archive");
	rai_err_release(&err);
}

int
main(void)
{
	RUN(sha256_vectors);
	RUN(sha256_file_range);
	RUN(digest_syntax);
	RUN(archive_open_errors);
	return t_done();
}
