/*
 * runai-adm generate-values: the runai-backend values file for the
 * control plane's Helm chart (Run:ai 2.4 to 2.12), from the documented
 * flags, checked strictly, through a template of key paths.
 */
#include <sys/stat.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adm.h"
#include "adm/pull_secret.h"
#include "adm/values.h"
#include "cli/opt.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/strv.h"

#include "core/banned.h"

#define GV_DEFAULT_OUTPUT	"runai-backend-values.yaml"
#define GV_MAX_FILE		((size_t)1 << 20)

struct gv_opts {
	const char	*domain;
	const char	*external_ips;
	const char	*tls_cert;
	const char	*tls_key;
	const char	*ca_file;
	const char	*nfs_server;
	const char	*nfs_path;
	int		 airgapped;
	const char	*registry;
	const char	*registry_secret;
	int		 openshift;
	const char	*first_admin;
	const char	*output;
	int		 force;
	const char	*template;
	struct rai_strv	 set;
};

static const struct rai_opt gv_opts[] = {
	{ .long_name = "domain", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, domain), .argh = "<fqdn>",
	  .help = "the control plane's DNS name, e.g. runai.example.com",
	  .comp = RAI_COMP_HOST },
	{ .long_name = "external-ips", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, external_ips),
	  .argh = "<ip[,ip...]>",
	  .help = "addresses users reach the ingress on (IPv4 or IPv6, comma "
	      "list)" },
	{ .long_name = "tls-cert", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, tls_cert), .argh = "<file>",
	  .help = "PEM certificate for the domain (leaf first, then the chain)",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "tls-key", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, tls_key), .argh = "<file>",
	  .help = "PEM private key of that certificate",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "ca-file", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, ca_file), .argh = "<file>",
	  .help = "PEM CA certificates the chain must verify against",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "nfs-server", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, nfs_server), .argh = "<host>",
	  .help = "NFS server for the control plane's volumes (with "
	      "--nfs-path)", .comp = RAI_COMP_HOST },
	{ .long_name = "nfs-path", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, nfs_path), .argh = "<path>",
	  .help = "absolute path on the NFS server (with --nfs-server)" },
	{ .long_name = "airgapped", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct gv_opts, airgapped),
	  .help = "values for an air-gapped installation (needs --registry, "
	      "or REGISTRY_URL set)" },
	{ .long_name = "registry", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, registry), .argh = "<name:port>",
	  .help = "private registry for the images, no scheme (implies "
	      "--airgapped)" },
	{ .long_name = "registry-secret", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, registry_secret),
	  .argh = "<name>", .help = "the pull Secret the values name for the "
	      "private registry (\"create registry-secret\" makes it; \"\": "
	      "none)", .def = ADM_PULL_SECRET_NAME },
	{ .long_name = "openshift", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct gv_opts, openshift),
	  .help = "values for OpenShift (routes and the OpenShift identity "
	      "provider)" },
	{ .long_name = "first-admin", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, first_admin), .argh = "<user>",
	  .help = "first administrator in the OpenShift identity provider" },
	{ .long_name = "output", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, output), .argh = "<file>",
	  .help = "file to write, or - for stdout", .def = GV_DEFAULT_OUTPUT,
	  .comp = RAI_COMP_FILE },
	{ .long_name = "force", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct gv_opts, force),
	  .help = "replace the output file if it exists" },
	{ .long_name = "template", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct gv_opts, template), .argh = "<file>",
	  .help = "values template for another chart layout (default: built "
	      "in)", .comp = RAI_COMP_FILE },
	{ .long_name = "set", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct gv_opts, set), .argh = "<key.path=value>",
	  .help = "set one more key after the template (value: JSON or a "
	      "string)" },
	RAI_OPT_END
};

/* Flag combinations and syntax, before any file is read. */
static int
check_flags(const struct gv_opts *o, struct rai_strv *ips,
    struct rai_err *err)
{
	struct stat st;

