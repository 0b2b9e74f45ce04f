/*
 * YAML <-> cJSON through libyaml's event API.
 *
 * Parsing builds the tree from events with an explicit stack, so nesting
 * depth costs heap, not C stack, and is capped (cJSON_Delete and the
 * emitter recurse). Anchored nodes stay in the tree; an alias is a deep
 * copy, counted against a budget so that a "billion laughs" document is
 * refused instead of eating the machine. Nodes that leave the tree while
 * parsing (a duplicate key's old value, the value of a "<<" merge key)
 * go to a trash list that lives until the end, so anchors pointing into
 * them stay valid.
 *
 * Plain scalars are typed with the YAML 1.2 core schema. The emitter
 * quotes every string that a YAML 1.2 or YAML 1.1 reader (kubectl uses a
 * 1.1 one) could take for another type.
 */
#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <yaml.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/text.h"
#include "core/yaml.h"

#include "core/banned.h"

#define YAML_MAX_DEPTH		512
/* Nodes that aliases and merge keys may copy, across one document. */
#define YAML_MAX_EXPANDED	100000

#define TAG_PREFIX		"tag:yaml.org,2002:"

struct yanchor {
	char		*name;
	const cJSON	*node;
	size_t		 nodes;		/* size of the subtree */
	char		*text;		/* scalars: their text, for keys */
};

struct yframe {
	cJSON		*node;		/* object or array being filled */
	char		*key;		/* objects: the key awaiting a value */
	int		 key_merge;	/* the waiting key is "<<" */
	int		 merge;		/* this node is the value of "<<" */
	char		*anchor;
};

struct ybuild {
	const char	*what;
	struct yframe	*stack;
	size_t		 depth;
	size_t		 cap;
	cJSON		*root;
	cJSON		*trash;
	struct yanchor	*anchors;
	size_t		 nanchors;
	size_t		 expanded;
	int		 done;
};

enum ytype {
	YT_STR,
	YT_NULL,
	YT_BOOL,
	YT_INT,
	YT_FLOAT,
};

/* ---- core schema resolution ---- */

static int
all_in(const char *s, const char *set)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (strchr(set, *s) == NULL)
			return 0;
	return 1;
}

static int
is_null_word(const char *s)
{
	return *s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static int
bool_word(const char *s, int *v)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
	    strcmp(s, "TRUE") == 0) {
		*v = 1;
		return 1;
	}
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
	    strcmp(s, "FALSE") == 0) {
		*v = 0;
		return 1;
	}
	return 0;
}

/* strtod in the C locale whatever LC_NUMERIC says (rntop sets a locale). */
static double
c_strtod(const char *s)
{
	char tmp[128];
	const char *dp = localeconv()->decimal_point;
	size_t i, n = strlen(s);

	if (n >= sizeof(tmp))
		return strtod(s, NULL);
	for (i = 0; i <= n; i++)
		tmp[i] = (s[i] == '.' && dp != NULL && dp[0] != '\0') ?
		    dp[0] : s[i];
	return strtod(tmp, NULL);
}

/* [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ */
static int
int_word(const char *s, double *v)
{
	const char *p = s;
	double n = 0;

	if (strncmp(s, "0o", 2) == 0 && all_in(s + 2, "01234567")) {
		for (p = s + 2; *p != '\0'; p++)
			n = n * 8 + (*p - '0');
		*v = n;
		return 1;
	}
	if (strncmp(s, "0x", 2) == 0 && all_in(s + 2,
	    "0123456789abcdefABCDEF")) {
		for (p = s + 2; *p != '\0'; p++)
			n = n * 16 + (isdigit((unsigned char)*p) ? *p - '0' :
			    tolower((unsigned char)*p) - 'a' + 10);
		*v = n;
		return 1;
	}
	if (*p == '-' || *p == '+')
		p++;
	if (!all_in(p, "0123456789"))
		return 0;
	/*
	 * rounded once, as the writer's digits were made: summing digits in
	 * a double rounds at each step past 2^53 and reads another number
	 */
	*v = c_strtod(s);
	return 1;
}

