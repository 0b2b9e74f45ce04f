/*
 * Unit tests of the option engine's compatibility features, on a small
 * program of their own ("oprog"): deprecated options and commands (the
 * note on stderr, stdout untouched, suggestions, completion, man
 * pages), commands that stand for another command (forward), the
 * rewrite hook, and options set from elsewhere (rai_opt_given and
 * rai_opt_set). Then the pure parts of submit's old forms: --git-sync
 * and template values.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/opt.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "runai/git_sync.h"
#include "runai/template.h"

#include "harness.h"

/* ---- the sample program ---- */

struct run_opts {
	const char	*policy;
	int		 local;
	struct rai_strv	 vols;
	long		 backoff;
	struct rai_strv	 old_cmd;
	const char	*from_tpl;
};

/* What the last run saw. */
static struct {
	int		 ran;
	char		 cmdpath[64];
	char		 policy[32];
	int		 local;
	size_t		 nvols;
	long		 backoff;
	size_t		 nold;
	char		 old0[32];
	int		 given_backoff;
	char		 from_tpl[32];
} seen;

static const char *const policies[] = { "Always", "Never", NULL };

static const struct rai_opt run_opts[] = {
	{ .long_name = "policy", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct run_opts, policy), .argh = "<p>",
	  .help = "pull policy", .choices = policies,
	  .comp = RAI_COMP_CHOICES },
	{ .long_name = "local", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct run_opts, local), .help = "old flag",
	  .deprecated = "use --policy Never" },
	{ .long_name = "volume", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct run_opts, vols), .argh = "<v>",
	  .help = "a volume" },
	{ .long_name = "volumes", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct run_opts, vols), .argh = "<v>",
	  .help = "a volume", .deprecated = "use --volume" },
	{ .long_name = "backoff-limit", .type = RAI_OPT_INT,
	  .offset = offsetof(struct run_opts, backoff), .argh = "<n>",
	  .help = "retries", .flags = RAI_OPT_TRISTATE },
	{ .long_name = "backoffLimit", .type = RAI_OPT_INT,
	  .offset = offsetof(struct run_opts, backoff), .argh = "<n>",
	  .help = "retries", .flags = RAI_OPT_TRISTATE,
	  .deprecated = "use --backoff-limit" },
	{ .long_name = "old-cmd", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct run_opts, old_cmd), .argh = "<c>",
	  .help = "the old --cmd <c>", .flags = RAI_OPT_HIDDEN },
	{ .long_name = "from-tpl", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct run_opts, from_tpl), .argh = "<s>",
	  .help = "set by the run from a template" },
	RAI_OPT_END
};

static int
run_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct run_opts *o = opts;

	(void)argc;
	(void)argv;
	seen.ran = 1;
	snprintf(seen.cmdpath, sizeof(seen.cmdpath), "%s", ctx->cmdpath);
	snprintf(seen.policy, sizeof(seen.policy), "%s",
	    o->policy ? o->policy : "");
	seen.local = o->local;
	seen.nvols = o->vols.n;
	seen.backoff = o->backoff;
	seen.nold = o->old_cmd.n;
	snprintf(seen.old0, sizeof(seen.old0), "%s",
	    o->old_cmd.n ? o->old_cmd.v[0] : "");
	seen.given_backoff = rai_opt_given(ctx, "backoff-limit");
	if (!rai_opt_given(ctx, "from-tpl") &&
	    rai_opt_set(ctx, opts, "from-tpl", "template", rai_ctx_err(ctx)) ==
	    -1)
		return -1;
	if (rai_opt_set(ctx, opts, "policy", "Sometimes",
	    rai_ctx_err(ctx)) == 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_INTERNAL, "a bad "
		    "enum value was set");
	rai_err_release(rai_ctx_err(ctx));
	snprintf(seen.from_tpl, sizeof(seen.from_tpl), "%s", o->from_tpl);
	fputs("output\n", ctx->out);
	return 0;
}