	if (o->domain == NULL && !o->openshift)
		return rai_err_set(err, RAI_E_USAGE, "--domain is required "
		    "(unless --openshift)");
	if (o->domain != NULL &&
	    adm_check_domain("--domain", o->domain, ADM_NAME_FQDN, err) == -1)
		return -1;
	if (o->external_ips != NULL &&
	    adm_check_ips("--external-ips", o->external_ips, ips, err) == -1)
		return -1;
	if (o->tls_cert != NULL && o->tls_key == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--tls-cert needs "
		    "--tls-key");
	if (o->tls_key != NULL && o->tls_cert == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--tls-key needs "
		    "--tls-cert");
	if (o->tls_cert == NULL && !o->openshift)
		return rai_err_set(err, RAI_E_USAGE, "--tls-cert and --tls-key "
		    "are required (unless --openshift)");
	if (o->ca_file != NULL && o->tls_cert == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--ca-file needs "
		    "--tls-cert");
	if (adm_check_nfs(o->nfs_server, o->nfs_path, err) == -1)
		return -1;
	if (o->first_admin != NULL && *o->first_admin == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--first-admin must not "
		    "be empty");
	if (o->openshift && o->first_admin == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--openshift needs "
		    "--first-admin (the first administrator of the OpenShift "
		    "identity provider)");
	if (*o->output == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--output must not be "
		    "empty");
	if (strcmp(o->output, "-") != 0 && !o->force &&
	    lstat(o->output, &st) == 0) {
		rai_err_set(err, RAI_E_IO, "'%s' exists; use --force to "
		    "replace it", o->output);
		err->sys_errno = EEXIST;
		return -1;
	}
	return 0;
}

/*
 * An air-gapped cluster pulls every image from the private registry, so
 * values without one would point it at the public registry it cannot
 * reach: --registry, or REGISTRY_URL as the install guides export it.
 */
static int
choose_registry(const struct gv_opts *o, const char **registry,
    struct rai_err *err)
{
	int from_env;

	if (adm_registry_choose(o->registry, o->airgapped, registry,
	    &from_env, err) == -1)
		return -1;
	if (o->airgapped && *registry == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--airgapped needs "
		    "--registry <name:port> (or REGISTRY_URL set): an "
		    "air-gapped cluster pulls its images from your private "
		    "registry");
	if (from_env)
		rai_warn("--registry not given: using REGISTRY_URL (%s)",
		    *registry);
	return 0;
}

struct gv_files {
	char	*cert, *key, *ca;
	size_t	 cert_len, key_len, ca_len;
};

static void
gv_files_release(struct gv_files *f)
{
	free(f->cert);
	free(f->ca);
	if (f->key != NULL)
		rai_free_secret_mem(f->key, f->key_len + 1);
	memset(f, 0, sizeof(*f));
}

static int
read_files(const struct gv_opts *o, struct gv_files *f, struct rai_err *err)
{
	if (o->tls_cert == NULL)
		return 0;
	if (rai_file_read(o->tls_cert, GV_MAX_FILE, &f->cert, &f->cert_len,
	    err) == -1 ||
	    rai_file_read(o->tls_key, GV_MAX_FILE, &f->key, &f->key_len,
	    err) == -1)
		return -1;
	if (o->ca_file != NULL && rai_file_read(o->ca_file, GV_MAX_FILE,
	    &f->ca, &f->ca_len, err) == -1)
		return -1;
	return 0;
}

/* The certificate and key as the chart wants them, after the checks. */
static int
check_tls(const struct gv_opts *o, const struct gv_files *f,
    struct rai_err *err)
{
	struct adm_tls_in in;
	struct adm_tls_out out;
	size_t i;
	int rc;

