/*
 * The control-plane session: the login store, the token grants, and the
 * locked renewal that mirrors kube/oidc_refresh.c (one refresh for any
 * number of commands at expiry). See cp.h for the store's place and
 * contents.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "kube/token.h"
#include "oidc/url.h"
#include "runai/backend.h"
#include "runai/cp.h"

#include "core/banned.h"

#define STORE_MAX	((size_t)256 << 10)
/* The latest expiry a stored token may name, in seconds (past 2^53 a
   double would not hold it exactly). */
#define EXPIRY_MAX	1000000000000000L
#define STORE_LOCK_WAIT_MS	10000L
/* A token this close to its expiry is renewed first (at most a fifth of
 * its life, as kube/token.c does for id-tokens). */
#define EXPIRY_SKEW	30LL
/* The client id of the password and refresh grants (not documented by
 * Run:ai; the original CLI's). */
#define CP_CLIENT_ID	"runai-cli"

struct cp {
	char		*url;
	char		*auth_url;	/* the identity provider's, or NULL */
	char		*store;		/* the login file */
	struct backend	*api;		/* authenticated */
	struct backend	*anon;		/* the token endpoint */
	cJSON		*saved;		/* the store as last read; secrets */
	char		*access;	/* the token in use; secret */
	long long	 access_exp;	/* when it expires (epoch s); -1: not known */
	long long	 access_life;	/* its lifetime in s, for the skew; -1 */
	int		 renewed;	/* a 401 was answered with a renewal */
	char		*want;		/* the cluster asked for, or NULL */
	cJSON		*chosen;	/* it, once found, else NULL */
};

static const char *const grant_names[] = {
	[CP_GRANT_PASSWORD] = "password",
	[CP_GRANT_ACCESS_KEY] = "client_credentials",
	[CP_GRANT_APPLICATION] = "app_token",
};

/* ---- the store ---- */

/* "127.0.0.1_8080" from "http://127.0.0.1:8080/": a file name. */
static char *
store_name(const char *url)
{
	const char *p = strstr(url, "://");
	char *s = xstrdup(p != NULL ? p + 3 : url), *q;

	for (q = s; *q != '\0'; q++)
		if (!isalnum((unsigned char)*q) && *q != '.' && *q != '-')
			*q = '_';
	while (q > s && q[-1] == '_')
		*--q = '\0';
	return s;
}

static char *
store_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/runai/control-plane", xdg);
	return xasprintf("%s/.config/runai/control-plane",
	    home != NULL ? home : "");
}

/* mkdir -p with mode 0700 for the directories made here. */
static int
make_dirs(const char *dir, struct rai_err *err)
{
	char *d = xstrdup(dir), *p;
	int rc = 0;

	for (p = d + 1; rc == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(d, 0700) == -1 && errno != EEXIST)
			rc = rai_err_errno(err, errno, "cannot create '%s'", d);
		*p = c;
		if (c == '\0')
			break;
	}
	free(d);
	return rc;
}

static void
saved_free(struct cp *c)
{
	if (c->saved != NULL) {
		rai_json_wipe(c->saved);
		cJSON_Delete(c->saved);
	}
	c->saved = NULL;
}

/* Reads the store into c->saved (NULL when there is none). */
static int
store_read(struct cp *c, struct rai_err *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	saved_free(c);
	if (access(c->store, F_OK) == -1)
		return 0;
	if (rai_file_read(c->store, STORE_MAX, &data, &len, err) == -1)
		return -1;
	rc = rai_json_parse(data, len, c->store, &c->saved, err);
	rai_free_secret(data);
	return rc;
}

static int
store_dir_make(struct rai_err *err)
{
	char *dir = store_dir();
	int rc = make_dirs(dir, err);

	free(dir);
	return rc;
}

static int
store_write(struct cp *c, const cJSON *doc, struct rai_err *err)
{
	char *text;
	int rc;

	if (store_dir_make(err) == -1)
		return -1;
	text = rai_json_print(doc);
	rc = rai_file_write_atomic(c->store, text, strlen(text), 0600, 0, err);
	rai_free_secret(text);
	return rc;
}

static const char *
saved_str(const struct cp *c, const char *key)
{
	return c->saved != NULL ? rai_json_str(c->saved, key) : NULL;
}

/* ---- tokens ---- */

/*
 * The token in use, with its expiry and lifetime where the token answer
 * said (-1: not said).
 */
