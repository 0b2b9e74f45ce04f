/*
 * runai-adm preflight: pre-install diagnostics from the admin host
 * (the catalogue is lib/adm/checks.c, the checks lib/adm/check_*.c),
 * shown as a table or JSON and written to
 * runai-preinstall-diagnostics.txt for support.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/checks.h"
#include "adm/net.h"
#include "adm/preflight.h"
#include "adm/pull_secret.h"
#include "adm/values.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/strv.h"
#include "core/text.h"
#include "kube/client.h"
#include "kube/config.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif

#define PF_DEFAULT_REPORT	"runai-preinstall-diagnostics.txt"

struct pf_opts {
	const char	*domain;
	const char	*cluster_domain;
	const char	*registry;
	const char	*registry_secret;
	int		 airgapped;
	const char	*runai_version;
	const char	*nfs_server;
	const char	*tls_cert;
	const char	*tls_key;
	const char	*ca_file;
	const char	*tls_endpoint;
	const char	*output;
	const char	*report;
	int		 no_report;
	long		 timeout;
	const char	*matrix;
	struct rai_strv	 only;
	struct rai_strv	 skip;
	int		 strict;
};

static const char *const pf_output_choices[] = { "json", NULL };

static const struct rai_opt pf_opts[] = {
	{ .long_name = "domain", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, domain), .argh = "<fqdn>",
	  .help = "the control plane's DNS name (DNS and TLS checks)",
	  .comp = RAI_COMP_HOST },
	{ .long_name = "cluster-domain", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, cluster_domain), .argh = "<fqdn>",
	  .help = "the cluster's DNS name, when it differs (DNS and TLS "
	      "checks)", .comp = RAI_COMP_HOST },
	{ .long_name = "registry", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, registry), .argh = "<name:port>",
	  .help = "private registry to probe (GET /v2/), no scheme" },
	{ .long_name = "registry-secret", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, registry_secret),
	  .argh = "<name>", .help = "the pull Secret to check for the "
	      "registry (default: " ADM_PULL_SECRET_NAME "; \"\": none)" },
	{ .long_name = "runai-version", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, runai_version),
	  .argh = "<version>",
	  .help = "the Run:ai release to install, e.g. 2.9: its row of the "
	      "support matrix (default: this release's)" },
	{ .long_name = "airgapped", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct pf_opts, airgapped),
	  .help = "an air-gapped installation: a registry is expected "
	      "(--registry, else REGISTRY_URL)" },
	{ .long_name = "nfs-server", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, nfs_server),
	  .argh = "<host[:port]>",
	  .help = "NFS server to probe on TCP port 2049",
	  .comp = RAI_COMP_HOST },
	{ .long_name = "tls-cert", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, tls_cert), .argh = "<file>",
	  .help = "PEM certificate to check for the domain",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "tls-key", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, tls_key), .argh = "<file>",
	  .help = "its PEM private key (must match)", .comp = RAI_COMP_FILE },
	{ .long_name = "ca-file", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, ca_file), .argh = "<file>",
	  .help = "PEM CA certificates to trust for TLS and the registry",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "tls-endpoint", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, tls_endpoint),
	  .argh = "<host:port>",
	  .help = "connect here for the domain's TLS check (default: "
	      "domain:443)" },
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct pf_opts, output), .argh = "<format>",
	  .help = "output format: json (default: a table)",
	  .choices = pf_output_choices, .comp = RAI_COMP_CHOICES },
	{ .long_name = "report", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, report), .argh = "<file>",
	  .help = "where the report for support goes", .def = PF_DEFAULT_REPORT,
	  .comp = RAI_COMP_FILE },
	{ .long_name = "no-report", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct pf_opts, no_report),
	  .help = "write no report file" },
	{ .long_name = "timeout", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct pf_opts, timeout), .argh = "<duration>",
	  .help = "time limit of each network probe", .def = "5s" },
	{ .long_name = "matrix", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct pf_opts, matrix), .argh = "<file>",
	  .help = "support matrix to use instead of the built-in one",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "only", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct pf_opts, only), .argh = "<id,...>",
	  .help = "run only these checks (ids or globs such as 'net.*')" },
	{ .long_name = "skip", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct pf_opts, skip), .argh = "<id,...>",
	  .help = "do not run these checks (ids or globs)" },
	{ .long_name = "strict", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct pf_opts, strict),
	  .help = "exit 1 on warnings too" },
	RAI_OPT_END
};

/* Prints err and gives the tool-error exit status. */
static int
tool_error(struct rai_err *err)
{
	rai_err_print(err, stderr, "runai-adm");
	return 2;
}

