"""The training operator (training.py): the pods, Services and env it
makes for each kind, and whole lives of jobs stepped by the controller on
a store with the demo's two 8-GPU nodes: one gang (all pods or none),
conditions, restarts, cleanPodPolicy, suspension and deletion."""

import json
import types
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import demo, training
from kubesim.controller import Controller
from kubesim.objutil import (CONFIGMAPS, MPIJOBS, PODS, PYTORCHJOBS, SERVICES, TFJOBS,
                             XGBOOSTJOBS, condition_of, phase_of)
from kubesim.resources import Registry
from kubesim.store import Store

NS = "runai-team-a"


def template(gpus=1, ann=None, name="main"):
    c = {"name": name, "image": "pytorch/pytorch"}
    if gpus:
        c["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return {"metadata": {"labels": {"release": "job"}, "annotations": dict(ann or {})},
            "spec": {"schedulerName": "runai-scheduler", "containers": [c]}}


def job(gvr, name, specs, **spec):
    fw = training.FRAMEWORKS[gvr]
    body = {fw.specs_key: specs}
    body.update(spec)
    return {"apiVersion": "%s/%s" % gvr[:2], "kind": fw.kind,
            "metadata": {"name": name, "namespace": NS, "uid": "uid-" + name},
            "spec": body}


def replica(n, gpus=1, policy="Never", ann=None, name="main"):
    return {"replicas": n, "restartPolicy": policy, "template": template(gpus, ann, name)}


def env_of(pod):
    return {e["name"]: e["value"] for e in pod["spec"]["containers"][0].get("env", [])}


class Pure(unittest.TestCase):
    def test_pytorch_names_ranks_and_env(self):
        j = job(PYTORCHJOBS, "pt", {"Master": replica(1), "Worker": replica(3)})
        self.assertEqual([n for _, _, n in training.replicas(PYTORCHJOBS, j)],
                         ["pt-master-0", "pt-worker-0", "pt-worker-1", "pt-worker-2"])
        w1 = training.build_pod(PYTORCHJOBS, j, "Worker", 1, "team-a")
        env = env_of(w1)
        self.assertEqual((env["MASTER_ADDR"], env["MASTER_PORT"], env["WORLD_SIZE"],
                          env["RANK"]), ("pt-master-0", "23456", "4", "2"))
        labels = w1["metadata"]["labels"]
        self.assertEqual(labels[training.JOB_NAME], "pt")
        self.assertEqual(labels[training.REPLICA_TYPE], "worker")
        self.assertEqual(labels[training.REPLICA_INDEX], "1")
        self.assertEqual(labels["project"], "team-a")
        self.assertEqual(labels["release"], "job")      # the template's own kept
        self.assertNotIn(training.JOB_ROLE, labels)
        m = training.build_pod(PYTORCHJOBS, j, "Master", 0)
        self.assertEqual(m["metadata"]["labels"][training.JOB_ROLE], "master")
        self.assertEqual(env_of(m)["RANK"], "0")
        self.assertEqual(m["metadata"]["ownerReferences"][0]["kind"], "PyTorchJob")

    def test_pytorch_without_master_ranks_workers_from_zero(self):
        j = job(PYTORCHJOBS, "pt", {"Worker": replica(2)})
        env = env_of(training.build_pod(PYTORCHJOBS, j, "Worker", 0))
        self.assertEqual((env["MASTER_ADDR"], env["RANK"], env["WORLD_SIZE"]),
                         ("pt-worker-0", "0", "2"))

    def test_tf_config_names_the_cluster_and_the_task(self):
        j = job(TFJOBS, "tf", {"Chief": replica(1), "Worker": replica(2)})
        conf = json.loads(env_of(training.build_pod(TFJOBS, j, "Worker", 1))["TF_CONFIG"])
        self.assertEqual(conf["task"], {"type": "worker", "index": 1})
        self.assertEqual(conf["cluster"]["worker"], ["tf-worker-0.%s.svc:2222" % NS,
                                                     "tf-worker-1.%s.svc:2222" % NS])
        self.assertEqual(conf["cluster"]["chief"], ["tf-chief-0.%s.svc:2222" % NS])

    def test_xgboost_lists_the_workers(self):
        j = job(XGBOOSTJOBS, "xg", {"Master": replica(1), "Worker": replica(2)})
        env = env_of(training.build_pod(XGBOOSTJOBS, j, "Worker", 0))
        self.assertEqual(env["WORKER_ADDRS"], "xg-worker-0,xg-worker-1")
        self.assertEqual(env["RANK"], "1")

    def test_mpi_launcher_hostfile_and_one_worker_service(self):
        j = job(MPIJOBS, "mp", {"Launcher": replica(1, 0), "Worker": replica(2)},
                slotsPerWorker=4)
        self.assertEqual([n for _, _, n in training.replicas(MPIJOBS, j)],
                         ["mp-launcher", "mp-worker-0", "mp-worker-1"])
        env = env_of(training.build_pod(MPIJOBS, j, "Launcher", 0))
        self.assertEqual(env["OMPI_MCA_orte_default_hostfile"], training.MPI_HOSTFILE)
        self.assertEqual(training.hostfile(j, 4),
                         "mp-worker-0.mp-worker.%s.svc slots=4\n"
                         "mp-worker-1.mp-worker.%s.svc slots=4\n" % (NS, NS))
        svcs = training.build_services(MPIJOBS, j)
        self.assertEqual([s["metadata"]["name"] for s in svcs], ["mp-worker"])
        self.assertEqual(svcs[0]["spec"]["clusterIP"], "None")

    def test_restart_policies(self):
        self.assertTrue(training.restartable("OnFailure", 1))
        self.assertFalse(training.restartable("Never", 137))
        self.assertTrue(training.restartable("ExitCode", 137))
        self.assertFalse(training.restartable("ExitCode", 1))

    def test_clean_pod_policy(self):
        pods = [{"metadata": {"name": n}, "status": {"phase": p}}
                for n, p in (("a", "Running"), ("b", "Succeeded"))]
        self.assertEqual([p["metadata"]["name"] for p in
                          training.cleanup_victims("Running", pods)], ["a"])
        self.assertEqual(len(training.cleanup_victims("All", pods)), 2)
        self.assertEqual(training.cleanup_victims("None", pods), [])


