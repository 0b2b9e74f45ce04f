/*
 * Line framing for streamed bodies. Each chunk is scanned once: complete
 * lines are handed out straight from the chunk when nothing is pending,
 * and only the tail after the last '\n' is copied, so the cost is linear
 * in the bytes received however they are chunked (the official C client
 * re-parses its whole buffer on every chunk).
 */
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/http.h"
#include "core/json_parse.h"
#include "kube/stream.h"

#include "core/banned.h"

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

/*
 * List framing. One pass over each chunk: a small state machine walks
 * the top-level object; a value is copied into val in runs (a scan
 * that only counts brackets outside strings), so the cost is linear in
 * the bytes and the memory is one value, however long the list.
 */
enum {
	IT_START,	/* before the '{' */
	IT_MEMBER,	/* a key, ',' or '}' */
	IT_KEY,		/* inside a key */
	IT_COLON,
	IT_VALUE,	/* a member's value starts */
	IT_ITEM,	/* an item, ',' or ']' */
	IT_CAPTURE,	/* inside a value */
	IT_END,		/* after the '}': blanks only */
};

void
kube_items_init(struct kube_items *it, size_t max_value, kube_items_fn *fn,
    void *ud)
{
	memset(it, 0, sizeof(*it));
	rai_buf_init(&it->val, max_value ? max_value : RAI_BUF_DEFAULT_MAX);
	it->state = IT_START;
	it->fn = fn;
	it->ud = ud;
}

void
kube_items_release(struct kube_items *it)
{
	rai_buf_release(&it->val);
}

