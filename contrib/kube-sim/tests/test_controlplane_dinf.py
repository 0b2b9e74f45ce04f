"""Distributed inferences on the emulated control plane (2.24): the
LeaderWorkerSet a submit becomes, its groups of pods run by the
emulator's controller (names, labels, images, the leader's address),
the workload in the generic lists, PATCH's replicas adding and removing
whole groups, DELETE taking everything, the startup and restart
policies, the judge refusing bodies the document does not allow, and
2.18/2.21 answering 404 on the paths they lack. Also the kind's own
pieces (lws.py) without a server."""

import tempfile
import types
import unittest

from test_controlplane import Client, FakeSim
import support  # noqa: F401  (sys.path)
from kubesim import discovery, lws
from kubesim.controller import Controller
from kubesim.controlplane import server as cpserver
from kubesim.objutil import LEADERWORKERSETS, PODS, SERVICES, meta_of, phase_of

NS = "runai-team-a"
PATH = "/api/v1/workloads/distributed-inferences"


def member(image, gpus, **more):
    return dict({"image": image, "command": "python3 -m http.server",
                 "compute": {"gpuDevicesRequest": gpus}}, **more)


class Case(unittest.TestCase):
    VERSION = "2.24"

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.sim = FakeSim(self.dir.name)
        self.sim.options = types.SimpleNamespace(tick=1)
        self.sim.processes = self.sim.logs = None
        self.ctl = Controller(self.sim)
        self.now = 1_800_000_000.0
        self.ctl.clock = lambda: self.now
        self.cp = cpserver.ControlPlane(self.sim, self.VERSION, self.dir.name)
        self.c = Client(self.cp.start("127.0.0.1"))
        creds = self.cp.identity.creds
        status, body = self.c.call("POST", "/api/v1/token", {
            "grantType": "password", "clientID": "runai-cli",
            "username": creds["username"], "password": creds["password"]})
        self.assertEqual(status, 200, body)
        self.c.token = body["accessToken"]
        self.cluster = self.c.call("GET", "/api/v1/clusters")[1][0]["uuid"]

    def tearDown(self):
        self.cp.stop()
        self.dir.cleanup()

    def step(self, n=1):
        for _ in range(n):
            self.now += 1
            self.ctl.step()

    def violations(self):
        import json
        with open(self.cp.judge.path) as f:
            return [json.loads(line) for line in f]

    def submit(self, name="di", **spec):
        body = {"name": name, "projectId": "1", "clusterId": self.cluster,
                "spec": dict({"replicas": 2, "workers": 1,
                              "servingPort": {"port": 8000, "protocol": "http",
                                              "authorizationType": "public"},
                              "leader": member("vllm/leader", 1),
                              "worker": member("vllm/worker", 2)}, **spec)}
        return self.c.call("POST", PATH, body)

    def pods(self, name="di"):
        return {meta_of(p)["name"]: p for p in self.sim.store.list(PODS, NS)
                if (meta_of(p).get("labels") or {}).get(lws.SET_NAME) == name}

    def entry(self, wid):
        listed = self.c.call("GET", "/api/v1/workloads")[1]["workloads"]
        return next(w for w in listed if w["id"] == wid)


