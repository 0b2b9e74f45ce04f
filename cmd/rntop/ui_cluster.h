/*
 * The Cluster lines at the top of the screen (ui_cluster.c).
 */
#ifndef RNTOP_UI_CLUSTER_H
#define RNTOP_UI_CLUSTER_H

#include "hist.h"
#include "ui_table.h"

/* The title, then the Cluster heading, figures and coverage lines. */
void	 ui_draw_cluster(struct draw *, double interval,
	    const struct rntop_hist *cluster);

#endif
