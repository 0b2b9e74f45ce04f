/*
 * What the runai command files share: the global options, the command
 * table, and option initialisers used by many commands so their help
 * text and completion stay the same everywhere.
 */
#ifndef RUNAI_H
#define RUNAI_H

#include <stddef.h>

#include "cli/opt.h"
#include "cli/out.h"

struct runai_globals {
	const char	*project;
	const char	*kubeconfig;
	const char	*context;
	int		 verbosity;
	long		 request_timeout;	/* seconds, 0 = default */
};

#define RUNAI_GLOBALS(ctx) ((const struct runai_globals *)(ctx)->globals)

/* -o/--output for commands whose views are tables. */
#define RUNAI_OPT_OUTPUT(type, field)					\
	{ 'o', "output", RAI_OPT_ENUM, offsetof(type, field), "<format>",	\
	    "output format: wide, json, yaml or name", NULL,		\
	    rai_out_choices, RAI_COMP_CHOICES, 0, NULL }

/*
 * What the program's setup does for a command's RAI_CMD_NEED_* flags,
 * for commands that check their own arguments before they connect
 * (submit). Steps already done are skipped.
 */
int	runai_prepare(struct rai_ctx *, unsigned flags, struct rai_err *);

/* Parses an -o value ("" or NULL = table) into fmt. */
int	runai_output_format(struct rai_ctx *, const char *, enum rai_out_fmt *);

extern const struct rai_cmd runai_cmd_completion;
extern const struct rai_cmd runai_cmd_config;
extern const struct rai_cmd runai_cmd_config_cluster;
extern const struct rai_cmd runai_cmd_config_project;
extern const struct rai_cmd runai_cmd_list;
extern const struct rai_cmd runai_cmd_list_clusters;
extern const struct rai_cmd runai_cmd_list_nodes;
extern const struct rai_cmd runai_cmd_list_projects;
extern const struct rai_cmd runai_cmd_list_jobs;
extern const struct rai_cmd runai_cmd_submit;
extern const struct rai_cmd runai_cmd_describe;
extern const struct rai_cmd runai_cmd_describe_job;
extern const struct rai_cmd runai_cmd_describe_node;
extern const struct rai_cmd runai_cmd_top;
extern const struct rai_cmd runai_cmd_top_job;
extern const struct rai_cmd runai_cmd_top_node;
extern const struct rai_cmd runai_cmd_delete;
extern const struct rai_cmd runai_cmd_suspend;
extern const struct rai_cmd runai_cmd_resume;
extern const struct rai_cmd runai_cmd_logs;
extern const struct rai_cmd runai_cmd_exec;
extern const struct rai_cmd runai_cmd_bash;
extern const struct rai_cmd runai_cmd_attach;
extern const struct rai_cmd runai_cmd_login;
extern const struct rai_cmd runai_cmd_logout;
extern const struct rai_cmd runai_cmd_whoami;
extern const struct rai_cmd runai_cmd_exec_credential;

extern const struct rai_prog runai_prog;

/* "list jobs", which plain "list" also runs (list_jobs.c). */
struct runai_list_jobs_opts {
	const char	*output;
	int		 all;
	int		 watch;
};
extern const struct rai_opt runai_list_jobs_opts[];
int	runai_list_jobs_run(struct rai_ctx *, void *, int, char **);


/* delete.c, shared with suspend/resume: JOB... or -A, a 403 in plain words. */
struct rai_err;
int	runai_job_names(struct rai_ctx *, int all, int argc, char **argv,
	    char ***names, size_t *n);
void	runai_job_names_free(char **, size_t);
void	runai_job_err_forbidden(struct rai_err *);
/* suspend.c, shared with resume.c. */
struct runai_suspend_opts {
	int	all;
};
extern const struct rai_opt runai_suspend_opts[];
int	runai_suspend_run(struct rai_ctx *, const struct runai_suspend_opts *,
	    int argc, char **argv, int suspend);

