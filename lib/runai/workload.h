/*
 * Job lifecycle for "runai delete", "suspend" and "resume": removing a
 * job with everything the reference CLI made for it (the objects named
 * in the "app" key of its name-reservation ConfigMap, then that
 * ConfigMap), and setting spec.suspend on its RunaiJob or batch/v1 Job.
 */
#ifndef RAI_WORKLOAD_H
#define RAI_WORKLOAD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

/* One line of a ConfigMap's "app" list: "<kind>[.<group>]/<name>". */
struct rai_app_ref {
	char			*kind;	/* "runaijob.run.ai", "service", ... */
	char			*name;
	const struct kube_res	*res;	/* NULL for a kind we do not know */
};

struct rai_app_list {
	struct rai_app_ref	*v;
	size_t			 n;
};

/*
 * Pure: splits the "app" text into references. Blank lines are skipped;
 * a line without "/" or with an empty part fails with RAI_E_PROTO.
 */
int	 rai_app_list_parse(const char *text, struct rai_app_list *,
	    struct rai_err *);
void	 rai_app_list_release(struct rai_app_list *);
/* Pure: the resource of a kubectl kind ("job.batch"), NULL if unknown. */
const struct kube_res *rai_app_kind_res(const char *kind);

/*
 * Deletes job in ns with Background propagation. A job that is not there
 * fails with RAI_E_NOTFOUND; an API failure keeps its HTTP status.
 */
int	 rai_workload_delete(struct kube_client *, const char *ns,
	    const char *job, struct rai_err *);

/*
 * Sets spec.suspend of the job's RunaiJob (or batch/v1 Job) by a merge
 * patch. *unchanged is set when it already had that value (nothing is
 * sent). RAI_E_NOTFOUND when there is no such job.
 */
int	 rai_workload_set_suspend(struct kube_client *, const char *ns,
	    const char *job, int suspend, int *unchanged, struct rai_err *);

/*
 * Every job name of ns, sorted and unique: workloads whose pods use the
 * runai-scheduler and name-reservation ConfigMaps. Caller frees each
 * name and the array.
 */
int	 rai_workload_names(struct kube_client *, const char *ns,
	    char ***names, size_t *n, struct rai_err *);

/*
 * *ok = 0 when the Deployment runai/runai-job-controller runs an image
 * tagged older than v0.1.8; anything else (absent, unreadable, untagged)
 * allows suspend and resume, as in the reference.
 */
int	 rai_job_controller_supports_suspend(struct kube_client *, int *ok,
	    struct rai_err *);
/* Pure: whether an image's tag is at least vMAJ.MIN.PATCH; 1 if unknown. */
int	 rai_image_tag_at_least(const char *image, int maj, int min, int patch);

#endif
