/*
 * runai config describe: the settings a command of this context runs
 * with, and where each comes from: the mode, the control plane and its
 * auth URL, the cluster, the project, the context and the kubeconfig
 * files. Nothing is sent: a cluster is the one the settings or the last
 * login name. runai_config_document is the same as a JSON document,
 * for 'config generate'.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "kube/config.h"
#include "runai.h"
#include "runai/cp.h"
#include "runai/project.h"

#include "core/banned.h"

#define CP_ENV	"RUNAI_CONTROL_PLANE_URL"

enum { ROW_MODE, ROW_URL, ROW_AUTH, ROW_CLUSTER, ROW_PROJECT, ROW_NS,
	ROW_CONTEXT, ROW_KUBECONFIG, ROW_INTERACTIVE, NROWS };

struct setting {
	const char	*key;		/* JSON */
	const char	*label;		/* table */
	char		*value;		/* NULL: none */
	const char	*source;
};

static const struct {
	const char	*key;
	const char	*label;
} row_names[NROWS] = {
	[ROW_MODE] = { "mode", "mode" },
	[ROW_URL] = { "controlPlaneUrl", "control plane" },
	[ROW_AUTH] = { "authUrl", "auth URL" },
	[ROW_CLUSTER] = { "cluster", "cluster" },
	[ROW_PROJECT] = { "project", "project" },
	[ROW_NS] = { "namespace", "namespace" },
	[ROW_CONTEXT] = { "context", "context" },
	[ROW_KUBECONFIG] = { "kubeconfig", "kubeconfig" },
	[ROW_INTERACTIVE] = { "interactive", "interactive" },
};

struct config_describe_opts {
	int	json;
	int	yaml;
};

static void
put(struct setting *s, const char *value, const char *source)
{
	free(s->value);
	s->value = value != NULL && *value != '\0' ? xstrdup(value) : NULL;
	s->source = s->value != NULL ? source : NULL;
}

/* A setting of the context (or the CLI's file), with where it is from. */
static void
put_setting(struct rai_ctx *ctx, struct setting *s, const char *key)
{
	const char *where;
	const char *v = runai_setting_where(ctx, key, &where);

	put(s, v, where);
}

static void
control_plane_rows(struct rai_ctx *ctx, struct cp *c, struct setting *r)
{
	const char *env = getenv(CP_ENV);
	struct rai_err err = RAI_ERR_INIT;

	if (env != NULL && *env != '\0')
		put(&r[ROW_URL], cp_url(c), "$" CP_ENV);
	else
		put_setting(ctx, &r[ROW_URL], "url");
	put(&r[ROW_MODE], "control-plane", r[ROW_URL].source);
	put_setting(ctx, &r[ROW_AUTH], "authUrl");
	if (r[ROW_AUTH].value == NULL)
		put(&r[ROW_AUTH], cp_url(c), "the control plane's");
	if (RUNAI_GLOBALS(ctx)->cluster != NULL)
		put(&r[ROW_CLUSTER], RUNAI_GLOBALS(ctx)->cluster, "--cluster");
	else
		put_setting(ctx, &r[ROW_CLUSTER], "cluster");
	/* none set: the one the last login found, when it found one */
	if (r[ROW_CLUSTER].value == NULL && cp_cluster_use(c, &err) == 0)
		put(&r[ROW_CLUSTER], cp_cluster(c, "name"), "login");
	rai_err_release(&err);
	if (RUNAI_GLOBALS(ctx)->project != NULL)
		put(&r[ROW_PROJECT], RUNAI_GLOBALS(ctx)->project, "-p");
	else
		put_setting(ctx, &r[ROW_PROJECT], "project");
}

static void
kubernetes_rows(struct rai_ctx *ctx, const struct kube_context_info *ci,
    struct setting *r)
{
	const char *ns = ci != NULL && ci->namespace != NULL ? ci->namespace :
	    "default";

	put(&r[ROW_MODE], "kubernetes", "no control plane set");
	if (ci == NULL)
		return;
	put(&r[ROW_CLUSTER], ci->cluster, "context");
	put(&r[ROW_NS], ns, ci->namespace != NULL ? "context" : "default");
	if (RUNAI_GLOBALS(ctx)->project != NULL)
		put(&r[ROW_PROJECT], RUNAI_GLOBALS(ctx)->project, "-p");
	else
		put(&r[ROW_PROJECT], rai_project_from_namespace_name(ns),
		    "namespace");
}

