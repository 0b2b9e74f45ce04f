/*
 * rai_http: the HTTP transport under kube_client and backend. One reused
 * libcurl easy handle (keep-alive), TLS material as in-memory blobs,
 * timeouts on every call, capped response bodies, retries with backoff
 * for requests that may be repeated, and -v tracing that always goes
 * through the redaction helpers.
 *
 * Not thread-safe: one handle, one transfer at a time (plus the GETs
 * sent ahead by rai_http_prefetch, which move only inside its calls).
 * Stream callbacks run inside the transfer and must not use the same
 * handle.
 *
 * This header is the transport's API. Its files, one concern each,
 * share their internals through core/http_xfer.h and their own headers:
 *	http.c		the decisions that need no handle (retries, backoff)
 *	http_handle.c	the handle; rai_http_do, the ordinary request path
 *	http_xfer.c	what every transfer shares: callbacks, headers, errors
 *	http_prefetch.c	GETs sent ahead: their queue, lanes and adoption
 *	http_stream.c	side streams
 *	http_conn.c	raw connections, for an Upgrade
 *	http_log.c	-v tracing, through the redaction helpers
 */
#ifndef RAI_HTTP_H
#define RAI_HTTP_H

#include <stddef.h>
#include <time.h>

#include "core/buf.h"
#include "core/err.h"

struct rai_http;

#define RAI_HTTP_CONNECT_TIMEOUT_MS	10000L
#define RAI_HTTP_REQUEST_TIMEOUT_MS	60000L
#define RAI_HTTP_DEFAULT_RETRIES	3	/* 4 attempts in all */
#define RAI_HTTP_BACKOFF_BASE_MS	200L
#define RAI_HTTP_BACKOFF_CAP_MS		5000L
#define RAI_HTTP_RETRY_AFTER_CAP_S	30
/*
 * Connections for GETs sent ahead ($RUNAI_PARALLEL_REQUESTS; < 2: none).
 * Unless the variable is set, they go out one at a time on one
 * connection until an answer has kept the client waiting 3 ms.
 */
#define RAI_HTTP_DEFAULT_PARALLEL	4
#define RAI_HTTP_MAX_PARALLEL		16

/*
 * Supplies the Authorization value for each attempt (caller of the
 * callback frees it with rai_free_secret), or NULL in *out for none.
 */
typedef int rai_http_auth_fn(void *ud, char **out, struct rai_err *);
/* After a 401: 1 when fresh credentials may help (retry once), else 0. */
typedef int rai_http_renew_fn(void *ud);

struct rai_http_opts {
	/* PEM blobs; len 0 = unset (system CAs, no client certificate). */
	const void	*ca;
	size_t		 ca_len;
	const void	*cert;
	size_t		 cert_len;
	const void	*key;		/* secret */
	size_t		 key_len;
	int		 insecure;	/* no peer or host verification */
	const char	*tls_server_name; /* NULL = the URL's host */
	const char	*proxy;		/* NULL = libcurl's env rules */
	/*
	 * Never ask for gzip (the kubeconfig's disable-compression, or a
	 * server on this machine): where bandwidth is ample, the server's
	 * deflate and our inflate cost more time than the smaller body saves.
	 */
	int		 no_compression;
	/* 0 = default; env RUNAI_REQUEST_TIMEOUT applies to the request one. */
	long		 connect_timeout_ms;
	long		 request_timeout_ms;
	/* < 0 = $RUNAI_MAX_RETRIES or RAI_HTTP_DEFAULT_RETRIES; 0 = none. */
	int		 max_retries;
	/* 0 = $RUNAI_MAX_RESPONSE or RAI_BUF_DEFAULT_MAX. */
	size_t		 max_response;
	/* Product token, "runai/0.1.0"; " (linux) libcurl/x" is appended. */
	const char	*user_agent;
	rai_http_auth_fn	*auth;
	rai_http_renew_fn	*renew;
	void			*auth_ud;
};

enum rai_http_flags {
	RAI_HTTP_IDEMPOTENT	= 1 << 0,	/* may be repeated on failure */
	RAI_HTTP_NO_RETRY	= 1 << 1,	/* never repeated */
	/* the body as it is, no gzip: long streams of bytes (logs), which
	 * the server would otherwise spend its time compressing */
	RAI_HTTP_IDENTITY	= 1 << 2,
};

/*
 * Stream sink: gets the body of a 2xx answer as it arrives. Returns 0 to
 * go on, 1 to stop cleanly (rai_http_do then returns 0), -1 with err
 * filled to fail the call.
 */
