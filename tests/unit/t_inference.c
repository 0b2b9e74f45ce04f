/*
 * Unit tests of an inference's settings (lib/runai/inference) and of
 * the control plane's request for one (cp_inference_request) and its
 * update (cp_update_body): the --serving-port syntax, the checks of the
 * whole, what each release takes, and what an update keeps.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/json.h"
#include "runai/cp_request.h"
#include "runai/cp_update.h"
#include "runai/inference.h"
#include "runai/submit.h"

#include "harness.h"

#define CLUSTER	"71f69d83-ba66-4822-adf5-55ce55efd210"

/* Parses arg into *s (init'ed first); the error's message, or NULL. */
static char *
parse(const char *arg, struct rai_inference_spec *s)
{
	struct rai_err err = RAI_ERR_INIT;
	char *msg = NULL;

	rai_inference_spec_init(s);
	if (rai_inference_parse_port(arg, s, &err) == -1)
		msg = strdup(err.message);
	rai_err_release(&err);
	return msg;
}

/* The check's message for s, or NULL when it passes. */
static char *
check(const struct rai_inference_spec *s)
{
	struct rai_err err = RAI_ERR_INIT;
	char *msg = NULL;

	if (rai_inference_check(s, &err) == -1) {
		T_INT_EQ(err.kind, RAI_E_USAGE);
		msg = strdup(err.message);
	}
	rai_err_release(&err);
	return msg;
}

TEST(a_serving_port_alone_or_with_its_options)
{
	struct rai_inference_spec s;
	char *m;

	T_NULL(parse("8000", &s));
	T_INT_EQ(s.port, 8000);
	T_NULL(s.protocol);
	rai_inference_spec_release(&s);
	T_NULL(parse("container=80,protocol=grpc,authorization-type="
	    "authorizedUsersOrGroups,authorized-users=a@x.io:b@x.io,"
	    "cluster-local-access-only", &s));
	T_INT_EQ(s.port, 80);
	T_STR_EQ(s.protocol, "grpc");
	T_STR_EQ(s.auth_type, "authorizedUsersOrGroups");
	T_UINT_EQ(s.users.n, 2);
	T_STR_EQ(s.users.v[1], "b@x.io");
	T_INT_EQ(s.cluster_local, 1);
	T_NULL(check(&s));
	rai_inference_spec_release(&s);
	T_INT_EQ(s.port, -1);	/* released is unset again */
	m = parse("65536", &s);
	T_STR_CONTAINS(m, "give a port from 1 to 65535");
	free(m);
	m = parse("protocol=http", &s);
	T_STR_CONTAINS(m, "container=PORT is required");
	free(m);
	rai_inference_spec_release(&s);
	m = parse("container=80,protocol=udp", &s);
	T_STR_CONTAINS(m, "protocol= is http or grpc");
	free(m);
	rai_inference_spec_release(&s);
	m = parse("container=80,container=81", &s);
	T_STR_CONTAINS(m, "container given twice");
	free(m);
	rai_inference_spec_release(&s);
	m = parse("container=80,authorized-users=a::b", &s);
	T_STR_CONTAINS(m, "separated by ':'");
	free(m);
	rai_inference_spec_release(&s);
	m = parse("container=80,colour=red", &s);
	T_STR_EQ(m, "--serving-port 'container=80,colour=red': unknown key "
	    "'colour'");
	free(m);
	rai_inference_spec_release(&s);
}

TEST(users_or_groups_with_their_type_one_of_them)
{
	struct rai_inference_spec s;
	char *m;

	T_NULL(parse("container=80,authorized-groups=ml", &s));
	m = check(&s);
	T_STR_CONTAINS(m, "are for authorization-type=authorizedUsersOrGroups");
	free(m);
	rai_inference_spec_release(&s);
	T_NULL(parse("container=80,authorization-type=authorizedUsersOrGroups",
	    &s));
	m = check(&s);
	T_STR_CONTAINS(m, "one of them");
	free(m);
	rai_inference_spec_release(&s);
}

TEST(the_metric_where_replicas_vary_with_its_threshold)
{
	struct rai_inference_spec s;
	char *m;

	rai_inference_spec_init(&s);
	T_NULL(check(&s));		/* nothing given: the API's defaults */
	s.max_replicas = 3;
	m = check(&s);
	T_STR_EQ(m, "--metric is needed when --min-replicas (1) is below "
	    "--max-replicas (3), but for 0 and 1");
	free(m);
	s.min_replicas = 0;
	s.max_replicas = 1;
	T_NULL(check(&s));		/* network activity alone */
	s.min_replicas = 2;
	s.max_replicas = -1;
	T_NULL(check(&s));		/* max defaults to min */
	s.max_replicas = 1;
	m = check(&s);
	T_STR_EQ(m, "--max-replicas (1) is below --min-replicas (2)");
	free(m);
	s.max_replicas = 4;
	s.metric = "latency";
	m = check(&s);
	T_STR_EQ(m, "--metric-threshold is required with --metric");
	free(m);
	s.metric_threshold = 100;
	T_NULL(check(&s));
	s.metric_threshold_pct = 50;
	m = check(&s);
	T_STR_CONTAINS(m, "is for --metric throughput or concurrency");
	free(m);
	s.metric = "vllm:num_requests_running";	/* a custom metric */
	s.metric_threshold_pct = -1;
	T_NULL(check(&s));
	s.min_replicas = 0;
	m = check(&s);
	T_STR_CONTAINS(m, "only the throughput and concurrency metrics do "
	    "(not vllm:num_requests_running)");
	free(m);
	s.metric = "bad-name";
	m = check(&s);
	T_STR_CONTAINS(m, "--metric 'bad-name'");
	free(m);
	s.metric = NULL;
	s.min_replicas = 1;
	s.max_replicas = 1;
	m = check(&s);
	T_STR_EQ(m, "--metric-threshold is for --metric");
	free(m);
}

