/*
 * runai config set: the Run:ai CLI v2's way to change settings, writing
 * ours where 'runai config control-plane' and 'runai config project'
 * write them (beside the current context in the kubeconfig; never into
 * the CLI v2's own ~/.runai files). Every flag takes effect, or says in
 * one line why it has none here. Every value is checked before anything
 * is written; then the settings go in the order one depends on the
 * other: the control plane, its auth URL, the cluster, the project.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "kube/config.h"
#include "oidc/url.h"
#include "runai.h"
#include "runai/cp.h"

#include "core/banned.h"

struct config_set_opts {
	const char	*cp_url;
	const char	*auth_url;
	const char	*project;
	const char	*cluster;
	const char	*output;
	const char	*interactive;
	const char	*auto_update;
	const char	*update_shell;
	const char	*list_align;
	long		 status_timeout;	/* -1 = not given */
};

static const char *const enabled_disabled[] = { "enabled", "disabled",
	NULL };
static const char *const on_off[] = { "enabled", "disabled", "true",
	"false", NULL };
static const char *const output_formats[] = { "table", "json", "yaml",
	NULL };

/* The current context's name (a copy: writes rebuild the view), or NULL. */
static char *
context_name(struct rai_ctx *ctx)
{
	const struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;

	return kc != NULL && kube_config_context_name(kc) != NULL ?
	    xstrdup(kube_config_context_name(kc)) : NULL;
}

/* Opened again after a write that changes the mode or the context. */
static int
reopen(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	runai_teardown(ctx);
	return runai_prepare(ctx, flags, err);
}

static int
nothing_given(const struct config_set_opts *o)
{
	return o->cp_url == NULL && o->auth_url == NULL && o->project == NULL &&
	    o->cluster == NULL && o->output == NULL && o->interactive == NULL &&
	    o->auto_update == NULL && o->update_shell == NULL &&
	    o->list_align == NULL && o->status_timeout < 0;
}

/* Whether anything is written (the rest only says why it is not). */
static int
writes(const struct config_set_opts *o)
{
	return o->cp_url != NULL || o->auth_url != NULL || o->project != NULL ||
	    o->cluster != NULL || o->interactive != NULL;
}

/* An identity provider's base URL: http(s), secrets only over https. */
static int
check_auth_url(const char *url, struct rai_err *err)
{
	if (oidc_url_kind(url) == OIDC_URL_BAD)
		return rai_err_set(err, RAI_E_USAGE, "--auth-url '%s' is not an "
		    "http:// or https:// URL", url);
	if (!oidc_url_may_carry_secrets(url))
		return rai_err_set(err, RAI_E_USAGE, "--auth-url '%s' is plain "
		    "http to a host that is not a loopback address; use "
		    "https://", url);
	return 0;
}

/* Everything that can be wrong, before anything is written. */
static int
check(struct rai_ctx *ctx, const struct config_set_opts *o,
    struct rai_err *err)
{
	struct cp_opts co = { 0 };
	struct cp *probe = NULL;
	char *name;

	if (nothing_given(o))
		return rai_err_set(err, RAI_E_USAGE, "nothing to set; see "
		    "'runai config set -h'");
	/* a bad URL or plain http is refused now, not at the next command */
	if (o->cp_url != NULL) {
		co.url = o->cp_url;
		if (cp_open(&probe, &co, err) == -1)
			return -1;
		cp_free(probe);
	}
	if (o->auth_url != NULL && o->cp_url == NULL &&
	    runai_control_plane(ctx) == NULL) {
		name = context_name(ctx);
		rai_err_set(err, RAI_E_USAGE, "--auth-url is a control plane's "
		    "setting, and %s%s%s is in Kubernetes mode: give --cp-url "
		    "too", name != NULL ? "context '" : "the current context",
		    name != NULL ? name : "", name != NULL ? "'" : "");
		free(name);
		return -1;
	}
	if (o->auth_url != NULL && check_auth_url(o->auth_url, err) == -1)
		return -1;
	if (!writes(o))
		return 0;
	if (RUNAI_KUBE(ctx)->kcfg == NULL ||
	    kube_config_context_name(RUNAI_KUBE(ctx)->kcfg) == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no current context to keep the "
		    "settings in");
		rai_err_set_hint(err, "run 'runai config cluster <context>' "
		    "first");
		return -1;
	}
	return 0;
}

