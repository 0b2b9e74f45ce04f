/*
 * Unit tests of the core: rai_buf caps, Status parsing, redaction, JSON
 * paths and wiping, base64, what a URL says of its host.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http_err.h"
#include "core/json.h"
#include "core/log.h"
#include "core/url.h"

#include "harness.h"

TEST(buf_cap_refuses_growth)
{
	struct rai_buf b;

	rai_buf_init(&b, 8);
	T_INT_EQ(rai_buf_addstr(&b, "12345678"), 0);
	T_INT_EQ(rai_buf_addch(&b, 'x'), -1);
	T_UINT_EQ(b.len, 8);
	T_STR_EQ(rai_buf_str(&b), "12345678");
	rai_buf_release(&b);
}

TEST(buf_addf_consume_detach)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t len;
	char *s;

	T_STR_EQ(rai_buf_str(&b), "");
	T_INT_EQ(rai_buf_addf(&b, "%s-%d", "ab", 42), 0);
	rai_buf_consume(&b, 1);
	T_STR_EQ(rai_buf_str(&b), "b-42");
	s = rai_buf_detach(&b, &len);
	T_STR_EQ(s, "b-42");
	T_UINT_EQ(len, 4);
	T_NULL(b.data);
	free(s);
}

TEST(status_body_fills_error)
{
	const char *body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
	    "\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
	    "\"reason\":\"NotFound\",\"details\":{\"name\":\"x\","
	    "\"kind\":\"pods\",\"causes\":[{\"reason\":\"FieldValueRequired\","
	    "\"field\":\"spec.image\",\"message\":\"Required value\"}],"
	    "\"retryAfterSeconds\":3},\"code\":404}";
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(rai_err_from_http(&err, 404, "application/json", body,
	    strlen(body), 0), -1);
	T_INT_EQ(err.kind, RAI_E_HTTP);
	T_INT_EQ(err.http_status, 404);
	T_STR_EQ(err.reason, "NotFound");
	T_STR_EQ(err.message, "pods \"x\" not found");
	T_STR_EQ(err.obj_name, "x");
	T_STR_EQ(err.kind_name, "pods");
	T_INT_EQ(err.retry_after, 3);
	T_UINT_EQ(err.ncauses, 1);
	T_STR_EQ(err.causes[0].field, "spec.image");
	T_INT_EQ(rai_err_exit_code(&err), 1);
	rai_err_release(&err);
}

TEST(non_status_body_gives_phrase_and_excerpt)
{
	const char *body = "<html>\n<b>oops</b>\x01</html>";
	struct rai_err err = RAI_ERR_INIT;

	rai_err_from_http(&err, 502, "text/html", body, strlen(body), 7);
	T_STR_EQ(err.reason, "");
	T_STR_EQ(err.message, "502 Bad Gateway: <html> <b>oops</b>?</html>");
	T_INT_EQ(err.retry_after, 7);
	rai_err_release(&err);

	rai_err_from_http(&err, 500, NULL, "", 0, 0);
	T_STR_EQ(err.reason, "InternalError");
	T_STR_EQ(err.message, "500 Internal Server Error");
	rai_err_release(&err);
}

TEST(json_status_without_message_uses_phrase)
{
	const char *body = "{\"kind\":\"Status\",\"reason\":\"Forbidden\"}";
	const char *blank = "{\"kind\":\"Status\",\"message\":\"\t \\n\"}";
	struct rai_err err = RAI_ERR_INIT;

	rai_err_from_http(&err, 403, NULL, body, strlen(body), 0);
	T_STR_EQ(err.reason, "Forbidden");
	T_STR_EQ(err.message, "403 Forbidden");
	rai_err_release(&err);
	/* the fuzzer's: a message of blanks (a tab, then NUL bytes) */
	rai_err_from_http(&err, 404, NULL, blank, strlen(blank), 0);
	T_STR_EQ(err.message, "404 Not Found");
	rai_err_release(&err);
}

