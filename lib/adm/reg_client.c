/*
 * adm_reg_client: TLS, credentials and authorization for one registry
 * (see adm_reg_client.h). Requests made here (the /v2/ probe, the token
 * endpoint) are blocking: they happen once, or once per token renewal.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "adm/reg_client.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/http.h"
#include "core/log.h"
#include "core/time.h"

#include "core/banned.h"

#define CONNECT_TIMEOUT_MS	10000L
#define SMALL_TIMEOUT_MS	60000L
#define RESP_BODY_MAX		((size_t)1 << 20)
#define AUTH_FILE_MAX		((size_t)4 << 20)
/* Renew a token this long before it expires (requests take time). */
#define TOKEN_MARGIN_MS		10000LL

/* ---- responses ---- */

void
adm_resp_init(struct adm_resp *r)
{
	memset(r, 0, sizeof(*r));
	rai_buf_init(&r->body, RESP_BODY_MAX);
}

void
adm_resp_release(struct adm_resp *r)
{
	free(r->location);
	free(r->digest);
	free(r->www_auth);
	free(r->range);
	rai_buf_release_secret(&r->body);
	adm_resp_init(r);
}

static char *
trimmed(const char *v, size_t n)
{
	while (n > 0 && isspace((unsigned char)*v)) {
		v++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	return xstrndup(v, n);
}

static size_t
header_cb(char *buf, size_t size, size_t nmemb, void *ud)
{
	struct adm_resp *r = ud;
	size_t n = size * nmemb, nl;
	const char *colon;
	char *v;

	if (n >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
		/* a new answer (after 100 Continue): forget the old one */
		struct rai_buf keep = r->body;

		free(r->location);
		free(r->digest);
		free(r->www_auth);
		free(r->range);
		memset(r, 0, sizeof(*r));
		r->body = keep;
		rai_buf_reset(&r->body);
		return n;
	}
	if ((colon = memchr(buf, ':', n)) == NULL)
		return n;
	nl = (size_t)(colon - buf);
	v = trimmed(colon + 1, n - nl - 1);
	if (nl == 8 && strncasecmp(buf, "location", 8) == 0) {
		free(r->location);
		r->location = v;
	} else if (nl == 21 && strncasecmp(buf, "docker-content-digest",
	    21) == 0) {
		free(r->digest);
		r->digest = v;
	} else if (nl == 16 && strncasecmp(buf, "www-authenticate", 16) ==
	    0) {
		char *j = r->www_auth == NULL ? v : xasprintf("%s, %s",
		    r->www_auth, v);

		if (j != v) {
			free(r->www_auth);
			free(v);
		}
		r->www_auth = j;
	} else if (nl == 5 && strncasecmp(buf, "range", 5) == 0) {
		free(r->range);
		r->range = v;
	} else if (nl == 11 && strncasecmp(buf, "retry-after", 11) == 0) {
		r->retry_after = rai_http_parse_retry_after(v, time(NULL));
		free(v);
	} else {
		free(v);
	}
	return n;
}

static size_t
body_cb(char *buf, size_t size, size_t nmemb, void *ud)
{
	struct adm_resp *r = ud;
	size_t n = size * nmemb;

	/* past the cap the rest is dropped: bodies only feed messages */
	(void)rai_buf_add(&r->body, buf, n);
	return n;
}

void
adm_resp_attach(struct adm_resp *r, CURL *c)
{
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
}

/* ---- setup ---- */

static int
file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* certs.d/HOST[:PORT]/{ca.crt,client.cert,client.key} */
static void
load_certs_d(struct adm_reg_client *c, const char *dirs)
{
	char *list = xstrdup(dirs), *p = list, *next, *d;

	for (; p != NULL && c->ca_file == NULL; p = next) {
		next = strchr(p, ':');
		if (next != NULL)
			*next++ = '\0';
		if (*p == '\0')
			continue;
		d = xasprintf("%s/%s", p, c->host);
		{
			char *ca = xasprintf("%s/ca.crt", d);
			char *cert = xasprintf("%s/client.cert", d);
			char *key = xasprintf("%s/client.key", d);

			if (file_exists(ca)) {
				c->ca_file = ca;
				c->ca_from_certs_d = 1;
				ca = NULL;
			}
			if (file_exists(cert) && file_exists(key)) {
				c->cert_file = cert;
				c->key_file = key;
				cert = key = NULL;
			}
			free(ca);
			free(cert);
			free(key);
		}
		free(d);
	}
	free(list);
}

static char *
default_auth_files(void)
{
	const char *e = getenv("REGISTRY_AUTH_FILE"), *home = getenv("HOME");
	const char *xdg = getenv("XDG_RUNTIME_DIR"), *dc = getenv(
	    "DOCKER_CONFIG");
	struct rai_buf b = RAI_BUF_INIT;

	if (e != NULL && *e != '\0')
		return xstrdup(e);
	if (xdg != NULL && *xdg != '\0')
		rai_buf_addf(&b, "%s/containers/auth.json:", xdg);
	if (dc != NULL && *dc != '\0')
		rai_buf_addf(&b, "%s/config.json:", dc);
	else if (home != NULL && *home != '\0')
		rai_buf_addf(&b, "%s/.docker/config.json:", home);
	return rai_buf_detach(&b, NULL);
}

/* The first auth file with an entry for the host; 0 also when none. */
static int
load_auth_files(struct adm_reg_client *c, const char *files,
    struct rai_err *err)
{
	char *list = xstrdup(files), *p, *next, *data;
	size_t len;
	int rc = 0, r;

	for (p = list; p != NULL && rc == 0; p = next) {
		next = strchr(p, ':');
		if (next != NULL)
			*next++ = '\0';
		if (*p == '\0' || access(p, F_OK) != 0)
			continue;
		if (rai_file_read(p, AUTH_FILE_MAX, &data, &len, err) == -1) {
			rai_err_prefix(err, "reading credentials");
			rc = -1;
			break;
		}
		r = adm_docker_auth_lookup(data, len, c->host, &c->user,
		    &c->pass, err);
		rai_free_secret_mem(data, len + 1);
		if (r == -1) {
			rai_err_prefix(err, "'%s'", p);
			rc = -1;
		} else if (r == 1) {
			c->cred_source = xstrdup(p);
			rc = 1;
		}
	}
	free(list);
	return rc < 0 ? -1 : 0;
}

int
adm_reg_client_init(struct adm_reg_client *c, const struct adm_reg_opts *o,
    const struct adm_reg_addr *addr, struct rai_err *err)
{
	const char *dirs = o->certs_dirs;
	char *files;
	int rc;

	memset(c, 0, sizeof(*c));
	c->host = xstrdup(addr->host);
	c->plain_http = o->plain_http;
	if (o->allow_realm != NULL)
		c->allow_realm = xstrdup(o->allow_realm);
	c->base = xasprintf("%s://%s", o->plain_http ? "http" : "https",
	    addr->host);
	c->insecure = o->insecure;
	c->user_agent = xstrdup(o->user_agent != NULL ? o->user_agent :
	    "runai-adm");
	if (o->ca_file != NULL) {
		if (!file_exists(o->ca_file))
			return rai_err_set(err, RAI_E_NOTFOUND, "--ca-file "
			    "'%s' does not exist", o->ca_file);
		c->ca_file = xstrdup(o->ca_file);
	} else if (!o->plain_http) {
		if (dirs == NULL)
			dirs = getenv("RUNAI_ADM_CERTS_D");
		if (dirs == NULL)
			dirs = "/etc/docker/certs.d:/etc/containers/certs.d";
		load_certs_d(c, dirs);
	}
	if (o->username != NULL) {
		if (o->password == NULL)
			return rai_err_set(err, RAI_E_USAGE, "--username needs "
			    "the password on standard input "
			    "(--password-stdin)");
		c->user = xstrdup(o->username);
		c->pass = xstrdup(o->password);
		c->cred_source = xstrdup("--username");
		return 0;
	}
	files = o->auth_files != NULL ? xstrdup(o->auth_files) :
	    default_auth_files();
	rc = load_auth_files(c, files, err);
	free(files);
	return rc;
}

void
adm_reg_client_release(struct adm_reg_client *c)
{
	free(c->base);
	free(c->host);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	rai_free_secret(c->user);
	rai_free_secret(c->pass);
	free(c->cred_source);
	free(c->realm);
	free(c->allow_realm);
	free(c->service);
	free(c->scopes);
	rai_free_secret(c->token);
	free(c->user_agent);
	memset(c, 0, sizeof(*c));
}

void
adm_reg_client_setup(const struct adm_reg_client *c, CURL *h)
{
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	/* a stalled transfer (under 1 KiB/s for 60 s) is a failure */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	/* one big stream per connection: HTTP/2 only costs here */
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->ca_file != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	if (c->cert_file != NULL) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
		curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
	}
	if (c->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
}

/* ---- errors ---- */

static int
is_tls_error(int code)
{
	return code == CURLE_PEER_FAILED_VERIFICATION ||
	    code == CURLE_SSL_CONNECT_ERROR || code == CURLE_SSL_CACERT_BADFILE ||
	    code == CURLE_SSL_CERTPROBLEM;
}

int
adm_reg_client_curl_err(const struct adm_reg_client *c, int code,
    const char *what, const char *errbuf, struct rai_err *err)
{
	const char *detail = errbuf != NULL && *errbuf != '\0' ? errbuf :
	    curl_easy_strerror((CURLcode)code);

	if (code == CURLE_PEER_FAILED_VERIFICATION) {
		rai_err_set(err, RAI_E_NET, "%s: the certificate of registry "
		    "'%s' is not trusted: %s", what, c->host, detail);
		rai_err_set_hint(err, "pass the registry's CA with --ca-file "
		    "(or put it in /etc/docker/certs.d/%s/ca.crt); "
		    "--insecure-skip-tls-verify turns checking off",
		    c->host);
	} else if (is_tls_error(code)) {
		rai_err_set(err, RAI_E_NET, "%s: TLS with registry '%s' "
		    "failed: %s (curl %d)", what, c->host, detail, code);
		rai_err_set_hint(err, "check --ca-file; for a registry that "
		    "speaks plain HTTP use --plain-http");
	} else {
		rai_err_set(err, RAI_E_NET, "%s: %s (curl %d)", what, detail,
		    code);
		/* TLS 1.3 reports a refused client certificate only here */
		if (strstr(detail, "alert bad certificate") != NULL ||
		    strstr(detail, "alert certificate required") != NULL)
			rai_err_set_hint(err, "the registry wants a client "
			    "certificate: put client.cert and client.key in "
			    "/etc/docker/certs.d/%s/", c->host);
	}
	err->curl_code = code;
	return -1;
}

/* ---- blocking requests: the probe and the token endpoint ---- */

/* GET url with an optional Authorization line; resp filled. */
static int
get(struct adm_reg_client *c, const char *url, const char *auth_line,
    struct adm_resp *resp, struct rai_err *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL;
	CURL *e = curl_easy_init();
	CURLcode code;
	long long t0 = rai_now_ms();

	if (e == NULL)
		return rai_err_set(err, RAI_E_NOMEM, "cannot start libcurl");
	adm_reg_client_setup(c, e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, SMALL_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	if (auth_line != NULL)
		h = curl_slist_append(h, auth_line);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	adm_resp_attach(resp, e);
	code = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &resp->status);
	/* the header list may hold a secret: wipe before freeing */
	if (h != NULL)
		explicit_bzero(h->data, strlen(h->data));
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	if (code != CURLE_OK) {
		/* the query may carry a token endpoint's state: leave it out */
		char *what = xasprintf("GET %.*s", (int)strcspn(url, "?"), url);

		adm_reg_client_curl_err(c, (int)code, what, errbuf, err);
		free(what);
		return -1;
	}
	rai_log(RAI_LOG_REQ, "GET %.*s %ld in %lld ms",
	    (int)strcspn(url, "?"), url, resp->status, rai_now_ms() - t0);
	return 0;
}

static char *
basic_line(const struct adm_reg_client *c)
{
	char *up = xasprintf("%s:%s", c->user, c->pass), *b64, *line;

	b64 = rai_base64_encode(up, strlen(up));
	line = xasprintf("Authorization: Basic %s", b64);
	rai_free_secret(up);
	rai_free_secret(b64);
	return line;
}

static int
fetch_token(struct adm_reg_client *c, struct rai_err *err)
{
	struct adm_resp r;
	char *url, *svc, *basic = NULL, *tok = NULL;
	long exp = 60;
	int rc = -1;

	svc = c->service != NULL ? curl_easy_escape(NULL, c->service, 0) :
	    NULL;
	url = xasprintf("%s%sservice=%s%s", c->realm,
	    strchr(c->realm, '?') != NULL ? "&" : "?", svc != NULL ? svc : "",
	    c->scopes != NULL ? c->scopes : "");
	curl_free(svc);
	if (c->user != NULL)
		basic = basic_line(c);
	adm_resp_init(&r);
	if (get(c, url, basic, &r, err) == -1) {
		rai_err_prefix(err, "token endpoint");
		goto out;
	}
	if (r.status == 401 || r.status == 403) {
		rai_err_set(err, RAI_E_AUTH, "the token endpoint of registry "
		    "'%s' refused %s (HTTP %ld)", c->host, c->user != NULL ?
		    "the credentials" : "an anonymous request", r.status);
		if (c->user != NULL)
			rai_err_set_hint(err, "user '%s' from %s: check the "
			    "password", c->user, c->cred_source);
		else
			rai_err_set_hint(err, "pass --username and "
			    "--password-stdin, or add '%s' to "
			    "~/.docker/config.json", c->host);
		goto out;
	}
	if (r.status != 200) {
		rai_err_set(err, RAI_E_AUTH, "the token endpoint of registry "
		    "'%s' answered HTTP %ld", c->host, r.status);
		goto out;
	}
	if (adm_token_parse(r.body.data != NULL ? r.body.data : "",
	    r.body.len, &tok, &exp, err) == -1)
		goto out;
	rai_free_secret(c->token);
	c->token = tok;
	c->token_gen++;
	c->token_deadline_ms = rai_now_ms() + exp * 1000LL - TOKEN_MARGIN_MS;
	rai_log(RAI_LOG_DEBUG, "registry token for '%s', valid %ld s",
	    c->host, exp);
	rc = 0;
out:
	rai_free_secret(basic);
	free(url);
	adm_resp_release(&r);
	return rc;
}

static void
set_scopes(struct adm_reg_client *c, const char *const *repos, size_t n,
    int push)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		char *s = xasprintf("repository:%s:%s", repos[i], push ?
		    "pull,push" : "pull");
		char *e = curl_easy_escape(NULL, s, 0);

		rai_buf_addf(&b, "&scope=%s", e);
		curl_free(e);
		free(s);
	}
	free(c->scopes);
	c->scopes = rai_buf_detach(&b, NULL);
}

