/*
 * The login flows behind "runai login" and its subcommands (login.h):
 * OpenID Connect login of the current context's user, whose tokens then
 * go into that user's auth-provider config, or in control-plane mode the
 * control plane's login (login_cp.c for its token endpoint).
 *
 * Flows: cli (password grant; prompts on the terminal, or the password
 * from stdin), remote-browser (print the URL, paste the code back),
 * browser (loopback redirect listener), device (RFC 8628). The code
 * flows use PKCE S256, a random state and a nonce; every id-token is
 * verified against the issuer's JWKS before it is stored. Secrets are
 * never in argv or in a child's environment, and are wiped when freed.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/log.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/config.h"
#include "oidc/loopback.h"
#include "oidc/oidc.h"
#include "oidc/url.h"
#include "login.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

#define SECRET_LINE_MAX		4096
#define LOGIN_TIMEOUT_S		300

extern char **environ;

/* What the flows share. */
struct login {
	struct rai_ctx			*ctx;
	const struct runai_login_opts	*o;
	struct oidc_client	*client;
	const char		*flow;
	const char		*redirect_uri;	/* config or --redirect-uri */
	char			*scope;
	char			*nonce;		/* code flows */
	struct oidc_tokens	 tokens;
	/* backend mode: the control plane exchanges the code, for this
	 * client id of its identity provider */
	struct cp		*cp;
	const char		*cp_client;
};

const char *const runai_enabled_disabled[] = { "enabled", "disabled",
	NULL };

static long
timeout_ms(const struct login *l)
{
	return (l->o->timeout > 0 ? l->o->timeout : LOGIN_TIMEOUT_S) * 1000L;
}

static const char *
user_flag(const struct login *l)
{
	return l->o->user_flag != NULL ? l->o->user_flag : "--username";
}

static const char *
secret_flag(const struct login *l)
{
	return l->o->secret_flag != NULL ? l->o->secret_flag :
	    "--password-stdin";
}

/* The cli flow's password: given, from stdin, else asked. */
static int
cli_password(struct login *l, char **pw, struct rai_err *err)
{
	if (l->o->password != NULL) {
		*pw = xstrdup(l->o->password);
		return 0;
	}
	if (l->o->password_stdin)
		return runai_read_secret_line(STDIN_FILENO, timeout_ms(l), pw,
		    err);
	if (l->o->no_prompt)
		return rai_err_set(err, RAI_E_USAGE, "no password given, and "
		    "asking for it is disabled: use %s", secret_flag(l));
	return runai_prompt_password(timeout_ms(l), secret_flag(l), pw,
	    err);
}

static int
flow_cli(struct login *l, struct rai_err *err)
{
	const struct kube_oidc_cfg *oc = &RUNAI_KUBE(l->ctx)->conn.oidc;
	char *user = NULL, *pw = NULL;
	int rc = -1;

	if (l->o->password_stdin && l->o->username == NULL)
		return rai_err_set(err, RAI_E_USAGE, "%s needs %s",
		    secret_flag(l), user_flag(l));
	if (l->o->username != NULL)
		user = xstrdup(l->o->username);
	else if (l->o->no_prompt)
		return rai_err_set(err, RAI_E_USAGE, "no user name given, and "
		    "asking for it is disabled: use %s", user_flag(l));
	else if (runai_prompt_username(timeout_ms(l), user_flag(l), &user,
	    err) == -1)
		return -1;
	rc = cli_password(l, &pw, err);
	if (rc == 0 && *pw == '\0')
		rc = rai_err_set(err, RAI_E_USAGE, "the password is empty");
	if (rc == 0)
		rc = oidc_grant_password(l->client, user, pw, l->scope,
		    oc->realm != NULL && !oc->airgapped ? oc->realm : NULL,
		    &l->tokens, err);
	free(user);
	rai_free_secret(pw);
	return rc;
}

