/*
 * oidc: discovery, token grants, device flow and revocation against one
 * OpenID Connect issuer, plus the pure parsers they use.
 *
 * Requests go through rai_http, so -v tracing and its redaction apply;
 * form bodies carry passwords, codes and tokens and are only ever logged
 * redacted. Token endpoint calls are never repeated: a refresh token
 * rotates on use, and a repeated password or code grant is an error at
 * best. Discovery and JWKS reads may be repeated once.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json.h"
#include "core/log.h"
#include "oidc/jwt.h"
#include "oidc/oidc.h"
#include "oidc/url.h"

#include "core/banned.h"

#define OIDC_TIMEOUT_MS		15000L
#define OIDC_CONNECT_MS		5000L
#define OIDC_BODY_MAX		((size_t)1 << 20)
#define FORM_CTYPE		"application/x-www-form-urlencoded"
#define DEVICE_GRANT		"urn:ietf:params:oauth:grant-type:device_code"
#define AUTH0_REALM_GRANT	"http://auth0.com/oauth/grant-type/password-realm"

struct oidc_client {
	struct rai_http		*http;
	char			*issuer;
	char			*client_id;
	char			*client_secret;	/* secret */
	struct oidc_discovery	 disc;
	int			 discovered;
	char			*jwks;		/* cached JWKS document */
	size_t			 jwks_len;
};

/* ---- small helpers ---- */

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static int
unreserved(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

char *
oidc_form_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s), i, j = 0;
	char *out = xmalloc(3 * n + 1);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (unreserved(c))
			out[j++] = (char)c;
		else {
			out[j++] = '%';
			out[j++] = hex[c >> 4];
			out[j++] = hex[c & 15];
		}
	}
	out[j] = '\0';
	return out;
}

/* Appends "&key=value" (escaped); a NULL value adds nothing. */
static void
form_add(struct rai_buf *b, const char *key, const char *value)
{
	char *v;

	if (value == NULL)
		return;
	v = oidc_form_escape(value);
	if (b->len > 0)
		rai_buf_addch(b, '&');
	rai_buf_addf(b, "%s=%s", key, v);
	rai_free_secret(v);
}

char *
oidc_b64url_encode(const unsigned char *p, size_t n)
{
	char *out = xmalloc(4 * ((n + 2) / 3) + 1);
	size_t len, i;

	EVP_EncodeBlock((unsigned char *)out, p, (int)n);
	len = strlen(out);
	while (len > 0 && out[len - 1] == '=')
		out[--len] = '\0';
	for (i = 0; i < len; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return out;
}

char *
oidc_random_b64url(size_t n)
{
	unsigned char buf[64];
	char *s;

	if (n > sizeof(buf))
		n = sizeof(buf);
	if (RAND_bytes(buf, (int)n) != 1)
		rai_die("cannot get random bytes from OpenSSL");
	s = oidc_b64url_encode(buf, n);
	explicit_bzero(buf, sizeof(buf));
	return s;
}

char *
oidc_pkce_s256(const char *verifier)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_Digest(verifier, strlen(verifier), md, &mdlen, EVP_sha256(),
	    NULL) != 1)
		rai_die("SHA-256 failed");
	return oidc_b64url_encode(md, mdlen);
}

char *
oidc_scope(const char *extra)
{
	struct rai_buf b = RAI_BUF_INIT;
	const char *p = extra;
	size_t n;

	rai_buf_addstr(&b, OIDC_BASE_SCOPES);
	while (p != NULL && *p != '\0') {
		p += strspn(p, " ,");
		n = strcspn(p, " ,");
		if (n == 0)
			break;
		rai_buf_addf(&b, " %.*s", (int)n, p);
		p += n;
	}
	return rai_buf_detach(&b, NULL);
}

/* ---- parsers ---- */

static char *
json_strdup(const cJSON *o, const char *key)
{
	const cJSON *v = rai_json_child(o, key);

	return cJSON_IsString(v) && v->valuestring[0] != '\0' ?
	    xstrdup(v->valuestring) : NULL;
}

static long
json_long(const cJSON *o, const char *key, long def)
{
	const cJSON *v = rai_json_child(o, key);

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9)
		return (long)v->valuedouble;
	/* Some servers send numbers as strings. */
	if (cJSON_IsString(v) && v->valuestring[0] != '\0' &&
	    strspn(v->valuestring, "0123456789") == strlen(v->valuestring) &&
	    strlen(v->valuestring) < 10)
		return strtol(v->valuestring, NULL, 10);
	return def;
}

