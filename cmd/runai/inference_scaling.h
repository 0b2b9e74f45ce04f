/*
 * What the inference commands share: the autoscaling flags of
 * "inference submit" and "inference update" (one struct in each
 * command's options, one table of flags, and the move into
 * lib/runai/inference.h's spec), and the checks of a submit's container
 * before anything is sent (the distributed submit's too).
 */
#ifndef RUNAI_INFERENCE_SCALING_H
#define RUNAI_INFERENCE_SCALING_H

#include <stddef.h>

#include "runai.h"
#include "runai/inference.h"
#include "runai/submit.h"

/* A whole number is -1 until given (RAI_OPT_TRISTATE). */
struct inference_scaling_opts {
	long		 min_replicas;
	long		 max_replicas;
	long		 initial_replicas;
	long		 activation_replicas;
	const char	*metric;
	long		 metric_threshold;
	double		 metric_threshold_pct;
	long		 concurrency_limit;
	long		 scale_down_delay;
	long		 scale_to_zero_retention;
};

#define INFERENCE_SCALING_OFF(T, member, field) \
	(offsetof(T, member) + offsetof(struct inference_scaling_opts, field))
#define INFERENCE_COUNT_OPT(T, member, name, field, help_text) \
	{ .long_name = (name), .type = RAI_OPT_INT, \
	  .offset = INFERENCE_SCALING_OFF(T, member, field), \
	  .argh = "<n>", .flags = RAI_OPT_TRISTATE, .help = (help_text) }

/* The rows of the flags, for a command's table (T's member). */
#define INFERENCE_SCALING_OPTS(T, member) \
	INFERENCE_COUNT_OPT(T, member, "min-replicas", min_replicas, \
	    "replicas at least (0 scales to zero)"), \
	INFERENCE_COUNT_OPT(T, member, "max-replicas", max_replicas, \
	    "replicas at most"), \
	INFERENCE_COUNT_OPT(T, member, "initial-replicas", \
	    initial_replicas, "replicas at the first start"), \
	INFERENCE_COUNT_OPT(T, member, "activation-replicas", \
	    activation_replicas, "replicas started when waking from zero"), \
	{ .long_name = "metric", .type = RAI_OPT_STRING, \
	  .offset = INFERENCE_SCALING_OFF(T, member, metric), \
	  .argh = "<metric>", \
	  .help = "what the replicas scale by: throughput, concurrency, " \
	      "latency or a custom metric (needed when min < max, but for " \
	      "0 and 1)" }, \
	INFERENCE_COUNT_OPT(T, member, "metric-threshold", \
	    metric_threshold, "the metric's value per replica to scale at " \
	    "(required with --metric)"), \
	{ .long_name = "metric-threshold-percentage", .type = RAI_OPT_DOUBLE, \
	  .offset = INFERENCE_SCALING_OFF(T, member, metric_threshold_pct), \
	  .argh = "<percent>", \
	  .help = "the share of the threshold to aim at, 1 to 100 " \
	      "(throughput and concurrency; the control plane's default 70)" }, \
	INFERENCE_COUNT_OPT(T, member, "concurrency-hard-limit", \
	    concurrency_limit, "requests one replica serves at once at most " \
	    "(0: no limit)"), \
	INFERENCE_COUNT_OPT(T, member, "scale-down-delay-seconds", \
	    scale_down_delay, "how long a replica stays after it is no " \
	    "longer needed (at most 3600)"), \
	INFERENCE_COUNT_OPT(T, member, "scale-to-zero-retention-seconds", \
	    scale_to_zero_retention, "with --min-replicas 0: how long the " \
	    "last replica stays (at most 3600)")

/*
 * The flags given into inf (which the caller init'ed); 0, or -1 with a
 * usage error for a negative percentage.
 */
int	 inference_scaling_fill(struct rai_ctx *,
	    const struct inference_scaling_opts *, struct rai_inference_spec *);

/*
 * Everything a submit's flags alone can get wrong, before any request:
 * -o without --dry-run, no image, and the container through submit's
 * own checks, with a stand-in name (<prefix>-0, prefix or def_prefix)
 * when the control plane makes one. 0, or -1 with a usage error.
 */
int	 inference_check_offline(struct rai_ctx *,
	    const struct rai_submit_spec *, const char *prefix,
	    const char *def_prefix, int dry_run, const char *output);

#endif
