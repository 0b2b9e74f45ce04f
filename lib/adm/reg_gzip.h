/*
 * adm_reg_gzip: deterministic gzip of legacy layers for
 * `images push --compress gzip`.
 */
#ifndef ADM_REG_GZIP_H
#define ADM_REG_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "adm/image.h"
#include "core/err.h"

/* ---- deterministic gzip ---- */

/*
 * Compresses size bytes at offset of fd, read with pread, as one gzip
 * member with a fixed header (mtime 0, no name, OS 255) and level, so
 * the output - and its digest - depend on the input bytes alone. The
 * sha256 of the input read is kept for a diff_id check.
 */
struct adm_gz_reader;
struct adm_gz_reader *adm_gz_reader_new(int fd, uint64_t offset,
	    uint64_t size);
/* Up to len compressed bytes into buf: > 0, 0 at the end, -1 with err. */
ssize_t	 adm_gz_read(struct adm_gz_reader *, void *buf, size_t len,
	    struct rai_err *);
/* After the end: sha256 of the input ("sha256:<hex>"). */
void	 adm_gz_input_digest(const struct adm_gz_reader *, char out[72]);
void	 adm_gz_reader_free(struct adm_gz_reader *);

/*
 * --compress gzip, ahead of the upload (reg_gzip.c): one entry per
 * distinct uncompressed legacy layer.
 */
struct adm_gz_layer {
	const struct adm_archive *a;
	const struct adm_blob	*b;		/* the layer as archived */
	char			 digest[ADM_DIGEST_MAX];	/* of its gzip */
	uint64_t		 size;		/* of its gzip */
	int			 fd;		/* spool holding the gzip, or -1 */
	int			 spool;		/* keep the bytes (a push) */
	int			 rc;
	struct rai_err		 err;
};
/* A layer --compress gzip applies to: a legacy layer.tar as it is. */
int	 adm_gz_is_plain_layer(const struct adm_image *,
	    const struct adm_blob *);
/*
 * Compresses every such layer of the archives once, on up to threads
 * threads; with spool, keeps the bytes in unlinked files under $TMPDIR.
 * Checks each layer against its digest on the way (a corrupt archive
 * fails here, naming the blob). Free *out with adm_gz_layers_free.
 */
int	 adm_gz_layers_prepare(struct adm_archive *const *, size_t narchives,
	    int threads, int spool, struct adm_gz_layer **out, size_t *n,
	    struct rai_err *);
void	 adm_gz_layers_free(struct adm_gz_layer *, size_t);

#endif
