/*
 * Unit tests of kube_config: every credential kind, KUBECONFIG merging,
 * overrides, the error messages, and write-back (unknown fields kept,
 * mode 0600, the right file of a list, no temp or lock files left).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/yaml.h"
#include "kube/config.h"

#include "harness.h"

extern char **environ;

static char tmpdir[PATH_MAX];
static char fixdir[PATH_MAX];	/* absolute tests/fixtures/kubeconfig */

static char *
fixture_abs(const char *rel)
{
	return xasprintf("%s/%s", fixdir, rel);
}

static char *
tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	T_NOT_NULL(f);
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

static void
copy_file(const char *from, const char *to)
{
	char *text = t_slurp(from, NULL);

	T_NOT_NULL(text);
	if (text != NULL)
		write_text(to, text);
	free(text);
}

static cJSON *
load_tree(const char *path)
{
	struct rai_err err = RAI_ERR_INIT;
	size_t len = 0;
	char *text = t_slurp(path, &len);
	cJSON *root = NULL;

	T_NOT_NULL(text);
	if (text == NULL)
		return NULL;
	if (rai_yaml_parse(text, len, path, &root, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
	}
	free(text);
	return root;
}

static int
file_mode(const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return -1;
	return (int)(st.st_mode & 07777);
}

/* Names in tmpdir containing s (temp and lock files left behind). */
static int
count_names_with(const char *s)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, s) != NULL)
			n++;
	closedir(d);
	return n;
}

static void
clean_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char *p;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		p = tmp_path(de->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
}

static int
blob_eq_file(const struct kube_blob *b, const char *rel)
{
	char *path = fixture_abs(rel);
	size_t len = 0;
	char *text = t_slurp(path, &len);
	int eq;

	eq = text != NULL && b->len == len && memcmp(b->data, text, len) == 0;
	free(text);
	free(path);
	return eq;
}

/* Loads the all.yaml fixture with a --context (and more) and resolves. */
static int
resolve_all(const char *context, struct kube_config_opts *o,
    struct kube_conn *c, struct rai_err *err)
{
	struct kube_config_opts def = { 0 };
	struct kube_config *kc = NULL;
	char *path = fixture_abs("all.yaml");
	int rc;

	if (o == NULL)
		o = &def;
	o->kubeconfig = path;
	o->context = context;
	rc = kube_config_load(&kc, o, err);
	if (rc == 0)
		rc = kube_config_resolve(kc, c, err);
	kube_config_free(kc);
	free(path);
	return rc;
}

static void
resolve_ok(const char *context, struct kube_config_opts *o,
    struct kube_conn *c)
{
	struct rai_err err = RAI_ERR_INIT;

