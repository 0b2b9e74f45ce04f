/*
 * The parser of the command/option engine: walking the command tables,
 * the parse state, setting option values, finding options, and the
 * argument loop that turns argv into the command, its options struct,
 * the globals and the positionals. Usage text, man pages, completion
 * and running build on it in their own files; what they need of it is
 * declared in cli/parse.h.
 *
 * Parsing is hand-written rather than getopt_long: getopt_long accepts
 * unambiguous prefixes of long options (which breaks scripts when a new
 * option arrives), keeps hidden global state between runs, and changes
 * behaviour with POSIXLY_CORRECT. Accepted forms follow pflag/cobra,
 * which is what users of kubectl and the Go runai type:
 *
 *   --name value   --name=value   -n value   -nvalue   -n=value
 *   -abc (clustered flags)   --no-name (NEGATABLE)   --   -v -vv -v=8 -v8
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/opt.h"
#include "cli/parse.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/strv.h"
#include "core/time.h"

#include "core/banned.h"

/* ---- walking the tables ---- */

const struct rai_cmd *const *
cli_children(const struct rai_prog *prog, const struct rai_cmd *cmd)
{
	return cmd != NULL ? cmd->subcmds : prog->cmds;
}

int
cli_cmd_visible(const struct rai_cmd *c)
{
	return !(c->flags & RAI_CMD_HIDDEN) && c->deprecated == NULL;
}

int
cli_opt_visible(const struct rai_opt *o)
{
	return !(o->flags & RAI_OPT_HIDDEN) && o->deprecated == NULL;
}

int
cli_cmd_deprecated(const struct rai_cmd *c)
{
	return !(c->flags & RAI_CMD_HIDDEN) && c->deprecated != NULL;
}

int
cli_opt_deprecated(const struct rai_opt *o)
{
	return !(o->flags & RAI_OPT_HIDDEN) && o->deprecated != NULL;
}

/* Exact name or an explicit alias; no prefix matching. */
const struct rai_cmd *
cli_find_child(const struct rai_cmd *const *list, const char *word)
{
	size_t i, j;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (strcmp(list[i]->name, word) == 0)
			return list[i];
		for (j = 0; list[i]->aliases && list[i]->aliases[j]; j++)
			if (strcmp(list[i]->aliases[j], word) == 0)
				return list[i];
	}
	return NULL;
}

/*
 * The command at a path of names ("list projects"; "" = the program).
 * Returns 0 and sets *cmd (NULL for the program), or -1.
 */
int
cli_resolve_path(const struct rai_prog *prog, const char *path,
    const struct rai_cmd **cmd)
{
	const struct rai_cmd *c = NULL;
	char *copy = xstrdup(path), *p = copy, *word;
	int rc = 0;

	while (rc == 0 && *p != '\0') {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		word = p;
		p += strcspn(p, " ");
		if (*p != '\0')
			*p++ = '\0';
		if ((c = cli_find_child(cli_children(prog, c), word)) == NULL)
			rc = -1;
	}
	free(copy);
	if (rc == 0)
		*cmd = c;
	return rc;
}

const struct rai_opt *
cli_cmd_opts(const struct rai_cmd *cmd)
{
	return cmd != NULL ? cmd->opts : NULL;
}

static size_t
opt_count(const struct rai_opt *t)
{
	size_t n = 0;

	while (t != NULL && t[n].long_name != NULL)
		n++;
	return n;
}

/* Does the option take its value from the next word when none is attached? */
int
cli_takes_value(const struct rai_opt *o)
{
	switch (o->type) {
	case RAI_OPT_BOOL:
	case RAI_OPT_COUNT:
	case RAI_OPT_LEVEL:
		return 0;
	case RAI_OPT_CALLBACK:
		return o->argh != NULL;
	default:
		return 1;
	}
}

/* In the --name form a level needs its value (--verbosity 8). */
static int
long_takes_value(const struct rai_opt *o)
{
	return cli_takes_value(o) || o->type == RAI_OPT_LEVEL;
}

/* ---- parse state ---- */

void
cli_parse_init(struct parse *p, const struct rai_prog *prog)
{
	memset(p, 0, sizeof(*p));
	p->prog = prog;
	p->dashdash = -1;
	rai_buf_init(&p->path, 0);
	rai_buf_init(&p->typed, 0);
	rai_buf_init(&p->named, 0);
	p->globals = xcalloc(1, prog->globals_size ? prog->globals_size : 1);
	p->gseen = xcalloc(opt_count(prog->global_opts) + 1, 1);
}

