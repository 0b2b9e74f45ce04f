/*
 * What the runai command files share: the global options, the command
 * table, and option initialisers used by many commands so their help
 * text and completion stay the same everywhere.
 */
#ifndef RUNAI_H
#define RUNAI_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "cli/kube_setup.h"
#include "cli/listing.h"
#include "cli/opt.h"
#include "cli/out.h"
#include "runai/wl.h"

struct runai_globals {
	const char		*project;
	const char		*cluster;	/* backend mode's cluster */
	const char		*loglevel;	/* the original CLI's --loglevel */
	struct rai_kube_globals	 kube;
};

/*
 * runai's own command flags (rai_cmd.flags), read by setup: where a
 * command runs in control-plane mode, so setup needs no list of
 * commands (and no command file is called from it).
 */
enum runai_cmd_flags {
	/* has a control-plane half */
	RUNAI_CMD_CP		= RAI_CMD_PROG << 0,
	/* runs with no cluster of the control plane chosen */
	RUNAI_CMD_CLUSTERLESS	= RAI_CMD_PROG << 1,
	/* reaches a job's pods: through the cluster's Kubernetes API */
	RUNAI_CMD_STREAM	= RAI_CMD_PROG << 2,
	/* wants a log only, which may come through the cluster's endpoint */
	RUNAI_CMD_LOG		= RAI_CMD_PROG << 3,
	/* in control-plane mode only with a kubeconfig (its contexts) */
	RUNAI_CMD_CP_KUBECONFIG	= RAI_CMD_PROG << 4,
};

#define RUNAI_GLOBALS(ctx) ((const struct runai_globals *)(ctx)->globals)

/* What setup prepares for a command (ctx->app). */
struct runai_app {
	struct kube_session	 kube;
	/* where the jobs are: Kubernetes objects or a control plane */
	struct rai_wl		*wl;
	char			*project;	/* resolved project, or NULL */
	char			*namespace;	/* its namespace, for streams */
	/* a log comes through the cluster's own endpoint (rai_wl_stream) */
	int			 cluster_api;
	/* the Run:ai CLI v2's config.json, when pointed at (cp_mode.c) */
	cJSON			*cli_config;
	int			 cli_config_read;
};

#define RUNAI_APP(ctx)	((struct runai_app *)(ctx)->app)
#define RUNAI_KUBE(ctx)	(&RUNAI_APP(ctx)->kube)
#define RUNAI_CLIENT(ctx)	(RUNAI_KUBE(ctx)->client)
#define RUNAI_PROJECT(ctx)	(RUNAI_APP(ctx)->project)
#define RUNAI_NS(ctx)		(RUNAI_APP(ctx)->namespace)
/* The workload interface (lib/runai/wl.h) the command works through. */
#define RUNAI_WL(ctx)		(RUNAI_APP(ctx)->wl)

/* -o/--output for commands whose views are tables. */
#define RUNAI_OPT_OUTPUT(stype, field)					\
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(stype, field), .argh = "<format>", \
	  .help = "output format: wide, json, yaml or name", \
	  .choices = rai_out_choices, .comp = RAI_COMP_CHOICES }

/*
 * What the program's setup does for a command's RAI_CMD_NEED_* flags,
 * for commands that check their own arguments before they connect
 * (submit). Steps already done are skipped.
 */
int	runai_prepare(struct rai_ctx *, unsigned flags, struct rai_err *);
/* The hint of the commands that also take -A (rai_wl_resolve's). */
#define RUNAI_HINT_PROJECT_OR_ALL \
	"run 'runai config project <name>', use -p <name>, or -A for every " \
	"project"
/* The 403 message, and the session closed (setup.c). */
void	runai_teardown(struct rai_ctx *);
/* Completion words from the kubeconfig and the cluster (complete_words.c). */
int	runai_complete(struct rai_ctx *, enum rai_comp, const char *prefix,
	    struct rai_strv *out);

/* Parses an -o value ("" or NULL = table) into fmt. */
int	runai_output_format(struct rai_ctx *, const char *, enum rai_out_fmt *);

