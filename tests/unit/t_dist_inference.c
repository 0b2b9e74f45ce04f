/*
 * Unit tests of a distributed inference's settings (dist_inference) and
 * of the control plane's request for one (cp_dist_inference_request):
 * its --serving-port syntax, the checks of the whole, the leader's spec
 * split from the group's fields, the workers' copy with their own
 * values, and the releases that have it.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/json.h"
#include "runai/cp_request.h"
#include "runai/cp_request_dinf.h"
#include "runai/dist_inference.h"
#include "runai/submit.h"

#include "harness.h"

#define CLUSTER	"71f69d83-ba66-4822-adf5-55ce55efd210"

/* Parses arg into d's serving port; the error's message, or NULL. */
static char *
parse(const char *arg, struct rai_dist_inference *d)
{
	struct rai_err err = RAI_ERR_INIT;
	char *msg = NULL;

	if (rai_dist_serving_parse(arg, &d->serving, &err) == -1 ||
	    rai_dist_inference_check(d, &err) == -1)
		msg = strdup(err.message);
	rai_err_release(&err);
	return msg;
}

TEST(the_serving_port_and_who_may_call_it)
{
	struct rai_dist_inference d;
	char *msg;

	rai_dist_inference_init(&d);
	T_NULL(parse("8000", &d));
	T_INT_EQ((int)d.serving.port, 8000);
	rai_dist_inference_release(&d);
	T_NULL(parse("container=9000,authorization-type=authorizedGroups,"
	    "authorized-groups=ml:ops,expose-externally,exposed-url="
	    "https://llm.example.com", &d));
	T_INT_EQ((int)d.serving.port, 9000);
	T_STR_EQ(d.serving.auth_type, "authorizedGroups");
	T_UINT_EQ(d.serving.groups.n, 2);
	T_STR_EQ(d.serving.groups.v[1], "ops");
	T_INT_EQ(d.serving.expose_externally, 1);
	T_STR_EQ(d.serving.exposed_url, "https://llm.example.com");
	rai_dist_inference_release(&d);
	/* what the standard inference has and this one has not */
	msg = parse("container=9000,protocol=grpc", &d);
	T_STR_EQ(msg, "--serving-port 'container=9000,protocol=grpc': "
	    "protocol= is http (a distributed inference serves nothing else)");
	free(msg);
	rai_dist_inference_release(&d);
	msg = parse("container=1,authorization-type=authorizedUsersOrGroups",
	    &d);
	T_STR_EQ(msg, "--serving-port 'container=1,authorization-type="
	    "authorizedUsersOrGroups': authorization-type= is public, "
	    "authenticatedUsers, authorizedUsers or authorizedGroups");
	free(msg);
	rai_dist_inference_release(&d);
	msg = parse("container=1,cluster-local-access-only", &d);
	T_STR_EQ(msg, "--serving-port 'container=1,cluster-local-access-only':"
	    " unknown key 'cluster-local-access-only'");
	free(msg);
	rai_dist_inference_release(&d);
	/* the names with their type, the URL with its exposure */
	msg = parse("container=1,authorized-users=a", &d);
	T_STR_EQ(msg, "--serving-port: authorized-users is for "
	    "authorization-type=authorizedUsers");
	free(msg);
	rai_dist_inference_release(&d);
	msg = parse("container=1,authorization-type=authorizedUsers", &d);
	T_STR_EQ(msg, "--serving-port: authorization-type=authorizedUsers "
	    "needs its authorized-users");
	free(msg);
	rai_dist_inference_release(&d);
	msg = parse("container=1,exposed-url=https://x", &d);
	T_STR_EQ(msg, "--serving-port: exposed-url is for expose-externally");
	free(msg);
	rai_dist_inference_release(&d);
	msg = parse("container=0", &d);
	T_STR_EQ(msg, "--serving-port 'container=0': container= takes a port "
	    "from 1 to 65535");
	free(msg);
	rai_dist_inference_release(&d);
}

TEST(the_counts_and_the_worker_flags)
{
	struct rai_dist_inference d;
	struct rai_err err = RAI_ERR_INIT;

	rai_dist_inference_init(&d);
	d.replicas = 1001;
	T_INT_EQ(rai_dist_inference_check(&d, &err), -1);
	T_STR_EQ(err.message, "--replicas must be from 0 to 1000");
	rai_err_release(&err);
	d.replicas = 2;
	d.worker_image = "w";
	T_INT_EQ(rai_dist_inference_check(&d, &err), -1);
	T_STR_EQ(err.message, "the --worker-* flags are for the workers: give "
	    "--workers (1 or more) too");
	rai_err_release(&err);
	d.workers = 3;
	T_INT_EQ(rai_dist_inference_check(&d, &err), 0);
	T_NULL(err.message);
}

/* The leader's create request as cp_submit_request makes it. */
static cJSON *
leader_request(struct rai_submit_spec *s)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *body = NULL;

	rai_submit_spec_init(s);
	s->name = "llm";
	s->image = "vllm/vllm-openai";
	s->gpu = 8;
	s->memory = "64G";
	s->node_pools = "a100,h100";
	rai_strv_push(&s->env, "MODEL=llama");
	T_INT_EQ(cp_submit_request(s, NULL, "7", CLUSTER, "2.24.3", &body,
	    &err), 0);
	rai_err_release(&err);
	return body;
}

