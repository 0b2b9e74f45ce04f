/*
 * generate-values: the key-path template and the YAML it becomes. No
 * I/O here. The input checks are values_check.c's and the TLS material
 * check values_tls.c's; they share only adm/values.h, which declares
 * all three, and this file's adm_values_find_mem.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "adm/values.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/text.h"

#include "core/banned.h"

/*
 * Whether every number in a value is finite: cJSON reads 1e999 as
 * infinity and writes it back as null, which would change the value
 * without a word (found by fuzz_values).
 */
static int
all_finite(const cJSON *j)
{
	const cJSON *c;

	if (cJSON_IsNumber(j))
		return isfinite(j->valuedouble);
	for (c = j->child; c != NULL; c = c->next)
		if (!all_finite(c))
			return 0;
	return 1;
}

/* memmem(3) is a GNU extension; the build is POSIX plus _DEFAULT_SOURCE. */
const char *
adm_values_find_mem(const char *hay, size_t hlen, const char *needle,
    size_t nlen)
{
	size_t i;

	if (nlen == 0)
		return hay;
	for (i = 0; i + nlen <= hlen; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
			return hay + i;
	return NULL;
}

/* ---- the template ---- */

enum vtype { V_STR, V_BOOL, V_LIST };

struct var {
	const char		*name;
	enum vtype		 type;
	const char		*s;
	int			 b;
	const struct rai_strv	*l;
};

#define NVARS 13

static void
vars_init(struct var *v, const struct adm_values *a)
{
	int nfs = a->nfs_server != NULL && *a->nfs_server != '\0';
	int tls = a->tls_crt_b64 != NULL && *a->tls_crt_b64 != '\0';
	size_t i = 0;

	v[i++] = (struct var){ "domain", V_STR, a->domain, 0, NULL };
	v[i++] = (struct var){ "external_ips", V_LIST, NULL, 0,
	    a->external_ips };
	v[i++] = (struct var){ "tls", V_BOOL, NULL, tls, NULL };
	v[i++] = (struct var){ "tls_crt", V_STR, a->tls_crt_b64, 0, NULL };
	v[i++] = (struct var){ "tls_key", V_STR, a->tls_key_b64, 0, NULL };
	v[i++] = (struct var){ "nfs", V_BOOL, NULL, nfs, NULL };
	v[i++] = (struct var){ "nfs_server", V_STR, a->nfs_server, 0, NULL };
	v[i++] = (struct var){ "nfs_path", V_STR, a->nfs_path, 0, NULL };
	v[i++] = (struct var){ "airgapped", V_BOOL, NULL, a->airgapped ||
	    (a->registry != NULL && *a->registry != '\0'), NULL };
	v[i++] = (struct var){ "registry", V_STR, a->registry, 0, NULL };
	v[i++] = (struct var){ "registry_secret", V_STR, a->registry_secret, 0,
	    NULL };
	v[i++] = (struct var){ "openshift", V_BOOL, NULL, a->openshift, NULL };
	v[i++] = (struct var){ "first_admin", V_STR, a->first_admin, 0, NULL };
}

static const struct var *
var_find(const struct var *v, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NVARS; i++)
		if (strlen(v[i].name) == len &&
		    memcmp(v[i].name, name, len) == 0)
			return &v[i];
	return NULL;
}

static int
var_isset(const struct var *v)
{
	switch (v->type) {
	case V_STR:
		return v->s != NULL && *v->s != '\0';
	case V_BOOL:
		return v->b;
	case V_LIST:
		return v->l != NULL && v->l->n > 0;
	}
	return 0;
}

/* The variable's value as a JSON item (bool always; see var_isset). */
static cJSON *
var_json(const struct var *v)
{
	cJSON *a;
	size_t i;

	switch (v->type) {
	case V_STR:
		return cJSON_CreateString(v->s);
	case V_BOOL:
		return cJSON_CreateBool(v->b);
	case V_LIST:
		a = cJSON_CreateArray();
		for (i = 0; v->l != NULL && i < v->l->n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(v->l->v[i]));
		return a;
	}
	return cJSON_CreateNull();
}

