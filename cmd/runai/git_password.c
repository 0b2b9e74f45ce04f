/*
 * submit --git-sync's password, kept out of argv: a password= in the
 * string is visible to every user of the machine in the process table
 * while runai runs, so it still works (the original CLI took it) but is
 * warned about; the ways that stay private are password-file=PATH in
 * the string (its first line), --git-sync-password-stdin (a line on
 * stdin) and $RUNAI_GIT_SYNC_PASSWORD (used when the string names a
 * username and no password).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/file.h"
#include "runai.h"
#include "runai/git_sync.h"

#include "core/banned.h"

#define PASSWORD_ENV		"RUNAI_GIT_SYNC_PASSWORD"
#define PASSWORD_FILE_MAX	4096
#define STDIN_TIMEOUT_MS	(300 * 1000L)

/* The file's first line, without its line end. */
static int
read_password_file(const char *path, char **out, struct rai_err *err)
{
	char *data = NULL;
	size_t len = 0;

	if (rai_file_read(path, PASSWORD_FILE_MAX, &data, &len, err) == -1) {
		rai_err_prefix(err, "--git-sync password-file");
		return -1;
	}
	len = strcspn(data, "\r\n");
	*out = xstrndup(data, len);
	rai_free_secret_mem(data, len);
	return 0;
}

int
runai_git_sync_password(struct rai_ctx *ctx, const char *git_sync,
    int from_stdin, char **out)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_git_sync g;
	const char *env = getenv(PASSWORD_ENV);
	int rc = 0;

	*out = NULL;
	if (git_sync == NULL) {
		if (from_stdin)
			return rai_err_set(err, RAI_E_USAGE,
			    "--git-sync-password-stdin is for --git-sync");
		return 0;
	}
	if (rai_git_sync_parse(git_sync, &g, err) == -1)
		return -1;
	if (from_stdin && (g.password != NULL || g.password_file != NULL))
		rc = rai_err_set(err, RAI_E_USAGE, "--git-sync-password-stdin "
		    "and a password in --git-sync: give one");
	else if (from_stdin)
		rc = runai_read_secret_line(0, STDIN_TIMEOUT_MS, out, err);
	else if (g.password_file != NULL)
		rc = read_password_file(g.password_file, out, err);
	else if (g.password != NULL)
		rai_warn("a --git-sync password= is visible to other users of "
		    "this machine while runai runs; use password-file=PATH, "
		    "--git-sync-password-stdin or $" PASSWORD_ENV);
	else if (g.username != NULL && env != NULL && *env != '\0')
		*out = xstrdup(env);
	rai_git_sync_release(&g);
	return rc;
}
