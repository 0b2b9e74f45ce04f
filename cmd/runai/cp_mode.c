/*
 * Which mode a command runs in, and the backend-mode settings.
 *
 * A context is in control-plane (backend) mode when a control-plane URL
 * is configured for it: $RUNAI_CONTROL_PLANE_URL, else the URL stored
 * beside the context in the kubeconfig, as an entry of the context's
 * "extensions" list named run.ai/control-plane ({url, project}), which
 * kubectl keeps when it rewrites the file. Otherwise the context is in
 * Kubernetes mode, unchanged. `runai config control-plane URL` sets the
 * entry, `--unset` removes it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/text.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/session.h"
#include "runai.h"
#include "runai/cp.h"
#include "runai/cp_work.h"
#include "runai/wl_cp.h"

#include "core/banned.h"

#define CP_EXTENSION	"run.ai/control-plane"
#define CP_ENV		"RUNAI_CONTROL_PLANE_URL"

/*
 * The Run:ai CLI v2 keeps its settings in config.json under its config
 * path (~/.runai by default; $RUNAI_CLI_CONFIG_PATH and
 * $RUNAI_CLI_CONFIG_FILE move it). When the user points us at it by
 * setting either variable, it is read (never written) for what the
 * context does not say: control_plane.url, cluster.uuid and
 * cluster.project.name, under our names url, cluster and project.
 */
#define CLI_CONFIG_MAX	((size_t)1 << 20)

static const struct {
	const char	*ours;
	const char	*theirs;
} cli_config_keys[] = {
	{ "url", "control_plane.url" },
	{ "cluster", "cluster.uuid" },
	{ "project", "cluster.project.name" },
};

static int
cli_config_load(struct rai_ctx *ctx, struct rai_err *err)
{
	struct runai_app *app = RUNAI_APP(ctx);
	const char *dir = getenv("RUNAI_CLI_CONFIG_PATH");
	const char *file = getenv("RUNAI_CLI_CONFIG_FILE");
	const char *home = getenv("HOME");
	char *path, *data = NULL;
	size_t len = 0;
	int rc = 0;

	if (app->cli_config_read)
		return 0;
	app->cli_config_read = 1;
	if ((dir == NULL || *dir == '\0') && (file == NULL || *file == '\0'))
		return 0;
	if (file != NULL && *file == '/')
		path = xstrdup(file);
	else if (dir != NULL && *dir != '\0')
		path = xasprintf("%s/%s", dir, file != NULL && *file != '\0' ?
		    file : "config.json");
	else
		path = xasprintf("%s/.runai/%s", home != NULL ? home : "",
		    file);
	if (rai_file_read(path, CLI_CONFIG_MAX, &data, &len, err) == -1 ||
	    rai_json_parse(data, len, path, &app->cli_config, err) == -1) {
		rai_err_prefix(err, "the Run:ai CLI's settings "
		    "($RUNAI_CLI_CONFIG_PATH, $RUNAI_CLI_CONFIG_FILE)");
		rc = -1;
	}
	free(data);
	free(path);
	return rc;
}

/* The context's control-plane settings (borrowed), or NULL. */
static const cJSON *
context_settings(struct rai_ctx *ctx)
{
	struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	const char *name;

	if (kc == NULL || (name = kube_config_context_name(kc)) == NULL)
		return NULL;
	return kube_config_context_extension(kc, name, CP_EXTENSION);
}

const char *
runai_setting_where(struct rai_ctx *ctx, const char *key, const char **where)
{
	const char *v = rai_json_str(context_settings(ctx), key);
	size_t i;

	*where = "context";
	if (v != NULL && *v != '\0')
		return v;
	*where = "Run:ai CLI config.json";
	for (i = 0; i < sizeof(cli_config_keys) / sizeof(cli_config_keys[0]);
	    i++)
		if (strcmp(cli_config_keys[i].ours, key) == 0 &&
		    (v = rai_json_str(RUNAI_APP(ctx)->cli_config,
		    cli_config_keys[i].theirs)) != NULL)
			return v;
	*where = NULL;
	return NULL;
}

