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
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/client.h"
#include "kube/exec.h"
#include "kube/ws.h"
#include "kube/wsconn.h"

#include "core/banned.h"

/*
 * stdin goes out in messages of up to this much: a relaying server pays
 * per message more than per byte (100 MiB through the emulator: 10%
 * less of its time than with 32 KiB), and API servers take messages of
 * many MiB (the emulator, 1 MiB).
 */
#define STDIN_CHUNK		((size_t)128 * 1024)
/* stdin is not read while this much waits for the socket */
#define SENDQ_HIGH		((size_t)256 * 1024)
/* a data message larger than this is a broken peer */
#define MESSAGE_MAX		((size_t)16 * 1024 * 1024)
/*
 * The pod's stdout gathers while one wakeup's frames are decoded and
 * goes out in one write, not one per TLS record (16 KiB): for 100 MiB,
 * 433 writes instead of 9,600, and as few wakeups of a reading pipe.
 */
#define OUT_BATCH		((size_t)256 * 1024)

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

/* ---- the session ---- */

struct session {
	struct kube_wsconn		*ws;
	const struct kube_exec_io	*io;
	struct kube_exec_result		*res;
	struct kube_ws_dec		 dec;
	struct kube_chan		 chan;
	struct rai_buf			 out;	/* stdout not written yet */
	int				 v5;
	int				 in_open;
	int				 close_received;
	int				 eof;
};

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
flush_out(struct session *s, struct rai_err *err)
{
	int rc;

	if (s->out.len == 0)
		return 0;
	rc = write_all(s, s->io->out_fd, s->out.data, s->out.len, err);
	rai_buf_reset(&s->out);
	return rc;
}

static int
on_channel(void *ud, int channel, const char *data, size_t len,
    struct rai_err *err)
{
	struct session *s = ud;

	if (channel == KUBE_CHAN_STDOUT) {
		rai_buf_add(&s->out, data, len);
		return s->out.len >= OUT_BATCH ? flush_out(s, err) : 0;
	}
	/* stderr keeps its place after the stdout before it */
	if (channel == KUBE_CHAN_STDERR)
		return flush_out(s, err) == -1 ? -1 :
		    write_all(s, s->io->err_fd, data, len, err);
	return 0;
}


static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct session *s = ud;
	int code = KUBE_WS_CLOSE_NO_STATUS;

	if (opcode == KUBE_WS_CLOSE) {
		kube_ws_parse_close(payload, len, &code, NULL, NULL);
		rai_log(RAI_LOG_DEBUG, "the server closed the stream (%d)",
		    code);
	}
	return kube_wsconn_answer_control(s->ws, opcode, payload, len,
	    &s->close_received, err);
}

static int
send_resize(struct session *s, struct rai_err *err)
{
	unsigned char mask[4];
	unsigned cols, rows;

	if (s->io->size == NULL || s->io->size(s->io->ud, &cols, &rows) == -1)
		return 0;
	kube_wsconn_mask(s->ws, mask);
	return kube_chan_encode_resize(&s->ws->sendq, cols, rows, mask, err);
}

/* What the socket holds, decoded; the stdout it carried written. */
static int
read_socket(struct session *s, struct rai_err *err)
{
	int rc = kube_wsconn_drain(s->ws, &s->dec, &s->close_received,
	    &s->eof, err);

	if (rc == -1) {
		(void)flush_out(s, NULL);	/* what came before the error */
		return -1;
	}
	return flush_out(s, err);
}

static int
send_stdin(struct session *s, const char *data, size_t len,
    struct rai_err *err)
{
	unsigned char mask[4];

