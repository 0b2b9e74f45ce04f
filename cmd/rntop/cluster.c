/*
 * The cluster's figures: GPU-weighted means and sums over the hosts that
 * answer, the GPUs that cannot be seen counted as unknown (never idle),
 * and the cluster's utilisation history.
 */
#include <string.h>

#include "cluster.h"

#include "core/banned.h"

void
rntop_cluster_hist_push(struct rntop_hist *h, const struct rntop_host *hosts,
    size_t n)
{
	struct rntop_agg a;

	rntop_aggregate(hosts, n, &a);
	rntop_hist_push_one(h, a.nutil ? (int)(a.util + 0.5) : RNTOP_HIST_NONE);
}

void
rntop_aggregate(const struct rntop_host *hosts, size_t n, struct rntop_agg *a)
{
	size_t i, j;

	memset(a, 0, sizeof(*a));
	a->hosts = n;
	for (i = 0; i < n; i++) {
		const struct rntop_host *h = &hosts[i];

		/* a host given twice counts once */
		if (h->dup_of != 0) {
			a->hosts--;
			a->hosts_duplicate++;
			continue;
		}
		if (h->state != RNTOP_HOST_OK) {
			/* GPUs we cannot see now are unknown, not idle */
			if (h->have_snap)
				a->gpus_unknown += h->snap.n;
			if (!h->have_snap)
				a->hosts_unseen++;
			else if (h->state == RNTOP_HOST_STALE)
				a->gpus_stale += h->snap.n;
			else
				a->gpus_unreachable += h->snap.n;
			continue;
		}
		a->hosts_ok++;
		a->hosts_degraded += h->degraded != NULL;
		for (j = 0; j < h->snap.n; j++) {
			const struct rntop_gpu *g = &h->snap.gpus[j];

			a->gpus++;
			a->gpus_lost += rntop_gpu_lost(g);
			if (g->valid & RNTOP_V(RNTOP_F_UTIL)) {
				a->util += g->util;
				a->nutil++;
			} else {
				a->gpus_unknown++;
			}
			if ((g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
			    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL))) {
				a->used += g->mem_used;
				a->total += g->mem_total;
				a->nmem++;
			}
		}
	}
	if (a->nutil > 0)
		a->util /= (double)a->nutil;
}