	memset(c, 0, sizeof(*c));
	if (resolve_all(context, o, c, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
	}
}

TEST(token_context_and_defaults)
{
	struct kube_conn c;

	resolve_ok("ctx-token", NULL, &c);
	T_STR_EQ(c.context, "ctx-token");
	T_STR_EQ(c.cluster, "c-plain");
	T_STR_EQ(c.user, "u-token");
	T_STR_EQ(c.server, "https://plain.example:6443");
	T_STR_EQ(c.namespace, "default");
	T_INT_EQ(c.namespace_explicit, 0);
	T_INT_EQ(c.auth, KUBE_AUTH_TOKEN);
	T_STR_EQ(c.token, "static-token-abc");
	T_INT_EQ(c.insecure, 0);
	T_INT_EQ(c.disable_compression, 0);
	T_UINT_EQ(c.ca.len, 0);
	T_NULL(c.tls_server_name);
	T_NULL(c.proxy_url);
	kube_conn_release(&c);
	T_NULL(c.server);
	kube_conn_release(&c);		/* idempotent */
}

TEST(namespace_from_context_and_override)
{
	struct kube_config_opts o = { 0 };
	struct kube_conn c;

	resolve_ok("ctx-ns", NULL, &c);
	T_STR_EQ(c.namespace, "runai-team-a");
	T_INT_EQ(c.namespace_explicit, 1);
	kube_conn_release(&c);
	o.namespace = "runai-other";
	resolve_ok("ctx-ns", &o, &c);
	T_STR_EQ(c.namespace, "runai-other");
	T_INT_EQ(c.namespace_explicit, 1);
	kube_conn_release(&c);
	o.namespace = "runai-flag";
	resolve_ok("ctx-token", &o, &c);
	T_STR_EQ(c.namespace, "runai-flag");
	T_INT_EQ(c.namespace_explicit, 1);
	kube_conn_release(&c);
}

TEST(relative_ca_file_and_token_file)
{
	struct kube_conn c;
	char *tf = fixture_abs("token.txt");

	resolve_ok("ctx-ca-file", NULL, &c);
	T_OK(blob_eq_file(&c.ca, "ca.crt"));
	T_INT_EQ(c.auth, KUBE_AUTH_TOKEN_FILE);
	T_STR_EQ(c.token_file, tf);
	T_NULL(c.token);
	kube_conn_release(&c);
	free(tf);
}

TEST(ca_data_and_client_cert_files)
{
	struct kube_conn c;

	resolve_ok("ctx-ca-data", NULL, &c);
	T_STR_EQ(c.server, "https://ca-data.example");
	T_OK(blob_eq_file(&c.ca, "ca.crt"));
	T_OK(blob_eq_file(&c.cert, "client.crt"));
	T_OK(blob_eq_file(&c.key, "client.key"));
	T_INT_EQ(c.auth, KUBE_AUTH_CERT);
	kube_conn_release(&c);
	resolve_ok("ctx-cert-data", NULL, &c);
	T_OK(blob_eq_file(&c.cert, "client.crt"));
	T_OK(blob_eq_file(&c.key, "client.key"));
	T_INT_EQ(c.auth, KUBE_AUTH_CERT);
	kube_conn_release(&c);
}

TEST(insecure_tls_server_name_proxy_compression_and_basic)
{
	struct kube_conn c;

	resolve_ok("ctx-basic", NULL, &c);
	T_STR_EQ(c.server, "https://10.0.0.1:6443");
	T_INT_EQ(c.insecure, 1);
	T_STR_EQ(c.tls_server_name, "api.internal");
	T_STR_EQ(c.proxy_url, "http://proxy.example:3128");
	T_INT_EQ(c.disable_compression, 1);
	T_INT_EQ(c.auth, KUBE_AUTH_BASIC);
	T_STR_EQ(c.username, "admin");
	T_STR_EQ(c.password, "s3cret:pw");
	kube_conn_release(&c);
}

TEST(exec_fields)
{
	struct kube_conn c;
	char *cmd = fixture_abs("../exec-plugin/cred.sh");

	resolve_ok("ctx-exec", NULL, &c);
	T_INT_EQ(c.auth, KUBE_AUTH_EXEC);
	T_STR_EQ(c.exec.api_version, "client.authentication.k8s.io/v1");
	T_STR_EQ(c.exec.command, cmd);
	T_STR_EQ(c.exec.args[0], "token");
	T_STR_EQ(c.exec.args[1], "2099-01-01T00:00:00Z");
	T_NULL(c.exec.args[2]);
	T_STR_EQ(c.exec.env[0], "COUNT_FILE=/nonexistent/count");
	T_STR_EQ(c.exec.env[1], "EMPTY=");
	T_NULL(c.exec.env[2]);
	T_STR_EQ(c.exec.install_hint, "install cred.sh from the test fixtures");
	T_STR_EQ(c.exec.interactive_mode, "IfAvailable");
	T_INT_EQ(c.exec.provide_cluster_info, 1);
	kube_conn_release(&c);
	free(cmd);
}

TEST(oidc_fields)
{
	struct kube_conn c;

	resolve_ok("ctx-oidc", NULL, &c);
	T_INT_EQ(c.auth, KUBE_AUTH_OIDC);
	T_STR_EQ(c.oidc.client_id, "runai");
	T_STR_EQ(c.oidc.client_secret, "oidc-client-secret");
	T_STR_EQ(c.oidc.issuer_url, "https://idp.example/auth/realms/runai");
	T_STR_EQ(c.oidc.id_token, "header.payload.sig");
	T_STR_EQ(c.oidc.refresh_token, "refresh-abc");
	T_STR_EQ(c.oidc.auth_flow, "cli");
	T_STR_EQ(c.oidc.realm, "runai");
	T_STR_EQ(c.oidc.redirect_uri, "https://app.example/oauth-code");
	T_STR_EQ(c.oidc.additional_scope, "groups");
	T_INT_EQ(c.oidc.airgapped, 1);
	T_OK(blob_eq_file(&c.oidc.idp_ca, "ca.crt"));
	kube_conn_release(&c);
}

TEST(no_user_and_precedence)
{
	struct kube_conn c;

	resolve_ok("ctx-nouser", NULL, &c);
	T_INT_EQ(c.auth, KUBE_AUTH_NONE);
	T_NULL(c.user);
	kube_conn_release(&c);
	resolve_ok("ctx-token-and-exec", NULL, &c);
	T_INT_EQ(c.auth, KUBE_AUTH_TOKEN);
	T_STR_EQ(c.token, "wins-over-exec");
	T_NULL(c.exec.command);
	kube_conn_release(&c);
	resolve_ok("ctx-basic-and-oidc", NULL, &c);
	T_INT_EQ(c.auth, KUBE_AUTH_BASIC);
	T_STR_EQ(c.username, "bob");
	kube_conn_release(&c);
}

TEST(cluster_and_user_overrides)
{
	struct kube_config_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_conn c;

	o.cluster = "c-insecure";
	o.user = "u-basic";
	resolve_ok("ctx-token", &o, &c);
	T_STR_EQ(c.cluster, "c-insecure");
	T_STR_EQ(c.server, "https://10.0.0.1:6443");
	T_STR_EQ(c.user, "u-basic");
	T_INT_EQ(c.auth, KUBE_AUTH_BASIC);
	kube_conn_release(&c);
	o.cluster = "nope";
	o.user = NULL;
	memset(&c, 0, sizeof(c));
	T_INT_EQ(resolve_all("ctx-token", &o, &c, &err), -1);
	T_STR_EQ(err.message, "cluster 'nope' (--cluster) not found");
	o.cluster = NULL;
	o.user = "nobody";
	T_INT_EQ(resolve_all("ctx-token", &o, &c, &err), -1);
	T_STR_EQ(err.message, "user 'nobody' (--user) not found");
	T_NULL(c.server);		/* out-parameter untouched */
	rai_err_release(&err);
}

TEST(context_listing_and_selection)
{
	struct kube_config_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_context_info ci;
	struct kube_config *kc = NULL;
	char *path = fixture_abs("all.yaml");

	o.kubeconfig = path;
	T_INT_EQ(kube_config_load(&kc, &o, &err), 0);
	if (kc == NULL)
		goto out;
	T_UINT_EQ(kube_config_nfiles(kc), 1);
	T_STR_EQ(kube_config_file(kc, 0), path);
	T_NULL(kube_config_file(kc, 1));
	T_STR_EQ(kube_config_current_context(kc), "ctx-token");
	T_STR_EQ(kube_config_context_name(kc), "ctx-token");
	T_UINT_EQ(kube_config_ncontexts(kc), 11);
	T_INT_EQ(kube_config_context(kc, 1, &ci), 0);
	T_STR_EQ(ci.name, "ctx-ns");
	T_STR_EQ(ci.cluster, "c-plain");
	T_STR_EQ(ci.user, "u-token");
	T_STR_EQ(ci.namespace, "runai-team-a");
	T_INT_EQ(kube_config_context(kc, 11, &ci), -1);
	T_INT_EQ(kube_config_find_context(kc, "ctx-nouser", &ci), 0);
	T_NULL(ci.user);
	T_NULL(ci.namespace);
	T_INT_EQ(kube_config_find_context(kc, "nope", &ci), -1);
	kube_config_free(kc);
	kc = NULL;
	o.context = "ctx-oidc";
	T_INT_EQ(kube_config_load(&kc, &o, &err), 0);
	T_STR_EQ(kube_config_context_name(kc), "ctx-oidc");
	T_STR_EQ(kube_config_current_context(kc), "ctx-token");
out:
	kube_config_free(kc);
	free(path);
}

TEST(kubeconfig_list_merges_first_wins)
{
	char *a = fixture_abs("merge/a.yaml"), *b = fixture_abs("merge/b.yaml");
	char *cc = fixture_abs("merge/c.yaml"), *list;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_context_info ci;
	struct kube_config *kc = NULL;
	struct kube_conn c;

	/* A missing file and an empty entry are skipped; b twice is one. */
	list = xasprintf("%s:%s/missing.yaml::%s:%s:%s", a, tmpdir, b, cc, b);
	setenv("KUBECONFIG", list, 1);
	T_INT_EQ(kube_config_load(&kc, NULL, &err), 0);
	if (kc == NULL)
		goto out;
	T_UINT_EQ(kube_config_nfiles(kc), 3);
	T_STR_EQ(kube_config_file(kc, 0), a);
	T_STR_EQ(kube_config_file(kc, 1), b);
	T_STR_EQ(kube_config_file(kc, 2), cc);
	T_STR_EQ(kube_config_current_context(kc), "ctx-b");
	T_UINT_EQ(kube_config_ncontexts(kc), 4);
	kube_config_context(kc, 0, &ci);
	T_STR_EQ(ci.name, "ctx-a");
	kube_config_context(kc, 1, &ci);
	T_STR_EQ(ci.name, "ctx-shared");
	T_STR_EQ(ci.namespace, "ns-from-a");
	kube_config_context(kc, 2, &ci);
	T_STR_EQ(ci.name, "ctx-b");
	kube_config_context(kc, 3, &ci);
	T_STR_EQ(ci.name, "ctx-c");
	T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
	T_STR_EQ(c.context, "ctx-b");
	T_STR_EQ(c.server, "https://from-a.example");
	T_STR_EQ(c.token, "token-b");
	kube_conn_release(&c);
out:
	kube_config_free(kc);
	unsetenv("KUBECONFIG");
	free(list);
	free(a);
	free(b);
	free(cc);
}

TEST(kubeconfig_flag_wins_and_must_exist)
{
	struct kube_config_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	char *b = fixture_abs("merge/b.yaml"), *missing = tmp_path("missing");
	char *want;

	setenv("KUBECONFIG", b, 1);
	o.kubeconfig = missing;
	T_INT_EQ(kube_config_load(&kc, &o, &err), -1);
	T_NULL(kc);
	T_INT_EQ(err.kind, RAI_E_CONFIG);
	T_INT_EQ(err.sys_errno, ENOENT);
	want = xasprintf("cannot read kubeconfig '%s': No such file or "
	    "directory", missing);
	T_STR_EQ(err.message, want);
	free(want);
	rai_err_release(&err);
	unsetenv("KUBECONFIG");
	free(b);
	free(missing);
}

TEST(default_file_missing_is_empty)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	struct kube_conn c;
	char *old = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *want, *kdir, *cfg;

