"""The GPU load model (gpuload.py), the devices and shares pods hold as
read from the store (gpuview.py), and the Prometheus series computed from
them (prometheus.py): one model, so nvidia-smi and `runai top` agree."""

import types
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import demo, gpuload, gpuview, nvsmi, prometheus
from kubesim.objutil import NAMESPACES, NODES, PODS
from kubesim.resources import Registry
from kubesim.store import Store


class Assign(unittest.TestCase):
    def test_fractions_keep_the_scheduler_index_and_wholes_take_free_devices(self):
        pods = [("a", 2, 0, None, "1"), ("f", 0, 0.5, 0, "2"), ("b", 1, 0, None, "0")]
        got = gpuload.assign(4, pods)
        self.assertEqual(got["f"], [(0, 0.5)])
        self.assertEqual(got["b"], [(1, 1.0)])      # older first, lowest free device
        self.assertEqual(got["a"], [(2, 1.0), (3, 1.0)])

    def test_unindexed_fractions_pack_onto_a_shared_device(self):
        got = gpuload.assign(2, [("x", 0, 0.5, None, "1"), ("y", 0, 0.25, None, "2"),
                                 ("z", 0, 0.5, None, "3")])
        self.assertEqual(got["x"], [(0, 0.5)])
        self.assertEqual(got["y"], [(0, 0.25)])
        self.assertEqual(got["z"], [(1, 0.5)])

    def test_no_free_device_means_no_device(self):
        got = gpuload.assign(1, [("a", 1, 0, None, "1"), ("b", 1, 0, None, "2")])
        self.assertEqual(got, {"a": [(0, 1.0)]})


class Load(unittest.TestCase):
    def test_is_a_pure_function_of_seed_kind_start_and_time(self):
        self.assertEqual(gpuload.pod_load("s", "train", 100.0, 500.0),
                         gpuload.pod_load("s", "train", 100.0, 500.0))
        times = range(100, 400, 7)
        self.assertNotEqual([gpuload.pod_load("s", "train", 0.0, t)[0] for t in times],
                            [gpuload.pod_load("t", "train", 0.0, t)[0] for t in times])

    def test_starts_idle_and_ramps_up(self):
        util, mem = gpuload.pod_load("s", "train", 1000.0, 1000.0)
        self.assertEqual(util, 0)
        later, mem_later = gpuload.pod_load("s", "train", 1000.0,
                                            1000.0 + 2 * gpuload.RAMP_SECONDS)
        self.assertGreater(later, 50)
        self.assertGreater(mem_later, mem)

    def test_bounds_and_training_runs_hotter_than_interactive(self):
        train = [gpuload.pod_load(str(i), "train", 0.0, 1e3 + i)[0] for i in range(200)]
        inter = [gpuload.pod_load(str(i), "interactive", 0.0, 1e3 + i)[0] for i in range(200)]
        for u in train + inter:
            self.assertTrue(0 <= u <= 100, u)
        self.assertGreater(sum(train) / 200.0, 60)
        self.assertLess(sum(inter) / 200.0, sum(train) / 200.0)
        for i in range(50):
            mem = gpuload.pod_load(str(i), "train", 0.0, 5000.0)[1]
            self.assertTrue(0 < mem < 1, mem)

    def test_products_and_device_names(self):
        self.assertEqual(gpuload.product("NVIDIA-A100-SXM4-80GB")[:2],
                         ("NVIDIA A100-SXM4-80GB", 81920))
        self.assertEqual(gpuload.product("NVIDIA-H100-80GB-HBM3")[:2],
                         ("NVIDIA H100 80GB HBM3", 81559))
        self.assertEqual(gpuload.product("NVIDIA-A100-SXM4-80GB", 40960)[1], 40960)
        uuid = gpuload.device_uuid("node-1", 3)
        self.assertRegex(uuid, r"^GPU-[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$")
        self.assertEqual(uuid, gpuload.device_uuid("node-1", 3))
        self.assertNotEqual(uuid, gpuload.device_uuid("node-2", 3))


