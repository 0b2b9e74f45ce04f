/*
 * runai kubeconfig set: in control-plane mode, gives the current
 * context a user whose credential is the control plane's token, so
 * kubectl (and runai's own streams) reach the cluster with the runai
 * login. The user is an exec plugin that runs 'runai exec-credential'
 * rather than a copy of the token: each use gets the token of that
 * moment, renewed when it nears expiry, where a copied token would
 * stop working within the hour. Before writing, the cluster is asked
 * whether it takes the token (its cluster authentication);
 * --bypass-validation writes without asking.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "kube/client.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

#define EXEC_API	"client.authentication.k8s.io/v1"

struct kubeconfig_set_opts {
	const char	*username;
	int		 bypass;
};

/* Whether file is this program (the same inode), e.g. found on PATH. */
static int
is_self(const char *file, const struct stat *self)
{
	struct stat st;

	return stat(file, &st) == 0 && st.st_dev == self->st_dev &&
	    st.st_ino == self->st_ino;
}

/*
 * The plugin's command: "runai" when that name on PATH is this program
 * (a kubeconfig then outlives a move of the binary that PATH follows),
 * else this program's absolute path.
 */
static char *
plugin_command(void)
{
	const char *path = getenv("PATH");
	char exe[PATH_MAX], *dirs, *dir, *save = NULL, *cand;
	struct stat self;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int found = 0;

	if (n <= 0 || stat("/proc/self/exe", &self) != 0)
		return xstrdup("runai");
	exe[n] = '\0';
	dirs = xstrdup(path != NULL ? path : "");
	for (dir = strtok_r(dirs, ":", &save); dir != NULL && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		cand = xasprintf("%s/runai", *dir ? dir : ".");
		found = *dir == '/' && access(cand, X_OK) == 0 &&
		    is_self(cand, &self);
		free(cand);
	}
	free(dirs);
	return xstrdup(found ? "runai" : exe);
}

/* The user entry: runai exec-credential for this context. */
static cJSON *
exec_user(struct rai_ctx *ctx, const char *context)
{
	const struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	cJSON *user = cJSON_CreateObject(), *exec, *args;
	char *cmd = plugin_command(), *file;

	exec = cJSON_AddObjectToObject(user, "exec");
	cJSON_AddStringToObject(exec, "apiVersion", EXEC_API);
	cJSON_AddStringToObject(exec, "command", cmd);
	args = cJSON_AddArrayToObject(exec, "args");
	cJSON_AddItemToArray(args, cJSON_CreateString("exec-credential"));
	/* one file holds the context: named, so any KUBECONFIG finds it */
	if (kube_config_nfiles(kc) == 1) {
		file = realpath(kube_config_file(kc, 0), NULL);
		cJSON_AddItemToArray(args, cJSON_CreateString("--kubeconfig"));
		cJSON_AddItemToArray(args, cJSON_CreateString(file != NULL ?
		    file : kube_config_file(kc, 0)));
		free(file);
	}
	cJSON_AddItemToArray(args, cJSON_CreateString("--context"));
	cJSON_AddItemToArray(args, cJSON_CreateString(context));
	cJSON_AddStringToObject(exec, "interactiveMode", "Never");
	cJSON_AddFalseToObject(exec, "provideClusterInfo");
	cJSON_AddStringToObject(exec, "installHint", "runai writes this user "
	    "('runai kubeconfig set'): install runai, or run that again");
	free(cmd);
	return user;
}

/* The context's cluster with the token alone: a 401 says it is not taken. */
static int
ask_cluster(struct rai_ctx *ctx, const char *token, struct rai_err *err)
{
	const struct kube_conn *r = &RUNAI_KUBE(ctx)->conn;
	struct kube_client_opts ko = { 0 };
	struct kube_client *kc = NULL;
	struct kube_conn conn;
	char *version = NULL;
	int rc;

	memset(&conn, 0, sizeof(conn));
	conn.context = r->context;
	conn.cluster = r->cluster;
	conn.server = r->server;
	conn.tls_server_name = r->tls_server_name;
	conn.proxy_url = r->proxy_url;
	conn.insecure = r->insecure;
	conn.disable_compression = r->disable_compression;
	conn.ca = r->ca;
	conn.auth = KUBE_AUTH_TOKEN;
	conn.token = xstrdup(token);
	ko.request_timeout_ms = RUNAI_GLOBALS(ctx)->kube.request_timeout * 1000;
	ko.max_retries = -1;
	rc = kube_client_new(&kc, &conn, &ko, err);
	if (rc == 0)
		rc = kube_server_version(kc, &version, err);
	kube_client_free(kc);
	rai_free_secret(conn.token);
	free(version);
	return rc;
}

