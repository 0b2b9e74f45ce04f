/*
 * The command/option table engine: argv to an options struct, then the
 * command; -h usage, --help, man pages, completion scripts and the
 * __complete protocol, all from the same static tables.
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
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/opt.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/strv.h"
#include "core/text.h"
#include "core/time.h"

#include "core/banned.h"

extern char **environ;

/* Usage text is wrapped to fit 80 columns. */
#define USAGE_WIDTH	79
/* Option specs wider than this put their help on the next line. */
#define USAGE_SPEC_MAX	26

/* cobra's directive bits, so the scripts read like cobra's protocol. */
#define COMP_ERROR	1
#define COMP_NOSPACE	2
#define COMP_NOFILE	4
#define COMP_DIRS	16

/* One run of a command: the context commands see, plus its error. */
struct rai_run {
	struct rai_ctx	ctx;
	struct rai_err	err;
};

/* An option found in one of the two tables in force. */
struct optref {
	const struct rai_opt	*opt;
	void			*base;		/* globals or command opts */
	unsigned char		*seen;		/* given on the command line */
};

/* Everything one parse owns; released by parse_release(). */
struct parse {
	const struct rai_prog	*prog;
	const struct rai_cmd	*cmd;		/* NULL = the program itself */
	struct rai_buf		 path;		/* "list projects" */
	void			*globals;
	void			*opts;
	unsigned char		*gseen;
	unsigned char		*cseen;
	char			**secrets;	/* RAI_OPT_SECRET copies */
	size_t			 nsecrets;
	char			**pos;		/* positionals (in argv) */
	int			 npos;
	int			 help;		/* 1 = -h, 2 = --help */
	int			 version;	/* --version with no command */
	int			 lenient;	/* __complete: never fail */
	int			 dashdash;	/* npos at "--", -1 = none */
	int			 argc;		/* the command line (borrowed) */
	char			**argv;
	struct rai_err		 err;
};

/* ---- small helpers shared with commands ---- */

/*
 * Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions, so "lsit" is one step from "list"), case-insensitive.
 */
static size_t
osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d, *row0, *row1, *row2,
	    *t;

	row0 = xcalloc(lb + 1, sizeof(*row0));
	row1 = xcalloc(lb + 1, sizeof(*row1));
	row2 = xcalloc(lb + 1, sizeof(*row2));
	for (j = 0; j <= lb; j++)
		row1[j] = j;
	for (i = 1; i <= la; i++) {
		row2[0] = i;
		for (j = 1; j <= lb; j++) {
			int same = tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 1]);

			d = row1[j - 1] + !same;
			if (row1[j] + 1 < d)
				d = row1[j] + 1;
			if (row2[j - 1] + 1 < d)
				d = row2[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) ==
			    tolower((unsigned char)b[j - 1]) &&
			    row0[j - 2] + 1 < d)
				d = row0[j - 2] + 1;
			row2[j] = d;
		}
		t = row0;
		row0 = row1;
		row1 = row2;
		row2 = t;
	}
	d = row1[lb];
	free(row0);
	free(row1);
	free(row2);
	return d;
}

/*
 * Like git's help.c: suggest only what is plausibly a typo (at most two
 * edits, and fewer edits than the word has letters) or what the word
 * begins. Ties go to the alphabetically first, so the answer does not
 * depend on table order.
 */
const char *
rai_suggest(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	size_t i, d, bestd = (size_t)-1, wl = strlen(word);

	for (i = 0; i < n; i++) {
		if (words[i] == NULL)
			continue;
		d = osa_distance(word, words[i]);
		if (wl >= 2 && strncmp(words[i], word, wl) == 0 && d > 1)
			d = 1;
		if (d > 2 || d >= wl)
			continue;
		if (d < bestd || (d == bestd && strcmp(words[i], best) < 0)) {
			best = words[i];
			bestd = d;
		}
	}
	return best;
}

/* ---- walking the tables ---- */

static const struct rai_cmd *const *
children(const struct rai_prog *prog, const struct rai_cmd *cmd)
{
	return cmd != NULL ? cmd->subcmds : prog->cmds;
}

static int
cmd_visible(const struct rai_cmd *c)
{
	return !(c->flags & RAI_CMD_HIDDEN);
}

static int
opt_visible(const struct rai_opt *o)
{
	return !(o->flags & RAI_OPT_HIDDEN);
}

/* Exact name or an explicit alias; no prefix matching. */
static const struct rai_cmd *
find_child(const struct rai_cmd *const *list, const char *word)
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
static int
resolve_path(const struct rai_prog *prog, const char *path,
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
		if ((c = find_child(children(prog, c), word)) == NULL)
			rc = -1;
	}
	free(copy);
	if (rc == 0)
		*cmd = c;
	return rc;
}

static const struct rai_opt *
cmd_opts(const struct rai_cmd *cmd)
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
static int
takes_value(const struct rai_opt *o)
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
	return takes_value(o) || o->type == RAI_OPT_LEVEL;
}

/* ---- parse state ---- */

static void
parse_init(struct parse *p, const struct rai_prog *prog)
{
	memset(p, 0, sizeof(*p));
	p->prog = prog;
	p->dashdash = -1;
	rai_buf_init(&p->path, 0);
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

static void
parse_release(struct parse *p)
{
	size_t i;

	release_lists(p->prog->global_opts, p->globals);
	release_lists(cmd_opts(p->cmd), p->opts);
	for (i = 0; i < p->nsecrets; i++)
		rai_free_secret(p->secrets[i]);
	free(p->secrets);
	free(p->globals);
	free(p->opts);
	free(p->gseen);
	free(p->cseen);
	free(p->pos);
	rai_buf_release(&p->path);
	rai_err_release(&p->err);
}

static void
parse_enter(struct parse *p, const struct rai_cmd *cmd)
{
	if (p->path.len > 0)
		rai_buf_addch(&p->path, ' ');
	rai_buf_addstr(&p->path, cmd->name);
	p->cmd = cmd;
}

/* "runai" or "runai list projects": the subject of usage messages. */
static char *
subject(const struct rai_prog *prog, const char *path)
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
static int
parse_bool(const char *s)
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
		if (strcmp(o->choices[i], arg) == 0) {
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
		if ((l = parse_bool(arg)) == -1)
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

/* A value from the command line: secrets copied, lists reset once. */
static int
give(struct parse *p, const struct optref *r, const char *arg)
{
	const struct rai_opt *o = r->opt;

	if (arg != NULL && (o->flags & RAI_OPT_SECRET) && !p->lenient)
		arg = keep_secret(p, arg);
	if (o->type == RAI_OPT_LIST && o->def != NULL && !*r->seen)
		rai_strv_release(field(r->base, o));
	*r->seen = 1;
	return set_value(p, o, r->base, arg);
}

static int
apply_defaults(struct parse *p, const struct rai_opt *t, void *base)
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

/* The command's own options shadow global ones of the same name. */
static int
lookup(struct parse *p, int shortc, const char *name, size_t len,
    struct optref *r)
{
	if (lookup_in(cmd_opts(p->cmd), p->opts, p->cseen, shortc, name, len,
	    r) == 0)
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
	    lookup(p, 0, name + 3, len - 3, r) == -1)
		return -1;
	return (r->opt->type == RAI_OPT_BOOL &&
	    (r->opt->flags & RAI_OPT_NEGATABLE)) ? 0 : -1;
}

/* Whether the table itself uses -h or --help (then they are not ours). */
static int
help_is_builtin(struct parse *p, int shortc, const char *name, size_t len)
{
	struct optref r;

	return lookup(p, shortc, name, len, &r) == -1;
}

static void
add_long_names(struct rai_buf *names, const struct rai_opt *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!opt_visible(&t[i]))
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

	add_long_names(&names, cmd_opts(p->cmd));
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
	if (lookup(p, 0, a, len, &r) == -1) {
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
		return give(p, &r, val);
	}
	if (val == NULL) {
		if (*i + 1 >= argc)
			return usage_err(p, "option '--%s' requires a value",
			    r.opt->long_name);
		val = argv[++*i];
	}
	return give(p, &r, val);
}