static int
blank_byte(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
malformed(const struct kube_items *it, const char *what,
    struct rai_err *err)
{
	return rai_err_set(err, RAI_E_PROTO, "malformed JSON list at byte "
	    "%zu: %s", it->off, what);
}

static int
value_too_big(const struct kube_items *it, struct rai_err *err)
{
	char size[32];

	rai_http_format_size(it->val.max, size, sizeof(size));
	return rai_err_set(err, RAI_E_PROTO, "a list item is larger than %s",
	    size);
}

static int
items_deliver(struct kube_items *it, struct rai_err *err)
{
	int rc;

	rc = it->fn(it->ud, it->in_items ? NULL : it->key,
	    rai_buf_str(&it->val), it->val.len, err);
	rai_buf_reset(&it->val);
	if (it->in_items)
		it->nitems++;
	it->state = it->in_items ? IT_ITEM : IT_MEMBER;
	it->need_comma = 1;
	return rc == 0 ? 0 : -1;
}

/*
 * Inside a string, the next byte that matters: its closing quote or a
 * backslash (memchr looks at many bytes a step); end when neither is in.
 */
static const char *
str_special(const char *p, const char *end)
{
	const char *q = memchr(p, '"', (size_t)(end - p));
	const char *b = memchr(p, '\\', (size_t)((q != NULL ? q : end) - p));

	return b != NULL ? b : q != NULL ? q : end;
}

/* Reads value bytes from p; *done when the value ended (at *stop). */
static const char *
items_scan(struct kube_items *it, const char *p, const char *end, int *done)
{
	char c;

	for (; p < end; p++) {
		/* most bytes are inside strings: skip to what ends them */
		if (it->in_str && !it->esc && (p = str_special(p, end)) == end)
			break;
		c = *p;
		if (it->in_str) {
			if (it->esc)
				it->esc = 0;
			else if (c == '\\')
				it->esc = 1;
			else if (c == '"') {
				it->in_str = 0;
				if (it->depth == 0) {
					*done = 1;
					return p + 1;
				}
			}
		} else if (c == '"') {
			it->in_str = 1;
		} else if (c == '{' || c == '[') {
			it->depth++;
		} else if (c == '}' || c == ']') {
			if (it->depth == 0) {	/* ends a scalar; not ours */
				*done = 1;
				return p;
			}
			if (--it->depth == 0) {
				*done = 1;
				return p + 1;
			}
		} else if (it->depth == 0 && (c == ',' || blank_byte(c))) {
			*done = 1;
			return p;
		}
	}
	return p;
}

/* One byte outside values; 0, or -1 with err set. */
static int
items_step(struct kube_items *it, char c, struct rai_err *err)
{
	switch (it->state) {
	case IT_START:
		if (c != '{')
			return malformed(it, "expected a JSON object", err);
		it->state = IT_MEMBER;
		return 0;
	case IT_MEMBER:
		if (c == '}') {
			it->state = IT_END;
			return 0;
		}
		if (it->need_comma) {
			if (c != ',')
				return malformed(it, "expected ',' or '}'",
				    err);
			it->need_comma = 0;
			return 0;
		}
		if (c != '"')
			return malformed(it, "expected a member name", err);
		it->keylen = 0;
		it->key[0] = '\0';
		it->state = IT_KEY;
		return 0;
	case IT_KEY:
		if (it->esc)
			it->esc = 0;
		else if (c == '\\')
			it->esc = 1;
		else if (c == '"') {
			it->state = IT_COLON;
			return 0;
		}
		if (it->keylen + 1 < sizeof(it->key)) {
			it->key[it->keylen++] = c;
			it->key[it->keylen] = '\0';
		}
		return 0;
	case IT_COLON:
		if (c != ':')
			return malformed(it, "expected ':'", err);
		it->state = IT_VALUE;
		return 0;
	case IT_VALUE:
		if (c == ',' || c == '}' || c == ']' || c == ':')
			return malformed(it, "expected a value", err);
		if (strcmp(it->key, "items") == 0 && c == '[') {
			it->in_items = 1;
			it->need_comma = 0;
			it->nitems_open = it->nitems;
			it->state = IT_ITEM;
			return 0;
		}
		it->state = IT_CAPTURE;
		return 1;	/* the value starts with this byte */
	case IT_ITEM:
		if (c == ']' && (it->need_comma ||
		    it->nitems == it->nitems_open)) {
			it->in_items = 0;
			it->need_comma = 1;
			it->state = IT_MEMBER;
			return 0;
		}
		if (it->need_comma) {
			if (c != ',')
				return malformed(it, "expected ',' or ']'",
				    err);
			it->need_comma = 0;
			return 0;
		}
		if (c == ',' || c == ']' || c == '}' || c == ':')
			return malformed(it, "expected an item", err);
		it->state = IT_CAPTURE;
		return 1;
	case IT_END:
	default:
		return malformed(it, "data after the list", err);
	}
}

void
kube_items_parse(struct kube_items *it, kube_item_tree_fn *fn)
{
	it->tree_fn = fn;
}

/*
 * An object item that starts at p and ends before end, read where it
 * lies: no copy into val and no bracket scan. The bytes it takes, 0
 * when it is not whole here or not valid (the text path then takes it
 * and says what is wrong), or -1 with err set by the callback.
 */
static long
items_whole(struct kube_items *it, const char *p, const char *end,
    struct rai_err *err)
{
	cJSON *tree;
	size_t used = 0;

	if (it->tree_fn == NULL || !it->in_items || it->val.len > 0 ||
	    *p != '{' ||
	    (tree = rai_json_read_first(p, (size_t)(end - p), &used)) == NULL)
		return 0;
	if (used > it->val.max) {
		cJSON_Delete(tree);
		return value_too_big(it, err);
	}
	it->off += used;
	it->nitems++;
	it->state = IT_ITEM;
	it->need_comma = 1;
	if (it->tree_fn(it->ud, tree, p, used, err) != 0)
		return -1;
	return (long)used;
}

int
kube_items_feed(struct kube_items *it, const char *data, size_t len,
    struct rai_err *err)
{
	const char *p = data, *end = data + len, *q;
	long whole;
	int done, rc;

	while (p < end) {
		if (it->state == IT_CAPTURE) {
			if ((whole = items_whole(it, p, end, err)) != 0) {
				if (whole == -1)
					return -1;
				p += whole;
				continue;
			}
			done = 0;
			q = items_scan(it, p, end, &done);
			if (rai_buf_add(&it->val, p, (size_t)(q - p)) == -1)
				return value_too_big(it, err);
			it->off += (size_t)(q - p);
			p = q;
			if (done && items_deliver(it, err) == -1)
				return -1;
			continue;
		}
		if (blank_byte(*p) && it->state != IT_KEY) {
			p++;
			it->off++;
			continue;
		}
		if ((rc = items_step(it, *p, err)) == -1)
			return -1;
		if (rc == 0) {
			p++;
			it->off++;
		}
	}
	return 0;
}

int
kube_items_finish(struct kube_items *it, struct rai_err *err)
{
	if (it->state == IT_END)
		return 0;
	if (it->state == IT_START)
		return malformed(it, "expected a JSON object", err);
	return rai_err_set(err, RAI_E_PROTO, "the list ended after %zu bytes, "
	    "in the middle", it->off);
}