/* The text a variable puts inside a JSON string (escaped, no quotes). */
static void
var_text(const struct var *v, struct rai_buf *out)
{
	struct rai_buf t = RAI_BUF_INIT;
	cJSON *s;
	char *p;
	size_t i;

	if (v->type == V_BOOL) {
		rai_buf_addstr(out, v->b ? "true" : "false");
		return;
	}
	if (v->type == V_LIST)
		for (i = 0; v->l != NULL && i < v->l->n; i++)
			rai_buf_addf(&t, "%s%s", i ? "," : "", v->l->v[i]);
	else
		rai_buf_addstr(&t, v->s);
	s = cJSON_CreateString(rai_buf_str(&t));
	p = cJSON_PrintUnformatted(s);
	if (p == NULL)
		rai_die("out of memory");
	rai_buf_add(out, p + 1, strlen(p) - 2);
	cJSON_free(p);
	cJSON_Delete(s);
	rai_buf_release_secret(&t);
}

/*
 * KEY.PATH at *pp: segments into segs; stops at '=' or a blank. NULL
 * on success, else why.
 */
static const char *
parse_path(const char **pp, struct rai_strv *segs)
{
	struct rai_buf seg = RAI_BUF_INIT;
	const char *p = *pp;

	for (;;) {
		rai_buf_reset(&seg);
		if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '\n') {
					rai_buf_release(&seg);
					return "unterminated quoted key";
				}
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				rai_buf_addch(&seg, *p);
			}
			p++;
		} else {
			while (isalnum((unsigned char)*p) || *p == '_' ||
			    *p == '-')
				rai_buf_addch(&seg, *p++);
		}
		if (seg.len == 0) {
			rai_buf_release(&seg);
			return "empty key in the key path";
		}
		rai_strv_push(segs, rai_buf_str(&seg));
		if (*p != '.')
			break;
		p++;
	}
	rai_buf_release(&seg);
	*pp = p;
	return NULL;
}

