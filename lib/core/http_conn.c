/*
 * Raw connections, for protocols that take the socket over after an
 * HTTP/1.1 Upgrade: libcurl connects (CURLOPT_CONNECT_ONLY on a copy of
 * the handle, driven without blocking by the connection's own multi
 * handle) so proxies, TLS and the CA are those of ordinary requests;
 * then the caller moves the bytes. Apart from the request path: after
 * the connect no HTTP is spoken here.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>

#include <curl/curl.h>
#include <openssl/ssl.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_conn.h"
#include "core/http_xfer.h"
#include "core/log.h"
#include "core/time.h"

#include "core/banned.h"

/* ---- raw connections (after an Upgrade) ---- */

struct rai_http_conn {
	CURL		*curl;
	/*
	 * The connection's own multi handle: it drives the connect without
	 * blocking, and keeps the connection for curl_easy_send/recv after.
	 */
	CURLM		*multi;
	char		 errbuf[CURL_ERROR_SIZE];
	int		 fd;
	/* while connecting */
	int		 connected;
	char		*url;		/* as asked, for messages */
	/*
	 * The sockets libcurl waits on (BAD: none), two while it tries
	 * IPv6 and IPv4 at once; the first is polled, the other tested.
	 */
	curl_socket_t	 wait_sock[2];
	int		 wait_what[2];	/* CURL_POLL_IN/OUT/INOUT */
	long		 timer_at;	/* rai_now_ms() libcurl wants a call; -1 */
	long		 deadline;	/* the connect timeout */
	struct curl_slist *connect_to_list;
	struct rai_http	*h;		/* the client's, for its CA */
	size_t		 read_buf;	/* TLS's read-ahead buffer */
};

/*
 * A stream's TLS reads what the socket holds, not a record header and
 * then its body: a fifth of the system calls for a long download. Bytes
 * read ahead are invisible to poll(), so readers of a rai_http_conn
 * read until it says "nothing now" before they poll again. Called only
 * by a libcurl built with OpenSSL.
 */
static CURLcode
stream_tls_ctx(CURL *curl, void *ssl_ctx, void *ud)
{
	struct rai_http_conn *c = ud;

	(void)http_shared_ca_ctx(curl, ssl_ctx, c->h);
	SSL_CTX_set_read_ahead((SSL_CTX *)ssl_ctx, 1);
	SSL_CTX_set_default_read_buffer_len((SSL_CTX *)ssl_ctx, c->read_buf);
	return CURLE_OK;
}

static size_t
discard_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	(void)p;
	(void)ud;
	return size * nmemb;
}

/* libcurl says which socket the connect waits on, and for what. */
static int
conn_socket_cb(CURL *easy, curl_socket_t sock, int what, void *ud,
    void *sockp)
{
	struct rai_http_conn *c = ud;

	int i = c->wait_sock[1] == sock ? 1 : 0;

	(void)easy;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		if (c->wait_sock[i] == sock)
			c->wait_sock[i] = CURL_SOCKET_BAD;
		if (c->wait_sock[0] == CURL_SOCKET_BAD) {
			c->wait_sock[0] = c->wait_sock[1];
			c->wait_what[0] = c->wait_what[1];
			c->wait_sock[1] = CURL_SOCKET_BAD;
		}
		return 0;
	}
	if (c->wait_sock[i] != sock && c->wait_sock[0] != CURL_SOCKET_BAD)
		i = 1;
	c->wait_sock[i] = sock;
	c->wait_what[i] = what;
	return 0;
}

static int
conn_timer_cb(CURLM *multi, long timeout_ms, void *ud)
{
	struct rai_http_conn *c = ud;

	(void)multi;
	c->timer_at = timeout_ms < 0 ? -1 : rai_now_ms() + timeout_ms;
	return 0;
}

int
rai_http_connect_start(struct rai_http *h, const char *url, unsigned flags,
    struct rai_http_conn **out, struct rai_err *err)
{
	struct rai_http_conn *rc;
	struct curl_slist *connect_to = NULL;
	char *eff = NULL;