static void
release_lists(const struct rai_opt *t, void *base)
{
	size_t i;

	for (i = 0; base != NULL && t != NULL && t[i].long_name != NULL; i++)
		if (t[i].type == RAI_OPT_LIST)
			rai_strv_release((struct rai_strv *)(void *)
			    ((char *)base + t[i].offset));
}

void
cli_parse_release(struct parse *p)
{
	size_t i;

	release_lists(p->prog->global_opts, p->globals);
	release_lists(cli_cmd_opts(p->cmd), p->opts);
	for (i = 0; i < p->nsecrets; i++)
		rai_free_secret(p->secrets[i]);
	free(p->secrets);
	free(p->globals);
	free(p->opts);
	free(p->gseen);
	free(p->cseen);
	free(p->pos);
	free(p->cmd_note);
	rai_strv_release(&p->notes);
	rai_strv_release(&p->keep);
	rai_buf_release(&p->path);
	rai_buf_release(&p->typed);
	rai_buf_release(&p->named);
	rai_err_release(&p->err);
}

void
cli_parse_enter(struct parse *p, const struct rai_cmd *cmd)
{
	if (p->path.len > 0)
		rai_buf_addch(&p->path, ' ');
	rai_buf_addstr(&p->path, cmd->name);
	p->cmd = cmd;
}

/* "runai" or "runai list projects": the subject of usage messages. */
char *
cli_subject(const struct rai_prog *prog, const char *path)
{
	return *path ? xasprintf("%s %s", prog->name, path) :
	    xstrdup(prog->name);
}

static int
usage_err(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
usage_err(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	rai_err_set(&p->err, RAI_E_USAGE, "%s", msg);
	free(msg);
	return -1;
}

/* ---- setting values ---- */

static void *
field(void *base, const struct rai_opt *o)
{
	return (char *)base + o->offset;
}

static int
bad_value(struct parse *p, const struct rai_opt *o, const char *arg,
    const char *expected)
{
	return usage_err(p, "invalid value '%s' for --%s: expected %s", arg,
	    o->long_name, expected);
}

static int
parse_long_int(const char *s, long *v)
{
	char *end;

	errno = 0;
	if (*s == '\0' || isspace((unsigned char)*s))
		return -1;
	*v = strtol(s, &end, 10);
	return (*end != '\0' || errno == ERANGE) ? -1 : 0;
}

/* The words Go's strconv.ParseBool takes (--all=true, --all=0, ...). */
int
rai_opt_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "t", "T", "true", "TRUE",
	    "True", NULL };
	static const char *const no[] = { "0", "f", "F", "false", "FALSE",
	    "False", NULL };
	size_t i;

	if (s == NULL)
		return 1;
	for (i = 0; yes[i] != NULL; i++)
		if (strcmp(s, yes[i]) == 0)
			return 1;
	for (i = 0; no[i] != NULL; i++)
		if (strcmp(s, no[i]) == 0)
			return 0;
	return -1;
}

static int
set_enum(struct parse *p, const struct rai_opt *o, void *f, const char *arg)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; o->choices != NULL && o->choices[i] != NULL; i++)
		if ((o->flags & RAI_OPT_NOCASE ? strcasecmp(o->choices[i], arg) :
		    strcmp(o->choices[i], arg)) == 0) {
			*(const char **)f = o->choices[i];
			return 0;
		}
	rai_buf_addstr(&b, "one of ");
	for (i = 0; o->choices != NULL && o->choices[i] != NULL; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", o->choices[i]);
	bad_value(p, o, arg, rai_buf_str(&b));
	rai_buf_release(&b);
	return -1;
}

static int
set_callback(struct parse *p, const struct rai_opt *o, void *base,
    const char *arg)
{
	struct rai_err cerr = RAI_ERR_INIT;

	if (o->cb == NULL || o->cb(base, arg, &cerr) == 0) {
		rai_err_release(&cerr);
		return 0;
	}
	if (cerr.kind == RAI_OK)
		rai_err_set(&cerr, RAI_E_USAGE, "invalid value '%s' for --%s",
		    arg ? arg : "", o->long_name);
	rai_err_move(&p->err, &cerr);
	return -1;
}

