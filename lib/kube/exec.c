/*
 * exec and attach over a WebSocket: the Upgrade handshake on a socket
 * libcurl connected, then one poll() loop that pumps stdin into channel
 * 0, the pod's channels 1 and 2 into our descriptors, window sizes into
 * channel 4, and reads the final Status from channel 3. The frame and
 * channel codecs are kube_ws (pure); this file only moves bytes.
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
#include "kube/exec.h"
#include "kube/ws.h"

#include "core/banned.h"

#define HANDSHAKE_MAX		((size_t)64 * 1024)
#define ERROR_BODY_MAX		((size_t)1024 * 1024)
#define RECV_CHUNK		((size_t)64 * 1024)
#define STDIN_CHUNK		((size_t)32 * 1024)
#define WRITE_CHUNK		((size_t)64 * 1024)
/* stdin is not read while this much waits for the socket */
#define SENDQ_HIGH		((size_t)256 * 1024)
/* after our close frame, how long the server has to answer it */
#define CLOSE_WAIT_MS		2000
/* a data message larger than this is a broken peer */
#define MESSAGE_MAX		((size_t)16 * 1024 * 1024)

static const char *const subprotocols[] = {
	"v5.channel.k8s.io", "v4.channel.k8s.io", NULL
};

/* ---- the request path ---- */

static void
query_bool(struct rai_buf *b, const char *key, int on)
{
	kube_path_query(b, key, on ? "true" : "false");
}

char *
kube_exec_path(const char *ns, const char *pod, const char *container,
    char *const argv[], int use_stdin, int tty)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base;
	size_t i;

	base = kube_path(&KUBE_RES_PODS, ns, pod, argv ? "exec" : "attach");
	rai_buf_addstr(&b, base);
	free(base);
	kube_path_query(&b, "container", container);
	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		kube_path_query(&b, "command", argv[i]);
	query_bool(&b, "stdin", use_stdin);
	query_bool(&b, "stdout", 1);
	/* with a tty the pod's stderr comes on the one terminal stream */
	query_bool(&b, "stderr", !tty);
	query_bool(&b, "tty", tty);
	return rai_buf_detach(&b, NULL);
}

/* ---- time and waiting ---- */

/* Waits for events on fd until deadline; 0 ready, -1 timed out/failed. */
static int
wait_fd(int fd, short events, long deadline)
{
	struct pollfd p;
	long left;
	int n;

	for (;;) {
		left = deadline - rai_now_ms();
		if (left <= 0)
			return -1;
		p.fd = fd;
		p.events = events;
		p.revents = 0;
		n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n > 0)
			return 0;
		if (n == -1 && errno != EINTR)
			return -1;
	}
}