/* Printable, single-line excerpt of a server string for messages. */
static char *
clean_text(const char *s, size_t max)
{
	size_t n = strlen(s), i;
	char *out;

	if (n > max)
		n = max;
	out = xstrndup(s, n);
	for (i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
	return out;
}

/* A URL the discovery document names, and its field. */
struct endpoint {
	const char	*name;
	const char	*url;
	int		 required;
};

/*
 * Finds the first endpoint that credentials or tokens could not safely
 * go to (oidc_url_may_carry_secrets): 1 with *bad, else 0. Every URL
 * the document names is checked, used today or not, so that a later
 * use cannot forget to.
 */
static int
unsafe_endpoint(const struct oidc_discovery *d, struct endpoint *bad)
{
	const struct endpoint e[] = {
		{ "token_endpoint", d->token_endpoint, 1 },
		{ "jwks_uri", d->jwks_uri, 1 },
		{ "authorization_endpoint", d->authorization_endpoint, 0 },
		{ "device_authorization_endpoint",
		    d->device_authorization_endpoint, 0 },
		{ "revocation_endpoint", d->revocation_endpoint, 0 },
		{ "end_session_endpoint", d->end_session_endpoint, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		if (e[i].url == NULL && !e[i].required)
			continue;
		if (e[i].url == NULL || !oidc_url_may_carry_secrets(e[i].url)) {
			*bad = e[i];
			return 1;
		}
	}
	return 0;
}

void
oidc_discovery_release(struct oidc_discovery *d)
{
	free(d->issuer);
	free(d->authorization_endpoint);
	free(d->token_endpoint);
	free(d->jwks_uri);
	free(d->device_authorization_endpoint);
	free(d->revocation_endpoint);
	free(d->end_session_endpoint);
	memset(d, 0, sizeof(*d));
}

static int
lists_s256(const cJSON *doc)
{
	const cJSON *arr = rai_json_child(doc, "code_challenge_methods_supported");
	const cJSON *m;

	if (!cJSON_IsArray(arr))
		return 1;	/* not advertised: try S256 anyway */
	cJSON_ArrayForEach(m, arr)
		if (cJSON_IsString(m) && strcmp(m->valuestring, "S256") == 0)
			return 1;
	return 0;
}

int
oidc_parse_discovery(const char *body, size_t len, const char *want_issuer,
    struct oidc_discovery *out, struct rai_err *err)
{
	struct oidc_discovery d;
	cJSON *doc;
	struct endpoint bad;
	const char *iss;

	memset(&d, 0, sizeof(d));
	doc = cJSON_ParseWithLength(body != NULL ? body : "", len);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return rai_err_set(err, RAI_E_PROTO, "the discovery document of "
		    "'%s' is not a JSON object", want_issuer);
	}
	iss = rai_json_str(doc, "issuer");
	if (iss == NULL || strcmp(iss, want_issuer) != 0) {
		rai_err_set(err, RAI_E_AUTH, "issuer mismatch: the discovery "
		    "document of '%s' names issuer '%s'; refusing it",
		    want_issuer, iss != NULL ? iss : "");
		cJSON_Delete(doc);
		return -1;
	}
	d.issuer = xstrdup(iss);
	d.authorization_endpoint = json_strdup(doc, "authorization_endpoint");
	d.token_endpoint = json_strdup(doc, "token_endpoint");
	d.jwks_uri = json_strdup(doc, "jwks_uri");
	d.device_authorization_endpoint = json_strdup(doc,
	    "device_authorization_endpoint");
	d.revocation_endpoint = json_strdup(doc, "revocation_endpoint");
	d.end_session_endpoint = json_strdup(doc, "end_session_endpoint");
	d.s256 = lists_s256(doc);
	cJSON_Delete(doc);
	if (unsafe_endpoint(&d, &bad)) {
		char *shown = clean_text(bad.url != NULL ? bad.url : "", 200);

		rai_err_set(err, RAI_E_PROTO, "the discovery document of '%s' "
		    "has no usable %s ('%s'): an https URL is required, or "
		    "plain http to a loopback address such as 127.0.0.1",
		    want_issuer, bad.name, shown);
		free(shown);
		oidc_discovery_release(&d);
		return -1;
	}
	oidc_discovery_release(out);
	*out = d;
	return 0;
}

void
oidc_tokens_release(struct oidc_tokens *t)
{
	rai_free_secret(t->id_token);
	rai_free_secret(t->refresh_token);
	rai_free_secret(t->access_token);
	memset(t, 0, sizeof(*t));
}

static int
oauth_error(const cJSON *doc, long status, char **error, struct rai_err *err)
{
	const char *code = rai_json_str(doc, "error");
	const char *desc = rai_json_str(doc, "error_description");
	char *c = NULL, *d = NULL;

	if (code == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the identity provider "
		    "answered HTTP %ld without an OAuth error", status);
	c = clean_text(code, 64);
	if (desc != NULL)
		d = clean_text(desc, 200);
	rai_err_set(err, RAI_E_AUTH, "the identity provider refused: %s%s%s%s",
	    c, d ? " (" : "", d ? d : "", d ? ")" : "");
	if (error != NULL)
		*error = c;
	else
		free(c);
	free(d);
	return -1;
}

int
oidc_parse_token_response(long status, const char *body, size_t len,
    struct oidc_tokens *out, char **error, struct rai_err *err)
{
	struct oidc_tokens t;
	cJSON *doc;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	doc = cJSON_ParseWithLength(body != NULL ? body : "", len);
	if (!cJSON_IsObject(doc)) {
		rai_err_set(err, RAI_E_PROTO, "the token endpoint answered HTTP "
		    "%ld with no JSON object", status);
		goto out;
	}
	if (status < 200 || status > 299 || rai_json_child(doc, "error")) {
		oauth_error(doc, status, error, err);
		goto out;
	}
	t.id_token = json_strdup(doc, "id_token");
	t.refresh_token = json_strdup(doc, "refresh_token");
	t.access_token = json_strdup(doc, "access_token");
	t.expires_in = json_long(doc, "expires_in", 0);
	if (t.id_token == NULL) {
		rai_err_set(err, RAI_E_AUTH, "the identity provider issued no "
		    "id_token (is 'openid' among the client's scopes?)");
		oidc_tokens_release(&t);
		goto out;
	}
	oidc_tokens_release(out);
	*out = t;
	rc = 0;
out:
	rai_json_wipe(doc);
	cJSON_Delete(doc);
	return rc;
}

void
oidc_device_release(struct oidc_device *d)
{
	rai_free_secret(d->device_code);
	free(d->user_code);
	free(d->verification_uri);
	free(d->verification_uri_complete);
	memset(d, 0, sizeof(*d));
}

int
oidc_parse_device_response(const char *body, size_t len,
    struct oidc_device *out, struct rai_err *err)
{
	struct oidc_device d;
	cJSON *doc;

	memset(&d, 0, sizeof(d));
	doc = cJSON_ParseWithLength(body != NULL ? body : "", len);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return rai_err_set(err, RAI_E_PROTO, "the device authorization "
		    "answer is not a JSON object");
	}
	d.device_code = json_strdup(doc, "device_code");
	d.user_code = json_strdup(doc, "user_code");
	d.verification_uri = json_strdup(doc, "verification_uri");
	if (d.verification_uri == NULL)	/* Google's pre-RFC name */
		d.verification_uri = json_strdup(doc, "verification_url");
	d.verification_uri_complete = json_strdup(doc,
	    "verification_uri_complete");
	d.expires_in = json_long(doc, "expires_in", 600);
	d.interval = json_long(doc, "interval", OIDC_DEVICE_INTERVAL_S);
	if (d.interval < 1)
		d.interval = OIDC_DEVICE_INTERVAL_S;
	if (d.interval > 60)
		d.interval = 60;
	if (d.expires_in < 1 || d.expires_in > 3600)
		d.expires_in = 600;
	rai_json_wipe(doc);
	cJSON_Delete(doc);
	if (d.device_code == NULL || d.user_code == NULL ||
	    d.verification_uri == NULL) {
		oidc_device_release(&d);
		return rai_err_set(err, RAI_E_PROTO, "the device authorization "
		    "answer lacks device_code, user_code or verification_uri");
	}
	oidc_device_release(out);
	*out = d;
	return 0;
}

