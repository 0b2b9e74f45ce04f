/*
 * The monitor loop: one poll() over a collector's descriptors and the
 * terminal, the interval and the signals, handing the hosts to the
 * outputs (--once's JSON, --batch's JSON Lines, the screen, the CSV
 * log).
 */
#ifndef RNTOP_LOOP_H
#define RNTOP_LOOP_H

#include "collector.h"
#include "core/err.h"
#include "owners.h"
#include "rntop.h"
#include "ui.h"

/*
 * Runs until --once has its answer, -n reports were made, q is typed,
 * a signal comes or the reader of stdout leaves. screen: the curses
 * screen's settings, NULL for JSON on stdout. Returns -1 (err) on an
 * error; 128 + the signal when SIGINT, SIGTERM or SIGHUP ended it (the
 * terminal restored first); with --once, 1 when a host gave no data;
 * else 0. owners:
 * with the cluster, whose pod lines the loop reads too; else NULL.
 */
int	 rntop_loop_run(const struct rntop_opts *,
	    const struct rntop_ui_conf *screen, struct rntop_collector *,
	    struct rntop_owners *, struct rai_err *);

#endif
