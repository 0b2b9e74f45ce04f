/*
 * adm_checks: preflight's catalogue of checks and the run over it;
 * adm/preflight.h has the results, the matrix and the renderings.
 */
#ifndef ADM_CHECKS_H
#define ADM_CHECKS_H

#include <time.h>

#include "adm/preflight.h"
#include "core/strv.h"
#include "kube/client.h"

/*
 * struct adm_check_info and struct adm_pf_opts are in adm/preflight.h,
 * below the files of the checks (checks.c has their map), which use
 * them too.
 */

/* The catalogue in run order; NULL past the end. */
const struct adm_check_info *adm_check_info(size_t i);

/* Runs every selected check, in catalogue order, into report. */
void	 adm_preflight_run(struct kube_client *, const struct adm_pf_opts *,
	    struct adm_report *);

#endif
