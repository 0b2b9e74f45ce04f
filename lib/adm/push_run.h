/*
 * Running a push (push_run.c). Its entry point, adm_push, is declared
 * in adm/push.h, which callers include; push_run.c sits on top of the
 * engine and shares nothing else.
 */
#ifndef ADM_PUSH_RUN_H
#define ADM_PUSH_RUN_H

#include "adm/push.h"

#endif
