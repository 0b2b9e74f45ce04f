/*
 * The CLI v2's submit flags (runai workspace|training [FRAMEWORK]
 * submit) on top of submit's and submit-dist's: the fields of the flags
 * that have no field of the original's (or a syntax of their own), the
 * command's kind, and their mapping onto the same spec. The v2 commands
 * fill the same options structs and run the same code; these fields
 * ride along in them (struct runai_submit_opts, runai_dist_opts).
 */
#ifndef RUNAI_SUBMIT_V2_MAP_H
#define RUNAI_SUBMIT_V2_MAP_H

#include "cli/opt.h"
#include "core/err.h"
#include "core/strv.h"
#include "runai/dist.h"
#include "runai/submit.h"

/* The choices of the v2 flags that take one word of a few. */
extern const char *const runai_v2_gpu_request_types[];	/* portion, memory */
extern const char *const runai_v2_preemptibilities[];
extern const char *const runai_v2_uid_sources[];	/* fromTheImage, ... */
extern const char *const runai_v2_restart_policies[];	/* Always, ... */
extern const char *const runai_v2_clean_policies[];	/* None, All, Running */

/* Which v2 command runs: its words in messages and its kind of job. */
struct runai_v2_kind {
	const char		*what;	/* "workspace", "PyTorch training" */
	const char		*group;	/* "workspace", "training pytorch" */
	int			 interactive;
	int			 distributed;
	enum rai_dist_kind	 dist;	/* with distributed */
};

struct runai_v2_flags {
	/* resources */
	long		 gpu_devices;		/* -g; < 0: not given */
	double		 gpu_portion;		/* 0: not given */
	double		 gpu_portion_limit;
	const char	*gpu_memory_limit;
	const char	*gpu_request_type;	/* portion, memory */
	struct rai_strv	 extended_resources;
	/* storage */
	struct rai_strv	 existing_pvcs;
	struct rai_strv	 new_pvcs;
	struct rai_strv	 host_paths;
	struct rai_strv	 nfs;
	struct rai_strv	 git_syncs;
	struct rai_strv	 configmap_volumes;
	struct rai_strv	 secret_volumes;
	struct rai_strv	 empty_dirs;
	/* network */
	struct rai_strv	 ports;
	struct rai_strv	 external_urls;
	int		 host_ipc;
	int		 host_network;
	/* environment */
	struct rai_strv	 env_secrets;
	/* identity and security */
	int		 create_home_dir;	/* RAI_UNSET: not given */
	long		 run_as_uid;		/* < 0: not given */
	long		 run_as_gid;
	const char	*supplemental_groups;
	int		 run_as_non_root;
	struct rai_strv	 capabilities;
	int		 allow_privilege_escalation;
	const char	*user_group_source;
	/* scheduling */
	struct rai_strv	 node_pools;
	struct rai_strv	 tolerations;
	const char	*preemptibility;
	int		 preemptible;		/* the workspace's own flag */
	/* lifecycle (< 0: not given) */
	long		 backoff_limit;
	long		 parallelism;
	long		 runs;
	long		 auto_deletion;
	long		 grace;
	/* the console */
	int		 attach;		/* distributed (W, T: submit's) */
	long		 pod_running_timeout;	/* < 0: not given */
	/* distributed */
	const char	*restart_policy;
	long		 min_replicas;		/* < 0: not given */
	long		 max_replicas;
	/* the master's own (--master-*); gpu_devices < 0: not given */
	struct rai_dist_master master;
	/* flags accepted and refused at run time: their rows land here */
	int		 refused_flag;
	struct rai_strv	 refused_values;
	/* made by runai_v2_fill_spec; the spec points at them (owned) */
	struct rai_strv	 made_pvcs;
	struct rai_strv	 made_volumes;
	struct rai_strv	 made_ports;
	struct rai_strv	 made_env;
	char		*made_git_sync;
	char		*made_node_pools;
	char		*made_service_type;
};

/*
 * Before anything is sent, what the flags alone get wrong or what this
 * runai cannot do yet, in the v2 flags' words: a flag refused at run
 * time (its row writes refused_flag or refused_values), more than one
 * NAME before "--", NAME with --name-prefix, an environment asset
 * (--environment NAME among the variables), GPUs asked for two ways,
 * flags that need each other. opts is the command's options struct,
 * where the refused rows point; c its fields these checks read. The
 * values of the key=value flags are checked with the spec.
 */
struct runai_v2_common {
	const char		*prefix;
	const struct rai_strv	*env;
	const char		*gpu_memory;
};
int	 runai_v2_check(struct rai_ctx *, const void *opts,
	    const struct runai_v2_flags *, const struct runai_v2_kind *,
	    const struct runai_v2_common *, int argc, char **argv);
/*
 * The fields of f that the command's table t has no row for are set to
 * "not given" (a row of RAI_OPT_TRISTATE does that when it is there).
 */
void	 runai_v2_flags_unset(struct runai_v2_flags *f,
	    const struct rai_opt *t, const void *opts);
/*
 * Lays the flags over a spec made from the options struct (after any
 * templates): what the command line gave wins. Lists are made anew in
 * f's made_* fields, the spec's own entries first. Again and again
 * gives the same spec.
 */
int	 runai_v2_fill_spec(struct runai_v2_flags *f,
	    const struct runai_v2_kind *, struct rai_submit_spec *,
	    struct rai_err *);
/* The distributed flags into d (its master pointing into f). */
void	 runai_v2_fill_dist(const struct runai_v2_flags *f,
	    struct rai_dist_spec *d);
/*
 * Once the mode is known: what the Kubernetes objects cannot carry,
 * named by its v2 flag (makes_objects: Kubernetes mode).
 */
int	 runai_v2_check_mode(const struct runai_v2_kind *,
	    const struct rai_submit_spec *, int makes_objects,
	    struct rai_err *);
/* How long --attach waits for the pod: --pod-running-timeout, else def. */
long	 runai_v2_attach_wait(const struct runai_v2_flags *, long def);
void	 runai_v2_flags_release(struct runai_v2_flags *);

#endif