extern const struct rai_cmd runai_cmd_completion;
extern const struct rai_cmd runai_cmd_config;
extern const struct rai_cmd runai_cmd_config_cluster;
extern const struct rai_cmd runai_cmd_config_project;
extern const struct rai_cmd runai_cmd_config_set;
extern const struct rai_cmd runai_cmd_config_describe;
extern const struct rai_cmd runai_cmd_config_generate;
extern const struct rai_cmd runai_cmd_list;
extern const struct rai_cmd runai_cmd_list_clusters;
extern const struct rai_cmd runai_cmd_list_nodes;
extern const struct rai_cmd runai_cmd_list_projects;
extern const struct rai_cmd runai_cmd_list_jobs;
extern const struct rai_cmd runai_cmd_submit;
extern const struct rai_cmd runai_cmd_submit_dist;
extern const struct rai_cmd runai_cmd_submit_mpi;
/* the CLI v2's submit commands, each named "submit" (submit_v2*.c) */
extern const struct rai_cmd runai_cmd_workspace_submit;
extern const struct rai_cmd runai_cmd_training_submit;
extern const struct rai_cmd runai_cmd_pytorch_submit;
extern const struct rai_cmd runai_cmd_tensorflow_submit;
extern const struct rai_cmd runai_cmd_mpi_submit;
extern const struct rai_cmd runai_cmd_xgboost_submit;
extern const struct rai_cmd runai_cmd_jax_submit;
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
extern const struct rai_cmd runai_cmd_port_forward;
extern const struct rai_cmd runai_cmd_login;
extern const struct rai_cmd runai_cmd_logout;
extern const struct rai_cmd runai_cmd_whoami;
/* the Run:ai CLI v2's session commands */
extern const struct rai_cmd runai_cmd_auth;
extern const struct rai_cmd runai_cmd_auth_get_token;
extern const struct rai_cmd runai_cmd_kubeconfig;
extern const struct rai_cmd runai_cmd_kubeconfig_set;
extern const struct rai_cmd runai_cmd_upgrade;
extern const struct rai_cmd runai_cmd_exec_credential;
/* exec_credential.c: an ExecCredential holding token, as kubectl reads it. */
int	runai_print_exec_credential(FILE *, const char *token);
extern const struct rai_cmd runai_cmd_list_templates;
extern const struct rai_cmd runai_cmd_describe_template;
extern const struct rai_cmd runai_cmd_diagnostics;	/* diagnostics collect-logs */
extern const struct rai_cmd runai_cmd_delete_job;
/* the CLI v2 grammar's workload nouns (wl_group.h) */
extern const struct rai_cmd runai_cmd_workload;
extern const struct rai_cmd runai_cmd_workspace;
extern const struct rai_cmd runai_cmd_training;
extern const struct rai_cmd runai_cmd_inference;
extern const struct rai_cmd runai_cmd_alias_pytorch;
extern const struct rai_cmd runai_cmd_alias_tensorflow;
extern const struct rai_cmd runai_cmd_alias_mpi;
extern const struct rai_cmd runai_cmd_alias_xgboost;
extern const struct rai_cmd runai_cmd_alias_jax;
extern const struct rai_cmd runai_cmd_inference_submit;
extern const struct rai_cmd runai_cmd_inference_update;
extern const struct rai_cmd runai_cmd_inference_dist_submit;
extern const struct rai_cmd runai_cmd_inference_dist_scale;
extern const struct rai_cmd runai_cmd_workload_submit;
/* the original CLI's old command names */
extern const struct rai_cmd runai_cmd_get;
extern const struct rai_cmd runai_cmd_project;
extern const struct rai_cmd runai_cmd_cluster;
extern const struct rai_cmd runai_cmd_template;
/* the CLI v2 grammar's object groups */
extern const struct rai_cmd runai_cmd_node;
extern const struct rai_cmd runai_cmd_nodepool;
extern const struct rai_cmd runai_cmd_pvc;
extern const struct rai_cmd runai_cmd_environment;
extern const struct rai_cmd runai_cmd_compute;
extern const struct rai_cmd runai_cmd_datasource;
extern const struct rai_cmd runai_cmd_credential;
extern const struct rai_cmd runai_cmd_cluster_set;
extern const struct rai_cmd runai_cmd_project_set;

