/*
 * kube_auth: the Authorization header for a resolved kubeconfig user.
 *
 * Exec credential plugins run with posix_spawnp and an argv built from
 * the kubeconfig (never a shell, never setenv: the child's environment
 * is an envp array). stdin is /dev/null because we never run a plugin
 * interactively; stderr is inherited so a plugin's messages reach the
 * user. stdout goes into a capped buffer, read under a deadline after
 * which the child is killed.
 *
 * RUNAI_EXEC_TIMEOUT (seconds) shortens the plugin deadline; the test
 * suite uses it, and a slow site may raise it.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/auth.h"
#include "kube/config.h"
#include "kube/oidc_refresh.h"
#include "kube/token.h"
#include "oidc/oidc.h"

#include "core/banned.h"

#define TOKEN_FILE_MAX		((size_t)64 << 10)
#define EXEC_OUT_MAX		((size_t)1 << 20)
#define EXEC_TIMEOUT_S		60
/* A plugin token this close to its expiry is renewed first. */
#define EXEC_EXPIRY_SKEW	10

extern char **environ;

struct kube_auth {
	enum kube_auth_kind	 kind;
	char			*token;		/* secret */
	char			*token_file;
	char			*username;
	char			*password;	/* secret */
	struct kube_exec_cfg	 exec;
	char			*exec_info;	/* KUBERNETES_EXEC_INFO value */
	char			*exec_token;	/* cached; secret */
	time_t			 exec_expiry;	/* 0 = valid for the process */
	struct kube_oidc_cfg	 oidc;		/* refresh renews id_token */
	int			 oidc_rejected;	/* invalidated after a 401 */
	char			*kc_file;	/* where the OIDC user lives */
	char			*kc_user;
	kube_oidc_refresh_fn	*refresh;
	void			*refresh_ud;
};

/* ---- copies ---- */

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/*
 * The plugin's view of the cluster (ExecCredential spec.cluster), for
 * plugins that set provideClusterInfo.
 */
static void
add_cluster_info(cJSON *spec, const struct kube_conn *c)
{
	cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
	char *ca;

	if (c->server != NULL)
		cJSON_AddStringToObject(cl, "server", c->server);
	if (c->tls_server_name != NULL)
		cJSON_AddStringToObject(cl, "tls-server-name",
		    c->tls_server_name);
	if (c->insecure)
		cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify");
	if (c->disable_compression)
		cJSON_AddTrueToObject(cl, "disable-compression");
	if (c->ca.len > 0) {
		ca = rai_base64_encode(c->ca.data, c->ca.len);
		cJSON_AddStringToObject(cl, "certificate-authority-data", ca);
		free(ca);
	}
	if (c->proxy_url != NULL)
		cJSON_AddStringToObject(cl, "proxy-url", c->proxy_url);
}

static char *
exec_info(const struct kube_conn *c)
{
	cJSON *root = cJSON_CreateObject(), *spec;
	char *s;

	cJSON_AddStringToObject(root, "kind", "ExecCredential");
	cJSON_AddStringToObject(root, "apiVersion", c->exec.api_version ?
	    c->exec.api_version : "");
	spec = cJSON_AddObjectToObject(root, "spec");
	cJSON_AddFalseToObject(spec, "interactive");
	if (c->exec.provide_cluster_info)
		add_cluster_info(spec, c);
	s = rai_json_print(root);
	cJSON_Delete(root);
	return s;
}

/* The default refresh: through the kubeconfig file, under its lock. */
static int
kubeconfig_refresh(void *ud, const struct kube_oidc_cfg *cfg, char **id,
    char **rt, struct rai_err *err)
{
	struct kube_auth *a = ud;

	return oidc_refresh_kubeconfig(a->kc_file, a->kc_user, cfg, id, rt,
	    err);
}

