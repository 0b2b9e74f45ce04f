/*
 * generate-values' TLS material check (values_tls.c). adm_tls_check and
 * adm_tls_out_release are declared in adm/values.h, which callers
 * include; values_tls.c shares nothing else.
 */
#ifndef ADM_VALUES_TLS_H
#define ADM_VALUES_TLS_H

#include "adm/values.h"

#endif
