/*
 * Submit templates: reading the ConfigMaps and merging their values.
 * See template.h for the format.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/yaml.h"
#include "runai/submit_apply.h"
#include "runai/template.h"

#include "core/banned.h"

static int
by_name(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;

	return strcmp(rai_template_name(x), rai_template_name(y));
}

static void
sort_items(cJSON *items)
{
	int i, n = cJSON_GetArraySize(items);
	cJSON **v;

	if (n < 2)
		return;
	v = xcalloc((size_t)n, sizeof(*v));
	for (i = n - 1; i >= 0; i--)
		v[i] = cJSON_DetachItemFromArray(items, i);
	qsort(v, (size_t)n, sizeof(*v), by_name);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(items, v[i]);
	free(v);
}

int
rai_template_list(struct kube_client *c, cJSON **items, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL;

	*items = NULL;
	lo.label_selector = RAI_TEMPLATE_LABEL "=true";
	if (kube_list(c, &KUBE_RES_CONFIGMAPS, RAI_SYSTEM_NS, &lo, &list,
	    err) == -1) {
		if (err->http_status != 404)
			return -1;
		rai_err_release(err);
		*items = cJSON_CreateArray();
		return 0;
	}
	*items = cJSON_DetachItemFromObject(list, "items");
	cJSON_Delete(list);
	if (!cJSON_IsArray(*items)) {
		cJSON_Delete(*items);
		*items = cJSON_CreateArray();
	}
	sort_items(*items);
	return 0;
}

/* The name falls back to the ConfigMap's when data.name is missing. */
const char *
rai_template_name(const cJSON *cm)
{
	const char *n = rai_json_str(cm, "data.name");

	if (n == NULL || *n == '\0')
		n = rai_json_str_or(cm, "metadata.name", "");
	return n;
}

const char *
rai_template_description(const cJSON *cm)
{
	return rai_json_str_or(cm, "data.description", "");
}

const char *
rai_template_values(const cJSON *cm)
{
	return rai_json_str_or(cm, "data.values", "");
}

int
rai_template_is_admin(const cJSON *cm)
{
	return strcmp(rai_json_str_or(cm, "metadata.name", ""),
	    RAI_TEMPLATE_ADMIN) == 0;
}

const cJSON *
rai_template_find(const cJSON *items, const char *name)
{
	const cJSON *cm;

	cJSON_ArrayForEach(cm, items)
		if (strcmp(rai_template_name(cm), name) == 0)
			return cm;
	return NULL;
}

const cJSON *
rai_template_admin(const cJSON *items)
{
	const cJSON *cm;

	cJSON_ArrayForEach(cm, items)
		if (rai_template_is_admin(cm))
			return cm;
	return NULL;
}

/* ---- values ---- */

static int
is_name_char(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * Whether a template may read variable name from the user's
 * environment. Templates are written by whoever may edit ConfigMaps in
 * the "runai" namespace, and the admin's applies to every submit
 * unasked, so they may not copy a researcher's token or password into
 * a job spec: only RAI_TEMPLATE_ENV_DEFAULT and the names listed in
 * $RUNAI_TEMPLATE_ENV (commas, colons or blanks between; "*" for every
 * variable, as the original CLI read them) are read.
 */
static int
env_allowed(const char *name)
{
	static const char *const dflt[] = { RAI_TEMPLATE_ENV_DEFAULT };
	const char *list = getenv("RUNAI_TEMPLATE_ENV"), *p;
	size_t i, len = strlen(name), n;

	for (i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++)
		if (strcmp(dflt[i], name) == 0)
			return 1;
	for (p = list; p != NULL && *p != '\0'; p += n) {
		p += strspn(p, ",: \t");
		n = strcspn(p, ",: \t");
		if ((n == 1 && *p == '*') ||
		    (n == len && strncmp(p, name, len) == 0))
			return 1;
	}
	return 0;
}

/*
 * $VAR or ${VAR} at s; returns the characters used (0: not a
 * reference, -1: a set variable templates may not read, named in err).
 */
static long
expand_ref(const char *s, struct rai_buf *out, struct rai_err *err)
{
	size_t n, start = s[1] == '{' ? 2 : 1;
	const char *v;
	char *name;

	for (n = start; is_name_char((unsigned char)s[n]); n++)
		;
	if (n == start || (start == 2 && s[n] != '}'))
		return 0;
	name = xstrndup(s + start, n - start);
	if ((v = getenv(name)) != NULL && *v != '\0' && !env_allowed(name)) {
		rai_err_set(err, RAI_E_USAGE, "it reads $%s from your "
		    "environment, which templates may not by default; "
		    "RUNAI_TEMPLATE_ENV=%s allows it", name, name);
		free(name);
		return -1;
	}
	if (v != NULL)
		rai_buf_addstr(out, v);
	free(name);
	return (long)(n + (start == 2));
}

static char *
expand_env(const char *text, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	long used;

	while (*text != '\0') {
		if (*text == '$' && (used = expand_ref(text, &b, err)) != 0) {
			if (used < 0) {
				rai_buf_release(&b);
				return NULL;
			}
			text += used;
			continue;
		}
		rai_buf_addch(&b, *text++);
	}
	return rai_buf_detach(&b, NULL);
}

int
rai_template_parse(const char *values, cJSON **out, struct rai_err *err)
{
	char *text;
	int rc = 0;

	*out = NULL;
	if ((text = expand_env(values, err)) == NULL)
		return -1;
	if (strspn(text, " \t\r\n") != strlen(text))
		rc = rai_yaml_parse(text, strlen(text), "template values", out,
		    err);
	free(text);
	if (rc == -1)
		return -1;
	if (*out == NULL || cJSON_IsNull(*out)) {
		cJSON_Delete(*out);
		*out = cJSON_CreateObject();
	}
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return rai_err_set(err, RAI_E_CONFIG, "template values are not "
		    "a mapping of flag names");
	}
	return 0;
}

