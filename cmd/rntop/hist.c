/*
 * Utilisation history for the sparklines (a byte per sample and GPU in
 * a ring) and the GPU-weighted aggregates the screen shows. Rows follow
 * the snapshot's order; when the GPU count changes the history starts
 * over, since rows no longer mean the same GPUs.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "rntop.h"

#include "core/banned.h"

static void
hist_reset(struct rntop_hist *h, size_t ngpus)
{
	free(h->v);
	h->v = ngpus ? xcalloc(ngpus, RNTOP_HIST) : NULL;
	h->ngpus = ngpus;
	h->pos = 0;
	h->len = 0;
}

static void
hist_put(struct rntop_hist *h, size_t g, int value)
{
	h->v[g * RNTOP_HIST + h->pos] = (unsigned char)value;
}

static void
hist_advance(struct rntop_hist *h)
{
	h->pos = (h->pos + 1) % RNTOP_HIST;
	if (h->len < RNTOP_HIST)
		h->len++;
}

static int
util_byte(const struct rntop_gpu *g)
{
	if (!(g->valid & RNTOP_V(RNTOP_F_UTIL)) || rntop_gpu_lost(g))
		return RNTOP_HIST_NONE;
	return g->util > 100 ? 100 : (int)(g->util + 0.5);
}

void
rntop_hist_push(struct rntop_hist *h, const struct rntop_snap *s)
{
	size_t i;

	if (h->ngpus != s->n)
		hist_reset(h, s->n);
	for (i = 0; i < s->n; i++)
		hist_put(h, i, util_byte(&s->gpus[i]));
	if (s->n > 0)
		hist_advance(h);
}

void
rntop_hist_push_cluster(struct rntop_hist *h, const struct rntop_host *hosts,
    size_t n)
{
	struct rntop_agg a;

	if (h->ngpus != 1)
		hist_reset(h, 1);
	rntop_aggregate(hosts, n, &a);
	hist_put(h, 0, a.nutil ? (int)(a.util + 0.5) : RNTOP_HIST_NONE);
	hist_advance(h);
}

int
rntop_hist_get(const struct rntop_hist *h, size_t g, unsigned age)
{
	if (g >= h->ngpus || age >= h->len)
		return RNTOP_HIST_NONE;
	return h->v[g * RNTOP_HIST +
	    (h->pos + RNTOP_HIST - 1 - age) % RNTOP_HIST];
}

void
rntop_hist_release(struct rntop_hist *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

void
rntop_aggregate(const struct rntop_host *hosts, size_t n, struct rntop_agg *a)
{
	size_t i, j;

	memset(a, 0, sizeof(*a));
	a->hosts = n;
	for (i = 0; i < n; i++) {
		const struct rntop_host *h = &hosts[i];

		if (h->state != RNTOP_HOST_OK) {
			/* GPUs we cannot see now are unknown, not idle */
			if (h->have_snap)
				a->gpus_unknown += h->snap.n;
			continue;
		}
		a->hosts_ok++;
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
