/*
 * core/json_parse.c judged by cJSON's own parser: every valid text gives
 * the tree cJSON gives (types, values to the bit, keys, order, the links
 * cJSON's appends rely on); what it refuses, it refuses where the fault
 * is; and a value read off the front of longer text ends where it ends.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/json_parse.h"

#include "harness.h"
#include "json_tree.h"

/* Ours and cJSON's tree of a valid text: "" when both read it the same. */
static const char *
same_as_cjson(const char *text, size_t len)
{
	static char why[128];
	size_t stop = 0;
	cJSON *ours = rai_json_read(text, len, &stop);
	cJSON *theirs = cJSON_ParseWithLength(text, len);

	if (ours == NULL)
		snprintf(why, sizeof(why), "refused at %zu", stop);
	else if (theirs == NULL)
		snprintf(why, sizeof(why), "cJSON refuses it");
	else
		snprintf(why, sizeof(why), "%s", tree_diff(ours, theirs));
	cJSON_Delete(ours);
	cJSON_Delete(theirs);
	return why;
}

static const char *const valid[] = {
	"{}", "[]", "0", "-0", "\"\"", "true", "false", "null",
	" \t\r\n{ \"a\" : [ 1 , { } , [ ] ] } \n",
	"{\"a\":1,\"a\":2,\"b\":{\"a\":3}}",	/* duplicates kept, in order */
	"[0,-0,1,-1,7,123456789012345,-123456789012345,1234567890123456,"
	    "12345678901234567890,2147483646,2147483647,2147483648,"
	    "-2147483647,-2147483648,-2147483649,1.5,-1.5e-3,1E5,1e+5,1e-5,"
	    "0.1,3.141592653589793,2.2250738585072014e-308,4.9e-324,1e308,"
	    "1e309,-1e309,0e0,0.000000000000000000001,100000000000000000000000]",
	"[\"\\b\\f\\n\\r\\t\\\"\\\\\\/\",\"x\\u00e9\\u20AC\\ud83d\\ude00y\"]",
	"\"\\u0041\\u0000hidden\"",
	"\"raw \x01 control and \xc3\xb1 UTF-8 \xff bytes\"",
	"\x01[1]\x1f",			/* cJSON's blanks: every byte to ' ' */
	"\xef\xbb\xbf{\"bom\":true}",
	"{\"metadata\":{\"name\":\"job-1\",\"labels\":{\"app\":\"x\"}},"
	    "\"spec\":{\"n\":3,\"list\":[true,false,null,\"s\",[[]]]}}",
};

TEST(valid_texts_give_cjsons_trees)
{
	size_t i;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		T_STR_EQ(same_as_cjson(valid[i], strlen(valid[i])), "");
}

/* The API answers the tests replay, and a number at the longest read. */
TEST(fixture_answers_give_cjsons_trees)
{
	static const char *const files[] = { "api/projects.json",
	    "api/namespaces.json", "api/pods.json", "api/nodes.json",
	    "jobs/views.json", "jobs/e2e-seed.json", "prom/matrix.json" };
	char num[64];
	size_t i, len;
	char *text;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		text = t_slurp(t_fixture(files[i]), &len);
		T_NOT_NULL(text);
		if (text != NULL)
			T_STR_EQ(same_as_cjson(text, len), "");
		free(text);
	}
	memset(num, '9', 63);
	num[0] = '-';
	num[63] = '\0';
	T_STR_EQ(same_as_cjson(num, 63), "");
}

static char *
nested(int depth)
{
	char *s = malloc((size_t)depth * 2 + 1);

	memset(s, '[', (size_t)depth);
	memset(s + depth, ']', (size_t)depth);
	s[depth * 2] = '\0';
	return s;
}

TEST(nesting_stops_where_cjsons_does)
{
	char *ok = nested(1000), *deep = nested(1001);
	size_t stop = 0;

	T_STR_EQ(same_as_cjson(ok, strlen(ok)), "");
	T_NULL(cJSON_Parse(deep));
	T_NULL(rai_json_read(deep, strlen(deep), &stop));
	T_UINT_EQ(stop, 1000);
	free(ok);
	free(deep);
}