/* -v, -vv, -v=8, -v8: the rest of the word after the letter. */
static int
short_level(struct parse *p, const struct optref *r, const char *rest)
{
	size_t k;

	if (*rest == '\0')
		return give(p, r, NULL);
	if (strspn(rest, (char[]){ (char)r->opt->short_name, '\0' }) ==
	    strlen(rest)) {
		for (k = 0; k <= strlen(rest); k++)
			if (give(p, r, NULL) == -1)
				return -1;
		return 0;
	}
	return give(p, r, *rest == '=' ? rest + 1 : rest);
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
		if (lookup(p, (unsigned char)a[j], NULL, 0, &r) == -1)
			return usage_err(p, "unknown option '-%c'", a[j]);
		if (r.opt->type == RAI_OPT_LEVEL)
			return short_level(p, &r, a + j + 1);
		if (!takes_value(r.opt)) {
			if (give(p, &r, NULL) == -1)
				return -1;
			continue;
		}
		if (a[j + 1] != '\0')
			return give(p, &r, a + j + 1 + (a[j + 1] == '='));
		if (*i + 1 >= argc)
			return usage_err(p, "option '-%c' requires a value",
			    a[j]);
		return give(p, &r, argv[++*i]);
	}
	return 0;
}

static int
parse_args(struct parse *p, int argc, char **argv)
{
	int i, dashdash = 0;

	for (i = 0; i < argc && !p->help; i++) {
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
	return 0;
}

/*
 * Whether word i of argv is an option that swallows word i+1, judged by
 * the tables known so far (unknown options are taken as flags, as cobra
 * does when it looks for the command words).
 */
static int
swallows_next(struct parse *p, const char *a)
{
	struct optref r;
	size_t j;

	if (a[1] == '-')
		return strchr(a, '=') == NULL &&
		    lookup(p, 0, a + 2, strlen(a + 2), &r) == 0 &&
		    long_takes_value(r.opt);
	for (j = 1; a[j] != '\0'; j++) {
		if (lookup(p, (unsigned char)a[j], NULL, 0, &r) == -1)
			continue;
		if (r.opt->type == RAI_OPT_LEVEL)
			return 0;
		if (takes_value(r.opt))
			return a[j + 1] == '\0';
	}
	return 0;
}

/* Visible names of a command list, for suggestions and messages. */
static const char **
visible_names(const struct rai_cmd *const *list, size_t *n)
{
	const char **v = NULL;
	size_t i;

	*n = 0;
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cmd_visible(list[i]))
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
	char *subj = subject(p->prog, rai_buf_str(&p->path));
	size_t n;

	v = visible_names(children(p->prog, p->cmd), &n);
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
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			if (swallows_next(p, argv[i]))
				i++;
			continue;
		}
		if (p->cmd != NULL && p->cmd->subcmds == NULL)
			break;
		if ((c = find_child(children(p->prog, p->cmd), argv[i])) ==
		    NULL) {
			if (p->cmd != NULL)
				break;
			return not_a_command(p, argv[i]);
		}
		used[i] = 1;
		parse_enter(p, c);
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
		v = visible_names(c->subcmds, &n);
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
static int
parse_command_line(struct parse *p, int argc, char **argv)
{
	unsigned char *used = xcalloc((size_t)argc + 1, 1);
	char **rest = xcalloc((size_t)argc + 1, sizeof(*rest));
	const struct rai_cmd *c;
	int i, n = 0, rc = -1;

	p->argc = argc;
	p->argv = argv;
	if (apply_defaults(p, p->prog->global_opts, p->globals) == -1 ||
	    find_command(p, argc, argv, used) == -1)
		goto out;
	c = p->cmd;
	if (c != NULL) {
		p->opts = xcalloc(1, c->opts_size ? c->opts_size : 1);
		p->cseen = xcalloc(opt_count(c->opts) + 1, 1);
		if (apply_defaults(p, c->opts, p->opts) == -1)
			goto out;
	}
	for (i = 0; i < argc; i++)
		if (!used[i])
			rest[n++] = argv[i];
	if (parse_args(p, n, rest) == -1)
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

/* ---- usage ---- */

/* "-o, --output <format>", "    --kubeconfig <file>", "--[no-]color". */
static void
opt_spec(const struct rai_opt *o, struct rai_buf *b)
{
	int neg = o->type == RAI_OPT_BOOL && (o->flags & RAI_OPT_NEGATABLE);

	if (o->short_name)
		rai_buf_addf(b, "-%c, ", o->short_name);
	else
		rai_buf_addstr(b, "    ");
	rai_buf_addf(b, "--%s%s", neg ? "[no-]" : "", o->long_name);
	if (o->argh != NULL && (takes_value(o) || o->type == RAI_OPT_LEVEL))
		rai_buf_addf(b, " %s", o->argh);
}

/* The help line, with the default and requiredness appended. */
static void
opt_help(const struct rai_opt *o, struct rai_buf *b)
{
	rai_buf_addstr(b, o->help ? o->help : "");
	if (o->def != NULL && o->type != RAI_OPT_BOOL)
		rai_buf_addf(b, " (default: %s)", o->def);
	if (o->flags & RAI_OPT_REQUIRED)
		rai_buf_addstr(b, " (required)");
}

static size_t
spec_width(const struct rai_opt *t, size_t w)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!opt_visible(&t[i]))
			continue;
		rai_buf_reset(&b);
		opt_spec(&t[i], &b);
		if (b.len > w)
			w = b.len;
	}
	rai_buf_release(&b);
	return w > USAGE_SPEC_MAX ? USAGE_SPEC_MAX : w;
}