/* The PKCE pair, state and nonce of one code flow. */
struct code_flow {
	char	*verifier;
	char	*challenge;
	char	*state;
};

static void
code_flow_init(struct login *l, struct code_flow *f)
{
	f->verifier = oidc_random_b64url(32);
	f->challenge = oidc_pkce_s256(f->verifier);
	f->state = oidc_random_b64url(16);
	l->nonce = oidc_random_b64url(16);
}

static void
code_flow_release(struct code_flow *f)
{
	rai_free_secret(f->verifier);
	rai_free_secret(f->challenge);
	rai_free_secret(f->state);
}

/*
 * The control plane's exchange (backend mode) carries no PKCE verifier,
 * so no challenge is sent there: the state alone binds the answer.
 */
static char *
auth_url(struct login *l, const struct code_flow *f, const char *redirect)
{
	const struct oidc_discovery *d = oidc_client_discovery(l->client);

	return oidc_auth_url(l->client, redirect, l->scope, f->state,
	    d->s256 && l->cp == NULL ? f->challenge : NULL, l->nonce);
}

/* The code for tokens: at the identity provider, or the control plane. */
static int
exchange_code(struct login *l, const char *code, const char *redirect,
    const struct code_flow *f, struct rai_err *err)
{
	if (l->cp != NULL)
		return cp_login_code(l->cp, l->cp_client, code, redirect, err);
	return oidc_grant_code(l->client, code, redirect, f->verifier,
	    &l->tokens, err);
}

static int
need_authorization_endpoint(struct login *l, struct rai_err *err)
{
	if (oidc_client_discovery(l->client)->authorization_endpoint == NULL)
		return rai_err_set(err, RAI_E_AUTH, "the identity provider has "
		    "no authorization_endpoint; use --auth-flow cli or device");
	return 0;
}

static int
flow_remote_browser(struct login *l, struct rai_err *err)
{
	struct code_flow f;
	char *url, *line = NULL, *code = NULL;
	int rc;

	if (l->redirect_uri == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "the remote-browser flow "
		    "needs redirect-uri in the auth-provider config (or "
		    "--redirect-uri): the page that shows the code");
	if (need_authorization_endpoint(l, err) == -1)
		return -1;
	code_flow_init(l, &f);
	url = auth_url(l, &f, l->redirect_uri);
	rai_text_put(stderr, "Go to the following link in your browser:\n\t",
	    url, "\n\nEnter verification code: ");
	fflush(stderr);
	rc = runai_read_secret_line(STDIN_FILENO, timeout_ms(l), &line, err);
	if (rc == 0)
		rc = oidc_parse_pasted(line, f.state, &code, err);
	if (rc == 0)
		rc = exchange_code(l, code, l->redirect_uri, &f, err);
	rai_free_secret(line);
	rai_free_secret(code);
	free(url);
	code_flow_release(&f);
	return rc;
}

/*
 * The system browser, run with an argv and no shell. stdio goes to
 * /dev/null so a chatty opener cannot garble our prompt; the URL holds
 * no secret (the PKCE verifier never leaves this process).
 */
static pid_t
open_browser(const char *url)
{
#ifdef __APPLE__
	const char *opener = "open";
#else
	const char *opener = "xdg-open";
#endif
	posix_spawn_file_actions_t fa;
	char *argv[3];
	pid_t pid;
	int e;

	argv[0] = (char *)(uintptr_t)opener;
	argv[1] = (char *)(uintptr_t)url;
	argv[2] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
	    O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
	    O_WRONLY, 0);
	e = posix_spawnp(&pid, opener, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		rai_log(RAI_LOG_NOTE, "cannot run %s: %s", opener, strerror(e));
		return -1;
	}
	rai_log(RAI_LOG_DEBUG, "started %s (pid %ld)", opener, (long)pid);
	return pid;
}

static int
have_display(void)
{
	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");

	return (d != NULL && *d != '\0') || (w != NULL && *w != '\0');
}