static const struct {
	const char	*text;
	size_t		 stop;
	size_t		 len;		/* 0: the text's strlen */
} refused[] = {
	/* the emulator's garbage body: a NUL (a blank to cJSON) first */
	{ "\x00\xffthis is not JSON {{{\n", 1, 23 },
	{ "[1,]", 3 },
	{ "{\"a\" 1}", 5 },
	{ "{\"a\":1,}", 7 },
	{ "{1:2}", 1 },
	{ "[1 2]", 3 },
	{ "01", 1 },		/* cJSON reads 1 */
	{ "[1.]", 1 },
	{ "-", 0 },
	{ ".5", 0 },
	{ "+1", 0 },
	{ "[1e]", 1 },
	{ "[1] x", 4 },		/* cJSON ignores what follows */
	{ "\"abc", 0 },
	{ "\"abc\\", 0 },
	{ "\"a\\u12G4\"", 2 },	/* cJSON reads U+0000 */
	{ "\"\\udc00\"", 1 },
	{ "\"\\ud800\"", 1 },
	{ "\"\\ud800\\u0041\"", 1 },
	{ "\"\\x\"", 1 },
	{ "tru", 0 },
	{ "nul", 0 },
	{ "[true false]", 6 },
	{ "{\"a\":}", 5 },
	{ "   ", 3 },
};

TEST(invalid_texts_are_refused_at_the_fault)
{
	size_t i, stop;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		size_t len = refused[i].len ? refused[i].len :
		    strlen(refused[i].text);

		stop = 99;
		T_NULL(rai_json_read(refused[i].text, len, &stop));
		T_UINT_EQ(stop, refused[i].stop);
	}
	stop = 99;
	T_NULL(rai_json_read("", 0, &stop));
	T_UINT_EQ(stop, 0);
}

TEST(numbers_longer_than_cjson_reads_are_refused)
{
	char num[80];
	size_t stop = 99;

	memset(num, '1', 64);
	num[64] = '\0';
	T_NULL(rai_json_read(num, 64, &stop));
	T_UINT_EQ(stop, 0);
	memcpy(num, "[1.", 3);
	memset(num + 3, '5', 62);		/* a number of 64 characters */
	memcpy(num + 65, "]", 2);
	T_NULL(rai_json_read(num, strlen(num), &stop));
	T_UINT_EQ(stop, 1);
	memcpy(num + 64, "]", 2);		/* 63 */
	T_STR_EQ(same_as_cjson(num, strlen(num)), "");
}

TEST(numbers_have_cjsons_int_and_double)
{
	const char *text = "[2147483648,-2147483649,-0,2.9,-2.9]";
	cJSON *a = rai_json_read(text, strlen(text), NULL);

	T_NOT_NULL(a);
	if (a == NULL)
		return;
	T_INT_EQ(cJSON_GetArrayItem(a, 0)->valueint, INT_MAX);
	T_INT_EQ(cJSON_GetArrayItem(a, 1)->valueint, INT_MIN);
	T_OK(cJSON_GetArrayItem(a, 2)->valuedouble == 0.0);
	T_OK(memcmp(&cJSON_GetArrayItem(a, 2)->valuedouble, &(double){-0.0},
	    sizeof(double)) == 0);
	T_INT_EQ(cJSON_GetArrayItem(a, 3)->valueint, 2);
	T_INT_EQ(cJSON_GetArrayItem(a, 4)->valueint, -2);
	cJSON_Delete(a);
}

/* cJSON's own calls work on the trees: append, detach, replace, print. */
TEST(trees_work_with_cjsons_calls)
{
	cJSON *o = rai_json_read("{\"a\":[1,2,3],\"b\":\"x\"}", 21, NULL);
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "a");
	char *text;

	T_NOT_NULL(arr);
	if (arr == NULL)
		return;
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(4));
	T_INT_EQ(cJSON_GetArraySize(arr), 4);
	cJSON_Delete(cJSON_DetachItemFromArray(arr, 0));
	cJSON_AddStringToObject(o, "c", "y");
	cJSON_ReplaceItemInObjectCaseSensitive(o, "b", cJSON_CreateTrue());
	text = cJSON_PrintUnformatted(o);
	T_STR_EQ(text, "{\"a\":[2,3,4],\"b\":true,\"c\":\"y\"}");
	free(text);
	cJSON_Delete(o);
}

