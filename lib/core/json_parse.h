/*
 * JSON text to a cJSON tree in one pass (see json_parse.c): the trees
 * are cJSON's own, freed with cJSON_Delete, and equal to what cJSON's
 * parser makes of the same text.
 */
#ifndef RAI_CORE_JSON_PARSE_H
#define RAI_CORE_JSON_PARSE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * The value that len bytes of text hold, or NULL when they are not one
 * JSON value (blanks around it aside), with *stop set to the offset of
 * the byte where reading stopped.
 */
cJSON	*rai_json_read(const char *text, size_t len, size_t *stop);
/*
 * The value that text starts with (no blanks before it), with *used set
 * to the bytes it takes; NULL when they do not hold a whole one: cut
 * short (a number running to the end counts as cut short) or malformed.
 * For text that goes on after the value, such as a list's next item.
 */
cJSON	*rai_json_read_first(const char *text, size_t len, size_t *used);

#endif
