/*
 * The cluster's figures over many hosts, which the screen and the
 * reports share: GPU-weighted, each GPU with a known value counting
 * once, with their coverage.
 */
#ifndef RNTOP_CLUSTER_H
#define RNTOP_CLUSTER_H

#include <stddef.h>

#include "hist.h"
#include "host.h"

/*
 * gpus: on the hosts that answer; gpus_unknown: those without a
 * utilisation now, on them (lost, N/A) or on hosts that had answered
 * (gpus_stale on stale hosts, gpus_unreachable on hosts failing now).
 * So gpus + gpus_stale + gpus_unreachable GPUs are known to exist, of
 * which gpus_unknown have no value now; hosts_unseen never answered,
 * their GPUs are not counted at all.
 */
struct rntop_agg {
	size_t	hosts, hosts_ok, gpus, gpus_unknown, gpus_lost;
	size_t	gpus_stale, gpus_unreachable, hosts_unseen;
	size_t	hosts_duplicate;	/* given again: not in hosts */
	size_t	hosts_degraded;		/* ok, with a problem (host.h) */
	size_t	nutil, nmem;
	double	util, used, total;	/* util: the mean, when nutil */
};
/* GPU-weighted figures over the OK hosts (all hosts' GPUs for coverage). */
void	 rntop_aggregate(const struct rntop_host *, size_t n,
	    struct rntop_agg *);
/* Pushes the cluster's GPU-weighted utilisation now (row 0). */
void	 rntop_cluster_hist_push(struct rntop_hist *,
	    const struct rntop_host *, size_t n);

#endif
