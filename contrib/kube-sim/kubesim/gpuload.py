"""The emulator's GPU load model: what the GPUs that running pods hold are
doing at a given moment, and which device of its node each pod holds.

One model, so that the three places that show GPU load agree: the
`nvidia-smi` inside a pod (nvsmi.py), the Prometheus series that `runai
top` reads (prometheus.py) and, later, rntop. It is a pure function of a
pod's seed (its uid), kind (training or interactive), start time and the
clock, so the nvidia-smi a pod runs computes the same numbers the API
server does without asking it. Pure stdlib, no kubesim imports: this file
is also copied, with nvsmi.py, into the pods' nvidia-smi.
"""

import hashlib
import math

RAMP_SECONDS = 20.0          # a job's load and memory grow over this long
DRIVER = "580.159.04"
CUDA = "13.0"

# product -> (name nvidia-smi prints, MiB it reports, board power limit W,
# idle power W); the label is nvidia.com/gpu.product as GPU feature
# discovery writes it
PRODUCTS = {
    "NVIDIA-A100-SXM4-80GB": ("NVIDIA A100-SXM4-80GB", 81920, 400, 62),
    "NVIDIA-A100-SXM4-40GB": ("NVIDIA A100-SXM4-40GB", 40960, 400, 55),
    "NVIDIA-A100-PCIE-40GB": ("NVIDIA A100-PCIE-40GB", 40960, 250, 35),
    "NVIDIA-A100-80GB-PCIe": ("NVIDIA A100 80GB PCIe", 81920, 300, 45),
    "NVIDIA-H100-80GB-HBM3": ("NVIDIA H100 80GB HBM3", 81559, 700, 77),
    "NVIDIA-H200": ("NVIDIA H200", 143771, 700, 80),
}
DEFAULT_PRODUCT = "NVIDIA-A100-SXM4-80GB"


def unit(*parts):
    """A stable number in [0, 1) from the parts (no global randomness)."""
    h = hashlib.sha256("\0".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2.0 ** 64


def product(label, memory_mib=None):
    """(name, MiB, power limit, idle power) for a node's product label;
    a node's own memory label wins over the table's figure."""
    name, mib, tdp, idle = PRODUCTS.get(label or DEFAULT_PRODUCT) or \
        (str(label).replace("-", " ", 1), 81920, 400, 60)
    if memory_mib:
        mib = int(memory_mib)
    return name, mib, tdp, idle


def device_uuid(node, index):
    h = hashlib.sha256(("%s/%d" % (node, index)).encode()).hexdigest()
    return "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def process_id(seed):
    """The host process id a pod's GPU process has on its emulated node:
    stable for the pod, in the range a busy node's pids live in."""
    return 1000 + int(unit(seed, "pid") * 4000000)


def bus_id(index):
    return "00000000:%02X:00.0" % (0x07 + 0x10 * index)


def assign(gpu_count, pods):
    """Which devices the pods of one node hold.

    `pods`: (key, whole, fraction, index or None, order) per running pod;
    a fraction carries the device index the scheduler wrote (annotation
    runai-gpu), whole GPUs get the free devices lowest first, in `order`.
    Returns {key: [(index, share), ...]}."""
    used = [0.0] * gpu_count
    out = {}
    for key, whole, frac, index, _ in pods:
        if frac and index is not None and 0 <= index < gpu_count:
            out[key] = [(index, frac)]
            used[index] += frac
    for key, whole, frac, index, _ in sorted(pods, key=lambda p: (p[4], p[0])):
        if key in out:
            continue
        if frac:
            shared = [i for i in range(gpu_count) if 0 < used[i] and used[i] + frac <= 1 + 1e-6]
            free = [i for i in range(gpu_count) if used[i] == 0]
            if shared or free:
                i = (shared or free)[0]
                used[i] += frac
                out[key] = [(i, frac)]
            continue
        mine = []
        for i in range(gpu_count):
            if len(mine) >= int(round(whole)):
                break
            if used[i] == 0:
                used[i] = 1.0
                mine.append((i, 1.0))
        if mine:
            out[key] = mine
    return out


def pod_load(seed, kind, start, now):
    """(utilization %, share of its GPU memory used) of one pod's GPUs at
    `now`: training runs hot with a slow wave, interactive work idles with
    bursts; both ramp up over RAMP_SECONDS from the pod's start."""
    age = max(0.0, now - start)
    ramp = min(1.0, age / RAMP_SECONDS)
    bucket = int(now // 2)
    if kind == "interactive":
        base = 2 + 10 * unit(seed, "base")
        burst = 60 * unit(seed, "burst", bucket // 5) if unit(seed, "on", bucket // 5) > 0.7 else 0
        util = base + burst + 3 * unit(seed, "jitter", bucket)
        mem = 0.15 + 0.25 * unit(seed, "mem")
    else:
        period = 60 + 120 * unit(seed, "period")
        base = 72 + 20 * unit(seed, "base")
        util = base + 6 * math.sin(2 * math.pi * age / period) + \
            6 * (unit(seed, "jitter", bucket) - 0.5)
        mem = 0.55 + 0.35 * unit(seed, "mem")
    util = max(0, min(100, int(round(util * ramp))))
    return util, mem * min(1.0, 0.2 + ramp)


def device_sample(util, mem_used_mib, tdp, idle, seed=""):
    """Temperature (C) and power draw (W) that go with a utilization."""
    temp = int(round(31 + 0.36 * util + 2 * unit(seed, "temp")))
    power = idle + (tdp - idle) * util / 100.0 * (0.93 + 0.05 * unit(seed, "power"))
    return temp, round(power, 2)