static size_t
env_key_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

int
rai_template_env_has(const cJSON *list, const char *entry)
{
	const cJSON *e;
	size_t n = env_key_len(entry);

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e) && env_key_len(e->valuestring) == n &&
		    strncmp(e->valuestring, entry, n) == 0)
			return 1;
	return 0;
}

static void
merge_env(cJSON *base, const cJSON *patch)
{
	cJSON *merged = cJSON_Duplicate(patch, 1);
	const cJSON *e;

	cJSON_ArrayForEach(e, base)
		if (cJSON_IsString(e) && !rai_template_env_has(merged,
		    e->valuestring))
			cJSON_AddItemToArray(merged, cJSON_Duplicate(e, 1));
	/* base keeps its place; its entries are replaced by the merge */
	while (cJSON_GetArraySize(base) > 0)
		cJSON_DeleteItemFromArray(base, 0);
	while (cJSON_GetArraySize(merged) > 0)
		cJSON_AddItemToArray(base, cJSON_DetachItemFromArray(merged, 0));
	cJSON_Delete(merged);
}

static void
merge_scalar(cJSON *base, const char *key, const cJSON *patch)
{
	cJSON *b = cJSON_GetObjectItemCaseSensitive(base, key);
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(patch, "required");

	if (!cJSON_IsObject(b)) {
		cJSON_DeleteItemFromObjectCaseSensitive(base, key);
		cJSON_AddItemToObject(base, key, cJSON_Duplicate(patch, 1));
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(b, "value");
	if (cJSON_GetObjectItemCaseSensitive(patch, "value") != NULL)
		cJSON_AddItemToObject(b, "value", cJSON_Duplicate(
		    cJSON_GetObjectItemCaseSensitive(patch, "value"), 1));
	if (req != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(b, "required");
		cJSON_AddItemToObject(b, "required", cJSON_Duplicate(req, 1));
	}
}

static void
merge_one(cJSON *base, const cJSON *p)
{
	cJSON *b = cJSON_GetObjectItemCaseSensitive(base, p->string);
	const cJSON *e;

	if (b == NULL || cJSON_IsNull(b)) {
		cJSON_DeleteItemFromObjectCaseSensitive(base, p->string);
		cJSON_AddItemToObject(base, p->string, cJSON_Duplicate(p, 1));
	} else if (cJSON_IsArray(p) && cJSON_IsArray(b)) {
		if (strcmp(p->string, "environments") == 0) {
			merge_env(b, p);
		} else {
			cJSON_ArrayForEach(e, p)
				cJSON_AddItemToArray(b, cJSON_Duplicate(e, 1));
		}
	} else if (strcmp(p->string, "git-sync") == 0 && cJSON_IsObject(p) &&
	    cJSON_IsObject(b)) {
		rai_template_merge(b, p);
	} else if (cJSON_IsObject(p)) {
		merge_scalar(base, p->string, p);
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(base, p->string);
		cJSON_AddItemToObject(base, p->string, cJSON_Duplicate(p, 1));
	}
}

void
rai_template_merge(cJSON *base, const cJSON *patch)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, patch)
		if (p->string != NULL)
			merge_one(base, p);
}
