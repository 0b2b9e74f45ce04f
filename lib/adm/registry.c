/*
 * adm_registry: registry addresses, references, --map rules,
 * WWW-Authenticate, token answers and docker config credentials (see
 * adm_registry.h). Pure functions: no I/O, nothing printed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/registry.h"
#include "core/alloc.h"
#include "core/base64.h"
#include "core/err.h"
#include "core/json.h"

#include "core/banned.h"

/* ---- the --registry address ---- */

static int
host_char(int c)
{
	return isalnum(c) || c == '.' || c == '-' || c == ':' || c == '[' ||
	    c == ']' || c == '_';
}

int
adm_reg_addr_parse(const char *s, struct adm_reg_addr *out,
    struct rai_err *err)
{
	const char *slash, *p;
	char *path;
	size_t hlen, n;

	memset(out, 0, sizeof(*out));
	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--registry is empty");
	if (strstr(s, "://") != NULL) {
		rai_err_set(err, RAI_E_USAGE, "--registry '%s' has a scheme; "
		    "give HOST[:PORT][/PATH]", s);
		rai_err_set_hint(err, "use --plain-http for a registry that "
		    "speaks plain HTTP");
		return -1;
	}
	slash = strchr(s, '/');
	hlen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (hlen == 0)
		return rai_err_set(err, RAI_E_USAGE, "--registry '%s' has no "
		    "host", s);
	for (p = s; p < s + hlen; p++)
		if (!host_char((unsigned char)*p))
			return rai_err_set(err, RAI_E_USAGE, "--registry '%s': "
			    "invalid character in the host", s);
	path = xstrdup(slash != NULL ? slash + 1 : "");
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		path[--n] = '\0';
	if (n > 0 && !adm_repo_valid(path)) {
		free(path);
		return rai_err_set(err, RAI_E_USAGE, "--registry '%s': the "
		    "path must be lower-case repository components", s);
	}
	out->host = xstrndup(s, hlen);
	out->path = path;
	return 0;
}

void
adm_reg_addr_release(struct adm_reg_addr *a)
{
	free(a->host);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

/* ---- references ---- */

static int
is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One path component: [a-z0-9]+ separated by '.', '_', '__' or '-'s. */
static int
component_valid(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || !is_lower_alnum((unsigned char)s[0]) ||
	    !is_lower_alnum((unsigned char)s[n - 1]))
		return 0;
	while (i < n) {
		if (is_lower_alnum((unsigned char)s[i])) {
			i++;
			continue;
		}
		/* a separator run: ".", "_", "__" or one or more "-" */
		if (s[i] == '.' || s[i] == '_') {
			size_t j = i + 1;

			if (s[i] == '_' && j < n && s[j] == '_')
				j++;
			if (j >= n || !is_lower_alnum((unsigned char)s[j]))
				return 0;
			i = j;
		} else if (s[i] == '-') {
			while (i < n && s[i] == '-')
				i++;
			if (i >= n || !is_lower_alnum((unsigned char)s[i]))
				return 0;
		} else {
			return 0;
		}
	}
	return 1;
}

int
adm_repo_valid(const char *s)
{
	const char *p = s, *slash;

	if (s == NULL || *s == '\0' || strlen(s) >= 256)
		return 0;
	for (;;) {
		slash = strchr(p, '/');
		if (!component_valid(p, slash != NULL ? (size_t)(slash - p) :
		    strlen(p)))
			return 0;
		if (slash == NULL)
			return 1;
		p = slash + 1;
	}
}

int
adm_tag_valid(const char *s)
{
	size_t i, n;

	if (s == NULL || (n = strlen(s)) == 0 || n > 128)
		return 0;
	if (!isalnum((unsigned char)s[0]) && s[0] != '_')
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && s[i] != '-')
			return 0;
	return 1;
}

/* Splits "name[:tag][@digest]": the tag's ':' is after the last '/'. */
static void
split_ref(const char *s, char **name, char **tag, char **digest)
{
	const char *at = strchr(s, '@'), *end, *colon, *slash;

	end = at != NULL ? at : s + strlen(s);
	*digest = at != NULL ? xstrdup(at + 1) : NULL;
	slash = NULL;
	for (colon = s; colon < end; colon++)
		if (*colon == '/')
			slash = colon;
	colon = NULL;
	for (const char *p = slash != NULL ? slash : s; p < end; p++)
		if (*p == ':')
			colon = p;
	if (colon != NULL) {
		*name = xstrndup(s, (size_t)(colon - s));
		*tag = xstrndup(colon + 1, (size_t)(end - colon - 1));
	} else {
		*name = xstrndup(s, (size_t)(end - s));
		*tag = NULL;
	}
}

