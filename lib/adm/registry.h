/*
 * adm_registry: the pure parts of talking to an image registry, kept
 * apart from the transfer engine (adm_push.h) so they can be
 * unit-tested and fuzzed:
 *
 *   - the --registry address (HOST[:PORT][/PATH]);
 *   - image references and the --map rules that name the target;
 *   - WWW-Authenticate challenges (RFC 7235 auth-params);
 *   - token answers of the distribution token endpoint;
 *   - credentials in a docker config.json / containers auth.json;
 *   - a deterministic gzip stream (same input, same bytes, same
 *     digest), and the compression of legacy layers ahead of a push
 *     with --compress gzip.
 */
#ifndef ADM_REGISTRY_H
#define ADM_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adm/image.h"
#include "core/err.h"

/* ---- the --registry address ---- */

struct adm_reg_addr {
	char	*host;		/* "127.0.0.1:5000", "reg.example" */
	char	*path;		/* "" or "run-ai/prod": no slashes at the ends */
};
/*
 * HOST[:PORT][/PATH]. A scheme ("https://") is refused with a hint:
 * --plain-http says how to talk, the address only where.
 */
int	 adm_reg_addr_parse(const char *, struct adm_reg_addr *,
	    struct rai_err *);
void	 adm_reg_addr_release(struct adm_reg_addr *);

/* ---- references ---- */

/* Repository path components [a-z0-9]+([._-][a-z0-9]+)* joined by '/'. */
int	 adm_repo_valid(const char *);
/* [A-Za-z0-9_][A-Za-z0-9._-]{0,127} */
int	 adm_tag_valid(const char *);

struct adm_ref {
	char	*domain;	/* "docker.io" when the reference has none */
	char	*repo;		/* "library/busybox", "run-ai/one" */
	char	*tag;		/* "latest" when it has neither tag nor digest */
	char	*digest;	/* NULL unless "@sha256:..." */
};
/*
 * Docker's normalisation: a first component without '.' or ':' (and
 * not "localhost") is a path under docker.io; a one-component path on
 * docker.io gets "library/".
 */
int	 adm_ref_parse(const char *, struct adm_ref *, struct rai_err *);
void	 adm_ref_release(struct adm_ref *);

/*
 * A --map rule "SRC=>DST": a source reference that starts with SRC (as
 * written, or in its normalised "domain/repo:tag" form) has SRC
 * replaced by DST; the result is "repo[:tag]" under the registry's
 * path. Without a matching rule the default applies: the reference's
 * repository path and tag, its domain dropped.
 */
struct adm_map_rule {
	char	*src;
	char	*dst;
};
int	 adm_map_rule_parse(const char *, struct adm_map_rule *,
	    struct rai_err *);
void	 adm_map_rule_release(struct adm_map_rule *);
/*
 * The target repository (with the registry's path in front) and tag of
 * source reference ref. Caller frees *repo and *tag.
 */
int	 adm_map_target(const struct adm_map_rule *, size_t nrules,
	    const char *reg_path, const char *ref, char **repo, char **tag,
	    struct rai_err *);

/* ---- WWW-Authenticate ---- */

#define ADM_CHALLENGE_MAX	8
#define ADM_AUTH_PARAM_MAX	16

struct adm_auth_param {
	char	*name;		/* lower-cased */
	char	*value;		/* unquoted */
};
struct adm_challenge {
	char			*scheme;	/* lower-cased: "basic", "bearer" */
	struct adm_auth_param	*params;
	size_t			 nparams;
};
/*
 * Every challenge of a header value ("Bearer realm=\"x\",scope=\"a,b\",
 * Basic realm=y"). Quoted strings may hold commas and backslash
 * escapes; a token68 after the scheme is kept as parameter "". -1 with
 * RAI_E_PROTO on malformed input. Caller frees with
 * adm_challenges_free.
 */
int	 adm_www_auth_parse(const char *, struct adm_challenge **, size_t *,
	    struct rai_err *);
void	 adm_challenges_free(struct adm_challenge *, size_t);
/* The parameter's value (name compared case-insensitively) or NULL. */
const char *adm_challenge_param(const struct adm_challenge *,
	    const char *name);
/* The first challenge with this scheme, or NULL. */
const struct adm_challenge *adm_challenge_find(const struct adm_challenge *,
	    size_t, const char *scheme);

/*
 * Whether a Bearer challenge's realm may have the token requested there
 * (with the registry's credentials, when there are any): an absolute
 * http(s) URL without user info, and https whenever the registry itself
 * is reached over https, so that a registry cannot send the password
 * in clear text. Plain http only when the registry is plain http
 * (--plain-http: the user chose it). The realm must be on the
 * registry's own origin, or on allow's (--allow-token-realm, NULL for
 * none): a registry must not send its credentials to any origin it
 * names. -1 with a one-line RAI_E_AUTH or RAI_E_PROTO error naming
 * host.
 */
int	 adm_realm_check(const char *realm, const char *host,
	    int registry_plain_http, const char *allow, struct rai_err *);

/*
 * A token endpoint's JSON answer: "token" or "access_token", and
 * "expires_in" (60 s when absent or silly). Caller frees *token with
 * rai_free_secret.
 */
int	 adm_token_parse(const char *json, size_t len, char **token,
	    long *expires_in, struct rai_err *);

/* ---- docker config.json / auth.json ---- */

/*
 * Looks host ("reg:5000") up in auths: the exact key, then with an
 * https:// or http:// in front and an optional trailing path. "auth"
 * is base64 "user:password"; "username"/"password" fields are accepted
 * too. 1 and *user, *pass set (rai_free_secret both) when found, 0
 * when the file has no entry for host, -1 with err when it is not
 * valid JSON or the entry is malformed.
 */
int	 adm_docker_auth_lookup(const char *json, size_t len,
	    const char *host, char **user, char **pass, struct rai_err *);

#endif