/*
 * job_pod.c, shared by describe job, logs, exec, bash and attach.
 *
 * The pod of job `job` in namespace ns to talk to: want_pod (NULL = none
 * given) must be one of the job's pods; otherwise the only pod, or the
 * chief (newest by creationTimestamp) when there are several. *pod gets
 * the pod object (caller cJSON_Deletes). A job that does not exist ->
 * RAI_E_NOTFOUND with the contract's message (§3.4: missing, invalid,
 * ambiguous); a job without pods yet -> RAI_E_NOTFOUND too, with
 * err->reason RUNAI_REASON_NO_PODS (callers may wait and retry); a
 * want_pod that is not the job's -> RAI_E_NOTFOUND, reason
 * RUNAI_REASON_NOT_JOB_POD. The project in messages is ctx->project.
 */
#define RUNAI_REASON_NO_PODS		"NoPods"
#define RUNAI_REASON_NOT_JOB_POD	"NotJobPod"
struct cJSON;
struct kube_client;
struct rai_job_view;
int	runai_job_pod(struct rai_ctx *, const char *ns, const char *job,
	    const char *want_pod, struct cJSON **pod, struct rai_err *);
/* §3.4's lookup of one job in ns; *v is filled only on success. */
int	runai_job_find(struct rai_ctx *, const char *ns, const char *job,
	    struct rai_job_view *v, struct rai_err *);
/* The pods whose controller is the workload uid, as a new array. */
int	runai_job_pods(struct kube_client *, const char *ns, const char *uid,
	    struct cJSON **pods, struct rai_err *);
/* The chief of pods (newest creationTimestamp, first on ties) or NULL. */
const struct cJSON *runai_chief_pod(const struct cJSON *pods);

/* --pod, --container and --pod-running-timeout of logs, exec, bash and attach. */
#define RUNAI_OPT_POD(type, field)					\
	{ 0, "pod", RAI_OPT_STRING, offsetof(type, field), "<pod>",	\
	    "the pod to use (default: the job's newest)", NULL, NULL,	\
	    RAI_COMP_NONE, 0, NULL }
#define RUNAI_OPT_CONTAINER(type, field)				\
	{ 'c', "container", RAI_OPT_STRING, offsetof(type, field),	\
	    "<name>", "the container to use (default: the first)", NULL,	\
	    NULL, RAI_COMP_NONE, 0, NULL }
#define RUNAI_OPT_POD_TIMEOUT(type, field)				\
	{ 0, "pod-running-timeout", RAI_OPT_DURATION, offsetof(type, field), \
	    "<duration>", "how long to wait for the pod to run", "30s",	\
	    NULL, RAI_COMP_NONE, 0, NULL }

/* pod_session.c: exec, bash and attach (and submit --attach). */
struct runai_session_opts {
	const char	*job;
	const char	*pod;		/* NULL = the job's newest */
	const char	*container;	/* NULL = the first */
	char *const	*argv;		/* the command; NULL = attach */
	char *const	*fallback_argv;	/* when argv[0] is not in the image */
	int		 use_stdin;
	int		 tty;
	long		 wait_ms;	/* for the pod to run */
	int		 waiting_message;	/* say that we wait */
	int		 warn_no_tty;	/* say when stdin is no terminal */
};
/* The remote exit status (0..255), or -1 with err set. */
int	runai_pod_session(struct rai_ctx *, const struct runai_session_opts *,
	    struct rai_err *);
/* attach.c, for submit --attach. */
int	runai_attach(struct rai_ctx *, const char *job, const char *pod,
	    long timeout_s);

/* term.c: raw mode restored on every exit; signals as readable pipes. */
int	runai_term_raw(int fd);
void	runai_term_restore(void);
int	runai_term_size(void *fd_ptr, unsigned *cols, unsigned *rows);
int	runai_signals_catch(int *winch_fd, int *stop_fd);
/* Puts the old handlers back; the stopping signal's number, or 0. */
int	runai_signals_release(void);

#endif
