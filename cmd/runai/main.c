/*
 * runai: the researcher's command line. main() holds the program table,
 * the global options, and the setup that turns a command's flags into
 * a ready context (kubeconfig, client, project); the commands live one
 * per file.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli/opt.h"
#include "cli/version.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/strv.h"
#include "kube/client.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/job.h"
#include "runai/project.h"

#include "core/banned.h"

/* Dynamic completion must never make a shell wait long. */
#define COMPLETE_TIMEOUT_MS	1500

static const struct rai_opt runai_global_opts[] = {
	{ 'p', "project", RAI_OPT_STRING,
	    offsetof(struct runai_globals, project), "<name>",
	    "project to use (default: the current context's)", NULL, NULL,
	    RAI_COMP_PROJECT, 0, NULL },
	{ 0, "kubeconfig", RAI_OPT_STRING,
	    offsetof(struct runai_globals, kubeconfig), "<file>",
	    "kubeconfig file to use instead of $KUBECONFIG", NULL, NULL,
	    RAI_COMP_FILE, 0, NULL },
	{ 0, "context", RAI_OPT_STRING,
	    offsetof(struct runai_globals, context), "<name>",
	    "kubeconfig context to use", NULL, NULL, RAI_COMP_CONTEXT, 0,
	    NULL },
	{ 'v', "verbosity", RAI_OPT_LEVEL,
	    offsetof(struct runai_globals, verbosity), "<level>",
	    "log level: -v notes, -v=6 requests, -v=8 bodies (secrets redacted)",
	    NULL, NULL, RAI_COMP_NONE, 0, NULL },
	{ 0, "request-timeout", RAI_OPT_DURATION,
	    offsetof(struct runai_globals, request_timeout), "<duration>",
	    "time limit for each API request (default 60s)", NULL, NULL,
	    RAI_COMP_NONE, 0, NULL },
	RAI_OPT_END
};

static const struct rai_cmd *const runai_cmds[] = {
	&runai_cmd_attach,
	&runai_cmd_bash,
	&runai_cmd_completion,
	&runai_cmd_config,
	&runai_cmd_delete,
	&runai_cmd_describe,
	&runai_cmd_exec,
	&runai_cmd_exec_credential,
	&runai_cmd_list,
	&runai_cmd_login,
	&runai_cmd_logout,
	&runai_cmd_logs,
	&runai_cmd_resume,
	&runai_cmd_submit,
	&runai_cmd_suspend,
	&runai_cmd_top,
	&rai_cmd_version,
	&runai_cmd_whoami,
	NULL
};

static int
verbosity_from_env(void)
{
	const char *v = getenv("RUNAI_VERBOSITY");
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return 0;
	n = strtol(v, &end, 10);
	return (*end == '\0' && n >= 0 && n <= 10) ? (int)n : 0;
}

static int
load_config(struct rai_ctx *ctx, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	struct kube_config_opts ko = { 0 };

	ko.kubeconfig = g->kubeconfig;
	ko.context = g->context;
	if (kube_config_load(&ctx->kcfg, &ko, err) == -1)
		return -1;
	if (rai_log_enabled(RAI_LOG_NOTE) && kube_config_nfiles(ctx->kcfg) > 0)
		rai_log(RAI_LOG_NOTE, "using kubeconfig %s, context %s",
		    kube_config_file(ctx->kcfg, 0),
		    kube_config_context_name(ctx->kcfg) ?
		    kube_config_context_name(ctx->kcfg) : "(none)");
	return 0;
}

static int
make_client(struct rai_ctx *ctx, long timeout_ms, int retries,
    struct rai_err *err)
{
	struct kube_client_opts co = { 0 };

	if (kube_config_resolve(ctx->kcfg, &ctx->conn, err) == -1)
		return -1;
	co.request_timeout_ms = timeout_ms;
	co.max_retries = retries;
	co.user_agent = "runai/" RAI_VERSION;
	return kube_client_new(&ctx->client, &ctx->conn, &co, err);
}

/*
 * The project: -p wins, then the current context's namespace label
 * (runai/queue), as the reference CLI resolves it.
 */
