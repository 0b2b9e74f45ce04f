"""The cluster's GPUs as the load model sees them, read from the store:
each node's devices (product, memory, power), which device(s) and share
every running pod holds there, and each pod's load at a given moment.

prometheus.py (the `runai top` series) and podproc.py (the nvidia-smi file
a GPU pod's sandbox gets) both read GPUs through here, so they cannot
disagree; the numbers themselves come from gpuload.py.
"""

import time

from kubesim import gpuload
from kubesim.gpus import GPU, gpu_request, node_gpu_memory
from kubesim.objutil import (NODES, PODS, annotation_of, key_of, label_of, meta_of,
                             node_name_of, number, parse_rfc3339, phase_of)

PRODUCT_LABEL = "nvidia.com/gpu.product"
INTERACTIVE = ("build", "interactive-preemptible")


def node_gpus(node):
    """(count, name, MiB per GPU, power limit, idle power) of a node."""
    st = (node or {}).get("status") or {}
    count = int(number((st.get("capacity") or st.get("allocatable") or {}).get(GPU), 0))
    name, mib, tdp, idle = gpuload.product(label_of(node or {}, PRODUCT_LABEL),
                                           node_gpu_memory(node))
    return count, name, mib, tdp, idle


def running_on(store, node_name):
    return [p for p in store.select(PODS, field_selector="spec.nodeName=" + node_name)
            if phase_of(p) == "Running"] if node_name else []


def devices(node, pods):
    """{(ns, pod): [(index, share)]} for the running pods of one node."""
    count, _, mib, _, _ = node_gpus(node)
    rows = []
    for p in pods:
        whole, frac = gpu_request(p, mib)
        if whole <= 0 and frac <= 0:
            continue
        idx = annotation_of(p, "runai-gpu")
        rows.append((key_of(p), whole, min(frac, 1.0),
                     int(number(idx, 0)) if idx is not None else None,
                     meta_of(p).get("creationTimestamp") or ""))
    return gpuload.assign(count, rows)


def kind_of(pod):
    return "interactive" if label_of(pod, "priorityClassName") in INTERACTIVE else "train"


def started(pod, now):
    return parse_rfc3339((pod.get("status") or {}).get("startTime")) or now


def load(pod, now):
    """(utilization %, share of its GPU memory used) of a running pod."""
    return gpuload.pod_load(meta_of(pod).get("uid") or "/".join(key_of(pod)),
                            kind_of(pod), started(pod, now), now)


def pod_spec(store, pod, now=None):
    """What the pod's nvidia-smi needs: its GPUs with their share."""
    now = time.time() if now is None else now
    node = store.get(NODES, "", node_name_of(pod)) if node_name_of(pod) else None
    pods = running_on(store, node_name_of(pod))
    if key_of(pod) not in [key_of(p) for p in pods]:
        pods.append(pod)
    held = devices(node, pods).get(key_of(pod)) or []
    _, name, mib, tdp, idle = node_gpus(node)
    gpus = []
    for index, share in held:
        gpus.append({"index": index, "uuid": gpuload.device_uuid(node_name_of(pod), index),
                     "bus_id": gpuload.bus_id(index), "name": name, "memory_mib": mib,
                     "share": share, "tdp": tdp, "idle": idle,
                     "seed": meta_of(pod).get("uid") or "/".join(key_of(pod)),
                     "kind": kind_of(pod), "start": started(pod, now)})
    return {"gpus": gpus}