int
adm_ref_parse(const char *s, struct adm_ref *out, struct rai_err *err)
{
	char *name = NULL, *tag = NULL, *digest = NULL, *slash;
	char *domain, *repo;

	memset(out, 0, sizeof(*out));
	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_PROTO, "empty image reference");
	split_ref(s, &name, &tag, &digest);
	slash = strchr(name, '/');
	if (slash != NULL && (memchr(name, '.', (size_t)(slash - name)) !=
	    NULL || memchr(name, ':', (size_t)(slash - name)) != NULL ||
	    ((size_t)(slash - name) == 9 && strncmp(name, "localhost", 9) ==
	    0))) {
		domain = xstrndup(name, (size_t)(slash - name));
		repo = xstrdup(slash + 1);
	} else {
		domain = xstrdup("docker.io");
		repo = slash == NULL ? xasprintf("library/%s", name) :
		    xstrdup(name);
	}
	free(name);
	if (!adm_repo_valid(repo) || (tag != NULL && !adm_tag_valid(tag)) ||
	    (digest != NULL && strncmp(digest, "sha256:", 7) != 0)) {
		free(domain);
		free(repo);
		free(tag);
		free(digest);
		return rai_err_set(err, RAI_E_PROTO, "invalid image reference "
		    "'%s'", s);
	}
	out->domain = domain;
	out->repo = repo;
	out->tag = tag != NULL || digest != NULL ? tag : xstrdup("latest");
	out->digest = digest;
	return 0;
}

void
adm_ref_release(struct adm_ref *r)
{
	free(r->domain);
	free(r->repo);
	free(r->tag);
	free(r->digest);
	memset(r, 0, sizeof(*r));
}

/* ---- --map ---- */

int
adm_map_rule_parse(const char *s, struct adm_map_rule *out,
    struct rai_err *err)
{
	const char *arrow = s != NULL ? strstr(s, "=>") : NULL;

	memset(out, 0, sizeof(*out));
	if (arrow == NULL || arrow == s)
		return rai_err_set(err, RAI_E_USAGE, "--map '%s': expected "
		    "SRC=>DST (a source reference prefix and its replacement)",
		    s != NULL ? s : "");
	out->src = xstrndup(s, (size_t)(arrow - s));
	out->dst = xstrdup(arrow + 2);
	return 0;
}

void
adm_map_rule_release(struct adm_map_rule *r)
{
	free(r->src);
	free(r->dst);
	memset(r, 0, sizeof(*r));
}

static char *
apply_rules(const struct adm_map_rule *rules, size_t n, const char *ref,
    const char *normal)
{
	size_t i, l;

	for (i = 0; i < n; i++) {
		l = strlen(rules[i].src);
		if (strncmp(ref, rules[i].src, l) == 0)
			return xasprintf("%s%s", rules[i].dst, ref + l);
		if (strncmp(normal, rules[i].src, l) == 0)
			return xasprintf("%s%s", rules[i].dst, normal + l);
	}
	return NULL;
}

int
adm_map_target(const struct adm_map_rule *rules, size_t nrules,
    const char *reg_path, const char *ref, char **repo_out, char **tag_out,
    struct rai_err *err)
{
	struct adm_ref r;
	char *normal, *mapped, *name, *tag, *digest, *repo;
	const char *base;

	*repo_out = *tag_out = NULL;
	if (adm_ref_parse(ref, &r, err) == -1)
		return -1;
	if (r.digest != NULL && r.tag == NULL) {
		adm_ref_release(&r);
		return rai_err_set(err, RAI_E_PROTO, "reference '%s' has a "
		    "digest but no tag to push it under", ref);
	}
	normal = xasprintf("%s/%s:%s", r.domain, r.repo, r.tag);
	mapped = apply_rules(rules, nrules, ref, normal);
	if (mapped == NULL)
		mapped = xasprintf("%s:%s", r.repo, r.tag);
	adm_ref_release(&r);
	free(normal);
	split_ref(mapped, &name, &tag, &digest);
	free(digest);
	base = name;
	while (*base == '/')
		base++;
	repo = reg_path != NULL && *reg_path != '\0' ?
	    xasprintf("%s/%s", reg_path, base) : xstrdup(base);
	free(name);
	if (tag == NULL)
		tag = xstrdup("latest");
	if (!adm_repo_valid(repo) || !adm_tag_valid(tag)) {
		rai_err_set(err, RAI_E_USAGE, "'%s' maps to '%s:%s', which is "
		    "not a valid repository and tag", ref, repo, tag);
		free(repo);
		free(tag);
		free(mapped);
		return -1;
	}
	free(mapped);
	*repo_out = repo;
	*tag_out = tag;
	return 0;
}

