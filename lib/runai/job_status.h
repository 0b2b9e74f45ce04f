/*
 * A job's STATUS column and the pod that leads it, from the workload
 * and its pods as the API gives them (job.h's views use them; so do
 * "describe job" and the pod lookup of job_pod.h).
 */
#ifndef RAI_JOB_STATUS_H
#define RAI_JOB_STATUS_H

#include <stddef.h>

#include <cjson/cJSON.h>

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

/*
 * The pod that leads a job (its status, node and logs are the job's):
 * the newest by creationTimestamp, the first on ties, as the reference
 * CLI picks it; NULL when pods is empty.
 */
const cJSON *rai_job_chief(const cJSON *pods);

/* The workload's kind ("RunaiJob", "Job", ...), "" when it has none. */
const char *rai_job_kind(const cJSON *workload);
/* Whether a STATUS is a finished one (Succeeded, Failed, Deleted, ...). */
int	 rai_job_status_finished(const char *status);

#endif