class DistributedInference224(Case):
    def test_submit_runs_groups_of_a_leader_and_a_worker(self):
        status, made = self.submit()
        self.assertEqual(status, 202, made)
        wid = made["workloadId"]
        self.assertEqual((made["name"], made["spec"]["startupPolicy"],
                          made["spec"]["restartPolicy"]),
                         ("di", "LeaderCreated", "RecreateGroupOnPodRestart"))
        obj = self.sim.store.get(LEADERWORKERSETS, NS, "di")
        lwt = obj["spec"]["leaderWorkerTemplate"]
        self.assertEqual((obj["kind"], obj["spec"]["replicas"], lwt["size"],
                          obj["spec"]["startupPolicy"], lwt["restartPolicy"]),
                         ("LeaderWorkerSet", 2, 2, "LeaderCreated",
                          "RecreateGroupOnPodRestart"))
        self.step(3)
        pods = self.pods()
        self.assertEqual(sorted(pods), ["di-0", "di-0-1", "di-1", "di-1-1"])
        for name, (group, worker, image) in {
                "di-0": ("0", "0", "vllm/leader"), "di-0-1": ("0", "1", "vllm/worker"),
                "di-1": ("1", "0", "vllm/leader"), "di-1-1": ("1", "1", "vllm/worker")}.items():
            p = pods[name]
            labels = p["metadata"]["labels"]
            self.assertEqual((labels[lws.SET_NAME], labels[lws.GROUP_INDEX],
                              labels[lws.WORKER_INDEX], labels["release"],
                              labels["runai/workload-id"]),
                             ("di", group, worker, "di", wid), name)
            c = p["spec"]["containers"][0]
            self.assertEqual((c["image"], c["command"], p["spec"]["schedulerName"]),
                             (image, ["python3", "-m", "http.server"], "runai-scheduler"))
            env = {e["name"]: e["value"] for e in c["env"]}
            self.assertEqual(env["LWS_LEADER_ADDRESS"], "di-%s.di.%s" % (group, NS))
            self.assertEqual(phase_of(p), "Running", name)
        self.assertEqual(pods["di-0"]["spec"]["containers"][0]["ports"],
                         [{"containerPort": 8000}])
        self.assertNotIn("ports", pods["di-0-1"]["spec"]["containers"][0])
        self.assertEqual(pods["di-1-1"]["spec"]["containers"][0]["resources"]["limits"],
                         {"nvidia.com/gpu": "2"})
        headless = self.sim.store.get(SERVICES, NS, "di")
        self.assertEqual(headless["spec"]["clusterIP"], "None")
        serving = self.sim.store.get(SERVICES, NS, "di-serving")
        self.assertEqual((serving["spec"]["type"], serving["spec"]["selector"],
                          serving["spec"]["ports"][0]["targetPort"]),
                         ("ClusterIP", {lws.SET_NAME: "di", lws.WORKER_INDEX: "0"}, 8000))
        status = self.sim.store.get(LEADERWORKERSETS, NS, "di")["status"]
        self.assertEqual((status["replicas"], status["readyReplicas"],
                          status["conditions"][0]["type"], status["conditions"][0]["status"]),
                         (2, 2, "Available", "True"))
        wl = self.entry(wid)
        self.assertEqual((wl["type"], wl["phase"], wl["runningPods"], wl["requestedPods"],
                          wl["images"], wl["podsRequestedResources"]["gpu"]["request"],
                          wl["allocatedResources"]["gpu"], wl["actionsSupport"]["suspend"],
                          wl["category"], wl["priorityClassName"]),
                         ("DistributedInference", "Running", 4, {"number": 4},
                          ["vllm/leader", "vllm/worker"], 6.0, 6.0, False, "Deploy",
                          "inference"))
        listed = self.c.call("GET", "/api/v1/workloads?filterBy=type==DistributedInference")
        self.assertEqual([w["name"] for w in listed[1]["workloads"]], ["di"])
        pods = self.c.call("GET", "/api/v1/workloads/%s/pods" % wid)[1]["pods"]
        self.assertEqual(sorted(p["name"] for p in pods), ["di-0", "di-0-1", "di-1", "di-1-1"])
        tenant = self.c.call("GET", "/api/v1/workloads/pods?filterBy=workloadId==" + wid)
        self.assertEqual(len(tenant[1]["pods"]), 4)
        status, got = self.c.call("GET", "%s/%s" % (PATH, wid))
        self.assertEqual((status, got["actualPhase"], got["spec"]["leader"]["image"],
                          got["spec"]["worker"]["image"]),
                         (200, "Running", "vllm/leader", "vllm/worker"))
        detailed = self.c.call("GET", "/api/v1/workloads/" + wid)
        self.assertEqual((detailed[0], detailed[1]["type"]), (200, "DistributedInference"))
        self.assertEqual(self.violations(), [])

    def test_phase_moves_with_the_pods(self):
        self.cp.settings({"policy": {}})
        _, made = self.submit(leader=member("vllm/leader", 8), worker=member("w", 8))
        wid = made["workloadId"]
        self.assertEqual(self.entry(wid)["phase"], "Creating")
        # two groups of 16 GPUs on two 8-GPU nodes: the first group is
        # placed, the second waits whole (no lone leader)
        self.step()
        self.assertIn(self.entry(wid)["phase"], ("Pending", "Initializing"))
        self.step(2)
        pods = self.pods()
        self.assertEqual({n: phase_of(p) for n, p in pods.items()},
                         {"di-0": "Running", "di-0-1": "Running",
                          "di-1": "Pending", "di-1-1": "Pending"})
        wl = self.entry(wid)
        self.assertEqual((wl["phase"], wl["runningPods"], wl["requestedPods"]["number"]),
                         ("Running", 2, 4))
        self.assertEqual(self.violations(), [])

    def test_patch_scales_whole_groups_and_delete_takes_all(self):
        _, made = self.submit()
        wid = made["workloadId"]
        self.step(3)
        leader_uid = self.pods()["di-0"]["metadata"]["uid"]
        status, got = self.c.call("PATCH", "%s/%s" % (PATH, wid), {"spec": {"replicas": 1}})
        self.assertEqual((status, got["spec"]["replicas"], got["spec"]["leader"]["image"]),
                         (202, 1, "vllm/leader"))
        self.assertEqual(self.sim.store.get(LEADERWORKERSETS, NS, "di")["spec"]["replicas"], 1)
        self.step()
        pods = self.pods()
        self.assertEqual(sorted(pods), ["di-0", "di-0-1"])
        self.assertEqual(pods["di-0"]["metadata"]["uid"], leader_uid, "group 0 is kept")
        self.assertEqual(self.entry(wid)["requestedPods"], {"number": 2})
        self.c.call("PATCH", "%s/%s" % (PATH, wid), {"spec": {"replicas": 3}})
        self.step(3)
        self.assertEqual(sorted(self.pods()),
                         ["di-0", "di-0-1", "di-1", "di-1-1", "di-2", "di-2-1"])
        self.assertEqual(self.entry(wid)["runningPods"], 6)
        # to none: the set stays, with nothing to wait for
        self.c.call("PATCH", "%s/%s" % (PATH, wid), {"spec": {"replicas": 0}})
        self.step()
        self.assertEqual(self.pods(), {})
        self.assertEqual(self.entry(wid)["phase"], "Running")
        status, _ = self.c.call("DELETE", "%s/%s" % (PATH, wid))
        self.assertEqual(status, 202)
        self.assertIsNone(self.sim.store.get(LEADERWORKERSETS, NS, "di"))
        self.assertIsNone(self.sim.store.get(SERVICES, NS, "di"))
        self.assertIsNone(self.sim.store.get(SERVICES, NS, "di-serving"))
        self.assertEqual(self.c.call("GET", "/api/v1/workloads")[1]["workloads"], [])
        self.assertEqual([w["name"] for w in self.c.call(
            "GET", "/api/v1/workloads?deleted=true")[1]["workloads"]], ["di"])
        self.assertEqual(self.c.call("GET", "%s/%s" % (PATH, wid))[0], 404)
        self.assertEqual(self.violations(), [])

    def test_delete_takes_running_pods(self):
        _, made = self.submit()
        self.step(3)
        self.assertEqual(len(self.pods()), 4)
        self.assertEqual(self.c.call("DELETE", "%s/%s" % (PATH, made["workloadId"]))[0], 202)
        self.assertEqual(self.pods(), {})
        self.step()
        self.assertEqual(self.pods(), {})

    def test_leader_ready_startup_and_no_workers(self):
        _, made = self.submit(replicas=1, workers=2, startupPolicy="LeaderReady")
        self.step()
        self.assertEqual(sorted(self.pods()), ["di-0"])
        self.step(3)
        self.assertEqual(sorted(self.pods()), ["di-0", "di-0-1", "di-0-2"])
        _, made = self.submit("solo", replicas=None, workers=None, worker=None)
        self.assertEqual((made["spec"]["replicas"], made["spec"]["workers"]), (1, 0))
        self.step(2)
        self.assertEqual(list(self.pods("solo")), ["solo-0"])
        wl = self.entry(made["workloadId"])
        self.assertEqual((wl["images"], wl["requestedPods"]), (["vllm/leader"], {"number": 1}))
        self.assertEqual(self.violations(), [])

    def test_a_failed_pod_recreates_its_group_or_alone(self):
        self.submit()
        self.submit("alone", restartPolicy="None")
        self.step(3)
        before = {n: p["metadata"]["uid"] for n, p in self.pods().items()}
        self.ctl.force_phase({"namespace": NS, "pod": "di-0-1", "phase": "Failed"})
        self.step(3)
        after = {n: p["metadata"]["uid"] for n, p in self.pods().items()}
        self.assertEqual(sorted(after), sorted(before))
        self.assertNotEqual(after["di-0"], before["di-0"], "the whole group is made again")
        self.assertNotEqual(after["di-0-1"], before["di-0-1"])
        self.assertEqual((after["di-1"], after["di-1-1"]), (before["di-1"], before["di-1-1"]))
        before = {n: p["metadata"]["uid"] for n, p in self.pods("alone").items()}
        self.ctl.force_phase({"namespace": NS, "pod": "alone-0-1", "phase": "Failed"})
        self.step(3)
        after = {n: p["metadata"]["uid"] for n, p in self.pods("alone").items()}
        self.assertEqual(after["alone-0"], before["alone-0"])
        self.assertNotEqual(after["alone-0-1"], before["alone-0-1"])
        self.assertEqual({phase_of(p) for p in self.pods("alone").values()}, {"Running"})

    def test_the_judge_and_the_api_refuse_bad_bodies(self):
        for spec, said in (({"startupPolicy": "Sometimes"}, "spec/startupPolicy"),
                           ({"workers": -1}, "spec/workers"),
                           ({"leader": member("x", 1, shell="bash")}, "spec/leader")):
            status, body = self.submit(**spec)
            self.assertEqual(status, 400, spec)
            self.assertIn(said, body["message"])
        self.assertEqual(len(self.violations()), 3)
        for spec, said in (({"leader": {"command": "x"}}, "spec.leader.image is required"),
                           ({"worker": None}, "spec.worker.image is required when spec.workers is "
                            "above 0"),
                           ({"servingPort": {"protocol": "http"}},
                            "spec.servingPort.port is required"),
                           ({"leader": member("x", 8)}, "the workload does not comply with "
                            "the policy: leader.compute.gpuDevicesRequest: value must be no "
                            "greater than 4")):
            status, body = self.submit(**spec)
            self.assertEqual((status, body["message"]), (400, said))
        self.assertIsNone(self.sim.store.get(LEADERWORKERSETS, NS, "di"))
        self.assertEqual(self.c.call("GET", "/api/v1/workloads")[1]["workloads"], [])
        self.assertEqual(len(self.violations()), 3)

    def test_another_types_path_does_not_find_it(self):
        _, made = self.submit()
        wid = made["workloadId"]
        self.assertEqual(self.c.call("GET", "/api/v1/workloads/inferences/" + wid)[0], 404)
        self.assertEqual(self.c.call("POST", "%s/%s/suspend" % (PATH, wid))[0], 404)
        _, other = self.c.call("POST", "/api/v1/workloads/inferences", {
            "name": "inf", "projectId": "1", "clusterId": self.cluster,
            "spec": {"image": "vllm"}})
        self.assertEqual(self.c.call("GET", "%s/%s" % (PATH, other["workloadId"]))[0], 404)


