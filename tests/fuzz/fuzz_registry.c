/*
 * libFuzzer target for what a registry answers to "runai-adm images
 * push" besides its challenges (fuzz_www_authenticate has those): the
 * token endpoint's JSON (adm_token_parse), the realm a challenge sends
 * the credentials to (adm_realm_check) and the upload Location headers
 * (adm_push_resolve_location, adm_push_digest_url). Byte 0 picks:
 *
 *	0	the rest is a token answer: a success has a token and an
 *		expiry of at least a second; a failure has a message and
 *		no token
 *	1, 2	the rest is a realm, checked for an https registry (1) or
 *		a plain-http one (2): an accepted realm is http(s), https
 *		for an https registry, and has no user info
 *	3	the rest is "base\nlocation": an absolute location is kept
 *		as it is, a relative one lands under base; the digest URL
 *		ends with the digest
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adm/push.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
token(const char *s, size_t n)
{
	struct rai_err err = RAI_ERR_INIT;
	char *tok = (char *)1;
	long exp = 0;

	if (adm_token_parse(s, n, &tok, &exp, &err) == 0) {
		if (tok == NULL || tok[0] == '\0' || exp < 1)
			abort();
		rai_free_secret(tok);
	} else if (err.message == NULL || tok != NULL) {
		abort();
	}
	rai_err_release(&err);
}

static void
realm(const char *s, int plain, const char *allow)
{
	struct rai_err err = RAI_ERR_INIT;
	const char *auth, *end;

	if (adm_realm_check(s, "reg:5000", plain, allow, &err) == 0) {
		if (strncasecmp(s, "https:", 6) != 0 &&
		    (!plain || strncasecmp(s, "http:", 5) != 0))
			abort();
		/*
		 * the authority: after the scheme and its slashes (curl
		 * takes one to three) up to the path, query or anchor
		 */
		auth = strchr(s, ':') + 1;
		auth += strspn(auth, "/");
		end = auth + strcspn(auth, "/?#");
		if (memchr(auth, '@', (size_t)(end - auth)) != NULL)
			abort();
	} else if (err.message == NULL) {
		abort();
	}
	rai_err_release(&err);
}

static void
location(char *s)
{
	char *nl = strchr(s, '\n'), *loc, *abs, *url;
	const char *digest = "sha256:0123";

	if (nl == NULL)
		return;
	*nl = '\0';
	loc = nl + 1;
	abs = adm_push_resolve_location(s, loc);
	if (strncmp(loc, "http://", 7) == 0 || strncmp(loc, "https://",
	    8) == 0) {
		if (strcmp(abs, loc) != 0)
			abort();
	} else if (strncmp(abs, s, strlen(s)) != 0) {
		abort();
	}
	url = adm_push_digest_url(abs, digest);
	if (strlen(url) < strlen(digest) || strcmp(url + strlen(url) -
	    strlen(digest), digest) != 0 || strstr(url, "digest=") == NULL)
		abort();
	free(url);
	free(abs);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = xmalloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		token((const char *)data + 1, size - 1);
		break;
	case 1:
	case 2:
		/* the realm on its own, or beside an origin the user allowed */
		realm(s, data[0] % 4 == 2,
		    data[0] & 4 ? "https://auth.example:8443" : NULL);
		break;
	default:
		location(s);
		break;
	}
	free(s);
	return 0;
}
