/*
 * A JSON reader that builds cJSON's trees. cJSON's own parser measures
 * each string before copying it byte by byte and copies every number
 * into a buffer for strtod; a list of a thousand jobs spent over a
 * quarter of runai's instructions there. This one reads each byte once,
 * copies a string without escapes with one memcpy and reads a whole
 * number of up to 15 digits without strtod.
 *
 * What it makes of valid JSON is what cJSON makes: the same node types,
 * values (valueint saturated as cJSON does), member order, duplicate
 * members kept, the first child's prev pointing at the last (cJSON's
 * appends rely on it), nodes and strings from cJSON_malloc, so that
 * cJSON_Delete frees them through whatever hooks are set. Where cJSON is
 * lenient, this reader is as lenient or stricter, never more: any byte
 * up to a space is a blank (cJSON's rule), strings may hold raw control
 * bytes and \u0000, a UTF-8 byte order mark is skipped, containers nest
 * 1,000 deep at most, and numbers are at most 63 characters (cJSON reads
 * no more). It refuses what cJSON lets through: text after the value,
 * numbers outside JSON's grammar ("01", "1."), and a \u escape whose
 * four characters are not hex digits (cJSON reads those as U+0000).
 */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json_parse.h"

#include "core/banned.h"

#define NESTING_MAX	1000	/* containers inside containers, as cJSON */
#define NUMBER_MAX	63	/* characters of a number cJSON reads */
#define EXACT_DIGITS	15	/* an integer this long is exact as a double */

struct reader {
	const unsigned char	*p, *end;
	int			 depth;
};

static cJSON	*read_value(struct reader *);

static void *
json_alloc(size_t n)
{
	void *p = cJSON_malloc(n);

	if (p == NULL)
		rai_die("out of memory");
	return p;
}

static cJSON *
new_node(int type)
{
	cJSON *n = json_alloc(sizeof(*n));

	memset(n, 0, sizeof(*n));
	n->type = type;
	return n;
}

