/*
 * adm_gunzip: a gzip-compressed outer archive inflated once, so the tar
 * reader can pread its members in place.
 */
#ifndef ADM_GUNZIP_H
#define ADM_GUNZIP_H

#include "core/err.h"

/*
 * Inflates the gzip file fd (every member) into an unlinked temporary
 * file under $TMPDIR (default /var/tmp), after checking that the space
 * its trailer announces is free there; *out gets the new descriptor,
 * positioned anywhere. -1 with err: no space (with a hint), corrupt or
 * truncated gzip (RAI_E_PROTO), I/O errors.
 */
int	adm_gunzip_stage(int fd, const char *path, int *out, struct rai_err *);

#endif
