/*
 * runai logs --all-pods (logs_all.c): every pod's log, each line after
 * [<pod>], without and with -f.
 */
#ifndef RUNAI_LOGS_ALL_H
#define RUNAI_LOGS_ALL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "runai.h"
#include "runai/logs.h"
#include "logs_sink.h"

/* --all-pods, without and with -f (logs_all.c). */
int	 logs_all_pods(struct rai_ctx *, const char *job,
	    const struct logs_opts *, struct sink *);
int	 logs_follow_all_pods(struct rai_ctx *, const char *job,
	    const struct logs_opts *, struct sink *);

#endif
