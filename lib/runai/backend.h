/*
 * backend: a client for the Run:ai control plane (the researcher REST
 * API: /api/v1/version, /api/v1/projects, ...), used when a backend URL
 * is configured; the Kubernetes API stays the default path. It shares
 * rai_http with kube_client, so timeouts, retries, caps, TLS and -v
 * tracing (with redaction) behave the same.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/http.h"
#include "kube/auth.h"

struct backend;

struct backend_opts {
	const char		*url;		/* NULL = $RUNAI_BACKEND_URL */
	/*
	 * Credentials: auth (borrowed, must outlive the backend; renewed
	 * once after a 401) wins over a static id_token (copied).
	 */
	struct kube_auth	*auth;
	const char		*id_token;	/* secret */
	/* Or any source of the Authorization value (control-plane mode). */
	rai_http_auth_fn	*auth_fn;
	rai_http_renew_fn	*renew_fn;
	void			*auth_ud;
	const void		*ca;		/* PEM; len 0 = system CAs */
	size_t			 ca_len;
	int			 insecure;
	const char		*proxy;
	/* Limits as in struct rai_http_opts: 0 = default or env. */
	long			 connect_timeout_ms;
	long			 request_timeout_ms;
	int			 max_retries;	/* < 0 default, 0 none */
	size_t			 max_response;
	const char		*user_agent;	/* NULL = runai/<ver> */
};

/* RAI_E_CONFIG when no URL is given or set in the environment. */
int	 backend_new(struct backend **out, const struct backend_opts *,
	    struct rai_err *);
void	 backend_free(struct backend *);
/* The base URL in use, without a trailing '/' (borrowed). */
const char *backend_url(const struct backend *);

/* GET base+path (path escaped, starting with '/'); caller cJSON_Deletes. */
int	 backend_get_json(struct backend *, const char *path, cJSON **out,
	    struct rai_err *);
/*
 * method path (escaped, with any query) with an optional JSON body. On a
 * 2xx answer *status is set and *out holds the parsed body (NULL when it
 * was empty). A non-2xx answer fails with the control plane's error
 * envelope in err: its message, the HTTP status, and one cause per
 * policy violation (complianceIssues: field and details).
 */
int	 backend_call(struct backend *, const char *method, const char *path,
	    const cJSON *body, long *status, cJSON **out, struct rai_err *);
/*
 * GET /api/v1/version: the control plane's version ("2.18.0"), from a
 * JSON {"version": ...} answer or a plain-text one. Caller frees.
 */
int	 backend_version(struct backend *, char **version, struct rai_err *);

#endif
