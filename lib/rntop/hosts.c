/*
 * rntop_hosts: host specs, hostfiles, ssh -G, known_hosts lines,
 * fingerprints, the remote command and backoff. See rntop_hosts.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/time.h"
#include "rntop/hosts.h"
#include "rntop/owner.h"

#include "core/banned.h"

extern char **environ;

#define SSHG_OUT_MAX	((size_t)256 << 10)

static int
name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/* Host and user names: name_char only, never a leading '-' (an option). */
static int
name_ok(const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > max || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!name_char((unsigned char)s[i]))
			return 0;
	return 1;
}

int
rntop_host_name_ok(const char *s)
{
	return name_ok(s, RNTOP_HOST_NAME_MAX);
}

/* An IPv6 literal as written inside brackets: hex digits, ':' and '.'. */
static int
v6_ok(const char *s, size_t n)
{
	size_t i;

	if (n < 2 || n > 45)
		return 0;
	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		    (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
			return 0;
	}
	return 1;
}

int
rntop_user_name_ok(const char *s)
{
	return name_ok(s, RNTOP_USER_MAX);
}

/* A port number: 1 to 65535, digits only; -1 otherwise. */
static int
parse_port(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

int
rntop_target_parse(const char *spec, struct rntop_target *t,
    struct rai_err *err)
{
	const char *at, *hs, *colon = NULL;
	char *user = NULL, *host = NULL;
	int port = 0;
	size_t hn;

	if (spec[0] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "empty host name");
	at = strrchr(spec, '@');
	if (at != NULL) {
		user = xstrndup(spec, (size_t)(at - spec));
		if (!rntop_user_name_ok(user))
			goto bad_user;
	}
	hs = at ? at + 1 : spec;
	if (hs[0] == '[') {
		const char *close = strchr(hs, ']');

		if (close == NULL || !v6_ok(hs + 1, (size_t)(close - hs - 1)))
			goto bad_host;
		host = xstrndup(hs + 1, (size_t)(close - hs - 1));
		if (close[1] == ':')
			colon = close + 1;
		else if (close[1] != '\0')
			goto bad_host;
	} else {
		colon = strchr(hs, ':');
		hn = colon ? (size_t)(colon - hs) : strlen(hs);
		host = xstrndup(hs, hn);
		if (!rntop_host_name_ok(host))
			goto bad_host;
	}
	if (colon != NULL &&
	    (port = parse_port(colon + 1, strlen(colon + 1))) == -1) {
		rai_err_set(err, RAI_E_USAGE, "bad port in host '%s': "
		    "expected 1 to 65535", spec);
		goto fail;
	}
	memset(t, 0, sizeof(*t));
	t->spec = xstrdup(spec);
	t->user = user;
	t->host = host;
	t->port = port;
	return 0;

bad_user:
	rai_err_set(err, RAI_E_USAGE, "bad user name in host '%s'", spec);
	goto fail;
bad_host:
	rai_err_set(err, RAI_E_USAGE, "bad host name '%s': expected "
	    "[user@]host[:port]", spec);
fail:
	free(user);
	free(host);
	return -1;
}

void
rntop_target_release(struct rntop_target *t)
{
	free(t->spec);
	free(t->user);
	free(t->host);
	memset(t, 0, sizeof(*t));
}

void
rntop_targets_push(struct rntop_targets *ts, struct rntop_target *take)
{
	ts->v = xreallocarray(ts->v, ts->n + 1, sizeof(*ts->v));
	ts->v[ts->n++] = *take;
	memset(take, 0, sizeof(*take));
}

void
rntop_targets_release(struct rntop_targets *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		rntop_target_release(&ts->v[i]);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

static int
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int
rntop_hostfile_parse(const char *text, size_t len, const char *name,
    struct rntop_targets *out, struct rai_err *err)
{
	const char *p = text, *end = text + len, *nl, *w, *we;
	struct rntop_target t;
	unsigned long lineno = 0;
	char *word;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		lineno++;
		w = p;
		while (w < nl && is_space((unsigned char)*w))
			w++;
		if (w == nl || *w == '#')
			continue;
		we = w;
		while (we < nl && !is_space((unsigned char)*we) && *we != '#')
			we++;
		if (memchr(w, '\0', (size_t)(we - w)) != NULL ||
		    (size_t)(we - w) > RNTOP_HOST_NAME_MAX + RNTOP_USER_MAX + 8)
			return rai_err_set(err, RAI_E_USAGE, "%s:%lu: bad host "
			    "entry", name, lineno);
		word = xstrndup(w, (size_t)(we - w));
		if (rntop_target_parse(word, &t, err) == -1) {
			free(word);
			rai_err_prefix(err, "%s:%lu", name, lineno);
			return -1;
		}
		free(word);
		rntop_targets_push(out, &t);
	}
	return 0;
}

enum rntop_shk
rntop_shk_parse(const char *s)
{
	if (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0 ||
	    strcmp(s, "ask") == 0)
		return RNTOP_SHK_YES;
	if (strcmp(s, "accept-new") == 0)
		return RNTOP_SHK_ACCEPT_NEW;
	if (strcmp(s, "no") == 0 || strcmp(s, "false") == 0 ||
	    strcmp(s, "off") == 0)
		return RNTOP_SHK_NO;
	return RNTOP_SHK_UNSET;
}

static char *
expand_home(const char *s, size_t n, const char *home)
{
	if (home != NULL && n >= 2 && s[0] == '~' && s[1] == '/')
		return xasprintf("%s/%.*s", home, (int)(n - 2), s + 2);
	return xstrndup(s, n);
}

static void
push_word(char ***v, size_t *n, char *take)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = take;
}