	*out = NULL;
	if (http_target(h, url, &eff, &connect_to, err) == -1)
		return -1;
	rc = xcalloc(1, sizeof(*rc));
	rc->fd = -1;
	rc->wait_sock[0] = rc->wait_sock[1] = CURL_SOCKET_BAD;
	rc->timer_at = -1;
	rc->url = xstrdup(url);
	rc->h = h;
	rc->read_buf = (size_t)(flags & RAI_HTTP_CONN_BULK ? 256 : 64) * 1024;
	/* libcurl's connect timeout applies; this only bounds a stuck one */
	rc->deadline = rai_now_ms() + rai_http_request_timeout_ms(h);
	/* a copy keeps TLS, proxy and timeouts; the pool stays for requests */
	rc->curl = http_copy_handle(h);
	if ((rc->multi = curl_multi_init()) == NULL)
		rai_die("out of memory copying a libcurl handle");
	curl_easy_setopt(rc->curl, CURLOPT_ERRORBUFFER, rc->errbuf);
	curl_easy_setopt(rc->curl, CURLOPT_URL, eff);
	curl_easy_setopt(rc->curl, CURLOPT_CONNECT_TO, connect_to);
	curl_easy_setopt(rc->curl, CURLOPT_CONNECT_ONLY, 1L);
	(void)curl_easy_setopt(rc->curl, CURLOPT_SSL_CTX_FUNCTION,
	    stream_tls_ctx);
	(void)curl_easy_setopt(rc->curl, CURLOPT_SSL_CTX_DATA, rc);
	/*
	 * The copy carries the last request's callbacks and their data, a
	 * transfer long gone: a proxy's answer to CONNECT would be handed
	 * to them. Nothing of the tunnel's set-up is wanted.
	 */
	curl_easy_setopt(rc->curl, CURLOPT_HEADERFUNCTION, discard_cb);
	curl_easy_setopt(rc->curl, CURLOPT_HEADERDATA, NULL);
	curl_easy_setopt(rc->curl, CURLOPT_WRITEFUNCTION, discard_cb);
	curl_easy_setopt(rc->curl, CURLOPT_WRITEDATA, NULL);
	/* a plain-http server behind a proxy still needs a tunnel */
	curl_easy_setopt(rc->curl, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(rc->curl, CURLOPT_TIMEOUT_MS, 0L);
	curl_easy_setopt(rc->curl, CURLOPT_VERBOSE,
	    rai_log_enabled(RAI_LOG_CURL) ? 1L : 0L);
	curl_multi_setopt(rc->multi, CURLMOPT_SOCKETFUNCTION, conn_socket_cb);
	curl_multi_setopt(rc->multi, CURLMOPT_SOCKETDATA, rc);
	curl_multi_setopt(rc->multi, CURLMOPT_TIMERFUNCTION, conn_timer_cb);
	curl_multi_setopt(rc->multi, CURLMOPT_TIMERDATA, rc);
	/* the libcurl copy of CONNECT_TO is made at the connect: keep ours */
	rc->connect_to_list = connect_to;
	free(eff);
	if (curl_multi_add_handle(rc->multi, rc->curl) != CURLM_OK)
		rai_die("out of memory starting a connection");
	if (rai_http_conn_connect_step(rc, 0, err) == -1) {
		rai_http_conn_close(rc);
		return -1;
	}
	*out = rc;
	return 0;
}

/* The connect ended (well or not): its result, the socket. */
static int
connect_done(struct rai_http_conn *c, CURLcode code, struct rai_err *err)
{
	curl_socket_t sock = CURL_SOCKET_BAD;

	curl_easy_setopt(c->curl, CURLOPT_CONNECT_TO, NULL);
	curl_slist_free_all(c->connect_to_list);
	c->connect_to_list = NULL;
	if (code == CURLE_OK)
		code = curl_easy_getinfo(c->curl, CURLINFO_ACTIVESOCKET, &sock);
	if (code != CURLE_OK || sock == CURL_SOCKET_BAD) {
		if (code == CURLE_OK)
			code = CURLE_COULDNT_CONNECT;
		if (!http_proxy_refused(c->curl, code, c->url, err))
			rai_err_from_curl(err, (int)code, c->url, c->errbuf);
		return -1;
	}
	c->fd = (int)sock;
	c->connected = 1;
	return 1;
}

int
rai_http_conn_connect_step(struct rai_http_conn *c, short revents,
    struct rai_err *err)
{
	curl_socket_t sock = c->wait_sock[0], other = c->wait_sock[1];
	int running = 0, flags = 0, left;
	CURLMsg *msg;

