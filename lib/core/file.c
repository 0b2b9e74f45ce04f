/*
 * Capped file reads, atomic file writes, and lock files.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/file.h"
#include "core/time.h"

#include "core/banned.h"

static int
too_big(struct rai_err *err, const char *path, size_t max)
{
	rai_err_set(err, RAI_E_IO, "cannot read '%s': larger than %zu bytes",
	    path, max);
	if (err != NULL)
		err->sys_errno = EFBIG;
	return -1;
}

int
rai_file_read(const char *path, size_t max, char **data, size_t *len,
    struct rai_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t cap, used = 0;
	ssize_t n;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return rai_err_errno(err, errno, "cannot read '%s'", path);
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		return rai_err_errno(err, saved, "cannot read '%s'", path);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return rai_err_errno(err, EISDIR, "cannot read '%s'", path);
	}
	/* Size the buffer from st_size; special files may say 0. */
	cap = S_ISREG(st.st_mode) && (size_t)st.st_size <= max ?
	    (size_t)st.st_size + 1 : 4096;
	buf = xmalloc(cap);
	for (;;) {
		if (used + 1 >= cap) {
			if (cap > max) {
				rai_free_secret_mem(buf, cap);
				close(fd);
				return too_big(err, path, max);
			}
			buf = xrealloc(buf, cap * 2);
			cap *= 2;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			rai_free_secret_mem(buf, cap);
			close(fd);
			return rai_err_errno(err, saved, "cannot read '%s'",
			    path);
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max) {
			rai_free_secret_mem(buf, cap);
			close(fd);
			return too_big(err, path, max);
		}
	}
	close(fd);
	buf[used] = '\0';
	*data = buf;
	if (len != NULL)
		*len = used;
	return 0;
}

static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
fsync_dir(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir;
	int fd;

	dir = slash == NULL ? xstrdup(".") : slash == target ? xstrdup("/") :
	    xstrndup(target, (size_t)(slash - target));
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	if (fd != -1) {
		/* Some filesystems refuse fsync on a directory; harmless. */
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int
rai_file_write_atomic(const char *path, const void *data, size_t len,
    mode_t mode, unsigned flags, struct rai_err *err)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd, rc = -1;

	fd = mkstemp(tmp);
	if (fd == -1) {
		rai_err_errno(err, errno, "cannot create a temporary file next "
		    "to '%s'", path);
		free(tmp);
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(fd, mode) == -1 || write_all(fd, data, len) == -1 ||
	    fsync(fd) == -1) {
		rai_err_errno(err, errno, "cannot write '%s'", tmp);
		close(fd);
		goto out;
	}
	if (close(fd) == -1) {
		rai_err_errno(err, errno, "cannot write '%s'", tmp);
		goto out;
	}
	if (flags & RAI_FILE_NO_REPLACE) {
		/* link(2) fails when path exists: check and create at once. */
		if (link(tmp, path) == -1) {
			rai_err_errno(err, errno, "cannot create '%s'", path);
			goto out;
		}
	} else if (rename(tmp, path) == -1) {
		rai_err_errno(err, errno, "cannot replace '%s'", path);
		goto out;
	}
	fsync_dir(path);
	rc = 0;
out:
	/* After a rename the temp name is gone; after a link it remains. */
	if (rc == -1 || (flags & RAI_FILE_NO_REPLACE))
		unlink(tmp);
	free(tmp);
	return rc;
}

#define LOCK_POLL_MS	20

int
rai_file_lock(const char *path, const char *what, long wait_ms, char **lockp,
    struct rai_err *err)
{
	char *lock = xasprintf("%s.lock", path);
	long waited = 0;
	int fd;

	for (;;) {
		fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd != -1)
			break;
		if (errno != EEXIST) {
			rai_err_errno(err, errno, "cannot create lock file "
			    "'%s'", lock);
			goto fail;
		}
		if (waited >= wait_ms) {
			rai_err_set(err, RAI_E_CONFIG, "%s '%s' is locked by "
			    "another process ('%s' exists)", what, path, lock);
			rai_err_set_hint(err, "if no kubectl or runai is "
			    "changing it, remove '%s'", lock);
			goto fail;
		}
		rai_sleep_ms(LOCK_POLL_MS);
		waited += LOCK_POLL_MS;
	}
	close(fd);
	*lockp = lock;
	return 0;
fail:
	free(lock);
	return -1;
}

void
rai_file_unlock(char *lock)
{
	if (lock == NULL)
		return;
	unlink(lock);
	free(lock);
}
