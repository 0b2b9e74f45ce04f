/*
 * The hosts to watch over SSH: specs from the command line and
 * --hostfile, each resolved like OpenSSH would ("ssh -G", unless
 * --no-ssh-config or no ssh is installed) into where to connect, as
 * whom, with which keys and known_hosts files and which host key policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "child.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "resolve.h"
#include "rntop/sshcfg.h"

#include "core/banned.h"

#define HOSTFILE_MAX	((size_t)16 << 20)
#define SSHG_TIMEOUT_MS	5000

void
rntop_resolved_release(struct rntop_resolved *r)
{
	free(r->hostname);
	free(r->user);
	rai_strv_release(&r->ids);
	rai_strv_release(&r->kh);
	rai_strv_release(&r->gkh);
	memset(r, 0, sizeof(*r));
}

static const char *
home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h != NULL && *h != '\0')
		return h;
	pw = getpwuid(getuid());
	return pw != NULL ? pw->pw_dir : "/";
}

static const char *
login_name(void)
{
	const char *u = getenv("USER");
	struct passwd *pw;

	if (u != NULL && *u != '\0')
		return u;
	pw = getpwuid(getuid());
	return pw != NULL ? pw->pw_name : "root";
}

static int
read_hostfile(const char *path, struct rntop_targets *ts, struct rai_err *err)
{
	struct rai_buf b;
	char buf[8192];
	ssize_t n;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return rai_err_errno(err, errno, "--hostfile %s", path);
	rai_buf_init(&b, HOSTFILE_MAX);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (rai_buf_add(&b, buf, (size_t)n) == -1) {
			close(fd);
			rai_buf_release(&b);
			return rai_err_set(err, RAI_E_USAGE, "--hostfile %s: "
			    "larger than 16 MiB", path);
		}
	}
	rc = n == -1 ? errno : 0;
	close(fd);
	if (rc != 0) {
		rai_buf_release(&b);
		return rai_err_errno(err, rc, "--hostfile %s", path);
	}
	rc = rntop_hostfile_parse(b.data ? b.data : "", b.len, path, ts, err);
	rai_buf_release(&b);
	return rc;
}

int
rntop_collect_targets(const struct rntop_opts *o, int argc, char **argv,
    struct rntop_targets *ts, struct rai_err *err)
{
	struct rntop_target t;
	int i;

	for (i = 0; i < argc; i++) {
		if (rntop_target_parse(argv[i], &t, err) == -1)
			return -1;
		rntop_targets_push(ts, &t);
	}
	if (o->hostfile != NULL && read_hostfile(o->hostfile, ts, err) == -1)
		return -1;
	if (ts->n == 0) {
		rai_err_set(err, RAI_E_USAGE, "no hosts to watch");
		rai_err_set_hint(err, "name hosts ([user@]host[:port]), use "
		    "--hostfile FILE, or --local for this machine's GPUs");
		return -1;
	}
	return 0;
}

static void
default_files(const struct rntop_opts *o, struct rntop_resolved *r)
{
	static const char *const keys[] = { "id_ed25519", "id_ecdsa",
		"id_rsa" };
	char *p;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		p = xasprintf("%s/.ssh/%s", home_dir(), keys[i]);
		rai_strv_push(&r->ids, p);
		free(p);
	}
	p = xasprintf("%s/.ssh/known_hosts", home_dir());
	rai_strv_push(&r->kh, p);
	free(p);
	rai_strv_push(&r->gkh, "/etc/ssh/ssh_known_hosts");
}

/* The parts every way of resolving shares: -i first, the policy. */
static void
resolved_init(const struct rntop_opts *o, struct rntop_resolved *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < o->identity.n; i++)
		rai_strv_push(&r->ids, o->identity.v[i]);
	r->strict = o->strict ? rntop_shk_parse(o->strict) : RNTOP_SHK_UNSET;
}

/*
 * r from g, the answer of ssh -G for rep, the target of t's group: a
 * HostName that is rep's own name means no Host line set it, so t
 * keeps its own name (see rntop/sshcfg.h).
 */
