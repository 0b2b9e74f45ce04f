/*
 * Unit tests of kube_auth: static, file and basic credentials, exec
 * plugins (tests/fixtures/exec-plugin/cred.sh, spawned from an argv),
 * token caching and expiry, OIDC id-token expiry and the refresh hook,
 * and JWT exp parsing.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "kube/auth.h"
#include "kube/config.h"

#include "harness.h"
#include "kube/token.h"

static char tmpdir[PATH_MAX];
static char plugin[PATH_MAX];

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

/* A one-context kubeconfig whose user is the given flow mapping. */
static struct kube_auth *
auth_for(const char *user)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_config *kc = NULL;
	struct kube_auth *a = NULL;
	struct kube_conn c;
	char *y;

	y = xasprintf("current-context: x\n"
	    "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
	    "clusters: [{name: c, cluster: {server: 'https://h:6443', "
	    "certificate-authority-data: QUJD, tls-server-name: tsn, "
	    "disable-compression: true}}]\n"
	    "users: [{name: u, user: %s}]\n", user);
	if (kube_config_load_buffer(&kc, y, strlen(y), "/h/.kube/config",
	    &err) == -1 || kube_config_resolve(kc, &c, &err) == -1) {
		T_STR_EQ(err.message, "(no error expected)");
		rai_err_release(&err);
	} else {
		a = kube_auth_new(&c);
		/* The auth keeps its own copies. */
		kube_conn_release(&c);
	}
	kube_config_free(kc);
	free(y);
	return a;
}

/* An exec user running cred.sh with args; COUNT_FILE in tmpdir. */
static struct kube_auth *
exec_auth(const char *args, const char *extra)
{
	struct kube_auth *a;
	char *count = tmp_path("count"), *u;

	u = xasprintf("{exec: {apiVersion: client.authentication.k8s.io/v1, "
	    "command: '%s', args: %s, env: [{name: COUNT_FILE, value: '%s'}, "
	    "{name: EXTRA, value: from-config}], installHint: 'get cred.sh'"
	    "%s}}", plugin, args, count,
	    extra ? extra : "");
	a = auth_for(u);
	free(u);
	free(count);
	return a;
}

/* The header, or the error message prefixed "ERR:". Caller frees. */
static char *
header(struct kube_auth *a, struct rai_err *err)
{
	char *h = NULL;

	if (a == NULL)
		return xstrdup("(no auth)");
	if (kube_auth_header(a, &h, err) == -1) {
		T_NULL(h);
		return xasprintf("ERR:%s", err->message);
	}
	return h != NULL ? h : xstrdup("(none)");
}

static char *
slurp_tmp(const char *name)
{
	char *p = tmp_path(name), *text = t_slurp(p, NULL);

	free(p);
	return text;
}

TEST(static_token_cert_and_none)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *h;

	a = auth_for("{token: static-abc}");
	h = header(a, &err);
	T_STR_EQ(h, "Bearer static-abc");
	free(h);
	kube_auth_invalidate(a);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer static-abc");
	free(h);
	kube_auth_free(a);
	a = auth_for("{client-certificate-data: QUJD, client-key-data: QUJD}");
	h = header(a, &err);
	T_STR_EQ(h, "(none)");
	free(h);
	kube_auth_free(a);
	a = auth_for("{}");
	h = header(a, &err);
	T_STR_EQ(h, "(none)");
	free(h);
	kube_auth_free(a);
	kube_auth_free(NULL);
}

TEST(basic_auth)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a = auth_for("{username: admin, password: "
	    "'s3cret:pw'}");
	char *h = header(a, &err);

	T_STR_EQ(h, "Basic YWRtaW46czNjcmV0OnB3");
	free(h);
	kube_auth_free(a);
}

TEST(token_file_is_read_on_each_call)
{
	struct rai_err err = RAI_ERR_INIT;
	char *tf = tmp_path("token"), *u, *h, *want;
	struct kube_auth *a;
	FILE *f;
	size_t i;

	write_text(tf, "  tok-1 \n");
	u = xasprintf("{tokenFile: '%s'}", tf);
	a = auth_for(u);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer tok-1");
	free(h);
	write_text(tf, "tok-2\r\n");
	h = header(a, &err);
	T_STR_EQ(h, "Bearer tok-2");
	free(h);
	write_text(tf, "\n");
	h = header(a, &err);
	want = xasprintf("ERR:token file '%s' is empty", tf);
	T_STR_EQ(h, want);
	T_INT_EQ(err.kind, RAI_E_AUTH);
	free(want);
	free(h);
	f = fopen(tf, "w");
	for (i = 0; i < 65 * 1024; i++)
		fputc('t', f);
	fclose(f);
	h = header(a, &err);
	want = xasprintf("ERR:token file '%s' is larger than 64 KiB", tf);
	T_STR_EQ(h, want);
	free(want);
	free(h);
	unlink(tf);
	h = header(a, &err);
	want = xasprintf("ERR:cannot read token file '%s': No such file or "
	    "directory", tf);
	T_STR_EQ(h, want);
	T_INT_EQ(err.kind, RAI_E_AUTH);
	free(want);
	free(h);
	kube_auth_free(a);
	rai_err_release(&err);
	free(u);
	free(tf);
}