static int
need_credentials(const struct adm_reg_client *c, const char *scheme,
    struct rai_err *err)
{
	rai_err_set(err, RAI_E_AUTH, "registry '%s' requires authentication "
	    "(%s)", c->host, scheme);
	rai_err_set_hint(err, "pass --username and --password-stdin, or add "
	    "'%s' to ~/.docker/config.json (or $REGISTRY_AUTH_FILE)",
	    c->host);
	return -1;
}

static int
use_challenge(struct adm_reg_client *c, const char *hdr, struct rai_err *err)
{
	struct adm_challenge *ch = NULL;
	const struct adm_challenge *b;
	size_t n = 0;
	int rc = -1;

	if (hdr == NULL)
		return rai_err_set(err, RAI_E_PROTO, "'%s' answered 401 "
		    "without WWW-Authenticate to GET /v2/: not a registry",
		    c->host);
	if (adm_www_auth_parse(hdr, &ch, &n, err) == -1) {
		rai_err_prefix(err, "registry '%s'", c->host);
		return -1;
	}
	if ((b = adm_challenge_find(ch, n, "bearer")) != NULL) {
		const char *realm = adm_challenge_param(b, "realm");

		if (adm_realm_check(realm, c->host, c->plain_http,
		    c->allow_realm, err) == -1)
			goto out;
		c->scheme = ADM_AUTH_BEARER;
		c->realm = xstrdup(realm);
		if (adm_challenge_param(b, "service") != NULL)
			c->service = xstrdup(adm_challenge_param(b,
			    "service"));
		rc = 0;
	} else if (adm_challenge_find(ch, n, "basic") != NULL) {
		c->scheme = ADM_AUTH_BASIC;
		rc = c->user != NULL ? 0 : need_credentials(c, "Basic", err);
	} else {
		rai_err_set(err, RAI_E_PROTO, "registry '%s' asks for an "
		    "authentication scheme other than Basic or Bearer ('%s')",
		    c->host, n > 0 ? ch[0].scheme : "");
	}
out:
	adm_challenges_free(ch, n);
	return rc;
}

