/*
 * An inference's serving and autoscaling settings: see inference.h.
 * The rules are the control plane's own (what its API says of each
 * field), checked here so that a mistake is one line before anything is
 * sent.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/strv.h"
#include "runai/inference.h"

#include "core/banned.h"

#define PORT_MAX	65535
#define SECONDS_MAX	3600	/* the delays' bound in the API */

void
rai_inference_spec_init(struct rai_inference_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->port = -1;
	s->min_replicas = s->max_replicas = -1;
	s->initial_replicas = s->activation_replicas = -1;
	s->metric_threshold = -1;
	s->metric_threshold_pct = -1;
	s->concurrency_limit = -1;
	s->scale_down_delay = s->scale_to_zero_retention = -1;
	s->init_timeout = s->request_timeout = -1;
}

void
rai_inference_spec_release(struct rai_inference_spec *s)
{
	free(s->protocol);
	free(s->auth_type);
	rai_strv_release(&s->users);
	rai_strv_release(&s->groups);
	rai_inference_spec_init(s);
}

/* ---- --serving-port ---- */

int
rai_inference_port_number(const char *s, long *out)
{
	char *end;
	long v;

	if (*s == '\0' || strspn(s, "0123456789") != strlen(s))
		return -1;
	v = strtol(s, &end, 10);
	if (v < 1 || v > PORT_MAX)
		return -1;
	*out = v;
	return 0;
}

int
rai_inference_names(const char *v, struct rai_strv *out)
{
	const char *p = v, *colon;
	char *one;

	if (*v == '\0')
		return -1;
	for (;;) {
		colon = strchr(p, ':');
		one = colon != NULL ? xstrndup(p, (size_t)(colon - p)) :
		    xstrdup(p);
		if (*one == '\0') {
			free(one);
			return -1;
		}
		rai_strv_push(out, one);
		free(one);
		if (colon == NULL)
			return 0;
		p = colon + 1;
	}
}

static const char *const protocols[] = { "http", "grpc", NULL };
static const char *const auth_types[] = { "public", "authenticatedUsers",
	"authorizedUsersOrGroups", NULL };

int
rai_inference_one_of(const char *v, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strcmp(v, *words) == 0)
			return 1;
	return 0;
}

/* One KEY[=VALUE] of the keyed form; *seen has a bit per key given. */
static int
port_item(const char *arg, const char *item, void *spec, unsigned *seen,
    struct rai_err *err)
{
	struct rai_inference_spec *s = spec;
	static const char *const keys[] = { "container", "protocol",
		"authorization-type", "authorized-users", "authorized-groups",
		"cluster-local-access-only", NULL };
	const char *eq = strchr(item, '='), *v = eq != NULL ? eq + 1 : NULL;
	size_t klen = eq != NULL ? (size_t)(eq - item) : strlen(item), k;
	int ok;

	for (k = 0; keys[k] != NULL; k++)
		if (strlen(keys[k]) == klen && strncmp(keys[k], item, klen) == 0)
			break;
	if (keys[k] == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': "
		    "unknown key '%.*s'", arg, (int)klen, item);
	if (*seen & (1u << k))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': %s "
		    "given twice", arg, keys[k]);
	*seen |= 1u << k;
	switch (k) {
	case 0:
		ok = v != NULL && rai_inference_port_number(v, &s->port) == 0;
		break;
	case 1:
		ok = v != NULL && rai_inference_one_of(v, protocols);
		if (ok)
			s->protocol = xstrdup(v);
		break;
	case 2:
		ok = v != NULL && rai_inference_one_of(v, auth_types);
		if (ok)
			s->auth_type = xstrdup(v);
		break;
	case 3:
		ok = v != NULL && rai_inference_names(v, &s->users) == 0;
		break;
	case 4:
		ok = v != NULL && rai_inference_names(v, &s->groups) == 0;
		break;
	default:
		ok = v == NULL || strcmp(v, "true") == 0 ||
		    strcmp(v, "false") == 0;
		s->cluster_local = v == NULL || strcmp(v, "true") == 0;
		break;
	}
	if (ok)
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': %s", arg,
	    k == 0 ? "container= takes a port from 1 to 65535" :
	    k == 1 ? "protocol= is http or grpc" :
	    k == 2 ? "authorization-type= is public, authenticatedUsers or "
	    "authorizedUsersOrGroups" :
	    k == 5 ? "cluster-local-access-only takes no value, or true or "
	    "false" : "the names are separated by ':'");
}

int
rai_inference_port_items(const char *arg, rai_inference_item_fn *one,
    void *ctx, unsigned *seen, struct rai_err *err)
{
	char *copy = xstrdup(arg), *item, *next;
	int rc = 0;

	for (item = copy; item != NULL && rc == 0; item = next) {
		next = strchr(item, ',');
		if (next != NULL)
			*next++ = '\0';
		rc = one(arg, item, ctx, seen, err);
	}
	free(copy);
	return rc;
}

int
rai_inference_parse_port(const char *arg, struct rai_inference_spec *s,
    struct rai_err *err)
{
	unsigned seen = 0;
	int rc;

	if (rai_inference_port_number(arg, &s->port) == 0)
		return 0;
	if (strchr(arg, '=') == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': give "
		    "a port from 1 to 65535, or container=PORT with its "
		    "options", arg);
	rc = rai_inference_port_items(arg, port_item, s, &seen, err);
	if (rc == 0 && !(seen & 1u))
		rc = rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': "
		    "container=PORT is required", arg);
	return rc;
}

/* ---- the whole ---- */

