/*
 * The upgrade of one API request to a WebSocket, on a socket libcurl
 * connected, and the queue of frames going out on it. What travels
 * inside the frames is the callers' business (kube/exec, kube/portforward).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/rand.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/http_err.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
#include "kube/ws.h"
#include "kube/wsconn.h"

#include "core/banned.h"

/* one read of a stream's bytes (drain reads until none are left) */
#define WSCONN_RECV_CHUNK	((size_t)64 * 1024)

#define HANDSHAKE_MAX		((size_t)64 * 1024)
#define ERROR_BODY_MAX		((size_t)1024 * 1024)
/* sendq is compacted once this much of it was sent */
#define SENDQ_COMPACT		((size_t)128 * 1024)

/* ---- the handshake ---- */

struct answer {
	long		 status;
	char		 reason[48];
	char		*upgrade, *connection, *accept, *protocol;
	char		*content_type;
	long		 content_length;	/* -1 = none */
	int		 retry_after;
	struct rai_buf	 raw;		/* status line, headers, then more */
	size_t		 head_len;	/* through the blank line */
};

static void
answer_release(struct answer *a)
{
	free(a->upgrade);
	free(a->connection);
	free(a->accept);
	free(a->protocol);
	free(a->content_type);
	rai_buf_release(&a->raw);
}

static char *
host_header(const char *url, struct rai_err *err)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *out = NULL;

	if (u == NULL)
		rai_die("out of memory parsing a URL");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		rai_err_set(err, RAI_E_CONFIG, "cannot parse the URL '%s'",
		    url);
	else if (curl_url_get(u, CURLUPART_PORT, &port, 0) == CURLUE_OK)
		out = xasprintf("%s:%s", host, port);
	else
		out = xstrdup(host);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

/* The request's headers at -v=7, through the redaction every request gets. */
static void
log_request(const char *req, size_t len)
{
	struct rai_buf red = RAI_BUF_INIT;
	const char *p = req, *end = req + len, *nl;

	if (!rai_log_enabled(RAI_LOG_HDRS))
		return;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (nl - p > 1) {
			rai_buf_reset(&red);
			rai_redact_header(p, (size_t)(nl - p - 1), &red);
			rai_log(RAI_LOG_HDRS, "> %s", rai_buf_str(&red));
		}
		p = nl + 1;
	}
	rai_buf_release_secret(&red);
}

static char *
upgrade_request(struct rai_http *h, const char *url, const char *path,
    const char *const offered[], const char *key, size_t *len,
    struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *host, *auth = NULL;
	size_t i;

	if ((host = host_header(url, err)) == NULL)
		return NULL;
	if (rai_http_authorization(h, &auth, err) == -1) {
		free(host);
		return NULL;
	}
	b.max = HANDSHAKE_MAX;
	rai_buf_addf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, host);
	rai_buf_addf(&b, "User-Agent: %s\r\n", rai_http_user_agent(h));
	if (auth != NULL)
		rai_buf_addf(&b, "Authorization: %s\r\n", auth);
	rai_buf_addstr(&b, "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Version: 13\r\n");
	rai_buf_addf(&b, "Sec-WebSocket-Key: %s\r\n", key);
	if (offered[0] != NULL) {	/* none: the header is left out */
		rai_buf_addstr(&b, "Sec-WebSocket-Protocol: ");
		for (i = 0; offered[i] != NULL; i++)
			rai_buf_addf(&b, "%s%s", i ? ", " : "", offered[i]);
		rai_buf_addstr(&b, "\r\n");
	}
	rai_buf_addstr(&b, "\r\n");
	rai_free_secret(auth);
	free(host);
	log_request(b.data, b.len);
	return rai_buf_detach(&b, len);
}

static char *
trimmed(const char *p, size_t len)
{
	while (len > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' ||
	    p[len - 1] == '\r'))
		len--;
	return xstrndup(p, len);
}

static void
header(struct answer *a, const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);
	size_t nlen;
	char *v;

	if (colon == NULL)
		return;
	nlen = (size_t)(colon - line);
	v = trimmed(colon + 1, len - nlen - 1);
