/*
 * cp_dist_inference: "runai inference distributed scale" through the
 * control plane: the PATCH of a distributed inference's replicas (its
 * create request is cp_request_dinf.h's).
 */
#ifndef RUNAI_CP_DIST_INFERENCE_H
#define RUNAI_CP_DIST_INFERENCE_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_request_dinf.h"


struct cp_scale {
	const char	*project;
	const char	*name;
	long		 replicas;
	int		 dry_run;
	/* out */
	cJSON		*request;	/* what is (or would be) sent */
	char		*path;		/* where */
};
void	 cp_scale_release(struct cp_scale *);

/*
 * Finds the distributed inference by name in the project and asks for
 * its number of groups (not with dry_run). RAI_E_USAGE before 2.23;
 * RAI_E_NOTFOUND as cp_job_find, and for a workload of that name of
 * another type.
 */
int	 cp_scale_dist_inference(struct cp *, struct cp_scale *,
	    struct rai_err *);

#endif
