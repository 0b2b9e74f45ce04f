/*
 * rai_tarw: a tar archive written as a stream, plain or gzip'ed (zlib),
 * never held whole in memory. Members are regular files under POSIX
 * ustar headers; a member whose name does not fit ustar's name and
 * prefix fields (255 bytes at best), or whose size does not fit its 11
 * octal digits (8 GiB), is preceded by a pax extended header ('x')
 * carrying its path or size, which GNU tar, bsdtar and adm/tar.c read.
 * pax was chosen over GNU's 'L' records because it is the POSIX form
 * and also carries sizes. A member's data comes from memory or from the
 * first bytes of a file descriptor, copied in 64 KiB pieces, so memory
 * stays bounded whatever the members' sizes (the header needs the size
 * first: a stream of unknown length is spooled to a file by the caller).
 */
#ifndef RAI_TAR_WRITE_H
#define RAI_TAR_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/err.h"

#define RAI_TAR_BLOCK		512
/* The largest size ustar's 11 octal digits hold: 8 GiB - 1. */
#define RAI_TAR_USTAR_MAX_SIZE	((uint64_t)077777777777)

enum rai_tarw_flags {
	RAI_TARW_GZIP	= 1 << 0,	/* one gzip member around the tar */
};

/* What every member's header says besides its name and size. */
struct rai_tarw_opts {
	unsigned	flags;		/* RAI_TARW_* */
	mode_t		mode;		/* 0 = 0600 */
	int64_t		mtime;		/* seconds since the epoch */
};

struct rai_tarw;

/* Writes to fd (the caller's: it is never closed here). */
int	 rai_tarw_open(int fd, const struct rai_tarw_opts *, struct rai_tarw **,
	    struct rai_err *);
/* A member from memory. */
int	 rai_tarw_add(struct rai_tarw *, const char *name, const void *data,
	    size_t len, struct rai_err *);
/*
 * A member of the first size bytes of fd, read with pread(2) (fd's
 * offset is left alone); fd holding fewer bytes is an error.
 */
int	 rai_tarw_add_fd(struct rai_tarw *, const char *name, int fd,
	    uint64_t size, struct rai_err *);
/* The end-of-archive blocks and the gzip trailer; nothing after this. */
int	 rai_tarw_finish(struct rai_tarw *, struct rai_err *);
/* Bytes written to fd so far (compressed, when gzip'ed). */
uint64_t rai_tarw_written(const struct rai_tarw *);
void	 rai_tarw_free(struct rai_tarw *);

/* ---- the pure parts (unit-tested) ---- */

/* What rai_tar_header could not say in the ustar fields. */
enum rai_tar_needs {
	RAI_TAR_NEEDS_PATH	= 1 << 0,	/* name: a pax "path" record */
	RAI_TAR_NEEDS_SIZE	= 1 << 1,	/* size: a pax "size" record */
};
/*
 * Fills blk with a ustar header of type ('0' a file, 'x' a pax header)
 * and its checksum. A name too long for the fields is cut to its first
 * 100 bytes and a size over RAI_TAR_USTAR_MAX_SIZE written in base-256,
 * for readers without pax; the return value says which pax records the
 * member needs (0: none).
 */
unsigned rai_tar_header(unsigned char blk[RAI_TAR_BLOCK], const char *name,
	    char type, uint64_t size, mode_t mode, int64_t mtime);
/* Appends one pax record, "LEN key=value\n" (LEN counts itself). */
void	 rai_tar_pax_record(struct rai_buf *, const char *key,
	    const char *value);

#endif
