/*
 * --max-inflate, which every command that reads image archives takes
 * (images list, push and verify): the parser behind ADM_MAX_INFLATE_OPT.
 * It sits in a file of its own so that images.c, which holds the images
 * group, and images_push.c both call down to it, not to each other.
 */
#include <stdint.h>

#include "adm.h"
#include "adm/gunzip.h"
#include "kube/quantity.h"

#include "core/banned.h"

int
adm_max_inflate_parse(const char *s, uint64_t *out, struct rai_err *err)
{
	double q;

	*out = ADM_INFLATE_DEFAULT;
	if (s == NULL)
		return 0;
	if (rai_quantity_parse(s, &q) == -1 || q < 0 || q > 1e18)
		return rai_err_set(err, RAI_E_USAGE, "--max-inflate '%s' is not "
		    "a size (such as 200Gi, or 0 for no limit)", s);
	*out = q < 1 ? ADM_INFLATE_ANY : (uint64_t)q;
	return 0;
}
