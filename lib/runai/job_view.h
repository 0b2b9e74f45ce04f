/*
 * One job's view: the row of "runai list jobs" and what "describe job"
 * and "top job" show, every cell derived as the reference CLI derives
 * it. A view is a compact copy (its strings in one block), so a list of
 * many holds little memory.
 */
#ifndef RAI_JOB_VIEW_H
#define RAI_JOB_VIEW_H

#include <time.h>

#include <cjson/cJSON.h>

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
	/*
	 * Why it waits or stopped (job_reason.h), when the source was asked
	 * (NULL otherwise; "" when there is nothing to say); its own
	 * allocation, outside the block, as the queue's place rewrites it.
	 */
	char	*reason;
	int	 why_kind;		/* enum rai_why_kind */
	int	 queue_pos;		/* its place among the project's */
	int	 queue_len;		/* waiting jobs; 0: not queued */
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
void	 rai_job_view_release(struct rai_job_view *);
/* The view's strings moved into one block (v->mem), as a fetch of many keeps them. */
void	 rai_job_view_pack(struct rai_job_view *);
/* The NODE cell replaced, in a packed view or not. */
void	 rai_job_view_set_node(struct rai_job_view *, const char *node);

/* ---- for rai_jobs_fetch (job.c), which builds views as lists arrive ---- */

struct rai_svc_index;

/*
 * rai_job_view_make with the services already indexed (job_urls.h), as
 * a fetch of many jobs indexes them once.
 */
void	 rai_job_view_indexed(const cJSON *workload, const cJSON *pods,
	    const struct rai_svc_index *, const char *project,
	    struct rai_job_view *);
/* The "Invalid job" view of an orphan name-reservation ConfigMap. */
void	 rai_job_view_invalid(const cJSON *configmap, const char *project,
	    struct rai_job_view *);
/* A numeric annotation (a quantity), or def when absent or not a number. */
double	 rai_job_ann_num(const cJSON *obj, const char *key, double def);

#endif
