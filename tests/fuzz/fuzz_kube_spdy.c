/*
 * libFuzzer target for what a kubelet sends in a port-forward tunnel:
 * the input after its first two bytes goes through kube_spdy_feed
 * twice, whole and in chunks whose sizes the first two bytes choose.
 * Besides the sanitizers' checks: both runs must end the same way and
 * see the same frames (a data frame's pieces joined), a data piece is
 * never empty but on its frame's last call, and every header the
 * callback looks up lies inside its block.
 *
 *	input[0]	bits 0-5: largest chunk - 1; bit 6: random sizes
 *			below it (else all that size)
 *	input[1]	seed for the sizes
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "kube/spdy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct run {
	uint64_t	 hash;		/* every frame's fields and bytes */
	unsigned	 frames;
	int		 rc;
	enum rai_err_kind kind;
};

/* FNV-1a: the same however the bytes were split */
static void
mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void
check_header(const char *block, size_t len, const char *name)
{
	const char *v;
	size_t vlen;

	if (kube_spdy_header(block, len, name, &v, &vlen) &&
	    (v < block || vlen > len || v + vlen > block + len))
		abort();
}

static int
on_frame(void *ud, const struct kube_spdy_frame *f, struct rai_err *err)
{
	struct run *r = ud;

	(void)err;
	if (f->type == KUBE_SPDY_DATA) {
		if (f->len == 0 && !f->last)
			abort();	/* an empty piece before the last */
		mix(&r->hash, f->data, f->len);
		if (!f->last)
			return 0;
	}
	if (f->type == KUBE_SPDY_SYN_STREAM || f->type == KUBE_SPDY_SYN_REPLY ||
	    f->type == KUBE_SPDY_HEADERS) {
		mix(&r->hash, f->data, f->len);
		check_header(f->data, f->len, "streamtype");
		check_header(f->data, f->len, "");
	}
	mix(&r->hash, &f->type, sizeof(f->type));
	mix(&r->hash, &f->flags, sizeof(f->flags));
	mix(&r->hash, &f->stream_id, sizeof(f->stream_id));
	mix(&r->hash, &f->value, sizeof(f->value));
	r->frames++;
	return 0;
}

static void
feed(struct run *r, const uint8_t *p, size_t len, size_t max_chunk,
    int random_sizes, uint32_t seed)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_spdy sp;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ull;
	kube_spdy_init(&sp, on_frame, r);
	while (len > 0 && r->rc == 0) {
		seed = seed * 1103515245u + 12345u;
		n = random_sizes ? 1 + (seed >> 8) % max_chunk : max_chunk;
		if (n > len)
			n = len;
		r->rc = kube_spdy_feed(&sp, p, n, &err);
		p += n;
		len -= n;
	}
	if (r->rc == -1 && err.message == NULL)
		abort();	/* a failure without its message */
	r->kind = err.kind;
	rai_err_release(&err);
	kube_spdy_release(&sp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run whole, chunked;

	if (size < 2)
		return 0;
	feed(&whole, data + 2, size - 2, size, 0, 0);
	feed(&chunked, data + 2, size - 2, (size_t)(data[0] & 0x3f) + 1,
	    (data[0] & 0x40) != 0, data[1]);
	if (whole.rc != chunked.rc || whole.kind != chunked.kind ||
	    whole.frames != chunked.frames)
		abort();
	/* a failure may cut a data frame at another piece: compare successes */
	if (whole.rc == 0 && whole.hash != chunked.hash)
		abort();
	return 0;
}