	memset(&c, 0, sizeof(c));
	unsetenv("KUBECONFIG");
	setenv("HOME", tmpdir, 1);
	T_INT_EQ(kube_config_load(&kc, NULL, &err), 0);
	T_UINT_EQ(kube_config_nfiles(kc), 0);
	T_NULL(kube_config_context_name(kc));
	T_UINT_EQ(kube_config_ncontexts(kc), 0);
	T_INT_EQ(kube_config_resolve(kc, &c, &err), -1);
	T_INT_EQ(err.kind, RAI_E_CONFIG);
	want = xasprintf("no current context is set: no kubeconfig found at "
	    "%s/.kube/config; set KUBECONFIG or use --kubeconfig", tmpdir);
	T_STR_EQ(err.message, want);
	free(want);
	T_INT_EQ(kube_config_set_current_context(kc, "x", &err), -1);
	T_STR_CONTAINS(err.message, "no kubeconfig to write");
	kube_config_free(kc);
	kc = NULL;

	kdir = tmp_path(".kube");
	cfg = tmp_path(".kube/config");
	mkdir(kdir, 0700);
	write_text(cfg, "current-context: x\ncontexts: [{name: x, context: "
	    "{cluster: c}}]\nclusters: [{name: c, cluster: {server: "
	    "'https://h'}}]\n");
	T_INT_EQ(kube_config_load(&kc, NULL, &err), 0);
	T_UINT_EQ(kube_config_nfiles(kc), 1);
	T_STR_EQ(kube_config_file(kc, 0), cfg);
	T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
	T_STR_EQ(c.server, "https://h");
	kube_conn_release(&c);
	kube_config_free(kc);
	unlink(cfg);
	rmdir(kdir);
	free(cfg);
	free(kdir);
	rai_err_release(&err);
	if (old != NULL)
		setenv("HOME", old, 1);
	free(old);
}

/* ---- error messages ---- */

struct err_case {
	const char	*yaml;
	int		 at_load;	/* fails in load, else in resolve */
	const char	*message;
};

#define HDR "current-context: x\n"
#define CLUSTER "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
#define CTX "contexts: [{name: x, context: {cluster: c, user: u}}]\n"

