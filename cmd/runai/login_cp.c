/*
 * login, logout and whoami in backend (control-plane) mode. Passwords
 * and secrets come from the terminal, stdin or a file, or from the
 * command line's -p and --secret (copied by the option parser, which
 * wipes them from argv at once), and are wiped when freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/json.h"
#include "core/text.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

#define SECRET_FILE_MAX	4096

/* The first line of a secret file, without its newline. */
static int
secret_from_file(const char *path, char **out, struct rai_err *err)
{
	char *data = NULL;
	size_t len = 0;

	if (rai_file_read(path, SECRET_FILE_MAX, &data, &len, err) == -1)
		return -1;
	data[strcspn(data, "\r\n")] = '\0';
	if (*data == '\0') {
		rai_free_secret(data);
		return rai_err_set(err, RAI_E_USAGE, "the secret file '%s' is "
		    "empty", path);
	}
	*out = data;
	return 0;
}

/*
 * One line from stdin, else asked on the terminal (unless the login may
 * not ask); flag names the way to give it instead.
 */
static int
secret_input(const struct runai_cp_login *l, int from_stdin, const char *flag,
    char **out, struct rai_err *err)
{
	if (from_stdin)
		return runai_read_secret_line(STDIN_FILENO, l->timeout_ms, out,
		    err);
	if (l->no_prompt)
		return rai_err_set(err, RAI_E_USAGE, "asking on the terminal is "
		    "disabled: use %s", flag);
	if (!isatty(STDIN_FILENO))
		return rai_err_set(err, RAI_E_USAGE, "stdin is not a terminal: "
		    "use %s", flag);
	return runai_prompt_password(l->timeout_ms, flag, out, err);
}

static int
not_empty(char **secret, const char *what, struct rai_err *err)
{
	if (**secret != '\0')
		return 0;
	rai_free_secret(*secret);
	*secret = NULL;
	return rai_err_set(err, RAI_E_USAGE, "the %s is empty", what);
}

/*
 * The access key's secret: --secret, --secret-file, --secret-stdin,
 * else asked.
 */
static int
access_key_secret(const struct runai_cp_login *l, char **secret,
    struct rai_err *err)
{
	if (l->secret != NULL && l->secret_file != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--secret and --secret-file "
		    "cannot be used together");
	if (l->secret_file != NULL && l->secret_stdin)
		return rai_err_set(err, RAI_E_USAGE, "--secret-file and "
		    "--secret-stdin cannot be used together");
	if (l->secret != NULL)
		*secret = xstrdup(l->secret);
	else if (l->secret_file != NULL) {
		if (secret_from_file(l->secret_file, secret, err) == -1)
			return -1;
	} else if (secret_input(l, l->secret_stdin, l->secret_flag != NULL ?
	    l->secret_flag : "--secret-file or --secret-stdin", secret,
	    err) == -1)
		return -1;
	return not_empty(secret, "secret", err);
}

static int
user_password(const struct runai_cp_login *l, char **user, char **pw,
    struct rai_err *err)
{
	const char *uflag = l->user_flag != NULL ? l->user_flag : "--username";
	const char *pflag = l->secret_flag != NULL ? l->secret_flag :
	    "--password-stdin";

	if (l->secret_file != NULL || l->secret_stdin)
		return rai_err_set(err, RAI_E_USAGE, "--secret-file and "
		    "--secret-stdin go with --client-id (an access key)");
	*user = l->username != NULL ? xstrdup(l->username) : NULL;
	if (*user == NULL && l->no_prompt)
		return rai_err_set(err, RAI_E_USAGE, "no user name given, and "
		    "asking for it is disabled: use %s", uflag);
	if (*user == NULL &&
	    runai_prompt_username(l->timeout_ms, uflag, user, err) == -1)
		return -1;
	if (l->password != NULL)
		*pw = xstrdup(l->password);
	else if (secret_input(l, l->password_stdin, pflag, pw, err) == -1)
		return -1;
	return not_empty(pw, "password", err);
}

