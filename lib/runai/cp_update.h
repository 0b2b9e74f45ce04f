/*
 * cp_update: "runai inference update" through the control plane, which
 * has it from 2.21 (PATCH /api/v1/workloads/inferences/{id}). Only the
 * fields given are sent; where one field holds many settings (the
 * environment variables, the autoscaling) the workload's own are kept
 * and the given ones set over them, and the result is judged whole, as
 * submit judges it, before anything is sent.
 */
#ifndef RUNAI_CP_UPDATE_H
#define RUNAI_CP_UPDATE_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/inference.h"
#include "runai/submit.h"

/*
 * The first release whose document has the update of an inference.
 */
#define CP_UPDATE_MINOR	21

/*
 * The update's body, pure: the container fields of spec (image, pull
 * policy, working directory, command or arguments, variables;
 * createHomeDir when asked), and the autoscaling of scaling, each over
 * the workload's current spec (current: the "spec" of its GET answer,
 * NULL for none). RAI_E_USAGE when nothing is given, when the merged
 * autoscaling fails rai_inference_check, or for a setting release has
 * no field for.
 */
int	 cp_update_body(const cJSON *current, const struct rai_submit_spec *,
	    const struct rai_inference_spec *scaling, const char *release,
	    cJSON **body, struct rai_err *);

struct cp_update {
	const char			*project;
	const char			*name;
	const struct rai_submit_spec	*spec;
	const struct rai_inference_spec	*scaling;
	int				 dry_run;
	/* out */
	cJSON				*request;	/* what is (or would be) sent */
	char				*path;		/* where */
};
void	 cp_update_release(struct cp_update *);

/*
 * Finds the inference by name in the project, reads its spec, and sends
 * the body (not with dry_run). RAI_E_USAGE before 2.21; RAI_E_NOTFOUND
 * as cp_job_find, and for a workload of that name that is not an
 * inference.
 */
int	 cp_update_inference(struct cp *, struct cp_update *, struct rai_err *);

#endif
