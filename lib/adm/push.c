/*
 * adm_push: the push/verify engine over the libcurl multi interface
 * (see adm_push.h for the flow). One job per (repository, blob digest)
 * and one per target manifest; each job is a small state machine that
 * runs one request at a time, so "jobs" running jobs are "jobs"
 * transfers in flight.
 *
 * adm/push.h is the engine's API; its files, one concern each, share
 * the model of a run through adm/push_job.h, and calls go one way,
 * from the run down to the requests:
 *   push_run.c     adm_push: the run, the loop over the multi handle
 *   push_plan.c    targets, sources and the jobs made of them
 *   push_answer.c  what a job does with each answer: next step,
 *                  retry, renewal, failure; verify's verdicts
 *   push_job.c     the model, events, request bodies, starting a step
 *   push.c         the upload URLs (this file)
 * This file keeps only what needs none of the engine's insides: the
 * others include adm/push.h for the API's types, so push.[ch] must
 * include none of theirs (no include circle, tests/lint/layers.py).
 */
#include <string.h>

#include "adm/push.h"
#include "core/alloc.h"

#include "core/banned.h"

/* ---- URLs ---- */

char *
adm_push_resolve_location(const char *base, const char *loc)
{
	if (strncmp(loc, "http://", 7) == 0 || strncmp(loc, "https://",
	    8) == 0)
		return xstrdup(loc);
	if (loc[0] == '/')
		return xasprintf("%s%s", base, loc);
	return xasprintf("%s/%s", base, loc);
}

char *
adm_push_digest_url(const char *loc, const char *digest)
{
	return xasprintf("%s%sdigest=%s", loc, strchr(loc, '?') != NULL ?
	    "&" : "?", digest);
}
