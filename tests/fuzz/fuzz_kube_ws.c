/*
 * libFuzzer target for what a server sends to exec/attach: the input
 * after its first two bytes goes through kube_ws_dec and kube_chan
 * twice, whole and in chunks whose sizes the first two bytes choose
 * (they also choose a message cap). Besides the sanitizers' checks:
 * both runs must end the same way with the same stdout and stderr
 * bytes, the data callback's FIRST/LAST contract must hold, and every
 * ping must make a pong. The error channel's text then goes to
 * kube_chan_status, and so do the raw bytes, to reach the Status parser
 * without having to find the framing first.
 *
 *	input[0]	bits 0-5: largest chunk - 1; bit 6: random sizes
 *			below it (else all that size); bit 7: cap messages
 *	input[1]	seed for the sizes; the cap is 1 + 8 * input[1]
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/ws.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct run {
	struct kube_ws_dec	 dec;
	struct kube_chan	 chan;
	struct rai_buf		 pongs;
	size_t			 cap;
	int			 open;		/* a message is open */
	int			 opcode;	/* its opcode */
	uint64_t		 msg_len;
	uint64_t		 hash[3];	/* stdout, stderr, the rest */
	uint64_t		 len[3];
	unsigned		 nctrl;
	int			 rc;
	int			 finish_rc;
	enum rai_err_kind	 kind;
	char			*message;
};

/* FNV-1a over bytes: the same however the bytes were split */
static void
mix(uint64_t *h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*h = (*h ^ (unsigned char)p[i]) * 0x100000001b3ull;
}

static int
on_channel(void *ud, int channel, const char *data, size_t len,
    struct rai_err *err)
{
	struct run *r = ud;
	size_t elen;
	int i = channel == KUBE_CHAN_STDOUT ? 0 :
	    channel == KUBE_CHAN_STDERR ? 1 : 2;

	if (channel == KUBE_CHAN_STDOUT || channel == KUBE_CHAN_STDERR) {
		if (len == 0)
			abort();
	} else if (channel == KUBE_CHAN_ERROR) {
		kube_chan_error(&r->chan, &elen);
		if (len != elen || len == 0)
			abort();
	} else if (channel == KUBE_CHAN_CLOSE) {
		if (len != 1 || (unsigned char)data[0] > KUBE_CHAN_RESIZE)
			abort();
	} else
		abort();
	mix(&r->hash[i], data, len);
	r->len[i] += len;
	return 0;
}

/* Checks the decoder's promises, then hands the piece to the demux. */
static int
on_data(void *ud, int opcode, const char *data, size_t len, unsigned flags,
    struct rai_err *err)
{
	struct run *r = ud;

	if (opcode != KUBE_WS_TEXT && opcode != KUBE_WS_BINARY)
		abort();
	if (!!(flags & KUBE_WS_FIRST) == r->open)
		abort();
	if (len == 0 && !(flags & KUBE_WS_LAST))
		abort();
	if (flags & KUBE_WS_FIRST) {
		r->opcode = opcode;
		r->msg_len = 0;
	} else if (opcode != r->opcode)
		abort();
	r->msg_len += len;
	if (r->cap != 0 && r->msg_len > r->cap)
		abort();
	r->open = !(flags & KUBE_WS_LAST);
	return kube_chan_on_data(&r->chan, opcode, data, len, flags, err);
}

static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	static const unsigned char mask[4] = { 1, 2, 3, 4 };
	struct run *r = ud;
	const char *reason;
	size_t rlen;
	int code;

	if (len > KUBE_WS_CTRL_MAX)
		abort();
	r->nctrl++;
	switch (opcode) {
	case KUBE_WS_PING:
		rai_buf_reset(&r->pongs);
		if (kube_ws_encode(&r->pongs, KUBE_WS_PONG, 1, mask, payload,
		    len, err) == -1 || r->pongs.len != 6 + len)
			abort();
		return 0;
	case KUBE_WS_CLOSE:
		if (kube_ws_parse_close(payload, len, &code, &reason,
		    &rlen) == -1 || rlen > len)
			abort();
		return 0;
	case KUBE_WS_PONG:
		return 0;
	}
	abort();
}

static void
run(struct run *r, const uint8_t *in, size_t len, size_t cap,
    size_t max_chunk, int random_sizes, uint32_t seed)
{
	struct rai_err err = RAI_ERR_INIT;
	size_t off = 0, n;
	int code;

	memset(r, 0, sizeof(*r));
	r->cap = cap;
	rai_buf_init(&r->pongs, 0);
	kube_chan_init(&r->chan, on_channel, r);
	kube_ws_dec_init(&r->dec, cap, on_data, on_control, r, r);
	while (off < len && r->rc == 0) {
		seed = seed * 1103515245u + 12345u;
		n = random_sizes ? 1 + (seed >> 8) % max_chunk : max_chunk;
		if (n > len - off)
			n = len - off;
		r->rc = kube_ws_dec_feed(&r->dec, in + off, n, &err);
		off += n;
	}
	if (r->rc == 0) {
		r->finish_rc = kube_ws_dec_finish(&r->dec, &err);
		/* what the transport does at the end */
		rai_err_release(&err);
		n = 0;
		kube_chan_status(kube_chan_error(&r->chan, &n), n, &code, &err);
	} else {
		r->kind = err.kind;
		r->message = strdup(err.message != NULL ? err.message : "");
		if (err.kind == RAI_OK || r->message == NULL)
			abort();
		/* a failed decoder stays failed */
		rai_err_release(&err);
		if (kube_ws_dec_feed(&r->dec, "", 1, &err) != -1)
			abort();
	}
	rai_err_release(&err);
}

static void
run_release(struct run *r)
{
	kube_ws_dec_release(&r->dec);
	kube_chan_release(&r->chan);
	rai_buf_release(&r->pongs);
	free(r->message);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run whole, parts;
	struct rai_err err = RAI_ERR_INIT;
	size_t cap, elen_w, elen_p;
	const char *ew, *ep;
	int code;

	if (size < 2)
		return 0;
	cap = (data[0] & 0x80) ? 1 + 8 * (size_t)data[1] : 0;
	run(&whole, data + 2, size - 2, cap, size - 2 > 0 ? size - 2 : 1, 0,
	    0);
	run(&parts, data + 2, size - 2, cap, 1 + (data[0] & 0x3f),
	    (data[0] & 0x40) != 0, data[1]);

	if (whole.rc != parts.rc || whole.kind != parts.kind ||
	    whole.finish_rc != parts.finish_rc ||
	    kube_ws_dec_closed(&whole.dec) != kube_ws_dec_closed(&parts.dec) ||
	    memcmp(whole.hash, parts.hash, 2 * sizeof(whole.hash[0])) != 0 ||
	    memcmp(whole.len, parts.len, 2 * sizeof(whole.len[0])) != 0)
		abort();
	if (whole.rc != 0 && strcmp(whole.message, parts.message) != 0)
		abort();
	if (whole.rc == 0) {
		/* a failed run may have stopped the error text early */
		ew = kube_chan_error(&whole.chan, &elen_w);
		ep = kube_chan_error(&parts.chan, &elen_p);
		if (elen_w != elen_p || memcmp(ew, ep, elen_w) != 0 ||
		    whole.nctrl != parts.nctrl ||
		    memcmp(whole.hash, parts.hash, sizeof(whole.hash)) != 0)
			abort();
	}
	run_release(&whole);
	run_release(&parts);

	kube_chan_status((const char *)data + 2, size - 2, &code, &err);
	rai_err_release(&err);
	return 0;
}