/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE][-+]?[0-9]+ )?, .inf, .nan */
static int
float_word(const char *s, double *v)
{
	const char *p = s;
	int neg = 0, digits = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (strcmp(p, ".inf") == 0 || strcmp(p, ".Inf") == 0 ||
	    strcmp(p, ".INF") == 0) {
		*v = neg ? -HUGE_VAL : HUGE_VAL;
		return 1;
	}
	if (p == s && (strcmp(p, ".nan") == 0 || strcmp(p, ".NaN") == 0 ||
	    strcmp(p, ".NAN") == 0)) {
		*v = NAN;
		return 1;
	}
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '\0')
		return 0;
	*v = c_strtod(s);
	return 1;
}

static enum ytype
resolve_plain(const char *s, double *num, int *b)
{
	if (is_null_word(s))
		return YT_NULL;
	if (bool_word(s, b))
		return YT_BOOL;
	if (int_word(s, num))
		return YT_INT;
	if (float_word(s, num))
		return YT_FLOAT;
	return YT_STR;
}

/* ---- parser ---- */

static void
build_release(struct ybuild *b)
{
	size_t i;

	for (i = 0; i < b->depth; i++) {
		free(b->stack[i].key);
		free(b->stack[i].anchor);
	}
	free(b->stack);
	for (i = 0; i < b->nanchors; i++) {
		free(b->anchors[i].name);
		free(b->anchors[i].text);
	}
	free(b->anchors);
	cJSON_Delete(b->trash);
	cJSON_Delete(b->root);
	memset(b, 0, sizeof(*b));
}

static size_t
count_nodes(const cJSON *n)
{
	const cJSON *c;
	size_t total = 1;

	for (c = n->child; c != NULL; c = c->next)
		total += count_nodes(c);
	return total;
}

static void
add_anchor(struct ybuild *b, const char *name, const cJSON *node,
    const char *text)
{
	struct yanchor *a;

	b->anchors = xreallocarray(b->anchors, b->nanchors + 1,
	    sizeof(*b->anchors));
	a = &b->anchors[b->nanchors++];
	a->name = xstrdup(name);
	a->node = node;
	a->nodes = count_nodes(node);
	a->text = text != NULL ? xstrdup(text) : NULL;
}

/* The latest definition wins: YAML lets an anchor name be reused. */
static const struct yanchor *
find_anchor(const struct ybuild *b, const char *name)
{
	size_t i;

	for (i = b->nanchors; i > 0; i--)
		if (strcmp(b->anchors[i - 1].name, name) == 0)
			return &b->anchors[i - 1];
	return NULL;
}

static void
trash(struct ybuild *b, cJSON *n)
{
	cJSON_AddItemToArray(b->trash, n);
}

/* Sets key in obj; a duplicate key's old value goes to the trash. */
static void
obj_put(struct ybuild *b, cJSON *obj, const char *key, cJSON *val)
{
	cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (old != NULL)
		trash(b, cJSON_DetachItemViaPointer(obj, old));
	cJSON_AddItemToObject(obj, key, val);
}

/* Hangs a finished or just-started node under the open container. */
static void
attach(struct ybuild *b, cJSON *n)
{
	struct yframe *top;

	if (b->depth == 0) {
		if (b->root == NULL)
			b->root = n;
		else
			trash(b, n);
		return;
	}
	top = &b->stack[b->depth - 1];
	if (cJSON_IsArray(top->node)) {
		cJSON_AddItemToArray(top->node, n);
		return;
	}
	obj_put(b, top->node, top->key, n);
	free(top->key);
	top->key = NULL;
}

static int
budget(struct ybuild *b, size_t nodes, const yaml_mark_t *m,
    struct rai_err *err)
{
	if (nodes > YAML_MAX_EXPANDED || b->expanded + nodes >
	    YAML_MAX_EXPANDED)
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "aliases expand to more than %d nodes", b->what,
		    m->line + 1, m->column + 1, YAML_MAX_EXPANDED);
	b->expanded += nodes;
	return 0;
}

/*
 * "<<: x" copies the keys of mapping x (or of each mapping in list x)
 * that the open mapping does not set itself; its own keys always win.
 */
static int
merge_into(struct ybuild *b, cJSON *dst, const cJSON *src,
    const yaml_mark_t *m, struct rai_err *err)
{
	const cJSON *c, *e;

	if (cJSON_IsArray(src)) {
		for (e = src->child; e != NULL; e = e->next)
			if (!cJSON_IsObject(e))
				break;
		if (e == NULL) {
			for (e = src->child; e != NULL; e = e->next)
				if (merge_into(b, dst, e, m, err) == -1)
					return -1;
			return 0;
		}
	}
	if (!cJSON_IsObject(src))
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "the value of a merge key '<<' must be a mapping or a list "
		    "of mappings", b->what, m->line + 1, m->column + 1);
	if (budget(b, count_nodes(src) - 1, m, err) == -1)
		return -1;
	for (c = src->child; c != NULL; c = c->next)
		if (cJSON_GetObjectItemCaseSensitive(dst, c->string) == NULL)
			cJSON_AddItemToObject(dst, c->string,
			    cJSON_Duplicate(c, 1));
	return 0;
}

