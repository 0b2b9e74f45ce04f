/*
 * What "runai submit" was asked for, before anything is rendered: the
 * spec the command fills from its flags, the parsers of the flags that
 * have a syntax of their own, the checks of the whole spec, and who
 * submits. submit.h, which renders the objects, includes this header.
 */
#ifndef RAI_SUBMIT_SPEC_H
#define RAI_SUBMIT_SPEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/strv.h"

#define RAI_SUBMIT_GPU_MEM_MIN	100	/* MB, as the reference */

/* Tri-state booleans: unset, or what the flag said. */
#define RAI_UNSET	(-1)

struct rai_submit_custom;	/* submit.h */

struct rai_submit_spec {
	/* identity, filled by the command */
	const char	*name;
	const char	*project;
	const char	*namespace;
	const char	*user;		/* annotation "user"; NULL = none */
	const char	*cli_command;	/* annotation "runai-cli-command" */
	long		 job_index;	/* label runai/job-index; < 0 = none */
	int		 batch_job;	/* batch/v1 Job instead of RunaiJob */
	int		 inference;	/* apps/v1 Deployment instead */
	long		 replicas;	/* the Deployment's; < 0 = 1 */

	/* container */
	const char	*image;
	const char	*image_pull_policy;	/* NULL = Always */
	const char	*working_dir;
	const char *const *cmd;	/* after "--"; ncmd words */
	size_t		 ncmd;
	int		 is_command;	/* --command: cmd is the entrypoint */
	const char	*git_sync;	/* connection string, see git_sync.h */
	/* its password when not in the string (a file, stdin, env) */
	const char	*git_sync_password;
	int		 jupyter;	/* notebook defaults (the command) */
	struct rai_strv	 env;		/* K=V, K=SECRET:<secret>,<key> */
	int		 tty;
	int		 stdin_open;

	/* resources */
	double		 gpu;		/* whole or a fraction in (0, 1) */
	const char	*gpu_memory;	/* quantity, e.g. "4G" */
	const char	*cpu;
	const char	*cpu_limit;
	const char	*memory;
	const char	*memory_limit;
	const char	*mig_profile;	/* "1g.5gb": a MIG slice, not a GPU */
	int		 elastic;	/* may run on fewer GPUs */
	int		 mps;		/* share the GPU through MPS */

	/* storage */
	struct rai_strv	 volumes;	/* HOST:CTR[:ro|rw] */
	struct rai_strv	 pvcs;		/* [SC]:SIZE:PATH[:ro] | NAME:PATH[:ro] */
	int		 large_shm;

	/* network */
	struct rai_strv	 ports;		/* PORT | SVCPORT:CTRPORT */
	const char	*service_type;	/* NULL, nodeport, loadbalancer, ingress,
					   portforward (a ClusterIP Service
					   runai forwards), clusterip */
	int		 host_ipc;
	int		 host_network;

	/* lifecycle */
	int		 interactive;
	int		 preemptible;
	long		 backoff_limit;		/* < 0 = unset */
	long		 completions;		/* < 0 = unset */
	long		 parallelism;		/* < 0 = unset */
	long		 ttl_after_finish;	/* seconds, < 0 = unset */

	/* access control */
	int		 run_as_user;
	long		 uid;		/* with run_as_user */
	long		 gid;
	const long	*groups;	/* supplementalGroups */
	size_t		 ngroups;
	int		 ids_from_token;	/* also env LDAP_UID/LDAP_GID */
	int		 create_home_dir;	/* RAI_UNSET = on with run_as_user */
	int		 prevent_privilege_escalation;

	/* scheduling */
	const char	*node_type;
	const char	*node_pools;	/* "a,b": backend mode only */
	int		 non_preemptible;	/* backend mode only */

	/* the pod template's own labels and annotations: KEY=VALUE */
	struct rai_strv	 pod_labels;
	struct rai_strv	 pod_annotations;