/*
 * Port and path of a configured loopback redirect-uri (else 0,
 * /callback). The listener is on 127.0.0.1 only, so the URI must lead
 * there: 127.0.0.1 itself or localhost (see oidc_is_loopback_uri).
 */
static int
loopback_target(const char *uri, int *port, char **path, struct rai_err *err)
{
	struct oidc_url u;
	int ok;

	*port = 0;
	*path = xstrdup("/callback");
	if (uri == NULL)
		return 0;
	ok = oidc_url_parse(uri, &u) == 0 && oidc_is_loopback_uri(uri) &&
	    (strcmp(u.host, "127.0.0.1") == 0 ||
	    strcmp(u.host, "localhost") == 0);
	if (ok) {
		*port = u.port;
		free(*path);
		*path = xstrdup(u.path);
	}
	oidc_url_release(&u);
	if (!ok)
		return rai_err_set(err, RAI_E_CONFIG, "redirect-uri '%s' is not "
		    "an http://127.0.0.1 (or localhost) address; the browser "
		    "flow only receives the login on this machine's loopback",
		    uri);
	return 0;
}

static int
listen_given(const struct runai_login_opts *o)
{
	return o->listen_host != NULL || o->listen_port >= 0;
}

/*
 * --listen-host and --listen-port (CLI v2's names for the browser
 * flow's callback): the redirect's host and the listener's port, in
 * place of the redirect-uri's. The listener is on 127.0.0.1 only, so
 * the host can only be a name for it. Without them the port is any
 * free one (CLI v2 takes localhost:43121, which a second login at the
 * same time would find taken).
 */
static int
listen_target(const struct runai_login_opts *o, const char **host, int *port,
    struct rai_err *err)
{
	if (o->listen_host != NULL) {
		if (strcmp(o->listen_host, "127.0.0.1") != 0 &&
		    strcasecmp(o->listen_host, "localhost") != 0)
			return rai_err_set(err, RAI_E_USAGE, "--listen-host %s: "
			    "the browser login listens on this machine's "
			    "loopback only: use localhost or 127.0.0.1",
			    o->listen_host);
		*host = o->listen_host;
	}
	if (o->listen_port > 65535)
		return rai_err_set(err, RAI_E_USAGE, "--listen-port %ld is not "
		    "a port (1-65535, or 0 for any free one)", o->listen_port);
	if (o->listen_port >= 0)
		*port = (int)o->listen_port;
	return 0;
}

static int
flow_browser(struct login *l, struct rai_err *err)
{
	struct oidc_loopback *lb = NULL;
	struct code_flow f;
	char *path = NULL, *redirect = NULL, *url = NULL, *code = NULL;
	const char *host = "127.0.0.1";
	pid_t opener = -1;
	int port, rc = -1;

	memset(&f, 0, sizeof(f));
	if (loopback_target(l->redirect_uri, &port, &path, err) == -1 ||
	    listen_target(l->o, &host, &port, err) == -1 ||
	    need_authorization_endpoint(l, err) == -1 ||
	    oidc_loopback_open(&lb, port, err) == -1)
		goto out;
	/*
	 * A configured redirect-uri with its own port is sent as written
	 * (the provider compares it exactly); else the port we were given.
	 */
	redirect = port != 0 && !listen_given(l->o) ?
	    xstrdup(l->redirect_uri) : xasprintf("http://%s:%d%s", host,
	    oidc_loopback_port(lb), path);
	code_flow_init(l, &f);
	url = auth_url(l, &f, redirect);
	if (have_display() && !l->o->no_browser) {
		rai_text_put(stderr, "Opening the login page in your browser. "
		    "If it does not open, go to:\n\t", url, "\n");
		opener = open_browser(url);
	} else
		rai_text_put(stderr, "Go to the following link in your "
		    "browser:\n\t", url, "\n");
	fprintf(stderr, "Waiting for the login to finish...\n");
	fflush(stderr);
	if (oidc_loopback_wait(lb, path, f.state, timeout_ms(l), &code,
	    err) == -1)
		goto out;
	rc = exchange_code(l, code, redirect, &f, err);
out:
	/* Openers hand the URL to a running browser and exit; reap it. */
	if (opener > 0)
		(void)waitpid(opener, NULL, WNOHANG);
	oidc_loopback_close(lb);
	rai_free_secret(code);
	free(url);
	free(redirect);
	free(path);
	code_flow_release(&f);
	return rc;
}