static void
skip_blanks(struct reader *r)
{
	while (r->p < r->end && *r->p <= ' ')
		r->p++;
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
hex4(const unsigned char *h, unsigned *out)
{
	unsigned v = 0, d;
	int i;

	for (i = 0; i < 4; i++) {
		if (is_digit(h[i]))
			d = h[i] - '0';
		else if ((h[i] | 0x20) >= 'a' && (h[i] | 0x20) <= 'f')
			d = (h[i] | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static unsigned char *
put_utf8(unsigned char *o, unsigned long cp)
{
	if (cp < 0x80) {
		*o++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*o++ = (unsigned char)(0xc0 | cp >> 6);
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (unsigned char)(0xe0 | cp >> 12);
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (unsigned char)(0xf0 | cp >> 18);
		*o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/*
 * A \u escape at e (inside a string ending at q) as UTF-8 at *o; its
 * length in the text, or 0 when it is not one code point: a lone
 * surrogate, or characters that are not hex digits.
 */
static size_t
unicode_escape(const unsigned char *e, const unsigned char *q,
    unsigned char **o)
{
	unsigned hi, lo;

	if (q - e < 6 || hex4(e + 2, &hi) == -1 ||
	    (hi >= 0xdc00 && hi <= 0xdfff))
		return 0;
	if (hi < 0xd800 || hi > 0xdbff) {
		*o = put_utf8(*o, hi);
		return 6;
	}
	if (q - e < 12 || e[6] != '\\' || e[7] != 'u' ||
	    hex4(e + 8, &lo) == -1 || lo < 0xdc00 || lo > 0xdfff)
		return 0;
	*o = put_utf8(*o, 0x10000ul + ((unsigned long)(hi & 0x3ff) << 10 |
	    (lo & 0x3ff)));
	return 12;
}

/* The bytes s..q with their escapes undone into o; NULL, or the bad one. */
static const unsigned char *
unescape(const unsigned char *s, const unsigned char *q, unsigned char *o)
{
	static const char from[] = "bfnrt\"\\/", to[] = "\b\f\n\r\t\"\\/";
	const char *hit;
	size_t n;

	while (s < q) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (s[1] == 'u') {
			if ((n = unicode_escape(s, q, &o)) == 0)
				return s;
			s += n;
			continue;
		}
		if (s[1] == '\0' || (hit = strchr(from, s[1])) == NULL)
			return s;
		*o++ = (unsigned char)to[hit - from];
		s += 2;
	}
	*o = '\0';
	return NULL;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
#define SCAN_WORDS	1
#define ONES		0x0101010101010101ULL
#define HIGHS		0x8080808080808080ULL

/*
 * The bytes of w equal to all of c's, as their high bits. Only the
 * lowest flag is sure (a borrow may flag a byte above it), and only
 * the lowest is used.
 */
static uint64_t
bytes_equal(uint64_t w, uint64_t c)
{
	uint64_t x = w ^ c;

	return (x - ONES) & ~x & HIGHS;
}
#endif

/*
 * The first quote or backslash from q on (end if none), eight bytes at
 * a time where the compiler lets us say so. A list of 1,000 jobs is
 * 1.3 MB of mostly strings: a byte at a time this loop was 8.3 M of
 * runai list -A's 123.7 M instructions; eight at a time the whole run
 * takes 119.9 M.
 */
static const unsigned char *
string_stop(const unsigned char *q, const unsigned char *end)
{
#ifdef SCAN_WORDS
	uint64_t w, hit;

	for (; end - q >= 8; q += 8) {
		memcpy(&w, q, sizeof(w));
		hit = bytes_equal(w, ONES * '"') | bytes_equal(w, ONES * '\\');
		if (hit != 0)
			return q + (__builtin_ctzll(hit) >> 3);
	}
#endif
	while (q < end && *q != '"' && *q != '\\')
		q++;
	return q;
}

/* r->p at the opening quote: the text, or NULL with r->p at the fault. */
static char *
read_string(struct reader *r)
{
	const unsigned char *s = r->p + 1, *q = s, *bad;
	int escaped = 0;
	unsigned char *out;

	while ((q = string_stop(q, r->end)) < r->end && *q == '\\') {
		if (r->end - q < 2)
			return NULL;	/* unterminated: at the quote */
		escaped = 1;
		q += 2;
	}
	if (q >= r->end)
		return NULL;
	out = json_alloc((size_t)(q - s) + 1);
	if (!escaped) {
		memcpy(out, s, (size_t)(q - s));
		out[q - s] = '\0';
	} else if ((bad = unescape(s, q, out)) != NULL) {
		cJSON_free(out);
		r->p = bad;
		return NULL;
	}
	r->p = q + 1;
	return (char *)out;
}

static const unsigned char *
skip_digits(const unsigned char *q, const unsigned char *end)
{
	while (q < end && is_digit(*q))
		q++;
	return q;
}

/* The end of the number at s by JSON's grammar; NULL if it is not one. */
static const unsigned char *
number_end(const unsigned char *s, const unsigned char *end, int *integer)
{
	const unsigned char *q = s + (*s == '-');

	if (q == end || !is_digit(*q))
		return NULL;
	q = *q == '0' ? q + 1 : skip_digits(q, end);
	*integer = 1;
	if (q < end && *q == '.') {
		if (++q == end || !is_digit(*q))
			return NULL;
		q = skip_digits(q, end);
		*integer = 0;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (q == end || !is_digit(*q))
			return NULL;
		q = skip_digits(q, end);
		*integer = 0;
	}
	return q;
}

/* strtod in the locale's terms, as cJSON calls it. */
static double
number_by_strtod(const unsigned char *s, size_t n)
{
	char buf[NUMBER_MAX + 1], *dot;

	memcpy(buf, s, n);
	buf[n] = '\0';
	if ((dot = strchr(buf, '.')) != NULL)
		*dot = localeconv()->decimal_point[0];
	return strtod(buf, NULL);
}

static int
read_number(struct reader *r, cJSON *n)
{
	const unsigned char *s = r->p, *q, *d;
	int integer = 0;
	double v;
	unsigned long long u = 0;

	if ((q = number_end(s, r->end, &integer)) == NULL ||
	    q - s > NUMBER_MAX)
		return -1;
	d = s + (*s == '-');
	if (integer && q - d <= EXACT_DIGITS) {
		for (; d < q; d++)
			u = u * 10 + (unsigned)(*d - '0');
		v = *s == '-' ? -(double)u : (double)u;
	} else {
		v = number_by_strtod(s, (size_t)(q - s));
	}
	n->valuedouble = v;
	if (v >= 2147483647.0)
		n->valueint = 2147483647;
	else if (v <= -2147483648.0)
		n->valueint = -2147483647 - 1;
	else
		n->valueint = (int)v;
	r->p = q;
	return 0;
}

static int
read_word(struct reader *r, const char *w, size_t n)
{
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return -1;
	r->p += n;
	return 0;
}

static void
append(cJSON *parent, cJSON **last, cJSON *v)
{
	if (*last == NULL)
		parent->child = v;
	else {
		(*last)->next = v;
		v->prev = *last;
	}
	*last = v;
	parent->child->prev = v;
}

/* After a member or element: 1 at the closing byte, 0 at a comma. */
static int
after_item(struct reader *r, unsigned char close)
{
	skip_blanks(r);
	if (r->p == r->end)
		return -1;
	if (*r->p == close) {
		r->p++;
		return 1;
	}
	if (*r->p != ',')
		return -1;
	r->p++;
	skip_blanks(r);
	return 0;
}

/* Blanks, then the closing byte if the container is empty: 1 then. */
static int
closes_at_once(struct reader *r, unsigned char close)
{
	skip_blanks(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 1;
	}
	return 0;
}

static int
read_elements(struct reader *r, cJSON *arr)
{
	cJSON *last = NULL, *v;
	int rc;

	if (closes_at_once(r, ']'))
		return 0;
	do {
		if ((v = read_value(r)) == NULL)
			return -1;
		append(arr, &last, v);
	} while ((rc = after_item(r, ']')) == 0);
	return rc == 1 ? 0 : -1;
}

static int
read_members(struct reader *r, cJSON *obj)
{
	cJSON *last = NULL, *v;
	char *key;
	int rc;

	if (closes_at_once(r, '}'))
		return 0;
	do {
		if (r->p == r->end || *r->p != '"' ||
		    (key = read_string(r)) == NULL)
			return -1;
		skip_blanks(r);
		if (r->p == r->end || *r->p != ':') {
			cJSON_free(key);
			return -1;
		}
		r->p++;
		skip_blanks(r);
		if ((v = read_value(r)) == NULL) {
			cJSON_free(key);
			return -1;
		}
		v->string = key;
		append(obj, &last, v);
	} while ((rc = after_item(r, '}')) == 0);
	return rc == 1 ? 0 : -1;
}

static cJSON *
read_container(struct reader *r, int type)
{
	cJSON *c;
	int rc;

	if (r->depth >= NESTING_MAX)
		return NULL;
	c = new_node(type);
	r->p++;
	r->depth++;
	rc = type == cJSON_Array ? read_elements(r, c) : read_members(r, c);
	r->depth--;
	if (rc == -1) {
		cJSON_Delete(c);
		return NULL;
	}
	return c;
}

/* The value at r->p (no blanks before it); NULL with r->p at the fault. */
static cJSON *
read_value(struct reader *r)
{
	cJSON *v;

	if (r->p == r->end)
		return NULL;
	switch (*r->p) {
	case '{':
		return read_container(r, cJSON_Object);
	case '[':
		return read_container(r, cJSON_Array);
	case '"':
		v = new_node(cJSON_String);
		if ((v->valuestring = read_string(r)) == NULL) {
			cJSON_Delete(v);
			return NULL;
		}
		return v;
	case 'n':
		return read_word(r, "null", 4) == 0 ? new_node(cJSON_NULL) :
		    NULL;
	case 'f':
		return read_word(r, "false", 5) == 0 ? new_node(cJSON_False) :
		    NULL;
	case 't':
		if (read_word(r, "true", 4) == -1)
			return NULL;
		v = new_node(cJSON_True);
		v->valueint = 1;
		return v;
	default:
		if (*r->p != '-' && !is_digit(*r->p))
			return NULL;
		v = new_node(cJSON_Number);
		if (read_number(r, v) == -1) {
			cJSON_Delete(v);
			return NULL;
		}
		return v;
	}
}

cJSON *
rai_json_read(const char *text, size_t len, size_t *stop)
{
	const unsigned char *start = (const unsigned char *)text;
	struct reader r = { start, start + len, 0 };
	cJSON *v;

	if (len > 4 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		r.p += 3;	/* a UTF-8 byte order mark, which cJSON skips */
	skip_blanks(&r);
	if ((v = read_value(&r)) != NULL) {
		skip_blanks(&r);
		if (r.p != r.end) {
			cJSON_Delete(v);
			v = NULL;
		}
	}
	if (v == NULL && stop != NULL)
		*stop = (size_t)(r.p - start);
	return v;
}

cJSON *
rai_json_read_first(const char *text, size_t len, size_t *used)
{
	const unsigned char *start = (const unsigned char *)text;
	struct reader r = { start, start + len, 0 };
	cJSON *v = read_value(&r);

	/* a number that ends with the text may go on in the next bytes */
	if (v != NULL && cJSON_IsNumber(v) && r.p == r.end) {
		cJSON_Delete(v);
		return NULL;
	}
	if (v != NULL)
		*used = (size_t)(r.p - start);
	return v;
}