static int
resolve_project(struct rai_ctx *ctx, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	char *ns = NULL, *project = NULL;

	if (g->project != NULL && *g->project != '\0') {
		if (rai_project_namespace(ctx->client, g->project, &ns, err) == -1)
			return -1;
		ctx->project = xstrdup(g->project);
		ctx->namespace = ns;
		return 0;
	}
	if (rai_namespace_project(ctx->client, ctx->conn.namespace, &project,
	    err) == -1)
		return -1;
	if (project == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "no default project is set");
		rai_err_set_hint(err, "run 'runai config project <name>' or "
		    "use -p <name>");
		return -1;
	}
	ctx->project = project;
	ctx->namespace = xstrdup(ctx->conn.namespace);
	return 0;
}

int
runai_prepare(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);

	if (!(flags & (RAI_CMD_NEED_CONFIG | RAI_CMD_NEED_CLIENT |
	    RAI_CMD_NEED_PROJECT)))
		return 0;
	if (ctx->kcfg == NULL && load_config(ctx, err) == -1)
		return -1;
	if (!(flags & (RAI_CMD_NEED_CLIENT | RAI_CMD_NEED_PROJECT)))
		return 0;
	if (ctx->client == NULL &&
	    make_client(ctx, g->request_timeout * 1000, -1, err) == -1)
		return -1;
	if ((flags & RAI_CMD_NEED_PROJECT) && ctx->namespace == NULL)
		return resolve_project(ctx, err);
	return 0;
}

static int
runai_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	int level = g->verbosity ? g->verbosity : verbosity_from_env();

	rai_log_set_level(level);
	return runai_prepare(ctx, flags, err);
}

static void
runai_teardown(struct rai_ctx *ctx)
{
	/* whatever the command, the cluster's 403 is the contract's message */
	runai_job_err_forbidden(rai_ctx_err(ctx));
	kube_client_free(ctx->client);
	ctx->client = NULL;
	kube_conn_release(&ctx->conn);
	kube_config_free(ctx->kcfg);
	ctx->kcfg = NULL;
	free(ctx->project);
	free(ctx->namespace);
	ctx->project = ctx->namespace = NULL;
}

