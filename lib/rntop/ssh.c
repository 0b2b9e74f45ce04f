/*
 * rntop_ssh: the per-host state machines and the poll() glue. See
 * rntop_ssh.h for the design.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "rntop/ssh.h"

#include "core/banned.h"

#define KNOWN_HOSTS_MAX	((size_t)16 << 20)
#define STDERR_MAX	2048
#define READ_ROUNDS	16	/* reads per channel per step: fairness */

enum chan_phase { CH_NONE, CH_OPEN, CH_EXEC, CH_READ, CH_CLOSE };

struct host {
	struct rntop_ssh	*eng;
	size_t			 idx;
	/* configuration (owned copies) */
	char			*name, *hostname, *user, *kh_name;
	int			 port;
	char			**ids;
	size_t			 nids;
	char			**kh;
	size_t			 nkh;
	char			**gkh;
	size_t			 ngkh;
	enum rntop_shk		 strict;
	/* state */
	enum rntop_ssh_state	 state;
	enum rntop_ssh_fail	 fail;
	char			*error, *warning;
	char			 fp[64];
	int			 fd;
	struct addrinfo		*ai, *ai_cur;
	LIBSSH2_SESSION		*s;
	LIBSSH2_AGENT		*agent;
	struct libssh2_agent_publickey *agent_id;
	int			 agent_done;
	size_t			 key_i;
	char			*auth_tried;	/* what auth tried, for errors */
	/* the one channel */
	LIBSSH2_CHANNEL		*ch;
	enum chan_phase		 ch_phase;
	int			 ch_loop;	/* the stream, not a one-shot */
	unsigned long		 ch_snaps;	/* snapshots this channel gave */
	struct rntop_gpustat	 ps;
	int			 ps_live;
	struct rntop_ownerframe	 of;		/* with owners: the block */
	/* owner blocks beside the stream come when asked (own_request) */
	int			 own_want;	/* a request is to be written */
	int			 own_pending;	/* asked, the block not in */
	double			 own_asked;
	struct rntop_snap	 own_ref;	/* the GPUs when last asked */
	struct rai_buf		 errbuf;
	struct rntop_snap	 inventory;	/* the last GPU set: primes framing */
	/* timers (engine clock, seconds) */
	double			 deadline;	/* of the current phase */
	double			 wake_at;	/* step again then, 0 = never */
	double			 last_out;	/* stdout bytes */
	double			 next_poll;
	double			 retry_at;
	unsigned		 attempt;
	double			 healthy_since;
	int			 polling;
	int			 polled_ok;	/* a one-shot answered since */
	int			 counted;	/* in eng->connecting */
	unsigned long		 noise_base;
	/* the last noise lines of stopped parsers: line k at (k-1) % KEEP */
	char			 noise_kept[RNTOP_NOISE_KEEP][160];
	unsigned long		 connects;
	int			 answered;	/* a snapshot since connecting */
	int			 basic;		/* the limits' fields refused */
};

struct rntop_ssh {
	struct rntop_ssh_conf	 conf;
	char			*nvidia_smi, *query;
	char			*cmd_once, *cmd_loop;
	/* with the limits' query: the fallback without them, else NULL */
	char			*cmd_once_basic, *cmd_loop_basic;
	rntop_ssh_snap_cb	 cb;
	rntop_ssh_procs_cb	 procs_cb;
	void			*ud;
	struct host		**hosts;
	size_t			 n;
	int			 connecting;
	uint64_t		 rng;
	double			 now;
};

static int	 libssh2_ready;

static double	 dead_after(const struct rntop_ssh *);

/*
 * With RNTOP_GPUSTAT_QUERY_LIMITS, the commands an older nvidia-smi
 * that refuses its fields gets instead (RNTOP_GPUSTAT_QUERY).
 */
static void
basic_commands(struct rntop_ssh *e, int owners)
{
	long ms = e->conf.loop_ms > 0 ? e->conf.loop_ms : 1000;

	free(e->cmd_once_basic);
	free(e->cmd_loop_basic);
	e->cmd_once_basic = e->cmd_loop_basic = NULL;
	if (strcmp(e->query, RNTOP_GPUSTAT_QUERY_LIMITS) != 0)
		return;
	e->cmd_once_basic = owners ? rntop_remote_command_owners(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, 0) : rntop_remote_command(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, 0);
	e->cmd_loop_basic = owners ? rntop_remote_command_owners(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, ms) : rntop_remote_command(
	    e->nvidia_smi, RNTOP_GPUSTAT_QUERY, ms);
}

