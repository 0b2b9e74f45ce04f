/*
 * cJSON's blocks reused (core/json_blocks.c): they come back to cJSON,
 * and they stay plain malloc() blocks either way across the boundary.
 * Its own binary: the hooks are global to the process.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/json_blocks.h"

#include "harness.h"

static int reusing;

/*
 * A string cJSON freed holds the next string cJSON makes, not the next
 * malloc() of that size (which glibc alone would give it). 40 bytes: a
 * shelf's size under glibc and under valgrind alike, whose
 * malloc_usable_size says the size asked for.
 */
TEST(a_freed_block_is_kept_for_cjson)
{
	static const char text[] = "thirty-nine characters, and a NUL: 40..";
	cJSON *a = cJSON_CreateString(text), *b;
	void *was = a->valuestring, *plain;

	T_INT_EQ((int)sizeof(text), 40);
	cJSON_Delete(a);
	plain = malloc(sizeof(text));
	b = cJSON_CreateString(text);
	if (reusing) {
		T_INT_EQ(plain != was, 1);
		T_INT_EQ(b->valuestring == was, 1);
	}
	T_STR_EQ(b->valuestring, text);
	cJSON_Delete(b);
	free(plain);
}

/* Trees parsed one after another, as a list's items: same values. */
TEST(items_parse_the_same_after_reuse)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *o;
	char *text, want[32];
	int i;

	for (i = 0; i < 2000; i++) {
		text = xasprintf("{\"metadata\":{\"name\":\"job-%d\","
		    "\"labels\":{\"release\":\"job-%d\"}},\"spec\":{\"n\":%d,"
		    "\"s\":\"%0*d\"}}", i, i, i, i % 300, 7);
		T_INT_EQ(rai_json_parse(text, strlen(text), "item", &o, &err),
		    0);
		snprintf(want, sizeof(want), "job-%d", i);
		T_STR_EQ(rai_json_str(o, "metadata.name"), want);
		T_STR_EQ(rai_json_label(o, "release"), want);
		T_DBL_EQ(rai_json_num(o, "spec.n", -1), i);
		T_INT_EQ((int)strlen(rai_json_str_or(o, "spec.s", "")),
		    i % 300 > 1 ? i % 300 : 1);
		cJSON_Delete(o);
		free(text);
	}
}

/* What cJSON prints is free()d; a string from malloc() is cJSON's to free. */
TEST(blocks_cross_between_free_and_cjson)
{
	cJSON *o = cJSON_CreateObject(), *s;
	char *printed, *mine = xstrdup("from malloc");

	cJSON_AddStringToObject(o, "k", "v");
	printed = rai_json_print(o);
	T_STR_EQ(printed, "{\"k\":\"v\"}");
	free(printed);
	s = cJSON_CreateString("x");
	cJSON_free(s->valuestring);
	s->valuestring = mine;
	cJSON_AddItemToObject(o, "mine", s);
	T_STR_EQ(rai_json_str(o, "mine"), "from malloc");
	cJSON_Delete(o);
}

/* Big blocks are not kept, and many frees overflow the shelves safely. */
TEST(big_and_many_blocks)
{
	cJSON *arr = cJSON_CreateArray();
	char *big = malloc(100000);
	int i;

	memset(big, 'a', 99999);
	big[99999] = '\0';
	cJSON_AddItemToArray(arr, cJSON_CreateString(big));
	for (i = 0; i < 5000; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
	T_INT_EQ(cJSON_GetArraySize(arr), 5001);
	cJSON_Delete(arr);
	arr = cJSON_CreateArray();
	for (i = 0; i < 5000; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString("again"));
	T_INT_EQ(cJSON_GetArraySize(arr), 5000);
	cJSON_Delete(arr);
	free(big);
}

int
main(void)
{
	reusing = rai_json_reuse_blocks();
	printf("# blocks reused: %s\n", reusing ? "yes" : "no (this build)");
	RUN(a_freed_block_is_kept_for_cjson);
	RUN(items_parse_the_same_after_reuse);
	RUN(blocks_cross_between_free_and_cjson);
	RUN(big_and_many_blocks);
	return t_done();
}