extern const struct rai_prog runai_prog;

/* "list jobs", which plain "list" also runs (list_jobs.c). */
struct runai_list_jobs_opts {
	const char	*output;
	int		 all;
	int		 watch;
};
extern const struct rai_opt runai_list_jobs_opts[];
int	runai_list_jobs_run(struct rai_ctx *, void *, int, char **);


/* describe_job.c: the text view of a job, whole or in part. */
#define RUNAI_DETAIL_GENERAL	(1u << 0)	/* fields, conditions */
#define RUNAI_DETAIL_PODS	(1u << 1)
#define RUNAI_DETAIL_EVENTS	(1u << 2)
struct runai_detail_view {
	unsigned	 sections;	/* RUNAI_DETAIL_* */
	long		 pod_limit;	/* rows at most; < 0: all */
	long		 event_limit;
	int		 newest_first;	/* events */
};
extern const struct runai_detail_view runai_detail_all;
void	runai_job_detail_print(struct rai_ctx *, const struct rai_job_detail *,
	    const struct runai_detail_view *);
/*
 * asset_print.c: the asset groups' list (-A, --type and the v2 list
 * output) and describe (-o table|json|yaml) of one asset by name.
 */
struct runai_asset_list_opts {
	struct rai_listing_opts	 listing;
	int			 all;
	const char		*type;	/* --type, where the group has it */
};
#define RUNAI_OPT_ASSET_ALL(stype)					\
	{ .short_name = 'A', .long_name = "all", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(stype, all),				\
	  .help = "every scope's, not only the project's and those above it" }
/* -A and the list output; describe's -o */
extern const struct rai_opt runai_asset_list_opts[];
struct runai_asset_describe_opts {
	const char	*output;
};
extern const struct rai_opt runai_asset_describe_opts[];
extern const char *const runai_describe_formats[];
#define RUNAI_OPT_DESCRIBE_OUTPUT(stype, field)				\
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(stype, field), .argh = "<format>",	\
	  .help = "output format: table (the default), json or yaml",	\
	  .def = "table", .choices = runai_describe_formats,		\
	  .comp = RAI_COMP_CHOICES }
int	runai_assets_list(struct rai_ctx *, enum rai_wl_asset_kind,
	    const struct rai_listing_col *, const struct runai_asset_list_opts *);
int	runai_assets_describe(struct rai_ctx *, enum rai_wl_asset_kind,
	    const char *group, const struct rai_listing_col *, const char *name,
	    const char *output);
/*
 * config_cluster.c: makes the cluster called name (or with that id, in
 * control-plane mode) the one later commands use, in either mode; cluster
 * set and config cluster print their own line after it.
 */
int	runai_cluster_choose(struct rai_ctx *, const char *name, const char *id,
	    struct rai_err *);

/* setup.c: a 403 in plain words. */
struct rai_err;
void	runai_job_err_forbidden(struct rai_err *);
/*
 * act.c: delete, suspend or resume each job named, or with all every
 * job of the project; 0, 1 when one failed (said on stderr), -1.
 */
int	runai_act_on_jobs(struct rai_ctx *, int all, int argc, char **argv,
	    enum rai_wl_action);
/* suspend.c, shared with resume.c. */
struct runai_suspend_opts {
	int	all;
};
extern const struct rai_opt runai_suspend_opts[];

/* --pod, --container and --pod-running-timeout of logs, exec, bash and attach. */
#define RUNAI_OPT_POD(stype, field)					\
	{ .long_name = "pod", .type = RAI_OPT_STRING, \
	  .offset = offsetof(stype, field), .argh = "<pod>", \
	  .comp = RAI_COMP_POD, \
	  .help = "the pod to use (default: the job's lead: a distributed " \
	      "job's master, launcher or worker 0, else its newest pod)" }
#define RUNAI_OPT_CONTAINER(stype, field)				\
	{ .short_name = 'c', .long_name = "container", .type = RAI_OPT_STRING, \
	  .offset = offsetof(stype, field), .argh = "<name>", \
	  .help = "the container to use (default: the first)" }