/* A copy the engine owns; the caller's bytes in argv are wiped. */
static const char *
keep_secret(struct parse *p, const char *arg)
{
	char *copy = xstrdup(arg);

	p->secrets = xreallocarray(p->secrets, p->nsecrets + 1,
	    sizeof(*p->secrets));
	p->secrets[p->nsecrets++] = copy;
	memset((char *)(uintptr_t)arg, 0, strlen(arg));
	return copy;
}

/* Stores arg (NULL for flags) into the option's field. */
static int
set_value(struct parse *p, const struct rai_opt *o, void *base,
    const char *arg)
{
	void *f = field(base, o);
	long l;
	double d;
	char *end;

	switch (o->type) {
	case RAI_OPT_BOOL:
		if ((l = rai_opt_parse_bool(arg)) == -1)
			return bad_value(p, o, arg, "true or false");
		*(int *)f = (int)l;
		return 0;
	case RAI_OPT_COUNT:
		(*(int *)f)++;
		return 0;
	case RAI_OPT_LEVEL:
		if (arg == NULL) {
			(*(int *)f)++;
			return 0;
		}
		if (parse_long_int(arg, &l) == -1 || l < 0 || l > INT_MAX)
			return bad_value(p, o, arg, "a level 0 or higher");
		*(int *)f = (int)l;
		return 0;
	case RAI_OPT_STRING:
		*(const char **)f = arg;
		return 0;
	case RAI_OPT_INT:
		if (parse_long_int(arg, &l) == -1)
			return bad_value(p, o, arg, "an integer");
		if ((o->flags & RAI_OPT_TRISTATE) && l < 0)
			return bad_value(p, o, arg, "an integer of 0 or more");
		*(long *)f = l;
		return 0;
	case RAI_OPT_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		if (*arg == '\0' || isspace((unsigned char)*arg) ||
		    *end != '\0' || errno == ERANGE || !isfinite(d))
			return bad_value(p, o, arg, "a number");
		*(double *)f = d;
		return 0;
	case RAI_OPT_DURATION:
		if (rai_parse_duration(arg, &l, &p->err) == -1)
			return bad_value(p, o, arg, "a duration such as 90s, "
			    "5m, 2h, 1d or 1h30m");
		*(long *)f = l;
		return 0;
	case RAI_OPT_ENUM:
		return set_enum(p, o, f, arg);
	case RAI_OPT_LIST:
		rai_strv_push(f, arg);
		return 0;
	case RAI_OPT_CALLBACK:
		return set_callback(p, o, base, arg);
	}
	return rai_err_set(&p->err, RAI_E_INTERNAL, "option --%s has an "
	    "unknown type", o->long_name);
}

/* Told once per option, however often it is given. */
static void
note_deprecated_opt(struct parse *p, const struct rai_opt *o)
{
	char *note = xasprintf("option '--%s' is deprecated; %s",
	    o->long_name, o->deprecated);

	rai_strv_push(&p->notes, note);
	free(note);
}

/* A value from the command line: secrets copied, lists reset once. */
int
cli_give(struct parse *p, const struct optref *r, const char *arg)
{
	const struct rai_opt *o = r->opt;

	if (arg != NULL && (o->flags & RAI_OPT_SECRET) && !p->lenient)
		arg = keep_secret(p, arg);
	if (o->type == RAI_OPT_LIST && o->def != NULL && !*r->seen)
		rai_strv_release(field(r->base, o));
	if (o->deprecated != NULL && !*r->seen && !p->lenient)
		note_deprecated_opt(p, o);
	*r->seen = 1;
	return set_value(p, o, r->base, arg);
}

int
cli_apply_defaults(struct parse *p, const struct rai_opt *t, void *base)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		/* -1 tells "not given" from --x=false or --n=0 */
		if (t[i].flags & RAI_OPT_TRISTATE) {
			if (t[i].type == RAI_OPT_BOOL)
				*(int *)field(base, &t[i]) = -1;
			else if (t[i].type == RAI_OPT_INT ||
			    t[i].type == RAI_OPT_DURATION)
				*(long *)field(base, &t[i]) = -1;
		}
		if (t[i].def == NULL)
			continue;
		if (set_value(p, &t[i], base, t[i].def) == -1) {
			rai_err_prefix(&p->err, "bad default for --%s",
			    t[i].long_name);
			p->err.kind = RAI_E_INTERNAL;
			return -1;
		}
	}
	return 0;
}

/* ---- options from elsewhere (templates) ---- */

