"""The cluster's GPUs as the load model sees them, read from the store:
each node's devices (product, memory, power), which device(s) and share
every running pod holds there, and each pod's load at a given moment.

prometheus.py (the `runai top` series), podproc.py (the nvidia-smi file
a GPU pod's sandbox gets) and nodegpus.py (the whole node's nvidia-smi,
which rntop reads over SSH) all read GPUs through here, so they cannot
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


def tenant(pod, share, now):
    """One pod on one device, as the node's nvidia-smi lists it: the load
    model's inputs, its process id and its cgroup (see nodegpus.py)."""
    uid = meta_of(pod).get("uid") or "/".join(key_of(pod))
    statuses = (pod.get("status") or {}).get("containerStatuses") or [{}]
    cid = (statuses[0].get("containerID") or "").partition("://")[2]
    return {"seed": uid, "kind": kind_of(pod), "start": started(pod, now), "share": share,
            "pod": "/".join(key_of(pod)), "uid": uid, "container_id": cid,
            "qos": (pod.get("status") or {}).get("qosClass") or "Burstable",
            "pid": gpuload.process_id(uid), "process": process_name(pod)}


def process_name(pod):
    """The name nvidia-smi gives the pod's GPU process: its command's."""
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    argv = containers[0].get("command") or []
    return str(argv[0]).rsplit("/", 1)[-1][:31] if argv else "python3"


def node_spec(store, node_name, now=None):
    """Every GPU of one node, each with the pods that hold it (whole or a
    share): what the node's own nvidia-smi answers from."""
    now = time.time() if now is None else now
    node = store.get(NODES, "", node_name)
    if node is None:
        return {"gpus": []}
    count, name, mib, tdp, idle = node_gpus(node)
    pods = running_on(store, node_name)
    held = devices(node, pods)
    by_key = {key_of(p): p for p in pods}
    gpus = [{"index": i, "uuid": gpuload.device_uuid(node_name, i),
             "bus_id": gpuload.bus_id(i), "name": name, "memory_mib": mib, "share": 1.0,
             "tdp": tdp, "idle": idle, "tenants": []} for i in range(count)]
    for key in sorted(held):
        for index, share in held[key]:
            gpus[index]["tenants"].append(tenant(by_key[key], share, now))
    return {"node": node_name, "gpus": gpus}
