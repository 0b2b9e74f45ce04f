/*
 * runai-adm create registry-secret: the pull Secret of an air-gapped
 * install (adm/pull_secret.h), a kubernetes.io/dockerconfigjson Secret
 * named as the values file of generate-values names it, in every
 * namespace Run:ai pulls its images in; preflight then checks that it is
 * there and that its credentials log in. The password comes from stdin
 * or a file, never from the command line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/pull_secret.h"
#include "adm/registry.h"
#include "adm/values.h"
#include "cli/kube_setup.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/yaml.h"
#include "kube/client.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif

#define PASSWORD_MAX	((size_t)64 << 10)

struct secret_opts {
	const char	*registry;
	const char	*username;
	int		 password_stdin;
	const char	*password_file;
	const char	*name;
	struct rai_strv	 namespaces;
	int		 dry_run;
};

static const struct rai_opt secret_opts[] = {
	{ .long_name = "registry", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct secret_opts, registry),
	  .argh = "<host[:port]>", .help = "the private registry (default: "
	      "$REGISTRY_URL)", .comp = RAI_COMP_HOST },
	{ .short_name = 'u', .long_name = "username", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct secret_opts, username), .argh = "<user>",
	  .help = "the registry user the nodes pull as",
	  .flags = RAI_OPT_REQUIRED },
	{ .long_name = "password-stdin", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct secret_opts, password_stdin),
	  .help = "read the password from standard input" },
	{ .long_name = "password-file", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct secret_opts, password_file),
	  .argh = "<file>", .help = "read the password from a file (its "
	      "first line)", .comp = RAI_COMP_FILE },
	{ .long_name = "name", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct secret_opts, name), .argh = "<name>",
	  .help = "the Secret's name (as generate-values --registry-secret "
	      "and preflight --registry-secret give it)",
	  .def = ADM_PULL_SECRET_NAME },
	{ .short_name = 'n', .long_name = "namespace", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct secret_opts, namespaces), .argh = "<ns>",
	  .help = "a namespace to create it in (repeatable; default: "
	      "runai-backend and runai)" },
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct secret_opts, dry_run),
	  .help = "print the Secrets as YAML; contact no cluster" },
	RAI_OPT_END
};

/* The first line of what was read: the password. */
static int
first_line(char *s, size_t len, const char *from, char **out,
    struct rai_err *err)
{
	size_t n = strcspn(s, "\r\n");

	if (n == 0) {
		rai_free_secret_mem(s, len);
		return rai_err_set(err, RAI_E_USAGE, "%s holds no password",
		    from);
	}
	*out = xstrndup(s, n);
	rai_free_secret_mem(s, len);
	return 0;
}

static int
read_stdin(char **out, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	char chunk[4096], *s;
	ssize_t n;
	size_t len;

	rai_buf_init(&b, PASSWORD_MAX);
	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || rai_buf_add(&b, chunk, (size_t)n) == -1) {
			explicit_bzero(chunk, sizeof(chunk));
			rai_buf_release_secret(&b);
			return rai_err_set(err, RAI_E_USAGE, "--password-stdin: "
			    "cannot read standard input, or it is too long");
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	rai_buf_addch(&b, '\0');
	s = rai_buf_detach(&b, &len);
	return first_line(s, len, "standard input", out, err);
}

static int
read_password(const struct secret_opts *o, char **out, struct rai_err *err)
{
	char *s;
	size_t len;

	*out = NULL;
	if (o->password_stdin == (o->password_file != NULL))
		return rai_err_set(err, RAI_E_USAGE, "give the password with "
		    "--password-stdin or --password-file (one of them)");
	if (o->password_stdin)
		return read_stdin(out, err);
	if (rai_file_read(o->password_file, PASSWORD_MAX, &s, &len, err) == -1)
		return -1;
	return first_line(s, len, o->password_file, out, err);
}

/* --registry, else REGISTRY_URL: its host[:port] is the "auths" key. */
static int
registry_server(const struct secret_opts *o, char **server,
    struct rai_err *err)
{
	struct adm_reg_addr addr = { NULL, NULL };
	const char *reg = o->registry;
	int from_env = 0;

	if (reg == NULL && adm_registry_choose(NULL, 1, &reg, &from_env,
	    err) == -1)
		return -1;
	if (reg == NULL)
		return rai_err_set(err, RAI_E_USAGE, "no registry: give "
		    "--registry <host[:port]>, or set REGISTRY_URL");
	if (adm_reg_addr_parse(reg, &addr, err) == -1) {
		err->kind = RAI_E_USAGE;
		return -1;
	}
	if (from_env)
		rai_warn("--registry not given: using REGISTRY_URL (%s)", reg);
	*server = addr.host;
	addr.host = NULL;
	adm_reg_addr_release(&addr);
	return 0;
}

/* The namespace first, when it is not there yet (before the install). */
static int
ensure_namespace(struct kube_client *kc, const char *ns, struct rai_err *err)
{
	cJSON *obj = NULL, *o;
	int rc;

	if (kube_get(kc, &KUBE_RES_NAMESPACES, NULL, ns, &obj, err) == 0) {
		cJSON_Delete(obj);
		return 0;
	}
	if (err->http_status != 404)
		return -1;
	rai_err_release(err);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "apiVersion", "v1");
	cJSON_AddStringToObject(o, "kind", "Namespace");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "name",
	    ns);
	rc = kube_create(kc, &KUBE_RES_NAMESPACES, NULL, o, 0, NULL, err);
	cJSON_Delete(o);
	if (rc == 0)
		fprintf(stdout, "namespace/%s created\n", ns);
	return rc;
}