struct kube_auth *
kube_auth_new(const struct kube_conn *c)
{
	struct kube_auth *a = xcalloc(1, sizeof(*a));

	a->kind = c->auth;
	a->token = dup_or_null(c->token);
	a->token_file = dup_or_null(c->token_file);
	a->username = dup_or_null(c->username);
	a->password = dup_or_null(c->password);
	if (c->auth == KUBE_AUTH_EXEC) {
		kube_exec_cfg_copy(&a->exec, &c->exec);
		a->exec_info = exec_info(c);
	}
	if (c->auth == KUBE_AUTH_OIDC) {
		kube_oidc_cfg_copy(&a->oidc, &c->oidc);
		if (c->user_file != NULL && c->user != NULL) {
			a->kc_file = xstrdup(c->user_file);
			a->kc_user = xstrdup(c->user);
			kube_auth_set_oidc_refresh(a, kubeconfig_refresh, a);
		}
	}
	return a;
}

void
kube_auth_free(struct kube_auth *a)
{
	if (a == NULL)
		return;
	rai_free_secret(a->token);
	free(a->token_file);
	free(a->username);
	rai_free_secret(a->password);
	kube_exec_cfg_release(&a->exec);
	free(a->exec_info);
	rai_free_secret(a->exec_token);
	kube_oidc_cfg_release(&a->oidc);
	free(a->kc_file);
	free(a->kc_user);
	free(a);
}

void
kube_auth_set_oidc_refresh(struct kube_auth *a, kube_oidc_refresh_fn *fn,
    void *ud)
{
	a->refresh = fn;
	a->refresh_ud = ud;
}

void
kube_auth_invalidate(struct kube_auth *a)
{
	rai_free_secret(a->exec_token);
	a->exec_token = NULL;
	a->exec_expiry = 0;
	if (a->kind == KUBE_AUTH_OIDC)
		a->oidc_rejected = 1;
}

/* ---- static, file and basic ---- */

static int
bearer(const char *token, char **out)
{
	*out = xasprintf("Bearer %s", token);
	return 0;
}

static int
token_file_header(const struct kube_auth *a, char **out, struct rai_err *err)
{
	struct rai_buf b;
	char chunk[4096];
	const char *s;
	size_t len;
	ssize_t n;
	int fd, rc = -1;

	rai_buf_init(&b, TOKEN_FILE_MAX);
	fd = open(a->token_file, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		rai_err_errno(err, errno, "cannot read token file '%s'",
		    a->token_file);
		err->kind = RAI_E_AUTH;
		return -1;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			rai_err_errno(err, errno, "cannot read token file '%s'",
			    a->token_file);
			err->kind = RAI_E_AUTH;
			goto out;
		}
		if (n == 0)
			break;
		if (rai_buf_add(&b, chunk, (size_t)n) == -1) {
			rai_err_set(err, RAI_E_AUTH, "token file '%s' is "
			    "larger than %zu KiB", a->token_file,
			    TOKEN_FILE_MAX >> 10);
			goto out;
		}
	}
	/* Surrounding whitespace is not part of the token (client-go). */
	s = rai_buf_str(&b);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	len = strlen(s);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	if (len == 0) {
		rai_err_set(err, RAI_E_AUTH, "token file '%s' is empty",
		    a->token_file);
		goto out;
	}
	*out = xasprintf("Bearer %.*s", (int)len, s);
	rc = 0;
out:
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	rai_buf_release_secret(&b);
	return rc;
}

static int
basic_header(const struct kube_auth *a, char **out)
{
	char *pair, *enc;

	pair = xasprintf("%s:%s", a->username ? a->username : "",
	    a->password ? a->password : "");
	enc = rai_base64_encode(pair, strlen(pair));
	*out = xasprintf("Basic %s", enc);
	rai_free_secret(pair);
	rai_free_secret(enc);
	return 0;
}

/* ---- exec plugins ---- */

