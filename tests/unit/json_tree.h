/*
 * Two cJSON trees compared whole (shared by t_json_parse, t_kube_stream
 * and the fuzz_json_parse and fuzz_http_body targets): types, keys,
 * values (doubles to the bit), child order, and the links cJSON's own
 * calls rely on (each child's prev is the one before it; the first
 * child's is the last).
 */
#ifndef JSON_TREE_H
#define JSON_TREE_H

#include <string.h>

#include <cjson/cJSON.h>

/* "" when a and b are the same tree, else where they part. */
static inline const char *
tree_diff(const cJSON *a, const cJSON *b)
{
	const cJSON *ca, *cb, *last = NULL;
	const char *d;

	if (a->type != b->type)
		return "type";
	if ((a->string == NULL) != (b->string == NULL) ||
	    (a->string != NULL && strcmp(a->string, b->string) != 0))
		return "key";
	if ((a->valuestring == NULL) != (b->valuestring == NULL) ||
	    (a->valuestring != NULL &&
	    strcmp(a->valuestring, b->valuestring) != 0))
		return "string";
	if (a->valueint != b->valueint)
		return "valueint";
	if (memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0)
		return "valuedouble";
	for (ca = a->child, cb = b->child; ca != NULL && cb != NULL;
	    ca = ca->next, cb = cb->next) {
		if (ca != a->child && ca->prev != last)
			return "prev link";
		if (*(d = tree_diff(ca, cb)) != '\0')
			return d;
		last = ca;
	}
	if (ca != NULL || cb != NULL)
		return "child count";
	if (a->child != NULL && a->child->prev != last)
		return "first child's prev is not the last";
	return "";
}

#endif