/* Each space-separated word of value, home-expanded, onto v. */
static void
push_words(char ***v, size_t *n, const char *s, size_t len, const char *home)
{
	const char *e = s + len, *w;

	while (s < e) {
		while (s < e && is_space((unsigned char)*s))
			s++;
		w = s;
		while (s < e && !is_space((unsigned char)*s))
			s++;
		if (s > w)
			push_word(v, n, expand_home(w, (size_t)(s - w), home));
	}
}

static long
small_number(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n && i < 9; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return i == n ? v : 0;
}

static int
key_is(const char *k, size_t kn, const char *word)
{
	return strlen(word) == kn && memcmp(k, word, kn) == 0;
}

void
rntop_sshg_parse(const char *text, size_t len, const char *home,
    struct rntop_sshg *g)
{
	const char *p = text, *end = text + len, *nl, *k, *v;
	size_t kn, vn;
	char *val;

	memset(g, 0, sizeof(*g));
	g->strict = RNTOP_SHK_UNSET;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		k = p;
		while (k < nl && is_space((unsigned char)*k))
			k++;
		for (v = k; v < nl && !is_space((unsigned char)*v); v++)
			;
		kn = (size_t)(v - k);
		while (v < nl && is_space((unsigned char)*v))
			v++;
		vn = (size_t)(nl - v);
		while (vn > 0 && is_space((unsigned char)v[vn - 1]))
			vn--;
		if (kn == 0 || vn == 0 || memchr(v, '\0', vn) != NULL)
			continue;
		if (key_is(k, kn, "hostname")) {
			free(g->hostname);
			g->hostname = xstrndup(v, vn);
		} else if (key_is(k, kn, "user")) {
			free(g->user);
			g->user = xstrndup(v, vn);
		} else if (key_is(k, kn, "port")) {
			g->port = parse_port(v, vn) > 0 ? parse_port(v, vn) : 0;
		} else if (key_is(k, kn, "identityfile")) {
			push_word(&g->identity, &g->nidentity,
			    expand_home(v, vn, home));
		} else if (key_is(k, kn, "userknownhostsfile")) {
			push_words(&g->known_hosts, &g->nknown_hosts, v, vn,
			    home);
		} else if (key_is(k, kn, "globalknownhostsfile")) {
			push_words(&g->global_known_hosts,
			    &g->nglobal_known_hosts, v, vn, home);
		} else if (key_is(k, kn, "identitiesonly")) {
			g->identities_only = key_is(v, vn, "yes");
		} else if (key_is(k, kn, "stricthostkeychecking")) {
			val = xstrndup(v, vn);
			g->strict = rntop_shk_parse(val);
			free(val);
		} else if (key_is(k, kn, "connecttimeout")) {
			g->connect_timeout = small_number(v, vn);
		} else if (key_is(k, kn, "serveraliveinterval")) {
			g->server_alive_interval = small_number(v, vn);
		} else if (key_is(k, kn, "proxyjump") ||
		    key_is(k, kn, "proxycommand")) {
			g->proxy = !key_is(v, vn, "none");
		}
	}
}