#define RUNAI_OPT_POD_TIMEOUT(stype, field)				\
	{ .long_name = "pod-running-timeout", .type = RAI_OPT_DURATION, \
	  .offset = offsetof(stype, field), .argh = "<duration>", \
	  .help = "how long to wait for the pod to run", .def = "30s" }

/* The CLI v2 grammar's name for --pod-running-timeout. */
#define RUNAI_OPT_WAIT_TIMEOUT(stype, field)				\
	{ .long_name = "wait-timeout", .type = RAI_OPT_DURATION, \
	  .offset = offsetof(stype, field), .argh = "<duration>", \
	  .help = "the same as --pod-running-timeout" }

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
	const int	*stop_fd;	/* NULL, or readable: stop waiting */
	int		 ask_why;	/* a job that cannot start soon ends
					   the wait (runai_pod_session sets it) */
};
/* The remote exit status (0..255), or -1 with err set. */
int	runai_pod_session(struct rai_ctx *, const struct runai_session_opts *,
	    struct rai_err *);
/* The job's pod once it runs (o->job, o->pod, o->wait_ms, o->waiting_message). */
int	runai_pod_wait(struct rai_ctx *, const struct runai_session_opts *,
	    cJSON **pod, struct rai_err *);
/*
 * job_why.c: a job that cannot start soon (over quota, no node takes
 * pods, its image not pulled, suspended): -1 with err saying why, for
 * the commands that would wait on its pod; 0 when it may start (or its
 * reason cannot be read).
 */
int	runai_job_not_starting(struct rai_ctx *, const char *job,
	    struct rai_err *);
/*
 * After a followed pod went away: 1 with *line (the caller frees) when
 * the job was preempted or suspended ("job 'x' was preempted by team-d
 * at 10:02; it waits to run again"), else 0.
 */
int	runai_job_stopped(struct rai_ctx *, const char *job, char **line);
/* port_forward.c, for submit --service-type portforward and --jupyter. */
struct runai_pf_target {
	const char	*job;
	const char	*pod;		/* NULL = the job's newest */
	const char	*const *specs;	/* "[LOCAL:]REMOTE" */
	size_t		 nspecs;
	long		 wait_ms;	/* for the pod to run */
	/* after the listeners are up, before forwarding; NULL = none */
	int		(*ready)(struct rai_ctx *, const char *pod,
			    const unsigned *local_ports, void *ud);
	void		*ud;
};
int	runai_port_forward(struct rai_ctx *, const struct runai_pf_target *,
	    const char *const *addresses, size_t naddresses);
/* submit_forward.c: after submit --service-type portforward / --jupyter. */
int	runai_submit_forward(struct rai_ctx *, const char *job, int jupyter,
	    const char *const *ports, size_t nports);
/*
 * git_password.c: the --git-sync password read from password-file=,
 * stdin or $RUNAI_GIT_SYNC_PASSWORD (*out NULL: none apart from the
 * string; the caller wipes it with rai_free_secret).
 */
int	runai_git_sync_password(struct rai_ctx *, const char *git_sync,
	    int from_stdin, char **out);
/* attach.c, for submit --attach. */
int	runai_attach(struct rai_ctx *, const char *job, const char *pod,
	    long timeout_s);

/*
 * Which source the jobs come from (cp_mode.c): runai_cp_select opens the
 * control plane's (lib/runai/wl_cp) when the context is configured for
 * one, and returns 1 then; 0 leaves Kubernetes mode to setup.c.
 */
struct cp;
struct rai_kube_globals;
int	runai_cp_select(struct rai_ctx *, const struct rai_kube_globals *,
	    struct rai_err *);
/*
 * 0 when the command has a control-plane half (streams: once the
 * cluster's Kubernetes API and the project's namespace are set up),
 * else the error that says so.
 */
int	runai_cp_supported(struct rai_ctx *, const struct rai_kube_globals *,
	    struct rai_err *);
/*
 * The control-plane session behind the command's source, or NULL in
 * Kubernetes mode: for the commands about the session itself (login,
 * logout, whoami, version, config), never for a job's.
 */
