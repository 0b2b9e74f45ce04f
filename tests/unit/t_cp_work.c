/*
 * Unit tests of backend mode's pure parts (lib/runai/cp_work): the
 * submit request built from the flags' spec, the phase → STATUS
 * mapping, and a control-plane Workload as a list-jobs row.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "runai/cp_work.h"
#include "runai/job.h"
#include "runai/submit.h"

#include "harness.h"

#define CLUSTER	"71f69d83-ba66-4822-adf5-55ce55efd210"

static cJSON *
request(const struct rai_submit_spec *s, const char *prefix)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *body = NULL;

	T_INT_EQ(cp_submit_request(s, prefix, "4", CLUSTER, NULL, &body, &err), 0);
	rai_err_release(&err);
	return body;
}

TEST(a_training_request_carries_the_flags)
{
	static const char *const cmd[] = { "python", "train.py", "--lr",
	    "0.1 x", "it's" };
	struct rai_submit_spec s;
	cJSON *b;

	rai_submit_spec_init(&s);
	s.name = "train1";
	s.image = "pytorch/pytorch";
	s.cmd = cmd;
	s.ncmd = 5;
	s.is_command = 1;
	s.gpu = 2;
	s.cpu = "500m";
	s.memory = "1G";
	rai_strv_push(&s.env, "EPOCHS=3");
	b = request(&s, NULL);
	T_STR_EQ(rai_json_str(b, "name"), "train1");
	T_NULL(rai_json_child(b, "useGivenNameAsPrefix"));
	T_STR_EQ(rai_json_str(b, "projectId"), "4");
	T_STR_EQ(rai_json_str(b, "clusterId"), CLUSTER);
	T_STR_EQ(rai_json_str(b, "spec.image"), "pytorch/pytorch");
	T_STR_EQ(rai_json_str(b, "spec.command"), "python");
	/* one string: words a shell would split or interpret are quoted */
	T_STR_EQ(rai_json_str(b, "spec.args"),
	    "train.py --lr '0.1 x' 'it'\\''s'");
	T_DBL_EQ(rai_json_num(b, "spec.compute.gpuDevicesRequest", 0), 2);
	T_NULL(rai_json_str(b, "spec.compute.gpuRequestType"));
	T_DBL_EQ(rai_json_num(b, "spec.compute.cpuCoreRequest", 0), 0.5);
	T_STR_EQ(rai_json_str(b, "spec.compute.cpuMemoryRequest"), "1G");
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_array(b,
	    "spec.environmentVariables"), 0), "name"), "EPOCHS");
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_array(b,
	    "spec.environmentVariables"), 0), "value"), "3");
	cJSON_Delete(b);
	rai_strv_release(&s.env);
}

TEST(fractions_memory_and_generated_names)
{
	struct rai_submit_spec s;
	cJSON *b;

	rai_submit_spec_init(&s);
	s.image = "ubuntu";
	s.gpu = 0.5;
	s.interactive = 1;
	b = request(&s, "exp");
	T_STR_EQ(rai_json_str(b, "name"), "exp");
	T_INT_EQ(rai_json_bool(b, "useGivenNameAsPrefix", 0), 1);
	T_DBL_EQ(rai_json_num(b, "spec.compute.gpuDevicesRequest", 0), 1);
	T_STR_EQ(rai_json_str(b, "spec.compute.gpuRequestType"), "portion");
	T_DBL_EQ(rai_json_num(b, "spec.compute.gpuPortionRequest", 0), 0.5);
	cJSON_Delete(b);

	s.gpu = 0;
	s.gpu_memory = "8G";
	b = request(&s, NULL);
	T_STR_EQ(rai_json_str(b, "name"), "job");
	T_STR_EQ(rai_json_str(b, "spec.compute.gpuRequestType"), "memory");
	T_STR_EQ(rai_json_str(b, "spec.compute.gpuMemoryRequest"), "8G");
	cJSON_Delete(b);
}

