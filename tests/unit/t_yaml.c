/* Unit tests of rai_yaml: core-schema typing, quoting, anchors, errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/yaml.h"

#include "harness.h"

static cJSON *
parse_ok(const char *text)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *root = NULL;

	if (rai_yaml_parse(text, strlen(text), "t.yaml", &root, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
		return NULL;
	}
	return root;
}

/* Parses text expecting failure; returns the message (caller frees). */
static char *
parse_fail(const char *text, size_t len)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *root = NULL;
	char *msg;

	if (rai_yaml_parse(text, len, "t.yaml", &root, &err) == 0) {
		T_NULL(root);
		cJSON_Delete(root);
		return strdup("(parsed)");
	}
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_NULL(root);
	msg = strdup(err.message ? err.message : "(null)");
	rai_err_release(&err);
	return msg;
}

static char *
emit(const cJSON *root)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;

	if (rai_yaml_emit(root, &b, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
		rai_buf_release(&b);
		return NULL;
	}
	return rai_buf_detach(&b, NULL);
}

/* Parses "v: <scalar>" and returns the value's type and number/string. */
struct typing {
	const char	*yaml;
	int		 type;		/* cJSON_* */
	double		 num;
	const char	*str;
};

static const struct typing typing_table[] = {
	{ "", cJSON_NULL, 0, NULL },
	{ "~", cJSON_NULL, 0, NULL },
	{ "null", cJSON_NULL, 0, NULL },
	{ "Null", cJSON_NULL, 0, NULL },
	{ "NULL", cJSON_NULL, 0, NULL },
	{ "nULL", cJSON_String, 0, "nULL" },
	{ "true", cJSON_True, 0, NULL },
	{ "True", cJSON_True, 0, NULL },
	{ "TRUE", cJSON_True, 0, NULL },
	{ "false", cJSON_False, 0, NULL },
	{ "FALSE", cJSON_False, 0, NULL },
	{ "yes", cJSON_String, 0, "yes" },
	{ "on", cJSON_String, 0, "on" },
	{ "0", cJSON_Number, 0, NULL },
	{ "42", cJSON_Number, 42, NULL },
	{ "-12", cJSON_Number, -12, NULL },
	{ "+5", cJSON_Number, 5, NULL },
	{ "007", cJSON_Number, 7, NULL },
	{ "0o17", cJSON_Number, 15, NULL },
	{ "0x1F", cJSON_Number, 31, NULL },
	{ "0x", cJSON_String, 0, "0x" },
	{ "0o8", cJSON_String, 0, "0o8" },
	{ "1.5", cJSON_Number, 1.5, NULL },
	{ "-0.25", cJSON_Number, -0.25, NULL },
	{ ".5", cJSON_Number, 0.5, NULL },
	{ "1.", cJSON_Number, 1, NULL },
	{ "1e3", cJSON_Number, 1000, NULL },
	{ "2.5E-1", cJSON_Number, 0.25, NULL },
	{ "1e", cJSON_String, 0, "1e" },
	{ "1.2.3", cJSON_String, 0, "1.2.3" },
	{ "1_000", cJSON_String, 0, "1_000" },
	{ "12:30", cJSON_String, 0, "12:30" },
	{ "10.0.0.1", cJSON_String, 0, "10.0.0.1" },
	{ ".", cJSON_String, 0, "." },
	{ "-x", cJSON_String, 0, "-x" },
	{ "'true'", cJSON_String, 0, "true" },
	{ "\"42\"", cJSON_String, 0, "42" },
	{ "''", cJSON_String, 0, "" },
	{ "!!str 42", cJSON_String, 0, "42" },
	{ "!!str true", cJSON_String, 0, "true" },
	{ "!!int \"7\"", cJSON_Number, 7, NULL },
	{ "!!float 1", cJSON_Number, 1, NULL },
	{ "!!bool 'false'", cJSON_False, 0, NULL },
	{ "!!null x", cJSON_NULL, 0, NULL },
	{ "! 12", cJSON_String, 0, "12" },
	{ "!custom 12", cJSON_Number, 12, NULL },
	{ "hello world", cJSON_String, 0, "hello world" },
	{ "|\n  a\n  b\n", cJSON_String, 0, "a\nb\n" },
	{ ">-\n  a\n  b\n", cJSON_String, 0, "a b" },
	{ NULL, 0, 0, NULL }
};

