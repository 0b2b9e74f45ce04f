/*
 * Unit tests of lib/oidc/ without a network: PKCE (RFC 7636 appendix
 * B), scopes and form escaping, discovery's exact-issuer check, token
 * and device answers, the device-poll decisions, pasted codes and
 * redirect queries with their state check, loopback URIs, and id-token
 * verification with RSA and EC keys made here (a token signed by any
 * other key, or with alg none/HS256, must be refused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "core/alloc.h"
#include "core/err.h"
#include "harness.h"
#include "oidc/jwt.h"
#include "oidc/loopback.h"
#include "oidc/oidc.h"
#include "oidc/url.h"

#define ISS	"https://idp.example/realms/r"

/* The error message of a failed call, "" after success; resets err. */
static char msgbuf[1024];
static const char *
msg(struct rai_err *err)
{
	snprintf(msgbuf, sizeof(msgbuf), "%s", err->message ? err->message :
	    "");
	rai_err_release(err);
	memset(err, 0, sizeof(*err));
	return msgbuf;
}

TEST(pkce_s256_rfc7636_vector)
{
	char *c = oidc_pkce_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");

	T_STR_EQ(c, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
	free(c);
}

TEST(random_b64url_is_urlsafe_and_fresh)
{
	char *a = oidc_random_b64url(32), *b = oidc_random_b64url(32);

	T_INT_EQ(strlen(a), 43);
	T_INT_EQ(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-_"), 43);
	T_OK(strcmp(a, b) != 0);
	free(a);
	free(b);
}

TEST(scope_and_form_escape)
{
	char *s = oidc_scope(NULL), *e;

	T_STR_EQ(s, "openid email offline_access");
	free(s);
	s = oidc_scope(" groups,profile  ");
	T_STR_EQ(s, "openid email offline_access groups profile");
	free(s);
	e = oidc_form_escape("a b&c=d/\xc3\xa9~");
	T_STR_EQ(e, "a%20b%26c%3Dd%2F%C3%A9~");
	free(e);
}

static const char *
disc_doc(const char *iss, const char *token_ep)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf), "{\"issuer\":\"%s\","
	    "\"authorization_endpoint\":\"https://idp.example/auth\","
	    "\"token_endpoint\":\"%s\",\"jwks_uri\":\"https://idp.example/jwks\","
	    "\"revocation_endpoint\":\"https://idp.example/revoke\","
	    "\"code_challenge_methods_supported\":[\"plain\",\"S256\"]}",
	    iss, token_ep);
	return buf;
}

TEST(discovery_requires_the_exact_issuer)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_discovery d = { 0 };
	const char *doc;

	doc = disc_doc(ISS, "https://idp.example/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), 0);
	T_STR_EQ(d.token_endpoint, "https://idp.example/token");
	T_STR_EQ(d.revocation_endpoint, "https://idp.example/revoke");
	T_NULL(d.device_authorization_endpoint);
	T_INT_EQ(d.s256, 1);
	/* A trailing slash is another issuer (go-oidc, kube-apiserver). */
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS "/", &d, &err), -1);
	T_STR_EQ(msg(&err), "issuer mismatch: the discovery document of "
	    "'" ISS "/' names issuer '" ISS "'; refusing it");
	/* d is unchanged by the failure */
	T_STR_EQ(d.issuer, ISS);
	doc = disc_doc("https://evil.example", "https://idp.example/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "issuer mismatch");
	doc = "{\"token_endpoint\":\"https://x/t\"}";
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "names issuer ''");
	doc = disc_doc(ISS, "http://idp.example/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "no usable token_endpoint");
	/* issue 24: loopback in the text, 127.0.0.2 in fact */
	doc = disc_doc(ISS, "http://127.0.0.1@127.0.0.2:9/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "no usable token_endpoint "
	    "('http://127.0.0.1@127.0.0.2:9/token')");
	doc = disc_doc(ISS, "http://localhost.evil.example/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), -1);
	doc = disc_doc(ISS, "http://127.0.0.1:9/token");
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), 0);
	T_STR_EQ(d.token_endpoint, "http://127.0.0.1:9/token");
	T_INT_EQ(oidc_parse_discovery("[1]", 3, ISS, &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "not a JSON object");
	doc = "{\"issuer\":\"" ISS "\",\"token_endpoint\":\"https://t\","
	    "\"jwks_uri\":\"https://j\",\"code_challenge_methods_supported\":"
	    "[\"plain\"],\"device_authorization_endpoint\":\"https://d\"}";
	T_INT_EQ(oidc_parse_discovery(doc, strlen(doc), ISS, &d, &err), 0);
	T_INT_EQ(d.s256, 0);
	T_STR_EQ(d.device_authorization_endpoint, "https://d");
	oidc_discovery_release(&d);
}