const char *
rntop_ssh_state_name(enum rntop_ssh_state s)
{
	static const char *const names[] = {
		"idle", "connecting", "handshake", "auth", "inventory",
		"stream", "poll", "done", "backoff", "failed",
	};

	return (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static double
random01(struct rntop_ssh *e)
{
	/* xorshift64*: jitter only, not security */
	e->rng ^= e->rng >> 12;
	e->rng ^= e->rng << 25;
	e->rng ^= e->rng >> 27;
	return (double)((e->rng * 2685821657736338717ull) >> 11) /
	    9007199254740992.0;
}

static char **
copy_strv(const char *const *v, size_t n)
{
	char **c = n ? xcalloc(n, sizeof(*c)) : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

static void
free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct rntop_ssh *
rntop_ssh_new(const struct rntop_ssh_conf *conf, rntop_ssh_snap_cb cb,
    void *ud, struct rai_err *err)
{
	struct rntop_ssh *e;
	struct timespec ts;

	if (conf->nvidia_smi == NULL || !rntop_remote_path_ok(conf->nvidia_smi))
		return rai_err_set(err, RAI_E_USAGE, "--nvidia-smi '%s' cannot "
		    "be sent to a remote shell: use letters, digits and "
		    "/._+- only", conf->nvidia_smi ? conf->nvidia_smi : ""),
		    NULL;
	if (!libssh2_ready) {
		if (libssh2_init(0) != 0)
			return rai_err_set(err, RAI_E_SSH, "cannot start "
			    "libssh2"), NULL;
		libssh2_ready = 1;
	}
	e = xcalloc(1, sizeof(*e));
	e->conf = *conf;
	e->nvidia_smi = xstrdup(conf->nvidia_smi);
	e->query = xstrdup(conf->query);
	e->conf.nvidia_smi = e->nvidia_smi;
	e->conf.query = e->query;
	e->cmd_once = rntop_remote_command(e->nvidia_smi, e->query, 0);
	e->cmd_loop = rntop_remote_command(e->nvidia_smi, e->query,
	    conf->loop_ms > 0 ? conf->loop_ms : 1000);
	basic_commands(e, 0);
	if (e->cmd_once == NULL || e->cmd_loop == NULL) {
		rntop_ssh_free(e);
		return rai_err_set(err, RAI_E_INTERNAL, "bad remote query"),
		    NULL;
	}
	if (e->conf.max_connecting < 1)
		e->conf.max_connecting = 1;
	e->cb = cb;
	e->ud = ud;
	clock_gettime(CLOCK_REALTIME, &ts);
	e->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	    ((uint64_t)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
	return e;
}

int
rntop_ssh_owners(struct rntop_ssh *e, rntop_ssh_procs_cb cb,
    struct rai_err *err)
{
	char *once, *loop;

	once = rntop_remote_command_owners(e->nvidia_smi, e->query, 0);
	loop = rntop_remote_command_owners(e->nvidia_smi, e->query,
	    e->conf.loop_ms > 0 ? e->conf.loop_ms : 1000);
	if (once == NULL || loop == NULL) {
		free(once);
		free(loop);
		return rai_err_set(err, RAI_E_INTERNAL, "bad remote query");
	}
	free(e->cmd_once);
	free(e->cmd_loop);
	e->cmd_once = once;
	e->cmd_loop = loop;
	basic_commands(e, 1);
	e->procs_cb = cb;
	return 0;
}

size_t
rntop_ssh_add(struct rntop_ssh *e, const struct rntop_ssh_target *t)
{
	struct host *h = xcalloc(1, sizeof(*h));

	h->eng = e;
	h->idx = e->n;
	h->name = xstrdup(t->name);
	h->hostname = xstrdup(t->hostname);
	h->user = xstrdup(t->user);
	h->port = t->port > 0 ? t->port : 22;
	/* known_hosts names a host as OpenSSH does: "[host]:port" off 22 */
	h->kh_name = h->port == 22 ? xstrdup(h->hostname) :
	    xasprintf("[%s]:%d", h->hostname, h->port);
	h->ids = copy_strv(t->identities, t->nidentities);
	h->nids = t->nidentities;
	h->kh = copy_strv(t->known_hosts, t->nknown_hosts);
	h->nkh = t->nknown_hosts;
	h->gkh = copy_strv(t->global_known_hosts, t->nglobal_known_hosts);
	h->ngkh = t->nglobal_known_hosts;
	h->strict = t->strict == RNTOP_SHK_UNSET ? RNTOP_SHK_YES : t->strict;
	h->fd = -1;
	h->state = RNTOP_SSH_IDLE;
	h->wake_at = 0;
	rai_buf_init(&h->errbuf, STDERR_MAX + 1);
	e->hosts = xreallocarray(e->hosts, e->n + 1, sizeof(*e->hosts));
	e->hosts[e->n++] = h;
	return h->idx;
}

size_t
rntop_ssh_count(const struct rntop_ssh *e)
{
	return e->n;
}

static void
set_error(struct host *h, enum rntop_ssh_fail f, char *take)
{
	free(h->error);
	h->error = take;
	h->fail = f;
}

/* libssh2's last error message, or fallback. */
static const char *
ssh_msg(struct host *h, const char *fallback)
{
	char *msg = NULL;
	int len = 0;

	if (h->s != NULL &&
	    libssh2_session_last_error(h->s, &msg, &len, 0) != 0 &&
	    msg != NULL && *msg != '\0')
		return msg;
	return fallback;
}

static void
release_slot(struct host *h)
{
	if (h->counted) {
		h->counted = 0;
		h->eng->connecting--;
	}
}

static void
parser_stop(struct host *h)
{
	unsigned long k;
	const char *line;

	if (h->ps_live) {
		/* its last lines outlive it, for the caller to read */
		for (k = 1; k <= h->ps.noise; k++)
			if ((line = rntop_gpustat_noise_line(&h->ps, k)) != NULL)
				snprintf(h->noise_kept[(h->noise_base + k - 1) %
				    RNTOP_NOISE_KEEP], sizeof(h->noise_kept[0]),
				    "%s", line);
		h->noise_base += h->ps.noise;
		rntop_gpustat_release(&h->ps);
		h->ps_live = 0;
	}
}

/* Drops the session and socket at once (no goodbye round trips). */
static void
teardown(struct host *h)
{
	release_slot(h);
	parser_stop(h);
	if (h->fd != -1)
		shutdown(h->fd, SHUT_RDWR);	/* libssh2 cannot block now */
	if (h->agent != NULL) {
		libssh2_agent_disconnect(h->agent);
		libssh2_agent_free(h->agent);
		h->agent = NULL;
		h->agent_id = NULL;
	}
	if (h->s != NULL) {
		/* sends fail on the shut socket, so channels free at once */
		libssh2_session_free(h->s);
		h->s = NULL;
	}
	h->ch = NULL;
	h->ch_phase = CH_NONE;
	if (h->fd != -1) {
		close(h->fd);
		h->fd = -1;
	}
	if (h->ai != NULL) {
		freeaddrinfo(h->ai);
		h->ai = h->ai_cur = NULL;
	}
	free(h->auth_tried);
	h->auth_tried = NULL;
}

/* A failure: the host backs off (or stops for good). */
static void
fail(struct host *h, enum rntop_ssh_fail f, int sticky, char *take)
{
	struct rntop_ssh *e = h->eng;
	double delay;

	teardown(h);
	set_error(h, f, take);
	if (!e->conf.reconnect) {
		h->state = RNTOP_SSH_FAILED;
		h->wake_at = 0;
		return;
	}
	/* a refused key or login will not fix itself soon */
	delay = sticky ? e->conf.backoff_max :
	    rntop_backoff(h->attempt, e->conf.backoff_base,
	    e->conf.backoff_max, random01(e));
	if (delay < 0.05)
		delay = 0.05;
	if (h->attempt < 30)
		h->attempt++;
	h->state = RNTOP_SSH_BACKOFF;
	h->retry_at = e->now + delay;
	h->wake_at = h->retry_at;
}

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Starts a TCP connect to the next address; 0, or -1 when none is left. */
static int
connect_next(struct host *h)
{
	int one = 1;

	for (; h->ai_cur != NULL; h->ai_cur = h->ai_cur->ai_next) {
		if (h->fd != -1)
			close(h->fd);
		h->fd = socket(h->ai_cur->ai_family, h->ai_cur->ai_socktype |
		    SOCK_CLOEXEC, h->ai_cur->ai_protocol);
		if (h->fd == -1 || set_nonblock(h->fd) == -1)
			continue;
		setsockopt(h->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(h->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		if (connect(h->fd, h->ai_cur->ai_addr,
		    h->ai_cur->ai_addrlen) == 0 || errno == EINPROGRESS)
			return 0;
	}
	if (h->fd != -1) {
		close(h->fd);
		h->fd = -1;
	}
	return -1;
}

static void
start_connect(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	struct addrinfo hints;
	char port[16];
	int rc;

	h->counted = 1;
	e->connecting++;
	h->answered = 0;
	h->agent_done = 0;
	h->key_i = 0;
	h->deadline = e->now + e->conf.connect_timeout;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%d", h->port);
	/* getaddrinfo blocks; names from /etc/hosts or numbers are quick */
	rc = getaddrinfo(h->hostname, port, &hints, &h->ai);
	if (rc != 0) {
		h->ai = NULL;
		fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("cannot resolve %s: %s",
		    h->hostname, gai_strerror(rc)));
		return;
	}
	h->ai_cur = h->ai;
	if (connect_next(h) == -1) {
		fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("cannot connect to "
		    "%s port %d: %s", h->hostname, h->port, strerror(errno)));
		return;
	}
	h->state = RNTOP_SSH_CONNECT;
}

/* Reads every known_hosts file: the key types for this host, @revoked. */
struct kh_scan {
	char	methods[256];
	int	revoked;
	int	ca_lines;
};

/*
 * Reads one known_hosts file whole into *data (NULL for a missing file:
 * no entries, as ssh has it). A file that cannot be read, or one over
 * KNOWN_HOSTS_MAX, is an error with *why: the key must never be checked
 * against part of a file, whose rest may hold the @revoked line.
 */
static int
read_known_hosts(const char *path, char **data, size_t *len, char **why)
{
	struct rai_err err = RAI_ERR_INIT;

	*data = NULL;
	*len = 0;
	if (rai_file_read(path, KNOWN_HOSTS_MAX, data, len, &err) == 0)
		return 0;
	if (err.sys_errno == ENOENT || err.sys_errno == ENOTDIR) {
		rai_err_release(&err);
		return 0;
	}
	if (err.sys_errno == EFBIG)
		*why = xasprintf("known_hosts file '%s' is larger than %zu MiB; "
		    "refusing to check host keys against part of it", path,
		    KNOWN_HOSTS_MAX >> 20);
	else
		*why = xasprintf("cannot read known_hosts file '%s': %s", path,
		    strerror(err.sys_errno));
	rai_err_release(&err);
	return -1;
}

static void
add_method(struct kh_scan *sc, const char *m)
{
	size_t n = strlen(sc->methods);

	if (strstr(sc->methods, m) != NULL ||
	    n + strlen(m) + 2 > sizeof(sc->methods))
		return;
	snprintf(sc->methods + n, sizeof(sc->methods) - n, "%s%s",
	    n ? "," : "", m);
}

/*
 * Feeds one file's lines to libssh2 (plain entries), and notes the key
 * types for this host and whether the server's key is @revoked.
 */
static int
load_known_hosts(struct host *h, LIBSSH2_KNOWNHOSTS *kh, const char *path,
    const char *key, size_t keylen, struct kh_scan *sc, char **why)
{
	struct rntop_kh_line kl;
	const char *p, *end, *nl, *m;
	unsigned char *raw;
	size_t rawlen, len;
	char *data;

	if (read_known_hosts(path, &data, &len, why) == -1)
		return -1;
	p = data != NULL ? data : "";
	end = p + len;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		rntop_kh_split(p, (size_t)(nl - p), &kl);
		if (kl.kind == RNTOP_KH_SKIP)
			continue;
		if (kl.kind == RNTOP_KH_CA) {
			sc->ca_lines++;
			continue;
		}
		if (!rntop_kh_hosts_match(kl.hosts, kl.hosts_len, h->hostname,
		    h->port))
			continue;
		if (kl.kind == RNTOP_KH_REVOKED) {
			if (key != NULL && (raw = rai_base64_decode(kl.key,
			    kl.key_len, RAI_B64_PAD_OPTIONAL, &rawlen)) != NULL) {
				if (rawlen == keylen &&
				    memcmp(raw, key, keylen) == 0)
					sc->revoked = 1;
				free(raw);
			}
			continue;
		}
		if ((m = rntop_hostkey_methods(kl.keytype, kl.keytype_len)))
			add_method(sc, m);
		if (kh != NULL) {
			/* libssh2 reads past the length: give it a string */
			char *line = xstrndup(kl.entry, kl.entry_len);

			/* a line libssh2 cannot read is skipped, as ssh does */
			(void)libssh2_knownhost_readline(kh, line,
			    kl.entry_len, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
			free(line);
		}
	}
	free(data);
	return 0;
}

/* Every known_hosts file, the user's then the global ones; -1 with *why. */
static int
scan_all(struct host *h, LIBSSH2_KNOWNHOSTS *kh, const char *key,
    size_t keylen, struct kh_scan *sc, char **why)
{
	size_t i;

	memset(sc, 0, sizeof(*sc));
	for (i = 0; i < h->nkh; i++)
		if (load_known_hosts(h, kh, h->kh[i], key, keylen, sc,
		    why) == -1)
			return -1;
	for (i = 0; i < h->ngkh; i++)
		if (load_known_hosts(h, kh, h->gkh[i], key, keylen, sc,
		    why) == -1)
			return -1;
	return 0;
}

static const char *
keytype_name(int type, int *kbit)
{
	switch (type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		*kbit = LIBSSH2_KNOWNHOST_KEY_SSHRSA;
		return "ssh-rsa";
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		*kbit = LIBSSH2_KNOWNHOST_KEY_SSHDSS;
		return "ssh-dss";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
		return "ecdsa-sha2-nistp256";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
		return "ecdsa-sha2-nistp384";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
		return "ecdsa-sha2-nistp521";
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		*kbit = LIBSSH2_KNOWNHOST_KEY_ED25519;
		return "ssh-ed25519";
	}
	*kbit = LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
	return "unknown";
}

/* Makes the directory of path (one level, 0700) when it is missing. */
static void
make_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	free(dir);
}

/* accept-new: appends "name keytype base64" to the first user file. */
static int
learn_key(struct host *h, const char *keytype, const char *key,
    size_t keylen)
{
	char *b64, *line;
	ssize_t w;
	int fd;

	if (h->nkh == 0)
		return -1;
	make_parent(h->kh[0]);
	fd = open(h->kh[0], O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		return -1;
	b64 = rai_base64_encode(key, keylen);
	line = xasprintf("%s %s %s\n", h->kh_name, keytype, b64);
	w = write(fd, line, strlen(line));
	free(b64);
	close(fd);
	w = w == (ssize_t)strlen(line) ? 0 : -1;
	free(line);
	return (int)w;
}

/* Checks the server's host key; 0 when the host may be used. */
static int
check_hostkey(struct host *h)
{
	LIBSSH2_KNOWNHOSTS *kh;
	const unsigned char *hash;
	const char *key, *tname;
	struct kh_scan sc;
	size_t keylen = 0;
	char *why = NULL;
	int type = 0, kbit, rc;

	key = libssh2_session_hostkey(h->s, &keylen, &type);
	hash = (const unsigned char *)libssh2_hostkey_hash(h->s,
	    LIBSSH2_HOSTKEY_HASH_SHA256);
	if (key == NULL || hash == NULL) {
		fail(h, RNTOP_SSHF_HOSTKEY, 1, xasprintf("%s: no host key "
		    "from the server", h->kh_name));
		return -1;
	}
	rntop_fp_sha256(hash, h->fp, sizeof(h->fp));
	tname = keytype_name(type, &kbit);
	if ((kh = libssh2_knownhost_init(h->s)) == NULL) {
		fail(h, RNTOP_SSHF_HOSTKEY, 0, xstrdup("cannot check known "
		    "hosts: out of memory"));
		return -1;
	}
	if (scan_all(h, kh, key, keylen, &sc, &why) == -1) {
		libssh2_knownhost_free(kh);
		fail(h, RNTOP_SSHF_HOSTKEY, 1, why);
		return -1;
	}
	if (sc.revoked) {
		libssh2_knownhost_free(kh);
		fail(h, RNTOP_SSHF_HOSTKEY, 1, xasprintf("host key for %s is "
		    "REVOKED in known_hosts: %s %s", h->kh_name, tname, h->fp));
		return -1;
	}
	rc = libssh2_knownhost_checkp(kh, h->kh_name, -1, key, keylen,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | kbit,
	    NULL);
	libssh2_knownhost_free(kh);
	free(h->warning);
	h->warning = NULL;
	if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH)
		return 0;
	if (h->strict == RNTOP_SHK_NO) {
		h->warning = xasprintf("host key for %s not checked (%s %s)",
		    h->kh_name, tname, h->fp);
		return 0;
	}
	if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
		fail(h, RNTOP_SSHF_HOSTKEY, 1, xasprintf("HOST KEY MISMATCH "
		    "for %s: the server offers %s %s, known_hosts has "
		    "another key (refused)", h->kh_name, tname, h->fp));
		return -1;
	}
	if (rc == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND &&
	    h->strict == RNTOP_SHK_ACCEPT_NEW) {
		if (learn_key(h, tname, key, keylen) == 0) {
			h->warning = xasprintf("learnt host key for %s: %s %s",
			    h->kh_name, tname, h->fp);
			return 0;
		}
		fail(h, RNTOP_SSHF_HOSTKEY, 1, xasprintf("cannot add the host "
		    "key for %s to %s: %s", h->kh_name,
		    h->nkh ? h->kh[0] : "known_hosts", strerror(errno)));
		return -1;
	}
	fail(h, RNTOP_SSHF_HOSTKEY, 1, xasprintf("host key for %s is not "
	    "known: %s %s (add it to known_hosts, or use "
	    "--strict-host-key-checking accept-new)", h->kh_name, tname,
	    h->fp));
	return -1;
}

static void
start_session(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	struct kh_scan sc;
	char *why = NULL;

	h->s = libssh2_session_init_ex(NULL, NULL, NULL, h);
	if (h->s == NULL) {
		fail(h, RNTOP_SSHF_DOWN, 0, xstrdup("cannot start an SSH "
		    "session: out of memory"));
		return;
	}
	libssh2_session_set_blocking(h->s, 0);
	/* ask for the key type known_hosts has, so the check can match */
	if (scan_all(h, NULL, NULL, 0, &sc, &why) == -1) {
		fail(h, RNTOP_SSHF_HOSTKEY, 1, why);
		return;
	}
	if (sc.methods[0] != '\0')
		libssh2_session_method_pref(h->s, LIBSSH2_METHOD_HOSTKEY,
		    sc.methods);
	if (e->conf.keepalive > 0)
		libssh2_keepalive_config(h->s, 0,
		    (unsigned)(e->conf.keepalive + 0.5));
	h->state = RNTOP_SSH_HANDSHAKE;
}

/* After TCP connected: SO_ERROR tells whether it worked. */
static void
step_connect(struct host *h, short revents)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
		return;
	if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		soerr = errno;
	if (soerr != 0) {
		h->ai_cur = h->ai_cur ? h->ai_cur->ai_next : NULL;
		if (connect_next(h) == 0)
			return;
		fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("cannot connect to %s "
		    "port %d: %s", h->hostname, h->port, strerror(soerr)));
		return;
	}
	start_session(h);
}