static const struct rai_opt *
find_long(const struct rai_opt *t, const char *name)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++)
		if (strcmp(t[i].long_name, name) == 0)
			return &t[i];
	return NULL;
}

int
rai_opt_given(const struct rai_ctx *ctx, const char *long_name)
{
	const struct rai_opt *t = cli_cmd_opts(ctx->cmd), *o;
	size_t i;

	if (ctx->given == NULL || (o = find_long(t, long_name)) == NULL)
		return 0;
	for (i = 0; t[i].long_name != NULL; i++)
		if (ctx->given[i] && t[i].offset == o->offset)
			return 1;
	return 0;
}

int
rai_opt_set(const struct rai_ctx *ctx, void *opts, const char *long_name,
    const char *value, struct rai_err *err)
{
	const struct rai_opt *o;
	struct parse p;
	int rc;

	if ((o = find_long(cli_cmd_opts(ctx->cmd), long_name)) == NULL)
		return rai_err_set(err, RAI_E_INTERNAL, "no option --%s",
		    long_name);
	memset(&p, 0, sizeof(p));
	if ((rc = set_value(&p, o, opts, value)) == -1)
		rai_err_move(err, &p.err);
	rai_err_release(&p.err);
	return rc;
}

/* ---- finding options ---- */

static int
lookup_in(const struct rai_opt *t, void *base, unsigned char *seen,
    int shortc, const char *name, size_t len, struct optref *r)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (shortc ? t[i].short_name != shortc :
		    (strlen(t[i].long_name) != len ||
		    strncmp(t[i].long_name, name, len) != 0))
			continue;
		r->opt = &t[i];
		r->base = base;
		r->seen = seen ? &seen[i] : NULL;
		return 0;
	}
	return -1;
}

/*
 * The command's own options shadow global ones of the same name, but
 * not before the command's name, where only the program's stand.
 */
int
cli_lookup(struct parse *p, int shortc, const char *name, size_t len,
    struct optref *r)
{
	if (!p->globals_only && lookup_in(cli_cmd_opts(p->cmd), p->opts,
	    p->cseen, shortc, name, len, r) == 0)
		return 0;
	return lookup_in(p->prog->global_opts, p->globals, p->gseen, shortc,
	    name, len, r);
}

/* --no-NAME for a NEGATABLE flag. */
static int
lookup_negated(struct parse *p, const char *name, size_t len,
    struct optref *r)
{
	if (len <= 3 || strncmp(name, "no-", 3) != 0 ||
	    cli_lookup(p, 0, name + 3, len - 3, r) == -1)
		return -1;
	return (r->opt->type == RAI_OPT_BOOL &&
	    (r->opt->flags & RAI_OPT_NEGATABLE)) ? 0 : -1;
}

/* Whether the table itself uses -h or --help (then they are not ours). */
static int
help_is_builtin(struct parse *p, int shortc, const char *name, size_t len)
{
	struct optref r;

	return cli_lookup(p, shortc, name, len, &r) == -1;
}

static void
add_long_names(struct rai_buf *names, const struct rai_opt *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!cli_opt_visible(&t[i]) && !cli_opt_deprecated(&t[i]))
			continue;
		rai_buf_addf(names, "--%s%c", t[i].long_name, '\0');
		if (t[i].type == RAI_OPT_BOOL &&
		    (t[i].flags & RAI_OPT_NEGATABLE))
			rai_buf_addf(names, "--no-%s%c", t[i].long_name, '\0');
	}
}

/* Splits a buffer of NUL-terminated words into an array (borrowed). */
static const char **
split_words(const struct rai_buf *b, size_t *n)
{
	const char **v = NULL;
	size_t off = 0;

	*n = 0;
	while (off < b->len) {
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = b->data + off;
		off += strlen(b->data + off) + 1;
	}
	return v;
}

static int
unknown_long(struct parse *p, const char *arg, size_t len)
{
	struct rai_buf names = RAI_BUF_INIT;
	const char **v, *s;
	char *typed = xstrndup(arg, len + 2);
	size_t n;

	add_long_names(&names, cli_cmd_opts(p->cmd));
	add_long_names(&names, p->prog->global_opts);
	rai_buf_addf(&names, "--help%c", '\0');
	v = split_words(&names, &n);
	if ((s = rai_suggest(typed, v, n)) != NULL)
		usage_err(p, "unknown option '%s'; did you mean '%s'?", typed,
		    s);
	else
		usage_err(p, "unknown option '%s'", typed);
	free(v);
	free(typed);
	rai_buf_release(&names);
	return -1;
}