enum oidc_poll
oidc_device_decide(const char *error)
{
	if (error == NULL)
		return OIDC_POLL_DONE;
	if (strcmp(error, "authorization_pending") == 0)
		return OIDC_POLL_PENDING;
	if (strcmp(error, "slow_down") == 0)
		return OIDC_POLL_SLOW_DOWN;
	if (strcmp(error, "access_denied") == 0)
		return OIDC_POLL_DENIED;
	if (strcmp(error, "expired_token") == 0)
		return OIDC_POLL_EXPIRED;
	return OIDC_POLL_ERROR;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decodes s[0..n) ('+' is a space, as in forms). */
static char *
url_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, j = 0;
	int h, l;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    (h = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (l = hexval((unsigned char)s[i + 2])) >= 0) {
			out[j++] = (char)(h * 16 + l);
			i += 2;
		} else if (s[i] == '+')
			out[j++] = ' ';
		else
			out[j++] = s[i];
	}
	out[j] = '\0';
	return out;
}

char *
oidc_query_param(const char *query, const char *name)
{
	size_t nl = strlen(name), seg;
	const char *p = query;

	if (p == NULL)
		return NULL;
	while (*p != '\0') {
		seg = strcspn(p, "&#");
		if (seg > nl && strncmp(p, name, nl) == 0 && p[nl] == '=')
			return url_decode(p + nl + 1, seg - nl - 1);
		if (seg == nl && strncmp(p, name, nl) == 0)
			return xstrdup("");
		p += seg;
		if (*p == '#')
			break;
		if (*p == '&')
			p++;
	}
	return NULL;
}

