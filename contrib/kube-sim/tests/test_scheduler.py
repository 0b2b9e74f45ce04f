"""The runtime's pure decisions, called without a server: GPU requests
(gpus.py), taints and tolerations (taints.py), node fit and placement
(placement.py, through scheduler.py), and the volume check the scheduler
asks (volumes.py). Fair share, gangs and quota: test_fairshare.py."""

import unittest

import support  # noqa: F401  (sys.path)
from kubesim import gpus, scheduler, taints, volumes
from kubesim.cluster import World
from kubesim.objutil import CLAIMS, NAMESPACES, NODES, PODS, PROJECTS, RUNAIJOBS


def node(name, gpu_count=8, ready=True, taints_=None, labels=None, memory_mib=None,
         unschedulable=False):
    labels = dict(labels or {})
    if memory_mib is not None:
        labels[gpus.GPU_MEMORY_LABEL] = str(memory_mib)
    return {"metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints_ or [], "unschedulable": unschedulable},
            "status": {"allocatable": {gpus.GPU: str(gpu_count)},
                       "conditions": [{"type": "Ready",
                                       "status": "True" if ready else "False"}]}}


def pod(name, gpu_count=None, fraction=None, memory_mb=None, node_name=None, phase="Pending",
        ns="runai-team-a", tolerations=None, selector=None, gpu_index=None, claims=(),
        owner=None):
    ann = {}
    if fraction is not None:
        ann["gpu-fraction"] = str(fraction)
    if memory_mb is not None:
        ann["gpu-memory"] = str(memory_mb)
    if gpu_index is not None:
        ann["runai-gpu"] = str(gpu_index)
    container = {"name": "c"}
    if gpu_count is not None:
        container["resources"] = {"limits": {gpus.GPU: str(gpu_count)}}
    spec = {"containers": [container], "tolerations": tolerations or [],
            "nodeSelector": selector or {},
            "volumes": [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]}
    if node_name:
        spec["nodeName"] = node_name
    meta = {"name": name, "namespace": ns, "uid": "uid-" + name, "annotations": ann}
    if owner:
        meta["ownerReferences"] = [{"uid": owner, "controller": True}]
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}


class FakeStore:
    """Just what World reads: select(gvr)."""

    def __init__(self, **objects):
        self.objects = objects

    def select(self, gvr):
        names = {PODS: "pods", NODES: "nodes", NAMESPACES: "namespaces",
                 PROJECTS: "projects", CLAIMS: "claims", RUNAIJOBS: "workloads"}
        return self.objects.get(names.get(gvr), [])


def world(**objects):
    objects.setdefault("namespaces", [{"metadata": {"name": "runai-team-a",
                                                    "labels": {"runai/queue": "team-a"}}}])
    return World(FakeStore(**objects))


class GpuRequests(unittest.TestCase):
    def test_whole_gpus_from_limits_or_requests(self):
        self.assertEqual(gpus.gpu_request(pod("p", gpu_count=2)), (2.0, 0.0))
        p = pod("p")
        p["spec"]["containers"] = [{"resources": {"requests": {gpus.GPU: "1"}}},
                                   {"resources": {"limits": {gpus.GPU: 3}}}]
        self.assertEqual(gpus.gpu_request(p), (4.0, 0.0))
        self.assertEqual(gpus.gpu_request(pod("p")), (0.0, 0.0))

    def test_fraction_wins_over_whole_gpus(self):
        self.assertEqual(gpus.gpu_request(pod("p", gpu_count=2, fraction=0.5)), (0.0, 0.5))
        # a "fraction" of one or more is whole GPUs
        self.assertEqual(gpus.gpu_request(pod("p", fraction=2)), (2.0, 0.0))
        self.assertEqual(gpus.gpu_request(pod("p", gpu_count=3, fraction=2)), (3.0, 0.0))

    def test_memory_is_a_share_of_the_gpu(self):
        self.assertEqual(gpus.gpu_request(pod("p", memory_mb=40960)), (0.0, 0.5))
        self.assertEqual(gpus.gpu_request(pod("p", memory_mb=20480), 40960), (0.0, 0.5))
        self.assertEqual(gpus.pod_gpus(pod("p", memory_mb=163840)), 2.0)
        self.assertIsNone(gpus.gpu_memory_request(pod("p", memory_mb="lots")))
        self.assertIsNone(gpus.gpu_memory_request(pod("p", memory_mb=0)))

    def test_node_gpu_memory(self):
        self.assertEqual(gpus.node_gpu_memory(node("n", memory_mib=40960)), 40960.0)
        self.assertEqual(gpus.node_gpu_memory(node("n")), 81920.0)
        self.assertEqual(gpus.node_gpu_memory(None), 81920.0)

    def test_fmt_gpus(self):
        self.assertEqual([gpus.fmt_gpus(x) for x in (2, 0.5, 1.25, 1 / 3, 0)],
                         ["2", "0.5", "1.25", "0.3333", "0"])