static const struct err_case err_cases[] = {
	{ "contexts: 5\n", 1,
	  "/h/.kube/config: 'contexts' must be a list" },
	{ "clusters: {a: b}\n", 1,
	  "/h/.kube/config: 'clusters' must be a list" },
	{ "users: [5]\n", 1,
	  "/h/.kube/config: users[0] is not a mapping" },
	{ "contexts: [{name: a}, {context: {}}]\n", 1,
	  "/h/.kube/config: contexts[1] has no name" },
	{ "contexts: [{name: 7}]\n", 1,
	  "/h/.kube/config: contexts[0] has no name" },
	{ "contexts: [{name: x, context: 5}]\n", 1,
	  "/h/.kube/config: 'context' of context 'x' must be a mapping" },
	{ "users: [{name: u, user: [a]}]\n", 1,
	  "/h/.kube/config: 'user' of user 'u' must be a mapping" },
	{ "current-context: [a]\n", 1,
	  "/h/.kube/config: 'current-context' must be a string" },
	{ "- a\n- b\n", 1,
	  "/h/.kube/config: a kubeconfig must be a mapping" },
	{ "just a string\n", 1,
	  "/h/.kube/config: a kubeconfig must be a mapping" },
	{ "apiVersion: v1\nclusters: [\n  - name: x\n", 1,
	  "/h/.kube/config: line 3 column 3: did not find expected node "
	  "content" },
	{ "apiVersion: v1\nkind: Config\n", 0,
	  "no current context is set in /h/.kube/config; use --context or "
	  "'runai config cluster'" },
	{ "current-context: ''\n", 0,
	  "no current context is set in /h/.kube/config; use --context or "
	  "'runai config cluster'" },
	{ "current-context: foo\n" CTX, 0,
	  "context 'foo' not found in /h/.kube/config" },
	{ HDR CTX, 0,
	  "cluster 'c' referenced by context 'x' not found" },
	{ HDR "contexts: [{name: x, context: {user: u}}]\n", 0,
	  "context 'x' has no cluster in /h/.kube/config" },
	{ HDR "contexts: [{name: x, context: {cluster: [c]}}]\n", 0,
	  "/h/.kube/config: 'cluster' of context 'x' must be a string" },
	{ HDR CLUSTER CTX, 0,
	  "user 'u' referenced by context 'x' not found" },
	{ HDR CTX "clusters: [{name: c, cluster: {}}]\n", 0,
	  "cluster 'c' has no server in /h/.kube/config" },
	{ HDR CTX "clusters: [{name: c}]\n", 0,
	  "cluster 'c' has no server in /h/.kube/config" },
	{ HDR CTX "clusters: [{name: c, cluster: {server: 5}}]\n", 0,
	  "/h/.kube/config: 'server' of cluster 'c' must be a string" },
	{ HDR CTX "clusters: [{name: c, cluster: {server: 'https://h', "
	  "insecure-skip-tls-verify: maybe}}]\n", 0,
	  "/h/.kube/config: 'insecure-skip-tls-verify' of cluster 'c' must "
	  "be true or false" },
	{ HDR CTX "clusters: [{name: c, cluster: {server: 'https://h', "
	  "certificate-authority: /nonexistent/ca.crt}}]\n", 0,
	  "cannot read certificate-authority '/nonexistent/ca.crt': No such "
	  "file or directory" },
	{ HDR CTX "clusters: [{name: c, cluster: {server: 'https://h', "
	  "certificate-authority: ca.crt}}]\n", 0,
	  "cannot read certificate-authority '/h/.kube/ca.crt': No such "
	  "file or directory" },
	{ HDR CTX "clusters: [{name: c, cluster: {server: 'https://h', "
	  "certificate-authority-data: 'not base64!'}}]\n", 0,
	  "invalid base64 in certificate-authority-data of cluster 'c'" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {client-certificate-data: "
	  "QUJD, client-key-data: 'QU=JD'}}]\n", 0,
	  "invalid base64 in client-key-data of user 'u'" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {client-certificate-data: "
	  "QUJD, client-key-data: 'Q'}}]\n", 0,
	  "invalid base64 in client-key-data of user 'u'" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {client-certificate-data: "
	  "QUJD}}]\n", 0,
	  "user 'u' has a client-certificate but no client-key" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {client-key: /nonexistent/"
	  "k}}]\n", 0,
	  "cannot read client-key '/nonexistent/k': No such file or "
	  "directory" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {token: 12345}}]\n", 0,
	  "/h/.kube/config: 'token' of user 'u' must be a string" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: 5}}]\n", 0,
	  "/h/.kube/config: exec and auth-provider of user 'u' must be "
	  "mappings" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: {apiVersion: v}}}]\n",
	  0, "/h/.kube/config: exec of user 'u' has no command" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: {command: c}}}]\n",
	  0, "/h/.kube/config: exec of user 'u' has no apiVersion" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: {command: c, "
	  "apiVersion: v, args: x}}}]\n", 0,
	  "/h/.kube/config: exec args and env of user 'u' must be lists" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: {command: c, "
	  "apiVersion: v, args: [a, [b]]}}}]\n", 0,
	  "/h/.kube/config: exec args of user 'u' must be strings" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {exec: {command: c, "
	  "apiVersion: v, env: [{value: x}]}}}]\n", 0,
	  "/h/.kube/config: exec env of user 'u' must be a list of {name, "
	  "value} strings" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {auth-provider: {name: "
	  "gcp}}}]\n", 0,
	  "user 'u' uses auth-provider 'gcp', which is not supported; only "
	  "'oidc' is" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {auth-provider: {name: "
	  "oidc, config: [x]}}}]\n", 0,
	  "/h/.kube/config: auth-provider config of user 'u' must be a "
	  "mapping" },
	{ HDR CTX CLUSTER "users: [{name: u, user: {auth-provider: {name: "
	  "oidc, config: {id-token: {a: b}}}}}]\n", 0,
	  "/h/.kube/config: auth-provider config 'id-token' of user 'u' must "
	  "be a string" },
	{ NULL, 0, NULL }
};

TEST(error_messages_name_file_and_piece)
{
	const struct err_case *e;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	struct kube_conn c;
	int rc;

	for (e = err_cases; e->yaml != NULL; e++) {
		kc = NULL;
		memset(&c, 0, sizeof(c));
		rc = kube_config_load_buffer(&kc, e->yaml, strlen(e->yaml),
		    "/h/.kube/config", &err);
		if (rc == 0 && e->at_load) {
			t_fail_at(__FILE__, __LINE__);
			printf("loaded: %s", e->yaml);
		}
		if (rc == 0)
			rc = kube_config_resolve(kc, &c, &err);
		if (rc == 0) {
			t_fail_at(__FILE__, __LINE__);
			printf("resolved: %s", e->yaml);
			kube_conn_release(&c);
		} else {
			T_INT_EQ(err.kind, RAI_E_CONFIG);
			T_STR_EQ(err.message, e->message);
		}
		T_NULL(c.context);
		kube_config_free(kc);
		rai_err_release(&err);
	}
}

TEST(yaml11_booleans_are_accepted)
{
	const char *y = HDR CTX "users: [{name: u}]\n"
	    "clusters: [{name: c, cluster: {server: 'https://h', "
	    "insecure-skip-tls-verify: yes}}]\n";
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	struct kube_conn c;

	T_INT_EQ(kube_config_load_buffer(&kc, y, strlen(y), "/h/k", &err), 0);
	T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
	T_INT_EQ(c.insecure, 1);
	kube_conn_release(&c);
	kube_config_free(kc);
}

TEST(unknown_context_flag)
{
	struct kube_config_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_conn c;
	char *want, *path = fixture_abs("all.yaml");

	memset(&c, 0, sizeof(c));
	T_INT_EQ(resolve_all("nope", &o, &c, &err), -1);
	want = xasprintf("context 'nope' not found in %s", path);
	T_STR_EQ(err.message, want);
	free(want);
	free(path);
	rai_err_release(&err);
}

TEST(base64_tolerates_wrapping_and_missing_padding)
{
	const char *y = HDR CTX CLUSTER
	    "users: [{name: u, user: {client-certificate-data: \"QUJD\\nREVG\","
	    " client-key-data: 'YWI'}}]\n";
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	struct kube_conn c;

	T_INT_EQ(kube_config_load_buffer(&kc, y, strlen(y), "/h/k", &err), 0);
	T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
	T_UINT_EQ(c.cert.len, 6);
	T_MEM_EQ(c.cert.data, "ABCDEF", 6);
	T_UINT_EQ(c.key.len, 2);
	T_MEM_EQ(c.key.data, "ab", 2);
	kube_conn_release(&c);
	kube_config_free(kc);
}

TEST(oversized_certificate_is_refused)
{
	char *big = tmp_path("big.crt"), *y, *want;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	struct kube_conn c;
	FILE *f = fopen(big, "w");
	size_t i;

	for (i = 0; i < (1u << 20) + 1; i++)
		fputc('x', f);
	fclose(f);
	y = xasprintf(HDR CTX "users: [{name: u}]\nclusters: [{name: c, "
	    "cluster: {server: 'https://h', certificate-authority: %s}}]\n",
	    big);
	T_INT_EQ(kube_config_load_buffer(&kc, y, strlen(y), "/h/k", &err), 0);
	T_INT_EQ(kube_config_resolve(kc, &c, &err), -1);
	want = xasprintf("certificate-authority '%s' is larger than 1 MiB",
	    big);
	T_STR_EQ(err.message, want);
	kube_config_free(kc);
	rai_err_release(&err);
	unlink(big);
	free(want);
	free(y);
	free(big);
}

/* ---- write-back ---- */

static struct kube_config *
load_path(const char *path)
{
	struct kube_config_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;

	o.kubeconfig = path;
	if (kube_config_load(&kc, &o, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
	}
	return kc;
}

TEST(set_current_context_keeps_unknown_fields)
{
	char *src = fixture_abs("all.yaml"), *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	cJSON *want, *got;
	char *text;

	copy_file(src, dst);
	chmod(dst, 0644);
	want = load_tree(dst);
	cJSON_ReplaceItemInObjectCaseSensitive(want, "current-context",
	    cJSON_CreateString("ctx-ns"));
	kc = load_path(dst);
	if (kc == NULL)
		goto out;
	T_INT_EQ(kube_config_set_current_context(kc, "ctx-ns", &err), 0);
	T_STR_EQ(kube_config_current_context(kc), "ctx-ns");
	got = load_tree(dst);
	T_OK(cJSON_Compare(want, got, 1));
	cJSON_Delete(got);
	T_INT_EQ(file_mode(dst), 0600);
	T_INT_EQ(count_names_with(".tmp."), 0);
	T_INT_EQ(count_names_with(".lock"), 0);
	text = t_slurp(dst, NULL);
	T_STR_CONTAINS(text, "\ncurrent-context: ctx-ns\n");
	T_STR_CONTAINS(text, "\nx-unknown-top: keep-me\n");
	T_STR_CONTAINS(text, "    x-cluster-extension: 42\n");
	T_STR_CONTAINS(text, "        airgapped: 'true'\n");
	free(text);
	/* The new file reads back the same way. */
	kube_config_free(kc);
	kc = load_path(dst);
	T_STR_EQ(kc ? kube_config_current_context(kc) : NULL, "ctx-ns");
out:
	kube_config_free(kc);
	cJSON_Delete(want);
	clean_tmpdir();
	free(src);
	free(dst);
}

TEST(set_namespace_and_oidc_fields)
{
	char *src = fixture_abs("all.yaml"), *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_context_info ci;
	struct kube_config *kc;
	struct kube_conn c;
	cJSON *want = NULL, *got, *cfg;

	copy_file(src, dst);
	want = load_tree(dst);
	kc = load_path(dst);
	if (kc == NULL || want == NULL)
		goto out;
	T_INT_EQ(kube_config_set_context_namespace(kc, "ctx-token",
	    "runai-new", &err), 0);
	T_INT_EQ(kube_config_find_context(kc, "ctx-token", &ci), 0);
	T_STR_EQ(ci.namespace, "runai-new");
	T_INT_EQ(kube_config_set_oidc_field(kc, "u-oidc", "id-token", "new-id",
	    &err), 0);
	T_INT_EQ(kube_config_set_oidc_field(kc, "u-oidc", "refresh-token", NULL,
	    &err), 0);
	T_INT_EQ(kube_config_set_oidc_field(kc, "u-oidc", "x-new", "true",
	    &err), 0);
	/* A user without an auth-provider gets one. */
	T_INT_EQ(kube_config_set_oidc_field(kc, "u-basic", "client-id", "cli",
	    &err), 0);
	/* Removing from a user without one changes nothing. */
	T_INT_EQ(kube_config_set_oidc_field(kc, "u-token", "id-token", NULL,
	    &err), 0);

	cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(want, "contexts"), 0), "context"), "namespace",
	    "runai-new");
	cfg = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetArrayItem(cJSON_GetObjectItem(want, "users"), 6), "user"),
	    "auth-provider"), "config");
	cJSON_ReplaceItemInObject(cfg, "id-token",
	    cJSON_CreateString("new-id"));
	cJSON_DeleteItemFromObject(cfg, "refresh-token");
	cJSON_AddStringToObject(cfg, "x-new", "true");
	cJSON_AddItemToObject(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(want, "users"), 2), "user"), "auth-provider",
	    cJSON_Parse("{\"name\":\"oidc\",\"config\":{\"client-id\":"
	    "\"cli\"}}"));
	got = load_tree(dst);
	T_OK(cJSON_Compare(want, got, 1));
	if (!cJSON_Compare(want, got, 1)) {
		char *a = cJSON_PrintUnformatted(want);
		char *b = cJSON_PrintUnformatted(got);

		T_STR_EQ(b, a);
		free(a);
		free(b);
	}
	cJSON_Delete(got);

	/* The in-memory view follows. */
	T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
	T_STR_EQ(c.namespace, "runai-new");
	kube_conn_release(&c);
	kube_config_free(kc);
	kc = NULL;
	{
		struct kube_config_opts o = { 0 };

		o.kubeconfig = dst;
		o.context = "ctx-oidc";
		T_INT_EQ(kube_config_load(&kc, &o, &err), 0);
		T_INT_EQ(kube_config_resolve(kc, &c, &err), 0);
		T_STR_EQ(c.oidc.id_token, "new-id");
		T_NULL(c.oidc.refresh_token);
		kube_conn_release(&c);
	}
	T_INT_EQ(file_mode(dst), 0600);
	T_INT_EQ(count_names_with(".tmp."), 0);
	T_INT_EQ(count_names_with(".lock"), 0);