#define IS(name) (nlen == strlen(name) && strncasecmp(line, name, nlen) == 0)
	if (IS("Upgrade") && a->upgrade == NULL)
		a->upgrade = v;
	else if (IS("Connection") && a->connection == NULL)
		a->connection = v;
	else if (IS("Sec-WebSocket-Accept") && a->accept == NULL)
		a->accept = v;
	else if (IS("Sec-WebSocket-Protocol") && a->protocol == NULL)
		a->protocol = v;
	else if (IS("Content-Type") && a->content_type == NULL)
		a->content_type = v;
	else {
		if (IS("Content-Length"))
			a->content_length = strtol(v, NULL, 10);
		else if (IS("Retry-After"))
			a->retry_after = rai_http_parse_retry_after(v,
			    time(NULL));
		free(v);
	}
#undef IS
}

static int
parse_head(struct answer *a, struct rai_err *err)
{
	const char *p = a->raw.data, *end = p + a->head_len, *nl;
	int first = 1;
	char reason[48] = "";
	int n = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (rai_log_enabled(RAI_LOG_HDRS) && nl - p > 1)
			rai_log(RAI_LOG_HDRS, "< %.*s", (int)(nl - p - 1), p);
		if (first) {
			/* NOLINTNEXTLINE(cert-err34-c): %3ld cannot overflow */
			if (sscanf(p, "HTTP/1.%*1d %3ld %47[^\r\n]%n",
			    &a->status, reason, &n) < 1)
				return rai_err_set(err, RAI_E_PROTO, "the "
				    "server's answer to the upgrade is not "
				    "HTTP: '%.*s'", (int)(nl - p > 60 ? 60 :
				    nl - p), p);
			snprintf(a->reason, sizeof(a->reason), "%s", reason);
			first = 0;
		} else
			header(a, p, (size_t)(nl - p));
		p = nl + 1;
	}
	return 0;
}

/* Where the blank line that ends the headers ends, or 0. */
static size_t
head_end(const char *p, size_t len)
{
	size_t i;

	for (i = 3; i < len; i++)
		if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' &&
		    p[i - 3] == '\r')
			return i + 1;
	return 0;
}

static void
make_key(char key[25])
{
	unsigned char nonce[16];

	if (RAND_bytes(nonce, sizeof(nonce)) != 1)
		rai_die("no random bytes for the WebSocket key");
	kube_ws_key(nonce, key);
}

/*
 * The upgrade in steps, so that a loop can set up many at once: the
 * connect (libcurl's, non-blocking), the request going out, the
 * answer's head coming in, and for a refusal its body.
 */
enum hs_state { HS_CONNECT, HS_SEND, HS_HEAD, HS_BODY };

struct kube_wsconn_hs {
	struct kube_client	*kc;
	const char *const	*offered;
	char			*path, *url;
	char			 key[25];
	char			*req;
	size_t			 req_len, req_off;
	struct answer		 a;
	enum hs_state		 state;
	long			 start, deadline;
	int			 renewed;	/* after a 401, once */
	unsigned		 flags;		/* KUBE_WSCONN_* */
};

/* Forgets the try's request and answer (the connection is the caller's). */
static void
hs_forget(struct kube_wsconn_hs *hs)
{
	if (hs->req != NULL)
		rai_free_secret_mem(hs->req, hs->req_len);
	hs->req = NULL;
	answer_release(&hs->a);
	memset(&hs->a, 0, sizeof(hs->a));
	hs->a.content_length = -1;
}

/* Before another try: its connection goes too. */
static void
hs_reset(struct kube_wsconn *ws)
{
	rai_http_conn_close(ws->conn);
	ws->conn = NULL;
	hs_forget(ws->hs);
}

/* The upgrade is over: the connection stays. */
static void
hs_free(struct kube_wsconn *ws)
{
	if (ws->hs == NULL)
		return;
	hs_forget(ws->hs);
	free(ws->hs->path);
	free(ws->hs->url);
	free(ws->hs);
	ws->hs = NULL;
}

/* A fresh try: the request (with the credentials of now), the connect. */
static int
hs_begin(struct kube_wsconn *ws, struct rai_err *err)
{
	struct kube_wsconn_hs *hs = ws->hs;
	struct rai_http *h = kube_client_http(hs->kc);

	hs->start = rai_now_ms();
	hs->deadline = hs->start + rai_http_request_timeout_ms(h);
	hs->state = HS_CONNECT;
	hs->req_off = 0;
	make_key(hs->key);
	if ((hs->req = upgrade_request(h, hs->url, hs->path, hs->offered,
	    hs->key, &hs->req_len, err)) == NULL)
		return -1;
	return rai_http_connect_start(h, hs->url, hs->flags & KUBE_WSCONN_BULK ?
	    RAI_HTTP_CONN_BULK : 0, &ws->conn, err);
}

