/*
 * One SPDY session in a WebSocket, carrying the stream pairs of many
 * forwarded connections (see kube/pf_tunnel.h). kube/portforward's loop
 * decides when to read and write; this file turns its calls into SPDY
 * frames and the server's frames into the pairs' state.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "kube/pf_tunnel.h"
#include "kube/spdy.h"
#include "kube/ws.h"
#include "kube/wsconn.h"

#include "core/banned.h"

/* as much as TLS reads ahead (RAI_HTTP_CONN_BULK): one read takes it all */
#define RECV_CHUNK		((size_t)256 * 1024)
#define ERROR_TEXT_MAX		((size_t)64 << 10)

static const char *const offered[] = {
	KUBE_PF_TUNNEL_PROTOCOL, KUBE_CHAN_V4, NULL
};

void
kube_pf_pair_init(struct kube_pf_pair *p, kube_pf_pair_data_fn *data,
    void *ud)
{
	memset(p, 0, sizeof(*p));
	rai_buf_init(&p->error, ERROR_TEXT_MAX + 1);
	p->data = data;
	p->ud = ud;
}

void
kube_pf_pair_release(struct kube_pf_pair *p)
{
	rai_buf_release(&p->error);
}

static struct kube_pf_pair *
pair_of(const struct kube_pf_tunnel *t, uint32_t id, int *is_data)
{
	size_t i;

	for (i = 0; i < t->npairs; i++) {
		if (t->pairs[i]->data_id == id || t->pairs[i]->error_id == id) {
			*is_data = t->pairs[i]->data_id == id;
			return t->pairs[i];
		}
	}
	return NULL;
}

/* The connection is over: so is every stream on it. */
static void
end_all(struct kube_pf_tunnel *t)
{
	size_t i;

	t->eof = 1;
	for (i = 0; i < t->npairs; i++)
		t->pairs[i]->data_end = t->pairs[i]->error_end = 1;
}

/* ---- frames out ---- */

/* SPDY frames gathered in b go out as one binary message. */
static int
queue(struct kube_pf_tunnel *t, const struct rai_buf *b, struct rai_err *err)
{
	unsigned char mask[4];

	kube_wsconn_mask(t->ws, mask);
	return kube_ws_encode(&t->ws->sendq, KUBE_WS_BINARY, 1, mask, b->data,
	    b->len, err);
}

static int
queue_data(struct kube_pf_tunnel *t, uint32_t id, unsigned flags,
    const char *data, size_t len, struct rai_err *err)
{
	unsigned char head[KUBE_SPDY_HEAD], mask[4];

	kube_spdy_data_head(head, id, flags, len);
	kube_wsconn_mask(t->ws, mask);
	return kube_ws_encode_binary2(&t->ws->sendq, mask, head, sizeof(head),
	    data, len, err);
}

/* ---- frames in ---- */

static void
on_data_frame(struct kube_pf_tunnel *t, const struct kube_spdy_frame *f)
{
	struct kube_pf_pair *p;
	int is_data;
	size_t room;

	if ((p = pair_of(t, f->stream_id, &is_data)) == NULL)
		return;		/* a stream already let go */
	if (is_data && !p->data_end && f->len > 0)
		p->data(p->ud, f->data, f->len);
	if (!is_data && !p->error_end && f->len > 0) {
		room = ERROR_TEXT_MAX - p->error.len;
		rai_buf_add(&p->error, f->data, f->len < room ? f->len : room);
	}
	if (f->last && (f->flags & KUBE_SPDY_FLAG_FIN)) {
		if (is_data)
			p->data_end = 1;
		else
			p->error_end = 1;
	}
}

static void
on_reset(struct kube_pf_tunnel *t, uint32_t id)
{
	struct kube_pf_pair *p;
	int is_data;

	if ((p = pair_of(t, id, &is_data)) == NULL)
		return;
	p->reset = 1;
	if (is_data)
		p->data_end = 1;
	else
		p->error_end = 1;
}

static int
on_frame(void *ud, const struct kube_spdy_frame *f, struct rai_err *err)
{
	struct kube_pf_tunnel *t = ud;
	struct rai_buf b = RAI_BUF_INIT;
	int rc = 0;

	switch (f->type) {
	case KUBE_SPDY_DATA:
		on_data_frame(t, f);
		return 0;
	case KUBE_SPDY_RST_STREAM:
		on_reset(t, f->stream_id);
		return 0;
	case KUBE_SPDY_GOAWAY:
		t->goaway = 1;
		return 0;
	case KUBE_SPDY_PING:
		/* the server's pings have even ids; odd ones would answer ours */
		if ((f->value & 1) == 0)
			rc = kube_spdy_ping(&b, f->value);
		break;
	case KUBE_SPDY_SYN_STREAM:
		/* the server opens no streams in port forwarding */
		rc = kube_spdy_rst_stream(&b, f->stream_id,
		    KUBE_SPDY_REFUSED_STREAM);
		break;
	default:
		/* SYN_REPLY, HEADERS, SETTINGS, WINDOW_UPDATE: nothing to do */
		return 0;
	}
	if (rc == 0 && b.len > 0)
		rc = queue(t, &b, err);
	rai_buf_release(&b);
	return rc;
}