TEST(token_answers)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_tokens t = { 0 };
	char *error = NULL;
	const char *b;

	b = "{\"id_token\":\"a.b.c\",\"refresh_token\":\"rt\","
	    "\"access_token\":\"at\",\"expires_in\":300}";
	T_INT_EQ(oidc_parse_token_response(200, b, strlen(b), &t, &error,
	    &err), 0);
	T_STR_EQ(t.id_token, "a.b.c");
	T_STR_EQ(t.refresh_token, "rt");
	T_INT_EQ(t.expires_in, 300);
	T_NULL(error);
	b = "{\"error\":\"invalid_grant\",\"error_description\":\"grant "
	    "request is invalid\"}";
	T_INT_EQ(oidc_parse_token_response(400, b, strlen(b), &t, &error,
	    &err), -1);
	T_STR_EQ(error, "invalid_grant");
	T_STR_EQ(msg(&err), "the identity provider refused: invalid_grant "
	    "(grant request is invalid)");
	/* the old tokens are kept on failure */
	T_STR_EQ(t.id_token, "a.b.c");
	free(error);
	error = NULL;
	b = "{\"access_token\":\"at\"}";
	T_INT_EQ(oidc_parse_token_response(200, b, strlen(b), &t, &error,
	    &err), -1);
	T_STR_CONTAINS(msg(&err), "no id_token");
	T_INT_EQ(oidc_parse_token_response(502, "<html>", 6, &t, &error, &err),
	    -1);
	T_STR_CONTAINS(msg(&err), "HTTP 502 with no JSON object");
	T_NULL(error);
	oidc_tokens_release(&t);
}

TEST(device_answers_and_poll_decisions)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_device d = { 0 };
	const char *b;

	b = "{\"device_code\":\"dc\",\"user_code\":\"WXYZ-ABCD\","
	    "\"verification_uri\":\"https://idp/device\",\"expires_in\":600}";
	T_INT_EQ(oidc_parse_device_response(b, strlen(b), &d, &err), 0);
	T_INT_EQ(d.interval, OIDC_DEVICE_INTERVAL_S);
	T_STR_EQ(d.user_code, "WXYZ-ABCD");
	T_NULL(d.verification_uri_complete);
	b = "{\"device_code\":\"dc\",\"user_code\":\"U\",\"verification_url\":"
	    "\"https://g/device\",\"interval\":\"7\",\"expires_in\":99999}";
	T_INT_EQ(oidc_parse_device_response(b, strlen(b), &d, &err), 0);
	T_INT_EQ(d.interval, 7);
	T_INT_EQ(d.expires_in, 600);
	T_STR_EQ(d.verification_uri, "https://g/device");
	b = "{\"user_code\":\"U\"}";
	T_INT_EQ(oidc_parse_device_response(b, strlen(b), &d, &err), -1);
	T_STR_CONTAINS(msg(&err), "lacks device_code");
	oidc_device_release(&d);

	T_INT_EQ(oidc_device_decide(NULL), OIDC_POLL_DONE);
	T_INT_EQ(oidc_device_decide("authorization_pending"), OIDC_POLL_PENDING);
	T_INT_EQ(oidc_device_decide("slow_down"), OIDC_POLL_SLOW_DOWN);
	T_INT_EQ(oidc_device_decide("access_denied"), OIDC_POLL_DENIED);
	T_INT_EQ(oidc_device_decide("expired_token"), OIDC_POLL_EXPIRED);
	T_INT_EQ(oidc_device_decide("invalid_grant"), OIDC_POLL_ERROR);
	T_INT_EQ(oidc_device_decide(""), OIDC_POLL_ERROR);
}