/* ---- WWW-Authenticate (RFC 7235) ---- */

static int
tchar(int c)
{
	return isalnum(c) || (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static const char *
skip_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static char *
lower_dup(const char *s, size_t n)
{
	char *d = xstrndup(s, n);
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (char)tolower((unsigned char)d[i]);
	return d;
}

/* A quoted-string at p (after the '"'); *end after the closing quote. */
static char *
quoted(const char *p, const char **end)
{
	size_t n = 0, cap = strlen(p) + 1;
	char *v = xmalloc(cap);

	while (*p != '\0' && *p != '"') {
		if (*p == '\\' && p[1] != '\0')
			p++;
		v[n++] = *p++;
	}
	if (*p != '"') {
		free(v);
		return NULL;
	}
	v[n] = '\0';
	*end = p + 1;
	return v;
}

static void
add_param(struct adm_challenge *c, char *name, char *value)
{
	c->params = xreallocarray(c->params, c->nparams + 1,
	    sizeof(*c->params));
	c->params[c->nparams].name = name;
	c->params[c->nparams].value = value;
	c->nparams++;
}

/*
 * At p: "name=value" (an auth-param) or a token68, or the start of the
 * next challenge. Returns 1 when a param was read, 0 when p starts a new
 * challenge (a token not followed by '='), -1 on malformed input.
 */
static int
parse_param(struct adm_challenge *c, const char **pp)
{
	const char *p = *pp, *q = p, *v;
	char *name, *value;

	while (tchar((unsigned char)*q))
		q++;
	if (q == p)
		return -1;
	v = skip_ows(q);
	if (*v != '=')
		return 0;
	/* checked before any kind of parameter is added (fuzzing found a
	 * run of token68 values going past the cap) */
	if (c->nparams >= ADM_AUTH_PARAM_MAX)
		return -1;
	if (v[1] == '=' || v[1] == '\0' || v[1] == ',') {
		/* token68 ("abc==") or an empty value: keep as written */
		const char *e = v;

		while (*e == '=')
			e++;
		if (*e != '\0' && *e != ',' && *e != ' ')
			return -1;
		add_param(c, xstrdup(""), xstrndup(p, (size_t)(e - p)));
		*pp = e;
		return 1;
	}
	v = skip_ows(v + 1);
	if (*v == '"') {
		value = quoted(v + 1, &v);
		if (value == NULL)
			return -1;
	} else {
		const char *e = v;

		while (tchar((unsigned char)*e) || *e == '/')
			e++;
		if (e == v)
			return -1;
		value = xstrndup(v, (size_t)(e - v));
		v = e;
	}
	name = lower_dup(p, (size_t)(q - p));
	add_param(c, name, value);
	*pp = v;
	return 1;
}

void
adm_challenges_free(struct adm_challenge *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		free(v[i].scheme);
		for (j = 0; j < v[i].nparams; j++) {
			free(v[i].params[j].name);
			free(v[i].params[j].value);
		}
		free(v[i].params);
	}
	free(v);
}

int
adm_www_auth_parse(const char *s, struct adm_challenge **out, size_t *nout,
    struct rai_err *err)
{
	struct adm_challenge *v = NULL, *c;
	const char *p = s != NULL ? s : "", *q;
	size_t n = 0;
	int r;

	*out = NULL;
	*nout = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		for (q = p; tchar((unsigned char)*q); q++)
			;
		if (q == p || (*q != '\0' && *q != ' ' && *q != '\t' &&
		    *q != ','))
			goto bad;
		if (n >= ADM_CHALLENGE_MAX)
			goto bad;
		v = xreallocarray(v, n + 1, sizeof(*v));
		c = &v[n++];
		memset(c, 0, sizeof(*c));
		c->scheme = lower_dup(p, (size_t)(q - p));
		p = skip_ows(q);
		/* its params, comma separated, until a bare token */
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (*p == '\0')
				break;
			q = p;
			if ((r = parse_param(c, &q)) == -1)
				goto bad;
			if (r == 0)
				break;
			p = skip_ows(q);
			if (*p != '\0' && *p != ',')
				goto bad;
		}
	}
	*out = v;
	*nout = n;
	return 0;
