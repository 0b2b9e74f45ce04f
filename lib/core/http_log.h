/*
 * -v tracing of the transport (http_log.c), for the files of the
 * transport; rai_http_log_body is declared in core/http.h with the API.
 */
#ifndef RAI_HTTP_LOG_H
#define RAI_HTTP_LOG_H

#include <stddef.h>

#include <curl/curl.h>

struct rai_http_req;
struct xfer;

/* CURLOPT_DEBUGFUNCTION: headers at -v=7 and up, libcurl's text at 9. */
int	 http_debug_cb(CURL *, curl_infotype, char *data, size_t len,
	    void *ud);
/* The request as a curl command line (-v=9). */
void	 http_log_curl_command(const struct rai_http_req *,
	    const struct curl_slist *hdrs);
/* "GET URL 200 OK in 3 ms", or why it failed (-v=6). */
void	 http_log_outcome(const struct xfer *, CURLcode);
/* The timing breakdown of c's last transfer (-v=9). */
void	 http_log_timing(CURL *c);

#endif