static void
resolved_from_sshg(const struct rntop_target *t, const struct rntop_target *rep,
    const struct rntop_sshg *g, struct rntop_resolved *r)
{
	const char *hostname = g->hostname;
	size_t i;

	if (hostname == NULL || strcasecmp(hostname, rep->host) == 0)
		hostname = t->host;

	/* said before any screen is up; connecting anyway may still work */
	if (g->proxy)
		rai_warn("%s: ProxyJump/ProxyCommand in the ssh config is not "
		    "supported; connecting directly",
		    t->spec);
	r->hostname = xstrdup(hostname);
	r->user = xstrdup(g->user ? g->user : login_name());
	r->port = g->port > 0 ? g->port : 22;
	for (i = 0; i < g->nidentity; i++)
		rai_strv_push(&r->ids, g->identity[i]);
	for (i = 0; i < g->nknown_hosts; i++)
		rai_strv_push(&r->kh, g->known_hosts[i]);
	for (i = 0; i < g->nglobal_known_hosts; i++)
		rai_strv_push(&r->gkh, g->global_known_hosts[i]);
	if (r->strict == RNTOP_SHK_UNSET)
		r->strict = g->strict;
}

static void
resolved_by_default(const struct rntop_opts *o, const struct rntop_target *t,
    struct rntop_resolved *r)
{
	r->hostname = xstrdup(t->host);
	r->user = xstrdup(t->user ? t->user : o->username ? o->username :
	    login_name());
	r->port = t->port > 0 ? t->port : 22;
	default_files(o, r);
}

static int
resolved_check(const struct rntop_opts *o, const struct rntop_target *t,
    struct rntop_resolved *r, struct rai_err *err)
{
	if (o->known_hosts != NULL) {
		rai_strv_release(&r->kh);
		rai_strv_push(&r->kh, o->known_hosts);
	}
	if (!rntop_user_name_ok(r->user))
		return rai_err_set(err, RAI_E_USAGE, "bad user name '%s' for "
		    "'%s'", r->user, t->spec);
	return 0;
}

#define SSHG_PARALLEL	32

/* Ends the ssh -G runs still going (after an error). */
static void
sshg_abandon(struct rntop_sshg_job *jobs, const int *running, size_t n)
{
	struct rai_err ignore = RAI_ERR_INIT;
	struct rntop_sshg g;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!running[i])
			continue;
		memset(&g, 0, sizeof(g));
		(void)rntop_sshg_finish(&jobs[i], "", NULL, &g, &ignore);
		rntop_sshg_release(&g);
		rai_err_release(&ignore);
	}
}

/*
 * Finishes job j (the run for target j) into rs[i] of every target i
 * of its group (rep[i] == j); -1 and err when ssh -G failed.
 */
static int
sshg_collect(const struct rntop_opts *o, const struct rntop_targets *ts,
    const size_t *rep, size_t j, struct rntop_sshg_job *job,
    struct rntop_resolved *rs, struct rai_err *err)
{
	struct rntop_sshg g;
	size_t i;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	if (rntop_sshg_finish(job, ts->v[j].host, home_dir(), &g, err) == -1) {
		rai_err_prefix(err, "resolving '%s'", ts->v[j].spec);
		return -1;
	}
	for (i = j; i < ts->n && rc == 0; i++) {
		if (rep[i] != j)
			continue;
		resolved_from_sshg(&ts->v[i], &ts->v[j], &g, &rs[i]);
		rc = resolved_check(o, &ts->v[i], &rs[i], err);
	}
	rntop_sshg_release(&g);
	return rc;
}

/* Two targets' user and port as given (both go to ssh -G). */
static int
same_spec(const struct rntop_target *a, const struct rntop_target *b)
{
	return a->port == b->port && (a->user == NULL ? b->user == NULL :
	    b->user != NULL && strcmp(a->user, b->user) == 0);
}

/*
 * rep[i]: the target whose ssh -G run serves target i (i itself for
 * the first of a group): the same Host lines matched, user and port.
 * Returns how many runs that makes.
 */
