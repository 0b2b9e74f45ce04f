/*
 * Line framing for streamed bodies. Each chunk is scanned once: complete
 * lines are handed out straight from the chunk when nothing is pending,
 * and only the tail after the last '\n' is copied, so the cost is linear
 * in the bytes received however they are chunked (the official C client
 * re-parses its whole buffer on every chunk).
 */
#include <string.h>

#include "kube_stream.h"
#include "rai_buf.h"
#include "rai_err.h"
#include "rai_http.h"

#include "banned.h"

void
kube_lines_init(struct kube_lines *l, size_t max_line, kube_lines_fn *fn,
    void *ud)
{
	rai_buf_init(&l->partial, max_line ? max_line : RAI_BUF_LINE_MAX);
	l->fn = fn;
	l->ud = ud;
	l->stopped = 0;
}

static int
too_long(const struct kube_lines *l, struct rai_err *err)
{
	char size[32];

	rai_http_format_size(l->partial.max, size, sizeof(size));
	return rai_err_set(err, RAI_E_PROTO, "a streamed line is longer "
	    "than %s", size);
}

static void
deliver(struct kube_lines *l, const char *line, size_t len)
{
	if (l->fn(l->ud, line, len) != 0)
		l->stopped = 1;
}

int
kube_lines_feed(struct kube_lines *l, const char *data, size_t len,
    struct rai_err *err)
{
	const char *p = data, *end = data + len, *nl;
	size_t n;

	while (p < end && !l->stopped) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			n = (size_t)(end - p);
			if (rai_buf_add(&l->partial, p, n) == -1)
				return too_long(l, err);
			break;
		}
		n = (size_t)(nl - p);
		if (l->partial.len == 0) {
			if (n > l->partial.max)
				return too_long(l, err);
			deliver(l, p, n);
		} else {
			if (rai_buf_add(&l->partial, p, n) == -1)
				return too_long(l, err);
			deliver(l, l->partial.data, l->partial.len);
			rai_buf_reset(&l->partial);
		}
		p = nl + 1;
	}
	return 0;
}

int
kube_lines_finish(struct kube_lines *l, struct rai_err *err)
{
	(void)err;
	if (!l->stopped && l->partial.len > 0)
		deliver(l, l->partial.data, l->partial.len);
	rai_buf_reset(&l->partial);
	return 0;
}

void
kube_lines_release(struct kube_lines *l)
{
	rai_buf_release(&l->partial);
}