TEST(what_the_mapping_lacks_is_refused)
{
	struct rai_submit_spec s;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *b = NULL;

	/* the API takes a clone's credentials only as a Secret's name */
	rai_submit_spec_init(&s);
	s.image = "ubuntu";
	s.git_sync = "source=https://example.com/r.git,username=u,password=p";
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_CONTAINS(err.message, "--git-sync username=");
	T_NULL(b);
	rai_err_release(&err);

	rai_submit_spec_init(&s);
	s.mps = 1;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_STR_CONTAINS(err.message, "--mps");
	rai_err_release(&err);

	/* MIG profiles: a field until 2.24, none from then */
	rai_submit_spec_init(&s);
	s.mig_profile = "1g.5gb";
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, "2.24.10", &b,
	    &err), -1);
	T_STR_CONTAINS(err.message, "from 2.24 (this is 2.24.10)");
	rai_err_release(&err);
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, "2.21.12", &b,
	    &err), 0);
	T_STR_EQ(rai_json_str(b, "spec.compute.migProfile"), "1g.5gb");
	T_STR_EQ(rai_json_str(b, "spec.compute.gpuRequestType"), "migProfile");
	cJSON_Delete(b);
	b = NULL;

	/* what the API has fields for goes into the request */
	rai_submit_spec_init(&s);
	s.node_type = "a100";
	s.ttl_after_finish = 60;
	s.create_home_dir = 1;
	s.host_network = 1;
	s.prevent_privilege_escalation = 1;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), 0);
	T_STR_EQ(rai_json_str(b, "spec.nodeType"), "a100");
	T_DBL_EQ(rai_json_num(b, "spec.autoDeletionTimeAfterCompletionSeconds",
	    0), 60);
	T_INT_EQ(rai_json_bool(b, "spec.createHomeDir", 0), 1);
	T_INT_EQ(rai_json_bool(b, "spec.security.hostNetwork", 0), 1);
	T_INT_EQ(rai_json_bool(b, "spec.security.allowPrivilegeEscalation", 1),
	    0);
	T_NULL(rai_json_get(b, "spec.security.hostIpc"));
	cJSON_Delete(b);
	b = NULL;

	/* a name longer than the API's 63 characters */
	rai_submit_spec_init(&s);
	rai_strv_push(&s.pod_annotations, "example.com/"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=x");
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_STR_CONTAINS(err.message, "at most 63 characters");
	rai_err_release(&err);
	rai_strv_release(&s.pod_annotations);

	/* before 2.24 a training cannot be made non-preemptible */
	rai_submit_spec_init(&s);
	s.non_preemptible = 1;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, "2.21.12", &b,
	    &err), -1);
	T_STR_CONTAINS(err.message, "2.24");
	rai_err_release(&err);

	rai_submit_spec_init(&s);
	s.gpu = 1.5;
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	rai_err_release(&err);

	rai_submit_spec_init(&s);
	rai_strv_push(&s.env, "TOKEN=SECRET:creds,token");
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_STR_CONTAINS(err.message, "secret");
	rai_err_release(&err);
	rai_strv_release(&s.env);
}

/* Item i of the array at path. */
static const cJSON *
item(const cJSON *b, const char *path, int i)
{
	return cJSON_GetArrayItem(rai_json_get(b, path), i);
}