class Lives(unittest.TestCase):
    """Whole jobs on the demo cluster (two nodes, 8 GPUs each)."""

    def setUp(self):
        self.store = Store(Registry())
        demo.install_base(self.store)
        demo.install_demo(self.store)
        sim = types.SimpleNamespace(store=self.store, options=types.SimpleNamespace(tick=1),
                                    processes=None, logs=None)
        self.ctl = Controller(sim)
        self.now = 1_800_000_000.0
        self.ctl.clock = lambda: self.now

    def step(self, n=1):
        for _ in range(n):
            self.now += 1
            self.ctl.step()

    def submit(self, gvr, name, specs, **spec):
        obj = job(gvr, name, specs, **spec)
        del obj["metadata"]["uid"]
        return self.store.create(gvr, NS, obj)

    def pods(self, name):
        return {p["metadata"]["name"]: p for p in self.store.list(PODS, NS)
                if p["metadata"].get("labels", {}).get(training.JOB_NAME) == name}

    def get(self, gvr, name):
        return self.store.get(gvr, NS, name)

    def test_gang_runs_across_both_nodes_and_succeeds(self):
        self.submit(PYTORCHJOBS, "pt", {"Master": replica(1, 4),
                                        "Worker": replica(2, 4, ann={"kube-sim/duration": "3"})})
        self.step(3)
        pods = self.pods("pt")
        self.assertEqual(sorted(pods), ["pt-master-0", "pt-worker-0", "pt-worker-1"])
        self.assertEqual({phase_of(p) for p in pods.values()}, {"Running"})
        self.assertEqual(len({p["spec"]["nodeName"] for p in pods.values()}), 2)
        j = self.get(PYTORCHJOBS, "pt")
        self.assertEqual(condition_of(j, "Created")["reason"], "PyTorchJobCreated")
        self.assertEqual(condition_of(j, "Running")["status"], "True")
        ann = j["metadata"]["annotations"]
        self.assertEqual((ann["runai-calculated-status"], ann["runai-running-pods"],
                          ann["runai-current-allocated-gpus"]), ("Running", "3", "12"))
        self.assertEqual(ann["runai-used-nodes"], "node-1, node-2")
        svcs = {s["metadata"]["name"] for s in self.store.list(SERVICES, NS)}
        self.assertLessEqual({"pt-master-0", "pt-worker-0", "pt-worker-1"}, svcs)
        # workers finish; the job waits for its master
        self.step(4)
        self.assertFalse(training.finished(self.get(PYTORCHJOBS, "pt")))
        self.ctl.force_phase({"namespace": NS, "pod": "pt-master-0", "phase": "Succeeded"})
        self.step(2)
        j = self.get(PYTORCHJOBS, "pt")
        self.assertEqual(condition_of(j, "Succeeded")["reason"], "PyTorchJobSucceeded")
        self.assertEqual(condition_of(j, "Running")["status"], "False")
        self.assertEqual(j["status"]["conditions"][-1]["type"], "Succeeded")

    def test_a_gang_too_big_waits_whole_and_starts_when_gpus_free(self):
        self.submit(PYTORCHJOBS, "big1", {"Master": replica(1, 8), "Worker": replica(1, 4)})
        self.step(3)
        self.assertEqual({phase_of(p) for p in self.pods("big1").values()}, {"Running"})
        # 4 GPUs left; this one needs 2 x 4 + 4
        self.submit(PYTORCHJOBS, "big2", {"Master": replica(1, 4), "Worker": replica(2, 4)})
        self.step(3)
        pods = self.pods("big2")
        self.assertEqual(len(pods), 3)
        self.assertEqual({phase_of(p) for p in pods.values()}, {"Pending"})
        self.assertFalse(any(p["spec"].get("nodeName") for p in pods.values()))
        self.assertEqual(self.get(PYTORCHJOBS, "big2")["metadata"]["annotations"][
            "runai-calculated-status"], "Pending")
        self.store.delete(PYTORCHJOBS, NS, "big1")
        self.assertEqual(self.pods("big1"), {})
        self.step(3)
        self.assertEqual({phase_of(p) for p in self.pods("big2").values()}, {"Running"})

    def test_a_worker_failure_fails_the_job_and_cleans_running_pods(self):
        self.submit(TFJOBS, "tf", {"Chief": replica(1), "Worker": replica(2)},
                    runPolicy={"cleanPodPolicy": "Running"})
        self.step(3)
        self.ctl.force_phase({"namespace": NS, "pod": "tf-worker-1", "phase": "Failed",
                              "exit_code": 1})
        self.step(2)
        j = self.get(TFJOBS, "tf")
        self.assertEqual(condition_of(j, "Failed")["reason"], "TFJobFailed")
        self.assertIn("1 Worker replica(s) failed", condition_of(j, "Failed")["message"])
        self.assertEqual(j["metadata"]["annotations"]["runai-calculated-status"], "Failed")
        self.assertEqual(sorted(self.pods("tf")), ["tf-worker-1"])    # the failed one stays

    def test_on_failure_replaces_the_pod_within_backoff_limit(self):
        self.submit(PYTORCHJOBS, "rs", {"Master": replica(1, 0),
                                        "Worker": replica(1, 0, policy="OnFailure")},
                    runPolicy={"backoffLimit": 1})
        self.step(3)
        uid = self.pods("rs")["rs-worker-0"]["metadata"]["uid"]
        self.ctl.force_phase({"namespace": NS, "pod": "rs-worker-0", "phase": "Failed"})
        self.step(3)
        w = self.pods("rs")["rs-worker-0"]
        self.assertNotEqual(w["metadata"]["uid"], uid)
        self.assertEqual(phase_of(w), "Running")
        self.assertFalse(training.finished(self.get(PYTORCHJOBS, "rs")))
        self.ctl.force_phase({"namespace": NS, "pod": "rs-worker-0", "phase": "Failed"})
        self.step(2)
        self.assertTrue(condition_of(self.get(PYTORCHJOBS, "rs"), "Failed"))

    def test_on_failure_restarts_in_place_until_the_backoff_limit(self):
        # the worker's command fails every 2 s; the kubelet restarts it in
        # the same pod (no back-off the first time, then 1 s, 2 s)
        ann = {"kube-sim/duration": "2", "kube-sim/exit-code": "3",
               "kube-sim/restart-backoff": "1"}
        self.submit(PYTORCHJOBS, "ip", {"Master": replica(1, 0),
                                        "Worker": replica(1, 0, policy="OnFailure", ann=ann)},
                    runPolicy={"backoffLimit": 2})
        self.step(3)
        uid = self.pods("ip")["ip-worker-0"]["metadata"]["uid"]
        seen = []
        for _ in range(12):
            self.step()
            w = self.pods("ip").get("ip-worker-0")
            if w is None:
                break
            self.assertEqual(w["metadata"]["uid"], uid)        # never replaced
            self.assertEqual(phase_of(w), "Running")
            cs = w["status"]["containerStatuses"][0]
            seen.append((cs["restartCount"], next(iter(cs["state"]))))
        self.assertIn((1, "running"), seen)
        self.assertIn((1, "waiting"), seen)                     # CrashLoopBackOff
        j = self.get(PYTORCHJOBS, "ip")
        failed = condition_of(j, "Failed")
        self.assertEqual((failed["status"], failed["reason"]), ("True", "PyTorchJobFailed"))
        self.assertEqual(failed["message"], "Job ip has failed because it has reached the "
                         "specified backoff limit")
        self.assertEqual(self.pods("ip"), {})                   # cleanPodPolicy Running
        events = [e for e in self.store.list(("", "v1", "events"), NS)
                  if e["involvedObject"]["name"] == "ip-worker-0"]
        backoff = [e for e in events if e["reason"] == "BackOff"]
        self.assertTrue(backoff)
        self.assertIn("Back-off restarting failed container main in pod ip-worker-0_%s(%s)"
                      % (NS, uid), backoff[0]["message"])

    def test_the_kubelet_restarts_by_the_pods_restart_policy(self):
        ann = {"kube-sim/duration": "1", "kube-sim/restart-backoff": "0"}
        for name, policy, code in (("al", "Always", "0"), ("of", "OnFailure", "0"),
                                   ("nv", "Never", "1"), ("of1", "OnFailure", "1")):
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "annotations": dict(
                       ann, **{"kube-sim/exit-code": code})},
                   "spec": {"restartPolicy": policy, "schedulerName": "runai-scheduler",
                            "containers": [{"name": "c", "image": "busybox"}]}}
            self.store.create(PODS, NS, pod)
        self.step(6)

        def state(name):
            p = self.store.get(PODS, NS, name)
            cs = p["status"]["containerStatuses"][0]
            return phase_of(p), cs["restartCount"] > 0
        self.assertEqual(state("al"), ("Running", True))
        self.assertEqual(state("of"), ("Succeeded", False))
        self.assertEqual(state("nv"), ("Failed", False))
        self.assertEqual(state("of1"), ("Running", True))
        last = self.store.get(PODS, NS, "of1")["status"]["containerStatuses"][0]["lastState"]
        self.assertEqual((last["terminated"]["exitCode"], last["terminated"]["reason"]),
                         (1, "Error"))

    def test_mpi_job_with_clean_all_and_suspension(self):
        self.submit(MPIJOBS, "mp", {"Launcher": replica(1, 0), "Worker": replica(2, 1)},
                    slotsPerWorker=2, runPolicy={"cleanPodPolicy": "All"})
        self.step(3)
        self.assertEqual(sorted(self.pods("mp")), ["mp-launcher", "mp-worker-0", "mp-worker-1"])
        cm = self.store.get(CONFIGMAPS, NS, "mp-config")
        self.assertIn("slots=2", cm["data"]["hostfile"])
        j = self.get(MPIJOBS, "mp")
        j["spec"]["runPolicy"]["suspend"] = True
        self.store.update(MPIJOBS, NS, j)
        self.step(2)
        self.assertEqual(self.pods("mp"), {})
        j = self.get(MPIJOBS, "mp")
        self.assertEqual(j["metadata"]["annotations"]["runai-calculated-status"], "Suspended")
        j["spec"]["runPolicy"]["suspend"] = False
        self.store.update(MPIJOBS, NS, j)
        self.step(3)
        self.assertEqual(len(self.pods("mp")), 3)
        self.ctl.force_phase({"namespace": NS, "pod": "mp-launcher", "phase": "Succeeded"})
        self.step(2)
        self.assertTrue(training.finished(self.get(MPIJOBS, "mp")))
        self.assertEqual(self.pods("mp"), {})
        self.assertIsNone(self.store.get(SERVICES, NS, "mp-worker"))

    def test_a_pod_deleted_by_hand_comes_back_and_settled_jobs_are_left_alone(self):
        self.submit(PYTORCHJOBS, "back", {"Master": replica(1, 0), "Worker": replica(2, 0)})
        self.step(3)
        rv = self.get(PYTORCHJOBS, "back")["metadata"]["resourceVersion"]
        self.step(3)    # nothing changed: nothing written
        self.assertEqual(self.get(PYTORCHJOBS, "back")["metadata"]["resourceVersion"], rv)
        self.store.delete(PODS, NS, "back-worker-1")
        self.step(3)
        self.assertEqual(sorted(self.pods("back")),
                         ["back-master-0", "back-worker-0", "back-worker-1"])
        self.assertEqual({phase_of(p) for p in self.pods("back").values()}, {"Running"})

    def test_deleting_the_job_removes_pods_services_and_config(self):
        self.submit(MPIJOBS, "gone", {"Launcher": replica(1, 0), "Worker": replica(1, 1)})
        self.submit(XGBOOSTJOBS, "xg", {"Master": replica(1, 0), "Worker": replica(1, 1)})
        self.step(2)
        self.store.delete(MPIJOBS, NS, "gone")
        self.store.delete(XGBOOSTJOBS, NS, "xg")
        left = [o["metadata"]["name"] for gvr in (PODS, SERVICES, CONFIGMAPS)
                for o in self.store.list(gvr, NS)
                if o["metadata"]["name"].startswith(("gone-", "xg-"))]
        self.assertEqual(left, [])


