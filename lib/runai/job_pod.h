/*
 * rai_job_pod: finding one job by name and the pod to talk to.
 */
#ifndef RAI_JOB_POD_H
#define RAI_JOB_POD_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"
#include "runai/job.h"

/* err->reason of rai_job_pod's RAI_E_NOTFOUND answers that callers tell apart. */
#define RAI_JOB_REASON_NO_PODS		"NoPods"	/* may come: wait */
#define RAI_JOB_REASON_NOT_JOB_POD	"NotJobPod"

/*
 * The view of job in ns, the namespace of project (which messages name); SERVICE URL(S)
 * are computed only with want_services. *v is filled only on success;
 * no such job, an invalid one or two of the name -> RAI_E_NOTFOUND with
 * the reference CLI's message.
 */
int	rai_job_find(struct kube_client *, const char *ns, const char *project,
	    const char *job, int want_services, struct rai_job_view *v,
	    struct rai_err *);
/* The pods whose controller is the workload uid, as a new array. */
int	rai_job_pods(struct kube_client *, const char *ns, const char *uid,
	    cJSON **pods, struct rai_err *);
/*
 * The pod of job to talk to: want_pod (NULL = none given) must be one
 * of the job's pods; otherwise the chief (rai_job_chief). *pod gets a
 * copy (caller cJSON_Deletes). A job without pods yet -> RAI_E_NOTFOUND
 * with reason RAI_JOB_REASON_NO_PODS; a want_pod that is not the job's
 * -> reason RAI_JOB_REASON_NOT_JOB_POD.
 */
int	rai_job_pod(struct kube_client *, const char *ns, const char *project,
	    const char *job, const char *want_pod, cJSON **pod,
	    struct rai_err *);

#endif