static int
on_message(void *ud, int opcode, const char *data, size_t len, unsigned flags,
    struct rai_err *err)
{
	struct kube_pf_tunnel *t = ud;

	(void)flags;
	if (opcode != KUBE_WS_BINARY)
		return rai_err_set(err, RAI_E_PROTO, "the server sent a text "
		    "message in a SPDY tunnel");
	return kube_spdy_feed(&t->spdy, data, len, err);
}

static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct kube_pf_tunnel *t = ud;

	return kube_wsconn_answer_control(t->ws, opcode, payload, len,
	    &t->close_received, err);
}

/* ---- the upgrade ---- */

int
kube_pf_tunnel_start(struct kube_pf_tunnel *t, struct kube_client *kc,
    const char *path, struct rai_err *err)
{
	memset(t, 0, sizeof(*t));
	t->next_id = 1;
	t->upgrading = 1;
	kube_ws_dec_init(&t->dec, 0, on_message, on_control, t, t);
	kube_spdy_init(&t->spdy, on_frame, t);
	t->ws = xmalloc(sizeof(*t->ws));
	/* every connection of the session in one: bulk reads */
	return kube_wsconn_start(t->ws, kc, path, offered, KUBE_WSCONN_BULK,
	    err);
}

int
kube_pf_tunnel_handshake(struct kube_pf_tunnel *t, short revents,
    struct rai_err *err)
{
	int rc = kube_wsconn_handshake(t->ws, revents, err);

	if (rc == 1)
		t->upgrading = 0;
	return rc;
}

void
kube_pf_tunnel_handshake_wait(const struct kube_pf_tunnel *t,
    struct pollfd *p, long *wake_at)
{
	kube_wsconn_handshake_wait(t->ws, p, wake_at);
}

int
kube_pf_tunnel_is_spdy(const struct kube_pf_tunnel *t)
{
	return t->ws != NULL && strcmp(t->ws->protocol,
	    KUBE_PF_TUNNEL_PROTOCOL) == 0;
}

struct kube_wsconn *
kube_pf_tunnel_take_ws(struct kube_pf_tunnel *t)
{
	struct kube_wsconn *ws = t->ws;

	t->ws = NULL;
	t->eof = 1;
	return ws;
}

int
kube_pf_tunnel_begin(struct kube_pf_tunnel *t, struct rai_err *err)
{
	if (kube_ws_dec_feed(&t->dec, t->ws->early.data, t->ws->early.len,
	    err) == -1) {
		end_all(t);
		return -1;
	}
	return 0;
}

/* ---- pairs ---- */

int
kube_pf_tunnel_usable(const struct kube_pf_tunnel *t)
{
	/* a stream id must stay below 2^31 */
	return t->ws != NULL && !t->upgrading && kube_pf_tunnel_is_spdy(t) &&
	    !t->eof && !t->goaway && !t->close_received &&
	    !t->ws->close_sent && t->next_id < 0x7ffffff0u;
}

static void
attach(struct kube_pf_tunnel *t, struct kube_pf_pair *p)
{
	if (t->npairs == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->pairs = xreallocarray(t->pairs, t->cap, sizeof(*t->pairs));
	}
	t->pairs[t->npairs++] = p;
}

int
kube_pf_tunnel_open(struct kube_pf_tunnel *t, struct kube_pf_pair *p,
    unsigned port, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	char portstr[8], request[16];
	const char *nv[] = { "streamtype", "error", "port", portstr,
	    "requestid", request, NULL };
	int rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	snprintf(request, sizeof(request), "%u", t->next_request++);
	p->error_id = t->next_id;
	p->data_id = t->next_id + 2;
	t->next_id += 4;
	/* the error stream is the server's alone: our half ends at once */
	rc = kube_spdy_syn_stream(&t->spdy, &b, p->error_id, 0, nv, err);
	if (rc == 0) {
		unsigned char fin[KUBE_SPDY_HEAD];

		kube_spdy_data_head(fin, p->error_id, KUBE_SPDY_FLAG_FIN, 0);
		rai_buf_add(&b, fin, sizeof(fin));
		nv[1] = "data";
		rc = kube_spdy_syn_stream(&t->spdy, &b, p->data_id, 0, nv, err);
	}
	if (rc == 0)
		rc = queue(t, &b, err);
	rai_buf_release(&b);
	if (rc == 0)
		attach(t, p);
	return rc;
}