/* Created, or replaced when it exists (new credentials). */
static int
write_secret(struct kube_client *kc, const cJSON *s, const char *ns,
    struct rai_err *err)
{
	const char *verb = "created";

	if (ensure_namespace(kc, ns, err) == -1)
		return -1;
	if (kube_create(kc, &KUBE_RES_SECRETS, ns, s, 0, NULL, err) == -1) {
		if (err->http_status != 409)
			return -1;
		rai_err_release(err);
		if (kube_update(kc, &KUBE_RES_SECRETS, ns, s, 0, NULL,
		    err) == -1)
			return -1;
		verb = "replaced";
	}
	fprintf(stdout, "secret/%s %s in namespace %s\n",
	    rai_json_str(s, "metadata.name"), verb, ns);
	return 0;
}

static int
cmd_registry_secret(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct secret_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	const char *const *nss = adm_pull_secret_namespaces;
	char *server = NULL, *password = NULL;
	struct rai_buf y = RAI_BUF_INIT;
	size_t i, n;
	cJSON *s;
	int rc = -1;

	(void)argc;
	(void)argv;
	if (o->namespaces.n > 0)
		nss = o->namespaces.v;
	for (n = 0; o->namespaces.n > 0 ? n < o->namespaces.n :
	    nss[n] != NULL; n++)
		;
	if (registry_server(o, &server, err) == -1 ||
	    read_password(o, &password, err) == -1)
		goto out;
	if (!o->dry_run && rai_kube_setup(ADM_KUBE(ctx),
	    &ADM_GLOBALS(ctx)->kube, RAI_CMD_NEED_CLIENT,
	    "runai-adm/" RAI_VERSION, err) == -1)
		goto out;
	for (i = 0, rc = 0; i < n && rc == 0; i++) {
		s = adm_pull_secret_new(o->name, nss[i], server, o->username,
		    password);
		if (o->dry_run) {
			/* asked for: the Secret, to apply elsewhere */
			rai_buf_reset(&y);
			rai_buf_addstr(&y, "---\n");
			rc = rai_yaml_emit(s, &y, err);
			if (rc == 0)
				fputs(rai_buf_str(&y), stdout);
		} else {
			rc = write_secret(ADM_CLIENT(ctx), s, nss[i], err);
		}
		cJSON_Delete(s);
	}
out:
	rai_buf_release_secret(&y);
	rai_free_secret(password);
	free(server);
	return rc;
}

static const struct rai_example secret_examples[] = {
	{ "runai-adm create registry-secret --registry reg.local:5000 "
	    "-u puller --password-file pw.txt", "the pull Secret "
	    ADM_PULL_SECRET_NAME " in runai-backend and runai" },
	{ "echo \"$PW\" | runai-adm create registry-secret -u puller "
	    "--password-stdin --dry-run", "print it for REGISTRY_URL, to "
	    "apply later" },
	{ NULL, NULL }
};

static const struct rai_cmd adm_cmd_create_registry_secret = {
	.name = "registry-secret",
	.summary = "create the registry pull Secret of an air-gapped install",
	.synopsis = "-u <user> (--password-stdin | --password-file <file>) "
	    "[--registry <host[:port]>] [-n <ns>]... [--name <name>] "
	    "[--dry-run]",
	.description = "Writes the Secret the nodes pull Run:ai's images "
	    "from the private registry with: type kubernetes.io/"
	    "dockerconfigjson, named " ADM_PULL_SECRET_NAME " (--name), with "
	    "an \"auths\" entry for the registry's host[:port] (--registry, "
	    "else $REGISTRY_URL) holding the user and password, in each "
	    "namespace Run:ai pulls in: runai-backend (the control plane) "
	    "and runai (the cluster), or those of --namespace. A namespace "
	    "that does not exist yet is created; a Secret that exists is "
	    "replaced, so the command also renews the credentials. The "
	    "values file of \"generate-values --airgapped\" references the "
	    "same name, and \"preflight --registry\" checks that the Secret "
	    "is there and that the registry takes its credentials. The "
	    "password is read from standard input or a file (its first "
	    "line), never from the command line. --dry-run prints the "
	    "Secrets as YAML (the password in them, base64-encoded) and "
	    "contacts no cluster.",
	.examples = secret_examples,
	.opts = secret_opts,
	.opts_size = sizeof(struct secret_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_registry_secret,
};

static const struct rai_cmd *const create_subcmds[] = {
	&adm_cmd_create_registry_secret,
	NULL
};

const struct rai_cmd adm_cmd_create = {
	.name = "create",
	.summary = "create what an installation needs in the cluster",
	.synopsis = "registry-secret [options]",
	.description = "Creates objects an installation of Run:ai needs "
	    "before the charts go in: \"create registry-secret\", the pull "
	    "Secret of an air-gapped install.",
	.args_min = 0,
	.args_max = 0,
	.subcmds = create_subcmds,
};