static void
authenticated(struct host *h);
static int
transport_error(int rc);

/* One try of the agent's identities; 1 done (ok), 0 again, -1 none left. */
static int
try_agent(struct host *h)
{
	int rc;

	if (h->agent_done)
		return -1;
	if (h->agent == NULL) {
		const char *sock = getenv("SSH_AUTH_SOCK");

		if (!h->eng->conf.use_agent || sock == NULL || *sock == '\0' ||
		    (h->agent = libssh2_agent_init(h->s)) == NULL)
			goto done;
		if (libssh2_agent_connect(h->agent) != 0 ||
		    libssh2_agent_list_identities(h->agent) != 0)
			goto done;
		h->agent_id = NULL;
		if (libssh2_agent_get_identity(h->agent, &h->agent_id,
		    NULL) != 0)
			goto done;
		h->auth_tried = xstrdup("ssh-agent");
	}
	for (;;) {
		rc = libssh2_agent_userauth(h->agent, h->user, h->agent_id);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc == 0)
			return 1;
		if (libssh2_agent_get_identity(h->agent, &h->agent_id,
		    h->agent_id) != 0)
			goto done;
	}
done:
	h->agent_done = 1;
	return -1;
}

static void
note_tried(struct host *h, const char *what)
{
	char *t = h->auth_tried ? xasprintf("%s, %s", h->auth_tried, what) :
	    xstrdup(what);

	free(h->auth_tried);
	h->auth_tried = t;
}