/* 1 when the request is out, 0 when the socket takes no more now. */
static int
hs_send(struct kube_wsconn *ws, struct rai_err *err)
{
	struct kube_wsconn_hs *hs = ws->hs;
	size_t n;

	while (hs->req_off < hs->req_len) {
		if (rai_http_conn_send(ws->conn, hs->req + hs->req_off,
		    hs->req_len - hs->req_off, &n, err) == -1)
			return -1;
		if (n == 0)
			return 0;
		hs->req_off += n;
	}
	return 1;
}

/* Reads what has come: 1 once the head is whole, 0 for more. */
static int
hs_read_head(struct kube_wsconn *ws, struct rai_err *err)
{
	struct answer *a = &ws->hs->a;
	char chunk[4096];
	size_t n;
	int rc;

	for (;;) {
		if ((a->head_len = head_end(a->raw.data, a->raw.len)) > 0)
			return parse_head(a, err) == -1 ? -1 : 1;
		if (a->raw.len >= HANDSHAKE_MAX)
			return rai_err_set(err, RAI_E_PROTO, "the answer to the "
			    "upgrade has over 64 KiB of headers");
		if ((rc = rai_http_conn_recv(ws->conn, chunk, sizeof(chunk),
		    &n, err)) == -1)
			return -1;
		if (rc == 1)
			return rai_err_set(err, RAI_E_NET, "the server closed "
			    "the connection before answering the upgrade");
		if (n == 0)
			return 0;
		if (rai_buf_add(&a->raw, chunk, n) == -1)
			return rai_err_set(err, RAI_E_PROTO, "the answer to the "
			    "upgrade is too large");
	}
}

/* A refusal's body, as far as Content-Length (or EOF) goes: 1 when read. */
static int
hs_read_body(struct kube_wsconn *ws)
{
	struct rai_err ignored = RAI_ERR_INIT;
	struct answer *a = &ws->hs->a;
	char chunk[4096];
	size_t n, want;
	int done = 0;

	want = a->content_length >= 0 ? a->head_len +
	    (size_t)a->content_length : SIZE_MAX;
	while (!done) {
		if (a->raw.len >= want ||
		    a->raw.len >= a->head_len + ERROR_BODY_MAX)
			done = 1;
		else if (rai_http_conn_recv(ws->conn, chunk, sizeof(chunk), &n,
		    &ignored) != 0)
			done = 1;	/* its end, or a failure: what came */
		else if (n == 0)
			break;
		else if (rai_buf_add(&a->raw, chunk, n) == -1)
			done = 1;
	}
	rai_err_release(&ignored);
	return done;
}

/* The head is in: the upgrade (1), or the refusal's body to read (0). */
static int
hs_answer(struct kube_wsconn *ws, struct rai_err *err)
{
	struct kube_wsconn_hs *hs = ws->hs;
	struct answer *a = &hs->a;
	const char *chosen = NULL;

	rai_log(RAI_LOG_REQ, "GET %s %ld%s%s in %ld ms", hs->url, a->status,
	    a->reason[0] ? " " : "", a->reason,
	    (long)(rai_now_ms() - hs->start));
	if (a->status != 101) {
		hs->state = HS_BODY;
		return 0;
	}
	if (kube_ws_check_upgrade(hs->key, a->status, a->upgrade,
	    a->connection, a->accept, a->protocol, hs->offered, &chosen,
	    err) == -1)
		return -1;
	snprintf(ws->protocol, sizeof(ws->protocol), "%s",
	    chosen != NULL ? chosen : "");
	rai_buf_add(&ws->early, a->raw.data + a->head_len,
	    a->raw.len - a->head_len);
	return 1;
}

/* The server refused: its Status as err; a 401 tries again once. */
static int
hs_refused(struct kube_wsconn *ws, struct rai_err *err)
{
	struct kube_wsconn_hs *hs = ws->hs;
	struct answer *a = &hs->a;

	if (a->status == 401 && !hs->renewed &&
	    rai_http_renew(kube_client_http(hs->kc))) {
		rai_log(RAI_LOG_NOTE, "GET %s: 401, retrying with renewed "
		    "credentials", hs->url);
		hs->renewed = 1;
		hs_reset(ws);
		return hs_begin(ws, err);
	}
	return rai_err_from_http(err, a->status, a->content_type,
	    a->raw.data + a->head_len, a->raw.len - a->head_len,
	    a->retry_after);
}