static int
flow_device(struct login *l, struct rai_err *err)
{
	struct oidc_device dev;
	long long deadline;
	long interval;
	int rc = -1;

	memset(&dev, 0, sizeof(dev));
	if (oidc_device_start(l->client, l->scope, &dev, err) == -1)
		return -1;
	/* the provider's words: a hostile one must not drive the terminal */
	rai_text_put(stderr, "To log in, open ", dev.verification_uri, "\n");
	rai_text_put(stderr, "and enter the code: ", dev.user_code, "\n");
	if (dev.verification_uri_complete != NULL)
		rai_text_put(stderr, "(or open ", dev.verification_uri_complete,
		    ")\n");
	fprintf(stderr, "Waiting for the login to be approved...\n");
	fflush(stderr);
	interval = dev.interval;
	deadline = rai_now_ms() + (dev.expires_in < l->o->timeout ||
	    l->o->timeout <= 0 ? dev.expires_in : l->o->timeout) * 1000LL;
	for (;;) {
		if (rai_now_ms() + interval * 1000 > deadline) {
			rai_err_set(err, RAI_E_AUTH, "the login was not approved "
			    "in time; run 'runai login' again");
			break;
		}
		rai_sleep_ms(interval * 1000);
		switch (oidc_device_poll(l->client, dev.device_code, &l->tokens,
		    err)) {
		case OIDC_POLL_DONE:
			rc = 0;
			goto out;
		case OIDC_POLL_PENDING:
			continue;
		case OIDC_POLL_SLOW_DOWN:
			interval += OIDC_DEVICE_SLOWDOWN_S;
			rai_log(RAI_LOG_DEBUG, "slow_down: polling every %ld s",
			    interval);
			continue;
		default:
			goto out;
		}
	}
out:
	oidc_device_release(&dev);
	return rc;
}

/* ---- the command ---- */

/* Only a user whose credentials come from the auth-provider may log in. */
static int
check_user(const struct kube_conn *c, struct rai_err *err)
{
	const char *how = NULL;

	if (c->user == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' has no user "
		    "to log in as", c->context ? c->context : "");
	if (c->cert.len > 0)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' authenticates "
		    "with a client certificate, which would stay in use; login "
		    "aborted (use a context whose user has no certificate)",
		    c->user);
	switch (c->auth) {
	case KUBE_AUTH_TOKEN:
	case KUBE_AUTH_TOKEN_FILE:
		how = "a bearer token";
		break;
	case KUBE_AUTH_BASIC:
		how = "a user name and password";
		break;
	case KUBE_AUTH_EXEC:
		how = "an exec credential plugin";
		break;
	default:
		return 0;
	}
	return rai_err_set(err, RAI_E_CONFIG, "user '%s' authenticates with %s, "
	    "which takes precedence over OIDC tokens; login aborted", c->user,
	    how);
}

static int
run_flow(struct login *l, struct rai_err *err)
{
	if (strcmp(l->flow, "cli") == 0)
		return flow_cli(l, err);
	if (strcmp(l->flow, "remote-browser") == 0)
		return flow_remote_browser(l, err);
	if (strcmp(l->flow, "browser") == 0)
		return flow_browser(l, err);
	if (strcmp(l->flow, "device") == 0)
		return flow_device(l, err);
	return rai_err_set(err, RAI_E_CONFIG, "unknown auth-flow '%s' (use "
	    "browser, remote-browser, cli or device)", l->flow);
}