/* Key files in order; 1 done (ok), 0 again, -1 none left, -2 lost. */
static int
try_keys(struct host *h)
{
	int rc;

	for (; h->key_i < h->nids; h->key_i++) {
		const char *k = h->ids[h->key_i];

		if (access(k, R_OK) != 0)
			continue;
		rc = libssh2_userauth_publickey_fromfile_ex(h->s, h->user,
		    (unsigned)strlen(h->user), NULL, k, NULL);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc == 0)
			return 1;
		if (transport_error(rc))
			return -2;
		/* refused, unreadable or passphrase-protected: the next */
		note_tried(h, k);
	}
	return -1;
}

static void
step_auth(struct host *h)
{
	int rc;

	rc = try_agent(h);
	if (rc == 0)
		return;
	if (rc == 1) {
		authenticated(h);
		return;
	}
	rc = try_keys(h);
	if (rc == 0)
		return;
	if (rc == 1) {
		authenticated(h);
		return;
	}
	if (rc == -2) {
		fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("connection to %s lost "
		    "during authentication: %s", h->kh_name,
		    ssh_msg(h, "disconnected")));
		return;
	}
	fail(h, RNTOP_SSHF_AUTH, 1, xasprintf("authentication failed for "
	    "%s@%s (tried: %s)", h->user, h->kh_name,
	    h->auth_tried ? h->auth_tried : "no agent, no key file"));
}