/* Sets the value (taken) at the key path; NULL or why. */
static const char *
tree_set(cJSON *root, const struct rai_strv *segs, cJSON *val)
{
	cJSON *cur = root, *c;
	size_t i;

	for (i = 0; i + 1 < segs->n; i++) {
		c = cJSON_GetObjectItemCaseSensitive(cur, segs->v[i]);
		if (c == NULL) {
			c = cJSON_CreateObject();
			cJSON_AddItemToObject(cur, segs->v[i], c);
		} else if (!cJSON_IsObject(c)) {
			cJSON_Delete(val);
			return "a key on the path already holds a value";
		}
		cur = c;
	}
	c = cJSON_GetObjectItemCaseSensitive(cur, segs->v[i]);
	if (c != NULL && cJSON_IsObject(c) && c->child != NULL &&
	    !cJSON_IsObject(val)) {
		cJSON_Delete(val);
		return "the key already holds a map of other keys";
	}
	if (c != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(cur, segs->v[i], val);
	else
		cJSON_AddItemToObject(cur, segs->v[i], val);
	return NULL;
}

static int
tmpl_err(struct rai_err *err, const char *name, int line, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
tmpl_err(struct rai_err *err, const char *name, int line, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	rai_err_set(err, RAI_E_CONFIG, "template '%s' line %d: %s", name, line,
	    msg);
	free(msg);
	return -1;
}

/*
 * The value text of one line: a lone {{VAR}} gives the variable itself;
 * else {{VAR}}s are substituted and the text parsed as JSON. *skip when
 * a variable used is unset.
 */
static int
line_value(const char *val, size_t len, const struct var *vars,
    const char *name, int line, cJSON **out, int *skip, struct rai_err *err)
{
	struct rai_buf t = RAI_BUF_INIT;
	const struct var *v;
	const char *p = val, *end = val + len, *open, *close, *n;
	size_t nlen;
	cJSON *j;
	int rc = -1;

	*skip = 0;
	*out = NULL;
	while (p < end) {
		open = adm_values_find_mem(p, (size_t)(end - p), "{{", 2);
		if (open == NULL) {
			rai_buf_add(&t, p, (size_t)(end - p));
			break;
		}
		rai_buf_add(&t, p, (size_t)(open - p));
		close = adm_values_find_mem(open + 2, (size_t)(end - open - 2),
		    "}}", 2);
		if (close == NULL) {
			tmpl_err(err, name, line, "'{{' without '}}'");
			goto out;
		}
		for (n = open + 2; n < close && *n == ' '; n++)
			;
		for (nlen = (size_t)(close - n); nlen > 0 && n[nlen - 1] == ' ';
		    nlen--)
			;
		if ((v = var_find(vars, n, nlen)) == NULL) {
			tmpl_err(err, name, line, "unknown variable '%.*s'",
			    (int)nlen, n);
			goto out;
		}
		if (!var_isset(v) && v->type != V_BOOL)
			*skip = 1;
		if (open == val && close + 2 == end) {
			/* {{VAR}} alone: the typed value */
			if (!*skip)
				*out = var_json(v);
			rc = 0;
			goto out;
		}
		if (!*skip)
			var_text(v, &t);
		p = close + 2;
	}
	if (*skip) {
		rc = 0;
		goto out;
	}
	/* the length counts the NUL: nothing may follow the value */
	j = cJSON_ParseWithLengthOpts(rai_buf_str(&t), t.len + 1, NULL, 1);
	if (j == NULL) {
		tmpl_err(err, name, line, "the value is not JSON: %.*s",
		    (int)len, val);
		goto out;
	}
	if (!all_finite(j)) {
		tmpl_err(err, name, line, "a number out of range: %.*s",
		    (int)len, val);
		cJSON_Delete(j);
		goto out;
	}
	*out = j;
	rc = 0;
out:
	rai_buf_release_secret(&t);
	return rc;
}

static int
template_line(cJSON *root, const char *s, size_t len, const struct var *vars,
    const char *name, int line, struct rai_err *err)
{
	struct rai_strv segs = { NULL, 0 };
	const struct var *cv;
	const char *p, *end, *why, *cond;
	char *text = xstrndup(s, len);
	cJSON *val = NULL;
	int rc = -1, keep = 1, neg = 0, skip;
	size_t n;

	p = text;
	end = text + len;
	if (*p == '?') {
		p++;
		if (*p == '!') {
			neg = 1;
			p++;
		}
		cond = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		n = (size_t)(p - cond);
		if ((cv = var_find(vars, cond, n)) == NULL) {
			tmpl_err(err, name, line, "unknown variable '%.*s' "
			    "after '?'", (int)n, cond);
			goto out;
		}
		keep = var_isset(cv) != neg;
		if (*p != ' ' && *p != '\t') {
			tmpl_err(err, name, line, "expected a blank after the "
			    "condition");
			goto out;
		}
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if ((why = parse_path(&p, &segs)) != NULL) {
		tmpl_err(err, name, line, "%s", why);
		goto out;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '=') {
		tmpl_err(err, name, line, "expected '=' after the key path");
		goto out;
	}
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		end--;
	if (end == p) {
		tmpl_err(err, name, line, "no value after '='");
		goto out;
	}
	if (line_value(p, (size_t)(end - p), vars, name, line, &val, &skip,
	    err) == -1)
		goto out;
	if (keep && !skip && (why = tree_set(root, &segs, val)) != NULL) {
		val = NULL;
		tmpl_err(err, name, line, "%s", why);
		goto out;
	}
	if (keep && !skip)
		val = NULL;
	rc = 0;
out:
	cJSON_Delete(val);
	rai_strv_release(&segs);
	rai_free_secret(text);
	return rc;
}

/*
 * Whether s[0..len) is UTF-8 throughout: a YAML reader (helm's) takes
 * nothing else, and no quoting can carry other bytes into the file.
 */
static int
utf8_valid(const char *s, size_t len)
{
	unsigned char tail[5];
	size_t i = 0, n;
	long cp;

	while (i < len) {
		if (len - i >= 4) {
			n = rai_utf8_next((const unsigned char *)s + i, &cp);
		} else {	/* rai_utf8_next reads up to a NUL */
			memcpy(tail, s + i, len - i);
			tail[len - i] = '\0';
			n = rai_utf8_next(tail, &cp);
		}
		if (cp < 0)
			return 0;
		i += n;
	}
	return 1;
}

static int
apply_set(cJSON *root, const char *arg, struct rai_err *err)
{
	struct rai_strv segs = { NULL, 0 };
	const char *p = arg, *why;
	cJSON *val;
	int rc = -1;

	if (!utf8_valid(arg, strlen(arg)))
		return rai_err_set(err, RAI_E_USAGE, "invalid --set: not UTF-8 "
		    "text");
	if ((why = parse_path(&p, &segs)) != NULL || *p != '=') {
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': %s", arg,
		    why != NULL ? why : "expected KEY.PATH=VALUE");
		goto out;
	}
	p++;
	val = cJSON_ParseWithOpts(p, NULL, 1);
	if (val != NULL && !all_finite(val)) {
		cJSON_Delete(val);
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': a number "
		    "out of range", arg);
		goto out;
	}
	if (val == NULL)
		val = cJSON_CreateString(p);
	if ((why = tree_set(root, &segs, val)) != NULL) {
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': %s", arg,
		    why);
		goto out;
	}
	rc = 0;
out:
	rai_strv_release(&segs);
	return rc;
}

