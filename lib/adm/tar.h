/*
 * adm_tar: a tar reader that never extracts. adm_tar_open walks the
 * headers of an uncompressed tar once and records every member (name,
 * type, size, where its data starts in the file), so that blobs are
 * read later in place with pread(2). It understands ustar, GNU long
 * names and link names (typeflags 'L' and 'K'), PAX extended headers
 * ('x' for the next member, 'g' for all that follow: path, linkpath,
 * size, including sizes over 8 GiB), base-256 numeric fields, and hard
 * and symbolic links (adm_tar_find follows them). Every header's
 * checksum is verified; truncation and corruption fail with the offset.
 *
 * The outer file's compression is recognised by magic bytes (gzip,
 * zstd, bzip2, xz) and refused with the command that decompresses it:
 * the reader needs a seekable, uncompressed tar.
 */
#ifndef ADM_TAR_H
#define ADM_TAR_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define ADM_TAR_BLOCK		512
/* Cap on a GNU long name or a PAX header's data. */
#define ADM_TAR_META_MAX	((size_t)1 << 20)

enum adm_tar_type {
	ADM_TAR_FILE,		/* '0', '\0', '7' */
	ADM_TAR_HARDLINK,	/* '1' */
	ADM_TAR_SYMLINK,	/* '2' */
	ADM_TAR_DIR,		/* '5' */
	ADM_TAR_OTHER,		/* devices, fifos, unknown types */
	ADM_TAR_LONGNAME,	/* 'L': data is the next member's name */
	ADM_TAR_LONGLINK,	/* 'K': data is the next member's link name */
	ADM_TAR_PAX,		/* 'x': attributes of the next member */
	ADM_TAR_PAX_GLOBAL,	/* 'g': attributes of all later members */
};

/* One 512-byte header block, decoded (no PAX or GNU extensions applied). */
struct adm_tar_hdr {
	char			 name[256 + 2];	/* prefix "/" name */
	char			 linkname[100 + 1];
	char			 typeflag;
	enum adm_tar_type	 type;
	uint64_t		 size;
	uint64_t		 mode;
	int64_t			 mtime;
	int			 ustar;		/* "ustar" magic present */
};

enum adm_tar_hdr_rc {
	ADM_TAR_HDR_OK = 0,
	ADM_TAR_HDR_ZERO = 1,	/* an all-zero block: end of archive */
};

/*
 * Decodes one header block. Returns ADM_TAR_HDR_OK, ADM_TAR_HDR_ZERO,
 * or -1 with RAI_E_PROTO (bad checksum, malformed numeric field).
 */
int	 adm_tar_parse_header(const unsigned char blk[ADM_TAR_BLOCK],
	    struct adm_tar_hdr *, struct rai_err *);
/*
 * A numeric field: octal (space/NUL terminated) or base-256 (high bit of
 * the first byte set). -1 with RAI_E_PROTO when malformed or negative.
 */
int	 adm_tar_parse_num(const unsigned char *field, size_t len,
	    uint64_t *out, struct rai_err *);

/* PAX attributes we use; set marks which were present. */
enum adm_tar_pax_set {
	ADM_PAX_PATH		= 1 << 0,
	ADM_PAX_LINKPATH	= 1 << 1,
	ADM_PAX_SIZE		= 1 << 2,
};
struct adm_tar_pax {
	unsigned	 set;
	char		*path;		/* owned */
	char		*linkpath;	/* owned */
	uint64_t	 size;
};
/* Parses "LEN key=value\n" records; merges into pax (later wins). */
int	 adm_tar_parse_pax(const char *data, size_t len, struct adm_tar_pax *,
	    struct rai_err *);
void	 adm_tar_pax_release(struct adm_tar_pax *);

struct adm_tar_entry {
	char			*name;		/* normalised: no "./", no trailing '/' */
	char			*linkname;	/* links only, else NULL */
	enum adm_tar_type	 type;		/* FILE, HARDLINK, SYMLINK, DIR, OTHER */
	uint64_t		 size;		/* data bytes (0 for links) */
	uint64_t		 offset;	/* data offset in the file (fd) */
	uint64_t		 hdr_offset;	/* offset of its first header block */
};

struct adm_tar {
	int			 fd;
	char			*path;
	uint64_t		 base;		/* where the tar starts in fd */
	uint64_t		 file_size;	/* its size from there */
	struct adm_tar_entry	*v;
	size_t			 n;
	size_t			 alloc;
};

/* Outer-file compression, by magic bytes. */
enum adm_compress {
	ADM_COMPRESS_NONE = 0,
	ADM_COMPRESS_GZIP,
	ADM_COMPRESS_ZSTD,
	ADM_COMPRESS_BZIP2,
	ADM_COMPRESS_XZ,
};
enum adm_compress adm_compress_detect(const unsigned char *p, size_t len);
const char *adm_compress_name(enum adm_compress);

/*
 * Opens path and indexes every member. A gzip file is inflated first,
 * within max_inflate (adm_gunzip_stage; ADM_INFLATE_DEFAULT for the
 * usual limit). Errors (RAI_E_NOTFOUND, RAI_E_IO, RAI_E_PROTO) name the
 * file and, for corruption, the offset.
 */
int	 adm_tar_open(const char *path, uint64_t max_inflate,
	    struct adm_tar **, struct rai_err *);
/* Indexes an already open file (the reader then owns fd). */
int	 adm_tar_open_fd(int fd, const char *path, uint64_t max_inflate,
	    struct adm_tar **, struct rai_err *);
/*
 * The tar that is the size bytes at off of fd (a member of another tar,
 * read in place; a gzip one is inflated once). The reader owns fd and
 * names itself label in errors.
 */
int	 adm_tar_open_range(int fd, uint64_t off, uint64_t size,
	    const char *label, uint64_t max_inflate, struct adm_tar **,
	    struct rai_err *);
/*
 * The members under directory prefix of t, named as from there (an OCI
 * layout directory inside a release bundle), read in place from a dup
 * of t's descriptor; label names it in errors.
 */
int	 adm_tar_subdir(const struct adm_tar *, const char *prefix,
	    const char *label, struct adm_tar **, struct rai_err *);
void	 adm_tar_free(struct adm_tar *);
/*
 * The regular file that name (normalised first) stands for, following
 * hard and symbolic links (at most 16 hops). NULL when there is none.
 */
const struct adm_tar_entry *adm_tar_find(const struct adm_tar *,
	    const char *name);
/* Normalises a member name in place ("./a//b/" -> "a/b"). */
void	 adm_tar_normalize(char *name);

#endif