static int
check_cluster(struct rai_ctx *ctx, const char *context, const char *token,
    struct rai_err *err)
{
	char *server;

	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, &RUNAI_KUBE(ctx)->conn,
	    err) == -1)
		return -1;
	if (ask_cluster(ctx, token, err) == 0)
		return 0;
	if (err->http_status == 401) {
		server = xstrdup(RUNAI_KUBE(ctx)->conn.server);
		rai_err_release(err);
		rai_err_set(err, RAI_E_AUTH, "the cluster of context '%s' (%s) "
		    "does not take the control plane's token: its cluster "
		    "authentication is off, or it is another cluster", context,
		    server);
		free(server);
	}
	rai_err_set_hint(err, "--bypass-validation writes the user without "
	    "asking the cluster");
	return -1;
}

static int
kubernetes_mode(const char *context, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_CONFIG, "'runai kubeconfig set' gives a "
	    "context the control plane's token, and %s%s%s is in Kubernetes "
	    "mode, where its own kubeconfig user reaches the cluster",
	    context != NULL ? "context '" : "the current context",
	    context != NULL ? context : "", context != NULL ? "'" : "");
}

static int
cmd_kubeconfig_set(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct kubeconfig_set_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	char *context = kc != NULL && kube_config_context_name(kc) != NULL ?
	    xstrdup(kube_config_context_name(kc)) : NULL;
	char *token = NULL;
	cJSON *user = NULL;
	int rc = -1;

	(void)argc;
	(void)argv;
	if (runai_control_plane(ctx) == NULL)
		rc = kubernetes_mode(context, err);
	else if (context == NULL)
		rai_err_set(err, RAI_E_CONFIG, "no current context to give the "
		    "user to");
	else if (*o->username == '\0')
		rai_err_set(err, RAI_E_USAGE, "--username is empty");
	/* the login must be there: the plugin hands out its token */
	else if (cp_access_token(runai_control_plane(ctx), &token, err) == 0 &&
	    (o->bypass || check_cluster(ctx, context, token, err) == 0)) {
		user = exec_user(ctx, context);
		rc = kube_config_set_context_user(kc, context, o->username, user,
		    err);
	}
	if (rc == 0)
		fprintf(ctx->out, "Context %s uses the user %s: the control "
		    "plane's token, through 'runai exec-credential'%s\n",
		    context, o->username, o->bypass ? " (not checked with the "
		    "cluster)" : "");
	cJSON_Delete(user);
	rai_free_secret(token);
	free(context);
	return rc;
}

static const struct rai_opt kubeconfig_set_opts_table[] = {
	{ .long_name = "username", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct kubeconfig_set_opts, username),
	  .argh = "<name>", .def = "runai-cli",
	  .help = "the kubeconfig user entry to write" },
	{ .long_name = "bypass-validation", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct kubeconfig_set_opts, bypass),
	  .help = "write without asking the cluster whether it takes the "
	      "token" },
	RAI_OPT_END
};

static const struct rai_example kubeconfig_set_examples[] = {
	{ "runai kubeconfig set", "kubectl then reaches the cluster with the "
	    "runai login" },
	{ "runai kubeconfig set --username alice-runai", "in a user entry of "
	    "another name" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_kubeconfig_set = {
	.name = "set",
	.summary = "give the current context the control plane's token",
	.synopsis = "[--username <name>] [--bypass-validation]",
	.description = "In control-plane mode, writes a user entry called "
	    "--username (runai-cli unless named) into the kubeconfig file "
	    "that defines the current context, and makes it the context's "
	    "user, so kubectl and other Kubernetes clients reach the cluster "
	    "with the runai login. The entry replaces one of that name, "
	    "credentials and all. Log in first ('runai login'); the cluster "
	    "must take the control plane's tokens (Run:ai's cluster "
	    "authentication)."
	    "\n\n"
	    "The user is an exec plugin: kubectl runs 'runai exec-credential "
	    "--context <context>' (with --kubeconfig <file> where one file "
	    "holds the kubeconfig) whenever it needs a token, and gets the "
	    "control plane's token of that moment, renewed when it nears "
	    "expiry. That is better than a copy of the token, which the "
	    "cluster refuses once it expires, and keeps the token itself out "
	    "of the kubeconfig. The command is 'runai' when that name on "
	    "PATH is this program, else its absolute path."
	    "\n\n"
	    "Before writing, the cluster of the context is asked for its "
	    "version with the token alone: when it answers 401 (it does not "
	    "take the token) or cannot be reached, nothing is written; "
	    "--bypass-validation writes without asking. The old user stays "
	    "in the file under its own name; to undo, point the context back "
	    "at it (kubectl config set-context --current --user <name>)."
	    "\n\n"
	    "In Kubernetes mode this is refused in one line: there the "
	    "context's own user reaches the cluster.",
	.examples = kubeconfig_set_examples,
	.opts = kubeconfig_set_opts_table,
	.opts_size = sizeof(struct kubeconfig_set_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS |
	    RUNAI_CMD_CP_KUBECONFIG,
	.run = cmd_kubeconfig_set,
};