/*
 * How deep values may nest: far beyond any chart's, and well inside what
 * our own YAML reader (and helm's) takes back, so every file we write
 * reads back.
 */
#define VALUES_MAX_DEPTH	128

/* Whether a tree nests deeper than limit levels; looks no deeper. */
static int
nests_deeper(const cJSON *node, int limit)
{
	const cJSON *c;

	if (limit <= 0)
		return 1;
	for (c = node->child; c != NULL; c = c->next)
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) &&
		    nests_deeper(c, limit - 1))
			return 1;
	return 0;
}

int
adm_values_build(const char *tmpl, size_t len, const char *name,
    const struct adm_values *a, const struct rai_strv *sets, cJSON **out,
    struct rai_err *err)
{
	struct var vars[NVARS];
	const char *p = tmpl, *end = tmpl + len, *nl, *s, *e;
	cJSON *root = cJSON_CreateObject();
	size_t i;
	int line = 0;

	vars_init(vars, a);
	if (memchr(tmpl, '\0', len) != NULL) {
		rai_err_set(err, RAI_E_CONFIG, "template '%s': not a text "
		    "file", name);
		goto fail;
	}
	if (!utf8_valid(tmpl, len)) {
		rai_err_set(err, RAI_E_CONFIG, "template '%s': not UTF-8 "
		    "text", name);
		goto fail;
	}
	while (p < end) {
		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl != NULL ? nl : end;
		for (s = p; s < e && (*s == ' ' || *s == '\t'); s++)
			;
		if (s < e && *s != '#' && !(e - s == 1 && *s == '\r') &&
		    template_line(root, s, (size_t)(e - s), vars, name, line,
		    err) == -1)
			goto fail;
		p = nl != NULL ? nl + 1 : end;
	}
	for (i = 0; sets != NULL && i < sets->n; i++)
		if (apply_set(root, sets->v[i], err) == -1)
			goto fail;
	if (nests_deeper(root, VALUES_MAX_DEPTH)) {
		rai_err_set(err, RAI_E_USAGE, "the values nest deeper than %d "
		    "levels", VALUES_MAX_DEPTH);
		rai_err_set_hint(err, "a --set key path or value, or the "
		    "template, nests too deep");
		goto fail;
	}
	*out = root;
	return 0;
fail:
	cJSON_Delete(root);
	return -1;
}

/* ---- YAML ---- */

static int
yaml_keyword(const char *s)
{
	static const char *const words[] = {
		"true", "false", "yes", "no", "on", "off", "y", "n", "null",
		"~", NULL
	};
	size_t i;

	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return 1;
	return 0;
}

/*
 * Plain only when no YAML 1.1 or 1.2 reader (helm's included) could
 * read it as anything but this string: a conservative character set,
 * no leading indicator, nothing number-like, no keywords.
 */
static int
plain_ok(const char *s)
{
	const char *p;

	if (*s == '\0' || !(isalpha((unsigned char)*s) || *s == '_' ||
	    *s == '/'))
		return 0;
	if (yaml_keyword(s))
		return 0;
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("-_./+=@:", *p) ==
		    NULL)
			return 0;
	return p[-1] != ':';
}