/* One step as far as the socket allows: 1 upgraded, 0 not yet, -1 err. */
static int
hs_step(struct kube_wsconn *ws, short revents, struct rai_err *err)
{
	struct kube_wsconn_hs *hs = ws->hs;
	int rc;

	switch (hs->state) {
	case HS_CONNECT:
		if ((rc = rai_http_conn_connect_step(ws->conn, revents,
		    err)) != 1)
			return rc;
		hs->state = HS_SEND;
		/* FALLTHROUGH */
	case HS_SEND:
		if ((rc = hs_send(ws, err)) != 1)
			return rc;
		rai_free_secret_mem(hs->req, hs->req_len);
		hs->req = NULL;
		hs->state = HS_HEAD;
		/* FALLTHROUGH */
	case HS_HEAD:
		if ((rc = hs_read_head(ws, err)) != 1)
			return rc;
		if ((rc = hs_answer(ws, err)) != 0)
			return rc;
		/* FALLTHROUGH */
	case HS_BODY:
		if (!hs_read_body(ws) && rai_now_ms() < hs->deadline)
			return 0;
		return hs_refused(ws, err) == -1 ? -1 : 0;
	}
	return 0;
}

/* ---- the connection ---- */

int
kube_wsconn_start(struct kube_wsconn *ws, struct kube_client *kc,
    const char *path, const char *const offered[], unsigned flags,
    struct rai_err *err)
{
	struct kube_wsconn_hs *hs;

	memset(ws, 0, sizeof(*ws));
	rai_buf_init(&ws->early, 0);
	rai_buf_init(&ws->sendq, 0);
	if (RAND_bytes((unsigned char *)&ws->rnd, sizeof(ws->rnd)) != 1 ||
	    ws->rnd == 0)
		ws->rnd = (uint32_t)rai_now_ms() | 1u;
	hs = ws->hs = xcalloc(1, sizeof(*hs));
	hs->kc = kc;
	hs->offered = offered;
	hs->flags = flags;
	hs->path = xstrdup(path);
	hs->url = kube_client_url(kc, path);
	hs->a.content_length = -1;
	return hs_begin(ws, err);
}

int
kube_wsconn_handshake(struct kube_wsconn *ws, short revents,
    struct rai_err *err)
{
	int rc;

	if (ws->hs == NULL)
		return 1;
	rc = hs_step(ws, revents, err);
	if (rc == 0 && rai_now_ms() >= ws->hs->deadline)
		rc = rai_err_set(err, RAI_E_NET, "no answer to the upgrade "
		    "request in time");
	if (rc == 1)
		hs_free(ws);
	return rc;
}

void
kube_wsconn_handshake_wait(const struct kube_wsconn *ws, struct pollfd *p,
    long *wake_at)
{
	const struct kube_wsconn_hs *hs = ws->hs;

	p->revents = 0;
	if (hs->state == HS_CONNECT) {
		rai_http_conn_connect_wait(ws->conn, p, wake_at);
		if (hs->deadline < *wake_at)
			*wake_at = hs->deadline;
		return;
	}
	p->fd = rai_http_conn_fd(ws->conn);
	p->events = hs->state == HS_SEND ? POLLOUT : POLLIN;
	*wake_at = hs->deadline;
}

int
kube_wsconn_open(struct kube_wsconn *ws, struct kube_client *kc,
    const char *path, const char *const offered[], struct rai_err *err)
{
	struct pollfd p;
	short revents = 0;
	long wake_at, left;
	int rc;

	if (kube_wsconn_start(ws, kc, path, offered, 0, err) == -1)
		return -1;
	while ((rc = kube_wsconn_handshake(ws, revents, err)) == 0) {
		kube_wsconn_handshake_wait(ws, &p, &wake_at);
		left = wake_at - rai_now_ms();
		if (left < 0)
			left = 0;
		if (poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left) == -1 &&
		    errno != EINTR)
			return rai_err_errno(err, errno, "waiting for the "
			    "upgrade");
		revents = p.fd == -1 ? 0 : p.revents;
	}
	return rc == 1 ? 0 : -1;
}