static struct yframe *
top_frame(struct ybuild *b)
{
	return b->depth > 0 ? &b->stack[b->depth - 1] : NULL;
}

/* A mapping waiting for its key takes this scalar's text as the key. */
static int
wants_key(struct ybuild *b)
{
	struct yframe *top = top_frame(b);

	return top != NULL && cJSON_IsObject(top->node) && top->key == NULL;
}

static void
set_key(struct ybuild *b, const char *text, int merge)
{
	struct yframe *top = top_frame(b);

	top->key = xstrdup(text);
	top->key_merge = merge;
}

static int
scalar_node(struct ybuild *b, const yaml_event_t *ev, const char *text,
    cJSON **out, struct rai_err *err)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	const yaml_mark_t *m = &ev->start_mark;
	enum ytype t = YT_STR;
	double num = 0;
	int bv = 0;

	if (tag == NULL || strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) != 0) {
		/* Untagged, "!" or an application tag: typed by its style. */
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    (tag == NULL || strcmp(tag, "!") != 0))
			t = resolve_plain(text, &num, &bv);
	} else {
		tag += strlen(TAG_PREFIX);
		if (strcmp(tag, "null") == 0)
			t = YT_NULL;
		else if (strcmp(tag, "bool") == 0) {
			if (!bool_word(text, &bv))
				goto bad;
			t = YT_BOOL;
		} else if (strcmp(tag, "int") == 0) {
			if (!int_word(text, &num))
				goto bad;
			t = YT_INT;
		} else if (strcmp(tag, "float") == 0) {
			if (!int_word(text, &num) && !float_word(text, &num))
				goto bad;
			t = YT_FLOAT;
		}
	}
	switch (t) {
	case YT_NULL:
		*out = cJSON_CreateNull();
		break;
	case YT_BOOL:
		*out = cJSON_CreateBool(bv);
		break;
	case YT_INT:
	case YT_FLOAT:
		*out = cJSON_CreateNumber(num);
		break;
	default:
		*out = cJSON_CreateString(text);
		break;
	}
	if (*out == NULL)
		rai_die("out of memory");
	return 0;
bad:
	return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: '%s' "
	    "is not a valid !!%s", b->what, m->line + 1, m->column + 1, text,
	    tag);
}

static int
on_scalar(struct ybuild *b, const yaml_event_t *ev, struct rai_err *err)
{
	const char *text = (const char *)ev->data.scalar.value;
	const char *anchor = (const char *)ev->data.scalar.anchor;
	struct yframe *top = top_frame(b);
	cJSON *n = NULL;

	if (strlen(text) != ev->data.scalar.length)
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "NUL character in a scalar", b->what,
		    ev->start_mark.line + 1, ev->start_mark.column + 1);
	if (wants_key(b)) {
		set_key(b, text, ev->data.scalar.style ==
		    YAML_PLAIN_SCALAR_STYLE && ev->data.scalar.tag == NULL &&
		    strcmp(text, "<<") == 0);
		if (anchor != NULL) {
			n = cJSON_CreateString(text);
			trash(b, n);
			add_anchor(b, anchor, n, text);
		}
		return 0;
	}
	if (top != NULL && top->key_merge)
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "the value of a merge key '<<' must be a mapping or a list "
		    "of mappings", b->what, ev->start_mark.line + 1,
		    ev->start_mark.column + 1);
	if (scalar_node(b, ev, text, &n, err) == -1)
		return -1;
	attach(b, n);
	if (anchor != NULL)
		add_anchor(b, anchor, n, text);
	return 0;
}