TEST(bounds_of_the_numbers)
{
	struct rai_inference_spec s;
	char *m;

	rai_inference_spec_init(&s);
	s.max_replicas = 0;
	m = check(&s);
	T_STR_CONTAINS(m, "--max-replicas must be from 1 to ");
	free(m);
	rai_inference_spec_init(&s);
	s.scale_down_delay = 3601;
	m = check(&s);
	T_STR_EQ(m, "--scale-down-delay-seconds must be from 0 to 3600");
	free(m);
	rai_inference_spec_init(&s);
	s.scale_to_zero_retention = 30;
	m = check(&s);
	T_STR_EQ(m, "--scale-to-zero-retention-seconds is for --min-replicas "
	    "0");
	free(m);
	s.min_replicas = 0;
	T_NULL(check(&s));
	rai_inference_spec_init(&s);
	s.request_timeout = 0;
	m = check(&s);
	T_STR_CONTAINS(m, "--request-timeout-seconds must be from 1 to ");
	free(m);
}

/* The inference request for release with the settings of s. */
static cJSON *
request(const struct rai_inference_spec *inf, const char *release,
    char **msg)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_submit_spec s;
	cJSON *body = NULL;

	rai_submit_spec_init(&s);
	s.name = "llm1";
	s.image = "vllm/vllm-openai";
	s.gpu = 1;
	*msg = NULL;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, release, &body,
	    &err), 0);
	if (cp_inference_request(body, inf, release, &err) == -1) {
		T_INT_EQ(err.kind, RAI_E_USAGE);
		*msg = strdup(err.message);
		cJSON_Delete(body);
		body = NULL;
	}
	rai_err_release(&err);
	return body;
}

TEST(the_request_per_release)
{
	struct rai_inference_spec s;
	cJSON *b;
	char *m;

	T_NULL(parse("container=8000,protocol=http", &s));
	s.min_replicas = 1;
	s.max_replicas = 3;
	s.metric = "concurrency";
	s.metric_threshold = 8;
	s.init_timeout = 120;
	b = request(&s, "2.24.10", &m);
	T_NULL(m);
	T_DBL_EQ(rai_json_num(b, "spec.servingPort.container", 0), 8000);
	T_STR_EQ(rai_json_str(b, "spec.servingPort.protocol"), "http");
	T_DBL_EQ(rai_json_num(b, "spec.autoscaling.minReplicas", 0), 1);
	T_DBL_EQ(rai_json_num(b, "spec.autoscaling.maxReplicas", 0), 3);
	T_STR_EQ(rai_json_str(b, "spec.autoscaling.metric"), "concurrency");
	T_DBL_EQ(rai_json_num(b, "spec.autoscaling.metricThreshold", 0), 8);
	/* the serving configuration's from 2.22, autoscaling's before */
	T_DBL_EQ(rai_json_num(b, "spec.servingConfiguration."
	    "initializationTimeoutSeconds", 0), 120);
	T_NULL(rai_json_child(b, "spec.autoscaling.initializationTimeoutSeconds"));
	T_DBL_EQ(rai_json_num(b, "spec.compute.gpuDevicesRequest", 0), 1);
	cJSON_Delete(b);
	b = request(&s, "2.21.12", &m);
	T_NULL(m);
	T_DBL_EQ(rai_json_num(b, "spec.autoscaling."
	    "initializationTimeoutSeconds", 0), 120);
	T_NULL(rai_json_child(b, "spec.servingConfiguration"));
	cJSON_Delete(b);
	/* 2.18 has no such timeout, nor a custom metric */
	b = request(&s, "2.18.45", &m);
	T_NULL(b);
	T_STR_EQ(m, "--initialization-timeout-seconds needs a control plane "
	    "of 2.21 or later (this is 2.18.45)");
	free(m);
	s.init_timeout = -1;
	s.metric = "my_metric";
	b = request(&s, "2.18.45", &m);
	T_STR_CONTAINS(m, "--metric my_metric: a control plane before 2.21 "
	    "(this is 2.18.45) knows throughput, concurrency and latency only");
	free(m);
	s.metric = "concurrency";
	b = request(&s, "2.18.45", &m);
	T_NULL(m);
	T_STR_EQ(rai_json_str(b, "spec.autoscaling.metric"), "concurrency");
	cJSON_Delete(b);
	s.request_timeout = 30;
	b = request(&s, "2.21.12", &m);
	T_STR_EQ(m, "--request-timeout-seconds needs a control plane of 2.22 "
	    "or later (this is 2.21.12)");
	free(m);
	b = request(&s, NULL, &m);	/* the newest */
	T_DBL_EQ(rai_json_num(b, "spec.servingConfiguration."
	    "requestTimeoutSeconds", 0), 30);
	cJSON_Delete(b);
	rai_inference_spec_release(&s);
	/* nothing given: no autoscaling, no serving port */
	rai_inference_spec_init(&s);
	b = request(&s, "2.18.45", &m);
	T_NULL(rai_json_child(b, "spec.autoscaling"));
	T_NULL(rai_json_child(b, "spec.servingPort"));
	cJSON_Delete(b);
	T_NULL(parse("container=80,cluster-local-access-only", &s));
	b = request(&s, "2.18.45", &m);
	T_STR_EQ(m, "--serving-port's access settings needs a control plane "
	    "of 2.21 or later (this is 2.18.45)");
	free(m);
	rai_inference_spec_release(&s);
}

