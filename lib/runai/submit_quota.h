/*
 * submit_quota: whether a job, as submitted, can ever be scheduled in
 * its project. Non-preemptible work (an interactive job unless it is
 * --preemptible, or one asked for as non-preemptible) never borrows
 * idle GPUs over quota: Run:ai's scheduler places it only within the
 * project's deserved GPUs. A job asking for more than that in all its
 * pods together waits forever, whatever else runs. Pure.
 */
#ifndef RAI_SUBMIT_QUOTA_H
#define RAI_SUBMIT_QUOTA_H

#include "runai/dist.h"
#include "runai/project.h"
#include "runai/submit_spec.h"

/* Whether the scheduler keeps the job within its project's quota. */
int	 rai_submit_non_preemptible(const struct rai_submit_spec *);
/*
 * The GPUs of all the job's pods (whole GPUs or fractions; a request by
 * GPU memory or MIG slice counts 0, as its share is the node's to say).
 * dist: NULL for one pod.
 */
double	 rai_submit_gpus(const struct rai_submit_spec *,
	    const struct rai_dist_spec *dist);
/*
 * 1 with *why (the caller frees) when the job is non-preemptible and
 * asks for more GPUs than the project deserves: "project team-a
 * deserves 4 GPUs and this non-preemptible job requests 16: it can
 * never be scheduled"; 0 otherwise, also for a project with no quota.
 */
int	 rai_submit_over_quota(const struct rai_submit_spec *,
	    const struct rai_dist_spec *dist, const struct rai_project *,
	    char **why);

#endif
