/*
 * Unit tests of the option engine (lib/cli/) against a sample
 * program defined here: parsing and every usage error message, -h and
 * --help text, man pages, completion scripts and __complete answers.
 *
 * "t_opt --prog ARGS..." runs the sample program itself, so the docs
 * test (tests/e2e/t9000-docs-current.bats) can check its man pages and
 * drive the bash script before the real programs exist.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/opt.h"
#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"

#include "core/strv.h"
#include "core/time.h"
#include "harness.h"
#include "golden.h"

/* ---- the sample program ---- */

struct tg {
	const char	*project;
	const char	*kubeconfig;
	int		 verbosity;
	long		 timeout;
};

struct submit_opts {
	double		 gpu;
	int		 interactive;
	struct rai_strv	 env;
	const char	*image;
	const char	*password;
	long		 count;
	long		 timeout;
	const char	*mode;
	int		 quiet;
	int		 hidden;
	const char	*label;
	const char	*workdir;
	int		 shm;		/* tri-state */
	long		 retries;	/* tri-state */
};

struct output_opts {
	const char	*output;
	int		 all;
};

/* What the last run saw; owned copies, released by rec_reset(). */
static struct {
	char		*cmdpath;
	struct tg	 g;
	char		*project;
	struct submit_opts so;
	struct rai_strv	 env;
	char		*password;
	char		*image;
	char		*label;
	struct output_opts oo;
	struct rai_strv	 pos;
	int		 runs;
	int		 setups;
	unsigned	 setup_flags;
	int		 teardowns;
	int		 completes;
} rec;

static void
rec_reset(void)
{
	free(rec.cmdpath);
	free(rec.project);
	free(rec.password);
	free(rec.image);
	free(rec.label);
	rai_strv_release(&rec.env);
	rai_strv_release(&rec.pos);
	memset(&rec, 0, sizeof(rec));
}

static void
record(struct rai_ctx *ctx, int argc, char **argv)
{
	const struct tg *g = ctx->globals;
	int i;

	rec.runs++;
	rec.cmdpath = xstrdup(ctx->cmdpath);
	rec.g = *g;
	rec.project = g->project ? xstrdup(g->project) : NULL;
	rec.g.project = NULL;
	for (i = 0; i < argc; i++)
		rai_strv_push(&rec.pos, argv[i]);
}

static int
run_record(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	record(ctx, argc, argv);
	return 0;
}

static int
run_output(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	record(ctx, argc, argv);
	rec.oo = *(struct output_opts *)opts;
	return 0;
}

static int
run_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct submit_opts *o = opts;
	size_t i;

	record(ctx, argc, argv);
	rec.so = *o;
	memset(&rec.so.env, 0, sizeof(rec.so.env));
	rec.so.password = NULL;
	for (i = 0; i < o->env.n; i++)
		rai_strv_push(&rec.env, o->env.v[i]);
	rec.password = o->password ? xstrdup(o->password) : NULL;
	/* argv is gone when the test looks: keep copies */
	rec.so.image = rec.image = o->image ? xstrdup(o->image) : NULL;
	rec.so.label = rec.label = o->label ? xstrdup(o->label) : NULL;
	rec.so.workdir = NULL;
	return 0;
}

static int
run_fail(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND, "job '%s' not found",
	    argv[0]);
	return -1;
}

static int
run_exit3(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	fprintf(stderr, "tprog: own message\n");
	return 3;
}

static int
run_noerr(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return -1;
}

static int
run_write(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	fprintf(ctx->out, "some output\n");
	return 0;
}

static int
label_cb(void *opts, const char *arg, struct rai_err *err)
{
	struct submit_opts *o = opts;

	if (strchr(arg, '=') == NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid label '%s': "
		    "expected key=value", arg);
	o->label = arg;
	return 0;
}

static const char *const mode_choices[] = { "train", "interactive", NULL };

static const struct rai_opt tg_opts[] = {
	{ 'p', "project", RAI_OPT_STRING, offsetof(struct tg, project),
	    "<name>", "project to use", NULL, NULL, RAI_COMP_PROJECT, 0, NULL },
	{ 0, "kubeconfig", RAI_OPT_STRING, offsetof(struct tg, kubeconfig),
	    "<file>", "kubeconfig file to use", NULL, NULL, RAI_COMP_FILE, 0,
	    NULL },
	{ 'v', "verbosity", RAI_OPT_LEVEL, offsetof(struct tg, verbosity),
	    "<level>", "log level: -v notes, -v=6 requests, -v=8 bodies "
	    "(secrets redacted)", NULL, NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "request-timeout", RAI_OPT_DURATION,
	    offsetof(struct tg, timeout), "<duration>",
	    "time limit for each API request", NULL, NULL, RAI_COMP_NONE, 0,
	    NULL },
	RAI_OPT_END
};

static const struct rai_opt submit_opts[] = {
	{ 'g', "gpu", RAI_OPT_DOUBLE, offsetof(struct submit_opts, gpu),
	    "<count>", "GPUs to request; fractions share one", "1", NULL,
	    RAI_COMP_NONE, 0, NULL },
	{ 'i', "interactive", RAI_OPT_BOOL,
	    offsetof(struct submit_opts, interactive), NULL,
	    "an interactive workload", NULL, NULL, RAI_COMP_NONE,
	    RAI_OPT_NEGATABLE, NULL },
	{ 'e', "env", RAI_OPT_LIST, offsetof(struct submit_opts, env),
	    "<key=value>", "environment variable; repeat for more",
	    "DEFAULT=1", NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "image", RAI_OPT_STRING, offsetof(struct submit_opts, image),
	    "<image>", "container image", NULL, NULL, RAI_COMP_NONE,
	    RAI_OPT_REQUIRED, NULL },
	{ 'P', "password", RAI_OPT_STRING,
	    offsetof(struct submit_opts, password), "<password>",
	    "registry password", NULL, NULL, RAI_COMP_NONE, RAI_OPT_SECRET,
	    NULL },
	{ 0, "count", RAI_OPT_INT, offsetof(struct submit_opts, count), "<n>",
	    "number of pods", "3", NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "timeout", RAI_OPT_DURATION,
	    offsetof(struct submit_opts, timeout), "<duration>",
	    "give up after this long", "5m", NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "mode", RAI_OPT_ENUM, offsetof(struct submit_opts, mode),
	    "<mode>", "train or interactive", "train", mode_choices,
	    RAI_COMP_CHOICES, 0, NULL },
	{ 'q', "quiet", RAI_OPT_COUNT, offsetof(struct submit_opts, quiet),
	    NULL, "print less; repeat for even less", NULL, NULL,
	    RAI_COMP_NONE, 0, NULL },
	{ 0, "hidden-opt", RAI_OPT_BOOL, offsetof(struct submit_opts, hidden),
	    NULL, "not shown anywhere", NULL, NULL, RAI_COMP_NONE,
	    RAI_OPT_HIDDEN, NULL },
	{ 0, "label", RAI_OPT_CALLBACK, 0, "<key=value>",
	    "a label for the workload, which is a sentence long enough to "
	    "need wrapping in the usage text at eighty columns", NULL, NULL,
	    RAI_COMP_NONE, 0, label_cb },
	{ 0, "workdir", RAI_OPT_STRING, offsetof(struct submit_opts, workdir),
	    "<dir>", "working directory", NULL, NULL, RAI_COMP_DIR, 0, NULL },
	{ 0, "shm", RAI_OPT_BOOL, offsetof(struct submit_opts, shm), NULL,
	    "a large /dev/shm", NULL, NULL, RAI_COMP_NONE,
	    RAI_OPT_TRISTATE | RAI_OPT_NEGATABLE, NULL },
	{ 0, "retries", RAI_OPT_INT, offsetof(struct submit_opts, retries),
	    "<n>", "retries of a failed pod", NULL, NULL, RAI_COMP_NONE,
	    RAI_OPT_TRISTATE, NULL },
	RAI_OPT_END
};