static void
set_access(struct cp *c, const char *token, long long exp, long long life)
{
	rai_free_secret(c->access);
	c->access = token != NULL ? xstrdup(token) : NULL;
	c->access_exp = token != NULL ? exp : -1;
	c->access_life = token != NULL ? life : -1;
}

/* A login's access token (the store's), with the expiry kept beside it. */
static void
access_from(struct cp *c, const cJSON *login)
{
	/* the store is a file a person may edit: numbers clamped */
	set_access(c, rai_json_str(login, "accessToken"), rai_json_long(login,
	    "expiresAt", -1, -1, EXPIRY_MAX), rai_json_long(login, "expiresIn",
	    -1, -1, EXPIRY_MAX));
}

/*
 * Whether the token in use may still be sent at now. The access token is
 * opaque to runai (the documents say only "string"): its expiry is the
 * token answer's expiresIn, stored with it, else the exp of a JWT where
 * it is one, less a skew. An opaque token of unknown expiry is sent
 * until the server refuses it (a 401 renews it once).
 */
static int
access_fresh(const struct cp *c, time_t now)
{
	long long skew = EXPIRY_SKEW;

	if (c->access == NULL)
		return 0;
	if (c->access_exp < 0)
		return kube_jwt_exp(c->access) < 0 ||
		    kube_oidc_token_fresh(c->access, now);
	if (c->access_life > 0 && c->access_life / 5 < skew)
		skew = c->access_life / 5;
	return c->access_exp > (long long)now + skew;
}

/* POST /api/v1/token with body; *out is the TokenResponse. */
static int
token_grant(struct cp *c, const cJSON *body, cJSON **out,
    struct rai_err *err)
{
	long status = 0;

	if (backend_call(c->anon, "POST", "/api/v1/token", body, &status, out,
	    err) == -1) {
		if (err->http_status == 400 || err->http_status == 401)
			err->kind = RAI_E_AUTH;
		return -1;
	}
	if (*out == NULL || rai_json_str(*out, "accessToken") == NULL) {
		cJSON_Delete(*out);
		*out = NULL;
		return rai_err_set(err, RAI_E_PROTO, "the control plane's token "
		    "answer has no accessToken");
	}
	return 0;
}

/*
 * The token answer's expiresIn, stored as the lifetime and the time it
 * ends (from now); nothing when the answer has none that makes sense.
 */
static void
add_expiry(cJSON *doc, const cJSON *tokens, time_t now)
{
	const cJSON *in = rai_json_child(tokens, "expiresIn");

	if (!cJSON_IsNumber(in) || in->valuedouble < 1 ||
	    in->valuedouble > 1e9)
		return;
	cJSON_AddNumberToObject(doc, "expiresIn", (double)(long long)
	    in->valuedouble);
	cJSON_AddNumberToObject(doc, "expiresAt", (double)((long long)now +
	    (long long)in->valuedouble));
}

/*
 * The store's new contents: what it had (cluster, grant) plus tokens. A
 * refresh answer without a refresh token leaves the one there was (a
 * server that does not rotate them need not send it again).
 */
static cJSON *
with_tokens(const cJSON *old, const cJSON *tokens)
{
	static const char *const keys[] = { "accessToken", "idToken",
	    "refreshToken", NULL };
	cJSON *doc = old != NULL ? cJSON_Duplicate(old, 1) :
	    cJSON_CreateObject();
	const char *v;
	size_t i;

	cJSON_DeleteItemFromObjectCaseSensitive(doc, "expiresIn");
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "expiresAt");
	for (i = 0; keys[i] != NULL; i++) {
		v = rai_json_str(tokens, keys[i]);
		if (v == NULL && strcmp(keys[i], "refreshToken") == 0)
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(doc, keys[i]);
		if (v != NULL)
			cJSON_AddStringToObject(doc, keys[i], v);
	}
	add_expiry(doc, tokens, time(NULL));
	return doc;
}

/*
 * Under the store's lock: the store is read again; a token another
 * process wrote since we read ours, still fresh, is used as it is;
 * otherwise the refresh token is spent and the new tokens written.
 */