out:
	kube_config_free(kc);
	cJSON_Delete(want);
	clean_tmpdir();
	free(src);
	free(dst);
}

TEST(write_back_errors)
{
	char *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	char *want;

	write_text(dst, HDR CTX CLUSTER "users: [{name: u, user: "
	    "{auth-provider: {name: gcp}}}]\n");
	kc = load_path(dst);
	if (kc == NULL)
		goto out;
	T_INT_EQ(kube_config_set_context_namespace(kc, "nope", "ns", &err), -1);
	want = xasprintf("context 'nope' not found in %s", dst);
	T_STR_EQ(err.message, want);
	free(want);
	T_INT_EQ(kube_config_set_oidc_field(kc, "nobody", "k", "v", &err), -1);
	want = xasprintf("user 'nobody' not found in %s", dst);
	T_STR_EQ(err.message, want);
	free(want);
	T_INT_EQ(kube_config_set_oidc_field(kc, "u", "id-token", "v", &err),
	    -1);
	T_STR_EQ(err.message, "user 'u' uses auth-provider 'gcp', not 'oidc'");
	/* Another process removed the context since we loaded the file. */
	write_text(dst, "kind: Config\n");
	T_INT_EQ(kube_config_set_context_namespace(kc, "x", "ns", &err), -1);
	want = xasprintf("context 'x' not found in %s", dst);
	T_STR_EQ(err.message, want);
	free(want);
	T_INT_EQ(count_names_with(".lock"), 0);
	T_INT_EQ(count_names_with(".tmp."), 0);
out:
	rai_err_release(&err);
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
}