/* "--cmd X" on a line without "--" is the old form. */
static int
rewrite(int argc, char **argv, struct rai_strv *keep, struct rai_strv *notes,
    struct rai_err *err)
{
	int i;

	(void)keep;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--cmd") == 0) {
			if (i + 1 >= argc)
				return rai_err_set(err, RAI_E_USAGE, "--cmd "
				    "needs a value");
			argv[i] = (char *)(uintptr_t)"--old-cmd";
			rai_strv_push(notes, "'--cmd X' is deprecated; use -- X");
		}
	}
	return 0;
}

static const struct rai_cmd cmd_run = {
	.name = "run",
	.summary = "run something",
	.opts = run_opts,
	.opts_size = sizeof(struct run_opts),
	.args_min = 0,
	.args_max = -1,
	.run = run_run,
	.rewrite_argv = rewrite,
};

static const struct rai_cmd cmd_show_item = {
	.name = "item",
	.summary = "show an item",
	.args_min = 1,
	.args_max = 1,
	.run = run_run,
	.opts = run_opts,
	.opts_size = sizeof(struct run_opts),
};

static const struct rai_cmd *const show_subcmds[] = { &cmd_show_item, NULL };

static const struct rai_cmd cmd_show = {
	.name = "show",
	.summary = "show things",
	.subcmds = show_subcmds,
};

static const struct rai_cmd cmd_get = {
	.name = "get",
	.summary = "old name of show item",
	.forward = "show item",
	.deprecated = "use 'oprog show item'",
};

static const struct rai_cmd old_list = {
	.name = "list",
	.summary = "old list",
	.forward = "show item",
	.deprecated = "use 'oprog show item'",
};

static const struct rai_cmd *const group_subcmds[] = { &old_list, NULL };

static const struct rai_cmd cmd_group = {
	.name = "group",
	.summary = "old group",
	.deprecated = "use 'oprog show'",
	.subcmds = group_subcmds,
};

static const struct rai_cmd *const oprog_cmds[] = {
	&cmd_get, &cmd_group, &cmd_run, &cmd_show, NULL
};

static const struct rai_prog oprog = {
	.name = "oprog",
	.summary = "compatibility sample",
	.version = "0",
	.man_section = 1,
	.cmds = oprog_cmds,
};

/* ---- running it ---- */

struct cap {
	char	*out;
	char	*err;
	int	 rc;
};