static int
renew_locked(struct cp *c, const char *had, struct rai_err *err)
{
	const char *now, *rt;
	cJSON *body, *tokens = NULL, *doc;
	int rc = -1;

	if (store_read(c, err) == -1)
		return -1;
	if (c->saved == NULL)
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", c->url);
	now = saved_str(c, "accessToken");
	if (now != NULL && (had == NULL || strcmp(now, had) != 0)) {
		access_from(c, c->saved);
		if (access_fresh(c, time(NULL))) {
			rai_log(RAI_LOG_DEBUG, "another process already renewed "
			    "the control-plane token; using it");
			return 0;
		}
	}
	if ((rt = saved_str(c, "refreshToken")) == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the control-plane token "
		    "has expired and there is no refresh token; run 'runai "
		    "login'");
	body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "grantType", "refresh_token");
	cJSON_AddStringToObject(body, "clientID", rai_json_str_or(c->saved,
	    "clientID", CP_CLIENT_ID));
	cJSON_AddStringToObject(body, "refreshToken", rt);
	rai_log(RAI_LOG_DEBUG, "renewing the control-plane token at %s",
	    c->url);
	if (token_grant(c, body, &tokens, err) == -1) {
		if (err->kind == RAI_E_AUTH)
			rai_err_prefix(err, "renewing the control-plane token "
			    "(run 'runai login')");
		goto out;
	}
	doc = with_tokens(c->saved, tokens);
	rc = store_write(c, doc, err);
	if (rc == 0) {
		saved_free(c);
		c->saved = doc;
		access_from(c, c->saved);
		doc = NULL;
	}
	if (doc != NULL)
		rai_json_wipe(doc);
	cJSON_Delete(doc);
out:
	rai_json_wipe(body);
	cJSON_Delete(body);
	if (tokens != NULL) {
		rai_json_wipe(tokens);
		cJSON_Delete(tokens);
	}
	return rc;
}

static int
renew(struct cp *c, struct rai_err *err)
{
	char *lock = NULL, *had = c->access != NULL ? xstrdup(c->access) :
	    NULL;
	int rc = -1;

	if (store_dir_make(err) == 0 &&
	    rai_file_lock(c->store, "control-plane login", STORE_LOCK_WAIT_MS,
	    &lock, err) == 0) {
		rc = renew_locked(c, had, err);
		rai_file_unlock(lock);
	}
	rai_free_secret(had);
	return rc;
}

/* The bearer value for each request: the stored token while fresh. */
static int
cp_auth(void *ud, char **out, struct rai_err *err)
{
	struct cp *c = ud;

	*out = NULL;
	if (c->access == NULL) {
		if (store_read(c, err) == -1)
			return -1;
		if (saved_str(c, "accessToken") == NULL)
			return rai_err_set(err, RAI_E_AUTH, "not logged in to "
			    "the control plane %s; run 'runai login'", c->url);
		access_from(c, c->saved);
	}
	if (!access_fresh(c, time(NULL)) && renew(c, err) == -1)
		return -1;
	*out = xasprintf("Bearer %s", c->access);
	return 0;
}

int
cp_access_token(struct cp *c, char **token, struct rai_err *err)
{
	char *bearer = NULL;

	*token = NULL;
	if (cp_auth(c, &bearer, err) == -1)
		return -1;
	*token = xstrdup(bearer + strlen("Bearer "));
	rai_free_secret(bearer);
	return 0;
}

/* After a 401: renew once (the token may have been revoked early). */
static int
cp_renew(void *ud)
{
	struct cp *c = ud;
	struct rai_err err = RAI_ERR_INIT;
	int ok;

	if (c->renewed)
		return 0;
	c->renewed = 1;
	ok = renew(c, &err) == 0;
	rai_err_release(&err);
	return ok;
}

/* ---- the session ---- */

int
cp_open(struct cp **out, const struct cp_opts *o, struct rai_err *err)
{
	struct backend_opts bo;
	struct cp *c;
	char *dir, *name;

	if (o->url == NULL || oidc_url_kind(o->url) == OIDC_URL_BAD)
		return rai_err_set(err, RAI_E_CONFIG, "control-plane URL '%s' "
		    "is not an http:// or https:// URL",
		    o->url != NULL ? o->url : "");
	/* passwords and tokens go over https, or plain http to loopback */
	if (!oidc_url_may_carry_secrets(o->url)) {
		rai_err_set(err, RAI_E_CONFIG, "control-plane URL '%s' is plain "
		    "http to a host that is not a loopback address", o->url);
		rai_err_set_hint(err, "use https://");
		return -1;
	}
	c = xcalloc(1, sizeof(*c));
	memset(&bo, 0, sizeof(bo));
	bo.url = o->url;
	bo.request_timeout_ms = o->request_timeout_ms;
	bo.max_retries = -1;
	bo.user_agent = o->user_agent;
	if (backend_new(&c->anon, &bo, err) == -1)
		goto fail;
	bo.auth_fn = cp_auth;
	bo.renew_fn = cp_renew;
	bo.auth_ud = c;
	if (backend_new(&c->api, &bo, err) == -1)
		goto fail;
	c->url = xstrdup(backend_url(c->api));
	c->want = o->cluster != NULL && *o->cluster != '\0' ?
	    xstrdup(o->cluster) : NULL;
	c->auth_url = o->auth_url != NULL && *o->auth_url != '\0' ?
	    xstrdup(o->auth_url) : NULL;
	dir = store_dir();
	name = store_name(c->url);
	c->store = xasprintf("%s/%s.json", dir, name);
	free(dir);
	free(name);
	*out = c;
	return 0;
fail:
	cp_free(c);
	return -1;
}