/* The request, compact, with d over the leader's; or the error. */
static char *
request(const struct rai_dist_inference *d, const char *release)
{
	struct rai_submit_spec s;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *body = leader_request(&s);
	char *out;

	if (cp_dist_inference_request(body, d, release, &err) == -1)
		out = strdup(err.message);
	else
		out = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	rai_strv_release(&s.env);
	rai_err_release(&err);
	return out;
}

TEST(the_leader_alone)
{
	struct rai_dist_inference d;
	char *out;

	rai_dist_inference_init(&d);
	d.command = "vllm serve m";
	d.serving.port = 8000;
	out = request(&d, "2.24.3");
	T_STR_EQ(out, "{\"name\":\"llm\",\"projectId\":\"7\",\"clusterId\":\""
	    CLUSTER "\",\"spec\":{\"leader\":{\"image\":\"vllm/vllm-openai\","
	    "\"environmentVariables\":[{\"name\":\"MODEL\",\"value\":"
	    "\"llama\"}],\"compute\":{\"gpuDevicesRequest\":8,"
	    "\"cpuMemoryRequest\":\"64G\"},\"command\":\"vllm serve m\"},"
	    "\"nodePools\":[\"a100\",\"h100\"],\"servingPort\":{\"port\":8000}}}");
	free(out);
}

/* The value of the first variable of the array at path. */
static const char *
first_value(const cJSON *body, const char *path)
{
	const cJSON *arr = rai_json_array(body, path);

	return arr != NULL ? rai_json_str(arr->child, "value") : NULL;
}

TEST(the_workers_copy_the_leader_but_for_their_own)
{
	struct rai_dist_inference d;
	cJSON *body;
	char *out;

	rai_dist_inference_init(&d);
	d.replicas = 2;
	d.workers = 3;
	d.startup_policy = "LeaderReady";
	d.restart_policy = "None";
	d.args = "--tp 8";
	d.worker_image = "worker:1";
	d.worker_args = "--role worker";
	d.worker_gpus = 4;
	d.worker_cpu = 0.5;
	rai_strv_push(&d.worker_env, "ROLE=worker");
	out = request(&d, "2.24.3");
	body = cJSON_Parse(out);
	T_NOT_NULL(body);
	T_STR_EQ(rai_json_str(body, "spec.startupPolicy"), "LeaderReady");
	T_STR_EQ(rai_json_str(body, "spec.restartPolicy"), "None");
	T_INT_EQ((int)rai_json_long(body, "spec.replicas", -1, 0, 1000), 2);
	T_INT_EQ((int)rai_json_long(body, "spec.workers", -1, 0, 1000), 3);
	T_STR_EQ(rai_json_str(body, "spec.leader.image"), "vllm/vllm-openai");
	T_STR_EQ(rai_json_str(body, "spec.leader.args"), "--tp 8");
	T_STR_EQ(rai_json_str(body, "spec.worker.image"), "worker:1");
	T_STR_EQ(rai_json_str(body, "spec.worker.args"), "--role worker");
	T_INT_EQ((int)rai_json_long(body, "spec.worker.compute.gpuDevicesRequest",
	    -1, 0, 100), 4);
	T_STR_EQ(rai_json_str(body, "spec.worker.compute.cpuMemoryRequest"),
	    "64G");
	T_STR_EQ(first_value(body, "spec.worker.environmentVariables"),
	    "worker");
	T_STR_EQ(first_value(body, "spec.leader.environmentVariables"),
	    "llama");
	cJSON_Delete(body);
	free(out);
	rai_strv_release(&d.worker_env);
}

TEST(what_the_leader_has_no_field_for_and_the_releases)
{
	struct rai_dist_inference d;
	struct rai_submit_spec s;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *body = leader_request(&s);
	char *out;

	rai_dist_inference_init(&d);
	out = request(&d, "2.22.9");
	T_STR_EQ(out, "distributed inference needs a control plane of 2.23 or "
	    "later (this is 2.22.9)");
	free(out);
	out = request(&d, "2.23.0");
	T_NOT_NULL(strstr(out, "\"leader\""));
	free(out);
	/* a console is the leader's no field */
	cJSON_AddBoolToObject(cJSON_GetObjectItem(body, "spec"), "tty", 1);
	T_INT_EQ(cp_dist_inference_request(body, &d, "2.24.3", &err), -1);
	T_STR_EQ(err.message, "a distributed inference workload has no tty");
	rai_err_release(&err);
	cJSON_Delete(body);
	rai_strv_release(&s.env);
}

int
main(void)
{
	RUN(the_serving_port_and_who_may_call_it);
	RUN(the_counts_and_the_worker_flags);
	RUN(the_leader_alone);
	RUN(the_workers_copy_the_leader_but_for_their_own);
	RUN(what_the_leader_has_no_field_for_and_the_releases);
	return t_done();
}
