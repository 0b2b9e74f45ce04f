/*
 * Resolving a kubeconfig context into a struct kube_conn: the context,
 * its cluster and user (with the command line's overrides), TLS material
 * from files or data, tokens, exec plugins and OIDC auth-provider
 * settings, each error naming the entry and its file; and copying and
 * releasing what it made. Apart from loading (config.c), which it only
 * reads through the merged view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/log.h"
#include "kube/config.h"
#include "kube/config_int.h"
#include "kube/config_resolve.h"

#include "core/banned.h"

#define KC_BLOB_MAX	((size_t)1 << 20)	/* one certificate or key */

/* ---- resolution ---- */

/* Where the files are, for "not found in ..." messages. */
char *
kc_files_desc(const struct kube_config *kc)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (kc->nfiles == 0)
		return xasprintf("%s (no kubeconfig found)", kc->looked);
	for (i = 0; i < kc->nfiles; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", kc->files[i].path);
	return rai_buf_detach(&b, NULL);
}

static int
get_str(const cJSON *body, const char *key, const struct kc_what *w,
    const char **out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(body, key);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' of %s '%s' "
		    "must be a string", w->file, key, w->kind, w->name);
	if (v->valuestring[0] != '\0')
		*out = v->valuestring;
	return 0;
}

static int
get_bool(const cJSON *body, const char *key, const struct kc_what *w,
    int *out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(body, key);

	*out = 0;
	if (v == NULL || cJSON_IsNull(v) || cJSON_IsFalse(v))
		return 0;
	if (cJSON_IsTrue(v)) {
		*out = 1;
		return 0;
	}
	/* kubectl reads YAML 1.1, where yes/no/on/off are booleans too. */
	if (cJSON_IsString(v) && (strcasecmp(v->valuestring, "true") == 0 ||
	    strcasecmp(v->valuestring, "yes") == 0 ||
	    strcasecmp(v->valuestring, "on") == 0)) {
		*out = 1;
		return 0;
	}
	if (cJSON_IsString(v) && (strcasecmp(v->valuestring, "false") == 0 ||
	    strcasecmp(v->valuestring, "no") == 0 ||
	    strcasecmp(v->valuestring, "off") == 0))
		return 0;
	return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' of %s '%s' must be "
	    "true or false", w->file, key, w->kind, w->name);
}

/* A *-data field (base64) or a file path, relative to the defining file. */
static int
load_blob(const cJSON *body, const char *field, const struct kc_what *w,
    struct kube_blob *out, struct rai_err *err)
{
	char datakey[64];
	const char *data, *path;
	struct rai_buf b;
	char *full;
	int errnum = 0;

	snprintf(datakey, sizeof(datakey), "%s-data", field);
	if (get_str(body, datakey, w, &data, err) == -1 ||
	    get_str(body, field, w, &path, err) == -1)
		return -1;
	if (data != NULL) {
		if (path != NULL)
			rai_log(RAI_LOG_NOTE, "%s '%s' sets both %s and %s; "
			    "using %s", w->kind, w->name, field, datakey,
			    datakey);
		if (kc_b64_decode(data, out) == -1)
			return rai_err_set(err, RAI_E_CONFIG, "invalid base64 "
			    "in %s of %s '%s'", datakey, w->kind, w->name);
		return 0;
	}
	if (path == NULL)
		return 0;
	full = kc_resolve_path(w->file, path);
	if (kc_read_capped(full, KC_BLOB_MAX, &b, &errnum) == -1) {
		if (errnum == EFBIG)
			rai_err_set(err, RAI_E_CONFIG, "%s '%s' is larger than "
			    "%zu MiB", field, full, KC_BLOB_MAX >> 20);
		else {
			rai_err_errno(err, errnum, "cannot read %s '%s'", field,
			    full);
			err->kind = RAI_E_CONFIG;
		}
		free(full);
		return -1;
	}
	free(full);
	out->len = b.len;
	out->data = (unsigned char *)rai_buf_detach(&b, NULL);
	return 0;
}

static int
resolve_cluster(const struct kc_entry *e, const struct kube_config *kc,
    struct kube_conn *c, struct rai_err *err)
{
	struct kc_what w = { "cluster", e->name, kc->files[e->file].path };
	const char *server, *tsn, *proxy;
	size_t n;