TEST(exec_plugin_token_is_cached)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	cJSON *info;
	char *h, *s;

	setenv("EXTRA", "from-parent", 1);
	setenv("RUNAI_TEST_PARENT", "seen", 1);
	a = exec_auth("[token, '2099-01-01T00:00:00Z']",
	    ", provideClusterInfo: true");
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-1");
	free(h);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-1");
	free(h);
	s = slurp_tmp("count");
	T_STR_EQ(s, "1\n");
	free(s);
	/* argv, stdin, env as built by us, not by a shell. */
	s = slurp_tmp("count.args");
	T_STR_EQ(s, "token\n2099-01-01T00:00:00Z\n");
	free(s);
	s = slurp_tmp("count.stdin");
	T_STR_EQ(s, "");
	free(s);
	s = slurp_tmp("count.env");
	T_STR_EQ(s, "EXTRA=from-config\n");
	free(s);
	s = slurp_tmp("count.info");
	info = s ? cJSON_Parse(s) : NULL;
	T_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(info, "kind")),
	    "ExecCredential");
	T_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(info, "apiVersion")),
	    "client.authentication.k8s.io/v1");
	T_OK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(info,
	    "spec"), "interactive")));
	T_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(info, "spec"), "cluster"), "server")),
	    "https://h:6443");
	T_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(info, "spec"), "cluster"),
	    "certificate-authority-data")), "QUJD");
	T_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(info, "spec"), "cluster"), "tls-server-name")),
	    "tsn");
	T_OK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(info, "spec"), "cluster"),
	    "disable-compression")));
	cJSON_Delete(info);
	free(s);
	/* After a 401 the plugin runs again. */
	kube_auth_invalidate(a);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-2");
	free(h);
	s = slurp_tmp("count");
	T_STR_EQ(s, "2\n");
	free(s);
	kube_auth_free(a);
	clean_tmpdir();
	unsetenv("EXTRA");
}

TEST(exec_plugin_expired_token_reruns)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *h, *s;

	a = exec_auth("[token, '2000-01-01T00:00:00+02:00']", NULL);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-1");
	free(h);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-2");
	free(h);
	kube_auth_free(a);
	clean_tmpdir();

	/* No expirationTimestamp: valid for the whole process. */
	a = exec_auth("[noexpiry]", NULL);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-1");
	free(h);
	h = header(a, &err);
	T_STR_EQ(h, "Bearer exec-token-1");
	free(h);
	s = slurp_tmp("count");
	T_STR_EQ(s, "1\n");
	free(s);
	/* Without provideClusterInfo there is no spec.cluster. */
	s = slurp_tmp("count.info");
	T_STR_CONTAINS(s, "\"spec\":{\"interactive\":false}}");
	free(s);
	kube_auth_free(a);
	clean_tmpdir();
}

TEST(exec_plugin_failures)
{
	static const struct {
		const char	*args;
		const char	*message;	/* after the plugin name */
	} cases[] = {
		{ "[fail]", "failed with exit status 3" },
		{ "[badjson]", "did not print an ExecCredential (invalid "
		    "JSON)" },
		{ "[wrongapi]", "answered with apiVersion "
		    "'client.authentication.k8s.io/v1beta1', but the "
		    "kubeconfig asks for 'client.authentication.k8s.io/v1'" },
		{ "[cert]", "returned a client certificate; only plugins that "
		    "return a token are supported" },
		{ "[badtime]", "returned an invalid expirationTimestamp "
		    "'tomorrow'" },
		{ "[nostatus]", "returned no status" },
		{ "[notoken]", "returned no token" },
		{ "[silent]", NULL },
		{ NULL, NULL }
	};
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *h, *want;
	size_t i;

	for (i = 0; cases[i].args != NULL; i++) {
		a = exec_auth(cases[i].args, NULL);
		h = header(a, &err);
		if (cases[i].message == NULL)
			want = xasprintf("ERR:exec plugin '%s' did not print "
			    "an ExecCredential (invalid JSON)", plugin);
		else
			want = xasprintf("ERR:exec plugin '%s' %s", plugin,
			    cases[i].message);
		T_STR_EQ(h, want);
		T_INT_EQ(err.kind, RAI_E_AUTH);
		free(want);
		free(h);
		kube_auth_free(a);
	}
	a = exec_auth("[big]", NULL);
	h = header(a, &err);
	want = xasprintf("ERR:output of exec plugin '%s' exceeds 1 MiB",
	    plugin);
	T_STR_EQ(h, want);
	free(want);
	free(h);
	kube_auth_free(a);
	a = exec_auth("[token, x]", ", interactiveMode: Always");
	h = header(a, &err);
	T_STR_CONTAINS(h, "needs an interactive terminal");
	free(h);
	kube_auth_free(a);
	rai_err_release(&err);
	clean_tmpdir();
}

