/*
 * Unit tests of what the CLI v2's submit flags add to submit's spec:
 * the key=value splitter and the meaning of each such value
 * (lib/runai/submit_kv), the spec's checks of the new fields, the pod
 * template's parts in Kubernetes mode (submit_pod through
 * rai_submit_render), and the control plane's request by release
 * (cp_request_pod, cp_dist_request), where each release's document has
 * the field or not.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "runai/cp_request.h"
#include "runai/dist.h"
#include "runai/submit.h"
#include "runai/submit_kv.h"

#include "harness.h"

#define CLUSTER	"71f69d83-ba66-4822-adf5-55ce55efd210"

static const char *const nfs_keys[] = { "server", "path", "mountpath", NULL };
static const char *const nfs_words[] = { "readwrite", NULL };

TEST(the_splitter_takes_known_keys_once)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_kv kv;

	T_INT_EQ(rai_kv_parse("--nfs", "server=s,path=/a=b,readwrite",
	    nfs_keys, nfs_words, &kv, &err), 0);
	T_STR_EQ(rai_kv_get(&kv, "server"), "s");
	/* a value keeps its own '=' */
	T_STR_EQ(rai_kv_get(&kv, "path"), "/a=b");
	T_INT_EQ(rai_kv_has(&kv, "readwrite"), 1);
	T_NULL(rai_kv_get(&kv, "mountpath"));
	rai_kv_release(&kv);

	T_INT_EQ(rai_kv_parse("--nfs", "server=s,server=t", nfs_keys, NULL, &kv,
	    &err), -1);
	T_STR_EQ(err.message, "--nfs 'server=s,server=t': server given twice");
	rai_err_release(&err);
	T_INT_EQ(rai_kv_parse("--nfs", "server=s,,path=/p", nfs_keys, NULL,
	    &kv, &err), -1);
	T_STR_CONTAINS(err.message, "an empty part");
	rai_err_release(&err);
	T_INT_EQ(rai_kv_parse("--nfs", "server=", nfs_keys, NULL, &kv, &err),
	    -1);
	T_STR_CONTAINS(err.message, "server= has no value");
	rai_err_release(&err);
	/* a bare word the flag does not take, a key given as a word */
	T_INT_EQ(rai_kv_parse("--nfs", "server", nfs_keys, nfs_words, &kv,
	    &err), -1);
	T_STR_EQ(err.message, "--nfs 'server': unknown part 'server' (it takes "
	    "server=, path=, mountpath=, readwrite)");
	rai_err_release(&err);
}

TEST(tolerations_nfs_volumes_resources_groups)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_toleration t;
	struct rai_nfs n;
	struct rai_named_volume v;
	struct rai_extended e;
	struct rai_kv kv;
	long ids[4];
	size_t nids;

	T_INT_EQ(rai_parse_toleration("key=gpu,effect=NoExecute,seconds=30",
	    &kv, &t, &err), 0);
	T_STR_EQ(t.op, "Equal");
	T_INT_EQ(t.seconds, 30);
	rai_kv_release(&kv);
	T_INT_EQ(rai_parse_toleration("operator=Exists", &kv, &t, &err), 0);
	T_NULL(t.key);
	rai_kv_release(&kv);
	T_INT_EQ(rai_parse_toleration("operator=Exists,key=k,value=v", &kv, &t,
	    &err), -1);
	T_STR_CONTAINS(err.message, "operator=Exists takes no value=");
	rai_err_release(&err);
	T_INT_EQ(rai_parse_toleration("key=k,effect=Sometimes", &kv, &t, &err),
	    -1);
	rai_err_release(&err);

	T_INT_EQ(rai_parse_nfs("server=n,path=/e,mountpath=/d", &kv, &n, &err),
	    0);
	T_INT_EQ(n.read_only, 1);
	rai_kv_release(&kv);
	T_INT_EQ(rai_parse_nfs("server=n,path=e,mountpath=/d", &kv, &n, &err),
	    -1);
	T_STR_CONTAINS(err.message, "path= must be an absolute path");
	rai_err_release(&err);

	T_INT_EQ(rai_parse_named_volume(RAI_VOL_EMPTYDIR,
	    "name=s,path=/s,medium=Disk", &kv, &v, &err), -1);
	T_STR_CONTAINS(err.message, "medium= is Memory");
	rai_err_release(&err);
	T_INT_EQ(rai_parse_named_volume(RAI_VOL_SECRET, "name=Sec,path=/s", &kv,
	    &v, &err), -1);
	T_STR_CONTAINS(err.message, "--secret-volume 'name=Sec,path=/s'");
	rai_err_release(&err);

	T_INT_EQ(rai_parse_extended("example.com/fpga=2", &kv, &e, &err), 0);
	T_STR_EQ(e.resource, "example.com/fpga");
	T_STR_EQ(e.quantity, "2");
	rai_kv_release(&kv);
	T_INT_EQ(rai_parse_extended("example.com/fpga=lots", &kv, &e, &err), -1);
	rai_err_release(&err);

	T_INT_EQ(rai_parse_groups("5,6,7", ids, 4, &nids, &err), 0);
	T_INT_EQ(nids, 3);
	T_INT_EQ(ids[2], 7);
	T_INT_EQ(rai_parse_groups("5,,6", ids, 4, &nids, &err), -1);
	rai_err_release(&err);
	T_INT_EQ(rai_parse_groups("1,2,3,4,5", ids, 4, &nids, &err), -1);
	rai_err_release(&err);
}

