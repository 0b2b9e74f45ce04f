/*
 * Preflight's net.registry.secret: the pull Secret the values file names
 * (adm/pull_secret.h) is in every namespace Run:ai pulls in, and the
 * registry takes its credentials.
 */
#ifndef ADM_CHECK_PULL_H
#define ADM_CHECK_PULL_H

#include "adm/check_kit.h"

void	 adm_pf_check_pull_secret(struct pf *);

#endif