class DistributedInferenceOlder:
    def test_the_paths_answer_404(self):
        status, body = self.submit()
        self.assertEqual((status, body["code"]), (404, 404))
        wid = "0f0e0d0c-0000-4000-8000-000000000000"
        for method, body in (("GET", None), ("DELETE", None),
                             ("PATCH", {"spec": {"replicas": 1}})):
            self.assertEqual(self.c.call(method, "%s/%s" % (PATH, wid), body)[0], 404)
        # a server that only records does not act on them either
        self.cp.settings({"validate": False})
        self.assertEqual(self.submit()[0], 404)
        self.assertIsNone(self.sim.store.get(LEADERWORKERSETS, NS, "di"))
        self.assertEqual(self.c.call("GET", "/api/v1/workloads")[1]["workloads"], [])


class DistributedInference218(DistributedInferenceOlder, Case):
    VERSION = "2.18"


class DistributedInference221(DistributedInferenceOlder, Case):
    VERSION = "2.21"


def a_set(name="s", replicas=2, size=3, **spec):
    tmpl = {"metadata": {"labels": {"app": "x"}},
            "spec": {"containers": [{"name": "c", "image": "worker"}]}}
    lead = {"metadata": {}, "spec": {"containers": [{"name": "c", "image": "leader"}]}}
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": name, "namespace": NS, "uid": "1234567890ab"},
            "spec": dict({"replicas": replicas, "leaderWorkerTemplate": {
                "size": size, "leaderTemplate": lead, "workerTemplate": tmpl}}, **spec)}


