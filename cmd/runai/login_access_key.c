/*
 * runai login access-key: the Run:ai CLI v2's login with an access key
 * (a client id and its secret, the client_credentials grant), mapped on
 * control-plane mode's access-key login (login_cp.c). runai_login_key
 * also serves login application (login_application.c), 2.18's
 * app_token grant. Access keys belong to a control plane: in
 * Kubernetes mode they are refused in one line.
 */
#include <stddef.h>
#include <unistd.h>

#include "cli/warn.h"
#include "kube/config.h"
#include "login.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

static int
kubernetes_mode(struct rai_ctx *ctx, struct rai_err *err)
{
	const struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	const char *name = kc != NULL ? kube_config_context_name(kc) : NULL;

	return rai_err_set(err, RAI_E_CONFIG, "access keys log in to a Run:ai "
	    "control plane, and %s%s%s is in Kubernetes mode (run 'runai "
	    "config control-plane <url>' first)", name != NULL ? "context '" :
	    "the current context", name != NULL ? name : "",
	    name != NULL ? "'" : "");
}

int
runai_login_key(struct rai_ctx *ctx, const struct runai_login_key_opts *k,
    int application)
{
	struct runai_login_opts o = RUNAI_LOGIN_OPTS_INIT;
	struct rai_err *err = rai_ctx_err(ctx);
	struct cp *c = runai_control_plane(ctx);

	if (c == NULL)
		return kubernetes_mode(ctx, err);
	if (k->client_id == NULL || *k->client_id == '\0')
		return rai_err_set(err, RAI_E_USAGE, "give the %s's id with "
		    "--client-id%s", application ? "application" : "access key",
		    application ? " (or --name)" : "");
	/* the store keeps tokens, renewed with the refresh token */
	if (k->save)
		rai_warn("--save: the login is always kept, in %s: its tokens, "
		    "never the secret", cp_store_path(c));
	o.client_id = k->client_id;
	o.secret = k->secret;
	o.secret_file = k->secret_file;
	o.application = application;
	o.no_prompt = !runai_login_may_prompt(ctx, k->interactive);
	o.secret_flag = "--secret or --secret-file";
	/* a script's pipe gives the secret, as --secret-stdin would */
	if (k->secret == NULL && k->secret_file == NULL &&
	    !isatty(STDIN_FILENO))
		o.secret_stdin = 1;
	return runai_login(ctx, &o);
}

static int
cmd_login_access_key(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return runai_login_key(ctx, opts, 0);
}

static const struct rai_opt login_access_key_opts[] = {
	{ .long_name = "client-id", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_key_opts, client_id),
	  .argh = "<id>", .help = "the access key's client id" },
	RUNAI_LOGIN_KEY_OPTS,
	RAI_OPT_END
};

static const struct rai_example login_access_key_examples[] = {
	{ "runai login access-key --client-id ak-7f3c --secret-file ~/.ak",
	    "the secret from a file" },
	{ "runai login access-key --client-id ak-7f3c --interactive=disabled "
	    "<secret.txt", "from a script: the secret on stdin, never asked" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_login_access_key = {
	.name = "access-key",
	.summary = "log in to the control plane with an access key",
	.synopsis = "--client-id <id> [--secret <secret> | --secret-file "
	    "<file>] [options]",
	.description = "Logs in to the control plane (control-plane mode) "
	    "with an access key, a client id and its secret: the "
	    "client_credentials grant of its token endpoint, as 'runai login "
	    "--client-id' does. The tokens go into the control plane's login "
	    "store, and the refresh token renews them; the secret is kept "
	    "nowhere, so --save changes nothing and says so."
	    "\n\n"
	    "The secret comes from --secret-file (its first line), from "
	    "--secret, or else from stdin when stdin is no terminal, or is "
	    "asked on the terminal with echo off (not with --interactive "
	    "disabled, or the context's setting so). --secret is copied and "
	    "wiped from the process's arguments before anything else "
	    "happens, and never logged; for a moment after the start it can "
	    "still be seen in the process table, so a file or stdin is the "
	    "better way."
	    "\n\n"
	    "In Kubernetes mode this is refused in one line: access keys "
	    "belong to a control plane.",
	.examples = login_access_key_examples,
	.opts = login_access_key_opts,
	.opts_size = sizeof(struct runai_login_key_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_login_access_key,
};
