/*
 * The registry pull Secret: built for "create registry-secret", read back
 * for preflight. Every copy of the password made here is wiped.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/pull_secret.h"
#include "core/alloc.h"
#include "core/base64.h"
#include "core/json.h"

#include "core/banned.h"

const char *const adm_pull_secret_namespaces[] = { "runai-backend", "runai",
    NULL };

/* Prints o and wipes the text (it holds the password), then deletes o. */
static char *
print_secret(cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o), *copy;

	cJSON_Delete(o);
	if (s == NULL)
		rai_die("out of memory");
	copy = xstrdup(s);
	explicit_bzero(s, strlen(s));
	cJSON_free(s);
	return copy;
}

cJSON *
adm_pull_secret_new(const char *name, const char *ns, const char *server,
    const char *user, const char *password)
{
	cJSON *cfg = cJSON_CreateObject(), *auths, *entry, *o, *meta, *data;
	char *pair = xasprintf("%s:%s", user, password), *b64, *text;

	b64 = rai_base64_encode(pair, strlen(pair));
	rai_free_secret(pair);
	auths = cJSON_AddObjectToObject(cfg, "auths");
	entry = cJSON_AddObjectToObject(auths, server);
	cJSON_AddStringToObject(entry, "username", user);
	cJSON_AddStringToObject(entry, "password", password);
	cJSON_AddStringToObject(entry, "auth", b64);
	rai_free_secret(b64);
	text = print_secret(cfg);
	b64 = rai_base64_encode(text, strlen(text));
	rai_free_secret(text);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "apiVersion", "v1");
	cJSON_AddStringToObject(o, "kind", "Secret");
	meta = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(meta, "name", name);
	cJSON_AddStringToObject(meta, "namespace", ns);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "labels"),
	    "app.kubernetes.io/managed-by", "runai-adm");
	cJSON_AddStringToObject(o, "type", ADM_PULL_SECRET_TYPE);
	data = cJSON_AddObjectToObject(o, "data");
	cJSON_AddStringToObject(data, ADM_PULL_SECRET_KEY, b64);
	rai_free_secret(b64);
	return o;
}

/* user and password of an "auths" entry: its fields, or its "auth". */
static int
entry_creds(const cJSON *e, char **user, char **password)
{
	const char *u = rai_json_str(e, "username");
	const char *p = rai_json_str(e, "password");
	const char *a = rai_json_str(e, "auth");
	unsigned char *raw;
	size_t n;
	char *colon;

	if (u != NULL && p != NULL) {
		*user = xstrdup(u);
		*password = xstrdup(p);
		return 0;
	}
	if (a == NULL || (raw = rai_base64_decode(a, strlen(a),
	    RAI_B64_PAD_OPTIONAL, &n)) == NULL)
		return -1;
	colon = memchr(raw, ':', n);
	if (colon == NULL) {
		rai_free_secret_mem(raw, n);
		return -1;
	}
	*user = xstrndup((const char *)raw, (size_t)(colon - (char *)raw));
	*password = xstrndup(colon + 1, n - (size_t)(colon + 1 - (char *)raw));
	rai_free_secret_mem(raw, n);
	return 0;
}

int
adm_pull_secret_creds(const cJSON *secret, const char *server, char **user,
    char **password, struct rai_err *err)
{
	/* the key has a dot: no dotted path reaches it */
	const cJSON *d = rai_json_child(rai_json_get(secret, "data"),
	    ADM_PULL_SECRET_KEY), *e = NULL;
	const char *b64 = cJSON_IsString(d) ? d->valuestring : NULL;
	unsigned char *raw;
	cJSON *cfg;
	size_t n;
	int rc;

	*user = *password = NULL;
	if (strcmp(rai_json_str_or(secret, "type", ""), ADM_PULL_SECRET_TYPE)
	    != 0)
		return rai_err_set(err, RAI_E_CONFIG, "it is of type '%s', not "
		    ADM_PULL_SECRET_TYPE, rai_json_str_or(secret, "type", ""));
	if (b64 == NULL || (raw = rai_base64_decode(b64, strlen(b64),
	    RAI_B64_PAD_OPTIONAL, &n)) == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "it has no base64 "
		    ADM_PULL_SECRET_KEY);
	cfg = cJSON_ParseWithLength((const char *)raw, n);
	rai_free_secret_mem(raw, n);
	if (cfg != NULL)
		e = rai_json_child(rai_json_get(cfg, "auths"), server);
	rc = e == NULL ? -1 : entry_creds(e, user, password);
	cJSON_Delete(cfg);
	if (rc == -1)
		return rai_err_set(err, RAI_E_CONFIG, "its " ADM_PULL_SECRET_KEY
		    " has no credentials for '%s'", server);
	return 0;
}
