/*
 * core/text: what a terminal must never receive raw from a server,
 * cleaned for text output and escaped for JSON output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "core/buf.h"
#include "core/text.h"

#include "core/banned.h"

TEST(unsafe_code_points)
{
	static const long unsafe[] = {
		-1, 0x00, 0x07, 0x08, 0x0a, 0x0d, 0x1b, 0x7f, 0x80, 0x85,
		0x9b, 0x9d, 0x9f, 0x202a, 0x202e, 0x2066, 0x2069,
	};
	static const long safe[] = {
		0x20, 'a', 0x7e, 0xa0, 0xe9, 0x2029, 0x202f, 0x2065, 0x206a,
		0x2502, 0x65e5, 0x1f600,
	};
	size_t i;

	for (i = 0; i < sizeof(unsafe) / sizeof(*unsafe); i++)
		T_INT_EQ(rai_text_unsafe(unsafe[i]), 1);
	for (i = 0; i < sizeof(safe) / sizeof(*safe); i++)
		T_INT_EQ(rai_text_unsafe(safe[i]), 0);
}

static char *
hardened(const char *json)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_buf_init(&b, (size_t)-1);
	rai_text_json_harden(&b, json);
	return rai_buf_detach(&b, NULL);
}

TEST(json_harden_escapes_c1_bidi_and_del)
{
	static const struct {
		const char	*in, *want;
	} cases[] = {
		{ "{\"a\":\"csi\xc2\x9b" "2J\"}", "{\"a\":\"csi\\u009b2J\"}" },
		{ "[\"rtl\xe2\x80\xae" "gpj.exe\"]",
		  "[\"rtl\\u202egpj.exe\"]" },
		{ "\"nel\xc2\x85 del\x7f\"", "\"nel\\u0085 del\\u007f\"" },
		{ "\"isolate\xe2\x81\xa6x\"", "\"isolate\\u2066x\"" },
		{ "\"bad\xff\"", "\"bad\\ufffd\"" },
		/* text and layout that is safe stays byte for byte */
		{ "{\n    \"caf\xc3\xa9\": \"\xe6\x97\xa5 \\u001b\"\n}\n",
		  "{\n    \"caf\xc3\xa9\": \"\xe6\x97\xa5 \\u001b\"\n}\n" },
		{ "", "" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		s = hardened(cases[i].in);
		T_STR_EQ(s, cases[i].want);
		free(s);
	}
}

static char *
put_text(const char *before, const char *text, const char *after)
{
	FILE *f = tmpfile();
	char buf[256];
	size_t n;

	rai_text_put(f, before, text, after);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strdup(buf);
}

TEST(put_cleans_only_the_outside_text)
{
	char *s;

	s = put_text("STATUS: ", "\x1b]52;c;cHduZWQ=\x07Running\r", "\n");
	T_STR_EQ(s, "STATUS: ?]52;c;cHduZWQ=?Running?\n");
	free(s);
	s = put_text("node/", NULL, "\n");
	T_STR_EQ(s, "node/\n");
	free(s);
	s = put_text("", "a\xc2\x9b" "b\xe2\x80\xae" "c\bd", "");
	T_STR_EQ(s, "a?b?c?d");
	free(s);
}

/* -v's log lines: newlines and tabs stay, everything else as sanitize. */
TEST(sanitize_lines_keeps_line_breaks_only)
{
	char *a = rai_text_sanitize_lines("a\tb\nc\x1b]52;c;x\x07\r\xc2\x9b"
	    "\xe2\x80\xae\xff");
	char *b = rai_text_sanitize("a\tb\nc");

	T_STR_EQ(a, "a\tb\nc?]52;c;x?????");
	T_STR_EQ(b, "a?b?c");
	free(a);
	free(b);
	a = rai_text_sanitize_lines("plain\n");
	T_STR_EQ(a, "plain\n");
	free(a);
}

int
main(void)
{
	RUN(unsafe_code_points);
	RUN(json_harden_escapes_c1_bidi_and_del);
	RUN(put_cleans_only_the_outside_text);
	RUN(sanitize_lines_keeps_line_breaks_only);
	return t_done();
}