/* What has no effect in this build, each in one line on stderr. */
static void
say_unused(const struct config_set_opts *o)
{
	if (o->output != NULL)
		rai_warn("--output: runai keeps no default output format; give "
		    "-o to each command (-o json, -o yaml, -o wide)");
	if (o->auto_update != NULL)
		rai_warn("--auto-update: this build does not update itself; it "
		    "is installed and updated by the package manager");
	if (o->update_shell != NULL)
		rai_warn("--update-shell: this build does not update itself, so "
		    "no shell runs an update");
	if (o->list_align != NULL)
		rai_warn("--list-format-align: runai's tables are always "
		    "aligned (-o json or -o yaml for programs)");
	if (o->status_timeout >= 0)
		rai_warn("--status-timeout-duration: runai makes no separate "
		    "cluster status call; --request-timeout (or "
		    "RUNAI_REQUEST_TIMEOUT) limits every request");
}

/* --cp-url, with --auth-url when given too: both in one write. */
static int
set_control_plane(struct rai_ctx *ctx, const struct config_set_opts *o,
    struct rai_err *err)
{
	struct runai_setting_kv kv[2];
	char *name = context_name(ctx);
	size_t n = 0;
	int rc;

	if (o->cp_url != NULL)
		kv[n++] = (struct runai_setting_kv){ "url", o->cp_url };
	if (o->auth_url != NULL)
		kv[n++] = (struct runai_setting_kv){ "authUrl", o->auth_url };
	rc = runai_settings_write(ctx, kv, n, err);
	if (rc == 0 && o->cp_url != NULL)
		fprintf(ctx->out, "Context %s uses the control plane %s\n", name,
		    o->cp_url);
	if (rc == 0 && o->auth_url != NULL)
		fprintf(ctx->out, "Context %s signs in at the auth URL %s\n",
		    name, o->auth_url);
	if (rc == 0 && o->cp_url != NULL && getenv("RUNAI_CONTROL_PLANE_URL"))
		rai_warn("$RUNAI_CONTROL_PLANE_URL is set, and wins over the "
		    "context's control plane while it is");
	free(name);
	return rc;
}

/* The control plane's cluster, else (Kubernetes mode) the context. */
static int
set_cluster(struct rai_ctx *ctx, const char *cluster, struct rai_err *err)
{
	if (runai_control_plane(ctx) != NULL)
		return runai_cp_config_cluster(ctx, cluster);
	if (runai_config_cluster(ctx, cluster) == -1)
		return -1;
	/* the project and the settings below are the new context's */
	return reopen(ctx, RAI_CMD_NEED_CONFIG, err);
}

/* As 'runai config project' does: the project must exist. */
static int
set_project(struct rai_ctx *ctx, const char *project, struct rai_err *err)
{
	struct cp *c = runai_control_plane(ctx);

	if (c != NULL) {
		if (cp_cluster_use(c, err) == -1)
			return -1;
	} else if (runai_prepare(ctx, RAI_CMD_NEED_CLIENT, err) == -1)
		return -1;
	return runai_config_project(ctx, project);
}

static int
set_interactive(struct rai_ctx *ctx, const char *value, struct rai_err *err)
{
	struct runai_setting_kv kv = { "interactive", value };
	char *name = context_name(ctx);
	int rc = runai_settings_write(ctx, &kv, 1, err);

	if (rc == 0)
		fprintf(ctx->out, "Context %s: interactive %s (%s)\n", name,
		    value, strcmp(value, "disabled") == 0 ? "logins never ask "
		    "on the terminal" : "logins ask on the terminal for what "
		    "is not given");
	free(name);
	return rc;
}

static int
cmd_config_set(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct config_set_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);

	(void)argc;
	(void)argv;
	if (check(ctx, o, err) == -1)
		return -1;
	say_unused(o);
	if ((o->cp_url != NULL || o->auth_url != NULL) &&
	    (set_control_plane(ctx, o, err) == -1 ||
	    reopen(ctx, RAI_CMD_NEED_CONFIG, err) == -1))
		return -1;
	if (o->cluster != NULL && set_cluster(ctx, o->cluster, err) == -1)
		return -1;
	if (o->project != NULL && set_project(ctx, o->project, err) == -1)
		return -1;
	if (o->interactive != NULL &&
	    set_interactive(ctx, o->interactive, err) == -1)
		return -1;
	return 0;
}

