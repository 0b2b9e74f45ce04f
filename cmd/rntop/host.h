/*
 * A watched host as the collectors keep it and the outputs read it: its
 * state, error, last snapshot and when it came, and the history of its
 * GPUs' utilisation. Times are rai_now_ms() milliseconds.
 */
#ifndef RNTOP_HOST_H
#define RNTOP_HOST_H

#include "hist.h"
#include "rntop/gpustat.h"
#include "rntop/owner.h"

enum rntop_host_state {
	RNTOP_HOST_WAITING,	/* no answer yet, still in time */
	RNTOP_HOST_OK,
	RNTOP_HOST_STALE,	/* had data; nothing new for too long */
	RNTOP_HOST_TIMEOUT,	/* never answered in time */
	RNTOP_HOST_ERROR,	/* nvidia-smi failed */
	RNTOP_HOST_DOWN,	/* cannot connect, connection lost */
	RNTOP_HOST_AUTH,	/* no key accepted */
	RNTOP_HOST_HOSTKEY,	/* host key unknown, changed or revoked */
};

/*
 * A line nvidia-smi printed about a fault (an Xid event, an ECC error,
 * a device it cannot reach): kept, the same line again counted.
 */
#define RNTOP_ERRLINES		8	/* kept per host, the newest */
#define RNTOP_ERR_HOLD_MS	(5LL * 60 * 1000)	/* degraded this long after */
struct rntop_errline {
	char		*text;
	long long	 ms;		/* when last seen */
	unsigned long	 repeats;	/* times seen */
};

/*
 * Health thresholds: a number given, 0 for none, or RNTOP_WARN_AUTO for
 * the GPU's own limits where nvidia-smi gives them. Automatic, a GPU is
 * hot at RNTOP_TLIMIT_WARN degrees or less from its temperature limit
 * (tlimit), or without a tlimit at RNTOP_TEMP_WARN; it draws too much
 * at RNTOP_POWER_OVER times its power limit (a busy GPU runs at its
 * limit: a real H100 drew 691 to 698 W of its 700 W), never without one.
 */
#define RNTOP_WARN_AUTO		(-1.0)
#define RNTOP_TLIMIT_WARN	5.0	/* degrees C of headroom */
#define RNTOP_TEMP_WARN		85.0	/* degrees C */
#define RNTOP_POWER_OVER	1.02	/* of power.limit */
struct rntop_health_conf {
	double	temp_warn;		/* degrees C */
	double	power_warn;		/* W */
};

struct rntop_host {
	char			*name;
	char			*address;	/* user@host:port, SSH only */
	char			*warning;	/* e.g. key not checked */
	char			*fingerprint;
	const char		*host_key;	/* "known", "changed", ...: static */
	int			 polling;	/* one-shots, not the stream */
	const char		*mode;		/* "stream", "poll", "once" */
	long long		 retry_in_ms;	/* when backing off */
	struct rntop_hist	 hist;
	enum rntop_host_state	 state;
	struct rntop_snap	 snap;		/* the last snapshot, then gone GPUs */
	int			 have_snap;
	long long		 snap_ms;	/* when it came */
	unsigned long		 snaps;		/* snapshots taken */
	unsigned long		 snaps_ticked;	/* ... at the last tick */
	int			 fresh;		/* the last tick had a sample */
	char			*error;		/* why, for TIMEOUT/ERROR/STALE */
	unsigned long		 noise;		/* non-CSV lines seen */
	/* with the cluster read: its node, its last owner block */
	char			*node;		/* Kubernetes node, NULL: none */
	struct rntop_procs	 procs;
	int			 have_procs;
	/* health: fault lines, and why an answering host is degraded */
	struct rntop_errline	 errlines[RNTOP_ERRLINES];	/* oldest first */
	size_t			 nerrlines;
	unsigned long		 noise_seen;	/* noise count looked at */
	char			*degraded;	/* why; NULL: healthy or unknown */
	size_t			 dup_of;	/* 1 + the host it repeats; 0: none */
};

const char *rntop_host_state_name(enum rntop_host_state);
/* Whether the host answers under a host key that changed (strict no). */
int	 rntop_host_key_changed(const struct rntop_host *);
/*
 * Keeps a copy of a new snapshot, come at now. A GPU of the last one
 * that the new one does not list is kept after its rows as gone
 * (rntop_gpu_gone) until rntop_hosts_clear_gone: a GPU that fell off
 * the bus is never dropped unseen.
 */
void	 rntop_host_take_snap(struct rntop_host *, const struct rntop_snap *,
	    long long now);
/* Drops the gone GPUs of n hosts (the operator saw them). */
void	 rntop_hosts_clear_gone(struct rntop_host *, size_t n);
/* How many of the host's GPUs are gone. */
size_t	 rntop_host_gone(const struct rntop_host *);
/*
 * One refresh tick at now: the history gets the last sample when one
 * came since the last tick, or the last tick's came late by less than
 * half an interval (a stream's beat drifts against ours); else a gap.
 * h->fresh says which: the CSV logs a gap's values blank.
 */
void	 rntop_host_tick(struct rntop_host *, long long now,
	    long long interval_ms);
/* Replaces *dst by a copy of src (NULL: none) unless they are equal. */
void	 rntop_host_set_text(char **dst, const char *src);
/*
 * A line that was no row (noise), seen at now: kept when it tells of a
 * GPU fault. The collectors call it when the noise count moves.
 */
void	 rntop_host_note_line(struct rntop_host *, const char *line,
	    long long now);
/* Whether GPU g is over a threshold of c: 1 temperature, 2 power. */
int	 rntop_gpu_over(const struct rntop_gpu *,
	    const struct rntop_health_conf *);
/*
 * Sets h->degraded for an ok host with a lost or gone GPU, a GPU over a
 * threshold, or a fault line in the last RNTOP_ERR_HOLD_MS; else NULL.
 */
void	 rntop_host_health(struct rntop_host *,
	    const struct rntop_health_conf *, long long now);
/*
 * Marks each host that repeats an earlier one (dup_of): the same
 * address (user@host:port), or the same host key and a GPU UUID in
 * common, as an alias and an IP of one node have (a host key alone
 * proves nothing: cloned images share theirs). Duplicates are shown,
 * never counted.
 */
void	 rntop_hosts_find_dups(struct rntop_host *, size_t n);
/* A deep copy of n hosts (the screen's pause); free with release. */
struct rntop_host *rntop_hosts_clone(const struct rntop_host *, size_t n);
/* Frees what n hosts hold (not the array). */
void	 rntop_hosts_release(struct rntop_host *, size_t n);

#endif
