/*
 * The CLI v2's "key=value,word,..." flag values, pure: the one splitter
 * (known keys only, no key twice) and what each such flag of submit's
 * spec means once split - tolerations, NFS, ConfigMap, Secret and
 * emptyDir volumes, extended resources, supplemental groups. The spec
 * keeps the strings as typed; its checks and both renderers (Kubernetes
 * objects, the control plane's request) read them through these.
 */
#ifndef RAI_SUBMIT_KV_H
#define RAI_SUBMIT_KV_H

#include <stddef.h>

#include "core/err.h"
#include "core/strv.h"

#define RAI_KV_MAX	16

struct rai_kv {
	char	*buf;			/* one copy the pointers point into */
	size_t	 n;
	char	*key[RAI_KV_MAX];
	char	*value[RAI_KV_MAX];	/* NULL: a bare word ("readonly") */
};

/*
 * Splits arg at ','. keys and words (each NULL-terminated; words may be
 * NULL) are what the flag takes: "key=value" for a key, a bare word for
 * a word. flag ("--nfs") names it in the errors, which are RAI_E_USAGE.
 */
int	 rai_kv_parse(const char *flag, const char *arg,
	    const char *const *keys, const char *const *words, struct rai_kv *,
	    struct rai_err *);
/* A key's value, or NULL; whether a bare word was given. */
const char *rai_kv_get(const struct rai_kv *, const char *key);
int	 rai_kv_has(const struct rai_kv *, const char *word);
void	 rai_kv_release(struct rai_kv *);

/*
 * --toleration key=K,operator=Equal|Exists,value=V,effect=E,seconds=N.
 * effect is NoSchedule, NoExecute, PreferNoSchedule or Any (NULL: any);
 * seconds < 0 when not given. Points into kv.
 */
struct rai_toleration {
	const char	*key;		/* NULL: every key (Exists) */
	const char	*op;		/* "Equal" or "Exists" */
	const char	*value;
	const char	*effect;
	long		 seconds;
};
int	 rai_parse_toleration(const char *, struct rai_kv *,
	    struct rai_toleration *, struct rai_err *);

/* --nfs server=S,path=EXPORT,mountpath=DIR[,readwrite]: read-only unless. */
struct rai_nfs {
	const char	*server;
	const char	*path;
	const char	*mount_path;
	int		 read_only;
};
int	 rai_parse_nfs(const char *, struct rai_kv *, struct rai_nfs *,
	    struct rai_err *);

/*
 * A volume of a named object: --configmap-map-volume and --secret-volume
 * name=OBJECT,path=DIR; --empty-dir-volume name=VOLUME,path=DIR
 * [,medium=Memory][,size-limit=Q].
 */
enum rai_named_kind { RAI_VOL_CONFIGMAP, RAI_VOL_SECRET, RAI_VOL_EMPTYDIR };
struct rai_named_volume {
	const char	*name;
	const char	*path;
	const char	*medium;	/* emptyDir: NULL or "Memory" */
	const char	*size_limit;	/* emptyDir: NULL or a quantity */
};
int	 rai_parse_named_volume(enum rai_named_kind, const char *,
	    struct rai_kv *, struct rai_named_volume *, struct rai_err *);
/* The flag of a kind, for messages: "--configmap-map-volume". */
const char *rai_named_volume_flag(enum rai_named_kind);

/* --extended-resource RESOURCE=QUANTITY (or resource=R,quantity=Q). */
struct rai_extended {
	const char	*resource;
	const char	*quantity;
};
int	 rai_parse_extended(const char *, struct rai_kv *,
	    struct rai_extended *, struct rai_err *);

/*
 * A command line given as one value (--master-command "torchrun
 * train.py") as its words, split as a POSIX shell splits them: blanks
 * apart, '...' kept whole, "..." kept whole with \ quoting ", \ and $,
 * a \ outside quotes quoting the next character. No expansion. Appends
 * to out; an unclosed quote is an error naming flag.
 */
int	 rai_split_words(const char *flag, const char *s, struct rai_strv *out,
	    struct rai_err *);

/* --supplemental-groups 1,2,3: at most max ids, each 0 or more. */
int	 rai_parse_groups(const char *, long *ids, size_t max, size_t *n,
	    struct rai_err *);

#endif
