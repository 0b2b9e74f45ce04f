/*
 * adm_gunzip: a gzip-compressed outer archive inflated once, so the tar
 * reader can pread its members in place.
 */
#ifndef ADM_GUNZIP_H
#define ADM_GUNZIP_H

#include <stdint.h>

#include "core/err.h"

/*
 * How far an archive may inflate (max_inflate): ADM_INFLATE_DEFAULT is
 * ADM_INFLATE_RATIO times its compressed size (image layers compress a
 * few times at most; a gzip bomb a thousand times), ADM_INFLATE_ANY
 * leaves only the free space as the limit, any other value is a size in
 * bytes (--max-inflate).
 */
#define ADM_INFLATE_DEFAULT	((uint64_t)0)
#define ADM_INFLATE_ANY		UINT64_MAX
#define ADM_INFLATE_RATIO	100

/*
 * Inflates the gzip file fd (every member) into an unlinked temporary
 * file under $TMPDIR (default /var/tmp), after checking that the space
 * its trailer announces is free there; *out gets the new descriptor,
 * positioned anywhere. It stops at the max_inflate limit and at the
 * space that was free when it began, counted on the bytes inflated (the
 * trailer's size may lie), so a bomb can neither fill the disk nor
 * take long. -1 with err: over a limit or no space (with a
 * hint), corrupt or truncated gzip (RAI_E_PROTO), I/O errors; the
 * staged copy is gone then (it was never linked).
 */
int	adm_gunzip_stage(int fd, const char *path, uint64_t max_inflate,
	    int *out, struct rai_err *);
/* The same for the size bytes at off of fd (a member of a bundle). */
int	adm_gunzip_stage_range(int fd, uint64_t off, uint64_t size,
	    const char *path, uint64_t max_inflate, int *out,
	    struct rai_err *);

#endif