class Bulk(unittest.TestCase):
    """/_sim/bulk's PyTorchJobs (bench/list.sh): as the operator and the
    scheduler leave a running job, so nothing needs the controller."""

    def test_a_bulk_job_and_its_four_pods(self):
        job = demo.pytorchjob("b", NS, workers=3, node_names=["node-1", "node-2"] * 2)
        job["metadata"]["uid"] = "uid-b"
        pods = demo.pytorchjob_pods(job, ["node-1", "node-2"] * 2,
                                    ["10.245.0.%d" % i for i in range(4)], ["10.0.0.11"] * 4)
        self.assertEqual([p["metadata"]["name"] for p in pods],
                         ["b-master-0", "b-worker-0", "b-worker-1", "b-worker-2"])
        self.assertEqual({p["metadata"]["ownerReferences"][0]["uid"] for p in pods}, {"uid-b"})
        self.assertEqual({phase_of(p) for p in pods}, {"Running"})
        self.assertEqual(env_of(pods[3])["RANK"], "3")
        ann = job["metadata"]["annotations"]
        self.assertEqual((ann["runai-running-pods"], ann["runai-used-nodes"],
                          ann["runai-current-allocated-gpus"]), ("4", "node-1, node-2", "4"))
        self.assertEqual([c["type"] for c in job["status"]["conditions"]],
                         ["Created", "Running"])


if __name__ == "__main__":
    unittest.main()
