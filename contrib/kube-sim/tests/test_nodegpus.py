"""A whole emulated node's nvidia-smi (nvsmi.py over gpuview.node_spec)
and the files kube-sim keeps for it (nodegpus.py): the node sees every
device at full size with its tenants' load added up, lists one process
per tenant in the shapes a real driver prints (captures in
tests/fixtures/nvidia-smi/real/h200), and agrees with Prometheus."""

import io
import json
import os
import re
import shutil
import tempfile
import types
import unittest

import support
from kubesim import gpuview, nodegpus, nvsmi, prometheus
from kubesim.objutil import PODS
from test_gpuload import _cluster

NOW = 1767225660.0
REAL = os.path.join(os.path.dirname(os.path.dirname(support.KUBESIM_ROOT)),
                    "tests", "fixtures", "nvidia-smi", "real", "h200")


def real(name):
    with open(os.path.join(REAL, name)) as f:
        return f.read()


def run(argv, spec):
    out = io.StringIO()
    rc = nvsmi.main(argv, spec, out=out, clock=lambda: NOW)
    return rc, out.getvalue()


class NodeView(unittest.TestCase):
    def setUp(self):
        self.store = _cluster()
        self.spec = gpuview.node_spec(self.store, "node-1", now=NOW)

    def test_every_device_at_full_size_with_its_tenants(self):
        gpus = self.spec["gpus"]
        self.assertEqual(len(gpus), 8)
        self.assertEqual([len(g["tenants"]) for g in gpus], [1, 1, 1, 0, 0, 0, 0, 0])
        self.assertEqual(gpus[0]["tenants"][0]["pod"], "ns/half")
        self.assertEqual(gpus[0]["tenants"][0]["share"], 0.5)
        rc, out = run(["--query-gpu=index,memory.total,memory.used,utilization.gpu",
                       "--format=csv,noheader,nounits"], self.spec)
        self.assertEqual(rc, 0)
        rows = [line.split(", ") for line in out.splitlines()]
        self.assertEqual({r[1] for r in rows}, {"81920"})
        self.assertEqual([r[2] for r in rows[3:]], ["0"] * 5)
        self.assertTrue(all(int(r[2]) > 0 for r in rows[:3]))

    def test_a_shared_device_adds_its_tenants_time_slices_and_memory(self):
        gpu = self.spec["gpus"][0]
        second = dict(gpu["tenants"][0], seed="other", pid=4242, pod="ns/other")
        gpu["tenants"].append(second)
        parts = [nvsmi.tenant_use(gpu, t, NOW) for t in gpu["tenants"]]
        total, util, used = nvsmi.use(gpu, NOW)
        self.assertEqual(total, 81920)
        self.assertEqual(used, parts[0][1] + parts[1][1])
        self.assertEqual(util, min(100, round(parts[0][0] + parts[1][0])))

    def test_agrees_with_prometheus(self):
        sim = types.SimpleNamespace(store=self.store, started=0.0)
        orig = prometheus.time.time
        prometheus.time.time = lambda: NOW
        try:
            util = {l["gpu"]: v for l, v in prometheus._computed(sim, "runai_node_gpu_utilization")}
            used = {l["gpu"]: v for l, v in
                    prometheus._computed(sim, "runai_node_gpu_used_memory")}
        finally:
            prometheus.time.time = orig
        for g in self.spec["gpus"]:
            s = nvsmi.sample(g, NOW)
            self.assertAlmostEqual(int(s["utilization.gpu"]), util[str(g["index"])], delta=0.5)
            self.assertAlmostEqual(int(s["memory.used"]), used[str(g["index"])] / 2 ** 20,
                                   delta=1)

    def test_compute_apps_in_the_real_shapes(self):
        rc, out = run(["--query-compute-apps=gpu_uuid,pid,used_memory,process_name",
                       "--format=csv"], self.spec)
        self.assertEqual(rc, 0)
        header = real("apps-header.out").splitlines()[0]
        lines = out.splitlines()
        self.assertEqual(lines[0], header)
        row = r"^GPU-[0-9a-f-]{36}, \d+, \d+ MiB, python3$"
        self.assertRegex(real("apps-header.out").splitlines()[1], row)
        self.assertEqual(len(lines), 1 + 3)     # half on 0, two on 1 and 2: a row a device
        for line in lines[1:]:
            self.assertRegex(line, row)
        rc, out = run(["--query-compute-apps=gpu_uuid,pid,used_memory,process_name",
                       "--format=csv,noheader,nounits"], self.spec)
        self.assertRegex(real("apps-busy.out"), r"^GPU-[0-9a-f-]{36}, \d+, \d+, python3\n$")
        pids = {line.split(", ")[1] for line in out.splitlines()}
        want = {str(t["pid"]) for g in self.spec["gpus"] for t in g["tenants"]}
        self.assertEqual(pids, want)

    def test_compute_apps_of_an_idle_node_and_a_bad_field(self):
        idle = {"gpus": [dict(g, tenants=[]) for g in self.spec["gpus"]]}
        rc, out = run(["--query-compute-apps=gpu_uuid,pid,used_memory,process_name",
                       "--format=csv,noheader,nounits"], idle)
        self.assertEqual((rc, out), (0, real("apps-idle.out")))
        rc, out = run(["--query-compute-apps=gpu_uuid,pid,no.such", "--format=csv"], self.spec)
        self.assertEqual((str(rc), out), (real("apps-bad.rc").strip(), real("apps-bad.out")))

    def test_the_table_lists_the_processes_as_the_real_one(self):
        busy = real("table-busy.out").splitlines()
        line = next(l for l in busy if re.match(r"^\|\s+0\s+N/A", l))
        shape = r"^\|\s+\d+   N/A  N/A\s+\d+      C   \S+\s+\d+MiB \|$"
        self.assertRegex(line, shape)
        rc, out = run([], self.spec)
        procs = [l for l in out.splitlines() if re.match(r"^\|\s+\d+\s+N/A", l)]
        self.assertEqual(len(procs), 3)
        for p in procs:     # the same columns: GPU, PID and type end, name starts
            self.assertRegex(p, shape)
            self.assertEqual([len(p), p.index("N/A"), p.index(" C ")],
                             [len(line), line.index("N/A"), line.index(" C ")])
        rc, out = run([], {"gpus": [dict(g, tenants=[]) for g in self.spec["gpus"]]})
        idle_line = [l for l in real("table-idle.out").splitlines() if "No running" in l]
        self.assertIn(idle_line[0], out.splitlines())

    def test_a_loop_reads_the_node_again_for_every_report(self):
        specs = [{"gpus": [dict(g, tenants=[]) for g in self.spec["gpus"]]}, self.spec]
        out = io.StringIO()
        rc = nvsmi.main(["--query-gpu=index,memory.used", "--format=csv,noheader,nounits",
                         "-lms", "10"], lambda: specs.pop(0) if len(specs) > 1 else specs[0],
                        out=out, clock=lambda: NOW, sleep=lambda s: None, max_loops=2)
        self.assertEqual(rc, 0)
        rows = out.getvalue().splitlines()
        self.assertEqual(rows[0], "0, 0")
        self.assertNotEqual(rows[8], "0, 0")


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_cgroup_lines_in_the_systemd_shapes_per_qos_class(self):
        uid, cid = "0c8769d1-6417-44fa-8269-c1b7bc07e9af", "ab" * 32
        self.assertEqual(nodegpus.cgroup_line(uid, cid, "Burstable"),
                         "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                         "0c8769d1_6417_44fa_8269_c1b7bc07e9af.slice/cri-containerd-%s.scope\n"
                         % cid)
        self.assertIn("/kubepods-besteffort.slice/kubepods-besteffort-pod0c8769d1_",
                      nodegpus.cgroup_line(uid, cid, "BestEffort"))
        self.assertTrue(nodegpus.cgroup_line(uid, cid, "Guaranteed").startswith(
            "0::/kubepods.slice/kubepods-pod0c8769d1_6417_44fa_8269_c1b7bc07e9af.slice/"))

    def test_the_node_files_follow_the_pods(self):
        store = _cluster()
        files = nodegpus.NodeGpuFiles(self.dir, store)
        files.write(NOW)
        top = os.path.join(self.dir, "nodes", "node-1")
        with open(os.path.join(top, "gpus.json")) as f:
            self.assertEqual(json.load(f), gpuview.node_spec(store, "node-1", now=NOW))
        half = gpuview.tenant(store.get(PODS, "ns", "half"), 0.5, NOW)
        with open(os.path.join(top, "proc", str(half["pid"]), "cgroup")) as f:
            self.assertIn("-podpod_half.slice/", f.read())
        self.assertEqual(sorted(os.listdir(os.path.join(top, "proc"))),
                         sorted([str(half["pid"]), str(gpuview.tenant(
                             store.get(PODS, "ns", "two"), 1, NOW)["pid"]), "driver"]))
        with open(os.path.join(top, "proc", "driver", "nvidia", "version")) as f:
            self.assertRegex(f.read(), r"^NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                       r"580\.159\.04  ")
        store.delete(PODS, "ns", "two")
        files.write(NOW)
        self.assertEqual(sorted(os.listdir(os.path.join(top, "proc"))),
                         sorted([str(half["pid"]), "driver"]))
        with open(os.path.join(top, "gpus.json")) as f:
            self.assertEqual([len(g["tenants"]) for g in json.load(f)["gpus"]],
                             [1, 0, 0, 0, 0, 0, 0, 0])

    def test_without_a_state_directory_nothing_is_written(self):
        nodegpus.NodeGpuFiles(None, _cluster()).write(NOW)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    unittest.main()