static int
send_all(struct rai_http_conn *c, const char *data, size_t len,
    long deadline, struct rai_err *err)
{
	size_t n;

	while (len > 0) {
		if (rai_http_conn_send(c, data, len, &n, err) == -1)
			return -1;
		if (n == 0 && wait_fd(rai_http_conn_fd(c), POLLOUT,
		    deadline) == -1)
			return rai_err_set(err, RAI_E_NET, "timed out sending "
			    "the upgrade request");
		data += n;
		len -= n;
	}
	return 0;
}

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
    const char *key, size_t *len, struct rai_err *err)
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
	rai_buf_addstr(&b, "Sec-WebSocket-Protocol: ");
	for (i = 0; subprotocols[i] != NULL; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", subprotocols[i]);
	rai_buf_addstr(&b, "\r\n\r\n");
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

/* Reads until the blank line that ends the headers. */
static int
read_head(struct rai_http_conn *c, struct answer *a, long deadline,
    struct rai_err *err)
{
	char chunk[4096];
	size_t n;
	int rc;

	for (;;) {
		if ((a->head_len = head_end(a->raw.data, a->raw.len)) > 0)
			return parse_head(a, err);
		if (a->raw.len >= HANDSHAKE_MAX)
			return rai_err_set(err, RAI_E_PROTO, "the answer to the "
			    "upgrade has over 64 KiB of headers");
		if ((rc = rai_http_conn_recv(c, chunk, sizeof(chunk), &n,
		    err)) == -1)
			return -1;
		if (rc == 1)
			return rai_err_set(err, RAI_E_NET, "the server closed "
			    "the connection before answering the upgrade");
		if (n == 0) {
			if (wait_fd(rai_http_conn_fd(c), POLLIN, deadline) == -1)
				return rai_err_set(err, RAI_E_NET, "no answer to "
				    "the upgrade request in time");
			continue;
		}
		if (rai_buf_add(&a->raw, chunk, n) == -1)
			return rai_err_set(err, RAI_E_PROTO, "the answer to the "
			    "upgrade is too large");
	}
}

/* The body of a refusal, as far as Content-Length (or EOF) goes. */
static void
read_refusal_body(struct rai_http_conn *c, struct answer *a, long deadline)
{
	struct rai_err ignored = RAI_ERR_INIT;
	char chunk[4096];
	size_t n, want;
	int rc;

	want = a->content_length >= 0 ? a->head_len +
	    (size_t)a->content_length : SIZE_MAX;
	while (a->raw.len < want && a->raw.len < a->head_len + ERROR_BODY_MAX) {
		rc = rai_http_conn_recv(c, chunk, sizeof(chunk), &n, &ignored);
		if (rc != 0)
			break;
		if (n == 0) {
			if (wait_fd(rai_http_conn_fd(c), POLLIN, deadline) == -1)
				break;
			continue;
		}
		if (rai_buf_add(&a->raw, chunk, n) == -1)
			break;
	}
	rai_err_release(&ignored);
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
 * One try at the upgrade. 0: upgraded (a->raw holds any bytes past the
 * head). -1: err set; *retry when fresh credentials may help (401).
 */
static int
try_upgrade(struct rai_http *h, const char *url, const char *path,
    struct rai_http_conn **conn, struct answer *a, const char **chosen,
    int *renewable, struct rai_err *err)
{
	long start = rai_now_ms(), deadline = start +
	    rai_http_request_timeout_ms(h);
	char key[25], *req;
	size_t len;
	int rc;

	*renewable = 0;
	make_key(key);
	if ((req = upgrade_request(h, url, path, key, &len, err)) == NULL)
		return -1;
	rc = rai_http_connect(h, url, conn, err);
	if (rc == 0)
		rc = send_all(*conn, req, len, deadline, err);
	rai_free_secret_mem(req, len);
	if (rc == 0)
		rc = read_head(*conn, a, deadline, err);
	if (rc == -1)
		return -1;
	rai_log(RAI_LOG_REQ, "GET %s %ld%s%s in %ld ms", url, a->status,
	    a->reason[0] ? " " : "", a->reason, (long)(rai_now_ms() - start));
	if (a->status != 101) {
		read_refusal_body(*conn, a, deadline);
		rai_err_from_http(err, a->status, a->content_type,
		    a->raw.data + a->head_len, a->raw.len - a->head_len,
		    a->retry_after);
		*renewable = a->status == 401;
		return -1;
	}
	return kube_ws_check_upgrade(key, a->status, a->upgrade,
	    a->connection, a->accept, a->protocol, subprotocols, chosen, err);
}

static int
upgrade(struct kube_client *kc, const char *path,
    struct rai_http_conn **conn, struct answer *a, const char **chosen,
    struct rai_err *err)
{
	struct rai_http *h = kube_client_http(kc);
	char *url = kube_client_url(kc, path);
	int renewable, rc;

	memset(a, 0, sizeof(*a));
	a->content_length = -1;
	rc = try_upgrade(h, url, path, conn, a, chosen, &renewable, err);
	if (rc == -1 && renewable && rai_http_renew(h)) {
		rai_log(RAI_LOG_NOTE, "GET %s: 401, retrying with renewed "
		    "credentials", url);
		rai_http_conn_close(*conn);
		*conn = NULL;
		answer_release(a);
		memset(a, 0, sizeof(*a));
		a->content_length = -1;
		rai_err_release(err);
		rc = try_upgrade(h, url, path, conn, a, chosen, &renewable,
		    err);
	}
	free(url);
	return rc;
}

/* ---- the session ---- */

struct session {
	struct rai_http_conn		*conn;
	const struct kube_exec_io	*io;
	struct kube_exec_result		*res;
	struct kube_ws_dec		 dec;
	struct kube_chan		 chan;
	struct rai_buf			 sendq;	/* encoded frames */
	size_t				 sendq_off;	/* moved to wbuf */
	/*
	 * The bytes of the write in progress. TLS wants a write that could
	 * not finish retried with the same buffer and length, so they wait
	 * here, where appending to sendq cannot move them.
	 */
	char				 wbuf[WRITE_CHUNK];
	size_t				 wlen, woff;
	int				 v5;
	int				 in_open;
	int				 close_sent;
	int				 close_received;
	int				 eof;
	long				 close_deadline;
	uint32_t			 rnd;
};

static void
next_mask(struct session *s, unsigned char mask[4])
{
	uint32_t x = s->rnd;

	/* xorshift: masks guard proxies against crafted bytes, not secrets */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rnd = x;
	memcpy(mask, &x, 4);
}

static int
write_all(struct session *s, int fd, const char *data, size_t len,
    struct rai_err *err)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, data, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EPIPE) {
			s->res->out_closed = 1;
			return rai_err_errno(err, errno, "writing the output");
		}
		if (n == -1 && errno == EAGAIN) {
			struct pollfd p = { fd, POLLOUT, 0 };

			(void)poll(&p, 1, -1);
			continue;
		}
		if (n == -1)
			return rai_err_errno(err, errno, "writing the output");
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
on_channel(void *ud, int channel, const char *data, size_t len,
    struct rai_err *err)
{
	struct session *s = ud;

	if (channel == KUBE_CHAN_STDOUT)
		return write_all(s, s->io->out_fd, data, len, err);
	if (channel == KUBE_CHAN_STDERR)
		return write_all(s, s->io->err_fd, data, len, err);
	return 0;
}

static int
queue_close(struct session *s, int code, struct rai_err *err)
{
	unsigned char mask[4];

	if (s->close_sent)
		return 0;
	next_mask(s, mask);
	s->close_sent = 1;
	s->close_deadline = rai_now_ms() + CLOSE_WAIT_MS;
	return kube_ws_encode_close(&s->sendq, code, "", mask, err);
}

static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct session *s = ud;
	unsigned char mask[4];
	int code;

	if (opcode == KUBE_WS_PING) {
		next_mask(s, mask);
		return kube_ws_encode(&s->sendq, KUBE_WS_PONG, 1, mask,
		    payload, len, err);
	}
	if (opcode == KUBE_WS_CLOSE) {
		s->close_received = 1;
		kube_ws_parse_close(payload, len, &code, NULL, NULL);
		rai_log(RAI_LOG_DEBUG, "the server closed the stream (%d)",
		    code);
		return queue_close(s, 1000, err);
	}
	return 0;
}