/* The error a redirect carries, as a message; -1 always. */
static int
redirect_error(const char *query, struct rai_err *err)
{
	char *e = oidc_query_param(query, "error");
	char *d = oidc_query_param(query, "error_description");
	char *ec = clean_text(e != NULL ? e : "", 64);
	char *dc = d != NULL ? clean_text(d, 200) : NULL;

	rai_err_set(err, RAI_E_AUTH, "the identity provider refused the "
	    "login: %s%s%s%s", ec, dc ? " (" : "", dc ? dc : "", dc ? ")" : "");
	free(e);
	free(d);
	free(ec);
	free(dc);
	return -1;
}

int
oidc_parse_callback_query(const char *query, const char *want_state,
    char **code, struct rai_err *err)
{
	char *state, *c, *e;
	int ours;

	/*
	 * The state first, errors included: any local process can reach
	 * the listener, and a redirect without this login's state, be it a
	 * code or an error, must not be able to end the login.
	 */
	state = oidc_query_param(query, "state");
	ours = state != NULL && strcmp(state, want_state) == 0;
	free(state);
	if (!ours)
		return 1;
	if ((e = oidc_query_param(query, "error")) != NULL) {
		free(e);
		return redirect_error(query, err);
	}
	c = oidc_query_param(query, "code");
	if (c == NULL || *c == '\0') {
		free(c);
		return rai_err_set(err, RAI_E_AUTH, "the redirect carries no "
		    "authorization code");
	}
	*code = c;
	return 0;
}

static int
is_code_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
	    c == '/' || c == '+' || c == '=';
}

int
oidc_parse_pasted(const char *pasted, const char *want_state, char **code,
    struct rai_err *err)
{
	const char *p = pasted, *q;
	char *state, *c, *e;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' ||
	    p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (n == 0)
		return rai_err_set(err, RAI_E_USAGE, "no verification code was "
		    "entered");
	if (n > 4096)
		return rai_err_set(err, RAI_E_USAGE, "the pasted text is too "
		    "long to be a code or a redirect URL");
	if ((q = memchr(p, '?', n)) != NULL && (strncmp(p, "http://", 7) == 0 ||
	    strncmp(p, "https://", 8) == 0)) {
		char *query = xstrndup(q + 1, n - (size_t)(q + 1 - p));
		int rc;

		if ((e = oidc_query_param(query, "error")) != NULL) {
			free(e);
			rc = redirect_error(query, err);
			rai_free_secret(query);
			return rc;
		}
		state = oidc_query_param(query, "state");
		c = oidc_query_param(query, "code");
		rai_free_secret(query);
		if (state != NULL && strcmp(state, want_state) != 0) {
			free(state);
			rai_free_secret(c);
			return rai_err_set(err, RAI_E_AUTH, "state mismatch in "
			    "the pasted URL: it does not come from this login; "
			    "refused");
		}
		free(state);
		if (c == NULL || *c == '\0') {
			rai_free_secret(c);
			return rai_err_set(err, RAI_E_USAGE, "the pasted URL "
			    "carries no code");
		}
		*code = c;
		return 0;
	}
	for (q = p; q < p + n; q++)
		if (!is_code_char((unsigned char)*q))
			return rai_err_set(err, RAI_E_USAGE, "the pasted text "
			    "is neither a code nor a redirect URL");
	*code = xstrndup(p, n);
	return 0;
}

