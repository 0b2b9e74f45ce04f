/*
 * What commands show: tables laid out as Go's text/tabwriter lays them
 * out for the reference CLI (minwidth 0, padding 2, the last column
 * unpadded), kubectl-style JSON, YAML, ages and timestamps.
 *
 * Widths are display widths computed here from UTF-8, not with
 * wcwidth(): the answer must not depend on the locale, or tables (and
 * their golden files) would change with LANG.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/text.h"
#include "core/time.h"
#include "core/yaml.h"

#include "core/banned.h"

/* Between column groups, as the reference's table renderer draws it. */
#define GROUP_SEP	"\xe2\x94\x82 "		/* "│ " */
#define GROUP_SEP_WIDTH	2
#define COL_PADDING	2
#define TABLE_FLUSH	65536	/* bytes of table text held before a write */

const char *const rai_out_choices[] = { "wide", "json", "yaml", "name", NULL };

int
rai_out_parse(const char *s, enum rai_out_fmt *fmt, struct rai_err *err)
{
	static const enum rai_out_fmt fmts[] = {
		RAI_OUT_WIDE, RAI_OUT_JSON, RAI_OUT_YAML, RAI_OUT_NAME
	};
	size_t i;

	if (s == NULL || *s == '\0') {
		*fmt = RAI_OUT_TABLE;
		return 0;
	}
	for (i = 0; rai_out_choices[i] != NULL; i++)
		if (strcmp(s, rai_out_choices[i]) == 0) {
			*fmt = fmts[i];
			return 0;
		}
	return rai_err_set(err, RAI_E_USAGE, "invalid value '%s' for --output: "
	    "expected one of wide, json, yaml, name", s);
}

struct range {
	long	lo, hi;
};

/* Combining marks and format characters: no columns of their own. */
static const struct range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x05bf, 0x05bf }, { 0x05c1, 0x05c2 }, { 0x05c4, 0x05c5 },
	{ 0x05c7, 0x05c7 }, { 0x0610, 0x061a }, { 0x064b, 0x065f },
	{ 0x0670, 0x0670 }, { 0x06d6, 0x06dc }, { 0x06df, 0x06e4 },
	{ 0x06e7, 0x06e8 }, { 0x06ea, 0x06ed }, { 0x0900, 0x0902 },
	{ 0x093a, 0x093a }, { 0x093c, 0x093c }, { 0x0941, 0x0948 },
	{ 0x094d, 0x094d }, { 0x0951, 0x0957 }, { 0x0e31, 0x0e31 },
	{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x202a, 0x202e },
	{ 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0x20d0, 0x20ff },
	{ 0x302a, 0x302d }, { 0x3099, 0x309a }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0x1f3fb, 0x1f3ff },
	{ 0xe0001, 0xe007f }, { 0xe0100, 0xe01ef },
};

