/* Unit tests of the core: rai_buf caps, Status parsing, redaction, JSON paths. */
#include <stdlib.h>
#include <string.h>

#include "rai_alloc.h"
#include "rai_buf.h"
#include "rai_err.h"
#include "rai_json.h"
#include "rai_log.h"

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
	struct rai_err err = RAI_ERR_INIT;

	rai_err_from_http(&err, 403, NULL, body, strlen(body), 0);
	T_STR_EQ(err.reason, "Forbidden");
	T_STR_EQ(err.message, "403 Forbidden");
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
	    "\"x\":true},\"items\":[1]}";

	T_INT_EQ(rai_json_parse(doc, strlen(doc), "doc", &root, &err), 0);
	T_STR_EQ(rai_json_str(root, "metadata.name"), "n");
	T_STR_EQ(rai_json_label(root, "runai/queue"), "team-a");
	T_DBL_EQ(rai_json_num(root, "spec.deservedGpus", -1), 2.5);
	T_DBL_EQ(rai_json_num(root, "metadata.name", -1), -1);
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
	RUN(secret_key_names);
	RUN(json_paths_and_types);
	return t_done();
}
