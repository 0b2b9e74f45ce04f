/*
 * adm_image: the image archives an air-gapped install brings along, read
 * in place:
 *
 *   ADM_FMT_DOCKER_LEGACY   docker save before Docker 25: manifest.json
 *                           (Config, RepoTags, Layers), <id>/layer.tar,
 *                           <hex>.json configs, optional repositories
 *   ADM_FMT_DOCKER_OCI      docker save from Docker 25 on: an OCI layout
 *                           inside the tar plus manifest.json
 *   ADM_FMT_OCI_DIR         an OCI image layout directory (skopeo oci:)
 *   ADM_FMT_OCI_ARCHIVE     the same layout in a tar (oci-archive:)
 *
 * Each archive holds one or more images. For OCI layouts the manifest is
 * the stored blob; for legacy archives, which have none, it is the OCI
 * manifest a push of the layers as they are would create (layers
 * application/vnd.oci.image.layer.v1.tar, digest = sha256 of layer.tar,
 * which is also the config's diff_id), built deterministically.
 *
 * Manifests and configs are always hashed and checked against their
 * names and descriptors (they are small and read anyway); every blob's
 * presence and size is checked; layers are hashed only by
 * adm_archive_verify / adm_blob_verify, since that reads everything.
 */
#ifndef ADM_IMAGE_H
#define ADM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define ADM_DIGEST_MAX	(7 + 64 + 1)	/* "sha256:" hex NUL */
/* Cap on a manifest, index, config or manifest.json read into memory. */
#define ADM_JSON_MAX	((size_t)16 << 20)

#define ADM_MT_OCI_MANIFEST	"application/vnd.oci.image.manifest.v1+json"
#define ADM_MT_OCI_INDEX	"application/vnd.oci.image.index.v1+json"
#define ADM_MT_OCI_CONFIG	"application/vnd.oci.image.config.v1+json"
#define ADM_MT_OCI_LAYER	"application/vnd.oci.image.layer.v1.tar"
#define ADM_MT_DOCKER_MANIFEST	"application/vnd.docker.distribution.manifest.v2+json"
#define ADM_MT_DOCKER_LIST	"application/vnd.docker.distribution.manifest.list.v2+json"

enum adm_image_format {
	ADM_FMT_DOCKER_LEGACY,
	ADM_FMT_DOCKER_OCI,
	ADM_FMT_OCI_DIR,
	ADM_FMT_OCI_ARCHIVE,
};
/* "docker-legacy", "docker-oci", "oci-dir", "oci-archive" */
const char *adm_image_format_name(enum adm_image_format);

struct adm_archive;

/* A blob: where it lies (a tar member or a file under the directory). */
struct adm_blob {
	char		 digest[ADM_DIGEST_MAX];	/* "sha256:<hex>" */
	char		*media_type;
	uint64_t	 size;
	char		*path;		/* inside the archive or directory */
};

struct adm_image {
	char			**refs;		/* references, may be none */
	size_t			  nrefs;
	char			 *manifest;	/* exact bytes (push these) */
	size_t			  manifest_len;
	char			 *manifest_media_type;
	char			  manifest_digest[ADM_DIGEST_MAX];
	int			  synthesized;	/* legacy: we built the manifest */
	struct adm_blob		  config;
	struct adm_blob		 *layers;
	size_t			  nlayers;
	uint64_t		  total_size;	/* config + layers */
};

struct adm_archive {
	char			*path;
	enum adm_image_format	 format;
	struct adm_tar		*tar;		/* NULL for a directory */
	struct adm_image	*images;
	size_t			 nimages;
};

/*
 * Opens a tar file or an OCI layout directory, detects its layout and
 * builds the image list; a gzip tar inflates within max_inflate (see
 * adm/gunzip.h). Errors name the archive and the member.
 */
int	 adm_archive_open(const char *path, uint64_t max_inflate,
	    struct adm_archive **, struct rai_err *);
void	 adm_archive_free(struct adm_archive *);

/*
 * The image archive an indexed tar holds (a bundle's member), named
 * label: 1 and *out, which then owns tar; 0 when the tar's members make
 * no image layout at all; -1 with err when they do but it is broken.
 * On 0 and -1 the tar is still the caller's.
 */
struct adm_tar;
int	 adm_archive_from_tar(struct adm_tar *, const char *label,
	    struct adm_archive **, struct rai_err *);

/*
 * Where a blob's bytes are: fd (close it when *owned), offset and size.
 * Fails with RAI_E_NOTFOUND naming the blob when it is missing.
 */
struct adm_blob_loc {
	int		 fd;
	int		 owned;
	uint64_t	 offset;
	uint64_t	 size;
};
int	 adm_blob_locate(const struct adm_archive *, const char *path,
	    struct adm_blob_loc *, struct rai_err *);
void	 adm_blob_loc_release(struct adm_blob_loc *);

/* sha256 of size bytes at offset of fd, read with pread in chunks. */
int	 adm_sha256_fd(int fd, uint64_t offset, uint64_t size,
	    char digest[ADM_DIGEST_MAX], struct rai_err *);
void	 adm_sha256_mem(const void *, size_t, char digest[ADM_DIGEST_MAX]);
/* "sha256:" + 64 lower-case hex digits */
int	 adm_digest_valid(const char *);

/*
 * Hashes the blob's bytes and checks them against its digest and size:
 * RAI_E_PROTO "digest mismatch" naming the blob otherwise. The push
 * calls this (or hashes while streaming) before trusting a blob.
 */
int	 adm_blob_verify(const struct adm_archive *, const struct adm_blob *,
	    struct rai_err *);
/* adm_blob_verify on every config and layer of every image. */
int	 adm_archive_verify(const struct adm_archive *, struct rai_err *);

#endif
