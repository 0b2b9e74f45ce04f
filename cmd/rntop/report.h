/*
 * rntop's reports of all hosts: JSON (pretty for --once, a line per
 * refresh for --batch) and the original rntop's CSV log.
 */
#ifndef RNTOP_REPORT_H
#define RNTOP_REPORT_H

#include <stdio.h>

#include "core/err.h"
#include "host.h"
#include "owners.h"

/*
 * One snapshot of all hosts; pretty for --once, one line for --batch.
 * now (rai_now_ms) dates the hosts' ages; "time" is the wall clock.
 */
/* ow: the owners joined for this output, NULL without the cluster. */
void	 rntop_report_json(FILE *, const struct rntop_host *, size_t n,
	    double interval, long long now, int pretty,
	    const struct rntop_owners *ow);
/*
 * Appends rntop's CSV log lines, header if empty: a line per GPU of the
 * ok hosts, per GPU without values for stale ones, one without an index
 * for the others; with ow, each line also has driver, project, job,
 * namespace, pod (several owners joined by ';'), idle and unmanaged (0
 * or 1); last, the host's status and its data's age in seconds (now:
 * rai_now_ms).
 */
int	 rntop_report_csv(const char *path, const struct rntop_host *,
	    size_t n, const struct rntop_owners *ow, long long now,
	    struct rai_err *);

#endif
