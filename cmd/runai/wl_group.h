/*
 * The CLI v2 grammar's workload nouns: "runai workload", "workspace",
 * "training [standard|pytorch|...]", "inference" and the root aliases
 * "runai pytorch ..." (= "runai training pytorch ..."). Their verbs are
 * the same few commands (wl_list.c, wl_describe.c, wl_act.c) placed in
 * every group, plus forwards to the original grammar's logs, exec,
 * bash, attach and port-forward; a verb learns its group from the words
 * typed (ctx->cmdpath), so one command serves every group with the
 * group's filter. The original grammar (runai list jobs, runai
 * describe job, ...) stays as it is: both are first-class.
 */
#ifndef RUNAI_WL_GROUP_H
#define RUNAI_WL_GROUP_H

#include "cli/listing.h"
#include "cli/opt.h"
#include "runai.h"
#include "runai/job_view.h"

enum runai_wl_kind {
	RUNAI_WL_ANY,		/* runai workload */
	RUNAI_WL_WORKSPACE,	/* interactive jobs */
	RUNAI_WL_TRAINING,	/* every training: standard and distributed */
	RUNAI_WL_STANDARD,	/* single-pod training */
	RUNAI_WL_FRAMEWORK,	/* one distributed framework */
	RUNAI_WL_INFERENCE,	/* every inference: standard and distributed */
	RUNAI_WL_DIST_INFERENCE,	/* leader-worker groups */
};

struct runai_wl_group {
	enum runai_wl_kind	 kind;
	const char		*framework;	/* RUNAI_WL_FRAMEWORK: "PyTorch" */
	const char		*noun;		/* "workspace", "training pytorch" */
};

/* The group of the command being run, from the words typed. */
void	 runai_wl_group_of(const struct rai_ctx *, struct runai_wl_group *);
/* Whether a job belongs to the group. */
int	 runai_wl_group_has(const struct runai_wl_group *,
	    const struct rai_job_view *);
/*
 * The CLI v2 type of a job: "Workspace", "Training" or "Inference"; a
 * control plane's other type (a manifest's kind, "Job") as it is.
 */
const char *runai_wl_v2_type(const struct rai_job_view *);
/* A distributed job's framework title ("PyTorch"), or "" for none. */
const char *runai_wl_framework(const struct rai_job_view *);
/*
 * 0 when the project has a job of that name in the group; otherwise the
 * error the CLI v2 grammar gives ("no workspace named X in project P").
 */
int	 runai_wl_group_find(struct rai_ctx *, const struct runai_wl_group *,
	    const char *name, struct rai_err *);
/* The same for a job already in hand (NULL: none of that name). */
int	 runai_wl_group_check(struct rai_ctx *, const struct runai_wl_group *,
	    const char *name, const struct rai_job_view *, struct rai_err *);

/* 0, or the error that the group has no workloads in this mode. */
int	 runai_wl_group_usable(struct rai_ctx *, const struct runai_wl_group *);

/* The shared verbs, placed in each group's table (wl_list.c, ...). */
struct runai_wl_list_opts {
	int			 all;
	const char		*status;
	const char		*type;		/* workload list */
	const char		*framework;
	struct rai_listing_opts	 out;
};
extern const struct rai_opt runai_wl_list_opts[];
int	 runai_wl_list_run(struct rai_ctx *, void *, int, char **);

struct runai_wl_describe_opts {
	const char	*output;
	int		 general;
	int		 pods;
	int		 events;
	long		 pod_limit;
	long		 event_limit;
	const char	*sort_events;
	const char	*type;		/* workload describe */
	const char	*framework;
};
extern const struct rai_opt runai_wl_describe_opts[];
int	 runai_wl_describe_run(struct rai_ctx *, void *, int, char **);

struct runai_wl_act_opts {
	int		 yes;
	const char	*type;		/* workload delete */
	const char	*framework;
};
extern const struct rai_opt runai_wl_act_opts[];
extern const struct rai_opt runai_wl_delete_opts[];	/* + -y */
int	 runai_wl_delete_run(struct rai_ctx *, void *, int, char **);
int	 runai_wl_suspend_run(struct rai_ctx *, void *, int, char **);
int	 runai_wl_resume_run(struct rai_ctx *, void *, int, char **);

/*
 * A group's verbs, for its subcommand table: NOUN names one ("a
 * workspace"), NOUNS many; FLAGS are the command flags (the project
 * resolved, the control plane's half).
 */
#define RUNAI_WL_FLAGS	(RAI_CMD_NEED_PROJECT | RUNAI_CMD_CP)
#define RUNAI_WL_LIST(NOUNS) {						\
	.name = "list", .summary = "list " NOUNS,			\
	.synopsis = "[-A] [--status <status>] [--json|--yaml|--table]",\
	.description = RUNAI_WL_LIST_HELP,				\
	.opts = runai_wl_list_opts,					\
	.opts_size = sizeof(struct runai_wl_list_opts),			\
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,			\
	.run = runai_wl_list_run }