class Kind(unittest.TestCase):
    def test_names_labels_and_env_of_each_member(self):
        s = a_set()
        self.assertEqual([n for _, _, n in lws.members(s)],
                         ["s-0", "s-0-1", "s-0-2", "s-1", "s-1-1", "s-1-2"])
        leader, worker = lws.build_pod(s, 1, 0, "team-a"), lws.build_pod(s, 1, 2)
        self.assertEqual((leader["metadata"]["name"], worker["metadata"]["name"]),
                         ("s-1", "s-1-2"))
        self.assertEqual((leader["spec"]["containers"][0]["image"],
                          worker["spec"]["containers"][0]["image"]), ("leader", "worker"))
        labels = worker["metadata"]["labels"]
        self.assertEqual((labels["app"], labels[lws.SET_NAME], labels[lws.GROUP_INDEX],
                          labels[lws.WORKER_INDEX]), ("x", "s", "1", "2"))
        self.assertEqual(labels[lws.GROUP_KEY], leader["metadata"]["labels"][lws.GROUP_KEY])
        self.assertNotEqual(labels[lws.GROUP_KEY],
                            lws.build_pod(s, 0, 2)["metadata"]["labels"][lws.GROUP_KEY])
        self.assertEqual(leader["metadata"]["labels"]["project"], "team-a")
        self.assertEqual((worker["metadata"]["annotations"][lws.LEADER_NAME],
                          worker["metadata"]["annotations"][lws.SIZE]), ("s-1", "3"))
        env = {e["name"]: e["value"] for e in worker["spec"]["containers"][0]["env"]}
        self.assertEqual(env, {"LWS_LEADER_ADDRESS": "s-1.s.%s" % NS, "LWS_GROUP_SIZE": "3",
                               "LWS_WORKER_INDEX": "2"})
        self.assertEqual((worker["spec"]["hostname"], worker["spec"]["subdomain"],
                          worker["spec"]["restartPolicy"]), ("s-1-2", "s", "Always"))
        self.assertEqual(worker["metadata"]["ownerReferences"][0]["kind"], "LeaderWorkerSet")

    def test_no_leader_template_means_the_workers(self):
        s = a_set(size=1)
        del s["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
        self.assertEqual(lws.build_pod(s, 0, 0)["spec"]["containers"][0]["image"], "worker")
        self.assertEqual([n for _, _, n in lws.members(s)], ["s-0", "s-1"])

    def test_served_and_discovered(self):
        sim = FakeSim(None)
        res = sim.store.registry.get(*LEADERWORKERSETS)
        self.assertEqual((res.kind, res.namespaced, res.short_names),
                         ("LeaderWorkerSet", True, ["lws"]))
        listed = discovery.resource_list(sim.store.registry, "leaderworkerset.x-k8s.io", "v1")
        self.assertIn("leaderworkersets", [r["name"] for r in listed["resources"]])


if __name__ == "__main__":
    unittest.main()