/* "a,b" words of --only/--skip into pats; each must match some check. */
static int
patterns(const char *flag, const struct rai_strv *in, struct rai_strv *pats,
    struct rai_err *err)
{
	struct rai_strv one = { NULL, 0 };
	struct rai_buf known = RAI_BUF_INIT;
	const struct adm_check_info *ci;
	const char *p, *e;
	char *w;
	size_t i, k;
	int hit;

	for (i = 0; i < in->n; i++) {
		for (p = in->v[i];; p = e + 1) {
			e = strchr(p, ',');
			w = e != NULL ? xstrndup(p, (size_t)(e - p)) :
			    xstrdup(p);
			rai_strv_push(&one, w);
			hit = 0;
			for (k = 0; (ci = adm_check_info(k)) != NULL; k++)
				if (adm_check_selected(ci->id, &one, NULL))
					hit = 1;
			rai_strv_release(&one);
			if (!hit) {
				for (k = 0; (ci = adm_check_info(k)) != NULL;
				    k++)
					rai_buf_addf(&known, "%s%s", k ? ", " :
					    "", ci->id);
				rai_err_set(err, RAI_E_USAGE, "%s '%s' matches "
				    "no check (checks: %s)", flag, w,
				    rai_buf_str(&known));
				rai_buf_release(&known);
				free(w);
				return -1;
			}
			rai_strv_push(pats, w);
			free(w);
			if (e == NULL)
				break;
		}
	}
	return 0;
}

static int
check_args(const struct pf_opts *o, struct rai_err *err)
{
	char *host = NULL;
	int port;

	if (o->domain != NULL &&
	    adm_check_domain("--domain", o->domain, 0, err) == -1)
		return -1;
	if (o->cluster_domain != NULL && adm_check_domain("--cluster-domain",
	    o->cluster_domain, 0, err) == -1)
		return -1;
	if (o->nfs_server != NULL) {
		if (adm_split_hostport(o->nfs_server, 2049, &host, &port,
		    err) == -1) {
			rai_err_prefix(err, "invalid --nfs-server");
			return -1;
		}
		if (adm_check_host("--nfs-server", host, err) == -1) {
			free(host);
			return -1;
		}
		free(host);
	}
	if (o->tls_key != NULL && o->tls_cert == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--tls-key needs "
		    "--tls-cert");
	if (o->tls_endpoint != NULL) {
		if (o->domain == NULL)
			return rai_err_set(err, RAI_E_USAGE, "--tls-endpoint "
			    "needs --domain (the name the certificate must "
			    "cover)");
		if (adm_split_hostport(o->tls_endpoint, 443, &host, &port,
		    err) == -1) {
			rai_err_prefix(err, "invalid --tls-endpoint");
			return -1;
		}
		free(host);
	}
	if (o->timeout <= 0 || o->timeout > 600)
		return rai_err_set(err, RAI_E_USAGE, "--timeout must be from "
		    "1s to 10m");
	if (*o->report == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--report must not be "
		    "empty");
	return 0;
}

static int
load_matrix(const struct pf_opts *o, struct adm_matrix *m,
    struct rai_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (o->matrix == NULL)
		return adm_matrix_parse(adm_matrix_default,
		    strlen(adm_matrix_default), adm_matrix_default_name,
		    o->runai_version, m, err);
	if (rai_file_read(o->matrix, (size_t)1 << 20, &buf, &len, err) == -1)
		return -1;
	rc = adm_matrix_parse(buf, len, o->matrix, o->runai_version, m, err);
	free(buf);
	return rc;
}

/*
 * -o json: messages quote the cluster's own text (versions, node and
 * class names), so C1 controls and bidi overrides in it go out
 * escaped, as rai_out_json leaves them raw.
 */
static void
put_json(FILE *fp, const cJSON *json)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		rai_die("out of memory");
	rai_out_json(mem, json);
	if (fclose(mem) != 0)
		rai_die("out of memory");
	rai_buf_init(&b, (size_t)-1);
	rai_text_json_harden(&b, text);
	fwrite(b.data, 1, b.len, fp);
	rai_buf_release(&b);
	free(text);
}

/*
 * The report's mode: what open(2) with 0666 would give, so an admin's
 * umask 077 keeps it private. rai_file_write_atomic sets the mode it is
 * given, so the umask is applied here. Reading the umask means setting
 * it; the probes are over by now and nothing else creates files.
 */
static mode_t
report_mode(void)
{
	mode_t mask = umask(077);

	umask(mask);
	return 0666 & ~mask;
}