/* Text from column col, wrapped at USAGE_WIDTH; cur = current column. */
static void
put_wrapped(FILE *fp, const char *s, size_t col, size_t cur)
{
	size_t n;

	while (*s != '\0') {
		n = strcspn(s, " ");
		if (cur > col && cur + 1 + n > USAGE_WIDTH) {
			fprintf(fp, "\n%*s", (int)col, "");
			cur = col;
		} else if (cur > col) {
			fputc(' ', fp);
			cur++;
		}
		fprintf(fp, "%.*s", (int)n, s);
		cur += n;
		s += n;
		while (*s == ' ')
			s++;
	}
	fputc('\n', fp);
}

/* One "    spec   help" line per visible option, help at a shared column. */
static void
print_opt_lines(FILE *fp, const struct rai_opt *t, size_t w)
{
	struct rai_buf spec = RAI_BUF_INIT, help = RAI_BUF_INIT;
	size_t i, col = 4 + w + 2;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!opt_visible(&t[i]))
			continue;
		rai_buf_reset(&spec);
		rai_buf_reset(&help);
		opt_spec(&t[i], &spec);
		opt_help(&t[i], &help);
		fprintf(fp, "    %s", rai_buf_str(&spec));
		if (spec.len > w)
			fprintf(fp, "\n%*s", (int)col, "");
		else
			fprintf(fp, "%*s", (int)(w - spec.len + 2), "");
		put_wrapped(fp, rai_buf_str(&help), col, col);
	}
	rai_buf_release(&spec);
	rai_buf_release(&help);
}

static int
has_visible_opts(const struct rai_opt *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++)
		if (opt_visible(&t[i]))
			return 1;
	return 0;
}

static void
print_cmd_list(FILE *fp, const struct rai_cmd *const *list)
{
	size_t i, w = 0;

	for (i = 0; list[i] != NULL; i++)
		if (cmd_visible(list[i]) && strlen(list[i]->name) > w)
			w = strlen(list[i]->name);
	fprintf(fp, "\ncommands:\n");
	for (i = 0; list[i] != NULL; i++)
		if (cmd_visible(list[i]))
			fprintf(fp, "    %-*s  %s\n", (int)w, list[i]->name,
			    list[i]->summary ? list[i]->summary : "");
}

/* What follows "prog path " on the usage line when the table has none. */
static const char *
default_synopsis(const struct rai_cmd *cmd)
{
	if (cmd == NULL)
		return "[options] <command> [<args>]";
	if (cmd->subcmds != NULL)
		return "<command> [options]";
	if (cmd->args_max != 0)
		return has_visible_opts(cmd->opts) ? "[options] [<args>]" :
		    "[<args>]";
	return has_visible_opts(cmd->opts) ? "[options]" : "";
}

static const char *
synopsis_of(const struct rai_prog *prog, const struct rai_cmd *cmd)
{
	if (cmd != NULL && cmd->synopsis != NULL)
		return cmd->synopsis;
	return default_synopsis(cmd);
}

/* "usage: runai list projects [options]", then "   or: ..." lines. */
static void
print_synopsis(FILE *fp, const char *subj, const char *syn)
{
	const char *lead = "usage:";
	size_t n;

	do {
		n = strcspn(syn, "\n");
		fprintf(fp, "%s %s%s%.*s\n", lead, subj, n ? " " : "", (int)n,
		    syn);
		lead = "   or:";
		syn += n;
	} while (*syn++ == '\n');
}

static void
print_usage_of(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	char *subj = subject(prog, path);
	const char *summary = cmd ? cmd->summary : prog->summary;
	const struct rai_opt *t = cmd_opts(cmd);
	size_t w;

	print_synopsis(fp, subj, synopsis_of(prog, cmd));
	if (summary != NULL)
		fprintf(fp, "\n%s\n", summary);
	if (children(prog, cmd) != NULL)
		print_cmd_list(fp, children(prog, cmd));
	if (cmd == NULL) {
		w = spec_width(prog->global_opts, 10);
		fprintf(fp, "\nglobal options:\n");
		print_opt_lines(fp, prog->global_opts, w);
		fprintf(fp, "    -h, --help%*s", (int)(w - 10 + 2), "");
		put_wrapped(fp, "show this usage; --help shows the manual page",
		    4 + w + 2, 4 + w + 2);
		fprintf(fp, "\nsee '%s <command> -h' for the options of a "
		    "command\n", prog->name);
	} else {
		if (has_visible_opts(t)) {
			fputc('\n', fp);
			print_opt_lines(fp, t, spec_width(t, 0));
		}
		if (has_visible_opts(prog->global_opts))
			fprintf(fp, "\nglobal options: see '%s -h'\n",
			    prog->name);
	}
	free(subj);
}

int
rai_print_usage(const struct rai_prog *prog, const char *cmdpath, FILE *fp)
{
	const struct rai_cmd *cmd;

	if (resolve_path(prog, cmdpath, &cmd) == -1)
		return -1;
	print_usage_of(prog, cmd, cmdpath, fp);
	return 0;
}

/* Prose paragraphs ("\n\n" apart; "\n" a forced break), wrapped. */
static void
print_prose(FILE *fp, const char *s, size_t indent)
{
	char *copy = xstrdup(s), *line = copy, *nl;

	for (;;) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (*line != '\0') {
			fprintf(fp, "%*s", (int)indent, "");
			put_wrapped(fp, line, indent, indent);
		} else {
			fputc('\n', fp);
		}
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	free(copy);
}

/* --help without a manual page to show: usage, description, examples. */
static void
print_long_help(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	const char *desc = cmd ? cmd->description : prog->description;
	const struct rai_example *ex = cmd ? cmd->examples : NULL;

	print_usage_of(prog, cmd, path, fp);
	if (desc != NULL) {
		fputc('\n', fp);
		print_prose(fp, desc, 0);
	}
	if (ex != NULL && ex->cmdline != NULL) {
		fprintf(fp, "\nexamples:\n");
		for (; ex->cmdline != NULL; ex++) {
			fprintf(fp, "    %s\n", ex->cmdline);
			if (ex->explanation != NULL) {
				fprintf(fp, "        ");
				put_wrapped(fp, ex->explanation, 8, 8);
			}
		}
	}
}

/* "runai-list-projects" for "list projects". */
static char *
page_name(const struct rai_prog *prog, const char *path)
{
	char *s = subject(prog, path), *q;

	for (q = s; *q != '\0'; q++)
		if (*q == ' ')
			*q = '-';
	return s;
}

