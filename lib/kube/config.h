/*
 * kube_config: kubeconfig loading with kubectl's rules, selection of a
 * context, resolution into connection parameters, and safe write-back.
 *
 * Files: --kubeconfig if given (only that file), else each entry of
 * $KUBECONFIG (':'-separated; missing files skipped; the first file
 * that sets a map key wins), else ~/.kube/config. A missing default file
 * is an empty config, not an error.
 *
 * Write-back goes to the file that defines the thing being changed, via
 * a temp file in the same directory + fsync + rename, mode 0600, while
 * holding "<file>.lock" (created with O_EXCL and removed afterwards, the
 * protocol kubectl uses). Unknown fields survive (the whole document is
 * kept as a tree); comments do not (libyaml has no comment events).
 *
 * This header is the kubeconfig's API. Its files share their internals
 * through kube/config_int.h:
 *	config.c		loading, merging, the merged view's queries
 *	config_resolve.c	a context resolved into struct kube_conn
 *	config_write.c		write-back, a context's extensions
 */
#ifndef KUBE_CONFIG_H
#define KUBE_CONFIG_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"

struct kube_config;

struct kube_config_opts {
	const char	*kubeconfig;	/* --kubeconfig, or NULL */
	const char	*context;	/* --context, or NULL = current-context */
	const char	*cluster;	/* --cluster override, or NULL */
	const char	*user;		/* --user override, or NULL */
	const char	*namespace;	/* -n override, or NULL */
};

/* PEM (or other) bytes from a file or a *-data field; len 0 = unset. */
struct kube_blob {
	unsigned char	*data;
	size_t		 len;
};

enum kube_auth_kind {
	KUBE_AUTH_NONE = 0,
	KUBE_AUTH_TOKEN,	/* token: */
	KUBE_AUTH_TOKEN_FILE,	/* tokenFile: (re-read on each use) */
	KUBE_AUTH_BASIC,	/* username/password */
	KUBE_AUTH_EXEC,		/* exec credential plugin */
	KUBE_AUTH_OIDC,		/* auth-provider: oidc */
	KUBE_AUTH_CERT,		/* client certificate only */
};

struct kube_exec_cfg {
	char	 *api_version;	/* client.authentication.k8s.io/v1 */
	char	 *command;
	char	**args;		/* NULL-terminated, may be empty */
	char	**env;		/* "NAME=VALUE", NULL-terminated */
	char	 *install_hint;
	char	 *interactive_mode;	/* Never | IfAvailable | Always */
	int	  provide_cluster_info;
};

struct kube_oidc_cfg {
	char		*client_id;
	char		*client_secret;	/* secret */
	char		*issuer_url;
	char		*id_token;	/* secret */
	char		*refresh_token;	/* secret */
	char		*auth_flow;
	char		*realm;
	char		*redirect_uri;
	char		*additional_scope;
	int		 airgapped;
	struct kube_blob idp_ca;
};

/* Everything needed to talk to one cluster as one user. */
struct kube_conn {
	char			*context;
	char			*cluster;
	char			*user;
	char			*user_file;	/* the file that defines user */
	char			*namespace;	/* context's, else "default" */
	int			 namespace_explicit; /* set in context or -n */
	char			*server;	/* no trailing '/' */
	char			*tls_server_name;
	char			*proxy_url;
	int			 insecure;	/* insecure-skip-tls-verify */
	int			 disable_compression; /* no gzip answers */
	struct kube_blob	 ca;
	struct kube_blob	 cert;
	struct kube_blob	 key;		/* secret */
	enum kube_auth_kind	 auth;
	char			*token;		/* secret; KUBE_AUTH_TOKEN */
	char			*token_file;
	char			*username;
	char			*password;	/* secret */
	struct kube_exec_cfg	 exec;
	struct kube_oidc_cfg	 oidc;
};

/* Deep copies and releases, for holders of credentials (kube_auth). */
void	 kube_exec_cfg_copy(struct kube_exec_cfg *, const struct kube_exec_cfg *);
void	 kube_exec_cfg_release(struct kube_exec_cfg *);
void	 kube_oidc_cfg_copy(struct kube_oidc_cfg *, const struct kube_oidc_cfg *);
void	 kube_oidc_cfg_release(struct kube_oidc_cfg *);

