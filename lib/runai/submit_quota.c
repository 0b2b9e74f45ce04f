/*
 * Whether a non-preemptible job fits its project's quota at all (see
 * submit_quota.h).
 */
#include <math.h>
#include <stdio.h>

#include "core/alloc.h"
#include "runai/submit_quota.h"

#include "core/banned.h"

/* Fractions are compared with some room, as the scheduler does. */
#define GPU_EPS	1e-6

int
rai_submit_non_preemptible(const struct rai_submit_spec *s)
{
	if (s->non_preemptible)
		return 1;
	return s->interactive && !s->preemptible && !s->inference;
}

/* The pods of a distributed job that take GPUs, and the lead's GPUs. */
static double
dist_gpus(const struct rai_submit_spec *s, const struct rai_dist_spec *d)
{
	long workers = d->workers > 0 ? d->workers : 1;
	/* the lead (master, chief) is a copy of the workers unless told */
	double lead = s->gpu;

	if (d->master != NULL && d->master->gpu_portion > 0)
		lead = d->master->gpu_portion;
	else if (d->master != NULL && d->master->gpu_devices >= 0)
		lead = (double)d->master->gpu_devices;
	/* an MPI launcher starts the workers and uses no GPU */
	if (d->no_master || d->kind == RAI_DIST_MPI)
		lead = 0;
	return s->gpu * (double)workers + lead;
}

double
rai_submit_gpus(const struct rai_submit_spec *s, const struct rai_dist_spec *dist)
{
	if (s->gpu <= 0 || s->mig_profile != NULL)
		return 0;
	if (dist != NULL)
		return dist_gpus(s, dist);
	return s->gpu;
}

/* "4", "0.5": as few digits as the number needs, up to two decimals. */
static void
gpus_text(double g, char buf[32])
{
	snprintf(buf, 32, "%.2f", g);
	if (fabs(g - round(g)) < GPU_EPS)
		snprintf(buf, 32, "%.0f", g);
	else if (fabs(g * 10 - round(g * 10)) < GPU_EPS)
		snprintf(buf, 32, "%.1f", g);
}

int
rai_submit_over_quota(const struct rai_submit_spec *s,
    const struct rai_dist_spec *dist, const struct rai_project *p, char **why)
{
	double want = rai_submit_gpus(s, dist);
	char d[32], w[32];

	*why = NULL;
	if (p == NULL || !p->has_quota || !rai_submit_non_preemptible(s) ||
	    want <= p->deserved_gpus + GPU_EPS)
		return 0;
	gpus_text(p->deserved_gpus, d);
	gpus_text(want, w);
	*why = xasprintf("project %s deserves %s GPU%s and this "
	    "non-preemptible job requests %s: it can never be scheduled",
	    p->name, d, fabs(p->deserved_gpus - 1) < GPU_EPS ? "" : "s", w);
	return 1;
}