void
kube_wsconn_release(struct kube_wsconn *ws)
{
	hs_free(ws);
	rai_buf_release(&ws->early);
	rai_buf_release(&ws->sendq);
	free(ws->wbuf);
	ws->wbuf = NULL;
	rai_http_conn_close(ws->conn);
	ws->conn = NULL;
}

int
kube_wsconn_fd(const struct kube_wsconn *ws)
{
	return rai_http_conn_fd(ws->conn);
}

void
kube_wsconn_mask(struct kube_wsconn *ws, unsigned char mask[4])
{
	uint32_t x = ws->rnd;

	/* xorshift: masks guard proxies against crafted bytes, not secrets */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	ws->rnd = x;
	memcpy(mask, &x, 4);
}

size_t
kube_wsconn_unsent(const struct kube_wsconn *ws)
{
	return ws->sendq.len - ws->sendq_off + (ws->wlen - ws->woff);
}

/* The next piece of sendq into wbuf. */
static void
load_wbuf(struct kube_wsconn *ws)
{
	size_t n = ws->sendq.len - ws->sendq_off;

	if (ws->wbuf == NULL)
		ws->wbuf = xmalloc(KUBE_WSCONN_WRITE_CHUNK);
	if (n > KUBE_WSCONN_WRITE_CHUNK)
		n = KUBE_WSCONN_WRITE_CHUNK;
	memcpy(ws->wbuf, ws->sendq.data + ws->sendq_off, n);
	ws->wlen = n;
	ws->woff = 0;
	ws->sendq_off += n;
	if (ws->sendq_off == ws->sendq.len) {
		rai_buf_reset(&ws->sendq);
		ws->sendq_off = 0;
	} else if (ws->sendq_off > SENDQ_COMPACT) {
		rai_buf_consume(&ws->sendq, ws->sendq_off);
		ws->sendq_off = 0;
	}
}

int
kube_wsconn_flush(struct kube_wsconn *ws, struct rai_err *err)
{
	size_t n;

	while (kube_wsconn_unsent(ws) > 0) {
		if (ws->woff == ws->wlen)
			load_wbuf(ws);
		if (rai_http_conn_send(ws->conn, ws->wbuf + ws->woff,
		    ws->wlen - ws->woff, &n, err) == -1)
			return -1;
		if (n == 0)
			return 0;
		ws->woff += n;
	}
	return 0;
}

int
kube_wsconn_queue_close(struct kube_wsconn *ws, int code, struct rai_err *err)
{
	unsigned char mask[4];

	if (ws->close_sent)
		return 0;
	kube_wsconn_mask(ws, mask);
	ws->close_sent = 1;
	ws->close_deadline = rai_now_ms() + KUBE_WSCONN_CLOSE_WAIT_MS;
	return kube_ws_encode_close(&ws->sendq, code, "", mask, err);
}

int
kube_wsconn_pong(struct kube_wsconn *ws, const char *payload, size_t len,
    struct rai_err *err)
{
	unsigned char mask[4];

	kube_wsconn_mask(ws, mask);
	return kube_ws_encode(&ws->sendq, KUBE_WS_PONG, 1, mask, payload, len,
	    err);
}

int
kube_wsconn_answer_control(struct kube_wsconn *ws, int opcode,
    const char *payload, size_t len, int *close_received,
    struct rai_err *err)
{
	if (opcode == KUBE_WS_PING)
		return kube_wsconn_pong(ws, payload, len, err);
	if (opcode == KUBE_WS_CLOSE) {
		*close_received = 1;
		return kube_wsconn_queue_close(ws, KUBE_WS_CLOSE_NORMAL, err);
	}
	return 0;
}

int
kube_wsconn_recv(struct kube_wsconn *ws, char *buf, size_t len, size_t *n,
    struct rai_err *err)
{
	return rai_http_conn_recv(ws->conn, buf, len, n, err);
}

int
kube_wsconn_drain(struct kube_wsconn *ws, struct kube_ws_dec *dec,
    const int *stop, int *eof, struct rai_err *err)
{
	char buf[WSCONN_RECV_CHUNK];
	size_t n;
	int rc;

	while (!*stop) {
		if ((rc = kube_wsconn_recv(ws, buf, sizeof(buf), &n,
		    err)) == -1)
			return -1;
		if (rc == 1) {
			*eof = 1;
			return 0;
		}
		if (n == 0)
			return 0;
		if (kube_ws_dec_feed(dec, buf, n, err) == -1)
			return -1;
	}
	return 0;
}