TEST(labels_annotations_git_and_ingress)
{
	struct rai_submit_spec s;
	cJSON *b;

	rai_submit_spec_init(&s);
	s.image = "ubuntu";
	s.interactive = 1;
	rai_strv_push(&s.pod_labels, "team=vision");
	rai_strv_push(&s.pod_annotations, "billing=a=b");
	s.git_sync = "source=https://example.com/r.git,rev=abc123,target=/src";
	s.service_type = "ingress";
	rai_strv_push(&s.ports, "8888");
	b = request(&s, NULL);
	T_STR_EQ(rai_json_str(item(b, "spec.labels", 0), "name"), "team");
	T_STR_EQ(rai_json_str(item(b, "spec.labels", 0), "value"), "vision");
	/* the first '=' splits: the value keeps the others */
	T_STR_EQ(rai_json_str(item(b, "spec.annotations", 0), "name"),
	    "billing");
	T_STR_EQ(rai_json_str(item(b, "spec.annotations", 0), "value"), "a=b");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.git", 0), "repository"),
	    "https://example.com/r.git");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.git", 0), "revision"),
	    "abc123");
	T_NULL(rai_json_str(item(b, "spec.storage.git", 0), "branch"));
	T_STR_EQ(rai_json_str(item(b, "spec.storage.git", 0), "path"), "/src");
	/* an ingress is an exposed URL, not a port */
	T_DBL_EQ(rai_json_num(item(b, "spec.exposedUrls", 0), "container", 0),
	    8888);
	T_NULL(rai_json_child(rai_json_child(b, "spec"), "ports"));
	cJSON_Delete(b);
	rai_strv_release(&s.pod_labels);
	rai_strv_release(&s.pod_annotations);
	rai_strv_release(&s.ports);
}

TEST(storage_ports_pools_and_preemptibility)
{
	struct rai_submit_spec s;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *b = NULL;

	rai_submit_spec_init(&s);
	s.image = "ubuntu";
	s.interactive = 1;
	rai_strv_push(&s.pvcs, "data:/data:ro");
	rai_strv_push(&s.pvcs, "fast:10Gi:/ckpt");
	rai_strv_push(&s.volumes, "/mnt/ds:/ds");
	rai_strv_push(&s.ports, "8888");
	rai_strv_push(&s.ports, "30080:80");
	s.service_type = "nodeport";
	s.node_pools = "a100,default";
	s.preemptible = 1;
	b = request(&s, NULL);
	T_STR_EQ(rai_json_str(item(b, "spec.storage.pvc", 0), "claimName"), "data");
	T_INT_EQ(cJSON_IsTrue(rai_json_get(item(b, "spec.storage.pvc", 0), "existingPvc")), 1);
	T_INT_EQ(cJSON_IsTrue(rai_json_get(item(b, "spec.storage.pvc", 0), "readOnly")), 1);
	T_NULL(rai_json_get(item(b, "spec.storage.pvc", 1), "claimName"));
	T_STR_EQ(rai_json_str(item(b, "spec.storage.pvc", 1), "claimInfo.size"), "10Gi");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.pvc", 1), "claimInfo.storageClass"),
	    "fast");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.pvc", 1), "path"), "/ckpt");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.hostPath", 0), "path"), "/mnt/ds");
	T_STR_EQ(rai_json_str(item(b, "spec.storage.hostPath", 0), "mountPath"), "/ds");
	T_INT_EQ((int)rai_json_num(item(b, "spec.ports", 0), "container", 0), 8888);
	T_NULL(rai_json_get(item(b, "spec.ports", 0), "external"));
	T_STR_EQ(rai_json_str(item(b, "spec.ports", 0), "serviceType"), "NodePort");
	T_INT_EQ((int)rai_json_num(item(b, "spec.ports", 1), "container", 0), 80);
	T_INT_EQ((int)rai_json_num(item(b, "spec.ports", 1), "external", 0), 30080);
	T_STR_EQ(cJSON_GetStringValue(item(b, "spec.nodePools", 1)), "default");
	/* the newest release: preemptibility itself */
	T_STR_EQ(rai_json_str(b, "spec.preemptibility"), "preemptible");
	T_NULL(rai_json_get(b, "spec.priorityClass"));
	cJSON_Delete(b);

	/* 2.21: a preemptible workspace is one of that priority class */
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, "2.21.12", &b,
	    &err), 0);
	T_STR_EQ(rai_json_str(b, "spec.priorityClass"),
	    "interactive-preemptible");
	T_NULL(rai_json_get(b, "spec.preemptibility"));
	cJSON_Delete(b);
	rai_strv_release(&s.pvcs);
	rai_strv_release(&s.volumes);
	rai_strv_release(&s.ports);

	rai_submit_spec_init(&s);
	s.node_pools = "a100,Bad_Pool";
	T_INT_EQ(cp_submit_request(&s, NULL, "4", CLUSTER, NULL, &b, &err), -1);
	T_STR_CONTAINS(err.message, "node pool");
	rai_err_release(&err);
}