bad:
	adm_challenges_free(v, n);
	return rai_err_set(err, RAI_E_PROTO, "malformed WWW-Authenticate "
	    "header");
}

const char *
adm_challenge_param(const struct adm_challenge *c, const char *name)
{
	size_t i;

	for (i = 0; c != NULL && i < c->nparams; i++)
		if (strcasecmp(c->params[i].name, name) == 0)
			return c->params[i].value;
	return NULL;
}

const struct adm_challenge *
adm_challenge_find(const struct adm_challenge *v, size_t n,
    const char *scheme)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(v[i].scheme, scheme) == 0)
			return &v[i];
	return NULL;
}

/* ---- token answers ---- */

/*
 * "scheme://host:port" of an absolute URL without user info, scheme
 * and host lower-cased and the scheme's port filled in; or NULL.
 */
static char *
url_origin(const char *url)
{
	CURLU *h = curl_url();
	char *scheme = NULL, *user = NULL, *host = NULL, *port = NULL;
	char *out = NULL, *p;

	if (h == NULL)
		return NULL;
	if (curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_USER, &user, 0) == CURLUE_NO_USER &&
	    curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ==
	    CURLUE_OK) {
		out = xasprintf("%s://%s:%s", scheme, host, port);
		for (p = out; *p != '\0'; p++)
			*p = (char)tolower((unsigned char)*p);
	}
	curl_free(scheme);
	curl_free(user);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(h);
	return out;
}

/* Whether two URLs (or bare "host:port" of registry_scheme) share an origin. */
static int
same_origin(const char *a, const char *b)
{
	char *oa = url_origin(a), *ob = url_origin(b);
	int same = oa != NULL && ob != NULL && strcmp(oa, ob) == 0;

	free(oa);
	free(ob);
	return same;
}

int
adm_realm_check(const char *realm, const char *host, int registry_plain_http,
    const char *allow, struct rai_err *err)
{
	char *origin = realm != NULL ? url_origin(realm) : NULL, *reg;
	int https = origin != NULL && strncmp(origin, "https://", 8) == 0;
	int http = origin != NULL && strncmp(origin, "http://", 7) == 0;
	int own;

	free(origin);
	if (!https && !http)
		return rai_err_set(err, RAI_E_PROTO, "registry '%s': Bearer "
		    "challenge without an http(s) realm", host);
	/*
	 * A downgrade: the Basic password (or the token it buys) would
	 * cross the network in clear text, to whatever origin the realm
	 * names, although the user asked for TLS.
	 */
	if (http && !registry_plain_http)
		return rai_err_set(err, RAI_E_AUTH, "registry '%s' is https but "
		    "sends its token realm to plain http ('%.200s'); refusing "
		    "to send credentials there", host, realm);
	/*
	 * Another origin gets the registry's password only when the user
	 * named it (Docker Hub's realm is auth.docker.io, say): a registry
	 * must not send the credentials it was given anywhere it likes.
	 */
	reg = xasprintf("%s://%s", registry_plain_http ? "http" : "https",
	    host);
	own = same_origin(reg, realm);
	free(reg);
	if (own || (allow != NULL && same_origin(allow, realm)))
		return 0;
	rai_err_set(err, RAI_E_AUTH, "registry '%s' sends its token realm to "
	    "another origin ('%.200s'); refusing to send credentials there",
	    host, realm);
	rai_err_set_hint(err, "if that is the registry's own token service, "
	    "name it with --allow-token-realm <url>");
	return -1;
}