static int
exec_timeout(void)
{
	const char *v = getenv("RUNAI_EXEC_TIMEOUT");
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return EXEC_TIMEOUT_S;
	n = strtol(v, &end, 10);
	return (*end == '\0' && n > 0 && n <= 3600) ? (int)n : EXEC_TIMEOUT_S;
}

static int
env_name_in(const char *entry, char *const *list, const char *extra)
{
	size_t n = strcspn(entry, "=");
	size_t i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (strncmp(list[i], entry, n) == 0 && list[i][n] == '=')
			return 1;
	return strncmp(extra, entry, n) == 0 && extra[n] == '=';
}

/*
 * The parent's environment with the kubeconfig's env and
 * KUBERNETES_EXEC_INFO on top; the strings are borrowed except the
 * last, which the caller frees.
 */
static char **
exec_envp(const struct kube_auth *a, char **info)
{
	size_t n = 0, m = 0, i;
	char **envp;

	*info = xasprintf("KUBERNETES_EXEC_INFO=%s", a->exec_info);
	while (environ != NULL && environ[n] != NULL)
		n++;
	while (a->exec.env != NULL && a->exec.env[m] != NULL)
		m++;
	envp = xcalloc(n + m + 2, sizeof(*envp));
	n = 0;
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		if (!env_name_in(environ[i], a->exec.env, *info))
			envp[n++] = environ[i];
	for (i = 0; i < m; i++)
		envp[n++] = a->exec.env[i];
	envp[n] = *info;
	return envp;
}

static char **
exec_argv(const struct kube_auth *a)
{
	size_t n = 0, i;
	char **argv;

	while (a->exec.args != NULL && a->exec.args[n] != NULL)
		n++;
	argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = a->exec.command;
	for (i = 0; i < n; i++)
		argv[i + 1] = a->exec.args[i];
	return argv;
}

/* Reads the child's stdout to EOF; 1 on timeout, -1 over the cap. */
static int
read_until(int fd, struct rai_buf *out, long long deadline)
{
	char chunk[8192];
	struct pollfd pfd;
	long long left;
	ssize_t n;
	int r, rc = 0;

	for (;;) {
		left = deadline - rai_now_ms();
		if (left <= 0) {
			rc = 1;
			break;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, (int)left);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (rai_buf_add(out, chunk, (size_t)n) == -1) {
			rc = -1;
			break;
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	return rc;
}

/* Waits for pid until the deadline, then kills it; 1 when killed. */
static int
reap(pid_t pid, long long deadline, int *status)
{
	struct timespec ts = { 0, 10000000L };
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
		if (rai_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) == -1 && errno == EINTR)
				;
			return 1;
		}
		nanosleep(&ts, NULL);
	}
}

static int
spawn_error(const struct kube_auth *a, int e, struct rai_err *err)
{
	if (e == ENOENT) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' not found",
		    a->exec.command);
		if (a->exec.install_hint != NULL)
			rai_err_set_hint(err, "%s", a->exec.install_hint);
		return -1;
	}
	rai_err_set(err, RAI_E_AUTH, "cannot run exec plugin '%s': %s",
	    a->exec.command, strerror(e));
	err->sys_errno = e;
	return -1;
}

static int
exit_error(const struct kube_auth *a, int status, struct rai_err *err)
{
	if (WIFEXITED(status))
		return rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' failed "
		    "with exit status %d", a->exec.command,
		    WEXITSTATUS(status));
	return rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' was killed by "
	    "signal %d", a->exec.command, WIFSIGNALED(status) ?
	    WTERMSIG(status) : 0);
}

/*
 * Whether cmd can be run, found through PATH as posix_spawnp would. A
 * posix_spawnp built on fork + exec (valgrind's, some libcs) reports a
 * missing command only as exit status 127, so look first to be able to
 * say "not found" and show the installHint.
 */
