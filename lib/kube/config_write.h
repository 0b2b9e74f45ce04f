/*
 * The kubeconfig's write-back (config_write.c). Its API, the
 * kube_config_set_* and kube_config_update_oidc calls, and the reading
 * of a context's extension beside them, is declared in kube/config.h;
 * the file shares nothing else.
 */
#ifndef KUBE_CONFIG_WRITE_H
#define KUBE_CONFIG_WRITE_H

#include "kube/config.h"

#endif