static void
spec_init(struct rai_submit_spec *s)
{
	rai_submit_spec_init(s);
	s->name = "j";
	s->project = "p";
	s->namespace = "runai-p";
	s->image = "img";
}

static const cJSON *
pod_spec(const struct rai_submit_objs *objs)
{
	return rai_json_get(rai_submit_workload(objs)->obj,
	    "spec.template.spec");
}

TEST(the_pod_template_carries_the_new_fields)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_submit_spec s;
	struct rai_submit_objs objs;
	const cJSON *pod;

	spec_init(&s);
	s.gpu = 0.25;
	s.gpu_portion_limit = 0.5;
	s.termination_grace = 10;
	s.run_as_gid = 7;
	rai_strv_push(&s.tolerations, "key=a,operator=Exists,effect=Any");
	rai_strv_push(&s.capabilities, "SYS_PTRACE");
	rai_strv_push(&s.empty_dirs, "name=x,path=/x");
	T_INT_EQ(rai_submit_render(&s, &objs, &err), 0);
	pod = pod_spec(&objs);
	T_DBL_EQ(rai_json_num(pod, "terminationGracePeriodSeconds", 0), 10);
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(pod,
	    "tolerations"), 0), "operator"), "Exists");
	/* Kubernetes tolerates every effect when none is named */
	T_NULL(rai_json_get(cJSON_GetArrayItem(rai_json_get(pod, "tolerations"),
	    0), "effect"));
	T_DBL_EQ(rai_json_num(pod, "securityContext.runAsGroup", 0), 7);
	T_NULL(rai_json_get(pod, "securityContext.runAsUser"));
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(cJSON_GetArrayItem(
	    rai_json_get(pod, "containers"), 0), "securityContext.capabilities.add"),
	    0), ""), "SYS_PTRACE");
	T_STR_EQ(rai_json_str(rai_submit_workload(&objs)->obj,
	    "spec.template.metadata.annotations.gpu-fraction-limit"), "0.5");
	rai_submit_objs_release(&objs);
	rai_strv_release(&s.tolerations);
	rai_strv_release(&s.capabilities);
	rai_strv_release(&s.empty_dirs);

	/* the checks of the whole spec */
	spec_init(&s);
	s.gpu_portion_limit = 0.5;
	T_INT_EQ(rai_submit_render(&s, &objs, &err), -1);
	T_STR_CONTAINS(err.message, "--gpu-portion-limit is for a portion");
	rai_err_release(&err);
	spec_init(&s);
	s.gpu_memory = "4G";
	s.gpu_memory_limit = "2G";
	T_INT_EQ(rai_submit_render(&s, &objs, &err), -1);
	T_STR_CONTAINS(err.message, "less than the request");
	rai_err_release(&err);
	spec_init(&s);
	s.run_as_user = 1;
	s.run_as_uid = 5;
	T_INT_EQ(rai_submit_render(&s, &objs, &err), -1);
	T_STR_CONTAINS(err.message, "not both");
	rai_err_release(&err);
}

/* The request for s at release, or NULL with err set. */
static cJSON *
request_at(const struct rai_submit_spec *s, const char *release,
    struct rai_err *err)
{
	cJSON *body = NULL;

	if (cp_submit_request(s, NULL, "4", CLUSTER, release, &body, err) == -1)
		return NULL;
	return body;
}