void
cp_free(struct cp *c)
{
	if (c == NULL)
		return;
	backend_free(c->api);
	backend_free(c->anon);
	saved_free(c);
	rai_free_secret(c->access);
	cJSON_Delete(c->chosen);
	free(c->want);
	free(c->auth_url);
	free(c->url);
	free(c->store);
	free(c);
}

const char *
cp_url(const struct cp *c)
{
	return c->url;
}

const char *
cp_store_path(const struct cp *c)
{
	return c->store;
}

int
cp_call(struct cp *c, const char *method, const char *path,
    const cJSON *body, long *status, cJSON **out, struct rai_err *err)
{
	long st = 0;

	if (backend_call(c->api, method, path, body, &st, out, err) == -1)
		return -1;
	if (status != NULL)
		*status = st;
	return 0;
}

/* ---- clusters ---- */

/* The control plane's clusters as stored: [{id, name, version, domain}]. */
static int
fetch_clusters(struct cp *c, cJSON **out, struct rai_err *err)
{
	cJSON *list = NULL, *cl;
	const cJSON *it;

	*out = NULL;
	if (cp_call(c, "GET", "/api/v1/clusters", NULL, NULL, &list,
	    err) == -1)
		return -1;
	*out = cJSON_CreateArray();
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsArray(list) || rai_json_str(it, "uuid") == NULL)
			continue;
		cl = cJSON_CreateObject();
		cJSON_AddStringToObject(cl, "id", rai_json_str(it, "uuid"));
		cJSON_AddStringToObject(cl, "name", rai_json_str_or(it, "name",
		    ""));
		cJSON_AddStringToObject(cl, "version", rai_json_str_or(it,
		    "version", ""));
		cJSON_AddStringToObject(cl, "domain", rai_json_str_or(it,
		    "domain", ""));
		cJSON_AddItemToArray(*out, cl);
	}
	cJSON_Delete(list);
	if (cJSON_GetArraySize(*out) > 0)
		return 0;
	cJSON_Delete(*out);
	*out = NULL;
	return rai_err_set(err, RAI_E_PROTO, "the control plane %s serves no "
	    "cluster", c->url);
}

static char *
names_of(const cJSON *list)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *it;

	cJSON_ArrayForEach(it, list) {
		if (b.len > 0)
			rai_buf_addstr(&b, ", ");
		rai_buf_addstr(&b, rai_json_str_or(it, "name", ""));
	}
	return rai_buf_detach(&b, NULL);
}

/*
 * The cluster of list called want (by name, or its id), or with want
 * NULL the only one: *hit borrowed from list, NULL when want is NULL
 * and there are several. Errors name what there is.
 */
static int
pick_cluster(const cJSON *list, const char *want, const cJSON **hit,
    struct rai_err *err)
{
	const cJSON *it;
	char *names;
	int n = 0;

	*hit = NULL;
	if (want == NULL) {
		if (cJSON_GetArraySize(list) == 1)
			*hit = cJSON_GetArrayItem(list, 0);
		return 0;
	}
	cJSON_ArrayForEach(it, list)
		if (strcmp(rai_json_str_or(it, "name", ""), want) == 0 ||
		    strcmp(rai_json_str_or(it, "id", ""), want) == 0) {
			if (n++ == 0)
				*hit = it;
		}
	if (n == 1)
		return 0;
	*hit = NULL;
	names = names_of(list);
	if (n == 0)
		rai_err_set(err, RAI_E_NOTFOUND, "the control plane has no "
		    "cluster '%s' (it has: %s)", want, names);
	else {
		rai_err_set(err, RAI_E_CONFIG, "%d clusters of the control "
		    "plane are called '%s'", n, want);
		rai_err_set_hint(err, "name it by its id instead");
	}
	free(names);
	return -1;
}

