/*
 * What the files of the HTTP transport share (http_xfer.c): the handle's
 * struct, what the callbacks of one transfer saw, and the pieces every
 * transfer uses, whether it runs on the handle itself (http_handle.c),
 * was sent ahead (http_prefetch.c), is a side stream (http_stream.c) or
 * sets up a raw connection (http_conn.c). Callers of the transport
 * include core/http.h only.
 */
#ifndef RAI_HTTP_XFER_H
#define RAI_HTTP_XFER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/ssl.h>

#include "core/err.h"
#include "core/http.h"

/* The body of a failed stream's answer. */
#define ERROR_BODY_MAX		((size_t)1 << 20)

struct prefetch;

struct rai_http {
	CURL			*curl;
	char			 errbuf[CURL_ERROR_SIZE];
	long			 request_timeout_ms;
	int			 max_retries;
	size_t			 max_response;
	char			*tls_server_name;
	char			*user_agent;
	rai_http_auth_fn	*auth;
	rai_http_renew_fn	*renew;
	void			*auth_ud;
	uint32_t		 rnd;		/* xorshift, for jitter */
	int			 parallel;	/* connections for prefetches */
	int			 far;		/* waits show they pay: use them */
	int			 no_compression;
	CURLM			*multi;		/* the prefetches' transfers */
	CURLSH			*share;		/* TLS sessions, connections */
	X509_STORE		*ca_store;	/* the configured CA, parsed once */
	struct prefetch		*pre;		/* sent ahead, not yet asked for */
	struct prefetch		*adopted;	/* ... and the one being read */
	CURLM			*smulti;	/* side streams, side by side */
};

/* What the callbacks saw during one attempt. */
struct xfer {
	struct rai_http			*h;
	const struct rai_http_req	*req;
	struct rai_http_resp		*resp;
	int				 overflow;
	int				 stopped;
	int				 sink_failed;
	int				 header_timeout;
	struct rai_err			 sink_err;
	struct timespec			 start;
};

/* Microseconds and milliseconds since start (CLOCK_MONOTONIC). */
long long http_elapsed_us(const struct timespec *start);
long	 http_elapsed_ms(const struct timespec *start);

/* libcurl's callbacks of a transfer; their data is its struct xfer. */
size_t	 http_header_cb(char *p, size_t size, size_t nmemb, void *ud);
size_t	 http_write_cb(char *p, size_t size, size_t nmemb, void *ud);
int	 http_progress_cb(void *ud, curl_off_t dltotal, curl_off_t dlnow,
	    curl_off_t ultotal, curl_off_t ulnow);
int	 http_status_ok(long status);

/* A request's pieces. */
void	 http_slist_free_secret(struct curl_slist *);
struct curl_slist *http_request_headers(const struct rai_http_req *,
	    const char *auth);
void	 http_set_method(CURL *, const struct rai_http_req *);
int	 http_target(struct rai_http *, const char *url, char **eff,
	    struct curl_slist **connect_to, struct rai_err *);
void	 http_reset_resp(struct rai_http_resp *, size_t max);
const char *http_accept_encoding(const struct rai_http *,
	    const struct rai_http_req *);

/* What went wrong, as rai_err. */
int	 http_proxy_refused(CURL *, CURLcode, const char *url,
	    struct rai_err *);
int	 http_attempt_error(struct xfer *, CURLcode, struct rai_err *);

/* A copy of the handle for a connection of its own. */
CURL	*http_copy_handle(struct rai_http *);
/* CURLOPT_SSL_CTX_FUNCTION with the handle as its data: the shared CA. */
CURLcode http_shared_ca_ctx(CURL *, void *ssl_ctx, void *ud);

#endif
