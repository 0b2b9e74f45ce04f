/*
 * kube_lines and kube_items: however a byte stream is chunked (whole,
 * byte by byte, or random sizes under many seeds), the same lines (List
 * items) come out, each as soon as its '\n' (its last byte) arrives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/stream.h"

#include "harness.h"
#include "json_tree.h"

/* Lines seen, each written as "<len>:<bytes>|" so that any byte is safe. */
struct seen {
	struct rai_buf	 log;
	int		 n;
	int		 stop_after;	/* 0 = never stop */
};

static int
collect(void *ud, const char *line, size_t len)
{
	struct seen *s = ud;

	rai_buf_addf(&s->log, "%zu:", len);
	rai_buf_add(&s->log, line, len);
	rai_buf_addch(&s->log, '|');
	s->n++;
	return s->stop_after > 0 && s->n >= s->stop_after;
}

static uint32_t
lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/*
 * Feeds input in chunks (chunk 0 = random sizes from seed) and returns
 * the framed lines, finish included; NULL when a feed failed.
 */
static char *
frame(const char *in, size_t len, size_t chunk, uint32_t seed,
    size_t max_line)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	rai_buf_init(&s.log, 0);
	kube_lines_init(&l, max_line, collect, &s);
	while (off < len && rc == 0) {
		n = chunk ? chunk : 1 + lcg(&seed) % 17;
		if (n > len - off)
			n = len - off;
		rc = kube_lines_feed(&l, in + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = kube_lines_finish(&l, &err);
	kube_lines_release(&l);
	rai_err_release(&err);
	if (rc != 0) {
		rai_buf_release(&s.log);
		return NULL;
	}
	return rai_buf_detach(&s.log, NULL);
}

static const struct {
	const char	*in;
	const char	*want;
} cases[] = {
	{ "", "" },
	{ "a\n", "1:a|" },
	{ "a\nbb\nccc\n", "1:a|2:bb|3:ccc|" },
	{ "no newline at all", "17:no newline at all|" },
	{ "one\ntail", "3:one|4:tail|" },
	{ "\n\n\n", "0:|0:|0:|" },
	{ "x\n\ny\n", "1:x|0:|1:y|" },
	/* \r is data: logs keep it, the watch parser skips it as space */
	{ "a\r\nb\r\n", "2:a\r|2:b\r|" },
	{ "\r\n", "1:\r|" },
	{ "{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"DELETED\"",
	    "28:{\"type\":\"ADDED\",\"object\":{}}|17:{\"type\":\"DELETED\"|" },
	{ "utf-8 \xc3\xb1\n\xe2\x82\xac", "8:utf-8 \xc3\xb1|3:\xe2\x82\xac|" },
};

TEST(whole_input_gives_expected_lines)
{
	size_t i;
	char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = frame(cases[i].in, strlen(cases[i].in), 4096, 0, 0);
		T_STR_EQ(got, cases[i].want);
		free(got);
	}
}

TEST(one_byte_chunks_give_the_same_lines)
{
	size_t i;
	char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = frame(cases[i].in, strlen(cases[i].in), 1, 0, 0);
		T_STR_EQ(got, cases[i].want);
		free(got);
	}
}

/* A longer stream with lines of every length around the chunk sizes. */
static char *
make_stream(size_t *lenp)
{
	struct rai_buf b = RAI_BUF_INIT;
	int i, j;

	for (i = 0; i < 300; i++) {
		for (j = 0; j < i % 41; j++)
			rai_buf_addch(&b, 'a' + (i + j) % 26);
		if (i % 7 == 0)
			rai_buf_addch(&b, '\r');
		rai_buf_addch(&b, '\n');
	}
	rai_buf_addstr(&b, "unterminated tail");
	return rai_buf_detach(&b, lenp);
}

TEST(random_chunks_under_many_seeds_give_the_same_lines)
{
	size_t len, i;
	char *in = make_stream(&len), *whole, *bytes, *got;
	uint32_t seed;

	whole = frame(in, len, len, 0, 0);
	bytes = frame(in, len, 1, 0, 0);
	T_NOT_NULL(whole);
	T_STR_EQ(bytes, whole);
	for (seed = 1; seed <= 500; seed++) {
		got = frame(in, len, 0, seed, 0);
		T_STR_EQ(got, whole);
		free(got);
	}
	for (i = 2; i < 64; i++) {
		got = frame(in, len, i, 0, 0);
		T_STR_EQ(got, whole);
		free(got);
	}
	free(in);
	free(whole);
	free(bytes);
}

