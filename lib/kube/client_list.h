/*
 * Lists (client_list.c). Their API, kube_list, kube_list_pages,
 * kube_list_items, kube_list_prefetch and kube_prefetch_drop, is
 * declared in kube/client.h; the file shares nothing else.
 */
#ifndef KUBE_CLIENT_LIST_H
#define KUBE_CLIENT_LIST_H

#include "kube/client.h"

#endif
