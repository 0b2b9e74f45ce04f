/*
 * libFuzzer target for the image-archive reader: the first 512 bytes
 * go to the header parser alone, the whole input to the PAX record
 * parser, and then, written to a temp file, through adm_tar_open (every
 * member looked up again, links followed) and adm_archive_open, which
 * reads manifest.json, index.json, manifests and configs out of it.
 * Besides the sanitizers' checks: every member must lie inside the
 * file, and the parser must agree with itself on a second run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adm/gunzip.h"
#include "adm/image.h"
#include "adm/tar.h"
#include "core/err.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char path[] = "/tmp/fuzz_adm_tar.XXXXXX";
static int fd = -1;

static void
cleanup(void)
{
	if (fd != -1)
		unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tar_pax pax = { 0 };
	struct adm_tar_hdr h, h2;
	struct adm_tar *t = NULL;
	struct adm_archive *a = NULL;
	size_t i;

	if (fd == -1) {
		if ((fd = mkstemp(path)) == -1)
			abort();
		atexit(cleanup);
	}
	if (size >= ADM_TAR_BLOCK) {
		int rc1 = adm_tar_parse_header(data, &h, &err);
		int rc2 = adm_tar_parse_header(data, &h2, &err);

		if (rc1 != rc2 || (rc1 == 0 && (h.size != h2.size ||
		    strcmp(h.name, h2.name) != 0)))
			abort();
	}
	(void)adm_tar_parse_pax((const char *)data, size, &pax, &err);
	adm_tar_pax_release(&pax);

	if (ftruncate(fd, 0) == -1 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (adm_tar_open_fd(dup(fd), path, ADM_INFLATE_DEFAULT, &t,
	    &err) == 0) {
		for (i = 0; i < t->n; i++) {
			const struct adm_tar_entry *e = &t->v[i];

			if (e->offset > t->file_size ||
			    e->size > t->file_size - e->offset)
				abort();
			(void)adm_tar_find(t, e->name);
		}
		adm_tar_free(t);
		if (adm_archive_open(path, ADM_INFLATE_DEFAULT, &a, &err) == 0)
			adm_archive_free(a);
	}
	rai_err_release(&err);
	return 0;
}
