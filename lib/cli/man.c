/*
 * Man pages from the command tables: the roff of one command's page
 * (rai_gen_man), every page into a folder (rai_gen_man_all, behind
 * "__gen man"), and showing the installed page for --help on a
 * terminal (run_man). Page names and sections are decided here only.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/man.h"
#include "cli/opt.h"
#include "cli/parse.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/text.h"

#include "core/banned.h"

extern char **environ;

/* ---- page names ---- */

/* "runai-list-projects" for "list projects". */
static char *
page_name(const struct rai_prog *prog, const char *path)
{
	char *s = cli_subject(prog, path), *q;

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
	if (o->argh != NULL && (cli_takes_value(o) || o->type == RAI_OPT_LEVEL)) {
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
		if (!cli_opt_visible(&t[i]))
			continue;
		fputs(".TP\n", fp);
		roff_opt_tag(fp, &t[i]);
		rai_buf_reset(&help);
		cli_opt_help(&t[i], &help);
		roff_line(fp, rai_buf_str(&help));
	}
	rai_buf_release(&help);
}

static int
has_deprecated_opts(const struct rai_opt *t)
{
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++)
		if (cli_opt_deprecated(&t[i]))
			return 1;
	return 0;
}

/* Old options that still work, each with what to use instead. */
static void
roff_deprecated_opts(FILE *fp, const struct rai_opt *t)
{
	size_t i;

	if (!has_deprecated_opts(t))
		return;
	fputs(".SH \"DEPRECATED OPTIONS\"\n", fp);
	roff_line(fp, "Still accepted, with a warning on standard error; "
	    "standard output is the same as with the current form.");
	for (i = 0; t[i].long_name != NULL; i++) {
		if (!cli_opt_deprecated(&t[i]))
			continue;
		fputs(".TP\n", fp);
		roff_opt_tag(fp, &t[i]);
		roff_line(fp, t[i].deprecated);
	}
}

/* "get", then "project list", "project set": every old command below. */
static void
roff_deprecated_list(FILE *fp, const char *path,
    const struct rai_cmd *const *list, int under_old)
{
	char *cp;
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cli_cmd_deprecated(list[i]) && !(under_old &&
		    !(list[i]->flags & RAI_CMD_HIDDEN)))
			continue;
		cp = *path ? xasprintf("%s %s", path, list[i]->name) :
		    xstrdup(list[i]->name);
		if (list[i]->subcmds != NULL) {
			roff_deprecated_list(fp, cp, list[i]->subcmds, 1);
		} else {
			fputs(".TP\n\\fB", fp);
			roff_text(fp, cp, 0);
			fputs("\\fR\n", fp);
			roff_line(fp, list[i]->deprecated ? list[i]->deprecated :
			    "deprecated");
		}
		free(cp);
	}
}

static int
has_deprecated_cmds(const struct rai_cmd *const *list)
{
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (cli_cmd_deprecated(list[i]))
			return 1;
	return 0;
}

static void
roff_deprecated_cmds(FILE *fp, const struct rai_cmd *const *list)
{
	if (!has_deprecated_cmds(list))
		return;
	fputs(".SH \"DEPRECATED COMMANDS\"\n", fp);
	roff_line(fp, "Names the original CLI used, still accepted with a "
	    "warning on standard error:");
	roff_deprecated_list(fp, "", list, 0);
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
		if (!cli_cmd_visible(list[i]))
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
		if (!cli_cmd_visible(list[i]))
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
	char *subj = cli_subject(prog, path);
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

/*
 * The page of the command at path; for another name of a command (a
 * forward that is not deprecated: "runai workspace logs" for "runai
 * logs"), the page of the command it stands for, under its own name.
 */
static void
write_page(const struct rai_prog *prog, const struct rai_cmd *cmd,
    const char *path, FILE *fp)
{
	const char *desc = cmd ? cmd->description : prog->description;
	const char *name_path = path, *summary = cmd ? cmd->summary :
	    prog->summary;
	const struct rai_cmd *target;
	char *subj = NULL;

	if (cmd != NULL && cmd->forward != NULL &&
	    cli_resolve_path(prog, cmd->forward, &target) == 0 &&
	    target != NULL) {
		subj = cli_subject(prog, cmd->forward);
		path = cmd->forward;
		cmd = target;
		desc = cmd->description;
	}
	roff_header(fp, prog, name_path, summary);
	roff_synopsis(fp, prog, path, cli_synopsis_of(prog, cmd));
	fputs(".SH DESCRIPTION\n", fp);
	if (subj != NULL) {
		fputs("The same as \\fB", fp);
		roff_text(fp, subj, 0);
		fputs("\\fR.\n.PP\n", fp);
	}
	roff_prose(fp, desc ? desc : (cmd ? cmd->summary : prog->summary));
	if (cli_children(prog, cmd) != NULL) {
		roff_commands(fp, prog, path, cli_children(prog, cmd));
		roff_deprecated_cmds(fp, cli_children(prog, cmd));
	}
	if (cmd != NULL && cli_has_visible_opts(cmd->opts)) {
		fputs(".SH OPTIONS\n", fp);
		roff_opts(fp, cmd->opts);
	}
	if (cmd != NULL)
		roff_deprecated_opts(fp, cmd->opts);
	fputs(cmd ? ".SH \"GLOBAL OPTIONS\"\n" : ".SH OPTIONS\n", fp);
	roff_opts(fp, prog->global_opts);
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n"
	    "show a short usage (\\fB\\-h\\fR) or this manual page "
	    "(\\fB\\-\\-help\\fR)\n", fp);
	roff_examples(fp, cmd ? cmd->examples : NULL);
	fputs(".SH \"EXIT STATUS\"\n", fp);
	if (cmd != NULL && cmd->exit_status != NULL)
		roff_terms(fp, cmd->exit_status);
	else
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
	roff_see_also(fp, prog, path, cli_children(prog, cmd));
	free(subj);
}

int
rai_gen_man(const struct rai_prog *prog, const char *cmdpath, FILE *fp,
    struct rai_err *err)
{
	const struct rai_cmd *cmd;

	if (cli_resolve_path(prog, cmdpath, &cmd) == -1)
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
	const struct rai_cmd *const *list = cli_children(prog, cmd);
	char *cp;
	size_t i;
	int rc;

	if (write_page_file(prog, cmd, path, dir, err) == -1)
		return -1;
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (!cli_cmd_visible(list[i]))
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

/* ---- showing a page ---- */

/*
 * Shows the manual page on a terminal; 0 when man showed it. man's
 * stderr goes to /dev/null: when the page is not installed the long
 * help text follows instead, and "No manual entry" before it is noise.
 */
int
cli_run_man(const struct rai_prog *prog, const char *path)
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
