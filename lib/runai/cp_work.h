/*
 * cp_work: researcher work through the control plane - projects, the
 * workloads list, one workload by name, submit, delete, suspend and
 * resume, events and pods - as the views the Kubernetes-mode commands
 * print (struct rai_project, struct rai_job_view), so both modes show
 * the same columns. Names are resolved to ids here, with clear errors
 * when one is missing or ambiguous.
 */
#ifndef RUNAI_CP_WORK_H
#define RUNAI_CP_WORK_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_request.h"
#include "runai/dist.h"
#include "runai/dist_inference.h"
#include "runai/inference.h"
#include "runai/job.h"
#include "runai/project.h"
#include "runai/submit.h"

/* Every project of the control plane, sorted by name. */
int	 cp_projects(struct cp *, struct rai_project_list *, struct rai_err *);
/* A project's id; RAI_E_NOTFOUND naming it when it does not exist. */
int	 cp_project_id(struct cp *, const char *name, char **id,
	    struct rai_err *);
/* A project's namespace on its cluster (status.namespace). */
int	 cp_project_namespace(struct cp *, const char *name, char **ns,
	    struct rai_err *);

/* The jobs of project (NULL = every project), sorted by project, name. */
int	 cp_jobs(struct cp *, const char *project, struct rai_job_list *,
	    struct rai_err *);
/*
 * The one workload called name in project (caller cJSON_Deletes);
 * RAI_E_NOTFOUND in the original CLI's words when there is none.
 */
int	 cp_job_find(struct cp *, const char *project, const char *name,
	    cJSON **workload, struct rai_err *);
/*
 * The name of the workload with the id given, as GET
 * /api/v1/workloads/{id} says it; NULL when it cannot be had (caller
 * frees). For a create answer that names no workload.
 */
char	*cp_job_name_of(struct cp *, const char *id);
/*
 * Whether a workload the control plane answered is of the project asked
 * for and on the cluster in use; RAI_E_PROTO naming both when not (a
 * delete, suspend or resume must never reach another project's).
 */
int	 cp_job_belongs(struct cp *, const cJSON *workload,
	    const char *project, struct rai_err *);
/* A Workload as the job view of list jobs (fields strdup'ed). */
void	 cp_job_view(const cJSON *workload, struct rai_job_view *);
/* The STATUS column for a control-plane phase. */
const char *cp_phase_status(const char *phase);

/*
 * The id of the workload template called name (2.23+) for a workload of
 * type ("Training", "Workspace") in the project and cluster given: the
 * tenant's, a department's, the cluster's or the project's own, exactly
 * one; RAI_E_NOTFOUND when none applies, RAI_E_CONFIG when several do.
 */
int	 cp_template_id(struct cp *, const char *name, const char *type,
	    const char *project_id, const char *cluster_id, char **id,
	    struct rai_err *);
/*
 * Submits; *out is the answer (Training1, Workspace1,
 * DistributedWorkload), or with dry_run the request that would have
 * been sent (nothing is sent but the look-ups of the project and of the
 * template tmpl, NULL for none, whose id the request carries).
 */
int	 cp_submit(struct cp *, const struct rai_submit_spec *,
	    const struct rai_dist_spec *dist, const char *prefix,
	    const char *tmpl, int dry_run, cJSON **out, struct rai_err *);

/*
 * Submits an inference: cp_submit's request for the container, with
 * the serving port and autoscaling of inf, or (dinf not NULL, inf
 * unused) a distributed one's groups, with spec as their leader; *out
 * the answer (Inference1, DistributedInference), or with dry_run the
 * request.
 */
int	 cp_submit_inference(struct cp *, const struct rai_submit_spec *,
	    const struct rai_inference_spec *inf,
	    const struct rai_dist_inference *dinf, const char *prefix,
	    int dry_run, cJSON **out, struct rai_err *);

/*
 * The path of the workload NAME of the project, COLLECTION/ID, when it
 * is of TYPE ("Inference"); RAI_E_NOTFOUND as cp_job_find, and naming
 * its type when it is another ("... not NOUN": "an inference").
 */
int	 cp_job_path_of_type(struct cp *, const char *project,
	    const char *name, const char *type, const char *noun,
	    const char *collection, char **path, struct rai_err *);

enum cp_action { CP_DELETE, CP_SUSPEND, CP_RESUME };
/* The action on a workload (as cp_job_find returns it); any 2xx is done. */
int	 cp_job_action(struct cp *, const cJSON *workload, enum cp_action,
	    struct rai_err *);
/* GET /api/v1/workloads/{id}/events or /pods: the array (caller frees). */
int	 cp_job_list_of(struct cp *, const cJSON *workload, const char *what,
	    cJSON **items, struct rai_err *);

/*
 * The workload as GET /api/v1/workloads/{id} gives it (with why it is
 * pending), and as submitted: its type's own GET (the spec sent, the
 * desired and actual phase; NULL for a type runai does not submit).
 */
int	 cp_job_detail(struct cp *, const cJSON *workload, cJSON **detailed,
	    cJSON **submitted, struct rai_err *);

#endif