class Tolerations(unittest.TestCase):
    TAINT = {"key": "gpu", "value": "busy", "effect": "NoSchedule"}

    def test_tolerates(self):
        cases = [
            ({"key": "gpu", "operator": "Equal", "value": "busy"}, True),
            ({"key": "gpu", "value": "busy", "effect": "NoSchedule"}, True),
            ({"key": "gpu", "value": "idle"}, False),
            ({"key": "gpu", "operator": "Exists"}, True),
            ({"operator": "Exists"}, True),                       # empty key: every taint
            ({"operator": "Exists", "effect": "NoExecute"}, False),
            ({"key": "other", "operator": "Exists"}, False),
            ({"key": "gpu", "operator": "Bogus"}, False),
        ]
        for tol, expected in cases:
            with self.subTest(tol=tol):
                self.assertIs(taints.tolerates(tol, self.TAINT), expected)

    def test_untolerated_returns_the_first_untolerated_taint(self):
        no_exec = {"key": "x", "effect": "NoExecute"}
        p = pod("p", tolerations=[{"key": "gpu", "operator": "Exists"}])
        self.assertIs(taints.untolerated(p, [self.TAINT, no_exec], ("NoExecute",)), no_exec)
        self.assertIsNone(taints.untolerated(p, [self.TAINT], ("NoSchedule",)))
        self.assertIsNone(taints.untolerated(p, [{"key": "y", "effect": "PreferNoSchedule"}],
                                             ("NoSchedule", "NoExecute")))

    def test_toleration_seconds(self):
        t1 = {"key": "a", "effect": "NoExecute"}
        t2 = {"key": "b", "effect": "NoExecute"}
        forever = {"key": "a", "operator": "Exists"}
        self.assertEqual(taints.toleration_seconds(pod("p"), [t1]), 0)
        self.assertIsNone(taints.toleration_seconds(pod("p", tolerations=[forever]), [t1]))
        timed = pod("p", tolerations=[{"key": "a", "operator": "Exists", "tolerationSeconds": 30},
                                      {"key": "b", "operator": "Exists", "tolerationSeconds": 10}])
        self.assertEqual(taints.toleration_seconds(timed, [t1, t2]), 10)
        self.assertEqual(taints.toleration_seconds(timed, [t1]), 30)
        negative = pod("p", tolerations=[{"operator": "Exists", "tolerationSeconds": -5}])
        self.assertEqual(taints.toleration_seconds(negative, [t1]), 0)
        # NoSchedule taints do not evict
        self.assertIsNone(taints.toleration_seconds(pod("p"), [{"key": "c",
                                                                 "effect": "NoSchedule"}]))


class NodeFit(unittest.TestCase):
    def test_reasons_in_kubes_words(self):
        cases = [
            (node("n", unschedulable=True), pod("p"), "node(s) were unschedulable"),
            (node("n", ready=False), pod("p"), "node(s) were not ready"),
            (node("n", taints_=[{"key": "k", "value": "v", "effect": "NoSchedule"}]), pod("p"),
             "node(s) had untolerated taint {k: v}"),
            (node("n"), pod("p", selector={"zone": "a"}),
             "node(s) didn't match Pod's node affinity/selector"),
            (node("n", memory_mib=40960), pod("p", memory_mb=50000),
             "node(s) had GPUs with less memory than the 50000 MB requested (gpu-memory)"),
            (node("n", gpu_count=1), pod("p", gpu_count=2), "Insufficient nvidia.com/gpu"),
        ]
        for n, p, why in cases:
            with self.subTest(why=why):
                whole, frac = gpus.gpu_request(p, gpus.node_gpu_memory(n))
                self.assertEqual(scheduler.NodeState(n).why_not(p, whole, frac), why)

    def test_fits(self):
        st = scheduler.NodeState(node("n", labels={"zone": "a"}))
        self.assertIsNone(st.why_not(pod("p", selector={"zone": "a"}), 8, 0))
        tolerated = pod("p", tolerations=[{"operator": "Exists"}])
        tainted = scheduler.NodeState(node("n", taints_=[{"key": "k", "effect": "NoExecute"}]))
        self.assertIsNone(tainted.why_not(tolerated, 1, 0))

    def test_fraction_slots_pack_the_fullest_gpu_first(self):
        st = scheduler.NodeState(node("n", gpu_count=2))
        self.assertEqual(st.take(0, 0.5), 0)
        self.assertEqual(st.take(0, 0.25, 1), 1)
        self.assertEqual(st.shared_slot(0.25), 0)       # 0.5 used beats 0.25 used
        self.assertEqual(st.shared_slot(0.5), 0)
        self.assertEqual(st.shared_slot(0.8), None)
        self.assertIsNone(st.new_slot())                # both GPUs are shared now
        self.assertEqual(st.free_whole(), 0)
        self.assertEqual(st.why_not(pod("p"), 0, 0.8), "Insufficient nvidia.com/gpu")

    def test_copy_is_independent(self):
        st = scheduler.NodeState(node("n", gpu_count=2))
        trial = st.copy()
        trial.take(1, 0)
        trial.take(0, 0.5)
        self.assertEqual((st.whole, st.shared), (0.0, {}))
        self.assertEqual((trial.whole, trial.shared), (1.0, {0: 0.5}))  # whole GPUs have no index


