/*
 * url: see url.h.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "core/url.h"

#include "core/banned.h"

int
rai_host_is_loopback_address(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;
	char inner[INET6_ADDRSTRLEN + 1];
	size_t n = strlen(host);

	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	/* libcurl hands an IPv6 host back in brackets */
	if (n >= 3 && host[0] == '[' && host[n - 1] == ']') {
		if (n - 2 >= sizeof(inner))
			return 0;
		memcpy(inner, host + 1, n - 2);
		inner[n - 2] = '\0';
		host = inner;
	}
	return inet_pton(AF_INET6, host, &a6) == 1 &&
	    memcmp(&a6, &in6addr_loopback, sizeof(a6)) == 0;
}

int
rai_url_is_local(const char *url)
{
	CURLU *h;
	char *host = NULL;
	int local = 0;

	if (url == NULL || (h = curl_url()) == NULL)
		return 0;
	if (curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		local = rai_host_is_loopback_address(host) ||
		    strcasecmp(host, "localhost") == 0;
	curl_free(host);
	curl_url_cleanup(h);
	return local;
}
