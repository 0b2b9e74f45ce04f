/*
 * The CLI v2's "key=value,word,..." flag values: one splitter, and the
 * meaning of each flag of that form submit's spec carries (see
 * submit_kv.h). Every check of such a value is here, so the offline
 * check and both renderers agree on what is valid.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "kube/quantity.h"
#include "runai/submit_kv.h"

#include "core/banned.h"

static int
in_list(const char *const *list, const char *s, size_t len)
{
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (strlen(list[i]) == len && strncmp(list[i], s, len) == 0)
			return 1;
	return 0;
}

/* "server=, path=, mountpath=, readwrite": what the flag takes. */
static void
describe_keys(struct rai_buf *b, const char *const *keys,
    const char *const *words)
{
	size_t i;

	for (i = 0; keys[i] != NULL; i++)
		rai_buf_addf(b, "%s%s=", b->len ? ", " : "", keys[i]);
	for (i = 0; words != NULL && words[i] != NULL; i++)
		rai_buf_addf(b, "%s%s", b->len ? ", " : "", words[i]);
}

static int
unknown_part(const char *flag, const char *arg, const char *part,
    const char *const *keys, const char *const *words, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;

	describe_keys(&b, keys, words);
	rai_err_set(err, RAI_E_USAGE, "%s '%s': unknown part '%s' (it takes "
	    "%s)", flag, arg, part, rai_buf_str(&b));
	rai_buf_release(&b);
	return -1;
}

static int
add_part(const char *flag, const char *arg, char *part,
    const char *const *keys, const char *const *words, struct rai_kv *kv,
    struct rai_err *err)
{
	char *eq = strchr(part, '=');
	size_t klen = eq != NULL ? (size_t)(eq - part) : strlen(part);

	if (eq != NULL ? !in_list(keys, part, klen) :
	    !in_list(words, part, klen))
		return unknown_part(flag, arg, part, keys, words, err);
	if (eq != NULL && eq[1] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "%s '%s': %.*s= has no "
		    "value", flag, arg, (int)klen, part);
	if (eq != NULL)
		*eq = '\0';
	if (rai_kv_get(kv, part) != NULL || rai_kv_has(kv, part))
		return rai_err_set(err, RAI_E_USAGE, "%s '%s': %s given twice",
		    flag, arg, part);
	if (kv->n == RAI_KV_MAX)
		return rai_err_set(err, RAI_E_USAGE, "%s '%s': too many parts",
		    flag, arg);
	kv->key[kv->n] = part;
	kv->value[kv->n] = eq != NULL ? eq + 1 : NULL;
	kv->n++;
	return 0;
}

int
rai_kv_parse(const char *flag, const char *arg, const char *const *keys,
    const char *const *words, struct rai_kv *kv, struct rai_err *err)
{
	char *p, *comma;

	memset(kv, 0, sizeof(*kv));
	kv->buf = xstrdup(arg);
	for (p = kv->buf; ; p = comma + 1) {
		comma = strchr(p, ',');
		if (comma != NULL)
			*comma = '\0';
		if (*p == '\0') {
			rai_kv_release(kv);
			return rai_err_set(err, RAI_E_USAGE, "%s '%s': an empty "
			    "part", flag, arg);
		}
		if (add_part(flag, arg, p, keys, words, kv, err) == -1) {
			rai_kv_release(kv);
			return -1;
		}
		if (comma == NULL)
			return 0;
	}
}

const char *
rai_kv_get(const struct rai_kv *kv, const char *key)
{
	size_t i;

	for (i = 0; i < kv->n; i++)
		if (kv->value[i] != NULL && strcmp(kv->key[i], key) == 0)
			return kv->value[i];
	return NULL;
}

int
rai_kv_has(const struct rai_kv *kv, const char *word)
{
	size_t i;

	for (i = 0; i < kv->n; i++)
		if (kv->value[i] == NULL && strcmp(kv->key[i], word) == 0)
			return 1;
	return 0;
}

void
rai_kv_release(struct rai_kv *kv)
{
	free(kv->buf);
	memset(kv, 0, sizeof(*kv));
}

/* ---- what the values mean ---- */

/* Fails with kv released: the parsers' one way out. */
static int
fail(struct rai_kv *kv)
{
	rai_kv_release(kv);
	return -1;
}

static int
need(const char *flag, const char *arg, const struct rai_kv *kv,
    const char *key, struct rai_err *err)
{
	if (rai_kv_get(kv, key) != NULL)
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "%s '%s': %s= is missing", flag,
	    arg, key);
}

static int
absolute(const char *flag, const char *arg, const char *key,
    const char *path, struct rai_err *err)
{
	if (path[0] == '/')
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "%s '%s': %s= must be an "
	    "absolute path", flag, arg, key);
}

/* Kubernetes names and keys: letters, digits, '-', '_', '.', '/'. */
static int
is_key_text(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("-_./", *s) == NULL)
			return 0;
	return 1;
}

