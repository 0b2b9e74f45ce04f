/*
 * job_reason: why a job waits, or why it stopped, in the researcher's
 * words and with the cluster's numbers - one short REASON ("over quota
 * by 3 GPUs", "queued 2 of 3 in team-a", "exited 3: Error") for "list
 * -o wide" and the JSON, and the longer lines of describe's "Why
 * pending:" or "Why it stopped:" section.
 *
 * Pure: it reads what the sources fetch anyway (a pod's PodScheduled
 * condition and container states, the events about a workload, its
 * Failed condition; a control-plane workload's phase, phaseMessage,
 * phaseReason and conditions) and never asks the cluster itself. The
 * scheduler's messages are read for their numbers in the forms Run:ai's
 * scheduler writes them and in the emulator's (see
 * contrib/kube-sim/FAIRSHARE.md); a message in neither form is still
 * shown, cut short, as the reason.
 */
#ifndef RAI_JOB_REASON_H
#define RAI_JOB_REASON_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/strv.h"

struct rai_job_view;

/* What holds a job; the order is that of precedence among waits. */
enum rai_why_kind {
	RAI_WHY_NONE = 0,	/* running, succeeded, or nothing to say */
	RAI_WHY_SUSPENDED,
	RAI_WHY_IMAGE_PULL,	/* placed, but its image is not pulled */
	RAI_WHY_PREEMPTED,	/* its GPUs were taken back; it waits again */
	RAI_WHY_OVER_QUOTA,	/* non-preemptible work beyond the quota */
	RAI_WHY_FAIR_SHARE,	/* its project would go over its fair share */
	RAI_WHY_GANG,		/* room for only some of its pods */
	RAI_WHY_NODES,		/* no node takes pods (cordoned, not ready) */
	RAI_WHY_NO_FIT,		/* no node has the free GPUs one pod asks */
	RAI_WHY_SCHEDULER,	/* the scheduler's words, in no known form */
	RAI_WHY_WAITING,	/* pending; the scheduler has said nothing */
	RAI_WHY_CRASHING,	/* running, its container restarting */
	RAI_WHY_FAILED,
};

/*
 * What a source knows of one job; start from a zeroed one. Strings are
 * borrowed, but for what is read out of a message into the buffers.
 */
struct rai_why_facts {
	const char	*status;	/* the STATUS column */
	const char	*project;
	/* the scheduler's message on a waiting pod, or the phaseMessage */
	const char	*sched;
	int		 over_quota;	/* phaseReason NonPreemptibleOverQuota */
	/* the latest Preempted event about the workload */
	const char	*preempted;
	time_t		 preempted_at;
	/* a container that cannot pull its image */
	const char	*pull_reason;	/* ErrImagePull, ImagePullBackOff */
	const char	*pull_message;
	const char	*image;
	/* the container that ended (or keeps ending) the job */
	const char	*pod;
	const char	*container;
	int		 has_exit;
	int		 exit_code;
	const char	*exit_reason;	/* "Error", "OOMKilled" */
	time_t		 exited_at;
	int		 crashing;	/* it waits in CrashLoopBackOff */
	/* the workload's own Failed condition */
	const char	*failed_reason;
	const char	*failed_message;
	/* what is read out of a message (rai_why_from_cp) is kept here */
	char		 exit_why[32];
	char		 pod_why[128];
	char		 container_why[64];
};

struct rai_job_why {
	enum rai_why_kind kind;
	char		*reason;	/* the short REASON; "" for none */
	struct rai_strv	 lines;		/* describe's longer lines */
	int		 queue_pos;	/* 1-based among the project's */
	int		 queue_len;	/* waiting jobs; 0 when not queued */
	int		 has_exit;
	int		 exit_code;
	/* where the source may read the last lines of the log (copies) */
	char		*log_pod;
	char		*log_container;
	struct rai_strv	 log;		/* those lines, oldest first */
};

/* ---- what the sources know ---- */

/*
 * Kubernetes pods of one job (an array): the scheduler's message on a
 * waiting pod, a container that cannot pull, one that crashes, the exit
 * of the newest pod that failed.
 */
void	 rai_why_from_pods(struct rai_why_facts *, const cJSON *pods);
/* The newest Preempted event about uid (an array of core/v1 Events). */
void	 rai_why_from_events(struct rai_why_facts *, const cJSON *events,
	    const char *uid);
/* A Kubernetes workload's Failed condition. */
void	 rai_why_from_workload(struct rai_why_facts *, const cJSON *workload);
/*
 * A control-plane Workload: its phaseMessage, phaseReason, conditions
 * (Preempted, PodScheduled, ContainersReady, Failed) and first image.
 */
void	 rai_why_from_cp(struct rai_why_facts *, const cJSON *workload);

/* ---- the answer ---- */

/* The reason and the lines; now is for "preempted ... at 10:02". */
void	 rai_job_why_make(const struct rai_why_facts *, time_t now,
	    struct rai_job_why *);
void	 rai_job_why_release(struct rai_job_why *);
/* The kind's name in JSON ("over-quota"); "" for none. */
const char *rai_why_kind_name(int kind);
/* "Why pending", "Why it stopped", or NULL when there is nothing to say. */
const char *rai_job_why_title(const struct rai_job_why *);
/* The "why" object of describe's -o json|yaml. */
cJSON	*rai_job_why_json(const struct rai_job_why *);
/*
 * Adds it to a describe document as "why", when there is something to
 * say: the document of a job running as it should stays as it was.
 */
void	 rai_job_why_doc(cJSON *doc, const struct rai_job_why *);
/* The last n lines of a log (text of len bytes), oldest first, into log. */
void	 rai_job_why_log(struct rai_job_why *, const char *text, size_t len,
	    size_t n);

/* ---- the queue ---- */

/* Whether a job held so waits in its project's queue for the scheduler. */
int	 rai_why_queued(enum rai_why_kind);
/*
 * Each queued job's place among the waiting jobs of its project, as
 * Run:ai's scheduler orders them (higher priority first - interactive,
 * interactive-preemptible, then the rest - then the older, then by
 * name). A job behind another, or one the scheduler said nothing of,
 * gets "queued N of M in PROJECT" as its reason: the jobs ahead come
 * first.
 */
void	 rai_job_queue(struct rai_job_view *, size_t n);
/* The same for describe: job's place from the project's list. */
void	 rai_job_why_queue(struct rai_job_why *, const struct rai_job_view *,
	    size_t n, const char *ns, const char *name);

/* ---- the view's reason ---- */

/* Sets v's reason and kind from why (the text is copied). */
void	 rai_job_view_set_why(struct rai_job_view *,
	    const struct rai_job_why *);
/* A control-plane job view's reason, from its Workload (v's status set). */
void	 rai_job_view_why_cp(struct rai_job_view *, const cJSON *workload);

#endif