/* Whether a GPU came, went or changed its memory in use. */
static int
memory_changed(const struct rntop_snap *a, const struct rntop_snap *b)
{
	size_t i;
	unsigned mv = RNTOP_V(RNTOP_F_MEM_USED);

	if (a->n != b->n)
		return 1;
	for (i = 0; i < a->n; i++) {
		const struct rntop_gpu *x = &a->gpus[i], *y = &b->gpus[i];

		if (x->index != y->index || strcmp(x->uuid, y->uuid) != 0 ||
		    (x->valid & mv) != (y->valid & mv) ||
		    ((x->valid & mv) && x->mem_used != y->mem_used))
			return 1;
	}
	return 0;
}

/*
 * Whether every GPU of s is known to hold no memory: then no process
 * runs on any (each CUDA context holds some; an idle H100 or H200
 * reads 0 MiB, tests/fixtures/nvidia-smi/real). Unknown is not 0, and
 * a GPU in MIG mode (or of unknown mode) never counts: its processes
 * live in instances this figure does not describe.
 */
static int
no_memory_in_use(const struct rntop_snap *s)
{
	size_t i;
	unsigned mv = RNTOP_V(RNTOP_F_MEM_USED), gv = RNTOP_V(RNTOP_F_MIG);

	if (s->n == 0)
		return 0;
	for (i = 0; i < s->n; i++) {
		const struct rntop_gpu *g = &s->gpus[i];

		if (!(g->valid & mv) || g->mem_used > 0 || !(g->valid & gv) ||
		    g->mig)
			return 0;
	}
	return 1;
}

static void own_known_empty(struct host *);

/*
 * With owners beside the stream: a new block is asked for when the
 * GPUs' memory in use changed since the last request (a process came or
 * went: every GPU process holds memory), or the last one is older than
 * owner_every (a pod may have replaced a process of the same size).
 * Each block costs the host an nvidia-smi start; a steady host asks
 * rarely, and an idle one (no memory in use anywhere) never: its block
 * is known to list no process (own_known_empty). One request at a
 * time; one lost is given up after the stream's dead time.
 */
static void
own_request(struct host *h, const struct rntop_snap *s)
{
	struct rntop_ssh *e = h->eng;

	if (e->procs_cb == NULL || !h->ch_loop)
		return;
	if (h->own_ref.n == 0) {
		/* the block the command prints at its start is for these */
		rntop_snap_copy(&h->own_ref, s);
		return;
	}
	if (h->own_pending && e->now - h->own_asked <= dead_after(e))
		return;
	if (!memory_changed(s, &h->own_ref) &&
	    e->now - h->own_asked < e->conf.owner_every)
		return;
	rntop_snap_copy(&h->own_ref, s);
	if (no_memory_in_use(s)) {
		own_known_empty(h);
		return;
	}
	h->own_want = 1;
	h->own_pending = 0;
}

/*
 * The block of a host with no memory in use, without an nvidia-smi
 * run: no process, the driver of the last block (it does not change
 * under a running stream).
 */
static void
own_known_empty(struct host *h)
{
	struct rntop_procs none;

	memset(&none, 0, sizeof(none));
	none.apps_ok = 1;
	memcpy(none.driver, h->of.cur.driver, sizeof(none.driver));
	h->own_want = 0;
	h->own_pending = 0;
	h->own_asked = h->eng->now;
	h->eng->procs_cb(h->eng->ud, h->idx, &none);
}

/* Writes a pending request (one newline); libssh2 may say later. */
static void
own_write(struct host *h)
{
	ssize_t n;

	if (!h->own_want || h->ch == NULL)
		return;
	n = libssh2_channel_write(h->ch, "\n", 1);
	if (n == LIBSSH2_ERROR_EAGAIN)
		return;
	/* an error here shows as a lost channel on the next read */
	h->own_want = 0;
	h->own_pending = n == 1;
	h->own_asked = h->eng->now;
}

static void
on_snap(void *ud, const struct rntop_snap *s)
{
	struct host *h = ud;

	h->ch_snaps++;
	h->answered = 1;
	/* a reconnected stream's first sample frames at its last row */
	rntop_snap_copy(&h->inventory, s);
	set_error(h, RNTOP_SSHF_NONE, NULL);
	if (h->eng->cb != NULL)
		h->eng->cb(h->eng->ud, h->idx, s);
	own_request(h, s);
}

static void
on_procs(void *ud, const struct rntop_procs *p)
{
	struct host *h = ud;

	h->own_pending = 0;
	h->eng->procs_cb(h->eng->ud, h->idx, p);
}

static void
on_owner_line(void *ud, const char *line, size_t len)
{
	struct host *h = ud;

	rntop_ownerframe_line(&h->of, line, len);
}

/* Live with reconnects: a long-running stream per host, not a one-shot. */
static int
streaming(const struct rntop_ssh *e)
{
	return e->conf.reconnect && e->conf.loop_ms > 0;
}

static void
open_channel(struct host *h, int loop)
{
	parser_stop(h);
	rntop_gpustat_init(&h->ps, on_snap, h);
	rntop_gpustat_limits(&h->ps, h->eng->cmd_once_basic != NULL &&
	    !h->basic);
	h->ps_live = 1;
	if (h->eng->procs_cb != NULL) {
		rntop_ownerframe_release(&h->of);
		rntop_ownerframe_init(&h->of, on_procs, h);
		rntop_gpustat_side(&h->ps, RNTOP_OWNER_PREFIX, on_owner_line,
		    h);
	}
	if (loop && h->inventory.n > 0)
		rntop_gpustat_expect(&h->ps, &h->inventory);
	rai_buf_reset(&h->errbuf);
	h->ch_loop = loop;
	h->ch_snaps = 0;
	/* the stream's command prints one owner block unasked */
	h->own_want = 0;
	h->own_pending = 1;
	h->own_asked = h->eng->now;
	h->own_ref.n = 0;
	h->ch_phase = CH_OPEN;
	h->last_out = h->eng->now;
	h->deadline = h->eng->now + h->eng->conf.timeout;
}