#define RUNAI_WL_DESCRIBE(NOUN) {					\
	.name = "describe", .summary = "show " NOUN "'s status, pods and " \
	    "events", .synopsis = "<name> [-o table|json|yaml]",	\
	.description = RUNAI_WL_DESCRIBE_HELP,				\
	.opts = runai_wl_describe_opts,					\
	.opts_size = sizeof(struct runai_wl_describe_opts),		\
	.args_min = 1, .args_max = 1, .args_comp = RAI_COMP_JOB,	\
	.flags = RUNAI_WL_FLAGS, .run = runai_wl_describe_run }
#define RUNAI_WL_ACT(VERB, WHAT, NOUN, RUN) {				\
	.name = VERB, .summary = WHAT " " NOUN, .synopsis = "<name>",	\
	.description = RUNAI_WL_ACT_HELP,				\
	.opts = runai_wl_act_opts,					\
	.opts_size = sizeof(struct runai_wl_act_opts),			\
	.args_min = 1, .args_max = 1, .args_comp = RAI_COMP_JOB,	\
	.flags = RUNAI_WL_FLAGS, .run = RUN }
#define RUNAI_WL_DELETE(NOUN)						\
	RUNAI_WL_ACT("delete", "delete", NOUN, runai_wl_delete_run)
#define RUNAI_WL_SUSPEND(NOUN)						\
	RUNAI_WL_ACT("suspend", "suspend", NOUN, runai_wl_suspend_run)
#define RUNAI_WL_RESUME(NOUN)						\
	RUNAI_WL_ACT("resume", "resume", NOUN, runai_wl_resume_run)
/* The original grammar's stream commands, under a group's noun. */
#define RUNAI_WL_FORWARD(VERB, WHAT)					\
	{ .name = VERB, .summary = WHAT, .forward = VERB }
#define RUNAI_WL_STREAMS(NOUN)						\
	RUNAI_WL_FORWARD("logs", "print the logs of " NOUN),		\
	RUNAI_WL_FORWARD("exec", "run a command in " NOUN "'s pod"),	\
	RUNAI_WL_FORWARD("bash", "open a shell in " NOUN "'s pod"),	\
	RUNAI_WL_FORWARD("attach", "attach to " NOUN "'s main process"), \
	RUNAI_WL_FORWARD("port-forward", "forward local ports to " NOUN)

/* A group's verbs as static commands named P_list, P_describe, ... */
#define RUNAI_WL_VERBS(P, NOUN, NOUNS)					\
	static const struct rai_cmd P##_list = RUNAI_WL_LIST(NOUNS);	\
	static const struct rai_cmd P##_describe = RUNAI_WL_DESCRIBE(NOUN); \
	static const struct rai_cmd P##_delete = RUNAI_WL_DELETE(NOUN);	\
	static const struct rai_cmd P##_suspend = RUNAI_WL_SUSPEND(NOUN); \
	static const struct rai_cmd P##_resume = RUNAI_WL_RESUME(NOUN);	\
	static const struct rai_cmd P##_streams[] = { RUNAI_WL_STREAMS(NOUN) }
/* ... and their entries in the group's subcommand table. */
#define RUNAI_WL_VERB_ENTRIES(P)					\
	&P##_list, &P##_describe, &P##_delete, &P##_suspend, &P##_resume, \
	&P##_streams[0], &P##_streams[1], &P##_streams[2], &P##_streams[3], \
	&P##_streams[4]

#define RUNAI_WL_LIST_HELP						\
	"Lists the workloads of the project (-A: of every project) that " \
	"belong to the command's group, with the columns Workload, Type, " \
	"Status, Project, Preemptible, Running/Requested Pods and GPU " \
	"Allocation. --columns picks columns by id: name, type, status, " \
	"project, preemptible, pods, gpu, and also framework, node, image, " \
	"user, age and id. --json and --yaml print every column of every " \
	"row. --status keeps the workloads in that status (any case)."
#define RUNAI_WL_DESCRIBE_HELP						\
	"Shows the workload's fields, its pods and the events about it, " \
	"as 'runai describe job' does; -o json and -o yaml print the same " \
	"document. --general=false, --pods=false and --events=false leave " \
	"a section out; --pod-limit and --event-limit keep that many rows " \
	"(-1: all), --sortEvents desc puts the newest event first."
#define RUNAI_WL_ACT_HELP						\
	"Acts on the named workload of the project, as the original " \
	"grammar's delete, suspend and resume do. The name must be a " \
	"workload of this group: a workspace is not deleted by 'runai " \
	"training delete'."

#endif