static int
send_resize(struct session *s, struct rai_err *err)
{
	unsigned char mask[4];
	unsigned cols, rows;

	if (s->io->size == NULL || s->io->size(s->io->ud, &cols, &rows) == -1)
		return 0;
	next_mask(s, mask);
	return kube_chan_encode_resize(&s->sendq, cols, rows, mask, err);
}

static size_t
unsent(const struct session *s)
{
	return s->sendq.len - s->sendq_off + (s->wlen - s->woff);
}

/* The next piece of sendq into wbuf. */
static void
load_wbuf(struct session *s)
{
	size_t n = s->sendq.len - s->sendq_off;

	if (n > sizeof(s->wbuf))
		n = sizeof(s->wbuf);
	memcpy(s->wbuf, s->sendq.data + s->sendq_off, n);
	s->wlen = n;
	s->woff = 0;
	s->sendq_off += n;
	if (s->sendq_off == s->sendq.len) {
		rai_buf_reset(&s->sendq);
		s->sendq_off = 0;
	} else if (s->sendq_off > SENDQ_HIGH / 2) {
		rai_buf_consume(&s->sendq, s->sendq_off);
		s->sendq_off = 0;
	}
}

/* Sends what the socket takes now. */
static int
flush_sendq(struct session *s, struct rai_err *err)
{
	size_t n;

	while (unsent(s) > 0) {
		if (s->woff == s->wlen)
			load_wbuf(s);
		if (rai_http_conn_send(s->conn, s->wbuf + s->woff,
		    s->wlen - s->woff, &n, err) == -1)
			return -1;
		if (n == 0)
			return 0;
		s->woff += n;
	}
	return 0;
}

