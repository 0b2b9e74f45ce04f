/*
 * Job views for "runai list jobs", "describe job" and "top job": a job
 * is a workload (run.ai/v1 RunaiJob, batch/v1 Job, apps/v1 Deployment or
 * StatefulSet) whose pod template uses the runai-scheduler, plus the
 * pods it owns; a name-reservation ConfigMap without its workload is an
 * "Invalid job". Columns, and how each cell is derived, follow the
 * reference CLI.
 *
 * Views are compact copies (one block of strings each): lists are read
 * item by item as they arrive (kube_list_items) and each object is freed
 * once its view is made, so memory stays bounded with many jobs.
 */
#ifndef RAI_JOB_H
#define RAI_JOB_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

struct rai_job_view {
	char	*name;
	char	*namespace;
	char	*project;	/* pod label "project", else ns mapping, else "" */
	char	*uid;		/* workload uid; "" for invalid jobs */
	char	*kind;		/* "RunaiJob", "Job", "Deployment", "StatefulSet", "" */
	char	*status;	/* STATUS column; "Invalid job" for invalid */
	char	*type;		/* "Train", "Interactive", ... */
	char	*user;		/* "" if unknown */
	char	*node;		/* "" / "<multiple>" / node name */
	char	*image;
	char	*gpus;		/* "GPUs Allocated (Requested)" cell, "1 (1)" */
	char	*service_urls;	/* joined by ", "; "" when none */
	char	*command_line;	/* annotation runai-cli-command, or "" */
	double	 gpus_allocated;	/* GPU devices (fractions allowed) */
	double	 gpus_requested;	/* per job; 0 when memory is requested */
	double	 gpu_mem_requested;	/* bytes, 0 if not by memory */
	int	 pods_running;
	int	 pods_pending;
	time_t	 created;		/* creationTimestamp, 0 if unknown */
	int	 created_by_cli;	/* label app == runaijob */
	int	 invalid;		/* orphan ConfigMap: only name/ns set */
	int	 finished;		/* status is a finished status */
	char	*mem;			/* the strings, when packed in one block */
};

struct rai_job_list {
	struct rai_job_view	*v;	/* sorted by project, then name */
	size_t			 n;
	char			*resource_version; /* of the RunaiJob list */
};

/*
 * The "GPUs Allocated (Requested)" cell (v->gpus) from gpus_allocated,
 * gpus_requested, gpu_mem_requested and finished: whole GPUs as
 * integers, fractions with two decimals, "-" allocated when finished.
 */
void	 rai_job_view_gpu_cell(struct rai_job_view *);

/*
 * Pure: the view of one workload from its pods (array of pod objects
 * owned by it, may be NULL), the namespace's services and nodes (lists or
 * arrays, may be NULL) and the project name that owns its namespace
 * (fallback for PROJECT; may be NULL). now is for nothing but clarity of
 * tests (AGE is computed by callers from created).
 */
void	 rai_job_view_make(const cJSON *workload, const cJSON *pods,
	    const cJSON *services, const cJSON *nodes, const char *project,
	    struct rai_job_view *);
/*
 * Pure: STATUS alone; chief may be NULL. In order: a finished
 * runai-calculated-status, "Unschedulable", the workload's own status,
 * any runai-calculated-status, "Unknown" without a chief pod, else the
 * chief pod's kubectl-style status.
 */
const char *rai_job_status(const cJSON *workload, const cJSON *chief,
	    char *buf, size_t len);
/* Pure: kubectl-style status of one pod ("Running", "Init:0/1", ...). */
const char *rai_pod_status(const cJSON *pod, char *buf, size_t len);
void	 rai_job_view_release(struct rai_job_view *);

/*
 * The pod that leads a job (its status, node and logs are the job's):
 * the newest by creationTimestamp, the first on ties, as the reference
 * CLI picks it; NULL when pods is empty.
 */
const cJSON *rai_job_chief(const cJSON *pods);

struct rai_job_fetch_opts {
	const char	*name;		/* only this job, or NULL for all */
	int		 want_services;	/* compute SERVICE URL(S) */
	const char	*project;	/* ns's project if known (saves a call) */
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