static int
command_errno(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *colon;
	char *full;
	int e = ENOENT, ok, n;

	if (strchr(cmd, '/') != NULL)
		return access(cmd, X_OK) == 0 ? 0 : errno;
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon ? (int)(colon - p) : (int)strlen(p);
		/* An empty PATH entry is the current directory. */
		full = n == 0 ? xasprintf("./%s", cmd) :
		    xasprintf("%.*s/%s", n, p, cmd);
		ok = access(full, X_OK) == 0;
		if (!ok && errno == EACCES)
			e = EACCES;
		free(full);
		if (ok)
			return 0;
		if (colon == NULL)
			return e;
	}
}

/* Runs the plugin and collects its stdout into out. */
static int
exec_run(const struct kube_auth *a, struct rai_buf *out, struct rai_err *err)
{
	posix_spawn_file_actions_t fa;
	char **argv = exec_argv(a), **envp, *info;
	long long deadline;
	int pfd[2], e, r, status = 0, rc = -1, timeout = exec_timeout();
	pid_t pid;

	envp = exec_envp(a, &info);
	if ((e = command_errno(a->exec.command)) != 0) {
		spawn_error(a, e, err);
		goto out_free;
	}
	if (pipe(pfd) == -1) {
		rai_err_errno(err, errno, "cannot run exec plugin '%s'",
		    a->exec.command);
		err->kind = RAI_E_AUTH;
		goto out_free;
	}
	/* Our ends stay out of the child; dup2 clears it on fd 1. */
	(void)fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	rai_log(RAI_LOG_DEBUG, "running exec credential plugin %s",
	    a->exec.command);
	e = posix_spawnp(&pid, a->exec.command, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (e != 0) {
		close(pfd[0]);
		spawn_error(a, e, err);
		goto out_free;
	}
	deadline = rai_now_ms() + (long long)timeout * 1000;
	r = read_until(pfd[0], out, deadline);
	close(pfd[0]);
	if (r != 0)
		kill(pid, SIGKILL);
	switch (reap(pid, deadline, &status)) {
	case 1:
		if (r == 0)
			r = 1;
		break;
	case -1:
		rai_err_errno(err, errno, "cannot wait for exec plugin '%s'",
		    a->exec.command);
		err->kind = RAI_E_AUTH;
		goto out_free;
	}
	if (r == 1)
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' did not finish "
		    "within %d s", a->exec.command, timeout);
	else if (r == -1)
		rai_err_set(err, RAI_E_AUTH, "output of exec plugin '%s' "
		    "exceeds %zu MiB", a->exec.command, EXEC_OUT_MAX >> 20);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		exit_error(a, status, err);
	else
		rc = 0;
out_free:
	free(argv);
	free(envp);
	free(info);
	return rc;
}

static int
two_digits(const char *p, int *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	*v = (p[0] - '0') * 10 + (p[1] - '0');
	return 0;
}

/* RFC 3339: 2024-01-02T03:04:05[.frac](Z|+hh:mm|-hh:mm). */
static int
parse_rfc3339(const char *s, time_t *out)
{
	struct tm tm;
	int c, y, mo, d, h, mi, se, oh, om, sign;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (strlen(s) < 20 || two_digits(s, &c) == -1 ||
	    two_digits(s + 2, &y) == -1 || s[4] != '-' ||
	    two_digits(s + 5, &mo) == -1 || s[7] != '-' ||
	    two_digits(s + 8, &d) == -1 || (s[10] != 'T' && s[10] != 't') ||
	    two_digits(s + 11, &h) == -1 || s[13] != ':' ||
	    two_digits(s + 14, &mi) == -1 || s[16] != ':' ||
	    two_digits(s + 17, &se) == -1)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    se > 60)
		return -1;
	s += 19;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	oh = om = 0;
	sign = 0;
	if ((*s == 'Z' || *s == 'z') && s[1] == '\0')
		;
	else if ((*s == '+' || *s == '-') && two_digits(s + 1, &oh) == 0 &&
	    s[3] == ':' && two_digits(s + 4, &om) == 0 && s[6] == '\0')
		sign = *s == '+' ? 1 : -1;
	else
		return -1;
	tm.tm_year = c * 100 + y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = t - sign * ((time_t)oh * 3600 + (time_t)om * 60);
	return 0;
}