static int
man_section(const struct rai_prog *prog)
{
	return prog->man_section ? prog->man_section : 1;
}

/*
 * Shows the manual page on a terminal; 0 when man showed it. man's
 * stderr goes to /dev/null: when the page is not installed the long
 * help text follows instead, and "No manual entry" before it is noise.
 */
static int
run_man(const struct rai_prog *prog, const char *path)
{
	char man[] = "man", sect[16], *page = page_name(prog, path);
	char *args[] = { man, sect, page, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc = -1;

	snprintf(sect, sizeof(sect), "%d", man_section(prog));
	fflush(stdout);
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto out;
	if (posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
	    O_WRONLY, 0) == 0 &&
	    posix_spawnp(&pid, "man", &fa, NULL, args, environ) == 0) {
		while (waitpid(pid, &status, 0) == -1) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
		if (status != -1 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			rc = 0;
	}
	posix_spawn_file_actions_destroy(&fa);
out:
	free(page);
	return rc;
}

static int
show_help(struct parse *p)
{
	const char *path = rai_buf_str(&p->path);

	if (p->help == 1) {
		print_usage_of(p->prog, p->cmd, path, stdout);
		return 0;
	}
	if (isatty(STDOUT_FILENO) && run_man(p->prog, path) == 0)
		return 0;
	print_long_help(p->prog, p->cmd, path, stdout);
	return 0;
}

/* ---- man pages ---- */

/*
 * Roff-escaped text for one output line: backslashes, hyphens as \-,
 * a leading '.' or '\'' neutralised, non-ASCII as \[uXXXX] so groff
 * needs no input encoding, control characters dropped.
 */
static void
roff_text(FILE *fp, const char *s, int line_start)
{
	const unsigned char *u = (const unsigned char *)s;
	long cp;

	if (line_start) {
		while (*u == ' ')
			u++;
		if (*u == '.' || *u == '\'')
			fputs("\\&", fp);
	}
	while (*u != '\0') {
		if (*u == '\\')
			fputs("\\e", fp);
		else if (*u == '-')
			fputs("\\-", fp);
		else if (*u >= 0x80) {
			u += rai_utf8_next(u, &cp) - 1;
			/* invalid bytes show as U+FFFD */
			fprintf(fp, "\\[u%04lX]", cp < 0 ? 0xfffdL : cp);
		} else if (*u >= 0x20 && *u != 0x7f)
			fputc(*u, fp);
		u++;
	}
}

/* A line of text, then newline. */
static void
roff_line(FILE *fp, const char *s)
{
	roff_text(fp, s, 1);
	fputc('\n', fp);
}

/* Prose: "\n\n" starts a paragraph (.PP), "\n" a line break (.br). */
static void
roff_prose(FILE *fp, const char *s)
{
	char *copy = xstrdup(s), *line = copy, *nl;
	int first = 1, blank = 0;

	for (;;) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		if (*line == '\0') {
			blank = 1;
		} else {
			if (blank)
				fputs(".PP\n", fp);
			else if (!first)
				fputs(".br\n", fp);
			roff_line(fp, line);
			first = blank = 0;
		}
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	free(copy);
}

/* "TERM\nbody\n\nTERM\nbody": one tagged paragraph per term. */
static void
roff_terms(FILE *fp, const char *s)
{
	char *copy = xstrdup(s), *para = copy, *end, *nl;

	while (*para != '\0') {
		end = strstr(para, "\n\n");
		if (end != NULL)
			*end = '\0';
		nl = strchr(para, '\n');
		if (nl != NULL)
			*nl = '\0';
		fputs(".TP\n\\fB", fp);
		roff_text(fp, para, 1);
		fputs("\\fR\n", fp);
		if (nl != NULL)
			roff_prose(fp, nl + 1);
		if (end == NULL)
			break;
		para = end + 2;
	}
	free(copy);
}

/* "\fB\-o\fR, \fB\-\-output\fR \fI<format>\fR": the .TP tag. */
static void
roff_opt_tag(FILE *fp, const struct rai_opt *o)
{
	if (o->short_name)
		fprintf(fp, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", fp);
	if (o->type == RAI_OPT_BOOL && (o->flags & RAI_OPT_NEGATABLE))
		fputs("[no\\-]", fp);
	roff_text(fp, o->long_name, 0);
	fputs("\\fR", fp);
	if (o->argh != NULL && (takes_value(o) || o->type == RAI_OPT_LEVEL)) {
		fputs(" \\fI", fp);
		roff_text(fp, o->argh, 0);
		fputs("\\fR", fp);
	}
	fputc('\n', fp);
}

static void
roff_opts(FILE *fp, const struct rai_opt *t)
{
	struct rai_buf help = RAI_BUF_INIT;
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!opt_visible(&t[i]))
			continue;
		fputs(".TP\n", fp);
		roff_opt_tag(fp, &t[i]);
		rai_buf_reset(&help);
		opt_help(&t[i], &help);
		roff_line(fp, rai_buf_str(&help));
	}
	rai_buf_release(&help);
}

static void
roff_page_ref(FILE *fp, const struct rai_prog *prog, const char *path,
    int first)
{
	char *page = page_name(prog, path);

	fprintf(fp, "%s\\fB", first ? "" : ",\n");
	roff_text(fp, page, 0);
	fprintf(fp, "\\fR(%d)", man_section(prog));
	free(page);
}

static char *
child_path(const char *path, const struct rai_cmd *c)
{
	return *path ? xasprintf("%s %s", path, c->name) : xstrdup(c->name);
}

static void
roff_commands(FILE *fp, const struct rai_prog *prog, const char *path,
    const struct rai_cmd *const *list)
{
	char *cp, *page;
	size_t i;

	fputs(".SH COMMANDS\n", fp);
	for (i = 0; list[i] != NULL; i++) {
		if (!cmd_visible(list[i]))
			continue;
		cp = child_path(path, list[i]);
		page = page_name(prog, cp);
		fputs(".TP\n\\fB", fp);
		roff_text(fp, list[i]->name, 0);
		fputs("\\fR\n", fp);
		roff_text(fp, list[i]->summary ? list[i]->summary : "", 1);
		fputs("; see \\fB", fp);
		roff_text(fp, page, 0);
		fprintf(fp, "\\fR(%d).\n", man_section(prog));
		free(page);
		free(cp);
	}
}