TEST(phases_map_to_the_status_column)
{
	T_STR_EQ(cp_phase_status("Creating"), "Pending");
	T_STR_EQ(cp_phase_status("Initializing"), "ContainerCreating");
	T_STR_EQ(cp_phase_status("Running"), "Running");
	T_STR_EQ(cp_phase_status("Degraded"), "Running");
	T_STR_EQ(cp_phase_status("Stopped"), "Suspended");
	T_STR_EQ(cp_phase_status("Completed"), "Succeeded");
	T_STR_EQ(cp_phase_status("Failed"), "Failed");
	T_STR_EQ(cp_phase_status("Deleting"), "Terminating");
	T_STR_EQ(cp_phase_status("Sometimes"), "Unknown");
	T_STR_EQ(cp_phase_status(NULL), "Unknown");
}

TEST(a_workload_is_a_list_row)
{
	static const char wl_json[] = "{\"type\":\"Workspace\",\"name\":\"nb\","
	    "\"id\":\"3f1c\",\"projectName\":\"team-a\",\"namespace\":"
	    "\"runai-team-a\",\"phase\":\"Running\",\"submittedBy\":\"a@b\","
	    "\"images\":[\"jupyter\"],\"runningPods\":1,"
	    "\"requestedPods\":{\"number\":2},\"source\":\"CLI\","
	    "\"allocatedResources\":{\"gpu\":0.5},\"podsRequestedResources\":"
	    "{\"gpu\":{\"request\":0.5}},\"createdAt\":\"2025-01-02T03:04:05Z\"}";
	cJSON *wl = cJSON_Parse(wl_json);
	struct rai_job_view v;

	cp_job_view(wl, &v);
	T_STR_EQ(v.name, "nb");
	T_STR_EQ(v.type, "Interactive");
	T_STR_EQ(v.status, "Running");
	T_STR_EQ(v.project, "team-a");
	T_STR_EQ(v.user, "a@b");
	T_STR_EQ(v.image, "jupyter");
	T_STR_EQ(v.gpus, "0.50 (0.50)");
	T_INT_EQ(v.pods_running, 1);
	T_INT_EQ(v.pods_pending, 1);
	T_INT_EQ(v.created_by_cli, 1);
	T_INT_EQ(v.created > 0, 1);
	rai_job_view_release(&v);
	/* a suspended one waits for nothing */
	cJSON_ReplaceItemInObject(wl, "phase", cJSON_CreateString("Stopped"));
	cJSON_ReplaceItemInObject(wl, "runningPods", cJSON_CreateNumber(0));
	cp_job_view(wl, &v);
	T_STR_EQ(v.status, "Suspended");
	T_INT_EQ(v.pods_pending, 0);
	rai_job_view_release(&v);
	/*
	 * Counts a server may send that no int holds (a mock's random
	 * values): clamped, never an overflow (UBSan checks it here).
	 */
	cJSON_ReplaceItemInObject(wl, "phase", cJSON_CreateString("Running"));
	cJSON_ReplaceItemInObject(wl, "runningPods",
	    cJSON_CreateNumber(-1416231665));
	cJSON_ReplaceItemInObject(wl, "requestedPods",
	    cJSON_Parse("{\"number\": 1e300}"));
	cp_job_view(wl, &v);
	T_INT_EQ(v.pods_running, 0);
	T_INT_EQ(v.pods_pending, INT32_MAX);
	rai_job_view_release(&v);
	cJSON_Delete(wl);
}

int
main(void)
{
	RUN(a_training_request_carries_the_flags);
	RUN(fractions_memory_and_generated_names);
	RUN(what_the_mapping_lacks_is_refused);
	RUN(labels_annotations_git_and_ingress);
	RUN(storage_ports_pools_and_preemptibility);
	RUN(phases_map_to_the_status_column);
	RUN(a_workload_is_a_list_row);
	return t_done();
}
