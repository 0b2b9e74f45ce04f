/*
 * generate-values' input checks (values_check.c): host names, IP
 * lists, the registry, NFS. They are declared in adm/values.h with the
 * rest of generate-values, which callers include; values_check.c
 * shares nothing else.
 */
#ifndef ADM_VALUES_CHECK_H
#define ADM_VALUES_CHECK_H

#include "adm/values.h"

#endif