static void
roff_see_also(FILE *fp, const struct rai_prog *prog, const char *path,
    const struct rai_cmd *const *list)
{
	const char *sp = strrchr(path, ' ');
	char *parent, *cp;
	size_t i;
	int first = 1;

	fputs(".SH SEE ALSO\n", fp);
	if (*path != '\0') {
		parent = sp ? xstrndup(path, (size_t)(sp - path)) : xstrdup("");
		roff_page_ref(fp, prog, parent, first);
		first = 0;
		free(parent);
	}
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cmd_visible(list[i]))
			continue;
		cp = child_path(path, list[i]);
		roff_page_ref(fp, prog, cp, first);
		first = 0;
		free(cp);
	}
	fputc('\n', fp);
}

static void
roff_header(FILE *fp, const struct rai_prog *prog, const char *path,
    const char *summary)
{
	char *page = page_name(prog, path), *q;

	fputs(".\\\" Generated from the command tables by '", fp);
	fprintf(fp, "%s __gen man'; do not edit.\n", prog->name);
	for (q = page; *q != '\0'; q++)
		*q = (char)toupper((unsigned char)*q);
	fputs(".TH \"", fp);
	roff_text(fp, page, 0);
	fprintf(fp, "\" \"%d\" \"\" \"%s\" \"%s manual\"\n", man_section(prog),
	    prog->name, prog->name);
	free(page);
	page = page_name(prog, path);
	fputs(".SH NAME\n", fp);
	roff_text(fp, page, 1);
	fputs(" \\- ", fp);
	roff_text(fp, summary ? summary : "", 0);
	fputc('\n', fp);
	free(page);
}

static void
roff_synopsis(FILE *fp, const struct rai_prog *prog, const char *path,
    const char *syn)
{
	char *subj = subject(prog, path);
	size_t n;

	fputs(".SH SYNOPSIS\n.nf\n", fp);
	do {
		n = strcspn(syn, "\n");
		fputs("\\fB", fp);
		roff_text(fp, subj, 1);
		fputs("\\fR", fp);
		if (n > 0) {
			char *line = xstrndup(syn, n);

			fputc(' ', fp);
			roff_text(fp, line, 0);
			free(line);
		}
		fputc('\n', fp);
		syn += n;
	} while (*syn++ == '\n');
	fputs(".fi\n", fp);
	free(subj);
}

static void
roff_examples(FILE *fp, const struct rai_example *ex)
{
	if (ex == NULL || ex->cmdline == NULL)
		return;
	fputs(".SH EXAMPLES\n", fp);
	for (; ex->cmdline != NULL; ex++) {
		fputs(".TP\n\\fB", fp);
		roff_text(fp, ex->cmdline, 1);
		fputs("\\fR\n", fp);
		roff_line(fp, ex->explanation ? ex->explanation : "");
	}
}

static const char default_exit_status[] =
    "0\nsuccess\n\n"
    "1\nthe operation failed: an error from the server, the network, "
    "the configuration or local files\n\n"
    "2\nusage error: an unknown command or option, a bad option value, "
    "or the wrong number of arguments";

static void
write_page(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	const char *desc = cmd ? cmd->description : prog->description;

	roff_header(fp, prog, path, cmd ? cmd->summary : prog->summary);
	roff_synopsis(fp, prog, path, synopsis_of(prog, cmd));
	fputs(".SH DESCRIPTION\n", fp);
	roff_prose(fp, desc ? desc : (cmd ? cmd->summary : prog->summary));
	if (children(prog, cmd) != NULL)
		roff_commands(fp, prog, path, children(prog, cmd));
	if (cmd != NULL && has_visible_opts(cmd->opts)) {
		fputs(".SH OPTIONS\n", fp);
		roff_opts(fp, cmd->opts);
	}
	fputs(cmd ? ".SH \"GLOBAL OPTIONS\"\n" : ".SH OPTIONS\n", fp);
	roff_opts(fp, prog->global_opts);
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n"
	    "show a short usage (\\fB\\-h\\fR) or this manual page "
	    "(\\fB\\-\\-help\\fR)\n", fp);
	roff_examples(fp, cmd ? cmd->examples : NULL);
	fputs(".SH \"EXIT STATUS\"\n", fp);
	roff_terms(fp, prog->exit_status ? prog->exit_status :
	    default_exit_status);
	if (prog->environment != NULL) {
		fputs(".SH ENVIRONMENT\n", fp);
		roff_terms(fp, prog->environment);
	}
	if (prog->files != NULL) {
		fputs(".SH FILES\n", fp);
		roff_terms(fp, prog->files);
	}
	roff_see_also(fp, prog, path, children(prog, cmd));
}

int
rai_gen_man(const struct rai_prog *prog, const char *cmdpath, FILE *fp,
    struct rai_err *err)
{
	const struct rai_cmd *cmd;

	if (resolve_path(prog, cmdpath, &cmd) == -1)
		return rai_err_set(err, RAI_E_NOTFOUND, "'%s' is not a %s "
		    "command", cmdpath, prog->name);
	write_page(prog, cmd, cmdpath, fp);
	return 0;
}

static int
write_page_file(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, const char *dir, struct rai_err *err)
{
	char *page = page_name(prog, path);
	char *file = xasprintf("%s/%s.%d", dir, page, man_section(prog));
	FILE *fp;
	int rc = -1;

	if ((fp = fopen(file, "w")) == NULL) {
		rai_err_errno(err, errno, "cannot create '%s'", file);
		goto out;
	}
	write_page(prog, cmd, path, fp);
	if (ferror(fp)) {
		rai_err_errno(err, errno, "cannot write '%s'", file);
		fclose(fp);
		goto out;
	}
	if (fclose(fp) == EOF) {
		rai_err_errno(err, errno, "cannot write '%s'", file);
		goto out;
	}
	rc = 0;
out:
	free(file);
	free(page);
	return rc;
}

/* This command's page, then its visible subcommands' pages. */
static int
write_pages(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, const char *dir, struct rai_err *err)
{
	const struct rai_cmd *const *list = children(prog, cmd);
	char *cp;
	size_t i;
	int rc;

	if (write_page_file(prog, cmd, path, dir, err) == -1)
		return -1;
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cmd_visible(list[i]))
			continue;
		cp = child_path(path, list[i]);
		rc = write_pages(prog, list[i], cp, dir, err);
		free(cp);
		if (rc == -1)
			return -1;
	}
	return 0;
}

int
rai_gen_man_all(const struct rai_prog *prog, const char *dir,
    struct rai_err *err)
{
	if (mkdir(dir, 0777) == -1 && errno != EEXIST)
		return rai_err_errno(err, errno, "cannot create '%s'", dir);
	return write_pages(prog, NULL, "", dir, err);
}

/* ---- completion scripts ---- */

/* A shell function name from the program name: "runai-adm" -> "_runai_adm". */
static char *
comp_func(const struct rai_prog *prog)
{
	char *s = xasprintf("_%s", prog->name), *q;

	for (q = s + 1; *q != '\0'; q++)
		if (!isalnum((unsigned char)*q))
			*q = '_';
	return s;
}