TEST(exec_plugin_not_found_gives_install_hint)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *h;

	a = auth_for("{exec: {apiVersion: v1, command: /nonexistent/plugin, "
	    "installHint: 'install it with: apt install plugin'}}");
	h = header(a, &err);
	T_STR_EQ(h, "ERR:exec plugin '/nonexistent/plugin' not found");
	T_INT_EQ(err.kind, RAI_E_AUTH);
	T_STR_EQ(err.hint, "install it with: apt install plugin");
	free(h);
	kube_auth_free(a);
	a = auth_for("{exec: {apiVersion: v1, command: runai-no-such-plugin}}");
	h = header(a, &err);
	T_STR_EQ(h, "ERR:exec plugin 'runai-no-such-plugin' not found");
	T_NULL(err.hint);
	free(h);
	kube_auth_free(a);
	rai_err_release(&err);
}

TEST(exec_plugin_timeout_kills_it)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	time_t t0;
	char *h, *want;

	setenv("RUNAI_EXEC_TIMEOUT", "1", 1);
	a = exec_auth("[sleep]", NULL);
	t0 = time(NULL);
	h = header(a, &err);
	want = xasprintf("ERR:exec plugin '%s' did not finish within 1 s",
	    plugin);
	T_STR_EQ(h, want);
	T_OK(time(NULL) - t0 < 10);
	free(want);
	free(h);
	kube_auth_free(a);
	unsetenv("RUNAI_EXEC_TIMEOUT");
	rai_err_release(&err);
	clean_tmpdir();
}

/* ---- JWT and OIDC ---- */

static void
b64url(const char *in, char *out)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr"
	    "stuvwxyz0123456789-_";
	size_t n = strlen(in), i, o = 0;
	unsigned v;

	for (i = 0; i < n; i += 3) {
		v = (unsigned char)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)in[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)in[i + 2];
		out[o++] = tbl[(v >> 18) & 63];
		out[o++] = tbl[(v >> 12) & 63];
		if (i + 1 < n)
			out[o++] = tbl[(v >> 6) & 63];
		if (i + 2 < n)
			out[o++] = tbl[v & 63];
	}
	out[o] = '\0';
}

/* header.payload.signature with the given claims. */
static char *
make_jwt(const char *claims)
{
	char p[1024];

	b64url(claims, p);
	return xasprintf("eyJhbGciOiJSUzI1NiJ9.%s.c2lnbmF0dXJl", p);
}

static char *
jwt_exp_in(long long secs)
{
	char claims[128];

	snprintf(claims, sizeof(claims), "{\"sub\":\"me\",\"exp\":%lld}",
	    (long long)time(NULL) + secs);
	return make_jwt(claims);
}

TEST(jwt_exp_parsing)
{
	static const struct {
		const char	*claims;
		long long	 exp;
	} cases[] = {
		{ "{\"exp\":4102444800}", 4102444800LL },
		{ "{\"exp\":1700000000.9,\"iat\":1}", 1700000000LL },
		{ "{\"exp\":\"4102444800\"}", -1 },
		{ "{\"iat\":1}", -1 },
		{ "{\"exp\":-5}", -1 },
		{ "{\"exp\":1e300}", -1 },
		{ "[1,2]", -1 },
		{ "not json", -1 },
		{ "", -1 },
		{ NULL, 0 }
	};
	char *j;
	size_t i;

	for (i = 0; cases[i].claims != NULL; i++) {
		j = make_jwt(cases[i].claims);
		T_INT_EQ(kube_jwt_exp(j), cases[i].exp);
		free(j);
	}
	/* Padding is tolerated; a standard-alphabet payload too. */
	T_INT_EQ(kube_jwt_exp("a.eyJleHAiOjQxMDI0NDQ4MDB9.s"), 4102444800LL);
	T_INT_EQ(kube_jwt_exp("a.eyJleHAiOjQxMDI0NDQ4MDB9==.s"), 4102444800LL);
	T_INT_EQ(kube_jwt_exp(NULL), -1);
	T_INT_EQ(kube_jwt_exp(""), -1);
	T_INT_EQ(kube_jwt_exp("abc"), -1);
	T_INT_EQ(kube_jwt_exp("a.b"), -1);
	T_INT_EQ(kube_jwt_exp("a.eyJleHAiOjQxMDI0NDQ4MDB9.s.x.y"), -1);
	T_INT_EQ(kube_jwt_exp("a.!!!!.s"), -1);
	T_INT_EQ(kube_jwt_exp("a.e.s"), -1);
	T_INT_EQ(kube_jwt_exp("..."), -1);
	T_INT_EQ(kube_jwt_exp(".."), -1);
}

