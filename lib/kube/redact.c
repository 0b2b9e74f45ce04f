/*
 * Objects made safe to hand on: one walk over the tree, each string
 * judged by its key, its neighbour "name", or its own text (see
 * redact.h).
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/log.h"
#include "kube/redact.h"

#include "core/banned.h"

/* The string item's value becomes s; the old bytes are wiped first. */
static void
set_string(cJSON *item, const char *s)
{
	char *old = item->valuestring;

	if (old == NULL || strcmp(old, s) == 0)
		return;
	/* zeroed, it is shorter than s: cJSON frees it for a fresh copy */
	memset(old, 0, strlen(old));
	(void)cJSON_SetValuestring(item, s);
}

/*
 * What the text redaction could change: embedded JSON, an assignment
 * (NAME=VALUE, a form) or a JWT. Strings without any are left as they
 * are without copying them.
 */
static int
maybe_secret_text(const char *s)
{
	return *s == '{' || *s == '[' || strchr(s, '=') != NULL ||
	    strstr(s, "eyJ") != NULL;
}

static void
redact_text(cJSON *item)
{
	struct rai_buf out = RAI_BUF_INIT;
	const char *s = item->valuestring;

	if (s == NULL || !maybe_secret_text(s))
		return;
	rai_redact_body(s, strlen(s), &out);
	set_string(item, rai_buf_str(&out));
	rai_buf_release_secret(&out);
}

/* metadata.annotations: a secret-named key loses its whole value. */
static void
redact_annotations(cJSON *annotations)
{
	cJSON *a;

	cJSON_ArrayForEach(a, annotations) {
		if (!cJSON_IsString(a) || a->string == NULL)
			continue;
		if (rai_is_secret_name(a->string, strlen(a->string)))
			set_string(a, KUBE_REDACTED);
		else
			redact_text(a);
	}
}

/* {"name": "API_TOKEN", "value": "..."}: an environment variable's. */
static void
redact_named_value(cJSON *obj)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
	cJSON *value = cJSON_GetObjectItemCaseSensitive(obj, "value");

	if (cJSON_IsString(name) && cJSON_IsString(value) &&
	    rai_is_secret_name(name->valuestring, strlen(name->valuestring)))
		set_string(value, KUBE_REDACTED);
}

/* A Secret's data and stringData: every value, whatever its key. */
static void
redact_secret_values(cJSON *secret)
{
	static const char *const fields[] = { "data", "stringData" };
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(secret, "kind");
	cJSON *c;
	size_t i;

	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "Secret") != 0)
		return;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(secret,
		    fields[i]))
			if (cJSON_IsString(c))
				set_string(c, KUBE_REDACTED);
}

void
kube_redact(cJSON *node)
{
	cJSON *c;

	if (node == NULL)
		return;
	if (cJSON_IsObject(node)) {
		redact_named_value(node);
		redact_secret_values(node);
	}
	cJSON_ArrayForEach(c, node) {
		if (cJSON_IsString(c)) {
			if (c->string != NULL &&
			    rai_is_secret_key(c->string, strlen(c->string)))
				set_string(c, KUBE_REDACTED);
			else
				redact_text(c);
		} else if (c->string != NULL && cJSON_IsObject(c) &&
		    strcmp(c->string, "annotations") == 0)
			redact_annotations(c);
		else
			kube_redact(c);
	}
}
