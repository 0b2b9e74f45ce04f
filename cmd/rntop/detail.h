/*
 * rntop's detail view as lines of text (ui.c draws them): everything
 * known about one host, or one of its GPUs, uncut — the whole error and
 * host key fingerprint, the fault lines nvidia-smi printed, the UUID,
 * every metric with the reason of an unknown one, the longest history
 * and the processes on the GPU (with the cluster read).
 */
#ifndef RNTOP_DETAIL_H
#define RNTOP_DETAIL_H

#include "core/strv.h"
#include "host.h"

/*
 * Appends to out the lines about host h (gpu: the row of one of its
 * GPUs, or -1 for the host), dated against now (rai_now_ms); utf8 picks
 * the sparkline's cells.
 */
void	 rntop_detail_lines(const struct rntop_host *h, long gpu,
	    long long now, int utf8, struct rai_strv *out);

#endif
