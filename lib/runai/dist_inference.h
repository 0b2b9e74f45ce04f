/*
 * dist_inference: what "runai inference distributed submit" asks for -
 * a model served by groups of pods, each a leader and its workers (on
 * the cluster a LeaderWorkerSet), the workers' own container where it
 * differs from the leader's, and the serving port with who may call it.
 * Pure: the parser of its --serving-port and the checks of the whole.
 * Only a control plane makes these (cp_dist_inference.h).
 */
#ifndef RUNAI_DIST_INFERENCE_H
#define RUNAI_DIST_INFERENCE_H

#include "core/err.h"
#include "core/strv.h"

/* The API's bounds of replicas and workers. */
#define RAI_DIST_INFERENCE_MAX	1000

struct rai_dist_serving {
	long		 port;		/* < 0: none */
	char		*auth_type;	/* public, authenticatedUsers,
					   authorizedUsers, authorizedGroups */
	struct rai_strv	 users;
	struct rai_strv	 groups;
	int		 expose_externally;
	char		*exposed_url;
};

struct rai_dist_inference {
	long		 replicas;	/* groups; < 0: the API's (1) */
	long		 workers;	/* per group; < 0: the API's (0) */
	const char	*startup_policy;	/* LeaderCreated, LeaderReady */
	const char	*restart_policy;	/* RecreateGroupOnPodRestart, None */
	/* the leader's command and arguments, each one string; NULL */
	const char	*command;
	const char	*args;
	/* the workers' container where it differs; NULL, none or < 0:
	   the leader's */
	const char	*worker_image;
	const char	*worker_command;
	const char	*worker_args;
	struct rai_strv	 worker_env;	/* NAME=VALUE; given: all of them */
	long		 worker_gpus;
	double		 worker_cpu;	/* cores; < 0: the leader's */
	const char	*worker_memory;	/* a quantity, e.g. "8G" */
	struct rai_dist_serving	 serving;
};

/* Every number unset, nothing given. */
void	 rai_dist_inference_init(struct rai_dist_inference *);
/* Frees what the parser made; the spec is init'ed again (the borrowed
 * strings are not freed). */
void	 rai_dist_inference_release(struct rai_dist_inference *);

/*
 * --serving-port: PORT, or container=PORT followed by any of
 * ,protocol=http ,authorization-type=public|authenticatedUsers|
 * authorizedUsers|authorizedGroups ,authorized-users=a:b
 * ,authorized-groups=g:h ,expose-externally ,exposed-url=URL.
 * RAI_E_USAGE with what is wrong.
 */
int	 rai_dist_serving_parse(const char *arg, struct rai_dist_serving *,
	    struct rai_err *);

/*
 * The whole, as the control plane would judge it: the counts within
 * the API's bounds, the worker flags only with workers, the users with
 * authorizedUsers and the groups with authorizedGroups. RAI_E_USAGE
 * naming the flags.
 */
int	 rai_dist_inference_check(const struct rai_dist_inference *,
	    struct rai_err *);

/* Whether any of the workers' own flags was given. */
int	 rai_dist_inference_worker_given(const struct rai_dist_inference *);

#endif