static const struct rai_opt output_opts[] = {
	{ 'o', "output", RAI_OPT_ENUM, offsetof(struct output_opts, output),
	    "<format>", "output format: wide, json, yaml or name", NULL,
	    rai_out_choices, RAI_COMP_CHOICES, 0, NULL },
	{ 'A', "all", RAI_OPT_BOOL, offsetof(struct output_opts, all), NULL,
	    "all projects", NULL, NULL, RAI_COMP_NONE, 0, NULL },
	RAI_OPT_END
};

static const struct rai_example submit_examples[] = {
	{ "tprog submit --image ubuntu -g 0.5 -- sleep 60",
	    "half a GPU, running \"sleep 60\"" },
	{ ".tprog -e 'A=\\1' submit", "a leading dot and a backslash" },
	{ NULL, NULL }
};

static const struct rai_cmd cmd_submit = {
	.name = "submit",
	.summary = "submit a workload",
	.synopsis = "[options] [<name>] [-- <command> <args>...]",
	.description = "Creates a workload from the options; without a name "
	    "one is made up.\n\n"
	    ".dotfiles are ignored, a backslash \\ stays, and a naïve café "
	    "prints\nas it is.",
	.examples = submit_examples,
	.opts = submit_opts,
	.opts_size = sizeof(struct submit_opts),
	.args_min = 0,
	.args_max = 1,
	.flags = RAI_CMD_NEED_PROJECT,
	.run = run_submit,
};