	memset(&in, 0, sizeof(in));
	in.cert_pem = f->cert;
	in.cert_len = f->cert_len;
	in.key_pem = f->key;
	in.key_len = f->key_len;
	in.ca_pem = f->ca;
	in.ca_len = f->ca_len;
	in.host = o->domain;
	in.now = time(NULL);
	rc = adm_tls_check(&in, &out, err);
	if (rc == -1) {
		switch (out.problem) {
		case ADM_TLS_NO_KEY:
		case ADM_TLS_KEY_MISMATCH:
			rai_err_prefix(err, "--tls-key '%s'", o->tls_key);
			break;
		case ADM_TLS_BAD_CA:
			rai_err_prefix(err, "--ca-file '%s'", o->ca_file);
			break;
		default:
			rai_err_prefix(err, "--tls-cert '%s'", o->tls_cert);
			break;
		}
	} else {
		for (i = 0; i < out.warnings.n; i++)
			rai_warn("--tls-cert '%s': %s", o->tls_cert,
			    out.warnings.v[i]);
	}
	adm_tls_out_release(&out);
	return rc;
}

static int
load_template(const struct gv_opts *o, char **tmpl, size_t *len,
    const char **name, struct rai_err *err)
{
	if (o->template == NULL) {
		*tmpl = xstrdup(adm_values_template);
		*len = strlen(adm_values_template);
		*name = adm_values_template_name;
		return 0;
	}
	*name = o->template;
	return rai_file_read(o->template, GV_MAX_FILE, tmpl, len, err);
}

static int
cmd_generate_values(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct gv_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_strv ips = { NULL, 0 };
	struct gv_files f;
	struct adm_values v;
	struct rai_buf out = RAI_BUF_INIT;
	const char *tmpl_name = NULL, *registry = NULL;
	char *tmpl = NULL, *crt64 = NULL, *key64 = NULL;
	size_t tmpl_len = 0;
	int rc = -1;

	(void)argc;
	(void)argv;
	memset(&f, 0, sizeof(f));
	if (check_flags(o, &ips, err) == -1 ||
	    choose_registry(o, &registry, err) == -1)
		goto out;
	if (o->first_admin != NULL && !o->openshift)
		rai_warn("--first-admin has no effect without --openshift");
	if (o->external_ips != NULL && o->openshift)
		rai_warn("--external-ips has no effect with --openshift (OpenShift "
		    "routes replace the NGINX ingress)");
	if (read_files(o, &f, err) == -1 ||
	    (o->tls_cert != NULL && check_tls(o, &f, err) == -1))
		goto out;
	if (load_template(o, &tmpl, &tmpl_len, &tmpl_name, err) == -1)
		goto out;

	memset(&v, 0, sizeof(v));
	v.domain = o->domain;
	v.external_ips = &ips;
	if (f.cert != NULL) {
		crt64 = rai_base64_encode(f.cert, f.cert_len);
		key64 = rai_base64_encode(f.key, f.key_len);
	}
	v.tls_crt_b64 = crt64;
	v.tls_key_b64 = key64;
	v.nfs_server = o->nfs_server;
	v.nfs_path = o->nfs_path;
	v.airgapped = o->airgapped;
	v.registry = registry;
	/* the Secret preflight checks and "create registry-secret" makes */
	v.registry_secret = registry != NULL ? o->registry_secret : NULL;
	v.openshift = o->openshift;
	v.first_admin = o->openshift ? o->first_admin : NULL;
	if (adm_values_render(tmpl, tmpl_len, tmpl_name, &v, &o->set, &out,
	    err) == -1)
		goto out;

	if (strcmp(o->output, "-") == 0) {
		fwrite(out.data, 1, out.len, ctx->out);
	} else {
		if (rai_file_write_atomic(o->output, out.data, out.len, 0600,
		    o->force ? 0 : RAI_FILE_NO_REPLACE, err) == -1) {
			if (err->sys_errno == EEXIST)
				rai_err_set(err, RAI_E_IO, "'%s' exists; use "
				    "--force to replace it", o->output);
			goto out;
		}
		fprintf(ctx->out, "wrote %s (mode 0600)\n", o->output);
	}
	rc = 0;
out:
	rai_buf_release_secret(&out);
	rai_free_secret(key64);
	free(crt64);
	free(tmpl);
	gv_files_release(&f);
	rai_strv_release(&ips);
	return rc;
}

