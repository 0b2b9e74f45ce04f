/*
 * runai-adm collect-logs: the support archive of `runai diagnostics
 * collect-logs` (lib/cli/collect_logs.c, over kube/bundle.c), with the
 * report of preflight's cluster checks added as preflight.txt.
 */
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "adm.h"
#include "adm/checks.h"
#include "adm/preflight.h"
#include "cli/collect_logs.h"
#include "cli/kube_setup.h"
#include "cli/opt.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "kube/bundle.h"
#include "kube/config.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif

/* preflight's own default: each probe's time limit */
#define PREFLIGHT_TIMEOUT_MS	5000

/* The checks that read the cluster; those of this host need options. */
static void
cluster_checks(struct rai_strv *ids)
{
	const struct adm_check_info *ci;
	size_t i;

	for (i = 0; (ci = adm_check_info(i)) != NULL; i++)
		if (ci->needs_api == ADM_API_NEEDED)
			rai_strv_push(ids, ci->id);
}

/*
 * preflight.txt: the report `runai-adm preflight` writes for support,
 * of the cluster checks, with the built-in support matrix.
 */
static int
add_preflight(struct rai_ctx *ctx, struct kube_bundle *b, struct rai_err *err)
{
	struct rai_strv only = { NULL, 0 };
	struct adm_report report = { NULL, 0, 0 };
	struct rai_buf text = RAI_BUF_INIT;
	struct rai_err e = RAI_ERR_INIT;
	struct adm_report_meta meta;
	struct adm_matrix matrix;
	struct adm_pf_opts po;
	int rc;

	/* a cluster that answered nothing would only fail every check */
	if (kube_bundle_counts(b)->members == 0) {
		kube_bundle_skip(b, "preflight.txt: not run, the cluster gave "
		    "nothing");
		return 0;
	}
	if (adm_matrix_parse(adm_matrix_default, strlen(adm_matrix_default),
	    adm_matrix_default_name, NULL, &matrix, &e) == -1) {
		kube_bundle_skip(b, "preflight.txt: %s", e.message);
		rai_err_release(&e);
		return 0;
	}
	cluster_checks(&only);
	memset(&po, 0, sizeof(po));
	po.timeout_ms = PREFLIGHT_TIMEOUT_MS;
	po.matrix = &matrix;
	po.only = &only;
	po.now = time(NULL);
	adm_preflight_run(ADM_CLIENT(ctx), &po, &report);
	memset(&meta, 0, sizeof(meta));
	meta.version = RAI_VERSION;
	meta.when = po.now;
	meta.context = kube_config_context_name(ADM_KUBE(ctx)->kcfg);
	meta.server = ADM_KUBE(ctx)->conn.server;
	adm_report_file(&report, &meta, &text);
	rc = kube_bundle_add(b, "preflight.txt", text.data, text.len, err);
	rai_buf_release(&text);
	adm_report_release(&report);
	rai_strv_release(&only);
	return rc;
}

static int
cmd_collect_logs(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct rai_collect_logs_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_collect_logs_run r = { .tool = "runai-adm " RAI_VERSION,
	    .extra = add_preflight };
	struct rai_strv ns = { NULL, 0 };
	int rc = -1;

	(void)argc;
	(void)argv;
	/* the options first: a usage error needs no cluster */
	if (rai_collect_logs_check(o, &ns, err) == -1 ||
	    rai_kube_setup(ADM_KUBE(ctx), &ADM_GLOBALS(ctx)->kube,
	    RAI_CMD_NEED_CLIENT, "runai-adm/" RAI_VERSION, err) == -1)
		goto out;
	r.client = ADM_CLIENT(ctx);
	r.context = kube_config_context_name(ADM_KUBE(ctx)->kcfg);
	rc = rai_collect_logs(ctx, o, &ns, &r);
out:
	rai_strv_release(&ns);
	return rc;
}

static const struct rai_example collect_logs_examples[] = {
	{ "runai-adm collect-logs",
	    "Run:ai's namespaces, into ./runai-logs-DATE-TIME.tar.gz" },
	{ "runai-adm collect-logs --namespaces runai,runai-backend "
	    "--output-dir /var/tmp", "two namespaces, into /var/tmp" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_collect_logs = {
	.name = "collect-logs",
	.summary = "archive the cluster's Run:ai logs for support",
	.synopsis = "[--namespaces <ns,...>] [--no-previous] "
	    "[--output-dir <dir>]",
	.description = RAI_COLLECT_LOGS_ABOUT "\n\n"
	    "runai-adm adds preflight.txt: the report of preflight's checks "
	    "of the cluster (k8s.*, nvidia.*, storage.default-class, "
	    "net.ingress, runai.*; see runai-adm-preflight(8)) against the "
	    "built-in support matrix, as runai-adm preflight writes it. "
	    "Nothing is created in the cluster.",
	.examples = collect_logs_examples,
	.opts = rai_collect_logs_opts,
	.opts_size = sizeof(struct rai_collect_logs_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_collect_logs,
};
