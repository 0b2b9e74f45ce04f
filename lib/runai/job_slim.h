/*
 * What job.c's fetch keeps of the objects it lists until their views
 * are made (not for commands). Each function takes the object over and
 * returns a new, small one holding only what the views read.
 */
#ifndef RAI_JOB_SLIM_H
#define RAI_JOB_SLIM_H

#include <cjson/cJSON.h>

/* A pod: names, times, labels, GPU annotations, node, phase, states. */
cJSON	*rai_job_slim_pod(cJSON *pod);
/*
 * A pod as above, with what its job's reason reads (job_reason.h) too:
 * the PodScheduled condition, each container's name, image and last
 * state.
 */
cJSON	*rai_job_slim_pod_why(cJSON *pod);
/* A workload kept until its pods are known. */
cJSON	*rai_job_slim_workload(cJSON *workload);
/* A Service: what rai_job_urls reads. */
cJSON	*rai_job_slim_service(cJSON *svc);

/*
 * In place: a distributed job's worker template (the lead's when there
 * are no workers) moved to spec.template, where the columns read it.
 */
void	 rai_job_lift_dist_template(cJSON *workload);

#endif
