/*
 * adm_reg_gzip: deterministic, parallel gzip of legacy layers for
 * `images push --compress gzip`.
 *
 * The format (fixed: it decides the digests). One gzip member: a fixed
 * header (mtime 0, no name, XFL 4, OS 255), then the input cut into
 * blocks of ADM_GZ_BLOCK bytes, each one a piece of raw deflate that
 * ends on a byte boundary and is not final, then an empty final block
 * (0x03 0x00) and the crc32 and size trailer. A block is either
 *   - deflated: zlib level 1, windowBits 15, memLevel 8, default
 *     strategy, primed with the ADM_GZ_DICT input bytes before it as a
 *     dictionary, ended by a sync flush; or
 *   - stored: when a level 1 deflate of its first ADM_GZ_SAMPLE bytes
 *     saves less than 1/32, the block is copied in stored blocks of at
 *     most 65535 bytes (data that is already compressed).
 * Each block depends only on its own bytes and the 32 KiB before it, so
 * blocks compress independently, on any number of threads, and the
 * output is the same for every thread count, run and machine (with the
 * same zlib). Block crc32s are joined with crc32_combine.
 */
#ifndef ADM_REG_GZIP_H
#define ADM_REG_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "adm/image.h"
#include "core/err.h"

#define ADM_GZ_BLOCK	((size_t)256 << 10)
#define ADM_GZ_DICT	((size_t)32 << 10)
#define ADM_GZ_SAMPLE	((size_t)8 << 10)
#define ADM_GZ_HEADER_LEN	10
#define ADM_GZ_TRAILER_LEN	10	/* empty final block, crc32, size */

/* ---- the block format (exported for the unit tests) ---- */

/* One thread's zlib state. */
struct adm_gz_deflater;
struct adm_gz_deflater *adm_gz_deflater_new(void);
void	 adm_gz_deflater_free(struct adm_gz_deflater *);
/* Room one block of len bytes may need. */
size_t	 adm_gz_block_bound(size_t len);
/*
 * Compresses in[0..len) (len <= ADM_GZ_BLOCK) primed with dict[0..dlen)
 * (the input just before it, at most ADM_GZ_DICT bytes) into out (cap >=
 * adm_gz_block_bound(len)); returns the bytes written, 0 on a zlib
 * failure. *stored says which kind of block it became.
 */
size_t	 adm_gz_deflate_block(struct adm_gz_deflater *,
	    const unsigned char *dict, size_t dlen, const unsigned char *in,
	    size_t len, unsigned char *out, size_t cap, int *stored);
void	 adm_gz_header(unsigned char out[ADM_GZ_HEADER_LEN]);
void	 adm_gz_trailer(uint32_t crc, uint64_t size,
	    unsigned char out[ADM_GZ_TRAILER_LEN]);

/* ---- compressing file ranges ---- */

/*
 * A compressed copy kept for an upload: the gzip stream, cut into
 * pieces in order. A piece is either spooled (the header, deflated
 * blocks, the trailer: bytes in the spool file) or stored (a block of
 * data that does not compress: the stored framing of input bytes,
 * rebuilt from the input when read, so incompressible data never takes
 * room, or page cache, in the spool).
 */
struct adm_gz_piece {
	uint64_t	 at;		/* offset in the gzip stream */
	uint64_t	 len;		/* its bytes in the gzip stream */
	uint64_t	 from;		/* spool offset, or input offset */
	uint64_t	 in_len;	/* stored: the input bytes framed */
	int		 stored;
};

struct adm_gz_pieces {
	struct adm_gz_piece	*v;
	size_t			 n;
	size_t			 cap;
	uint64_t		 spooled;	/* bytes in the spool file */
};

struct adm_gz_job {
	int		 fd;		/* input, read with pread */
	uint64_t	 offset;
	uint64_t	 size;
	int		 out_fd;	/* where the gzip goes, or -1: digest only */
	/* with out_fd: stored blocks are listed here, not written */
	struct adm_gz_pieces *pieces;
	const char	*what;		/* for messages */
	/* results */
	char		 digest[ADM_DIGEST_MAX];	/* of the gzip */
	char		 in_digest[ADM_DIGEST_MAX];	/* of the input */
	uint64_t	 gz_size;
	int		 failed;	/* the error is this job's */
};
/*
 * Compresses every job on up to threads threads (0: one per CPU this
 * process may run on): a thread owns one job at a time and writes its
 * blocks in order, idle threads compress blocks of the jobs owned by
 * others. At most a fixed number of blocks (2 per thread, plus 2) are in
 * memory at once. Jobs start in the order given. 0, or -1 with err
 * (the first failing job's, marked failed).
 */
int	 adm_gz_run(struct adm_gz_job *, size_t n, int threads,
	    struct rai_err *);
/* The threads adm_gz_run uses for threads == 0. */
int	 adm_gz_auto_threads(void);
/*
 * Reads len bytes at off of the gzip stream the pieces describe, the
 * spooled ones from spool_fd, the stored ones framed again from in_fd
 * (offsets as in the job). Returns the bytes read (fewer only at the
 * end of the stream, or where a file ends early), 0 at the end, -1 with
 * errno.
 */
ssize_t	 adm_gz_pieces_pread(const struct adm_gz_pieces *, int spool_fd,
	    int in_fd, void *buf, size_t len, uint64_t off);
void	 adm_gz_pieces_release(struct adm_gz_pieces *);

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
	struct adm_gz_pieces	 pieces;	/* of the spooled gzip */
	struct adm_blob_loc	 loc;		/* the layer (stored pieces) */
	int			 have_loc;
	char			*bad;		/* the layer does not match its digest */
};
/* Reads the spooled gzip of a layer: adm_gz_pieces_pread. */
ssize_t	 adm_gz_layer_pread(const struct adm_gz_layer *, void *buf,
	    size_t len, uint64_t off);
/* sha256 of a layer's spooled gzip, read back (its size bytes). */
int	 adm_gz_layer_sha256(const struct adm_gz_layer *,
	    char digest[ADM_DIGEST_MAX], struct rai_err *);
/* A layer --compress gzip applies to: a legacy layer.tar as it is. */
int	 adm_gz_is_plain_layer(const struct adm_image *,
	    const struct adm_blob *);
/*
 * Compresses every such layer of the archives once, on up to threads
 * threads (0: one per CPU); with spool, keeps the bytes in unlinked
 * files under $TMPDIR, but for blocks stored as they are (read back
 * from the archive, which stays open). Checks each layer against its
 * digest on the way: a corrupt one gets `bad`, naming the blob, and
 * the push leaves out the images that need it.
 * Free *out with adm_gz_layers_free.
 */
int	 adm_gz_layers_prepare(struct adm_archive *const *, size_t narchives,
	    int threads, int spool, struct adm_gz_layer **out, size_t *n,
	    struct rai_err *);
void	 adm_gz_layers_free(struct adm_gz_layer *, size_t);

#endif