TEST(err_prefix_and_usage_exit)
{
	struct rai_err err = RAI_ERR_INIT;

	rai_err_set(&err, RAI_E_USAGE, "bad %s", "flag");
	rai_err_prefix(&err, "runai %s", "list");
	T_STR_EQ(err.message, "runai list: bad flag");
	T_INT_EQ(rai_err_exit_code(&err), 2);
	rai_err_release(&err);
	T_INT_EQ(rai_err_exit_code(&err), 0);
}

static char *
redact_hdr(const char *s)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_redact_header(s, strlen(s), &b);
	return rai_buf_detach(&b, NULL);
}

static char *
redact_body(const char *s)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_redact_body(s, strlen(s), &b);
	return rai_buf_detach(&b, NULL);
}

TEST(redacts_headers)
{
	char *s;

	s = redact_hdr("Authorization: Bearer abc.def");
	T_STR_EQ(s, "Authorization: Bearer <redacted>");
	free(s);
	s = redact_hdr("GET / HTTP/1.1\r\nproxy-authorization: Basic Zm9v\r\n"
	    "Cookie: a=b\r\nAccept: */*\r\n");
	T_STR_EQ(s, "GET / HTTP/1.1\r\nproxy-authorization: Basic <redacted>\n"
	    "Cookie: <redacted>\nAccept: */*\r\n");
	free(s);
	s = redact_hdr("X-Auth-Token: s3cr3t");
	T_STR_EQ(s, "X-Auth-Token: <redacted>");
	free(s);
}

TEST(redacts_json_and_form_bodies)
{
	char *s;

	s = redact_body("{\"id_token\": \"abc\", \"name\":\"x\","
	    "\"refresh-token\":\"r\\\"q\",\"password\":\"pw\"}");
	T_STR_EQ(s, "{\"id_token\": \"<redacted>\", \"name\":\"x\","
	    "\"refresh-token\":\"<redacted>\",\"password\":\"<redacted>\"}");
	free(s);
	s = redact_body("grant_type=password&username=u&password=p%20w"
	    "&client_secret=zz&scope=openid");
	T_STR_EQ(s, "grant_type=password&username=u&password=<redacted>"
	    "&client_secret=<redacted>&scope=openid");
	free(s);
	/* truncated JSON still redacts what it can */
	s = redact_body("{\"token\":\"abcdef");
	T_STR_EQ(s, "{\"token\":\"<redacted>\"");
	free(s);
	s = redact_body("log line with eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln end");
	T_STR_EQ(s, "log line with <redacted> end");
	free(s);
}

/* An environment variable named like a secret keeps its name, not its value. */
TEST(redacts_values_of_secret_named_variables)
{
	char *s;

	s = redact_body("{\"env\":[{\"name\":\"API_TOKEN\",\"value\":\"s3cret\"},"
	    "{\"name\":\"EPOCHS\",\"value\":\"10\"},{\"name\": "
	    "\"aws_secret_access_key\", \"value\": \"k1\"}],\"value\":\"top\"}");
	T_STR_EQ(s, "{\"env\":[{\"name\":\"API_TOKEN\",\"value\":\"<redacted>\"},"
	    "{\"name\":\"EPOCHS\",\"value\":\"10\"},{\"name\": "
	    "\"aws_secret_access_key\", \"value\": \"<redacted>\"}],"
	    "\"value\":\"top\"}");
	free(s);
	/* a nested object's "value" is not its parent's variable */
	s = redact_body("{\"name\":\"DB_PASSWORD\",\"valueFrom\":{\"value\":\"x\"},"
	    "\"value\":\"pw\"}");
	T_STR_EQ(s, "{\"name\":\"DB_PASSWORD\",\"valueFrom\":{\"value\":\"x\"},"
	    "\"value\":\"<redacted>\"}");
	free(s);
	/* in text: a ConfigMap's values, a recorded command line */
	s = redact_body("{\"values\":\"environment:\\n- API_TOKEN=s3cret\\n- "
	    "EPOCHS=10\\n\",\"cmd\":\"runai submit -e DB_PASSWORD=pw -e X=1\"}");
	T_STR_EQ(s, "{\"values\":\"environment:\\n- API_TOKEN=<redacted>\\n- "
	    "EPOCHS=10\\n\",\"cmd\":\"runai submit -e DB_PASSWORD=<redacted> "
	    "-e X=1\"}");
	free(s);
	T_INT_EQ(rai_is_secret_name("MY_API_KEY", 10), 1);
	T_INT_EQ(rai_is_secret_name("EPOCHS", 6), 0);
}

