/*
 * What a push job does with the answer to its step (push_answer.c):
 * the next step, a retry after a backoff, new credentials, a session
 * started again, or the end of the job.
 */
#ifndef ADM_PUSH_ANSWER_H
#define ADM_PUSH_ANSWER_H

#include <curl/curl.h>

#include "adm/push_job.h"
#include "core/err.h"

/* j's transfer ended with code: the answer read, j moved on. */
void	 adm_push_finish(struct push *, struct job *, CURLcode);
/*
 * The wait before retry number attempt (1, 2, ...): from 0.5 s doubling
 * to 8 s, jittered by rnd; a Retry-After of seconds wins.
 */
long	 adm_push_backoff_ms(int attempt, int retry_after, unsigned rnd);
/* j failed for good: the run stops with the first such err (taken). */
void	 adm_push_job_fail(struct push *, struct job *, struct rai_err *);

#endif
