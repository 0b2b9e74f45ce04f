/*
 * Growable buffers with a hard cap, after curl's dynbuf: data from a
 * peer can never make us allocate without bound.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"

#include "core/banned.h"

void
rai_buf_init(struct rai_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->max = max;
}

static size_t
buf_max(const struct rai_buf *b)
{
	return b->max ? b->max : RAI_BUF_DEFAULT_MAX;
}

/* Makes room for n more bytes plus the terminator. */
static int
buf_grow(struct rai_buf *b, size_t n)
{
	size_t need, nalloc;

	if (n > buf_max(b) || b->len > buf_max(b) - n)
		return -1;
	need = b->len + n + 1;
	if (need <= b->alloc)
		return 0;
	nalloc = b->alloc ? b->alloc : 64;
	while (nalloc < need)
		nalloc = nalloc > ((size_t)-1) / 2 ? need : nalloc * 2;
	b->data = xrealloc(b->data, nalloc);
	b->alloc = nalloc;
	return 0;
}

int
rai_buf_add(struct rai_buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) == -1)
		return -1;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
rai_buf_addstr(struct rai_buf *b, const char *s)
{
	return rai_buf_add(b, s, strlen(s));
}

int
rai_buf_addch(struct rai_buf *b, int c)
{
	char ch = (char)c;

	return rai_buf_add(b, &ch, 1);
}

int
rai_buf_vaddf(struct rai_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || buf_grow(b, (size_t)n) == -1)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
rai_buf_addf(struct rai_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = rai_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *
rai_buf_str(const struct rai_buf *b)
{
	return b->data ? b->data : "";
}

void
rai_buf_reset(struct rai_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void
rai_buf_consume(struct rai_buf *b, size_t n)
{
	if (n >= b->len) {
		rai_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void
rai_buf_release(struct rai_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
}

void
rai_buf_release_secret(struct rai_buf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->alloc);
	rai_buf_release(b);
}

char *
rai_buf_detach(struct rai_buf *b, size_t *lenp)
{
	char *p;

	if (b->data == NULL)
		p = xstrdup("");
	else
		p = b->data;
	if (lenp)
		*lenp = b->len;
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	return p;
}

int
rai_shell_plain(const char *w)
{
	return *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == strlen(w);
}

int
rai_buf_add_shell_word(struct rai_buf *b, const char *w)
{
	const char *p;
	int rc;

	if (rai_shell_plain(w))
		return rai_buf_addstr(b, w);
	rc = rai_buf_addch(b, '\'');
	for (p = w; *p != '\0' && rc == 0; p++)
		rc = *p == '\'' ? rai_buf_addstr(b, "'\\''") :
		    rai_buf_addch(b, *p);
	return rc == 0 ? rai_buf_addch(b, '\'') : -1;
}
