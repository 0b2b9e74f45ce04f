/*
 * runai login sso (and remote-browser): the Run:ai CLI v2's login
 * without a browser on this machine. Both are the remote-browser flow:
 * the login page's URL is printed, the user signs in on any browser
 * (through the identity provider's single sign-on) and pastes back the
 * code the last page shows.
 */
#include <stddef.h>

#include "login.h"
#include "runai.h"

#include "core/banned.h"

static int
cmd_login_sso(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct runai_login_opts o = RUNAI_LOGIN_OPTS_INIT;

	(void)opts;
	(void)argc;
	(void)argv;
	o.auth_flow = "remote-browser";
	return runai_login(ctx, &o);
}

static const struct rai_example login_sso_examples[] = {
	{ "runai login sso", "prints the login page's URL and waits for the "
	    "code" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_login_sso = {
	.name = "sso",
	.aliases = (const char *const[]){ "remote-browser", NULL },
	.summary = "log in on a browser elsewhere, pasting back the code",
	.synopsis = "",
	.description = "Logs in without a browser on this machine: prints "
	    "the identity provider's login page, where you sign in on any "
	    "browser (single sign-on included), and reads the code its last "
	    "page shows (or that page's whole URL) from stdin. This is "
	    "'runai login --auth-flow remote-browser'. In control-plane mode "
	    "the page is the control plane's identity provider and the code "
	    "page its <url>/oauth-code; in Kubernetes mode the context's "
	    "auth-provider config names both (idp-issuer-url, "
	    "redirect-uri).",
	.examples = login_sso_examples,
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_login_sso,
};