/* ---- the argument loop ---- */

static void
push_pos(struct parse *p, char *arg)
{
	p->pos = xreallocarray(p->pos, (size_t)p->npos + 1, sizeof(*p->pos));
	p->pos[p->npos++] = arg;
}

/* "--name", "--name=value", "--no-name"; *i may advance past a value. */
static int
parse_long(struct parse *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const char *val = eq ? eq + 1 : NULL;
	struct optref r;

	if (len == 4 && strncmp(a, "help", 4) == 0 &&
	    help_is_builtin(p, 0, a, len)) {
		p->help = 2;
		return 0;
	}
	if (p->cmd == NULL && len == 7 && strncmp(a, "version", 7) == 0 &&
	    val == NULL && help_is_builtin(p, 0, a, len)) {
		p->version = 1;
		return 0;
	}
	if (cli_lookup(p, 0, a, len, &r) == -1) {
		if (lookup_negated(p, a, len, &r) == -1)
			return unknown_long(p, a - 2, len);
		if (val != NULL)
			return usage_err(p, "option '--%.*s' takes no value",
			    (int)len, a);
		*r.seen = 1;
		*(int *)field(r.base, r.opt) = 0;
		return 0;
	}
	if (!long_takes_value(r.opt)) {
		if (val != NULL && r.opt->type != RAI_OPT_BOOL)
			return usage_err(p, "option '--%s' takes no value",
			    r.opt->long_name);
		return cli_give(p, &r, val);
	}
	if (val == NULL) {
		if (*i + 1 >= argc)
			return usage_err(p, "option '--%s' requires a value",
			    r.opt->long_name);
		val = argv[++*i];
	}
	return cli_give(p, &r, val);
}

/* A level's value may be the next word, as kubectl's -v 6: digits only. */
static int
is_level(const char *w)
{
	return w != NULL && *w != '\0' && strspn(w, "0123456789") == strlen(w);
}

/* -v, -vv, -v=8, -v8, -v 8: the rest of the word after the letter. */
static int
short_level(struct parse *p, const struct optref *r, const char *rest,
    int argc, char **argv, int *i)
{
	size_t k;

	if (*rest == '\0' && *i + 1 < argc && is_level(argv[*i + 1]))
		return cli_give(p, r, argv[++*i]);
	if (*rest == '\0')
		return cli_give(p, r, NULL);
	if (strspn(rest, (char[]){ (char)r->opt->short_name, '\0' }) ==
	    strlen(rest)) {
		for (k = 0; k <= strlen(rest); k++)
			if (cli_give(p, r, NULL) == -1)
				return -1;
		return 0;
	}
	return cli_give(p, r, *rest == '=' ? rest + 1 : rest);
}

/* "-abc", "-ovalue", "-o=value", "-o value". */
static int
parse_short(struct parse *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	struct optref r;
	size_t j;

	for (j = 1; a[j] != '\0'; j++) {
		if (a[j] == 'h' && help_is_builtin(p, 'h', NULL, 0)) {
			p->help = 1;
			return 0;
		}
		if (cli_lookup(p, (unsigned char)a[j], NULL, 0, &r) == -1)
			return usage_err(p, "unknown option '-%c'", a[j]);
		if (r.opt->type == RAI_OPT_LEVEL)
			return short_level(p, &r, a + j + 1, argc, argv, i);
		if (!cli_takes_value(r.opt)) {
			if (cli_give(p, &r, NULL) == -1)
				return -1;
			continue;
		}
		if (a[j + 1] != '\0')
			return cli_give(p, &r, a + j + 1 + (a[j + 1] == '='));
		if (*i + 1 >= argc)
			return usage_err(p, "option '-%c' requires a value",
			    a[j]);
		return cli_give(p, &r, argv[++*i]);
	}
	return 0;
}

/* npre: how many words stand before the command's name. */
static int
parse_args(struct parse *p, int argc, char **argv, int npre)
{
	int i, dashdash = 0;

	for (i = 0; i < argc && !p->help; i++) {
		p->globals_only = i < npre;
		if (dashdash || argv[i][0] != '-' || argv[i][1] == '\0') {
			push_pos(p, argv[i]);
		} else if (strcmp(argv[i], "--") == 0) {
			dashdash = 1;
			p->dashdash = p->npos;
		} else if (argv[i][1] == '-') {
			if (parse_long(p, argc, argv, &i) == -1)
				return -1;
		} else if (parse_short(p, argc, argv, &i) == -1) {
			return -1;
		}
	}
	p->globals_only = 0;
	return 0;
}

