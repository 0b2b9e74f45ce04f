/*
 * rntop_ssh: rntop's SSH engine. One persistent non-blocking libssh2
 * session per host, all driven from the caller's poll() loop (no
 * threads): a bounded number of connects at a time, each with a
 * deadline; known_hosts checked (libssh2_knownhost, with rntop_hosts
 * handling @revoked, @cert-authority and the key types to ask for);
 * ssh-agent first, then key files; then one nvidia-smi per host: live,
 * a long-running "nvidia-smi ... -lms N" stream whose rows are framed
 * into snapshots (rntop_gpustat), its first sample serving as the
 * inventory; --once, a single one-shot query. When the stream gives no
 * sample, the host falls back to one-shot polling on the same session
 * (and tries the stream again on its next session when the one-shots
 * fail too). A silent stream, a lost connection or a failing nvidia-smi
 * end the session and a new one follows after a jittered exponential
 * backoff; a refused host key or authentication is sticky. Closing a
 * channel ends its remote nvidia-smi (see rntop_remote_command).
 *
 * The library never prints: each host has a state and an error text.
 */
#ifndef RNTOP_SSH_H
#define RNTOP_SSH_H

#include <poll.h>
#include <stddef.h>

#include "core/err.h"
#include "rntop/gpustat.h"
#include "rntop/hosts.h"
#include "rntop/owner.h"

enum rntop_ssh_state {
	RNTOP_SSH_IDLE,		/* waiting for a connect slot */
	RNTOP_SSH_CONNECT,	/* TCP */
	RNTOP_SSH_HANDSHAKE,
	RNTOP_SSH_AUTH,
	RNTOP_SSH_INVENTORY,	/* the one-shot query (--once) */
	RNTOP_SSH_STREAM,	/* the -lms stream */
	RNTOP_SSH_POLL,		/* one-shot queries every interval */
	RNTOP_SSH_DONE,		/* once mode: answered, disconnected */
	RNTOP_SSH_BACKOFF,	/* failed; reconnects at retry_at */
	RNTOP_SSH_FAILED,	/* failed for good (once mode, key, auth) */
	RNTOP_SSH_REST,		/* answered, its socket given to another */
};

/* Why the last attempt failed. */
enum rntop_ssh_fail {
	RNTOP_SSHF_NONE,
	RNTOP_SSHF_DOWN,	/* cannot connect, connection lost */
	RNTOP_SSHF_HOSTKEY,	/* unknown, changed or revoked host key */
	RNTOP_SSHF_AUTH,	/* no key was accepted */
	RNTOP_SSHF_NVSMI,	/* nvidia-smi failed or is missing */
	RNTOP_SSHF_TIMEOUT,	/* nvidia-smi did not answer in time */
};

struct rntop_ssh_conf {
	int		 use_agent;	/* try $SSH_AUTH_SOCK first */
	const char	*nvidia_smi;	/* remote path, rntop_remote_path_ok */
	/*
	 * The --query-gpu list; RNTOP_GPUSTAT_QUERY_LIMITS, when a host's
	 * nvidia-smi refuses it (rntop_gpustat_refused), is asked again at
	 * once as RNTOP_GPUSTAT_QUERY, and that host keeps the shorter one.
	 */
	const char	*query;
	long		 loop_ms;	/* -lms N; 0: inventory only (--once) */
	double		 interval;	/* s, for one-shot polling */
	double		 connect_timeout; /* s: TCP, handshake and auth */
	double		 timeout;	/* s: an answer; silence past interval */
	double		 keepalive;	/* s, 0: none */
	double		 backoff_base;	/* s */
	double		 backoff_max;	/* s */
	int		 max_connecting;
	/*
	 * Sockets held at once (the descriptor limit less a reserve); 0:
	 * no limit. Hosts past it wait for a free one; live, when there
	 * are more hosts than this, every host takes turns: a one-shot,
	 * then its socket goes to the next host (RNTOP_SSH_REST) and it
	 * connects again an interval later.
	 */
	int		 max_sessions;
	int		 reconnect;	/* 0: a failure is final (--once) */
	/*
	 * With procs_cb set, the owner block too (rntop/owner.h): beside
	 * the stream, asked for when a GPU's memory in use changes, and at
	 * least every owner_every seconds.
	 */
	double		 owner_every;	/* s */
};