/* ---- client ---- */

int
oidc_client_new(struct oidc_client **out, const char *issuer,
    const char *client_id, const char *client_secret,
    const unsigned char *idp_ca, size_t idp_ca_len, long timeout_ms,
    struct rai_err *err)
{
	struct rai_http_opts ho;
	struct oidc_client *c;

	if (issuer == NULL || *issuer == '\0' || client_id == NULL ||
	    *client_id == '\0')
		return rai_err_set(err, RAI_E_CONFIG, "both client-id and "
		    "idp-issuer-url must be set");
	if (!oidc_url_may_carry_secrets(issuer))
		return rai_err_set(err, RAI_E_CONFIG, "idp-issuer-url '%s' is "
		    "not an https URL (plain http only to a loopback address "
		    "such as 127.0.0.1)", issuer);
	memset(&ho, 0, sizeof(ho));
	if (idp_ca != NULL && idp_ca_len > 0) {
		ho.ca = idp_ca;
		ho.ca_len = idp_ca_len;
	}
	ho.connect_timeout_ms = OIDC_CONNECT_MS;
	ho.request_timeout_ms = timeout_ms > 0 ? timeout_ms : OIDC_TIMEOUT_MS;
	ho.max_retries = 1;
	ho.max_response = OIDC_BODY_MAX;
	ho.user_agent = "runai/" RAI_VERSION;
	c = xcalloc(1, sizeof(*c));
	if (rai_http_new(&c->http, &ho, err) == -1) {
		free(c);
		return -1;
	}
	c->issuer = xstrdup(issuer);
	c->client_id = xstrdup(client_id);
	c->client_secret = dup_or_null(client_secret);
	*out = c;
	return 0;
}

void
oidc_client_free(struct oidc_client *c)
{
	if (c == NULL)
		return;
	rai_http_free(c->http);
	free(c->issuer);
	free(c->client_id);
	rai_free_secret(c->client_secret);
	oidc_discovery_release(&c->disc);
	free(c->jwks);
	free(c);
}

const struct oidc_discovery *
oidc_client_discovery(const struct oidc_client *c)
{
	return c->discovered ? &c->disc : NULL;
}

/* Transport errors name the provider, not the cluster. */
static void
provider_net_error(struct rai_err *err)
{
	if (err->kind != RAI_E_NET)
		return;
	rai_err_prefix(err, "identity provider");
	if (err->hint != NULL)
		rai_err_set_hint(err, "check idp-issuer-url and "
		    "idp-certificate-authority in the kubeconfig user's "
		    "auth-provider config");
}

static int
http_get(struct oidc_client *c, const char *url, struct rai_http_resp *resp,
    struct rai_err *err)
{
	struct rai_http_req req;

	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.url = url;
	req.accept = "application/json";
	req.flags = RAI_HTTP_IDEMPOTENT;
	if (rai_http_do(c->http, &req, resp, err) == -1) {
		provider_net_error(err);
		return -1;
	}
	return 0;
}

int
oidc_discover(struct oidc_client *c, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	size_t n = strlen(c->issuer);
	char *url;
	int rc;

	if (c->discovered)
		return 0;
	while (n > 0 && c->issuer[n - 1] == '/')
		n--;
	url = xasprintf("%.*s/.well-known/openid-configuration", (int)n,
	    c->issuer);
	rai_log(RAI_LOG_DEBUG, "OIDC discovery: %s", url);
	rc = http_get(c, url, &resp, err);
	if (rc == 0)
		rc = oidc_parse_discovery(resp.body.data, resp.body.len,
		    c->issuer, &c->disc, err);
	else if (resp.status != 0)
		rai_err_set(err, RAI_E_AUTH, "OIDC discovery at '%s' failed "
		    "with HTTP %ld", url, resp.status);
	if (rc == 0)
		c->discovered = 1;
	rai_http_resp_release(&resp);
	free(url);
	return rc;
}

/*
 * POSTs a grant's form to the token endpoint (discovering it first) and
 * parses the answer. The form and the body hold secrets and are wiped;
 * the request is never repeated.
 */
