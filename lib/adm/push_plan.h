/*
 * What a push moves (push_plan.c): a target per image reference, a
 * source per distinct blob, and the jobs made of them.
 */
#ifndef ADM_PUSH_PLAN_H
#define ADM_PUSH_PLAN_H

#include <stddef.h>

#include "adm/image.h"
#include "adm/push_job.h"
#include "core/err.h"

/* Targets and sources of every image of the archives; ADM_EV_TARGETs. */
int	 adm_push_plan(struct push *, struct adm_archive *const *,
	    size_t narchives, struct rai_err *);
/* Blob jobs, one per (repository, digest), largest first. */
void	 adm_push_make_blob_jobs(struct push *);
/* A manifest job per target whose blobs are good, at step. */
void	 adm_push_make_manifest_jobs(struct push *, enum step);
void	 adm_push_target_release(struct target *);

#endif