TEST(pasted_code_or_redirect_url)
{
	struct rai_err err = RAI_ERR_INIT;
	char *code = NULL;

	T_INT_EQ(oidc_parse_pasted("  abc-DEF_123.x~\r\n", "st", &code, &err),
	    0);
	T_STR_EQ(code, "abc-DEF_123.x~");
	free(code);
	code = NULL;
	T_INT_EQ(oidc_parse_pasted("https://app/oauth-code?code=c%2F1&state=st"
	    "&iss=x", "st", &code, &err), 0);
	T_STR_EQ(code, "c/1");
	free(code);
	code = NULL;
	/* no state in the URL: accepted (some pages drop it) */
	T_INT_EQ(oidc_parse_pasted("https://app/cb?code=k", "st", &code, &err),
	    0);
	T_STR_EQ(code, "k");
	free(code);
	code = NULL;
	T_INT_EQ(oidc_parse_pasted("https://app/cb?code=k&state=other", "st",
	    &code, &err), -1);
	T_STR_CONTAINS(msg(&err), "state mismatch");
	T_NULL(code);
	T_INT_EQ(oidc_parse_pasted("https://app/cb?error=access_denied&"
	    "error_description=no+way", "st", &code, &err), -1);
	T_STR_EQ(msg(&err), "the identity provider refused the login: "
	    "access_denied (no way)");
	T_INT_EQ(oidc_parse_pasted("https://app/cb?state=st", "st", &code,
	    &err), -1);
	T_STR_CONTAINS(msg(&err), "carries no code");
	T_INT_EQ(oidc_parse_pasted("not a code; rm -rf", "st", &code, &err), -1);
	T_STR_CONTAINS(msg(&err), "neither a code nor a redirect URL");
	T_INT_EQ(oidc_parse_pasted("\n", "st", &code, &err), -1);
	T_STR_CONTAINS(msg(&err), "no verification code");
}

TEST(callback_query_checks_state)
{
	struct rai_err err = RAI_ERR_INIT;
	char *code = NULL;

	T_INT_EQ(oidc_parse_callback_query("code=abc&state=s1&iss=https%3A%2F"
	    "%2Fidp", "s1", &code, &err), 0);
	T_STR_EQ(code, "abc");
	free(code);
	code = NULL;
	/* not this login's: ignored (1), whether a code or an error */
	T_INT_EQ(oidc_parse_callback_query("code=abc&state=s2", "s1", &code,
	    &err), 1);
	T_INT_EQ(oidc_parse_callback_query("code=abc", "s1", &code, &err), 1);
	T_INT_EQ(oidc_parse_callback_query("error=access_denied", "s1", &code,
	    &err), 1);
	T_INT_EQ(oidc_parse_callback_query("error=access_denied&state=s", "s1",
	    &code, &err), 1);
	T_NULL(code);
	T_INT_EQ(oidc_parse_callback_query("state=s1", "s1", &code, &err), -1);
	T_STR_CONTAINS(msg(&err), "no authorization code");
	T_INT_EQ(oidc_parse_callback_query("error=access_denied&state=s1", "s1",
	    &code, &err), -1);
	T_STR_CONTAINS(msg(&err), "refused the login: access_denied");
	T_NULL(code);
}

