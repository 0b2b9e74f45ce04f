/*
 * runai auth get-token: the bearer token the current context sends,
 * printed for other programs: bare (-o plaintext, for an Authorization
 * header) or as an ExecCredential (-o kubeconfig, the default). In
 * control-plane mode it is the control plane's access token, in
 * Kubernetes mode the one the kubeconfig user sends (the OIDC id-token,
 * a static or file token, or an exec plugin's), renewed first when it
 * is about to expire. Printing it is the point; it still goes to no log:
 * only stdout gets it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "kube/auth.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

struct auth_get_token_opts {
	const char	*output;
};

static const char *const token_formats[] = { "plaintext", "kubeconfig",
	NULL };

/* Kubernetes mode: the bearer token of the context's user. */
static int
context_token(struct rai_ctx *ctx, char **token, struct rai_err *err)
{
	struct kube_conn *c = &RUNAI_KUBE(ctx)->conn;
	struct kube_auth *a;
	char *h = NULL;
	int rc = -1;

	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, c, err) == -1)
		return -1;
	if (c->auth == KUBE_AUTH_BASIC)
		return rai_err_set(err, RAI_E_AUTH, "user '%s' sends a user name "
		    "and password, not a token", c->user ? c->user : "");
	a = kube_auth_new(c);
	if (kube_auth_header(a, &h, err) == 0) {
		if (h != NULL && strncmp(h, "Bearer ", 7) == 0) {
			*token = xstrdup(h + 7);
			rc = 0;
		} else
			rai_err_set(err, RAI_E_AUTH, "user '%s' sends no token "
			    "(a client certificate, or no credentials); run "
			    "'runai login' where it logs in with OIDC",
			    c->user ? c->user : "");
	}
	rai_free_secret(h);
	kube_auth_free(a);
	return rc;
}

static int
cmd_auth_get_token(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct auth_get_token_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct cp *c = runai_control_plane(ctx);
	char *token = NULL;
	int rc;

	(void)argc;
	(void)argv;
	rc = c != NULL ? cp_access_token(c, &token, err) :
	    context_token(ctx, &token, err);
	if (rc == -1)
		return -1;
	if (strcmp(o->output, "plaintext") == 0)
		fprintf(ctx->out, "%s\n", token);
	else
		rc = runai_print_exec_credential(ctx->out, token);
	rai_free_secret(token);
	return rc;
}

static const struct rai_opt auth_get_token_opts_table[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct auth_get_token_opts, output),
	  .argh = "<format>", .def = "kubeconfig", .choices = token_formats,
	  .comp = RAI_COMP_CHOICES,
	  .help = "plaintext (the bare token) or kubeconfig (an "
	      "ExecCredential)" },
	RAI_OPT_END
};

static const struct rai_example auth_get_token_examples[] = {
	{ "curl -H \"Authorization: Bearer $(runai auth get-token -o "
	    "plaintext)\" https://runai.example.com/api/v1/clusters",
	    "the token in a script's request" },
	{ "runai auth get-token", "an ExecCredential, as kubectl's exec "
	    "plugins print it" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_auth_get_token = {
	.name = "get-token",
	.summary = "print the login's bearer token",
	.synopsis = "[-o plaintext|kubeconfig]",
	.description = "Prints the bearer token the current context sends, "
	    "renewed first when it is about to expire: in control-plane mode "
	    "the control plane's access token (log in with 'runai login' "
	    "first), in Kubernetes mode the token of the kubeconfig user "
	    "(its OIDC id-token, refreshed as every command refreshes it, a "
	    "static or file token, or what its exec plugin gives). A user "
	    "with a password or only a client certificate has no token to "
	    "print."
	    "\n\n"
	    "-o plaintext prints the token alone, for an Authorization: "
	    "Bearer header; -o kubeconfig (the default) a "
	    "client.authentication.k8s.io/v1 ExecCredential with the token "
	    "and, for a JWT, its expirationTimestamp. Only stdout gets the "
	    "token: the -v logs never show it. Whoever reads stdout holds "
	    "the login until the token expires.",
	.examples = auth_get_token_examples,
	.opts = auth_get_token_opts_table,
	.opts_size = sizeof(struct auth_get_token_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_auth_get_token,
};