/* An RFC 1123 label: what names a ConfigMap, Secret or volume. */
static int
is_label(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    s[i] != '-')
			return 0;
	return 1;
}

static int
is_quantity(const char *s)
{
	double v;

	return rai_quantity_parse(s, &v) == 0 && v >= 0;
}

static const char *const toleration_keys[] = { "key", "operator", "value",
	"effect", "seconds", NULL };
static const char *const effects[] = { "NoSchedule", "NoExecute",
	"PreferNoSchedule", "Any", NULL };

static int
toleration_seconds(const char *arg, const char *s, long *out,
    struct rai_err *err)
{
	char *end;

	*out = -1;
	if (s == NULL)
		return 0;
	*out = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : 0;
	if (*out < 1 || *end != '\0')
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': "
		    "seconds= must be a whole number of 1 or more", arg);
	return 0;
}

static int
check_toleration(const char *arg, const struct rai_toleration *t,
    struct rai_err *err)
{
	if (strcmp(t->op, "Equal") != 0 && strcmp(t->op, "Exists") != 0)
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': "
		    "operator= is Equal or Exists", arg);
	if (strcmp(t->op, "Equal") == 0 && t->key == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': key= "
		    "is missing (only operator=Exists tolerates every key)", arg);
	if (strcmp(t->op, "Exists") == 0 && t->value != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': "
		    "operator=Exists takes no value=", arg);
	if ((t->key != NULL && !is_key_text(t->key)) ||
	    (t->value != NULL && !is_key_text(t->value)))
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': a key "
		    "or value is letters, digits, '-', '_', '.' and '/'", arg);
	if (t->effect != NULL && !in_list(effects, t->effect, strlen(t->effect)))
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': "
		    "effect= is NoSchedule, NoExecute, PreferNoSchedule or Any",
		    arg);
	/* Kubernetes counts the seconds of an eviction only */
	if (t->seconds >= 0 && (t->effect == NULL ||
	    strcmp(t->effect, "NoExecute") != 0))
		return rai_err_set(err, RAI_E_USAGE, "--toleration '%s': "
		    "seconds= is for effect=NoExecute", arg);
	return 0;
}

int
rai_parse_toleration(const char *arg, struct rai_kv *kv,
    struct rai_toleration *t, struct rai_err *err)
{
	const char *op;

	memset(t, 0, sizeof(*t));
	if (rai_kv_parse("--toleration", arg, toleration_keys, NULL, kv,
	    err) == -1)
		return -1;
	op = rai_kv_get(kv, "operator");
	t->key = rai_kv_get(kv, "key");
	t->op = op != NULL ? op : "Equal";
	t->value = rai_kv_get(kv, "value");
	t->effect = rai_kv_get(kv, "effect");
	if (toleration_seconds(arg, rai_kv_get(kv, "seconds"), &t->seconds,
	    err) == -1 || check_toleration(arg, t, err) == -1)
		return fail(kv);
	return 0;
}

static const char *const nfs_keys[] = { "server", "path", "mountpath",
	NULL };
static const char *const nfs_words[] = { "readwrite", NULL };

int
rai_parse_nfs(const char *arg, struct rai_kv *kv, struct rai_nfs *n,
    struct rai_err *err)
{
	memset(n, 0, sizeof(*n));
	if (rai_kv_parse("--nfs", arg, nfs_keys, nfs_words, kv, err) == -1)
		return -1;
	if (need("--nfs", arg, kv, "server", err) == -1 ||
	    need("--nfs", arg, kv, "path", err) == -1 ||
	    need("--nfs", arg, kv, "mountpath", err) == -1 ||
	    absolute("--nfs", arg, "path", rai_kv_get(kv, "path"), err) == -1 ||
	    absolute("--nfs", arg, "mountpath", rai_kv_get(kv, "mountpath"),
	    err) == -1)
		return fail(kv);
	n->server = rai_kv_get(kv, "server");
	n->path = rai_kv_get(kv, "path");
	n->mount_path = rai_kv_get(kv, "mountpath");
	n->read_only = !rai_kv_has(kv, "readwrite");
	return 0;
}

static const char *const volume_keys[] = { "name", "path", NULL };
static const char *const empty_dir_keys[] = { "name", "path", "medium",
	"size-limit", NULL };

const char *
rai_named_volume_flag(enum rai_named_kind k)
{
	switch (k) {
	case RAI_VOL_CONFIGMAP:	return "--configmap-map-volume";
	case RAI_VOL_SECRET:	return "--secret-volume";
	default:		return "--empty-dir-volume";
	}
}

static int
check_empty_dir(const char *arg, const struct rai_named_volume *v,
    struct rai_err *err)
{
	if (v->medium != NULL && strcmp(v->medium, "Memory") != 0)
		return rai_err_set(err, RAI_E_USAGE, "--empty-dir-volume '%s': "
		    "medium= is Memory (or left out: the node's disk)", arg);
	if (v->size_limit != NULL && !is_quantity(v->size_limit))
		return rai_err_set(err, RAI_E_USAGE, "--empty-dir-volume '%s': "
		    "size-limit= is a quantity, e.g. 1Gi", arg);
	return 0;
}

