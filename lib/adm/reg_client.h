/*
 * adm_reg_client: what every request to one registry shares - the base
 * URL, TLS settings (--ca-file, certs.d, --insecure-skip-tls-verify),
 * credentials (flags or auth files) and the authorization state (none,
 * Basic, or a Bearer token from the registry's token endpoint, renewed
 * before it expires and after a 401). Internal to adm_push.
 */
#ifndef ADM_REG_CLIENT_H
#define ADM_REG_CLIENT_H

#include <curl/curl.h>

#include "adm/registry.h"
#include "core/buf.h"
#include "core/err.h"

enum adm_auth_scheme {
	ADM_AUTH_NONE,
	ADM_AUTH_BASIC,
	ADM_AUTH_BEARER,
};

struct adm_reg_client {
	char			*base;		/* "https://host:port" */
	char			*host;		/* "host:port" */
	char			*ca_file;	/* --ca-file or certs.d */
	char			*cert_file;	/* certs.d client.cert */
	char			*key_file;	/* certs.d client.key */
	int			 ca_from_certs_d;
	int			 insecure;
	int			 plain_http;
	char			*allow_realm;	/* --allow-token-realm */
	char			*user;		/* secret */
	char			*pass;		/* secret */
	char			*cred_source;	/* "--username", a file name */
	enum adm_auth_scheme	 scheme;
	char			*realm;
	char			*service;
	char			*scopes;	/* "&scope=...", escaped */
	char			*token;		/* secret */
	long long		 token_deadline_ms;
	unsigned		 token_gen;	/* +1 per token fetched */
	char			*user_agent;
};

/* What a response said that the engine looks at. */
struct adm_resp {
	long		 status;
	char		*location;
	char		*digest;	/* Docker-Content-Digest */
	char		*www_auth;	/* every WWW-Authenticate, joined */
	char		*range;
	int		 retry_after;	/* seconds, 0 = none */
	struct rai_buf	 body;		/* capped: error bodies, tokens */
};
void	 adm_resp_init(struct adm_resp *);
void	 adm_resp_release(struct adm_resp *);
/* Point CURLOPT_HEADERFUNCTION/WRITEFUNCTION of an easy handle at r. */
void	 adm_resp_attach(struct adm_resp *, CURL *);

/* How to reach one registry: TLS settings and credentials. */
struct adm_reg_opts {
	/* TLS */
	const char		*ca_file;
	int			 insecure;
	int			 plain_http;
	/* a token realm of another origin the user allows, or NULL */
	const char		*allow_realm;
	/*
	 * ':'-separated certs.d roots searched for HOST[:PORT]/ca.crt (and
	 * client.cert/client.key); NULL = $RUNAI_ADM_CERTS_D or
	 * /etc/docker/certs.d:/etc/containers/certs.d.
	 */
	const char		*certs_dirs;
	/* credentials (secret); NULL = from the auth files */
	const char		*username;
	const char		*password;
	/*
	 * ':'-separated auth files searched when no username is given;
	 * NULL = $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json,
	 * $DOCKER_CONFIG/config.json or ~/.docker/config.json.
	 */
	const char		*auth_files;
	const char		*user_agent;
};

int	 adm_reg_client_init(struct adm_reg_client *,
	    const struct adm_reg_opts *, const struct adm_reg_addr *,
	    struct rai_err *);
void	 adm_reg_client_release(struct adm_reg_client *);
/* TLS, user agent, timeouts, HTTP/1.1 on an easy handle. */
void	 adm_reg_client_setup(const struct adm_reg_client *, CURL *);
/*
 * GET /v2/: learns how the registry authenticates, fetches a token
 * for repos (pull,push, or pull only when push is 0), and checks the
 * credentials, so a wrong password fails here, once, clearly.
 */
int	 adm_reg_client_ping(struct adm_reg_client *, const char *const *repos,
	    size_t nrepos, int push, struct rai_err *);
/*
 * The "Authorization: ..." header line requests carry now (a token
 * about to expire is renewed first), or NULL in *line for none.
 * rai_free_secret it.
 */
int	 adm_reg_client_header(struct adm_reg_client *, char **line,
	    struct rai_err *);
/* After a 401: 0 when new credentials were fetched, -1 with err if not. */
int	 adm_reg_client_renew(struct adm_reg_client *, struct rai_err *);
/* An error for a failed transfer, with the TLS hints of this client. */
int	 adm_reg_client_curl_err(const struct adm_reg_client *, int code,
	    const char *what, const char *errbuf, struct rai_err *);

#endif