/* A command line kept as one string reads back in a shell as typed. */
TEST(shell_words)
{
	struct rai_buf b = RAI_BUF_INIT;

	T_INT_EQ(rai_shell_plain("train.py"), 1);
	T_INT_EQ(rai_shell_plain("--epochs=10"), 1);
	T_INT_EQ(rai_shell_plain(""), 0);
	T_INT_EQ(rai_shell_plain("a b"), 0);
	T_INT_EQ(rai_buf_add_shell_word(&b, "echo 'boom'; exit 3"), 0);
	rai_buf_addch(&b, ' ');
	rai_buf_add_shell_word(&b, "");
	rai_buf_addch(&b, ' ');
	rai_buf_add_shell_word(&b, "plain");
	T_STR_EQ(rai_buf_str(&b), "'echo '\\''boom'\\''; exit 3' '' plain");
	rai_buf_release(&b);
}

TEST(secret_key_names)
{
	T_INT_EQ(rai_is_secret_key("id-token", 8), 1);
	T_INT_EQ(rai_is_secret_key("accessToken", 11), 1);
	T_INT_EQ(rai_is_secret_key("client-secret", 13), 1);
	T_INT_EQ(rai_is_secret_key("username", 8), 0);
	T_INT_EQ(rai_is_secret_key("tokenFile", 9), 0);
}