TEST(query_params_and_request_lines)
{
	char *v, *q = NULL;

	v = oidc_query_param("a=1&code=x%20y+z&b", "code");
	T_STR_EQ(v, "x y z");
	free(v);
	v = oidc_query_param("a=1&b", "b");
	T_STR_EQ(v, "");
	free(v);
	T_NULL(oidc_query_param("codex=1&xcode=2", "code"));
	v = oidc_query_param("a=%4", "a");
	T_STR_EQ(v, "%4");
	free(v);
	T_INT_EQ(oidc_parse_request_line("GET /callback?code=1&state=2 "
	    "HTTP/1.1\r\nHost: x\r\n\r\n", "/callback", &q), 0);
	T_STR_EQ(q, "code=1&state=2");
	free(q);
	q = NULL;
	T_INT_EQ(oidc_parse_request_line("GET /favicon.ico HTTP/1.1\r\n",
	    "/callback", &q), 1);
	T_INT_EQ(oidc_parse_request_line("GET /callbackx?a HTTP/1.1\r\n",
	    "/callback", &q), 1);
	T_INT_EQ(oidc_parse_request_line("POST /callback HTTP/1.1\r\n",
	    "/callback", &q), -1);
	T_INT_EQ(oidc_parse_request_line("GET /callback\r\n", "/callback", &q),
	    -1);
	T_NULL(q);
}

TEST(loopback_uris)
{
	T_INT_EQ(oidc_is_loopback_uri("http://127.0.0.1:8000/callback"), 1);
	T_INT_EQ(oidc_is_loopback_uri("http://127.0.0.1/cb"), 1);
	T_INT_EQ(oidc_is_loopback_uri("http://localhost:8000"), 1);
	T_INT_EQ(oidc_is_loopback_uri("http://[::1]:9/x"), 1);
	T_INT_EQ(oidc_is_loopback_uri("https://127.0.0.1:8000/cb"), 0);
	T_INT_EQ(oidc_is_loopback_uri("http://127.0.0.1.evil.example/cb"), 0);
	T_INT_EQ(oidc_is_loopback_uri("http://localhost.evil.example/"), 0);
	T_INT_EQ(oidc_is_loopback_uri("http://10.0.0.1:8000/cb"), 0);
	T_INT_EQ(oidc_is_loopback_uri("http://127.0.0.1@evil.example/"), 0);
	T_INT_EQ(oidc_is_loopback_uri(NULL), 0);
}

/*
 * Where secrets may go: https anywhere, plain http only to a loopback
 * address, judged on the host libcurl connects to, not on the text.
 */