static int
token_post(struct oidc_client *c, struct rai_buf *form,
    struct oidc_tokens *out, char **error, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct rai_http_req req;
	int rc;

	if (oidc_discover(c, err) == -1) {
		rai_buf_release_secret(form);
		return -1;
	}
	form_add(form, "client_id", c->client_id);
	form_add(form, "client_secret", c->client_secret);
	memset(&req, 0, sizeof(req));
	req.method = "POST";
	req.url = c->disc.token_endpoint;
	req.accept = "application/json";
	req.content_type = FORM_CTYPE;
	req.body = rai_buf_str(form);
	req.body_len = form->len;
	req.flags = RAI_HTTP_NO_RETRY;
	rc = rai_http_do(c->http, &req, &resp, err);
	if (rc == -1 && resp.status == 0)
		provider_net_error(err);
	else
		rc = oidc_parse_token_response(resp.status, resp.body.data,
		    resp.body.len, out, error, err);
	if (resp.body.data != NULL)
		explicit_bzero(resp.body.data, resp.body.len);
	rai_http_resp_release(&resp);
	rai_buf_release_secret(form);
	return rc;
}

int
oidc_grant_password(struct oidc_client *c, const char *user,
    const char *password, const char *scope, const char *realm,
    struct oidc_tokens *out, struct rai_err *err)
{
	struct rai_buf form = RAI_BUF_INIT;
	char *error = NULL;
	int rc;

	/* Auth0 takes its realm through its own grant type. */
	form_add(&form, "grant_type", realm != NULL ? AUTH0_REALM_GRANT :
	    "password");
	form_add(&form, "realm", realm);
	form_add(&form, "username", user);
	form_add(&form, "password", password);
	form_add(&form, "scope", scope);
	rc = token_post(c, &form, out, &error, err);
	if (rc == -1 && error != NULL && (strcmp(error, "invalid_grant") == 0 ||
	    strcmp(error, "invalid_user") == 0 ||
	    strcmp(error, "access_denied") == 0))
		rai_err_set(err, RAI_E_AUTH, "invalid username or password");
	free(error);
	return rc;
}

int
oidc_grant_code(struct oidc_client *c, const char *code,
    const char *redirect_uri, const char *verifier, struct oidc_tokens *out,
    struct rai_err *err)
{
	struct rai_buf form = RAI_BUF_INIT;
	char *error = NULL;
	int rc;

	form_add(&form, "grant_type", "authorization_code");
	form_add(&form, "code", code);
	form_add(&form, "redirect_uri", redirect_uri);
	form_add(&form, "code_verifier", verifier);
	rc = token_post(c, &form, out, &error, err);
	if (rc == -1 && error != NULL && strcmp(error, "invalid_grant") == 0)
		rai_err_set(err, RAI_E_AUTH, "the authorization code was "
		    "refused (invalid_grant: wrong, used or expired code)");
	free(error);
	return rc;
}

int
oidc_grant_refresh(struct oidc_client *c, const char *refresh_token,
    struct oidc_tokens *out, struct rai_err *err)
{
	struct rai_buf form = RAI_BUF_INIT;
	char *error = NULL;
	int rc;

	form_add(&form, "grant_type", "refresh_token");
	form_add(&form, "refresh_token", refresh_token);
	rc = token_post(c, &form, out, &error, err);
	if (rc == -1 && error != NULL)
		rai_err_set(err, RAI_E_AUTH, "the login session has expired or "
		    "was revoked (%s)", error);
	free(error);
	return rc;
}

int
oidc_device_start(struct oidc_client *c, const char *scope,
    struct oidc_device *out, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct rai_buf form = RAI_BUF_INIT;
	struct rai_http_req req;
	cJSON *doc;
	int rc;

	if (oidc_discover(c, err) == -1)
		return -1;
	if (c->disc.device_authorization_endpoint == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the identity provider "
		    "'%s' offers no device flow (no "
		    "device_authorization_endpoint)", c->issuer);
	form_add(&form, "client_id", c->client_id);
	form_add(&form, "client_secret", c->client_secret);
	form_add(&form, "scope", scope);
	memset(&req, 0, sizeof(req));
	req.method = "POST";
	req.url = c->disc.device_authorization_endpoint;
	req.content_type = FORM_CTYPE;
	req.body = rai_buf_str(&form);
	req.body_len = form.len;
	req.flags = RAI_HTTP_NO_RETRY;
	rc = rai_http_do(c->http, &req, &resp, err);
	if (rc == -1 && resp.status == 0)
		provider_net_error(err);
	else if (rc == -1) {
		doc = cJSON_ParseWithLength(resp.body.data ? resp.body.data :
		    "", resp.body.len);
		oauth_error(doc, resp.status, NULL, err);
		cJSON_Delete(doc);
	} else
		rc = oidc_parse_device_response(resp.body.data, resp.body.len,
		    out, err);
	rai_http_resp_release(&resp);
	rai_buf_release_secret(&form);
	return rc;
}