static const struct rai_cmd cmd_list_projects = {
	.name = "projects",
	.aliases = (const char *const[]){ "project", NULL },
	.summary = "list the projects",
	.synopsis = "[-o wide|json|yaml|name] [-A]",
	.opts = output_opts,
	.opts_size = sizeof(struct output_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = run_output,
};

static const struct rai_cmd cmd_list_nodes = {
	.name = "nodes",
	.aliases = (const char *const[]){ "node", NULL },
	.summary = "list the nodes",
	.synopsis = "[<node>...] [-o wide|json|yaml|name]",
	.opts = output_opts,
	.opts_size = sizeof(struct output_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = run_output,
};

static const struct rai_cmd cmd_list_secret = {
	.name = "secrets",
	.summary = "hidden",
	.flags = RAI_CMD_HIDDEN,
	.run = run_record,
};

static const struct rai_cmd *const list_subcmds[] = {
	&cmd_list_nodes, &cmd_list_projects, &cmd_list_secret, NULL
};

static const struct rai_cmd cmd_list = {
	.name = "list",
	.summary = "list nodes or projects",
	.args_max = -1,
	.subcmds = list_subcmds,
};

static const struct rai_cmd cmd_config_project = {
	.name = "project",
	.summary = "set the default project",
	.synopsis = "<project>",
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_PROJECT,
	.run = run_record,
};

static const struct rai_cmd cmd_config_cluster = {
	.name = "cluster",
	.summary = "set the current context",
	.synopsis = "<context>",
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_CONTEXT,
	.run = run_record,
};

static const struct rai_cmd *const config_subcmds[] = {
	&cmd_config_cluster, &cmd_config_project, NULL
};

/* A command with both subcommands and its own run ("get" = "get all"). */
static const struct rai_cmd cmd_get = {
	.name = "get",
	.summary = "show things",
	.args_min = 0,
	.args_max = 0,
	.subcmds = config_subcmds,
	.run = run_record,
};

static const struct rai_cmd cmd_config = {
	.name = "config",
	.summary = "change the kubeconfig",
	.synopsis = "cluster|project <name>",
	.subcmds = config_subcmds,
};

static const struct rai_cmd cmd_describe = {
	.name = "describe",
	.summary = "describe one to three jobs",
	.synopsis = "<job> [<job> [<job>]]\n--all",
	.args_min = 1,
	.args_max = 3,
	.run = run_record,
};

static const struct rai_cmd cmd_logs = {
	.name = "logs",
	.summary = "show logs",
	.args_min = 1,
	.args_max = -1,
	.run = run_record,
};

static const struct rai_cmd cmd_version = {
	.name = "version",
	.summary = "print the version",
	.args_max = 0,
	.run = run_record,
};

static const struct rai_cmd cmd_fail = {
	.name = "fail", .summary = "fails", .args_min = 1, .args_max = 1,
	.run = run_fail, .flags = RAI_CMD_HIDDEN,
};
static const struct rai_cmd cmd_exit3 = {
	.name = "exit3", .summary = "exits 3", .run = run_exit3,
	.flags = RAI_CMD_HIDDEN,
};
static const struct rai_cmd cmd_noerr = {
	.name = "noerr", .summary = "fails silently", .run = run_noerr,
	.flags = RAI_CMD_HIDDEN,
};
static const struct rai_cmd cmd_write = {
	.name = "write", .summary = "writes", .run = run_write,
	.flags = RAI_CMD_HIDDEN,
};

static const struct rai_cmd *const tprog_cmds[] = {
	&cmd_config, &cmd_describe, &cmd_exit3, &cmd_fail, &cmd_get,
	&cmd_list, &cmd_logs, &cmd_noerr, &cmd_submit, &cmd_version,
	&cmd_write, NULL
};

static int
tprog_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct tg *g = ctx->globals;

	rec.setups++;
	rec.setup_flags = flags;
	if (g->project != NULL && strcmp(g->project, "fail-setup") == 0)
		return rai_err_set(err, RAI_E_CONFIG, "no such project");
	return 0;
}

static void
tprog_teardown(struct rai_ctx *ctx)
{
	rec.teardowns++;
}

static int
tprog_complete(struct rai_ctx *ctx, enum rai_comp comp, const char *prefix,
    struct rai_strv *out)
{
	const struct tg *g = ctx->globals;

	rec.completes++;
	if (g->kubeconfig != NULL && strcmp(g->kubeconfig, "other") == 0) {
		rai_strv_push(out, "other-project");
		return 0;
	}
	switch (comp) {
	case RAI_COMP_PROJECT:
		rai_strv_push(out, "alpha");
		rai_strv_push(out, "beta");
		rai_strv_push(out, "gamma");
		rai_strv_push(out, "bad\nname");
		break;
	case RAI_COMP_NODE:
		rai_strv_push(out, "node-1");
		rai_strv_push(out, "node-2");
		break;
	case RAI_COMP_CONTEXT:
		rai_strv_push(out, "arn:aws:ctx");
		break;
	default:
		break;
	}
	return 0;
}

static const struct rai_prog tprog = {
	.name = "tprog",
	.summary = "a sample program for the option engine",
	.description = "tprog exercises every table feature.\n\n"
	    "A second paragraph,\nwith a forced line break.",
	.version = "0.0.1",
	.man_section = 1,
	.global_opts = tg_opts,
	.globals_size = sizeof(struct tg),
	.cmds = tprog_cmds,
	.environment = "TPROG_DEBUG\nSet to 1 for more output.\n\n"
	    "NO_COLOR\nDisables colour.",
	.files = "~/.tprog\nThe state file.",
	.setup = tprog_setup,
	.teardown = tprog_teardown,
	.complete = tprog_complete,
};

/* ---- running it with captured output ---- */

struct cap {
	char	**argv;
	int	  argc;
	char	 *out;
	char	 *err;
	int	  rc;
};

static char *
read_fd(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *buf = xmalloc((size_t)n + 1);
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	got = read(fd, buf, (size_t)n);
	buf[got > 0 ? got : 0] = '\0';
	return buf;
}

/* Runs tprog with the words (NULL-terminated) on a fresh, writable argv. */
static void
cap_runv(struct cap *c, const char *stdout_path, va_list ap)
{
	FILE *o = tmpfile(), *e = tmpfile();
	const char *w;
	int so, se, fd;

	memset(c, 0, sizeof(*c));
	c->argv = xcalloc(64, sizeof(*c->argv));
	c->argv[c->argc++] = xstrdup("tprog");
	while ((w = va_arg(ap, const char *)) != NULL && c->argc < 63)
		c->argv[c->argc++] = xstrdup(w);
	rec_reset();
	fflush(stdout);
	so = dup(1);
	se = dup(2);
	fd = stdout_path ? open(stdout_path, O_WRONLY) : fileno(o);
	dup2(fd, 1);
	dup2(fileno(e), 2);
	c->rc = rai_main(&tprog, c->argc, c->argv);
	fflush(stdout);
	clearerr(stdout);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	if (stdout_path)
		close(fd);
	c->out = read_fd(fileno(o));
	c->err = read_fd(fileno(e));
	fclose(o);
	fclose(e);
}

static void
cap_run(struct cap *c, ...)
{
	va_list ap;

	va_start(ap, c);
	cap_runv(c, NULL, ap);
	va_end(ap);
}

static void
cap_run_to(struct cap *c, const char *path, ...)
{
	va_list ap;

	va_start(ap, path);
	cap_runv(c, path, ap);
	va_end(ap);
}

static void
cap_free(struct cap *c)
{
	int i;

	for (i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	free(c->out);
	free(c->err);
}

/* A usage error: exit 2, nothing on stdout, exactly this on stderr. */
#define T_USAGE_ERR(want, ...) do {					\
	struct cap c_;							\
	cap_run(&c_, __VA_ARGS__, (const char *)NULL);			\
	T_INT_EQ(c_.rc, 2);						\
	T_STR_EQ(c_.out, "");						\
	T_STR_EQ(c_.err, want);						\
	T_INT_EQ(rec.runs, 0);						\
	cap_free(&c_);							\
} while (0)

/* Runs fine: exit 0, nothing on stderr. */
#define T_RUNS(...) do {						\
	struct cap c_;							\
	cap_run(&c_, __VA_ARGS__, (const char *)NULL);			\
	T_INT_EQ(c_.rc, 0);						\
	T_STR_EQ(c_.err, "");						\
	T_INT_EQ(rec.runs, 1);						\
	cap_free(&c_);							\
} while (0)

/* ---- parsing ---- */

TEST(globals_before_between_and_after_command_words)
{
	T_RUNS("-p", "a", "list", "projects");
	T_STR_EQ(rec.project, "a");
	T_STR_EQ(rec.cmdpath, "list projects");
	T_RUNS("list", "projects", "-p", "b");
	T_STR_EQ(rec.project, "b");
	T_RUNS("list", "-p", "c", "projects");
	T_STR_EQ(rec.project, "c");
	T_STR_EQ(rec.cmdpath, "list projects");
	T_RUNS("--project=d", "list", "projects");
	T_STR_EQ(rec.project, "d");
	T_RUNS("list", "projects", "--project", "e", "-A", "-ojson");
	T_STR_EQ(rec.project, "e");
	T_INT_EQ(rec.oo.all, 1);
	T_STR_EQ(rec.oo.output, "json");
	T_RUNS("--request-timeout", "1m30s", "version");
	T_INT_EQ(rec.g.timeout, 90);
	T_STR_EQ(rec.cmdpath, "version");
}

TEST(setup_gets_the_command_flags_and_teardown_runs)
{
	T_RUNS("list", "projects");
	T_INT_EQ(rec.setups, 1);
	T_UINT_EQ(rec.setup_flags, RAI_CMD_NEED_CLIENT);
	T_INT_EQ(rec.teardowns, 1);
}