static int
read_socket(struct session *s, struct rai_err *err)
{
	char buf[RECV_CHUNK];
	size_t n;
	int rc;

	/* drain it: TLS may hold decrypted bytes poll() cannot see */
	for (;;) {
		rc = rai_http_conn_recv(s->conn, buf, sizeof(buf), &n, err);
		if (rc == -1)
			return -1;
		if (rc == 1) {
			s->eof = 1;
			return 0;
		}
		if (n == 0)
			return 0;
		if (kube_ws_dec_feed(&s->dec, buf, n, err) == -1)
			return -1;
		if (s->close_received)
			return 0;
	}
}

static int
send_stdin(struct session *s, const char *data, size_t len,
    struct rai_err *err)
{
	unsigned char mask[4];

	next_mask(s, mask);
	return kube_chan_encode_data(&s->sendq, KUBE_CHAN_STDIN, data, len,
	    mask, err);
}

static int
end_stdin(struct session *s, struct rai_err *err)
{
	unsigned char mask[4];

	s->in_open = 0;
	/* v4 has no way to say so: the remote side reads on */
	if (!s->v5)
		return 0;
	next_mask(s, mask);
	return kube_chan_encode_close(&s->sendq, KUBE_CHAN_STDIN, mask, err);
}

static int
read_stdin(struct session *s, struct rai_err *err)
{
	char buf[STDIN_CHUNK];
	ssize_t n;

	n = read(s->io->in_fd, buf, sizeof(buf));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n == -1)
		return rai_err_errno(err, errno, "reading standard input");
	if (n == 0) {
		s->res->input_ended = 1;
		return end_stdin(s, err);
	}
	if (s->io->keep != NULL && !s->res->keep_overflow &&
	    rai_buf_add(s->io->keep, buf, (size_t)n) == -1)
		s->res->keep_overflow = 1;
	return send_stdin(s, buf, (size_t)n, err);
}

/* What an earlier try read from stdin goes first. */
static int
replay_stdin(struct session *s, struct rai_err *err)
{
	const char *p = s->io->replay;
	size_t left = s->io->replay_len, n;

	while (left > 0) {
		n = left < STDIN_CHUNK ? left : STDIN_CHUNK;
		if (send_stdin(s, p, n, err) == -1)
			return -1;
		p += n;
		left -= n;
	}
	return s->io->replay_eof ? end_stdin(s, err) : 0;
}