static const struct rai_example gv_examples[] = {
	{ "runai-adm generate-values --domain runai.example.com "
	    "--tls-cert fullchain.pem --tls-key key.pem --ca-file root-ca.pem "
	    "--external-ips 10.0.0.5",
	    "a connected installation" },
	{ "runai-adm generate-values --domain runai.example.com "
	    "--tls-cert fullchain.pem --tls-key key.pem "
	    "--registry registry.example.com:5000 --nfs-server nfs.example.com "
	    "--nfs-path /export/runai",
	    "an air-gapped installation with NFS storage" },
	{ "runai-adm generate-values --openshift "
	    "--first-admin admin@example.com", "OpenShift" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_generate_values = {
	.name = "generate-values",
	.summary = "write the values file for the control plane's Helm chart",
	.synopsis = "--domain <fqdn> --tls-cert <file> --tls-key <file> "
	    "[--ca-file <file>] [--external-ips <ip,...>] [--nfs-server <host> "
	    "--nfs-path <path>] [--airgapped] [--registry <name:port>] "
	    "[--registry-secret <name>] "
	    "[--openshift --first-admin <user>] [--output <file>] [--force]",
	.description = "Writes runai-backend-values.yaml, the values file for "
	    "\"helm install runai-backend ... -f runai-backend-values.yaml\" "
	    "(the runai-backend chart of Run:ai 2.4 to 2.12), in the current "
	    "directory unless --output says otherwise.\n\n"
	    "Every value is checked first, and the first problem stops the "
	    "command with a one-line error: --domain must be a lower-case "
	    "fully qualified DNS name (no scheme, port or IP address); "
	    "--external-ips a comma list of IPv4 or IPv6 addresses; "
	    "--tls-cert and --tls-key readable PEM files whose key matches "
	    "the certificate, whose subject alternative names cover the "
	    "domain (wildcards count) and which has not expired; with "
	    "--ca-file the chain must verify against it; --nfs-server and "
	    "--nfs-path go together and the path is absolute; --registry is "
	    "NAME[:PORT][/PATH] without http:// or https://. A certificate "
	    "that expires within 30 days, a self-signed one, or one without "
	    "its intermediate certificates (when no --ca-file is given) is "
	    "only a warning.\n\n"
	    "With a registry, the values name the pull Secret the nodes "
	    "use for it, global.imagePullSecrets: " ADM_PULL_SECRET_NAME
	    " unless --registry-secret gives another name (\"\" for none, "
	    "for a registry that asks for no credentials); \"runai-adm "
	    "create registry-secret\" creates it and \"runai-adm preflight "
	    "--registry\" checks that it is there and logs in.\n\n"
	    "The certificate and key files go into the values as single-line "
	    "base64 of their bytes (backend.https.crt and backend.https.key). "
	    "Because the file holds the private key it is written with mode "
	    "0600, through a temporary file in the same directory and a "
	    "rename, and an existing file is never replaced without "
	    "--force.\n\n"
	    "The key paths come from a template: one per chart layout, the "
	    "default built in (shipped as "
	    "contrib/values/runai-backend-2.x.tmpl, which describes the "
	    "syntax). --template uses another, and --set "
	    "adds or replaces single keys after it.\n\n"
	    "Exit status: 0 when the file was written, 2 for a bad flag value "
	    "or combination, 1 for a file that cannot be read or written, a "
	    "certificate or key that fails its checks, or a template error.",
	.examples = gv_examples,
	.opts = gv_opts,
	.opts_size = sizeof(struct gv_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_generate_values,
};
