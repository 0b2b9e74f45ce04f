"""The pods' nvidia-smi (nvsmi.py) against captures of a real one
(tests/fixtures/nvidia-smi/real/h100/): the same header, units, messages
and exit statuses, the default table's layout, -L, -i and the -lms loop."""

import io
import os
import re
import unittest

import support
from kubesim import gpuload, nvsmi

REAL = os.path.join(os.path.dirname(os.path.dirname(support.KUBESIM_ROOT)),
                    "tests", "fixtures", "nvidia-smi", "real", "h100")
RNTOP_FIELDS = ("index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,"
                "power.draw,mig.mode.current,name")
NOW = 1767225660.0


def real(name):
    with open(os.path.join(REAL, name)) as f:
        return f.read()


def gpu(product="NVIDIA-H100-80GB-HBM3", share=1.0, index=0, start=NOW - 600):
    name, mib, tdp, idle = gpuload.product(product)
    return {"index": index, "uuid": gpuload.device_uuid("node-1", index),
            "bus_id": gpuload.bus_id(index), "name": name, "memory_mib": mib,
            "share": share, "tdp": tdp, "idle": idle, "seed": "pod-uid", "kind": "train",
            "start": start}


def run(argv, spec, **kw):
    out = io.StringIO()
    rc = nvsmi.main(argv, spec, out=out, clock=kw.pop("clock", lambda: NOW), **kw)
    return rc, out.getvalue()


class Query(unittest.TestCase):
    def test_header_and_units_are_the_real_ones(self):
        rc, out = run(["--query-gpu=" + RNTOP_FIELDS, "--format=csv"], {"gpus": [gpu()]})
        self.assertEqual(rc, 0)
        want = real("query-header.out").splitlines()
        got = out.splitlines()
        self.assertEqual(got[0], want[0])
        shape = r"^0, GPU-[0-9a-f-]{36}, \d+ %, \d+ MiB, 81559 MiB, \d+, \d+\.\d\d W, " \
                r"Disabled, NVIDIA H100 80GB HBM3$"
        self.assertRegex(want[1], shape)   # the pattern fits the real row...
        self.assertRegex(got[1], shape)    # ...and ours

    def test_noheader_nounits_is_rntops_row(self):
        rc, out = run(["--query-gpu=" + RNTOP_FIELDS, "--format=csv,noheader,nounits"],
                      {"gpus": [gpu()]})
        shape = r"^0, GPU-[0-9a-f-]{36}, \d+, \d+, 81559, \d+, \d+\.\d\d, Disabled, " \
                r"NVIDIA H100 80GB HBM3\n$"
        self.assertRegex(real("query-busy.out"), shape)
        self.assertRegex(out, shape)

    def test_a_share_of_a_gpu_shows_that_share_of_its_memory(self):
        spec = {"gpus": [gpu("NVIDIA-A100-SXM4-80GB", share=0.5)]}
        rc, out = run(["--query-gpu=memory.total", "--format=csv,noheader,nounits"], spec)
        self.assertEqual((rc, out), (0, "40960\n"))
        rc, out = run(["--query-gpu=memory.used,memory.total", "--format=csv,noheader,nounits"],
                      spec)
        used, total = [int(x) for x in out.split(", ")]
        self.assertTrue(0 < used < total, out)

    def test_a_bad_field_and_a_missing_gpu_answer_as_the_real_one(self):
        rc, out = run(["--query-gpu=index,no.such.field", "--format=csv,noheader,nounits"],
                      {"gpus": [gpu()]})
        self.assertEqual((rc, out), (int(real("bad-field.rc")), real("bad-field.out")))
        rc, out = run(["-i", "99", "--query-gpu=" + RNTOP_FIELDS,
                       "--format=csv,noheader,nounits"], {"gpus": [gpu()]})
        self.assertEqual((rc, out), (int(real("bad-id.rc")), real("bad-id.out")))

    def test_version_is_the_real_layout(self):
        self.assertEqual(run(["--version"], {"gpus": [gpu()]}), (0, real("version.out")))

    def test_ids_pick_gpus_by_index_or_uuid(self):
        spec = {"gpus": [gpu(index=0), gpu(index=3)]}
        rc, out = run(["-i", spec["gpus"][1]["uuid"], "--query-gpu=uuid",
                       "--format=csv,noheader"], spec)
        self.assertEqual(out, spec["gpus"][1]["uuid"] + "\n")
        rc, out = run(["-i", "0", "--query-gpu=index", "--format=csv,noheader"], spec)
        self.assertEqual(out, "0\n")


class Other(unittest.TestCase):
    def test_list(self):
        spec = {"gpus": [gpu("NVIDIA-A100-SXM4-80GB", index=2), gpu(index=5)]}
        rc, out = run(["-L"], spec)
        self.assertEqual(out, "GPU 0: NVIDIA A100-SXM4-80GB (UUID: %s)\n"
                              "GPU 1: NVIDIA H100 80GB HBM3 (UUID: %s)\n"
                              % (spec["gpus"][0]["uuid"], spec["gpus"][1]["uuid"]))

    def test_default_table_layout(self):
        rc, out = run([], {"gpus": [gpu("NVIDIA-A100-SXM4-80GB", share=0.5)]})
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}       $")
        self.assertEqual(lines[2], "| NVIDIA-SMI 580.159.04             Driver Version: "
                                   "580.159.04     CUDA Version: 13.0     |")
        self.assertEqual(lines[4], "| GPU  Name                 Persistence-M | Bus-Id          "
                                   "Disp.A | Volatile Uncorr. ECC |")
        self.assertEqual(lines[8], "|   0  NVIDIA A100-SXM4-80GB          On  |   "
                                   "00000000:07:00.0 Off |                    0 |")
        self.assertRegex(lines[9], r"^\| N/A +\d+C    P0 +\d+W /  400W \| +\d+MiB /  40960MiB "
                                   r"\| +\d+%      Default \|$")
        for line in lines[1:]:
            if line:
                self.assertEqual(len(line), 91, repr(line))
        self.assertIn("|  No running processes found", out)

    def test_loop_prints_every_interval(self):
        clock = iter([NOW, NOW + 0.5, NOW + 1.0])
        slept = []
        rc, out = run(["--query-gpu=index,memory.total", "--format=csv,noheader,nounits",
                       "-lms", "500"], {"gpus": [gpu()]}, clock=lambda: next(clock),
                      sleep=slept.append, max_loops=3)
        self.assertEqual((rc, out, slept), (0, "0, 81559\n" * 3, [0.5, 0.5]))

    def test_no_gpus_is_the_driver_error(self):
        rc, out = run(["-L"], {"gpus": []})
        self.assertEqual(rc, 9)
        self.assertTrue(out.startswith("NVIDIA-SMI has failed"), out)

    def test_usage_errors(self):
        rc, out = run(["--query-gpu=index"], {"gpus": [gpu()]})
        self.assertEqual(rc, 2)
        self.assertIn('"--format=" switch is missing', out)
        self.assertEqual(run(["--bogus"], {"gpus": [gpu()]})[0], 2)

    def test_the_values_follow_the_load_model(self):
        g = gpu()
        s = nvsmi.sample(g, NOW)
        util, mem = gpuload.pod_load("pod-uid", "train", g["start"], NOW)
        self.assertEqual(s["utilization.gpu"], str(util))
        self.assertEqual(s["memory.used"], str(int(81559 * mem)))
        self.assertTrue(re.match(r"^\d+\.\d\d$", s["power.draw"]))


if __name__ == "__main__":
    unittest.main()
