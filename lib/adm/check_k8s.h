/*
 * Preflight's Kubernetes checks (check_k8s.c): the version, nodes,
 * rights, the default StorageClass, the ingress controller.
 */
#ifndef ADM_CHECK_K8S_H
#define ADM_CHECK_K8S_H

#include "adm/check_kit.h"

void	 adm_pf_check_k8s_version(struct pf *);
void	 adm_pf_check_nodes_ready(struct pf *);
void	 adm_pf_check_rbac(struct pf *);
void	 adm_pf_check_default_storage_class(struct pf *);
void	 adm_pf_check_ingress(struct pf *);

#endif