/* East Asian Wide and Fullwidth, and the emoji shown two columns wide. */
static const struct range double_width[] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a },
	{ 0x23e9, 0x23ec }, { 0x23f0, 0x23f0 }, { 0x23f3, 0x23f3 },
	{ 0x25fd, 0x25fe }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 },
	{ 0x267f, 0x267f }, { 0x2693, 0x2693 }, { 0x26a1, 0x26a1 },
	{ 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 },
	{ 0x26ce, 0x26ce }, { 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea },
	{ 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 }, { 0x26fa, 0x26fa },
	{ 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b },
	{ 0x2728, 0x2728 }, { 0x274c, 0x274c }, { 0x274e, 0x274e },
	{ 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c },
	{ 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 }, { 0x2e80, 0x3029 },
	{ 0x302e, 0x303e }, { 0x3041, 0x3098 }, { 0x309b, 0x33ff },
	{ 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
	{ 0xa960, 0xa97f }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
	{ 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f }, { 0xff00, 0xff60 },
	{ 0xffe0, 0xffe6 }, { 0x16fe0, 0x16fe4 }, { 0x17000, 0x18aff },
	{ 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 }, { 0x1f0cf, 0x1f0cf },
	{ 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 },
	{ 0x1f300, 0x1f320 }, { 0x1f32d, 0x1f335 }, { 0x1f337, 0x1f37c },
	{ 0x1f37e, 0x1f393 }, { 0x1f3a0, 0x1f3ca }, { 0x1f3cf, 0x1f3d3 },
	{ 0x1f3e0, 0x1f3f0 }, { 0x1f3f4, 0x1f3f4 }, { 0x1f3f8, 0x1f3fa },
	{ 0x1f400, 0x1f43e }, { 0x1f440, 0x1f440 }, { 0x1f442, 0x1f4fc },
	{ 0x1f4ff, 0x1f53d }, { 0x1f54b, 0x1f54e }, { 0x1f550, 0x1f567 },
	{ 0x1f57a, 0x1f57a }, { 0x1f595, 0x1f596 }, { 0x1f5a4, 0x1f5a4 },
	{ 0x1f5fb, 0x1f64f }, { 0x1f680, 0x1f6c5 }, { 0x1f6cc, 0x1f6cc },
	{ 0x1f6d0, 0x1f6d2 }, { 0x1f6d5, 0x1f6d7 }, { 0x1f6eb, 0x1f6ec },
	{ 0x1f6f4, 0x1f6fc }, { 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f93a },
	{ 0x1f93c, 0x1f945 }, { 0x1f947, 0x1f9ff }, { 0x1fa70, 0x1faff },
	{ 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static int
in_ranges(long c, const struct range *r, size_t n)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c < r[mid].lo)
			hi = mid;
		else if (c > r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static int
cp_width(long c)
{
	if (in_ranges(c, zero_width, sizeof(zero_width) / sizeof(*zero_width)))
		return 0;
	if (in_ranges(c, double_width,
	    sizeof(double_width) / sizeof(*double_width)))
		return 2;
	return 1;
}

/* Terminal columns of a sanitised string. */
static size_t
display_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = 0;
	long cp;

	while (*u != '\0') {
		if (*u < 0x80) {	/* ASCII: one column, no table look-up */
			u++;
			w++;
			continue;
		}
		u += rai_utf8_next(u, &cp);
		w += cp < 0 ? 1 : (size_t)cp_width(cp);
	}
	return w;
}

/* ---- tables ---- */

/*
 * A cell is its text in one arena (an offset, NOCELL for none) and its
 * display width, measured once when it is added: a list of 1,000 jobs
 * adds 10,000 cells, and with a string and two width passes of its own
 * for each, printing them took 13.2 M instructions (now 7.1 M), all of
 * it after the last answer has come.
 */
#define NOCELL	UINT32_MAX

/*
 * Eight bytes, not sixteen: "list -A" over 100,000 jobs holds 1.1
 * million cells at once, and their offsets and widths fit in 32 bits
 * (a table's text over 4 GiB ends the program: rai_table_add).
 */
struct cell {
	uint32_t at;		/* in text, or NOCELL */
	uint32_t width;
};

struct rai_table {
	const struct rai_col	*cols;
	size_t			 ncols;		/* in the definition */
	size_t			*shown;		/* cols[] index of shown ones */
	size_t			 nshown;
	struct cell		*cells;		/* nrows * nshown, row by row */
	struct rai_buf		 text;		/* the cells' NUL-ended texts */
	size_t			 nrows;
	size_t			 cap_rows;	/* rows cells has room for */
	size_t			 next;		/* cols[] index of next cell */
	int			 open;		/* last row takes more cells */
	unsigned		 style;		/* RAI_TABLE_* */
};

struct rai_table *
rai_table_new(const struct rai_col *cols, int wide)
{
	struct rai_table *t = xcalloc(1, sizeof(*t));
	size_t i;

	t->cols = cols;
	while (cols[t->ncols].header != NULL)
		t->ncols++;
	t->shown = xcalloc(t->ncols + 1, sizeof(*t->shown));
	for (i = 0; i < t->ncols; i++)
		if (wide || !(cols[i].flags & RAI_COL_WIDE))
			t->shown[t->nshown++] = i;
	rai_buf_init(&t->text, (size_t)-1);
	return t;
}

static void
table_open_row(struct rai_table *t)
{
	size_t k, first;

	if (t->open)
		return;
	if (t->nrows == t->cap_rows) {	/* geometric: no copy per row */
		t->cap_rows = t->cap_rows ? t->cap_rows * 2 : 16;
		t->cells = xreallocarray(t->cells, t->cap_rows *
		    (t->nshown + 1), sizeof(*t->cells));
	}
	first = t->nrows * t->nshown;
	for (k = 0; k < t->nshown; k++) {
		t->cells[first + k].at = NOCELL;
		t->cells[first + k].width = 0;
	}
	t->nrows++;
	t->next = 0;
	t->open = 1;
}

/* Where cell `def` of the open row goes, or NULL for a hidden column. */
static struct cell *
table_slot(struct rai_table *t, size_t def)
{
	size_t k;

	for (k = 0; k < t->nshown; k++)
		if (t->shown[k] == def)
			return &t->cells[(t->nrows - 1) * t->nshown + k];
	return NULL;
}

/* Printable ASCII alone: the text is its own sanitised form. */
static int
plain_ascii(const char *s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u >= 0x20 && *u < 0x7f)
		u++;
	*len = (size_t)(u - (const unsigned char *)s);
	return *u == '\0';
}

