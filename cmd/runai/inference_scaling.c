/*
 * The autoscaling flags of "inference submit" and "inference update"
 * into the spec that lib/runai/inference.h checks; see
 * inference_scaling.h.
 */
#include "inference_scaling.h"

#include "core/banned.h"

int
inference_scaling_fill(struct rai_ctx *ctx,
    const struct inference_scaling_opts *o, struct rai_inference_spec *inf)
{
	int pct = rai_opt_given(ctx, "metric-threshold-percentage");

	/* negative would read as "not given" below */
	if (pct && !(o->metric_threshold_pct >= 0))
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "--metric-threshold-percentage must not be negative");
	inf->min_replicas = o->min_replicas;
	inf->max_replicas = o->max_replicas;
	inf->initial_replicas = o->initial_replicas;
	inf->activation_replicas = o->activation_replicas;
	inf->metric = o->metric;
	inf->metric_threshold = o->metric_threshold;
	inf->metric_threshold_pct = pct ? o->metric_threshold_pct : -1;
	inf->concurrency_limit = o->concurrency_limit;
	inf->scale_down_delay = o->scale_down_delay;
	inf->scale_to_zero_retention = o->scale_to_zero_retention;
	return 0;
}