/* The kubeconfig files, joined as $KUBECONFIG joins them. */
static void
kubeconfig_rows(struct rai_ctx *ctx, const struct kube_config *kc,
    struct setting *r)
{
	const struct rai_kube_globals *kg = &RUNAI_GLOBALS(ctx)->kube;
	const char *env = getenv("KUBECONFIG");
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; kc != NULL && i < kube_config_nfiles(kc); i++)
		rai_buf_addf(&b, "%s%s", i ? ":" : "", kube_config_file(kc, i));
	put(&r[ROW_KUBECONFIG], rai_buf_str(&b), kg->kubeconfig != NULL ?
	    "--kubeconfig" : env != NULL && *env != '\0' ? "$KUBECONFIG" :
	    "default");
	rai_buf_release(&b);
	if (kc != NULL)
		put(&r[ROW_CONTEXT], kube_config_context_name(kc),
		    kg->context != NULL ? "--context" : "current-context");
}

static void
gather(struct rai_ctx *ctx, struct setting *r)
{
	const struct kube_config *kc = RUNAI_KUBE(ctx)->kcfg;
	struct kube_context_info ci;
	const char *name = kc != NULL ? kube_config_context_name(kc) : NULL;
	struct cp *c = runai_control_plane(ctx);
	size_t i;

	memset(r, 0, NROWS * sizeof(*r));
	for (i = 0; i < NROWS; i++) {
		r[i].key = row_names[i].key;
		r[i].label = row_names[i].label;
	}
	if (c != NULL)
		control_plane_rows(ctx, c, r);
	else
		kubernetes_rows(ctx, name != NULL &&
		    kube_config_find_context(kc, name, &ci) == 0 ? &ci : NULL,
		    r);
	kubeconfig_rows(ctx, kc, r);
	put_setting(ctx, &r[ROW_INTERACTIVE], "interactive");
	if (r[ROW_INTERACTIVE].value == NULL)
		put(&r[ROW_INTERACTIVE], "enabled", "default");
}

static void
release(struct setting *r)
{
	size_t i;

	for (i = 0; i < NROWS; i++)
		free(r[i].value);
}

cJSON *
runai_config_document(struct rai_ctx *ctx)
{
	struct setting r[NROWS];
	cJSON *doc = cJSON_CreateObject();
	size_t i;

	gather(ctx, r);
	for (i = 0; i < NROWS; i++) {
		if (r[i].value != NULL)
			cJSON_AddStringToObject(doc, r[i].key, r[i].value);
		else
			cJSON_AddNullToObject(doc, r[i].key);
	}
	release(r);
	return doc;
}

static void
print_table(struct rai_ctx *ctx)
{
	static const struct rai_col cols[] = {
		{ "SETTING", NULL, 0 }, { "VALUE", NULL, 0 },
		{ "FROM", NULL, 0 }, { NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	struct setting r[NROWS];
	size_t i;

	gather(ctx, r);
	for (i = 0; i < NROWS; i++) {
		rai_table_add(t, r[i].label);
		rai_table_add(t, r[i].value != NULL ? r[i].value : "-");
		rai_table_add(t, r[i].source != NULL ? r[i].source : "");
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	release(r);
}

static int
cmd_config_describe(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct config_describe_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	cJSON *doc;
	int rc;

	(void)argc;
	(void)argv;
	if (o->json && o->yaml)
		return rai_err_set(err, RAI_E_USAGE, "--json and --yaml cannot "
		    "be used together");
	if (!o->json && !o->yaml) {
		print_table(ctx);
		return 0;
	}
	doc = runai_config_document(ctx);
	rc = rai_out_doc(ctx->out, o->yaml ? RAI_OUT_YAML : RAI_OUT_JSON, doc,
	    err);
	cJSON_Delete(doc);
	return rc;
}

static const struct rai_opt config_describe_opts_table[] = {
	{ .long_name = "json", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct config_describe_opts, json),
	  .help = "print a JSON document" },
	{ .long_name = "yaml", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct config_describe_opts, yaml),
	  .help = "print a YAML document" },
	RAI_OPT_END
};

static const struct rai_example config_describe_examples[] = {
	{ "runai config describe", "the settings, and where each comes from" },
	{ "runai config describe --json | jq -r .project",
	    "the default project, for a script" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_describe = {
	.name = "describe",
	.summary = "show the settings (the Run:ai CLI v2's form)",
	.synopsis = "[--json | --yaml]",
	.description = "Shows the settings a command run now would use, and "
	    "where each comes from: the mode (kubernetes, or control-plane "
	    "when a control plane is set), the control plane's URL and the "
	    "auth URL the browser logins sign in at, the cluster (the "
	    "control plane's, or the kubeconfig cluster of the context), the "
	    "default project (in Kubernetes mode the one the context's "
	    "namespace belongs to, and the namespace), the context, the "
	    "kubeconfig files, and whether logins may ask on the terminal. "
	    "With --json or --yaml it is one document, with null where a "
	    "setting has no value. Nothing is sent to the cluster or the "
	    "control plane.",
	.examples = config_describe_examples,
	.opts = config_describe_opts_table,
	.opts_size = sizeof(struct config_describe_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_config_describe,
};