TEST(the_request_by_release)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_submit_spec s;
	cJSON *b;

	/* the grace period from 2.20 */
	spec_init(&s);
	s.termination_grace = 30;
	T_NULL(request_at(&s, "2.18.5", &err));
	T_STR_EQ(err.message, "--termination-grace-period needs a control plane "
	    "of 2.20 or later (this is 2.18.5)");
	rai_err_release(&err);
	b = request_at(&s, "2.21.12", &err);
	T_DBL_EQ(rai_json_num(b, "spec.terminationGracePeriodSeconds", 0), 30);
	cJSON_Delete(b);

	/* "any effect" from 2.21; other tolerations in every release */
	spec_init(&s);
	rai_strv_push(&s.tolerations, "key=a,operator=Exists,effect=Any");
	T_NULL(request_at(&s, "2.18.5", &err));
	T_STR_CONTAINS(err.message, "effect=Any needs a control plane of 2.21");
	rai_err_release(&err);
	rai_strv_release(&s.tolerations);
	rai_strv_push(&s.tolerations, "key=a,value=b,effect=NoSchedule");
	b = request_at(&s, "2.18.5", &err);
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(b,
	    "spec.tolerations"), 0), "operator"), "Equal");
	cJSON_Delete(b);
	rai_strv_release(&s.tolerations);

	/* emptyDir volumes from 2.22; NFS and ids in every release */
	spec_init(&s);
	rai_strv_push(&s.empty_dirs, "name=x,path=/x");
	T_NULL(request_at(&s, "2.21.12", &err));
	T_STR_CONTAINS(err.message, "--empty-dir-volume needs a control plane of "
	    "2.22");
	rai_err_release(&err);
	rai_strv_release(&s.empty_dirs);
	rai_strv_push(&s.nfs, "server=n,path=/e,mountpath=/d,readwrite");
	s.run_as_uid = 1000;
	s.host_ipc = 1;
	b = request_at(&s, "2.18.5", &err);
	T_INT_EQ(rai_json_bool(cJSON_GetArrayItem(rai_json_get(b,
	    "spec.storage.nfs"), 0), "readOnly", 1), 0);
	/* one security object: the host's and the ids together */
	T_INT_EQ(rai_json_bool(b, "spec.security.hostIpc", 0), 1);
	T_STR_EQ(rai_json_str(b, "spec.security.uidGidSource"), "custom");
	T_DBL_EQ(rai_json_num(b, "spec.security.runAsUid", 0), 1000);
	cJSON_Delete(b);
	rai_strv_release(&s.nfs);
}