TEST(typing_follows_the_core_schema)
{
	const struct typing *t;
	char doc[256];
	const cJSON *v;
	cJSON *root;

	for (t = typing_table; t->yaml != NULL; t++) {
		snprintf(doc, sizeof(doc), "v: %s\n", t->yaml);
		root = parse_ok(doc);
		v = cJSON_GetObjectItemCaseSensitive(root, "v");
		T_NOT_NULL(v);
		if (v == NULL) {
			cJSON_Delete(root);
			continue;
		}
		if ((v->type & 0xff) != t->type) {
			t_fail_at(__FILE__, __LINE__);
			printf("'%s' typed %d, want %d\n", t->yaml,
			    v->type & 0xff, t->type);
		}
		if (t->type == cJSON_Number)
			T_DBL_EQ(v->valuedouble, t->num);
		if (t->type == cJSON_String)
			T_STR_EQ(v->valuestring, t->str);
		cJSON_Delete(root);
	}
}

TEST(special_floats)
{
	cJSON *root = parse_ok("a: .inf\nb: -.Inf\nc: .NaN\n");
	char *out;

	T_OK(isinf(cJSON_GetObjectItem(root, "a")->valuedouble));
	T_OK(cJSON_GetObjectItem(root, "b")->valuedouble < 0);
	T_OK(isnan(cJSON_GetObjectItem(root, "c")->valuedouble));
	out = emit(root);
	T_STR_EQ(out, "a: .inf\nb: -.inf\nc: .nan\n");
	free(out);
	cJSON_Delete(root);
}

TEST(bad_tagged_values_are_errors)
{
	char *m;

	m = parse_fail("a: !!int abc\n", 13);
	T_STR_EQ(m, "t.yaml: line 1 column 4: 'abc' is not a valid !!int");
	free(m);
	m = parse_fail("a: !!bool yes\n", 14);
	T_STR_CONTAINS(m, "'yes' is not a valid !!bool");
	free(m);
	m = parse_fail("a: !!float x1\n", 14);
	T_STR_CONTAINS(m, "not a valid !!float");
	free(m);
}

static const char *const tricky[] = {
	"true", "True", "false", "1", "-1", "+1", "null", "Null", "", "0x1",
	"0o7", "1e3", "~", " lead", "trail ", " both ", "a: b", "a:b", "#x",
	"x #y", "- x", "-", "?", "? x", ":", "yes", "No", "on", "OFF", "y",
	"n", "multi\nline\n", "multi\nno trailing", "  indented\nx",
	"trailing newlines\n\n", "\nleading newline", "with 'quote'",
	"with \"dq\"", "tab\there", "ctrl\001x", "bell\a", "\xc3\xbc\xc3\xb1",
	".inf", "-.inf", ".nan", ".NaN", "<<", "=", "1.2.3", "007", "1_000",
	"12:30", "[a]", "{a}", "]", "}", ",", "@a", "`a", "%a", "!a", "&a",
	"*a", "|", ">", "'", "\"", "\\", "a\\b", "0", ".5", "-.5", "+.5",
	"1.", "2001-12-14", "a, b", "key: value\nother: x", "---", "...",
	"--- x", "... x", "a\r\nb", "\t", " ", "  ", "\xe2\x80\xa8", NULL
};

TEST(tricky_strings_round_trip_as_values_and_keys)
{
	cJSON *tree = cJSON_CreateObject(), *map = cJSON_CreateObject();
	cJSON *list = cJSON_CreateArray(), *back;
	char *out;
	size_t i;

	for (i = 0; tricky[i] != NULL; i++) {
		cJSON_AddItemToArray(list, cJSON_CreateString(tricky[i]));
		cJSON_AddStringToObject(map, tricky[i], tricky[i]);
	}
	cJSON_AddItemToObject(tree, "list", list);
	cJSON_AddItemToObject(tree, "map", map);
	out = emit(tree);
	T_NOT_NULL(out);
	back = out ? parse_ok(out) : NULL;
	T_NOT_NULL(back);
	if (back != NULL && !cJSON_Compare(tree, back, 1)) {
		char *a = cJSON_PrintUnformatted(tree);
		char *b = cJSON_PrintUnformatted(back);

		T_STR_EQ(b, a);
		printf("# yaml was:\n%s\n", out);
		free(a);
		free(b);
	}
	/* Each element alone, so a failure names the string. */
	for (i = 0; tricky[i] != NULL; i++) {
		cJSON *one = cJSON_CreateObject(), *b1;
		char *o;

		cJSON_AddStringToObject(one, "v", tricky[i]);
		o = emit(one);
		b1 = o ? parse_ok(o) : NULL;
		T_STR_EQ(b1 ? cJSON_GetObjectItemCaseSensitive(b1, "v")->
		    valuestring : NULL, tricky[i]);
		cJSON_Delete(b1);
		cJSON_Delete(one);
		free(o);
	}
	cJSON_Delete(back);
	cJSON_Delete(tree);
	free(out);
}

