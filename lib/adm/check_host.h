/*
 * Preflight's checks from this host (check_host.c): DNS, the TLS
 * files and the TLS served, the registry, NFS.
 */
#ifndef ADM_CHECK_HOST_H
#define ADM_CHECK_HOST_H

#include "adm/check_kit.h"

void	 adm_pf_check_dns(struct pf *);
void	 adm_pf_check_tls_files(struct pf *);
void	 adm_pf_check_tls_live(struct pf *);
void	 adm_pf_check_registry(struct pf *);
void	 adm_pf_check_nfs(struct pf *);

#endif