void
rai_table_add(struct rai_table *t, const char *s)
{
	struct cell *slot;
	char *safe;
	size_t len;

	table_open_row(t);
	if (t->next < t->ncols && (slot = table_slot(t, t->next)) != NULL) {
		if (s == NULL)
			s = "";
		/* a cell given again leaves its first text unused */
		if (t->text.len >= NOCELL)
			rai_die("a table of more than 4 GiB of text");
		slot->at = (uint32_t)t->text.len;
		if (plain_ascii(s, &len)) {
			rai_buf_add(&t->text, s, len + 1);
		} else {
			safe = rai_text_sanitize(s);
			len = strlen(safe);
			rai_buf_add(&t->text, safe, len + 1);
			len = display_width(safe);
			free(safe);
		}
		/* a width is at most the length, which is under 4 GiB */
		slot->width = (uint32_t)len;
	}
	t->next++;
}

void
rai_table_addf(struct rai_table *t, const char *fmt, ...)
{
	va_list ap;
	char small[128], *s;
	int n;

	/* cells are short: one formatting pass into the stack mostly */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(small)) {
		rai_table_add(t, small);
		return;
	}
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	rai_table_add(t, s);
	free(s);
}

void
rai_table_end_row(struct rai_table *t)
{
	table_open_row(t);
	t->open = 0;
}

void
rai_table_style(struct rai_table *t, unsigned style)
{
	t->style = style;
}

size_t
rai_table_rows(const struct rai_table *t)
{
	return t->nrows;
}

void
rai_table_free(struct rai_table *t)
{
	if (t == NULL)
		return;
	rai_buf_release(&t->text);
	free(t->cells);
	free(t->shown);
	free(t);
}

static const struct rai_col *
shown_col(const struct rai_table *t, size_t k)
{
	return &t->cols[t->shown[k]];
}

static int
same_group(const struct rai_col *a, const struct rai_col *b)
{
	if (a->group == NULL || b->group == NULL)
		return a->group == b->group;
	return strcmp(a->group, b->group) == 0;
}

static int
table_grouped(const struct rai_table *t)
{
	size_t k;

	for (k = 0; k < t->nshown; k++)
		if (shown_col(t, k)->group != NULL)
			return 1;
	return 0;
}

/* Shown column k begins a new group: its cells carry the separator. */
static int
starts_group(const struct rai_table *t, size_t k, int grouped)
{
	return grouped && k > 0 &&
	    !same_group(shown_col(t, k - 1), shown_col(t, k));
}

/* The group row's cell over column k: a title where a group begins. */
static const char *
group_title(const struct rai_table *t, size_t k)
{
	const struct rai_col *c = shown_col(t, k);

	if (c->group == NULL || (k > 0 && same_group(shown_col(t, k - 1), c)))
		return "";
	return c->group;
}

static const char *
cell(const struct rai_table *t, size_t row, size_t k)
{
	const struct cell *c = &t->cells[row * t->nshown + k];

	return c->at != NOCELL ? t->text.data + c->at : "";
}

static size_t
cell_width(const struct rai_table *t, size_t row, size_t k)
{
	return t->cells[row * t->nshown + k].width;
}

/* Each column as wide as its widest cell, separator included. */
static size_t *
column_widths(const struct rai_table *t, int grouped)
{
	size_t *w = xcalloc(t->nshown + 1, sizeof(*w));
	size_t k, r, x, sep;

	for (k = 0; k < t->nshown; k++) {
		sep = starts_group(t, k, grouped) ? GROUP_SEP_WIDTH : 0;
		/* a header left out takes no room */
		w[k] = (t->style & RAI_TABLE_NO_HEADER) ? 0 :
		    display_width(shown_col(t, k)->header);
		if (grouped && (x = display_width(group_title(t, k))) > w[k])
			w[k] = x;
		for (r = 0; r < t->nrows; r++)
			if ((x = cell_width(t, r, k)) > w[k])
				w[k] = x;
		w[k] += sep;
	}
	return w;
}

