/*
 * oidc_url: where plain HTTP is allowed, decided on a parsed URL.
 *
 * A prefix test on the text ("http://127.0.0.1...") lets through
 * "http://127.0.0.1@evil.example/" (user info, then the real host) and
 * "http://127.0.0.1.evil.example/". So the URL is parsed with libcurl's
 * URL API, the very parser the transport uses to pick what it connects
 * to, and the host it yields is compared as an address.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "core/alloc.h"
#include "core/url.h"
#include "oidc/url.h"

#include "core/banned.h"

/* A part of the URL, or NULL when it has none. */
static char *
url_part(CURLU *h, CURLUPart what, unsigned int flags)
{
	char *v = NULL;

	if (curl_url_get(h, what, &v, flags) != CURLUE_OK)
		return NULL;
	return v;
}

static int
has_part(CURLU *h, CURLUPart what)
{
	char *v = url_part(h, what, 0);

	curl_free(v);
	return v != NULL;
}

static enum oidc_url_kind
classify(const char *scheme, const char *host)
{
	if (strcmp(scheme, "https") == 0)
		return OIDC_URL_HTTPS;
	if (strcmp(scheme, "http") != 0)
		return OIDC_URL_BAD;
	if (rai_host_is_loopback_address(host))
		return OIDC_URL_HTTP_LOOPBACK;
	if (strcasecmp(host, "localhost") == 0)
		return OIDC_URL_HTTP_LOCALHOST;
	return OIDC_URL_HTTP_OTHER;
}

int
oidc_url_parse(const char *url, struct oidc_url *out)
{
	CURLU *h;
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	enum oidc_url_kind kind = OIDC_URL_BAD;

	memset(out, 0, sizeof(*out));
	if (url == NULL || (h = curl_url()) == NULL)
		return -1;
	/*
	 * No default scheme, no unknown schemes, no spaces: what is not a
	 * plain absolute URL is refused here. User info is refused too: it
	 * serves no provider, and it is how "127.0.0.1@" hides a host.
	 */
	if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    has_part(h, CURLUPART_USER) || has_part(h, CURLUPART_PASSWORD) ||
	    has_part(h, CURLUPART_ZONEID))
		goto out;
	scheme = url_part(h, CURLUPART_SCHEME, 0);
	host = url_part(h, CURLUPART_HOST, 0);
	port = url_part(h, CURLUPART_PORT, 0);
	path = url_part(h, CURLUPART_PATH, 0);
	if (scheme == NULL || host == NULL || *host == '\0')
		goto out;
	kind = classify(scheme, host);
	if (kind == OIDC_URL_BAD)
		goto out;
	out->kind = kind;
	out->host = xstrdup(host);
	/* libcurl has checked it: digits, at most 65535 */
	out->port = port != NULL ? (int)strtol(port, NULL, 10) : 0;
	out->path = xstrdup(path != NULL && *path != '\0' ? path : "/");
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(h);
	return kind == OIDC_URL_BAD ? -1 : 0;
}

void
oidc_url_release(struct oidc_url *u)
{
	free(u->host);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

enum oidc_url_kind
oidc_url_kind(const char *url)
{
	struct oidc_url u;
	enum oidc_url_kind kind;

	if (oidc_url_parse(url, &u) == -1)
		return OIDC_URL_BAD;
	kind = u.kind;
	oidc_url_release(&u);
	return kind;
}

int
oidc_url_may_carry_secrets(const char *url)
{
	enum oidc_url_kind kind = oidc_url_kind(url);

	return kind == OIDC_URL_HTTPS || kind == OIDC_URL_HTTP_LOOPBACK;
}

int
oidc_is_loopback_uri(const char *uri)
{
	enum oidc_url_kind kind = oidc_url_kind(uri);

	return kind == OIDC_URL_HTTP_LOOPBACK || kind == OIDC_URL_HTTP_LOCALHOST;
}