const char *
runai_setting(struct rai_ctx *ctx, const char *key)
{
	const char *where;

	return runai_setting_where(ctx, key, &where);
}

/* Streams load the kubeconfig when they need it (its own error then). */
static int
load_kubeconfig(void *ud, struct rai_err *err)
{
	struct rai_ctx *ctx = ud;
	struct rai_kube_globals kg = RUNAI_GLOBALS(ctx)->kube;

	return rai_kube_setup(RUNAI_KUBE(ctx), &kg, RAI_CMD_NEED_CONFIG,
	    "runai/" RAI_VERSION, err);
}

int
runai_cp_select(struct rai_ctx *ctx, const struct rai_kube_globals *kg,
    struct rai_err *err)
{
	struct runai_app *app = RUNAI_APP(ctx);
	struct rai_wl_cp_opts wo = { 0 };
	struct cp_opts co = { 0 };
	const char *url = getenv(CP_ENV);

	if (app->wl != NULL)
		return rai_wl_cp_session(app->wl) != NULL;
	/*
	 * The kubeconfig, for the context's settings; none at all is no
	 * error here (Kubernetes mode will say what is wrong).
	 */
	if (rai_kube_setup(&app->kube, kg, RAI_CMD_NEED_CONFIG,
	    "runai/" RAI_VERSION, err) == -1)
		rai_err_release(err);
	if (cli_config_load(ctx, err) == -1)
		return -1;
	if (url == NULL || *url == '\0')
		url = runai_setting(ctx, "url");
	if (url == NULL || *url == '\0') {
		if (RUNAI_GLOBALS(ctx)->cluster == NULL)
			return 0;
		rai_err_set(err, RAI_E_USAGE, "--cluster is for control-plane "
		    "mode");
		rai_err_set_hint(err, "in Kubernetes mode, --context or 'runai "
		    "config cluster <context>' picks the cluster");
		return -1;
	}
	co.url = url;
	co.cluster = RUNAI_GLOBALS(ctx)->cluster;
	if (co.cluster == NULL)
		co.cluster = runai_setting(ctx, "cluster");
	co.auth_url = runai_setting(ctx, "authUrl");
	co.request_timeout_ms = kg->request_timeout * 1000;
	co.user_agent = "runai/" RAI_VERSION;
	if (cp_open(&wo.cp, &co, err) == -1)
		return -1;
	wo.asked_project = RUNAI_GLOBALS(ctx)->project;
	wo.default_project = runai_setting(ctx, "project");
	wo.ks = RUNAI_KUBE(ctx);
	wo.load_kubeconfig = load_kubeconfig;
	wo.ud = ctx;
	wo.request_timeout_ms = kg->request_timeout * 1000;
	wo.user_agent = "runai/" RAI_VERSION;
	app->wl = rai_wl_cp_open(&wo);
	return 1;
}

struct cp *
runai_control_plane(struct rai_ctx *ctx)
{
	return rai_wl_cp_session(RUNAI_WL(ctx));
}

/*
 * Streams (logs, exec, bash, attach, port-forward: RUNAI_CMD_STREAM) are
 * not in the control plane's API: they go through the cluster's
 * Kubernetes API with the kubeconfig's own credentials, in the namespace
 * the control plane names for the project (lib/runai/wl_cp); the
 * stream commands then run as in Kubernetes mode. With no kubeconfig
 * for the cluster, logs alone goes through the cluster's own endpoint.
 * The commands a control plane has no half for say so instead of
 * running; those that choose or show the cluster run with none chosen.
 */
int
runai_cp_supported(struct rai_ctx *ctx, const struct rai_kube_globals *kg,
    struct rai_err *err)
{
	unsigned flags = ctx->cmd->flags;

	(void)kg;
	if (!(flags & RUNAI_CMD_CLUSTERLESS) &&
	    cp_cluster_use(runai_control_plane(ctx), err) == -1)
		return -1;
	if (flags & RUNAI_CMD_STREAM)
		return runai_stream_setup(ctx, err);
	/* switching contexts needs the kubeconfig, which $RUNAI_...
	 * alone does not give */
	if ((flags & RUNAI_CMD_CP) && (!(flags & RUNAI_CMD_CP_KUBECONFIG) ||
	    RUNAI_KUBE(ctx)->kcfg != NULL))
		return 0;
	rai_err_set(err, RAI_E_CONFIG, "'%s %s' is not available in "
	    "control-plane mode yet", ctx->prog->name, ctx->cmdpath);
	rai_err_set_hint(err, "for Kubernetes mode, run 'runai config "
	    "control-plane --unset' (or unset " CP_ENV ")");
	return -1;
}