typedef int rai_http_data_fn(void *ud, const char *data, size_t len,
    struct rai_err *);

struct rai_http_req {
	const char	*method;	/* "GET", "POST", ... */
	const char	*url;		/* full URL, already escaped */
	const char	*accept;	/* NULL = application/json */
	const char	*content_type;	/* for a body */
	const char	*body;		/* NULL = none */
	size_t		 body_len;
	unsigned	 flags;		/* enum rai_http_flags */
	/* Streams set on_data; their total timeout is stream_timeout_ms. */
	rai_http_data_fn *on_data;
	void		*on_data_ud;
	long		 stream_timeout_ms;
};

struct rai_http_resp {
	long		 status;	/* 0 = no HTTP answer */
	char		*content_type;	/* owned, may be NULL */
	int		 retry_after;	/* header, in seconds; 0 = none */
	size_t		 streamed;	/* bytes given to on_data */
	struct rai_buf	 body;		/* streams: a failure's body */
	char		 reason[48];	/* status line phrase, "OK" */
};
#define RAI_HTTP_RESP_INIT { 0, NULL, 0, 0, RAI_BUF_INIT, { 0 } }
void	 rai_http_resp_release(struct rai_http_resp *);

/* The first handle of the process sets libcurl up (curl_global_init). */
int	 rai_http_new(struct rai_http **out, const struct rai_http_opts *,
	    struct rai_err *);
void	 rai_http_free(struct rai_http *);

/*
 * Whether requests may go through a proxy: the one given (opts' proxy),
 * or one in the variables libcurl reads when none is given.
 */
int	 rai_http_proxy_may_apply(const char *proxy);

/*
 * Performs the request, retrying as the flags allow. 0 on a 2xx answer
 * (or a stream stopped by its sink); -1 otherwise with err filled: a
 * non-2xx answer through rai_err_from_http (resp keeps what came), a
 * transport failure through rai_err_from_curl, an oversized body as
 * RAI_E_PROTO.
 */
int	 rai_http_do(struct rai_http *, const struct rai_http_req *,
	    struct rai_http_resp *, struct rai_err *);

/*
 * Sends a GET of url ahead, on a connection of its own, so that several
 * independent requests wait for the server at once. A later rai_http_do
 * of the same method, URL and accept takes its answer as if it had just
 * sent it (a stream's sink gets the buffered bytes, then the rest as
 * they come); one that failed before the caller saw a byte is sent
 * again with the usual retries (an answer no retry changes, a 403 or
 * 404, is taken as it is). A no-op when $RUNAI_PARALLEL_REQUESTS is
 * below 2. By default the requests sent ahead go out one after another
 * on one connection while the server answers within 3 ms (more
 * connections would cost more than they save), and at once on up to
 * RAI_HTTP_DEFAULT_PARALLEL connections from the first wait longer than
 * that; a number set in the variable sends them at once from the
 * start. Unclaimed ones are dropped by rai_http_prefetch_drop or
 * rai_http_free.
 */
void	 rai_http_prefetch(struct rai_http *, const char *url,
	    const char *accept);
/* Drops the prefetches nobody asked for (their answers may be stale). */
void	 rai_http_prefetch_drop(struct rai_http *);

/*
 * Side streams: several GETs whose bodies arrive at once (watches of
 * several kinds, the logs of several pods), each on its own connection,
 * all moved on by one wait. req (which must outlive the stream) is a
 * stream's request as rai_http_do takes it, on_data set; a side stream
 * is not retried: the caller starts it again where it stopped.
 * rai_http_streams_wait waits up to wait_ms for bytes on any of them
 * and hands what came to the sinks (-1: libcurl broke); the n streams
 * given are the ones it can mark ended. rai_http_stream_result then
 * says 1 while the stream runs, 0 once it ended cleanly or its sink
 * stopped it, -1 with err as rai_http_do would fill it (resp gets the
 * answer's status and, for a failure, its body).
 */
struct rai_http_stream;
int	 rai_http_stream_start(struct rai_http *, const struct rai_http_req *,
	    struct rai_http_stream **, struct rai_err *);
int	 rai_http_streams_wait(struct rai_http *, long wait_ms,
	    struct rai_http_stream *const *, size_t n);
int	 rai_http_stream_result(struct rai_http *, struct rai_http_stream *,
	    struct rai_http_resp *, struct rai_err *);
void	 rai_http_stream_free(struct rai_http *, struct rai_http_stream *);
/*
 * Logs a body at -v=8 and above: redacted, then cut to 1 KiB (10 KiB at
 * 9, whole at 10). For stream lines as well as whole bodies.
 */