static const struct {
	const char	*url;
	int		 kind;
	int		 secrets;
} url_cases[] = {
	{ "https://login.example.com/token", OIDC_URL_HTTPS, 1 },
	{ "HTTPS://login.example.com/", OIDC_URL_HTTPS, 1 },
	{ "https://127.0.0.1@login.example.com/", OIDC_URL_BAD, 0 },
	{ "http://127.0.0.1:8080/token", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "HTTP://127.0.0.1/token", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://127.0.0.2:9/x", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://127.255.255.254/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://[::1]:8080/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://[0:0:0:0:0:0:0:1]/", OIDC_URL_HTTP_LOOPBACK, 1 },
	/* the attack of issue 24: user info, then the real host */
	{ "http://127.0.0.1@127.0.0.2:8080/token", OIDC_URL_BAD, 0 },
	{ "http://127.0.0.1@evil.example/token", OIDC_URL_BAD, 0 },
	{ "http://user:pw@127.0.0.1/", OIDC_URL_BAD, 0 },
	{ "http://localhost.evil.example/token", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://127.0.0.1.evil.example/", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://localhost:8080/token", OIDC_URL_HTTP_LOCALHOST, 0 },
	{ "http://LOCALHOST/", OIDC_URL_HTTP_LOCALHOST, 0 },
	{ "http://10.0.0.1/", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://128.0.0.1/", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://[::2]/", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://[::ffff:127.0.0.1]/", OIDC_URL_HTTP_OTHER, 0 },
	{ "http://[fe80::1%25eth0]/", OIDC_URL_BAD, 0 },
	/* libcurl reads these numbers as 127.0.0.1, and connects there */
	{ "http://127.1/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://0x7f000001/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://2130706433/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://0x0a000001/", OIDC_URL_HTTP_OTHER, 0 },
	/* libcurl decodes an encoded host before it judges or uses it */
	{ "http://%31%32%37.0.0.1/", OIDC_URL_HTTP_LOOPBACK, 1 },
	{ "http://127.0.0.1%2fx/", OIDC_URL_BAD, 0 },
	{ "http://127.0.0.1%40evil.example/", OIDC_URL_BAD, 0 },
	{ "http://evil%2eexample/", OIDC_URL_HTTP_OTHER, 0 },
	{ "ftp://127.0.0.1/", OIDC_URL_BAD, 0 },
	{ "file:///etc/passwd", OIDC_URL_BAD, 0 },
	{ "//127.0.0.1/token", OIDC_URL_BAD, 0 },
	{ "127.0.0.1/token", OIDC_URL_BAD, 0 },
	{ "http://", OIDC_URL_BAD, 0 },
	{ "http://127.0.0.1 /x", OIDC_URL_BAD, 0 },
	{ "", OIDC_URL_BAD, 0 },
};

TEST(url_check_table)
{
	size_t i;

	for (i = 0; i < sizeof(url_cases) / sizeof(url_cases[0]); i++) {
		int kind = (int)oidc_url_kind(url_cases[i].url);
		int secrets = oidc_url_may_carry_secrets(url_cases[i].url);

		if (kind != url_cases[i].kind ||
		    secrets != url_cases[i].secrets) {
			t_fail_at(__FILE__, __LINE__);
			printf("'%s': kind %d (want %d), secrets %d (want "
			    "%d)\n", url_cases[i].url, kind,
			    url_cases[i].kind, secrets, url_cases[i].secrets);
		}
	}
	T_INT_EQ(oidc_url_may_carry_secrets(NULL), 0);
}

TEST(url_parts_for_the_listener)
{
	struct oidc_url u;

	T_INT_EQ(oidc_url_parse("http://127.0.0.1:8000/cb?x=1#f", &u), 0);
	T_STR_EQ(u.host, "127.0.0.1");
	T_INT_EQ(u.port, 8000);
	T_STR_EQ(u.path, "/cb");
	oidc_url_release(&u);
	T_INT_EQ(oidc_url_parse("http://localhost", &u), 0);
	T_INT_EQ(u.port, 0);
	T_STR_EQ(u.path, "/");
	T_INT_EQ((int)u.kind, OIDC_URL_HTTP_LOCALHOST);
	oidc_url_release(&u);
	T_INT_EQ(oidc_url_parse("http://a@127.0.0.1/", &u), -1);
	T_NULL(u.host);
}

/* ---- JWT verification with keys made here ---- */

static char *
b64u(const void *p, size_t n)
{
	return oidc_b64url_encode(p, n);
}

static char *
bn_b64u(const BIGNUM *bn, size_t pad)
{
	unsigned char buf[1024];
	int n = pad ? BN_bn2binpad(bn, buf, (int)pad) : BN_bn2bin(bn, buf);

	return b64u(buf, (size_t)n);
}

/* A JWKS holding pk's public key under kid. */
static char *
jwks_of(EVP_PKEY *pk, const char *kid, const char *alg)
{
	BIGNUM *a = NULL, *b = NULL;
	char *x, *y, *s;

	if (EVP_PKEY_is_a(pk, "RSA")) {
		EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &a);
		EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_E, &b);
		x = bn_b64u(a, 0);
		y = bn_b64u(b, 0);
		s = xasprintf("{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\","
		    "\"alg\":\"%s\",\"kid\":\"%s\",\"n\":\"%s\",\"e\":\"%s\"}]}",
		    alg, kid, x, y);
	} else {
		EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_EC_PUB_X, &a);
		EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_EC_PUB_Y, &b);
		x = bn_b64u(a, 32);
		y = bn_b64u(b, 32);
		s = xasprintf("{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\","
		    "\"kid\":\"%s\",\"x\":\"%s\",\"y\":\"%s\"}]}", kid, x, y);
	}
	BN_free(a);
	BN_free(b);
	free(x);
	free(y);
	return s;
}

