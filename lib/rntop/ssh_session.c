/*
 * A host's SSH session (ssh.c has the map): a non-blocking TCP connect
 * to each address in turn, the libssh2 session asked for the key types
 * known_hosts has (ssh_kh.c), then authentication: ssh-agent first, then
 * the key files; once in, the nvidia-smi channel opens (ssh_chan.c).
 * The handshake itself, with its host key check, is stepped by
 * ssh_engine.c. It ends a host only through ssh_host.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libssh2.h>

#include "core/alloc.h"
#include "rntop/ssh_chan.h"
#include "rntop/ssh_host.h"
#include "rntop/ssh_kh.h"
#include "rntop/ssh_session.h"

#include "core/banned.h"

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

void
rntop_ssh_start_connect(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	struct addrinfo hints;
	char port[16];
	int rc;

	h->counted = 1;
	e->connecting++;
	h->holds_socket = 1;
	e->sockets++;
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
		rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
		    xasprintf("cannot resolve %s: %s", h->hostname,
		    gai_strerror(rc)));
		return;
	}
	h->ai_cur = h->ai;
	if (connect_next(h) == -1) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
		    xasprintf("cannot connect to %s port %d: %s", h->hostname,
		    h->port, strerror(errno)));
		return;
	}
	h->state = RNTOP_SSH_CONNECT;
}

static void
start_session(struct host *h)
{
	struct rntop_ssh *e = h->eng;
	struct kh_scan sc;
	char *why = NULL;

	h->s = rntop_ssh_session_new(&h->smem);
	if (h->s == NULL) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
		    xstrdup("cannot start an SSH session: out of memory"));
		return;
	}
	libssh2_session_set_blocking(h->s, 0);
	/* ask for the key type known_hosts has, so the check can match */
	if (rntop_ssh_scan_all(h, NULL, NULL, 0, &sc, &why) == -1) {
		rntop_ssh_fail_host(h, RNTOP_SSHF_HOSTKEY, 1, why);
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
void
rntop_ssh_step_connect(struct host *h, short revents)
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
		rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
		    xasprintf("cannot connect to %s port %d: %s", h->hostname,
		    h->port, strerror(soerr)));
		return;
	}
	start_session(h);
}

static void
authenticated(struct host *h);

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
		if (rntop_ssh_transport_error(rc))
			return -2;
		/* refused, unreadable or passphrase-protected: the next */
		note_tried(h, k);
	}
	return -1;
}

void
rntop_ssh_step_auth(struct host *h)
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
		rntop_ssh_fail_host(h, RNTOP_SSHF_DOWN, 0,
		    xasprintf("connection to %s lost during authentication: %s",
		    h->kh_name, rntop_ssh_msg(h, "disconnected")));
		return;
	}
	rntop_ssh_fail_host(h, RNTOP_SSHF_AUTH, 1,
	    xasprintf("authentication failed for %s@%s (tried: %s)", h->user,
	    h->kh_name, h->auth_tried ? h->auth_tried :
	    "no agent, no key file"));
}

static void
authenticated(struct host *h)
{
	rntop_ssh_release_slot(h);
	h->connects++;
	h->healthy_since = h->eng->now;
	/* the handshake's packets, the largest, are done (rntop/ssh_mem.h) */
	(void)rntop_ssh_mem_trim(&h->smem);
	h->trim_at = h->eng->now + RNTOP_SSH_TRIM_EVERY_S;
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
	if (rntop_ssh_streaming(h->eng) && !h->polling &&
	    !rntop_ssh_rotating(h->eng)) {
		h->state = RNTOP_SSH_STREAM;
		rntop_ssh_open_channel(h, 1);
		return;
	}
	h->state = h->polling ? RNTOP_SSH_POLL : RNTOP_SSH_INVENTORY;
	rntop_ssh_open_channel(h, 0);
}