/* The strongest ADM_API_* need among the selected checks. */
static int
api_need(const struct rai_strv *only, const struct rai_strv *skip)
{
	const struct adm_check_info *ci;
	size_t i;
	int need = ADM_API_NONE;

	for (i = 0; (ci = adm_check_info(i)) != NULL; i++) {
		if (!adm_check_selected(ci->id, only, skip))
			continue;
		if (ci->needs_api == ADM_API_NEEDED)
			return ADM_API_NEEDED;
		if (ci->needs_api == ADM_API_OPTIONAL)
			need = ADM_API_OPTIONAL;
	}
	return need;
}

/* The kubeconfig and a client with preflight's time limits. */
static int
connect_api(struct rai_ctx *ctx, long timeout_s, struct rai_err *err)
{
	const struct adm_globals *g = ADM_GLOBALS(ctx);
	struct kube_client_opts co;
	long req = timeout_s * 3 > 10 ? timeout_s * 3 : 10;

	memset(&co, 0, sizeof(co));
	if (kube_session_load(ADM_KUBE(ctx), g->kube.kubeconfig,
	    g->kube.context, err) == -1)
		return -1;
	co.connect_timeout_ms = timeout_s * 1000;
	co.request_timeout_ms = (g->kube.request_timeout > 0 ?
	    g->kube.request_timeout : req) * 1000;
	co.max_retries = 1;
	co.user_agent = "runai-adm/" RAI_VERSION;
	return kube_session_connect(ADM_KUBE(ctx), &co, err);
}

static int
cmd_preflight(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct pf_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_strv only = { NULL, 0 }, skip = { NULL, 0 };
	struct adm_report report = { NULL, 0 };
	struct adm_report_meta meta;
	struct adm_pf_opts po;
	struct adm_matrix matrix;
	struct rai_buf text = RAI_BUF_INIT, file = RAI_BUF_INIT;
	const char *registry;
	cJSON *json;
	int rc = -1, code, registry_from_env;

	(void)argc;
	(void)argv;
	if (adm_registry_choose(o->registry, o->airgapped, &registry,
	    &registry_from_env, err) == -1)
		goto out;
	if (registry_from_env)
		rai_warn("--registry not given: probing REGISTRY_URL (%s)",
		    registry);
	if (check_args(o, err) == -1 ||
	    patterns("--only", &o->only, &only, err) == -1 ||
	    patterns("--skip", &o->skip, &skip, err) == -1)
		goto out;
	if (load_matrix(o, &matrix, err) == -1) {
		rc = tool_error(err);
		goto out;
	}
	switch (api_need(&only, &skip)) {
	case ADM_API_NEEDED:
		if (connect_api(ctx, o->timeout, err) == -1) {
			rc = tool_error(err);
			goto out;
		}
		break;
	case ADM_API_OPTIONAL:
		/* DNS compares with node addresses when it can */
		if (connect_api(ctx, o->timeout, err) == -1) {
			kube_client_free(ADM_CLIENT(ctx));
			ADM_CLIENT(ctx) = NULL;
			rai_err_release(err);
		}
		break;
	}

	memset(&po, 0, sizeof(po));
	po.domain = o->domain;
	po.cluster_domain = o->cluster_domain;
	po.registry = registry;
	po.registry_secret = o->registry_secret;
	po.airgapped = o->airgapped;
	po.nfs_server = o->nfs_server;
	po.tls_cert = o->tls_cert;
	po.tls_key = o->tls_key;
	po.ca_file = o->ca_file;
	po.tls_endpoint = o->tls_endpoint;
	po.timeout_ms = o->timeout * 1000;
	po.matrix = &matrix;
	po.only = &only;
	po.skip = &skip;
	po.now = time(NULL);
	adm_preflight_run(ADM_CLIENT(ctx), &po, &report);
	code = adm_report_exit_code(&report, o->strict);

	memset(&meta, 0, sizeof(meta));
	meta.version = RAI_VERSION;
	meta.when = po.now;
	meta.context = ADM_KUBE(ctx)->kcfg != NULL ?
	    kube_config_context_name(ADM_KUBE(ctx)->kcfg) : NULL;
	meta.server = ADM_CLIENT(ctx) != NULL ? ADM_KUBE(ctx)->conn.server : NULL;
	meta.domain = o->domain;
	if (!o->no_report) {
		adm_report_file(&report, &meta, &file);
		if (rai_file_write_atomic(o->report, file.data, file.len,
		    report_mode(), 0, err) == -1) {
			rc = tool_error(err);
			goto out;
		}
	}
	if (o->output != NULL && strcmp(o->output, "json") == 0) {
		json = adm_report_json(&report, &meta, o->strict);
		if (!o->no_report)
			cJSON_AddStringToObject(json, "reportFile", o->report);
		put_json(ctx->out, json);
		cJSON_Delete(json);
	} else {
		adm_report_text(&report, ctx->color, &text);
		fwrite(text.data, 1, text.len, ctx->out);
		if (!o->no_report)
			fprintf(ctx->out, "report written to %s\n", o->report);
	}
	rc = code;
out:
	rai_buf_release(&text);
	rai_buf_release(&file);
	adm_report_release(&report);
	rai_strv_release(&only);
	rai_strv_release(&skip);
	return rc;
}

