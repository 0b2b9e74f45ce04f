/*
 * rai_file: reading small local files with a cap, and writing files
 * atomically (a temp file in the same directory, fsync, then rename or
 * link, then fsync of the directory), so a reader never sees half a
 * file and a crash leaves either the old file or the new one.
 */
#ifndef RAI_FILE_H
#define RAI_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

enum rai_file_flags {
	/*
	 * Fail with RAI_E_IO and sys_errno EEXIST when path exists. The
	 * check and the creation are one step (link(2)), so two writers
	 * cannot both win.
	 */
	RAI_FILE_NO_REPLACE	= 1 << 0,
};

/*
 * Reads all of path into *data (NUL-terminated; caller frees, with
 * rai_free_secret_mem for secrets). Files over max bytes fail with
 * RAI_E_IO and sys_errno EFBIG.
 */
int	 rai_file_read(const char *path, size_t max, char **data, size_t *len,
	    struct rai_err *);
/* Writes data to path atomically with the given mode (umask not applied). */
int	 rai_file_write_atomic(const char *path, const void *data, size_t len,
	    mode_t mode, unsigned flags, struct rai_err *);

/*
 * The lock of path, client-go's way (clientcmd's lockFile): "<path>.lock"
 * created with O_EXCL, polled for up to wait_ms, removed by
 * rai_file_unlock. what names the file in the message ("kubeconfig").
 * *lock is the lock file's path for rai_file_unlock (NULL-safe).
 */
int	 rai_file_lock(const char *path, const char *what, long wait_ms,
	    char **lock, struct rai_err *);
void	 rai_file_unlock(char *lock);

#endif