/* ExecCredential -> token and expiry. */
static int
exec_parse(const struct kube_auth *a, const struct rai_buf *out,
    char **token, time_t *expiry, struct rai_err *err)
{
	const char *cmd = a->exec.command, *kind, *api, *tok, *exp;
	const cJSON *status;
	cJSON *root;
	int rc = -1;

	root = cJSON_ParseWithLength(out->data ? out->data : "", out->len);
	if (!cJSON_IsObject(root)) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' did not print "
		    "an ExecCredential (invalid JSON)", cmd);
		goto out;
	}
	kind = rai_json_str(root, "kind");
	api = rai_json_str(root, "apiVersion");
	status = rai_json_child(root, "status");
	if (kind == NULL || strcmp(kind, "ExecCredential") != 0) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' printed kind "
		    "'%s', not ExecCredential", cmd, kind ? kind : "");
		goto out;
	}
	if (api == NULL || strcmp(api, a->exec.api_version) != 0) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' answered with "
		    "apiVersion '%s', but the kubeconfig asks for '%s'", cmd,
		    api ? api : "", a->exec.api_version);
		goto out;
	}
	if (!cJSON_IsObject(status)) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' returned no "
		    "status", cmd);
		goto out;
	}
	tok = rai_json_str(status, "token");
	if (tok == NULL || *tok == '\0') {
		if (rai_json_str(status, "clientCertificateData") != NULL)
			rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' "
			    "returned a client certificate; only plugins that "
			    "return a token are supported", cmd);
		else
			rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' "
			    "returned no token", cmd);
		goto out;
	}
	*expiry = 0;
	exp = rai_json_str(status, "expirationTimestamp");
	if (exp != NULL && parse_rfc3339(exp, expiry) == -1) {
		rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' returned an "
		    "invalid expirationTimestamp '%s'", cmd, exp);
		goto out;
	}
	*token = xstrdup(tok);
	rc = 0;
out:
	rai_json_wipe(root);
	cJSON_Delete(root);
	return rc;
}

static int
exec_header(struct kube_auth *a, char **out, struct rai_err *err)
{
	struct rai_buf buf;
	char *token = NULL;
	time_t expiry = 0, now = time(NULL);
	int rc;

	if (a->exec_token != NULL && (a->exec_expiry == 0 ||
	    a->exec_expiry > now + EXEC_EXPIRY_SKEW))
		return bearer(a->exec_token, out);
	rai_free_secret(a->exec_token);
	a->exec_token = NULL;
	if (a->exec.interactive_mode != NULL &&
	    strcmp(a->exec.interactive_mode, "Always") == 0)
		return rai_err_set(err, RAI_E_AUTH, "exec plugin '%s' needs an "
		    "interactive terminal (interactiveMode: Always), which is "
		    "not supported", a->exec.command);
	rai_buf_init(&buf, EXEC_OUT_MAX);
	rc = exec_run(a, &buf, err);
	if (rc == 0)
		rc = exec_parse(a, &buf, &token, &expiry, err);
	rai_buf_release_secret(&buf);
	if (rc == -1)
		return -1;
	a->exec_token = token;
	a->exec_expiry = expiry;
	rai_log(RAI_LOG_DEBUG, "exec plugin %s: token %s", a->exec.command,
	    expiry ? "cached until its expirationTimestamp" :
	    "cached for the process (no expirationTimestamp)");
	return bearer(a->exec_token, out);
}

/* ---- OIDC ---- */