/* One host, resolved (user, port, files). Copied by rntop_ssh_add. */
struct rntop_ssh_target {
	const char		*name;		/* shown: what the user typed */
	const char		*hostname;	/* connected to */
	const char		*user;
	int			 port;
	const char *const	*identities;	/* key files, tried in order */
	size_t			 nidentities;
	const char *const	*known_hosts;	/* the first learns new keys */
	size_t			 nknown_hosts;
	const char *const	*global_known_hosts;
	size_t			 nglobal_known_hosts;
	enum rntop_shk		 strict;
};

/* How the host key of the last session was taken. */
enum rntop_key_check {
	RNTOP_KEY_NONE = 0,	/* no key seen yet */
	RNTOP_KEY_KNOWN,	/* known_hosts has it */
	RNTOP_KEY_LEARNT,	/* accept-new added it */
	RNTOP_KEY_UNCHECKED,	/* strict no: known_hosts has no entry */
	RNTOP_KEY_CHANGED,	/* strict no: known_hosts has ANOTHER key */
};
/* "known", "learnt", "unchecked", "changed"; NULL for none. */
const char *rntop_key_check_name(enum rntop_key_check);

/* What the caller may read about a host between steps. */
struct rntop_ssh_status {
	enum rntop_ssh_state	 state;
	enum rntop_ssh_fail	 fail;		/* of the last failure */
	const char		*error;		/* NULL when none */
	const char		*warning;	/* e.g. host key not checked */
	const char		*fingerprint;	/* "SHA256:..." once seen */
	enum rntop_key_check	 key;
	int			 polling;	/* fell back to one-shots */
	unsigned long		 noise;		/* non-CSV lines, all channels */
	unsigned long		 connects;	/* sessions established */
	double			 retry_at;	/* BACKOFF: when (caller's clock) */
};

/* A complete snapshot of host number idx (borrowed). */
typedef void (*rntop_ssh_snap_cb)(void *ud, size_t idx,
    const struct rntop_snap *);

/* A complete owner block of host number idx (borrowed). */
typedef void (*rntop_ssh_procs_cb)(void *ud, size_t idx,
    const struct rntop_procs *);

struct rntop_ssh;

/* Validates conf (the path, numbers); NULL and err on a bad one. */
struct rntop_ssh *rntop_ssh_new(const struct rntop_ssh_conf *,
    rntop_ssh_snap_cb, void *ud, struct rai_err *);
/*
 * Asks every host for its owner block too (before any host is added):
 * the remote command becomes rntop_remote_command_owners'.
 */
int	 rntop_ssh_owners(struct rntop_ssh *, rntop_ssh_procs_cb,
	    struct rai_err *);
/* Adds a host; returns its index. */
size_t	 rntop_ssh_add(struct rntop_ssh *, const struct rntop_ssh_target *);
size_t	 rntop_ssh_count(const struct rntop_ssh *);
/*
 * Fills pfd (room for rntop_ssh_count entries) with the sockets to
 * watch; returns how many, and lowers *wait (seconds) to the next
 * deadline. now is the caller's monotonic clock in seconds.
 */
size_t	 rntop_ssh_pollfds(struct rntop_ssh *, struct pollfd *, double now,
	    double *wait);
/* Does the work that is due: pfd and n as filled (revents set). */
void	 rntop_ssh_step(struct rntop_ssh *, const struct pollfd *, size_t n,
	    double now);
/* Whether no host is connecting or waiting for its first answer. */
int	 rntop_ssh_settled(const struct rntop_ssh *);
void	 rntop_ssh_status(const struct rntop_ssh *, size_t idx,
	    struct rntop_ssh_status *);
/*
 * Noise line k of host idx (1 up to its status' noise, every channel),
 * when it is among the last RNTOP_NOISE_KEEP; else NULL. Borrowed.
 */
const char *rntop_ssh_noise_line(const struct rntop_ssh *, size_t idx,
	    unsigned long k);
/* Closes every channel and session (remote nvidia-smi ends), frees. */
void	 rntop_ssh_free(struct rntop_ssh *);

const char *rntop_ssh_state_name(enum rntop_ssh_state);

#endif
