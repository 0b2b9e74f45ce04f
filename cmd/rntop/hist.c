/*
 * Utilisation history for the sparklines: a byte per refresh tick and
 * GPU in a ring. Rows follow the snapshot's order; when the GPU count changes
 * the history starts over, since rows no longer mean the same GPUs.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "hist.h"

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
rntop_hist_push_gap(struct rntop_hist *h, size_t n)
{
	size_t i;

	if (h->ngpus != n)
		hist_reset(h, n);
	for (i = 0; i < n; i++)
		hist_put(h, i, RNTOP_HIST_NONE);
	if (n > 0)
		hist_advance(h);
}

void
rntop_hist_push_one(struct rntop_hist *h, int value)
{
	if (h->ngpus != 1)
		hist_reset(h, 1);
	hist_put(h, 0, value);
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
rntop_hist_copy(struct rntop_hist *dst, const struct rntop_hist *src)
{
	*dst = *src;
	dst->v = NULL;
	if (src->ngpus > 0) {
		dst->v = xcalloc(src->ngpus, RNTOP_HIST);
		memcpy(dst->v, src->v, src->ngpus * RNTOP_HIST);
	}
}