/*
 * A terminal would act on C1 controls (U+009B is CSI) and bidi
 * overrides: the YAML never holds them raw, and reads back the same.
 */
TEST(terminal_controls_are_escaped_and_round_trip)
{
	static const char *const values[] = {
		"x\xe2\x80\xaey",		/* U+202E */
		"a\xc2\x9b" "31mb",		/* U+009B */
		"line\n\xe2\x81\xa6two",	/* U+2066 in a multi-line one */
		"caf\xc3\xa9",		/* stays as it is */
		NULL
	};
	cJSON *tree = cJSON_CreateObject(), *back;
	char *out;
	size_t i;

	for (i = 0; values[i] != NULL; i++)
		cJSON_AddStringToObject(tree, values[i], values[i]);
	out = emit(tree);
	T_NOT_NULL(out);
	if (out == NULL)
		return;
	T_NULL(strstr(out, "\xe2\x80\xae"));
	T_NULL(strstr(out, "\xc2\x9b"));
	T_NULL(strstr(out, "\xe2\x81\xa6"));
	T_STR_CONTAINS(out, "\\u202E");
	T_STR_CONTAINS(out, "caf\xc3\xa9");
	back = parse_ok(out);
	T_INT_EQ(back != NULL && cJSON_Compare(tree, back, 1), 1);
	cJSON_Delete(back);
	cJSON_Delete(tree);
	free(out);
}

TEST(retyping_strings_are_quoted)
{
	cJSON *t = cJSON_CreateObject();
	char *out;

	cJSON_AddStringToObject(t, "a", "true");
	cJSON_AddStringToObject(t, "b", "1");
	cJSON_AddStringToObject(t, "c", "");
	cJSON_AddStringToObject(t, "d", "null");
	cJSON_AddStringToObject(t, "e", "plain text");
	cJSON_AddStringToObject(t, "true", "yes");
	cJSON_AddStringToObject(t, "f", "0x1");
	cJSON_AddStringToObject(t, "g", "~");
	cJSON_AddStringToObject(t, "h", "1e3");
	out = emit(t);
	T_STR_EQ(out, "a: 'true'\nb: '1'\nc: ''\nd: 'null'\ne: plain text\n"
	    "'true': 'yes'\nf: '0x1'\ng: '~'\nh: '1e3'\n");
	free(out);
	cJSON_Delete(t);
}

TEST(numbers_keep_integers_integral)
{
	cJSON *t = cJSON_CreateObject(), *back;
	char *out;

	cJSON_AddNumberToObject(t, "port", 6443);
	cJSON_AddNumberToObject(t, "neg", -3);
	cJSON_AddNumberToObject(t, "half", 0.5);
	cJSON_AddNumberToObject(t, "tenth", 0.1);
	cJSON_AddNumberToObject(t, "big", 123456789012.0);
	cJSON_AddNumberToObject(t, "huge", 1e20);
	cJSON_AddNumberToObject(t, "third", 1.0 / 3);
	out = emit(t);
	T_STR_EQ(out, "port: 6443\nneg: -3\nhalf: 0.5\ntenth: 0.1\n"
	    "big: 123456789012\nhuge: 1e+20\nthird: 0.33333333333333331\n");
	back = parse_ok(out);
	T_OK(cJSON_Compare(t, back, 1));
	T_DBL_EQ(cJSON_GetObjectItem(back, "third")->valuedouble, 1.0 / 3);
	cJSON_Delete(back);
	cJSON_Delete(t);
	free(out);
}