static size_t
group_targets(const struct rntop_opts *o, const struct rntop_targets *ts,
    size_t *rep)
{
	struct rntop_sshcfg cfg = { NULL, 0, 0 };
	char **keys = xcalloc(ts->n ? ts->n : 1, sizeof(*keys));
	size_t i, k, runs = 0;

	rntop_sshcfg_load(&cfg, o->ssh_config, home_dir());
	for (i = 0; i < ts->n; i++) {
		rep[i] = i;
		keys[i] = rntop_sshcfg_key(&cfg, ts->v[i].host);
		/* a linear search: groups are few where it matters */
		for (k = 0; !cfg.per_host && k < i; k++)
			if (rep[k] == k && same_spec(&ts->v[i], &ts->v[k]) &&
			    strcmp(keys[i], keys[k]) == 0) {
				rep[i] = k;
				break;
			}
		runs += rep[i] == i;
	}
	for (i = 0; i < ts->n; i++)
		free(keys[i]);
	free(keys);
	rntop_sshcfg_release(&cfg);
	return runs;
}

/*
 * Resolves every target: ssh -G once for each group of targets the
 * configuration treats alike (group_targets), SSHG_PARALLEL at a time
 * (one takes tens of milliseconds), or rntop's defaults without ssh.
 */
static int
resolve_with(const struct rntop_opts *o, const char *ssh,
    const struct rntop_targets *ts, struct rntop_resolved *rs, struct rai_err *err)
{
	struct rntop_sshg_job *jobs;
	struct pollfd pfd[SSHG_PARALLEL];
	size_t slot[SSHG_PARALLEL], i, next = 0, done = 0, k, runs, *rep;
	int *running, rc = 0;

	for (i = 0; i < ts->n; i++)
		resolved_init(o, &rs[i]);
	if (ssh == NULL) {
		for (i = 0; i < ts->n; i++) {
			resolved_by_default(o, &ts->v[i], &rs[i]);
			if (resolved_check(o, &ts->v[i], &rs[i], err) == -1)
				return -1;
		}
		return 0;
	}
	jobs = xcalloc(ts->n, sizeof(*jobs));
	running = xcalloc(ts->n, sizeof(*running));
	rep = xcalloc(ts->n ? ts->n : 1, sizeof(*rep));
	runs = group_targets(o, ts, rep);
	while (done < runs && rc == 0) {
		for (k = 0, i = 0; i < next; i++)
			if (running[i])
				k++;
		for (; k < SSHG_PARALLEL && next < ts->n; next++) {
			struct rntop_target t = ts->v[next];

			if (rep[next] != next)
				continue;

			if (t.user == NULL)
				t.user = (char *)(uintptr_t)o->username;
			if (rntop_sshg_spawn(ssh, o->ssh_config, &t,
			    SSHG_TIMEOUT_MS, &jobs[next], err) == -1) {
				rc = -1;
				break;
			}
			running[next] = 1;
			k++;
		}
		for (k = 0, i = 0; i < next && k < SSHG_PARALLEL; i++) {
			if (!running[i])
				continue;
			pfd[k].fd = jobs[i].fd;
			pfd[k].events = POLLIN;
			slot[k++] = i;
		}
		if (rc == 0 && k > 0)
			(void)poll(pfd, k, 100);
		for (i = 0; rc == 0 && i < k; i++) {
			size_t j = slot[i];

			if (!rntop_sshg_read(&jobs[j]))
				continue;
			running[j] = 0;
			done++;
			rc = sshg_collect(o, ts, rep, j, &jobs[j], rs, err);
		}
	}
	sshg_abandon(jobs, running, ts->n);
	free(rep);
	free(running);
	free(jobs);
	return rc;
}

int
rntop_resolve_all(const struct rntop_opts *o, const struct rntop_targets *ts,
    struct rntop_resolved *rs, struct rai_err *err)
{
	struct rai_err ignore = RAI_ERR_INIT;
	char *ssh = NULL;
	int rc;

	if (!o->no_ssh_config && rntop_find_exe("ssh", &ssh, &ignore) == -1) {
		if (o->ssh_config != NULL) {
			rai_err_release(&ignore);
			return rai_err_set(err, RAI_E_CONFIG, "--ssh-config "
			    "needs ssh, which is not on PATH");
		}
		ssh = NULL;	/* no OpenSSH client: rntop's defaults */
	}
	rai_err_release(&ignore);
	rc = resolve_with(o, ssh, ts, rs, err);
	free(ssh);
	return rc;
}

char *
rntop_resolved_address(const struct rntop_resolved *r)
{
	return strchr(r->hostname, ':') != NULL ?
	    xasprintf("%s@[%s]:%d", r->user, r->hostname, r->port) :
	    xasprintf("%s@%s:%d", r->user, r->hostname, r->port);
}