static void
authenticated(struct host *h)
{
	release_slot(h);
	h->connects++;
	h->healthy_since = h->eng->now;
	if (h->agent != NULL) {
		libssh2_agent_disconnect(h->agent);
		libssh2_agent_free(h->agent);
		h->agent = NULL;
		h->agent_id = NULL;
	}
	/*
	 * One nvidia-smi per host: live, the -lms stream starts at once
	 * and its first sample is the inventory (framed when its burst of
	 * rows goes quiet, or at its last row when an earlier connection
	 * saw the GPU set); a separate one-shot first would double the
	 * remote start-up, the driver's initialisation included. --once
	 * (and a host that fell back to polling) runs the one-shot alone.
	 */
	if (streaming(h->eng) && !h->polling) {
		h->state = RNTOP_SSH_STREAM;
		open_channel(h, 1);
		return;
	}
	h->state = h->polling ? RNTOP_SSH_POLL : RNTOP_SSH_INVENTORY;
	open_channel(h, 0);
}

static int
transport_error(int rc)
{
	return rc == LIBSSH2_ERROR_SOCKET_RECV ||
	    rc == LIBSSH2_ERROR_SOCKET_SEND ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_NONE || rc == LIBSSH2_ERROR_TIMEOUT ||
	    rc == LIBSSH2_ERROR_KEX_FAILURE || rc == LIBSSH2_ERROR_DECRYPT;
}

static void
lost(struct host *h, int rc)
{
	fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("connection to %s lost: %s",
	    h->kh_name, ssh_msg(h, rc == 0 ? "closed by the server" :
	    "error")));
}

/* The first stderr line, sanitised, or NULL. */
static char *
stderr_line(struct host *h)
{
	const char *s;
	char *line, *p;
	size_t n;

	if (h->errbuf.len == 0)
		return NULL;
	s = rai_buf_str(&h->errbuf);
	n = strcspn(s, "\r\n");
	if (n > 200)
		n = 200;
	line = xstrndup(s, n);
	for (p = line; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	return line;
}

/* Why a channel gave no data: its exit status and what it said. */
static char *
nvsmi_failure(struct host *h, int status, const char *sig)
{
	char *said = NULL, *msg;
	char how[96];

	if (h->ps_live && h->ps.last_noise[0] != '\0')
		said = xstrdup(h->ps.last_noise);
	else
		said = stderr_line(h);
	if (sig != NULL)
		snprintf(how, sizeof(how), "nvidia-smi was killed by SIG%s",
		    sig);
	else if (status == 127)
		snprintf(how, sizeof(how), "nvidia-smi not found on %s "
		    "(exit 127)", h->name);
	else
		snprintf(how, sizeof(how), "nvidia-smi exited with status %d",
		    status);
	if (said != NULL && *said != '\0')
		msg = xasprintf("%s: %s", how, said);
	else
		msg = xstrdup(status == 0 && sig == NULL ?
		    "nvidia-smi listed no GPUs" : how);
	free(said);
	return msg;
}

/* A one-shot or the stream ended (the channel is closed and freed). */
static void
channel_done(struct host *h, int status, char *sig)
{
	struct rntop_ssh *e = h->eng;
	unsigned long got;

	if (h->ps_live)
		rntop_gpustat_finish(&h->ps);
	got = h->ch_snaps;
	/*
	 * An older nvidia-smi refused the limits' fields: the same again
	 * at once without them; the refusal was rntop's question, not a
	 * line about the GPUs, so it is not kept as noise.
	 */
	if (got == 0 && !h->basic && e->cmd_once_basic != NULL &&
	    h->ps_live && rntop_gpustat_refused(&h->ps)) {
		h->basic = 1;
		rntop_gpustat_release(&h->ps);
		h->ps_live = 0;
		free(sig);
		open_channel(h, h->ch_loop);
		return;
	}
	if (h->ch_loop) {
		/*
		 * No sample at all: the loop form may not work here (an old
		 * nvidia-smi refuses -lms), so one-shots are tried; they fail
		 * with the same message when nvidia-smi itself is broken. A
		 * missing nvidia-smi (127) is not worth the round trip.
		 */
		if (got == 0 && !h->polling && status != 127 && sig == NULL) {
			h->polling = 1;
			h->polled_ok = 0;
			h->state = RNTOP_SSH_POLL;
			h->next_poll = e->now;
			parser_stop(h);
			free(sig);
			return;
		}
		fail(h, RNTOP_SSHF_NVSMI, 0, nvsmi_failure(h, status, sig));
		free(sig);
		return;
	}
	if (got == 0) {
		/*
		 * Polling never worked either: nvidia-smi is broken, not its
		 * loop form, so the next session tries the stream again.
		 */
		if (h->polling && !h->polled_ok)
			h->polling = 0;
		fail(h, RNTOP_SSHF_NVSMI, 0, nvsmi_failure(h, status, sig));
		free(sig);
		return;
	}
	if (h->polling)
		h->polled_ok = 1;
	free(sig);
	parser_stop(h);
	if (!e->conf.reconnect || e->conf.loop_ms == 0) {
		/* --once: the answer is in; leave politely but quickly */
		teardown(h);
		h->state = RNTOP_SSH_DONE;
		h->wake_at = 0;
		return;
	}
	if (h->polling) {
		h->state = RNTOP_SSH_POLL;
		return;
	}
	h->state = RNTOP_SSH_STREAM;
	open_channel(h, 1);
}

/* Reads stdout and stderr until libssh2 has nothing more; 1 at EOF. */
static int
drain(struct host *h)
{
	char buf[16384];
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		n = libssh2_channel_read_ex(h->ch, 0, buf, sizeof(buf));
		if (n > 0) {
			h->last_out = h->eng->now;
			rntop_gpustat_feed(&h->ps, buf, (size_t)n);
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			break;
		return (int)n;
	}
	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		n = libssh2_channel_read_ex(h->ch, SSH_EXTENDED_DATA_STDERR,
		    buf, sizeof(buf));
		if (n > 0) {
			if (h->errbuf.len < STDERR_MAX)
				rai_buf_add(&h->errbuf, buf,
				    (size_t)n < STDERR_MAX - h->errbuf.len ?
				    (size_t)n : STDERR_MAX - h->errbuf.len);
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
			break;
		return (int)n;
	}
	return libssh2_channel_eof(h->ch) ? 1 : 0;
}

/* Drives the channel; returns -1 when the host failed (torn down). */
static int
step_channel(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	char *sig = NULL;
	int rc, status;

	switch (h->ch_phase) {
	case CH_NONE:
		return 0;
	case CH_OPEN:
		h->ch = libssh2_channel_open_session(h->s);
		if (h->ch == NULL) {
			rc = libssh2_session_last_errno(h->s);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return 0;
			if (transport_error(rc))
				lost(h, rc);
			else
				fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("%s "
				    "refused a session channel: %s", h->kh_name,
				    ssh_msg(h, "channel failure")));
			return -1;
		}
		h->ch_phase = CH_EXEC;
		/* FALLTHROUGH */
	case CH_EXEC:
		rc = libssh2_channel_exec(h->ch, h->basic ? (h->ch_loop ?
		    e->cmd_loop_basic : e->cmd_once_basic) : h->ch_loop ?
		    e->cmd_loop : e->cmd_once);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc != 0) {
			if (transport_error(rc))
				lost(h, rc);
			else
				fail(h, RNTOP_SSHF_NVSMI, 0, xasprintf("%s "
				    "refused to run a command: %s", h->kh_name,
				    ssh_msg(h, "exec failed")));
			return -1;
		}
		h->ch_phase = CH_READ;
		/* FALLTHROUGH */
	case CH_READ:
		own_write(h);
		rc = drain(h);
		if (rc < 0) {
			lost(h, rc);
			return -1;
		}
		if (rc == 0) {
			own_write(h);	/* asked for by a sample just read */
			return 0;
		}
		h->ch_phase = CH_CLOSE;
		/* FALLTHROUGH */
	case CH_CLOSE:
		rc = libssh2_channel_close(h->ch);
		if (rc == 0)
			rc = libssh2_channel_wait_closed(h->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (rc != 0 && transport_error(rc)) {
			lost(h, rc);
			return -1;
		}
		status = libssh2_channel_get_exit_status(h->ch);
		libssh2_channel_get_exit_signal(h->ch, &sig, NULL, NULL, NULL,
		    NULL, NULL);
		libssh2_channel_free(h->ch);
		h->ch = NULL;
		h->ch_phase = CH_NONE;
		channel_done(h, status, sig);
		return h->state == RNTOP_SSH_BACKOFF ||
		    h->state == RNTOP_SSH_FAILED ? -1 : 0;
	}
	return 0;
}

