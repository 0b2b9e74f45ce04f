/*
 * Typed reads of cJSON trees by dotted path. A value of the wrong type
 * reads as absent, so callers handle "missing" and "malformed" the same
 * way and a hostile server cannot make us dereference a wrong type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/json_parse.h"

#include "core/banned.h"

int
rai_json_parse(const char *buf, size_t len, const char *what, cJSON **out,
    struct rai_err *err)
{
	cJSON *root;
	size_t stop = 0;

	if (len == 0)
		return rai_err_set(err, RAI_E_PROTO,
		    "%s: empty body where JSON was expected", what);
	if ((root = rai_json_read(buf, len, &stop)) == NULL)
		return rai_err_set(err, RAI_E_PROTO,
		    "%s: malformed JSON near byte %zu of %zu", what, stop, len);
	*out = root;
	return 0;
}

/*
 * The member named by key's first n bytes. As cJSON's own lookup (the
 * first of duplicates), without copying the key out of a dotted path:
 * views make a dozen lookups per object, and a list has thousands.
 */
static const cJSON *
member(const cJSON *obj, const char *key, size_t n)
{
	const cJSON *c;

	if (obj == NULL || !cJSON_IsObject(obj))
		return NULL;
	for (c = obj->child; c != NULL; c = c->next)
		if (c->string != NULL && (n == 0 || c->string[0] == key[0]) &&
		    strncmp(c->string, key, n) == 0 && c->string[n] == '\0')
			return c;
	return NULL;
}

const cJSON *
rai_json_child(const cJSON *obj, const char *key)
{
	return member(obj, key, strlen(key));
}

const cJSON *
rai_json_get(const cJSON *obj, const char *path)
{
	const char *p = path, *dot;
	size_t n;

	while (obj != NULL && *p != '\0') {
		dot = strchr(p, '.');
		n = dot ? (size_t)(dot - p) : strlen(p);
		obj = member(obj, p, n);
		p += n;
		if (*p == '.')
			p++;
	}
	return obj;
}

const char *
rai_json_str(const cJSON *obj, const char *path)
{
	const cJSON *v = rai_json_get(obj, path);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *
rai_json_str_or(const cJSON *obj, const char *path, const char *def)
{
	const char *s = rai_json_str(obj, path);

	return s != NULL ? s : def;
}

double
rai_json_num(const cJSON *obj, const char *path, double def)
{
	const cJSON *v = rai_json_get(obj, path);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

long
rai_json_long(const cJSON *obj, const char *path, long def, long min,
    long max)
{
	const cJSON *v = rai_json_get(obj, path);

	if (!cJSON_IsNumber(v) || isnan(v->valuedouble))
		return def;
	if (v->valuedouble <= (double)min)
		return min;
	if (v->valuedouble >= (double)max)
		return max;
	return (long)v->valuedouble;
}

int
rai_json_bool(const cJSON *obj, const char *path, int def)
{
	const cJSON *v = rai_json_get(obj, path);

	if (cJSON_IsTrue(v))
		return 1;
	if (cJSON_IsFalse(v))
		return 0;
	return def;
}

const cJSON *
rai_json_array(const cJSON *obj, const char *path)
{
	const cJSON *v = rai_json_get(obj, path);

	return cJSON_IsArray(v) ? v : NULL;
}

/* metadata.<map>[key] as a string, views' most frequent lookup */
static const char *
metadata_entry(const cJSON *obj, const char *map, size_t maplen,
    const char *key)
{
	const cJSON *v = member(member(member(obj, "metadata", 8), map,
	    maplen), key, strlen(key));

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *
rai_json_label(const cJSON *obj, const char *key)
{
	return metadata_entry(obj, "labels", 6, key);
}

const char *
rai_json_annotation(const cJSON *obj, const char *key)
{
	return metadata_entry(obj, "annotations", 11, key);
}

void
rai_json_set_str(cJSON *obj, const char *path, const char *value)
{
	char key[256];
	const char *p = path, *dot;
	size_t n;
	cJSON *next;

	for (;;) {
		dot = strchr(p, '.');
		n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(key))
			return;
		memcpy(key, p, n);
		key[n] = '\0';
		if (dot == NULL)
			break;
		next = cJSON_GetObjectItemCaseSensitive(obj, key);
		if (!cJSON_IsObject(next)) {
			cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
			next = cJSON_AddObjectToObject(obj, key);
		}
		obj = next;
		p = dot + 1;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, value);
}

char *
rai_json_print(const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);

	if (s == NULL)
		rai_die("out of memory printing JSON");
	return s;
}

void
rai_json_wipe(cJSON *n)
{
	cJSON *c;

	if (n == NULL)
		return;
	if (n->valuestring != NULL)
		explicit_bzero(n->valuestring, strlen(n->valuestring));
	for (c = n->child; c != NULL; c = c->next)
		rai_json_wipe(c);
}