static const struct rai_opt config_set_opts_table[] = {
	{ .long_name = "cp-url", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_set_opts, cp_url), .argh = "<url>",
	  .help = "the control plane (puts the context in control-plane "
	      "mode, as 'runai config control-plane <url>')" },
	{ .long_name = "auth-url", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_set_opts, auth_url),
	  .argh = "<url>",
	  .help = "where the browser logins sign in: the realm under "
	      "<url>/auth (default: the control plane's URL)" },
	{ .long_name = "cluster", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_set_opts, cluster),
	  .argh = "<name>", .comp = RAI_COMP_CONTEXT,
	  .help = "the cluster: the control plane's (by name or id), or in "
	      "Kubernetes mode the kubeconfig context to switch to" },
	{ .long_name = "project", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_set_opts, project),
	  .argh = "<name>", .comp = RAI_COMP_PROJECT,
	  .help = "the default project, as 'runai config project'" },
	{ .long_name = "interactive", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct config_set_opts, interactive),
	  .argh = "enabled|disabled", .choices = enabled_disabled,
	  .comp = RAI_COMP_CHOICES,
	  .help = "disabled: logins never ask on the terminal" },
	{ .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct config_set_opts, output),
	  .argh = "<format>", .choices = output_formats,
	  .comp = RAI_COMP_CHOICES,
	  .help = "accepted, without effect: runai has no default format "
	      "(give -o to each command)" },
	{ .long_name = "auto-update", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct config_set_opts, auto_update),
	  .argh = "enabled|disabled", .choices = on_off,
	  .comp = RAI_COMP_CHOICES,
	  .help = "accepted, without effect: the package manager updates "
	      "runai" },
	{ .long_name = "update-shell", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_set_opts, update_shell),
	  .argh = "<shell>",
	  .help = "accepted, without effect (no self-update)" },
	{ .long_name = "list-format-align", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct config_set_opts, list_align),
	  .argh = "enabled|disabled", .choices = enabled_disabled,
	  .comp = RAI_COMP_CHOICES,
	  .help = "accepted, without effect: tables are always aligned" },
	{ .long_name = "status-timeout-duration", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct config_set_opts, status_timeout),
	  .argh = "<duration>", .flags = RAI_OPT_TRISTATE,
	  .help = "accepted, without effect: --request-timeout limits every "
	      "request" },
	RAI_OPT_END
};

static const struct rai_example config_set_examples[] = {
	{ "runai config set --cp-url https://runai.example.com",
	    "use the control plane for the current context" },
	{ "runai config set --cluster gpu-east --project team-a",
	    "the cluster, then the default project on it" },
	{ "runai config set --interactive disabled", "logins never ask on "
	    "the terminal (scripts, CI)" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_set = {
	.name = "set",
	.summary = "change settings (the Run:ai CLI v2's form)",
	.synopsis = "[--cp-url <url>] [--auth-url <url>] [--cluster <name>] "
	    "[--project <name>] [--interactive enabled|disabled] [options]",
	.description = "Changes the settings of the current kubeconfig "
	    "context. They are kept where the other config commands keep "
	    "them: beside the context in the kubeconfig (its extension "
	    "run.ai/control-plane, which kubectl keeps) and, for a project "
	    "in Kubernetes mode, the context's namespace. The Run:ai CLI "
	    "v2's own files under ~/.runai are never written."
	    "\n\n"
	    "--cp-url is 'runai config control-plane <url>'. --auth-url is "
	    "the base of the identity provider the browser logins sign in "
	    "at (its realm <url>/auth/realms/runai); the token endpoint "
	    "stays the control plane's. --cluster is 'runai config "
	    "control-plane --cluster' in control-plane mode and 'runai "
	    "config cluster' (the kubeconfig's current context) in "
	    "Kubernetes mode. --project is 'runai config project', on the "
	    "cluster just chosen when --cluster is given too. --interactive "
	    "disabled keeps every login from asking on the terminal; the "
	    "flags or stdin must then give what it needs."
	    "\n\n"
	    "--output, --auto-update, --update-shell, --list-format-align "
	    "and --status-timeout-duration are accepted and have no effect "
	    "here; each says why in one line on stderr. The values are "
	    "checked before anything is written (the project, which must "
	    "exist on the cluster, when its turn comes).",
	.examples = config_set_examples,
	.opts = config_set_opts_table,
	.opts_size = sizeof(struct config_set_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS |
	    RUNAI_CMD_CP_KUBECONFIG,
	.run = cmd_config_set,
};