	if (get_str(e->body, "server", &w, &server, err) == -1 ||
	    get_str(e->body, "tls-server-name", &w, &tsn, err) == -1 ||
	    get_str(e->body, "proxy-url", &w, &proxy, err) == -1 ||
	    get_bool(e->body, "insecure-skip-tls-verify", &w, &c->insecure,
	    err) == -1 ||
	    get_bool(e->body, "disable-compression", &w,
	    &c->disable_compression, err) == -1)
		return -1;
	if (server == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' has no "
		    "server in %s", e->name, w.file);
	c->server = xstrdup(server);
	n = strlen(c->server);
	while (n > 0 && c->server[n - 1] == '/')
		c->server[--n] = '\0';
	c->tls_server_name = kc_dup_or_null(tsn);
	c->proxy_url = kc_dup_or_null(proxy);
	return load_blob(e->body, "certificate-authority", &w, &c->ca, err);
}

/* env: [{name: N, value: V}] -> "N=V" strings. */
static int
exec_env(const cJSON *arr, const struct kc_what *w, char ***out,
    struct rai_err *err)
{
	const cJSON *item;
	const char *name, *value;
	char **v;
	size_t n = 0;

	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	*out = v;
	for (item = arr ? arr->child : NULL; item != NULL; item = item->next) {
		name = rai_json_str(item, "name");
		value = rai_json_str(item, "value");
		if (!cJSON_IsObject(item) || name == NULL || *name == '\0' ||
		    strchr(name, '=') != NULL || (value == NULL &&
		    rai_json_child(item, "value") != NULL &&
		    !cJSON_IsNull(rai_json_child(item, "value"))))
			return rai_err_set(err, RAI_E_CONFIG, "%s: exec env of "
			    "user '%s' must be a list of {name, value} strings",
			    w->file, w->name);
		v[n++] = xasprintf("%s=%s", name, value ? value : "");
	}
	return 0;
}

static int
exec_args(const cJSON *arr, const struct kc_what *w, char ***out,
    struct rai_err *err)
{
	const cJSON *item;
	char **v;
	size_t n = 0;

	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	*out = v;
	for (item = arr ? arr->child : NULL; item != NULL; item = item->next) {
		if (!cJSON_IsString(item))
			return rai_err_set(err, RAI_E_CONFIG, "%s: exec args "
			    "of user '%s' must be strings", w->file, w->name);
		v[n++] = xstrdup(item->valuestring);
	}
	return 0;
}

static int
resolve_exec(const cJSON *ex, const struct kc_what *w,
    struct kube_exec_cfg *x, struct rai_err *err)
{
	const char *api, *cmd, *hint, *mode;
	const cJSON *args = rai_json_child(ex, "args");
	const cJSON *env = rai_json_child(ex, "env");

	if (get_str(ex, "apiVersion", w, &api, err) == -1 ||
	    get_str(ex, "command", w, &cmd, err) == -1 ||
	    get_str(ex, "installHint", w, &hint, err) == -1 ||
	    get_str(ex, "interactiveMode", w, &mode, err) == -1 ||
	    get_bool(ex, "provideClusterInfo", w, &x->provide_cluster_info,
	    err) == -1)
		return -1;
	if (cmd == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec of user '%s' "
		    "has no command", w->file, w->name);
	if (api == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec of user '%s' "
		    "has no apiVersion", w->file, w->name);
	if ((args != NULL && !cJSON_IsNull(args) && !cJSON_IsArray(args)) ||
	    (env != NULL && !cJSON_IsNull(env) && !cJSON_IsArray(env)))
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec args and env "
		    "of user '%s' must be lists", w->file, w->name);
	x->api_version = xstrdup(api);
	/* A relative command with a '/' is relative to the kubeconfig. */
	x->command = strchr(cmd, '/') != NULL ? kc_resolve_path(w->file, cmd) :
	    xstrdup(cmd);
	x->install_hint = kc_dup_or_null(hint);
	x->interactive_mode = xstrdup(mode != NULL ? mode : "IfAvailable");
	if (exec_args(cJSON_IsArray(args) ? args : NULL, w, &x->args,
	    err) == -1)
		return -1;
	return exec_env(cJSON_IsArray(env) ? env : NULL, w, &x->env, err);
}