static const struct rai_example pf_examples[] = {
	{ "runai-adm preflight --domain runai.example.com",
	    "every check; the table, and the report file for support" },
	{ "runai-adm preflight --domain runai.example.com --airgapped "
	    "--registry registry.example.com:5000 --ca-file ca.pem",
	    "an air-gapped installation with a private registry" },
	{ "runai-adm preflight --only 'net.*' --domain runai.example.com "
	    "-o json", "only the network checks, as JSON" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_preflight = {
	.name = "preflight",
	.summary = "check a cluster and this host before installing Run:ai",
	.synopsis = "[--domain <fqdn>] [--cluster-domain <fqdn>] "
	    "[--registry <name:port>] [--airgapped] [--nfs-server <host>] "
	    "[--tls-cert <file> [--tls-key <file>]] [--ca-file <file>] "
	    "[-o json] [--report <file>] [--timeout <duration>]",
	.description = "Runs the pre-install diagnostics from the admin host: "
	    "reads of the Kubernetes API with the kubeconfig's identity, and "
	    "probes of DNS, TLS, the registry and NFS from this host. Nothing "
	    "is created in the cluster.\n\n"
	    "Checks, by id: k8s.version (the server version against the "
	    "support matrix: FAIL below its minimum, WARN above the newest "
	    "tested version; --matrix gives a newer matrix file), "
	    "k8s.nodes.ready, k8s.rbac (SelfSubjectAccessReviews for what the "
	    "installation does), nvidia.gpu-nodes (GPU feature discovery "
	    "labels and allocatable nvidia.com/gpu), nvidia.gpu-operator "
	    "(its ClusterPolicy), nvidia.device-plugin (the device plugin "
	    "and dcgm-exporter DaemonSets), storage.default-class, "
	    "net.ingress (IngressClasses), runai.prometheus (the Prometheus "
	    "Operator's CRDs and an instance), runai.node-roles, "
	    "runai.existing-install (Helm releases, pods or a namespace being "
	    "deleted in runai-backend and runai), net.dns.host (the domain "
	    "resolves from this host, to a node or load-balancer address), "
	    "net.tls.files (--tls-cert/--tls-key: key match, names, expiry, "
	    "chain), net.tls.live (the certificate served on domain:443, or "
	    "on --tls-endpoint HOST:PORT with the domain as SNI and expected "
	    "name: chain, names, expiry), net.registry (GET /v2/ answers 200, "
	    "or 401 with WWW-Authenticate; plain HTTP is a warning), "
	    "net.registry.secret (the pull Secret " ADM_PULL_SECRET_NAME
	    ", or --registry-secret, is in runai-backend and runai, and the "
	    "registry logs its user in; none is needed for a registry that "
	    "asks for no credentials) and storage.nfs (TCP port 2049, or "
	    "the port given). --only and --skip take ids or "
	    "globs.\n\n"
	    "Each result is PASS, WARN, FAIL or SKIP with a message; WARN and "
	    "FAIL come with what to do. The table goes to stdout (colour "
	    "only on a terminal and without NO_COLOR), or JSON with -o json. "
	    "The same table without colour, under a header naming the "
	    "context, server, date and version, is written (atomically) to "
	    "runai-preinstall-diagnostics.txt in the current directory, or "
	    "--report, for Run:ai support.\n\n"
	    "Every network probe is bounded by --timeout (default 5s): a "
	    "dead resolver, endpoint or registry costs seconds. When the API "
	    "server does not answer, the first API check FAILs with the "
	    "reason and the others are SKIPped.\n\n"
	    "Exit status: 0 when no check FAILed (warnings allowed; with "
	    "--strict also none WARNed), 1 when some check FAILed (or, with "
	    "--strict, WARNed), 2 for a usage error or when preflight could "
	    "not run (no usable kubeconfig, an API server that does not "
	    "answer, an unreadable matrix, a report file that cannot be "
	    "written). An API server that does not answer still gets the "
	    "table and the report of the checks that ran.",
	.examples = pf_examples,
	.opts = pf_opts,
	.opts_size = sizeof(struct pf_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_preflight,
};
