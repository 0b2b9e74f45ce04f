/*
 * Who holds each GPU, for the outputs: the hosts' processes (the owner
 * blocks the collector keeps) joined with the cluster's pods (kwatch)
 * by rntop_owners_map, then the flags rntop derives - idle (allocated,
 * utilisation under --idle-util times the share allocated, for
 * --idle-after, a burst shorter than RNTOP_IDLE_BURST_MS, or than
 * --idle-after when that is shorter, not breaking it) and unmanaged
 * (used by processes of no pod, with no pod allocated) - and the Projects
 * figures. Recomputed right before every output, since pods and
 * snapshots move between them; times are rai_now_ms().
 */
#ifndef RNTOP_OWNERS_H
#define RNTOP_OWNERS_H

#include <stddef.h>

#include "host.h"
#include "kwatch.h"
#include "core/strv.h"
#include "rntop/owner.h"

/*
 * A GPU's low period is broken only by use over the threshold for this
 * long (ms; --idle-after when shorter): one burst (a checkpoint, a
 * validation pass) leaves an idle notebook idle.
 */
#define RNTOP_IDLE_BURST_MS	60000

struct rntop_gpu_flags {
	char		 uuid[RNTOP_UUID_MAX];	/* whose idle_since this is */
	long long	 low_since;	/* allocated and under --idle-util, 0: not */
	long long	 high_since;	/* over it since, in a low period; 0: not */
	int		 idle;
	int		 unmanaged;
};

struct rntop_host_own {
	struct rntop_gpu_own	*gpus;		/* per snapshot GPU */
	struct rntop_gpu_flags	*flags;
	size_t			 n;		/* GPUs of the last update */
};

struct rntop_project_row {
	const char	*name;		/* borrowed from a pod or a quota */
	double		 allocated;	/* GPUs, fractions summed */
	double		 in_use;	/* of them, with a process */
	double		 util_sum;	/* share-weighted */
	double		 util_weight;
	double		 idle;		/* idle allocated GPUs */
	double		 deserved;	/* -1: no Project readable */
};

struct rntop_owners {
	struct rntop_kwatch	*kw;
	double			 idle_util;	/* % */
	long long		 idle_after;	/* ms */
	struct rntop_host_own	*hosts;		/* one per collector host */
	size_t			 nhosts;
	struct rntop_project_row *projects;
	size_t			 nprojects;
	double			 gpus_allocated;	/* shares, each GPU's up to 1 */
	size_t			 gpus_idle, gpus_unmanaged;
	unsigned		 nodes_gen;	/* of the last host matching */
	/* a clone's copies of what it points to (rntop_owners_clone) */
	struct rntop_pod	*kept_pods;
	size_t			 nkept_pods;
	struct rai_strv		 kept_names;
};

void	 rntop_owners_init(struct rntop_owners *, struct rntop_kwatch *,
	    size_t nhosts, double idle_util, long long idle_after_ms);
/*
 * Names the hosts' nodes when the cluster's nodes came or changed, then
 * joins hosts and pods as of now; see above.
 */
void	 rntop_owners_update(struct rntop_owners *, struct rntop_host *,
	    size_t n, long long now);
/* How long a flagged GPU has been under --idle-util, in ms. */
long long rntop_owners_idle_for(const struct rntop_gpu_flags *, long long now);
/* "project/job" of a GPU's owners, "a/j+1" for more; "" for none. */
void	 rntop_owners_label(const struct rntop_gpu_own *, char *buf,
	    size_t len);
void	 rntop_owners_release(struct rntop_owners *);
/*
 * A copy of ow as it is now, which the pods and quotas it points to may
 * outlive (the screen's pause): the owners' pods and the projects'
 * names are copied. Only kw is shared (the cluster's status). Freed by
 * rntop_owners_release and free().
 */
struct rntop_owners *rntop_owners_clone(const struct rntop_owners *);

#endif