int
rai_parse_named_volume(enum rai_named_kind k, const char *arg,
    struct rai_kv *kv, struct rai_named_volume *v, struct rai_err *err)
{
	const char *flag = rai_named_volume_flag(k);

	memset(v, 0, sizeof(*v));
	if (rai_kv_parse(flag, arg, k == RAI_VOL_EMPTYDIR ? empty_dir_keys :
	    volume_keys, NULL, kv, err) == -1)
		return -1;
	if (need(flag, arg, kv, "name", err) == -1 ||
	    need(flag, arg, kv, "path", err) == -1 ||
	    absolute(flag, arg, "path", rai_kv_get(kv, "path"), err) == -1)
		return fail(kv);
	v->name = rai_kv_get(kv, "name");
	v->path = rai_kv_get(kv, "path");
	v->medium = rai_kv_get(kv, "medium");
	v->size_limit = rai_kv_get(kv, "size-limit");
	if (!is_label(v->name)) {
		rai_err_set(err, RAI_E_USAGE, "%s '%s': name= '%s' is not a "
		    "lowercase RFC 1123 label", flag, arg, v->name);
		return fail(kv);
	}
	if (k == RAI_VOL_EMPTYDIR && check_empty_dir(arg, v, err) == -1)
		return fail(kv);
	return 0;
}

static const char *const extended_keys[] = { "resource", "quantity", NULL };

int
rai_parse_extended(const char *arg, struct rai_kv *kv, struct rai_extended *e,
    struct rai_err *err)
{
	const char *eq = strchr(arg, '=');

	memset(e, 0, sizeof(*e));
	memset(kv, 0, sizeof(*kv));
	if (strncmp(arg, "resource=", 9) == 0) {
		if (rai_kv_parse("--extended-resource", arg, extended_keys, NULL,
		    kv, err) == -1)
			return -1;
		if (need("--extended-resource", arg, kv, "quantity", err) == -1)
			return fail(kv);
		e->resource = rai_kv_get(kv, "resource");
		e->quantity = rai_kv_get(kv, "quantity");
	} else if (eq != NULL && eq != arg) {
		kv->buf = xstrdup(arg);
		kv->buf[eq - arg] = '\0';
		e->resource = kv->buf;
		e->quantity = kv->buf + (eq - arg) + 1;
	}
	if (e->resource == NULL || !is_key_text(e->resource) ||
	    strchr(e->resource, '/') == NULL || !is_quantity(e->quantity)) {
		rai_err_set(err, RAI_E_USAGE, "--extended-resource '%s': give "
		    "RESOURCE=QUANTITY, the resource a domain-qualified name "
		    "(e.g. example.com/fpga=1)", arg);
		return fail(kv);
	}
	return 0;
}

int
rai_parse_groups(const char *arg, long *ids, size_t max, size_t *n,
    struct rai_err *err)
{
	const char *p = arg;
	char *end;

	*n = 0;
	for (;;) {
		if (!isdigit((unsigned char)*p) || *n == max)
			break;
		ids[(*n)++] = strtol(p, &end, 10);
		if (ids[*n - 1] < 0 || ids[*n - 1] > 0x7fffffffL ||
		    (*end != ',' && *end != '\0'))
			break;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
	return rai_err_set(err, RAI_E_USAGE, "--supplemental-groups '%s': give "
	    "up to %zu group ids separated by ',', e.g. 100,200", arg, max);
}

/* One quoted part of a word, from just after its opening quote q. */
static const char *
quoted(const char *p, char q, struct rai_buf *w)
{
	for (; *p != '\0' && *p != q; p++) {
		if (q == '"' && *p == '\\' && p[1] != '\0' &&
		    strchr("\"\\$`", p[1]) != NULL)
			p++;
		rai_buf_addch(w, *p);
	}
	return *p == q ? p + 1 : NULL;
}

int
rai_split_words(const char *flag, const char *s, struct rai_strv *out,
    struct rai_err *err)
{
	struct rai_buf w = RAI_BUF_INIT;
	const char *p = s;
	int in_word = 0;

	while (p != NULL && *p != '\0') {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (in_word)
				rai_strv_push(out, rai_buf_str(&w));
			rai_buf_reset(&w);
			in_word = 0;
			p++;
			continue;
		}
		in_word = 1;
		if (*p == '\'' || *p == '"')
			p = quoted(p + 1, *p, &w);
		else if (*p == '\\' && p[1] != '\0') {
			rai_buf_addch(&w, p[1]);
			p += 2;
		} else
			rai_buf_addch(&w, *p++);
	}
	if (p == NULL) {
		rai_buf_release(&w);
		return rai_err_set(err, RAI_E_USAGE, "%s '%s': a quote is not "
		    "closed", flag, s);
	}
	if (in_word)
		rai_strv_push(out, rai_buf_str(&w));
	rai_buf_release(&w);
	return 0;
}