static int
on_alias(struct ybuild *b, const yaml_event_t *ev, struct rai_err *err)
{
	const char *name = (const char *)ev->data.alias.anchor;
	const yaml_mark_t *m = &ev->start_mark;
	const struct yanchor *a = find_anchor(b, name);
	struct yframe *top = top_frame(b);
	cJSON *n;

	if (a == NULL)
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "unknown alias '%s'", b->what, m->line + 1, m->column + 1,
		    name);
	if (wants_key(b)) {
		if (a->text == NULL)
			return rai_err_set(err, RAI_E_PROTO, "%s: line %zu "
			    "column %zu: alias '%s' of a collection used as a "
			    "key", b->what, m->line + 1, m->column + 1, name);
		set_key(b, a->text, 0);
		return 0;
	}
	if (top != NULL && top->key_merge) {
		free(top->key);
		top->key = NULL;
		top->key_merge = 0;
		return merge_into(b, top->node, a->node, m, err);
	}
	if (budget(b, a->nodes, m, err) == -1)
		return -1;
	n = cJSON_Duplicate(a->node, 1);
	if (n == NULL)
		rai_die("out of memory");
	attach(b, n);
	return 0;
}

static int
on_start(struct ybuild *b, const yaml_event_t *ev, int mapping,
    struct rai_err *err)
{
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *anchor = mapping ? ev->data.mapping_start.anchor :
	    ev->data.sequence_start.anchor;
	struct yframe *top = top_frame(b), *f;
	cJSON *n;
	int merge = 0;

	if (wants_key(b))
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "a %s as a mapping key is not supported", b->what,
		    m->line + 1, m->column + 1, mapping ? "mapping" : "list");
	if (b->depth >= YAML_MAX_DEPTH)
		return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: "
		    "nesting deeper than %d levels", b->what, m->line + 1,
		    m->column + 1, YAML_MAX_DEPTH);
	n = mapping ? cJSON_CreateObject() : cJSON_CreateArray();
	if (n == NULL)
		rai_die("out of memory");
	if (top != NULL && top->key_merge) {
		/* Built aside, merged into the parent when complete. */
		free(top->key);
		top->key = NULL;
		top->key_merge = 0;
		trash(b, n);
		merge = 1;
	} else
		attach(b, n);
	if (b->depth == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->stack = xreallocarray(b->stack, b->cap, sizeof(*b->stack));
	}
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	f->merge = merge;
	f->anchor = anchor != NULL ? xstrdup((const char *)anchor) : NULL;
	return 0;
}

static int
on_end(struct ybuild *b, const yaml_event_t *ev, struct rai_err *err)
{
	struct yframe f;

	if (b->depth == 0)
		return rai_err_set(err, RAI_E_INTERNAL, "yaml: unbalanced end");
	f = b->stack[--b->depth];
	free(f.key);
	if (f.anchor != NULL) {
		add_anchor(b, f.anchor, f.node, NULL);
		free(f.anchor);
	}
	if (f.merge)
		return merge_into(b, b->stack[b->depth - 1].node, f.node,
		    &ev->start_mark, err);
	return 0;
}

static int
on_event(struct ybuild *b, const yaml_event_t *ev, struct rai_err *err)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev, err);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev, err);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, ev, 0, err);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, ev, 1, err);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(b, ev, err);
	case YAML_DOCUMENT_END_EVENT:
	case YAML_STREAM_END_EVENT:
		b->done = 1;
		return 0;
	default:
		return 0;
	}
}

/* libyaml reader errors carry a byte offset instead of a mark. */
static void
offset_to_mark(const char *buf, size_t len, size_t off, yaml_mark_t *m)
{
	size_t i;

	m->line = m->column = 0;
	for (i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			m->line++;
			m->column = 0;
		} else
			m->column++;
	}
}

static int
parser_error(const yaml_parser_t *p, const char *buf, size_t len,
    const char *what, struct rai_err *err)
{
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		rai_die("out of memory");
	if (p->error == YAML_READER_ERROR)
		offset_to_mark(buf, len, p->problem_offset, &m);
	return rai_err_set(err, RAI_E_PROTO, "%s: line %zu column %zu: %s",
	    what, m.line + 1, m.column + 1,
	    p->problem != NULL ? p->problem : "malformed YAML");
}

int
rai_yaml_parse(const char *buf, size_t len, const char *what, cJSON **out,
    struct rai_err *err)
{
	struct ybuild b;
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = -1, r;

