/*
 * The SSH engine's state of a host, shared by its files (ssh.c has the
 * map): struct host and struct rntop_ssh, and what ssh_host.c gives the
 * others: a host's error, its failure with a backoff (or for good), and
 * tearing a session down. Callers of the engine include rntop/ssh.h.
 */
#ifndef RNTOP_SSH_HOST_H
#define RNTOP_SSH_HOST_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>

#include <libssh2.h>

#include "core/buf.h"
#include "rntop/gpustat.h"
#include "rntop/hosts.h"
#include "rntop/owner.h"
#include "rntop/ssh.h"
#include "rntop/ssh_mem.h"

#define STDERR_MAX	2048

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
	enum rntop_key_check	 key;
	int			 fd;
	struct addrinfo		*ai, *ai_cur;
	LIBSSH2_SESSION		*s;
	struct rntop_ssh_mem	 smem;		/* s's large blocks */
	double			 trim_at;	/* give back its zero pages */
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
	int			 holds_socket;	/* in eng->sockets */
	unsigned long		 noise_base;
	/*
	 * The last noise lines of stopped parsers: line k at (k-1) % KEEP;
	 * allocated when a stopped parser had any.
	 */
	char			(*noise_kept)[160];
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
	int			 sockets;	/* hosts holding one */
	uint64_t		 rng;
	double			 now;
};

void	 rntop_ssh_set_error(struct host *, enum rntop_ssh_fail, char *take);
/* libssh2's last error message, or fallback. */
const char *rntop_ssh_msg(struct host *, const char *fallback);
void	 rntop_ssh_release_slot(struct host *);
void	 rntop_ssh_parser_stop(struct host *);
/* Drops the session and socket at once (no goodbye round trips). */
void	 rntop_ssh_teardown(struct host *);
/* A failure: the host backs off (or stops for good); take is the text. */
void	 rntop_ssh_fail_host(struct host *, enum rntop_ssh_fail, int sticky,
	    char *take);
/* Whether a libssh2 error means the connection is gone. */
int	 rntop_ssh_transport_error(int rc);
/* The connection was lost (rc from libssh2, 0: closed). */
void	 rntop_ssh_lost(struct host *, int rc);
/* Whether another host may start connecting now (connects, sockets). */
int	 rntop_ssh_slot_free(const struct rntop_ssh *);
/* Whether hosts take turns for the sockets (see max_sessions). */
int	 rntop_ssh_rotating(const struct rntop_ssh *);
/* Silence after which a stream is given up (s). */
double	 rntop_ssh_dead_after(const struct rntop_ssh *);

#endif