/* auth-provider config values are strings; a bare true/false is allowed. */
static int
oidc_str(const cJSON *cfg, const char *key, const struct kc_what *w,
    char **out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(cfg, key);

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsBool(v)) {
		*out = xstrdup(cJSON_IsTrue(v) ? "true" : "false");
		return 0;
	}
	if (!cJSON_IsString(v))
		return rai_err_set(err, RAI_E_CONFIG, "%s: auth-provider "
		    "config '%s' of user '%s' must be a string", w->file, key,
		    w->name);
	if (v->valuestring[0] != '\0')
		*out = xstrdup(v->valuestring);
	return 0;
}

int
kc_resolve_oidc(const cJSON *ap, const struct kc_what *w,
    struct kube_oidc_cfg *o, struct rai_err *err)
{
	const char *name;
	const cJSON *cfg;
	char *airgapped = NULL;

	if (get_str(ap, "name", w, &name, err) == -1)
		return -1;
	if (name == NULL || strcmp(name, "oidc") != 0)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' uses "
		    "auth-provider '%s', which is not supported; only 'oidc' "
		    "is", w->name, name ? name : "");
	cfg = rai_json_child(ap, "config");
	if (cfg != NULL && !cJSON_IsNull(cfg) && !cJSON_IsObject(cfg))
		return rai_err_set(err, RAI_E_CONFIG, "%s: auth-provider "
		    "config of user '%s' must be a mapping", w->file, w->name);
	if (oidc_str(cfg, "client-id", w, &o->client_id, err) == -1 ||
	    oidc_str(cfg, "client-secret", w, &o->client_secret, err) == -1 ||
	    oidc_str(cfg, "idp-issuer-url", w, &o->issuer_url, err) == -1 ||
	    oidc_str(cfg, "id-token", w, &o->id_token, err) == -1 ||
	    oidc_str(cfg, "refresh-token", w, &o->refresh_token, err) == -1 ||
	    oidc_str(cfg, "auth-flow", w, &o->auth_flow, err) == -1 ||
	    oidc_str(cfg, "realm", w, &o->realm, err) == -1 ||
	    oidc_str(cfg, "redirect-uri", w, &o->redirect_uri, err) == -1 ||
	    oidc_str(cfg, "additional-scope", w, &o->additional_scope,
	    err) == -1 ||
	    oidc_str(cfg, "airgapped", w, &airgapped, err) == -1)
		return -1;
	o->airgapped = airgapped != NULL && strcmp(airgapped, "true") == 0;
	free(airgapped);
	return load_blob(cfg, "idp-certificate-authority", w, &o->idp_ca, err);
}

static int
user_fields(const cJSON *body, const struct kc_what *w, struct kube_conn *c,
    struct rai_err *err)
{
	const char *token, *tfile, *username, *password;

	if (get_str(body, "token", w, &token, err) == -1 ||
	    get_str(body, "tokenFile", w, &tfile, err) == -1 ||
	    get_str(body, "username", w, &username, err) == -1 ||
	    get_str(body, "password", w, &password, err) == -1)
		return -1;
	c->token = kc_dup_or_null(token);
	c->token_file = tfile != NULL ? kc_resolve_path(w->file, tfile) : NULL;
	c->username = kc_dup_or_null(username);
	c->password = kc_dup_or_null(password);
	if (load_blob(body, "client-certificate", w, &c->cert, err) == -1 ||
	    load_blob(body, "client-key", w, &c->key, err) == -1)
		return -1;
	if ((c->cert.len > 0) != (c->key.len > 0))
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' has a %s but "
		    "no %s", w->name, c->cert.len ? "client-certificate" :
		    "client-key", c->cert.len ? "client-key" :
		    "client-certificate");
	return 0;
}

