/*
 * rntop monitor over SSH: hosts from the command line and --hostfile,
 * each resolved like OpenSSH would ("ssh -G", unless --no-ssh-config or
 * no ssh is installed), then all watched by the library's SSH engine
 * from one poll() loop together with the terminal. --once reports when
 * every host answered or failed (or at connect timeout + timeout);
 * --batch and the screen report every interval, the first time when
 * every host has settled or --timeout has passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/strv.h"
#include "rntop.h"
#include "rntop/hosts.h"
#include "rntop/ssh.h"

#include "core/banned.h"

#define HOSTFILE_MAX	((size_t)16 << 20)
#define SSHG_TIMEOUT_MS	5000

struct remote {
	const struct rntop_opts	*o;
	struct rntop_host	*hosts;
	size_t			 n;
	struct rntop_ssh	*eng;
	struct rntop_hist	 cluster;
	struct rntop_ui		*ui;
	int			 quit;
	int			 redraw;
	double			 start;
	double			 now;
};

/* A host as resolved: where to connect, as whom, with what files. */
struct resolved {
	char		*hostname;
	char		*user;
	int		 port;
	struct rai_strv	 ids;
	struct rai_strv	 kh;
	struct rai_strv	 gkh;
	enum rntop_shk	 strict;
};

static void
resolved_release(struct resolved *r)
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

static int
collect_targets(const struct rntop_opts *o, int argc, char **argv,
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
default_files(const struct rntop_opts *o, struct resolved *r)
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
resolved_init(const struct rntop_opts *o, struct resolved *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < o->identity.n; i++)
		rai_strv_push(&r->ids, o->identity.v[i]);
	r->strict = o->strict ? rntop_shk_parse(o->strict) : RNTOP_SHK_UNSET;
}

static void
resolved_from_sshg(const struct rntop_target *t, const struct rntop_sshg *g,
    struct resolved *r)
{
	size_t i;

	/* said before any screen is up; connecting anyway may still work */
	if (g->proxy)
		rai_warn("%s: ProxyJump/ProxyCommand in the ssh config is not "
		    "supported; connecting directly",
		    t->spec);
	r->hostname = xstrdup(g->hostname ? g->hostname : t->host);
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
    struct resolved *r)
{
	r->hostname = xstrdup(t->host);
	r->user = xstrdup(t->user ? t->user : o->username ? o->username :
	    login_name());
	r->port = t->port > 0 ? t->port : 22;
	default_files(o, r);
}

static int
resolved_check(const struct rntop_opts *o, const struct rntop_target *t,
    struct resolved *r, struct rai_err *err)
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

/* Finishes job i into rs[i]; -1 and err when ssh -G failed. */
static int
sshg_collect(const struct rntop_opts *o, const struct rntop_target *t,
    struct rntop_sshg_job *job, struct resolved *r, struct rai_err *err)
{
	struct rntop_sshg g;

	memset(&g, 0, sizeof(g));
	if (rntop_sshg_finish(job, t->host, home_dir(), &g, err) == -1) {
		rai_err_prefix(err, "resolving '%s'", t->spec);
		return -1;
	}
	resolved_from_sshg(t, &g, r);
	rntop_sshg_release(&g);
	return resolved_check(o, t, r, err);
}

/*
 * Resolves every target: ssh -G for each, SSHG_PARALLEL at a time (one
 * takes tens of milliseconds), or rntop's defaults without ssh.
 */
static int
resolve_all(const struct rntop_opts *o, const char *ssh,
    const struct rntop_targets *ts, struct resolved *rs, struct rai_err *err)
{
	struct rntop_sshg_job *jobs;
	struct pollfd pfd[SSHG_PARALLEL];
	size_t slot[SSHG_PARALLEL], i, next = 0, done = 0, k;
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
	while (done < ts->n && rc == 0) {
		for (k = 0, i = 0; i < next; i++)
			if (running[i])
				k++;
		for (; k < SSHG_PARALLEL && next < ts->n; next++, k++) {
			struct rntop_target t = ts->v[next];

			if (t.user == NULL)
				t.user = (char *)(uintptr_t)o->username;
			if (rntop_sshg_spawn(ssh, o->ssh_config, &t,
			    SSHG_TIMEOUT_MS, &jobs[next], err) == -1) {
				rc = -1;
				break;
			}
			running[next] = 1;
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
			rc = sshg_collect(o, &ts->v[j], &jobs[j], &rs[j], err);
		}
	}
	sshg_abandon(jobs, running, ts->n);
	free(running);
	free(jobs);
	return rc;
}

