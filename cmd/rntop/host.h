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

struct rntop_host {
	char			*name;
	char			*address;	/* user@host:port, SSH only */
	char			*warning;	/* e.g. key not checked */
	char			*fingerprint;
	int			 polling;	/* one-shots, not the stream */
	const char		*mode;		/* "stream", "poll", "once" */
	long long		 retry_in_ms;	/* when backing off */
	struct rntop_hist	 hist;
	enum rntop_host_state	 state;
	struct rntop_snap	 snap;		/* the last snapshot */
	int			 have_snap;
	long long		 snap_ms;	/* when it came */
	char			*error;		/* why, for TIMEOUT/ERROR/STALE */
	unsigned long		 noise;		/* non-CSV lines seen */
	/* with the cluster read: its node, its last owner block */
	char			*node;		/* Kubernetes node, NULL: none */
	struct rntop_procs	 procs;
	int			 have_procs;
};

const char *rntop_host_state_name(enum rntop_host_state);
/* Keeps a copy of a new snapshot, come at now, and adds it to history. */
void	 rntop_host_take_snap(struct rntop_host *, const struct rntop_snap *,
	    long long now);
/* Replaces *dst by a copy of src (NULL: none) unless they are equal. */
void	 rntop_host_set_text(char **dst, const char *src);
/* Frees what n hosts hold (not the array). */
void	 rntop_hosts_release(struct rntop_host *, size_t n);

#endif