/* client-go's order: bearer token, basic, then exec / auth-provider. */
static int
resolve_user(const struct kc_entry *e, const struct kube_config *kc,
    struct kube_conn *c, struct rai_err *err)
{
	struct kc_what w = { "user", e->name, kc->files[e->file].path };
	const cJSON *ex = rai_json_child(e->body, "exec");
	const cJSON *ap = rai_json_child(e->body, "auth-provider");

	if ((ex != NULL && !cJSON_IsNull(ex) && !cJSON_IsObject(ex)) ||
	    (ap != NULL && !cJSON_IsNull(ap) && !cJSON_IsObject(ap)))
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec and "
		    "auth-provider of user '%s' must be mappings", w.file,
		    e->name);
	if (user_fields(e->body, &w, c, err) == -1)
		return -1;
	if (c->token != NULL)
		c->auth = KUBE_AUTH_TOKEN;
	else if (c->token_file != NULL)
		c->auth = KUBE_AUTH_TOKEN_FILE;
	else if (c->username != NULL || c->password != NULL)
		c->auth = KUBE_AUTH_BASIC;
	else if (cJSON_IsObject(ex)) {
		c->auth = KUBE_AUTH_EXEC;
		if (cJSON_IsObject(ap))
			rai_log(RAI_LOG_NOTE, "user '%s' has both exec and "
			    "auth-provider; using exec", e->name);
		return resolve_exec(ex, &w, &c->exec, err);
	} else if (cJSON_IsObject(ap)) {
		c->auth = KUBE_AUTH_OIDC;
		return kc_resolve_oidc(ap, &w, &c->oidc, err);
	} else if (c->cert.len > 0)
		c->auth = KUBE_AUTH_CERT;
	return 0;
}

static int
no_context_error(const struct kube_config *kc, struct rai_err *err)
{
	char *where;

	if (kc->nfiles == 0)
		return rai_err_set(err, RAI_E_CONFIG, "no current context is "
		    "set: no kubeconfig found at %s; set KUBECONFIG or use "
		    "--kubeconfig", kc->looked);
	if (kc->nfiles == 1)
		return rai_err_set(err, RAI_E_CONFIG, "no current context is "
		    "set in %s; use --context or 'runai config cluster'",
		    kc->files[0].path);
	where = kc_files_desc(kc);
	rai_err_set(err, RAI_E_CONFIG, "no current context is set in any of "
	    "%s; use --context or 'runai config cluster'", where);
	free(where);
	return -1;
}

static int
resolve_into(const struct kube_config *kc, struct kube_conn *c,
    struct rai_err *err)
{
	const char *name = kube_config_context_name(kc), *cname, *uname, *ns;
	const struct kc_entry *ctx, *cl, *u;
	struct kc_what w;
	char *where;

	if (name == NULL)
		return no_context_error(kc, err);
	if ((ctx = kc_list_find(&kc->view.contexts, name)) == NULL) {
		where = kc_files_desc(kc);
		rai_err_set(err, RAI_E_CONFIG, "context '%s' not found in %s",
		    name, where);
		free(where);
		return -1;
	}
	w.kind = "context";
	w.name = name;
	w.file = kc->files[ctx->file].path;
	if (get_str(ctx->body, "cluster", &w, &cname, err) == -1 ||
	    get_str(ctx->body, "user", &w, &uname, err) == -1 ||
	    get_str(ctx->body, "namespace", &w, &ns, err) == -1)
		return -1;
	c->context = xstrdup(name);
	if (kc->cluster != NULL && *kc->cluster != '\0')
		cname = kc->cluster;
	if (kc->user != NULL && *kc->user != '\0')
		uname = kc->user;
	if (kc->namespace != NULL && *kc->namespace != '\0')
		ns = kc->namespace;
	if (cname == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' has no "
		    "cluster in %s", name, w.file);
	if ((cl = kc_list_find(&kc->view.clusters, cname)) == NULL) {
		if (cname == kc->cluster)
			return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' "
			    "(--cluster) not found", cname);
		return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' referenced "
		    "by context '%s' not found", cname, name);
	}
	c->cluster = xstrdup(cname);
	c->namespace = xstrdup(ns != NULL ? ns : "default");
	c->namespace_explicit = ns != NULL;
	if (resolve_cluster(cl, kc, c, err) == -1)
		return -1;
	if (uname == NULL)
		return 0;	/* kubectl allows a context without a user */
	if ((u = kc_list_find(&kc->view.users, uname)) == NULL) {
		if (uname == kc->user)
			return rai_err_set(err, RAI_E_CONFIG, "user '%s' "
			    "(--user) not found", uname);
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' referenced by "
		    "context '%s' not found", uname, name);
	}
	c->user = xstrdup(uname);
	c->user_file = xstrdup(kc->files[u->file].path);
	return resolve_user(u, kc, c, err);
}