/*
 * Whether word i of argv is an option that swallows word i+1, judged by
 * the tables known so far (unknown options are taken as flags, as cobra
 * does when it looks for the command words).
 */
int
cli_swallows_next(struct parse *p, const char *a, const char *next)
{
	struct optref r;
	size_t j;

	if (a[1] == '-')
		return strchr(a, '=') == NULL &&
		    cli_lookup(p, 0, a + 2, strlen(a + 2), &r) == 0 &&
		    long_takes_value(r.opt);
	for (j = 1; a[j] != '\0'; j++) {
		if (cli_lookup(p, (unsigned char)a[j], NULL, 0, &r) == -1)
			continue;
		if (r.opt->type == RAI_OPT_LEVEL)
			return a[j + 1] == '\0' && is_level(next);
		if (cli_takes_value(r.opt))
			return a[j + 1] == '\0';
	}
	return 0;
}

/*
 * Names of a command list for messages: the visible ones, and with
 * old_too the deprecated ones as well (a typo of an old name still
 * deserves a suggestion).
 */
static const char **
cmd_names(const struct rai_cmd *const *list, int old_too, size_t *n)
{
	const char **v = NULL;
	size_t i;

	*n = 0;
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cli_cmd_visible(list[i]) &&
		    !(old_too && cli_cmd_deprecated(list[i])))
			continue;
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = list[i]->name;
	}
	return v;
}

static int
not_a_command(struct parse *p, const char *word)
{
	const char **v, *s;
	char *subj = cli_subject(p->prog, rai_buf_str(&p->path));
	size_t n;

	v = cmd_names(cli_children(p->prog, p->cmd), 1, &n);
	if ((s = rai_suggest(word, v, n)) != NULL)
		usage_err(p, "'%s' is not a %s command; did you mean '%s'?",
		    word, subj, s);
	else
		usage_err(p, "'%s' is not a %s command", word, subj);
	free(v);
	free(subj);
	return -1;
}

/*
 * Enters c, or the command it is another name for. A deprecated name
 * leaves a note; the deepest one typed is the one told.
 */
int
cli_enter_command(struct parse *p, const struct rai_cmd *c)
{
	const struct rai_cmd *target;

	cli_parse_enter(p, c);
	if (c->deprecated != NULL) {
		free(p->cmd_note);
		p->cmd_note = xasprintf("'%s %s' is deprecated; %s",
		    p->prog->name, rai_buf_str(&p->path), c->deprecated);
	}
	if (c->forward == NULL)
		return 0;
	if (cli_resolve_path(p->prog, c->forward, &target) == -1 ||
	    target == NULL)
		return rai_err_set(&p->err, RAI_E_INTERNAL, "'%s %s' stands "
		    "for '%s', which is not a command", p->prog->name,
		    rai_buf_str(&p->path), c->forward);
	rai_buf_reset(&p->path);
	rai_buf_addstr(&p->path, c->forward);
	p->cmd = target;
	return 0;
}

void
cli_print_notes(const struct parse *p)
{
	size_t i;

	if (p->cmd_note != NULL)
		rai_warn("%s", p->cmd_note);
	for (i = 0; i < p->notes.n; i++)
		rai_warn("%s", p->notes.v[i]);
}

/*
 * "PROG help [COMMAND...]", as git and kubectl take it: the same as
 * --help (or -h) of that command, when the program has no command of
 * its own called help.
 */
static int
help_word(struct parse *p, const char *w)
{
	return p->cmd == NULL && !p->help && strcmp(w, "help") == 0 &&
	    cli_find_child(cli_children(p->prog, NULL), w) == NULL;
}

/*
 * First pass: the command words, wherever options stand between them.
 * Marks them in used[]; stops at the first word that is not a command.
 */