static double
dead_after(const struct rntop_ssh *e)
{
	return 2 * (e->conf.interval + e->conf.timeout);
}

/* A one-shot, or a stream that has sent no row yet: --timeout applies. */
static int
first_rows_due(const struct host *h)
{
	return !h->ch_loop || (h->ps_live && h->ps.rows == 0);
}

/* Timers of a connected host: silence, quiet flush, polls, keepalive. */
static void
step_timers(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	double quiet = e->conf.interval / 4;
	int secs = 0;

	if (quiet < 0.05)
		quiet = 0.05;
	if (quiet > 0.5)
		quiet = 0.5;
	/*
	 * The caller marks data stale after interval + timeout; twice that
	 * the stream is given up (a hung driver keeps TCP and SSH happy).
	 */
	if (h->ch_phase != CH_NONE && h->ch_loop &&
	    e->now - h->last_out > dead_after(e)) {
		fail(h, RNTOP_SSHF_TIMEOUT, 0, xasprintf("nvidia-smi sent "
		    "nothing for %g s; reconnecting", dead_after(e)));
		return;
	}
	/* the stream's first rows are the inventory: the one-shot's limit */
	if (h->ch_phase != CH_NONE && first_rows_due(h) &&
	    e->now > h->deadline) {
		fail(h, RNTOP_SSHF_TIMEOUT, 0, xasprintf("nvidia-smi did not "
		    "answer in %g s", e->conf.timeout));
		return;
	}
	/* a loop iteration's rows come in one burst: quiet means complete */
	if (h->ch_phase == CH_READ && h->ch_loop && h->ps_live &&
	    h->ps.cur.n > 0 && e->now - h->last_out >= quiet) {
		rntop_gpustat_flush(&h->ps);
		own_write(h);
	}
	if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE &&
	    e->now >= h->next_poll) {
		h->next_poll = e->now + e->conf.interval;
		open_channel(h, 0);
	}
	/* two minutes of health forgive earlier failures */
	if (h->attempt > 0 && e->now - h->healthy_since > 120)
		h->attempt = 0;
	if (h->s != NULL && e->conf.keepalive > 0)
		libssh2_keepalive_send(h->s, &secs);
}

/* When this host next needs a step without socket activity. */
static double
next_wake(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	double w = 0, quiet = e->conf.interval / 4;

	if (quiet < 0.05)
		quiet = 0.05;
	if (quiet > 0.5)
		quiet = 0.5;
#define SOONER(t) do { double t_ = (t); if (w == 0 || t_ < w) w = t_; } while (0)
	switch (h->state) {
	case RNTOP_SSH_CONNECT:
	case RNTOP_SSH_HANDSHAKE:
	case RNTOP_SSH_AUTH:
		SOONER(h->deadline);
		break;
	case RNTOP_SSH_BACKOFF:
		SOONER(h->retry_at);
		break;
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		if (h->ch_phase != CH_NONE && h->ch_loop)
			SOONER(h->last_out + dead_after(e));
		if (h->ch_phase != CH_NONE && first_rows_due(h))
			SOONER(h->deadline);
		if (h->ch_phase == CH_READ && h->ch_loop && h->ps_live &&
		    h->ps.cur.n > 0)
			SOONER(h->last_out + quiet);
		if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE)
			SOONER(h->next_poll);
		if (e->conf.keepalive > 0)
			SOONER(e->now + e->conf.keepalive);
		break;
	default:
		break;
	}
#undef SOONER
	return w;
}

