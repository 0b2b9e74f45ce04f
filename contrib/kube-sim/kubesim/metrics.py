"""metrics.k8s.io/v1beta1, as metrics-server serves it: NodeMetrics and
PodMetrics for `kubectl top nodes` and `kubectl top pods`.

The numbers come from the GPU load model (gpuview/gpuload), so they move
with what nvidia-smi and Prometheus show: a running container uses a
share of the CPU it requested that follows its pod's GPU utilization
(idle work a little, training most of it), and the share of the memory
it requested that its GPU memory use has. A node adds what its system
daemons use. Only running pods on a node have metrics, as with
metrics-server, whose window is the last scrape's.
"""

import time

from kubesim import gpuload, gpuview
from kubesim.errors import method_not_allowed, not_found
from kubesim.objutil import NODES, PODS, key_of, meta_of, phase_of
from kubesim.quantity import QuantityError, parse as parse_quantity

GROUP = "metrics.k8s.io"
API_VERSION = "metrics.k8s.io/v1beta1"
WINDOW = "20.047s"
SYSTEM_CPU_MILLI = 180          # kubelet, containerd and the node's agents
SYSTEM_MEMORY = 1536 << 20
DEFAULT_CPU_MILLI = 100         # what a container that asked for nothing uses at most
DEFAULT_MEMORY = 256 << 20


def _amount(resources, key):
    for part in ("requests", "limits"):
        value = (resources.get(part) or {}).get(key)
        if value is not None:
            try:
                return float(parse_quantity(value)[0])
            except QuantityError:
                return None
    return None


def _stamp(now):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(now)))


def container_usage(pod, container, now):
    """(cpu millicores, memory bytes) one running container uses at `now`."""
    util, mem_share = gpuview.load(pod, now)
    seed = "%s/%s" % (meta_of(pod).get("uid") or "/".join(key_of(pod)), container.get("name"))
    busy = 0.05 + 0.9 * util / 100.0 + 0.03 * gpuload.unit(seed, "cpu", int(now // 15))
    resources = container.get("resources") or {}
    cpu = _amount(resources, "cpu")
    memory = _amount(resources, "memory")
    cpu_milli = (cpu * 1000 if cpu else DEFAULT_CPU_MILLI) * busy
    mem = (memory or DEFAULT_MEMORY) * (0.1 + 0.8 * mem_share)
    return max(1, int(cpu_milli)), max(4 << 20, int(mem))


def _cpu_text(milli):
    return "%dn" % (milli * 1000000)


def _mem_text(nbytes):
    return "%dKi" % (nbytes // 1024)


def pod_metrics(pod, now):
    containers = []
    for c in (pod.get("spec") or {}).get("containers") or []:
        if isinstance(c, dict):
            cpu, mem = container_usage(pod, c, now)
            containers.append({"name": c.get("name", ""),
                               "usage": {"cpu": _cpu_text(cpu), "memory": _mem_text(mem)}})
    meta = meta_of(pod)
    return {"kind": "PodMetrics", "apiVersion": API_VERSION,
            "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace"),
                         "creationTimestamp": _stamp(now),
                         "labels": dict(meta.get("labels") or {})},
            "timestamp": _stamp(now - 10), "window": WINDOW, "containers": containers}


def node_metrics(node, pods, now):
    cpu, mem = SYSTEM_CPU_MILLI, SYSTEM_MEMORY
    for pod in pods:
        for c in (pod.get("spec") or {}).get("containers") or []:
            if isinstance(c, dict):
                c_cpu, c_mem = container_usage(pod, c, now)
                cpu += c_cpu
                mem += c_mem
    meta = meta_of(node)
    return {"kind": "NodeMetrics", "apiVersion": API_VERSION,
            "metadata": {"name": meta.get("name"), "creationTimestamp": _stamp(now),
                         "labels": dict(meta.get("labels") or {})},
            "timestamp": _stamp(now - 10), "window": WINDOW,
            "usage": {"cpu": _cpu_text(cpu), "memory": _mem_text(mem)}}


def _running(store, namespace=None):
    return [p for p in store.select(PODS, namespace)
            if phase_of(p) == "Running" and (p.get("spec") or {}).get("nodeName")]


def serve(handler, res, req):
    """GET of one item or a list (label selectors apply to the pods' and
    nodes' own labels)."""
    if handler.command != "GET" or req.subresource:
        raise method_not_allowed(handler.command)
    store, now = handler.sim.store, time.time()
    lsel = (handler.query.get("labelSelector") or [""])[0]
    if res.plural == "nodes":
        running = _running(store)
        nodes = store.select(NODES, None, lsel or None) if not req.name else \
            [n for n in [store.get(NODES, None, req.name)] if n]
        items = [node_metrics(n, [p for p in running if p["spec"]["nodeName"] ==
                                  meta_of(n).get("name")], now) for n in nodes]
    else:
        pods = _running(store, req.namespace)
        if req.name:
            pods = [p for p in pods if meta_of(p).get("name") == req.name]
        elif lsel:
            chosen = {key_of(p) for p in store.select(PODS, req.namespace, lsel)}
            pods = [p for p in pods if key_of(p) in chosen]
        items = [pod_metrics(p, now) for p in pods]
    if req.name:
        if not items:
            raise not_found(res.plural, req.name, GROUP)
        return handler.send_json(200, items[0])
    for item in items:
        item.pop("kind")
        item.pop("apiVersion")
    handler.send_json(200, {"kind": res.kind + "List", "apiVersion": API_VERSION,
                            "metadata": {}, "items": items})