static int
store_tokens(struct login *l, const char *issuer, const char *client_id,
    const char *ca_file, struct rai_err *err)
{
	struct kube_oidc_kv kv[6];
	size_t n = 5;

	kv[0].key = "id-token";
	kv[0].value = l->tokens.id_token;
	kv[1].key = "refresh-token";
	kv[1].value = l->tokens.refresh_token;	/* NULL removes an old one */
	kv[2].key = "auth-flow";
	kv[2].value = l->flow;
	kv[3].key = "idp-issuer-url";
	kv[3].value = issuer;
	kv[4].key = "client-id";
	kv[4].value = client_id;
	if (ca_file != NULL) {
		kv[5].key = "idp-certificate-authority";
		kv[5].value = ca_file;
		n = 6;
	}
	return kube_config_set_oidc_fields(RUNAI_KUBE(l->ctx)->kcfg,
	    RUNAI_KUBE(l->ctx)->conn.user, kv,
	    n, err);
}

/* --idp-certificate-authority: its bytes, and its absolute path to store. */
static int
load_ca_flag(const char *file, struct kube_blob *ca, char **abs,
    struct rai_err *err)
{
	char *data = NULL;
	size_t len = 0;

	if (rai_file_read(file, (size_t)1 << 20, &data, &len, err) == -1) {
		rai_err_prefix(err, "--idp-certificate-authority");
		return -1;
	}
	ca->data = (unsigned char *)data;
	ca->len = len;
	*abs = realpath(file, NULL);
	if (*abs == NULL)
		*abs = xstrdup(file);
	return 0;
}

static const char *
pick(const char *flag, const char *cfg)
{
	return flag != NULL && *flag != '\0' ? flag : cfg;
}

/*
 * Backend mode's browser flows: the control plane's identity provider
 * (its realm, or --issuer-url) signs the user in, the control plane
 * exchanges the code for its tokens. The remote-browser page that shows
 * the code is the control plane's /oauth-code unless --redirect-uri
 * names another.
 */
static int
login_cp_browser(struct rai_ctx *ctx, const struct runai_login_opts *o,
    const char *flow)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct cp *c = runai_control_plane(ctx);
	struct kube_blob ca = { NULL, 0 };
	char *issuer = NULL, *ca_file = NULL, *page = NULL;
	struct login l;
	int rc = -1;

	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	l.o = o;
	l.flow = flow;
	l.cp = c;
	l.cp_client = pick(o->client_id, cp_cli_client_id());
	issuer = o->issuer_url != NULL ? xstrdup(o->issuer_url) :
	    cp_idp_issuer(c);
	page = xasprintf("%s/oauth-code", cp_url(c));
	l.redirect_uri = pick(o->redirect_uri,
	    strcmp(l.flow, "remote-browser") == 0 ? page : NULL);
	l.scope = oidc_scope(o->additional_scope);
	if ((o->idp_ca != NULL && load_ca_flag(o->idp_ca, &ca, &ca_file,
	    err) == -1) ||
	    oidc_client_new(&l.client, issuer, l.cp_client, NULL, ca.data,
	    ca.len, 0, err) == -1 || oidc_discover(l.client, err) == -1 ||
	    run_flow(&l, err) == -1)
		goto out;
	runai_login_cp_done(ctx);
	rc = 0;
out:
	rai_free_secret(l.nonce);
	free(l.scope);
	oidc_client_free(l.client);
	free(ca.data);
	free(ca_file);
	free(issuer);
	free(page);
	return rc;
}

/*
 * The flow asked for (NULL: the default). --listen-host and
 * --listen-port are the browser flow's, and ask for it where no flow is
 * named.
 */