/* Several clusters and none chosen: which there are, and how to choose. */
static void
say_clusters(struct rai_ctx *ctx, struct cp *c)
{
	char *names;

	if (cp_cluster(c, "id") != NULL)
		return;
	names = cp_cluster_names(c);
	rai_text_put(ctx->out, "The control plane serves several clusters (",
	    names, "): choose one with --cluster <name> or 'runai config "
	    "control-plane --cluster <name>'\n");
	free(names);
}

void
runai_login_cp_done(struct rai_ctx *ctx)
{
	rai_text_put(ctx->out, "Logged in successfully to ",
	    cp_url(runai_control_plane(ctx)), "\n");
	say_clusters(ctx, runai_control_plane(ctx));
}

int
runai_login_cp(struct rai_ctx *ctx, const struct runai_cp_login *l)
{
	struct rai_err *err = rai_ctx_err(ctx);
	char *id = NULL, *secret = NULL;
	enum cp_grant grant;
	int rc = -1;

	if (l->auth_flow != NULL && strcmp(l->auth_flow, "cli") != 0)
		return rai_err_set(err, RAI_E_USAGE, "--auth-flow %s is not "
		    "supported in control-plane mode yet: log in with the "
		    "browser or remote-browser flow, --username, or an access "
		    "key with --client-id", l->auth_flow);
	if (l->client_id != NULL) {
		grant = l->application ? CP_GRANT_APPLICATION :
		    CP_GRANT_ACCESS_KEY;
		id = xstrdup(l->client_id);
		if (access_key_secret(l, &secret, err) == -1)
			goto out;
	} else {
		grant = CP_GRANT_PASSWORD;
		if (l->application) {
			rai_err_set(err, RAI_E_USAGE, "--application needs "
			    "--client-id");
			goto out;
		}
		if (user_password(l, &id, &secret, err) == -1)
			goto out;
	}
	if (cp_login(runai_control_plane(ctx), grant, id, secret, err) == -1)
		goto out;
	runai_login_cp_done(ctx);
	rc = 0;
out:
	free(id);
	rai_free_secret(secret);
	return rc;
}

int
runai_logout_cp(struct rai_ctx *ctx)
{
	if (cp_logout(runai_control_plane(ctx), rai_ctx_err(ctx)) == -1)
		return -1;
	fprintf(ctx->out, "Logged out\n");
	return 0;
}

/* email, else preferred_username, else sub (as Kubernetes mode shows). */
static const char *
who(const cJSON *claims)
{
	const char *u = rai_json_str(claims, "email");

	if (u == NULL)
		u = rai_json_str(claims, "preferred_username");
	return u != NULL ? u : rai_json_str_or(claims, "sub", "");
}

int
runai_whoami_cp(struct rai_ctx *ctx, const char *output)
{
	struct cp *c = runai_control_plane(ctx);
	cJSON *claims = NULL, *doc;
	int rc = 0;

	if (cp_claims(c, &claims, rai_ctx_err(ctx)) == -1)
		return -1;
	if (output != NULL) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "user", who(claims));
		cJSON_AddStringToObject(doc, "subject", rai_json_str_or(claims,
		    "sub", ""));
		cJSON_AddStringToObject(doc, "controlPlane", cp_url(c));
		cJSON_AddStringToObject(doc, "cluster", cp_cluster(c, "name") ?
		    cp_cluster(c, "name") : "");
		rc = rai_out_doc(ctx->out, strcmp(output, "yaml") == 0 ?
		    RAI_OUT_YAML : RAI_OUT_JSON, doc, rai_ctx_err(ctx));
		cJSON_Delete(doc);
	} else {
		rai_text_put(ctx->out, "User: ", who(claims), "\n");
		rai_text_put(ctx->out, "Logged in Id: ", rai_json_str_or(claims,
		    "sub", ""), "\n");
		rai_text_put(ctx->out, "Control plane: ", cp_url(c), "\n");
		rai_text_put(ctx->out, "Cluster: ", cp_cluster(c, "name") ?
		    cp_cluster(c, "name") : "", "\n");
	}
	cJSON_Delete(claims);
	return rc;
}