static void
drain_fd(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

enum { P_SOCK, P_IN, P_WINCH, P_STOP, P_N };

static int
poll_once(struct session *s, struct pollfd *p)
{
	int timeout = -1, i;
	long left;

	for (i = 0; i < P_N; i++) {
		p[i].fd = -1;
		p[i].events = POLLIN;
		p[i].revents = 0;
	}
	p[P_SOCK].fd = rai_http_conn_fd(s->conn);
	if (unsent(s) > 0)
		p[P_SOCK].events |= POLLOUT;
	if (s->in_open && unsent(s) < SENDQ_HIGH && !s->close_sent)
		p[P_IN].fd = s->io->in_fd;
	p[P_WINCH].fd = s->io->winch_fd;
	p[P_STOP].fd = s->io->stop_fd;
	if (s->close_sent) {
		left = s->close_deadline - rai_now_ms();
		timeout = left > 0 ? (int)left : 0;
	}
	return poll(p, P_N, timeout);
}

static int
step(struct session *s, struct rai_err *err)
{
	struct pollfd p[P_N];
	int n;

	if ((n = poll_once(s, p)) == -1)
		return errno == EINTR ? 0 :
		    rai_err_errno(err, errno, "waiting for the pod's streams");
	if (n == 0 && s->close_sent) {
		s->eof = 1;	/* the server never answered our close */
		return 0;
	}
	if (p[P_STOP].revents) {
		s->res->stopped = 1;
		return 0;
	}
	if ((p[P_SOCK].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    read_socket(s, err) == -1)
		return -1;
	if (p[P_WINCH].revents) {
		drain_fd(s->io->winch_fd);
		if (send_resize(s, err) == -1)
			return -1;
	}
	if ((p[P_IN].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    read_stdin(s, err) == -1)
		return -1;
	return flush_sendq(s, err);
}

static int
finished(const struct session *s)
{
	if (s->res->stopped || s->eof)
		return 1;
	/* our close went out after the server's: nothing more to say */
	return s->close_received && s->close_sent && unsent(s) == 0;
}

static int
run_session(struct session *s, struct rai_err *err)
{
	if (s->io->size != NULL && send_resize(s, err) == -1)
		return -1;
	if ((s->io->replay_len > 0 || s->io->replay_eof) &&
	    replay_stdin(s, err) == -1)
		return -1;
	if (flush_sendq(s, err) == -1)
		return -1;
	while (!finished(s))
		if (step(s, err) == -1)
			return -1;
	return 0;
}

/* The remote command's fate from the error channel's Status. */
static int
conclude(struct session *s, struct rai_err *err)
{
	size_t len;
	const char *status = kube_chan_error(&s->chan, &len);

	if (s->res->stopped || s->res->out_closed)
		return 0;
	if (len == 0) {
		if (!s->close_received)
			return rai_err_set(err, RAI_E_NET, "the connection "
			    "to the pod closed before the command ended");
		/* an empty error channel at a clean close: success */
		s->res->ended = 1;
		s->res->exit_code = 0;
		return 0;
	}
	if (kube_chan_status(status, len, &s->res->exit_code, err) == -1)
		return -1;
	s->res->ended = 1;
	return 0;
}

static void
session_init(struct session *s, struct rai_http_conn *conn,
    const struct kube_exec_io *io, struct kube_exec_result *res,
    const char *protocol)
{
	memset(s, 0, sizeof(*s));
	s->conn = conn;
	s->io = io;
	s->res = res;
	s->v5 = strcmp(protocol, "v5.channel.k8s.io") == 0;
	s->in_open = io->in_fd >= 0;
	if (RAND_bytes((unsigned char *)&s->rnd, sizeof(s->rnd)) != 1 ||
	    s->rnd == 0)
		s->rnd = (uint32_t)rai_now_ms() | 1u;
	rai_buf_init(&s->sendq, 0);
	kube_chan_init(&s->chan, on_channel, s);
	kube_ws_dec_init(&s->dec, MESSAGE_MAX, kube_chan_on_data, on_control,
	    &s->chan, s);
}

int
kube_exec_run(struct kube_client *kc, const char *path,
    const struct kube_exec_io *io, struct kube_exec_result *res,
    struct rai_err *err)
{
	struct rai_http_conn *conn = NULL;
	struct answer a;
	struct session s;
	const char *chosen = NULL;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (upgrade(kc, path, &conn, &a, &chosen, err) == -1)
		goto out;
	snprintf(res->protocol, sizeof(res->protocol), "%s", chosen);
	rai_log(RAI_LOG_DEBUG, "streaming with %s", chosen);
	session_init(&s, conn, io, res, chosen);
	/* frames the server sent right behind its answer */
	rc = kube_ws_dec_feed(&s.dec, a.raw.data + a.head_len,
	    a.raw.len - a.head_len, err);
	if (rc == 0)
		rc = run_session(&s, err);
	if (rc == -1 && res->out_closed) {
		rai_err_release(err);
		rc = 0;
	}
	if (rc == 0 && !s.close_sent && !s.eof) {
		/* we end it: say so, best effort */
		struct rai_err ignored = RAI_ERR_INIT;

		if (queue_close(&s, 1000, &ignored) == 0)
			(void)flush_sendq(&s, &ignored);
		rai_err_release(&ignored);
	}
	if (rc == 0)
		rc = conclude(&s, err);
	kube_ws_dec_release(&s.dec);
	kube_chan_release(&s.chan);
	rai_buf_release(&s.sendq);
out:
	answer_release(&a);
	rai_http_conn_close(conn);
	return rc;
}
