/*
 * Preflight's NVIDIA checks (check_nvidia.c): GPU nodes, the GPU
 * Operator, the device plugin and DCGM exporter.
 */
#ifndef ADM_CHECK_NVIDIA_H
#define ADM_CHECK_NVIDIA_H

#include "adm/check_kit.h"

void	 adm_pf_check_gpu_nodes(struct pf *);
void	 adm_pf_check_gpu_operator(struct pf *);
void	 adm_pf_check_device_plugin(struct pf *);

#endif