TEST(write_back_rereads_under_the_lock)
{
	char *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_context_info ci;
	struct kube_config *kc;
	char *text;

	write_text(dst, HDR CTX CLUSTER);
	kc = load_path(dst);
	if (kc == NULL)
		goto out;
	/* Someone else adds a context after we loaded. */
	write_text(dst, HDR CLUSTER "contexts:\n"
	    "- {name: x, context: {cluster: c, user: u}}\n"
	    "- {name: other, context: {cluster: c}, x-extra: 1}\n");
	T_INT_EQ(kube_config_set_context_namespace(kc, "x", "ns1", &err), 0);
	T_INT_EQ(kube_config_find_context(kc, "other", &ci), 0);
	T_INT_EQ(kube_config_find_context(kc, "x", &ci), 0);
	T_STR_EQ(ci.namespace, "ns1");
	text = t_slurp(dst, NULL);
	T_STR_CONTAINS(text, "- name: other\n");
	T_STR_CONTAINS(text, "  x-extra: 1\n");
	T_STR_CONTAINS(text, "    namespace: ns1\n");
	free(text);
out:
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
}

TEST(write_back_waits_for_a_lock)
{
	char *dst = tmp_path("config"), *lock = tmp_path("config.lock");
	struct rai_err err = RAI_ERR_INIT;
	char sh[] = "sh", c[] = "-c", script[] = "sleep 0.3; exec rm -f \"$0\"";
	char *argv[] = { sh, c, script, NULL, NULL };
	struct kube_config *kc;
	pid_t pid;
	int status;

	write_text(dst, HDR CTX CLUSTER);
	kc = load_path(dst);
	write_text(lock, "");
	/* Another holder lets go after a while. */
	argv[3] = lock;
	T_INT_EQ(posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ), 0);
	T_INT_EQ(kube_config_set_current_context(kc, "y", &err), 0);
	waitpid(pid, &status, 0);
	T_STR_EQ(kube_config_current_context(kc), "y");
	T_INT_EQ(count_names_with(".lock"), 0);
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
	free(lock);
}