static int
find_command(struct parse *p, int argc, char **argv, unsigned char *used)
{
	const struct rai_cmd *c;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (help_word(p, argv[i]) && !p->lenient) {
			used[i] = 1;
			p->help = 2;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			if (cli_swallows_next(p, argv[i], i + 1 < argc ?
			    argv[i + 1] : NULL))
				i++;
			continue;
		}
		if (p->cmd != NULL && p->cmd->subcmds == NULL)
			break;
		if ((c = cli_find_child(cli_children(p->prog, p->cmd), argv[i])) ==
		    NULL) {
			if (p->cmd != NULL)
				break;
			return not_a_command(p, argv[i]);
		}
		used[i] = 1;
		if (p->typed.len > 0)
			rai_buf_addch(&p->typed, ' ');
		rai_buf_addstr(&p->typed, argv[i]);
		if (p->named.len > 0)
			rai_buf_addch(&p->named, ' ');
		rai_buf_addstr(&p->named, c->name);
		if (cli_enter_command(p, c) == -1)
			return -1;
	}
	return 0;
}

static const char *
plural(long n)
{
	return n == 1 ? "" : "s";
}

static int
check_positionals(struct parse *p)
{
	const struct rai_cmd *c = p->cmd;
	struct rai_buf b = RAI_BUF_INIT;
	const char **v;
	size_t i, n;
	int min = c->args_min, max = c->args_max;

	if (c->subcmds != NULL && p->npos > 0 &&
	    (c->run == NULL || (max >= 0 && p->npos > max)))
		return not_a_command(p, p->pos[0]);
	if (c->subcmds != NULL && c->run == NULL) {
		/* an old command's subcommands are all old ones */
		v = cmd_names(c->subcmds, c->deprecated != NULL, &n);
		for (i = 0; i < n; i++)
			rai_buf_addf(&b, "%s%s", i ? ", " : "", v[i]);
		usage_err(p, "missing command; expected one of %s",
		    rai_buf_str(&b));
		free(v);
		rai_buf_release(&b);
		return -1;
	}
	if (p->npos >= min && (max < 0 || p->npos <= max))
		return 0;
	if (min == max && min == 0)
		return usage_err(p, "expected no arguments, got %d", p->npos);
	if (min == max)
		return usage_err(p, "expected %d argument%s, got %d", min,
		    plural(min), p->npos);
	if (max < 0)
		return usage_err(p, "expected at least %d argument%s, got %d",
		    min, plural(min), p->npos);
	if (min == 0)
		return usage_err(p, "expected at most %d argument%s, got %d",
		    max, plural(max), p->npos);
	return usage_err(p, "expected %d to %d arguments, got %d", min, max,
	    p->npos);
}

static int
check_required(struct parse *p, const struct rai_opt *t,
    const unsigned char *seen)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++)
		if ((t[i].flags & RAI_OPT_REQUIRED) && !seen[i])
			return usage_err(p, "missing required option '--%s'",
			    t[i].long_name);
	return 0;
}

/*
 * Everything from argv (without argv[0]) into p: command, globals,
 * options, positionals. Returns 0, or -1 with p->err set. With -h or
 * --help, returns 0 early with p->help set.
 */
int
cli_parse_command_line(struct parse *p, int argc, char **argv)
{
	unsigned char *used = xcalloc((size_t)argc + 1, 1);
	char **rest = xcalloc((size_t)argc + 1, sizeof(*rest));
	const struct rai_cmd *c;
	int i, n = 0, npre = -1, rc = -1;

	p->argc = argc;
	p->argv = argv;
	if (cli_apply_defaults(p, p->prog->global_opts, p->globals) == -1 ||
	    find_command(p, argc, argv, used) == -1)
		goto out;
	c = p->cmd;
	if (c != NULL) {
		p->opts = xcalloc(1, c->opts_size ? c->opts_size : 1);
		p->cseen = xcalloc(opt_count(c->opts) + 1, 1);
		if (cli_apply_defaults(p, c->opts, p->opts) == -1)
			goto out;
	}
	for (i = 0; i < argc; i++) {
		if (used[i] && npre < 0)
			npre = n;
		if (!used[i])
			rest[n++] = argv[i];
	}
	if (c != NULL && c->rewrite_argv != NULL && !p->help &&
	    c->rewrite_argv(n, rest, &p->keep, &p->notes, &p->err) == -1)
		goto out;
	if (parse_args(p, n, rest, npre < 0 ? 0 : npre) == -1)
		goto out;
	rc = 0;
	if (p->help || c == NULL)
		goto out;
	rc = -1;
	if (check_positionals(p) == -1 ||
	    check_required(p, c->opts, p->cseen) == -1 ||
	    check_required(p, p->prog->global_opts, p->gseen) == -1)
		goto out;
	rc = 0;
out:
	free(used);
	free(rest);
	return rc;
}
