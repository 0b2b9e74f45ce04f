/*
 * Why a job's pod is not there to talk to, asked of the source the way
 * describe asks (job_reason.h), for the commands that wait on a pod:
 * bash, exec, attach and logs give up at once on a job that cannot
 * start soon, and logs -f says why the pod it followed went away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/time.h"
#include "runai.h"

#include "core/banned.h"

/* Tries (and the pause between them) for the reason of a deleted pod. */
#define STOPPED_TRIES		3
#define STOPPED_PAUSE_MS	700L

/*
 * Holds that last until someone acts: over quota (the project's other
 * non-preemptible jobs must end first), no node takes pods, the image
 * cannot be pulled, suspended. A job the scheduler merely has not
 * placed yet (queued, over fair share, no room now) may start any
 * moment, and is waited for as before.
 */
static int
cannot_start_soon(enum rai_why_kind k)
{
	switch (k) {
	case RAI_WHY_OVER_QUOTA:
	case RAI_WHY_NODES:
	case RAI_WHY_IMAGE_PULL:
	case RAI_WHY_SUSPENDED:
		return 1;
	default:
		return 0;
	}
}

/* The job's reason as describe has it; -1 when it cannot be read. */
static int
describe(struct rai_ctx *ctx, const char *job, struct rai_job_detail *d)
{
	struct rai_err err = RAI_ERR_INIT;

	if (rai_wl_describe(RUNAI_WL(ctx), job, 0, d, &err) == 0)
		return 0;
	/* the wait goes on as before: the pod is what it waits for */
	rai_log(RAI_LOG_DEBUG, "why job %s waits: %s", job,
	    err.message != NULL ? err.message : "?");
	rai_err_release(&err);
	rai_job_detail_release(d);
	return -1;
}

int
runai_job_not_starting(struct rai_ctx *ctx, const char *job,
    struct rai_err *err)
{
	struct rai_job_detail d;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	if (describe(ctx, job, &d) == -1)
		return 0;
	if (cannot_start_soon(d.why.kind)) {
		rai_err_set(err, RAI_E_NOTFOUND, "job '%s' is %s: %s", job,
		    d.why.kind == RAI_WHY_SUSPENDED ? "not running" :
		    "pending", d.why.reason);
		if (d.why.lines.n > 0)
			rai_err_set_hint(err, "%s", d.why.lines.v[0]);
		rc = -1;
	}
	rai_job_detail_release(&d);
	return rc;
}

/*
 * When the job was suspended: its Suspended condition's time (a control
 * plane's), else its newest Suspended event's (the job controller's on
 * a cluster); 0 when neither says.
 */
static time_t
suspended_at(const struct rai_job_detail *d)
{
	size_t i;

	for (i = 0; i < d->nconditions; i++)
		if (strcmp(d->conditions[i].type, "Suspended") == 0 &&
		    strcmp(d->conditions[i].status, "True") == 0)
			return d->conditions[i].at;
	for (i = d->nevents; i > 0; i--)
		if (d->events[i - 1].reason != NULL &&
		    strcmp(d->events[i - 1].reason, "Suspended") == 0)
			return d->events[i - 1].at;
	return 0;
}

/* "was suspended at 10:02:03": the time as describe's lines give it. */
static char *
suspended_line(const char *job, const struct rai_job_detail *d)
{
	time_t at = suspended_at(d);
	char when[32] = "";
	struct tm tm;

	if (at > 0 && localtime_r(&at, &tm) != NULL)
		strftime(when, sizeof(when), " at %H:%M:%S", &tm);
	return xasprintf("job '%s' was suspended%s; 'runai resume %s' runs "
	    "it again", job, when, job);
}

int
runai_job_stopped(struct rai_ctx *ctx, const char *job, char **line)
{
	struct rai_job_detail d;
	int i, found = 0;

	*line = NULL;
	for (i = 0; i < STOPPED_TRIES && !found; i++) {
		/* the pod may go a moment before the reason is written */
		if (i > 0)
			rai_sleep_ms(STOPPED_PAUSE_MS);
		memset(&d, 0, sizeof(d));
		if (describe(ctx, job, &d) == -1)
			continue;
		if (d.why.kind == RAI_WHY_PREEMPTED) {
			*line = xasprintf("job '%s' was %s; it waits to run "
			    "again", job, d.why.reason);
			found = 1;
		} else if (d.why.kind == RAI_WHY_SUSPENDED) {
			*line = suspended_line(job, &d);
			found = 1;
		}
		rai_job_detail_release(&d);
	}
	return found;
}
