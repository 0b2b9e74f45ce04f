/*
 * Port forwarding's loop (pf_loop.c). Its API, kube_pf_listen and
 * kube_pf_run, is declared in kube/portforward.h; the file shares
 * nothing else.
 */
#ifndef KUBE_PF_LOOP_H
#define KUBE_PF_LOOP_H

#include "kube/portforward.h"

#endif
