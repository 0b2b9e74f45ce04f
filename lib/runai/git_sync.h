/*
 * submit --git-sync: the connection string and what it renders, an init
 * container (the git-sync image, one-time mode) that clones a
 * repository into an emptyDir the job's container mounts. Pure: string
 * in, objects out.
 */
#ifndef RAI_GIT_SYNC_H
#define RAI_GIT_SYNC_H

#include <cjson/cJSON.h>

#include "core/err.h"

#define RAI_GIT_SYNC_IMAGE	"k8s.gcr.io/git-sync/git-sync:v3.2.0"
#define RAI_GIT_SYNC_BRANCH	"master"
#define RAI_GIT_SYNC_TARGET	"/code"
#define RAI_GIT_SYNC_VOLUME	"code-sync"

struct rai_git_sync {
	char	*source;	/* the repository */
	char	*branch;	/* NULL when rev is given */
	char	*rev;
	char	*username;
	char	*password;
	/* a file whose first line is the password (read by the caller) */
	char	*password_file;
	char	*image;
	char	*target;	/* where the job's container sees it */
};

/*
 * "source=REPO,branch=B,rev=R,username=U,password=P,target=DIR,image=I"
 * (or password-file=PATH in place of password=): keys in any order,
 * values may be quoted; defaults filled in. Unknown keys, a missing
 * source and both password= and password-file= are usage errors.
 */
int	 rai_git_sync_parse(const char *, struct rai_git_sync *,
	    struct rai_err *);
/*
 * The same, with the password given apart from the string (NULL: none),
 * as the command read it from a file, stdin or the environment; one
 * also in the string is a usage error.
 */
int	 rai_git_sync_parse_with(const char *, const char *password,
	    struct rai_git_sync *, struct rai_err *);
void	 rai_git_sync_release(struct rai_git_sync *);

/* Whether the clone needs credentials (kept in a Secret, not in env). */
int	 rai_git_sync_has_credentials(const struct rai_git_sync *);

/*
 * The init container. Credentials are read from the Secret named
 * secret_name (keys "username" and "password"), so they appear neither
 * in the pod template nor in a -v request log.
 */
cJSON	*rai_git_sync_container(const struct rai_git_sync *,
	    const char *secret_name);

/* "source=...,password=<redacted>": the string with the password hidden. */
char	*rai_git_sync_redact(const char *);

#endif
