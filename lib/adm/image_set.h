/*
 * adm_archive_set: the image archives a command was given, read entry by
 * entry. An argument is an image archive (adm_image.h), or a release
 * bundle -- a tar, gzip or not, of such archives -- or a folder of them
 * (the extracted release). Inside a bundle or folder:
 *
 *   - members named *.tar, *.tar.gz, *.tgz are opened in place: an
 *     image archive is added as "BUNDLE:MEMBER"; a tar of archives is
 *     read as a bundle in turn (at most ADM_SET_DEPTH deep); a tar
 *     holding no image at all (a Helm chart) is skipped as a whole;
 *   - a directory holding oci-layout and index.json is an OCI image
 *     layout, added as one archive;
 *   - every other entry is skipped, and named in `skipped`;
 *   - an entry that cannot be read (cut short, unreadable, a layout
 *     missing a blob) is named in `failed` with the reason; the others
 *     are still added, so a push sends what can be sent.
 *
 * An argument that is itself unreadable, or holds no image and no
 * entry that failed, is an error of adm_archive_set_add.
 */
#ifndef ADM_IMAGE_SET_H
#define ADM_IMAGE_SET_H

#include <stddef.h>
#include <stdint.h>

#include "adm/image.h"
#include "core/err.h"

#define ADM_SET_DEPTH	4	/* bundles inside bundles */

struct adm_set_failure {
	char	*name;		/* "BUNDLE:MEMBER" or a path */
	char	*message;
};

struct adm_archive_set {
	struct adm_archive	**v;
	size_t			  n;
	char			**skipped;	/* entries that hold no image */
	size_t			  nskipped;
	struct adm_set_failure	 *failed;	/* entries that could not be read */
	size_t			  nfailed;
};

int	 adm_archive_set_add(struct adm_archive_set *, const char *path,
	    uint64_t max_inflate, struct rai_err *);
/* Images in every archive of the set. */
size_t	 adm_archive_set_images(const struct adm_archive_set *);
void	 adm_archive_set_free(struct adm_archive_set *);

#endif