	/* another kind of workload around the same pod template, or NULL */
	const struct rai_submit_custom *custom;

	/*
	 * What the CLI v2's flags add (submit_kv.h has their syntax); both
	 * renderers carry each.
	 */
	double		 gpu_portion_limit;	/* 0: none; with a fraction */
	const char	*gpu_memory_limit;	/* with gpu_memory */
	struct rai_strv	 extended_resources;	/* RESOURCE=QUANTITY */
	struct rai_strv	 tolerations;		/* key=,operator=,... */
	long		 termination_grace;	/* seconds; < 0 = unset */
	struct rai_strv	 nfs;			/* server=,path=,mountpath= */
	struct rai_strv	 configmap_volumes;	/* name=,path= */
	struct rai_strv	 secret_volumes;	/* name=,path= */
	struct rai_strv	 empty_dirs;		/* name=,path=,medium=,... */
	long		 run_as_uid;		/* explicit ids; < 0 = unset */
	long		 run_as_gid;
	const char	*supplemental_groups;	/* "1,2": explicit groups */
	int		 run_as_non_root;
	struct rai_strv	 capabilities;		/* added: NET_ADMIN, ... */
	int		 allow_privilege_escalation;	/* asked for outright */
};

/* Sets every "unset" field; the rest zero. */
void	 rai_submit_spec_init(struct rai_submit_spec *);

/*
 * Checks the spec as a whole (every flag error the reference reports,
 * and the ones it missed); rai_submit_render calls it first. Errors are
 * RAI_E_USAGE with the reference's texts where it has one.
 */
int	 rai_submit_check_spec(const struct rai_submit_spec *,
	    struct rai_err *);

/*
 * Job names: an RFC 1035 label of at most 63 characters. The message
 * is the reference's.
 */
int	 rai_submit_check_name(const char *name, struct rai_err *);

/*
 * The "user" annotation: the email claim of the id-token's claims (may be
 * NULL), else the local user's name; NULL when neither is known.
 */
char	*rai_submit_default_user(const cJSON *claims);

#define RAI_SUBMIT_MAX_GROUPS	64
/*
 * --run-as-user ids: the uid and gid claims (then ids_from_token), else
 * this process's uid, gid and up to max groups, stored in groups[].
 */
void	 rai_submit_ids(struct rai_submit_spec *, const cJSON *claims,
	    long *groups, size_t max);

/* ---- flag parsers, exported for unit tests ---- */

struct rai_volume {
	char	*host;
	char	*path;
	int	 read_only;
};
int	 rai_submit_parse_volume(const char *, struct rai_volume *,
	    struct rai_err *);
void	 rai_volume_release(struct rai_volume *);

struct rai_pvc {
	int	 dynamic;	/* a new claim of size in storage_class */
	char	*claim;		/* existing claim's name */
	char	*storage_class;	/* dynamic; "" = the cluster default */
	char	*size;		/* dynamic */
	char	*path;
	int	 read_only;
};
int	 rai_submit_parse_pvc(const char *, struct rai_pvc *, struct rai_err *);
void	 rai_pvc_release(struct rai_pvc *);

struct rai_port {
	long	port;		/* the Service's */
	long	target;		/* the container's */
	int	pair;		/* given as PORT:TARGET */
};
int	 rai_submit_parse_port(const char *, struct rai_port *,
	    struct rai_err *);

/* K=V (V may hold '='); *name and *value point into a copy in *buf. */
int	 rai_submit_parse_env(const char *, char **buf, const char **name,
	    const char **value, struct rai_err *);

/* The MIG profiles --mig-profile takes, NULL-terminated. */
extern const char *const rai_submit_mig_profiles[];

/* GPU memory flag -> MB (bytes / 10^6, truncated), as the annotation. */
int	 rai_submit_gpu_memory_mb(const char *, long *mb, struct rai_err *);

#endif