static void
complete_contexts(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out)
{
	struct kube_context_info ci;
	size_t i;

	for (i = 0; i < kube_config_ncontexts(ctx->kcfg); i++)
		if (kube_config_context(ctx->kcfg, i, &ci) == 0 &&
		    strncmp(ci.name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, ci.name);
}

static void
complete_projects(struct rai_ctx *ctx, const char *prefix,
    struct rai_strv *out, struct rai_err *err)
{
	struct rai_project_list pl = { 0 };
	size_t i;

	if (rai_projects_fetch(ctx->client, &pl, err) == -1)
		return;
	for (i = 0; i < pl.n; i++)
		if (strncmp(pl.v[i].name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, pl.v[i].name);
	rai_project_list_release(&pl);
}

static void
complete_nodes(struct rai_ctx *ctx, const char *prefix, struct rai_strv *out,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *item;
	const char *name;
	cJSON *list = NULL;

	if (kube_list(ctx->client, &KUBE_RES_NODES, NULL, &lo, &list, err) == -1)
		return;
	cJSON_ArrayForEach(item, cJSON_GetObjectItem(list, "items")) {
		name = cJSON_GetStringValue(cJSON_GetObjectItem(
		    cJSON_GetObjectItem(item, "metadata"), "name"));
		if (name != NULL && strncmp(name, prefix, strlen(prefix)) == 0)
			rai_strv_push(out, name);
	}
	cJSON_Delete(list);
}

/* Jobs (valid and invalid) of -p's project, else the context namespace. */
static void
complete_jobs(struct rai_ctx *ctx, const char *prefix, struct rai_strv *out,
    struct rai_err *err)
{
	const struct runai_globals *g = RUNAI_GLOBALS(ctx);
	char **names = NULL, *ns = NULL;
	size_t i, n = 0;

	if (g->project != NULL && *g->project != '\0' &&
	    rai_project_namespace(ctx->client, g->project, &ns, err) == -1)
		return;
	if (rai_job_names(ctx->client, ns ? ns : ctx->conn.namespace, &names,
	    &n, err) == 0)
		for (i = 0; i < n; i++)
			if (strncmp(names[i], prefix, strlen(prefix)) == 0)
				rai_strv_push(out, names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ns);
}

/*
 * Names for the shell. Failures are silent (a completion that prints
 * errors into the command line is worse than none) and bounded in time.
 */
static int
runai_complete(struct rai_ctx *ctx, enum rai_comp comp, const char *prefix,
    struct rai_strv *out)
{
	struct rai_err err = RAI_ERR_INIT;

	if (ctx->kcfg == NULL && load_config(ctx, &err) == -1)
		goto out;
	if (comp == RAI_COMP_CONTEXT) {
		complete_contexts(ctx, prefix, out);
		goto out;
	}
	if (comp != RAI_COMP_PROJECT && comp != RAI_COMP_NODE &&
	    comp != RAI_COMP_JOB)
		goto out;
	/* a budget the user set (RUNAI_REQUEST_TIMEOUT) wins over ours */
	if (ctx->client == NULL && make_client(ctx,
	    getenv("RUNAI_REQUEST_TIMEOUT") != NULL ? 0 : COMPLETE_TIMEOUT_MS,
	    0, &err) == -1)
		goto out;
	if (comp == RAI_COMP_PROJECT)
		complete_projects(ctx, prefix, out, &err);
	else if (comp == RAI_COMP_JOB)
		complete_jobs(ctx, prefix, out, &err);
	else
		complete_nodes(ctx, prefix, out, &err);
out:
	rai_err_release(&err);
	return 0;
}

const struct rai_prog runai_prog = {
	.name = "runai",
	.summary = "submit and manage workloads on a Run:ai cluster",
	.description =
	    "runai is the researcher's command line for GPU clusters run "
	    "with Run:ai on Kubernetes. It talks to the cluster's API "
	    "server directly, with the credentials of the current "
	    "kubeconfig context, and keeps no state of its own: the "
	    "default project is the current context's namespace.",
	.version = RAI_VERSION,
	.man_section = 1,
	.global_opts = runai_global_opts,
	.globals_size = sizeof(struct runai_globals),
	.cmds = runai_cmds,
	.environment =
	    "KUBECONFIG\n"
	    "A colon-separated list of kubeconfig files, merged as kubectl "
	    "merges them. Default: ~/.kube/config.\n\n"
	    "RUNAI_VERBOSITY\n"
	    "Log level when -v is not given (0-10).\n\n"
	    "RUNAI_REQUEST_TIMEOUT\n"
	    "Time limit for each API request when --request-timeout is "
	    "not given: seconds, or a number with ms, s, m or h "
	    "(default 60s).\n\n"
	    "RUNAI_MAX_RETRIES\n"
	    "How often a request that may be repeated is retried after a "
	    "connect error, 429 or 5xx (default 3; 0 turns retries "
	    "off).\n\n"
	    "RUNAI_MAX_RESPONSE\n"
	    "Largest API response accepted, in bytes (default 64 MiB).\n\n"
	    "RUNAI_EXEC_TIMEOUT\n"
	    "Seconds a kubeconfig exec credential plugin may run "
	    "(default 60).\n\n"
	    "NO_COLOR\n"
	    "Disables colour even on a terminal.",
	.files =
	    "~/.kube/config\n"
	    "The default kubeconfig. runai config rewrites the file that "
	    "defines the edited entry atomically, with mode 0600, keeping "
	    "unknown fields; comments in it are not kept.",
	.setup = runai_setup,
	.teardown = runai_teardown,
	.complete = runai_complete,
};

int
runai_output_format(struct rai_ctx *ctx, const char *s, enum rai_out_fmt *fmt)
{
	(void)ctx;
	*fmt = RAI_OUT_TABLE;
	if (s == NULL || *s == '\0')
		return 0;
	return rai_out_parse(s, fmt, rai_ctx_err(ctx));
}

int
main(int argc, char **argv)
{
	int rc;

	setlocale(LC_ALL, "");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rai_log_set_sink(rai_log_to_stderr, NULL);
	rc = rai_main(&runai_prog, argc, argv);
	curl_global_cleanup();
	return rc;
}