/*
 * Integers past 2^53 read back as the very double written: the reader
 * once summed digits in a double, rounding at every step (found by
 * fuzz_values: 66666666666666664 came back as 66666666666666656).
 */
TEST(big_integers_read_back_exactly)
{
	static const double big[] = { 66666666666666664.0, 9007199254740993.0,
	    -123456789012345678.0, 8.999999999999999e18 };
	cJSON *t = cJSON_CreateArray(), *back, *v;
	char *out;
	size_t i;

	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		cJSON_AddItemToArray(t, cJSON_CreateNumber(big[i]));
	out = emit(t);
	back = parse_ok(out);
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		v = cJSON_GetArrayItem(back, (int)i);
		T_OK(v != NULL && v->valuedouble == big[i]);
	}
	cJSON_Delete(back);
	free(out);
	back = parse_ok("a: 66666666666666666\nb: +66666666666666666\n");
	T_OK(cJSON_GetObjectItem(back, "a")->valuedouble ==
	    strtod("66666666666666666", NULL));
	T_OK(cJSON_GetObjectItem(back, "b")->valuedouble ==
	    strtod("66666666666666666", NULL));
	cJSON_Delete(back);
	cJSON_Delete(t);
}

TEST(block_layout_and_empty_collections)
{
	const char *json = "{\"apiVersion\":\"v1\",\"clusters\":[{\"name\":"
	    "\"c\",\"cluster\":{\"server\":\"https://h:6443\"}}],"
	    "\"preferences\":{},\"extensions\":[],\"flag\":true,"
	    "\"none\":null,\"pem\":\"-----BEGIN X-----\\nAAA\\n\"}";
	cJSON *t = cJSON_Parse(json), *back;
	char *out;

	out = emit(t);
	T_STR_EQ(out, "apiVersion: v1\n"
	    "clusters:\n"
	    "- name: c\n"
	    "  cluster:\n"
	    "    server: https://h:6443\n"
	    "preferences: {}\n"
	    "extensions: []\n"
	    "flag: true\n"
	    "none: null\n"
	    "pem: |\n"
	    "  -----BEGIN X-----\n"
	    "  AAA\n");
	back = parse_ok(out);
	T_OK(cJSON_Compare(t, back, 1));
	cJSON_Delete(back);
	cJSON_Delete(t);
	free(out);
}

TEST(scalar_and_list_roots)
{
	cJSON *t = cJSON_CreateString("x"), *l;
	char *out = emit(t);

	T_STR_EQ(out, "x\n");
	free(out);
	cJSON_Delete(t);
	l = parse_ok("- 1\n- b\n");
	T_OK(cJSON_IsArray(l));
	T_INT_EQ(cJSON_GetArraySize(l), 2);
	cJSON_Delete(l);
}

TEST(anchors_and_aliases_are_copies)
{
	cJSON *r = parse_ok("base: &b {x: 1, y: [a, b]}\n"
	    "copy: *b\n"
	    "s: &s hello\n"
	    "t: *s\n"
	    "*s : as-key\n");
	const cJSON *base = cJSON_GetObjectItem(r, "base");
	const cJSON *copy = cJSON_GetObjectItem(r, "copy");

	T_OK(cJSON_Compare(base, copy, 1));
	T_OK(base != copy);
	T_STR_EQ(cJSON_GetObjectItem(r, "t")->valuestring, "hello");
	T_STR_EQ(cJSON_GetObjectItem(r, "hello")->valuestring, "as-key");
	cJSON_Delete(r);
}

TEST(merge_keys_fill_missing_keys_only)
{
	cJSON *r = parse_ok("a: &a {x: 1, y: 2}\n"
	    "b: &b {y: 20, z: 30}\n"
	    "one: {<<: *a, y: 3}\n"
	    "first: {y: 3, <<: *a}\n"
	    "many: {<<: [*a, *b]}\n"
	    "inline: {<<: {k: v}, j: w}\n");
	char *s;

	s = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "one"));
	T_STR_EQ(s, "{\"x\":1,\"y\":3}");
	free(s);
	s = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "first"));
	T_STR_EQ(s, "{\"y\":3,\"x\":1}");
	free(s);
	s = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "many"));
	T_STR_EQ(s, "{\"x\":1,\"y\":2,\"z\":30}");
	free(s);
	s = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "inline"));
	T_STR_EQ(s, "{\"k\":\"v\",\"j\":\"w\"}");
	free(s);
	cJSON_Delete(r);
	s = parse_fail("a: {<<: 5}\n", 11);
	T_STR_CONTAINS(s, "merge key '<<' must be a mapping");
	free(s);
}