int
adm_reg_client_ping(struct adm_reg_client *c, const char *const *repos,
    size_t nrepos, int push, struct rai_err *err)
{
	struct adm_resp r;
	char *url = xasprintf("%s/v2/", c->base), *line = NULL;
	int rc = -1;

	adm_resp_init(&r);
	set_scopes(c, repos, nrepos, push);
	if (get(c, url, NULL, &r, err) == -1) {
		rai_err_prefix(err, "cannot reach registry '%s'", c->host);
		goto out;
	}
	if (r.status == 200) {
		c->scheme = ADM_AUTH_NONE;
		rc = 0;
		goto out;
	}
	if (r.status == 429 || r.status >= 500) {
		/* a registry starting or overloaded: the caller may retry */
		rai_err_set(err, RAI_E_HTTP, "'%s' answered HTTP %ld to GET "
		    "/v2/", c->host, r.status);
		err->http_status = (int)r.status;
		err->retry_after = r.retry_after;
		goto out;
	}
	if (r.status != 401) {
		rai_err_set(err, RAI_E_PROTO, "'%s' answered HTTP %ld to GET "
		    "/v2/: not a registry (distribution API v2)", c->host,
		    r.status);
		goto out;
	}
	if (use_challenge(c, r.www_auth, err) == -1)
		goto out;
	if (c->scheme == ADM_AUTH_BEARER) {
		rc = fetch_token(c, err);
		goto out;
	}
	/* Basic: check the credentials now, not in the middle of a push */
	line = basic_line(c);
	adm_resp_release(&r);
	if (get(c, url, line, &r, err) == -1)
		goto out;
	if (r.status == 401) {
		rai_err_set(err, RAI_E_AUTH, "registry '%s' refused the "
		    "credentials of user '%s' (from %s)", c->host, c->user,
		    c->cred_source);
		goto out;
	}
	if (r.status != 200) {
		rai_err_set(err, RAI_E_PROTO, "'%s' answered HTTP %ld to an "
		    "authenticated GET /v2/", c->host, r.status);
		goto out;
	}
	rc = 0;
out:
	rai_free_secret(line);
	free(url);
	adm_resp_release(&r);
	return rc;
}

int
adm_reg_client_header(struct adm_reg_client *c, char **line,
    struct rai_err *err)
{
	*line = NULL;
	switch (c->scheme) {
	case ADM_AUTH_NONE:
		return 0;
	case ADM_AUTH_BASIC:
		*line = basic_line(c);
		return 0;
	case ADM_AUTH_BEARER:
		if (c->token == NULL || rai_now_ms() >= c->token_deadline_ms)
			if (fetch_token(c, err) == -1)
				return -1;
		*line = xasprintf("Authorization: Bearer %s", c->token);
		return 0;
	}
	return 0;
}

int
adm_reg_client_renew(struct adm_reg_client *c, struct rai_err *err)
{
	if (c->scheme == ADM_AUTH_BEARER)
		return fetch_token(c, err);
	if (c->scheme == ADM_AUTH_BASIC)
		return rai_err_set(err, RAI_E_AUTH, "registry '%s' refused "
		    "the credentials of user '%s'", c->host, c->user);
	return need_credentials(c, "it answered 401", err);
}