TEST(each_line_is_delivered_when_its_newline_arrives)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "abc\nde", 6, &err), 0);
	T_INT_EQ(s.n, 1);
	T_STR_EQ(rai_buf_str(&s.log), "3:abc|");
	T_INT_EQ(kube_lines_feed(&l, "f", 1, &err), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(kube_lines_feed(&l, "\n", 1, &err), 0);
	T_INT_EQ(s.n, 2);
	T_STR_EQ(rai_buf_str(&s.log), "3:abc|3:def|");
	T_UINT_EQ(l.partial.len, 0);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(finish_delivers_only_a_pending_tail)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "a\n", 2, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(kube_lines_feed(&l, "b", 1, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), "1:a|1:b|");
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(a_line_at_the_cap_passes_one_over_fails)
{
	char *got;

	/* exactly 8 bytes, whole and byte by byte */
	got = frame("12345678\n", 9, 9, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	got = frame("12345678\n", 9, 1, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	/* an unterminated tail at the cap is fine too */
	got = frame("12345678", 8, 1, 0, 8);
	T_STR_EQ(got, "8:12345678|");
	free(got);
	/* 9 bytes: in one chunk (no copy path), split, and unterminated */
	T_NULL(frame("123456789\n", 10, 10, 0, 8));
	T_NULL(frame("123456789\n", 10, 1, 0, 8));
	T_NULL(frame("1234\n123456789\n", 15, 7, 0, 8));
	T_NULL(frame("123456789", 9, 1, 0, 8));
}

TEST(an_over_long_line_is_a_protocol_error)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	kube_lines_init(&l, 4, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "abc", 3, &err), 0);
	T_INT_EQ(kube_lines_feed(&l, "de", 2, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_EQ(err.message, "a streamed line is longer than 4 bytes");
	T_INT_EQ(s.n, 0);
	rai_err_release(&err);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(default_cap_is_one_mib)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;
	size_t big = RAI_BUF_LINE_MAX + 1;
	char *line = malloc(big);

	memset(&s, 0, sizeof(s));
	memset(line, 'x', big);
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, line, big - 1, &err), 0);
	T_INT_EQ(kube_lines_feed(&l, "y", 1, &err), -1);
	T_STR_EQ(err.message, "a streamed line is longer than 1 MiB");
	rai_err_release(&err);
	kube_lines_release(&l);
	rai_buf_release(&s.log);
	free(line);
}

TEST(a_callback_asking_to_stop_gets_no_more_lines)
{
	struct kube_lines l;
	struct seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	kube_lines_init(&l, 0, collect, &s);
	T_INT_EQ(kube_lines_feed(&l, "1\n2\n3\n4", 7, &err), 0);
	T_INT_EQ(l.stopped, 1);
	T_INT_EQ(kube_lines_feed(&l, "\n5\n", 3, &err), 0);
	T_INT_EQ(kube_lines_finish(&l, &err), 0);
	T_INT_EQ(s.n, 2);
	T_STR_EQ(rai_buf_str(&s.log), "1:1|1:2|");
	kube_lines_release(&l);
	rai_buf_release(&s.log);
}

TEST(a_long_line_fed_byte_by_byte_arrives_whole)
{
	size_t len = 256 * 1024, i;
	char *in = malloc(len + 1);
	char *got, want[32];

	for (i = 0; i < len; i++)
		in[i] = 'a' + i % 26;
	in[len] = '\n';
	got = frame(in, len + 1, 1, 0, 0);
	snprintf(want, sizeof(want), "%zu:", len);
	T_OK(got != NULL && strncmp(got, want, strlen(want)) == 0);
	T_OK(got != NULL && memcmp(got + strlen(want), in, len) == 0);
	free(got);
	free(in);
}

/* ---- kube_items: List framing ---- */

/* Values seen, each as "key=<json>|" (key "-" for an item). */
struct items_seen {
	struct rai_buf	 log;
	int		 fail_at;	/* fail on this value (1-based), 0 never */
	int		 n;
	int		 trees;		/* items that came parsed */
};

/* frame_items asks for items as trees (kube_items_parse) */
static int tree_mode;

static int
collect_item(void *ud, const char *key, const char *json, size_t len,
    struct rai_err *err)
{
	struct items_seen *s = ud;

	rai_buf_addf(&s->log, "%s=", key != NULL ? key : "-");
	rai_buf_add(&s->log, json, len);
	rai_buf_addch(&s->log, '|');
	if (++s->n == s->fail_at)
		return rai_err_set(err, RAI_E_PROTO, "callback says no");
	return 0;
}

/*
 * An item that came parsed is logged as its text, as the text path would
 * log it, after checking the tree is cJSON's reading of that text.
 */
static int
collect_tree(void *ud, cJSON *tree, const char *json, size_t len,
    struct rai_err *err)
{
	struct items_seen *s = ud;
	cJSON *want = cJSON_ParseWithLength(json, len);

	s->trees++;
	if (want == NULL || *tree_diff(tree, want) != '\0')
		rai_buf_addstr(&s->log, "NOT-CJSON'S-TREE ");
	cJSON_Delete(want);
	cJSON_Delete(tree);
	return collect_item(ud, NULL, json, len, err);
}

/*
 * Feeds in chunks (0 = random sizes from seed); returns what came out,
 * or "ERR: <message>" when feeding or finishing failed.
 */
static char *
frame_items(const char *in, size_t len, size_t chunk, uint32_t seed,
    size_t max, int fail_at)
{
	struct kube_items it;
	struct items_seen s;
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int rc = 0;
	char *out;

	memset(&s, 0, sizeof(s));
	s.fail_at = fail_at;
	rai_buf_init(&s.log, 0);
	kube_items_init(&it, max, collect_item, &s);
	if (tree_mode)
		kube_items_parse(&it, collect_tree);
	while (off < len && rc == 0) {
		n = chunk ? chunk : 1 + lcg(&seed) % 23;
		if (n > len - off)
			n = len - off;
		rc = kube_items_feed(&it, in + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = kube_items_finish(&it, &err);
	kube_items_release(&it);
	if (rc != 0) {
		rai_buf_reset(&s.log);
		rai_buf_addf(&s.log, "ERR: %s", err.message);
	}
	rai_err_release(&err);
	out = rai_buf_detach(&s.log, NULL);
	return out != NULL ? out : strdup("");
}

static const struct {
	const char	*in;
	const char	*want;
} list_cases[] = {
	{ "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
	    "{\"resourceVersion\":\"7\",\"continue\":\"x\"},\"items\":"
	    "[{\"a\":1},{\"b\":[1,{\"c\":\"]}\"}]}]}\n",
	    "kind=\"PodList\"|apiVersion=\"v1\"|metadata={\"resourceVersion\":"
	    "\"7\",\"continue\":\"x\"}|-={\"a\":1}|-={\"b\":[1,{\"c\":\"]}\"}]}|" },
	/* blanks anywhere between tokens; kept inside values */
	{ " \r\n{ \"items\" : [ { \"a\" : \"x y\" } ,\n{ } ] , \"metadata\" :"
	    " { } }\n\n",
	    "-={ \"a\" : \"x y\" }|-={ }|metadata={ }|" },
	{ "{\"items\":[]}", "" },
	{ "{\"items\":null,\"metadata\":{}}", "items=null|metadata={}|" },
	{ "{}", "" },
	/* escapes: a quote and a backslash do not end a string */
	{ "{\"items\":[{\"s\":\"a\\\"]}\\\\\"},\"t\"]}",
	    "-={\"s\":\"a\\\"]}\\\\\"}|-=\"t\"|" },
	{ "{\"items\":[1, -2.5e3 ,true,null]}",
	    "-=1|-=-2.5e3|-=true|-=null|" },
	/* a non-array items is a member: the caller decides */
	{ "{\"items\":{\"a\":[]}}", "items={\"a\":[]}|" },
	/* UTF-8 passes untouched */
	{ "{\"items\":[\"\xc3\xb1\xe2\x82\xac\"]}", "-=\"\xc3\xb1\xe2\x82\xac\"|" },
};

TEST(list_items_come_out_whole_however_chunked)
{
	size_t i, chunk;
	uint32_t seed;
	char *got;

	for (i = 0; i < 2 * sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		tree_mode = i % 2;
		for (chunk = 1; chunk <= 4096; chunk *= 4) {
			got = frame_items(list_cases[i / 2].in,
			    strlen(list_cases[i / 2].in), chunk, 0, 0, 0);
			T_STR_EQ(got, list_cases[i / 2].want);
			free(got);
		}
		for (seed = 1; seed <= 50; seed++) {
			got = frame_items(list_cases[i / 2].in,
			    strlen(list_cases[i / 2].in), 0, seed, 0, 0);
			T_STR_EQ(got, list_cases[i / 2].want);
			free(got);
		}
	}
	tree_mode = 0;
}

static const struct {
	const char	*in;
	const char	*want;
} bad_lists[] = {
	{ "", "ERR: malformed JSON list at byte 0: expected a JSON object" },
	{ "[1]", "ERR: malformed JSON list at byte 0: expected a JSON object" },
	{ "<html>", "ERR: malformed JSON list at byte 0: expected a JSON "
	    "object" },
	{ "{\"items\":[{\"a\":1}", "ERR: the list ended after 17 bytes, in "
	    "the middle" },
	{ "{\"items\":[{\"a\":1},]}", "ERR: malformed JSON list at byte 18: "
	    "expected an item" },
	{ "{\"items\":[{} {}]}", "ERR: malformed JSON list at byte 13: "
	    "expected ',' or ']'" },
	{ "{\"a\" 1}", "ERR: malformed JSON list at byte 5: expected ':'" },
	{ "{\"a\":1 \"b\":2}", "ERR: malformed JSON list at byte 7: "
	    "expected ',' or '}'" },
	{ "{\"a\":}", "ERR: malformed JSON list at byte 5: expected a value" },
	{ "{,}", "ERR: malformed JSON list at byte 1: expected a member "
	    "name" },
	{ "{} x", "ERR: malformed JSON list at byte 3: data after the list" },
	{ "{\"items\":[\"unterminated]}", "ERR: the list ended after 25 "
	    "bytes, in the middle" },
};

TEST(malformed_lists_are_protocol_errors)
{
	size_t i;
	char *got;

	for (i = 0; i < 2 * sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		tree_mode = i % 2;
		got = frame_items(bad_lists[i / 2].in, strlen(bad_lists[i / 2].in),
		    1, 0, 0, 0);
		T_STR_EQ(got, bad_lists[i / 2].want);
		free(got);
		got = frame_items(bad_lists[i / 2].in, strlen(bad_lists[i / 2].in),
		    4096, 0, 0, 0);
		T_STR_EQ(got, bad_lists[i / 2].want);
		free(got);
	}
	tree_mode = 0;
}

TEST(an_item_over_the_cap_fails_one_at_it_passes)
{
	static const struct {
		int		 trees;
		const char	*in, *item;
	} capped[] = {
		{ 0, "{\"items\":[\"12345678\"]}", "\"12345678\"" },
		/* an object whole in the chunk, parsed in place: the same cap */
		{ 1, "{\"items\":[{\"a\":\"123\"}]}", "{\"a\":\"123\"}" },
	};
	char *got, want[64];
	size_t i, cap;

	for (i = 0; i < sizeof(capped) / sizeof(capped[0]); i++) {
		tree_mode = capped[i].trees;
		cap = strlen(capped[i].item);
		got = frame_items(capped[i].in, strlen(capped[i].in),
		    tree_mode ? 4096 : 3, 0, cap, 0);
		snprintf(want, sizeof(want), "-=%s|", capped[i].item);
		T_STR_EQ(got, want);
		free(got);
		got = frame_items(capped[i].in, strlen(capped[i].in),
		    tree_mode ? 4096 : 3, 0, cap - 1, 0);
		snprintf(want, sizeof(want), "ERR: a list item is larger "
		    "than %zu bytes", cap - 1);
		T_STR_EQ(got, want);
		free(got);
	}
	tree_mode = 0;
}

/*
 * With trees asked for, an object item whole in the bytes fed comes
 * parsed; one cut by a chunk's end, a scalar, and an item that is not
 * valid JSON come as text (whose reader then refuses the last).
 */
TEST(object_items_whole_in_a_chunk_come_parsed)
{
	const char *in = "{\"items\":[{\"a\":\"1\"},7,{\"b\":[{}]}]}";
	const char *want = "-={\"a\":\"1\"}|-=7|-={\"b\":[{}]}|";
	const char *bad = "{\"items\":[{\"a\":01}]}";
	struct kube_items it;
	struct items_seen s;
	struct rai_err err = RAI_ERR_INIT;
	char *got;

	memset(&s, 0, sizeof(s));
	rai_buf_init(&s.log, 0);
	kube_items_init(&it, 0, collect_item, &s);
	kube_items_parse(&it, collect_tree);
	T_INT_EQ(kube_items_feed(&it, in, strlen(in), &err), 0);
	T_INT_EQ(kube_items_finish(&it, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), want);
	T_INT_EQ(s.trees, 2);
	T_UINT_EQ(it.nitems, 3);
	kube_items_release(&it);
	/* cut in two inside the second object: it comes as text */
	rai_buf_reset(&s.log);
	s.trees = s.n = 0;
	kube_items_init(&it, 0, collect_item, &s);
	kube_items_parse(&it, collect_tree);
	T_INT_EQ(kube_items_feed(&it, in, strlen(in) - 6, &err), 0);
	T_INT_EQ(kube_items_feed(&it, in + strlen(in) - 6, 6, &err), 0);
	T_INT_EQ(kube_items_finish(&it, &err), 0);
	T_STR_EQ(rai_buf_str(&s.log), want);
	T_INT_EQ(s.trees, 1);
	kube_items_release(&it);
	rai_buf_release(&s.log);
	tree_mode = 1;
	got = frame_items(bad, strlen(bad), 4096, 0, 0, 0);
	T_STR_EQ(got, "-={\"a\":01}|");	/* the text path's job to refuse */
	free(got);
	got = frame_items(in, strlen(in), 4096, 0, 0, 1);
	T_STR_EQ(got, "ERR: callback says no");
	free(got);
	tree_mode = 0;
	rai_err_release(&err);
}

TEST(a_callback_error_stops_the_list)
{
	const char *in = "{\"items\":[1,2,3]}";
	char *got = frame_items(in, strlen(in), 1, 0, 0, 2);

	T_STR_EQ(got, "ERR: callback says no");
	free(got);
}

/* Each item goes out as soon as its last byte is in, not at the end. */
TEST(an_item_is_delivered_when_its_last_byte_arrives)
{
	const char *in = "{\"items\":[{\"a\":1},{\"b\":2}]}";
	struct kube_items it;
	struct items_seen s;
	struct rai_err err = RAI_ERR_INIT;

	memset(&s, 0, sizeof(s));
	rai_buf_init(&s.log, 0);
	kube_items_init(&it, 0, collect_item, &s);
	T_INT_EQ(kube_items_feed(&it, in, 16, &err), 0);	/* ...{"a":1 */
	T_INT_EQ(s.n, 0);
	T_INT_EQ(kube_items_feed(&it, in + 16, 1, &err), 0);	/* } */
	T_INT_EQ(s.n, 1);
	T_INT_EQ(kube_items_feed(&it, in + 17, strlen(in) - 17, &err), 0);
	T_INT_EQ(s.n, 2);
	T_INT_EQ(kube_items_finish(&it, &err), 0);
	T_UINT_EQ(it.nitems, 2);
	kube_items_release(&it);
	rai_buf_release(&s.log);
}

/* 10,000 items through a small buffer: memory is one item, not the list. */
TEST(a_long_list_is_held_one_item_at_a_time)
{
	struct rai_buf in = RAI_BUF_INIT;
	struct kube_items it;
	struct items_seen s;
	struct rai_err err = RAI_ERR_INIT;
	int i;

	rai_buf_init(&in, 0);
	rai_buf_addstr(&in, "{\"metadata\":{},\"items\":[");
	for (i = 0; i < 10000; i++)
		rai_buf_addf(&in, "%s{\"name\":\"job-%05d\",\"x\":[[[]]]}",
		    i ? "," : "", i);
	rai_buf_addstr(&in, "]}");
	memset(&s, 0, sizeof(s));
	rai_buf_init(&s.log, 0);
	kube_items_init(&it, 64, collect_item, &s);
	T_INT_EQ(kube_items_feed(&it, in.data, in.len, &err), 0);
	T_INT_EQ(kube_items_finish(&it, &err), 0);
	T_UINT_EQ(it.nitems, 10000);
	T_OK(it.val.alloc <= 64);
	kube_items_release(&it);
	rai_buf_release(&s.log);
	rai_buf_release(&in);
	rai_err_release(&err);
}

int
main(void)
{
	RUN(whole_input_gives_expected_lines);
	RUN(one_byte_chunks_give_the_same_lines);
	RUN(random_chunks_under_many_seeds_give_the_same_lines);
	RUN(each_line_is_delivered_when_its_newline_arrives);
	RUN(finish_delivers_only_a_pending_tail);
	RUN(a_line_at_the_cap_passes_one_over_fails);
	RUN(an_over_long_line_is_a_protocol_error);
	RUN(default_cap_is_one_mib);
	RUN(a_callback_asking_to_stop_gets_no_more_lines);
	RUN(a_long_line_fed_byte_by_byte_arrives_whole);
	RUN(list_items_come_out_whole_however_chunked);
	RUN(malformed_lists_are_protocol_errors);
	RUN(an_item_over_the_cap_fails_one_at_it_passes);
	RUN(a_callback_error_stops_the_list);
	RUN(object_items_whole_in_a_chunk_come_parsed);
	RUN(an_item_is_delivered_when_its_last_byte_arrives);
	RUN(a_long_list_is_held_one_item_at_a_time);
	return t_done();
}
