/*
 * Preflight's Run:ai prerequisites (check_runai.c): Prometheus, node
 * roles, an earlier installation.
 */
#ifndef ADM_CHECK_RUNAI_H
#define ADM_CHECK_RUNAI_H

#include "adm/check_kit.h"

void	 adm_pf_check_prometheus(struct pf *);
void	 adm_pf_check_node_roles(struct pf *);
void	 adm_pf_check_existing_install(struct pf *);

#endif
