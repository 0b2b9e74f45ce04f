/*
 * runai login user: the Run:ai CLI v2's password login. In Kubernetes
 * mode it is the cli flow of the context's OIDC provider, in
 * control-plane mode the control plane's password grant. A password
 * given with -p is copied by the option parser and wiped from argv at
 * once; without it the password is asked on the terminal, or read from
 * stdin when stdin is no terminal (as --password-stdin reads it).
 */
#include <stddef.h>
#include <unistd.h>

#include "login.h"
#include "runai.h"

#include "core/banned.h"

struct login_user_opts {
	const char	*user;
	const char	*password;
};

static int
cmd_login_user(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct login_user_opts *u = opts;
	struct runai_login_opts o = RUNAI_LOGIN_OPTS_INIT;

	(void)argc;
	(void)argv;
	o.auth_flow = "cli";
	o.username = u->user;
	o.password = u->password;
	o.no_prompt = !runai_login_may_prompt(ctx, NULL);
	o.user_flag = "--user";
	o.secret_flag = "-p/--password, or one line on stdin";
	if (u->password == NULL && !isatty(STDIN_FILENO)) {
		/* both cannot come from stdin */
		if (u->user == NULL)
			return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
			    "stdin is not a terminal: give the user name with "
			    "--user (the password is read from stdin)");
		o.password_stdin = 1;
	}
	return runai_login(ctx, &o);
}

static const struct rai_opt login_user_opts_table[] = {
	{ .short_name = 'u', .long_name = "user", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct login_user_opts, user), .argh = "<name>",
	  .help = "the user name (else asked on the terminal)" },
	{ .short_name = 'p', .long_name = "password", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct login_user_opts, password),
	  .argh = "<password>", .flags = RAI_OPT_SECRET,
	  .help = "the password (wiped from the process's arguments at once; "
	      "without it: asked, or read from stdin)" },
	RAI_OPT_END
};

static const struct rai_example login_user_examples[] = {
	{ "runai login user -u alice", "asks for the password" },
	{ "runai login user -u alice <pwfile", "the password from stdin, for "
	    "scripts" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_login_user = {
	.name = "user",
	.summary = "log in with a user name and password",
	.synopsis = "[-u <name>] [-p <password>]",
	.description = "Logs in with a user name and password: in Kubernetes "
	    "mode with the cli flow of the current context's OIDC provider "
	    "(the tokens go into its auth-provider config, as 'runai login "
	    "--auth-flow cli' stores them), in control-plane mode with the "
	    "control plane's password grant (the tokens go into its login "
	    "store)."
	    "\n\n"
	    "Without -u the user name is asked on the terminal. Without -p "
	    "the password is asked on the terminal with echo off, or read "
	    "as one line from stdin when stdin is no terminal. A password "
	    "given with -p is copied and wiped from the process's arguments "
	    "before anything else happens, and never logged; for a moment "
	    "after the start it can still be seen in the process table, so "
	    "stdin is the better way for scripts. Here -p is the password, "
	    "not the project: the global -p before 'login' still names the "
	    "project.",
	.examples = login_user_examples,
	.opts = login_user_opts_table,
	.opts_size = sizeof(struct login_user_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_login_user,
};
