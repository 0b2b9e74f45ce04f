/*
 * libFuzzer target for core/json_parse.c with cJSON's parser as judge.
 * Besides the sanitizers' checks:
 *   - whatever rai_json_read takes, cJSON takes too, with the same tree
 *     (the reader may refuse more, never less);
 *   - whatever cJSON takes, printed back by cJSON, rai_json_read takes
 *     with cJSON's tree of that print (valid JSON is never refused);
 *   - a value rai_json_read_first reads off the front ends inside the
 *     input and is what rai_json_read makes of those bytes alone.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/json_parse.h"

#include "../unit/json_tree.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
same_or_abort(const cJSON *a, const cJSON *b)
{
	if (a == NULL || b == NULL || *tree_diff(a, b) != '\0')
		abort();
}

static void
reprint_is_read_alike(const cJSON *theirs)
{
	char *text = cJSON_PrintUnformatted(theirs);
	cJSON *again, *ours;

	if (text == NULL)
		return;
	again = cJSON_Parse(text);
	ours = rai_json_read(text, strlen(text), NULL);
	if (again != NULL)	/* cJSON prints some trees it cannot read */
		same_or_abort(ours, again);
	cJSON_Delete(ours);
	cJSON_Delete(again);
	free(text);
}

static void
first_value_is_whole(const char *text, size_t len)
{
	size_t used = 0;
	cJSON *first = rai_json_read_first(text, len, &used), *alone;

	if (first == NULL)
		return;
	if (used == 0 || used > len)
		abort();
	alone = rai_json_read(text, used, NULL);
	same_or_abort(first, alone);
	cJSON_Delete(alone);
	cJSON_Delete(first);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	cJSON *ours = rai_json_read(text, size, NULL);
	cJSON *theirs = cJSON_ParseWithLength(text, size);

	if (ours != NULL)
		same_or_abort(ours, theirs);
	if (theirs != NULL)
		reprint_is_read_alike(theirs);
	first_value_is_whole(text, size);
	cJSON_Delete(ours);
	cJSON_Delete(theirs);
	return 0;
}