/* @P@ = program name, @F@ = function name. */
static const char bash_script[] =
    "# bash completion for @P@\n"
    "# Generated by '@P@ __gen completion bash'; do not edit.\n"
    "#\n"
    "# The words come from '@P@ __complete WORD...' (the last word is the\n"
    "# one being completed): one candidate per line, then \":<directive>\",\n"
    "# a sum of 1 (error: offer nothing), 2 (no space after the word),\n"
    "# 4 (no file names) and 16 (directories only).\n"
    "\n"
    "@F@()\n"
    "{\n"
    "\tlocal cur words cword out directive pfx last\n"
    "\tlocal -a cands\n"
    "\n"
    "\tCOMPREPLY=()\n"
    "\tif declare -F _get_comp_words_by_ref >/dev/null 2>&1; then\n"
    "\t\t_get_comp_words_by_ref -n =: cur words cword\n"
    "\telse\n"
    "\t\t# without bash-completion: split the line up to the cursor\n"
    "\t\tread -r -a words <<<\"${COMP_LINE:0:COMP_POINT}\"\n"
    "\t\tif [[ ${COMP_LINE:0:COMP_POINT} == *[[:space:]] ]]; then\n"
    "\t\t\twords+=(\"\")\n"
    "\t\tfi\n"
    "\t\tcword=$((${#words[@]} - 1))\n"
    "\t\tcur=${words[cword]}\n"
    "\tfi\n"
    "\tout=$(\"${words[0]}\" __complete \"${words[@]:1:cword-1}\" \"$cur\" "
    "2>/dev/null) ||\n"
    "\t\treturn 0\n"
    "\tmapfile -t cands <<<\"$out\"\n"
    "\tdirective=0\n"
    "\tlast=$((${#cands[@]} - 1))\n"
    "\tif ((last >= 0)) && [[ ${cands[last]} =~ ^:[0-9]+$ ]]; then\n"
    "\t\tdirective=${cands[last]#:}\n"
    "\t\tunset 'cands[last]'\n"
    "\tfi\n"
    "\tif ((directive & 1)); then\n"
    "\t\tcompopt +o default 2>/dev/null\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif ((directive & 16)); then\n"
    "\t\tcompopt -o filenames 2>/dev/null\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\t((directive & 2)) && compopt -o nospace 2>/dev/null\n"
    "\t((directive & 4)) && compopt +o default 2>/dev/null\n"
    "\t# readline replaces only the part after the last '=' or ':'\n"
    "\tpfx=\n"
    "\tif [[ $cur == *[=:]* && $COMP_WORDBREAKS == *=* && "
    "$COMP_WORDBREAKS == *:* ]]; then\n"
    "\t\tpfx=${cur%\"${cur##*[=:]}\"}\n"
    "\tfi\n"
    "\tCOMPREPLY=(\"${cands[@]#\"$pfx\"}\")\n"
    "\treturn 0\n"
    "}\n"
    "\n"
    "complete -o default -F @F@ @P@\n";

static const char zsh_script[] =
    "#compdef @P@\n"
    "# zsh completion for @P@\n"
    "# Generated by '@P@ __gen completion zsh'; do not edit.\n"
    "#\n"
    "# The words come from '@P@ __complete WORD...' (the last word is the\n"
    "# one being completed): one candidate per line, then \":<directive>\",\n"
    "# a sum of 1 (error: offer nothing), 2 (no space after the word),\n"
    "# 4 (no file names) and 16 (directories only).\n"
    "\n"
    "@F@()\n"
    "{\n"
    "\tlocal out directive=0\n"
    "\tlocal -a lines cands\n"
    "\n"
    "\tout=$(\"${words[1]}\" __complete \"${(@)words[2,CURRENT-1]}\" "
    "\"${words[CURRENT]}\" 2>/dev/null) ||\n"
    "\t\treturn 1\n"
    "\tlines=(\"${(@f)out}\")\n"
    "\tif [[ ${lines[-1]} == :<-> ]]; then\n"
    "\t\tdirective=${lines[-1]#:}\n"
    "\t\tlines[-1]=()\n"
    "\tfi\n"
    "\tcands=(${lines:#})\n"
    "\t(( directive & 1 )) && return 1\n"
    "\tif (( directive & 16 )); then\n"
    "\t\t_path_files -/\n"
    "\t\treturn\n"
    "\tfi\n"
    "\tif (( ${#cands} == 0 )); then\n"
    "\t\t(( directive & 4 )) && return 1\n"
    "\t\t_files\n"
    "\t\treturn\n"
    "\tfi\n"
    "\tif (( directive & 2 )); then\n"
    "\t\tcompadd -S '' -- \"${cands[@]}\"\n"
    "\telse\n"
    "\t\tcompadd -- \"${cands[@]}\"\n"
    "\tfi\n"
    "}\n"
    "\n"
    "# Autoloaded from $fpath the file is the function body: run it.\n"
    "# Sourced (source <(@P@ completion zsh)): register it.\n"
    "if [[ ${funcstack[1]} == @F@ ]]; then\n"
    "\t@F@ \"$@\"\n"
    "else\n"
    "\tcompdef @F@ @P@\n"
    "fi\n";

static void
put_template(FILE *fp, const char *tmpl, const char *prog, const char *fn)
{
	const char *s;

	for (s = tmpl; *s != '\0'; s++) {
		if (s[0] == '@' && (s[1] == 'P' || s[1] == 'F') &&
		    s[2] == '@') {
			fputs(s[1] == 'P' ? prog : fn, fp);
			s += 2;
		} else {
			fputc(*s, fp);
		}
	}
}

int
rai_gen_completion(const struct rai_prog *prog, const char *shell, FILE *fp,
    struct rai_err *err)
{
	char *fn;

	if (shell == NULL || (strcmp(shell, "bash") != 0 &&
	    strcmp(shell, "zsh") != 0))
		return rai_err_set(err, RAI_E_USAGE, "unsupported shell '%s': "
		    "expected bash or zsh", shell ? shell : "");
	fn = comp_func(prog);
	put_template(fp, strcmp(shell, "bash") == 0 ? bash_script :
	    zsh_script, prog->name, fn);
	free(fn);
	return 0;
}

/* ---- __complete ---- */

struct comp {
	struct parse		*p;
	const struct rai_opt	*want;		/* complete its value */
	const char		*cur;		/* the partial word */
	const char		*prefix;	/* cur minus "--name=" */
	const char		*lead;		/* "--name=" put back, or "" */
	char			*lead_buf;
	int			 npos;
	int			 dashdash;
	int			 lost;		/* unknown command: no words */
	int			 directive;
};