TEST(what_an_inference_has_no_field_for_is_refused)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_inference_spec inf;
	struct rai_submit_spec s;
	cJSON *body = NULL;

	rai_inference_spec_init(&inf);
	rai_submit_spec_init(&s);
	s.name = "llm1";
	s.image = "img";
	s.tty = s.stdin_open = 1;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &body, &err),
	    0);
	T_INT_EQ(cp_inference_request(body, &inf, NULL, &err), -1);
	T_STR_EQ(err.message, "an inference workload has no tty");
	rai_err_release(&err);
	cJSON_Delete(body);
}

/* The update's body over current (JSON text), compact, or the error. */
static char *
update(const char *current, const struct rai_submit_spec *s,
    const struct rai_inference_spec *inf, const char *release)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *now = cJSON_Parse(current), *body = NULL;
	char *out;

	if (cp_update_body(now, s, inf, release, &body, &err) == -1) {
		out = strdup(err.message);
		T_NULL(body);
	} else {
		out = cJSON_PrintUnformatted(body);
	}
	rai_err_release(&err);
	cJSON_Delete(body);
	cJSON_Delete(now);
	return out;
}

TEST(an_update_keeps_what_is_not_given)
{
	const char *now = "{\"image\":\"a\",\"environmentVariables\":"
	    "[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\","
	    "\"value\":\"2\"}],\"autoscaling\":{\"minReplicas\":1,"
	    "\"maxReplicas\":3,\"metric\":\"latency\","
	    "\"metricThreshold\":5,\"concurrencyHardLimit\":null}}";
	struct rai_inference_spec inf;
	struct rai_submit_spec s;
	char *b;

	rai_inference_spec_init(&inf);
	rai_submit_spec_init(&s);
	rai_strv_push(&s.env, "B=3");
	rai_strv_push(&s.env, "C=4");
	inf.max_replicas = 4;
	b = update(now, &s, &inf, "2.21.12");
	/* B in its place, C after; max in its place, the null gone */
	T_STR_EQ(b, "{\"spec\":{\"environmentVariables\":[{\"name\":\"A\","
	    "\"value\":\"1\"},{\"name\":\"B\",\"value\":\"3\"},"
	    "{\"name\":\"C\",\"value\":\"4\"}],\"autoscaling\":"
	    "{\"minReplicas\":1,\"maxReplicas\":4,\"metric\":\"latency\","
	    "\"metricThreshold\":5}}}");
	free(b);
	rai_strv_release(&s.env);
	/* judged whole: a minimum above the workload's maximum */
	inf.max_replicas = -1;
	inf.min_replicas = 5;
	b = update(now, &s, &inf, "2.21.12");
	T_STR_EQ(b, "with the inference's other autoscaling settings: "
	    "--max-replicas (3) is below --min-replicas (5)");
	free(b);
	/* what the release has no field for, and nothing at all */
	rai_inference_spec_init(&inf);
	inf.concurrency_limit = 4;
	b = update(now, &s, &inf, "2.18.45");
	T_STR_CONTAINS(b, "--concurrency-hard-limit needs a control plane of "
	    "2.21 or later");
	free(b);
	rai_inference_spec_init(&inf);
	b = update(now, &s, &inf, "2.24.10");
	T_STR_CONTAINS(b, "nothing to update");
	free(b);
	/* no workload spec at all: the given alone */
	s.image = "b";
	b = update("null", &s, &inf, "2.24.10");
	T_STR_EQ(b, "{\"spec\":{\"image\":\"b\"}}");
	free(b);
}

int
main(void)
{
	RUN(a_serving_port_alone_or_with_its_options);
	RUN(users_or_groups_with_their_type_one_of_them);
	RUN(the_metric_where_replicas_vary_with_its_threshold);
	RUN(bounds_of_the_numbers);
	RUN(the_request_per_release);
	RUN(what_an_inference_has_no_field_for_is_refused);
	RUN(an_update_keeps_what_is_not_given);
	return t_done();
}