TEST(anchor_survives_duplicate_key)
{
	/* The first "a" leaves the tree; its anchor must stay usable. */
	cJSON *r = parse_ok("a: &x {k: 1}\na: 2\nb: *x\n");
	char *s = cJSON_PrintUnformatted(r);

	T_STR_EQ(s, "{\"a\":2,\"b\":{\"k\":1}}");
	free(s);
	cJSON_Delete(r);
}

TEST(malformed_input_names_line_and_column)
{
	const char *bad = "apiVersion: v1\nclusters: [\n  - name: x\n";
	char *m;

	m = parse_fail(bad, strlen(bad));
	T_STR_EQ(m, "t.yaml: line 3 column 3: did not find expected node "
	    "content");
	free(m);
	m = parse_fail("a: b\n c: d\n", 11);
	T_STR_EQ(m, "t.yaml: line 2 column 3: mapping values are not allowed "
	    "in this context");
	free(m);
	m = parse_fail("a: *nope\n", 9);
	T_STR_EQ(m, "t.yaml: line 1 column 4: unknown alias 'nope'");
	free(m);
	m = parse_fail("a: 1\n\tb: 2\n", 11);
	T_STR_CONTAINS(m, "t.yaml: line 2 column 1: ");
	free(m);
	m = parse_fail("a: \xff\n", 5);
	T_STR_EQ(m, "t.yaml: line 1 column 4: invalid leading UTF-8 octet");
	free(m);
	m = parse_fail("? [a]\n: b\n", 10);
	T_STR_EQ(m, "t.yaml: line 1 column 3: a list as a mapping key is not "
	    "supported");
	free(m);
	m = parse_fail("a: \"x\\0y\"\n", 10);
	T_STR_CONTAINS(m, "NUL character");
	free(m);
	m = parse_fail("a: &r [*r]\n", 11);
	T_STR_CONTAINS(m, "unknown alias 'r'");
	free(m);
}

TEST(alias_bomb_is_refused)
{
	const char *bomb =
	    "a: &a [x, x, x, x, x, x, x, x, x]\n"
	    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
	    "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
	    "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
	char *m = parse_fail(bomb, strlen(bomb));

	T_STR_CONTAINS(m, "aliases expand to more than 100000 nodes");
	T_STR_CONTAINS(m, "t.yaml: line 6 column ");
	free(m);
}

TEST(deep_nesting_is_refused)
{
	size_t n = 5000, i;
	char *doc = malloc(2 * n + 1), *m;

	for (i = 0; i < n; i++) {
		doc[i] = '[';
		doc[n + i] = ']';
	}
	doc[2 * n] = '\0';
	m = parse_fail(doc, 2 * n);
	T_STR_CONTAINS(m, "nesting deeper than 512 levels");
	free(m);
	free(doc);
}

TEST(documents_empty_multi_duplicate)
{
	cJSON *r;
	char *s;

	r = parse_ok("");
	T_OK(cJSON_IsObject(r) && r->child == NULL);
	cJSON_Delete(r);
	r = parse_ok("# only a comment\n");
	T_OK(cJSON_IsObject(r) && r->child == NULL);
	cJSON_Delete(r);
	r = parse_ok("---\n");
	T_OK(cJSON_IsObject(r) && r->child == NULL);
	cJSON_Delete(r);
	r = parse_ok("a: 1\n---\nb: 2\n--- [\n");
	s = cJSON_PrintUnformatted(r);
	T_STR_EQ(s, "{\"a\":1}");
	free(s);
	cJSON_Delete(r);
	r = parse_ok("a: 1\nb: 2\na: 3\n");
	s = cJSON_PrintUnformatted(r);
	T_STR_EQ(s, "{\"b\":2,\"a\":3}");
	free(s);
	cJSON_Delete(r);
	r = parse_ok("1: one\nnull: n\n");
	s = cJSON_PrintUnformatted(r);
	T_STR_EQ(s, "{\"1\":\"one\",\"null\":\"n\"}");
	free(s);
	cJSON_Delete(r);
}

