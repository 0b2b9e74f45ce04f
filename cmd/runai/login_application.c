/*
 * runai login application (app): the Run:ai CLI v2's older name for the
 * access-key login, with 2.18's app_token grant, which the control
 * planes of 2.18 to 2.24 all take. --name is its first spelling of the
 * client id.
 */
#include <stddef.h>

#include "login.h"
#include "runai.h"

#include "core/banned.h"

static int
cmd_login_application(struct rai_ctx *ctx, void *opts, int argc,
    char **argv)
{
	(void)argc;
	(void)argv;
	return runai_login_key(ctx, opts, 1);
}

static const struct rai_opt login_application_opts[] = {
	{ .long_name = "client-id", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_key_opts, client_id),
	  .argh = "<id>", .help = "the application's client id" },
	{ .long_name = "name", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_key_opts, client_id),
	  .argh = "<id>",
	  .help = "the same as --client-id (its name in 2.18 and 2.19)" },
	RUNAI_LOGIN_KEY_OPTS,
	RAI_OPT_END
};

static const struct rai_example login_application_examples[] = {
	{ "runai login application --name ci-bot --secret-file ~/.app",
	    "2.18's form" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_login_application = {
	.name = "application",
	.aliases = (const char *const[]){ "app", NULL },
	.summary = "log in to the control plane as an application (app_token)",
	.synopsis = "--client-id <id> [--secret <secret> | --secret-file "
	    "<file>] [options]",
	.description = "Logs in to the control plane (control-plane mode) as "
	    "an application of Run:ai 2.18 and 2.19, with the app_token "
	    "grant, which later releases still take: 'runai login "
	    "--client-id <id> --application'. Everything else is as 'runai "
	    "login access-key': where the secret comes from, that --save "
	    "keeps nothing more, and that Kubernetes mode refuses it in one "
	    "line.",
	.examples = login_application_examples,
	.opts = login_application_opts,
	.opts_size = sizeof(struct runai_login_key_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_login_application,
};