class Placement(unittest.TestCase):
    def test_fraction_joins_a_shared_gpu_on_any_node_first(self):
        w = world(nodes=[node("node-1"), node("node-2")],
                  pods=[pod("a", fraction=0.5, node_name="node-2", gpu_index=3,
                            phase="Running")])
        states = scheduler.node_states(w)
        self.assertEqual(states["node-2"].shared, {3: 0.5})
        self.assertEqual(scheduler.place(pod("b", fraction=0.5), states),
                         ("node-2", 3, None))
        self.assertEqual(scheduler.place(pod("c", fraction=0.5), states),
                         ("node-1", 0, None))

    def test_whole_gpus_go_to_the_first_node_with_room(self):
        w = world(nodes=[node("node-1", gpu_count=2), node("node-2", gpu_count=8)],
                  pods=[pod("a", gpu_count=1, node_name="node-1", phase="Running"),
                        pod("done", gpu_count=8, node_name="node-2", phase="Succeeded")])
        states = scheduler.node_states(w)
        self.assertEqual(states["node-1"].whole, 1.0)
        self.assertEqual(states["node-2"].whole, 0.0)   # finished pods hold nothing
        self.assertEqual(scheduler.place(pod("b", gpu_count=2), states), ("node-2", None, None))
        self.assertEqual(states["node-2"].whole, 2.0)

    def test_nowhere_lists_the_reasons_per_node(self):
        states = {"n1": scheduler.NodeState(node("n1", gpu_count=1)),
                  "n2": scheduler.NodeState(node("n2", ready=False)),
                  "n3": scheduler.NodeState(node("n3", gpu_count=1))}
        self.assertEqual(scheduler.place(pod("p", gpu_count=2), states),
                         (None, None, "0/3 nodes are available: 2 Insufficient nvidia.com/gpu, "
                                      "1 node(s) were not ready."))
        self.assertEqual(scheduler.place(pod("p"), {}),
                         (None, None, "0/0 nodes are available: no nodes in the cluster."))

    def test_project_use_counts_bound_unfinished_pods(self):
        w = world(nodes=[node("node-1")],
                  pods=[pod("a", gpu_count=2, node_name="node-1", phase="Running"),
                        pod("b", fraction=0.5, node_name="node-1", gpu_index=0),
                        pod("c", gpu_count=4),                             # not bound
                        pod("d", gpu_count=4, node_name="node-1", phase="Failed"),
                        pod("e", gpu_count=1, node_name="node-1", ns="default")])
        self.assertEqual(scheduler.project_use(w), {"team-a": 2.5})


class ClaimsCheck(unittest.TestCase):
    def claim(self, name, bound=False, cls=None, deleting=False):
        c = {"metadata": {"name": name, "namespace": "runai-team-a"},
             "spec": {"storageClassName": cls} if cls is not None else {}}
        if bound:
            c["spec"]["volumeName"] = "pvc-1"
        if deleting:
            c["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        return c

    def test_claim_names(self):
        p = pod("p", claims=("a", "b"))
        p["spec"]["volumes"].append({"name": "scratch", "emptyDir": {}})
        self.assertEqual(volumes.claim_names(p), ["a", "b"])

    def test_problems_in_the_schedulers_words(self):
        wffc = {"metadata": {"name": "late"}, "volumeBindingMode": "WaitForFirstConsumer"}
        now = {"metadata": {"name": "now"}, "volumeBindingMode": "Immediate"}
        w = world(claims=[self.claim("bound", bound=True), self.claim("waits", cls="late"),
                          self.claim("pending", cls="now"), self.claim("gone", deleting=True)])
        w.classes = {"late": wffc, "now": now}
        cases = [
            (("bound",), None),
            (("bound", "waits"), None),
            (("pending",), "pod has unbound immediate PersistentVolumeClaims"),
            (("nope",), 'persistentvolumeclaim "nope" not found'),
            (("gone",), 'persistentvolumeclaim "gone" is being deleted'),
        ]
        for claims, expected in cases:
            with self.subTest(claims=claims):
                self.assertEqual(volumes.claims_problem(w, pod("p", claims=claims)), expected)


if __name__ == "__main__":
    unittest.main()