static void
put_spaces(struct rai_buf *b, size_t n)
{
	static const char spaces[] = "                                ";
	size_t k;

	/* a few calls a cell, not one a space: a row pads about 80 */
	for (; n > 0; n -= k) {
		k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		rai_buf_add(b, spaces, k);
	}
}

/*
 * One line of cells; the last column gets no padding. Group titles
 * are always left-aligned (align = 0).
 */
static void
table_line(const struct rai_table *t, const size_t *w, int grouped,
    int align, const char *const *cells, const size_t *widths,
    struct rai_buf *b)
{
	size_t k, sep, fill;
	int right;

	for (k = 0; k < t->nshown; k++) {
		sep = starts_group(t, k, grouped) ? GROUP_SEP_WIDTH : 0;
		fill = w[k] - sep - widths[k];
		right = align && (shown_col(t, k)->flags & RAI_COL_RIGHT);
		if (sep)
			rai_buf_addstr(b, GROUP_SEP);
		if (right)
			put_spaces(b, fill);
		rai_buf_addstr(b, cells[k]);
		if (k + 1 == t->nshown)
			break;
		put_spaces(b, (right ? 0 : fill) + COL_PADDING);
	}
}

/* The titles over column groups; blanks at its end are not written. */
static void
group_line(const struct rai_table *t, const size_t *w,
    const char **cells, size_t *widths, struct rai_buf *b)
{
	size_t k;

	for (k = 0; k < t->nshown; k++) {
		cells[k] = group_title(t, k);
		widths[k] = display_width(cells[k]);
	}
	table_line(t, w, 1, 0, cells, widths, b);
	while (b->len > 0 && b->data[b->len - 1] == ' ')
		b->data[--b->len] = '\0';
	rai_buf_addch(b, '\n');
}

/* Under the header, as wide as the table (its last column unpadded). */
static void
rule_line(const struct rai_table *t, const size_t *w, struct rai_buf *b)
{
	size_t k, width = 0;

	for (k = 0; k < t->nshown; k++)
		width += w[k] + (k + 1 < t->nshown ? COL_PADDING : 0);
	for (k = 0; k < width; k++)
		rai_buf_addstr(b, "\xe2\x94\x80");	/* U+2500 */
	rai_buf_addch(b, '\n');
}

void
rai_table_print(const struct rai_table *t, FILE *fp)
{
	const char **cells = xcalloc(t->nshown + 1, sizeof(*cells));
	size_t *widths = xcalloc(t->nshown + 1, sizeof(*widths));
	struct rai_buf b = RAI_BUF_INIT;
	int grouped = table_grouped(t);
	size_t *w = column_widths(t, grouped), k, r;

	rai_buf_init(&b, (size_t)-1);
	if (!(t->style & RAI_TABLE_NO_HEADER)) {
		if (grouped)
			group_line(t, w, cells, widths, &b);
		for (k = 0; k < t->nshown; k++) {
			cells[k] = shown_col(t, k)->header;
			widths[k] = display_width(cells[k]);
		}
		table_line(t, w, grouped, 1, cells, widths, &b);
		rai_buf_addch(&b, '\n');
		if (t->style & RAI_TABLE_RULE)
			rule_line(t, w, &b);
	}
	/* line by line: a table of 10,000 rows is not built twice over */
	for (r = 0; r < t->nrows; r++) {
		if (b.len >= TABLE_FLUSH) {
			fwrite(b.data, 1, b.len, fp);
			rai_buf_reset(&b);
		}
		for (k = 0; k < t->nshown; k++) {
			cells[k] = cell(t, r, k);
			widths[k] = cell_width(t, r, k);
		}
		table_line(t, w, grouped, 1, cells, widths, &b);
		rai_buf_addch(&b, '\n');
	}
	fwrite(b.data, 1, b.len, fp);
	rai_buf_release(&b);
	free(w);
	free(widths);
	free(cells);
}

/* ---- JSON ---- */

