/*
 * libFuzzer target for what the OIDC client reads from outside: the
 * discovery document, token and device answers, id-tokens (decoded and
 * verified against a JWKS from the input), a pasted code or redirect
 * URL, and the loopback listener's request line and query.
 *
 *	input[0]	which parser (mod 7); the rest is its input. For the
 *			JWT case the rest is "<jwt>\n<jwks>".
 *
 * Besides the sanitizers' checks: every failure has a message, a success
 * hands out what the caller relies on (a discovery with an issuer equal
 * to the one asked for and a token endpoint, tokens with an id_token, a
 * device answer with its three strings and a sane interval, a code that
 * is not empty), and a parse that fails leaves the output untouched.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/err.h"
#include "kube/auth.h"
#include "kube/token.h"
#include "oidc/jwt.h"
#include "oidc/loopback.h"
#include "oidc/oidc.h"
#include "oidc/url.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define WANT_ISSUER	"https://idp.example"

static void
check_err(int rc, struct rai_err *err)
{
	if (rc == -1 && (err->message == NULL || err->message[0] == '\0'))
		abort();
	rai_err_release(err);
}

static void
fuzz_discovery(const char *s, size_t n)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_discovery d = { 0 };
	int rc;

	rc = oidc_parse_discovery(s, n, WANT_ISSUER, &d, &err);
	if (rc == 0 && (d.issuer == NULL || strcmp(d.issuer, WANT_ISSUER) != 0 ||
	    d.token_endpoint == NULL || d.jwks_uri == NULL))
		abort();
	if (rc == -1 && d.issuer != NULL)
		abort();
	check_err(rc, &err);
	oidc_discovery_release(&d);
}

static void
fuzz_token(const char *s, size_t n, long status)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_tokens t = { 0 };
	char *error = NULL;
	int rc;

	rc = oidc_parse_token_response(status, s, n, &t, &error, &err);
	if (rc == 0 && (t.id_token == NULL || error != NULL))
		abort();
	if (rc == -1 && t.id_token != NULL)
		abort();
	if (error != NULL)
		(void)oidc_device_decide(error);
	check_err(rc, &err);
	free(error);
	oidc_tokens_release(&t);
}

static void
fuzz_device(const char *s, size_t n)
{
	struct rai_err err = RAI_ERR_INIT;
	struct oidc_device d = { 0 };
	int rc;

	rc = oidc_parse_device_response(s, n, &d, &err);
	if (rc == 0 && (d.device_code == NULL || d.user_code == NULL ||
	    d.verification_uri == NULL || d.interval < 1 || d.interval > 60 ||
	    d.expires_in < 1))
		abort();
	check_err(rc, &err);
	oidc_device_release(&d);
}

static void
fuzz_jwt(const char *s, size_t n)
{
	struct rai_err err = RAI_ERR_INIT;
	const char *nl = memchr(s, '\n', n);
	char *jwt, *jwks;
	cJSON *claims;
	int rc;

	jwt = nl != NULL ? xstrndup(s, (size_t)(nl - s)) : xstrndup(s, n);
	jwks = nl != NULL ? xstrndup(nl + 1, n - (size_t)(nl + 1 - s)) :
	    xstrdup("{}");
	rc = oidc_jwt_verify(jwt, jwks, strlen(jwks), WANT_ISSUER, "runai-cli",
	    NULL, (time_t)1700000000, &err);
	check_err(rc, &err);
	claims = kube_jwt_claims(jwt);
	if (claims != NULL) {
		rc = oidc_jwt_check_claims(claims, WANT_ISSUER, "runai-cli",
		    "n", (time_t)1700000000, &err);
		check_err(rc, &err);
	}
	cJSON_Delete(claims);
	(void)kube_oidc_token_fresh(jwt, (time_t)1700000000);
	free(jwt);
	free(jwks);
}

static void
fuzz_pasted(const char *s)
{
	struct rai_err err = RAI_ERR_INIT;
	char *code = NULL;
	int rc;

	rc = oidc_parse_pasted(s, "st", &code, &err);
	if (rc == 0 && (code == NULL || code[0] == '\0'))
		abort();
	if (rc == -1 && code != NULL)
		abort();
	check_err(rc, &err);
	free(code);
}

static void
fuzz_query(const char *s)
{
	struct rai_err err = RAI_ERR_INIT;
	char *code = NULL, *v;
	int rc;

	rc = oidc_parse_callback_query(s, "st", &code, &err);
	if (rc == 0 && (code == NULL || code[0] == '\0'))
		abort();
	check_err(rc, &err);
	free(code);
	v = oidc_query_param(s, "state");
	free(v);
	(void)oidc_is_loopback_uri(s);
}

static void
fuzz_request_line(const char *s)
{
	char *q = NULL;
	int rc = oidc_parse_request_line(s, "/callback", &q);

	if ((rc == 0) != (q != NULL))
		abort();
	free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	size_t n;

	if (size < 1)
		return 0;
	n = size - 1;
	s = xstrndup((const char *)data + 1, n);	/* NUL-terminated copy */
	n = strlen(s);
	switch (data[0] % 7) {
	case 0:
		fuzz_discovery(s, n);
		break;
	case 1:
		fuzz_token(s, n, data[0] & 0x80 ? 400 : 200);
		break;
	case 2:
		fuzz_device(s, n);
		break;
	case 3:
		fuzz_jwt(s, n);
		break;
	case 4:
		fuzz_pasted(s);
		break;
	case 5:
		fuzz_query(s);
		break;
	case 6:
		fuzz_request_line(s);
		break;
	}
	free(s);
	return 0;
}