static void
comp_offer(struct comp *c, const char *word)
{
	if (strncmp(word, c->prefix, strlen(c->prefix)) != 0 ||
	    strpbrk(word, "\n\r\t") != NULL)
		return;
	printf("%s%s\n", c->lead, word);
}

/* A global option's value counts (--kubeconfig, --context, -p). */
static void
comp_apply(struct parse *p, const struct optref *r, const char *val)
{
	if (r->base == p->globals)
		give(p, r, val);
}

/* The option that takes its value from the word after a. */
static int
comp_value_opt(struct parse *p, const char *a, struct optref *r)
{
	if (a[1] == '-')
		return lookup(p, 0, a + 2, strlen(a + 2), r);
	return lookup(p, (unsigned char)a[strlen(a) - 1], NULL, 0, r);
}

/*
 * Walks the complete words like the parser, leniently: command words
 * descend, global options are applied (so --kubeconfig and --context
 * count for dynamic completion), positionals are counted.
 */
static void
comp_walk(struct comp *c, int n, char **w)
{
	struct parse *p = c->p;
	const struct rai_cmd *cmd;
	struct optref r;
	const char *a, *eq;
	int i;

	for (i = 0; i < n; i++) {
		a = w[i];
		if (c->dashdash || a[0] != '-' || a[1] == '\0') {
			cmd = NULL;
			if (c->npos == 0 && !c->dashdash)
				cmd = find_child(children(p->prog, p->cmd), a);
			if (cmd != NULL)
				parse_enter(p, cmd);
			else if (p->cmd == NULL)
				c->lost = 1;
			else
				c->npos++;
		} else if (strcmp(a, "--") == 0) {
			c->dashdash = 1;
		} else if (swallows_next(p, a)) {
			if (comp_value_opt(p, a, &r) == -1)
				continue;
			if (i + 1 >= n) {
				c->want = r.opt;
				return;
			}
			comp_apply(p, &r, w[++i]);
		} else if (a[1] == '-' && (eq = strchr(a, '=')) != NULL &&
		    lookup(p, 0, a + 2, (size_t)(eq - a - 2), &r) == 0) {
			comp_apply(p, &r, eq + 1);
		}
	}
}

static void
comp_option_names(struct comp *c, const struct rai_opt *t, int shorts)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (!opt_visible(&t[i]))
			continue;
		if (shorts && t[i].short_name) {
			rai_buf_reset(&b);
			rai_buf_addf(&b, "-%c", t[i].short_name);
			comp_offer(c, rai_buf_str(&b));
		}
		rai_buf_reset(&b);
		rai_buf_addf(&b, "--%s", t[i].long_name);
		comp_offer(c, rai_buf_str(&b));
		if (t[i].type == RAI_OPT_BOOL &&
		    (t[i].flags & RAI_OPT_NEGATABLE)) {
			rai_buf_reset(&b);
			rai_buf_addf(&b, "--no-%s", t[i].long_name);
			comp_offer(c, rai_buf_str(&b));
		}
	}
	rai_buf_release(&b);
}

/* Names from the program (projects, nodes, ...), failures silent. */
static void
comp_dynamic(struct comp *c, enum rai_comp kind)
{
	struct parse *p = c->p;
	struct rai_run *run;
	struct rai_strv sv = { NULL, 0 };
	size_t i;

	if (p->prog->complete == NULL)
		return;
	run = xcalloc(1, sizeof(*run));
	run->ctx.prog = p->prog;
	run->ctx.cmd = p->cmd;
	run->ctx.cmdpath = xstrdup(rai_buf_str(&p->path));
	run->ctx.globals = p->globals;
	run->ctx.app = xcalloc(1, p->prog->app_size ? p->prog->app_size : 1);
	run->ctx.out = stdout;
	/*
	 * Setup gets no command flags: those would resolve the project over
	 * the network with the normal time limits. The program's complete()
	 * loads what it needs with its own short ones.
	 */
	if (p->prog->setup == NULL ||
	    p->prog->setup(&run->ctx, 0, &run->err) == 0)
		p->prog->complete(&run->ctx, kind, c->prefix, &sv);
	if (p->prog->teardown != NULL)
		p->prog->teardown(&run->ctx);
	for (i = 0; i < sv.n; i++)
		comp_offer(c, sv.v[i]);
	rai_strv_release(&sv);
	rai_err_release(&run->err);
	free(run->ctx.app);
	free(run->ctx.cmdpath);
	free(run);
}

/* Sets the directive for kind and offers its words. */
static void
comp_kind(struct comp *c, enum rai_comp kind, const char *const *choices)
{
	size_t i;

	c->directive = COMP_NOFILE;
	switch (kind) {
	case RAI_COMP_NONE:
		break;
	case RAI_COMP_FILE:
		c->directive = 0;
		break;
	case RAI_COMP_DIR:
		c->directive = COMP_DIRS;
		break;
	case RAI_COMP_CHOICES:
		for (i = 0; choices != NULL && choices[i] != NULL; i++)
			comp_offer(c, choices[i]);
		break;
	default:
		comp_dynamic(c, kind);
	}
}

static void
comp_value(struct comp *c, const struct rai_opt *o)
{
	comp_kind(c, o->choices != NULL ? RAI_COMP_CHOICES : o->comp,
	    o->choices);
}

/* The partial word is an option: names, or "--name=value" values. */
static void
comp_option(struct comp *c)
{
	struct parse *p = c->p;
	const char *eq = strchr(c->cur, '=');
	struct optref r;

	c->directive = COMP_NOFILE;
	if (c->cur[1] == '-' && eq != NULL) {
		if (lookup(p, 0, c->cur + 2, (size_t)(eq - c->cur - 2), &r) ==
		    -1 || !takes_value(r.opt) || !opt_visible(r.opt))
			return;
		c->lead_buf = xstrndup(c->cur, (size_t)(eq - c->cur + 1));
		c->lead = c->lead_buf;
		c->prefix = eq + 1;
		comp_value(c, r.opt);
		return;
	}
	/* short forms unless the word is already long ("--...") */
	comp_option_names(c, cmd_opts(p->cmd), c->cur[1] != '-');
	comp_option_names(c, p->prog->global_opts, c->cur[1] != '-');
	comp_offer(c, "--help");
}

