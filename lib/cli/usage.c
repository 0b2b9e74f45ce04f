/*
 * Usage text: the short usage of "-h", the --help text shown when no
 * manual page is, and the lines of a usage error. The option and
 * synopsis strings it builds are shared with the man pages
 * (cli/usage.h), so both say the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "cli/parse.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/text.h"

#include "core/banned.h"

/* Usage text is wrapped to fit 80 columns. */
#define USAGE_WIDTH	79
/* Option specs wider than this put their help on the next line. */
#define USAGE_SPEC_MAX	26

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
	if (o->argh != NULL && (cli_takes_value(o) || o->type == RAI_OPT_LEVEL))
		rai_buf_addf(b, " %s", o->argh);
}

/* The help line, with the default and requiredness appended. */
void
cli_opt_help(const struct rai_opt *o, struct rai_buf *b)
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
		if (!cli_opt_visible(&t[i]))
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
		if (!cli_opt_visible(&t[i]))
			continue;
		rai_buf_reset(&spec);
		rai_buf_reset(&help);
		opt_spec(&t[i], &spec);
		cli_opt_help(&t[i], &help);
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

int
cli_has_visible_opts(const struct rai_opt *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++)
		if (cli_opt_visible(&t[i]))
			return 1;
	return 0;
}

static void
print_cmd_list(FILE *fp, const struct rai_cmd *const *list)
{
	size_t i, w = 0;

	for (i = 0; list[i] != NULL; i++)
		if (cli_cmd_visible(list[i]) && strlen(list[i]->name) > w)
			w = strlen(list[i]->name);
	fprintf(fp, "\ncommands:\n");
	for (i = 0; list[i] != NULL; i++)
		if (cli_cmd_visible(list[i]))
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
		return cli_has_visible_opts(cmd->opts) ? "[options] [<args>]" :
		    "[<args>]";
	return cli_has_visible_opts(cmd->opts) ? "[options]" : "";
}

const char *
cli_synopsis_of(const struct rai_prog *prog, const struct rai_cmd *cmd)
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

/* Whether the program has commands a user may name (rntop has none). */
static int
has_commands(const struct rai_prog *prog)
{
	size_t i;

	for (i = 0; prog->cmds != NULL && prog->cmds[i] != NULL; i++)
		if (cli_cmd_visible(prog->cmds[i]))
			return 1;
	return 0;
}

void
cli_print_usage_of(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	char *subj = cli_subject(prog, path);
	const char *summary = cmd ? cmd->summary : prog->summary;
	const struct rai_opt *t = cli_cmd_opts(cmd);
	size_t w;

	print_synopsis(fp, subj, cli_synopsis_of(prog, cmd));
	if (summary != NULL)
		fprintf(fp, "\n%s\n", summary);
	if (cli_children(prog, cmd) != NULL)
		print_cmd_list(fp, cli_children(prog, cmd));
	if (cmd == NULL) {
		w = spec_width(prog->global_opts, 10);
		fprintf(fp, "\nglobal options:\n");
		print_opt_lines(fp, prog->global_opts, w);
		fprintf(fp, "    -h, --help%*s", (int)(w - 10 + 2), "");
		put_wrapped(fp, "show this usage; --help shows the manual page",
		    4 + w + 2, 4 + w + 2);
		if (has_commands(prog))
			fprintf(fp, "\nsee '%s <command> -h' for the options "
			    "of a command, '%s help <command>' for its manual "
			    "page\n", prog->name, prog->name);
	} else {
		if (cli_has_visible_opts(t)) {
			fputc('\n', fp);
			print_opt_lines(fp, t, spec_width(t, 0));
		}
		if (cli_has_visible_opts(prog->global_opts))
			fprintf(fp, "\nglobal options: see '%s -h'\n",
			    prog->name);
	}
	free(subj);
}

int
rai_print_usage(const struct rai_prog *prog, const char *cmdpath, FILE *fp)
{
	const struct rai_cmd *cmd;

	if (cli_resolve_path(prog, cmdpath, &cmd) == -1)
		return -1;
	cli_print_usage_of(prog, cmd, cmdpath, fp);
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
void
cli_print_long_help(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	const char *desc = cmd ? cmd->description : prog->description;
	const struct rai_example *ex = cmd ? cmd->examples : NULL;

	cli_print_usage_of(prog, cmd, path, fp);
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

/* ---- usage errors ---- */

/* "runai list: <message>" and where to look, for usage errors. */
void
cli_print_usage_error(struct parse *p)
{
	char *subj = cli_subject(p->prog, rai_buf_str(&p->path));
	char *msg = rai_text_sanitize(p->err.message ? p->err.message :
	    "usage error");

	/* the message quotes the command line: no escapes reach the tty */
	fprintf(stderr, "%s: %s\n", subj, msg);
	fprintf(stderr, "see '%s -h'\n", subj);
	free(msg);
	free(subj);
}
