/*
 * Typed access to cJSON trees by dotted path ("metadata.labels"). Keys
 * holding dots are reached with rai_json_child(). Missing or mistyped
 * values read as absent; nothing here allocates except rai_json_parse.
 */
#ifndef RAI_JSON_H
#define RAI_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"

/* Fails with RAI_E_PROTO naming what was parsed ("response from ..."). */
int		 rai_json_parse(const char *buf, size_t len, const char *what,
		    cJSON **out, struct rai_err *);
const cJSON	*rai_json_get(const cJSON *, const char *path);
/* One key, verbatim (for keys such as "nvidia.com/gpu"). */
const cJSON	*rai_json_child(const cJSON *, const char *key);
const char	*rai_json_str(const cJSON *, const char *path);	/* NULL if absent */
const char	*rai_json_str_or(const cJSON *, const char *path, const char *def);
double		 rai_json_num(const cJSON *, const char *path, double def);
/*
 * A whole number at path, clamped to [min, max] (both within 2^53), so
 * that what a server sends (1e300, -5) never overflows a cast or a sum;
 * def when absent, not a number, or NaN.
 */
long		 rai_json_long(const cJSON *, const char *path, long def,
		    long min, long max);
int		 rai_json_bool(const cJSON *, const char *path, int def);
/* Items of an array at path; NULL when absent. */
const cJSON	*rai_json_array(const cJSON *, const char *path);
/* A label or annotation value: metadata.labels[key] etc. */
const char	*rai_json_label(const cJSON *obj, const char *key);
const char	*rai_json_annotation(const cJSON *obj, const char *key);
/* Sets path (creating objects on the way) to a string copy. */
void		 rai_json_set_str(cJSON *, const char *path, const char *value);
/* Compact text, caller frees with free(). */
char		*rai_json_print(const cJSON *);
/* Zeroes every string value in the tree (before freeing secrets); NULL ok. */
void		 rai_json_wipe(cJSON *);

#endif