TEST(distributed_jax_restart_policy_elastic)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_submit_spec s;
	struct rai_dist_spec d;
	cJSON *b;

	spec_init(&s);
	memset(&d, 0, sizeof(d));
	d.kind = RAI_DIST_JAX;
	d.workers = 2;
	d.slots = -1;
	T_INT_EQ(rai_dist_check(&d, &err), 0);
	T_NULL(rai_dist_framework(RAI_DIST_JAX));
	b = request_at(&s, "2.24.1", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.24.1", &err), 0);
	T_STR_EQ(rai_json_str(b, "spec.distributedFramework"), "JAX");
	/* no master of its own */
	T_NULL(rai_json_get(b, "masterSpecSameAsWorker"));
	cJSON_Delete(b);
	b = request_at(&s, "2.21.12", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.21.12", &err), -1);
	T_STR_EQ(err.message, "JAX jobs need a control plane of 2.24 or later "
	    "(this is 2.21.12)");
	rai_err_release(&err);
	cJSON_Delete(b);

	d.kind = RAI_DIST_PYTORCH;
	d.restart_policy = "OnFailure";
	d.min_replicas = 1;
	d.max_replicas = 4;
	b = request_at(&s, "2.18.5", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.18.5", &err), -1);
	T_STR_CONTAINS(err.message, "--restart-policy needs a control plane of "
	    "2.21");
	rai_err_release(&err);
	cJSON_Delete(b);
	b = request_at(&s, "2.21.12", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.21.12", &err), 0);
	T_STR_EQ(rai_json_str(b, "spec.restartPolicy"), "OnFailure");
	T_DBL_EQ(rai_json_num(b, "spec.maxReplicas", 0), 4);
	cJSON_Delete(b);

	/* elastic bounds are PyTorch's alone, the least first */
	d.kind = RAI_DIST_TF;
	T_INT_EQ(rai_dist_check(&d, &err), -1);
	T_STR_CONTAINS(err.message, "are for PyTorch jobs");
	rai_err_release(&err);
	d.kind = RAI_DIST_PYTORCH;
	d.min_replicas = 5;
	T_INT_EQ(rai_dist_check(&d, &err), -1);
	rai_err_release(&err);
	d.min_replicas = 1;
	d.restart_policy = "Sometimes";
	T_INT_EQ(rai_dist_check(&d, &err), -1);
	T_STR_CONTAINS(err.message, "Always, OnFailure or Never");
	rai_err_release(&err);
}

TEST(the_master_over_its_copy_of_the_workers)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_submit_spec s;
	struct rai_submit_custom custom;
	struct rai_submit_objs objs;
	struct rai_dist_master m;
	struct rai_dist_spec d;
	const cJSON *specs, *mc, *wc;
	struct rai_strv w = { NULL, 0 };
	cJSON *b;

	T_INT_EQ(rai_split_words("--x", "a 'b c' \"d \\\" e\" f\\ g", &w,
	    &err), 0);
	T_INT_EQ(w.n, 4);
	T_STR_EQ(w.v[1], "b c");
	T_STR_EQ(w.v[2], "d \" e");
	T_STR_EQ(w.v[3], "f g");
	rai_strv_release(&w);

	spec_init(&s);
	s.gpu = 2;
	rai_strv_push(&s.env, "A=1");
	rai_strv_push(&s.pvcs, "data:/data");
	memset(&m, 0, sizeof(m));
	m.gpu_devices = -1;
	m.gpu_portion = 0.5;
	m.args = "--lead 'x y'";
	m.no_pvcs = 1;
	rai_strv_push(&m.env, "A=2");
	memset(&d, 0, sizeof(d));
	d.kind = RAI_DIST_PYTORCH;
	d.workers = 1;
	d.slots = -1;
	d.master = &m;
	rai_dist_custom(&d, &custom);
	s.custom = &custom;
	T_INT_EQ(rai_submit_render(&s, &objs, &err), 0);
	/* the custom workload is the last object: no Service here */
	specs = rai_json_get(objs.v[objs.n - 1].obj, "spec.pytorchReplicaSpecs");
	mc = cJSON_GetArrayItem(rai_json_get(specs,
	    "Master.template.spec.containers"), 0);
	wc = cJSON_GetArrayItem(rai_json_get(specs,
	    "Worker.template.spec.containers"), 0);
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(mc, "args"), 1),
	    ""), "x y");
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(mc, "env"), 0),
	    "value"), "2");
	T_STR_EQ(rai_json_str(cJSON_GetArrayItem(rai_json_get(wc, "env"), 0),
	    "value"), "1");
	/* the master's portion in place of the workers' two GPUs */
	T_NULL(cJSON_GetObjectItemCaseSensitive(rai_json_get(mc,
	    "resources.limits"), "nvidia.com/gpu"));
	T_DBL_EQ(cJSON_GetObjectItemCaseSensitive(rai_json_get(wc,
	    "resources.limits"), "nvidia.com/gpu")->valuedouble, 2);
	T_STR_EQ(rai_json_str(specs, "Master.template.metadata.annotations."
	    "gpu-fraction"), "0.5");
	T_NULL(rai_json_get(mc, "volumeMounts"));
	T_NOT_NULL(rai_json_get(wc, "volumeMounts"));
	rai_submit_objs_release(&objs);

	/* the control plane: a masterSpec of its own, 2.21 for its policy */
	s.custom = NULL;
	b = request_at(&s, "2.21.12", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.21.12", &err), 0);
	T_NULL(rai_json_get(b, "masterSpecSameAsWorker"));
	T_NULL(rai_json_get(b, "masterSpec.numWorkers"));
	T_NULL(rai_json_get(b, "masterSpec.storage"));
	T_STR_EQ(rai_json_str(b, "masterSpec.args"), "--lead 'x y'");
	T_DBL_EQ(rai_json_num(b, "masterSpec.compute.gpuPortionRequest", 0), 0.5);
	T_DBL_EQ(rai_json_num(b, "spec.compute.gpuDevicesRequest", 0), 2);
	cJSON_Delete(b);
	m.restart_policy = "Always";
	b = request_at(&s, "2.18.5", &err);
	T_INT_EQ(cp_dist_request(b, &d, "2.18.5", &err), -1);
	T_STR_CONTAINS(err.message, "--master-restart-policy needs a control "
	    "plane of 2.21");
	rai_err_release(&err);
	cJSON_Delete(b);

	/* no master to give values to */
	d.no_master = 1;
	T_INT_EQ(rai_dist_check(&d, &err), -1);
	T_STR_CONTAINS(err.message, "for a job with a master");
	rai_err_release(&err);
	rai_strv_release(&m.env);
	rai_strv_release(&s.env);
	rai_strv_release(&s.pvcs);
}

int
main(void)
{
	RUN(the_splitter_takes_known_keys_once);
	RUN(tolerations_nfs_volumes_resources_groups);
	RUN(the_pod_template_carries_the_new_fields);
	RUN(the_request_by_release);
	RUN(distributed_jax_restart_policy_elastic);
	RUN(the_master_over_its_copy_of_the_workers);
	return t_done();
}
