/*
 * Text from outside made safe to show: UTF-8 decoding, and the
 * replacement of what a terminal would act on instead of showing.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/text.h"

#include "core/banned.h"

size_t
rai_utf8_next(const unsigned char *s, long *cp)
{
	size_t n, i;
	long c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		goto bad;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 ||
	    c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		goto bad;
	*cp = c;
	return n;
bad:
	*cp = -1;
	return 1;
}

/*
 * What a terminal must not receive from a server: C0 and C1 controls
 * (ESC starts escape sequences, CR and BS overwrite), DEL, bidi
 * overrides that reorder what is shown, and bytes that are not UTF-8.
 */
int
rai_text_unsafe(long c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* keep_lines: newlines and tabs stay, for text shown as lines (logs) */
static char *
sanitize(const char *s, int keep_lines)
{
	const unsigned char *u = (const unsigned char *)s;
	struct rai_buf b = RAI_BUF_INIT;
	size_t n;
	long cp;

	/* the common case, nothing to replace: an exact-size copy */
	while ((*u >= 0x20 && *u < 0x7f) || (keep_lines && (*u == '\n' ||
	    *u == '\t')))
		u++;
	if (*u == '\0')
		return xstrdup(s);
	u = (const unsigned char *)s;
	rai_buf_init(&b, (size_t)-1);
	while (*u != '\0') {
		n = rai_utf8_next(u, &cp);
		if (rai_text_unsafe(cp) && !(keep_lines && (cp == '\n' ||
		    cp == '\t')))
			rai_buf_addch(&b, '?');
		else
			rai_buf_add(&b, u, n);
		u += n;
	}
	return rai_buf_detach(&b, NULL);
}

char *
rai_text_sanitize(const char *s)
{
	return sanitize(s, 0);
}

char *
rai_text_sanitize_lines(const char *s)
{
	return sanitize(s, 1);
}

void
rai_text_put(FILE *fp, const char *before, const char *text,
    const char *after)
{
	char *safe = rai_text_sanitize(text != NULL ? text : "");

	fputs(before, fp);
	fputs(safe, fp);
	fputs(after, fp);
	free(safe);
}

/*
 * Outside its strings a JSON text is ASCII punctuation, literals,
 * numbers and whitespace, and inside them a backslash is always
 * followed by ASCII: so any DEL, C1 control, bidi override or non-UTF-8
 * byte found is a raw one inside a string, and its escape means the
 * same to a JSON reader. C0 controls are the writer's to escape: the
 * raw ones here are the text's own newlines and indentation.
 */
void
rai_text_json_harden(struct rai_buf *out, const char *json)
{
	const unsigned char *u = (const unsigned char *)json;
	size_t n;
	long cp;

	while (*u != '\0') {
		n = rai_utf8_next(u, &cp);
		if (cp < 0)
			rai_buf_addstr(out, "\\ufffd");
		else if (cp >= 0x7f && rai_text_unsafe(cp))
			rai_buf_addf(out, "\\u%04lx", cp);
		else
			rai_buf_add(out, u, n);
		u += n;
	}
}