TEST(emit_respects_the_buffer_cap)
{
	struct rai_buf b;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *t = cJSON_Parse("{\"key\":\"a fairly long value here\"}");

	rai_buf_init(&b, 16);
	T_INT_EQ(rai_buf_addstr(&b, "x"), 0);
	T_INT_EQ(rai_yaml_emit(t, &b, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_CONTAINS(err.message, "exceeds");
	T_STR_EQ(rai_buf_str(&b), "x");
	rai_err_release(&err);
	rai_buf_release(&b);
	cJSON_Delete(t);
}

/* ---- property test: random trees survive emit + parse ---- */

static unsigned long rng_state = 12345;

static unsigned
rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng_state >> 33) % n);
}

static char *
random_string(char *buf, size_t size)
{
	static const char *const pieces[] = {
		"a", "b", "Z", "0", "1", "9", " ", ":", ": ", "#", " #", "-",
		"- ", "?", "'", "\"", "\\", "\n", "\t", ",", "[", "]", "{", "}",
		"&", "*", "!", "|", ">", "%", "@", "`", ".", "e", "x", "~",
		"true", "null", "yes", "0x", "0o", "\xc3\xa9", "\r", "<<"
	};
	size_t n = rnd(6), len = 0, k;
	const char *p;

	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		p = pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))];
		if (len + strlen(p) + 1 > size)
			break;
		memcpy(buf + len, p, strlen(p) + 1);
		len += strlen(p);
	}
	return buf;
}

static cJSON *
random_tree(int depth)
{
	char s[64], k[64];
	cJSON *n;
	unsigned i, cnt;

	switch (depth > 3 ? rnd(4) : rnd(6)) {
	case 0:
		return cJSON_CreateString(random_string(s, sizeof(s)));
	case 1:
		return cJSON_CreateNumber((double)(int)rnd(2000000) - 1e6 +
		    (rnd(2) ? 0 : rnd(1000) / 64.0));
	case 2:
		return cJSON_CreateBool(rnd(2));
	case 3:
		return cJSON_CreateNull();
	case 4:
		n = cJSON_CreateArray();
		cnt = rnd(4);
		for (i = 0; i < cnt; i++)
			cJSON_AddItemToArray(n, random_tree(depth + 1));
		return n;
	default:
		n = cJSON_CreateObject();
		cnt = rnd(4);
		for (i = 0; i < cnt; i++) {
			random_string(k, sizeof(k));
			if (cJSON_GetObjectItemCaseSensitive(n, k) == NULL)
				cJSON_AddItemToObject(n, k,
				    random_tree(depth + 1));
		}
		return n;
	}
}

TEST(random_trees_round_trip)
{
	int i, bad = 0;

	for (i = 0; i < 2000 && bad < 3; i++) {
		cJSON *t = cJSON_CreateObject(), *back;
		char *out;

		cJSON_AddItemToObject(t, "root", random_tree(0));
		out = emit(t);
		back = out ? parse_ok(out) : NULL;
		if (back == NULL || !cJSON_Compare(t, back, 1)) {
			char *a = cJSON_PrintUnformatted(t);

			t_fail_at(__FILE__, __LINE__);
			printf("round trip %d differs: %s\n# yaml:\n%s\n", i, a,
			    out ? out : "(none)");
			free(a);
			bad++;
		}
		cJSON_Delete(back);
		cJSON_Delete(t);
		free(out);
	}
}

int
main(void)
{
	RUN(typing_follows_the_core_schema);
	RUN(special_floats);
	RUN(bad_tagged_values_are_errors);
	RUN(tricky_strings_round_trip_as_values_and_keys);
	RUN(retyping_strings_are_quoted);
	RUN(numbers_keep_integers_integral);
	RUN(big_integers_read_back_exactly);
	RUN(block_layout_and_empty_collections);
	RUN(scalar_and_list_roots);
	RUN(anchors_and_aliases_are_copies);
	RUN(merge_keys_fill_missing_keys_only);
	RUN(anchor_survives_duplicate_key);
	RUN(malformed_input_names_line_and_column);
	RUN(alias_bomb_is_refused);
	RUN(deep_nesting_is_refused);
	RUN(documents_empty_multi_duplicate);
	RUN(emit_respects_the_buffer_cap);
	RUN(random_trees_round_trip);
	RUN(terminal_controls_are_escaped_and_round_trip);
	return t_done();
}