void	 rai_http_log_body(const char *label, const char *data, size_t len);

/* The effective limits, after defaults and the environment. */
long	 rai_http_request_timeout_ms(const struct rai_http *);
size_t	 rai_http_max_response(const struct rai_http *);

/*
 * A raw connection, for protocols that take the socket over after an
 * HTTP/1.1 Upgrade (WebSocket for exec and attach). libcurl makes it
 * (CURLOPT_CONNECT_ONLY on a handle of its own, copied from the
 * client's), so proxies, TLS verification, the CA and the client
 * certificate are exactly those of ordinary requests; the caller then
 * speaks the bytes. Non-blocking after the connect.
 */
struct rai_http_conn;

/* Connects to url's host within the connect timeout; RAI_E_NET on failure. */
int	 rai_http_connect(struct rai_http *, const char *url,
	    struct rai_http_conn **, struct rai_err *);
/*
 * The same connect without blocking, for a loop that sets up many at
 * once: start it, then while rai_http_conn_connect_step says 0, poll
 * what rai_http_conn_connect_wait fills in (no later than *wake_at,
 * rai_now_ms) and hand the step its revents. The step returns 1 once
 * connected, -1 with err (the connection is then only for closing).
 */
int	 rai_http_connect_start(struct rai_http *, const char *url,
	    unsigned flags, struct rai_http_conn **, struct rai_err *);
/*
 * A flag of rai_http_connect_start: the connection will carry bulk data
 * (a port-forward session's every connection): TLS reads 256 KiB at a
 * time instead of 64, a quarter of the system calls of a long download,
 * for 192 KiB more of buffer. One connection of many small ones does
 * without.
 */
#define RAI_HTTP_CONN_BULK	1u
int	 rai_http_conn_connect_step(struct rai_http_conn *, short revents,
	    struct rai_err *);
struct pollfd;
void	 rai_http_conn_connect_wait(const struct rai_http_conn *,
	    struct pollfd *, long *wake_at);
/*
 * Moves up to len bytes. 0 with *n > 0: moved; 0 with *n == 0: it would
 * block (poll the fd); recv returns 1 at the peer's EOF; -1 on errors
 * (RAI_E_NET).
 */
int	 rai_http_conn_send(struct rai_http_conn *, const void *, size_t len,
	    size_t *n, struct rai_err *);
int	 rai_http_conn_recv(struct rai_http_conn *, void *, size_t len,
	    size_t *n, struct rai_err *);
int	 rai_http_conn_fd(const struct rai_http_conn *);
void	 rai_http_conn_close(struct rai_http_conn *);
/* The Authorization value requests get now (NULL = none); rai_free_secret it. */
int	 rai_http_authorization(struct rai_http *, char **out, struct rai_err *);
/* After a 401 on a raw connection: 1 when fresh credentials may help. */
int	 rai_http_renew(struct rai_http *);
/* "runai/0.1.0 (linux) libcurl/7.88.1", as requests send it. */
const char *rai_http_user_agent(const struct rai_http *);

/* ---- pure helpers, exported for unit tests ---- */

/*
 * Whether a failed attempt may be repeated: curl_code (0 = the transfer
 * completed), status (0 = none) and retry_after (the answer's
 * Retry-After in seconds, 0 = none) describe it; streamed is how many
 * body bytes a stream sink has already consumed.
 */
int	 rai_http_retryable(unsigned flags, int curl_code, long status,
	    int retry_after, size_t streamed);
/*
 * Delay before retry number attempt (1 = the first retry): the server's
 * retry_after (seconds, capped at RAI_HTTP_RETRY_AFTER_CAP_S) when > 0,
 * else exponential backoff from RAI_HTTP_BACKOFF_BASE_MS, capped at
 * RAI_HTTP_BACKOFF_CAP_MS, with jitter of +-25% taken from rnd.
 */
long	 rai_http_backoff_ms(int attempt, int retry_after, unsigned rnd);
/* A Retry-After value (delta-seconds or HTTP-date) in seconds; 0 = none. */
int	 rai_http_parse_retry_after(const char *value, time_t now);
/* "1", "1.5", "1s", "500ms", "2m" -> milliseconds; -1 when malformed. */
long	 rai_http_parse_duration_ms(const char *);
/* "64 MiB", "512 KiB", "2000 bytes": for messages about caps. */
void	 rai_http_format_size(size_t, char *buf, size_t bufsz);

#endif
