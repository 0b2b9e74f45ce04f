/*
 * Running a program: rai_main hands the hidden words (__complete,
 * __gen) to their handlers, parses the command line, answers -h and
 * --help, and runs the command with its context, turning its errors
 * and failed writes to stdout into the exit code. The top of the
 * engine: it uses the parser, usage, man pages and completion, and
 * none of them includes it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/completion.h"
#include "cli/man.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "cli/usage.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"

#include "core/banned.h"

/* ---- -h and --help ---- */

/*
 * The usage or page of the command under the name typed, unless that
 * name is deprecated: then under the current one, which is the news.
 */
static int
show_help(struct parse *p)
{
	const char *path = p->typed.len > 0 && p->cmd_note == NULL ?
	    rai_buf_str(&p->typed) : rai_buf_str(&p->path);

	if (p->help == 1) {
		cli_print_usage_of(p->prog, p->cmd, path, stdout);
		return 0;
	}
	/*
	 * An alias has no page of its own ("training tf logs"): the page
	 * of the name it stands for has the same text.
	 */
	if (isatty(STDOUT_FILENO) && (cli_run_man(p->prog, path) == 0 ||
	    (path != rai_buf_str(&p->path) &&
	    cli_run_man(p->prog, rai_buf_str(&p->named)) == 0)))
		return 0;
	cli_print_long_help(p->prog, p->cmd, path, stdout);
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
	ctx->given = p->cseen;
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

	cli_parse_init(&p, prog);
	if (cli_parse_command_line(&p, argc, argv) == -1) {
		if (p.err.kind == RAI_E_USAGE) {
			cli_print_usage_error(&p);
		} else {
			rai_err_print(&p.err, stderr, prog->name);
		}
		rc = rai_err_exit_code(&p.err);
	} else if (p.help) {
		rc = check_stdout(prog, show_help(&p));
	} else if (p.cmd == NULL && p.version &&
	    (version = cli_find_child(prog->cmds, "version")) != NULL) {
		cli_parse_release(&p);
		return dispatch(prog, 1, (char *[]){ (char *)(uintptr_t)
		    version->name, NULL });
	} else if (p.cmd == NULL) {
		cli_print_usage_of(prog, NULL, "", stderr);
		rc = 2;
	} else {
		cli_print_notes(&p);
		rc = run_command(&p);
	}
	cli_parse_release(&p);
	return rc;
}

int
rai_main(const struct rai_prog *prog, int argc, char **argv)
{
	rai_warn_set_program(prog->name);
	if (argc >= 2 && strcmp(argv[1], "__complete") == 0)
		return cli_complete_main(prog, argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "__gen") == 0)
		return gen_main(prog, argc - 2, argv + 2);
	return dispatch(prog, argc > 0 ? argc - 1 : 0, argv + (argc > 0));
}