static char *
read_all(FILE *f)
{
	long n;
	char *buf;
	size_t got;

	fflush(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	buf = xmalloc((size_t)n + 1);
	fseek(f, 0, SEEK_SET);
	got = fread(buf, 1, (size_t)n, f);
	buf[got] = '\0';
	return buf;
}

static void
cap_run(struct cap *c, ...)
{
	FILE *o = tmpfile(), *e = tmpfile();
	char *argv[32];
	const char *w;
	int argc = 0, so, se, i;
	va_list ap;

	memset(&seen, 0, sizeof(seen));
	argv[argc++] = xstrdup("oprog");
	va_start(ap, c);
	while ((w = va_arg(ap, const char *)) != NULL && argc < 31)
		argv[argc++] = xstrdup(w);
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	so = dup(1);
	se = dup(2);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	c->rc = rai_main(&oprog, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	c->out = read_all(o);
	c->err = read_all(e);
	fclose(o);
	fclose(e);
	for (i = 0; i < argc; i++)
		free(argv[i]);
}

static void
cap_free(struct cap *c)
{
	free(c->out);
	free(c->err);
}

/* ---- deprecated options ---- */

TEST(deprecated_option_works_with_a_note_on_stderr_only)
{
	struct cap c;

	cap_run(&c, "run", "--local", "--volumes", "/a:/a", "--volumes",
	    "/b:/b", "--backoffLimit", "3", NULL);
	T_INT_EQ(c.rc, 0);
	T_INT_EQ(seen.local, 1);
	T_UINT_EQ(seen.nvols, 2);
	T_INT_EQ((int)seen.backoff, 3);
	/* another name of the same field counts as given */
	T_INT_EQ(seen.given_backoff, 1);
	T_STR_EQ(c.out, "output\n");
	T_STR_CONTAINS(c.err, "oprog: warning: option '--local' is "
	    "deprecated; use --policy Never\n");
	T_STR_CONTAINS(c.err, "option '--backoffLimit' is deprecated; use "
	    "--backoff-limit\n");
	/* told once however often it is given */
	T_NULL(strstr(strstr(c.err, "'--volumes'") + 1, "'--volumes'"));
	cap_free(&c);
}

TEST(current_options_print_no_note)
{
	struct cap c;

	cap_run(&c, "run", "--policy", "Never", "--volume", "/a:/a", NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_EQ(c.err, "");
	T_STR_EQ(c.out, "output\n");
	T_INT_EQ(seen.given_backoff, 0);
	T_INT_EQ((int)seen.backoff, -1);
	cap_free(&c);
}

TEST(typos_of_deprecated_options_get_suggestions)
{
	struct cap c;

	cap_run(&c, "run", "--backofLimit", "2", NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_CONTAINS(c.err, "did you mean '--backoffLimit'?");
	T_INT_EQ(seen.ran, 0);
	cap_free(&c);
}

TEST(deprecated_options_are_out_of_help_and_in_the_man_page)
{
	struct rai_err err = RAI_ERR_INIT;
	FILE *f = tmpfile();
	struct cap c;
	char *man;

	cap_run(&c, "run", "-h", NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_CONTAINS(c.out, "--volume ");
	T_NULL(strstr(c.out, "--volumes"));
	T_NULL(strstr(c.out, "--local"));
	cap_free(&c);
	T_INT_EQ(rai_gen_man(&oprog, "run", f, &err), 0);
	man = read_all(f);
	T_STR_CONTAINS(man, ".SH \"DEPRECATED OPTIONS\"");
	T_STR_CONTAINS(man, "\\fB\\-\\-local\\fR\nuse \\-\\-policy Never\n");
	free(man);
	fclose(f);
}

/* ---- deprecated commands and forwards ---- */

TEST(forwarded_command_runs_the_target_with_a_note)
{
	struct cap c;

	cap_run(&c, "get", "x", "--policy", "Always", NULL);
	T_INT_EQ(c.rc, 0);
	T_INT_EQ(seen.ran, 1);
	T_STR_EQ(seen.cmdpath, "show item");
	T_STR_EQ(seen.policy, "Always");
	T_STR_EQ(c.out, "output\n");
	T_STR_EQ(c.err, "oprog: warning: 'oprog get' is deprecated; use "
	    "'oprog show item'\n");
	cap_free(&c);
	/* the target's argument count applies */
	cap_run(&c, "get", NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_CONTAINS(c.err, "expected 1 argument, got 0");
	T_NULL(strstr(c.err, "deprecated"));
	cap_free(&c);
}

TEST(old_group_tells_the_deepest_old_name)
{
	struct cap c;

	cap_run(&c, "group", "list", "x", NULL);
	T_INT_EQ(c.rc, 0);
	T_STR_EQ(seen.cmdpath, "show item");
	T_STR_EQ(c.err, "oprog: warning: 'oprog group list' is deprecated; "
	    "use 'oprog show item'\n");
	cap_free(&c);
	cap_run(&c, "group", NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_CONTAINS(c.err, "expected one of list");
	cap_free(&c);
}

TEST(deprecated_commands_are_suggested_but_not_listed)
{
	struct rai_err err = RAI_ERR_INIT;
	FILE *f = tmpfile();
	struct cap c;
	char *man;

	cap_run(&c, "gte", NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_CONTAINS(c.err, "did you mean 'get'?");
	cap_free(&c);
	cap_run(&c, "-h", NULL);
	T_STR_CONTAINS(c.out, "run");
	T_NULL(strstr(c.out, "get"));
	T_NULL(strstr(c.out, "group"));
	cap_free(&c);
	T_INT_EQ(rai_gen_man(&oprog, "", f, &err), 0);
	man = read_all(f);
	T_STR_CONTAINS(man, ".SH \"DEPRECATED COMMANDS\"");
	T_STR_CONTAINS(man, "\\fBget\\fR\nuse 'oprog show item'\n");
	T_STR_CONTAINS(man, "\\fBgroup list\\fR\n");
	free(man);
	fclose(f);
}

TEST(completion_offers_old_names_only_when_nothing_current_matches)
{
	struct cap c;

	cap_run(&c, "__complete", "", NULL);
	T_STR_CONTAINS(c.out, "run\n");
	T_NULL(strstr(c.out, "get\n"));
	cap_free(&c);
	cap_run(&c, "__complete", "g", NULL);
	T_STR_CONTAINS(c.out, "get\n");
	T_STR_CONTAINS(c.out, "group\n");
	cap_free(&c);
	cap_run(&c, "__complete", "run", "--vol", NULL);
	T_STR_EQ(c.out, "--volume\n:4\n");
	cap_free(&c);
	cap_run(&c, "__complete", "run", "--backoffL", NULL);
	T_STR_EQ(c.out, "--backoffLimit\n:4\n");
	cap_free(&c);
	/* a forward completes as its target */
	cap_run(&c, "__complete", "get", "x", "--pol", NULL);
	T_STR_EQ(c.out, "--policy\n:4\n");
	cap_free(&c);
}

/* ---- the rewrite hook ---- */

TEST(rewrite_turns_an_old_syntax_into_a_hidden_option)
{
	struct cap c;

	cap_run(&c, "run", "--cmd", "sleep", NULL);
	T_INT_EQ(c.rc, 0);
	T_UINT_EQ(seen.nold, 1);
	T_STR_EQ(seen.old0, "sleep");
	T_STR_EQ(c.err, "oprog: warning: '--cmd X' is deprecated; use -- X\n");
	cap_free(&c);
	cap_run(&c, "run", "--cmd", NULL);
	T_INT_EQ(c.rc, 2);
	T_STR_CONTAINS(c.err, "--cmd needs a value");
	T_INT_EQ(seen.ran, 0);
	cap_free(&c);
}

/* ---- options from elsewhere ---- */

TEST(options_are_set_only_where_the_command_line_left_them)
{
	struct cap c;

	cap_run(&c, "run", NULL);
	T_STR_EQ(seen.from_tpl, "template");
	cap_free(&c);
	cap_run(&c, "run", "--from-tpl", "typed", NULL);
	T_STR_EQ(seen.from_tpl, "typed");
	T_INT_EQ(c.rc, 0);
	cap_free(&c);
}

/* ---- --git-sync ---- */

TEST(git_sync_parses_keys_defaults_and_quotes)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_git_sync g;
	char *r;

	T_INT_EQ(rai_git_sync_parse("source=https://g/r.git", &g, &err), 0);
	T_STR_EQ(g.source, "https://g/r.git");
	T_STR_EQ(g.branch, "master");
	T_NULL(g.rev);
	T_STR_EQ(g.target, "/code");
	T_STR_EQ(g.image, RAI_GIT_SYNC_IMAGE);
	T_INT_EQ(rai_git_sync_has_credentials(&g), 0);
	rai_git_sync_release(&g);
	T_INT_EQ(rai_git_sync_parse("rev=abc1,source='r',target=\"/src\","
	    "username=u,password=p,image=gs:1", &g, &err), 0);
	T_NULL(g.branch);
	T_STR_EQ(g.rev, "abc1");
	T_STR_EQ(g.source, "r");
	T_STR_EQ(g.target, "/src");
	T_STR_EQ(g.image, "gs:1");
	T_INT_EQ(rai_git_sync_has_credentials(&g), 1);
	rai_git_sync_release(&g);
	T_INT_EQ(rai_git_sync_parse("branch=x", &g, &err), -1);
	T_STR_CONTAINS(err.message, "git sync must contain Repository");
	rai_err_release(&err);
	T_INT_EQ(rai_git_sync_parse("source=r,colour=red", &g, &err), -1);
	T_STR_CONTAINS(err.message, "unknown key 'colour'");
	rai_err_release(&err);
	T_INT_EQ(rai_git_sync_parse("source=r,target=code", &g, &err), -1);
	T_STR_CONTAINS(err.message, "absolute path");
	rai_err_release(&err);
	r = rai_git_sync_redact("source=r,password=hunter2,username=u");
	T_STR_EQ(r, "source=r,password=<redacted>,username=u");
	free(r);
}

TEST(git_sync_credentials_come_from_the_secret)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_git_sync g;
	cJSON *c;
	char *text;

	T_INT_EQ(rai_git_sync_parse("source=r,username=u,password=hunter2", &g,
	    &err), 0);
	c = rai_git_sync_container(&g, "job-git-sync");
	text = cJSON_PrintUnformatted(c);
	T_NULL(strstr(text, "hunter2"));
	T_STR_CONTAINS(text, "{\"name\":\"GIT_SYNC_PASSWORD\",\"valueFrom\":"
	    "{\"secretKeyRef\":{\"name\":\"job-git-sync\",\"key\":\"password\"}}}");
	T_STR_CONTAINS(text, "{\"name\":\"GIT_SYNC_ONE_TIME\",\"value\":\"true\"}");
	free(text);
	cJSON_Delete(c);
	rai_git_sync_release(&g);
}

/* ---- template values ---- */

static cJSON *
values(const char *yaml)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *v = NULL;

	if (rai_template_parse(yaml, &v, &err) == -1)
		rai_err_release(&err);
	return v;
}

TEST(template_values_expand_the_environment)
{
	cJSON *v;

	setenv("RUNAI_TEMPLATE_ENV", "T_TPL_TAG", 1);
	setenv("T_TPL_TAG", "2.1", 1);
	unsetenv("T_TPL_UNSET");
	v = values("image: {value: \"pytorch:${T_TPL_TAG}-$T_TPL_TAG\"}\n"
	    "cpu: {value: \"x${T_TPL_UNSET}y\"}\n"
	    "memory: {value: \"$ 5 ${\"}\n");
	T_NOT_NULL(v);
	T_STR_EQ(rai_json_str(v, "image.value"), "pytorch:2.1-2.1");
	T_STR_EQ(rai_json_str(v, "cpu.value"), "xy");
	T_STR_EQ(rai_json_str(v, "memory.value"), "$ 5 ${");
	cJSON_Delete(v);
	v = values("");
	T_INT_EQ(cJSON_IsObject(v), 1);
	cJSON_Delete(v);
	T_NULL(values("- a\n- b\n"));
}

/* A template may read only the default names and RUNAI_TEMPLATE_ENV's. */
TEST(template_values_read_only_allowed_variables)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *v = NULL;

	setenv("T_TPL_SECRET", "s3cret", 1);
	setenv("USER", "alice", 1);
	unsetenv("RUNAI_TEMPLATE_ENV");
	T_INT_EQ(rai_template_parse("image: {value: \"x$T_TPL_SECRET\"}\n",
	    &v, &err), -1);
	T_NULL(v);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_CONTAINS(err.message, "$T_TPL_SECRET");
	T_STR_CONTAINS(err.message, "RUNAI_TEMPLATE_ENV=T_TPL_SECRET");
	T_INT_EQ(strstr(err.message, "s3cret") == NULL, 1);
	rai_err_release(&err);

	/* unset variables are read as empty, allowed or not */
	unsetenv("T_TPL_SECRET");
	v = values("image: {value: \"x${T_TPL_SECRET}y-$USER\"}\n");
	T_STR_EQ(rai_json_str(v, "image.value"), "xy-alice");
	cJSON_Delete(v);

	/* any separator; a name's prefix does not count */
	setenv("T_TPL_SECRET", "s3cret", 1);
	setenv("RUNAI_TEMPLATE_ENV", "T_TPL, ,OTHER:T_TPL_SECRET", 1);
	v = values("image: {value: \"$T_TPL_SECRET\"}\n");
	T_STR_EQ(rai_json_str(v, "image.value"), "s3cret");
	cJSON_Delete(v);
	setenv("RUNAI_TEMPLATE_ENV", "T_TPL_SECRE T_TPL_SECRETS", 1);
	T_NULL(values("image: {value: \"$T_TPL_SECRET\"}\n"));
	setenv("RUNAI_TEMPLATE_ENV", "*", 1);
	v = values("image: {value: \"$T_TPL_SECRET\"}\n");
	T_STR_EQ(rai_json_str(v, "image.value"), "s3cret");
	cJSON_Delete(v);
	unsetenv("RUNAI_TEMPLATE_ENV");
	unsetenv("T_TPL_SECRET");
}

TEST(templates_merge_as_the_original_cli)
{
	cJSON *base = values("gpu: {value: \"1\", required: true}\n"
	    "cpu: {value: \"2\"}\n"
	    "environments: [A=base, B=base]\n"
	    "volumes: [/a:/a]\n"
	    "git-sync: {source: {value: r1}, branch: {value: main}}\n");
	cJSON *patch = values("gpu: {value: \"0.5\"}\n"
	    "memory: {value: 4G}\n"
	    "environments: [B=patch, C=patch]\n"
	    "volumes: [/b:/b]\n"
	    "git-sync: {source: {value: r2}}\n");
	char *text;

	rai_template_merge(base, patch);
	text = cJSON_PrintUnformatted(base);
	T_STR_EQ(rai_json_str(base, "gpu.value"), "0.5");
	/* the required mark stays unless the patch sets one */
	T_INT_EQ(rai_json_bool(base, "gpu.required", 0), 1);
	T_STR_EQ(rai_json_str(base, "cpu.value"), "2");
	T_STR_EQ(rai_json_str(base, "memory.value"), "4G");
	T_STR_CONTAINS(text, "\"environments\":[\"B=patch\",\"C=patch\","
	    "\"A=base\"]");
	T_STR_CONTAINS(text, "\"volumes\":[\"/a:/a\",\"/b:/b\"]");
	T_STR_EQ(rai_json_str(base, "git-sync.source.value"), "r2");
	T_STR_EQ(rai_json_str(base, "git-sync.branch.value"), "main");
	free(text);
	cJSON_Delete(base);
	cJSON_Delete(patch);
}

int
main(void)
{
	RUN(deprecated_option_works_with_a_note_on_stderr_only);
	RUN(current_options_print_no_note);
	RUN(typos_of_deprecated_options_get_suggestions);
	RUN(deprecated_options_are_out_of_help_and_in_the_man_page);
	RUN(forwarded_command_runs_the_target_with_a_note);
	RUN(old_group_tells_the_deepest_old_name);
	RUN(deprecated_commands_are_suggested_but_not_listed);
	RUN(completion_offers_old_names_only_when_nothing_current_matches);
	RUN(rewrite_turns_an_old_syntax_into_a_hidden_option);
	RUN(options_are_set_only_where_the_command_line_left_them);
	RUN(git_sync_parses_keys_defaults_and_quotes);
	RUN(git_sync_credentials_come_from_the_secret);
	RUN(template_values_expand_the_environment);
	RUN(template_values_read_only_allowed_variables);
	RUN(templates_merge_as_the_original_cli);
	return t_done();
}