/* A word: subcommands while none is chosen, then the positionals' kind. */
static void
comp_word(struct comp *c)
{
	const struct rai_cmd *cmd = c->p->cmd;
	const struct rai_cmd *const *list = children(c->p->prog, cmd);
	size_t i;

	c->directive = COMP_NOFILE;
	if (c->lost)
		return;
	if (c->npos == 0 && !c->dashdash && list != NULL)
		for (i = 0; list[i] != NULL; i++)
			if (cmd_visible(list[i]))
				comp_offer(c, list[i]->name);
	if (cmd == NULL || cmd->run == NULL ||
	    (cmd->args_max >= 0 && c->npos >= cmd->args_max) ||
	    cmd->args_comp == RAI_COMP_CHOICES)
		return;
	comp_kind(c, cmd->args_comp, NULL);
}

static int
complete_main(const struct rai_prog *prog, int argc, char **argv)
{
	struct parse p;
	struct comp c;
	char *empty[] = { (char *)(uintptr_t)"", NULL };

	if (argc == 0) {
		argv = empty;
		argc = 1;
	}
	parse_init(&p, prog);
	p.lenient = 1;
	apply_defaults(&p, prog->global_opts, p.globals);
	memset(&c, 0, sizeof(c));
	c.p = &p;
	c.cur = c.prefix = argv[argc - 1];
	c.lead = "";
	comp_walk(&c, argc - 1, argv);
	if (c.want != NULL)
		comp_value(&c, c.want);
	else if (!c.dashdash && c.cur[0] == '-')
		comp_option(&c);
	else
		comp_word(&c);
	printf(":%d\n", c.directive);
	free(c.lead_buf);
	parse_release(&p);
	fflush(stdout);
	return 0;
}

/* ---- __gen ---- */

static int
gen_main(const struct rai_prog *prog, int argc, char **argv)
{
	struct rai_err err = RAI_ERR_INIT;
	int rc;

	if (argc == 2 && strcmp(argv[0], "man") == 0)
		rc = rai_gen_man_all(prog, argv[1], &err);
	else if (argc == 2 && strcmp(argv[0], "completion") == 0)
		rc = rai_gen_completion(prog, argv[1], stdout, &err);
	else
		rc = rai_err_set(&err, RAI_E_USAGE, "usage: %s __gen man DIR "
		    "| completion bash|zsh", prog->name);
	if (rc == -1) {
		rai_err_print(&err, stderr, prog->name);
		rc = rai_err_exit_code(&err);
	} else if (fflush(stdout) == EOF) {
		fprintf(stderr, "%s: error: write to stdout failed: %s\n",
		    prog->name, strerror(errno));
		rc = 1;
	}
	rai_err_release(&err);
	return rc;
}

/* ---- running ---- */

struct rai_err *
rai_ctx_err(struct rai_ctx *ctx)
{
	struct rai_run *run = (struct rai_run *)(void *)((char *)ctx -
	    offsetof(struct rai_run, ctx));

	return &run->err;
}

/* "runai list: <message>" and where to look, for usage errors. */
static void
print_usage_error(struct parse *p)
{
	char *subj = subject(p->prog, rai_buf_str(&p->path));
	char *msg = rai_text_sanitize(p->err.message ? p->err.message :
	    "usage error");

	/* the message quotes the command line: no escapes reach the tty */
	fprintf(stderr, "%s: %s\n", subj, msg);
	fprintf(stderr, "see '%s -h'\n", subj);
	free(msg);
	free(subj);
}

/* Flushes stdout; a failed write is an error unless the reader left. */
static int
check_stdout(const struct rai_prog *prog, int rc)
{
	int failed = fflush(stdout) == EOF, saved = errno;

	if (!failed && !ferror(stdout))
		return rc;
	if (failed && saved == EPIPE)
		return rc;
	if (failed)
		fprintf(stderr, "%s: error: write to stdout failed: %s\n",
		    prog->name, strerror(saved));
	else
		fprintf(stderr, "%s: error: write to stdout failed\n",
		    prog->name);
	clearerr(stdout);
	return rc ? rc : 1;
}

static int
run_command(struct parse *p)
{
	const struct rai_prog *prog = p->prog;
	struct rai_run *run = xcalloc(1, sizeof(*run));
	struct rai_ctx *ctx = &run->ctx;
	int rc;

	ctx->prog = prog;
	ctx->cmd = p->cmd;
	ctx->cmdpath = xstrdup(rai_buf_str(&p->path));
	ctx->globals = p->globals;
	ctx->app = xcalloc(1, prog->app_size ? prog->app_size : 1);
	ctx->out = stdout;
	ctx->out_tty = isatty(fileno(stdout));
	ctx->color = rai_out_color(stdout);
	ctx->dashdash = p->dashdash;
	ctx->raw_argc = p->argc;
	ctx->raw_argv = p->argv;
	if (prog->setup != NULL &&
	    prog->setup(ctx, p->cmd->flags, &run->err) == -1)
		rc = -1;
	else
		rc = p->cmd->run(ctx, p->opts, p->npos, p->pos);
	if (prog->teardown != NULL)
		prog->teardown(ctx);
	if (rc < 0) {
		if (run->err.kind == RAI_OK)
			rai_err_set(&run->err, RAI_E_INTERNAL, "'%s %s' failed "
			    "without saying why", prog->name, ctx->cmdpath);
		rai_err_print(&run->err, stderr, prog->name);
		rc = rai_err_exit_code(&run->err);
	}
	rc = check_stdout(prog, rc);
	rai_err_release(&run->err);
	free(ctx->app);
	free(ctx->cmdpath);
	free(run);
	return rc;
}

/* Parses, runs, prints; the caller's exit code. */
static int
dispatch(const struct rai_prog *prog, int argc, char **argv)
{
	struct parse p;
	const struct rai_cmd *version;
	int rc;

	parse_init(&p, prog);
	if (parse_command_line(&p, argc, argv) == -1) {
		if (p.err.kind == RAI_E_USAGE) {
			print_usage_error(&p);
		} else {
			rai_err_print(&p.err, stderr, prog->name);
		}
		rc = rai_err_exit_code(&p.err);
	} else if (p.help) {
		rc = check_stdout(prog, show_help(&p));
	} else if (p.cmd == NULL && p.version &&
	    (version = find_child(prog->cmds, "version")) != NULL) {
		parse_release(&p);
		return dispatch(prog, 1, (char *[]){ (char *)(uintptr_t)
		    version->name, NULL });
	} else if (p.cmd == NULL) {
		print_usage_of(prog, NULL, "", stderr);
		rc = 2;
	} else {
		rc = run_command(&p);
	}
	parse_release(&p);
	return rc;
}

int
rai_main(const struct rai_prog *prog, int argc, char **argv)
{
	rai_warn_set_program(prog->name);
	if (argc >= 2 && strcmp(argv[1], "__complete") == 0)
		return complete_main(prog, argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "__gen") == 0)
		return gen_main(prog, argc - 2, argv + 2);
	return dispatch(prog, argc > 0 ? argc - 1 : 0, argv + (argc > 0));
}
