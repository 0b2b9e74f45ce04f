/*
 * rntop's column engine (layout.h): measure every cell of a table, fit
 * the columns to the line by priority, then render cells to their width.
 */
#include <stdio.h>
#include <string.h>

#include "layout.h"

#include "core/banned.h"

int
lay_width(const char *s)
{
	int w = 0;

	/* UTF-8: a cell per character, continuation bytes add none */
	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void
lay_reset(struct lay_col *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		c[i].need = c[i].headw = lay_width(c[i].head);
		c[i].shown = 0;
		c[i].x = c[i].w = 0;
	}
}

void
lay_measure(struct lay_col *c, const char *text)
{
	int w = lay_width(text);

	if (w > c->need)
		c->need = w;
}

/* The narrowest column c can be: whole cells need their widest. */
static int
narrowest(const struct lay_col *c)
{
	if (c->elide == LAY_WHOLE || c->need <= c->min)
		return c->need;
	return c->min > c->headw ? c->min : c->headw;
}

/* The width of the shown columns at their narrowest, with the gaps. */
static int
total_narrowest(const struct lay_col *c, size_t n)
{
	size_t i;
	int t = 0, k = 0;

	for (i = 0; i < n; i++)
		if (c[i].shown) {
			t += narrowest(&c[i]);
			k++;
		}
	return k ? t + k - 1 : 0;
}

/* Drops the least important shown column; 0 when none may go. */
static int
drop_one(struct lay_col *c, size_t n)
{
	size_t i, worst = n;

	for (i = 0; i < n; i++)
		if (c[i].shown && c[i].prio > 0 &&
		    (worst == n || c[i].prio >= c[worst].prio))
			worst = i;
	if (worst == n)
		return 0;
	c[worst].shown = 0;
	return 1;
}

void
lay_fit(struct lay_col *c, size_t n, int width)
{
	size_t i;
	int spare, x, grow;

	for (i = 0; i < n; i++)
		c[i].shown = !c[i].off;
	while (total_narrowest(c, n) > width && drop_one(c, n))
		;
	spare = width - total_narrowest(c, n);
	for (i = 0; i < n; i++)
		if (c[i].shown)
			c[i].w = narrowest(&c[i]);
	/* elided columns grow back towards their widest, left first */
	for (i = 0; i < n && spare > 0; i++) {
		if (!c[i].shown || c[i].w >= c[i].need)
			continue;
		grow = c[i].need - c[i].w;
		if (grow > spare)
			grow = spare;
		c[i].w += grow;
		spare -= grow;
	}
	for (i = 0; i < n && spare > 0; i++)
		if (c[i].shown && c[i].last) {
			c[i].w += spare;
			spare = 0;
		}
	for (i = 0, x = 0; i < n; i++)
		if (c[i].shown) {
			c[i].x = x;
			x += c[i].w + 1;
		}
}

/* The byte offset of character k of s (or its end). */
static size_t
char_offset(const char *s, int k)
{
	size_t i = 0;

	while (s[i] != '\0' && k > 0) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

/* Appends n bytes of s to out (size bytes, used *len), cut safely. */
static void
append(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + n >= size)
		n = size - *len - 1;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
}

static void
pad(char *out, size_t size, size_t *len, int n)
{
	while (n-- > 0)
		append(out, size, len, " ", 1);
}

static int
is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/*
 * Where an end elision of text keeps keep bytes: never inside a word
 * that holds a digit (an address, a count, a share), whose part would
 * read as another number; such a word goes whole.
 */
static size_t
end_cut(const char *text, size_t keep)
{
	size_t start = keep, k;

	if (keep == 0 || text[keep] == ' ' || text[keep - 1] == ' ')
		return keep;
	while (start > 0 && text[start - 1] != ' ')
		start--;
	for (k = start; text[k] != '\0' && text[k] != ' '; k++)
		if (is_digit(text[k]))
			return start;
	return keep;
}

/*
 * A middle elision keeps head bytes and the tail from byte tail: the
 * head never ends in a digit and the tail never starts inside a run of
 * them, so no part of a number stands beside the mark ("node-0…2").
 */
static void
middle_cut(const char *text, size_t *head, size_t *tail)
{
	while (*head > 0 && is_digit(text[*head - 1]))
		(*head)--;
	while (text[*tail] != '\0' && *tail > 0 && is_digit(text[*tail]) &&
	    is_digit(text[*tail - 1]))
		(*tail)++;
}

void
lay_cell(const struct lay_col *c, const char *text, int utf8, char *out,
    size_t size)
{
	const char *mark = utf8 ? "\u2026" : "~";
	int tw = lay_width(text), i;
	size_t len = 0, head, tail;

	out[0] = '\0';
	if (size == 0)
		return;
	if (tw <= c->w) {
		if (c->right)
			pad(out, size, &len, c->w - tw);
		append(out, size, &len, text, strlen(text));
		if (!c->right)
			pad(out, size, &len, c->w - tw);
		return;
	}
	if (c->elide == LAY_WHOLE || c->w < 2) {
		/* a part of a number would read as another number */
		for (i = 0; i < c->w; i++)
			append(out, size, &len, "#", 1);
		return;
	}
	if (c->elide == LAY_END) {
		append(out, size, &len, text, end_cut(text,
		    char_offset(text, c->w - 1)));
	} else {
		/* the middle goes: both ends of a name tell hosts apart */
		head = char_offset(text, c->w / 2);
		tail = char_offset(text, tw - (c->w - 1 - c->w / 2));
		middle_cut(text, &head, &tail);
		append(out, size, &len, text, head);
		append(out, size, &len, mark, strlen(mark));
		append(out, size, &len, text + tail, strlen(text + tail));
		pad(out, size, &len, c->w - lay_width(out));
		return;
	}
	append(out, size, &len, mark, strlen(mark));
	pad(out, size, &len, c->w - lay_width(out));
}