	kube_wsconn_mask(s->ws, mask);
	return kube_chan_encode_data(&s->ws->sendq, KUBE_CHAN_STDIN, data, len,
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
	kube_wsconn_mask(s->ws, mask);
	return kube_chan_encode_close(&s->ws->sendq, KUBE_CHAN_STDIN, mask, err);
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
	p[P_SOCK].fd = kube_wsconn_fd(s->ws);
	if (kube_wsconn_unsent(s->ws) > 0)
		p[P_SOCK].events |= POLLOUT;
	if (s->in_open && kube_wsconn_unsent(s->ws) < SENDQ_HIGH && !s->ws->close_sent)
		p[P_IN].fd = s->io->in_fd;
	p[P_WINCH].fd = s->io->winch_fd;
	p[P_STOP].fd = s->io->stop_fd;
	if (s->ws->close_sent) {
		left = s->ws->close_deadline - rai_now_ms();
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
	if (n == 0 && s->ws->close_sent) {
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
	return kube_wsconn_flush(s->ws, err);
}

static int
finished(const struct session *s)
{
	if (s->res->stopped || s->eof)
		return 1;
	/* our close went out after the server's: nothing more to say */
	return s->close_received && s->ws->close_sent && kube_wsconn_unsent(s->ws) == 0;
}

static int
run_session(struct session *s, struct rai_err *err)
{
	if (s->io->size != NULL && send_resize(s, err) == -1)
		return -1;
	if ((s->io->replay_len > 0 || s->io->replay_eof) &&
	    replay_stdin(s, err) == -1)
		return -1;
	if (kube_wsconn_flush(s->ws, err) == -1)
		return -1;
	/* what TLS read ahead with the upgrade's answer: poll() cannot see it */
	if (read_socket(s, err) == -1)
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
session_init(struct session *s, struct kube_wsconn *ws,
    const struct kube_exec_io *io, struct kube_exec_result *res)
{
	memset(s, 0, sizeof(*s));
	s->ws = ws;
	s->io = io;
	s->res = res;
	s->v5 = strcmp(ws->protocol, KUBE_CHAN_V5) == 0;
	s->in_open = io->in_fd >= 0;
	rai_buf_init(&s->out, 0);
	kube_chan_init(&s->chan, on_channel, s);
	kube_ws_dec_init(&s->dec, MESSAGE_MAX, kube_chan_on_data, on_control,
	    &s->chan, s);
}

/* We end the stream: say so, best effort. */
static void
say_goodbye(struct session *s)
{
	struct rai_err ignored = RAI_ERR_INIT;

	if (kube_wsconn_queue_close(s->ws, KUBE_WS_CLOSE_NORMAL,
	    &ignored) == 0)
		(void)kube_wsconn_flush(s->ws, &ignored);
	rai_err_release(&ignored);
}

int
kube_exec_run(struct kube_client *kc, const char *path,
    const struct kube_exec_io *io, struct kube_exec_result *res,
    struct rai_err *err)
{
	struct kube_wsconn *ws = xmalloc(sizeof(*ws));
	struct session s;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (kube_wsconn_open(ws, kc, path, subprotocols, err) == -1)
		goto out;
	snprintf(res->protocol, sizeof(res->protocol), "%s", ws->protocol);
	rai_log(RAI_LOG_DEBUG, "streaming with %s", ws->protocol);
	session_init(&s, ws, io, res);
	/* frames the server sent right behind its answer */
	rc = kube_ws_dec_feed(&s.dec, ws->early.data, ws->early.len, err);
	if (flush_out(&s, rc == 0 ? err : NULL) == -1)
		rc = -1;
	if (rc == 0)
		rc = run_session(&s, err);
	if (rc == -1 && res->out_closed) {
		rai_err_release(err);
		rc = 0;
	}
	if (rc == 0 && !ws->close_sent && !s.eof)
		say_goodbye(&s);
	if (rc == 0)
		rc = conclude(&s, err);
	kube_ws_dec_release(&s.dec);
	kube_chan_release(&s.chan);
	rai_buf_release(&s.out);
out:
	kube_wsconn_release(ws);
	free(ws);
	return rc;
}