int
kube_config_resolve(const struct kube_config *kc, struct kube_conn *conn,
    struct rai_err *err)
{
	struct kube_conn c;

	memset(&c, 0, sizeof(c));
	if (resolve_into(kc, &c, err) == -1) {
		kube_conn_release(&c);
		return -1;
	}
	*conn = c;
	return 0;
}

void
kube_conn_release(struct kube_conn *c)
{
	if (c == NULL)
		return;
	free(c->context);
	free(c->cluster);
	free(c->user);
	free(c->user_file);
	free(c->namespace);
	free(c->server);
	free(c->tls_server_name);
	free(c->proxy_url);
	kc_blob_release(&c->ca, 0);
	kc_blob_release(&c->cert, 0);
	kc_blob_release(&c->key, 1);
	rai_free_secret(c->token);
	free(c->token_file);
	free(c->username);
	rai_free_secret(c->password);
	kube_exec_cfg_release(&c->exec);
	kube_oidc_cfg_release(&c->oidc);
	memset(c, 0, sizeof(*c));
}

static char **
strv_dup(char *const *v)
{
	size_t n = 0, i;
	char **d;

	while (v != NULL && v[n] != NULL)
		n++;
	d = xcalloc(n + 1, sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

void
kube_exec_cfg_copy(struct kube_exec_cfg *d, const struct kube_exec_cfg *s)
{
	d->api_version = kc_dup_or_null(s->api_version);
	d->command = kc_dup_or_null(s->command);
	d->args = strv_dup(s->args);
	d->env = strv_dup(s->env);
	d->install_hint = kc_dup_or_null(s->install_hint);
	d->interactive_mode = kc_dup_or_null(s->interactive_mode);
	d->provide_cluster_info = s->provide_cluster_info;
}

void
kube_exec_cfg_release(struct kube_exec_cfg *x)
{
	free(x->api_version);
	free(x->command);
	kc_free_strv(x->args, 0);
	kc_free_strv(x->env, 1);	/* plugins get secrets through env */
	free(x->install_hint);
	free(x->interactive_mode);
	memset(x, 0, sizeof(*x));
}

void
kube_oidc_cfg_copy(struct kube_oidc_cfg *d, const struct kube_oidc_cfg *s)
{
	d->client_id = kc_dup_or_null(s->client_id);
	d->client_secret = kc_dup_or_null(s->client_secret);
	d->issuer_url = kc_dup_or_null(s->issuer_url);
	d->id_token = kc_dup_or_null(s->id_token);
	d->refresh_token = kc_dup_or_null(s->refresh_token);
	d->auth_flow = kc_dup_or_null(s->auth_flow);
	d->realm = kc_dup_or_null(s->realm);
	d->redirect_uri = kc_dup_or_null(s->redirect_uri);
	d->additional_scope = kc_dup_or_null(s->additional_scope);
	d->airgapped = s->airgapped;
	if (s->idp_ca.len > 0) {
		d->idp_ca.data = xmalloc(s->idp_ca.len);
		memcpy(d->idp_ca.data, s->idp_ca.data, s->idp_ca.len);
		d->idp_ca.len = s->idp_ca.len;
	}
}

void
kube_oidc_cfg_release(struct kube_oidc_cfg *o)
{
	free(o->client_id);
	rai_free_secret(o->client_secret);
	free(o->issuer_url);
	rai_free_secret(o->id_token);
	rai_free_secret(o->refresh_token);
	free(o->auth_flow);
	free(o->realm);
	free(o->redirect_uri);
	free(o->additional_scope);
	kc_blob_release(&o->idp_ca, 0);
	memset(o, 0, sizeof(*o));
}