int
rai_inference_builtin_metric(const char *metric)
{
	static const char *const builtin[] = { "throughput", "concurrency",
		"latency", NULL };

	return metric != NULL && rai_inference_one_of(metric, builtin);
}

/* A custom metric's name, as the API's pattern has it. */
static int
metric_name_ok(const char *m)
{
	const char *p;

	if (!isalpha((unsigned char)*m) && *m != '_' && *m != ':')
		return 0;
	for (p = m; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != ':')
			return 0;
	return 1;
}

static int
scales_to_zero_by(const char *metric)
{
	return strcmp(metric, "throughput") == 0 ||
	    strcmp(metric, "concurrency") == 0;
}

/* The numbers' own bounds: the API's minimum, its maximum, int32. */
int
rai_inference_check_bounds(const struct rai_inference_spec *s,
    struct rai_err *err)
{
	const struct {
		const char	*flag;
		long		 v;
		long		 min;
		long		 max;
	} n[] = {
		{ "--min-replicas", s->min_replicas, 0, INT32_MAX },
		{ "--max-replicas", s->max_replicas, 1, INT32_MAX },
		{ "--initial-replicas", s->initial_replicas, 0, INT32_MAX },
		{ "--activation-replicas", s->activation_replicas, 1,
		    INT32_MAX },
		{ "--metric-threshold", s->metric_threshold, 0, INT32_MAX },
		{ "--concurrency-hard-limit", s->concurrency_limit, 0,
		    INT32_MAX },
		{ "--scale-down-delay-seconds", s->scale_down_delay, 0,
		    SECONDS_MAX },
		{ "--scale-to-zero-retention-seconds",
		    s->scale_to_zero_retention, 0, SECONDS_MAX },
		{ "--initialization-timeout-seconds", s->init_timeout, 1,
		    INT32_MAX },
		{ "--request-timeout-seconds", s->request_timeout, 1,
		    INT32_MAX },
	};
	size_t i;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (n[i].v >= 0 && (n[i].v < n[i].min || n[i].v > n[i].max))
			return rai_err_set(err, RAI_E_USAGE, "%s must be from "
			    "%ld to %ld", n[i].flag, n[i].min, n[i].max);
	if (s->metric_threshold_pct >= 0 && (s->metric_threshold_pct < 1 ||
	    s->metric_threshold_pct > 100))
		return rai_err_set(err, RAI_E_USAGE, "--metric-threshold-"
		    "percentage must be from 1 to 100");
	return 0;
}

/*
 * The metric: needed where the replicas may vary (from 0 to 1 the
 * network's activity alone decides), with its threshold; scaling to
 * zero and the percentage only by throughput or concurrency.
 */
static int
check_metric(const struct rai_inference_spec *s, struct rai_err *err)
{
	/* the API's defaults: min 1; max = min, or 1 when min is 0 */
	long low = s->min_replicas >= 0 ? s->min_replicas : 1;
	long high = s->max_replicas >= 0 ? s->max_replicas :
	    low > 0 ? low : 1;
	const char *m = s->metric;

	if (high < low)
		return rai_err_set(err, RAI_E_USAGE, "--max-replicas (%ld) is "
		    "below --min-replicas (%ld)", high, low);
	if (m == NULL && low < high && !(low == 0 && high == 1))
		return rai_err_set(err, RAI_E_USAGE, "--metric is needed when "
		    "--min-replicas (%ld) is below --max-replicas (%ld), but "
		    "for 0 and 1", low, high);
	if (m == NULL && s->metric_threshold >= 0)
		return rai_err_set(err, RAI_E_USAGE, "--metric-threshold is "
		    "for --metric");
	if (m != NULL && !rai_inference_builtin_metric(m) &&
	    !metric_name_ok(m))
		return rai_err_set(err, RAI_E_USAGE, "--metric '%s': use "
		    "throughput, concurrency, latency or a custom metric's "
		    "name (letters, digits, '_' and ':')", m);
	if (m != NULL && s->metric_threshold < 0)
		return rai_err_set(err, RAI_E_USAGE, "--metric-threshold is "
		    "required with --metric");
	if (s->metric_threshold_pct >= 0 && (m == NULL ||
	    !scales_to_zero_by(m)))
		return rai_err_set(err, RAI_E_USAGE, "--metric-threshold-"
		    "percentage is for --metric throughput or concurrency");
	if (low == 0 && m != NULL && !scales_to_zero_by(m))
		return rai_err_set(err, RAI_E_USAGE, "--min-replicas 0 scales to "
		    "zero, which only the throughput and concurrency metrics "
		    "do (not %s)", m);
	if (s->scale_to_zero_retention >= 0 && low != 0)
		return rai_err_set(err, RAI_E_USAGE, "--scale-to-zero-retention-"
		    "seconds is for --min-replicas 0");
	return 0;
}

/* authorized-users or -groups: one of them, with their type. */
static int
check_access(const struct rai_inference_spec *s, struct rai_err *err)
{
	int listed = s->auth_type != NULL &&
	    strcmp(s->auth_type, "authorizedUsersOrGroups") == 0;

	if (!listed && (s->users.n > 0 || s->groups.n > 0))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "authorized-users and authorized-groups are for "
		    "authorization-type=authorizedUsersOrGroups");
	if (listed && (s->users.n > 0) == (s->groups.n > 0))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "authorization-type=authorizedUsersOrGroups takes "
		    "authorized-users or authorized-groups, one of them");
	return 0;
}

int
rai_inference_check(const struct rai_inference_spec *s, struct rai_err *err)
{
	if (rai_inference_check_bounds(s, err) == -1 ||
	    check_metric(s, err) == -1 ||
	    check_access(s, err) == -1)
		return -1;
	return 0;
}