TEST(json_paths_and_types)
{
	cJSON *root = NULL;
	struct rai_err err = RAI_ERR_INIT;
	const char *doc = "{\"metadata\":{\"name\":\"n\",\"labels\":"
	    "{\"runai/queue\":\"team-a\"}},\"spec\":{\"deservedGpus\":2.5,"
	    "\"x\":true,\"big\":1e300,\"small\":-1e300},\"items\":[1]}";

	T_INT_EQ(rai_json_parse(doc, strlen(doc), "doc", &root, &err), 0);
	T_STR_EQ(rai_json_str(root, "metadata.name"), "n");
	T_STR_EQ(rai_json_label(root, "runai/queue"), "team-a");
	T_DBL_EQ(rai_json_num(root, "spec.deservedGpus", -1), 2.5);
	T_DBL_EQ(rai_json_num(root, "metadata.name", -1), -1);
	/* whole numbers clamped to the range asked for, def when absent */
	T_INT_EQ(rai_json_long(root, "spec.deservedGpus", -1, 0, 10), 2);
	T_INT_EQ(rai_json_long(root, "spec.deservedGpus", -1, 0, 1), 1);
	T_INT_EQ(rai_json_long(root, "metadata.name", -7, 0, 10), -7);
	T_INT_EQ(rai_json_long(root, "spec.none", -7, 0, 10), -7);
	T_INT_EQ(rai_json_long(root, "spec.big", 0, -5, 5), 5);
	T_INT_EQ(rai_json_long(root, "spec.small", 0, -5, 5), -5);
	T_NULL(rai_json_str(root, "spec.deservedGpus"));
	T_INT_EQ(rai_json_bool(root, "spec.x", 0), 1);
	T_NOT_NULL(rai_json_array(root, "items"));
	T_NULL(rai_json_array(root, "spec"));
	rai_json_set_str(root, "metadata.annotations.a", "b");
	T_STR_EQ(rai_json_annotation(root, "a"), "b");
	cJSON_Delete(root);

	T_INT_EQ(rai_json_parse("{\"a\":", 5, "response", &root, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_CONTAINS(err.message, "response: malformed JSON");
	rai_err_release(&err);
	T_INT_EQ(rai_json_parse("", 0, "body", &root, &err), -1);
	T_STR_EQ(err.message, "body: empty body where JSON was expected");
	rai_err_release(&err);
}

/* A path's segment names a whole member: not a prefix, not a longer name. */
TEST(json_path_segments_match_whole_names)
{
	cJSON *root = NULL;
	struct rai_err err = RAI_ERR_INIT;
	const char *doc = "{\"meta\":{\"n\":\"short\"},\"metadatax\":1,"
	    "\"metadata\":{\"name\":\"first\",\"nam\":\"p\",\"\":\"empty\","
	    "\"name\":\"second\"},\"a.b\":\"dotted\"}";

	T_INT_EQ(rai_json_parse(doc, strlen(doc), "doc", &root, &err), 0);
	T_STR_EQ(rai_json_str(root, "metadata.name"), "first");
	T_STR_EQ(rai_json_str(root, "metadata.nam"), "p");
	T_STR_EQ(rai_json_str(root, "meta.n"), "short");
	T_NULL(rai_json_get(root, "metadat"));
	T_NULL(rai_json_get(root, "metadata.na"));
	T_NULL(rai_json_get(root, "metadata.names"));
	T_NULL(rai_json_str(root, ""));	/* the root, not a string */
	T_STR_EQ(rai_json_str(rai_json_child(root, "metadata"), "name"),
	    "first");
	T_STR_EQ(cJSON_GetStringValue(rai_json_child(rai_json_child(root,
	    "metadata"), "")), "empty");
	T_NULL(rai_json_get(root, "metadata..name"));
	T_NULL(rai_json_get(root, "a.b"));	/* a dot always splits */
	T_NULL(rai_json_child(rai_json_get(root, "metadata.name"), "x"));
	cJSON_Delete(root);
}

TEST(json_wipe_zeroes_nested_strings)
{
	const char *doc = "{\"a\":\"secret\",\"b\":{\"c\":[\"xy\","
	    "{\"d\":\"zz\"}],\"n\":7}}";
	cJSON *root = cJSON_Parse(doc);
	const cJSON *c;
	char *a, *xy, *zz;

	T_NOT_NULL(root);
	a = cJSON_GetObjectItem(root, "a")->valuestring;
	c = rai_json_get(root, "b.c");
	xy = cJSON_GetArrayItem(c, 0)->valuestring;
	zz = cJSON_GetObjectItem(cJSON_GetArrayItem(c, 1), "d")->valuestring;
	rai_json_wipe(root);
	T_MEM_EQ(a, "\0\0\0\0\0\0", 6);
	T_MEM_EQ(xy, "\0\0", 2);
	T_MEM_EQ(zz, "\0\0", 2);
	T_DBL_EQ(rai_json_num(root, "b.n", -1), 7);
	rai_json_wipe(NULL);
	cJSON_Delete(root);
}

/* "in -> decoded" or "in -> (rejected)", so a failure names its input. */
static char *
b64_try(const char *in, int flags)
{
	size_t len = 0;
	unsigned char *d = rai_base64_decode(in, strlen(in), flags, &len);
	char *s;

	if (d == NULL)
		return xasprintf("%s -> (rejected)", in);
	s = xasprintf("%s -> %.*s", in, (int)len, (char *)d);
	free(d);
	return s;
}

struct b64_case {
	const char	*in;
	int		 flags;
	const char	*want;		/* NULL: rejected */
};

static void
b64_cases(const struct b64_case *tc, size_t n)
{
	char *got, *want;
	size_t i;

	for (i = 0; i < n; i++) {
		got = b64_try(tc[i].in, tc[i].flags);
		want = xasprintf("%s -> %s", tc[i].in, tc[i].want != NULL ?
		    tc[i].want : "(rejected)");
		T_STR_EQ(got, want);
		free(got);
		free(want);
	}
}

#define REQ	RAI_B64_PAD_REQUIRED
#define OPT	RAI_B64_PAD_OPTIONAL
#define NOPAD	RAI_B64_PAD_FORBIDDEN

TEST(base64_rfc4648_vectors)
{
	static const char *const plain[] = {
	    "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const enc[] = {
	    "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	static const char *const bare[] = {
	    "", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy" };
	struct b64_case tc[4];
	char *s;
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		s = rai_base64_encode(plain[i], strlen(plain[i]));
		T_STR_EQ(s, enc[i]);
		free(s);
		tc[0] = (struct b64_case){ enc[i], REQ, plain[i] };
		tc[1] = (struct b64_case){ enc[i], OPT, plain[i] };
		tc[2] = (struct b64_case){ bare[i], OPT, plain[i] };
		tc[3] = (struct b64_case){ bare[i], NOPAD | RAI_B64_URL,
		    plain[i] };
		b64_cases(tc, 4);
	}
	/* Binary, and a NUL kept in the length. */
	s = rai_base64_encode("\xfb\xff\x00", 3);
	T_STR_EQ(s, "+/8A");
	free(s);
}

TEST(base64_alphabets)
{
	static const struct b64_case tc[] = {
		{ "P+/A", REQ, "?\xef\xc0" },
		{ "P-_A", REQ, NULL },
		{ "P-_A", RAI_B64_URL, "?\xef\xc0" },
		{ "P+/A", RAI_B64_URL, NULL },
		{ "P+_A", RAI_B64_URL, NULL },
		{ "P+_A", RAI_B64_EITHER, "?\xef\xc0" },
		{ "P-/A", RAI_B64_EITHER, "?\xef\xc0" },
		{ "P-/A", RAI_B64_EITHER | OPT, "?\xef\xc0" },
	};

	b64_cases(tc, sizeof(tc) / sizeof(tc[0]));
}

TEST(base64_padding_rules)
{
	static const struct b64_case tc[] = {
		/* required: whole quanta only, '=' only at the end */
		{ "Zg==", REQ, "f" },
		{ "Zg=", REQ, NULL },
		{ "Zg", REQ, NULL },
		{ "Zm8", REQ, NULL },
		{ "Zm8==", REQ, NULL },
		{ "Zg=a", REQ, NULL },
		{ "Z=g=", REQ, NULL },
		{ "====", REQ, NULL },
		/* optional: up to two trailing '=', count not checked */
		{ "Zg", OPT, "f" },
		{ "Zg=", OPT, "f" },
		{ "Zm9v==", OPT, "foo" },
		{ "Zg===", OPT, NULL },
		{ "Zg=a", OPT, NULL },
		{ "=", OPT, "" },
		/* forbidden: '=' is just a bad character */
		{ "Zg==", NOPAD, NULL },
		{ "Zm8=", RAI_B64_URL | NOPAD, NULL },
		{ "Zm8", RAI_B64_URL | NOPAD, "fo" },
		/* whitespace only where asked for */
		{ "Zm9v\nYmFy", OPT, NULL },
		{ " Zm9v\r\n\tYmE =\n", OPT | RAI_B64_SKIP_WS, "fooba" },
		{ "Zm9v\nYg= =", REQ | RAI_B64_SKIP_WS, "foob" },
		{ "Zg== ", REQ, NULL },
	};

	b64_cases(tc, sizeof(tc) / sizeof(tc[0]));
}

TEST(base64_malformed)
{
	static const int modes[] = {
	    REQ, OPT, OPT | RAI_B64_SKIP_WS, NOPAD | RAI_B64_URL,
	    RAI_B64_EITHER };
	static const char *const bad[] = {
	    "Zm9v!", "Zm 9v", "Zm9v\x80", "Zm9vY", "Z", "Zm9vY===", "Zm.v" };
	struct b64_case tc;
	size_t i, j;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			tc = (struct b64_case){ bad[j], modes[i], NULL };
			if (j == 1 && (modes[i] & RAI_B64_SKIP_WS))
				tc.want = "foo";
			b64_cases(&tc, 1);
		}
	/* An embedded NUL counts as a bad character, not the end. */
	{
		size_t len;

		T_NULL(rai_base64_decode("Zg\0=", 4, OPT, &len));
	}
}

#undef REQ
#undef OPT
#undef NOPAD

TEST(loopback_addresses)
{
	T_INT_EQ(rai_host_is_loopback_address("127.0.0.1"), 1);
	T_INT_EQ(rai_host_is_loopback_address("127.255.3.4"), 1);
	T_INT_EQ(rai_host_is_loopback_address("::1"), 1);
	T_INT_EQ(rai_host_is_loopback_address("[::1]"), 1);
	T_INT_EQ(rai_host_is_loopback_address("[0:0:0:0:0:0:0:1]"), 1);
	T_INT_EQ(rai_host_is_loopback_address("128.0.0.1"), 0);
	T_INT_EQ(rai_host_is_loopback_address("10.0.0.1"), 0);
	T_INT_EQ(rai_host_is_loopback_address("[::2]"), 0);
	T_INT_EQ(rai_host_is_loopback_address("[::1"), 0);
	T_INT_EQ(rai_host_is_loopback_address("localhost"), 0);
	T_INT_EQ(rai_host_is_loopback_address(""), 0);
}

TEST(url_is_local_reads_the_host_libcurl_connects_to)
{
	T_INT_EQ(rai_url_is_local("https://127.0.0.1:6443"), 1);
	T_INT_EQ(rai_url_is_local("https://localhost:6443/"), 1);
	T_INT_EQ(rai_url_is_local("https://LOCALHOST"), 1);
	T_INT_EQ(rai_url_is_local("https://[::1]:6443"), 1);
	T_INT_EQ(rai_url_is_local("http://127.0.0.2:8001/api"), 1);
	T_INT_EQ(rai_url_is_local("https://10.0.0.5:6443"), 0);
	T_INT_EQ(rai_url_is_local("https://kube.example.com"), 0);
	/* the text says loopback; the host is another */
	T_INT_EQ(rai_url_is_local("https://127.0.0.1@example.com/"), 0);
	T_INT_EQ(rai_url_is_local("https://127.0.0.1.example.com/"), 0);
	T_INT_EQ(rai_url_is_local("https://localhost.example.com/"), 0);
	T_INT_EQ(rai_url_is_local("not a url"), 0);
	T_INT_EQ(rai_url_is_local(NULL), 0);
}

int
main(void)
{
	RUN(buf_cap_refuses_growth);
	RUN(buf_addf_consume_detach);
	RUN(status_body_fills_error);
	RUN(non_status_body_gives_phrase_and_excerpt);
	RUN(json_status_without_message_uses_phrase);
	RUN(err_prefix_and_usage_exit);
	RUN(redacts_headers);
	RUN(redacts_json_and_form_bodies);
	RUN(redacts_values_of_secret_named_variables);
	RUN(shell_words);
	RUN(secret_key_names);
	RUN(json_paths_and_types);
	RUN(json_path_segments_match_whole_names);
	RUN(json_wipe_zeroes_nested_strings);
	RUN(base64_rfc4648_vectors);
	RUN(base64_alphabets);
	RUN(base64_padding_rules);
	RUN(base64_malformed);
	RUN(loopback_addresses);
	RUN(url_is_local_reads_the_host_libcurl_connects_to);
	return t_done();
}
