/*
 * What images list, push and verify read: every argument into one
 * archive set, with the entries of bundles and folders that hold no
 * image, or cannot be read, named on stderr, so that nothing of a
 * release is left out without a word. A file of its own so that
 * images.c and images_push.c both call down to it.
 */
#include <stdint.h>
#include <stdio.h>

#include "adm.h"
#include "adm/image_set.h"
#include "core/text.h"

#include "core/banned.h"

int
adm_images_read(struct adm_archive_set *set, int argc, char **argv,
    uint64_t max_inflate, struct rai_err *err)
{
	size_t i, skipped = set->nskipped, failed = set->nfailed;
	int a;

	for (a = 0; a < argc; a++)
		if (adm_archive_set_add(set, argv[a], max_inflate, err) == -1)
			return -1;
	/* names come from archives and folders: shown cleaned */
	for (i = skipped; i < set->nskipped; i++)
		rai_text_put(stderr, "skipped: ", set->skipped[i],
		    ", not an image\n");
	for (i = failed; i < set->nfailed; i++) {
		rai_text_put(stderr, "not read: ", set->failed[i].name, ": ");
		rai_text_put(stderr, "", set->failed[i].message, "\n");
	}
	return 0;
}

int
adm_images_unread(const struct adm_archive_set *set, struct rai_err *err)
{
	if (set->nfailed == 0)
		return 0;
	return rai_err_set(err, RAI_E_PROTO, "%zu %s of the input could not "
	    "be read: %s%s", set->nfailed, set->nfailed == 1 ? "entry" :
	    "entries", set->failed[0].name, set->nfailed > 1 ?
	    ", and more above" : "");
}
