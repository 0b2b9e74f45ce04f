/*
 * runai login: the command's table and its run; the flows are login.c's.
 * The CLI v2 forms are its subcommands (login.h), so "runai login" alone
 * keeps its own options and behaviour.
 */
#include <stddef.h>

#include "login.h"
#include "runai.h"

#include "core/banned.h"

static const char *const login_flows[] = {
	"browser", "remote-browser", "cli", "device", NULL
};

static int
cmd_login(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct runai_login_opts o = *(const struct runai_login_opts *)opts;

	(void)argc;
	(void)argv;
	o.no_prompt = !runai_login_may_prompt(ctx, NULL);
	return runai_login(ctx, &o);
}

static const struct rai_cmd *const login_subcmds[] = {
	&runai_cmd_login_access_key,
	&runai_cmd_login_application,
	&runai_cmd_login_sso,
	&runai_cmd_login_user,
	NULL
};

static const struct rai_opt login_opts_table[] = {
	{ .long_name = "auth-flow", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_login_opts, auth_flow), .argh = "<flow>",
	  .help = "how to log in: browser, remote-browser, cli or device "
	      "(default: the kubeconfig's auth-flow, else browser)",
	  .choices = login_flows, .comp = RAI_COMP_CHOICES },
	{ .long_name = "username", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, username), .argh = "<name>",
	  .help = "user name for the cli flow (else asked on the terminal)" },
	{ .long_name = "password-stdin", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_login_opts, password_stdin),
	  .help = "read the password of the cli flow from stdin (one line)" },
	{ .long_name = "issuer-url", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, issuer_url), .argh = "<url>",
	  .help = "OIDC issuer (default: the kubeconfig's idp-issuer-url; "
	      "control-plane mode: its realm)" },
	{ .long_name = "client-id", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, client_id), .argh = "<id>",
	  .help = "OIDC client id (default: the kubeconfig's client-id; "
	      "control-plane mode: runai-cli, or the access key's id)" },
	{ .long_name = "redirect-uri", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, redirect_uri), .argh = "<url>",
	  .help = "redirect URI (remote-browser: the page showing the code; "
	      "browser: an http://127.0.0.1 address)" },
	{ .long_name = "additional-scope", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, additional_scope),
	  .argh = "<scopes>",
	  .help = "scopes to ask for besides 'openid email offline_access'" },
	{ .long_name = "idp-certificate-authority", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, idp_ca), .argh = "<file>",
	  .help = "CA bundle for the identity provider's TLS certificate "
	      "(stored in the kubeconfig)", .comp = RAI_COMP_FILE },
	{ .long_name = "timeout", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct runai_login_opts, timeout), .argh = "<duration>",
	  .help = "how long to wait for the browser, the code or the approval",
	  .def = "5m" },
	{ .long_name = "no-browser", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_login_opts, no_browser),
	  .help = "browser flow: print the URL instead of opening a browser" },
	{ .long_name = "secret-file", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, secret_file), .argh = "<file>",
	  .help = "control-plane mode: the access key's secret, from a file "
	      "(with --client-id)", .comp = RAI_COMP_FILE },
	{ .long_name = "secret-stdin", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_login_opts, secret_stdin),
	  .help = "control-plane mode: read the access key's secret from "
	      "stdin (one line)" },
	{ .long_name = "application", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_login_opts, application),
	  .help = "control-plane mode: the access key is an application "
	      "(the app_token grant of 2.18 and 2.19)" },
	{ .long_name = "listen-host", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_login_opts, listen_host),
	  .argh = "<host>",
	  .help = "browser flow: the callback's host, localhost or 127.0.0.1 "
	      "(default 127.0.0.1)" },
	{ .long_name = "listen-port", .type = RAI_OPT_INT,
	  .offset = offsetof(struct runai_login_opts, listen_port),
	  .argh = "<port>", .flags = RAI_OPT_TRISTATE,
	  .help = "browser flow: the callback's port (default: any free "
	      "one)" },
	RAI_OPT_END
};

static const struct rai_example login_examples[] = {
	{ "runai login", "log in with the kubeconfig's auth-flow" },
	{ "runai login --auth-flow device", "log in on another device's "
	    "browser with a user code" },
	{ "runai login --auth-flow cli --username alice --password-stdin "
	    "<pwfile", "log in from a script" },
	{ "runai login --listen-host localhost --listen-port 43121",
	    "the browser flow with the callback CLI v2 uses" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_login = {
	.name = "login",
	.summary = "log in: the context's OIDC provider, or the control plane",
	.synopsis = "[options] | user|sso|remote-browser|access-key|"
	    "application [options]",
	.description = "Logs the current context's user in to the OpenID "
	    "Connect provider named by its auth-provider config "
	    "(idp-issuer-url, client-id) and stores the id-token and refresh "
	    "token there, in the file that defines the user. Every later "
	    "command sends the id-token and refreshes it when it expires."
	    "\n\n"
	    "Flows: browser opens the login page and receives the result on "
	    "a listener on 127.0.0.1; remote-browser prints the page's URL "
	    "and reads the code shown at the end (or the whole URL) from "
	    "stdin; cli asks for the user name and password (or reads the "
	    "password from stdin with --password-stdin); device shows a code "
	    "to enter on any browser, when the provider offers the device "
	    "flow. The id-token is verified against the provider's keys "
	    "before it is stored. A user with a client certificate, a token "
	    "or an exec plugin is refused, since those would stay in use."
	    "\n\n"
	    "In control-plane mode the tokens are the control plane's, kept "
	    "in its login store: --username (cli) and --client-id with "
	    "--secret-file or --secret-stdin (an access key) go to its token "
	    "endpoint; browser and remote-browser sign in on its identity "
	    "provider (the realm <auth-url>/auth/realms/runai, where the "
	    "auth URL is the control plane's unless 'runai config set "
	    "--auth-url' names another, or --issuer-url; client runai-cli, "
	    "or --client-id) and the control plane exchanges the code. Its "
	    "exchange takes no PKCE verifier, so none is asked for: the "
	    "state binds the answer. remote-browser's page is the control "
	    "plane's <url>/oauth-code unless --redirect-uri names another. "
	    "The device flow is not offered there."
	    "\n\n"
	    "The browser flow's callback listens on 127.0.0.1, on any free "
	    "port. --listen-port names the port and --listen-host the name "
	    "the redirect URI gives it (localhost or 127.0.0.1), for an "
	    "identity provider that accepts only a registered callback "
	    "(the Run:ai CLI v2 uses localhost:43121). Either one asks for "
	    "the browser flow where --auth-flow names none."
	    "\n\n"
	    "The Run:ai CLI v2's forms are subcommands: 'login user' (the "
	    "cli flow), 'login sso' and 'login remote-browser' (the "
	    "remote-browser flow), 'login access-key' and 'login "
	    "application' (an access key, in control-plane mode). Where the "
	    "context's settings say interactive disabled ('runai config set "
	    "--interactive disabled'), no login asks on the terminal; the "
	    "flags or stdin must give what it needs.",
	.examples = login_examples,
	.opts = login_opts_table,
	.opts_size = sizeof(struct runai_login_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.subcmds = login_subcmds,
	.run = cmd_login,
};