	memset(&b, 0, sizeof(b));
	b.what = what != NULL ? what : "yaml";
	b.trash = cJSON_CreateArray();
	if (b.trash == NULL || !yaml_parser_initialize(&p))
		rai_die("out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!b.done) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_error(&p, buf, len, b.what, err);
			goto out;
		}
		r = on_event(&b, &ev, err);
		yaml_event_delete(&ev);
		if (r == -1)
			goto out;
	}
	/* An empty document (or only comments, or a bare "~") is {}. */
	if (b.root == NULL || cJSON_IsNull(b.root)) {
		cJSON_Delete(b.root);
		b.root = cJSON_CreateObject();
		if (b.root == NULL)
			rai_die("out of memory");
	}
	*out = b.root;
	b.root = NULL;
	rc = 0;
out:
	yaml_parser_delete(&p);
	build_release(&b);
	return rc;
}

/* ---- emitter ---- */

static int
is_yaml11_word(const char *s)
{
	static const char *const words[] = {
		"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"on", "On", "ON", "off", "Off", "OFF", "<<", "=", NULL
	};
	size_t i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	return 0;
}

/*
 * Whether a plain s would read back as something other than this
 * string. Anything that starts like a number is quoted too: YAML 1.1
 * readers see octals, "1_000" and "12:30" as numbers.
 */