static const struct {
	const char	*text;
	long		 used;		/* -1: no whole value */
} firsts[] = {
	{ "{\"a\":1},{\"b\":2}", 7 },
	{ "[1,[2]]]", 7 },
	{ "\"s\"x", 3 },
	{ "true,", 4 },
	{ "123,", 3 },
	{ "123", -1 },		/* may go on in the next bytes */
	{ "-1.5e3", -1 },
	{ "{\"a\":1", -1 },
	{ "{\"a\":01}", -1 },
	{ "\"cut", -1 },
	{ "", -1 },
};

TEST(a_value_read_off_the_front_ends_where_it_ends)
{
	size_t i, used;
	cJSON *v;

	for (i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		used = 0;
		v = rai_json_read_first(firsts[i].text, strlen(firsts[i].text),
		    &used);
		if (firsts[i].used < 0) {
			T_NULL(v);
		} else {
			T_NOT_NULL(v);
			T_UINT_EQ(used, (size_t)firsts[i].used);
			if (v != NULL)
				T_STR_EQ(same_as_cjson(firsts[i].text, used),
				    "");
		}
		cJSON_Delete(v);
	}
}

/*
 * A string scanned eight bytes at a time must stop at the first quote
 * or backslash wherever it falls: at every offset of strings of 0 to 40
 * bytes, among bytes one off either (0x21, 0x23, 0x5b, 0x5d) and with
 * the high bit set, with the text in a buffer of its exact size (so a
 * sanitizer sees any read past its end), as the whole text, inside an
 * array, and cut before its closing quote.
 */
static const char filler[] = "a\x21\x23\x5b\x5d\x80\xff ";

static void
check_string_at(const char *body, size_t n)
{
	char *text = malloc(n + 2), *arr = malloc(n + 4);
	size_t stop = 0;
	cJSON *v;

	text[0] = '"';
	memcpy(text + 1, body, n);
	text[n + 1] = '"';
	T_STR_EQ(same_as_cjson(text, n + 2), "");
	arr[0] = '[';
	memcpy(arr + 1, text, n + 2);
	arr[n + 3] = ']';
	T_STR_EQ(same_as_cjson(arr, n + 4), "");
	v = rai_json_read(text, n + 1, &stop);	/* no closing quote */
	T_NULL(v);
	cJSON_Delete(v);
	free(text);
	free(arr);
}

TEST(strings_end_at_every_offset)
{
	char body[48] = { 0 };
	size_t n, at, i;

	for (n = 0; n <= 40; n++) {
		for (i = 0; i < n; i++)
			body[i] = filler[(n + i) % (sizeof(filler) - 1)];
		check_string_at(body, n);
		for (at = 0; at + 1 < n; at++) {
			memcpy(body + at, "\\\"", 2);	/* an escaped quote */
			check_string_at(body, n);
			body[at] = 'b';
			body[at + 1] = '\\';		/* then \\ in its place */
			if (at + 2 < n) {
				body[at + 2] = '\\';
				check_string_at(body, n);
			}
			for (i = at; i < n; i++)
				body[i] = filler[(n + i) % (sizeof(filler) - 1)];
		}
	}
}

int
main(void)
{
	RUN(valid_texts_give_cjsons_trees);
	RUN(fixture_answers_give_cjsons_trees);
	RUN(nesting_stops_where_cjsons_does);
	RUN(invalid_texts_are_refused_at_the_fault);
	RUN(numbers_longer_than_cjson_reads_are_refused);
	RUN(numbers_have_cjsons_int_and_double);
	RUN(trees_work_with_cjsons_calls);
	RUN(a_value_read_off_the_front_ends_where_it_ends);
	RUN(strings_end_at_every_offset);
	return t_done();
}