/*
 * Whether a code point may stand raw in a double-quoted YAML string and
 * read back as itself: printable ASCII and the rest of Unicode but the
 * C1 controls, the surrogates, U+FFFE and U+FFFF (which YAML readers
 * refuse), and NEL, U+2028 and U+2029 (line breaks to YAML 1.1, folded
 * into a space). (Found by fuzz_values: DEL and C1 controls from --set
 * went out raw and the file could not be read.) cJSON escapes the C0
 * controls before this is asked.
 */
static int
yaml_printable(long cp)
{
	return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff &&
	    cp != 0x2028 && cp != 0x2029) || (cp >= 0xe000 && cp <= 0xfffd) ||
	    (cp >= 0x10000 && cp <= 0x10ffff);
}

/* A JSON string's text, the code points YAML refuses as \uXXXX. */
static void
yaml_escape_rest(struct rai_buf *out, const char *json)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t n;
	long cp;

	while (*p != '\0') {
		n = rai_utf8_next(p, &cp);
		if (yaml_printable(cp))
			rai_buf_add(out, p, n);
		else	/* all below U+10000; not UTF-8 (-1) is U+FFFD */
			rai_buf_addf(out, "\\u%04lX", cp < 0 ? 0xfffdL : cp);
		p += n;
	}
}

static void
yaml_string(struct rai_buf *out, const char *s)
{
	cJSON *j;
	char *p;

	if (plain_ok(s)) {
		rai_buf_addstr(out, s);
		return;
	}
	/*
	 * JSON's escapes are a subset of YAML's double-quoted ones; cJSON
	 * escapes the C0 controls, the rest a YAML reader refuses is
	 * escaped here.
	 */
	j = cJSON_CreateString(s);
	p = cJSON_PrintUnformatted(j);
	if (p == NULL)
		rai_die("out of memory");
	yaml_escape_rest(out, p);
	cJSON_free(p);
	cJSON_Delete(j);
}

static void
yaml_scalar(struct rai_buf *out, const cJSON *n)
{
	char *p;

	if (cJSON_IsString(n)) {
		yaml_string(out, n->valuestring);
	} else if (cJSON_IsBool(n)) {
		rai_buf_addstr(out, cJSON_IsTrue(n) ? "true" : "false");
	} else if (cJSON_IsObject(n) || cJSON_IsArray(n) ||
	    cJSON_IsNumber(n)) {
		/* numbers, and nested collections as flow JSON */
		p = cJSON_PrintUnformatted(n);
		if (p == NULL)
			rai_die("out of memory");
		rai_buf_addstr(out, p);
		cJSON_free(p);
	} else {
		rai_buf_addstr(out, "null");
	}
}

static void
pad(struct rai_buf *out, int n)
{
	while (n-- > 0)
		rai_buf_addch(out, ' ');
}

static void yaml_seq(struct rai_buf *, const cJSON *, int);

/* first_inline: the caller already wrote "- " for the first key. */
static void
yaml_map(struct rai_buf *out, const cJSON *obj, int indent, int first_inline)
{
	const cJSON *c;

	for (c = obj->child; c != NULL; c = c->next) {
		if (c != obj->child || !first_inline)
			pad(out, indent);
		yaml_string(out, c->string != NULL ? c->string : "");
		if (cJSON_IsObject(c) && c->child != NULL) {
			rai_buf_addstr(out, ":\n");
			yaml_map(out, c, indent + 2, 0);
		} else if (cJSON_IsArray(c) && c->child != NULL) {
			rai_buf_addstr(out, ":\n");
			yaml_seq(out, c, indent + 2);
		} else {
			rai_buf_addstr(out, ": ");
			yaml_scalar(out, c);
			rai_buf_addch(out, '\n');
		}
	}
}

static void
yaml_seq(struct rai_buf *out, const cJSON *arr, int indent)
{
	const cJSON *c;

	for (c = arr->child; c != NULL; c = c->next) {
		pad(out, indent);
		rai_buf_addstr(out, "- ");
		if (cJSON_IsObject(c) && c->child != NULL) {
			yaml_map(out, c, indent + 2, 1);
		} else {
			yaml_scalar(out, c);
			rai_buf_addch(out, '\n');
		}
	}
}

void
adm_values_yaml(const cJSON *root, struct rai_buf *out)
{
	if (cJSON_IsObject(root) && root->child != NULL)
		yaml_map(out, root, 0, 0);
	else if (cJSON_IsArray(root) && root->child != NULL)
		yaml_seq(out, root, 0);
	else {
		yaml_scalar(out, root);
		rai_buf_addch(out, '\n');
	}
}

