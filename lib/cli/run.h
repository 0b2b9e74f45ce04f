/*
 * Running a program (run.c). Its entry points, rai_main and
 * rai_ctx_err, are declared in cli/opt.h, which programs and commands
 * include; run.c sits on top of the engine and shares nothing else.
 */
#ifndef RAI_RUN_H
#define RAI_RUN_H

#include "cli/opt.h"

#endif
