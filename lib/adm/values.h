/*
 * adm_values: what "runai-adm generate-values" checks and writes, with
 * no I/O of its own (callers read the files and pass the bytes, and the
 * time, so every rule is testable).
 *
 * Checks of command-line values fail with RAI_E_USAGE and a one-line
 * message naming the flag. The TLS check fails with RAI_E_CONFIG and a
 * message without a subject (callers prefix the file name); problems
 * that do not block an install are warnings in adm_tls_out.
 *
 * The values file comes from a template of key paths (one per chart
 * layout; the default, for the runai-backend chart 2.4 to 2.12, is built
 * in and shipped as contrib/values/runai-backend-2.x.tmpl). The syntax
 * is described in that file.
 *
 * One concern per file: values_check.c the names and addresses,
 * values_tls.c the TLS material, values.c the template and its YAML.
 */
#ifndef ADM_VALUES_H
#define ADM_VALUES_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"

/* ---- names and addresses ---- */

enum adm_name_flags {
	ADM_NAME_FQDN	= 1 << 0,	/* at least two labels */
};
/*
 * An RFC 1123 host name, lower case, no scheme, port, path, trailing dot
 * or IP literal. flag ("--domain") names the option in messages.
 */
int	 adm_check_domain(const char *flag, const char *s, unsigned flags,
	    struct rai_err *);
/* A host name (any case) or an IPv4/IPv6 literal. */
int	 adm_check_host(const char *flag, const char *s, struct rai_err *);
/*
 * A comma-separated list of IPv4/IPv6 addresses ("a, b" allowed); the
 * entries are appended to out once each, in order.
 */
int	 adm_check_ips(const char *flag, const char *list, struct rai_strv *out,
	    struct rai_err *);
/* host[:port][/path] with no scheme, as the docs give --registry. */
int	 adm_check_registry(const char *flag, const char *s, struct rai_err *);
/*
 * The private registry of an air-gapped step: `given` (--registry) when
 * set; else, when `airgapped`, $REGISTRY_URL (what install guides export
 * for these steps), checked as --registry is; else NULL. *from_env says
 * the environment gave it, so the caller can say so.
 */
int	 adm_registry_choose(const char *given, int airgapped, const char **out,
	    int *from_env, struct rai_err *);
/* Both or neither; the path absolute; the server a host name or IP. */
int	 adm_check_nfs(const char *server, const char *path, struct rai_err *);

/* ---- TLS material ---- */

enum adm_tls_problem {
	ADM_TLS_OK = 0,
	ADM_TLS_NO_CERT,	/* no PEM certificate */
	ADM_TLS_NO_KEY,		/* no usable PEM private key */
	ADM_TLS_KEY_MISMATCH,
	ADM_TLS_NOT_YET_VALID,
	ADM_TLS_EXPIRED,
	ADM_TLS_NAME,		/* the SAN does not cover the host */
	ADM_TLS_CHAIN_MISSING,	/* intermediates missing: no path to a CA */
	ADM_TLS_SELF_SIGNED,	/* a self-signed leaf nobody trusts */
	ADM_TLS_UNTRUSTED,	/* any other verification failure */
	ADM_TLS_BAD_CA,		/* no certificate in the CA bundle */
	ADM_TLS_CHAIN_ORDER,	/* a CA certificate before the leaf */
	ADM_TLS_SWAPPED,	/* a key where the certificate goes */
};

struct adm_tls_in {
	const char	*cert_pem;	/* leaf first, then its chain */
	size_t		 cert_len;
	const char	*key_pem;	/* NULL: no key to match */
	size_t		 key_len;
	const char	*ca_pem;	/* trust anchors; NULL: see system_ca */
	size_t		 ca_len;
	int		 system_ca;	/* no ca_pem: use the system store */
	const char	*host;		/* the SAN must cover it, or NULL */
	time_t		 now;
	int		 warn_days;	/* warn with fewer days left; 0 = 30 */
};

struct adm_tls_out {
	enum adm_tls_problem	 problem;	/* why the check failed */
	size_t			 ncerts;	/* certificates in cert_pem */
	int			 self_signed;
	int			 verified;	/* the chain verified */
	long			 days_left;
	char			 not_after[32];	/* "2026-01-02" */
	char			*subject;	/* the leaf's, one line */
	struct rai_strv		 warnings;
};

/*
 * Checks, in order: the certificate parses, the key parses and matches,
 * the validity period, the SAN, and the chain (against ca_pem or the
 * system store when asked; otherwise a self-signed leaf or a lone leaf
 * is only a warning). 0 when nothing blocks (warnings may be set); -1
 * with RAI_E_CONFIG and out->problem set otherwise. Release out either
 * way.
 */
int	 adm_tls_check(const struct adm_tls_in *, struct adm_tls_out *,
	    struct rai_err *);
void	 adm_tls_out_release(struct adm_tls_out *);

/* ---- the values file ---- */

struct adm_values {
	const char		*domain;
	const struct rai_strv	*external_ips;	/* may be NULL */
	const char		*tls_crt_b64;	/* base64 of the PEM file */
	const char		*tls_key_b64;	/* secret */
	const char		*nfs_server;
	const char		*nfs_path;
	int			 airgapped;
	const char		*registry;
	const char		*registry_secret;	/* the pull Secret's name */
	int			 openshift;
	const char		*first_admin;
};

/* The built-in template and the name it goes by in messages. */
extern const char adm_values_template[];
extern const char adm_values_template_name[];

/*
 * The values tree from a template (tmpl, len; name for messages) and
 * the "KEY.PATH=VALUE" overrides in sets (may be NULL). Template
 * mistakes fail with RAI_E_CONFIG naming the line; bad --set values
 * with RAI_E_USAGE.
 */
int	 adm_values_build(const char *tmpl, size_t len, const char *name,
	    const struct adm_values *, const struct rai_strv *sets,
	    cJSON **out, struct rai_err *);
/*
 * YAML of a values tree, appended to out: block style, two-space
 * indents, strings plain where no YAML reader could take them for
 * anything else and double-quoted otherwise ("" for the empty string).
 */
void	 adm_values_yaml(const cJSON *, struct rai_buf *out);
/* build + a header comment + yaml: the file generate-values writes. */
int	 adm_values_render(const char *tmpl, size_t len, const char *name,
	    const struct adm_values *, const struct rai_strv *sets,
	    struct rai_buf *out, struct rai_err *);

/* ---- shared by the files above ---- */

/* needle in the first hlen bytes of hay (memmem), or NULL. */
const char *adm_values_find_mem(const char *hay, size_t hlen,
	    const char *needle, size_t nlen);

#endif