/* The clusters the control plane serves, and the one in use, stored. */
static int
probe_cluster(struct cp *c, cJSON *doc, struct rai_err *err)
{
	const cJSON *hit;
	cJSON *list;

	if (fetch_clusters(c, &list, err) == -1)
		return -1;
	if (pick_cluster(list, c->want, &hit, err) == -1) {
		cJSON_Delete(list);
		return -1;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "cluster");
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "clusters");
	if (hit != NULL)
		cJSON_AddItemToObject(doc, "cluster", cJSON_Duplicate(hit, 1));
	cJSON_AddItemToObject(doc, "clusters", list);
	return 0;
}

static cJSON *
grant_body(enum cp_grant g, const char *id, const char *secret)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "grantType", grant_names[g]);
	switch (g) {
	case CP_GRANT_PASSWORD:
		cJSON_AddStringToObject(b, "clientID", CP_CLIENT_ID);
		cJSON_AddStringToObject(b, "username", id);
		cJSON_AddStringToObject(b, "password", secret);
		break;
	case CP_GRANT_ACCESS_KEY:
		cJSON_AddStringToObject(b, "clientID", id);
		cJSON_AddStringToObject(b, "clientSecret", secret);
		break;
	case CP_GRANT_APPLICATION:
		cJSON_AddStringToObject(b, "appID", id);
		cJSON_AddStringToObject(b, "appSecret", secret);
		break;
	}
	return b;
}

/*
 * Spends body (a TokenRequest) at the token endpoint and stores the
 * tokens with the grant's name, the client id renewals send, and who
 * logged in (user; NULL when the grant does not say: whoami's answer
 * where no token is a JWT).
 */
static int
login_with(struct cp *c, cJSON *body, const char *grant,
    const char *client_id, const char *user, struct rai_err *err)
{
	cJSON *tokens = NULL, *doc = NULL;
	char *lock = NULL;
	int rc = -1;

	if (token_grant(c, body, &tokens, err) == -1) {
		if (err->kind == RAI_E_AUTH)
			rai_err_prefix(err, "login to %s failed", c->url);
		goto out;
	}
	doc = with_tokens(NULL, tokens);
	cJSON_AddStringToObject(doc, "controlPlane", c->url);
	cJSON_AddStringToObject(doc, "grant", grant);
	cJSON_AddStringToObject(doc, "clientID", client_id);
	if (user != NULL)
		cJSON_AddStringToObject(doc, "user", user);
	access_from(c, doc);
	if (probe_cluster(c, doc, err) == -1 || store_dir_make(err) == -1 ||
	    rai_file_lock(c->store, "control-plane login", STORE_LOCK_WAIT_MS,
	    &lock, err) == -1)
		goto out;
	rc = store_write(c, doc, err);
	rai_file_unlock(lock);
out:
	rai_json_wipe(body);
	cJSON_Delete(body);
	if (tokens != NULL)
		rai_json_wipe(tokens);
	cJSON_Delete(tokens);
	if (doc != NULL)
		rai_json_wipe(doc);
	cJSON_Delete(doc);
	return rc;
}

/*
 * An access key refused as a bad request: 2.18 and 2.19 have no
 * client_credentials grant (their server says a parameter is missing,
 * a mock that the grant is not one of its values), and know the same
 * key as an application.
 */
static void
access_key_hint(struct rai_err *err)
{
	if (err->http_status == 400 || err->http_status == 422)
		rai_err_set_hint(err, "control planes 2.18 and 2.19 call an "
		    "access key an application: if this is one, log in with "
		    "--application");
}

int
cp_login(struct cp *c, enum cp_grant g, const char *id, const char *secret,
    struct rai_err *err)
{
	int rc = login_with(c, grant_body(g, id, secret), grant_names[g],
	    g == CP_GRANT_PASSWORD ? CP_CLIENT_ID : id, id, err);

	if (rc == -1 && g == CP_GRANT_ACCESS_KEY)
		access_key_hint(err);
	return rc;
}

const char *
cp_cli_client_id(void)
{
	return CP_CLIENT_ID;
}

char *
cp_idp_issuer(const struct cp *c)
{
	const char *base = c->auth_url != NULL ? c->auth_url : c->url;
	size_t n = strlen(base);

	/* "https://host/" and "https://host" name the same base */
	while (n > 0 && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s/auth/realms/runai", (int)n, base);
}

int
cp_login_code(struct cp *c, const char *client_id, const char *code,
    const char *redirect_uri, struct rai_err *err)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "grantType", "exchange_token");
	cJSON_AddStringToObject(b, "clientID", client_id);
	cJSON_AddStringToObject(b, "code", code);
	cJSON_AddStringToObject(b, "redirectUri", redirect_uri);
	return login_with(c, b, "exchange_token", client_id, NULL, err);
}