int
adm_values_render(const char *tmpl, size_t len, const char *name,
    const struct adm_values *a, const struct rai_strv *sets,
    struct rai_buf *out, struct rai_err *err)
{
	cJSON *root;

	if (adm_values_build(tmpl, len, name, a, sets, &root, err) == -1)
		return -1;
	rai_buf_addstr(out, "# runai-backend values, written by runai-adm "
	    "generate-values\n");
	rai_buf_addf(out, "# template: %s\n", name);
	if (a->tls_key_b64 != NULL && *a->tls_key_b64 != '\0')
		rai_buf_addstr(out, "# This file holds the TLS private key: "
		    "keep it private.\n");
	adm_values_yaml(root, out);
	cJSON_Delete(root);
	return 0;
}

/* ---- the built-in template: contrib/values/runai-backend-2.x.tmpl ---- */

const char adm_values_template_name[] = "runai-backend-2.x (built in)";
const char adm_values_template[] =
	"# runai-adm generate-values template: the runai-backend chart, Run:ai 2.4\n"
	"# to 2.12 (key paths pieced together from the Run:ai documentation\n"
	"# of those versions and a sample values file). runai-adm has this\n"
	"# text built in; another chart layout takes another file, given with\n"
	"# --template. A unit test keeps this file and the built-in copy equal.\n"
	"#\n"
	"# One key per line:\n"
	"#     [?VAR | ?!VAR] KEY.PATH = VALUE\n"
	"# KEY.PATH  keys joined by '.'; a key holding dots or spaces is written\n"
	"#           in double quotes (\"datasources.yaml\").\n"
	"# VALUE     {{VAR}} alone takes the variable's type (string, boolean or\n"
	"#           list); anything else is a JSON value (true, false, null, 3,\n"
	"#           \"text\", [], {}) in whose strings each {{VAR}} is replaced by\n"
	"#           the variable's text.\n"
	"# A line that uses a variable which is not set (an empty string, false,\n"
	"# an empty list) is left out. ?VAR keeps the line only when VAR is set,\n"
	"# ?!VAR only when it is not. A later line for the same key replaces the\n"
	"# value; keys are written in the order they first appear.\n"
	"#\n"
	"# Variables: domain, external_ips (list), tls (boolean), tls_crt, tls_key\n"
	"# (base64 of the PEM files, one line), nfs (boolean), nfs_server,\n"
	"# nfs_path, airgapped (boolean: --airgapped or --registry), registry,\n"
	"# registry_secret (the pull Secret's name, with a registry only),\n"
	"# openshift (boolean), first_admin.\n"
	"\n"
	"openshift = {{openshift}}\n"
	"pspEnabled = false\n"
	"deployment.domain = {{domain}}\n"
	"?!registry deployment.docker.repository = \"gcr.io/run-ai-prod\"\n"
	"deployment.docker.repository = \"{{registry}}/run-ai-prod\"\n"
	"backend.https.enabled = {{tls}}\n"
	"backend.https.crt = {{tls_crt}}\n"
	"backend.https.key = {{tls_key}}\n"
	"backend.isAirgapped = {{airgapped}}\n"
	"backend.privateRegistryAddress = {{registry}}\n"
	"global.imagePullSecrets = [{\"name\": \"{{registry_secret}}\"}]\n"
	"?openshift backend.openshiftIdp.enabled = true\n"
	"?openshift backend.openshiftIdp.firstAdmin = {{first_admin}}\n"
	"nginx-ingress.enabled = true\n"
	"?openshift nginx-ingress.enabled = false\n"
	"?!openshift nginx-ingress.controller.service.externalIPs = {{external_ips}}\n"
	"?nfs postgresql.persistence.storageClassName = \"\"\n"
	"postgresql.persistence.nfs.server = {{nfs_server}}\n"
	"postgresql.persistence.nfs.path = {{nfs_path}}\n"
	"?nfs thanos.receive.persistence.storageClassName = \"\"\n"
	"thanos.receive.persistence.nfs.server = {{nfs_server}}\n"
	"thanos.receive.persistence.nfs.path = {{nfs_path}}\n";
