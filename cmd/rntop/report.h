/*
 * rntop's reports of all hosts: JSON (pretty for --once, a line per
 * refresh for --batch) and the original rntop's CSV log.
 */
#ifndef RNTOP_REPORT_H
#define RNTOP_REPORT_H

#include <stdio.h>

#include "core/err.h"
#include "host.h"

/*
 * One snapshot of all hosts; pretty for --once, one line for --batch.
 * now (rai_now_ms) dates the hosts' ages; "time" is the wall clock.
 */
void	 rntop_report_json(FILE *, const struct rntop_host *, size_t n,
	    double interval, long long now, int pretty);
/* Appends rntop's CSV log lines of the OK hosts, header if empty. */
int	 rntop_report_csv(const char *path, const struct rntop_host *,
	    size_t n, struct rai_err *);

#endif