static int
asked_flow(const struct runai_login_opts *o, const char *configured,
    const char **flow, struct rai_err *err)
{
	*flow = pick(o->auth_flow, listen_given(o) ? "browser" : configured);
	if (listen_given(o) && strcmp(*flow, "browser") != 0)
		return rai_err_set(err, RAI_E_USAGE, "--listen-host and "
		    "--listen-port are for the browser flow, not %s", *flow);
	return 0;
}

/* Backend mode: the control plane's own token endpoint (login_cp.c). */
static int
login_cp(struct rai_ctx *ctx, const struct runai_login_opts *o)
{
	struct runai_cp_login l = {
		.auth_flow = o->auth_flow, .username = o->username,
		.password_stdin = o->password_stdin, .client_id = o->client_id,
		.secret_file = o->secret_file, .secret_stdin = o->secret_stdin,
		.application = o->application, .timeout_ms = o->timeout * 1000,
		.password = o->password, .secret = o->secret,
		.no_prompt = o->no_prompt, .user_flag = o->user_flag,
		.secret_flag = o->secret_flag,
	};
	const char *flow;

	if (asked_flow(o, "cli", &flow, rai_ctx_err(ctx)) == -1)
		return -1;
	if (strcmp(flow, "browser") == 0 ||
	    strcmp(flow, "remote-browser") == 0)
		return login_cp_browser(ctx, o, flow);
	return runai_login_cp(ctx, &l);
}

int
runai_login_may_prompt(struct rai_ctx *ctx, const char *given)
{
	const char *v = given != NULL ? given :
	    runai_setting(ctx, "interactive");

	return v == NULL || strcmp(v, "disabled") != 0;
}

int
runai_login(struct rai_ctx *ctx, const struct runai_login_opts *o)
{
	struct rai_err *err = rai_ctx_err(ctx);
	const struct kube_oidc_cfg *oc;
	const char *issuer, *client_id;
	struct kube_blob flag_ca = { NULL, 0 };
	const struct kube_blob *ca;
	char *ca_file = NULL;
	struct login l;
	int rc = -1;

	if (runai_control_plane(ctx) != NULL)
		return login_cp(ctx, o);
	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	l.o = o;
	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, &RUNAI_KUBE(ctx)->conn,
	    err) == -1 ||
	    check_user(&RUNAI_KUBE(ctx)->conn, err) == -1)
		return -1;
	oc = &RUNAI_KUBE(ctx)->conn.oidc;
	issuer = pick(o->issuer_url, oc->issuer_url);
	client_id = pick(o->client_id, oc->client_id);
	if (asked_flow(o, pick(oc->auth_flow, "browser"), &l.flow, err) == -1)
		return -1;
	l.redirect_uri = pick(o->redirect_uri, oc->redirect_uri);
	l.scope = oidc_scope(pick(o->additional_scope, oc->additional_scope));
	ca = &oc->idp_ca;
	if (o->idp_ca != NULL) {
		if (load_ca_flag(o->idp_ca, &flag_ca, &ca_file, err) == -1)
			goto out;
		ca = &flag_ca;
	}
	if (oidc_client_new(&l.client, issuer, client_id, oc->client_secret,
	    ca->data, ca->len, 0, err) == -1 || oidc_discover(l.client, err) == -1 ||
	    run_flow(&l, err) == -1)
		goto out;
	if (oidc_client_verify(l.client, l.tokens.id_token, l.nonce, err) == -1)
		goto out;
	if (l.tokens.refresh_token == NULL)
		rai_warn("the identity provider issued "
		    "no refresh token; log in again when the id-token "
		    "expires");
	if (store_tokens(&l, issuer, client_id, ca_file, err) == -1)
		goto out;
	fprintf(ctx->out, "Logged in successfully\n");
	rc = 0;
out:
	oidc_tokens_release(&l.tokens);
	rai_free_secret(l.nonce);
	free(l.scope);
	oidc_client_free(l.client);
	free(flag_ca.data);
	free(ca_file);
	return rc;
}