TEST(write_back_goes_to_the_defining_file)
{
	char *first = tmp_path("first"), *main_ = tmp_path("main");
	char *third = tmp_path("third"), *list, *before, *text;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	const char *first_text = "apiVersion: v1\nkind: Config\n"
	    "preferences: {}\n"
	    "contexts: [{name: dup, context: {cluster: c, namespace: one}}]\n";

	write_text(first, first_text);
	write_text(main_, HDR CTX CLUSTER
	    "users: [{name: u, user: {token: t}}]\n");
	write_text(third, "current-context: dup\n"
	    "contexts: [{name: dup, context: {cluster: c, "
	    "namespace: three}}]\n");
	list = xasprintf("%s:%s:%s", first, main_, third);
	setenv("KUBECONFIG", list, 1);
	T_INT_EQ(kube_config_load(&kc, NULL, &err), 0);
	if (kc == NULL)
		goto out;
	T_STR_EQ(kube_config_current_context(kc), "x");

	/* The context lives in main: first stays byte for byte. */
	T_INT_EQ(kube_config_set_context_namespace(kc, "x", "runai-team-d",
	    &err), 0);
	before = t_slurp(first, NULL);
	T_STR_EQ(before, first_text);
	free(before);
	text = t_slurp(main_, NULL);
	T_STR_CONTAINS(text, "namespace: runai-team-d");
	free(text);

	/* current-context is set in main, not in first. */
	T_INT_EQ(kube_config_set_current_context(kc, "dup", &err), 0);
	text = t_slurp(main_, NULL);
	T_STR_CONTAINS(text, "current-context: dup\n");
	free(text);
	before = t_slurp(first, NULL);
	T_STR_EQ(before, first_text);
	free(before);

	/* "dup" is taken from first (first wins), so first is written. */
	T_INT_EQ(kube_config_set_context_namespace(kc, "dup", "two", &err), 0);
	text = t_slurp(first, NULL);
	T_STR_CONTAINS(text, "namespace: two");
	free(text);
	text = t_slurp(third, NULL);
	T_STR_CONTAINS(text, "namespace: three");
	free(text);
	kube_config_free(kc);
	kc = NULL;

	/* Without current-context anywhere it goes to the first file. */
	write_text(main_, CTX CLUSTER);
	write_text(third, "kind: Config\n");
	T_INT_EQ(kube_config_load(&kc, NULL, &err), 0);
	T_NULL(kube_config_current_context(kc));
	T_INT_EQ(kube_config_set_current_context(kc, "x", &err), 0);
	text = t_slurp(first, NULL);
	T_STR_CONTAINS(text, "current-context: x\n");
	free(text);
	T_STR_EQ(kube_config_current_context(kc), "x");
	T_INT_EQ(file_mode(first), 0600);
out:
	kube_config_free(kc);
	unsetenv("KUBECONFIG");
	clean_tmpdir();
	free(list);
	free(first);
	free(main_);
	free(third);
}

TEST(write_back_through_a_symlink)
{
	char *real = tmp_path("real"), *link = tmp_path("link");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	struct stat st;
	char *text;

	write_text(real, HDR CTX CLUSTER);
	T_INT_EQ(symlink(real, link), 0);
	kc = load_path(link);
	T_INT_EQ(kube_config_set_current_context(kc, "z", &err), 0);
	T_INT_EQ(lstat(link, &st), 0);
	T_OK(S_ISLNK(st.st_mode));
	text = t_slurp(real, NULL);
	T_STR_CONTAINS(text, "current-context: z\n");
	free(text);
	T_INT_EQ(count_names_with(".tmp."), 0);
	kube_config_free(kc);
	clean_tmpdir();
	free(real);
	free(link);
}

/* ---- several OIDC fields at once, and the locked update ---- */

static const char oidc_cfg_text[] =
    "current-context: x\n"
    "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
    "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
    "users:\n"
    "- name: u\n"
    "  user:\n"
    "    auth-provider:\n"
    "      name: oidc\n"
    "      config: {client-id: cli, idp-issuer-url: 'https://idp', "
    "id-token: old-id, refresh-token: old-rt, x-keep: kept}\n"
    "- name: plain\n"
    "  user: {}\n";

static char *
oidc_value(const char *path, const char *user, const char *key)
{
	cJSON *doc = load_tree(path), *u;
	const cJSON *v = NULL;
	char *out;

	cJSON_ArrayForEach(u, cJSON_GetObjectItem(doc, "users"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(u, "name")),
		    user) == 0)
			v = cJSON_GetObjectItem(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(u, "user"),
			    "auth-provider"), "config"), key);
	out = xstrdup(cJSON_IsString(v) ? v->valuestring : "(absent)");
	cJSON_Delete(doc);
	return out;
}

#define T_OIDC_EQ(path, user, key, want) do {				\
	char *t_v_ = oidc_value(path, user, key);			\
	T_STR_EQ(t_v_, want);						\
	free(t_v_);							\
} while (0)