enum oidc_poll
oidc_device_poll(struct oidc_client *c, const char *device_code,
    struct oidc_tokens *out, struct rai_err *err)
{
	struct rai_buf form = RAI_BUF_INIT;
	char *error = NULL;
	enum oidc_poll p;

	form_add(&form, "grant_type", DEVICE_GRANT);
	form_add(&form, "device_code", device_code);
	if (token_post(c, &form, out, &error,
	    err) == 0)
		return OIDC_POLL_DONE;
	if (error == NULL)
		return OIDC_POLL_ERROR;
	p = oidc_device_decide(error);
	if (p == OIDC_POLL_DENIED)
		rai_err_set(err, RAI_E_AUTH, "the login was denied in the "
		    "browser (access_denied)");
	else if (p == OIDC_POLL_EXPIRED)
		rai_err_set(err, RAI_E_AUTH, "the user code expired before the "
		    "login was approved (expired_token); run 'runai login' "
		    "again");
	free(error);
	return p;
}

int
oidc_revoke(struct oidc_client *c, const char *refresh_token,
    struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;
	struct rai_buf form = RAI_BUF_INIT;
	struct rai_http_req req;
	int rc;

	if (oidc_discover(c, err) == -1)
		return -1;
	if (c->disc.revocation_endpoint == NULL)
		return 0;
	form_add(&form, "token", refresh_token);
	form_add(&form, "token_type_hint", "refresh_token");
	form_add(&form, "client_id", c->client_id);
	form_add(&form, "client_secret", c->client_secret);
	memset(&req, 0, sizeof(req));
	req.method = "POST";
	req.url = c->disc.revocation_endpoint;
	req.content_type = FORM_CTYPE;
	req.body = rai_buf_str(&form);
	req.body_len = form.len;
	req.flags = RAI_HTTP_NO_RETRY;
	rc = rai_http_do(c->http, &req, &resp, err);
	if (rc == -1)
		provider_net_error(err);
	rai_http_resp_release(&resp);
	rai_buf_release_secret(&form);
	return rc;
}

char *
oidc_auth_url(const struct oidc_client *c, const char *redirect_uri,
    const char *scope, const char *state, const char *challenge,
    const char *nonce)
{
	struct rai_buf q = RAI_BUF_INIT;
	char *url;

	form_add(&q, "response_type", "code");
	form_add(&q, "client_id", c->client_id);
	form_add(&q, "redirect_uri", redirect_uri);
	form_add(&q, "scope", scope);
	form_add(&q, "state", state);
	form_add(&q, "nonce", nonce);
	form_add(&q, "code_challenge", challenge);
	if (challenge != NULL)
		form_add(&q, "code_challenge_method", "S256");
	/* Without consent some providers drop offline_access. */
	form_add(&q, "prompt", "consent");
	form_add(&q, "access_type", "offline");
	url = xasprintf("%s%c%s", c->disc.authorization_endpoint,
	    strchr(c->disc.authorization_endpoint, '?') ? '&' : '?',
	    rai_buf_str(&q));
	rai_buf_release(&q);
	return url;
}

static int
fetch_jwks(struct oidc_client *c, struct rai_err *err)
{
	struct rai_http_resp resp = RAI_HTTP_RESP_INIT;

	if (c->jwks != NULL)
		return 0;
	if (http_get(c, c->disc.jwks_uri, &resp, err) == -1) {
		rai_http_resp_release(&resp);
		return -1;
	}
	c->jwks = rai_buf_detach(&resp.body, &c->jwks_len);
	rai_http_resp_release(&resp);
	return 0;
}

int
oidc_client_verify(struct oidc_client *c, const char *id_token,
    const char *nonce, struct rai_err *err)
{
	if (oidc_discover(c, err) == -1 || fetch_jwks(c, err) == -1)
		return -1;
	return oidc_jwt_verify(id_token, c->jwks, c->jwks_len, c->issuer,
	    c->client_id, nonce, time(NULL), err);
}