static void
step_host(struct host *h, short revents)
{
	struct rntop_ssh *e = h->eng;
	int rc;

	switch (h->state) {
	case RNTOP_SSH_IDLE:
		if (e->connecting < e->conf.max_connecting)
			start_connect(h);
		break;
	case RNTOP_SSH_BACKOFF:
		if (e->now >= h->retry_at) {
			h->state = RNTOP_SSH_IDLE;
			if (e->connecting < e->conf.max_connecting)
				start_connect(h);
		}
		break;
	case RNTOP_SSH_CONNECT:
		if (e->now > h->deadline) {
			fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("cannot connect "
			    "to %s port %d: timed out", h->hostname, h->port));
			break;
		}
		step_connect(h, revents);
		if (h->state != RNTOP_SSH_HANDSHAKE)
			break;
		/* FALLTHROUGH */
	case RNTOP_SSH_HANDSHAKE:
		rc = libssh2_session_handshake(h->s, h->fd);
		if (rc == LIBSSH2_ERROR_EAGAIN) {
			if (e->now > h->deadline)
				fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("SSH "
				    "handshake with %s timed out", h->kh_name));
			break;
		}
		if (rc != 0) {
			fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("SSH handshake "
			    "with %s failed: %s", h->kh_name,
			    ssh_msg(h, "error")));
			break;
		}
		if (check_hostkey(h) == -1)
			break;
		h->state = RNTOP_SSH_AUTH;
		/* FALLTHROUGH */
	case RNTOP_SSH_AUTH:
		if (e->now > h->deadline) {
			fail(h, RNTOP_SSHF_DOWN, 0, xasprintf("authentication "
			    "with %s timed out", h->kh_name));
			break;
		}
		step_auth(h);
		if (h->state != RNTOP_SSH_INVENTORY &&
		    h->state != RNTOP_SSH_POLL)
			break;
		/* FALLTHROUGH */
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		/* a channel may finish and the next one start in one go */
		for (rc = 0; rc < 3; rc++) {
			enum chan_phase before = h->ch_phase;

			if (step_channel(h) == -1)
				break;
			if (h->ch_phase == before || h->ch_phase != CH_OPEN)
				break;
		}
		if (h->state == RNTOP_SSH_INVENTORY ||
		    h->state == RNTOP_SSH_STREAM || h->state == RNTOP_SSH_POLL)
			step_timers(h);
		/* a poll due now opens its channel: run it at once */
		if (h->ch_phase == CH_OPEN && h->state == RNTOP_SSH_POLL)
			step_channel(h);
		break;
	case RNTOP_SSH_DONE:
	case RNTOP_SSH_FAILED:
		break;
	}
	h->wake_at = next_wake(h);
}

static short
wanted_events(struct host *h)
{
	int dirs;
	short ev = 0;

	switch (h->state) {
	case RNTOP_SSH_CONNECT:
		return POLLOUT;
	case RNTOP_SSH_HANDSHAKE:
	case RNTOP_SSH_AUTH:
	case RNTOP_SSH_INVENTORY:
	case RNTOP_SSH_STREAM:
	case RNTOP_SSH_POLL:
		if (h->s == NULL || h->fd == -1)
			return 0;
		/* between polls nothing reads: leave the socket alone */
		if (h->state == RNTOP_SSH_POLL && h->ch_phase == CH_NONE)
			return 0;
		dirs = libssh2_session_block_directions(h->s);
		ev = POLLIN;
		if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
			ev |= POLLOUT;
		return ev;
	default:
		return 0;
	}
}

size_t
rntop_ssh_pollfds(struct rntop_ssh *e, struct pollfd *pfd, double now,
    double *wait)
{
	size_t i, n = 0;

	e->now = now;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];
		short ev = wanted_events(h);

		pfd[n].fd = ev ? h->fd : -1;
		pfd[n].events = ev;
		pfd[n].revents = 0;
		n++;
		if (h->wake_at > 0 && h->wake_at - now < *wait)
			*wait = h->wake_at - now;
		if (h->state == RNTOP_SSH_IDLE &&
		    e->connecting < e->conf.max_connecting)
			*wait = 0;
	}
	if (*wait < 0)
		*wait = 0;
	return n;
}

void
rntop_ssh_step(struct rntop_ssh *e, const struct pollfd *pfd, size_t n,
    double now)
{
	size_t i;

	e->now = now;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];
		short rev = i < n && pfd[i].fd == h->fd && h->fd != -1 ?
		    pfd[i].revents : 0;

		if (rev != 0 || (h->wake_at > 0 && now >= h->wake_at) ||
		    (h->state == RNTOP_SSH_IDLE &&
		    e->connecting < e->conf.max_connecting))
			step_host(h, rev);
	}
}

int
rntop_ssh_settled(const struct rntop_ssh *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const struct host *h = e->hosts[i];

		switch (h->state) {
		case RNTOP_SSH_DONE:
		case RNTOP_SSH_FAILED:
		case RNTOP_SSH_BACKOFF:
			continue;
		case RNTOP_SSH_STREAM:
		case RNTOP_SSH_POLL:
			if (h->answered)
				continue;
			return 0;
		default:
			return 0;
		}
	}
	return 1;
}

void
rntop_ssh_status(const struct rntop_ssh *e, size_t idx,
    struct rntop_ssh_status *st)
{
	const struct host *h = e->hosts[idx];

	memset(st, 0, sizeof(*st));
	st->state = h->state;
	st->fail = h->fail;
	st->error = h->error;
	st->warning = h->warning;
	st->fingerprint = h->fp[0] ? h->fp : NULL;
	st->polling = h->polling;
	st->noise = h->noise_base + (h->ps_live ? h->ps.noise : 0);
	st->connects = h->connects;
	st->retry_at = h->state == RNTOP_SSH_BACKOFF ? h->retry_at : 0;
}

const char *
rntop_ssh_noise_line(const struct rntop_ssh *e, size_t idx, unsigned long k)
{
	const struct host *h = e->hosts[idx];
	unsigned long total = h->noise_base + (h->ps_live ? h->ps.noise : 0);

	if (k == 0 || k > total || total - k >= RNTOP_NOISE_KEEP)
		return NULL;
	if (k > h->noise_base)
		return rntop_gpustat_noise_line(&h->ps, k - h->noise_base);
	return h->noise_kept[(k - 1) % RNTOP_NOISE_KEEP];
}

void
rntop_ssh_free(struct rntop_ssh *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->n; i++) {
		struct host *h = e->hosts[i];

		/* closing the socket closes the channels: nvidia-smi ends */
		teardown(h);
		rntop_snap_release(&h->inventory);
		rntop_snap_release(&h->own_ref);
		rntop_ownerframe_release(&h->of);
		rai_buf_release(&h->errbuf);
		free(h->name);
		free(h->hostname);
		free(h->user);
		free(h->kh_name);
		free(h->error);
		free(h->warning);
		free_strv(h->ids, h->nids);
		free_strv(h->kh, h->nkh);
		free_strv(h->gkh, h->ngkh);
		free(h);
	}
	free(e->hosts);
	free(e->nvidia_smi);
	free(e->query);
	free(e->cmd_once);
	free(e->cmd_loop);
	free(e->cmd_once_basic);
	free(e->cmd_loop_basic);
	free(e);
}
