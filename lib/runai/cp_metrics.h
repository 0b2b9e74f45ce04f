/*
 * cp_metrics: the control plane's metrics (GET .../metrics of a node or
 * a workload) as the Prometheus vectors "runai top" prints in
 * Kubernetes mode, so both modes share one printer. Each measurement
 * becomes one sample: its latest value, labelled with the measurement's
 * own labels (a GPU's index) and with key=value naming whose it is.
 */
#ifndef RUNAI_CP_METRICS_H
#define RUNAI_CP_METRICS_H

#include <stddef.h>
#include <time.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/prom.h"

/*
 * GET path?metricType=types...&start=&end=&numberOfSamples=1 over the
 * minute before at; the measurements of types[i] are appended to
 * vecs[i] (vecs zeroed or filled by earlier calls; the caller releases
 * them with rai_prom_vec_release). A type that is NULL is not asked.
 */
int	 cp_metrics(struct cp *, const char *path, const char *const *types,
	    size_t ntypes, const char *key, const char *value, time_t at,
	    struct rai_prom_vec *vecs, struct rai_err *);

#endif