static struct kube_auth *
oidc_auth(const char *id_token, const char *refresh_token)
{
	struct kube_auth *a;
	char *u;

	u = xasprintf("{auth-provider: {name: oidc, config: {client-id: runai, "
	    "idp-issuer-url: 'https://idp.example'%s%s%s%s%s%s}}}",
	    id_token ? ", id-token: '" : "", id_token ? id_token : "",
	    id_token ? "'" : "", refresh_token ? ", refresh-token: '" : "",
	    refresh_token ? refresh_token : "", refresh_token ? "'" : "");
	a = auth_for(u);
	free(u);
	/* No refresh through the (absent) kubeconfig file unless a test asks. */
	if (a != NULL)
		kube_auth_set_oidc_refresh(a, NULL, NULL);
	return a;
}

struct refresher {
	int	 calls;
	int	 fail;
	char	*seen_refresh;	/* the refresh token it was given */
	char	*next_id;
};

static int
refresh_hook(void *ud, const struct kube_oidc_cfg *cfg, char **id_token,
    char **refresh_token, struct rai_err *err)
{
	struct refresher *r = ud;

	r->calls++;
	free(r->seen_refresh);
	r->seen_refresh = xstrdup(cfg->refresh_token ? cfg->refresh_token :
	    "(none)");
	if (r->fail)
		return rai_err_set(err, RAI_E_AUTH, "refresh failed: "
		    "invalid_grant");
	*id_token = xstrdup(r->next_id);
	*refresh_token = xasprintf("rt-%d", r->calls + 1);
	return 0;
}

TEST(oidc_fresh_and_expired_tokens)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *fresh = jwt_exp_in(3600), *stale = jwt_exp_in(5);
	char *h, *want;

	a = oidc_auth(fresh, NULL);
	h = header(a, &err);
	want = xasprintf("Bearer %s", fresh);
	T_STR_EQ(h, want);
	free(want);
	free(h);
	kube_auth_free(a);

	/* exp within 10 s counts as expired. */
	a = oidc_auth(stale, NULL);
	h = header(a, &err);
	T_STR_EQ(h, "ERR:the id-token in the kubeconfig has expired and there "
	    "is no refresh-token; run 'runai login'");
	T_INT_EQ(err.kind, RAI_E_AUTH);
	free(h);
	kube_auth_free(a);

	a = oidc_auth(stale, "rt-1");
	h = header(a, &err);
	T_STR_EQ(h, "ERR:the id-token in the kubeconfig has expired; run "
	    "'runai login'");
	free(h);
	kube_auth_free(a);

	a = oidc_auth(NULL, NULL);
	h = header(a, &err);
	T_STR_EQ(h, "ERR:there is no id-token in the kubeconfig and there is "
	    "no refresh-token; run 'runai login'");
	free(h);
	kube_auth_free(a);

	a = oidc_auth("not-a-jwt", NULL);
	h = header(a, &err);
	T_STR_CONTAINS(h, "ERR:the id-token in the kubeconfig has expired");
	free(h);
	kube_auth_free(a);
	rai_err_release(&err);
	free(fresh);
	free(stale);
}