int
runai_settings_write(struct rai_ctx *ctx, const struct runai_setting_kv *kv,
    size_t n, struct rai_err *err)
{
	struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	const cJSON *old = context_settings(ctx);
	cJSON *v;
	char *name = kc != NULL && kube_config_context_name(kc) != NULL ?
	    xstrdup(kube_config_context_name(kc)) : NULL;
	size_t i;
	int rc;

	if (name == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no current context to keep the "
		    "settings in");
		rai_err_set_hint(err, "run 'runai config cluster <context>' "
		    "first, or set " CP_ENV);
		return -1;
	}
	v = old != NULL ? cJSON_Duplicate(old, 1) : cJSON_CreateObject();
	for (i = 0; i < n; i++) {
		if (kv[i].value != NULL)
			rai_json_set_str(v, kv[i].key, kv[i].value);
		else
			cJSON_DeleteItemFromObjectCaseSensitive(v, kv[i].key);
	}
	rc = kube_config_set_context_extension(kc, name, CP_EXTENSION, v, err);
	cJSON_Delete(v);
	free(name);
	return rc;
}

/*
 * Writes the context's settings: url, project and cluster (NULL = keep
 * as is).
 */
static int
store_settings(struct rai_ctx *ctx, const char *url, const char *project,
    const char *cluster, struct rai_err *err)
{
	struct runai_setting_kv kv[3];
	size_t n = 0;

	if (url != NULL)
		kv[n++] = (struct runai_setting_kv){ "url", url };
	if (project != NULL)
		kv[n++] = (struct runai_setting_kv){ "project", project };
	if (cluster != NULL)
		kv[n++] = (struct runai_setting_kv){ "cluster", cluster };
	return runai_settings_write(ctx, kv, n, err);
}

int
runai_cp_config_project(struct rai_ctx *ctx, const char *project)
{
	struct rai_err *err = rai_ctx_err(ctx);
	char *id = NULL;

	/* the project must exist; its id is found again when used */
	if (cp_project_id(runai_control_plane(ctx), project, &id, err) == -1)
		return -1;
	free(id);
	if (getenv(CP_ENV) == NULL && store_settings(ctx, NULL, project, NULL,
	    err) == -1)
		return -1;
	fprintf(ctx->out, "Project %s has been set as default project\n",
	    project);
	return 0;
}

struct config_cp_opts {
	int		 unset;
	const char	*cluster;
};

/*
 * --cluster NAME: kept for the context once the control plane (when
 * logged in) knows it; a URL given with it is stored first.
 */
static int
config_cluster(struct rai_ctx *ctx, const char *url, const char *name,
    const char *cluster, struct rai_err *err)
{
	struct cp *c = NULL;
	struct cp_opts co = { 0 };
	int rc = -1;

	co.url = url != NULL ? url : rai_json_str(context_settings(ctx),
	    "url");
	co.cluster = cluster;
	if (co.url == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "context %s has no control "
		    "plane", name);
		rai_err_set_hint(err, "run 'runai config control-plane <url> "
		    "--cluster <name>'");
		return -1;
	}
	if (cp_open(&c, &co, err) == 0 && cp_cluster_use(c, err) == 0 &&
	    store_settings(ctx, url, NULL, cluster, err) == 0) {
		if (url != NULL)
			fprintf(ctx->out, "Context %s uses the control plane "
			    "%s\n", name, url);
		fprintf(ctx->out, "Context %s uses the cluster ", name);
		rai_text_put(ctx->out, "", cluster, " of its control plane\n");
		rc = 0;
	}
	cp_free(c);
	return rc;
}