int
adm_token_parse(const char *json, size_t len, char **token, long *expires_in,
    struct rai_err *err)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const char *t;
	double e;

	*token = NULL;
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return rai_err_set(err, RAI_E_PROTO, "the token endpoint did "
		    "not answer with a JSON object");
	}
	t = rai_json_str(root, "token");
	if (t == NULL || *t == '\0')
		t = rai_json_str(root, "access_token");
	if (t == NULL || *t == '\0') {
		cJSON_Delete(root);
		return rai_err_set(err, RAI_E_PROTO, "the token endpoint's "
		    "answer has no token");
	}
	e = rai_json_num(root, "expires_in", 60);
	*expires_in = e >= 1 && e <= 86400 * 366 ? (long)e : 60;
	*token = xstrdup(t);
	/* wipe the copy cJSON kept before it goes */
	{
		cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "token");

		if (!cJSON_IsString(item))
			item = cJSON_GetObjectItemCaseSensitive(root,
			    "access_token");
		if (cJSON_IsString(item))
			memset(item->valuestring, 0,
			    strlen(item->valuestring));
	}
	cJSON_Delete(root);
	return 0;
}

/* ---- docker config.json ---- */

/* base64 "user:pass" -> both; 0 ok, -1 malformed. */
static int
decode_auth(const char *b64, char **user, char **pass)
{
	size_t n = strlen(b64), len;
	unsigned char *buf;
	char *colon;

	if (n == 0 || n > 65536 || (buf = rai_base64_decode(b64, n,
	    RAI_B64_PAD_REQUIRED, &len)) == NULL)
		return -1;
	colon = memchr(buf, ':', len);
	if (colon == NULL || colon == (char *)buf || strlen((char *)buf) !=
	    len) {
		rai_free_secret_mem(buf, len);
		return -1;
	}
	*user = xstrndup((char *)buf, (size_t)(colon - (char *)buf));
	*pass = xstrdup(colon + 1);
	rai_free_secret_mem(buf, len);
	return 0;
}

/* "https://host/v1/" -> does it name host? */
static int
key_matches(const char *key, const char *host)
{
	size_t hl = strlen(host);

	if (strncmp(key, "https://", 8) == 0)
		key += 8;
	else if (strncmp(key, "http://", 7) == 0)
		key += 7;
	if (strncmp(key, host, hl) != 0)
		return 0;
	return key[hl] == '\0' || key[hl] == '/';
}

static const cJSON *
find_entry(const cJSON *auths, const char *host)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(auths, host);

	if (cJSON_IsObject(e))
		return e;
	cJSON_ArrayForEach(e, auths)
		if (e->string != NULL && cJSON_IsObject(e) &&
		    key_matches(e->string, host))
			return e;
	return NULL;
}

/* Wipes every string in the tree: the file held secrets. */
static void
wipe_strings(cJSON *j)
{
	cJSON *c;

	if (cJSON_IsString(j) && j->valuestring != NULL)
		memset(j->valuestring, 0, strlen(j->valuestring));
	for (c = j != NULL ? j->child : NULL; c != NULL; c = c->next)
		wipe_strings(c);
}

int
adm_docker_auth_lookup(const char *json, size_t len, const char *host,
    char **user, char **pass, struct rai_err *err)
{
	cJSON *root = cJSON_ParseWithLength(json, len);
	const cJSON *auths, *e;
	const char *a, *u, *pw;
	int rc = 0;

	*user = *pass = NULL;
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return rai_err_set(err, RAI_E_CONFIG, "not a JSON object");
	}
	auths = cJSON_GetObjectItemCaseSensitive(root, "auths");
	if (auths != NULL && !cJSON_IsObject(auths)) {
		rc = rai_err_set(err, RAI_E_CONFIG, "\"auths\" is not an "
		    "object");
		goto out;
	}
	if ((e = find_entry(auths, host)) == NULL)
		goto out;
	a = rai_json_str(e, "auth");
	u = rai_json_str(e, "username");
	pw = rai_json_str(e, "password");
	if (a != NULL && *a != '\0') {
		if (decode_auth(a, user, pass) == -1)
			rc = rai_err_set(err, RAI_E_CONFIG, "the \"auth\" of "
			    "'%s' is not base64 of user:password", host);
		else
			rc = 1;
	} else if (u != NULL && *u != '\0' && pw != NULL) {
		*user = xstrdup(u);
		*pass = xstrdup(pw);
		rc = 1;
	} else if (pw != NULL && *pw != '\0') {
		/* a password for nobody: say so rather than log in as "" */
		rc = rai_err_set(err, RAI_E_CONFIG, "the entry for '%s' has a "
		    "password but no user name", host);
	}
out:
	wipe_strings(root);
	cJSON_Delete(root);
	return rc;
}