	if (c->connected)
		return 1;
	if (sock != CURL_SOCKET_BAD && revents != 0) {
		if (revents & (POLLIN | POLLHUP))
			flags |= CURL_CSELECT_IN;
		if (revents & POLLOUT)
			flags |= CURL_CSELECT_OUT;
		if (revents & POLLERR)
			flags |= CURL_CSELECT_ERR;
		(void)curl_multi_socket_action(c->multi, sock, flags, &running);
	}
	/* the socket not polled: libcurl looks at it itself (no flags) */
	if (other != CURL_SOCKET_BAD && other == c->wait_sock[1])
		(void)curl_multi_socket_action(c->multi, other, 0, &running);
	if (c->timer_at != -1 && rai_now_ms() >= c->timer_at) {
		c->timer_at = -1;
		(void)curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0,
		    &running);
	}
	while ((msg = curl_multi_info_read(c->multi, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			return connect_done(c, msg->data.result, err);
	if (rai_now_ms() >= c->deadline) {
		rai_err_set(err, RAI_E_NET, "connecting to %s timed out",
		    c->url);
		return -1;
	}
	return 0;
}

/* How often a second socket (not polled) is looked at. */
#define OTHER_SOCKET_MS	20L

void
rai_http_conn_connect_wait(const struct rai_http_conn *c,
    struct pollfd *p, long *wake_at)
{
	p->fd = c->connected || c->wait_sock[0] == CURL_SOCKET_BAD ? -1 :
	    (int)c->wait_sock[0];
	p->events = 0;
	if (c->wait_what[0] & CURL_POLL_IN)
		p->events |= POLLIN;
	if (c->wait_what[0] & CURL_POLL_OUT)
		p->events |= POLLOUT;
	p->revents = 0;
	*wake_at = c->deadline;
	if (c->timer_at != -1 && c->timer_at < *wake_at)
		*wake_at = c->timer_at;
	if (c->wait_sock[1] != CURL_SOCKET_BAD &&
	    rai_now_ms() + OTHER_SOCKET_MS < *wake_at)
		*wake_at = rai_now_ms() + OTHER_SOCKET_MS;
}

int
rai_http_connect(struct rai_http *h, const char *url,
    struct rai_http_conn **out, struct rai_err *err)
{
	struct pollfd p;
	short revents = 0;
	long wake_at, left;
	int rc;

	if (rai_http_connect_start(h, url, 0, out, err) == -1)
		return -1;
	while ((rc = rai_http_conn_connect_step(*out, revents, err)) == 0) {
		rai_http_conn_connect_wait(*out, &p, &wake_at);
		left = wake_at - rai_now_ms();
		if (left < 0)
			left = 0;
		if (poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left) == -1 &&
		    errno != EINTR) {
			rc = rai_err_errno(err, errno, "waiting for the "
			    "connection");
			break;
		}
		revents = p.fd == -1 ? 0 : p.revents;
	}
	if (rc == 1)
		return 0;
	rai_http_conn_close(*out);
	*out = NULL;
	return -1;
}

static int
conn_error(struct rai_http_conn *c, CURLcode code, const char *what,
    struct rai_err *err)
{
	rai_err_set(err, RAI_E_NET, "%s the connection failed: %s (curl %d)",
	    what, c->errbuf[0] ? c->errbuf : curl_easy_strerror(code),
	    (int)code);
	err->curl_code = (int)code;
	return -1;
}

int
rai_http_conn_send(struct rai_http_conn *c, const void *data, size_t len,
    size_t *n, struct rai_err *err)
{
	CURLcode code;

	*n = 0;
	c->errbuf[0] = '\0';
	code = curl_easy_send(c->curl, data, len, n);
	if (code == CURLE_AGAIN) {
		*n = 0;
		return 0;
	}
	if (code != CURLE_OK)
		return conn_error(c, code, "writing to", err);
	return 0;
}

int
rai_http_conn_recv(struct rai_http_conn *c, void *data, size_t len,
    size_t *n, struct rai_err *err)
{
	CURLcode code;

	*n = 0;
	c->errbuf[0] = '\0';
	code = curl_easy_recv(c->curl, data, len, n);
	if (code == CURLE_AGAIN) {
		*n = 0;
		return 0;
	}
	if (code != CURLE_OK)
		return conn_error(c, code, "reading from", err);
	return *n == 0 ? 1 : 0;
}

int
rai_http_conn_fd(const struct rai_http_conn *c)
{
	return c->fd;
}

void
rai_http_conn_close(struct rai_http_conn *c)
{
	if (c == NULL)
		return;
	if (c->multi != NULL && c->curl != NULL)
		(void)curl_multi_remove_handle(c->multi, c->curl);
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	if (c->multi != NULL)
		curl_multi_cleanup(c->multi);
	curl_slist_free_all(c->connect_to_list);
	free(c->url);
	free(c);
}
