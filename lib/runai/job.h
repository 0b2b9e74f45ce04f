/*
 * Job lists for "runai list jobs", "describe job" and "top job": a job
 * is a workload (run.ai/v1 RunaiJob, batch/v1 Job, apps/v1 Deployment or
 * StatefulSet) whose pod template uses the runai-scheduler, plus the
 * pods it owns; a name-reservation ConfigMap without its workload is an
 * "Invalid job". Columns, and how each cell is derived, follow the
 * reference CLI: one job's view is job_view.h, its STATUS and chief pod
 * job_status.h (both included here).
 *
 * Views are compact copies (one block of strings each): lists are read
 * item by item as they arrive (kube_list_items) and each object is freed
 * once its view is made, so memory stays bounded with many jobs.
 */
#ifndef RAI_JOB_H
#define RAI_JOB_H

#include <stddef.h>

#include "core/err.h"
#include "kube/client.h"
#include "runai/job_reason.h"
#include "runai/job_status.h"
#include "runai/job_view.h"

struct rai_job_list {
	struct rai_job_view	*v;	/* sorted by project, then name */
	size_t			 n;
	char			*resource_version; /* of the RunaiJob list */
};

struct rai_job_fetch_opts {
	const char	*name;		/* only this job, or NULL for all */
	int		 want_services;	/* compute SERVICE URL(S) */
	const char	*project;	/* ns's project if known (saves a call) */
	/*
	 * Each view's reason and queue place (job_reason.h): every job's
	 * pods are read then, and the Preempted events of the workloads.
	 */
	int		 want_reasons;
};

/*
 * Lists workloads, pods, services and configmaps in ns (NULL = all
 * namespaces, -A) and builds sorted views. jl->resource_version is where
 * a watch of the RunaiJobs starts without missing a change (NULL when
 * run.ai is not served).
 */
int	 rai_jobs_fetch(struct kube_client *, const char *ns,
	    const struct rai_job_fetch_opts *, struct rai_job_list *,
	    struct rai_err *);
void	 rai_job_list_release(struct rai_job_list *);

/* Names only (for completion): valid and invalid jobs in ns, sorted. */
int	 rai_job_names(struct kube_client *, const char *ns, char ***names,
	    size_t *n, struct rai_err *);

#endif