def _cluster():
    """A store with the demo's node-1 (8 A100 80GB), a 0.5 pod on GPU 0
    and a 2-GPU training pod, both Running for a minute."""
    store = Store(Registry())
    store.put(NODES, None, demo.node("node-1", "10.0.0.11"))
    store.put(NAMESPACES, None, demo.namespace("ns"))
    start = "2026-01-01T00:00:00Z"
    for name, gpus, ann, owner in (("half", None, {"gpu-fraction": "0.5", "runai-gpu": "0"},
                                    "u-half"),
                                   ("two", "2", {}, "u-two")):
        res = {"limits": {"nvidia.com/gpu": gpus}} if gpus else {}
        store.put(PODS, "ns", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": "pod-" + name,
                         "annotations": ann,
                         "ownerReferences": [{"controller": True, "uid": owner,
                                              "kind": "RunaiJob", "name": name,
                                              "apiVersion": "run.ai/v1"}]},
            "spec": {"nodeName": "node-1",
                     "containers": [{"name": "main", "image": "x", "resources": res}]},
            "status": {"phase": "Running", "startTime": start}})
    return store


class View(unittest.TestCase):
    def test_a_half_gpu_pod_on_an_80gb_a100_sees_40960_mib(self):
        store = _cluster()
        spec = gpuview.pod_spec(store, store.get(PODS, "ns", "half"), now=1767225660.0)
        self.assertEqual(len(spec["gpus"]), 1)
        g = spec["gpus"][0]
        self.assertEqual((g["index"], g["share"], g["name"]), (0, 0.5, "NVIDIA A100-SXM4-80GB"))
        rows = nvsmi.query_rows(spec["gpus"], ["memory.total"], 1767225660.0,
                                header=False, units=False)
        self.assertEqual(rows, ["40960"])

    def test_whole_gpus_avoid_the_shared_device(self):
        store = _cluster()
        spec = gpuview.pod_spec(store, store.get(PODS, "ns", "two"), now=1767225660.0)
        self.assertEqual([(g["index"], g["share"]) for g in spec["gpus"]], [(1, 1.0), (2, 1.0)])

    def test_prometheus_and_nvidia_smi_read_the_same_numbers(self):
        store = _cluster()
        sim = types.SimpleNamespace(store=store, started=0.0)
        now = 1767225660.0
        orig = prometheus.time.time
        prometheus.time.time = lambda: now
        try:
            util = {l["gpu"]: v for l, v in
                    prometheus._computed(sim, "runai_node_gpu_utilization")}
            used = {l["gpu"]: v for l, v in
                    prometheus._computed(sim, "runai_node_gpu_used_memory")}
            total = {l["gpu"]: v for l, v in
                     prometheus._computed(sim, "runai_node_gpu_total_memory")}
            alloc = {l["pod_group_uuid"]: v for l, v in
                     prometheus._computed(sim, "runai_pod_group_gpu_memory_allocated_bytes")}
            group_util = {l["pod_group_uuid"]: v for l, v in
                          prometheus._computed(sim, "runai_pod_group_gpu_utilization")}
        finally:
            prometheus.time.time = orig
        self.assertEqual(len(util), 8)
        self.assertEqual(total["0"], 81920 * 2 ** 20)
        self.assertEqual(util["7"], 0)
        self.assertEqual(alloc, {"u-half": 0.5 * 81920 * 2 ** 20, "u-two": 2 * 81920 * 2 ** 20})
        two = gpuview.pod_spec(store, store.get(PODS, "ns", "two"), now=now)["gpus"][0]
        smi = nvsmi.sample(two, now)
        self.assertEqual(float(smi["utilization.gpu"]), util["1"])
        self.assertEqual(float(smi["utilization.gpu"]), group_util["u-two"])
        self.assertAlmostEqual(int(smi["memory.used"]), used["1"] / 2 ** 20, delta=1)
        half = gpuview.pod_spec(store, store.get(PODS, "ns", "half"), now=now)["gpus"][0]
        self.assertAlmostEqual(float(nvsmi.sample(half, now)["utilization.gpu"]) * 0.5,
                               util["0"], delta=0.01)


if __name__ == "__main__":
    unittest.main()