int
runai_cp_config_cluster(struct rai_ctx *ctx, const char *cluster)
{
	struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	char *name = kc != NULL && kube_config_context_name(kc) != NULL ?
	    xstrdup(kube_config_context_name(kc)) : NULL;
	int rc;

	if (name == NULL)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_CONFIG, "no current "
		    "context to keep the cluster in");
	rc = config_cluster(ctx, NULL, name, cluster, rai_ctx_err(ctx));
	free(name);
	return rc;
}

static int
cmd_config_control_plane(struct rai_ctx *ctx, void *opts, int argc,
    char **argv)
{
	const struct config_cp_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	/* copied: writing the file rebuilds the view it points into */
	char *name = kube_config_context_name(kc) != NULL ?
	    xstrdup(kube_config_context_name(kc)) : NULL;
	struct cp *probe = NULL;
	struct cp_opts co = { 0 };
	int rc = -1;

	if (o->cluster != NULL && o->unset) {
		rai_err_set(err, RAI_E_USAGE, "--cluster and --unset cannot be "
		    "used together");
	} else if (o->cluster == NULL && o->unset == (argc == 1)) {
		rai_err_set(err, RAI_E_USAGE, "give a control-plane URL, or "
		    "--unset");
	} else if (name == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no current context");
		rai_err_set_hint(err, "run 'runai config cluster <context>' "
		    "first, or set " CP_ENV);
	} else if (o->cluster != NULL) {
		rc = config_cluster(ctx, argc == 1 ? argv[0] : NULL, name,
		    o->cluster, err);
	} else if (o->unset) {
		if (kube_config_set_context_extension(kc, name, CP_EXTENSION,
		    NULL, err) == 0) {
			fprintf(ctx->out, "Context %s is in Kubernetes mode\n",
			    name);
			rc = 0;
		}
	} else {
		/* refused now, not at the next command: bad URL, plain http */
		co.url = argv[0];
		if (cp_open(&probe, &co, err) == 0 &&
		    store_settings(ctx, argv[0], NULL, NULL, err) == 0) {
			fprintf(ctx->out, "Context %s uses the control plane "
			    "%s\n", name, argv[0]);
			rc = 0;
		}
		cp_free(probe);
	}
	free(name);
	return rc;
}

static const struct rai_opt config_cp_opts[] = {
	{ .long_name = "unset", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct config_cp_opts, unset),
	  .help = "go back to Kubernetes mode for this context" },
	{ .long_name = "cluster", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_cp_opts, cluster),
	  .argh = "<name>",
	  .help = "use this cluster of the control plane (its name or id)" },
	RAI_OPT_END
};

static const struct rai_example config_cp_examples[] = {
	{ "runai config control-plane https://runai.example.com",
	    "use the Run:ai control plane for the current context" },
	{ "runai config control-plane --cluster gpu-east",
	    "use the control plane's cluster gpu-east for this context" },
	{ "runai config control-plane --unset", "back to Kubernetes mode" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_control_plane = {
	.name = "control-plane",
	.summary = "use a Run:ai control plane (backend mode) for this context",
	.synopsis = "<url> [--cluster <name>] | --cluster <name> | --unset",
	.description = "Puts the current kubeconfig context in control-plane "
	    "(backend) mode: researcher commands then talk to the Run:ai "
	    "control plane's REST API at <url> instead of the Kubernetes API. "
	    "The URL is kept beside the context in the kubeconfig (an entry "
	    "run.ai/control-plane of the context's extensions, which kubectl "
	    "keeps). $RUNAI_CONTROL_PLANE_URL, when set, wins over it for "
	    "every context. The URL must be https://, or plain http:// to a "
	    "loopback address. Log in with 'runai login' afterwards.\n\n"
	    "A control plane may serve several clusters: --cluster keeps "
	    "the one to use (by name, or by id where names repeat) beside "
	    "the context too; the global --cluster wins over it for one "
	    "command. Without either, the only cluster is used, and with "
	    "several each command says to choose.",
	.examples = config_cp_examples,
	.opts = config_cp_opts,
	.opts_size = sizeof(struct config_cp_opts),
	.args_min = 0,
	.args_max = 1,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_config_control_plane,
};