int
cp_logout(struct cp *c, struct rai_err *err)
{
	if (unlink(c->store) == -1 && errno != ENOENT)
		return rai_err_errno(err, errno, "cannot remove '%s'",
		    c->store);
	saved_free(c);
	set_access(c, NULL, -1, -1);
	return 0;
}

int
cp_logged_in(struct cp *c)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc = store_read(c, &err) == 0 && saved_str(c,
	    "accessToken") != NULL;

	rai_err_release(&err);
	return rc;
}

int
cp_claims(struct cp *c, cJSON **claims, struct rai_err *err)
{
	const char *t;

	if (store_read(c, err) == -1)
		return -1;
	if ((t = saved_str(c, "accessToken")) == NULL) {
		rai_err_set(err, RAI_E_AUTH, "You are currently not logged in "
		    "to Run:AI");
		rai_err_set_hint(err, "run 'runai login'");
		return -1;
	}
	/* the token is opaque to runai; the id-token says who, where it
	 * is a JWT, else the name the login was given */
	if ((*claims = kube_jwt_claims(t)) != NULL ||
	    (*claims = kube_jwt_claims(saved_str(c, "idToken"))) != NULL)
		return 0;
	if (saved_str(c, "user") == NULL)
		return rai_err_set(err, RAI_E_AUTH, "neither stored "
		    "control-plane token says who is logged in, and the login "
		    "named no user");
	*claims = cJSON_CreateObject();
	cJSON_AddStringToObject(*claims, "sub", saved_str(c, "user"));
	return 0;
}

/* Whether cl is the cluster called (or with the id) want. */
static int
is_cluster(const cJSON *cl, const char *want)
{
	return cl != NULL && (strcmp(rai_json_str_or(cl, "name", ""),
	    want) == 0 || strcmp(rai_json_str_or(cl, "id", ""), want) == 0);
}

char *
cp_cluster_names(struct cp *c)
{
	struct rai_err err = RAI_ERR_INIT;

	if (c->saved == NULL && store_read(c, &err) == -1)
		rai_err_release(&err);
	return names_of(c->saved != NULL ? rai_json_child(c->saved,
	    "clusters") : NULL);
}

int
cp_cluster_use(struct cp *c, struct rai_err *err)
{
	const cJSON *stored, *hit;
	cJSON *fresh = NULL;
	char *names;
	int rc;

	if (!cp_logged_in(c) || c->chosen != NULL)
		return 0;
	stored = rai_json_child(c->saved, "cluster");
	if (c->want == NULL) {
		if (stored != NULL)
			return 0;
		names = cp_cluster_names(c);
		rai_err_set(err, RAI_E_CONFIG, "the control plane %s serves "
		    "several clusters (%s): choose one", c->url, names);
		rai_err_set_hint(err, "use --cluster <name>, or 'runai config "
		    "control-plane --cluster <name>'");
		free(names);
		return -1;
	}
	if (is_cluster(stored, c->want))
		return 0;
	/* among the clusters the login saw, else as they are now */
	rc = pick_cluster(rai_json_child(c->saved, "clusters"), c->want, &hit,
	    err);
	if (rc == -1 && err->kind == RAI_E_NOTFOUND) {
		rai_err_release(err);
		rc = fetch_clusters(c, &fresh, err) == -1 ? -1 :
		    pick_cluster(fresh, c->want, &hit, err);
	}
	if (rc == 0)
		c->chosen = cJSON_Duplicate(hit, 1);
	cJSON_Delete(fresh);
	return rc;
}

const char *
cp_cluster(struct cp *c, const char *key)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *cl;

	if (c->chosen != NULL)
		return rai_json_str(c->chosen, key);
	if (c->saved == NULL && store_read(c, &err) == -1) {
		rai_err_release(&err);
		return NULL;
	}
	cl = c->saved != NULL ? rai_json_child(c->saved, "cluster") : NULL;
	return cl != NULL ? rai_json_str(cl, key) : NULL;
}

int
cp_version_at_least(const char *release, int major, int minor)
{
	const char *p;
	char *end;
	long ma, mi;

	if (release == NULL)
		return 1;
	ma = strtol(release, &end, 10);
	if (end == release || *end != '.')
		return 0;
	p = end + 1;
	mi = strtol(p, &end, 10);
	if (end == p)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}