static void
on_snapshot(void *ud, size_t idx, const struct rntop_snap *s)
{
	struct remote *rm = ud;
	struct rntop_host *h = &rm->hosts[idx];

	rntop_snap_copy(&h->snap, s);
	rntop_hist_push(&h->hist, s);
	h->have_snap = 1;
	h->snap_time = rm->now;
}

static enum rntop_host_state
failure_state(enum rntop_ssh_fail f)
{
	switch (f) {
	case RNTOP_SSHF_DOWN: return RNTOP_HOST_DOWN;
	case RNTOP_SSHF_HOSTKEY: return RNTOP_HOST_HOSTKEY;
	case RNTOP_SSHF_AUTH: return RNTOP_HOST_AUTH;
	case RNTOP_SSHF_TIMEOUT: return RNTOP_HOST_TIMEOUT;
	default: return RNTOP_HOST_ERROR;
	}
}

static void
set_text(char **dst, const char *src)
{
	if ((*dst == NULL && src == NULL) ||
	    (*dst != NULL && src != NULL && strcmp(*dst, src) == 0))
		return;
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

/* Each host's state for reports, from the engine and its data's age. */
static void
sync_hosts(struct remote *rm, int final)
{
	const struct rntop_opts *o = rm->o;
	double limit = o->interval + o->timeout;
	struct rntop_ssh_status st;
	size_t i;

	for (i = 0; i < rm->n; i++) {
		struct rntop_host *h = &rm->hosts[i];
		int live;

		rntop_ssh_status(rm->eng, i, &st);
		live = st.state == RNTOP_SSH_STREAM ||
		    st.state == RNTOP_SSH_POLL || st.state == RNTOP_SSH_DONE ||
		    st.state == RNTOP_SSH_INVENTORY;
		h->noise = st.noise;
		h->polling = st.polling;
		h->mode = st.state == RNTOP_SSH_DONE ? "once" :
		    st.polling ? "poll" : "stream";
		h->retry_in = st.retry_at > 0 ? st.retry_at - rm->now : 0;
		if (h->retry_in < 0)
			h->retry_in = 0;
		set_text(&h->warning, st.warning);
		set_text(&h->fingerprint, st.fingerprint);
		if (live && st.fail == RNTOP_SSHF_NONE && h->have_snap &&
		    (st.state == RNTOP_SSH_DONE ||
		    rm->now - h->snap_time <= limit)) {
			h->state = RNTOP_HOST_OK;
			set_text(&h->error, NULL);
		} else if (st.fail != RNTOP_SSHF_NONE) {
			h->state = failure_state(st.fail);
			set_text(&h->error, st.error);
		} else if (live && h->have_snap) {
			char *msg = xasprintf("no sample for %.1f s",
			    rm->now - h->snap_time);

			h->state = RNTOP_HOST_STALE;
			set_text(&h->error, msg);
			free(msg);
		} else if (final) {
			char *msg = xasprintf("no answer in %g s (%s)",
			    o->connect_timeout + o->timeout,
			    rntop_ssh_state_name(st.state));

			h->state = RNTOP_HOST_TIMEOUT;
			set_text(&h->error, msg);
			free(msg);
		} else {
			h->state = RNTOP_HOST_WAITING;
			set_text(&h->error, NULL);
		}
	}
}

/* Waits up to wait seconds for sockets or keys, then does the work. */
static void
pump(struct remote *rm, double wait)
{
	size_t n = rntop_ssh_count(rm->eng), k;
	struct pollfd *pfd = xcalloc(n + 1, sizeof(*pfd));
	int keys, ms;

	rm->now = rntop_now();
	k = rntop_ssh_pollfds(rm->eng, pfd + 1, rm->now, &wait);
	pfd[0].fd = rm->ui != NULL ? 0 : -1;
	pfd[0].events = POLLIN;
	ms = wait <= 0 ? 0 : (int)(wait * 1000) + 1;
	if (poll(pfd, k + 1, ms) == -1 && errno != EINTR)
		memset(pfd, 0, (k + 1) * sizeof(*pfd));
	rm->now = rntop_now();
	rntop_ssh_step(rm->eng, pfd + 1, k, rm->now);
	if (rm->ui != NULL) {
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			rm->quit = 1;	/* the terminal went away */
		keys = rntop_ui_keys(rm->ui);
		rm->quit |= keys & RNTOP_UI_QUIT;
		rm->redraw |= keys & RNTOP_UI_REDRAW;
	}
	free(pfd);
}

static int
report(struct remote *rm, int pretty, struct rai_err *err)
{
	rntop_report_json(stdout, rm->hosts, rm->n, rm->o->interval, pretty);
	return rntop_stdout_failed(err);
}

static int
run_once(struct remote *rm, struct rai_err *err)
{
	const struct rntop_opts *o = rm->o;
	double deadline = rm->start + o->connect_timeout + o->timeout;
	size_t i;

	while (!rntop_stop_signal && !rntop_ssh_settled(rm->eng)) {
		rm->now = rntop_now();
		if (rm->now >= deadline)
			break;
		pump(rm, deadline - rm->now);
	}
	rm->now = rntop_now();
	sync_hosts(rm, 1);
	if (report(rm, 1, err) == -1)
		return -1;
	if (o->output != NULL &&
	    rntop_report_csv(o->output, rm->hosts, rm->n, err) == -1)
		return -1;
	for (i = 0; i < rm->n; i++)
		if (rm->hosts[i].state != RNTOP_HOST_OK)
			return 1;
	return 0;
}

static int
run_live(struct remote *rm, struct rai_err *err)
{
	const struct rntop_opts *o = rm->o;
	/* the first report waits for every host, but not past --timeout */
	double first = rm->start + o->timeout;
	double next_emit = 0, drawn = 0, wait;
	long records = 0;
	int rc = 0;

	while (!rntop_stop_signal && !rm->quit) {
		rm->now = rntop_now();
		if (next_emit == 0 && (rntop_ssh_settled(rm->eng) ||
		    rm->now >= first))
			next_emit = rm->now;
		if (next_emit > 0 && rm->now >= next_emit) {
			sync_hosts(rm, 0);
			rntop_hist_push_cluster(&rm->cluster, rm->hosts, rm->n);
			if (rm->ui == NULL && (rc = report(rm, 0, err)) != 0)
				break;
			if (o->output != NULL &&
			    records % o->output_every == 0 &&
			    rntop_report_csv(o->output, rm->hosts, rm->n,
			    err) == -1) {
				rc = -1;
				break;
			}
			records++;
			rm->redraw = 1;
			next_emit += o->interval;
			if (next_emit < rm->now)
				next_emit = rm->now + o->interval;
			if (o->iterations > 0 && records >= o->iterations)
				break;
		}
		if (rm->ui != NULL && (rm->redraw || rm->now - drawn >= 1)) {
			sync_hosts(rm, 0);
			rntop_ui_draw(rm->ui, rm->hosts, rm->n, o->interval,
			    &rm->cluster);
			drawn = rm->now;
			rm->redraw = 0;
		}
		wait = next_emit > 0 ? next_emit - rm->now : 0.25;
		if (rm->ui != NULL && drawn + 1 - rm->now < wait)
			wait = drawn + 1 - rm->now;
		pump(rm, wait);
	}
	return rc < 0 ? -1 : 0;
}

/* One socket per host: lift the soft fd limit to the hard one. */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int
check_opts(const struct rntop_opts *o, struct rai_err *err)
{
	if (o->concurrency < 1 || o->concurrency > 4096)
		return rai_err_set(err, RAI_E_USAGE, "--concurrency must be "
		    "from 1 to 4096");
	if (!(o->connect_timeout >= 0.1 && o->connect_timeout <= 3600))
		return rai_err_set(err, RAI_E_USAGE, "--connect-timeout must "
		    "be from 0.1 to 3600 seconds");
	if (!(o->reconnect_max >= 0.1 && o->reconnect_max <= 86400))
		return rai_err_set(err, RAI_E_USAGE, "--reconnect-max must be "
		    "from 0.1 to 86400 seconds");
	if (o->nvidia_smi != NULL && !rntop_remote_path_ok(o->nvidia_smi))
		return rai_err_set(err, RAI_E_USAGE, "--nvidia-smi '%s' cannot "
		    "be sent to a remote shell: use letters, digits and /._+- "
		    "only", o->nvidia_smi);
	if (o->username != NULL && !rntop_user_name_ok(o->username))
		return rai_err_set(err, RAI_E_USAGE, "bad user name '%s'",
		    o->username);
	return 0;
}

static char *
address_of(const struct resolved *r)
{
	return strchr(r->hostname, ':') != NULL ?
	    xasprintf("%s@[%s]:%d", r->user, r->hostname, r->port) :
	    xasprintf("%s@%s:%d", r->user, r->hostname, r->port);
}

/* Resolves every target and hands it to the engine. */
static int
add_hosts(struct remote *rm, const struct rntop_targets *ts,
    struct rai_err *err)
{
	const struct rntop_opts *o = rm->o;
	struct resolved *rs;
	char *ssh = NULL;
	struct rai_err ignore = RAI_ERR_INIT;
	size_t i;
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
	rs = xcalloc(ts->n, sizeof(*rs));
	rc = resolve_all(o, ssh, ts, rs, err);
	rm->hosts = xcalloc(ts->n, sizeof(*rm->hosts));
	for (i = 0; rc == 0 && i < ts->n; i++) {
		const struct resolved *r = &rs[i];
		struct rntop_ssh_target t;

		memset(&t, 0, sizeof(t));
		t.name = ts->v[i].spec;
		t.hostname = r->hostname;
		t.user = r->user;
		t.port = r->port;
		t.identities = r->ids.v;
		t.nidentities = r->ids.n;
		t.known_hosts = r->kh.v;
		t.nknown_hosts = r->kh.n;
		t.global_known_hosts = r->gkh.v;
		t.nglobal_known_hosts = r->gkh.n;
		t.strict = r->strict;
		rntop_ssh_add(rm->eng, &t);
		rm->hosts[rm->n].name = xstrdup(ts->v[i].spec);
		rm->hosts[rm->n].address = address_of(r);
		rm->hosts[rm->n].child.pid = -1;
		rm->hosts[rm->n].child.out_fd = -1;
		rm->hosts[rm->n].child.err_fd = -1;
		rm->n++;
	}
	for (i = 0; i < ts->n; i++)
		resolved_release(&rs[i]);
	free(rs);
	free(ssh);
	return rc;
}

static void
release_hosts(struct remote *rm)
{
	size_t i;

	for (i = 0; i < rm->n; i++) {
		struct rntop_host *h = &rm->hosts[i];

		rntop_snap_release(&h->snap);
		rntop_hist_release(&h->hist);
		free(h->name);
		free(h->address);
		free(h->error);
		free(h->warning);
		free(h->fingerprint);
	}
	free(rm->hosts);
	rntop_hist_release(&rm->cluster);
}

int
rntop_remote_run(struct rai_ctx *ctx, const struct rntop_opts *o, int argc,
    char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct rntop_targets ts = { NULL, 0 };
	struct rntop_ssh_conf conf;
	struct remote rm;
	int rc = -1;

	memset(&rm, 0, sizeof(rm));
	rm.o = o;
	if (check_opts(o, err) == -1 ||
	    collect_targets(o, argc, argv, &ts, err) == -1)
		goto out;
	memset(&conf, 0, sizeof(conf));
	conf.use_agent = !o->no_agent;
	conf.nvidia_smi = o->nvidia_smi ? o->nvidia_smi : "nvidia-smi";
	conf.query = RNTOP_GPUSTAT_QUERY;
	conf.loop_ms = o->once ? 0 : (long)(o->interval * 1000 + 0.5);
	conf.interval = o->interval;
	conf.connect_timeout = o->connect_timeout;
	conf.timeout = o->timeout;
	conf.keepalive = 15;
	conf.backoff_base = o->reconnect_max < 2 ? o->reconnect_max / 2 : 1;
	conf.backoff_max = o->reconnect_max;
	conf.max_connecting = (int)o->concurrency;
	conf.reconnect = !o->once;
	if ((rm.eng = rntop_ssh_new(&conf, on_snapshot, &rm, err)) == NULL ||
	    add_hosts(&rm, &ts, err) == -1)
		goto out;
	rntop_catch_signals();
	raise_fd_limit();
	if (!o->once && !o->batch && isatty(0) && isatty(1) &&
	    (rm.ui = rntop_ui_start(&(struct rntop_ui_conf){
	    .color = o->color == -1 ? ctx->color : o->color,
	    .mem_unit = o->mem_unit, .sort = o->sort }, err)) == NULL)
		goto out;
	rm.start = rm.now = rntop_now();
	rc = o->once ? run_once(&rm, err) : run_live(&rm, err);
	rntop_ui_end(rm.ui);
out:
	rntop_ssh_free(rm.eng);
	release_hosts(&rm);
	rntop_targets_release(&ts);
	return rc;
}