struct cp *runai_control_plane(struct rai_ctx *);
/*
 * The context's own setting (kept beside it by runai config set and
 * runai config control-plane: url, authUrl, cluster, project,
 * interactive), else for url, cluster and project the Run:ai CLI's
 * config.json where pointed at; NULL when none (borrowed).
 */
const char *runai_setting(struct rai_ctx *, const char *key);
/* The same, and where it came from: "context", the CLI's file, or NULL. */
const char *runai_setting_where(struct rai_ctx *, const char *key,
	    const char **where);
/* Sets (value) or removes (NULL) settings of the current context at once. */
struct runai_setting_kv {
	const char	*key;
	const char	*value;
};
int	runai_settings_write(struct rai_ctx *, const struct runai_setting_kv *,
	    size_t n, struct rai_err *);
/* config control-plane --cluster NAME: checked when logged in, then kept. */
int	runai_cp_config_cluster(struct rai_ctx *, const char *cluster);
int	runai_cp_config_project(struct rai_ctx *, const char *project);
/* The same, quiet: the project checked, then kept beside the context. */
int	runai_cp_set_project(struct rai_ctx *, const char *project,
	    struct rai_err *);
/*
 * The control plane's cluster called (or with the id) cluster, checked
 * against those it serves, kept beside the context for later commands.
 */
int	runai_cp_use_cluster(struct rai_ctx *, const char *cluster,
	    struct rai_err *);
extern const struct rai_cmd runai_cmd_config_control_plane;
/*
 * What 'config project' and 'config cluster' do, for 'config set'
 * (config_project.c needs the client in Kubernetes mode; config_cluster.c
 * switches the kubeconfig's current context).
 */
int	runai_config_project(struct rai_ctx *, const char *project);
int	runai_config_cluster(struct rai_ctx *, const char *context);
/* config_describe.c: the settings as one document (config generate). */
cJSON	*runai_config_document(struct rai_ctx *);
/*
 * Where a job's pods are reached (logs, exec, attach, port-forward and
 * submit's --attach): the source's client and namespace, set up once
 * (setup.c).
 */
int	runai_stream_setup(struct rai_ctx *, struct rai_err *);
struct runai_cp_login {
	const char	*auth_flow;	/* "cli" (or none); the browser flows
					   are login.c's */
	const char	*username;
	int		 password_stdin;
	const char	*client_id;	/* access key */
	const char	*secret_file;
	int		 secret_stdin;
	int		 application;	/* 2.18's app_token grant */
	long		 timeout_ms;
	const char	*password;	/* given on the command line */
	const char	*secret;	/* given on the command line */
	int		 no_prompt;	/* never ask on the terminal */
	/* for messages, the flags that give the user name and the password
	   or secret without a terminal: NULL = --username, and
	   --password-stdin or --secret-file or --secret-stdin */
	const char	*user_flag;
	const char	*secret_flag;
};
int	runai_login_cp(struct rai_ctx *, const struct runai_cp_login *);
/* After a backend-mode login: where, and the clusters to choose from. */
void	runai_login_cp_done(struct rai_ctx *);
int	runai_logout_cp(struct rai_ctx *);
int	runai_whoami_cp(struct rai_ctx *, const char *output);
/* login.c: the terminal and stdin input the login flows share. */
int	runai_read_secret_line(int fd, long timeout_ms, char **out,
	    struct rai_err *);
/* flag: what to use instead where there is no terminal ("--username"). */
int	runai_prompt_password(long timeout_ms, const char *flag, char **out,
	    struct rai_err *);
int	runai_prompt_username(long timeout_ms, const char *flag, char **out,
	    struct rai_err *);
/* The lines "runai version" adds: the mode and the control plane. */
extern const struct rai_cmd runai_cmd_version;
/* term.c: raw mode restored on every exit; signals as readable pipes. */
int	runai_term_raw(int fd);
void	runai_term_restore(void);
int	runai_term_size(void *fd_ptr, unsigned *cols, unsigned *rows);
int	runai_signals_catch(int *winch_fd, int *stop_fd);
/* Puts the old handlers back; the stopping signal's number, or 0. */
int	runai_signals_release(void);

#endif