int
kube_pf_tunnel_send(struct kube_pf_tunnel *t, struct kube_pf_pair *p,
    const char *data, size_t len, struct rai_err *err)
{
	if (len > KUBE_SPDY_LENGTH_MAX)
		return rai_err_set(err, RAI_E_INTERNAL, "a SPDY data frame "
		    "of %zu bytes", len);
	return queue_data(t, p->data_id, 0, data, len, err);
}

int
kube_pf_tunnel_fin(struct kube_pf_tunnel *t, struct kube_pf_pair *p,
    struct rai_err *err)
{
	if (p->fin_sent || t->eof)
		return 0;
	p->fin_sent = 1;
	return queue_data(t, p->data_id, KUBE_SPDY_FLAG_FIN, NULL, 0, err);
}

void
kube_pf_tunnel_detach(struct kube_pf_tunnel *t, struct kube_pf_pair *p)
{
	struct rai_err ignored = RAI_ERR_INIT;
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; i < t->npairs && t->pairs[i] != p; i++)
		;
	if (i == t->npairs)
		return;
	t->pairs[i] = t->pairs[--t->npairs];
	if (t->eof || t->ws == NULL || t->close_received)
		return;
	if (!p->data_end)
		(void)kube_spdy_rst_stream(&b, p->data_id, KUBE_SPDY_CANCEL);
	if (!p->error_end)
		(void)kube_spdy_rst_stream(&b, p->error_id, KUBE_SPDY_CANCEL);
	if (b.len > 0)
		(void)queue(t, &b, &ignored);
	rai_buf_release(&b);
	rai_err_release(&ignored);
}

/* ---- moving bytes ---- */

int
kube_pf_tunnel_read(struct kube_pf_tunnel *t, size_t *n, struct rai_err *err)
{
	char buf[RECV_CHUNK];
	int rc;

	*n = 0;
	if (t->eof)
		return 1;
	rc = kube_wsconn_recv(t->ws, buf, sizeof(buf), n, err);
	if (rc == 0 && *n > 0 &&
	    kube_ws_dec_feed(&t->dec, buf, *n, err) == -1)
		rc = -1;
	if (rc != 0 || t->close_received)
		end_all(t);
	return rc == 0 && t->close_received ? 1 : rc;
}

int
kube_pf_tunnel_fd(const struct kube_pf_tunnel *t)
{
	return kube_wsconn_fd(t->ws);
}

size_t
kube_pf_tunnel_unsent(const struct kube_pf_tunnel *t)
{
	return t->ws != NULL ? kube_wsconn_unsent(t->ws) : 0;
}

int
kube_pf_tunnel_flush(struct kube_pf_tunnel *t, struct rai_err *err)
{
	if (kube_wsconn_flush(t->ws, err) == -1) {
		end_all(t);
		return -1;
	}
	return 0;
}

void
kube_pf_tunnel_close(struct kube_pf_tunnel *t)
{
	struct rai_err ignored = RAI_ERR_INIT;
	struct rai_buf b = RAI_BUF_INIT;

	if (t->ws != NULL && !t->upgrading && !t->eof && !t->ws->close_sent) {
		/* the last stream of the server's we took: it opens none */
		if (kube_pf_tunnel_is_spdy(t) && kube_spdy_goaway(&b, 0, 0) == 0)
			(void)queue(t, &b, &ignored);
		(void)kube_wsconn_queue_close(t->ws, KUBE_WS_CLOSE_NORMAL,
		    &ignored);
	}
	/* what is queued (our close, or the answer to the server's) */
	if (t->ws != NULL && !t->upgrading && kube_wsconn_unsent(t->ws) > 0)
		(void)kube_wsconn_flush(t->ws, &ignored);
	rai_buf_release(&b);
	rai_err_release(&ignored);
	end_all(t);
}

void
kube_pf_tunnel_release(struct kube_pf_tunnel *t)
{
	if (t->ws != NULL) {
		kube_wsconn_release(t->ws);
		free(t->ws);
		t->ws = NULL;
	}
	kube_ws_dec_release(&t->dec);
	kube_spdy_release(&t->spdy);
	free(t->pairs);
	t->pairs = NULL;
	t->npairs = t->cap = 0;
}