TEST(oidc_refresh_hook)
{
	struct refresher r = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct kube_auth *a;
	char *stale = jwt_exp_in(-60), *h, *want;

	r.next_id = jwt_exp_in(3600);
	a = oidc_auth(stale, "rt-1");
	kube_auth_set_oidc_refresh(a, refresh_hook, &r);
	want = xasprintf("Bearer %s", r.next_id);
	h = header(a, &err);
	T_STR_EQ(h, want);
	free(h);
	T_INT_EQ(r.calls, 1);
	T_STR_EQ(r.seen_refresh, "rt-1");
	/* The refreshed token is used while fresh. */
	h = header(a, &err);
	T_STR_EQ(h, want);
	free(h);
	T_INT_EQ(r.calls, 1);
	/* A 401 forces a refresh with the rotated refresh token. */
	kube_auth_invalidate(a);
	h = header(a, &err);
	T_STR_EQ(h, want);
	free(h);
	T_INT_EQ(r.calls, 2);
	T_STR_EQ(r.seen_refresh, "rt-2");
	/* A failing refresh is the caller's error. */
	kube_auth_invalidate(a);
	r.fail = 1;
	h = header(a, &err);
	T_STR_EQ(h, "ERR:refresh failed: invalid_grant");
	free(h);
	kube_auth_free(a);

	/* Rejected by the server and no hook: say so. */
	a = oidc_auth(r.next_id, NULL);
	kube_auth_invalidate(a);
	h = header(a, &err);
	T_STR_EQ(h, "ERR:the server rejected the id-token in the kubeconfig "
	    "and there is no refresh-token; run 'runai login'");
	free(h);
	kube_auth_free(a);
	rai_err_release(&err);
	free(want);
	free(stale);
	free(r.next_id);
	free(r.seen_refresh);
}

TEST(oidc_token_freshness_skew)
{
	char claims[160], *t;
	time_t now = time(NULL);

	/* no iat: 30 s skew */
	snprintf(claims, sizeof(claims), "{\"exp\":%lld}", (long long)now + 31);
	t = make_jwt(claims);
	T_INT_EQ(kube_oidc_token_fresh(t, now), 1);
	free(t);
	snprintf(claims, sizeof(claims), "{\"exp\":%lld}", (long long)now + 29);
	t = make_jwt(claims);
	T_INT_EQ(kube_oidc_token_fresh(t, now), 0);
	free(t);
	/* a 5 s token: a fifth of its life (1 s), not 30 s */
	snprintf(claims, sizeof(claims), "{\"iat\":%lld,\"exp\":%lld}",
	    (long long)now - 2, (long long)now + 3);
	t = make_jwt(claims);
	T_INT_EQ(kube_oidc_token_fresh(t, now), 1);
	T_INT_EQ(kube_oidc_token_fresh(t, now + 2), 0);
	free(t);
	T_INT_EQ(kube_oidc_token_fresh("junk", now), 0);
	T_INT_EQ(kube_oidc_token_fresh(NULL, now), 0);
}

/* Without a hook of its own, an OIDC user refreshes through its file. */
TEST(oidc_default_refresh_uses_the_kubeconfig)
{
	struct rai_err err = RAI_ERR_INIT;
	char *stale = jwt_exp_in(5), *u, *h;
	struct kube_auth *a;

	u = xasprintf("{auth-provider: {name: oidc, config: {client-id: runai, "
	    "idp-issuer-url: 'https://idp.example', id-token: '%s', "
	    "refresh-token: rt}}}", stale);
	a = auth_for(u);
	h = header(a, &err);
	/* auth_for's kubeconfig exists only in memory: the refresh says so */
	T_STR_CONTAINS(h, "ERR:");
	T_STR_CONTAINS(h, "/h/.kube/config");
	free(h);
	kube_auth_free(a);
	free(u);
	free(stale);
	rai_err_release(&err);
}

int
main(void)
{
	char *p;

	snprintf(tmpdir, sizeof(tmpdir), "%s/t_kube_auth.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	p = realpath(t_fixture("exec-plugin/cred.sh"), NULL);
	if (p == NULL) {
		perror(t_fixture("exec-plugin/cred.sh"));
		return 1;
	}
	snprintf(plugin, sizeof(plugin), "%s", p);
	free(p);
	unsetenv("RUNAI_EXEC_TIMEOUT");

	RUN(static_token_cert_and_none);
	RUN(basic_auth);
	RUN(token_file_is_read_on_each_call);
	RUN(exec_plugin_token_is_cached);
	RUN(exec_plugin_expired_token_reruns);
	RUN(exec_plugin_failures);
	RUN(exec_plugin_not_found_gives_install_hint);
	RUN(exec_plugin_timeout_kills_it);
	RUN(jwt_exp_parsing);
	RUN(oidc_fresh_and_expired_tokens);
	RUN(oidc_refresh_hook);
	RUN(oidc_token_freshness_skew);
	RUN(oidc_default_refresh_uses_the_kubeconfig);
	clean_tmpdir();
	rmdir(tmpdir);
	return t_done();
}