static int
retypes(const char *s)
{
	double num;
	int b;

	if (resolve_plain(s, &num, &b) != YT_STR || is_yaml11_word(s))
		return 1;
	if (isdigit((unsigned char)s[0]))
		return 1;
	if ((s[0] == '-' || s[0] == '+' || s[0] == '.') &&
	    (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return 1;
	return 0;
}

static void
format_number(double d, char *out, size_t size)
{
	const char *dp = localeconv()->decimal_point;
	char *p;

	if (isnan(d)) {
		snprintf(out, size, ".nan");
		return;
	}
	if (isinf(d)) {
		snprintf(out, size, "%s", d < 0 ? "-.inf" : ".inf");
		return;
	}
	if (d == floor(d) && fabs(d) < 9e18) {
		snprintf(out, size, "%lld", (long long)d);
		return;
	}
	snprintf(out, size, "%.15g", d);
	if (c_strtod(out) != d)
		snprintf(out, size, "%.17g", d);
	/* Back to '.' if the locale's decimal point is something else. */
	if (dp != NULL && dp[0] != '\0' && dp[0] != '.')
		for (p = out; *p != '\0'; p++)
			if (*p == dp[0])
				*p = '.';
}

struct yemit {
	yaml_emitter_t	e;
	yaml_event_t	ev;
};

static int
emit_ev(struct yemit *y)
{
	return yaml_emitter_emit(&y->e, &y->ev) ? 0 : -1;
}

static int
emit_scalar(struct yemit *y, const char *s, yaml_scalar_style_t style)
{
	if (!yaml_scalar_event_initialize(&y->ev, NULL, NULL,
	    (const yaml_char_t *)s, (int)strlen(s), 1, 1, style))
		return -1;
	return emit_ev(y);
}

/* Whether s holds a character a terminal would act on (C1, bidi). */
static int
has_unsafe(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	long cp;

	while (*u != '\0') {
		u += rai_utf8_next(u, &cp);
		if (cp >= 0x7f && rai_text_unsafe(cp))
			return 1;
	}
	return 0;
}

static int
emit_string(struct yemit *y, const char *s, int is_key)
{
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

	/*
	 * libyaml writes U+202E and friends raw, being printable in YAML:
	 * such strings go double-quoted, where escape_unsafe can write
	 * them as \uXXXX. libyaml itself quotes strings that cannot be
	 * plain.
	 */
	if (has_unsafe(s))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	else if (retypes(s))
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
	else if (!is_key && strchr(s, '\n') != NULL)
		style = YAML_LITERAL_SCALAR_STYLE;
	return emit_scalar(y, s, style);
}

static int
emit_node(struct yemit *y, const cJSON *n)
{
	const cJSON *c;
	char num[64];

	if (cJSON_IsObject(n)) {
		if (!yaml_mapping_start_event_initialize(&y->ev, NULL, NULL, 1,
		    n->child ? YAML_BLOCK_MAPPING_STYLE :
		    YAML_FLOW_MAPPING_STYLE) || emit_ev(y) == -1)
			return -1;
		for (c = n->child; c != NULL; c = c->next)
			if (emit_string(y, c->string ? c->string : "", 1) ==
			    -1 || emit_node(y, c) == -1)
				return -1;
		if (!yaml_mapping_end_event_initialize(&y->ev))
			return -1;
		return emit_ev(y);
	}
	if (cJSON_IsArray(n)) {
		if (!yaml_sequence_start_event_initialize(&y->ev, NULL, NULL, 1,
		    n->child ? YAML_BLOCK_SEQUENCE_STYLE :
		    YAML_FLOW_SEQUENCE_STYLE) || emit_ev(y) == -1)
			return -1;
		for (c = n->child; c != NULL; c = c->next)
			if (emit_node(y, c) == -1)
				return -1;
		if (!yaml_sequence_end_event_initialize(&y->ev))
			return -1;
		return emit_ev(y);
	}
	if (cJSON_IsString(n))
		return emit_string(y, n->valuestring, 0);
	if (cJSON_IsNumber(n)) {
		format_number(n->valuedouble, num, sizeof(num));
		return emit_scalar(y, num, YAML_PLAIN_SCALAR_STYLE);
	}
	if (cJSON_IsTrue(n))
		return emit_scalar(y, "true", YAML_PLAIN_SCALAR_STYLE);
	if (cJSON_IsFalse(n))
		return emit_scalar(y, "false", YAML_PLAIN_SCALAR_STYLE);
	if (cJSON_IsRaw(n) && n->valuestring != NULL)
		return emit_string(y, n->valuestring, 0);
	return emit_scalar(y, "null", YAML_PLAIN_SCALAR_STYLE);
}

static int
write_out(void *data, unsigned char *buf, size_t size)
{
	return rai_buf_add(data, buf, size) == 0;
}

/*
 * Rewrites C1 controls and bidi overrides from out[start] on as \uXXXX.
 * They occur only inside double-quoted scalars (emit_string), where the
 * escape reads back as the same character.
 */
static void
escape_unsafe(struct rai_buf *out, size_t start)
{
	struct rai_buf b = RAI_BUF_INIT;
	const unsigned char *u;
	size_t n;
	long cp;

	if (out->data == NULL || !has_unsafe(out->data + start))
		return;
	u = (const unsigned char *)out->data + start;
	while (*u != '\0') {
		n = rai_utf8_next(u, &cp);
		if (cp >= 0x7f && rai_text_unsafe(cp))
			rai_buf_addf(&b, "\\u%04lX", cp);
		else
			rai_buf_add(&b, u, n);
		u += n;
	}
	out->len = start;
	rai_buf_add(out, b.data, b.len);
	rai_buf_release(&b);
}

int
rai_yaml_emit(const cJSON *root, struct rai_buf *out, struct rai_err *err)
{
	struct yemit y;
	size_t start = out->len;
	int rc = -1;

	memset(&y, 0, sizeof(y));
	if (!yaml_emitter_initialize(&y.e))
		rai_die("out of memory");
	yaml_emitter_set_output(&y.e, write_out, out);
	yaml_emitter_set_unicode(&y.e, 1);
	yaml_emitter_set_width(&y.e, -1);	/* never fold long tokens */
	yaml_emitter_set_indent(&y.e, 2);
	if (!yaml_stream_start_event_initialize(&y.ev, YAML_UTF8_ENCODING) ||
	    emit_ev(&y) == -1 ||
	    !yaml_document_start_event_initialize(&y.ev, NULL, NULL, NULL, 1) ||
	    emit_ev(&y) == -1 ||
	    emit_node(&y, root) == -1 ||
	    !yaml_document_end_event_initialize(&y.ev, 1) ||
	    emit_ev(&y) == -1 ||
	    !yaml_stream_end_event_initialize(&y.ev) ||
	    emit_ev(&y) == -1 ||
	    !yaml_emitter_flush(&y.e)) {
		if (y.e.error == YAML_MEMORY_ERROR)
			rai_die("out of memory");
		if (y.e.error == YAML_WRITER_ERROR)
			rai_err_set(err, RAI_E_PROTO, "YAML output exceeds the "
			    "buffer limit of %zu bytes", out->max ? out->max :
			    RAI_BUF_DEFAULT_MAX);
		else
			rai_err_set(err, RAI_E_INTERNAL, "cannot emit YAML: %s",
			    y.e.problem != NULL ? y.e.problem :
			    "unknown error");
		/* Leave out as it was. */
		out->len = start;
		if (out->data != NULL)
			out->data[start] = '\0';
		goto out;
	}
	escape_unsafe(out, start);
	rc = 0;
out:
	yaml_emitter_delete(&y.e);
	return rc;
}