static void
json_string(FILE *fp, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;
	long cp;

	fputc('"', fp);
	while (*u != '\0') {
		n = rai_utf8_next(u, &cp);
		if (cp < 0)
			fputs("\\ufffd", fp);	/* keep the output valid JSON */
		else if (*u == '"' || *u == '\\')
			fprintf(fp, "\\%c", *u);
		else if (*u == '\n')
			fputs("\\n", fp);
		else if (*u == '\r')
			fputs("\\r", fp);
		else if (*u == '\t')
			fputs("\\t", fp);
		else if (*u < 0x20)
			fprintf(fp, "\\u%04x", *u);
		else if (rai_text_unsafe(cp))
			/* DEL, C1 (U+009B is CSI), bidi: escaped, same value */
			fprintf(fp, "\\u%04lx", cp);
		else
			fwrite(u, 1, n, fp);
		u += n;
	}
	fputc('"', fp);
}

/*
 * Numbers as Go's encoding/json writes them (kubectl's -o json):
 * integers without a fraction, others in the shortest form that reads
 * back to the same double, exponents only outside [1e-6, 1e21).
 */
static void
json_number(FILE *fp, double v)
{
	char buf[64], *e;
	int prec;

	if (!isfinite(v)) {
		fputs("null", fp);
		return;
	}
	if (v == floor(v) && fabs(v) < 1e21) {
		fprintf(fp, "%.0f", v);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (fabs(v) >= 1e-6 && fabs(v) < 1e21 && strchr(buf, 'e') != NULL) {
		/* %g chose an exponent that Go would not: write it out */
		int fraction = prec - 1 - (int)floor(log10(fabs(v)));

		snprintf(buf, sizeof(buf), "%.*f", fraction > 0 ? fraction : 0, v);
	}
	if ((e = strchr(buf, 'e')) != NULL && e[1] == '-' && e[2] == '0')
		memmove(e + 2, e + 3, strlen(e + 3) + 1);	/* e-07: e-7 */
	fputs(buf, fp);
}

static void
json_indent(FILE *fp, int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		fputs("    ", fp);
}

static void
json_value(FILE *fp, const cJSON *j, int depth)
{
	const cJSON *c;
	int obj;

	if (j == NULL || cJSON_IsNull(j) || cJSON_IsInvalid(j)) {
		fputs("null", fp);
	} else if (cJSON_IsFalse(j)) {
		fputs("false", fp);
	} else if (cJSON_IsTrue(j)) {
		fputs("true", fp);
	} else if (cJSON_IsNumber(j)) {
		json_number(fp, j->valuedouble);
	} else if (cJSON_IsString(j)) {
		json_string(fp, j->valuestring ? j->valuestring : "");
	} else if (cJSON_IsRaw(j)) {
		fputs(j->valuestring ? j->valuestring : "null", fp);
	} else {
		obj = cJSON_IsObject(j);
		if (j->child == NULL) {
			fputs(obj ? "{}" : "[]", fp);
			return;
		}
		fputs(obj ? "{\n" : "[\n", fp);
		for (c = j->child; c != NULL; c = c->next) {
			json_indent(fp, depth + 1);
			if (obj) {
				json_string(fp, c->string ? c->string : "");
				fputs(": ", fp);
			}
			json_value(fp, c, depth + 1);
			fputs(c->next != NULL ? ",\n" : "\n", fp);
		}
		json_indent(fp, depth);
		fputc(obj ? '}' : ']', fp);
	}
}

void
rai_out_json(FILE *fp, const cJSON *j)
{
	json_value(fp, j, 0);
	fputc('\n', fp);
}

int
rai_out_yaml(FILE *fp, const cJSON *j, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_buf_init(&b, (size_t)-1);
	if (rai_yaml_emit(j, &b, err) == -1) {
		rai_buf_release(&b);
		return -1;
	}
	if (b.len > 0)
		fwrite(b.data, 1, b.len, fp);
	rai_buf_release(&b);
	return 0;
}

int
rai_out_doc(FILE *fp, enum rai_out_fmt fmt, const cJSON *j,
    struct rai_err *err)
{
	if (fmt == RAI_OUT_YAML)
		return rai_out_yaml(fp, j, err);
	rai_out_json(fp, j);
	return 0;
}

/* ---- time ---- */

const char *
rai_out_age(time_t t, time_t now, char buf[16])
{
	return rai_fmt_age(t, now, buf);
}

int
rai_out_color(FILE *fp)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(fp)) && (nc == NULL || *nc == '\0');
}