static int
oidc_refresh(struct kube_auth *a, struct rai_err *err)
{
	char *id = NULL, *rt = NULL;

	if (a->refresh(a->refresh_ud, &a->oidc, &id, &rt, err) == -1) {
		rai_free_secret(id);
		rai_free_secret(rt);
		return -1;
	}
	if (id == NULL || *id == '\0') {
		rai_free_secret(id);
		rai_free_secret(rt);
		return rai_err_set(err, RAI_E_AUTH, "the OIDC refresh returned "
		    "no id-token; run 'runai login'");
	}
	rai_free_secret(a->oidc.id_token);
	a->oidc.id_token = id;
	if (rt != NULL) {
		rai_free_secret(a->oidc.refresh_token);
		a->oidc.refresh_token = rt;
	}
	a->oidc_rejected = 0;
	rai_log(RAI_LOG_DEBUG, "refreshed the OIDC id-token");
	return 0;
}

/*
 * The refresh could not reach the identity provider: one line saying
 * whose token ran out when, which provider is down, and the way out
 * (the refresh token is kept, so nothing is lost meanwhile). The
 * transport's own words stay in parentheses.
 */
static void
explain_provider_down(const struct kube_auth *a, struct rai_err *err)
{
	long long exp = a->oidc.id_token != NULL ?
	    kube_jwt_exp(a->oidc.id_token) : -1;
	char when[32] = "", *cause = err->message;
	time_t t = (time_t)exp;
	struct tm tm;

	if (exp > 0 && gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof(when), " at %Y-%m-%dT%H:%M:%SZ", &tm);
	err->message = NULL;
	rai_err_set(err, RAI_E_AUTH, "the id-token of user '%s' %s%s and the "
	    "identity provider at %s cannot be reached (%s); run 'runai "
	    "login' when it is back", a->kc_user != NULL ? a->kc_user : "?",
	    a->oidc_rejected ? "was refused by the cluster" : "expired",
	    a->oidc_rejected ? "" : when, a->oidc.issuer_url != NULL ?
	    a->oidc.issuer_url : "?", cause != NULL ? cause : "?");
	free(cause);
	free(err->hint);
	err->hint = NULL;
}

static int
oidc_header(struct kube_auth *a, char **out, struct rai_err *err)
{
	const char *why;
	int fresh;

	fresh = a->oidc.id_token != NULL && !a->oidc_rejected &&
	    kube_oidc_token_fresh(a->oidc.id_token, time(NULL));
	if (fresh)
		return bearer(a->oidc.id_token, out);
	if (a->refresh != NULL && a->oidc.refresh_token != NULL) {
		if (oidc_refresh(a, err) == -1) {
			if (err->kind == RAI_E_NET)
				explain_provider_down(a, err);
			return -1;
		}
		return bearer(a->oidc.id_token, out);
	}
	why = a->oidc.id_token == NULL ? "there is no id-token in the "
	    "kubeconfig" : a->oidc_rejected ? "the server rejected the "
	    "id-token in the kubeconfig" : "the id-token in the kubeconfig "
	    "has expired";
	if (a->oidc.refresh_token == NULL)
		return rai_err_set(err, RAI_E_AUTH, "%s and there is no "
		    "refresh-token; run 'runai login'", why);
	return rai_err_set(err, RAI_E_AUTH, "%s; run 'runai login'", why);
}

int
kube_auth_header(struct kube_auth *a, char **out, struct rai_err *err)
{
	*out = NULL;
	switch (a->kind) {
	case KUBE_AUTH_TOKEN:
		return bearer(a->token, out);
	case KUBE_AUTH_TOKEN_FILE:
		return token_file_header(a, out, err);
	case KUBE_AUTH_BASIC:
		return basic_header(a, out);
	case KUBE_AUTH_EXEC:
		return exec_header(a, out, err);
	case KUBE_AUTH_OIDC:
		return oidc_header(a, out, err);
	case KUBE_AUTH_NONE:
	case KUBE_AUTH_CERT:
		break;
	}
	return 0;
}