/* header.payload.signature, signed by pk (RS256 or ES256). */
static char *
sign_jwt(EVP_PKEY *pk, const char *header, const char *claims)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	char *h = b64u(header, strlen(header)), *c = b64u(claims, strlen(claims));
	char *signing = xasprintf("%s.%s", h, c), *sig64, *jwt;
	unsigned char sig[1024], raw[64];
	const unsigned char *p = sig;
	size_t siglen = sizeof(sig);
	ECDSA_SIG *es;

	EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, pk);
	EVP_DigestSign(md, sig, &siglen, (const unsigned char *)signing,
	    strlen(signing));
	EVP_MD_CTX_free(md);
	if (EVP_PKEY_is_a(pk, "EC")) {
		/* DER -> JWS r || s */
		es = d2i_ECDSA_SIG(NULL, &p, (long)siglen);
		BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32);
		BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32);
		ECDSA_SIG_free(es);
		sig64 = b64u(raw, 64);
	} else
		sig64 = b64u(sig, siglen);
	jwt = xasprintf("%s.%s", signing, sig64);
	free(h);
	free(c);
	free(signing);
	free(sig64);
	return jwt;
}

static char *
claims_json(const char *iss, const char *aud, long long exp, const char *nonce)
{
	return xasprintf("{\"iss\":\"%s\",\"sub\":\"alice\",\"aud\":%s,"
	    "\"exp\":%lld,\"iat\":%lld%s%s%s}", iss, aud, exp,
	    (long long)time(NULL), nonce ? ",\"nonce\":\"" : "",
	    nonce ? nonce : "", nonce ? "\"" : "");
}

static int
verify(const char *jwt, const char *jwks, const char *nonce,
    struct rai_err *err)
{
	return oidc_jwt_verify(jwt, jwks, strlen(jwks), ISS, "runai-cli", nonce,
	    time(NULL), err);
}

