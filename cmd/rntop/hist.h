/*
 * Utilisation history for the sparklines: a ring of one byte a refresh
 * tick (0-100, or RNTOP_HIST_NONE: unknown, or no sample that tick) per
 * GPU row.
 */
#ifndef RNTOP_HIST_H
#define RNTOP_HIST_H

#include <stddef.h>

#include "rntop/gpustat.h"

#define RNTOP_HIST	64	/* samples kept per GPU and for the cluster */
#define RNTOP_HIST_NONE	255	/* an unknown sample */

struct rntop_hist {
	unsigned char	*v;		/* ngpus rows of RNTOP_HIST */
	size_t		 ngpus;
	unsigned	 pos;		/* next slot */
	unsigned	 len;		/* samples kept */
};

/* A snapshot's utilisations, a row per GPU in the snapshot's order. */
void	 rntop_hist_push(struct rntop_hist *, const struct rntop_snap *);
/* A gap: no sample for any of n GPU rows this tick. */
void	 rntop_hist_push_gap(struct rntop_hist *, size_t n);
/* One sample of a one-row history (the cluster's). */
void	 rntop_hist_push_one(struct rntop_hist *, int value);
/* Sample age back (0 = newest) of GPU row g: 0-100 or RNTOP_HIST_NONE. */
int	 rntop_hist_get(const struct rntop_hist *, size_t g, unsigned age);
/* dst (empty) becomes a copy of src. */
void	 rntop_hist_copy(struct rntop_hist *dst, const struct rntop_hist *src);
void	 rntop_hist_release(struct rntop_hist *);

#endif
