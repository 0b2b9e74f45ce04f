/*
 * inference: what "runai inference submit" asks for beside the
 * container - the port the model is served on, who may call it, how its
 * replicas scale and how long it may take - with the parser of
 * --serving-port and the checks of the whole, pure. Only a control
 * plane serves inference workloads: cp_request turns this into its
 * request, and the Kubernetes source refuses it.
 */
#ifndef RUNAI_INFERENCE_H
#define RUNAI_INFERENCE_H

#include "core/err.h"
#include "core/strv.h"

struct rai_inference_spec {
	/* --serving-port; port < 0: none (the control plane's default) */
	long		 port;		/* the container's, 1..65535 */
	char		*protocol;	/* http, grpc; NULL: the API's (http) */
	char		*auth_type;	/* public, authenticatedUsers,
					   authorizedUsersOrGroups; NULL */
	struct rai_strv	 users;		/* authorized-users=a:b */
	struct rai_strv	 groups;	/* authorized-groups=g:h */
	int		 cluster_local;	/* cluster-local-access-only */

	/* autoscaling; a number < 0 is unset (the API's default) */
	long		 min_replicas;
	long		 max_replicas;
	long		 initial_replicas;
	long		 activation_replicas;
	const char	*metric;	/* throughput, concurrency, latency,
					   or a custom metric's name */
	long		 metric_threshold;
	double		 metric_threshold_pct;
	long		 concurrency_limit;	/* 0: none */
	long		 scale_down_delay;	/* seconds */
	long		 scale_to_zero_retention;	/* seconds */

	/* serving, in seconds */
	long		 init_timeout;
	long		 request_timeout;
};

/* Every number unset, no serving port. */
void	 rai_inference_spec_init(struct rai_inference_spec *);
/* Frees what rai_inference_parse_port made; the spec is init'ed again. */
void	 rai_inference_spec_release(struct rai_inference_spec *);

/*
 * --serving-port: PORT, or container=PORT followed by any of
 * ,protocol=http|grpc ,authorization-type=TYPE ,authorized-users=a:b
 * ,authorized-groups=g:h ,cluster-local-access-only. RAI_E_USAGE with
 * what is wrong.
 */
int	 rai_inference_parse_port(const char *arg, struct rai_inference_spec *,
	    struct rai_err *);

/* The pieces of that grammar, for the distributed one (dist_inference.h):
 * a port number of digits alone, 1..65535; a:b:c into names, none
 * empty; v one of the NULL-ended words. -1 or 0 (one_of: 1 or 0). */
int	 rai_inference_port_number(const char *s, long *out);
int	 rai_inference_names(const char *v, struct rai_strv *out);
int	 rai_inference_one_of(const char *v, const char *const *words);
/* Each ','-separated item of arg through one (ctx and seen passed on),
 * until one fails: its -1, else 0. */
typedef int	 rai_inference_item_fn(const char *arg, const char *item,
		    void *ctx, unsigned *seen, struct rai_err *);
int	 rai_inference_port_items(const char *arg, rai_inference_item_fn *one,
	    void *ctx, unsigned *seen, struct rai_err *);

/*
 * The settings as a whole, as the control plane would judge them:
 * bounds, a metric where min < max (but for 0 and 1), a threshold with
 * the metric, scale to zero only by throughput or concurrency, and the
 * serving port's users or groups with their authorization type.
 * RAI_E_USAGE naming the flags.
 */
int	 rai_inference_check(const struct rai_inference_spec *,
	    struct rai_err *);

/*
 * The numbers given, each alone within the API's bounds (an update's
 * settings, before they are merged with the workload's). RAI_E_USAGE
 * naming the flag.
 */
int	 rai_inference_check_bounds(const struct rai_inference_spec *,
	    struct rai_err *);

/* Whether metric is one every release knows (throughput, concurrency,
 * latency); any other is a custom metric's name. */
int	 rai_inference_builtin_metric(const char *metric);

#endif