TEST(set_oidc_fields_in_one_write)
{
	char *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	struct kube_oidc_kv kv[3] = {
		{ "id-token", "new-id" }, { "refresh-token", NULL },
		{ "auth-flow", "cli" },
	};

	write_text(dst, oidc_cfg_text);
	kc = load_path(dst);
	if (kc == NULL)
		goto out;
	T_INT_EQ(kube_config_set_oidc_fields(kc, "u", kv, 3, &err), 0);
	T_OIDC_EQ(dst, "u", "id-token", "new-id");
	T_OIDC_EQ(dst, "u", "refresh-token", "(absent)");
	T_OIDC_EQ(dst, "u", "auth-flow", "cli");
	T_OIDC_EQ(dst, "u", "x-keep", "kept");
	T_INT_EQ(file_mode(dst), 0600);
	T_INT_EQ(count_names_with(".lock"), 0);
	/* A user without an auth-provider gets "name: oidc" and the keys. */
	T_INT_EQ(kube_config_set_oidc_fields(kc, "plain", kv, 3, &err), 0);
	T_OIDC_EQ(dst, "plain", "id-token", "new-id");
	T_INT_EQ(kube_config_set_oidc_fields(kc, "nobody", kv, 1, &err), -1);
	T_STR_CONTAINS(err.message, "user 'nobody' not found");
out:
	rai_err_release(&err);
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
}

struct upd {
	int	 calls;
	char	*seen_id;
	int	 fail;
};

static int
upd_fn(void *ud, const struct kube_oidc_cfg *now, struct kube_oidc_kv *kv,
    size_t *n, struct rai_err *err)
{
	struct upd *u = ud;

	u->calls++;
	free(u->seen_id);
	u->seen_id = xstrdup(now->id_token ? now->id_token : "(none)");
	if (u->fail)
		return rai_err_set(err, RAI_E_AUTH, "refresh refused");
	kv[0].key = "id-token";
	kv[0].value = "id-2";
	kv[1].key = "refresh-token";
	kv[1].value = "rt-2";
	*n = 2;
	return 0;
}

TEST(update_oidc_sees_the_file_as_it_is_now)
{
	char *dst = tmp_path("config"), *text;
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	struct upd u = { 0 };

	write_text(dst, oidc_cfg_text);
	kc = load_path(dst);
	if (kc == NULL)
		goto out;
	/* Another process writes after we loaded: the callback sees that. */
	text = t_slurp(dst, NULL);
	*strstr(text, "old-id") = 'X';
	write_text(dst, text);
	free(text);
	T_INT_EQ(kube_config_update_oidc(kc, "u", upd_fn, &u, &err), 0);
	T_INT_EQ(u.calls, 1);
	T_STR_EQ(u.seen_id, "Xld-id");
	T_OIDC_EQ(dst, "u", "id-token", "id-2");
	T_OIDC_EQ(dst, "u", "refresh-token", "rt-2");
	T_OIDC_EQ(dst, "u", "x-keep", "kept");
	T_INT_EQ(count_names_with(".lock"), 0);
	/* A failing callback writes nothing and releases the lock. */
	u.fail = 1;
	T_INT_EQ(kube_config_update_oidc(kc, "u", upd_fn, &u, &err), -1);
	T_STR_EQ(err.message, "refresh refused");
	T_OIDC_EQ(dst, "u", "id-token", "id-2");
	T_INT_EQ(count_names_with(".lock"), 0);
	/* A user without an auth-provider: the callback sees no settings. */
	u.fail = 0;
	T_INT_EQ(kube_config_update_oidc(kc, "plain", upd_fn, &u, &err), 0);
	T_STR_EQ(u.seen_id, "(none)");
out:
	free(u.seen_id);
	rai_err_release(&err);
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
}

TEST(conn_names_the_file_of_its_user)
{
	char *dst = tmp_path("config");
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc;
	struct kube_conn c;

	write_text(dst, oidc_cfg_text);
	kc = load_path(dst);
	if (kc != NULL && kube_config_resolve(kc, &c, &err) == 0) {
		T_STR_EQ(c.user_file, dst);
		T_STR_EQ(c.oidc.refresh_token, "old-rt");
		kube_conn_release(&c);
	} else
		T_STR_EQ(err.message, "(no error expected)");
	rai_err_release(&err);
	kube_config_free(kc);
	clean_tmpdir();
	free(dst);
}

int
main(void)
{
	char *top;

	snprintf(tmpdir, sizeof(tmpdir), "%s/t_kube_config.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	top = realpath(t_fixture("kubeconfig"), NULL);
	if (top == NULL) {
		perror(t_fixture("kubeconfig"));
		return 1;
	}
	snprintf(fixdir, sizeof(fixdir), "%s", top);
	free(top);
	unsetenv("KUBECONFIG");

	RUN(token_context_and_defaults);
	RUN(namespace_from_context_and_override);
	RUN(relative_ca_file_and_token_file);
	RUN(ca_data_and_client_cert_files);
	RUN(insecure_tls_server_name_proxy_compression_and_basic);
	RUN(exec_fields);
	RUN(oidc_fields);
	RUN(no_user_and_precedence);
	RUN(cluster_and_user_overrides);
	RUN(context_listing_and_selection);
	RUN(kubeconfig_list_merges_first_wins);
	RUN(kubeconfig_flag_wins_and_must_exist);
	RUN(default_file_missing_is_empty);
	RUN(error_messages_name_file_and_piece);
	RUN(yaml11_booleans_are_accepted);
	RUN(unknown_context_flag);
	RUN(base64_tolerates_wrapping_and_missing_padding);
	RUN(oversized_certificate_is_refused);
	RUN(set_current_context_keeps_unknown_fields);
	RUN(set_namespace_and_oidc_fields);
	RUN(write_back_errors);
	RUN(write_back_rereads_under_the_lock);
	RUN(write_back_waits_for_a_lock);
	RUN(write_back_goes_to_the_defining_file);
	RUN(write_back_through_a_symlink);
	RUN(set_oidc_fields_in_one_write);
	RUN(update_oidc_sees_the_file_as_it_is_now);
	RUN(conn_names_the_file_of_its_user);
	clean_tmpdir();
	rmdir(tmpdir);
	return t_done();
}