static void
free_words(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
rntop_sshg_release(struct rntop_sshg *g)
{
	free(g->hostname);
	free(g->user);
	free_words(g->identity, g->nidentity);
	free_words(g->known_hosts, g->nknown_hosts);
	free_words(g->global_known_hosts, g->nglobal_known_hosts);
	memset(g, 0, sizeof(*g));
}

/* Waits for pid a bounded time; SIGKILL when it overstays. */
static int
reap_bounded(pid_t pid, int *status, double deadline)
{
	struct timespec ts = { 0, 2L * 1000 * 1000 };
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r == -1 && errno != EINTR))
			return r == pid ? 0 : -1;
		if ((double)rai_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
}

int
rntop_sshg_spawn(const char *ssh_path, const char *config,
    const struct rntop_target *t, int timeout_ms, struct rntop_sshg_job *job,
    struct rai_err *err)
{
	posix_spawn_file_actions_t fa;
	const char *argv[12];
	char port[16];
	int p[2], n = 0, rc;
	pid_t pid;

	memset(job, 0, sizeof(*job));
	job->fd = -1;
	job->pid = -1;
	if (!rntop_host_name_ok(t->host) && !v6_ok(t->host, strlen(t->host)))
		return rai_err_set(err, RAI_E_USAGE, "bad host name '%s'",
		    t->host);
	argv[n++] = ssh_path;
	argv[n++] = "-G";
	if (config != NULL) {
		argv[n++] = "-F";
		argv[n++] = config;
	}
	if (t->user != NULL) {
		argv[n++] = "-l";
		argv[n++] = t->user;
	}
	if (t->port > 0) {
		snprintf(port, sizeof(port), "%d", t->port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	/* "--": a host name can never become an option */
	argv[n++] = "--";
	argv[n++] = t->host;
	argv[n] = NULL;
	if (pipe(p) == -1)
		return rai_err_errno(err, errno, "ssh -G: cannot make a pipe");
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = strchr(ssh_path, '/') != NULL ?
	    posix_spawn(&pid, ssh_path, &fa, NULL,
	    (char *const *)(uintptr_t)argv, environ) :
	    posix_spawnp(&pid, ssh_path, &fa, NULL,
	    (char *const *)(uintptr_t)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return rai_err_errno(err, rc, "cannot run %s -G", ssh_path);
	}
	job->pid = pid;
	job->fd = p[0];
	job->deadline = (double)rai_now_ms() + timeout_ms;
	job->timeout_ms = timeout_ms;
	rai_buf_init(&job->out, SSHG_OUT_MAX);
	return 0;
}

int
rntop_sshg_read(struct rntop_sshg_job *job)
{
	char buf[4096];
	ssize_t n;

	if (job->fd == -1)
		return 1;
	for (;;) {
		n = read(job->fd, buf, sizeof(buf));
		if (n > 0) {
			if (rai_buf_add(&job->out, buf, (size_t)n) == -1)
				break;	/* more than any config prints */
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			if ((double)rai_now_ms() < job->deadline)
				return 0;
			job->timed_out = 1;
		}
		break;
	}
	close(job->fd);
	job->fd = -1;
	return 1;
}

int
rntop_sshg_finish(struct rntop_sshg_job *job, const char *host,
    const char *home, struct rntop_sshg *out, struct rai_err *err)
{
	int status = 0, rc = 0;

	if (job->fd != -1) {
		close(job->fd);
		job->fd = -1;
		job->timed_out = 1;
	}
	if (job->timed_out)
		kill(job->pid, SIGKILL);
	if (reap_bounded(job->pid, &status, (double)rai_now_ms() + 1000) == -1 ||
	    job->timed_out)
		rc = rai_err_set(err, RAI_E_CONFIG, "ssh -G %s did not answer "
		    "in %d ms", host, job->timeout_ms);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = rai_err_set(err, RAI_E_CONFIG, "ssh -G %s failed "
		    "(exit %d)", host, WIFEXITED(status) ?
		    WEXITSTATUS(status) : 128 + WTERMSIG(status));
	else
		rntop_sshg_parse(job->out.data ? job->out.data : "",
		    job->out.len, home, out);
	job->pid = -1;
	rai_buf_release(&job->out);
	return rc;
}

int
rntop_sshg_run(const char *ssh_path, const char *config,
    const struct rntop_target *t, int timeout_ms, const char *home,
    struct rntop_sshg *out, struct rai_err *err)
{
	struct rntop_sshg_job job;
	struct pollfd pfd;
	int left;

	if (rntop_sshg_spawn(ssh_path, config, t, timeout_ms, &job, err) == -1)
		return -1;
	while (!rntop_sshg_read(&job)) {
		pfd.fd = job.fd;
		pfd.events = POLLIN;
		left = (int)(job.deadline - (double)rai_now_ms()) + 1;
		(void)poll(&pfd, 1, left > 0 ? left : 0);
	}
	return rntop_sshg_finish(&job, t->host, home, out, err);
}

void
rntop_kh_split(const char *line, size_t len, struct rntop_kh_line *kl)
{
	const char *p = line, *end = line + len, *f[4];
	size_t fl[4], nf = 0;

	memset(kl, 0, sizeof(*kl));
	while (end > p && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	while (p < end && is_space((unsigned char)*p))
		p++;
	if (p == end || *p == '#')
		return;
	while (p < end && nf < 4) {
		f[nf] = p;
		while (p < end && !is_space((unsigned char)*p))
			p++;
		fl[nf] = (size_t)(p - f[nf]);
		nf++;
		while (p < end && is_space((unsigned char)*p))
			p++;
	}
	if (nf >= 1 && f[0][0] == '@') {
		if (nf < 4)
			return;
		if (fl[0] == 8 && memcmp(f[0], "@revoked", 8) == 0)
			kl->kind = RNTOP_KH_REVOKED;
		else if (fl[0] == 15 && memcmp(f[0], "@cert-authority", 15) == 0)
			kl->kind = RNTOP_KH_CA;
		else
			return;
		f[0] = f[1], fl[0] = fl[1];
		f[1] = f[2], fl[1] = fl[2];
		f[2] = f[3], fl[2] = fl[3];
	} else if (nf < 3) {
		return;
	} else {
		kl->kind = RNTOP_KH_PLAIN;
	}
	kl->hosts = f[0];
	kl->hosts_len = fl[0];
	kl->keytype = f[1];
	kl->keytype_len = fl[1];
	kl->key = f[2];
	kl->key_len = fl[2];
	kl->entry = f[0];
	kl->entry_len = (size_t)(end - f[0]);
}

int
rntop_glob_match(const char *pat, size_t plen, const char *s)
{
	size_t pi = 0, si = 0, star = (size_t)-1, mark = 0, sn = strlen(s);

	/* iterative '*' backtracking: linear in practice, never recursive */
	while (si < sn) {
		if (pi < plen && (pat[pi] == '?' || pat[pi] == s[si])) {
			pi++;
			si++;
		} else if (pi < plen && pat[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			si = ++mark;
		} else {
			return 0;
		}
	}
	while (pi < plen && pat[pi] == '*')
		pi++;
	return pi == plen;
}

/* |1|base64(salt)|base64(HMAC-SHA1(salt, name)) against name. */
static int
hashed_match(const char *h, size_t len, const char *name)
{
	const char *bar;
	unsigned char *salt = NULL, *want = NULL, got[EVP_MAX_MD_SIZE];
	size_t saltn, wantn;
	unsigned int gotn = 0;
	int ok = 0;

	if (len < 4 || memcmp(h, "|1|", 3) != 0)
		return 0;
	bar = memchr(h + 3, '|', len - 3);
	if (bar == NULL)
		return 0;
	salt = rai_base64_decode(h + 3, (size_t)(bar - h - 3),
	    RAI_B64_PAD_OPTIONAL, &saltn);
	want = rai_base64_decode(bar + 1, len - (size_t)(bar + 1 - h),
	    RAI_B64_PAD_OPTIONAL, &wantn);
	if (salt == NULL || want == NULL)
		goto out;
	if (saltn != 20 || wantn != 20)
		goto out;
	if (HMAC(EVP_sha1(), salt, (int)saltn, (const unsigned char *)name,
	    strlen(name), got, &gotn) == NULL)
		goto out;
	ok = gotn == wantn && memcmp(got, want, wantn) == 0;
out:
	free(salt);
	free(want);
	return ok;
}

int
rntop_kh_hosts_match(const char *hosts, size_t len, const char *host,
    int port)
{
	const char *p = hosts, *end = hosts + len, *c;
	char name[RNTOP_HOST_NAME_MAX + 16];
	int matched = 0, neg;
	size_t n;

	if (port > 0 && port != 22)
		snprintf(name, sizeof(name), "[%s]:%d", host, port);
	else
		snprintf(name, sizeof(name), "%s", host);
	if (len > 0 && hosts[0] == '|')
		return hashed_match(hosts, len, name);
	for (; p < end; p = c + 1) {
		c = memchr(p, ',', (size_t)(end - p));
		if (c == NULL)
			c = end;
		n = (size_t)(c - p);
		neg = n > 0 && p[0] == '!';
		if (neg) {
			p++;
			n--;
		}
		if (n > 0 && rntop_glob_match(p, n, name)) {
			if (neg)
				return 0;	/* a negation always wins */
			matched = 1;
		}
		if (c == end)
			break;
	}
	return matched;
}

const char *
rntop_hostkey_methods(const char *t, size_t n)
{
	static const struct {
		const char	*type;
		const char	*methods;
	} map[] = {
		{ "ssh-ed25519", "ssh-ed25519" },
		{ "ssh-rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa" },
		{ "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256" },
		{ "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384" },
		{ "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521" },
		{ "ssh-dss", "ssh-dss" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (key_is(t, n, map[i].type))
			return map[i].methods;
	return NULL;
}

void
rntop_fp_sha256(const unsigned char digest[32], char *out, size_t size)
{
	char *b = rai_base64_encode(digest, 32);
	size_t n = strlen(b);

	/* OpenSSH drops the padding */
	while (n > 0 && b[n - 1] == '=')
		b[--n] = '\0';
	snprintf(out, size, "SHA256:%s", b);
	free(b);
}

int
rntop_remote_path_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 1024 || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (!(name_char(c) || c == '/' || c == '+'))
			return 0;
	}
	return 1;
}

static int
query_ok(const char *q)
{
	for (; *q != '\0'; q++)
		if (!((*q >= 'a' && *q <= 'z') || *q == '.' || *q == ',' ||
		    *q == '_'))
			return 0;
	return 1;
}

/*
 * The owner block's shell function "o", for rntop_remote_command_owners.
 * Every value is read by the shell and printed through "%s": nothing
 * from the node is ever run, and a uid goes to getent only when it is
 * digits. Errors (a pid gone, no driver file, no getent) are silent;
 * the block says only what it could read. Per GPU process: its cgroup
 * and the uid in its status (shell reads), its command line (tr turns
 * the NULs and any control character into spaces, head bounds it) or
 * its comm; then one getent for the block's uids, not one per process.
 * The CUDA version the driver supports is in no query field: the first
 * block of a session asks "nvidia-smi --version" for it (rntop_cuda,
 * a name no login environment sets, kept for the session's later
 * blocks; empty where that nvidia-smi has no such line or no
 * --version), so a session starts one nvidia-smi more, once.
 */
static char *
owner_function(const char *nvidia_smi)
{
	return xasprintf("o() { a=$(LC_ALL=C %s "
	    "--query-compute-apps=gpu_uuid,pid,used_memory "
	    "--format=csv,noheader,nounits </dev/null 2>/dev/null) && e=ok || "
	    "e=fail; "
	    "[ -n \"${rntop_cuda+x}\" ] || rntop_cuda=$(LC_ALL=C %s "
	    "--version </dev/null 2>/dev/null | while IFS=: read -r k x; "
	    "do case $k in "
	    "'CUDA Version'*) printf %%s \"$x\";; esac; done); "
	    "P=${RNTOP_PROC:-/proc}; b=$( { "
	    "IFS= read -r l <\"$P/driver/nvidia/version\" && "
	    "printf '#rntop driver %%s\\n' \"$l\"; "
	    "[ -z \"$rntop_cuda\" ] || "
	    "printf '#rntop cuda %%s\\n' \"$rntop_cuda\"; "
	    "printf '%%s\\n' \"$a\" | { U=; while IFS=', ' read -r u i m _; do "
	    "[ -n \"$u\" ] || continue; "
	    "printf '#rntop app %%s %%s %%s\\n' \"$u\" \"$i\" \"$m\"; "
	    "case $i in ''|*[!0-9]*) continue;; esac; "
	    "while IFS= read -r c; do printf '#rntop cg %%s %%s\\n' \"$i\" "
	    "\"$c\"; done <\"$P/$i/cgroup\"; "
	    "while read -r k v _; do [ \"$k\" = Uid: ] || continue; "
	    "printf '#rntop uid %%s %%s\\n' \"$i\" \"$v\"; "
	    "case $v in ''|*[!0-9]*) ;; *) U=\"$U $v\";; esac; break; "
	    "done <\"$P/$i/status\"; "
	    "c=$(tr '\\000-\\037' ' ' <\"$P/$i/cmdline\" | head -c %d); "
	    "[ -n \"$c\" ] || IFS= read -r c <\"$P/$i/comm\"; "
	    "printf '#rntop cmd %%s %%s\\n' \"$i\" \"$c\"; done; "
	    "[ -z \"$U\" ] || getent passwd $U | while IFS=: read -r n _ x _; "
	    "do printf '#rntop user %%s %%s\\n' \"$x\" \"$n\"; done; }; "
	    "} 2>/dev/null); "
	    "printf '#rntop begin\\n%%s\\n#rntop end %%s\\n' \"$b\" \"$e\"; }; ",
	    nvidia_smi, nvidia_smi, RNTOP_CMD_MAX - 1);
}

static char *
remote_command(const char *nvidia_smi, const char *query, long loop_ms,
    int owners)
{
	char loop[32] = "";
	char *fn, *cmd;

	if (!rntop_remote_path_ok(nvidia_smi) || !query_ok(query) ||
	    loop_ms < 0 || loop_ms > 86400000L)
		return NULL;
	if (loop_ms > 0)
		snprintf(loop, sizeof(loop), " -lms %ld", loop_ms);
	/*
	 * A POSIX shell runs nvidia-smi in the background and a watchdog
	 * reading the channel's input (kept on fd 3: an asynchronous list
	 * gets /dev/null as its input). rntop never sends EOF, so the read
	 * ends only when the channel closes, and then it kills nvidia-smi;
	 * when nvidia-smi ends first, the watchdog goes and its status is
	 * the channel's. sshd cannot send signals for libssh2 1.10.
	 */
	if (!owners)
		return xasprintf("exec 3<&0; LC_ALL=C %s --query-gpu=%s "
		    "--format=csv,noheader,nounits%s </dev/null 3<&- & p=$!; "
		    "(read _; kill $p) <&3 >/dev/null 2>&1 & w=$!; "
		    "exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; exit $s",
		    nvidia_smi, query, loop);
	fn = owner_function(nvidia_smi);
	if (loop_ms == 0) {
		/*
		 * The owner block beside the rows, at the same time (two
		 * nvidia-smi runs one after the other would double the
		 * wait); the status is the rows'.
		 */
		cmd = xasprintf("exec 3<&0; %s{ o & LC_ALL=C %s --query-gpu=%s "
		    "--format=csv,noheader,nounits; r=$?; wait; exit $r; } "
		    "</dev/null 3<&- & p=$!; "
		    "(read _; kill $p) <&3 >/dev/null 2>&1 & w=$!; "
		    "exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; exit $s",
		    fn, nvidia_smi, query);
		free(fn);
		return cmd;
	}
	/*
	 * Beside the stream, the watchdog answers requests: one block at
	 * once, then one for each line rntop sends, and at the channel's
	 * end it kills nvidia-smi as above. nvidia-smi takes one selective
	 * query per run, and in loop mode an empty compute-apps answer
	 * prints nothing (no "none now" to frame), so the apps cannot ride
	 * on the -lms process or a second long-lived one; rntop asks only
	 * when a GPU's memory in use changed, or the last block is old
	 * (rntop/ssh_chan.c), so a steady host starts no nvidia-smi per
	 * sample.
	 */
	cmd = xasprintf("exec 3<&0; %sLC_ALL=C %s --query-gpu=%s "
	    "--format=csv,noheader,nounits%s </dev/null 3<&- & p=$!; "
	    "(o; while read _; do o; done; kill $p) <&3 2>/dev/null & w=$!; "
	    "exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; exit $s",
	    fn, nvidia_smi, query, loop);
	free(fn);
	return cmd;
}

char *
rntop_remote_command(const char *nvidia_smi, const char *query,
    long loop_ms)
{
	return remote_command(nvidia_smi, query, loop_ms, 0);
}

char *
rntop_remote_command_owners(const char *nvidia_smi, const char *query,
    long loop_ms)
{
	return remote_command(nvidia_smi, query, loop_ms, 1);
}

double
rntop_backoff(unsigned attempt, double base, double cap, double r)
{
	double ceiling = base;
	unsigned i;

	for (i = 0; i < attempt && ceiling < cap; i++)
		ceiling *= 2;
	if (ceiling > cap)
		ceiling = cap;
	if (!(r >= 0))
		r = 0;
	if (r >= 1)
		r = 0.999999;
	return r * ceiling;
}