TEST(jwt_rs256_and_es256_verify)
{
	struct rai_err err = RAI_ERR_INIT;
	EVP_PKEY *rsa = EVP_RSA_gen(2048), *other = EVP_RSA_gen(2048);
	EVP_PKEY *ec = EVP_EC_gen("P-256");
	char *jwks = jwks_of(rsa, "k1", "RS256"), *ec_jwks = jwks_of(ec, "e1",
	    "ES256");
	char *claims = claims_json(ISS, "\"runai-cli\"", time(NULL) + 300,
	    "n0");
	char *jwt, *forged, *tampered, *p;

	jwt = sign_jwt(rsa, "{\"alg\":\"RS256\",\"kid\":\"k1\"}", claims);
	T_INT_EQ(verify(jwt, jwks, "n0", &err), 0);
	T_STR_EQ(msg(&err), "");
	T_INT_EQ(verify(jwt, jwks, "other-nonce", &err), -1);
	T_STR_CONTAINS(msg(&err), "nonce does not match");

	/* the same header and claims signed by a key the issuer never had */
	forged = sign_jwt(other, "{\"alg\":\"RS256\",\"kid\":\"k1\"}", claims);
	T_INT_EQ(verify(forged, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "signature does not verify");
	free(forged);
	forged = sign_jwt(other, "{\"alg\":\"RS256\",\"kid\":\"k9\"}", claims);
	T_INT_EQ(verify(forged, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "key the issuer does not publish (kid 'k9')");
	free(forged);

	/* a changed payload under the real signature */
	tampered = xstrdup(jwt);
	p = strchr(tampered, '.') + 5;
	*p = *p == 'A' ? 'B' : 'A';
	T_INT_EQ(verify(tampered, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "refused");
	free(tampered);

	/* alg none and HMAC are never accepted */
	forged = xasprintf("%s", "eyJhbGciOiJub25lIn0.e30.");
	T_INT_EQ(verify(forged, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "refused");
	free(forged);
	forged = sign_jwt(rsa, "{\"alg\":\"HS256\",\"kid\":\"k1\"}", claims);
	T_INT_EQ(verify(forged, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "algorithm 'HS256', which is not accepted");
	free(forged);
	free(jwt);

	/* ES256 with an EC P-256 key, and key type confusion */
	jwt = sign_jwt(ec, "{\"alg\":\"ES256\",\"kid\":\"e1\"}", claims);
	T_INT_EQ(verify(jwt, ec_jwks, NULL, &err), 0);
	T_STR_EQ(msg(&err), "");
	T_INT_EQ(verify(jwt, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "does not publish");
	free(jwt);

	/* malformed tokens and JWKS */
	T_INT_EQ(verify("a.b", jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "not a well-formed JWT");
	T_INT_EQ(verify("a.b.c.d", jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "not a well-formed JWT");
	jwt = sign_jwt(rsa, "{\"alg\":\"RS256\",\"kid\":\"k1\"}", claims);
	T_INT_EQ(verify(jwt, "[]", NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "JWKS is not a JSON object");
	free(jwt);

	free(claims);
	free(jwks);
	free(ec_jwks);
	EVP_PKEY_free(rsa);
	EVP_PKEY_free(other);
	EVP_PKEY_free(ec);
}

TEST(jwt_claims_iss_aud_exp)
{
	struct rai_err err = RAI_ERR_INIT;
	EVP_PKEY *rsa = EVP_RSA_gen(2048);
	char *jwks = jwks_of(rsa, "k1", "RS256"), *claims, *jwt;
	const char *hdr = "{\"alg\":\"RS256\",\"kid\":\"k1\"}";

	claims = claims_json("https://evil.example", "\"runai-cli\"",
	    time(NULL) + 300, NULL);
	jwt = sign_jwt(rsa, hdr, claims);
	T_INT_EQ(verify(jwt, jwks, NULL, &err), -1);
	T_STR_EQ(msg(&err), "the id-token was issued by 'https://evil.example', "
	    "not by '" ISS "'; refused");
	free(claims);
	free(jwt);
	claims = claims_json(ISS, "[\"other\",\"runai-cli\"]", time(NULL) + 300,
	    NULL);
	jwt = sign_jwt(rsa, hdr, claims);
	T_INT_EQ(verify(jwt, jwks, NULL, &err), 0);
	free(claims);
	free(jwt);
	claims = claims_json(ISS, "\"someone-else\"", time(NULL) + 300, NULL);
	jwt = sign_jwt(rsa, hdr, claims);
	T_INT_EQ(verify(jwt, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "not meant for client 'runai-cli'");
	free(claims);
	free(jwt);
	claims = claims_json(ISS, "\"runai-cli\"", time(NULL) - 3600, NULL);
	jwt = sign_jwt(rsa, hdr, claims);
	T_INT_EQ(verify(jwt, jwks, NULL, &err), -1);
	T_STR_CONTAINS(msg(&err), "already expired");
	free(claims);
	free(jwt);
	free(jwks);
	EVP_PKEY_free(rsa);
	rai_err_release(&err);
}

int
main(void)
{
	RUN(pkce_s256_rfc7636_vector);
	RUN(random_b64url_is_urlsafe_and_fresh);
	RUN(scope_and_form_escape);
	RUN(discovery_requires_the_exact_issuer);
	RUN(token_answers);
	RUN(device_answers_and_poll_decisions);
	RUN(pasted_code_or_redirect_url);
	RUN(callback_query_checks_state);
	RUN(query_params_and_request_lines);
	RUN(loopback_uris);
	RUN(url_check_table);
	RUN(url_parts_for_the_listener);
	RUN(jwt_rs256_and_es256_verify);
	RUN(jwt_claims_iss_aud_exp);
	return t_done();
}
