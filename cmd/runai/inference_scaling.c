/*
 * The autoscaling flags of "inference submit" and "inference update"
 * into the spec that lib/runai/inference.h checks, and the offline
 * checks of a submit; see inference_scaling.h.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "inference_scaling.h"
#include "request_print.h"

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

int
inference_check_offline(struct rai_ctx *ctx,
    const struct rai_submit_spec *spec, const char *prefix,
    const char *def_prefix, int dry_run, const char *output)
{
	struct rai_submit_spec s = *spec;
	char *probe = NULL;
	int rc;

	if (runai_dry_run_check(ctx, dry_run, output) == -1)
		return -1;
	if (s.image == NULL || *s.image == '\0')
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "-i/--image is "
		    "required: the image that serves the model");
	if (s.name == NULL)
		s.name = probe = xasprintf("%s-0", prefix != NULL ? prefix :
		    def_prefix);
	rc = rai_submit_check_spec(&s, rai_ctx_err(ctx));
	if (rc == -1 && probe != NULL && prefix != NULL)
		rai_err_prefix(rai_ctx_err(ctx), "--name-prefix '%s'", prefix);
	free(probe);
	return rc;
}