TEST(level_forms)
{
	static const struct {
		const char	*a, *b;
		int		 want;
	} cases[] = {
		{ "-v", NULL, 1 }, { "-vv", NULL, 2 }, { "-vvv", NULL, 3 },
		{ "-v=8", NULL, 8 }, { "-v8", NULL, 8 }, { "-v10", NULL, 10 },
		{ "--verbosity=8", NULL, 8 }, { "--verbosity", "7", 7 },
		{ "-v", "-v", 2 }, { "-v=0", NULL, 0 },
		/* kubectl's -v 6: a word of digits after -v is its level */
		{ "-v", "6", 6 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		if (cases[i].b)
			T_RUNS(cases[i].a, cases[i].b, "version");
		else
			T_RUNS("version", cases[i].a);
		T_INT_EQ(rec.g.verbosity, cases[i].want);
	}
	T_RUNS("version", "-v", "7");
	T_INT_EQ(rec.g.verbosity, 7);
	T_USAGE_ERR("tprog version: invalid value 'x' for --verbosity: "
	    "expected a level 0 or higher\nsee 'tprog version -h'\n",
	    "version", "-v=x");
	T_USAGE_ERR("tprog version: invalid value '-1' for --verbosity: "
	    "expected a level 0 or higher\nsee 'tprog version -h'\n",
	    "version", "--verbosity=-1");
	T_USAGE_ERR("tprog version: option '--verbosity' requires a value\n"
	    "see 'tprog version -h'\n", "version", "--verbosity");
}

TEST(dashdash_ends_options)
{
	T_RUNS("describe", "--", "-a", "--b", "-");
	T_UINT_EQ(rec.pos.n, 3);
	T_STR_EQ(rec.pos.v[0], "-a");
	T_STR_EQ(rec.pos.v[1], "--b");
	T_STR_EQ(rec.pos.v[2], "-");
	T_RUNS("submit", "--image", "i", "--", "--image");
	T_STR_EQ(rec.so.image, "i");
	T_UINT_EQ(rec.pos.n, 1);
	T_STR_EQ(rec.pos.v[0], "--image");
	T_USAGE_ERR("tprog submit: expected at most 1 argument, got 2\n"
	    "see 'tprog submit -h'\n", "submit", "--image", "i", "job", "--",
	    "sleep");
	/* a lone "-" is a positional (stdin, by convention) */
	T_RUNS("logs", "-");
	T_STR_EQ(rec.pos.v[0], "-");
}

TEST(positionals_mix_with_options)
{
	T_RUNS("list", "nodes", "n1", "-o", "wide", "n2", "-p", "x", "n3");
	T_UINT_EQ(rec.pos.n, 3);
	T_STR_EQ(rec.pos.v[2], "n3");
	T_STR_EQ(rec.oo.output, "wide");
	T_STR_EQ(rec.project, "x");
}

TEST(aliases_and_defaults)
{
	T_RUNS("list", "project");
	T_STR_EQ(rec.cmdpath, "list projects");
	T_RUNS("list", "node", "n1");
	T_STR_EQ(rec.cmdpath, "list nodes");
	T_RUNS("submit", "--image", "ubuntu");
	T_DBL_EQ(rec.so.gpu, 1.0);
	T_INT_EQ(rec.so.count, 3);
	T_INT_EQ(rec.so.timeout, 300);
	T_STR_EQ(rec.so.mode, "train");
	T_UINT_EQ(rec.env.n, 1);
	T_STR_EQ(rec.env.v[0], "DEFAULT=1");
	T_NULL(rec.password);
	T_INT_EQ(rec.so.interactive, 0);
	T_UINT_EQ(rec.setup_flags, RAI_CMD_NEED_PROJECT);
}

TEST(value_forms)
{
	T_RUNS("submit", "--image=u", "-g2");
	T_DBL_EQ(rec.so.gpu, 2.0);
	T_RUNS("submit", "--image", "u", "-g=0.25");
	T_DBL_EQ(rec.so.gpu, 0.25);
	T_RUNS("submit", "--image", "u", "-g", "3");
	T_DBL_EQ(rec.so.gpu, 3.0);
	T_RUNS("submit", "--image", "u", "--gpu=0.5", "--count", "-7");
	T_DBL_EQ(rec.so.gpu, 0.5);
	T_INT_EQ(rec.so.count, -7);
	/* an option's value may start with '-' */
	T_RUNS("submit", "--image", "-weird");
	T_STR_EQ(rec.so.image, "-weird");
	T_RUNS("submit", "--image=", "--timeout", "1h30m", "--mode",
	    "interactive");
	T_STR_EQ(rec.so.image, "");
	T_INT_EQ(rec.so.timeout, 5400);
	T_STR_EQ(rec.so.mode, "interactive");
}

TEST(flags_clusters_counts_and_negation)
{
	T_RUNS("submit", "--image", "u", "-iqq", "-q");
	T_INT_EQ(rec.so.interactive, 1);
	T_INT_EQ(rec.so.quiet, 3);
	T_RUNS("submit", "--image", "u", "-i", "--no-interactive");
	T_INT_EQ(rec.so.interactive, 0);
	T_RUNS("submit", "--image", "u", "--interactive=true");
	T_INT_EQ(rec.so.interactive, 1);
	T_RUNS("submit", "--image", "u", "-i", "--interactive=false");
	T_INT_EQ(rec.so.interactive, 0);
	T_RUNS("submit", "--image", "u", "--interactive=1");
	T_INT_EQ(rec.so.interactive, 1);
	T_RUNS("submit", "--image", "u", "-i", "--interactive=F");
	T_INT_EQ(rec.so.interactive, 0);
	/* a cluster ending in an option with a value takes the next word */
	T_RUNS("submit", "--image", "u", "-qg", "4");
	T_DBL_EQ(rec.so.gpu, 4.0);
	T_INT_EQ(rec.so.quiet, 1);
	T_RUNS("submit", "--image", "u", "--hidden-opt");
	T_INT_EQ(rec.so.hidden, 1);
}

TEST(tristate_options_tell_unset_from_off)
{
	T_RUNS("submit", "--image", "u");
	T_INT_EQ(rec.so.shm, -1);
	T_INT_EQ(rec.so.retries, -1);
	T_RUNS("submit", "--image", "u", "--shm", "--retries", "0");
	T_INT_EQ(rec.so.shm, 1);
	T_INT_EQ(rec.so.retries, 0);
	T_RUNS("submit", "--image", "u", "--shm=false");
	T_INT_EQ(rec.so.shm, 0);
	T_RUNS("submit", "--image", "u", "--no-shm");
	T_INT_EQ(rec.so.shm, 0);
	/* -1 means "unset", so it cannot be given */
	T_USAGE_ERR("tprog submit: invalid value '-1' for --retries: expected "
	    "an integer of 0 or more\nsee 'tprog submit -h'\n", "submit",
	    "--image", "u", "--retries", "-1");
}

TEST(lists_replace_their_default)
{
	T_RUNS("submit", "--image", "u", "-e", "A=1", "--env=B=2", "-eC=3");
	T_UINT_EQ(rec.env.n, 3);
	T_STR_EQ(rec.env.v[0], "A=1");
	T_STR_EQ(rec.env.v[1], "B=2");
	T_STR_EQ(rec.env.v[2], "C=3");
}

TEST(callbacks_get_the_value)
{
	T_RUNS("submit", "--image", "u", "--label", "a=b");
	T_STR_EQ(rec.so.label, "a=b");
	T_USAGE_ERR("tprog submit: invalid label 'ab': expected key=value\n"
	    "see 'tprog submit -h'\n", "submit", "--image", "u", "--label",
	    "ab");
}

TEST(secrets_are_copied_and_wiped_from_argv)
{
	static const char zeros[16];
	struct cap c;

	cap_run(&c, "submit", "--image", "u", "--password", "hunter2",
	    (const char *)NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_EQ(rec.password, "hunter2");
	T_MEM_EQ(c.argv[5], zeros, 8);
	cap_free(&c);

	cap_run(&c, "submit", "--image", "u", "--password=s3cret",
	    (const char *)NULL);
	T_STR_EQ(rec.password, "s3cret");
	T_STR_EQ(c.argv[4], "--password=");
	T_MEM_EQ(c.argv[4] + 11, zeros, 7);
	cap_free(&c);

	cap_run(&c, "submit", "--image", "u", "-qPxyz", (const char *)NULL);
	T_STR_EQ(rec.password, "xyz");
	T_STR_EQ(c.argv[4], "-qP");
	T_MEM_EQ(c.argv[4] + 3, zeros, 4);
	cap_free(&c);
}

/* ---- usage errors, every message ---- */

TEST(unknown_commands_suggest)
{
	T_USAGE_ERR("tprog: 'lsit' is not a tprog command; did you mean "
	    "'list'?\nsee 'tprog -h'\n", "lsit");
	T_USAGE_ERR("tprog: 'xyzzy' is not a tprog command\nsee 'tprog -h'\n",
	    "xyzzy");
	/* hidden commands run but are never suggested */
	T_USAGE_ERR("tprog: 'writ' is not a tprog command\nsee 'tprog -h'\n",
	    "writ");
	T_USAGE_ERR("tprog list: 'projcts' is not a tprog list command; did "
	    "you mean 'projects'?\nsee 'tprog list -h'\n", "list", "projcts");
	T_USAGE_ERR("tprog list: missing command; expected one of nodes, "
	    "projects\nsee 'tprog list -h'\n", "list");
	/* a command with its own run still names its subcommands */
	T_USAGE_ERR("tprog get: 'projct' is not a tprog get command; did you "
	    "mean 'project'?\nsee 'tprog get -h'\n", "get", "projct");
	T_USAGE_ERR("tprog: unknown option '--bogus'\nsee 'tprog -h'\n",
	    "--bogus");
	/* what the user typed is quoted with its control characters replaced */
	T_USAGE_ERR("tprog: '?[2Jx' is not a tprog command\nsee 'tprog -h'\n",
	    "\x1b[2Jx");
}

TEST(unknown_options_suggest)
{
	T_USAGE_ERR("tprog list projects: unknown option '--outptu'; did you "
	    "mean '--output'?\nsee 'tprog list projects -h'\n",
	    "list", "projects", "--outptu", "json");
	/* no abbreviations: a prefix is not the option */
	T_USAGE_ERR("tprog list projects: unknown option '--out'; did you "
	    "mean '--output'?\nsee 'tprog list projects -h'\n",
	    "list", "projects", "--out", "json");
	T_USAGE_ERR("tprog list projects: unknown option '--projetc'; did you "
	    "mean '--project'?\nsee 'tprog list projects -h'\n",
	    "list", "projects", "--projetc=x");
	T_USAGE_ERR("tprog list projects: unknown option '-x'\n"
	    "see 'tprog list projects -h'\n", "list", "projects", "-Ax");
	T_USAGE_ERR("tprog submit: unknown option '--no-quiet'\n"
	    "see 'tprog submit -h'\n", "submit", "--no-quiet");
	T_USAGE_ERR("tprog submit: unknown option '--nope'; did you mean "
	    "'--mode'?\nsee 'tprog submit -h'\n", "submit", "--nope");
}

TEST(bad_values_name_what_was_expected)
{
	T_USAGE_ERR("tprog list projects: invalid value 'xml' for --output: "
	    "expected one of wide, json, yaml, name\n"
	    "see 'tprog list projects -h'\n", "list", "projects", "-o", "xml");
	T_USAGE_ERR("tprog submit: invalid value 'x' for --gpu: expected a "
	    "number\nsee 'tprog submit -h'\n", "submit", "-gx");
	T_USAGE_ERR("tprog submit: invalid value 'inf' for --gpu: expected a "
	    "number\nsee 'tprog submit -h'\n", "submit", "--gpu=inf");
	T_USAGE_ERR("tprog submit: invalid value '1.5' for --count: expected "
	    "an integer\nsee 'tprog submit -h'\n", "submit", "--count=1.5");
	T_USAGE_ERR("tprog submit: invalid value '99999999999999999999' for "
	    "--count: expected an integer\nsee 'tprog submit -h'\n",
	    "submit", "--count=99999999999999999999");
	T_USAGE_ERR("tprog submit: invalid value '5x' for --timeout: expected "
	    "a duration such as 90s, 5m, 2h, 1d or 1h30m\n"
	    "see 'tprog submit -h'\n", "submit", "--timeout", "5x");
	T_USAGE_ERR("tprog submit: invalid value 'foo' for --mode: expected "
	    "one of train, interactive\nsee 'tprog submit -h'\n",
	    "submit", "--mode=foo");
	T_USAGE_ERR("tprog submit: invalid value 'maybe' for --interactive: "
	    "expected true or false\nsee 'tprog submit -h'\n",
	    "submit", "--interactive=maybe");
	T_USAGE_ERR("tprog: invalid value '1x' for --request-timeout: expected "
	    "a duration such as 90s, 5m, 2h, 1d or 1h30m\nsee 'tprog -h'\n",
	    "--request-timeout=1x");
}

TEST(missing_and_unwanted_values)
{
	T_USAGE_ERR("tprog submit: option '--image' requires a value\n"
	    "see 'tprog submit -h'\n", "submit", "--image");
	T_USAGE_ERR("tprog submit: option '-g' requires a value\n"
	    "see 'tprog submit -h'\n", "submit", "--image", "u", "-g");
	T_USAGE_ERR("tprog submit: option '--quiet' takes no value\n"
	    "see 'tprog submit -h'\n", "submit", "--quiet=1");
	T_USAGE_ERR("tprog submit: option '--no-interactive' takes no value\n"
	    "see 'tprog submit -h'\n", "submit", "--no-interactive=1");
}

TEST(required_options_and_positional_bounds)
{
	T_USAGE_ERR("tprog submit: missing required option '--image'\n"
	    "see 'tprog submit -h'\n", "submit");
	T_USAGE_ERR("tprog config project: expected 1 argument, got 0\n"
	    "see 'tprog config project -h'\n", "config", "project");
	T_USAGE_ERR("tprog config project: expected 1 argument, got 2\n"
	    "see 'tprog config project -h'\n", "config", "project", "a", "b");
	T_USAGE_ERR("tprog version: expected no arguments, got 1\n"
	    "see 'tprog version -h'\n", "version", "x");
	T_USAGE_ERR("tprog describe: expected 1 to 3 arguments, got 0\n"
	    "see 'tprog describe -h'\n", "describe");
	T_USAGE_ERR("tprog describe: expected 1 to 3 arguments, got 4\n"
	    "see 'tprog describe -h'\n", "describe", "a", "b", "c", "d");
	T_USAGE_ERR("tprog logs: expected at least 1 argument, got 0\n"
	    "see 'tprog logs -h'\n", "logs");
	T_RUNS("describe", "a", "b", "c");
	T_RUNS("get");
	T_STR_EQ(rec.cmdpath, "get");
	T_RUNS("get", "project", "p");
	T_STR_EQ(rec.cmdpath, "get project");
}

TEST(help_wins_over_later_errors)
{
	struct cap c;

	cap_run(&c, "submit", "-h", "--bogus", (const char *)NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_CONTAINS(c.out, "usage: tprog submit ");
	T_STR_EQ(c.err, "");
	T_INT_EQ(rec.runs, 0);
	T_INT_EQ(rec.setups, 0);
	cap_free(&c);
	/* but an error before it is still an error */
	T_USAGE_ERR("tprog submit: unknown option '--bogus'\n"
	    "see 'tprog submit -h'\n", "submit", "--bogus", "-h");
}

/* ---- run() return convention ---- */

TEST(run_results_become_exit_codes)
{
	struct cap c;

	cap_run(&c, "fail", "j1", (const char *)NULL);
	T_INT_EQ(c.rc, 1);
	T_STR_EQ(c.err, "tprog: error: job 'j1' not found\n");
	T_INT_EQ(rec.teardowns, 1);
	cap_free(&c);
	cap_run(&c, "exit3", (const char *)NULL);
	T_INT_EQ(c.rc, 3);
	T_STR_EQ(c.err, "tprog: own message\n");
	cap_free(&c);
	cap_run(&c, "noerr", (const char *)NULL);
	T_INT_EQ(c.rc, 1);
	T_STR_EQ(c.err, "tprog: error: 'tprog noerr' failed without saying "
	    "why\n");
	cap_free(&c);
	cap_run(&c, "-p", "fail-setup", "list", "projects",
	    (const char *)NULL);
	T_INT_EQ(c.rc, 1);
	T_STR_EQ(c.err, "tprog: error: no such project\n");
	T_INT_EQ(rec.runs, 0);
	T_INT_EQ(rec.teardowns, 1);
	cap_free(&c);
}

TEST(failed_stdout_is_an_error)
{
	struct cap c;

	if (access("/dev/full", W_OK) != 0)
		return;
	cap_run_to(&c, "/dev/full", "write", (const char *)NULL);
	T_INT_EQ(c.rc, 1);
	T_STR_EQ(c.err, "tprog: error: write to stdout failed: No space left "
	    "on device\n");
	cap_free(&c);
}

TEST(version_flag_runs_the_version_command)
{
	T_RUNS("--version");
	T_STR_EQ(rec.cmdpath, "version");
	T_USAGE_ERR("tprog list projects: unknown option '--version'\n"
	    "see 'tprog list projects -h'\n", "list", "projects", "--version");
}

/* ---- usage text ---- */

static char *
usage_of(const char *path)
{
	FILE *f = tmpfile();
	char *s;

	T_INT_EQ(rai_print_usage(&tprog, path, f), 0);
	fflush(f);
	s = read_fd(fileno(f));
	fclose(f);
	return s;
}

TEST(usage_golden)
{
	static const struct {
		const char *path, *golden;
	} cases[] = {
		{ "", "opt-usage-prog.txt" },
		{ "submit", "opt-usage-submit.txt" },
		{ "list", "opt-usage-list.txt" },
		{ "list projects", "opt-usage-list-projects.txt" },
		{ "describe", "opt-usage-describe.txt" },
		{ "version", "opt-usage-version.txt" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		s = usage_of(cases[i].path);
		T_GOLDEN(cases[i].golden, s);
		free(s);
	}
	T_INT_EQ(rai_print_usage(&tprog, "nope", stdout), -1);
}

TEST(dash_h_prints_usage_on_stdout)
{
	struct cap c;
	char *want;

	cap_run(&c, "-h", (const char *)NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_EQ(c.err, "");
	want = usage_of("");
	T_STR_EQ(c.out, want);
	free(want);
	cap_free(&c);

	/* under the name typed, an alias too */
	cap_run(&c, "list", "project", "-h", (const char *)NULL);
	want = usage_of("list project");
	T_STR_EQ(c.out, want);
	free(want);
	cap_free(&c);

	/* no command: the usage is the error, on stderr */
	cap_run(&c, (const char *)NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_EQ(c.out, "");
	want = usage_of("");
	T_STR_EQ(c.err, want);
	free(want);
	cap_free(&c);
}

TEST(long_help_without_a_terminal)
{
	struct cap c;

	cap_run(&c, "submit", "--help", (const char *)NULL);
	T_INT_EQ(c.rc, 0);
	T_GOLDEN("opt-help-submit.txt", c.out);
	cap_free(&c);
}

/* ---- man pages ---- */

static char *
man_of(const char *path)
{
	struct rai_err err = RAI_ERR_INIT;
	FILE *f = tmpfile();
	char *s;

	T_INT_EQ(rai_gen_man(&tprog, path, f, &err), 0);
	fflush(f);
	s = read_fd(fileno(f));
	fclose(f);
	rai_err_release(&err);
	return s;
}

TEST(man_golden)
{
	struct rai_err err = RAI_ERR_INIT;
	char *s;

	s = man_of("submit");
	T_GOLDEN("opt-man-tprog-submit.1", s);
	free(s);
	s = man_of("");
	T_GOLDEN("opt-man-tprog.1", s);
	free(s);
	s = man_of("list");
	T_GOLDEN("opt-man-tprog-list.1", s);
	free(s);
	T_INT_EQ(rai_gen_man(&tprog, "list secret", stdout, &err), -1);
	T_INT_EQ(err.kind, RAI_E_NOTFOUND);
	T_STR_EQ(err.message, "'list secret' is not a tprog command");
	rai_err_release(&err);
}

TEST(man_all_writes_one_page_per_visible_command)
{
	static const char *const pages[] = {
		"tprog.1", "tprog-config.1", "tprog-config-cluster.1",
		"tprog-config-project.1", "tprog-describe.1", "tprog-get.1",
		"tprog-get-cluster.1", "tprog-get-project.1", "tprog-list.1",
		"tprog-list-nodes.1", "tprog-list-projects.1", "tprog-logs.1",
		"tprog-submit.1", "tprog-version.1",
	};
	struct rai_err err = RAI_ERR_INIT;
	char dir[] = "/tmp/t_opt.XXXXXX", path[256];
	struct stat st;
	size_t i;
	int n = 0;

	T_NOT_NULL(mkdtemp(dir));
	T_INT_EQ(rai_gen_man_all(&tprog, dir, &err), 0);
	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pages[i]);
		T_INT_EQ(stat(path, &st), 0);
		unlink(path);
	}
	/* nothing else: hidden commands have no page */
	snprintf(path, sizeof(path), "%s/tprog-write.1", dir);
	T_INT_EQ(stat(path, &st), -1);
	n = rmdir(dir);
	T_INT_EQ(n, 0);
	T_INT_EQ(rai_gen_man_all(&tprog, "/nonexistent/x/y", &err), -1);
	T_INT_EQ(err.kind, RAI_E_IO);
	rai_err_release(&err);
}

/* ---- completion ---- */

TEST(completion_scripts_golden)
{
	struct rai_err err = RAI_ERR_INIT;
	FILE *f;
	char *s;

	f = tmpfile();
	T_INT_EQ(rai_gen_completion(&tprog, "bash", f, &err), 0);
	fflush(f);
	s = read_fd(fileno(f));
	T_GOLDEN("opt-completion-tprog.bash", s);
	free(s);
	fclose(f);
	f = tmpfile();
	T_INT_EQ(rai_gen_completion(&tprog, "zsh", f, &err), 0);
	fflush(f);
	s = read_fd(fileno(f));
	T_GOLDEN("opt-completion-tprog.zsh", s);
	free(s);
	fclose(f);
	T_INT_EQ(rai_gen_completion(&tprog, "fish", stdout, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_EQ(err.message, "unsupported shell 'fish': expected bash or zsh");
	rai_err_release(&err);
}

#define T_COMPLETES(want, ...) do {					\
	struct cap c_;							\
	cap_run(&c_, "__complete", __VA_ARGS__, (const char *)NULL);	\
	T_INT_EQ(c_.rc, 0);						\
	T_STR_EQ(c_.out, want);						\
	T_STR_EQ(c_.err, "");						\
	cap_free(&c_);							\
} while (0)

TEST(complete_commands_and_subcommands)
{
	T_COMPLETES("config\ndescribe\nget\nlist\nlogs\nsubmit\nversion\n:4\n",
	    "");
	T_COMPLETES("list\nlogs\n:4\n", "l");
	T_COMPLETES("nodes\nprojects\n:4\n", "list", "");
	T_COMPLETES("projects\n:4\n", "-v", "list", "p");
	T_COMPLETES("cluster\nproject\n:4\n", "--kubeconfig", "f", "get", "");
	/* an unknown command: nothing to offer */
	T_COMPLETES(":4\n", "bogus", "");
	/* hidden commands are never offered */
	T_COMPLETES(":4\n", "wri");
	T_COMPLETES(":4\n", "list", "sec");
}

TEST(complete_options_and_values)
{
	T_COMPLETES("--output\n:4\n", "list", "projects", "--out");
	T_COMPLETES("-o\n:4\n", "list", "projects", "-o");
	T_COMPLETES("-o\n--output\n-A\n--all\n-p\n--project\n--kubeconfig\n"
	    "-v\n--verbosity\n--request-timeout\n--help\n:4\n",
	    "list", "projects", "-");
	T_COMPLETES("wide\njson\nyaml\nname\n:4\n", "list", "projects", "-o",
	    "");
	T_COMPLETES("json\n:4\n", "list", "projects", "--output", "j");
	T_COMPLETES("--output=json\n:4\n", "list", "projects", "--output=j");
	T_COMPLETES("train\ninteractive\n:4\n", "submit", "--mode", "");
	T_COMPLETES("--interactive\n--image\n:4\n", "submit", "--i");
	T_COMPLETES("--no-interactive\n--no-shm\n:4\n", "submit", "--no");
	/* hidden options are never offered */
	T_COMPLETES("--help\n:4\n", "submit", "--h");
	/* files and directories are left to the shell */
	T_COMPLETES(":0\n", "--kubeconfig", "");
	T_COMPLETES(":0\n", "list", "--kubeconfig", "");
	T_COMPLETES(":16\n", "submit", "--workdir", "");
	/* a value with nothing to offer */
	T_COMPLETES(":4\n", "submit", "--image", "");
	/* after "--" nothing is an option */
	T_COMPLETES(":4\n", "submit", "--", "-");
}

TEST(complete_dynamic_words)
{
	T_COMPLETES("alpha\nbeta\ngamma\n:4\n", "config", "project", "");
	T_INT_EQ(rec.completes, 1);
	T_INT_EQ(rec.setups, 1);
	T_UINT_EQ(rec.setup_flags, 0);
	T_INT_EQ(rec.teardowns, 1);
	T_COMPLETES("beta\n:4\n", "config", "project", "b");
	T_COMPLETES(":4\n", "config", "project", "alpha", "");
	T_INT_EQ(rec.completes, 0);
	T_COMPLETES("alpha\n:4\n", "-p", "a");
	T_COMPLETES("alpha\n:4\n", "list", "projects", "--project", "a");
	T_COMPLETES("node-1\nnode-2\n:4\n", "list", "nodes", "n1", "node");
	T_COMPLETES("arn:aws:ctx\n:4\n", "config", "cluster", "");
	/* global options given earlier reach the program's complete() */
	T_COMPLETES("other-project\n:4\n", "--kubeconfig", "other", "config",
	    "project", "");
	T_COMPLETES("other-project\n:4\n", "config", "--kubeconfig=other",
	    "project", "o");
	/* no words at all: the commands */
	{
		struct cap c;

		cap_run(&c, "__complete", (const char *)NULL);
		T_STR_CONTAINS(c.out, "config\n");
		cap_free(&c);
	}
}

TEST(gen_words)
{
	struct cap c;

	cap_run(&c, "__gen", "completion", "bash", (const char *)NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_CONTAINS(c.out, "complete -o default -F _tprog tprog\n");
	cap_free(&c);
	cap_run(&c, "__gen", "completion", "fish", (const char *)NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_EQ(c.err, "tprog: error: unsupported shell 'fish': expected "
	    "bash or zsh\n");
	cap_free(&c);
	cap_run(&c, "__gen", (const char *)NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_EQ(c.err, "tprog: error: usage: tprog __gen man DIR | "
	    "completion bash|zsh\n");
	cap_free(&c);
	cap_run(&c, "__gen", "man", "/nonexistent/x/y", (const char *)NULL);
	T_INT_EQ(c.rc, 1);
	T_STR_CONTAINS(c.err, "tprog: error: cannot create '/nonexistent/x/y'");
	cap_free(&c);
}

/* ---- helpers ---- */

TEST(suggestions)
{
	static const char *const words[] = {
		"list", "logs", "submit", "describe", "delete", "config",
	};
	size_t n = sizeof(words) / sizeof(*words);

	T_STR_EQ(rai_suggest("lsit", words, n), "list");
	T_STR_EQ(rai_suggest("LIST", words, n), "list");
	T_STR_EQ(rai_suggest("sbumit", words, n), "submit");
	T_STR_EQ(rai_suggest("delte", words, n), "delete");
	T_STR_EQ(rai_suggest("conf", words, n), "config");
	/* "lg" is two edits from both list and logs: alphabetical first */
	T_STR_EQ(rai_suggest("lis", words, n), "list");
	T_STR_EQ(rai_suggest("lgs", words, n), "logs");
	T_STR_EQ(rai_suggest("los", words, n), "logs");
	T_STR_EQ(rai_suggest("lots", words, n), "logs");
	T_STR_EQ(rai_suggest("lisx", words, n), "list");
	T_NULL(rai_suggest("xyzzy", words, n));
	T_NULL(rai_suggest("x", words, n));
	T_NULL(rai_suggest("ab", words, n));
	T_NULL(rai_suggest("", words, n));
	T_NULL(rai_suggest("list", words, 0));
}

TEST(suggestion_ties_do_not_depend_on_order)
{
	static const char *const a[] = { "stop", "step" };
	static const char *const b[] = { "step", "stop" };

	T_STR_EQ(rai_suggest("stap", a, 2), "step");
	T_STR_EQ(rai_suggest("stap", b, 2), "step");
}

TEST(durations)
{
	static const struct {
		const char	*in;
		long		 want;
	} ok[] = {
		{ "0", 0 }, { "90", 90 }, { "90s", 90 }, { "5m", 300 },
		{ "2h", 7200 }, { "1d", 86400 }, { "1h30m", 5400 },
		{ "1d2h3m4s", 93784 }, { "30m1h", 5400 }, { "0s", 0 },
	};
	static const char *const bad[] = {
		"", "x", "5x", "-5", "5m3", "1.5h", "h", " 5", "5 ", "5ms",
		"99999999999999999999", "9223372036854775807d",
	};
	struct rai_err err = RAI_ERR_INIT;
	size_t i;
	long v;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		v = -1;
		T_INT_EQ(rai_parse_duration(ok[i].in, &v, &err), 0);
		T_INT_EQ(v, ok[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		v = 42;
		T_INT_EQ(rai_parse_duration(bad[i], &v, &err), -1);
		T_INT_EQ(v, 42);
		T_INT_EQ(err.kind, RAI_E_USAGE);
	}
	T_STR_EQ(err.message, "invalid duration '9223372036854775807d': "
	    "expected seconds or a duration such as 90s, 5m, 2h, 1d or 1h30m");
	rai_err_release(&err);
}

TEST(strv_push_copies)
{
	struct rai_strv sv = { NULL, 0 };
	char buf[] = "abc";

	rai_strv_push(&sv, buf);
	buf[0] = 'x';
	rai_strv_push(&sv, "def");
	T_UINT_EQ(sv.n, 2);
	T_STR_EQ(sv.v[0], "abc");
	T_STR_EQ(sv.v[1], "def");
	rai_strv_release(&sv);
	T_UINT_EQ(sv.n, 0);
	T_NULL(sv.v);
	rai_strv_release(&sv);
}

int
main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && strcmp(argv[1], "--prog") == 0) {
		rc = rai_main(&tprog, argc - 1, argv + 1);
		rec_reset();
		return rc;
	}
	RUN(globals_before_between_and_after_command_words);
	RUN(setup_gets_the_command_flags_and_teardown_runs);
	RUN(level_forms);
	RUN(dashdash_ends_options);
	RUN(positionals_mix_with_options);
	RUN(aliases_and_defaults);
	RUN(value_forms);
	RUN(flags_clusters_counts_and_negation);
	RUN(tristate_options_tell_unset_from_off);
	RUN(lists_replace_their_default);
	RUN(callbacks_get_the_value);
	RUN(secrets_are_copied_and_wiped_from_argv);
	RUN(unknown_commands_suggest);
	RUN(unknown_options_suggest);
	RUN(bad_values_name_what_was_expected);
	RUN(missing_and_unwanted_values);
	RUN(required_options_and_positional_bounds);
	RUN(help_wins_over_later_errors);
	RUN(run_results_become_exit_codes);
	RUN(failed_stdout_is_an_error);
	RUN(version_flag_runs_the_version_command);
	RUN(usage_golden);
	RUN(dash_h_prints_usage_on_stdout);
	RUN(long_help_without_a_terminal);
	RUN(man_golden);
	RUN(man_all_writes_one_page_per_visible_command);
	RUN(completion_scripts_golden);
	RUN(complete_commands_and_subcommands);
	RUN(complete_options_and_values);
	RUN(complete_dynamic_words);
	RUN(gen_words);
	RUN(suggestions);
	RUN(suggestion_ties_do_not_depend_on_order);
	RUN(durations);
	RUN(strv_push_copies);
	rec_reset();
	return t_done();
}