struct kube_context_info {
	const char	*name;
	const char	*cluster;
	const char	*user;
	const char	*namespace;	/* NULL if unset */
};

int	 kube_config_load(struct kube_config **out,
	    const struct kube_config_opts *, struct rai_err *);
/* Load from memory (unit tests and fuzzing); path is used in messages. */
int	 kube_config_load_buffer(struct kube_config **out, const char *buf,
	    size_t len, const char *path, struct rai_err *);
void	 kube_config_free(struct kube_config *);

/* The files consulted, in order (for -v and messages). */
size_t	 kube_config_nfiles(const struct kube_config *);
const char *kube_config_file(const struct kube_config *, size_t i);

/* Selected context name (--context or current-context); NULL if none. */
const char *kube_config_context_name(const struct kube_config *);
const char *kube_config_current_context(const struct kube_config *);
/* Contexts of the merged view, in file order; borrowed pointers. */
size_t	 kube_config_ncontexts(const struct kube_config *);
int	 kube_config_context(const struct kube_config *, size_t i,
	    struct kube_context_info *out);
int	 kube_config_find_context(const struct kube_config *, const char *name,
	    struct kube_context_info *out);

/*
 * Resolves the selected context into conn (owned; release with
 * kube_conn_release). Errors name the file and the missing piece:
 * "context 'x' not found in /home/u/.kube/config".
 */
int	 kube_config_resolve(const struct kube_config *, struct kube_conn *,
	    struct rai_err *);
void	 kube_conn_release(struct kube_conn *);

/* Write-back; each reloads under the lock, edits, writes atomically. */
int	 kube_config_set_current_context(struct kube_config *, const char *name,
	    struct rai_err *);
int	 kube_config_set_context_namespace(struct kube_config *,
	    const char *context, const char *namespace, struct rai_err *);
/*
 * Data a program keeps beside a context, kubectl's way: the "extension"
 * of the entry called name in the context's extensions list (borrowed;
 * NULL when absent). kubectl keeps such entries when it rewrites the
 * file. Setting value (copied) replaces the entry; NULL removes it.
 */
const cJSON *kube_config_context_extension(const struct kube_config *,
	    const char *context, const char *name);
int	 kube_config_set_context_extension(struct kube_config *,
	    const char *context, const char *name, const cJSON *value,
	    struct rai_err *);
/*
 * Points context at user, whose entry gets body as its "user" map
 * (copied; the old map, credentials and all, is dropped), in one locked
 * write of the file that defines the context; the entry is added there
 * when the kubeconfig has none of that name. A user of that name
 * defined in another file is an error (it would hide the one written).
 */
int	 kube_config_set_context_user(struct kube_config *,
	    const char *context, const char *user, const cJSON *body,
	    struct rai_err *);
/* Sets (value != NULL) or removes auth-provider.config[key] of user. */
int	 kube_config_set_oidc_field(struct kube_config *, const char *user,
	    const char *key, const char *value, struct rai_err *);

/*
 * Several auth-provider.config keys of user in one locked write (login
 * stores both tokens together, so no reader sees one without the
 * other). A NULL value removes the key; the auth-provider (name: oidc)
 * and its config are created when a value is set and they are absent.
 */
struct kube_oidc_kv {
	const char	*key;
	const char	*value;
};
#define KUBE_OIDC_KV_MAX	8
int	 kube_config_set_oidc_fields(struct kube_config *, const char *user,
	    const struct kube_oidc_kv *, size_t n, struct rai_err *);
/*
 * Read-modify-write of user's auth-provider config under the file's
 * lock: the file is re-read after the lock is taken and fn gets the
 * user's OIDC settings as they are now (all NULL when the user has no
 * auth-provider); fn fills up to KUBE_OIDC_KV_MAX changes into kv (the
 * strings stay fn's, valid until this call returns) and sets *n (0 = no
 * change). The token refresh runs inside fn, so parallel processes do
 * not each spend the same rotating refresh token.
 */
typedef int kube_oidc_update_fn(void *ud, const struct kube_oidc_cfg *now,
    struct kube_oidc_kv *kv, size_t *n, struct rai_err *);
int	 kube_config_update_oidc(struct kube_config *, const char *user,
	    kube_oidc_update_fn *, void *ud, struct rai_err *);

#endif
