/*
 * Resolution of a context (config_resolve.c). Its API,
 * kube_config_resolve and the kube_conn, kube_exec_cfg and
 * kube_oidc_cfg copies and releases, is declared in kube/config.h; what
 * the write-back (config_write.c) shares with it is here.
 */
#ifndef KUBE_CONFIG_RESOLVE_H
#define KUBE_CONFIG_RESOLVE_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/config.h"

/* What an error names: "cluster 'c' in /h/.kube/config". */
struct kc_what {
	const char	*kind;		/* "cluster", "user", "context" */
	const char	*name;
	const char	*file;
};

/* Where the files are, for "not found in ..." messages. Caller frees. */
char	*kc_files_desc(const struct kube_config *kc);
/* A user's auth-provider map (its name must be oidc) into o. */
int	 kc_resolve_oidc(const cJSON *ap, const struct kc_what *w,
	    struct kube_oidc_cfg *o, struct rai_err *err);

#endif
